/* test_unroll_loop.c: tir.UnrollLoop (ir/pass/unroll_loop.c): "unroll" loops of constant
 * extent are copied, others kept; serial loops follow TVM's auto-unroll rules under the
 * options auto_max_step, auto_max_depth, auto_max_extent and explicit_unroll, from PassCtx or
 * from the pragmas, which are dropped; unrolled code computes what the loop computed. */
#include "tests/unit/pass/ir_eval.h"
#include "tests/unit/schedule/sched_test.h"

static Var *i, *j, *k, *n;
static Buffer *buf_b;

static Stmt *unroll_with(Stmt *s, int nopt, const PassOption *opt) {
  PassCtx ctx = {.arena = &A, .noptions = nopt, .options = opt};
  return pass_unroll_loop(s, &ctx);
}
static Stmt *unroll(Stmt *s) { return unroll_with(s, 0, NULL); }

static PassOption opt(const char *key, int64_t v) { return (PassOption){"tir.UnrollLoop", key, v}; }

static Stmt *loop_k(ForKind kind, Var *v, Expr *min, Expr *ext, Stmt *body) {
  return ir_for(&A, v, min, ext, kind, NULL, body);
}
static Stmt *loop(Var *v, int64_t ext, Stmt *body) {
  return loop_k(FOR_SERIAL, v, I(0), I(ext), body);
}
static Stmt *store(Expr *idx, Expr *v) { return ir_store(&A, buf_b, v, idx, NULL); }
/* B[j*2 + i] = i */
static Stmt *body_ji(void) { return store(add(mul(V(j), I(2)), V(i)), V(i)); }

static void check_same(Stmt *before, Stmt *after) { CHECK(eval_same(before, after, buf_b)); }

static void test_unroll_loop_explicit(void) {
  Stmt *s = loop_k(FOR_UNROLLED, i, I(2), I(3), store(V(i), V(i)));
  CHECK_TEXT(ps(unroll(s)), "B[2] = 2\nB[3] = 3\nB[4] = 4\n");
  check_same(s, unroll(s));
  Stmt *t = loop(j, 4, loop_k(FOR_UNROLLED, i, I(0), I(2), body_ji()));
  CHECK_TEXT(ps(unroll(t)), "for (j: int32, 0, 4) {\n"
                            "  B[((j*2) + 0)] = 0\n"
                            "  B[((j*2) + 1)] = 1\n"
                            "}\n");
  check_same(t, unroll(t));
  /* extent 0: nothing */
  CHECK_TEXT(ps(unroll(loop_k(FOR_UNROLLED, i, I(0), I(0), store(V(i), I(1))))), "");
}

/* nothing to unroll, or an "unroll" loop of unknown extent: returned as it is */
static void test_unroll_loop_unchanged(void) {
  Stmt *s = loop(j, 4, loop(i, 2, body_ji()));
  CHECK(unroll(s) == s);
  Stmt *t = loop_k(FOR_UNROLLED, i, I(0), V(n), store(V(i), I(1)));
  CHECK(unroll(t) == t);
  CHECK_TEXT(ps(unroll(t)), "for (i: int32, 0, n) \"unroll\" {\n"
                            "  B[i] = 1\n"
                            "}\n");
  /* parallel and vectorized loops are never auto-unrolled */
  PassOption step = opt("auto_max_step", 100);
  Stmt *p = loop_k(FOR_PARALLEL, i, I(0), I(2), store(V(i), I(1)));
  CHECK(unroll_with(p, 1, &step) == p);
}

