/* test_thread_sync.c: tir.ThreadSync (ir/pass/thread_sync.c): a barrier between a cooperative
 * load of shared memory and its reads, between reads and later writes, and at the top of a serial loop around both (the next
 * iteration's writes after this one's reads); none for global memory, host code or a buffer
 * only written; the barrier goes before a guard on the thread index, never inside it, and one
 * that must go inside is refused; a pointer through tvm_access_ptr is read or written as its
 * mask says. */
#include "tests/unit/schedule/sched_test.h"

static Var *tx, *k, *i;
static IterVar *tx_iv;
static Buffer *sh, *glob;

static Stmt *sync_pass(Stmt *s, Diag *d) {
  PassCtx ctx = {.arena = &A, .gpu = true, .diag = d};
  return pass_thread_sync(s, &ctx);
}

static Stmt *synced(Stmt *s) {
  Diag d = DIAG_INIT;
  Stmt *out = sync_pass(s, &d);
  CHECK(!diag_failed(&d));
  return out;
}

static Stmt *loop(Var *v, int64_t n, Stmt *body) {
  return ir_for(&A, v, I(0), I(n), FOR_SERIAL, NULL, body);
}
static Stmt *seq2(Stmt *x, Stmt *y) { return ir_seq(&A, 2, (Stmt *[]){x, y}); }
static Expr *lt(Expr *x, Expr *y) { return ir_binary(&A, EXPR_LT, x, y); }
static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }

/* a kernel of 32 threads around body, the shared buffer allocated in it */
static Stmt *kernel(Stmt *body) {
  Expr *ext = I(32);
  Stmt *alloc = ir_allocate(&A, sh->data, DT_F32, 1, &ext, "shared", NULL, body);
  return ir_attr(&A, ATTR_NODE_ITERVAR, tx_iv, "thread_extent", I(32), alloc);
}

/* sh[tx] = G[tx]; G[tx] = sh[31 - tx] */
static Stmt *fill(Expr *at) { return store(sh, V(tx), load(glob, at)); }
static Stmt *use(Expr *at) { return store(glob, at, load(sh, ir_binary(&A, EXPR_SUB, I(31), V(tx)))); }

static void test_thread_sync_load_then_read(void) {
  Stmt *s = kernel(seq2(fill(V(tx)), use(V(tx))));
  CHECK_TEXT(ps(synced(s)),
             "attr [IterVar(tx: int32, [0:32], \"ThreadIndex\", \"threadIdx.x\")] "
             "\"thread_extent\" = 32;\n"
             "allocate(sh: Pointer(shared float32), float32, [32]), storage_scope = shared {\n"
             "  sh[tx] = G[tx]\n"
             "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
             "  G[tx] = sh[(31 - tx)]\n"
             "}\n");
  /* reads then writes: the writes wait for the other threads' reads */
  Stmt *t = kernel(seq2(use(V(tx)), fill(V(tx))));
  CHECK(strstr(ps(synced(t)), "  G[tx] = sh[(31 - tx)]\n"
                              "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
                              "  sh[tx] = G[tx]\n"));
  /* a buffer only written: nothing to wait for */
  Stmt *w = kernel(seq2(fill(V(tx)), fill(add(V(tx), I(1)))));
  CHECK(synced(w) == w);
}

/* the tiled GEMM's shape: for k { load tile; for i { read tile } } */
static void test_thread_sync_loop(void) {
  Stmt *s = kernel(loop(k, 4, seq2(fill(add(mul(V(k), I(32)), V(tx))),
                                   loop(i, 8, use(add(V(i), V(tx)))))));
  CHECK_TEXT(ps(synced(s)),
             "attr [IterVar(tx: int32, [0:32], \"ThreadIndex\", \"threadIdx.x\")] "
             "\"thread_extent\" = 32;\n"
             "allocate(sh: Pointer(shared float32), float32, [32]), storage_scope = shared;\n"
             "for (k: int32, 0, 4) {\n"
             "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
             "  sh[tx] = G[((k*32) + tx)]\n"
             "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
             "  for (i: int32, 0, 8) {\n"
             "    G[(i + tx)] = sh[(31 - tx)]\n"
             "  }\n"
             "}\n");
}

