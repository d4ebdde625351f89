/* test_rewrite_cmp.c: unit tests of ir/arith/rewrite_cmp.c, the rules of comparisons: bounds
 * and modular sets decide, constants gather on one side, constant factors divide out with the
 * right rounding, and > and >= turn into < and <= (TVM's test_cmp_simplify). */
#include "arith_test.h"

static void test_rewrite_cmp_bounds(void) {
  world_reset();
  CHECK_REWRITE("(((x % 2) + 10) == 0)", "False");
  CHECK_REWRITE("(((x % 2) + 10) != 0)", "True");
  CHECK_REWRITE("(((x % 2) + 10) > 1)", "True");
  CHECK_REWRITE("(((x % 2) + 10) <= 1)", "False");
  CHECK_REWRITE("((floormod(x, 2) + 2) > 1)", "True");
  CHECK_REWRITE("((floormod(x, 2) + 10) <= 1)", "False");
  CHECK_REWRITE("(((x*3) + 10) == 0)", "False"); /* 3k + 1 is never 0 */
  CHECK_REWRITE("(((x*3) + 10) != 0)", "True");
  set_bound("x", 0, 10);
  set_bound("y", -10, 0);
  set_bound("z", -5, 5);
  CHECK_REWRITE("(x < 11)", "True");
  CHECK_REWRITE("(x <= 10)", "True");
  CHECK_REWRITE("(z <= 5)", "True");
  CHECK_REWRITE("((x + y) <= 10)", "True");
  CHECK_REWRITE("((x + y) >= -10)", "True");
  CHECK_REWRITE("((z - 5) <= (y + 10))", "True");
  CHECK_REWRITE("((x > -1) && (z <= (x + 5)))", "True");
  CHECK_REWRITE("((x*y) <= 0)", "True");
  CHECK_REWRITE("(((x + 1)*(y - 1)) < 0)", "True");
  CHECK_REWRITE("((y*y) >= 0)", "True");
  CHECK_REWRITE("((x*6) <= -3)", "False");
  CHECK_REWRITE("(((y - 1) % 3) == 0)", "(((y + -1) % 3) == 0)");
  CHECK_REWRITE("(x == 11)", "False");
  CHECK_REWRITE("(x != 11)", "True");
  CHECK_REWRITE("(x < 10)", "(x < 10)");
  /* what the bounds leave open of <= narrows to < or == */
  CHECK_REWRITE("(x <= 0)", "(x == 0)");
  CHECK_REWRITE("(0 < x)", "(0 < x)");
  CHECK_REWRITE("(x != 0)", "(0 < x)");
  CHECK_REWRITE("(y != 0)", "(y < 0)");
}

static void test_rewrite_cmp_canonical(void) {
  world_reset();
  CHECK_REWRITE("((x - 10) == 0)", "(x == 10)");
  CHECK_REWRITE("((10 - x) == 0)", "(x == 10)");
  CHECK_REWRITE("((x*y) == 0)", "((x == 0) || (y == 0))");
  CHECK_REWRITE("(3 == x)", "(x == 3)");
  CHECK_REWRITE("((x + 3) == 5)", "(x == 2)");
  CHECK_REWRITE("(x == x)", "True");
  CHECK_REWRITE("((x + y) < (x + z))", "(y < z)");
  CHECK_REWRITE("((x + y) < (z + x))", "(y < z)");
  CHECK_REWRITE("((y + x) < (x + z))", "(y < z)");
  CHECK_REWRITE("((y + x) < (z + x))", "(y < z)");
  CHECK_REWRITE("((y - x) < (z - x))", "(y < z)");
  CHECK_REWRITE("((x - y) < (x - z))", "(z < y)");
  CHECK_REWRITE("(x < (z + x))", "(0 < z)");
  CHECK_REWRITE("(x < (x + z))", "(0 < z)");
  CHECK_REWRITE("(x < (x - z))", "(z < 0)");
  CHECK_REWRITE("(100 < (x + 1))", "(99 < x)");
  CHECK_REWRITE("(1 < (100 - x))", "(x < 99)");
  CHECK_REWRITE("((x*3) < (y*3))", "(x < y)");
  CHECK_REWRITE("((x*-3) < (y*-3))", "(y < x)");
  CHECK_REWRITE("((x*3) >= (y*3))", "(y <= x)");
  CHECK_REWRITE("(x > y)", "(y < x)");
  CHECK_REWRITE("(x >= y)", "(y <= x)");
  CHECK_REWRITE("(x <= y)", "(x <= y)");
  CHECK_REWRITE("((x + 1) < y)", "((x + 1) < y)");
  CHECK_REWRITE("((x + 5) < 10)", "(x < 5)");
  CHECK_REWRITE("((x - 5) < 10)", "(x < 15)");
  CHECK_REWRITE("(10 < (x - 5))", "(15 < x)");
  CHECK_REWRITE("((10 - x) < 3)", "(7 < x)");
  CHECK_REWRITE("(x < (10 - y))", "((x + y) < 10)");
  CHECK_REWRITE("((10 - y) < x)", "(10 < (x + y))");
}

