/* test_const_bound.c: unit tests of ir/arith/const_bound.c: the bound of each operator from
 * bound variables, infinities and saturation, casts, divisions by ranges holding zero, and the
 * bounds constraints add and take away again. */
#include "arith_test.h"

#define INF ARITH_POS_INF
#define NINF ARITH_NEG_INF

static int bound_is(const char *text, int64_t lo, int64_t hi) {
  ConstBound b = arith_const_bound(AN, P(text));
  if (b.min == lo && b.max == hi) return 1;
  printf("    bound of %s is [%lld, %lld]\n", text, (long long)b.min, (long long)b.max);
  return 0;
}

#define CHECK_BOUND(text, lo, hi) CHECK(bound_is(text, lo, hi))

static void setup(void) {
  world_reset();
  bind("i", 0, 16);      /* [0, 15] */
  bind("j", 0, 32);      /* [0, 31] */
  bind("k", -8, 16);     /* [-8, 7] */
  bind("i.outer", 0, 4); /* [0, 3] */
  bind("i.inner", 0, 32);
}

static void test_const_bound_leaves(void) {
  setup();
  CHECK_BOUND("7", 7, 7);
  CHECK_BOUND("-3", -3, -3);
  CHECK_BOUND("i", 0, 15);
  CHECK_BOUND("k", -8, 7);
  CHECK_BOUND("free", INT32_MIN, INT32_MAX); /* an unbound int32 */
  CHECK_BOUND("5i64", 5, 5);
  Var *n64 = var_t("n64", DT_I64);
  CHECK(arith_const_bound(AN, ir_varref(&A, n64)).min == NINF);
  CHECK(arith_const_bound(AN, ir_varref(&A, n64)).max == INF);
  Var *u8 = var_t("u8", DT_MAKE(DT_UINT, 8, 1));
  CHECK(arith_const_bound(AN, ir_varref(&A, u8)).max == 255);
  CHECK_BOUND("True", 1, 1);
  CHECK_BOUND("(i < j)", 0, 1);
}

static void test_const_bound_arith(void) {
  setup();
  CHECK_BOUND("(i + j)", 0, 46);
  CHECK_BOUND("(i - j)", -31, 15);
  CHECK_BOUND("(k*3)", -24, 21);
  CHECK_BOUND("(k*-2)", -14, 16);
  CHECK_BOUND("(i*k)", -120, 105);
  CHECK_BOUND("((i.outer*32) + i.inner)", 0, 127);
  CHECK_BOUND("(((i.outer*32) + i.inner) - 128)", -128, -1);
  CHECK_BOUND("min(i, j)", 0, 15);
  CHECK_BOUND("max(i, k)", 0, 15);
  CHECK_BOUND("min(k, 0)", -8, 0);
  CHECK_BOUND("select((i < 3), i, 100)", 0, 100);
  CHECK_BOUND("if_then_else((i < 3), k, 100)", -8, 100);
  CHECK_BOUND("(free + 1)", INT64_C(-2147483647), INT64_C(2147483648));
}

static void test_const_bound_division(void) {
  setup();
  CHECK_BOUND("floordiv(j, 4)", 0, 7);
  CHECK_BOUND("floordiv(k, 4)", -2, 1);
  CHECK_BOUND("(k / 4)", -2, 1);
  CHECK_BOUND("floordiv(k, -4)", -2, 2);
  CHECK_BOUND("floormod(k, 4)", 0, 3);
  CHECK_BOUND("floormod(i, 32)", 0, 15);
  CHECK_BOUND("floormod(j, 8)", 0, 7);
  CHECK_BOUND("(k % 4)", -3, 3);
  CHECK_BOUND("(i % 4)", 0, 3);
  CHECK_BOUND("(j % 64)", 0, 31);
  CHECK_BOUND("floordiv(j, (i + 1))", 0, 31);
  /* a divisor range holding 0: each side of it separately */
  CHECK_BOUND("floordiv(j, k)", -31, 31);
  CHECK_BOUND("floordiv(100, (i + 1))", 6, 100);
  CHECK_BOUND("floormod(j, k)", INT32_MIN, INT32_MAX);
  CHECK_BOUND("floordiv(((i.outer*32) + i.inner), 32)", 0, 3);
}

static void test_const_bound_cast(void) {
  setup();
  CHECK_BOUND("cast(int64, k)", -8, 7);
  CHECK_BOUND("cast(int8, i)", 0, 15);
  CHECK_BOUND("cast(int8, (j*8))", -128, 127); /* 248 does not fit: it may wrap anywhere */
  CHECK_BOUND("cast(uint8, k)", 0, 255);
  CHECK_BOUND("cast(int32, 2.5f32)", INT32_MIN, INT32_MAX);
}

