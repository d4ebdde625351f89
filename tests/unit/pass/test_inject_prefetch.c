/* test_inject_prefetch.c: tir.InjectPrefetch (ir/pass/inject_prefetch.c) on tensor loop
 * nests built by hand, as schedule_ops leaves them: the region one iteration ahead, the
 * cache-line walk over it (inner dimensions that fit in a line taken together, a symbolic
 * shape), a loop over axis.idx with its let, thread axes inside relaxed, and the cases
 * without a prefetch (no attr, no read, a region without bounds). */
#include "ir/pass/pass.h"
#include "tests/unit/schedule/sched_test.h"

static int nwarnings;

static void count_warning(void *user, const char *msg) {
  (void)user;
  (void)msg;
  nwarnings++;
}

static Stmt *run(Stmt *s, Diag *d) {
  PassCtx ctx = {.arena = &A, .diag = d, .warn = count_warning};
  return pass_inject_prefetch(s, &ctx);
}

static Stmt *mark(Tensor *t, int64_t offset, Stmt *body) {
  return ir_attr(&A, ATTR_NODE_TENSOR, t, "prefetch_scope", I(offset), body);
}

static Stmt *loop(Var *v, Expr *extent, Stmt *body) {
  return ir_for(&A, v, I(0), extent, FOR_SERIAL, NULL, body);
}

static Stmt *provide2(Tensor *t, Expr *i, Expr *j, Expr *value) {
  Expr *idx[2] = {i, j};
  return ir_provide(&A, t, value, 2, idx);
}

/* for (i, 0, 32) { mark { for (j, 0, 16) { B[i, j] = T[i, j] } } }: a row of 16 floats is
 * one line, so the region (row i + 1) is one call, at its start. */
static void test_inject_prefetch_rows(void) {
  Tensor *t = placeholder("T", 2, I(32), I(16)), *b = placeholder("B", 2, I(32), I(16));
  Var *i = var("i"), *j = var("j");
  Stmt *s = loop(i, I(32), mark(t, 1, loop(j, I(16), provide2(b, V(i), V(j), at(t, V(i), V(j))))));
  Diag d = DIAG_INIT;
  CHECK_TEXT(ps(run(s, &d)), "for (i: int32, 0, 32) {\n"
                             "  for (prefetch.T.0: int32, 0, 1) {\n"
                             "    @tir.prefetch(@tir.address_of(T[((i + 1) + prefetch.T.0), 0], "
                             "dtype=handle), 0, 3, 1, dtype=float32)\n"
                             "  }\n"
                             "  for (j: int32, 0, 16) {\n"
                             "    B[i, j] = T[i, j]\n"
                             "  }\n"
                             "}\n");
  CHECK(!diag_failed(&d));
}

/* Rows of 40 floats: the walk steps 16 columns at a time over the 40 read, (40 - 1) / 16 + 1
 * calls, and a symbolic row length does the same (the walk needs constant inner shapes only
 * to take dimensions together). */
static void test_inject_prefetch_long_rows(void) {
  Var *n = var("n");
  Tensor *t = placeholder("T", 2, I(8), V(n)), *b = placeholder("B", 2, I(8), I(40));
  Var *i = var("i"), *j = var("j");
  Stmt *s = loop(i, I(8), mark(t, 2, loop(j, I(40), provide2(b, V(i), V(j), at(t, V(i), V(j))))));
  Diag d = DIAG_INIT;
  CHECK_TEXT(ps(run(s, &d)), "for (i: int32, 0, 8) {\n"
                             "  for (prefetch.T.0: int32, 0, 1) {\n"
                             "    for (prefetch.T.1: int32, 0, 3) {\n"
                             "      @tir.prefetch(@tir.address_of(T[(prefetch.T.0 + (i + 2)), "
                             "(16*prefetch.T.1)], dtype=handle), 0, 3, 1, dtype=float32)\n"
                             "    }\n"
                             "  }\n"
                             "  for (j: int32, 0, 40) {\n"
                             "    B[i, j] = T[i, j]\n"
                             "  }\n"
                             "}\n");
}

/* A loop over i.idx with `let i = i.idx + 4` (an axis whose range does not start at 0): the
 * let's variable moves with the loop's. */
