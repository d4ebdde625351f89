/* test_rewrite_div.c: unit tests of ir/arith/rewrite_div.c, the rules of the truncating and
 * floor divisions and modulos, scalar and vector (TVM's test_div_index_simplify,
 * test_floordiv_index_simplify, test_mod_index_simplify, test_floormod_index_simplify and the
 * division part of test_vector_simplify). Truncating rules need non-negative operands, so
 * most cases bind the variables first. */
#include "arith_test.h"

static void test_rewrite_div_trunc(void) {
  world_reset();
  CHECK_REWRITE("(x / x)", "1");
  set_bound("x", 0, 1000);
  set_bound("y", 0, 1000);
  set_bound("z", 0, 1000);
  CHECK_REWRITE("((x / 2) / 3)", "(x / 6)");
  CHECK_REWRITE("(((x / 2) + 1) / 3)", "((x + 2) / 6)");
  CHECK_REWRITE("((x*2) / 4)", "(x / 2)");
  CHECK_REWRITE("((x*4) / 2)", "(x*2)");
  CHECK_REWRITE("(((x*4) + y) / 2)", "((x*2) + (y / 2))");
  CHECK_REWRITE("(min((x*6), y) / 2)", "min((x*3), (y / 2))");
  CHECK_REWRITE("(max((x*6), y) / 2)", "max((x*3), (y / 2))");
  CHECK_REWRITE("((y + (x*4)) / 2)", "((y / 2) + (x*2))");
  CHECK_REWRITE("(min(y, (x*6)) / 2)", "min((y / 2), (x*3))");
  CHECK_REWRITE("(max(y, (x*6)) / 2)", "max((y / 2), (x*3))");
  CHECK_REWRITE("((((x*6) + y) + z) / 2)", "((x*3) + ((y + z) / 2))");
  CHECK_REWRITE("((((x*6) - y) + (y + 3)) / 2)", "((x*3) + 1)");
  CHECK_REWRITE("((((x*6) + (y + 3)) - y) / 2)", "((x*3) + 1)");
  CHECK_REWRITE("(((y + (x*6)) + z) / 2)", "((x*3) + ((y + z) / 2))");
  CHECK_REWRITE("((x + 4) / 2)", "((x / 2) + 2)");
  CHECK_REWRITE("((x + y) / x)", "((y / x) + 1)");
  CHECK_REWRITE("((y + x) / x)", "((y / x) + 1)");
  CHECK_REWRITE("(((x + y) + z) / x)", "(((y + z) / x) + 1)");
  CHECK_REWRITE("(((y + x) + z) / x)", "(((y + z) / x) + 1)");
  CHECK_REWRITE("((y + (x + z)) / x)", "(((y + z) / x) + 1)");
  CHECK_REWRITE("((y + (z + x)) / x)", "(((y + z) / x) + 1)");
  CHECK_REWRITE("((x*y) / y)", "x");
  CHECK_REWRITE("((y*x) / y)", "x");
  CHECK_REWRITE("(((x*z) + y) / z)", "(x + (y / z))");
  CHECK_REWRITE("(((z*x) + y) / z)", "(x + (y / z))");
  CHECK_REWRITE("((y + (x*z)) / z)", "((y / z) + x)");
  CHECK_REWRITE("((y + (z*x)) / z)", "((y / z) + x)");
  CHECK_REWRITE("(7 / 2)", "3");
  CHECK_REWRITE("(-7 / 2)", "-3");
  CHECK_REWRITE("(x / 1)", "x");
  CHECK_REWRITE("(0 / x)", "0");
  CHECK_REWRITE("(x / 0)", "(x / 0)");
  /* unknown signs: nothing moves */
  CHECK_REWRITE("(((w*4) + v) / 2)", "(((w*4) + v) / 2)");
  CHECK_REWRITE("((w + 4) / 2)", "((w + 4) / 2)");
}

