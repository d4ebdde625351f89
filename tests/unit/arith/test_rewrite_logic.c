/* test_rewrite_logic.c: unit tests of ir/arith/rewrite_logic.c: negation pushed into
 * comparisons, contradictions and tautologies of && and ||, ranges merged from floordiv and
 * floormod facts, select, likely and if_then_else (TVM's test_logical_simplify, the merging
 * cases of test_cmp_simplify, test_select_simplify and test_if_then_else_simplify). */
#include "arith_test.h"

static void test_rewrite_logic_not(void) {
  world_reset();
  var_t("b", DT_BOOL1);
  CHECK_REWRITE("!!b", "b");
  CHECK_REWRITE("!(x <= y)", "(y < x)");
  CHECK_REWRITE("!(x >= y)", "(x < y)");
  CHECK_REWRITE("!(x < y)", "(y <= x)");
  CHECK_REWRITE("!(x > y)", "(x <= y)");
  CHECK_REWRITE("!(x == y)", "(x != y)");
  CHECK_REWRITE("!(x != y)", "(x == y)");
  CHECK_REWRITE("!((x < y) || (z < w))", "((y <= x) && (w <= z))");
  CHECK_REWRITE("!((x < y) && (z < w))", "((y <= x) || (w <= z))");
  CHECK_REWRITE("!True", "False");
  CHECK_REWRITE("!b", "!b");
}

static void test_rewrite_logic_and(void) {
  world_reset();
  CHECK_REWRITE("((x == y) && (x != y))", "False");
  CHECK_REWRITE("((x != y) && (x == y))", "False");
  CHECK_REWRITE("((x > 1) && !(x > 1))", "False");
  CHECK_REWRITE("((x <= y) && (y < x))", "False");
  CHECK_REWRITE("((y < x) && (x <= y))", "False");
  CHECK_REWRITE("((x < 1) && (0 < x))", "False");
  CHECK_REWRITE("((x < 0) && (1 < x))", "False");
  CHECK_REWRITE("((x < 1) && (1 <= x))", "False");
  CHECK_REWRITE("((x <= 1) && (1 < x))", "False");
  CHECK_REWRITE("((1 <= x) && (x < 1))", "False");
  CHECK_REWRITE("((1 < x) && (x <= 1))", "False");
  CHECK_REWRITE("((x <= 1) && (2 <= x))", "False");
  CHECK_REWRITE("((2 <= x) && (x <= 1))", "False");
  CHECK_REWRITE("((x == 1) && (x != 2))", "(x == 1)");
  CHECK_REWRITE("((x == 1) && (x == 2))", "False");
  CHECK_REWRITE("((x == 1) && (x == 1))", "(x == 1)");
  CHECK_REWRITE("((x < 2) && (0 < x))", "((x < 2) && (0 < x))");
  CHECK_REWRITE("((x < y) && True)", "(x < y)");
  CHECK_REWRITE("(False && (x < y))", "False");
  CHECK_REWRITE("((x < y) && ((y < z) && (z < w)))", "(((x < y) && (y < z)) && (z < w))");
  /* a vector operand whose every lane is the same constant */
  CHECK_REWRITE("(broadcast(True, 16) && (ramp(x, 1, 16) < broadcast(y, 16)))",
                "(ramp(x, 1, 16) < broadcast(y, 16))");
  CHECK_REWRITE("((ramp(x, 1, 4) < broadcast(y, 4)) && broadcast(True, 4))",
                "(ramp(x, 1, 4) < broadcast(y, 4))");
  CHECK_REWRITE("(broadcast(False, 4) && (ramp(x, 1, 4) < broadcast(y, 4)))", "broadcast(False, 4)");
  CHECK_REWRITE("((ramp(x, 1, 4) < broadcast(y, 4)) && broadcast(False, 4))", "broadcast(False, 4)");
  bind("i", 0, 96);
  CHECK_REWRITE("(broadcast((0 <= i), 16) && (ramp((i*16), 1, 16) < broadcast(1536, 16)))",
                "broadcast(True, 16)");
}