static void test_rewrite_cmp_scale(void) {
  world_reset();
  CHECK_REWRITE("((x*4) >= 2)", "(1 <= x)");
  CHECK_REWRITE("((x*2) >= 50)", "(25 <= x)");
  CHECK_REWRITE("((x*4) <= 2)", "(x <= 0)");
  CHECK_REWRITE("((0 - (x*3)) <= 0)", "(0 <= x)");
  CHECK_REWRITE("((0 - (x*3)) >= 0)", "(x <= 0)");
  CHECK_REWRITE("((2*x) <= 0)", "(x <= 0)");
  CHECK_REWRITE("((x*2) >= 3)", "(2 <= x)");
  CHECK_REWRITE("((x*2) >= 2)", "(1 <= x)");
  CHECK_REWRITE("((x*2) >= 1)", "(1 <= x)");
  CHECK_REWRITE("((x*2) >= 0)", "(0 <= x)");
  CHECK_REWRITE("((x*2) >= -1)", "(0 <= x)");
  CHECK_REWRITE("((x*2) >= -2)", "(-1 <= x)");
  CHECK_REWRITE("((x*2) >= -3)", "(-1 <= x)");
  CHECK_REWRITE("((x*2) <= 3)", "(x <= 1)");
  CHECK_REWRITE("((x*2) <= 2)", "(x <= 1)");
  CHECK_REWRITE("((x*2) <= 1)", "(x <= 0)");
  CHECK_REWRITE("((x*2) <= 0)", "(x <= 0)");
  CHECK_REWRITE("((x*2) <= -1)", "(x <= -1)");
  CHECK_REWRITE("((x*2) <= -2)", "(x <= -1)");
  CHECK_REWRITE("((x*2) <= -3)", "(x <= -2)");
  CHECK_REWRITE("((x*-2) >= 3)", "(x <= -2)");
  CHECK_REWRITE("((x*-2) >= 2)", "(x <= -1)");
  CHECK_REWRITE("((x*-2) >= 1)", "(x <= -1)");
  CHECK_REWRITE("((x*-2) >= 0)", "(x <= 0)");
  CHECK_REWRITE("((x*-2) >= -1)", "(x <= 0)");
  CHECK_REWRITE("((x*-2) >= -2)", "(x <= 1)");
  CHECK_REWRITE("((x*-2) >= -3)", "(x <= 1)");
  CHECK_REWRITE("((x*-2) <= 3)", "(-1 <= x)");
  CHECK_REWRITE("((x*-2) <= 2)", "(-1 <= x)");
  CHECK_REWRITE("((x*-2) <= 1)", "(0 <= x)");
  CHECK_REWRITE("((x*-2) <= 0)", "(0 <= x)");
  CHECK_REWRITE("((x*-2) <= -1)", "(1 <= x)");
  CHECK_REWRITE("((x*-2) <= -2)", "(1 <= x)");
  CHECK_REWRITE("((x*-2) <= -3)", "(2 <= x)");
}

