/* test_rewrite_add.c: unit tests of ir/arith/rewrite_add.c, the rules of + and -. Most cases
 * are TVM's (tests/python/unittest/test_arith_rewrite_simplify.py: test_add_index_simplify,
 * test_sub_index_simplify, and the + and - parts of test_vector_simplify and
 * test_select_simplify), written in the printer's syntax; the rewrite simplifier alone runs. */
#include "arith_test.h"

static void test_rewrite_add_index(void) {
  world_reset();
  CHECK_REWRITE("(x + (y - x))", "y");
  CHECK_REWRITE("((x - (y + 1)) + (y + 1))", "x");
  CHECK_REWRITE("((x - 10) + (10 - z))", "(x - z)");
  CHECK_REWRITE("((x - y) + (z - x))", "(z - y)");
  CHECK_REWRITE("((x - y) + (y - z))", "(x - z)");
  CHECK_REWRITE("((x - y) + y)", "x");
  CHECK_REWRITE("(min(x, (y - z)) + z)", "min((x + z), y)");
  CHECK_REWRITE("(min((x - z), y) + z)", "min(x, (y + z))");
  CHECK_REWRITE("(max(x, (y - 10)) + 10)", "max((x + 10), y)");
  CHECK_REWRITE("(max((x - 11), y) + 11)", "max(x, (y + 11))");
  CHECK_REWRITE("(max(x, (y*2)) + min(x, (y*2)))", "(x + (y*2))");
  CHECK_REWRITE("(min(x, (y*2)) + max(x, (y*2)))", "(x + (y*2))");
  CHECK_REWRITE("(max(x, (y + 2)) + -2)", "max((x + -2), y)");
  CHECK_REWRITE("(min(x, (y + 2)) + -2)", "min((x + -2), y)");
  CHECK_REWRITE("(min((x + 2), (y + 3)) + -2)", "min(x, (y + 1))");
  CHECK_REWRITE("(max(0, (1 - (x*4))) + (x*4))", "max((x*4), 1)");
  CHECK_REWRITE("(max((2 - (x*4)), 0) + (x*4))", "max((x*4), 2)");
  CHECK_REWRITE("(min(0, (1 - (x*4))) + (x*4))", "min((x*4), 1)");
  CHECK_REWRITE("(min((2 - (x*4)), 0) + (x*4))", "min((x*4), 2)");
  CHECK_REWRITE("((x*y) + (x*10))", "(x*(y + 10))");
  CHECK_REWRITE("((y*x) + (x*10))", "(x*(y + 10))");
  CHECK_REWRITE("((y*x) + (10*x))", "(x*(y + 10))");
  CHECK_REWRITE("((x*y) + (10*x))", "(x*(y + 10))");
  CHECK_REWRITE("((2*z) + min(x, (y - (2*z))))", "min((x + (z*2)), y)");
  CHECK_REWRITE("((y*x) + x)", "(x*(y + 1))");
  CHECK_REWRITE("((x*y) + x)", "(x*(y + 1))");
  CHECK_REWRITE("((x + 10) + 13)", "(x + 23)");
  CHECK_REWRITE("((x + 10) + (13 + z))", "((x + z) + 23)");
  CHECK_REWRITE("((y*x) + (x*3))", "(x*(y + 3))");
  CHECK_REWRITE("((x + 3) + y)", "((x + y) + 3)");
  CHECK_REWRITE("((3 - y) + x)", "((x - y) + 3)");
  CHECK_REWRITE("(x + (3 - y))", "((x - y) + 3)");
  CHECK_REWRITE("(x + (y + 3))", "((x + y) + 3)");
  CHECK_REWRITE("(x + max(y, z))", "(max(y, z) + x)");
  CHECK_REWRITE("(x + min(y, z))", "(min(y, z) + x)");
  CHECK_REWRITE("(x + x)", "(x*2)");
  CHECK_REWRITE("((((x + 2) + 3) + 4) + x)", "((x*2) + 9)");
  CHECK_REWRITE("((((x + 2) + 3) + 4) + (x*3))", "((x*4) + 9)");
  CHECK_REWRITE("(x + 0)", "x");
  CHECK_REWRITE("(0 + x)", "x");
  CHECK_REWRITE("(3 + 4)", "7");
}

