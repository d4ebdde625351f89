/* test_rewrite_mul.c: unit tests of ir/arith/rewrite_mul.c, the rules of *: constants to the
 * right and folded together, distribution of a constant over + c, the sign of a difference,
 * and the vector forms (TVM's test_mul_index_simplify and the Mul part of
 * test_vector_simplify). */
#include "arith_test.h"

static void test_rewrite_mul_index(void) {
  world_reset();
  CHECK_REWRITE("((x + 2)*3)", "((x*3) + 6)");
  CHECK_REWRITE("((x*2)*3)", "(x*6)");
  CHECK_REWRITE("(min(x, y)*max(x, y))", "(x*y)");
  CHECK_REWRITE("(max(x, y)*min(x, y))", "(x*y)");
  CHECK_REWRITE("((x - y)*-2)", "((y - x)*2)");
  CHECK_REWRITE("(3*x)", "(x*3)");
  CHECK_REWRITE("(x*(3*y))", "(x*(y*3))"); /* 3*y turns into y*3 before the outer rules */
  CHECK_REWRITE("((2*x)*(3*y))", "((x*2)*(y*3))");
  CHECK_REWRITE("(((x + 2)*3)*4)", "((x*12) + 24)");
  /* TVM's quirk, kept: x*2 + 2 matches y*x + x with x = 2 */
  CHECK_REWRITE("((x + 1)*2)", "(2*(x + 1))");
  CHECK_SIMP("((x + 1)*2)", "((x*2) + 2)");
  CHECK_REWRITE("(x*1)", "x");
  CHECK_REWRITE("(1*x)", "x");
  CHECK_REWRITE("(x*0)", "0");
  CHECK_REWRITE("(0*x)", "0");
  CHECK_REWRITE("(6*7)", "42");
  CHECK_REWRITE("(65536*65536)", "0"); /* int32 wraps */
  CHECK_REWRITE("(x*y)", "(x*y)");
  CHECK_REWRITE("((x - y)*2)", "((x - y)*2)");
  CHECK_REWRITE("(floordiv((x - floormod(x, -8)), 8)*8)", "(x - floormod(x, -8))");
  CHECK_REWRITE("(floordiv((x - floormod(x, 8)), 8)*8)", "(floordiv(x, 8)*8)");
  CHECK_REWRITE("(floordiv((x - floormod(x, 8)), -8)*-8)", "(x - floormod(x, 8))");
  CHECK_REWRITE("(floordiv((x - floormod(x, 8)), 4)*4)", "(floordiv((x - floormod(x, 8)), 4)*4)");
}

static void test_rewrite_mul_vector(void) {
  world_reset();
  CHECK_REWRITE("(broadcast(y, 2)*broadcast(x, 2))", "broadcast((y*x), 2)");
  CHECK_REWRITE("(ramp(x, 4, 4)*broadcast(2, 4))", "ramp((x*2), 8, 4)");
  CHECK_REWRITE("(broadcast(2, 4)*ramp(x, 4, 4))", "ramp((x*2), 8, 4)");
  CHECK_REWRITE("(broadcast(0, 4)*broadcast(x, 4))", "broadcast(0, 4)");
  CHECK_REWRITE("(broadcast(0f32, 4)*broadcast(2f32, 4))", "broadcast(0f32, 4)");
  CHECK_REWRITE("(ramp(x, 1, 4)*ramp(y, 1, 4))", "(ramp(x, 1, 4)*ramp(y, 1, 4))");
}

static void test_rewrite_mul_float(void) {
  world_reset();
  var_t("f", DT_F32);
  CHECK_REWRITE("(f*1f32)", "f");
  CHECK_REWRITE("(2f32*3f32)", "6f32");
  CHECK_REWRITE("(2f32*f)", "(2f32*f)"); /* constants move right only for integers */
  CHECK_REWRITE("((f*2f32)*3f32)", "((f*2f32)*3f32)");
}

int main(void) {
  test_rewrite_mul_index();
  test_rewrite_mul_vector();
  test_rewrite_mul_float();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