static void test_rewrite_cmp_divmod(void) {
  world_reset();
  CHECK_REWRITE("((x / 2) < 3)", "(x < 6)");
  CHECK_REWRITE("(3 < (x / 2))", "(7 < x)");
  CHECK_REWRITE("((x / 3) >= 0)", "(-2 <= x)");
  CHECK_REWRITE("((x / 2) >= 1)", "(2 <= x)");
  CHECK_REWRITE("((x / 2) >= 0)", "(-1 <= x)");
  CHECK_REWRITE("((x / 2) >= -1)", "(-3 <= x)");
  CHECK_REWRITE("((x / 2) <= 1)", "(x <= 3)");
  CHECK_REWRITE("((x / 2) <= 0)", "(x <= 1)");
  CHECK_REWRITE("((x / 2) <= -1)", "(x <= -2)");
  CHECK_REWRITE("(((x / 4)*4) < x)", "(0 < (x % 4))");
  CHECK_REWRITE("(((x / 4)*4) >= x)", "((x % 4) <= 0)");
  CHECK_REWRITE("(((x / 4)*4) < (x + y))", "(0 < ((x % 4) + y))");
  CHECK_REWRITE("(((x / 4)*4) < (x - y))", "(y < (x % 4))");
  CHECK_REWRITE("((((x + 2) / 4)*4) >= x)", "(((x + 2) % 4) <= 2)");
  CHECK_REWRITE("((((x + 2) / 4)*4) >= (x + y))", "((((x + 2) % 4) + y) <= 2)");
  CHECK_REWRITE("((((x + 2) / 4)*4) >= (x - y))", "((((x + 2) % 4) + -2) <= y)");
  CHECK_REWRITE("(floordiv(x, 2) < 3)", "(x < 6)");
  CHECK_REWRITE("(3 < floordiv(x, 2))", "(7 < x)");
  CHECK_REWRITE("(-3 < floordiv(x, 2))", "(-5 < x)");
  CHECK_REWRITE("(floordiv(x, 3) >= 0)", "(0 <= x)");
  CHECK_REWRITE("(floordiv(x, 2) >= 1)", "(2 <= x)");
  CHECK_REWRITE("(floordiv(x, 2) >= 0)", "(0 <= x)");
  CHECK_REWRITE("(floordiv(x, 2) >= -1)", "(-2 <= x)");
  CHECK_REWRITE("(floordiv(x, 2) <= 1)", "(x <= 3)");
  CHECK_REWRITE("(floordiv(x, 2) <= 0)", "(x <= 1)");
  CHECK_REWRITE("(floordiv(x, 2) <= -1)", "(x <= -1)");
  CHECK_REWRITE("((floordiv(x, 4)*4) < x)", "(0 < floormod(x, 4))");
  CHECK_REWRITE("((floordiv(x, 4)*4) >= x)", "(floormod(x, 4) == 0)");
  CHECK_REWRITE("((floordiv(x, 4)*4) < (x + y))", "(0 < (floormod(x, 4) + y))");
  CHECK_REWRITE("((floordiv(x, 4)*4) < (x - y))", "(y < floormod(x, 4))");
  CHECK_REWRITE("((floordiv((x + 2), 4)*4) >= x)", "(floormod((x + 2), 4) <= 2)");
  CHECK_REWRITE("((floordiv((x + 2), 4)*4) >= (x + y))", "((floormod((x + 2), 4) + y) <= 2)");
  CHECK_REWRITE("((floordiv((x + 2), 4)*4) >= (x - y))", "((floormod((x + 2), 4) + -2) <= y)");
}

static void test_rewrite_cmp_minmax(void) {
  world_reset();
  CHECK_REWRITE("(min(x, 11) < 10)", "(x < 10)");
  CHECK_REWRITE("(min(x, 8) < 10)", "True");
  CHECK_REWRITE("(max(8, x) > 10)", "(10 < x)");
  CHECK_REWRITE("((x + 1) < max(8, x))", "(x < 7)");
  CHECK_REWRITE("(max(x, y) < z)", "((x < z) && (y < z))");
  CHECK_REWRITE("(z < min(x, y))", "((z < x) && (z < y))");
  CHECK_REWRITE("(min(x, y) < z)", "((x < z) || (y < z))");
  CHECK_REWRITE("(z < max(x, y))", "((z < x) || (z < y))");
}

