/* test_analyzer.c: unit tests of ir/arith/analyzer.c, the simplifier as lowering uses it: the
 * forms TVM prints in the seed tutorials, likely guards the bounds prove, binding and
 * constraints, the same node back when nothing simplifies, and a randomized harness that
 * builds thousands of integer and boolean expressions over bound variables (fixed seed),
 * simplifies them, and evaluates both on random points inside the bounds. */
#include "arith_test.h"

/* ---- the forms of the seeds and of SPEC §8 ---- */

static void test_analyzer_split_forms(void) {
  world_reset();
  bind("i.outer", 0, 4);
  bind("i.inner", 0, 32);
  /* seeds/004: the split of a loop over m by 32 */
  CHECK_SIMP("floordiv(((m + 32) - 1), 32)", "floordiv((m + 31), 32)");
  CHECK_SIMP("(i.inner + (i.outer*32))", "((i.outer*32) + i.inner)");
  CHECK_SIMP("((i.outer*32) + i.inner)", "((i.outer*32) + i.inner)");
  CHECK_SIMP("floordiv(((i.outer*32) + i.inner), 32)", "i.outer");
  CHECK_SIMP("floormod(((i.outer*32) + i.inner), 32)", "i.inner");
  CHECK_SIMP("floordiv((i.inner + (i.outer*32)), 32)", "i.outer");
  CHECK_SIMP("floormod((i.inner + (i.outer*32)), 32)", "i.inner");
  CHECK_SIMP("floordiv(((i.outer*32) + i.inner), 16)", "((i.outer*2) + floordiv(i.inner, 16))");
  CHECK_SIMP("floormod(((i.outer*32) + i.inner), 16)", "floormod(i.inner, 16)");
  CHECK_SIMP("floordiv(((i.outer*32) + i.inner), 64)", "floordiv(i.outer, 2)");
  CHECK_SIMP("((floordiv(((i.outer*32) + i.inner), 32)*32) + "
             "floormod(((i.outer*32) + i.inner), 32))",
             "((i.outer*32) + i.inner)");
  CHECK_SIMP("(((i*n) + j) - 0)", "((i*n) + j)");
  CHECK_SIMP("((i*n) + j)", "((i*n) + j)");
  CHECK_SIMP("(j + (i*n))", "(j + (i*n))"); /* equal scales keep the program's order, as TVM */
  /* seeds/000 and 002: flattened indices by descending stride, constants last */
  CHECK_SIMP("((((threadIdx.x + (blockIdx.x*112)) + (blockIdx.y*224)) + (blockIdx.z*100352)) + 16)",
             "(((((blockIdx.z*100352) + (blockIdx.y*224)) + (blockIdx.x*112)) + threadIdx.x)"
             " + 16)");
  CHECK_SIMP("(((((rc.outer*50176) + ((blockIdx.y + ry.outer)*224)) + (blockIdx.x*112))"
             " + (tx*7)) - 450)",
             "((((((rc.outer*50176) + (blockIdx.y*224)) + (ry.outer*224)) + (blockIdx.x*112))"
             " + (tx*7)) - 450)");
  /* seeds/001: negative terms after the constant */
  CHECK_SIMP("((9 - max((1 - (i2.outer*7)), 0)) - max(((i2.outer*7) - 6), 0))",
             "((9 - max((1 - (i2.outer*7)), 0)) - max(((i2.outer*7) - 6), 0))");
  CHECK_SIMP("(((i*4) + 4) - (i*4))", "4");
  CHECK_SIMP("(((m*4) + n) - 2)", "(((m*4) + n) - 2)");
  CHECK_SIMP("((n - 2) + (m*4))", "(((m*4) + n) - 2)");
  /* seeds/000, schedule_reduce: a[ax0, ax1, ax2] and b[ax1, ax2] of the fused, split reduce
   * axis s = k.inner + k.outer*1024 fold back to s and floormod(s, 100) */
  bind("k.outer", 0, 10);
  bind("tx", 0, 1024);
  CHECK_SIMP("(((floordiv(floordiv((tx + (k.outer*1024)), 10), 10)*100) + "
             "(floormod(floordiv((tx + (k.outer*1024)), 10), 10)*10)) + "
             "floormod((tx + (k.outer*1024)), 10))",
             "((k.outer*1024) + tx)");
  CHECK_SIMP("((floormod(floordiv((tx + (k.outer*1024)), 10), 10)*10) + "
             "floormod((tx + (k.outer*1024)), 10))",
             "floormod(((k.outer*1024) + tx), 100)");
  CHECK_SIMP("floormod(((k.outer*1024) + tx), 100)", "floormod(((k.outer*1024) + tx), 100)");
}

