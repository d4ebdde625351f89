/* test_canonical.c: unit tests of ir/arith/canonical.c: like terms merge, terms come out by
 * descending scale with the constant after the positive ones, division and modulo of sums by
 * constants, split terms that recombine (x/6*6 + (x%6)/3*3 is x/3*3), and the expressions
 * that are not integer arithmetic left to the rewrite rules (TVM's
 * test_arith_canonical_simplify.py cases, in the printer's syntax). */
#include "arith_test.h"

static void test_canonical_sums(void) {
  world_reset();
  CHECK_CANON("(((x*4) + y) + (x*2))", "((x*6) + y)");
  CHECK_CANON("(((x + 1) - (y*3)) + (x*2))", "(((x*3) + 1) - (y*3))");
  CHECK_CANON("((x + y) - (y + x))", "0");
  CHECK_CANON("((((x*2) + 3) - (x*2)) - 3)", "0");
  CHECK_CANON("(((x - 1) + (y - 2)) + 5)", "((x + y) + 2)");
  CHECK_CANON("((x + 1) - 8)", "(x - 7)");
  CHECK_CANON("(1 - x)", "(1 - x)");
  CHECK_CANON("(0 - x)", "(0 - x)");
  CHECK_CANON("((0 - x) - y)", "((0 - x) - y)");
  CHECK_CANON("(x*-1)", "(x*-1)");
  CHECK_CANON("((x*-1) + 0)", "(x*-1)");
  CHECK_CANON("((y - x) + (x*2))", "(y + x)");
  CHECK_CANON("(((x*2) + (y*3)) - ((x*2) + y))", "(y*2)");
  CHECK_CANON("((x*(y + 1)) - x)", "((x*(y + 1)) - x)");
  CHECK_CANON("(((x + y)*4) - (y*4))", "(x*4)");
  CHECK_CANON("((x + y)*(x + y))", "((x + y)*(x + y))");
  CHECK_CANON("((((i*n) + j)*4) + 1)", "((((i*n)*4) + (j*4)) + 1)");
  CHECK_CANON("(((x*3) + 5)*-2)", "((0 - (x*6)) - 10)");
  CHECK_CANON("(3 + 4)", "7");
  CHECK_CANON("(x*0)", "0");
  /* terms by descending scale, equal scales in the program's order */
  CHECK_CANON("(((a + (b*4)) + (c*16)) + (d*64))", "((((d*64) + (c*16)) + (b*4)) + a)");
  CHECK_CANON("((c + b) + a)", "((c + b) + a)");
  /* a negative base comes last */
  CHECK_CANON("((((a*2) - 5) + b) - (c*3))",
              "((((a*2) + b) - (c*3)) - 5)");
  CHECK_CANON("((((a*2) + 5) + b) - (c*3))", "((((a*2) + b) + 5) - (c*3))");
  CHECK_CANON("(((a*-2) + (b*-3)) + 7)", "((7 - (a*2)) - (b*3))");
}

static void test_canonical_divmod(void) {
  world_reset();
  /* unknown signs: floor division splits exactly, truncation does not */
  CHECK_CANON("floordiv(((x*4) + 8), 4)", "(x + 2)");
  CHECK_CANON("floordiv(((x*4) + 9), 4)", "(x + 2)");
  /* scale ties: larger divisor first */
  CHECK_CANON("floordiv(((x*4) + y), 4)",
              "(floordiv(y, 4) + x)");
  CHECK_CANON("floormod(((x*4) + y), 4)", "floormod(y, 4)");
  CHECK_CANON("floormod(((x*4) + 9), 4)", "1");
  CHECK_CANON("floordiv((x - 5), 3)", "floordiv((x - 5), 3)");
  CHECK_CANON("floormod((x - 5), 3)", "floormod((x + 1), 3)");
  CHECK_CANON("(((x*4) + 8) / 4)", "(x + 2)");
  CHECK_CANON("(((x*4) + y) / 4)", "(((x*4) + y) / 4)");
  CHECK_CANON("(((x*4) + 8) % 4)", "0");
  CHECK_CANON("floordiv((x*6), 3)", "(x*2)");
  CHECK_CANON("floordiv((x*6), 4)", "floordiv((x*6), 4)"); /* the rewriter's job */
  CHECK_SIMP("floordiv((x*6), 4)", "floordiv((x*6), 4)");
  CHECK_CANON("floordiv((x*8), 4)", "(x*2)");
  CHECK_CANON("floordiv((x*4), 8)", "floordiv(x, 2)");
  CHECK_CANON("floordiv(floordiv(x, 2), 3)", "floordiv(x, 6)");
  CHECK_CANON("floormod(floormod(x, 8), 4)", "floormod(x, 4)");
  CHECK_CANON("floormod(floormod(x, 4), 8)", "floormod(x, 4)");
  CHECK_CANON("floordiv(floormod(x, 16), 4)", "floordiv(floormod(x, 16), 4)");
  CHECK_CANON("floordiv(floormod(x, 4), 8)", "0");
  CHECK_CANON("floormod(floordiv(x, 4), 4)", "floordiv(floormod(x, 16), 4)");
  CHECK_CANON("((floordiv(x, 6)*6) + (floordiv(floormod(x, 6), 3)*3))", "(floordiv(x, 3)*3)");
  CHECK_CANON("((floordiv(x, 4)*4) + floormod(x, 4))", "x");
  CHECK_CANON("((floordiv(x, 16)*16) + (floordiv(floormod(x, 16), 4)*4))", "(floordiv(x, 4)*4)");
  CHECK_CANON("(((x / 4)*4) + (x % 4))", "x");
  CHECK_CANON("floordiv((floormod(x, 8)*2), 4)", "floordiv(floormod(x, 8), 2)");
  CHECK_CANON("floormod((floormod(x, 8)*2), 4)", "(floormod(x, 2)*2)");
  CHECK_CANON("floordiv(x, 1)", "x");
  CHECK_CANON("floormod(x, 1)", "0");
  CHECK_CANON("floordiv(x, y)", "floordiv(x, y)");
  CHECK_CANON("floordiv(x, 0)", "floordiv(x, 0)");
  CHECK_CANON("floordiv(x, -2)", "floordiv(x, -2)");
  CHECK_CANON("floordiv((x + y), (x + y))", "floordiv((x + y), (x + y))");
}

