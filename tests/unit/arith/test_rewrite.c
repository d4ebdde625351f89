/* test_rewrite.c: unit tests of ir/arith/rewrite.c, the rewrite simplifier's walk: unchanged
 * subtrees come back shared, children of every kind are simplified (loads, tensor reads,
 * calls), the branches of select and if_then_else see their condition, lets of constants are
 * inlined, > and >= become < and <=, and pushed facts fold where they occur. */
#include "arith_test.h"
#include "ir/tensor.h"

static void test_rewrite_sharing(void) {
  world_reset();
  Expr *keep = P("((x*4) + y)");
  Expr *e = ir_binary(&A, EXPR_MUL, ir_binary(&A, EXPR_ADD, keep, P("(z - z)")), P("w"));
  Expr *r = arith_rewrite_simplify(AN, e);
  CHECK(!strcmp(pe(r), "(((x*4) + y)*w)"));
  CHECK(r->u.bin.a == keep); /* the unchanged operand is the same node */
  Expr *same = P("min(((x*4) + y), w)");
  CHECK(arith_rewrite_simplify(AN, same) == same);
}

static void test_rewrite_children(void) {
  world_reset();
  Buffer buf = {.name = "B", .dtype = DT_F32, .ndim = 1};
  Expr *load = ir_load(&A, &buf, P("((i + 1) - 1)"), NULL);
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, load)), "B[i]"));
  Expr *shape[2] = {P("n"), P("m")};
  Tensor t = {.name = "T", .dtype = DT_F32, .ndim = 2, .shape = shape};
  Expr *idx[2] = {P("(i + 0)"), P("((j*2) - j)")};
  Expr *pload = ir_pload(&A, &t, 2, idx);
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, pload)), "T[i, j]"));
  Expr *args[1] = {ir_cast(&A, DT_F32, P("(k - k)"))};
  Expr *call = ir_call(&A, DT_F32, "tir.exp", CALL_PURE, 1, args);
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, call)), "@tir.exp(0f32, dtype=float32)"));
  CHECK_REWRITE("ramp((x - x), (1 + 1), 4)", "ramp(0, 2, 4)");
  CHECK_REWRITE("broadcast((x + 0), 4)", "broadcast(x, 4)");
}

static void test_rewrite_flip(void) {
  world_reset();
  CHECK_REWRITE("(x > y)", "(y < x)");
  CHECK_REWRITE("(x >= y)", "(y <= x)");
  CHECK_REWRITE("(x > 3)", "(3 < x)");
  CHECK_REWRITE("(3 >= x)", "(x <= 3)");
  CHECK_REWRITE("((x + 1) > (x + 1))", "False");
  CHECK_REWRITE("((x + 1) >= x)", "True");
}

static void test_rewrite_contexts(void) {
  world_reset();
  set_bound("i", 0, 99);
  /* the true branch knows the condition, the false branch its negation */
  CHECK_SIMP("select((i < 10), floordiv(i, 10), 1)", "select((i < 10), 0, 1)");
  CHECK_SIMP("select((i < 10), 1, floordiv(i, 10))", "select((i < 10), 1, floordiv(i, 10))");
  CHECK_REWRITE("select((i < 10), 1, max(i, 10))", "select((i < 10), 1, i)");
  CHECK_REWRITE("if_then_else((i < 10), min(i, 9), 7)",
                "@tir.if_then_else((i < 10), i, 7, dtype=int32)");
  CHECK_REWRITE("if_then_else((10 <= i), 7, min(i, 9))",
                "@tir.if_then_else((10 <= i), 7, i, dtype=int32)");
  /* the condition itself folds inside its own branch */
  CHECK_REWRITE("select((i < j), select((i < j), 1, 2), 3)", "select((i < j), 1, 3)");
  CHECK_REWRITE("select((i < j), 3, select((i < j), 1, 2))", "select((i < j), 3, 2)");
  /* the context ends with the branch */
  CHECK_REWRITE("(select((i < 10), 0, 1) + min(i, 9))", "(min(i, 9) + select((i < 10), 0, 1))");
}

static void test_rewrite_let(void) {
  world_reset();
  Expr *e = ir_let(&A, var("t"), P("(2 + 3)"), P("(t*x)"));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, e)), "(x*5)"));
  Expr *v = ir_let(&A, var("u"), P("y"), P("(u - y)"));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, v)), "0"));
  Expr *k = ir_let(&A, var("q"), P("(y + 1)"), P("(q + 0)"));
  CHECK(!strcmp(pe(arith_rewrite_simplify(AN, k)), "(let q = (y + 1) in q)"));
  Expr *same = ir_let(&A, var("p"), P("(y + 1)"), P("(p*p)"));
  CHECK(arith_rewrite_simplify(AN, same) == same);
}

static void test_rewrite_facts(void) {
  world_reset();
  arith_push_constraint(AN, P("((x < y) && (z == 3))"));
  CHECK_REWRITE("(x < y)", "True");
  CHECK_REWRITE("(y <= x)", "False");
  CHECK_REWRITE("(y > x)", "True");
  CHECK_REWRITE("(z == 3)", "True");
  CHECK_REWRITE("(z != 3)", "False");
  CHECK_REWRITE("(z + 1)", "(z + 1)"); /* a fact is not a value: z stays */
  CHECK_REWRITE("((x < y) && (w < 1))", "(w < 1)");
  CHECK_REWRITE("likely((x < y))", "True");
  arith_pop_constraint(AN);
  CHECK_REWRITE("(x < y)", "(x < y)");
  /* the canonical form of a fact folds too */
  arith_push_constraint(AN, P("((i + (j*4)) < n)"));
  CHECK_SIMP("(((j*4) + i) < n)", "True");
  arith_pop_constraint(AN);
}

static void test_rewrite_recursion_limit(void) {
  world_reset();
  /* a long chain of re-association rules terminates and keeps the value */
  CHECK_REWRITE("((((((x + 1) + y) + 2) + z) + 3) + w)", "((((x + y) + z) + w) + 6)");
  CHECK_SIMP("((((((x + 1) + y) + 2) + z) + 3) + w)", "((((x + y) + z) + w) + 6)");
}

int main(void) {
  test_rewrite_sharing();
  test_rewrite_children();
  test_rewrite_flip();
  test_rewrite_contexts();
  test_rewrite_let();
  test_rewrite_facts();
  test_rewrite_recursion_limit();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
