/* test_loop_partition.c: tir.LoopPartition (ir/pass/loop_partition.c): a loop of non-constant
 * range (any loop with partition_const_loop) splits where its likely guards hold, the parts
 * keep what the loop computed, a part of extent 1 is its body (a loop with
 * no_unroll_loop_with_extent_one), a blockIdx scope gets an if/else, every likely is
 * dropped, and what has no guard on a candidate's variable is returned as it is. */
#include "tests/unit/pass/ir_eval.h"
#include "tests/unit/schedule/sched_test.h"

static Var *m, *io, *ii;
static Buffer *buf_b;

/* B's shape is [m]: an argument's shape variable, which the pass takes to be a size */
static Stmt *partition_with(Stmt *s, int nopt, const PassOption *opt) {
  PassCtx ctx = {.arena = &A, .nbinds = 1, .bind_buffers = &buf_b, .noptions = nopt, .options = opt};
  return pass_loop_partition(s, &ctx);
}
static Stmt *partition(Stmt *s) { return partition_with(s, 0, NULL); }
static PassOption opt(const char *key, int64_t v) { return (PassOption){"tir.LoopPartition", key, v}; }

static Expr *likely(Expr *c) { return ir_call(&A, DT_BOOL1, "tir.likely", CALL_PURE, 1, &c); }
static Expr *cmp(ExprKind k, Expr *x, Expr *y) { return ir_binary(&A, k, x, y); }
static Stmt *loop(Var *v, Expr *ext, Stmt *body) { return ir_for(&A, v, I(0), ext, FOR_SERIAL, NULL, body); }
static Expr *index4(void) { return add(mul(V(io), I(4)), V(ii)); }
/* for io, for ii in 0..4: if likely(io*4 + ii CMP bound) B[io*4 + ii] = io*4 + ii + 1 */
static Stmt *tile(Expr *outer_ext, ExprKind k, Expr *bound) {
  Stmt *st = ir_store(&A, buf_b, add(index4(), I(1)), index4(), NULL);
  return loop(io, outer_ext, loop(ii, I(4), ir_if(&A, likely(cmp(k, index4(), bound)), st, NULL)));
}

static void check_same(Stmt *before, Stmt *after) { CHECK(eval_same(before, after, buf_b)); }

/* m bound to v around s */
static Stmt *with_m(Stmt *s, int64_t v) { return ir_let_stmt(&A, m, I(v), s); }

static void test_loop_partition_symbolic(void) {
  Expr *ext = ir_binary(&A, EXPR_FLOORDIV, add(V(m), I(3)), I(4));
  Stmt *s = tile(ext, EXPR_LT, V(m));
  Stmt *p = partition(s);
  CHECK_TEXT(ps(p), "for (io: int32, 0, floordiv(m, 4)) {\n"
                    "  for (ii: int32, 0, 4) {\n"
                    "    if True {\n"
                    "      B[((io*4) + ii)] = (((io*4) + ii) + 1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n"
                    "for (io: int32, 0, floordiv((floormod(m, 4) + 3), 4)) {\n"
                    "  for (ii: int32, 0, 4) {\n"
                    "    if ((((floordiv(m, 4) + io)*4) + ii) < m) {\n"
                    "      B[(((floordiv(m, 4) + io)*4) + ii)] = ((((floordiv(m, 4) + io)*4) + ii) + 1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n");
  for (int64_t v = 0; v <= 13; v++) check_same(with_m(s, v), with_m(p, v));
}

/* constant loops: none split by default (the likely goes); with partition_const_loop the
 * tail block is its own statement, its last lanes a loop of 3 */