static void test_analyzer_likely(void) {
  world_reset();
  bind("i.outer", 0, 2);
  bind("i.inner", 0, 32);
  /* the guard of a split of 64 by 32 is always true: it goes */
  CHECK_SIMP("likely((((i.outer*32) + i.inner) < 64))", "True");
  CHECK(arith_can_prove(AN, P("(((i.outer*32) + i.inner) < 64)")));
  CHECK(!arith_can_prove(AN, P("(((i.outer*32) + i.inner) < 63)")));
  CHECK_SIMP("likely((((i.outer*32) + i.inner) < 63))",
             "@tir.likely((((i.outer*32) + i.inner) < 63), dtype=bool)");
  /* with a symbolic extent it stays, and is the same node */
  CHECK_SAME("likely((((i.outer*32) + i.inner) < m))");
  CHECK(!arith_can_prove(AN, P("(((i.outer*32) + i.inner) < m)")));
  /* unless m is known to be large enough */
  arith_bind_bound(AN, var("m"), (ConstBound){64, ARITH_POS_INF});
  CHECK(arith_can_prove(AN, P("(((i.outer*32) + i.inner) < m)")));
  CHECK_SIMP("likely((((i.outer*32) + i.inner) < m))", "True");
  /* the split of a loop over m: i.outer < floordiv(m + 31, 32) does not prove the guard */
  world_reset();
  Var *m = var("m");
  arith_bind_bound(AN, m, (ConstBound){0, ARITH_POS_INF});
  arith_bind(AN, var("i.outer"), (Range){ir_i32(&A, 0), P("floordiv((m + 31), 32)")});
  bind("i.inner", 0, 32);
  CHECK(!arith_can_prove(AN, P("(((i.outer*32) + i.inner) < m)")));
  CHECK_SAME("likely((((i.outer*32) + i.inner) < m))");
  /* inside `if i < n`, likely(i < n) is known */
  arith_push_constraint(AN, P("(((i.outer*32) + i.inner) < m)"));
  CHECK_SIMP("likely((((i.outer*32) + i.inner) < m))", "True");
  CHECK_SIMP("(m <= ((i.outer*32) + i.inner))", "False");
  arith_pop_constraint(AN);
  CHECK_SAME("likely((((i.outer*32) + i.inner) < m))");
}

static void test_analyzer_bounds_fold(void) {
  world_reset();
  bind("i", 0, 16);
  bind("j", 0, 32);
  CHECK_SIMP("min(i, 16)", "i");
  CHECK_SIMP("min(i, 15)", "i");
  CHECK_SIMP("min(i, 14)", "min(i, 14)");
  CHECK_SIMP("max(i, 0)", "i");
  CHECK_SIMP("max(i, -3)", "i");
  CHECK_SIMP("max((i - 20), 0)", "0");
  CHECK_SIMP("min((i + j), 100)", "(i + j)");
  CHECK_SIMP("(i < 16)", "True");
  CHECK_SIMP("(i < 15)", "(i < 15)");
  CHECK_SIMP("(i >= 0)", "True");
  CHECK_SIMP("(16 <= i)", "False");
  CHECK_SIMP("(i == 20)", "False");
  CHECK_SIMP("(i != 20)", "True");
  CHECK_SIMP("((i + j) < 47)", "True");
  CHECK_SIMP("select((i < 16), j, i)", "j");
  CHECK_SIMP("select((i > 15), j, i)", "i");
  CHECK_SIMP("if_then_else((j < 32), 1, 2)", "1");
  CHECK_SIMP("if_then_else((j < 31), i, i)", "i");
  /* i < 5 inside the branch */
  CHECK_SIMP("select((i < 5), min(i, 8), 3)",
             "select((i < 5), i, 3)");
  CHECK_SIMP("select((i < 5), 3, max(i, 4))", "select((i < 5), 3, i)");
  CHECK_SIMP("floordiv(i, 16)", "0");
  CHECK_SIMP("floormod(i, 16)", "i");
  CHECK_SIMP("floormod(j, 16)", "floormod(j, 16)");
}