static void test_canonical_bounded(void) {
  world_reset();
  bind("i.outer", 0, 8);
  bind("i.inner", 0, 32);
  bind("t", 0, 4);
  CHECK_CANON("floordiv(((i.outer*32) + i.inner), 32)", "i.outer");
  CHECK_CANON("floormod(((i.outer*32) + i.inner), 32)", "i.inner");
  CHECK_CANON("floordiv(((i.outer*32) + i.inner), 8)", "((i.outer*4) + floordiv(i.inner, 8))");
  CHECK_CANON("floordiv((((i.outer*32) + i.inner) + 32), 32)", "(i.outer + 1)");
  CHECK_CANON("floormod((((i.outer*32) + i.inner) + 32), 32)", "i.inner");
  CHECK_CANON("floordiv((((i.outer*32) + (t*8)) + 3), 8)", "((i.outer*4) + t)");
  CHECK_CANON("floormod((((i.outer*32) + (t*8)) + 3), 8)", "3");
  CHECK_CANON("((((i.outer*32) + i.inner) / 32)*32)", "(i.outer*32)");
  CHECK_CANON("((((i.outer*32) + i.inner) % 32) + (i.outer*32))", "((i.outer*32) + i.inner)");
  CHECK_CANON("(((i.outer*32) + i.inner) % 16)", "(i.inner % 16)");
  CHECK_CANON("((i.inner + 5) % 40)", "(i.inner + 5)");
  CHECK_CANON("floordiv(i.inner, 32)", "0");
  CHECK_CANON("floormod(i.inner, 32)", "i.inner");
  CHECK_CANON("(i.inner / 32)", "0");
  CHECK_CANON("((i.inner - 5) % 3)", "((i.inner - 5) % 3)");
  CHECK_CANON("(((i.inner + 1) - 5) % 3)", "((i.inner - 4) % 3)"); /* may be negative: kept */
  bind("k", 5, 10);
  CHECK_CANON("((k - 5) % 3)", "((k - 2) % 3)"); /* k - 5 >= 0: the base shrinks below 3 */
  CHECK_CANON("((k - 6) % 3)", "((k - 6) % 3)"); /* k - 6 may be -1 */
  CHECK_CANON("((k + 3) % 3)", "(k % 3)");
  CHECK_CANON("floordiv((k - 5), 3)", "floordiv((k - 5), 3)");
  CHECK_CANON("((k + 10) % 5)", "(k % 5)");
}

static void test_canonical_other_kinds(void) {
  world_reset();
  bind("i", 0, 16);
  /* comparisons, min and max: rewrite rules on canonical children */
  CHECK_CANON("(((x*2) + x) < ((x*3) + 1))", "True");
  CHECK_CANON("min(((x*2) + x), (x*3))", "(x*3)");
  CHECK_CANON("max((i + i), 40)", "40");
  CHECK_CANON("select((i < 16), ((x*2) + x), y)", "(x*3)");
  CHECK_CANON("likely(((i + i) < 32))", "True");
  /* floats are left to the rewriter */
  var_t("f", DT_F32);
  CHECK_CANON("((f + f) - f)", "f");
  CHECK_CANON("((f*2f32) + f)", "((f*2f32) + f)");
  /* int64 takes the same forms */
  Var *a = var_t("a64", DT_I64), *b = var_t("b64", DT_I64);
  Expr *e = ir_binary(&A, EXPR_ADD,
                      ir_binary(&A, EXPR_MUL, ir_varref(&A, b), ir_int(&A, DT_I64, 2)),
                      ir_binary(&A, EXPR_MUL, ir_varref(&A, a), ir_int(&A, DT_I64, 4)));
  CHECK(!strcmp(pe(arith_canonical_simplify(AN, e)), "((a64*4i64) + (b64*2i64))"));
  e = ir_binary(&A, EXPR_SUB, ir_varref(&A, a), ir_int(&A, DT_I64, INT64_MIN));
  CHECK(!strcmp(pe(arith_canonical_simplify(AN, e)), "(a64 + -9223372036854775808i64)"));
}

static void test_canonical_same_node(void) {
  world_reset();
  const char *same[] = {
    "x", "(x + 1)", "((x*4) + y)", "(x - 1)", "((x*n) + y)", "floordiv(x, 4)", "floormod(x, 4)",
    "((x*4) - y)", "(((x*4) + y) - 3)", "(0 - x)", "min(x, y)", "(x < y)",
  };
  for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
    Expr *e = P(same[k]);
    CHECK(arith_canonical_simplify(AN, e) == e);
  }
}

int main(void) {
  test_canonical_sums();
  test_canonical_divmod();
  test_canonical_bounded();
  test_canonical_other_kinds();
  test_canonical_same_node();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