static void test_rewrite_cmp_other(void) {
  world_reset();
  var_t("f", DT_F32);
  CHECK_REWRITE("(f < f)", "(f < f)");
  CHECK_REWRITE("(f == f)", "True");
  CHECK_REWRITE("(1f32 < 2f32)", "True");
  CHECK_REWRITE("(f > 2f32)", "(2f32 < f)");
  CHECK_REWRITE("(broadcast(y, 2) == broadcast(x, 2))", "broadcast((y == x), 2)");
  CHECK_REWRITE("(broadcast(y, 2) < broadcast(x, 2))", "broadcast((y < x), 2)");
  CHECK_REWRITE("(broadcast(y, 2) > broadcast(x, 2))", "broadcast((x < y), 2)");
  CHECK_REWRITE("(broadcast(y, 2) >= broadcast(x, 2))", "broadcast((x <= y), 2)");
  CHECK_REWRITE("(broadcast(y, 2) <= broadcast(x, 2))", "broadcast((y <= x), 2)");
  CHECK_REWRITE("(broadcast(y, 2) != broadcast(x, 2))", "broadcast((y != x), 2)");
  CHECK_REWRITE("(ramp(x, 1, 4) < ramp(y, 1, 4))", "broadcast((x < y), 4)");
  Var *u = var_t("u", DT_MAKE(DT_UINT, 8, 1));
  Expr *e = ir_binary(&A, EXPR_LT, ir_varref(&A, u), ir_int(&A, u->dtype, 0));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, e)), "(u < 0u8)")); /* only index types get rules */
}

/* A ramp against a broadcast (or a ramp of another stride) folds when every lane is decided:
 * the lane where the difference is largest, or smallest, settles it. */
static void test_rewrite_cmp_lanes(void) {
  world_reset();
  CHECK_REWRITE("(ramp(0, 1, 16) < broadcast(20, 16))", "broadcast(True, 16)");
  CHECK_REWRITE("(ramp(0, 1, 16) < broadcast(15, 16))", "(ramp(0, 1, 16) < broadcast(15, 16))");
  CHECK_REWRITE("(ramp(0, 1, 16) < broadcast(16, 16))", "broadcast(True, 16)");
  CHECK_REWRITE("(ramp(20, 1, 4) < broadcast(20, 4))", "broadcast(False, 4)");
  CHECK_REWRITE("(ramp(20, -1, 4) < broadcast(18, 4))", "(ramp(20, -1, 4) < broadcast(18, 4))");
  CHECK_REWRITE("(ramp(20, -1, 4) < broadcast(21, 4))", "broadcast(True, 4)");
  CHECK_REWRITE("(broadcast(1, 4) <= ramp(1, 1, 4))", "broadcast(True, 4)");
  CHECK_REWRITE("(broadcast(1, 4) <= ramp(0, 1, 4))", "(broadcast(1, 4) <= ramp(0, 1, 4))");
  CHECK_REWRITE("(ramp(4, 1, 4) > broadcast(3, 4))", "broadcast(True, 4)");
  CHECK_REWRITE("(ramp(4, 1, 4) >= broadcast(8, 4))", "broadcast(False, 4)");
  CHECK_REWRITE("(ramp(0, 2, 4) < ramp(0, 1, 4))", "broadcast(False, 4)");
  CHECK_REWRITE("(ramp(1, 1, 4) < ramp(2, 2, 4))", "broadcast(True, 4)");
  /* lanes known from the bound of a loop variable in the base */
  bind("x", 0, 96);
  CHECK_REWRITE("(ramp((x*16), 1, 16) < broadcast(1536, 16))", "broadcast(True, 16)");
  CHECK_REWRITE("(ramp((x*16), 1, 16) < broadcast(1535, 16))",
                "(ramp((x*16), 1, 16) < broadcast(1535, 16))");
  CHECK_REWRITE("(ramp(((x*16) + 1), 1, 16) >= broadcast(1, 16))", "broadcast(True, 16)");
  CHECK_REWRITE("(ramp((x*16), 1, 16) < broadcast(((x*16) + 16), 16))", "broadcast(True, 16)");
  CHECK_REWRITE("(ramp((x*16), 1, 16) < broadcast(y, 16))", "(ramp((x*16), 1, 16) < broadcast(y, 16))");

}

int main(void) {
  test_rewrite_cmp_bounds();
  test_rewrite_cmp_canonical();
  test_rewrite_cmp_scale();
  test_rewrite_cmp_divmod();
  test_rewrite_cmp_minmax();
  test_rewrite_cmp_other();
  test_rewrite_cmp_lanes();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
