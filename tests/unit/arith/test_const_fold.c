/* test_const_fold.c: unit tests of ir/arith/const_fold.c: folding in the dtype's width (int32
 * wraps, uint keeps its bits), floor and truncating division on negative operands, division by
 * zero left alone, float32 rounding, the one-constant identities TVM folds, casts, select. */
#include <math.h>

#include "arith_test.h"

static Expr *I(int64_t v) { return ir_i32(&A, v); }
static Expr *L(int64_t v) { return ir_int(&A, DT_I64, v); }
static Expr *U8(int64_t v) { return ir_int(&A, DT_MAKE(DT_UINT, 8, 1), v); }
static Expr *F(double v) { return ir_float(&A, DT_F32, v); }
static Expr *B(int v) { return ir_int(&A, DT_BOOL1, v); }
static Expr *X(void) { return ir_varref(&A, var("x")); }

/* k folded on two constants, printed; "-" when it does not fold. */
static const char *fold(ExprKind k, Expr *a, Expr *b) {
  Expr *r = arith_try_fold(&A, k, a, b);
  return r ? pe(r) : "-";
}

#define CHECK_FOLD(k, a, b, want) CHECK(!strcmp(fold(k, a, b), want))

static void test_const_fold_wrap(void) {
  CHECK(arith_wrap(DT_I32, INT64_C(2147483648)) == INT64_C(-2147483648));
  CHECK(arith_wrap(DT_I32, INT64_C(4294967297)) == 1);
  CHECK(arith_wrap(DT_I32, -1) == -1);
  CHECK(arith_wrap(DT_MAKE(DT_INT, 8, 1), 200) == -56);
  CHECK(arith_wrap(DT_MAKE(DT_UINT, 8, 1), -1) == 255);
  CHECK(arith_wrap(DT_MAKE(DT_UINT, 16, 1), 65537) == 1);
  CHECK(arith_wrap(DT_BOOL1, 7) == 1);
  CHECK(arith_wrap(DT_I64, INT64_MIN) == INT64_MIN);
}

static void test_const_fold_int32(void) {
  CHECK_FOLD(EXPR_ADD, I(2), I(3), "5");
  CHECK_FOLD(EXPR_SUB, I(2), I(3), "-1");
  CHECK_FOLD(EXPR_MUL, I(6), I(7), "42");
  CHECK_FOLD(EXPR_ADD, I(2147483647), I(1), "-2147483648");
  CHECK_FOLD(EXPR_MUL, I(65536), I(65536), "0");
  CHECK_FOLD(EXPR_SUB, I(-2147483647 - 1), I(1), "2147483647");
  CHECK_FOLD(EXPR_MIN, I(3), I(-4), "-4");
  CHECK_FOLD(EXPR_MAX, I(3), I(-4), "3");
}

static void test_const_fold_division(void) {
  CHECK_FOLD(EXPR_DIV, I(7), I(2), "3");
  CHECK_FOLD(EXPR_DIV, I(-7), I(2), "-3");
  CHECK_FOLD(EXPR_MOD, I(-7), I(2), "-1");
  CHECK_FOLD(EXPR_MOD, I(7), I(-2), "1");
  CHECK_FOLD(EXPR_FLOORDIV, I(-7), I(2), "-4");
  CHECK_FOLD(EXPR_FLOORMOD, I(-7), I(2), "1");
  CHECK_FOLD(EXPR_FLOORDIV, I(7), I(-2), "-4");
  CHECK_FOLD(EXPR_FLOORMOD, I(7), I(-2), "-1");
  CHECK_FOLD(EXPR_FLOORDIV, I(-8), I(2), "-4");
  CHECK_FOLD(EXPR_FLOORMOD, I(-8), I(2), "0");
  CHECK_FOLD(EXPR_FLOORDIV, I(31), I(32), "0");
  CHECK_FOLD(EXPR_FLOORDIV, I(-1), I(32), "-1");
  CHECK_FOLD(EXPR_FLOORMOD, I(-1), I(32), "31");
  /* division and modulo by zero stay for the program to fail at run time */
  CHECK_FOLD(EXPR_DIV, I(7), I(0), "-");
  CHECK_FOLD(EXPR_MOD, I(7), I(0), "-");
  CHECK_FOLD(EXPR_FLOORDIV, I(7), I(0), "-");
  CHECK_FOLD(EXPR_FLOORMOD, I(7), I(0), "-");
  CHECK_FOLD(EXPR_DIV, F(1), F(0), "-");
  CHECK(!strcmp(pe(arith_binary(&A, EXPR_FLOORDIV, I(1), I(0))), "floordiv(1, 0)"));
  /* INT64_MIN / -1 wraps rather than trapping */
  CHECK_FOLD(EXPR_DIV, L(INT64_MIN), L(-1), "-9223372036854775808i64");
  CHECK_FOLD(EXPR_FLOORMOD, L(INT64_MIN), L(-1), "0i64");
  CHECK_FOLD(EXPR_DIV, I(-2147483647 - 1), I(-1), "-2147483648");
}