static void test_rewrite_div_floor(void) {
  world_reset();
  CHECK_REWRITE("floordiv(floordiv(x, 2), 3)", "floordiv(x, 6)");
  CHECK_REWRITE("floordiv((floordiv(x, 2) + 1), 3)", "floordiv((x + 2), 6)");
  CHECK_REWRITE("floordiv((x - floormod(x, 21)), 21)", "floordiv(x, 21)");
  CHECK_REWRITE("floordiv((x*2), 4)", "floordiv(x, 2)");
  CHECK_REWRITE("floordiv((x*4), 2)", "(x*2)");
  CHECK_REWRITE("floordiv(((x*8) + 7), 16)", "floordiv(x, 2)");
  CHECK_REWRITE("floordiv(((x*8) + 39), 16)", "(floordiv(x, 2) + 2)");
  CHECK_REWRITE("floordiv(((x*8) - 1), 16)", "floordiv(((x*8) + -1), 16)");
  CHECK_REWRITE("floordiv(((x*8) - 9), 16)", "(floordiv(x, 2) + -1)");
  CHECK_REWRITE("floordiv(x, x)", "1");
  CHECK_REWRITE("floordiv((x*5), x)", "5");
  CHECK_REWRITE("floordiv((floormod(x, 2) + 1), 2)", "floormod(x, 2)");
  CHECK_REWRITE("floordiv((x*6), (x*3))", "2");
  CHECK_REWRITE("floordiv(-7, 2)", "-4");
  CHECK_REWRITE("floordiv(x, 1)", "x");
  set_bound("x", 0, 1);
  set_bound("y", 0, 7);
  CHECK_REWRITE("floordiv(((x*360) + y), 16)", "(x*22)");
  CHECK_REWRITE("floordiv(((x*360) + y), 25)", "(x*14)");
  CHECK_REWRITE("floordiv(((x*360) - 8), 25)", "floordiv(((x*360) + -8), 25)");
  CHECK_REWRITE("floordiv(((x*4) + y), 2)", "((x*2) + floordiv(y, 2))");
  CHECK_REWRITE("floordiv(min((x*6), y), 2)", "min((x*3), floordiv(y, 2))");
  CHECK_REWRITE("floordiv(max((x*6), y), 2)", "max((x*3), floordiv(y, 2))");
  CHECK_REWRITE("floordiv((y + (x*4)), 2)", "((x*2) + floordiv(y, 2))");
  CHECK_REWRITE("floordiv(min(y, (x*6)), 2)", "min(floordiv(y, 2), (x*3))");
  CHECK_REWRITE("floordiv(max(y, (x*6)), 2)", "max(floordiv(y, 2), (x*3))");
  CHECK_REWRITE("floordiv((((x*6) + y) + z), 2)", "((x*3) + floordiv((y + z), 2))");
  CHECK_REWRITE("floordiv((((x*6) - y) + (y + 3)), 2)", "((x*3) + 1)");
  CHECK_REWRITE("floordiv((((x*6) + (y + 3)) - y), 2)", "((x*3) + 1)");
  CHECK_REWRITE("floordiv(((y + (x*6)) + z), 2)", "((x*3) + floordiv((y + z), 2))");
  CHECK_REWRITE("floordiv((x + 4), 2)", "(floordiv(x, 2) + 2)");
  set_bound("x", 0, 1000);
  CHECK_REWRITE("floordiv((x + y), x)", "(floordiv(y, x) + 1)");
  CHECK_REWRITE("floordiv((y + x), x)", "(floordiv(y, x) + 1)");
  CHECK_REWRITE("floordiv(((x + y) + z), x)", "(floordiv((y + z), x) + 1)");
  CHECK_REWRITE("floordiv(((y + x) + z), x)", "(floordiv((y + z), x) + 1)");
  CHECK_REWRITE("floordiv((y + (x + z)), x)", "(floordiv((y + z), x) + 1)");
  CHECK_REWRITE("floordiv((y + (z + x)), x)", "(floordiv((y + z), x) + 1)");
  set_bound("y", 0, 1000);
  set_bound("z", 0, 1000);
  CHECK_REWRITE("floordiv((x*y), y)", "x");
  CHECK_REWRITE("floordiv((y*x), y)", "x");
  CHECK_REWRITE("floordiv(((x*z) + y), z)", "(x + floordiv(y, z))");
  CHECK_REWRITE("floordiv(((z*x) + y), z)", "(x + floordiv(y, z))");
  CHECK_REWRITE("floordiv((y + (x*z)), z)", "(floordiv(y, z) + x)");
  CHECK_REWRITE("floordiv((y + (z*x)), z)", "(floordiv(y, z) + x)");
  set_bound("y", 0, 31);
  set_bound("z", 0, 3);
  CHECK_REWRITE("floordiv(((x*32) + y), 64)", "floordiv(x, 2)");
  CHECK_REWRITE("floordiv((((x*128) + (y*4)) + z), 512)", "floordiv(x, 4)");
  CHECK_REWRITE("floordiv(((x*32) + y), 32)", "x");
}

