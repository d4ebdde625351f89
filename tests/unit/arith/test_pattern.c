/* test_pattern.c: unit tests of ir/arith/pattern.c, the language the rewrite rules are
 * written in: what a pattern matches (repeated variables must be equal, constants bind by
 * value, numbers match one value, lanes must agree), alternatives, side conditions, and how a
 * result is built (numbers take their neighbour's dtype, constants fold). */
#include "arith_test.h"
#include "ir/arith/arith_impl.h"

static PMatch m;

/* Compiles text; every pattern is freed at the end. */
static Pat *pats[256];
static int npats;

static Pat *compile(const char *text) {
  Pat *p = arith_pat_compile(text);
  if (npats == 256) abort();
  pats[npats++] = p;
  return p;
}

static int matches(const char *pattern, const char *text) {
  return arith_pat_match(compile(pattern), P(text), &m, NULL, NULL);
}

static const char *build(const char *pattern, DType hint) {
  return pe(arith_pat_build(&A, compile(pattern), &m, hint));
}

static void test_pattern_match(void) {
  world_reset();
  CHECK(matches("x + y", "(a + b)"));
  CHECK(!strcmp(pe(m.var[PV_X]), "a") && !strcmp(pe(m.var[PV_Y]), "b"));
  CHECK(!matches("x + y", "(a - b)"));
  CHECK(matches("x + x", "((a*2) + (a*2))"));
  CHECK(!matches("x + x", "(a + b)"));
  CHECK(matches("x*c1", "(a*4)"));
  CHECK(m.c[0] == 4 && !strcmp(pe(m.cnode[0]), "4"));
  CHECK(!matches("x*c1", "(a*b)"));
  CHECK(matches("x*c1 + y*c1", "((a*3) + (b*3))"));
  CHECK(!matches("x*c1 + y*c1", "((a*3) + (b*4))"));
  CHECK(matches("x + 1", "(a + 1)"));
  CHECK(!matches("x + 1", "(a + 2)"));
  CHECK(matches("x*c1", "(a*-4)") && m.c[0] == -4);
  CHECK(matches("floordiv(x, c1)", "floordiv(a, 8)"));
  CHECK(!matches("floordiv(x, c1)", "(a / 8)"));
  CHECK(matches("truncdiv(x, c1)", "(a / 8)"));
  CHECK(matches("truncmod(x, c1)", "(a % 8)"));
  CHECK(matches("floormod(x, c1)", "floormod(a, 8)"));
  CHECK(matches("min(x, max(y, z))", "min(a, max(b, c))"));
  CHECK(matches("select(x, y, z)", "select((a < b), a, b)"));
  CHECK(matches("!(x < y)", "!(a < b)"));
  CHECK(matches("x <= y", "(a <= b)") && !matches("x < y", "(a <= b)"));
  CHECK(matches("x != y", "(a != b)") && !matches("!x", "(a != b)"));
  CHECK(matches("x && y || z", "(((a < b) && (b < c)) || (c < a))"));
  CHECK(matches("x == c1 && x != c2", "((a == 1) && (a != 2))"));
  CHECK(matches("true", "True") && !matches("true", "False") && matches("false", "False"));
  CHECK(!matches("true", "1")); /* a bool constant is not an integer one */
  CHECK(!matches("c1", "True"));
  /* a constant pattern variable only binds integer constants */
  CHECK(!matches("x*c1", "(a*b)"));
  CHECK(matches("(x + c1) + c2", "((a + 1) + 2)") && m.c[0] == 1 && m.c[1] == 2);
}

static void test_pattern_vector(void) {
  world_reset();
  CHECK(matches("ramp(b1, s1, lanes) + broadcast(x, lanes)", "(ramp(a, 1, 4) + broadcast(b, 4))"));
  CHECK(m.lanes == 4);
  CHECK(!strcmp(build("ramp(b1 + x, s1, lanes)", dt_with_lanes(DT_I32, 4)), "ramp((a + b), 1, 4)"));
  CHECK(matches("broadcast(x, lanes) * broadcast(y, lanes)", "(broadcast(a, 8)*broadcast(b, 8))"));
  CHECK(!strcmp(build("broadcast(x * y, lanes)", dt_with_lanes(DT_I32, 8)), "broadcast((a*b), 8)"));
}