/* auto_max_step: extent times the stores below, inner loops first */
static void test_unroll_loop_auto_max_step(void) {
  Stmt *s = loop(j, 2, loop(i, 4, body_ji()));
  PassOption eight = opt("auto_max_step", 8), seven = opt("auto_max_step", 7);
  Stmt *all = unroll_with(s, 1, &eight);
  CHECK(all->kind == STMT_SEQ && all->u.seq.n == 8);
  check_same(s, all);
  CHECK_TEXT(ps(unroll_with(s, 1, &seven)), "for (j: int32, 0, 2) {\n"
                                            "  B[((j*2) + 0)] = 0\n"
                                            "  B[((j*2) + 1)] = 1\n"
                                            "  B[((j*2) + 2)] = 2\n"
                                            "  B[((j*2) + 3)] = 3\n"
                                            "}\n");
  /* a sequence adds its items' steps: 2 + 1 per j, 6 in all */
  Stmt *items[2] = {loop(i, 2, body_ji()), store(V(j), I(7))};
  Stmt *q = loop(j, 2, ir_seq(&A, 2, items));
  PassOption six = opt("auto_max_step", 6), five = opt("auto_max_step", 5);
  CHECK(unroll_with(q, 1, &six)->kind == STMT_SEQ);
  CHECK(unroll_with(q, 1, &five)->kind == STMT_FOR);
  /* a loop kept below stops every loop above it */
  Stmt *r = loop(j, 2, loop_k(FOR_SERIAL, i, I(0), V(n), body_ji()));
  PassOption big = opt("auto_max_step", 1000);
  CHECK(unroll_with(r, 1, &big) == r);
}

static void test_unroll_loop_depth_and_extent(void) {
  Stmt *s = loop(k, 2, loop(j, 2, loop(i, 2, store(add(add(V(k), V(j)), V(i)), I(1)))));
  PassOption depth1[2] = {opt("auto_max_step", 1000), opt("auto_max_depth", 1)};
  Stmt *r = unroll_with(s, 2, depth1);
  CHECK(r->kind == STMT_FOR && r->u.for_.var == k && r->u.for_.body->kind == STMT_SEQ &&
        r->u.for_.body->u.seq.n == 4);
  check_same(s, r);
  /* auto_max_extent unrolls small loops whatever their steps */
  PassOption ext3 = opt("auto_max_extent", 3);
  Stmt *t = loop(i, 3, store(V(i), I(1)));
  CHECK_TEXT(ps(unroll_with(t, 1, &ext3)), "B[0] = 1\nB[1] = 1\nB[2] = 1\n");
  PassOption ext1 = opt("auto_max_extent", 1);
  Stmt *one = loop_k(FOR_PARALLEL, i, I(5), I(1), store(V(i), I(1)));
  CHECK_TEXT(ps(unroll_with(one, 1, &ext1)), "B[5] = 1\n");
}

/* explicit_unroll = 0 marks the loops instead */
static void test_unroll_loop_mark(void) {
  PassOption o[2] = {opt("auto_max_step", 16), opt("explicit_unroll", 0)};
  Stmt *s = loop(i, 4, store(V(i), I(1)));
  CHECK_TEXT(ps(unroll_with(s, 2, o)), "for (i: int32, 0, 4) \"unroll\" {\n"
                                       "  B[i] = 1\n"
                                       "}\n");
  Stmt *u = loop_k(FOR_UNROLLED, i, I(0), I(4), store(V(i), I(1)));
  CHECK(unroll_with(u, 2, o) == u);
}

/* the pragmas set the options for their loops and are dropped */
static void test_unroll_loop_pragma(void) {
  IterVar *iv = ir_itervar(&A, j, (Range){NULL, NULL}, ITER_DATA_PAR, NULL);
  Stmt *inner = loop(i, 4, body_ji());
  Stmt *s =
      loop(j, 2, ir_attr(&A, ATTR_NODE_ITERVAR, iv, "pragma_auto_unroll_max_step", I(4), inner));
  CHECK_TEXT(ps(unroll(s)), "for (j: int32, 0, 2) {\n"
                            "  B[((j*2) + 0)] = 0\n"
                            "  B[((j*2) + 1)] = 1\n"
                            "  B[((j*2) + 2)] = 2\n"
                            "  B[((j*2) + 3)] = 3\n"
                            "}\n");
  /* the pragma wins over the config, inside it only */
  PassOption zero = opt("auto_max_step", 0);
  CHECK(unroll_with(s, 1, &zero)->u.for_.body->kind == STMT_SEQ);
  Stmt *expl =
      ir_attr(&A, ATTR_NODE_ITERVAR, iv, "pragma_unroll_explicit", I(0),
              ir_attr(&A, ATTR_NODE_ITERVAR, iv, "pragma_auto_unroll_max_step", I(8), inner));
  CHECK_TEXT(ps(unroll(expl)), "for (i: int32, 0, 4) \"unroll\" {\n"
                               "  B[((j*2) + i)] = i\n"
                               "}\n");
  /* another pragma stays */
  Stmt *other = ir_attr(&A, ATTR_NODE_ITERVAR, iv, "pragma_debug", I(1), inner);
  CHECK(unroll(other) == other);
}