static void test_rewrite_div_mod(void) {
  world_reset();
  set_bound("x", 0, 1000);
  set_bound("y", 0, 1000);
  set_bound("nx", -1000, 0);
  set_bound("ny", -1000, 0);
  CHECK_REWRITE("((x*10) % 2)", "0");
  CHECK_REWRITE("(((x*10) + y) % 2)", "(y % 2)");
  CHECK_REWRITE("((x + 10) % 2)", "(x % 2)");
  CHECK_REWRITE("((x + (y*10)) % 2)", "(x % 2)");
  CHECK_REWRITE("(((((x*10) + 1) + (y*2)) + 2) % 2)", "1");
  CHECK_REWRITE("((x*10) % -2)", "0");
  CHECK_REWRITE("(((x*10) + y) % -2)", "(y % 2)");
  CHECK_REWRITE("((x + 10) % -2)", "(x % 2)");
  CHECK_REWRITE("((x + (y*10)) % -2)", "(x % 2)");
  CHECK_REWRITE("(((((x*10) + 1) + (y*2)) + 2) % -2)", "1");
  CHECK_REWRITE("((x*-10) % 2)", "0");
  CHECK_REWRITE("(((x*-10) + y) % 2)", "(((x*-10) + y) % 2)");
  CHECK_REWRITE("((x + -10) % 2)", "((x + -10) % 2)");
  CHECK_REWRITE("((x + (y*-10)) % 2)", "((x + (y*-10)) % 2)");
  CHECK_REWRITE("((x*-10) % -2)", "0");
  CHECK_REWRITE("((nx*10) % 2)", "0");
  CHECK_REWRITE("(((nx*-10) + y) % 2)", "(y % 2)");
  CHECK_REWRITE("((x + (ny*-10)) % 2)", "(x % 2)");
  CHECK_REWRITE("(((((nx*-10) + 1) + (ny*-2)) + 2) % 2)", "1");
  CHECK_REWRITE("((nx*10) % -2)", "0");
  CHECK_REWRITE("(((nx*-10) + y) % -2)", "(y % 2)");
  CHECK_REWRITE("((x + (ny*-10)) % -2)", "(x % 2)");
  CHECK_REWRITE("(-7 % 2)", "-1");
  CHECK_REWRITE("(x % 1)", "0");
  CHECK_REWRITE("(x % 0)", "(x % 0)");
}

static void test_rewrite_div_floormod(void) {
  world_reset();
  CHECK_REWRITE("floormod((x*10), 2)", "0");
  CHECK_REWRITE("floormod((x*9600), 6400)", "floormod((x*3200), 6400)");
  CHECK_REWRITE("floormod(((x*10) + y), 2)", "floormod(y, 2)");
  CHECK_REWRITE("floormod(((x*360) + y), 16)", "floormod(((x*360) + y), 16)");
  CHECK_REWRITE("floormod(((x*1024) + y), 100)", "floormod(((x*1024) + y), 100)");
  CHECK_REWRITE("floormod((x + 10), 2)", "floormod(x, 2)");
  CHECK_REWRITE("floormod((x + (y*10)), 2)", "floormod(x, 2)");
  CHECK_REWRITE("floormod((x + (y*360)), 16)", "floormod((x + (y*360)), 16)");
  CHECK_REWRITE("floormod((x + (y*32)), 16)", "floormod(x, 16)");
  CHECK_REWRITE("floormod(((((x*10) + 1) + (y*2)) + 2), 2)", "1");
  CHECK_REWRITE("floormod((x*-10), 2)", "0");
  CHECK_REWRITE("floormod(((x*-10) + y), 2)", "floormod(y, 2)");
  CHECK_REWRITE("floormod((x + -10), 2)", "floormod(x, 2)");
  CHECK_REWRITE("floormod((x + (y*-10)), 2)", "floormod(x, 2)");
  CHECK_REWRITE("floormod((x*6), (x*4))", "(x*2)");
  CHECK_REWRITE("floormod((x*y), y)", "0");
  CHECK_REWRITE("floormod((y*x), y)", "0");
  CHECK_REWRITE("floormod(-7, 2)", "1");
  CHECK_REWRITE("floormod(x, 1)", "0");
  set_bound("y", 0, 31);
  CHECK_REWRITE("floormod(((x*32) + y), 64)", "((floormod(x, 2)*32) + y)");
  CHECK_REWRITE("floormod(((x*32) - y), 64)", "floormod(((x*32) - y), 64)");
  CHECK_REWRITE("floormod(y, 32)", "y");
  CHECK_REWRITE("floormod(y, 16)", "floormod(y, 16)");
  CHECK_REWRITE("floormod(((x*32) + 4), 8)", "4");
}