static bool c1_positive(Simp *s, const PMatch *pm) { return pm->c[0] > 0; }

static void test_pattern_alternatives(void) {
  world_reset();
  Pat *p = compile("x*y + x; y*x + x; x + y*x");
  CHECK(arith_pat_match(p, P("((a*b) + a)"), &m, NULL, NULL) && !strcmp(pe(m.var[PV_Y]), "b"));
  CHECK(arith_pat_match(p, P("((b*a) + a)"), &m, NULL, NULL) && !strcmp(pe(m.var[PV_Y]), "b"));
  CHECK(arith_pat_match(p, P("(a + (b*a))"), &m, NULL, NULL) && !strcmp(pe(m.var[PV_X]), "a"));
  CHECK(!arith_pat_match(p, P("(a + (b*c))"), &m, NULL, NULL));
  /* a side condition that fails moves on to the next alternative */
  Pat *q = compile("x*c1; c1*x");
  CHECK(arith_pat_match(q, P("(a*3)"), &m, c1_positive, NULL));
  CHECK(!arith_pat_match(q, P("(a*-3)"), &m, c1_positive, NULL));
  CHECK(arith_pat_match(q, P("(-3*a)"), &m, NULL, NULL) && m.c[0] == -3);
  /* bindings of a failed alternative do not leak into the next */
  Pat *r = compile("x + x; x + y");
  CHECK(arith_pat_match(r, P("(a + b)"), &m, NULL, NULL) && !strcmp(pe(m.var[PV_Y]), "b"));
}

static void test_pattern_build(void) {
  world_reset();
  CHECK(matches("(x + c1) + c2", "((a + 3) + 4)"));
  CHECK(!strcmp(build("x + (c1 + c2)", DT_I32), "(a + 7)")); /* constants fold */
  CHECK(!strcmp(build("x + (c1 - c1)", DT_I32), "a"));     /* and x + 0 is x */
  CHECK(!strcmp(build("0 - x", DT_I32), "(0 - a)"));
  CHECK(!strcmp(build("x < 0", DT_BOOL1), "(a < 0)"));
  CHECK(!strcmp(build("x == c1*c2 + 1", DT_BOOL1), "(a == 13)"));
  CHECK(!strcmp(build("select(x < 0, x, 0)", DT_I32), "select((a < 0), a, 0)"));
  CHECK(!strcmp(build("true", DT_BOOL1), "True"));
  CHECK(!strcmp(build("!(x < c1) && false", DT_BOOL1), "False"));
  CHECK(!strcmp(build("1", DT_I64), "1i64"));
  CHECK(!strcmp(build("truncdiv(c2, c1) + floormod(c2, c1)", DT_I32), "2"));
  /* numbers take the dtype of what they meet */
  Var *w = var_t("w", DT_I64);
  Expr *e = ir_binary(&A, EXPR_ADD, ir_varref(&A, w), ir_int(&A, DT_I64, 5));
  CHECK(arith_pat_match(compile("x + c1"), e, &m, NULL, NULL));
  CHECK(!strcmp(build("x*2 + (c1 - 1)", DT_I64), "((w*2i64) + 4i64)"));
  CHECK(!strcmp(build("0 < x", DT_BOOL1), "(0i64 < w)"));
}

static void test_pattern_rules(void) {
  world_reset();
  /* arith_rules_apply goes through a set in order, through the simplifier */
  CHECK_REWRITE("((a + 3) + 4)", "(a + 7)");
  CHECK_REWRITE("((a - b) + b)", "a");
  CHECK_REWRITE("((a*2) + a)", "(a*3)");
}

int main(void) {
  test_pattern_match();
  test_pattern_vector();
  test_pattern_alternatives();
  test_pattern_build();
  test_pattern_rules();
  for (int i = 0; i < npats; i++) arith_pat_free(pats[i]);
  arith_free(AN);
  arena_free(&A);
  return finish();
}