static void test_rewrite_logic_merge(void) {
  world_reset();
  CHECK_REWRITE("((floordiv(x, 8) == 3) && (floormod(x, 8) == 4))", "(x == 28)");
  CHECK_REWRITE("((floormod(x, 8) == 4) && (floordiv(x, 8) == 3))", "(x == 28)");
  CHECK_REWRITE("((floordiv(x, 8) == -3) && (floormod(x, 8) == 4))", "(x == -20)");
  CHECK_REWRITE("((floormod(x, 8) == 4) && (floordiv(x, 8) == -3))", "(x == -20)");
  CHECK_REWRITE("((0 <= (x - (y*5))) && ((x - (y*5)) < 5))", "(y == floordiv(x, 5))");
  CHECK_REWRITE("(((x - (y*5)) < 5) && (0 <= (x - (y*5))))", "(y == floordiv(x, 5))");
  CHECK_REWRITE("((x < 20) && (floormod(x, 5) < 2))", "((x < 17) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x < 18) && (floormod(x, 5) < 2))", "((x < 17) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x <= 19) && (floormod(x, 5) < 2))", "((x < 17) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x <= 18) && (floormod(x, 5) < 2))", "((x < 17) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x < -20) && (floormod(x, 5) < 2))", "((x < -23) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x < (18 - 40)) && (floormod(x, 5) < 2))", "((x < -23) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x <= -21) && (floormod(x, 5) < 2))", "((x < -23) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x <= -22) && (floormod(x, 5) < 2))", "((x < -23) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x < 16) && (floormod(x, 5) < 2))", "((x < 16) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((x <= 15) && (floormod(x, 5) < 2))", "((x <= 15) && (floormod(x, 5) < 2))");
  CHECK_REWRITE("((floordiv(x, 10) == 5) && (floormod(x, 10) < 7))", "((50 <= x) && (x < 57))");
  CHECK_REWRITE("((floordiv(x, 10) == 5) && (floormod(x, 10) <= 7))", "((50 <= x) && (x <= 57))");
  CHECK_REWRITE("((floordiv(x, 10) == -5) && (floormod(x, 10) < 7))", "((-50 <= x) && (x < -43))");
  CHECK_REWRITE("((floordiv(x, 10) == -5) && (floormod(x, 10) <= 7))",
                "((-50 <= x) && (x <= -43))");
  CHECK_REWRITE("((floordiv(x, 10) == 5) && (7 < floormod(x, 10)))", "((57 < x) && (x < 60))");
  CHECK_REWRITE("((floordiv(x, 10) == 5) && (7 <= floormod(x, 10)))", "((57 <= x) && (x < 60))");
  CHECK_REWRITE("((floordiv(x, 10) == -5) && (7 < floormod(x, 10)))", "((-43 < x) && (x < -40))");
  CHECK_REWRITE("((floordiv(x, 10) == -5) && (7 <= floormod(x, 10)))", "((-43 <= x) && (x < -40))");
}

static void test_rewrite_logic_or(void) {
  world_reset();
  CHECK_REWRITE("((x == y) || (x != y))", "True");
  CHECK_REWRITE("((x != y) || (x == y))", "True");
  CHECK_REWRITE("((x > y) || !(x > y))", "True");
  CHECK_REWRITE("((x <= y) || (y < x))", "True");
  CHECK_REWRITE("((y < x) || (y >= x))", "True");
  CHECK_REWRITE("((x < 1) || (0 < x))", "True");
  CHECK_REWRITE("((0 < x) || (x < 1))", "True");
  CHECK_REWRITE("((x < 1) || (1 <= x))", "True");
  CHECK_REWRITE("((x <= 1) || (1 < x))", "True");
  CHECK_REWRITE("((1 <= x) || (x < 1))", "True");
  CHECK_REWRITE("((1 < x) || (x <= 1))", "True");
  CHECK_REWRITE("((x <= 1) || (2 <= x))", "True");
  CHECK_REWRITE("((2 <= x) || (x <= 1))", "True");
  CHECK_REWRITE("((x != 1) || (x == 2))", "(x != 1)");
  CHECK_REWRITE("((x != 1) || (x != 2))", "True");
  CHECK_REWRITE("((x < y) || (y < x))", "(x != y)");
  CHECK_REWRITE("((x < y) || (x == y))", "(x <= y)");
  CHECK_REWRITE("((x == y) || (x < y))", "(x <= y)");
  CHECK_REWRITE("((x < 1) || (3 < x))", "((x < 1) || (3 < x))");
  CHECK_REWRITE("((x < y) || False)", "(x < y)");
  CHECK_REWRITE("(True || (x < y))", "True");
  CHECK_REWRITE("((x < y) || ((y < z) || (z < w)))", "(((x < y) || (y < z)) || (z < w))");
  CHECK_REWRITE("(broadcast(False, 4) || (ramp(x, 1, 4) < broadcast(y, 4)))",
                "(ramp(x, 1, 4) < broadcast(y, 4))");
  CHECK_REWRITE("((ramp(x, 1, 4) < broadcast(y, 4)) || broadcast(True, 4))", "broadcast(True, 4)");
  CHECK_REWRITE("(broadcast(True, 4) || (ramp(x, 1, 4) < broadcast(y, 4)))", "broadcast(True, 4)");
  CHECK_REWRITE("((ramp(x, 1, 4) < broadcast(y, 4)) || broadcast(False, 4))",
                "(ramp(x, 1, 4) < broadcast(y, 4))");
}