static void test_rewrite_div_vector(void) {
  world_reset();
  CHECK_REWRITE("(broadcast(y, 2) / broadcast(x, 2))", "broadcast((y / x), 2)");
  set_bound("x", 0, 1000);
  CHECK_REWRITE("(ramp(x, 4, 4) / broadcast(2, 4))", "ramp((x / 2), 2, 4)");
  CHECK_REWRITE("(ramp(((x*8) + 1), 1, 4) / broadcast(8, 4))", "broadcast(x, 4)");
  CHECK_REWRITE("(ramp(((x*8) + 15), 1, 4) / broadcast(8, 4))",
                "(ramp(((x*8) + 15), 1, 4) / broadcast(8, 4))");
  CHECK_REWRITE("(broadcast(y, 2) % broadcast(x, 2))", "broadcast((y % x), 2)");
  CHECK_REWRITE("(ramp(x, 4, 4) % broadcast(2, 4))", "broadcast((x % 2), 4)");
  CHECK_REWRITE("(ramp(((x*8) + 1), 1, 4) % broadcast(8, 4))", "ramp(1, 1, 4)");
  CHECK_REWRITE("(ramp(((x*8) + 1), 15, 4) % broadcast(8, 4))",
                "(ramp(1, 15, 4) % broadcast(8, 4))");
  set_bound("x", -10, 1000);
  CHECK_REWRITE("floordiv(broadcast(y, 2), broadcast(x, 2))", "broadcast(floordiv(y, x), 2)");
  CHECK_REWRITE("floordiv(ramp(x, 4, 4), broadcast(2, 4))", "ramp(floordiv(x, 2), 2, 4)");
  CHECK_REWRITE("floordiv(ramp(((x*8) + 1), 1, 4), broadcast(8, 4))", "broadcast(x, 4)");
  CHECK_REWRITE("floordiv(ramp(((x*8) + 15), 1, 4), broadcast(8, 4))",
                "floordiv(ramp(((x*8) + 15), 1, 4), broadcast(8, 4))");
  CHECK_REWRITE("floordiv(ramp(x, 8, 5), broadcast(4, 5))", "ramp(floordiv(x, 4), 2, 5)");
  CHECK_REWRITE("floordiv(ramp(floormod((x*4), 256), 1, 4), broadcast(8, 4))",
                "broadcast(floordiv(floormod((x*4), 256), 8), 4)");
  CHECK_REWRITE("floordiv(ramp(x, 7, 4), broadcast(4, 4))",
                "floordiv(ramp(x, 7, 4), broadcast(4, 4))");
  CHECK_REWRITE("floordiv(ramp((x*8), 1, 4), broadcast(4, 4))", "broadcast((x*2), 4)");
  CHECK_REWRITE("floordiv(ramp((x*8), 3, 4), broadcast(4, 4))",
                "floordiv(ramp((x*8), 3, 4), broadcast(4, 4))");
  CHECK_REWRITE("floordiv(ramp(((x*8) + 15), 1, 4), broadcast(4, 4))",
                "floordiv(ramp(((x*8) + 15), 1, 4), broadcast(4, 4))");
  CHECK_REWRITE("floordiv(ramp((x*4), 1, 4), broadcast(64, 4))", "broadcast(floordiv(x, 16), 4)");
  CHECK_REWRITE("floordiv(ramp((x*8), 2, 4), broadcast(64, 4))", "broadcast(floordiv(x, 8), 4)");
  CHECK_REWRITE("floordiv(ramp((x*4), 1, 5), broadcast(64, 5))",
                "floordiv(ramp((x*4), 1, 5), broadcast(64, 5))");
  CHECK_REWRITE("floordiv(ramp(((x*4) + 3), 1, 4), broadcast(64, 4))",
                "floordiv(ramp(((x*4) + 3), 1, 4), broadcast(64, 4))");
  CHECK_REWRITE("floordiv(ramp((x*7), 1, 4), broadcast(64, 4))",
                "floordiv(ramp((x*7), 1, 4), broadcast(64, 4))");
  CHECK_REWRITE("floormod(broadcast(y, 2), broadcast(x, 2))", "broadcast(floormod(y, x), 2)");
  CHECK_REWRITE("floormod(ramp(x, 4, 4), broadcast(2, 4))", "broadcast(floormod(x, 2), 4)");
  CHECK_REWRITE("floormod(ramp(((x*8) + 1), 1, 4), broadcast(8, 4))", "ramp(1, 1, 4)");
  CHECK_REWRITE("floormod(ramp(((x*8) + 1), 15, 4), broadcast(8, 4))",
                "floormod(ramp(1, 15, 4), broadcast(8, 4))");
  CHECK_REWRITE("floormod(ramp(x, 8, 4), broadcast(4, 4))", "broadcast(floormod(x, 4), 4)");
  CHECK_REWRITE("floormod(ramp(x, 7, 4), broadcast(4, 4))",
                "floormod(ramp(x, 7, 4), broadcast(4, 4))");
  CHECK_REWRITE("floormod(ramp((x*8), 1, 4), broadcast(4, 4))", "ramp(0, 1, 4)");
  CHECK_REWRITE("floormod(ramp((x*8), 1, 5), broadcast(4, 5))",
                "floormod(ramp(0, 1, 5), broadcast(4, 5))");
  CHECK_REWRITE("floormod(ramp(((x*8) + 7), 1, 4), broadcast(4, 4))",
                "floormod(ramp(3, 1, 4), broadcast(4, 4))");
  CHECK_REWRITE("floormod(ramp((x*4), 1, 4), broadcast(64, 4))", "ramp(floormod((x*4), 64), 1, 4)");
  CHECK_REWRITE("floormod(ramp((x*8), 2, 4), broadcast(64, 4))", "ramp(floormod((x*8), 64), 2, 4)");
  CHECK_REWRITE("floormod(ramp((x*4), 1, 5), broadcast(64, 5))",
                "floormod(ramp((x*4), 1, 5), broadcast(64, 5))");
  CHECK_REWRITE("floormod(ramp(((x*4) + 3), 1, 4), broadcast(64, 4))",
                "floormod(ramp(((x*4) + 3), 1, 4), broadcast(64, 4))");
  CHECK_REWRITE("floormod(ramp((x*2), 1, 8), broadcast(20, 8))",
                "floormod(ramp((x*2), 1, 8), broadcast(20, 8))");
  CHECK_REWRITE("floormod(ramp((x*7), 1, 4), broadcast(64, 4))",
                "floormod(ramp((x*7), 1, 4), broadcast(64, 4))");
}

static void test_rewrite_div_float(void) {
  world_reset();
  var_t("f", DT_F32);
  /* x / c is x * (1/c), as TVM writes (f / 2) */
  CHECK_REWRITE("(f / 2f32)", "(f*0.5f32)");
  CHECK_REWRITE("(f / 4f32)", "(f*0.25f32)");
  CHECK_REWRITE("(f / 0f32)", "(f / 0f32)");
  CHECK_REWRITE("(f / f)", "(f / f)");
  CHECK_REWRITE("(3f32 / 2f32)", "1.5f32");
}

int main(void) {
  test_rewrite_div_trunc();
  test_rewrite_div_floor();
  test_rewrite_div_mod();
  test_rewrite_div_floormod();
  test_rewrite_div_vector();
  test_rewrite_div_float();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
