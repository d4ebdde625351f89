/* interp.c: a session's lifetime, the pending exception and its traceback, and the entry
 * points that parse, resolve and run source text. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "frontend/lang/interp_impl.h"
#include "frontend/lang/modules.h"
#include "frontend/lang/parse.h"
#include "frontend/lang/resolve.h"
#include "frontend/lang/state.h"

atomic_int tes_interrupted;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler sets tes_interrupted");

static size_t stack_budget(void) {
  struct rlimit rl;
  size_t lim = 8u << 20;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) lim = (size_t)rl.rlim_cur;
  if (lim > (256u << 20)) lim = 256u << 20;
  /* leave room for what runs below the last check: builtins, printing, the C library */
  return lim > (2u << 20) ? lim - (1u << 20) : lim / 2;
}

Interp *interp_new(void) {
  tes_state_open();
  Interp *I = xcalloc(1, sizeof *I);
  I->out = stdout;
  I->stack_limit = stack_budget();
  I->globals = val_dict_new();
  I->builtins = val_dict_new();
  I->modules = val_dict_new();
  I->argv = val_list_new(0);
  Value *main_name = val_cstr("__main__");
  dict_set_sym(I->globals, sym_cstr("__name__"), main_name);
  val_decref(main_name);
  builtins_install(I, I->builtins);
  mod_bind_prebound(I, I->globals); /* SPEC §5's tvm, te, topi, np, as registered */
  return I;
}

void interp_free(Interp *I) {
  if (!I) return;
  interp_error_clear(I);
  val_decref(I->globals);
  val_decref(I->builtins);
  val_decref(I->modules);
  val_decref(I->argv);
  val_xdecref(I->packed_funcs);
  val_xdecref(I->intrin_rules);
  val_xdecref(I->op_attrs);
  gc_collect(); /* functions and their frames refer to each other */
  arena_free(&I->ir_arena); /* values that pointed into it are gone now */
  free(I);
  tes_state_close(); /* last: the heap goes with the last Interp */
}

void interp_set_argv(Interp *I, int argc, char **argv) {
  Value *l = I->argv;
  while (VAL_SEQ_N(l) > 0) val_decref(l->u.list->items[--l->u.list->n]);
  for (int i = 0; i < argc; i++) val_list_append_take(l, val_cstr(argv[i]));
}

Value *interp_globals(Interp *I) { return I->globals; }
Value *interp_builtins(Interp *I) { return I->builtins; }
Value *interp_argv(Interp *I) { return I->argv; }
Value *interp_modules(Interp *I) { return I->modules; }
FILE *interp_stdout(Interp *I) { return I->out; }
Arena *interp_ir_arena(Interp *I) { return &I->ir_arena; }
void interp_set_stdout(Interp *I, FILE *out) { I->out = out; }
void interp_set_step_limit(Interp *I, int64_t max_steps) {
  I->step_limit = max_steps;
  I->steps = 0;
}

/* ---- the pending exception ---- */

Value *interp_raise_value(Interp *I, Value *exc) {
  TES_ASSERT(exc->kind == VAL_EXC, "raising a %s", val_type_name(exc));
  val_incref(exc);
  val_xdecref(I->error);
  I->error = exc;
  return NULL;
}

static Value *raise_v(Interp *I, ExcKind kind, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  Value *exc = val_exc_newf(kind, "%s", msg);
  interp_raise_value(I, exc);
  val_decref(exc);
  return NULL;
}

Value *interp_raise(Interp *I, ExcKind kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  raise_v(I, kind, fmt, ap);
  va_end(ap);
  return NULL;
}

static void trace_push(Exc *e, SrcLoc loc, Value *func, int depth) {
  if (e->ntb == e->captb) {
    e->captb = e->captb ? e->captb * 2 : 4;
    e->tb = xrealloc(e->tb, sizeof(TraceEntry) * (size_t)e->captb);
  }
  src_incref(loc.src);
  e->tb[e->ntb++] = (TraceEntry){loc, val_incref(func), depth};
}

