/* test_inject_virtual_thread.c: tir.InjectVirtualThread (ir/pass/inject_virtual_thread.c):
 * statements that read the virtual thread are copied innermost, or put in a `vx.s` loop when
 * they hold a loop or the thread count is large; allocations they touch grow per thread;
 * cthreads copy everything; and every result computes what the threads one after another
 * compute (tests/unit/pass/ir_eval.h). */
#include "tests/unit/pass/ir_eval.h"
#include "tests/unit/schedule/sched_test.h"

static Var *i, *n;
static Buffer *buf_a, *buf_b;

static Buffer *buffer(const char *name) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = name, .data = ir_var(&A, name, DT_HANDLE64), .dtype = DT_I32, .ndim = 1};
  return b;
}

static Stmt *inject(Stmt *s) {
  PassCtx ctx = {.arena = &A};
  return pass_inject_virtual_thread(s, &ctx);
}

static IterVar *thread(const char *name, const char *tag) {
  return ir_itervar(&A, var(name), (Range){NULL, NULL}, ITER_VTHREAD, tag);
}
static Stmt *vthread(IterVar *iv, int64_t count, Stmt *body) {
  return ir_attr(&A, ATTR_NODE_ITERVAR, iv, "virtual_thread", I(count), body);
}
static Stmt *loop(Var *v, Expr *ext, Stmt *body) {
  return ir_for(&A, v, I(0), ext, FOR_SERIAL, NULL, body);
}
static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }
static Stmt *seq2(Stmt *a, Stmt *b) { return ir_seq(&A, 2, (Stmt *[]){a, b}); }
static Stmt *alloc(Buffer *b, int64_t extent, Stmt *body) {
  return ir_allocate(&A, b->data, b->dtype, 1, (Expr *[]){I(extent)}, "local", NULL, body);
}

/* s and inject(s) leave A and B alike (B of 64 elements, A read only). */
static void check_same(Stmt *s) {
  int32_t a[64], b0[64], b1[64];
  for (int k = 0; k < 64; k++) a[k] = k * 3 - 20, b0[k] = b1[k] = -7;
  Buffer *bufs[2] = {buf_a, buf_b};
  int64_t sizes[2] = {64, 64};
  bool ok0 = eval_run(s, 2, bufs, (int32_t *[]){a, b0}, sizes);
  bool ok1 = eval_run(inject(s), 2, bufs, (int32_t *[]){a, b1}, sizes);
  CHECK(ok0 && ok1 && memcmp(b0, b1, sizeof b0) == 0);
}

static void test_inject_virtual_thread_unchanged(void) {
  Stmt *s = loop(i, I(4), store(buf_b, V(i), load(buf_a, V(i))));
  CHECK(inject(s) == s);
  /* a thread nothing reads: one copy, the attr gone */
  IterVar *vx = thread("vx", "vthread");
  CHECK(inject(vthread(vx, 2, s)) == s);
}

/* the store reads vx: copied inside the loop, one per thread */
static void test_inject_virtual_thread_copies(void) {
  IterVar *vx = thread("vx", "vthread");
  Expr *idx = add(mul(V(vx->var), I(4)), V(i));
  Stmt *s = vthread(vx, 2, loop(i, I(4), store(buf_b, idx, load(buf_a, idx))));
  CHECK_TEXT(ps(inject(s)), "for (i: int32, 0, 4) {\n"
                            "  B[((0*4) + i)] = A[((0*4) + i)]\n"
                            "  B[((1*4) + i)] = A[((1*4) + i)]\n"
                            "}\n");
  check_same(s);
}

/* two threads, the inner injected first: seeds/002_*.txt's order of the copies */
static void test_inject_virtual_thread_nested(void) {
  IterVar *vy = thread("vy", "vthread"), *vx = thread("vx", "vthread");
  Expr *idx = add(add(mul(V(vy->var), I(8)), mul(V(vx->var), I(2))), V(i));
  Stmt *s = vthread(vy, 2, vthread(vx, 2, loop(i, I(2), store(buf_b, idx, I(1)))));
  CHECK_TEXT(ps(inject(s)), "for (i: int32, 0, 2) {\n"
                            "  B[(((0*8) + (0*2)) + i)] = 1\n"
                            "  B[(((1*8) + (0*2)) + i)] = 1\n"
                            "  B[(((0*8) + (1*2)) + i)] = 1\n"
                            "  B[(((1*8) + (1*2)) + i)] = 1\n"
                            "}\n");
  check_same(s);
}