static void test_rewrite_add_divmod(void) {
  world_reset();
  CHECK_REWRITE("((y*(x % 8)) + (10*(x % 8)))", "((x % 8)*(y + 10))");
  set_bound("x", -1, 1000);
  CHECK_REWRITE("(((x / 8)*8) + (x % 8))", "x");
  CHECK_REWRITE("((y*floormod(x, 8)) + (10*floormod(x, 8)))", "(floormod(x, 8)*(y + 10))");
  CHECK_REWRITE("((floordiv(x, 8)*8) + floormod(x, 8))", "x");
  CHECK_REWRITE("(floormod(x, 8) + (floordiv(x, 8)*8))", "x");
  CHECK_REWRITE("((floordiv(x, y)*y) + floormod(x, y))", "x");
  CHECK_REWRITE("((y*floordiv(x, y)) + floormod(x, y))", "x");
  CHECK_REWRITE("(floordiv((floormod(x, 2) + 7), 2) + floordiv(x, 2))", "floordiv((x + 7), 2)");
  CHECK_REWRITE("(floordiv(z, 2) + floormod(z, 2))", "floordiv((z + 1), 2)");
  CHECK_REWRITE("(floormod((z + 3), 2) + floormod(z, 2))", "1");
  CHECK_REWRITE("(floormod(z, 2) + floormod((z + 1), 2))", "1");
  CHECK_REWRITE("(floormod(z, 2) + floormod((z + 2), 2))", "(floormod(z, 2)*2)");
  CHECK_REWRITE("(floormod(y, 8) + (z*8))", "((z*8) + floormod(y, 8))");
  CHECK_REWRITE("((y % 8) + (z*8))", "((z*8) + (y % 8))");
}

static void test_rewrite_add_vector(void) {
  world_reset();
  CHECK_REWRITE("(ramp(x, 1, 4) + ramp(y, 2, 4))", "ramp((x + y), 3, 4)");
  CHECK_REWRITE("(ramp(x, 1, 2) + broadcast(y, 2))", "ramp((x + y), 1, 2)");
  CHECK_REWRITE("(broadcast(y, 2) + ramp(x, 1, 2))", "ramp((y + x), 1, 2)");
  CHECK_REWRITE("(broadcast(y, 2) + broadcast(x, 2))", "broadcast((y + x), 2)");
  CHECK_REWRITE("(broadcast(0, 4) + broadcast(y, 4))", "broadcast(y, 4)");
  CHECK_REWRITE("(ramp(x, 1, 4) + broadcast(0, 4))", "ramp(x, 1, 4)");
  var_t("f", dt_with_lanes(DT_F32, 4));
  CHECK_REWRITE("(f + broadcast(0f32, 4))", "f");
  CHECK_REWRITE("(broadcast(0f32, 4) + f)", "f");
  CHECK_REWRITE("(ramp(x, 4, 4) - ramp(y, 2, 4))", "ramp((x - y), 2, 4)");
  CHECK_REWRITE("(ramp(x, 1, 2) - broadcast(y, 2))", "ramp((x - y), 1, 2)");
  CHECK_REWRITE("(broadcast(y, 2) - ramp(x, 1, 2))", "ramp((y - x), -1, 2)");
  CHECK_REWRITE("(broadcast(y, 2) - broadcast(x, 2))", "broadcast((y - x), 2)");
  /* lanes must agree */
  CHECK_REWRITE("(ramp(x, 1, 4) + ramp(y, 1, 4))", "ramp((x + y), 2, 4)");
}

