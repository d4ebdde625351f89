/* test_rewrite_minmax.c: unit tests of ir/arith/rewrite_minmax.c, the rules of min and max:
 * decided by bounds, absorbed, distributed, scaled (TVM's test_min_index_simplify and
 * test_max_index_simplify, with the vector and select cases). */
#include "arith_test.h"

static void test_rewrite_minmax_min(void) {
  world_reset();
  CHECK_REWRITE("min((x % 2), ((y % 2) + 10))", "(x % 2)");
  CHECK_REWRITE("min(floormod(x, 2), (floormod(y, 2) + 10))", "floormod(x, 2)");
  CHECK_REWRITE("min((x + 1), (x + 10))", "(x + 1)");
  CHECK_REWRITE("min((x + 111), (x + 10))", "(x + 10)");
  CHECK_REWRITE("min((x + 1), x)", "x");
  CHECK_REWRITE("min(x, (x + 2))", "x");
  CHECK_REWRITE("min(x, (x - 2))", "(x + -2)");
  CHECK_REWRITE("min((1 - x), (2 - x))", "(1 - x)");
  CHECK_REWRITE("min((3 - x), (2 - x))", "(2 - x)");
  CHECK_REWRITE("min(max(x, y), min(x, y))", "min(x, y)");
  CHECK_REWRITE("min(max(x, y), min(y, x))", "min(x, y)");
  CHECK_REWRITE("min(max(x, y), x)", "x");
  CHECK_REWRITE("min(max(y, x), x)", "x");
  CHECK_REWRITE("min(min(x, y), x)", "min(x, y)");
  CHECK_REWRITE("min(min(x, y), y)", "min(x, y)");
  CHECK_REWRITE("min(x, max(x, y))", "x");
  CHECK_REWRITE("min(x, max(y, x))", "x");
  CHECK_REWRITE("min(x, min(x, y))", "min(x, y)");
  CHECK_REWRITE("min(y, min(x, y))", "min(x, y)");
  CHECK_REWRITE("min(min(min(x, y), z), y)", "min(min(x, y), z)");
  CHECK_REWRITE("min(min(min(min(x, y), z), (x*2)), y)", "min(min(min(x, y), z), (x*2))");
  CHECK_REWRITE("min(min(min(min(min(x, y), z), (x*2)), (z*2)), y)",
                "min(min(min(min(x, y), z), (x*2)), (z*2))");
  CHECK_REWRITE("min(max(x, y), max(x, z))", "max(min(y, z), x)");
  CHECK_REWRITE("min(max(x, y), max(z, x))", "max(min(y, z), x)");
  CHECK_REWRITE("min(max(y, x), max(x, z))", "max(min(y, z), x)");
  CHECK_REWRITE("min(max(y, x), max(z, x))", "max(min(y, z), x)");
  CHECK_REWRITE("min(min(x, y), min(x, z))", "min(min(y, z), x)");
  CHECK_REWRITE("min((y + x), (z + x))", "(min(y, z) + x)");
  CHECK_REWRITE("min((y + x), (x + z))", "(min(y, z) + x)");
  CHECK_REWRITE("min((x + y), (z + x))", "(min(y, z) + x)");
  CHECK_REWRITE("min((x + y), (x + z))", "(min(y, z) + x)");
  CHECK_REWRITE("min((x - y), (x - z))", "(x - max(y, z))");
  CHECK_REWRITE("min((y - x), (z - x))", "(min(y, z) - x)");
  CHECK_REWRITE("min(min(x, 1), 10)", "min(x, 1)");
  CHECK_REWRITE("min(min(x, 11), 10)", "min(x, 10)");
  CHECK_REWRITE("min((x*3), 9)", "(min(x, 3)*3)");
  CHECK_REWRITE("min((x*2), 0)", "(min(x, 0)*2)");
  CHECK_REWRITE("min((0 - (x*2)), 0)", "(max(x, 0)*-2)");
  CHECK_REWRITE("min((3 - x), 2)", "(3 - max(x, 1))");
  CHECK_REWRITE("min((x*-2), -4)", "(max(x, 2)*-2)");
  CHECK_REWRITE("min((x*-2), 4)", "(max(x, -2)*-2)");
  CHECK_REWRITE("min((x*0), 4)", "0");
  CHECK_REWRITE("min((x*0), -4)", "-4");
  CHECK_REWRITE("min((x*3), 10)", "min((x*3), 10)");
  CHECK_REWRITE("min(min(x, 3), y)", "min(min(x, y), 3)");
  CHECK_REWRITE("min(x, x)", "x");
  CHECK_REWRITE("min(3, 5)", "3");
}