/* a guard on the thread index: the barrier goes before it; one needed inside it is refused */
static void test_thread_sync_thread_guard(void) {
  Stmt *guarded = ir_if(&A, lt(V(tx), I(16)), use(V(tx)), NULL);
  Stmt *s = kernel(seq2(fill(V(tx)), guarded));
  const char *text = ps(synced(s));
  CHECK(strstr(text, "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n  if (tx < 16) {\n"));
  Stmt *inside = ir_if(&A, lt(V(tx), I(16)), seq2(fill(V(tx)), use(V(tx))), NULL);
  Stmt *bad = kernel(inside);
  Diag d = DIAG_INIT;
  CHECK(sync_pass(bad, &d) == bad);
  CHECK(diag_failed(&d) && strstr(d.msg, "not supported yet") && strstr(d.msg, "thread index"));
  /* a guard on a loop variable alone is uniform: the barrier may go inside it */
  Stmt *uniform = kernel(loop(k, 2, ir_if(&A, lt(V(k), I(1)), seq2(fill(V(tx)), use(V(tx))), NULL)));
  CHECK(strstr(ps(synced(uniform)), "  if (k < 1) {\n    sh[tx] = G[tx]\n"
                                    "    @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"));
}

/* a pointer into shared memory through tvm_access_ptr is read or written as its mask says: two
 * TensorCore loads of the tile (mask 1) need no barrier between them, the cooperative load
 * before them does; a pointer passed on bare is taken as read and written */
static Stmt *wmma_load(int mask) {
  Expr *type = ir_call(&A, DT_F32, "tir.type_annotation", CALL_PURE, 0, NULL);
  Expr *ptr = ir_call(&A, DT_HANDLE64, "tir.tvm_access_ptr", CALL_PURE, 5,
                      (Expr *[]){type, V(sh->data), I(0), I(32), I(mask)});
  return ir_evaluate(&A, ir_call(&A, DT_HANDLE64, "tir.tvm_load_matrix_sync", CALL_EFFECT, 1,
                                 (Expr *[]){ptr}));
}

static void test_thread_sync_access_ptr(void) {
  const char *text = ps(synced(kernel(seq2(fill(V(tx)), loop(i, 2, wmma_load(1))))));
  CHECK(strstr(text, "  sh[tx] = G[tx]\n  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
                     "  for (i: int32, 0, 2) {\n    @tir.tvm_load_matrix_sync("));
  CHECK(!strstr(text, "for (i: int32, 0, 2) {\n    @tir.tvm_storage_sync"));
  Stmt *reads = kernel(seq2(wmma_load(1), wmma_load(1)));
  CHECK(synced(reads) == reads);
  CHECK(strstr(ps(synced(kernel(seq2(wmma_load(1), wmma_load(2))))),
               "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"));
}

/* global memory and code outside every kernel are left alone */
static void test_thread_sync_untouched(void) {
  Stmt *g = kernel(seq2(store(glob, V(tx), F(1)), store(glob, V(tx), load(glob, V(tx)))));
  CHECK(synced(g) == g);
  Stmt *host = seq2(fill(I(0)), use(I(0)));
  CHECK(synced(host) == host);
}

int main(void) {
  arena_init(&A);
  tx = var("tx");
  k = var("k");
  i = var("i");
  tx_iv = ir_itervar(&A, tx, (Range){I(0), I(32)}, ITER_THREAD, "threadIdx.x");
  sh = arena_alloc(&A, sizeof *sh);
  *sh = (Buffer){.name = "sh", .data = ir_var(&A, "sh", DT_HANDLE64), .dtype = DT_F32,
                 .scope = "shared"};
  glob = arena_alloc(&A, sizeof *glob);
  *glob = (Buffer){.name = "G", .data = ir_var(&A, "G", DT_HANDLE64), .dtype = DT_F32,
                   .scope = "global"};
  test_thread_sync_load_then_read();
  test_thread_sync_loop();
  test_thread_sync_thread_guard();
  test_thread_sync_untouched();
  test_thread_sync_access_ptr();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