static void test_rewrite_logic_select(void) {
  world_reset();
  CHECK_REWRITE("select((((x*3) + 1) != 0), y, z)", "y");
  CHECK_REWRITE("select((((x*3) + 1) == 0), y, z)", "z");
  CHECK_REWRITE("select((x > 0), (y + 1), (y + 1))", "(y + 1)");
  CHECK_REWRITE("select(True, y, z)", "y");
  CHECK_REWRITE("select(False, y, z)", "z");
  CHECK_REWRITE("select(broadcast(True, 4), ramp(x, 1, 4), broadcast(y, 4))", "ramp(x, 1, 4)");
  CHECK_REWRITE("select(broadcast(False, 4), ramp(x, 1, 4), broadcast(y, 4))", "broadcast(y, 4)");
  /* the branches see the condition */
  CHECK_REWRITE("select((x < 5), min(x, 10), 0)", "select((x < 5), x, 0)");
  CHECK_REWRITE("select((x < 5), 0, max(x, 4))", "select((x < 5), 0, x)");
  CHECK_REWRITE("select((x < y), (x < y), False)", "select((x < y), True, False)");
}

static void test_rewrite_logic_call(void) {
  world_reset();
  CHECK_REWRITE("if_then_else((x < 5), if_then_else((x > 1), 1, 0), 0)",
                "@tir.if_then_else(((x < 5) && (1 < x)), 1, 0, dtype=int32)");
  CHECK_REWRITE("if_then_else((x > 2), if_then_else((x > 1), 1, 0), 0)",
                "@tir.if_then_else((2 < x), 1, 0, dtype=int32)");
  CHECK_REWRITE("if_then_else(True, x, y)", "x");
  CHECK_REWRITE("if_then_else(False, x, y)", "y");
  CHECK_REWRITE("if_then_else(broadcast(True, 4), ramp(x, 1, 4), broadcast(y, 4))", "ramp(x, 1, 4)");
  CHECK_REWRITE("if_then_else(broadcast(False, 4), ramp(x, 1, 4), broadcast(y, 4))",
                "broadcast(y, 4)");
  CHECK_REWRITE("if_then_else((ramp(0, 1, 4) < broadcast(4, 4)), ramp(x, 1, 4), broadcast(y, 4))",
                "ramp(x, 1, 4)");
  CHECK_REWRITE("if_then_else((x < y), z, z)", "z");
  CHECK_REWRITE("if_then_else((x < 5), if_then_else((x < 5), 1, 2), 3)",
                "@tir.if_then_else((x < 5), 1, 3, dtype=int32)");
  CHECK_REWRITE("likely(True)", "True");
  CHECK_REWRITE("likely((3 < 2))", "False");
  CHECK_REWRITE("likely((x < y))", "@tir.likely((x < y), dtype=bool)");
  set_bound("x", 0, 9);
  CHECK_REWRITE("likely((x < 10))", "True");
  CHECK_REWRITE("likely((x < 9))", "@tir.likely((x < 9), dtype=bool)");
  /* a call with a side effect keeps both arms */
  Expr *args[1] = {P("1")};
  Expr *effect = ir_call(&A, DT_I32, "tir.tvm_thread_context", CALL_EFFECT, 1, args);
  Expr *cond_args[3] = {ir_binary(&A, EXPR_LT, effect, P("y")), P("z"), P("z")};
  Expr *ite = ir_call(&A, DT_I32, "tir.if_then_else", CALL_PURE, 3, cond_args);
  CHECK(arith_rewrite_simplify(AN, ite) == ite);
}

static void test_rewrite_logic_let(void) {
  world_reset();
  Expr *z = ir_let(&A, var("t"), P("1"), P("(t + 1)"));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, ir_binary(&A, EXPR_ADD, z, z))), "4"));
  Expr *cast = ir_cast(&A, DT_F32, P("(x - x)"));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, cast)), "0f32"));
  cast = ir_cast(&A, DT_MAKE(DT_INT, 8, 1), P("(x == x)"));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, cast)), "1i8"));
  CHECK_REWRITE("cast(int64, (x - x))", "0i64");
  CHECK_REWRITE("cast(int64, x)", "cast(int64, x)");
  CHECK_REWRITE("cast(int32, x)", "x");
}

int main(void) {
  test_rewrite_logic_not();
  test_rewrite_logic_and();
  test_rewrite_logic_merge();
  test_rewrite_logic_or();
  test_rewrite_logic_select();
  test_rewrite_logic_call();
  test_rewrite_logic_let();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