static void test_inject_prefetch_let(void) {
  Tensor *t = placeholder("T", 1, I(64)), *b = placeholder("B", 1, I(64));
  Var *idx = var("i.idx"), *i = var("i");
  Expr *ti[1] = {V(i)};
  Stmt *body = ir_provide(&A, b, at(t, V(i)), 1, ti);
  Stmt *s = loop(idx, I(8), ir_let_stmt(&A, i, add(V(idx), I(4)), mark(t, 3, body)));
  Diag d = DIAG_INIT;
  const char *p = ps(run(s, &d));
  CHECK(strstr(p, "@tir.prefetch(@tir.address_of(T[((i.idx + 7) + (16*prefetch.T.0))]") != NULL);
}

/* A thread axis inside the marked loop is relaxed like a loop: the region is its 16 threads. */
static void test_inject_prefetch_threads(void) {
  Tensor *t = placeholder("T", 1, I(256)), *b = placeholder("B", 1, I(256));
  Var *i = var("i");
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD,
                           "threadIdx.x");
  Expr *x = add(mul(V(i), I(16)), V(tx->var));
  Expr *xi[1] = {x};
  Stmt *body = ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(16),
                       ir_provide(&A, b, at(t, x), 1, xi));
  Stmt *s = loop(i, I(16), mark(t, 1, body));
  Diag d = DIAG_INIT;
  const char *p = ps(run(s, &d));
  CHECK(strstr(p, "for (prefetch.T.0: int32, 0, 1) {") != NULL);
  CHECK(strstr(p, "T[(((i*16) + 16) + (16*prefetch.T.0))]") != NULL);
}

/* No mark: the input itself. A mark whose body does not read the tensor: a user error. An
 * index read from memory has no bounds: a warning, and the mark goes without a prefetch. */
static void test_inject_prefetch_none(void) {
  Tensor *t = placeholder("T", 1, I(64)), *b = placeholder("B", 1, I(64)),
         *u = placeholder("U", 1, I(64));
  Var *i = var("i");
  Expr *ii[1] = {V(i)};
  Stmt *plain = loop(i, I(64), ir_provide(&A, b, at(t, V(i)), 1, ii));
  Diag d = DIAG_INIT;
  CHECK(run(plain, &d) == plain);

  Stmt *unread = loop(i, I(64), mark(u, 1, ir_provide(&A, b, at(t, V(i)), 1, ii)));
  run(unread, &d);
  CHECK(diag_failed(&d));
  CHECK(strstr(d.msg, "cannot prefetch U at axis i: nothing inside that loop reads U") != NULL);

  /* one iteration ahead, T[U[i + 1]] is a point: prefetched */
  Expr *gathered = at(t, ir_cast(&A, DT_I32, at(u, V(i))));
  Stmt *gather = loop(i, I(64), mark(t, 1, ir_provide(&A, b, gathered, 1, ii)));
  CHECK(strstr(ps(run(gather, &d)), "T[(cast(int32, U[(i + 1)]) + (16*prefetch.T.0))]") != NULL);
  /* over an inner loop, T[U[i*4 + j]] has no bounds */
  Var *j = var("j");
  Expr *x = add(mul(V(i), I(4)), V(j)), *xi[1] = {x};
  gathered = at(t, ir_cast(&A, DT_I32, at(u, x)));
  gather = loop(i, I(16), mark(t, 1, loop(j, I(4), ir_provide(&A, b, gathered, 1, xi))));
  Diag d2 = DIAG_INIT;
  nwarnings = 0;
  CHECK_TEXT(ps(run(gather, &d2)), "for (i: int32, 0, 16) {\n"
                                   "  for (j: int32, 0, 4) {\n"
                                   "    B[((i*4) + j)] = T[cast(int32, U[((i*4) + j)])]\n"
                                   "  }\n"
                                   "}\n");
  CHECK(nwarnings == 1 && !diag_failed(&d2));
}

int main(void) {
  arena_init(&A);
  test_inject_prefetch_rows();
  test_inject_prefetch_long_rows();
  test_inject_prefetch_let();
  test_inject_prefetch_threads();
  test_inject_prefetch_none();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
