/* test_state.c: unit tests of frontend/lang/state.c: the Interps of a process share one heap
 * state; the last interp_free frees it (a leak of anything it held shows under LeakSanitizer,
 * which ./check --sanitize runs), and the next Interp starts a fresh one that works as the
 * first did; a name interned before any Interp exists is adopted by the first. */
#include "frontend/lang/interp.h"
#include "frontend/lang/state.h"
#include "frontend/tvm/packages.h"
#include "tests/unit/check.h"

/* Cycles the collector breaks (a list holding itself, a closure and its frame), one it
 * cannot see (a list holding its own bound method), type objects, table attributes, and a te
 * shape that numpy reads through the int hook. */
static const char program[] = "l = [1, 'two', 3.0]\n"
                              "l.append(l)\n"
                              "m = []\n"
                              "m.append(m.append)\n"
                              "def f():\n"
                              "    def g():\n"
                              "        return g\n"
                              "    return g\n"
                              "h = f()\n"
                              "t = type(l) is list and 'abc'.upper() == 'ABC'\n"
                              "A = te.placeholder((7, 3), name='A')\n"
                              "n = np.zeros(A.shape).shape[0] * 10 + len(repr(l))\n";

/* Runs the program in I; the value of n, or -1. */
static int64_t run(Interp *I) {
  if (interp_run_text(I, "<state>", program, sizeof program - 1, false) < 0) {
    interp_error_clear(I);
    return -1;
  }
  Value *t = dict_get_sym(interp_globals(I), sym_cstr("t"));
  Value *n = dict_get_sym(interp_globals(I), sym_cstr("n"));
  return t == &val_true_ && n && n->kind == VAL_INT ? n->u.i : -1;
}

/* repr(l) is "[1, 'two', 3.0, [...]]", 22 characters. */
enum { EXPECTED = 7 * 10 + 22 };

static void test_in_sequence(void) {
  CHECK(tes_G == NULL);
  Interp *a = interp_new();
  CHECK(tes_G != NULL && tes_G->users == 1);
  CHECK(run(a) == EXPECTED);
  interp_free(a);
  CHECK(tes_G == NULL);
  Interp *b = interp_new();
  CHECK(tes_G != NULL && tes_G->users == 1 && tes_G->int_hook != NULL);
  CHECK(run(b) == EXPECTED);
  CHECK(sym_cstr("upper") == sym_intern("upper", 5));
  interp_free(b);
  CHECK(tes_G == NULL);
}

/* The REPL's :reset: the new session exists before the old one goes. */
static void test_overlapping(void) {
  Interp *old = interp_new();
  CHECK(run(old) == EXPECTED);
  TesState *G = tes_G;
  Interp *fresh = interp_new();
  CHECK(tes_G == G && G->users == 2);
  Sym *name = sym_cstr("n");
  interp_free(old);
  CHECK(tes_G == G && G->users == 1 && sym_cstr("n") == name);
  CHECK(run(fresh) == EXPECTED);
  interp_free(fresh);
  CHECK(tes_G == NULL);
}

/* The parser interns names with no Interp about: the first Interp adopts that state. */
static void test_booted_before_interp(void) {
  Sym *early = sym_cstr("early");
  TesState *G = tes_G;
  CHECK(G != NULL && G->users == 0);
  Interp *I = interp_new();
  CHECK(tes_G == G && G->users == 1 && sym_cstr("early") == early);
  CHECK(run(I) == EXPECTED);
  interp_free(I);
  CHECK(tes_G == NULL);
}

int main(void) {
  tvm_register_modules(); /* the programs run use tvm and numpy */
  test_in_sequence();
  test_overlapping();
  test_booted_before_interp();
  return finish();
}