static void test_rewrite_add_select(void) {
  world_reset();
  CHECK_REWRITE("(select((x < 0), y, 0) + select((x < 0), 1, z))", "select((x < 0), (y + 1), z)");
  CHECK_REWRITE("(select((x < 0), y, 1) - select((x < 0), 1, z))",
                "select((x < 0), (y + -1), (1 - z))");
  CHECK_REWRITE("(select((x < 0), y, z) - y)", "select((x < 0), 0, (z - y))");
  CHECK_REWRITE("(select((x < 0), y, z) - z)", "select((x < 0), (y - z), 0)");
}

static void test_rewrite_add_sub(void) {
  world_reset();
  CHECK_REWRITE("((x + y) - y)", "x");
  CHECK_REWRITE("((x + y) - x)", "y");
  CHECK_REWRITE("(x - (y + x))", "(0 - y)");
  CHECK_REWRITE("(x - (x + y))", "(0 - y)");
  CHECK_REWRITE("(min(x, y) - x)", "min(0, (y - x))");
  CHECK_REWRITE("(min(x, y) - y)", "min((x - y), 0)");
  CHECK_REWRITE("(max(x, y) - x)", "max(0, (y - x))");
  CHECK_REWRITE("(max(x, y) - y)", "max((x - y), 0)");
  CHECK_REWRITE("(x - min(x, y))", "max(0, (x - y))");
  CHECK_REWRITE("(y - min(x, y))", "max((y - x), 0)");
  CHECK_REWRITE("(x - max(x, y))", "min(0, (x - y))");
  CHECK_REWRITE("(y - max(x, y))", "min((y - x), 0)");
  CHECK_REWRITE("(x - x)", "0");
  CHECK_REWRITE("((x*y) - x)", "(x*(y + -1))");
  CHECK_REWRITE("((x*y) - (10*x))", "(x*(y + -10))");
  CHECK_REWRITE("((y*x) - (x*z))", "(x*(y - z))");
  CHECK_REWRITE("((y*x) - (z*x))", "(x*(y - z))");
  CHECK_REWRITE("((x + 10) - 20)", "(x + -10)");
  CHECK_REWRITE("((x + y) - (x + z))", "(y - z)");
  CHECK_REWRITE("((y + x) - (x + z))", "(y - z)");
  CHECK_REWRITE("((x + y) - (z + x))", "(y - z)");
  CHECK_REWRITE("((y + x) - (z + x))", "(y - z)");
  CHECK_REWRITE("(min((x + y), z) - x)", "min(y, (z - x))");
  CHECK_REWRITE("(min((y + x), z) - x)", "min(y, (z - x))");
  CHECK_REWRITE("(min(z, (x + y)) - x)", "min((z - x), y)");
  CHECK_REWRITE("(min(z, (y + x)) - x)", "min((z - x), y)");
  CHECK_REWRITE("(max((x + y), z) - x)", "max(y, (z - x))");
  CHECK_REWRITE("(max((y + x), z) - x)", "max(y, (z - x))");
  CHECK_REWRITE("(max(z, (x + y)) - x)", "max((z - x), y)");
  CHECK_REWRITE("(max(z, (y + x)) - x)", "max((z - x), y)");
  CHECK_REWRITE("(x - min((x + y), z))", "max((0 - y), (x - z))");
  CHECK_REWRITE("(x - min((y + x), z))", "max((0 - y), (x - z))");
  CHECK_REWRITE("(x - min(z, (x + y)))", "max((x - z), (0 - y))");
  CHECK_REWRITE("(x - min(z, (y + x)))", "max((x - z), (0 - y))");
  CHECK_REWRITE("(x - max((x + y), z))", "min((0 - y), (x - z))");
  CHECK_REWRITE("(x - max(z, (x + y)))", "min((x - z), (0 - y))");
  CHECK_REWRITE("(min(x, y) - min(y, x))", "0");
  CHECK_REWRITE("(max(x, y) - max(y, x))", "0");
  CHECK_REWRITE("(min(x, y) - min((x + 10), (y + 10)))", "-10");
  CHECK_REWRITE("(min((x + 10), (y + 1)) - min(x, (y - 9)))", "10");
  CHECK_REWRITE("((3 - x) - (5 - y))", "((y - x) + -2)");
  CHECK_REWRITE("(x - 0)", "x");
  CHECK_REWRITE("(x - 1)", "(x + -1)");
  CHECK_REWRITE("(x - (y*3))", "(x + (y*-3))");
  CHECK_REWRITE("(x - (y - z))", "((x + z) - y)");
  CHECK_REWRITE("((x + 2) - y)", "((x - y) + 2)");
  CHECK_REWRITE("(x - (y + 2))", "((x - y) + -2)");
}