static void test_analyzer_same_node(void) {
  world_reset();
  bind("i", 0, 16);
  const char *same[] = {
    "i", "7", "(i + j)", "((i*4) + j)", "floordiv(j, 4)", "floormod(j, 3)", "min(i, j)",
    "(i < j)", "((i < j) && (j < 5))", "select((i < j), i, j)", "((i*n) + j)", "(m - 1)",
    "floordiv((m + 31), 32)", "likely((j < m))", "(x*y)", "(0 - x)", "(x*-1)", "!flag",
    "((((a*64) + (b*8)) + c) - 3)", "max((i - j), 0)", "(2f32*fx)",
  };
  var_t("flag", DT_BOOL1);
  var_t("fx", DT_F32);
  for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
    Expr *e = P(same[k]);
    Expr *r = arith_simplify(AN, e);
    CHECK(r == e);
    if (r != e) printf("    %s became %s\n", same[k], pe(r));
  }
  const char *rewrite_same[] = {
    "(((i.outer*32) + i.inner) < m)", "(x <= y)", "(x != y)", "!flag", "((x < y) && (y <= z))",
    "select((x != y), x, y)", "likely((x <= y))", "floordiv(x, 3)", "(x + -1)",
  };
  for (size_t k = 0; k < sizeof rewrite_same / sizeof rewrite_same[0]; k++) {
    Expr *e = P(rewrite_same[k]);
    CHECK(arith_rewrite_simplify(AN, e) == e);
    CHECK(arith_canonical_simplify(AN, e) == e || !strcmp(rewrite_same[k], "(x + -1)"));
  }
}

static void test_analyzer_bind_value(void) {
  world_reset();
  arith_bind_value(AN, var("x"), P("(y + 1)"));
  CHECK_SIMP("(x - y)", "1");
  arith_bind(AN, var("z"), (Range){P("(y*2)"), ir_i32(&A, 1)}); /* an extent-1 loop */
  CHECK_SIMP("(z - y)", "y");
  /* a let of a constant or a variable is inlined */
  Expr *let = ir_let(&A, var("t"), ir_i32(&A, 4), P("(t*w)"));
  CHECK(!strcmp(pe(arith_simplify(AN, let)), "(w*4)"));
  Expr *keep = ir_let(&A, var("u"), P("(w + 1)"), P("(u*u)"));
  CHECK(arith_simplify(AN, keep) == keep);
}

static void test_analyzer_can_prove(void) {
  world_reset();
  bind("i", 0, 16);
  bind("j", 0, 32);
  CHECK(arith_can_prove(AN, P("((i + j) < 47)")));
  CHECK(arith_can_prove(AN, P("(0 <= floordiv(j, 4))")));
  CHECK(arith_can_prove(AN, P("(floormod(((i*4) + 1), 2) == 1)")));
  CHECK(arith_can_prove(AN, P("((((i*4) + 1) % 2) == 1)")));
  CHECK(arith_can_prove(AN, P("(((x*4) + 1) != 0)")));   /* by the modular set */
  CHECK(arith_can_prove(AN, P("(((x + 1) - x) == 1)")));
  CHECK(!arith_can_prove(AN, P("(i < j)")));
  CHECK(!arith_can_prove(AN, P("(x < 100)")));
  CHECK(arith_can_prove(AN, P("True")));
  CHECK(!arith_can_prove(AN, P("False")));
  CHECK(arith_can_prove_ge(AN, P("(i*j)"), 0));
  CHECK(!arith_can_prove_ge(AN, P("(i - 1)"), 0));
  CHECK(arith_can_prove_equal(AN, P("((x*2) + x)"), P("(x*3)")));
  CHECK(!arith_can_prove_equal(AN, P("x"), P("y")));
  arith_push_constraint(AN, P("(i < j)"));
  CHECK(arith_can_prove(AN, P("(i < j)")));
  CHECK(arith_can_prove(AN, P("!(j <= i)")));
  arith_pop_constraint(AN);
  CHECK(!arith_can_prove(AN, P("(i < j)")));
}

static void test_analyzer_constraints(void) {
  world_reset();
  bind("i", 0, 100);
  arith_push_constraint(AN, P("(i < 10)"));
  CHECK_SIMP("min(i, 9)", "i");
  CHECK_SIMP("(i < 10)", "True");
  CHECK_SIMP("floordiv(i, 10)", "0");
  arith_push_constraint(AN, P("(floormod(i, 4) == 1)"));
  CHECK_SIMP("floormod(i, 4)", "1");
  CHECK_SIMP("floormod((i + 2), 4)", "3");
  arith_pop_constraint(AN);
  CHECK_SIMP("floormod(i, 4)", "floormod(i, 4)");
  arith_pop_constraint(AN);
  CHECK_SIMP("min(i, 9)", "min(i, 9)");
  /* a fact on a boolean variable */
  Var *b = var_t("b", DT_BOOL1);
  arith_push_constraint(AN, ir_varref(&A, b));
  CHECK_SIMP("(b && (i < 5))", "(i < 5)");
  CHECK_SIMP("!b", "False");
  arith_pop_constraint(AN);
  CHECK_SIMP("(b && (i < 5))", "(b && (i < 5))");
}