/* A split that overhangs: the copies past the end are guarded by a condition the simplifier
 * proves false, and what is left of such a copy is the statement after the guard alone (once
 * a crash in ir_seq, which met the empty statement left of the guard first); its loop, whose
 * body folded to nothing, goes too. */
static void test_unroll_loop_overhang(void) {
  Expr *guard = ir_binary(&A, EXPR_LT, V(i), I(1));
  Stmt *red = loop(k, 3, ir_if(&A, guard, store(V(i), add(V(i), V(k))), NULL));
  Stmt *items[3] = {ir_if(&A, guard, store(V(i), I(0)), NULL), red, store(add(V(i), I(2)), I(5))};
  Stmt *s = loop_k(FOR_UNROLLED, i, I(0), I(2), ir_seq(&A, 3, items));
  Stmt *r = pass_simplify(unroll(s), &(PassCtx){.arena = &A});
  CHECK_TEXT(ps(r), "B[0] = 0\n"
                    "for (k: int32, 0, 3) {\n"
                    "  B[0] = k\n"
                    "}\n"
                    "B[2] = 5\n"
                    "B[3] = 5\n");
  check_same(s, r);
  /* and a loop of extent 0, unrolled to nothing, before a statement */
  Stmt *zero[2] = {loop_k(FOR_UNROLLED, j, I(0), I(0), store(V(j), I(1))), store(I(1), I(2))};
  CHECK_TEXT(ps(pass_simplify(unroll(ir_seq(&A, 2, zero)), &(PassCtx){.arena = &A})), "B[1] = 2\n");
}

/* Unrolling one loop makes at most 2^17 IR nodes: an "unroll" loop past that is an error
 * naming it (nested ones counted whole), a serial loop stays a loop. */
static void test_unroll_loop_limit(void) {
  Diag d = DIAG_INIT;
  PassCtx ctx = {.arena = &A, .diag = &d};
  Stmt *big = loop_k(FOR_UNROLLED, i, I(0), I(1 << 20), store(V(i), V(i)));
  CHECK(pass_unroll_loop(big, &ctx) == big);
  CHECK(d.kind == DIAG_USER);
  CHECK_TEXT(d.msg,
             "cannot unroll loop i of extent 1048576: 1048576 copies of its body (3 IR nodes "
             "each) would be more than 131072, the limit of tir.UnrollLoop (unroll a smaller loop: "
             "split it and unroll the inner part)");
  /* 43690 copies of 3 nodes fit */
  diag_clear(&d);
  Stmt *r = pass_unroll_loop(loop_k(FOR_UNROLLED, i, I(0), I(43690), store(V(i), V(i))), &ctx);
  CHECK(!diag_failed(&d) && r->kind == STMT_SEQ && r->u.seq.n == 43690);
  /* 1024 copies fit, 64 of those do not */
  Stmt *inner = loop_k(FOR_UNROLLED, i, I(0), I(1024), body_ji());
  Stmt *nest = loop_k(FOR_UNROLLED, j, I(0), I(64), inner);
  CHECK(pass_unroll_loop(nest, &ctx) == nest);
  CHECK(diag_failed(&d) && strncmp(d.msg, "cannot unroll loop j of extent 64: 64 copies", 44) == 0);
  /* automatic unrolling past the bound keeps the loop */
  PassOption step = opt("auto_max_step", INT64_C(1) << 40);
  Stmt *serial = loop(i, 1 << 20, store(V(i), V(i)));
  CHECK(unroll_with(serial, 1, &step) == serial);
}

int main(void) {
  arena_init(&A);
  i = var("i");
  j = var("j");
  k = var("k");
  n = var("n");
  buf_b = arena_alloc(&A, sizeof *buf_b);
  *buf_b = (Buffer){.name = "B", .data = ir_var(&A, "B", DT_HANDLE64), .dtype = DT_I32, .ndim = 1};
  test_unroll_loop_explicit();
  test_unroll_loop_unchanged();
  test_unroll_loop_auto_max_step();
  test_unroll_loop_depth_and_extent();
  test_unroll_loop_mark();
  test_unroll_loop_pragma();
  test_unroll_loop_overhang();
  test_unroll_loop_limit();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