static void test_rewrite_minmax_min_divmod(void) {
  world_reset();
  set_bound("x", 0, 1000);
  CHECK_REWRITE("min((((x + 3) / 4)*4), x)", "x");
  CHECK_REWRITE("min(x, (((x + 3) / 4)*4))", "x");
  /* x rounded up to 4 is at least max(x, 4) only from x = 1 on: at 0 it is 0 */
  CHECK_REWRITE("min((((x + 3) / 4)*4), max(x, 4))", "min((((x + 3) / 4)*4), max(x, 4))");
  set_bound("x", 1, 1000);
  CHECK_REWRITE("min((((x + 3) / 4)*4), max(x, 4))", "max(x, 4)");
  CHECK_REWRITE("min(max(x, 4), (((x + 3) / 4)*4))", "max(x, 4)");
  set_bound("x", -1000, 1000);
  CHECK_REWRITE("min((floordiv((x + 3), 4)*4), max(x, 4))",
                "min((floordiv((x + 3), 4)*4), max(x, 4))");
  CHECK_REWRITE("min((x / 10), (y / 10))", "(min(x, y) / 10)");
  CHECK_REWRITE("min((x / -10), (y / -10))", "(max(x, y) / -10)");
  CHECK_REWRITE("min((floordiv((x + 3), 4)*4), x)", "x");
  CHECK_REWRITE("min(x, (floordiv((x + 3), 4)*4))", "x");
  CHECK_REWRITE("min(x, (floordiv(x, 4)*4))", "(floordiv(x, 4)*4)");
  CHECK_REWRITE("min(floordiv(x, 10), floordiv(y, 10))", "floordiv(min(x, y), 10)");
  CHECK_REWRITE("min(floordiv(x, -10), floordiv(y, -10))", "floordiv(max(x, y), -10)");
  set_bound("x", 1, 1000);
  CHECK_REWRITE("min((floordiv((x + 3), 4)*4), max(x, 4))", "max(x, 4)");
  CHECK_REWRITE("min(max(x, 4), (floordiv((x + 3), 4)*4))", "max(x, 4)");
  CHECK_REWRITE("min((x*3), (y*3))", "(min(x, y)*3)");
  CHECK_REWRITE("min((x*-3), (y*-3))", "(max(x, y)*-3)");
}