static void test_rewrite_add_sub_divmod(void) {
  world_reset();
  set_bound("x", 0, 1000);
  CHECK_REWRITE("(x - ((x / 3)*3))", "(x % 3)");
  CHECK_REWRITE("(((x + 5) / 3) - (x / 3))", "(((x % 3) + 5) / 3)");
  CHECK_REWRITE("(((x + 5) / 3) - ((x + 1) / 3))", "((((x + 1) % 3) + 4) / 3)");
  CHECK_REWRITE("(y - ((y / -5)*-5))", "(y % 5)");
  CHECK_REWRITE("(((y / 3)*3) - y)", "(0 - (y % 3))");
  CHECK_REWRITE("(y - (((y - 6) / 5)*5))", "(((y + -6) % 5) + 6)");
  CHECK_REWRITE("((((y - 6) / 5)*5) - y)", "(-6 - ((y + -6) % 5))");
  CHECK_REWRITE("(y - (((y + z) / 5)*5))", "(((y + z) % 5) - z)");
  CHECK_REWRITE("((((y + z) / 5)*5) - y)", "(z - ((y + z) % 5))");
  CHECK_REWRITE("(y - (((y - z) / 5)*5))", "(((y - z) % 5) + z)");
  CHECK_REWRITE("((((y - z) / 5)*5) - y)", "((0 - ((y - z) % 5)) - z)");
  CHECK_REWRITE("((y*3) - ((y / 2)*6))", "((y % 2)*3)");
  CHECK_REWRITE("(((y / 3)*6) - (y*2))", "((y % 3)*-2)");
  CHECK_REWRITE("((y*5) - (((y + z) / 2)*10))", "((((y + z) % 2) - z)*5)");
  CHECK_REWRITE("((y*5) - (((y - z) / 2)*10))", "((((y - z) % 2) + z)*5)");
  CHECK_REWRITE("((((y + z) / 3)*6) - (y*2))", "((z - ((y + z) % 3))*2)");
  CHECK_REWRITE("((((y - z) / 3)*6) - (y*2))", "(((0 - ((y - z) % 3)) - z)*2)");
  CHECK_REWRITE("((5*y) - (((y + z) / 2)*10))", "((((y + z) % 2) - z)*5)");
  CHECK_REWRITE("((5*y) - (10*((y - z) / 2)))", "((((y - z) % 2) + z)*5)");
  CHECK_REWRITE("((6*((y + z) / 3)) - (y*2))", "((z - ((y + z) % 3))*2)");
  CHECK_REWRITE("((((y - z) / 3)*6) - (2*y))", "(((0 - ((y - z) % 3)) - z)*2)");
  world_reset();
  set_bound("x", -1000, 1000);
  set_bound("y", -1000, 1000);
  CHECK_REWRITE("(x - (floordiv(x, 3)*3))", "floormod(x, 3)");
  CHECK_REWRITE("(floordiv((x + 5), 3) - floordiv(x, 3))", "floordiv((floormod(x, 3) + 5), 3)");
  CHECK_REWRITE("(floordiv((x + 5), 3) - floordiv((x + 2), 3))",
                "(floordiv(floormod((x + 2), 3), 3) + 1)");
  CHECK_REWRITE("((floordiv(y, 3)*3) - y)", "(0 - floormod(y, 3))");
  CHECK_REWRITE("(y - (floordiv((y - 6), 5)*5))", "(floormod((y + -6), 5) + 6)");
  CHECK_REWRITE("((floordiv((y - 6), 5)*5) - y)", "(-6 - floormod((y + -6), 5))");
  CHECK_REWRITE("(y - (floordiv((y + z), 5)*5))", "(floormod((y + z), 5) - z)");
  CHECK_REWRITE("((floordiv((y + z), 5)*5) - y)", "(z - floormod((y + z), 5))");
  CHECK_REWRITE("(y - (floordiv((y - z), 5)*5))", "(floormod((y - z), 5) + z)");
  CHECK_REWRITE("((floordiv((y - z), 5)*5) - y)", "((0 - floormod((y - z), 5)) - z)");
  CHECK_REWRITE("((y*3) - (floordiv(y, 2)*6))", "(floormod(y, 2)*3)");
  CHECK_REWRITE("((floordiv(y, 3)*6) - (y*2))", "(floormod(y, 3)*-2)");
  CHECK_REWRITE("((y*5) - (floordiv((y + z), 2)*10))", "((floormod((y + z), 2) - z)*5)");
  CHECK_REWRITE("((y*5) - (floordiv((y - z), 2)*10))", "((floormod((y - z), 2) + z)*5)");
  CHECK_REWRITE("((floordiv((y + z), 3)*6) - (y*2))", "((z - floormod((y + z), 3))*2)");
  CHECK_REWRITE("((floordiv((y - z), 3)*6) - (y*2))", "(((0 - floormod((y - z), 3)) - z)*2)");
  CHECK_REWRITE("((5*y) - (floordiv((y + z), 2)*10))", "((floormod((y + z), 2) - z)*5)");
  CHECK_REWRITE("((6*floordiv((y + z), 3)) - (y*2))", "((z - floormod((y + z), 3))*2)");
  CHECK_REWRITE("(floordiv((w + 1), 2) - floormod(w, 2))", "floordiv(w, 2)");
  CHECK_REWRITE("(floordiv((w + 3), 2) - floordiv((w + 1), 2))", "1");
  CHECK_REWRITE("(floordiv(w, 2) - floordiv((w + 1), 2))", "(floormod(w, 2)*-1)");
  CHECK_REWRITE("(floordiv((w + 1), 2) - floordiv(w, 2))", "floormod(w, 2)");
}