/* ---- the randomized harness ---- */

typedef struct Spec {
  const char *name;
  int64_t lo, hi; /* inclusive */
} Spec;

static const Spec specs[] = {
  {"a", 0, 15}, {"b", 0, 31}, {"c", -8, 7}, {"d", 1, 64}, {"e", -40, 40},
};
enum { NSPEC = sizeof specs / sizeof specs[0] };
static Var *rv[NSPEC];
static DType rt;

static Expr *C(int64_t v) { return arith_const(&A, rt, v); }

static int64_t pick(const int64_t *xs, int n) { return xs[rnd() % (uint64_t)n]; }

static Expr *gen_int(int depth);
static Expr *gen_bool(int depth);

static Expr *leaf(void) {
  static const int64_t consts[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, -1, -2, -4, -8, 100};
  if (rnd() % 10 < 7) return ir_varref(&A, rv[rnd() % NSPEC]);
  return C(pick(consts, sizeof consts / sizeof consts[0]));
}

static Expr *divisor(void) {
  static const int64_t ds[] = {1, 2, 3, 4, 4, 8, 8, 16, 32, 5, 7, -2, -4, -3};
  return C(pick(ds, sizeof ds / sizeof ds[0]));
}

static Expr *gen_binary(ExprKind k, int depth) {
  Expr *a = gen_int(depth - 1);
  Expr *b;
  if ((k >= EXPR_DIV && k <= EXPR_FLOORMOD) || k == EXPR_MUL)
    b = rnd() % 5 ? (k == EXPR_MUL ? leaf() : divisor()) : gen_int(depth - 1);
  else
    b = gen_int(depth - 1);
  return ir_binary(&A, k, a, b);
}

static Expr *gen_int(int depth) {
  if (depth <= 0 || rnd() % 5 == 0) return leaf();
  static const ExprKind kinds[] = {EXPR_ADD, EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_MUL, EXPR_FLOORDIV,
                                   EXPR_FLOORMOD, EXPR_FLOORDIV, EXPR_FLOORMOD, EXPR_DIV, EXPR_MOD,
                                   EXPR_MIN, EXPR_MAX};
  unsigned r = (unsigned)(rnd() % 16);
  if (r < 13) return gen_binary(kinds[r], depth);
  Expr *c = gen_bool(depth - 1), *t = gen_int(depth - 1), *f = gen_int(depth - 1);
  if (r == 13) {
    Expr *args[3] = {c, t, f};
    return ir_call(&A, rt, "tir.if_then_else", CALL_PURE, 3, args);
  }
  return ir_select(&A, c, t, f);
}

static Expr *gen_bool(int depth) {
  unsigned r = (unsigned)(rnd() % 10);
  if (depth <= 0 || r < 6) {
    static const ExprKind cmps[] = {EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE, EXPR_EQ, EXPR_NE};
    return ir_binary(&A, cmps[rnd() % 6], gen_int(depth - 1), gen_int(depth - 1));
  }
  if (r == 6) return ir_not(&A, gen_bool(depth - 1));
  if (r == 7) {
    Expr *c = gen_bool(depth - 1);
    return ir_call(&A, DT_BOOL1, "tir.likely", CALL_PURE, 1, &c);
  }
  return ir_binary(&A, r == 8 ? EXPR_AND : EXPR_OR, gen_bool(depth - 1), gen_bool(depth - 1));
}

/* An affine index the way lowering writes them: sum of var*scale and a constant, often
 * divided or taken modulo a constant, compared with constants, joined by && and ||. */
static Expr *gen_affine(void) {
  static const int64_t scales[] = {1, 1, 2, 3, 4, 8, 16, 32, -1, -2};
  Expr *e = NULL;
  for (int n = (int)rnd_in(1, 3); n > 0; n--) {
    Expr *t = ir_varref(&A, rv[rnd() % NSPEC]);
    int64_t k = pick(scales, sizeof scales / sizeof scales[0]);
    if (k != 1) t = ir_binary(&A, EXPR_MUL, t, C(k));
    e = e ? ir_binary(&A, rnd() % 4 ? EXPR_ADD : EXPR_SUB, e, t) : t;
  }
  if (rnd() % 2) e = ir_binary(&A, EXPR_ADD, e, C(rnd_in(-40, 40)));
  unsigned r = (unsigned)(rnd() % 6);
  if (r < 3) return e;
  static const ExprKind divs[] = {EXPR_FLOORDIV, EXPR_FLOORMOD, EXPR_DIV};
  return ir_binary(&A, divs[r - 3], e, C(pick((const int64_t[]){2, 4, 8, 16, 32, 3, 5}, 7)));
}