static void test_loop_partition_const(void) {
  Stmt *s = tile(I(4), EXPR_LT, I(15));
  CHECK_TEXT(ps(partition(s)), "for (io: int32, 0, 4) {\n"
                               "  for (ii: int32, 0, 4) {\n"
                               "    if (((io*4) + ii) < 15) {\n"
                               "      B[((io*4) + ii)] = (((io*4) + ii) + 1)\n"
                               "    }\n"
                               "  }\n"
                               "}\n");
  PassOption on = opt("partition_const_loop", 1);
  Stmt *p = partition_with(s, 1, &on);
  CHECK_TEXT(ps(p), "for (io: int32, 0, 3) {\n"
                    "  for (ii: int32, 0, 4) {\n"
                    "    if True {\n"
                    "      B[((io*4) + ii)] = (((io*4) + ii) + 1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n"
                    "for (ii: int32, 0, 3) {\n"
                    "  if True {\n"
                    "    B[(((0 + 3)*4) + ii)] = ((((0 + 3)*4) + ii) + 1)\n"
                    "  }\n"
                    "}\n"
                    "if ((((0 + 3)*4) + (0 + 3)) < 15) {\n"
                    "  B[(((0 + 3)*4) + (0 + 3))] = ((((0 + 3)*4) + (0 + 3)) + 1)\n"
                    "}\n");
  check_same(s, p);
  PassOption both[2] = {on, opt("no_unroll_loop_with_extent_one", 1)};
  Stmt *q = partition_with(s, 2, both);
  CHECK(strstr(ps(q), "for (io: int32, 0, 1) {\n") != NULL);
  check_same(s, q);
}

/* a lower bound (io*4 + ii >= 6): the part before it ends where the loop does when that is
 * sooner (m < 2), and splits again where the guard is false throughout (io = 0) */
static void test_loop_partition_lower_bound(void) {
  Stmt *s = tile(V(m), EXPR_GE, I(6));
  Stmt *p = partition(s);
  CHECK_TEXT(ps(p), "for (io: int32, 0, min(1, min(2, m))) {\n"
                    "  for (ii: int32, 0, 4) {\n"
                    "    if False {\n"
                    "      B[((io*4) + ii)] = (((io*4) + ii) + 1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n"
                    "for (io: int32, 0, max((min(2, m) - 1), 0)) {\n"
                    "  for (ii: int32, 0, 4) {\n"
                    "    if ((((min(1, min(2, m)) + io)*4) + ii) >= 6) {\n"
                    "      B[(((min(1, min(2, m)) + io)*4) + ii)] = ((((min(1, min(2, m)) + io)*4) + ii) + 1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n"
                    "for (io: int32, 0, max((m - 2), 0)) {\n"
                    "  for (ii: int32, 0, 4) {\n"
                    "    if True {\n"
                    "      B[(((min(2, m) + io)*4) + ii)] = ((((min(2, m) + io)*4) + ii) + 1)\n"
                    "    }\n"
                    "  }\n"
                    "}\n");
  for (int64_t v = 0; v <= 12; v++) check_same(with_m(s, v), with_m(p, v));
}