static void test_const_fold_other_widths(void) {
  CHECK_FOLD(EXPR_ADD, L(INT64_C(2147483647)), L(1), "2147483648i64");
  CHECK_FOLD(EXPR_ADD, U8(250), U8(10), "4u8");
  CHECK_FOLD(EXPR_SUB, U8(0), U8(1), "255u8");
  CHECK_FOLD(EXPR_DIV, U8(255), U8(2), "127u8");
  CHECK_FOLD(EXPR_LT, U8(255), U8(1), "False");
  CHECK_FOLD(EXPR_MAX, U8(255), U8(1), "255u8");
  Expr *u64max = ir_int(&A, DT_MAKE(DT_UINT, 64, 1), -1);
  CHECK_FOLD(EXPR_GT, u64max, ir_int(&A, DT_MAKE(DT_UINT, 64, 1), 1), "True");
  DType i8 = DT_MAKE(DT_INT, 8, 1);
  CHECK_FOLD(EXPR_ADD, ir_int(&A, i8, 127), ir_int(&A, i8, 1), "-128i8");
}

static void test_const_fold_float(void) {
  CHECK_FOLD(EXPR_ADD, F(1.5), F(2), "3.5f32");
  CHECK_FOLD(EXPR_MUL, F(0.5), F(3), "1.5f32");
  CHECK_FOLD(EXPR_DIV, F(1), F(4), "0.25f32");
  CHECK_FOLD(EXPR_FLOORDIV, F(-7), F(2), "-4f32");
  CHECK_FOLD(EXPR_MOD, F(7), F(2), "-");
  CHECK_FOLD(EXPR_LT, F(1), F(2), "True");
  CHECK_FOLD(EXPR_MIN, F(1), F(2), "1f32");
  /* float32 arithmetic rounds to float32: 0.1f + 0.2f is not the double 0.3 */
  Expr *r = arith_try_fold(&A, EXPR_ADD, F((float)0.1), F((float)0.2));
  CHECK(r && r->u.fval == (double)((float)0.1 + (float)0.2));
  Expr *d = arith_try_fold(&A, EXPR_ADD, ir_float(&A, DT_F64, 0.1), ir_float(&A, DT_F64, 0.2));
  CHECK(d && d->u.fval == 0.1 + 0.2 && !strcmp(pe(d), "0.3f64"));
}

static void test_const_fold_identities(void) {
  Expr *x = X();
  CHECK(arith_try_fold(&A, EXPR_ADD, x, I(0)) == x);
  CHECK(arith_try_fold(&A, EXPR_ADD, I(0), x) == x);
  CHECK(arith_try_fold(&A, EXPR_SUB, x, I(0)) == x);
  CHECK(arith_try_fold(&A, EXPR_SUB, I(0), x) == NULL);
  CHECK(arith_try_fold(&A, EXPR_MUL, x, I(1)) == x);
  CHECK(arith_try_fold(&A, EXPR_MUL, I(1), x) == x);
  CHECK_FOLD(EXPR_MUL, x, I(0), "0");
  CHECK_FOLD(EXPR_MUL, I(0), x, "0");
  CHECK(arith_try_fold(&A, EXPR_DIV, x, I(1)) == x);
  CHECK(arith_try_fold(&A, EXPR_FLOORDIV, x, I(1)) == x);
  CHECK_FOLD(EXPR_FLOORDIV, I(0), x, "0");
  CHECK_FOLD(EXPR_FLOORMOD, x, I(1), "0");
  CHECK_FOLD(EXPR_MOD, x, I(1), "0");
  CHECK_FOLD(EXPR_FLOORMOD, I(0), x, "0");
  CHECK(arith_try_fold(&A, EXPR_FLOORMOD, x, I(2)) == NULL);
  CHECK(arith_try_fold(&A, EXPR_MIN, x, I(2)) == NULL);
  CHECK(arith_try_fold(&A, EXPR_LT, x, I(2)) == NULL);
  Expr *c = ir_binary(&A, EXPR_LT, x, I(3));
  CHECK(arith_try_fold(&A, EXPR_AND, B(1), c) == c);
  CHECK_FOLD(EXPR_AND, B(0), c, "False");
  CHECK_FOLD(EXPR_AND, c, B(0), "False");
  CHECK(arith_try_fold(&A, EXPR_OR, B(0), c) == c);
  CHECK_FOLD(EXPR_OR, c, B(1), "True");
  CHECK_FOLD(EXPR_AND, B(1), B(1), "True");
  CHECK_FOLD(EXPR_OR, B(0), B(0), "False");
  CHECK_FOLD(EXPR_EQ, I(3), I(3), "True");
  CHECK_FOLD(EXPR_NE, I(3), I(3), "False");
  CHECK_FOLD(EXPR_GE, I(3), I(4), "False");
  CHECK_FOLD(EXPR_LE, I(3), I(4), "True");
  Expr *fx = ir_varref(&A, var_t("fx", DT_F32));
  CHECK(arith_try_fold(&A, EXPR_MUL, fx, F(1)) == fx);
  CHECK(arith_try_fold(&A, EXPR_ADD, F(0), fx) == fx);
  CHECK(arith_try_fold(&A, EXPR_FLOORMOD, fx, F(1)) == NULL);
}