static Expr *gen_affine_cond(int depth) {
  if (depth <= 0 || rnd() % 3 == 0) {
    static const ExprKind cmps[] = {EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE, EXPR_EQ, EXPR_NE};
    Expr *rhs = rnd() % 3 ? C(rnd_in(-20, 60)) : gen_affine();
    return ir_binary(&A, cmps[rnd() % 6], gen_affine(), rhs);
  }
  if (rnd() % 5 == 0) return ir_not(&A, gen_affine_cond(depth - 1));
  return ir_binary(&A, rnd() % 2 ? EXPR_AND : EXPR_OR, gen_affine_cond(depth - 1),
                   gen_affine_cond(depth - 1));
}

static void random_point(Env *env) {
  env->n = NSPEC;
  for (int i = 0; i < NSPEC; i++) {
    env->var[i] = rv[i];
    env->val[i] = rnd_in(specs[i].lo, specs[i].hi);
  }
}

static int shown;

/* e and f(e) agree wherever e is defined, at up to 24 points satisfying `where`. */
static void check_same_values(Simplifier f, const char *fname, Expr *e, Expr *where) {
  Expr *r = f(AN, e);
  for (int p = 0, tries = 0; p < 24 && tries < 200; tries++) {
    Env env;
    random_point(&env);
    int ok = 1;
    if (where && !eval(where, &env, &ok)) continue;
    p++;
    int64_t want = eval(e, &env, &ok);
    if (!ok) continue; /* a division by zero or an overflow of the original: no claim */
    int ok2 = 1;
    int64_t got = eval(r, &env, &ok2);
    if (ok2 && got == want) {
      passed++;
      continue;
    }
    failed++;
    if (shown++ < 20) {
      printf("%s: %s(%s)\n  = %s\n  at", __FILE__, fname, pe(e), pe(r));
      for (int i = 0; i < NSPEC; i++) printf(" %s=%lld", specs[i].name, (long long)env.val[i]);
      printf(": want %lld, got %lld%s\n", (long long)want, (long long)got,
             ok2 ? "" : " (undefined)");
    }
    return;
  }
}

static void random_world(DType t) {
  world_reset();
  rt = t;
  for (int i = 0; i < NSPEC; i++) {
    char name[8];
    snprintf(name, sizeof name, "%s%s", specs[i].name, t.bits == 64 ? "64" : "");
    rv[i] = var_t(name, t);
    arith_bind(AN, rv[i], (Range){C(specs[i].lo), C(specs[i].hi - specs[i].lo + 1)});
  }
}

static Expr *gen_any(int k, int depth) {
  int r = k % 5;
  if (r < 2) return gen_int(depth);
  if (r == 2) return gen_bool(depth);
  return r == 3 ? gen_affine() : gen_affine_cond(depth - 1);
}

static void run_random(int n, int depth, Expr *where) {
  for (int k = 0; k < n; k++) {
    Expr *e = gen_any(k, depth);
    check_same_values(arith_simplify, "simplify", e, where);
    check_same_values(arith_rewrite_simplify, "rewrite", e, where);
    check_same_values(arith_canonical_simplify, "canonical", e, where);
    /* nothing left to simplify: the same node comes back */
    Expr *once = arith_simplify(AN, e), *twice = arith_simplify(AN, once);
    CHECK_QUIET(twice == once || !ir_expr_equal(twice, once));
  }
}

static void test_analyzer_random(void) {
  random_world(DT_I32);
  run_random(4000, 4, NULL);
  run_random(1000, 6, NULL);
  /* under a constraint, only points that satisfy it count */
  Expr *where = ir_binary(&A, EXPR_AND, ir_binary(&A, EXPR_LT, ir_varref(&A, rv[0]), C(6)),
                          ir_binary(&A, EXPR_LE, C(2), ir_varref(&A, rv[2])));
  arith_push_constraint(AN, where);
  run_random(1500, 4, where);
  arith_pop_constraint(AN);
  random_world(DT_I64);
  run_random(1000, 4, NULL);
}

int main(void) {
  /* the seed is fixed; ARITH_SEED explores others */
  const char *seed = getenv("ARITH_SEED");
  if (seed) rng_state = strtoull(seed, NULL, 10) * 2654435761u + 1;
  test_analyzer_split_forms();
  test_analyzer_likely();
  test_analyzer_bounds_fold();
  test_analyzer_same_node();
  test_analyzer_bind_value();
  test_analyzer_can_prove();
  test_analyzer_constraints();
  test_analyzer_random();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