/* a blockIdx scope of non-constant extent: the blocks where the guard holds skip it */
static void test_loop_partition_thread(void) {
  IterVar *bx = ir_itervar(&A, var("blockIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "blockIdx.x");
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  Expr *idx = add(mul(V(bx->var), I(64)), V(tx->var));
  Stmt *st = ir_store(&A, buf_b, F(1), idx, NULL);
  Stmt *guarded = ir_if(&A, likely(cmp(EXPR_LT, idx, V(m))), st, NULL);
  Expr *ext = ir_binary(&A, EXPR_FLOORDIV, add(V(m), I(63)), I(64));
  Stmt *s = ir_attr(&A, ATTR_NODE_ITERVAR, bx, "thread_extent", ext,
                    ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(64), guarded));
  CHECK_TEXT(ps(partition(s)),
             "attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", \"blockIdx.x\")] "
             "\"thread_extent\" = floordiv((m + 63), 64);\n"
             "attr [IterVar(threadIdx.x: int32, (nullptr), \"ThreadIndex\", \"threadIdx.x\")] "
             "\"thread_extent\" = 64;\n"
             "if (blockIdx.x < floordiv(m, 64)) {\n"
             "  if True {\n"
             "    B[((blockIdx.x*64) + threadIdx.x)] = 1f32\n"
             "  }\n"
             "} else {\n"
             "  if (((blockIdx.x*64) + threadIdx.x) < m) {\n"
             "    B[((blockIdx.x*64) + threadIdx.x)] = 1f32\n"
             "  }\n"
             "}\n");
}

static void test_loop_partition_unchanged(void) {
  /* no likely at all */
  Stmt *s = loop(io, V(m), ir_store(&A, buf_b, F(1), V(io), NULL));
  CHECK(partition(s) == s);
  /* a guard not linear in the loop variable: no part, the likely goes */
  Expr *sq = mul(V(io), V(io));
  Stmt *t = loop(io, V(m), ir_if(&A, likely(cmp(EXPR_LT, sq, I(10))),
                                 ir_store(&A, buf_b, F(1), V(io), NULL), NULL));
  CHECK_TEXT(ps(partition(t)), "for (io: int32, 0, m) {\n"
                               "  if ((io*io) < 10) {\n"
                               "    B[io] = 1f32\n"
                               "  }\n"
                               "}\n");
  /* a cross-thread reduction in the loop's body keeps it whole, as in TVM */
  Expr *none = NULL;
  Stmt *items[2] = {ir_evaluate(&A, ir_call(&A, DT_I32, "tir.tvm_thread_allreduce", CALL_EFFECT, 0, &none)),
                    ir_if(&A, likely(cmp(EXPR_LT, V(io), I(5))), ir_store(&A, buf_b, F(1), V(io), NULL), NULL)};
  Stmt *u = loop(io, V(m), ir_seq(&A, 2, items));
  CHECK(strstr(ps(partition(u)), "for (io: int32, 0, m) {\n") != NULL);
  /* ... but not a loop of another statement of the sequence */
  Stmt *v[2] = {items[0], loop(ii, V(m), ir_if(&A, likely(cmp(EXPR_LT, V(ii), I(5))),
                                              ir_store(&A, buf_b, F(1), V(ii), NULL), NULL))};
  CHECK(strstr(ps(partition(ir_seq(&A, 2, v))), "for (ii: int32, 0, min(5, m)) {\n") != NULL);
}

/* pragma_loop_partition_hint: a constant loop splits on a plain (not likely) guard, the
 * attr goes; a guard on a variable let-bound inside the loop is not used */
static void test_loop_partition_hint(void) {
  Stmt *st = ir_store(&A, buf_b, add(index4(), I(1)), index4(), NULL);
  Stmt *s = loop(io, I(4), loop(ii, I(4), ir_if(&A, cmp(EXPR_LT, index4(), I(15)), st, NULL)));
  Stmt *h = ir_attr(&A, ATTR_NODE_VAR, io, "pragma_loop_partition_hint", I(1), s);
  Stmt *p = partition(h);
  CHECK(strstr(ps(p), "pragma") == NULL);
  CHECK(strstr(ps(p), "for (io: int32, 0, 3) {\n  for (ii: int32, 0, 4) {\n    if True {\n") != NULL);
  check_same(s, p);
  /* without the hint: unchanged */
  CHECK(partition(s) == s);
  /* let t = io*4 + ii in if (t < 15): not split */
  Var *t = var("t");
  Stmt *l = loop(io, I(4), loop(ii, I(4), ir_let_stmt(&A, t, index4(),
                                                      ir_if(&A, cmp(EXPR_LT, V(t), I(15)), st, NULL))));
  Stmt *q = partition(ir_attr(&A, ATTR_NODE_VAR, io, "pragma_loop_partition_hint", I(1), l));
  CHECK(strstr(ps(q), "for (io: int32, 0, 4) {\n") != NULL);
  check_same(l, q);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  io = var("io");
  ii = var("ii");
  buf_b = arena_alloc(&A, sizeof *buf_b);
  Expr **shape = arena_alloc(&A, sizeof *shape);
  shape[0] = V(m);
  *buf_b = (Buffer){.name = "B", .data = ir_var(&A, "B", DT_HANDLE64), .dtype = DT_I32,
                    .ndim = 1, .shape = shape};
  test_loop_partition_symbolic();
  test_loop_partition_const();
  test_loop_partition_lower_bound();
  test_loop_partition_thread();
  test_loop_partition_unchanged();
  test_loop_partition_hint();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