/* a statement holding a loop, or 16 threads and more, becomes a loop over vx.s */
static void test_inject_virtual_thread_loop(void) {
  IterVar *vx = thread("vx", "vthread");
  Stmt *guarded = ir_if(&A, ir_binary(&A, EXPR_LT, V(vx->var), I(1)),
                        loop(i, I(4), store(buf_b, V(i), I(5))), NULL);
  Stmt *s = vthread(vx, 2, guarded);
  CHECK_TEXT(ps(inject(s)), "for (vx.s: int32, 0, 2) {\n"
                            "  if (vx.s < 1) {\n"
                            "    for (i: int32, 0, 4) {\n"
                            "      B[i] = 5\n"
                            "    }\n"
                            "  }\n"
                            "}\n");
  check_same(s);
  Stmt *many = vthread(vx, 16, store(buf_b, V(vx->var), I(2)));
  CHECK_TEXT(ps(inject(many)), "for (vx.s: int32, 0, 16) {\n"
                               "  B[vx.s] = 2\n"
                               "}\n");
  check_same(many);
  /* vx reaches a loop's extent through a buffer it writes */
  Stmt *through = seq2(store(buf_b, I(40), add(V(vx->var), I(1))),
                       loop(i, load(buf_b, I(40)), store(buf_b, V(i), I(3))));
  CHECK_TEXT(ps(inject(vthread(vx, 2, through))), "B[40] = (0 + 1)\n"
                                                  "B[40] = (1 + 1)\n"
                                                  "for (vx.s: int32, 0, 2) {\n"
                                                  "  for (i: int32, 0, B[40]) {\n"
                                                  "    B[i] = 3\n"
                                                  "  }\n"
                                                  "}\n");
}

/* a buffer the threads write differently gets one copy per thread: [4] becomes [8], each
 * access offset by vx*4 */
static void test_inject_virtual_thread_allocate(void) {
  IterVar *vx = thread("vx", "vthread");
  Buffer *t = buffer("T");
  Expr *idx = add(mul(V(vx->var), I(4)), V(i));
  Stmt *body = seq2(loop(i, I(4), store(t, V(i), load(buf_a, idx))),
                    loop(i, I(4), store(buf_b, idx, mul(load(t, V(i)), I(2)))));
  Stmt *s = vthread(vx, 2, alloc(t, 4, body));
  CHECK_TEXT(ps(inject(s)),
             "allocate(T: Pointer(local int32), int32, [8]), storage_scope = local {\n"
             "  for (i: int32, 0, 4) {\n"
             "    T[(i + (0*4))] = A[((0*4) + i)]\n"
             "    T[(i + (1*4))] = A[((1*4) + i)]\n"
             "  }\n"
             "  for (i, 0, 4) {\n"
             "    B[((0*4) + i)] = (T[(i + (0*4))]*2)\n"
             "    B[((1*4) + i)] = (T[(i + (1*4))]*2)\n"
             "  }\n"
             "}\n");
  check_same(s);
  /* an allocation the thread does not touch is shared under vthread */
  Buffer *u = buffer("U");
  Stmt *shared = vthread(
      vx, 2, alloc(u, 1, seq2(store(u, I(0), I(9)), store(buf_b, V(vx->var), load(u, I(0))))));
  CHECK_TEXT(ps(inject(shared)),
             "allocate(U: Pointer(local int32), int32, [1]), storage_scope = local {\n"
             "  U[0] = 9\n"
             "  B[0] = U[0]\n"
             "  B[1] = U[0]\n"
             "}\n");
  check_same(shared);
}

/* cthread: nothing is shared, so every allocation grows and every store is copied */
static void test_inject_virtual_thread_cthread(void) {
  IterVar *cx = thread("cx", "cthread");
  Buffer *u = buffer("U");
  Stmt *s = vthread(
      cx, 2, alloc(u, 1, seq2(store(u, I(0), I(9)), store(buf_b, V(cx->var), load(u, I(0))))));
  CHECK_TEXT(ps(inject(s)),
             "allocate(U: Pointer(local int32), int32, [2]), storage_scope = local {\n"
             "  U[(0 + 0)] = 9\n"
             "  U[(0 + 1)] = 9\n"
             "  B[0] = U[(0 + 0)]\n"
             "  B[1] = U[(0 + 1)]\n"
             "}\n");
  check_same(s);
}

/* a let computed from vx carries the touch to what reads it */
static void test_inject_virtual_thread_let(void) {
  IterVar *vx = thread("vx", "vthread");
  Var *t = var("t");
  Stmt *s = vthread(vx, 2, ir_let_stmt(&A, t, mul(V(vx->var), I(3)), store(buf_b, V(t), V(n))));
  CHECK_TEXT(ps(inject(s)), "let t: int32 = (0*3)\n"
                            "B[t] = n\n"
                            "let t = (1*3)\n"
                            "B[t] = n\n");
}

int main(void) {
  arena_init(&A);
  i = var("i");
  n = var("n");
  buf_a = buffer("A");
  buf_b = buffer("B");
  test_inject_virtual_thread_unchanged();
  test_inject_virtual_thread_copies();
  test_inject_virtual_thread_nested();
  test_inject_virtual_thread_loop();
  test_inject_virtual_thread_allocate();
  test_inject_virtual_thread_cthread();
  test_inject_virtual_thread_let();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