static void locate(Interp *I, SrcLoc loc, Value *func) {
  if (!I->error) return;
  Exc *e = I->error->u.exc;
  if (e->has_loc || !loc.src) return;
  e->has_loc = true;
  e->loc = loc; /* the reference on loc.src is the one tb[0] holds */
  trace_push(e, loc, func, I->depth);
}

Value *interp_raise_at(Interp *I, SrcLoc loc, ExcKind kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  raise_v(I, kind, fmt, ap);
  va_end(ap);
  locate(I, loc, sym_cstr("<module>"));
  return NULL;
}

void interp_locate(Interp *I, Frame *F, SrcLoc loc) { locate(I, loc, F->name); }

void interp_trace_call(Interp *I, Frame *F, SrcLoc loc) {
  if (!I->error) return;
  Exc *e = I->error->u.exc;
  if (!e->has_loc) locate(I, loc, F->name);
  else if (e->ntb > 0 && e->tb[e->ntb - 1].depth > I->depth) trace_push(e, loc, F->name, I->depth);
}

bool interp_error_pending(const Interp *I) { return I->error != NULL; }

bool interp_error_matches(const Interp *I, ExcKind kind) {
  return I->error && exc_is(I->error->u.exc->type, &exc_types[kind]);
}

Value *interp_error_take(Interp *I) {
  Value *e = I->error;
  I->error = NULL;
  return e;
}

void interp_error_clear(Interp *I) {
  val_xdecref(I->error);
  I->error = NULL;
}

int interp_tick_slow(Interp *I) {
  if (tes_interrupted) {
    tes_interrupted = 0;
    interp_raise(I, EXC_KeyboardInterrupt, "interrupted");
    return -1;
  }
  if (I->step_limit && ++I->steps > I->step_limit) {
    interp_raise(I, EXC_RuntimeError, "step limit exceeded");
    return -1;
  }
  /* the frame address, not a local's: under AddressSanitizer locals may live on a heap
   * "fake stack" */
  char *here = __builtin_frame_address(0);
  if (I->stack_base && (size_t)(I->stack_base - here) > I->stack_limit) {
    interp_raise(I, EXC_RecursionError, "maximum recursion depth exceeded");
    return -1;
  }
  return 0;
}

/* ---- running source ---- */

int interp_run_unit(Interp *I, Unit *u, bool echo) {
  bool outermost = I->stack_base == NULL;
  if (outermost) I->stack_base = __builtin_frame_address(0);
  int r = interp_exec_module(I, u, I->globals, echo);
  if (outermost) I->stack_base = NULL;
  fflush(I->out);
  return r;
}

static int syntax_error(Interp *I, ParseError *err) {
  interp_raise_at(I, err->loc, EXC_SyntaxError, "%s", err->msg);
  return -1;
}

/* Parses src and runs it in globals (NULL: __main__'s, as a script or REPL line). */
static int run_source(Interp *I, Source *src, Value *globals, bool echo) {
  ParseError err = {0};
  Unit *u = parse_source(src, &err);
  int r;
  if (!u) r = syntax_error(I, &err);
  else if (resolve_unit(u, &err) < 0) r = syntax_error(I, &err);
  else if (!globals) r = interp_run_unit(I, u, echo);
  else r = interp_exec_module(I, u, globals, false);
  if (u) unit_decref(u);
  return r;
}

int interp_run_text(Interp *I, const char *name, const char *text, size_t len, bool echo) {
  Source *src = src_new(name, text, len);
  int r = run_source(I, src, NULL, echo);
  src_decref(src);
  return r;
}

int interp_run_source_in(Interp *I, Source *src, Value *globals) {
  return run_source(I, src, globals, false);
}

int interp_run_file(Interp *I, const char *path) {
  size_t len;
  char *text = read_whole_file(path, &len);
  if (!text) {
    interp_raise(I, EXC_RuntimeError, "can't open file '%s': %s", path, strerror(errno));
    return -1;
  }
  int r = interp_run_text(I, path, text, len, false);
  free(text);
  return r;
}