static void test_const_bound_saturation(void) {
  world_reset();
  Var *a = var_t("a", DT_I64), *b = var_t("b", DT_I64);
  arith_bind_bound(AN, a, (ConstBound){0, INF});
  arith_bind_bound(AN, b, (ConstBound){INT64_C(1) << 62, INT64_C(1) << 62});
  Expr *ea = ir_varref(&A, a), *eb = ir_varref(&A, b);
  ConstBound r = arith_const_bound(AN, ir_binary(&A, EXPR_ADD, eb, eb));
  CHECK(r.min == INF && r.max == INF); /* 2^63 overflows to +inf, never wraps */
  r = arith_const_bound(AN, ir_binary(&A, EXPR_MUL, ea, eb));
  CHECK(r.min == 0 && r.max == INF);
  r = arith_const_bound(AN, ir_binary(&A, EXPR_SUB, ir_int(&A, DT_I64, 0), ea));
  CHECK(r.min == NINF && r.max == 0);
  r = arith_const_bound(AN, ir_binary(&A, EXPR_FLOORDIV, ea, ir_int(&A, DT_I64, 2)));
  CHECK(r.min == 0 && r.max == INF);
  r = arith_const_bound(AN, ir_binary(&A, EXPR_FLOORMOD, ea, ir_int(&A, DT_I64, 10)));
  CHECK(r.min == 0 && r.max == 9);
  r = arith_const_bound(AN, ir_binary(&A, EXPR_MUL, ea, ir_int(&A, DT_I64, -1)));
  CHECK(r.min == NINF && r.max == 0);
}

static void test_const_bound_bind(void) {
  world_reset();
  Var *n = var("n");
  arith_bind_bound(AN, n, (ConstBound){0, INF}); /* te.size_var */
  CHECK_BOUND("n", 0, INF);
  arith_bind_bound(AN, n, (ConstBound){NINF, 100});
  CHECK_BOUND("n", 0, 100);
  /* a symbolic range: [min's min, min + extent - 1's max] */
  Var *i = var("i");
  arith_bind(AN, i, (Range){ir_i32(&A, 0), ir_varref(&A, n)});
  CHECK_BOUND("i", 0, 99);
  arith_bind(AN, var("m"), (Range){P("(n + 1)"), P("4")});
  CHECK_BOUND("m", 1, 104);
  /* an extent-1 range binds the value itself */
  arith_bind(AN, var("one"), (Range){P("(i*2)"), ir_i32(&A, 1)});
  CHECK_BOUND("one", 0, 198);
  arith_bind_value(AN, var("lv"), P("(i + 5)"));
  CHECK_BOUND("lv", 5, 104);
  /* a later bind replaces the earlier one */
  arith_bind(AN, var("i"), (Range){ir_i32(&A, 10), ir_i32(&A, 5)});
  CHECK_BOUND("i", 10, 14);
}

static void test_const_bound_constraints(void) {
  setup();
  arith_push_constraint(AN, P("(i < 5)"));
  CHECK_BOUND("i", 0, 4);
  arith_push_constraint(AN, P("((2 <= i) && (j == 7))"));
  CHECK_BOUND("i", 2, 4);
  CHECK_BOUND("j", 7, 7);
  CHECK_BOUND("(i + j)", 9, 11);
  arith_pop_constraint(AN);
  CHECK_BOUND("i", 0, 4);
  CHECK_BOUND("j", 0, 31);
  arith_pop_constraint(AN);
  CHECK_BOUND("i", 0, 15);
  /* the other spellings of a bound */
  arith_push_constraint(AN, P("(3 > k)"));
  CHECK_BOUND("k", -8, 2);
  arith_pop_constraint(AN);
  arith_push_constraint(AN, P("(k >= 1)"));
  CHECK_BOUND("k", 1, 7);
  arith_pop_constraint(AN);
  arith_push_constraint(AN, P("(0 < k)"));
  CHECK_BOUND("k", 1, 7);
  arith_pop_constraint(AN);
  /* a bound on a compound expression applies where that expression occurs */
  arith_push_constraint(AN, P("(((i.outer*32) + i.inner) < 100)"));
  CHECK_BOUND("((i.outer*32) + i.inner)", 0, 99);
  CHECK_BOUND("(((i.outer*32) + i.inner) + 1)", 1, 100);
  CHECK_BOUND("i.inner", 0, 31);
  arith_pop_constraint(AN);
  CHECK_BOUND("((i.outer*32) + i.inner)", 0, 127);
  /* a free variable constrained, then released */
  arith_push_constraint(AN, P("(q < 10)"));
  CHECK_BOUND("q", INT32_MIN, 9);
  arith_pop_constraint(AN);
  CHECK_BOUND("q", INT32_MIN, INT32_MAX);
  /* nothing is learnt from a disjunction or a comparison of two variables */
  arith_push_constraint(AN, P("((i < 3) || (j < 3))"));
  CHECK_BOUND("i", 0, 15);
  arith_pop_constraint(AN);
  arith_push_constraint(AN, P("(i < j)"));
  CHECK_BOUND("i", 0, 15);
  arith_pop_constraint(AN);
}

static void test_const_bound_let(void) {
  setup();
  Var *t = var("t");
  Expr *e = ir_let(&A, t, P("(i + 1)"), P("(t*2)"));
  ConstBound b = arith_const_bound(AN, e);
  CHECK(b.min == 2 && b.max == 32);
  CHECK_BOUND("t", INT32_MIN, INT32_MAX); /* the let's bound is gone after it */
}

static void test_const_bound_vector(void) {
  setup();
  CHECK_BOUND("ramp((i*4), 1, 4)", 0, 63);
  CHECK_BOUND("ramp(0, -2, 8)", -14, 0);
  CHECK_BOUND("broadcast(k, 4)", -8, 7);
}

int main(void) {
  test_const_bound_leaves();
  test_const_bound_arith();
  test_const_bound_division();
  test_const_bound_cast();
  test_const_bound_saturation();
  test_const_bound_bind();
  test_const_bound_constraints();
  test_const_bound_let();
  test_const_bound_vector();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