static void test_const_fold_make(void) {
  Expr *x = X();
  CHECK(!strcmp(pe(arith_binary(&A, EXPR_ADD, x, I(1))), "(x + 1)"));
  CHECK(!strcmp(pe(arith_binary(&A, EXPR_ADD, I(31), I(1))), "32"));
  CHECK(!strcmp(pe(arith_not(&A, B(1))), "False"));
  CHECK(!strcmp(pe(arith_not(&A, ir_binary(&A, EXPR_LT, x, I(1)))), "!(x < 1)"));
  CHECK(!strcmp(pe(arith_const(&A, DT_I64, 5)), "5i64"));
  CHECK(!strcmp(pe(arith_const(&A, DT_F32, 2)), "2f32"));
  CHECK(!strcmp(pe(arith_const(&A, dt_with_lanes(DT_F32, 4), 0)), "broadcast(0f32, 4)"));
  CHECK(!strcmp(pe(arith_const(&A, DT_I32, INT64_C(4294967295))), "-1"));
  CHECK(!strcmp(pe(arith_select(&A, B(1), I(1), I(2))), "1"));
  CHECK(!strcmp(pe(arith_select(&A, B(0), I(1), I(2))), "2"));
  Expr *c = ir_binary(&A, EXPR_LT, x, I(1));
  CHECK(!strcmp(pe(arith_select(&A, c, I(1), I(2))), "select((x < 1), 1, 2)"));
}

static void test_const_fold_cast(void) {
  Expr *x = X();
  CHECK(arith_cast(&A, DT_I32, x) == x);
  CHECK(!strcmp(pe(arith_cast(&A, DT_I64, x)), "cast(int64, x)"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_I64, I(-3))), "-3i64"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_MAKE(DT_INT, 8, 1), I(300))), "44i8"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_MAKE(DT_UINT, 8, 1), I(-1))), "255u8"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_F32, I(3))), "3f32"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_I32, F(-2.75))), "-2"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_BOOL1, I(5))), "True"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_F32, U8(255))), "255f32"));
  CHECK(!strcmp(pe(arith_cast(&A, DT_F32, ir_float(&A, DT_F64, 0.1))), "0.1f32"));
  CHECK(arith_cast(&A, DT_F32, ir_float(&A, DT_F64, 0.1))->u.fval == (double)(float)0.1);
  /* a float out of the integer range is not converted at compile time */
  CHECK(arith_cast(&A, DT_I32, ir_float(&A, DT_F32, 1e30))->kind == EXPR_CAST);
  CHECK(arith_cast(&A, DT_I32, ir_float(&A, DT_F32, NAN))->kind == EXPR_CAST);
  Expr *v = arith_cast(&A, dt_with_lanes(DT_F32, 4), ir_broadcast(&A, I(1), 4));
  CHECK(!strcmp(pe(v), "broadcast(1f32, 4)"));
}

int main(void) {
  world_reset();
  test_const_fold_wrap();
  test_const_fold_int32();
  test_const_fold_division();
  test_const_fold_other_widths();
  test_const_fold_float();
  test_const_fold_identities();
  test_const_fold_make();
  test_const_fold_cast();
  world_reset();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
