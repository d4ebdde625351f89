/* test_check_bounds.c: tes.CheckBounds (ir/pass/check_bounds.c) and the verdicts of
 * ir/bounds.c, through lower_run: a read certainly outside its tensor is an error naming the
 * stage, tensor, dimension, range and shape; one not provably inside is a warning (to the
 * LowerOptions hook), once; guarded reads (if_then_else, non-dividing splits) are silent;
 * gathers are left to the run-time checks; tir.InstrumentBoundCheckers puts asserts where the
 * analyzer cannot prove an access inside. */
#include "ir/bounds.h"
#include "tests/unit/schedule/sched_test.h"

static Var *m;
static StrBuf warnings;
static int nwarnings;

static void collect(void *user, const char *msg) {
  (void)user;
  sb_printf(&warnings, "%s\n", msg);
  nwarnings++;
}

/* tvm.lower(s, [in, out]) with the warnings collected; "error: ..." on failure. */
static const char *lower2(Tensor *in, Tensor *out, const PassOption *opt) {
  warnings.len = 0;
  if (warnings.s) warnings.s[0] = 0;
  nwarnings = 0;
  LowerOptions o = {.warn = collect, .noptions = opt ? 1 : 0, .options = opt};
  Tensor *args[2] = {in, out};
  return lowered_with(schedule(1, out), &o, 2, args);
}

static Tensor *a10;

/* B[i] = f(i) over shape (n,) */
static Tensor *map(const char *name, Expr *n, Expr *(*f)(Expr *)) {
  Expr *shape[1] = {n};
  ComputeDef d = axes(1, shape, NULL);
  return compute(name, d, f(iv_ref(d.axis[0])));
}

static Expr *shifted(Expr *i) { return at(a10, add(i, I(5))); }
static Expr *guarded_shift(Expr *i) {
  Expr *args[3] = {ir_binary(&A, EXPR_LT, i, I(8)), at(a10, add(i, I(5))), F(0)};
  return ir_call(&A, DT_F32, "tir.if_then_else", CALL_PURE, 3, args);
}
static Expr *below(Expr *i) { return at(a10, sub(i, I(1))); }
static Expr *clamped(Expr *i) { return at(a10, ir_binary(&A, EXPR_MIN, i, I(9))); }
static Expr *padded(Expr *i) {
  Expr *c =
      ir_binary(&A, EXPR_AND, ir_binary(&A, EXPR_GE, i, I(2)), ir_binary(&A, EXPR_LT, i, I(12)));
  Expr *args[3] = {c, at(a10, sub(i, I(2))), F(0)};
  return ir_call(&A, DT_F32, "tir.if_then_else", CALL_PURE, 3, args);
}
/* if_then_else(i < 20, A[i], 0): a guard too loose for A's 10 elements */
static Expr *loose_pad(Expr *i) {
  Expr *args[3] = {ir_binary(&A, EXPR_LT, i, I(20)), at(a10, i), F(0)};
  return ir_call(&A, DT_F32, "tir.if_then_else", CALL_PURE, 3, args);
}
static Expr *selected(Expr *i) {
  return ir_select(&A, ir_binary(&A, EXPR_GE, i, I(1)), at(a10, sub(i, I(1))), F(0));
}

static void test_check_bounds_errors(void) {
  CHECK_TEXT(lower2(a10, map("B", I(10), shifted), NULL),
             "error: stage B reads tensor A out of bounds: dimension 0 of A[(i + 5)] takes "
             "indices [5, 14], outside its shape (10,)");
  CHECK_TEXT(lower2(a10, map("B", I(10), below), NULL),
             "error: stage B reads tensor A out of bounds: dimension 0 of A[(i - 1)] takes "
             "indices [-1, 8], outside its shape (10,)");
  /* over a symbolic extent the loop may not run and its bounds are not constant: nothing */
  CHECK(strncmp(lower2(a10, map("B", V(m), shifted), NULL), "@main", 5) == 0 && nwarnings == 0);
  /* under a guard, a warning: i < 8 does not keep i + 5 below 10 */
  CHECK(strncmp(lower2(a10, map("B", I(10), guarded_shift), NULL), "@main", 5) == 0);
  CHECK_TEXT(sb_cstr(&warnings),
             "stage B may read tensor A out of bounds: dimension 0 of A[(i + 5)] takes indices "
             "[5, 12], not provably inside its shape (10,)\n");
}

static void test_check_bounds_silent(void) {
  CHECK(strncmp(lower2(a10, map("B", I(14), padded), NULL), "@main", 5) == 0 && nwarnings == 0);
  CHECK(strncmp(lower2(a10, map("B", V(m), clamped), NULL), "@main", 5) == 0 && nwarnings == 0);
  /* a split of 10 by 3 guards its tail with likely(): proven inside */
  Tensor *b = map("B", I(10), clamped);
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(3), NULL, &xo, &xi));
  LowerOptions o = {.warn = collect};
  Tensor *args[2] = {a10, b};
  nwarnings = 0;
  CHECK(strncmp(lowered_with(s, &o, 2, args), "@main", 5) == 0 && nwarnings == 0);
}

