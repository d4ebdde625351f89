/* mod_sys.c: the sys module: argv, exit, version, platform, maxsize, stdout, stderr. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"

#ifndef TES_VERSION /* meson defines it from the project version; this serves other builds */
#define TES_VERSION "0.0.0-unknown"
#endif

/* Python's exit-status rules: None is 0, an int is itself, anything else is printed to
 * standard error (now, while its value is at hand) and makes the status 1. */
static int exit_status(Interp *I, Value *code, int *status) {
  *status = 0;
  if (!code || code->kind == VAL_NONE) return 0;
  if (val_is_int(code)) return *status = (int)code->u.i, 0;
  Value *s = val_to_str(I, code);
  if (!s) return -1;
  fflush(interp_stdout(I));
  fprintf(stderr, "%s\n", s->u.str.s);
  val_decref(s);
  *status = 1;
  return 0;
}

static Value *bi_sys_exit(Interp *I, Value *self, Value **a) {
  Value *code = a[0];
  int status;
  if (exit_status(I, code, &status) < 0) return NULL;
  /* as CPython: exit(None) raises SystemExit() with no arguments, whose str is '' */
  Value *args = !code || code->kind == VAL_NONE ? val_tuple_new(0) : val_tuple_of(1, code);
  Value *exc = val_exc_new(&exc_types[EXC_SystemExit], args);
  val_decref(args);
  if (!exc) return NULL;
  exc->u.exc->code = status;
  interp_raise_value(I, exc);
  val_decref(exc);
  return NULL;
}

/* ---- sys.stdout and sys.stderr: text streams with write and flush ----
 * stdout is the interpreter's output (interp_stdout), where print writes, so a --serve cell or
 * the REPL's :ir capture sees both alike. stderr is standard error; what goes there first
 * flushes stdout, as tes's own error messages do, so that the two keep their order in a pipe. */
typedef struct Stream {
  int fd; /* 1 or 2 */
} Stream;

static const Stream stream_out = {1}, stream_err = {2};

static Value *stream_repr(Interp *I, Value *self) {
  const Stream *st = self->u.obj.p;
  return val_cstr(st->fd == 2 ? "<_io.TextIOWrapper name='<stderr>' mode='w' encoding='utf-8'>"
                              : "<_io.TextIOWrapper name='<stdout>' mode='w' encoding='utf-8'>");
}

static Value *stream_name(Interp *I, Value *self) {
  return val_cstr(((const Stream *)self->u.obj.p)->fd == 2 ? "<stderr>" : "<stdout>");
}
static Value *stream_mode(Interp *I, Value *self) { return val_cstr("w"); }
static Value *stream_encoding(Interp *I, Value *self) { return val_cstr("utf-8"); }

static const Property stream_props[] = {
    {"name", stream_name, "the stream's name: '<stdout>' or '<stderr>'"},
    {"mode", stream_mode, "'w': the stream is written"},
    {"encoding", stream_encoding, "'utf-8'"},
    {0},
};

static const ObjClass stream_class;

FILE *sys_stream_file(Interp *I, Value *v) {
  const Stream *st = val_obj_of(v, &stream_class);
  if (!st) return NULL;
  if (st->fd == 1) return interp_stdout(I);
  fflush(interp_stdout(I));
  return stderr;
}

static Value *bi_stream_write(Interp *I, Value *self, Value **a) {
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "write() argument must be str, not %s",
                        val_type_name(a[0]));
  FILE *f = sys_stream_file(I, self);
  fwrite(a[0]->u.str.s, 1, (size_t)a[0]->u.str.len, f);
  if (f == stderr) fflush(f);
  return val_int(val_len(I, a[0]));
}

static Value *bi_stream_flush(Interp *I, Value *self, Value **a) {
  fflush(sys_stream_file(I, self));
  return val_none();
}

static Value *bi_stream_isatty(Interp *I, Value *self, Value **a) {
  return val_bool(isatty(fileno(sys_stream_file(I, self))) == 1);
}

static const Builtin stream_methods[] = {
    {"write", bi_stream_write, 1, PARAMS("s"),
     "write(s) -> int: writes the str s, returns its length in characters"},
    {"flush", bi_stream_flush, 0, NOPARAMS, "flush() -> None: writes out what is buffered"},
    {"isatty", bi_stream_isatty, 0, NOPARAMS,
     "isatty() -> bool: whether the stream is a terminal"},
    {0},
};

static const ObjClass stream_class = {
    .type = {"TextIOWrapper", NULL, VAL_OBJ, NULL},
    .repr = stream_repr,
    .props = stream_props,
    .methods = stream_methods,
};

static int sys_init(Interp *I, Value *m) {
  dict_set_sym(m->u.mod->dict, sym_cstr("argv"), interp_argv(I)); /* the list itself */
  bi_set_member_take(m, "version", val_cstr(TES_VERSION));
  bi_set_member_take(m, "platform", val_cstr("linux"));
  bi_set_member_take(m, "maxsize", val_int(INT64_MAX));
  bi_set_member_take(m, "stdout", val_obj_new(&stream_class, (void *)&stream_out));
  bi_set_member_take(m, "stderr", val_obj_new(&stream_class, (void *)&stream_err));
  return 0;
}

static const Builtin sys_funcs[] = {
    {"exit", bi_sys_exit, 0, PARAMS("code"),
     "exit(code=None) -> raises SystemExit: ends the script with status code (None: 0; a "
     "message: printed, status 1)"},
    {0},
};

const ModuleDef mod_sys = {"sys", sys_funcs, sys_init, "the interpreter: argv, exit, version, stdout, stderr",
                           NULL,  NULL};