static void test_rewrite_minmax_max(void) {
  world_reset();
  CHECK_REWRITE("max((x % 2), ((y % 2) + 10))", "((y % 2) + 10)");
  CHECK_REWRITE("max(floormod(x, 2), (floormod(y, 2) + 10))", "(floormod(y, 2) + 10)");
  CHECK_REWRITE("max((x + 1), (x + 10))", "(x + 10)");
  CHECK_REWRITE("max((x + 111), (x + 10))", "(x + 111)");
  CHECK_REWRITE("max((x + 1), x)", "(x + 1)");
  CHECK_REWRITE("max(x, (x + 2))", "(x + 2)");
  CHECK_REWRITE("max((1 - x), (2 - x))", "(2 - x)");
  CHECK_REWRITE("max((3 - x), (2 - x))", "(3 - x)");
  CHECK_REWRITE("max(min(x, y), max(x, y))", "max(x, y)");
  CHECK_REWRITE("max(min(x, y), max(y, x))", "max(x, y)");
  CHECK_REWRITE("max(min(x, y), x)", "x");
  CHECK_REWRITE("max(min(y, x), x)", "x");
  CHECK_REWRITE("max(max(x, y), x)", "max(x, y)");
  CHECK_REWRITE("max(max(x, y), y)", "max(x, y)");
  CHECK_REWRITE("max(x, min(x, y))", "x");
  CHECK_REWRITE("max(x, min(y, x))", "x");
  CHECK_REWRITE("max(x, max(x, y))", "max(x, y)");
  CHECK_REWRITE("max(y, max(x, y))", "max(x, y)");
  CHECK_REWRITE("max(max(max(x, y), z), y)", "max(max(x, y), z)");
  CHECK_REWRITE("max(max(max(max(x, y), z), (x*2)), y)", "max(max(max(x, y), z), (x*2))");
  CHECK_REWRITE("max(max(max(max(max(x, y), z), (x*2)), (z*2)), y)",
                "max(max(max(max(x, y), z), (x*2)), (z*2))");
  CHECK_REWRITE("max(min(x, y), min(x, z))", "min(max(y, z), x)");
  CHECK_REWRITE("max(min(x, y), min(z, x))", "min(max(y, z), x)");
  CHECK_REWRITE("max(min(y, x), min(x, z))", "min(max(y, z), x)");
  CHECK_REWRITE("max(min(y, x), min(z, x))", "min(max(y, z), x)");
  CHECK_REWRITE("max(max(x, y), max(x, z))", "max(max(y, z), x)");
  CHECK_REWRITE("max((y + x), (z + x))", "(max(y, z) + x)");
  CHECK_REWRITE("max((y + x), (x + z))", "(max(y, z) + x)");
  CHECK_REWRITE("max((x + y), (z + x))", "(max(y, z) + x)");
  CHECK_REWRITE("max((x + y), (x + z))", "(max(y, z) + x)");
  CHECK_REWRITE("max((x - y), (x - z))", "(x - min(y, z))");
  CHECK_REWRITE("max((y - x), (z - x))", "(max(y, z) - x)");
  CHECK_REWRITE("max(max(x, 1), 10)", "max(x, 10)");
  CHECK_REWRITE("max(max(x, 11), 10)", "max(x, 11)");
  CHECK_REWRITE("max((x*3), 9)", "(max(x, 3)*3)");
  CHECK_REWRITE("max((3 - x), 1)", "(3 - min(x, 2))");
  CHECK_REWRITE("max((x*2), 0)", "(max(x, 0)*2)");
  CHECK_REWRITE("max((0 - (x*2)), 0)", "(min(x, 0)*-2)");
  CHECK_REWRITE("max((x*-2), -4)", "(min(x, 2)*-2)");
  CHECK_REWRITE("max((x*-2), 4)", "(min(x, -2)*-2)");
  CHECK_REWRITE("max((x*0), 4)", "4");
  CHECK_REWRITE("max((x*0), -4)", "0");
  CHECK_REWRITE("max((x / 10), (y / 10))", "(max(x, y) / 10)");
  CHECK_REWRITE("max((x / -10), (y / -10))", "(min(x, y) / -10)");
  CHECK_REWRITE("max((((x + 3) / 4)*4), x)", "(((x + 3) / 4)*4)");
  CHECK_REWRITE("max(floordiv(x, 10), floordiv(y, 10))", "floordiv(max(x, y), 10)");
  CHECK_REWRITE("max(floordiv(x, -10), floordiv(y, -10))", "floordiv(min(x, y), -10)");
  CHECK_REWRITE("max((floordiv((x + 3), 4)*4), x)", "(floordiv((x + 3), 4)*4)");
  CHECK_REWRITE("max((floordiv(x, 4)*4), x)", "x");
  CHECK_REWRITE("max(x, (floordiv(x, 4)*4))", "x");
  CHECK_REWRITE("max(max(x, 3), y)", "max(max(x, y), 3)");
  CHECK_REWRITE("max(x, x)", "x");
  CHECK_REWRITE("max(3, 5)", "5");
}

static void test_rewrite_minmax_bounds(void) {
  world_reset();
  set_bound("i", 0, 15);
  set_bound("j", 16, 31);
  CHECK_REWRITE("min(i, j)", "i");
  CHECK_REWRITE("max(i, j)", "j");
  CHECK_REWRITE("min(j, 15)", "15");
  CHECK_REWRITE("max(i, 15)", "15");
  CHECK_REWRITE("max(i, 14)", "max(i, 14)");
  CHECK_REWRITE("min((i + 1), j)", "(i + 1)");
  /* min and max of floats only fold constants */
  var_t("f", DT_F32);
  CHECK_REWRITE("min(f, f)", "min(f, f)");
  CHECK_REWRITE("max(1f32, 2f32)", "2f32");
}

static void test_rewrite_minmax_vector_select(void) {
  world_reset();
  CHECK_REWRITE("min(broadcast(y, 2), broadcast(x, 2))", "broadcast(min(y, x), 2)");
  CHECK_REWRITE("max(broadcast(y, 2), broadcast(x, 2))", "broadcast(max(y, x), 2)");
  CHECK_REWRITE("min(min(ramp(x, 1, 2), broadcast(y, 2)), broadcast(z, 2))",
                "min(ramp(x, 1, 2), broadcast(min(y, z), 2))");
  CHECK_REWRITE("max(max(ramp(x, 1, 2), broadcast(y, 2)), broadcast(z, 2))",
                "max(ramp(x, 1, 2), broadcast(max(y, z), 2))");
  CHECK_REWRITE("min(select((x < 0), y, 0), select((x < 0), 1, z))",
                "select((x < 0), min(y, 1), min(0, z))");
  CHECK_REWRITE("max(select((x < 0), y, 0), select((x < 0), 1, z))",
                "select((x < 0), max(y, 1), max(0, z))");
}

int main(void) {
  test_rewrite_minmax_min();
  test_rewrite_minmax_min_divmod();
  test_rewrite_minmax_max();
  test_rewrite_minmax_bounds();
  test_rewrite_minmax_vector_select();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