/* select reads both values: a warning with a hint, never an error */
static void test_check_bounds_select(void) {
  CHECK(strncmp(lower2(a10, map("B", I(10), selected), NULL), "@main", 5) == 0);
  CHECK_TEXT(sb_cstr(&warnings),
             "stage B may read tensor A out of bounds: dimension 0 of A[(i - 1)] takes indices "
             "[-1, 8], not provably inside its shape (10,) (select evaluates both values; "
             "te.if_then_else reads only the one it picks)\n");
}

/* ir_index_verdict: certainly outside needs an unguarded access under loops that run */
static void test_check_bounds_verdicts(void) {
  Analyzer *an = arith_new(&A);
  AccessNest nest = {0};
  Var *i = var("i"), *k = var("k");
  ConstBound r;
  ir_nest_enter_loop(&nest, an, &A, i, I(0), I(8));
  CHECK(ir_index_verdict(an, &A, &nest, V(i), I(8), &r) == IDX_INSIDE);
  CHECK(ir_index_verdict(an, &A, &nest, add(V(i), I(1)), I(8), &r) == IDX_OUTSIDE);
  CHECK(r.min == 1 && r.max == 8);
  /* floordiv(i, 2) + i is not a sum of distinct variables: its bound may not be reached */
  Expr *half = ir_binary(&A, EXPR_FLOORDIV, V(i), I(2));
  CHECK(ir_index_verdict(an, &A, &nest, add(half, V(i)), I(10), &r) == IDX_MAYBE);
  /* i*2 + i is i*3, which is */
  CHECK(ir_index_verdict(an, &A, &nest, add(mul(V(i), I(2)), V(i)), I(20), &r) == IDX_OUTSIDE);
  /* all of it outside is certain whatever its form */
  CHECK(ir_index_verdict(an, &A, &nest, add(mul(V(i), V(i)), I(30)), I(20), &r) == IDX_OUTSIDE);
  /* against a symbolic size only the certain verdicts */
  CHECK(ir_index_verdict(an, &A, &nest, add(V(i), I(1)), V(m), &r) == IDX_INSIDE);
  CHECK(ir_index_verdict(an, &A, &nest, sub(V(i), I(1)), V(m), &r) == IDX_OUTSIDE);
  nest.guards++;
  CHECK(ir_index_verdict(an, &A, &nest, add(V(i), I(1)), I(8), &r) == IDX_MAYBE);
  nest.guards--;
  /* a loop of symbolic extent may not run */
  ir_nest_enter_loop(&nest, an, &A, k, I(0), V(m));
  CHECK(ir_index_verdict(an, &A, &nest, add(V(i), I(1)), I(8), &r) == IDX_MAYBE);
  ir_nest_leave_loop(&nest, an);
  ir_nest_leave_loop(&nest, an);
  ir_nest_free(&nest);
  arith_free(an);
  char buf[64];
  CHECK_TEXT(ir_range_text((ConstBound){-1, ARITH_POS_INF}, buf), "[-1, +inf)");
  CHECK_TEXT(ir_range_text((ConstBound){ARITH_NEG_INF, 3}, buf), "(-inf, 3]");
}

/* tir.InstrumentBoundCheckers asserts what it cannot prove, and nothing it can */
static void test_instrument_bound_checkers(void) {
  PassOption on = {"tir.InstrumentBoundCheckers", "enable", 1};
  const char *got = lower2(a10, map("B", V(m), clamped), &on);
  CHECK(strstr(got, "assert") == NULL);
  CHECK_TEXT(lower2(a10, map("B", V(m), below), &on),
             "@main = primfn(A: Buffer(float32, [10]), B: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    assert(((1 <= i) && (i < 11)), \"out-of-bounds read of buffer A: index (i - 1) "
             "is outside [0, 10)\");\n"
             "    B[i] = A[(i - 1)]\n"
             "  }\n"
             "}\n");
  CHECK(strstr(lower2(a10, map("B", V(m), below), NULL), "assert") == NULL);
  /* a padding read proven inside needs no check; one that is not is checked only when its
   * branch is taken */
  CHECK(strstr(lower2(a10, map("B", V(m), padded), &on), "assert") == NULL);
  got = lower2(a10, map("B", V(m), loose_pad), &on);
  CHECK(strstr(got, "assert(((20 <= i) || (i < 10)), ") != NULL);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  a10 = placeholder("A", 1, I(10));
  test_check_bounds_errors();
  test_check_bounds_silent();
  test_check_bounds_select();
  test_check_bounds_verdicts();
  test_instrument_bound_checkers();
  sb_free(&warnings);
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