static void test_rewrite_add_float(void) {
  world_reset();
  var_t("f", DT_F32);
  var_t("g", DT_F32);
  CHECK_REWRITE("(f - f)", "0f32");
  CHECK_REWRITE("((f + g) - g)", "f");
  CHECK_REWRITE("((f + g) - f)", "g");
  CHECK_REWRITE("(f - (g + f))", "(0f32 - g)");
  CHECK_REWRITE("(1.5f32 + 2.5f32)", "4f32");
  CHECK_REWRITE("(f + 0f32)", "f");
  /* no integer rules on floats: x + x stays */
  CHECK_REWRITE("(f + f)", "(f + f)");
  CHECK_REWRITE("((f + 1f32) + 2f32)", "((f + 1f32) + 2f32)");
  /* a load has no side effect; a call with one does */
  Expr *args[1] = {P("1f32")};
  Expr *effect = ir_call(&A, DT_F32, "tir.random", CALL_EFFECT, 1, args);
  Expr *e = ir_binary(&A, EXPR_SUB, effect, effect);
  CHECK(arith_rewrite_simplify(AN, e) == e);
}

int main(void) {
  test_rewrite_add_index();
  test_rewrite_add_divmod();
  test_rewrite_add_vector();
  test_rewrite_add_select();
  test_rewrite_add_sub();
  test_rewrite_add_sub_divmod();
  test_rewrite_add_float();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
