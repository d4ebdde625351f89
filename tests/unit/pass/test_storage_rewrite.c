/* test_storage_rewrite.c: tir.StorageRewrite (ir/pass/storage_rewrite.c): allocations lift to
 * the top or to the outermost thread scope, storage is shared between lifetimes that do not
 * overlap and taken over in place by elementwise statements, and what must not move or be
 * shared (loop-dependent sizes, local memory, other dtypes, small arrays) is left alone; a
 * long chain of nested allocations keeps what it computes. */
#include "tests/unit/pass/ir_eval.h"
#include "tests/unit/schedule/sched_test.h"

static Var *m, *i, *j;
static Buffer *out;

static Stmt *rewrite(Stmt *s) {
  PassCtx ctx = {.arena = &A};
  return pass_storage_rewrite(s, &ctx);
}

static Buffer *buffer(const char *name, DType t) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = name, .data = ir_var(&A, name, DT_HANDLE64), .dtype = t, .scope = "global"};
  return b;
}

static Stmt *alloc(Buffer *b, Expr *n, const char *scope, Stmt *body) {
  return ir_allocate(&A, b->data, b->dtype, 1, &n, scope, NULL, body);
}

static Stmt *loop(Var *v, Expr *n, Stmt *body) {
  return ir_for(&A, v, I(0), n, FOR_SERIAL, NULL, body);
}
static Expr *ld(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *st(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }
static Stmt *seq2(Stmt *x, Stmt *y) {
  Stmt *items[2] = {x, y};
  return ir_seq(&A, 2, items);
}
static Stmt *seq3(Stmt *x, Stmt *y, Stmt *z) {
  Stmt *items[3] = {x, y, z};
  return ir_seq(&A, 3, items);
}

/* B computed inside C's loop: its allocation goes to the top, once */
static void test_storage_rewrite_lift(void) {
  Buffer *b = buffer("B", DT_F32);
  Stmt *s = loop(i, V(m), alloc(b, I(4), "global",
                                 seq2(st(b, I(0), F(1)), st(out, V(i), ld(b, I(0))))));
  CHECK_TEXT(ps(rewrite(s)),
             "allocate(B: Pointer(global float32), float32, [4]), storage_scope = global;\n"
             "for (i: int32, 0, m) {\n"
             "  B[0] = 1f32\n"
             "  Out[i] = B[0]\n"
             "}\n");
  /* a size that depends on the loop stays where it is, untouched */
  Stmt *t = loop(i, V(m), alloc(b, add(V(i), I(1)), "global",
                                 seq2(st(b, I(0), F(1)), st(out, V(i), ld(b, I(0))))));
  CHECK(rewrite(t) == t);
  /* nothing uses it: it goes */
  CHECK_TEXT(ps(rewrite(alloc(b, I(4), "global", st(out, I(0), F(2))))), "Out[0] = 2f32\n");
}

/* B1 dies before B2 is born: B2 lives in B1's storage, under B1's name */
static void test_storage_rewrite_share(void) {
  Buffer *b1 = buffer("B1", DT_F32), *b2 = buffer("B2", DT_F32);
  Stmt *s = alloc(b1, I(64), "global", alloc(b2, I(48), "global", seq3(
      loop(i, I(64), st(b1, V(i), F(1))),
      loop(i, I(48), st(b2, V(i), ld(b1, add(V(i), I(1))))),
      loop(j, I(48), st(out, V(j), ld(b2, V(j)))))));
  /* B1 is still read by B2's statement at another index: no sharing */
  CHECK_TEXT(ps(rewrite(s)),
             "allocate(B1: Pointer(global float32), float32, [64]), storage_scope = global;\n"
             "allocate(B2: Pointer(global float32), float32, [48]), storage_scope = global {\n"
             "  for (i: int32, 0, 64) {\n"
             "    B1[i] = 1f32\n"
             "  }\n"
             "  for (i, 0, 48) {\n"
             "    B2[i] = B1[(i + 1)]\n"
             "  }\n"
             "  for (j: int32, 0, 48) {\n"
             "    Out[j] = B2[j]\n"
             "  }\n"
             "}\n");
  /* B1's last use comes first: B3, born after, takes its storage */
  Buffer *b3 = buffer("B3", DT_F32);
  Stmt *t = alloc(b1, I(64), "global", alloc(b3, I(48), "global", seq3(
      loop(i, I(64), st(b1, V(i), F(1))),
      loop(i, I(64), st(out, V(i), ld(b1, V(i)))),
      loop(j, I(48), seq2(st(b3, V(j), F(2)), st(out, V(j), ld(b3, V(j))))))));
  CHECK_TEXT(ps(rewrite(t)),
             "allocate(B1: Pointer(global float32), float32, [64]), storage_scope = global {\n"
             "  for (i: int32, 0, 64) {\n"
             "    B1[i] = 1f32\n"
             "  }\n"
             "  for (i, 0, 64) {\n"
             "    Out[i] = B1[i]\n"
             "  }\n"
             "  for (j: int32, 0, 48) {\n"
             "    B1[j] = 2f32\n"
             "    Out[j] = B1[j]\n"
             "  }\n"
             "}\n");
  /* another dtype does not share */
  Buffer *b4 = buffer("B4", DT_I32);
  Stmt *u = alloc(b1, I(64), "global", alloc(b4, I(48), "global", seq3(
      loop(i, I(64), st(b1, V(i), F(1))),
      loop(i, I(64), st(out, V(i), ld(b1, V(i)))),
      loop(j, I(48), seq2(st(b4, V(j), I(2)), st(out, V(j), F(0)))))));
  CHECK(strstr(ps(rewrite(u)), "allocate(B4") != NULL);
}

/* an elementwise stage reading the last use of its input at the index it writes */
static void test_storage_rewrite_inplace(void) {
  Buffer *b1 = buffer("B1", DT_F32), *b2 = buffer("B2", DT_F32);
  Stmt *s = alloc(b1, I(64), "global", alloc(b2, I(64), "global", seq3(
      loop(i, I(64), st(b1, V(i), F(1))),
      loop(i, I(64), st(b2, V(i), mul(ld(b1, V(i)), F(2)))),
      loop(j, I(64), st(out, V(j), ld(b2, V(j)))))));
  CHECK_TEXT(ps(rewrite(s)),
             "allocate(B1: Pointer(global float32), float32, [64]), storage_scope = global {\n"
             "  for (i: int32, 0, 64) {\n"
             "    B1[i] = 1f32\n"
             "  }\n"
             "  for (i, 0, 64) {\n"
             "    B1[i] = (B1[i]*2f32)\n"
             "  }\n"
             "  for (j: int32, 0, 64) {\n"
             "    Out[j] = B1[j]\n"
             "  }\n"
             "}\n");
  /* a reduction reads its own output: not in place */
  Stmt *t = alloc(b1, I(64), "global", alloc(b2, I(64), "global", seq3(
      loop(i, I(64), st(b1, V(i), F(1))),
      loop(i, I(64), st(b2, V(i), add(ld(b2, V(i)), ld(b1, V(i))))),
      loop(j, I(64), st(out, V(j), ld(b2, V(j)))))));
  CHECK(strstr(ps(rewrite(t)), "allocate(B2") != NULL);
}

/* Symbolic sizes (issue 10, item 2): in place, the storage keeps the size (it was given 0,
 * and the heap was overwritten); shared between two sizes, it takes their max. */
static void test_storage_rewrite_symbolic(void) {
  Var *n = var("n");
  Buffer *b1 = buffer("B1", DT_F32), *b2 = buffer("B2", DT_F32), *b3 = buffer("B3", DT_F32);
  Stmt *s = alloc(b1, V(m), "global", alloc(b2, V(m), "global", seq3(
      loop(i, V(m), st(b1, V(i), F(1))),
      loop(i, V(m), st(b2, V(i), mul(ld(b1, V(i)), F(2)))),
      loop(j, V(m), st(out, V(j), ld(b2, V(j)))))));
  CHECK_TEXT(ps(rewrite(s)),
             "allocate(B1: Pointer(global float32), float32, [m]), storage_scope = global {\n"
             "  for (i: int32, 0, m) {\n"
             "    B1[i] = 1f32\n"
             "  }\n"
             "  for (i, 0, m) {\n"
             "    B1[i] = (B1[i]*2f32)\n"
             "  }\n"
             "  for (j: int32, 0, m) {\n"
             "    Out[j] = B1[j]\n"
             "  }\n"
             "}\n");
  /* sizes m and n: not in place (the statement would outgrow the storage it rewrites) */
  Stmt *t = alloc(b1, V(m), "global", alloc(b2, V(n), "global", seq3(
      loop(i, V(m), st(b1, V(i), F(1))),
      loop(i, V(m), st(b2, V(i), mul(ld(b1, V(i)), F(2)))),
      loop(j, V(m), st(out, V(j), ld(b2, V(j)))))));
  CHECK(strstr(ps(rewrite(t)), "allocate(B2: Pointer(global float32), float32, [n])") != NULL);
  /* B1 (m) dies before B3 (n) is born: one allocation of max(m, n) */
  Stmt *u = alloc(b1, V(m), "global", alloc(b3, V(n), "global", seq3(
      loop(i, V(m), st(b1, V(i), F(1))),
      loop(i, V(m), st(out, V(i), ld(b1, V(i)))),
      loop(j, V(n), seq2(st(b3, V(j), F(2)), st(out, V(j), ld(b3, V(j))))))));
  const char *got = ps(rewrite(u));
  CHECK(strncmp(got, "allocate(B1: Pointer(global float32), float32, [max(m, n)])", 59) == 0);
  CHECK(strstr(got, "B1[j] = 2f32") != NULL && strstr(got, "allocate(B3") == NULL);
  /* a constant size is never shared with a symbolic one */
  Stmt *w = alloc(b1, I(64), "global", alloc(b3, V(n), "global", seq3(
      loop(i, I(64), st(b1, V(i), F(1))),
      loop(i, I(64), st(out, V(i), ld(b1, V(i)))),
      loop(j, V(n), seq2(st(b3, V(j), F(2)), st(out, V(j), ld(b3, V(j))))))));
  CHECK(strstr(ps(rewrite(w)), "allocate(B3: Pointer(global float32), float32, [n])") != NULL);
}

/* shared and local memory attach inside the outermost thread scope; local is never shared,
 * and neither are arrays of one 32-bit word */
static void test_storage_rewrite_threads(void) {
  IterVar *bx = ir_itervar(&A, var("blockIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "blockIdx.x");
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  Buffer *l1 = buffer("L1", DT_F32), *l2 = buffer("L2", DT_F32);
  Stmt *body = alloc(l1, I(4), "local", alloc(l2, I(4), "local", seq3(
      loop(i, I(4), st(l1, V(i), F(1))),
      loop(i, I(4), st(out, V(i), ld(l1, V(i)))),
      loop(j, I(4), seq2(st(l2, V(j), F(2)), st(out, V(j), ld(l2, V(j))))))));
  Stmt *s = ir_attr(&A, ATTR_NODE_ITERVAR, bx, "thread_extent", I(8),
                    ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(32), body));
  const char *got = ps(rewrite(s));
  CHECK(strncmp(got,
                "attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", \"blockIdx.x\")] "
                "\"thread_extent\" = 8;\n"
                "allocate(L1: Pointer(local float32), float32, [4]), storage_scope = local;\n"
                "allocate(L2: Pointer(local float32), float32, [4]), storage_scope = local;\n"
                "attr [IterVar(threadIdx.x",
                strlen("attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", "
                       "\"blockIdx.x\")] \"thread_extent\" = 8;\n"
                       "allocate(L1: Pointer(local float32), float32, [4]), storage_scope = "
                       "local;\n"
                       "allocate(L2: Pointer(local float32), float32, [4]), storage_scope = "
                       "local;\n"
                       "attr [IterVar(threadIdx.x")) == 0);
  Buffer *g1 = buffer("G1", DT_F32), *g2 = buffer("G2", DT_F32);
  Stmt *t = alloc(g1, I(1), "global", alloc(g2, I(1), "global", seq3(
      st(g1, I(0), F(1)), st(out, I(0), ld(g1, I(0))),
      seq2(st(g2, I(0), F(2)), st(out, I(1), ld(g2, I(0)))))));
  CHECK(strstr(ps(rewrite(t)), "allocate(G2") != NULL);
}

/* Forty nested allocations, each read by the next: the walk meets each one's accesses before
 * the next allocation, past several growths of the allocation table, and the program still
 * computes Out[j] = j + 39 after storage is shared. */
static void test_storage_rewrite_chain(void) {
  enum { NCHAIN = 40, LEN = 64 };
  Buffer *b[NCHAIN], *o = buffer("O", DT_I32);
  char names[NCHAIN][8];
  for (int k = 0; k < NCHAIN; k++) {
    snprintf(names[k], sizeof names[k], "B%d", k);
    b[k] = buffer(names[k], DT_I32);
  }
  Stmt *s = loop(j, I(LEN), st(o, V(j), ld(b[NCHAIN - 1], V(j))));
  for (int k = NCHAIN - 1; k >= 0; k--) {
    Expr *v = k ? add(ld(b[k - 1], V(i)), I(1)) : V(i);
    s = alloc(b[k], I(LEN), "global", seq2(loop(i, I(LEN), st(b[k], V(i), v)), s));
  }
  Stmt *r = rewrite(s);
  int32_t got[LEN];
  int32_t *data[1] = {got};
  int64_t n[1] = {LEN};
  CHECK(eval_run(r, 1, &o, data, n));
  bool right = true;
  for (int k = 0; k < LEN; k++) right &= got[k] == k + NCHAIN - 1;
  CHECK(right);
  CHECK(strstr(ps(r), "allocate(B1:") == NULL); /* storage was shared */
}

int main(void) {
  arena_init(&A);
  m = var("m");
  i = var("i");
  j = var("j");
  out = buffer("Out", DT_F32);
  test_storage_rewrite_lift();
  test_storage_rewrite_share();
  test_storage_rewrite_inplace();
  test_storage_rewrite_symbolic();
  test_storage_rewrite_threads();
  test_storage_rewrite_chain();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
