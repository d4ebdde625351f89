/* mod_sys.c: the sys module: argv, exit, version, platform, maxsize. */
#include <stdint.h>
#include <stdio.h>

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

static int sys_init(Interp *I, Value *m) {
  dict_set_sym(m->u.mod->dict, sym_cstr("argv"), interp_argv(I)); /* the list itself */
  bi_set_member_take(m, "version", val_cstr(TES_VERSION));
  bi_set_member_take(m, "platform", val_cstr("linux"));
  bi_set_member_take(m, "maxsize", val_int(INT64_MAX));
  return 0;
}

static const Builtin sys_funcs[] = {
    {"exit", bi_sys_exit, 0, PARAMS("code"),
     "exit(code=None) -> raises SystemExit: ends the script with status code (None: 0; a "
     "message: printed, status 1)"},
    {0},
};

const ModuleDef mod_sys = {"sys", sys_funcs, sys_init, "the interpreter: argv, exit, version",
                           NULL,  NULL};
