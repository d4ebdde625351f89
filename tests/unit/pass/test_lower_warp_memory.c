/* test_lower_warp_memory.c: tir.LowerWarpMemory (ir/pass/lower_warp_memory.c): a warp buffer
 * of 32 lanes x m elements becomes m registers a lane; a lane's read of its own element is a
 * local load, a read of another lane's element a warp shuffle; sub-warps of 16 lanes and
 * several groups; and the refusals: a store to another lane's element, a shuffle under a
 * condition on the thread index, a local index that differs between lanes, a vector shuffle,
 * a width that does not divide 32, warp memory outside a kernel; and, run by ir_eval with the
 * registers modelled as an array of lanes, the lowered programs compute what the warp buffer
 * did (shifted reads, every lane reading all elements, 16-lane groups, partial groups). */
#include "tests/unit/pass/ir_eval.h"

static Var *tx, *j, *k;
static IterVar *tx_iv, *tx16_iv;
static Buffer *wb, *glob;

static Stmt *run(Stmt *s, Diag *d) {
  PassCtx ctx = {.arena = &A, .gpu = true, .diag = d};
  return pass_lower_warp_memory(s, &ctx);
}

static Stmt *warp_lowered(Stmt *s) {
  Diag d = DIAG_INIT;
  Stmt *out = run(s, &d);
  if (diag_failed(&d)) fprintf(stderr, "unexpected error: %s\n", d.msg);
  CHECK(!diag_failed(&d));
  return out;
}

/* the message of the refusal of s; s itself comes back */
static const char *refused(Stmt *s) {
  static Diag d;
  d = (Diag)DIAG_INIT;
  CHECK(run(s, &d) == s);
  CHECK(diag_failed(&d) && strstr(d.msg, "not supported yet: warp memory 'W'"));
  return d.msg;
}

static Stmt *loop(Var *v, int64_t n, Stmt *body) {
  return ir_for(&A, v, I(0), I(n), FOR_SERIAL, NULL, body);
}
static Stmt *seq2(Stmt *x, Stmt *y) { return ir_seq(&A, 2, (Stmt *[]){x, y}); }
static Expr *lt(Expr *x, Expr *y) { return ir_binary(&A, EXPR_LT, x, y); }
static Expr *fmod_(Expr *x, int64_t y) { return ir_binary(&A, EXPR_FLOORMOD, x, I(y)); }
static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }

/* a kernel of one block of `threads` lanes (threadIdx.x of iv) around W's allocation of n */
static Stmt *kernel_of(IterVar *iv, int64_t threads, int64_t n, Stmt *body) {
  Expr *ext = I(n);
  Stmt *alloc = ir_allocate(&A, wb->data, DT_F32, 1, &ext, "warp", NULL, body);
  return ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(threads), alloc);
}
static Stmt *kernel(int64_t n, Stmt *body) { return kernel_of(tx_iv, 32, n, body); }

/* W[tx*4 + j] = G[tx*4 + j] for j < 4: each lane fills its 4 elements */
static Expr *lane4(Expr *j_) { return add(mul(V(tx), I(4)), j_); }
static Stmt *fill4(void) { return loop(j, 4, store(wb, lane4(V(j)), load(glob, lane4(V(j))))); }

static void test_lower_warp_memory_own_lane(void) {
  Stmt *s = kernel(128, seq2(fill4(), loop(k, 4, store(glob, lane4(V(k)), load(wb, lane4(V(k)))))));
  CHECK_TEXT(ps(warp_lowered(s)),
             "attr [IterVar(tx: int32, [0:32], \"ThreadIndex\", \"threadIdx.x\")] "
             "\"thread_extent\" = 32;\n"
             "allocate(W: Pointer(local float32), float32, [4]), storage_scope = local {\n"
             "  for (j: int32, 0, 4) {\n"
             "    W[j] = G[((tx*4) + j)]\n"
             "  }\n"
             "  for (k: int32, 0, 4) {\n"
             "    G[((tx*4) + k)] = W[k]\n"
             "  }\n"
             "}\n");
}

/* lane tx reads lane (tx + 1) % 32's element k: a shuffle of the local element k */
static void test_lower_warp_memory_shuffle(void) {
  Expr *next = add(mul(fmod_(add(V(tx), I(1)), 32), I(4)), V(k));
  Stmt *s = kernel(128, seq2(fill4(), loop(k, 4, store(glob, lane4(V(k)), load(wb, next)))));
  CHECK(strstr(ps(warp_lowered(s)),
               "    G[((tx*4) + k)] = @tir.tvm_warp_shuffle(4294967295u32, W[k], "
               "floormod((tx + 1), 32), 32, 32, dtype=float32)\n"));
  /* a constant element: lane 2's element 1 */
  Stmt *c = kernel(128, seq2(fill4(), store(glob, V(tx), load(wb, I(9)))));
  CHECK(strstr(ps(warp_lowered(c)),
               "G[tx] = @tir.tvm_warp_shuffle(4294967295u32, W[1], 2, 32, 32, dtype=float32)\n"));
}

/* 16 lanes a sub-warp, a block of 16 threads; 64 elements of m = 1: two groups */
static void test_lower_warp_memory_half_warp(void) {
  Var *t = tx16_iv->var;
  Stmt *fill = loop(j, 4, store(wb, add(mul(V(j), I(16)), V(t)), F(1)));
  Expr *other = add(mul(V(k), I(16)), fmod_(add(V(t), I(3)), 16));
  Stmt *s = kernel_of(tx16_iv, 16, 64, seq2(fill, loop(k, 4, store(glob, V(t), load(wb, other)))));
  const char *text = ps(warp_lowered(s));
  CHECK(strstr(text, "allocate(W: Pointer(local float32), float32, [4]), storage_scope = local"));
  CHECK(strstr(text, "    W[j] = 1f32\n"));
  CHECK(strstr(text, "@tir.tvm_warp_shuffle(65535u32, W[k], floormod((t + 3), 16), 16, 32, "
                     "dtype=float32)"));
}

/* a vector store and load of a lane's own 4 elements stay vectors on the local array */
static void test_lower_warp_memory_vector(void) {
  Expr *r = ir_ramp(&A, mul(V(tx), I(4)), I(1), 4);
  Stmt *st = ir_store(&A, wb, ir_broadcast(&A, F(2), 4), r, NULL);
  Stmt *use = ir_store(&A, glob, load(wb, r), r, NULL);
  const char *text = ps(warp_lowered(kernel(128, seq2(st, use))));
  CHECK(strstr(text, "  W[ramp(0, 1, 4)] = broadcast(2f32, 4)\n"));
  CHECK(strstr(text, "  G[ramp((tx*4), 1, 4)] = W[ramp(0, 1, 4)]\n"));
  /* another lane's 4 elements: not a shuffle of vectors */
  Expr *other = ir_ramp(&A, mul(fmod_(add(V(tx), I(1)), 32), I(4)), I(1), 4);
  Stmt *bad = kernel(128, seq2(st, ir_store(&A, glob, load(wb, other), r, NULL)));
  CHECK(strstr(refused(bad), "a vector read of another lane's elements"));
  /* a ramp that may cross from one lane's elements into the next */
  Expr *cross = ir_ramp(&A, add(mul(V(tx), I(4)), I(2)), I(1), 4);
  Stmt *bad2 = kernel(128, seq2(st, ir_store(&A, glob, load(wb, cross), r, NULL)));
  CHECK(strstr(refused(bad2), "may span two lanes' elements"));
}

static void test_lower_warp_memory_refusals(void) {
  Expr *next = fmod_(add(V(tx), I(1)), 32);
  /* a lane stores to its neighbour's element */
  Stmt *neighbour = seq2(store(wb, V(tx), F(1)), store(wb, add(V(tx), I(1)), F(1)));
  CHECK(strstr(refused(kernel(64, neighbour)), "is to lane floormod((tx + 1), 32), not provably "
                                               "the storing lane"));
  CHECK(strstr(refused(kernel(32, store(wb, next, F(1)))), "is not threadIdx.x*m + j"));
  /* a store index without the lane */
  CHECK(
      strstr(refused(kernel(32, loop(j, 32, store(wb, V(j), F(1))))), "is not threadIdx.x*m + j"));
  /* two coefficients */
  Stmt *two = seq2(store(wb, V(tx), F(1)), store(wb, mul(V(tx), I(2)), F(1)));
  CHECK(strstr(refused(kernel(64, two)), "threadIdx.x*1 + j and as threadIdx.x*2 + j"));
  /* a shuffle only some lanes reach */
  Stmt *guarded = ir_if(&A, lt(V(tx), I(16)), store(glob, V(tx), load(wb, next)), NULL);
  CHECK(strstr(refused(kernel(32, seq2(store(wb, V(tx), F(1)), guarded))),
               "under a condition or loop bound that depends on the thread index"));
  Expr *sel = ir_select(&A, lt(V(tx), I(16)), load(wb, next), F(0));
  CHECK(strstr(refused(kernel(32, seq2(store(wb, V(tx), F(1)), store(glob, V(tx), sel)))),
               "under a condition"));
  /* through a let, and a loop bound on the thread index */
  Var *t2 = var("t2");
  Stmt *via_let = ir_let_stmt(&A, t2, add(V(tx), I(1)),
                              ir_if(&A, lt(V(t2), I(9)), store(glob, V(tx), load(wb, next)), NULL));
  CHECK(strstr(refused(kernel(32, seq2(store(wb, V(tx), F(1)), via_let))), "under a condition"));
  Stmt *ragged = ir_for(&A, k, I(0), V(tx), FOR_SERIAL, NULL, store(glob, V(k), load(wb, next)));
  CHECK(strstr(refused(kernel(32, seq2(store(wb, V(tx), F(1)), ragged))), "loop bound"));
  /* a lane's own element under such a condition is a register read, which needs no other lane */
  Stmt *own = ir_if(&A, lt(V(tx), I(16)), store(glob, V(tx), load(wb, V(tx))), NULL);
  CHECK(strstr(ps(warp_lowered(kernel(32, seq2(store(wb, V(tx), F(1)), own)))),
               "  if (tx < 16) {\n    G[tx] = W[0]\n"));
  /* ... and a condition on a loop variable alone is the same in every lane */
  Stmt *uniform = loop(k, 2, ir_if(&A, lt(V(k), I(1)), store(glob, V(tx), load(wb, next)), NULL));
  CHECK(strstr(ps(warp_lowered(kernel(32, seq2(store(wb, V(tx), F(1)), uniform)))),
               "@tir.tvm_warp_shuffle("));
  /* the local element would differ between lanes: W[lane*4 + tx % 4] of another lane */
  Expr *skew = add(mul(fmod_(add(V(tx), I(1)), 32), I(4)), fmod_(V(tx), 4));
  CHECK(strstr(refused(kernel(128, seq2(fill4(), store(glob, V(tx), load(wb, skew))))),
               "which differs between lanes"));
  /* a float32x4 view of the float32 buffer counts its indices in fours */
  Buffer *view = arena_alloc(&A, sizeof *view);
  *view = *wb;
  view->dtype = DT_MAKE(DT_FLOAT, 32, 4);
  Stmt *vstore = ir_store(&A, view, ir_broadcast(&A, F(1), 4), V(tx), NULL);
  CHECK(strstr(refused(kernel(128, seq2(store(wb, V(tx), F(1)), vstore))),
               "accessed as float32x4 elements"));
  /* a width that does not divide the warp */
  IterVar *iv24 = ir_itervar(&A, tx, (Range){I(0), I(24)}, ITER_THREAD, "threadIdx.x");
  CHECK(strstr(refused(kernel_of(iv24, 24, 24, store(wb, V(tx), F(1)))),
               "needs threadIdx.x's extent (24) to divide the warp size 32"));
  /* no kernel around it */
  Expr *ext = I(32);
  Stmt *host = ir_allocate(&A, wb->data, DT_F32, 1, &ext, "warp", NULL, store(wb, I(0), F(1)));
  CHECK(strstr(refused(host), "outside a kernel"));
}

/* no warp memory: the same statement back */
static void test_lower_warp_memory_untouched(void) {
  Stmt *s = ir_attr(&A, ATTR_NODE_ITERVAR, tx_iv, "thread_extent", I(32),
                    store(glob, V(tx), load(glob, fmod_(add(V(tx), I(1)), 32))));
  CHECK(warp_lowered(s) == s);
}

/* ---- what the lowered program computes ----
 * ir_eval runs the threads of a thread_extent one after another, so a program that stores to
 * the warp buffer under one threadIdx.x binding and reads it under a later one computes, run
 * as it is, what the warp buffer means: memory all lanes see. The lowered program's
 * registers are modelled as one array REG of 32 lanes x `nlocal`: lane t's W[i] is
 * REG[t*nlocal + i], and a shuffle from lane l reads REG[(group's first lane + l)*nlocal + i].
 * Both runs must leave the same output. */

static Buffer *gin, *gout;

typedef struct ToRegs {
  IrMutator m;
  Buffer *reg;
  Var *t;
  int64_t nlocal, width;
} ToRegs;

static Expr *reg_index(ToRegs *r, Expr *lane, Expr *i) { return add(mul(lane, I(r->nlocal)), i); }

static Expr *to_regs_expr(IrMutator *m, Expr *e) {
  ToRegs *r = (ToRegs *)m;
  if (e->kind == EXPR_LOAD && e->u.load.buf->data == wb->data)
    return load(r->reg, reg_index(r, V(r->t), ir_mutate_expr(m, e->u.load.index)));
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_warp_shuffle") == 0) {
    Expr *first = mul(ir_binary(&A, EXPR_FLOORDIV, V(r->t), I(r->width)), I(r->width));
    Expr *src = add(first, fmod_(ir_mutate_expr(m, e->u.call.args[2]), r->width));
    return load(r->reg, reg_index(r, src, ir_mutate_expr(m, e->u.call.args[1]->u.load.index)));
  }
  return ir_mutate_children_expr(m, e);
}

static Stmt *to_regs_stmt(IrMutator *m, Stmt *s) {
  ToRegs *r = (ToRegs *)m;
  if (s->kind == STMT_STORE && s->u.store.buf->data == wb->data)
    return store(r->reg, reg_index(r, V(r->t), ir_mutate_expr(m, s->u.store.index)),
                 ir_mutate_expr(m, s->u.store.value));
  if (s->kind == STMT_ALLOCATE && s->u.alloc.buffer_var == wb->data) {
    int64_t n;
    CHECK(ir_as_int(s->u.alloc.extents[0], &n) && strcmp(s->u.alloc.scope, "local") == 0);
    r->nlocal = n;
    Expr *ext = I(32 * n);
    return ir_allocate(&A, r->reg->data, DT_I32, 1, &ext, "local", NULL,
                       ir_mutate_stmt(m, s->u.alloc.body));
  }
  return ir_mutate_children_stmt(m, s);
}

/* out of the program s, run with the input 1000 + i at i */
static bool eval_out(Stmt *s, int32_t *out, int64_t n) {
  int32_t in[512];
  for (int i = 0; i < 512; i++) in[i] = 1000 + i;
  memset(out, 0, (size_t)n * sizeof *out);
  return eval_run(s, 2, (Buffer *[]){gin, gout}, (int32_t *[]){in, out}, (const int64_t[]){512, n});
}

/* In a block (blockIdx of 1) of threadIdx.x of iv (width lanes), W of n elements: fill, then
 * under a second binding of the same axis, use. */
static void check_same(IterVar *iv, int64_t width, int64_t n, Stmt *fill, Stmt *use, int64_t nout) {
  Stmt *phases = seq2(ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(width), fill),
                      ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(width), use));
  Expr *ext = I(n);
  Stmt *alloc = ir_allocate(&A, wb->data, DT_I32, 1, &ext, "warp", NULL, phases);
  IterVar *bx = ir_itervar(&A, var("bx"), (Range){I(0), I(1)}, ITER_THREAD, "blockIdx.x");
  Stmt *s = ir_attr(&A, ATTR_NODE_ITERVAR, bx, "thread_extent", I(1), alloc);
  Stmt *low = warp_lowered(s);
  Buffer *reg = arena_alloc(&A, sizeof *reg);
  *reg = (Buffer){
      .name = "REG", .data = ir_var(&A, "REG", DT_HANDLE64), .dtype = DT_I32, .scope = "local"};
  ToRegs r = {{&A, to_regs_expr, to_regs_stmt}, reg, iv->var, 0, width};
  Stmt *regs = ir_mutate_stmt(&r.m, low);
  int32_t want[512], got[512];
  CHECK(eval_out(s, want, nout));
  CHECK(eval_out(regs, got, nout));
  CHECK(memcmp(want, got, (size_t)nout * sizeof *got) == 0);
}

static void test_lower_warp_memory_same_results(void) {
  Buffer *saved = wb;
  wb = arena_alloc(&A, sizeof *wb);
  *wb =
      (Buffer){.name = "W", .data = ir_var(&A, "W", DT_HANDLE64), .dtype = DT_I32, .scope = "warp"};
  /* 4 elements a lane, read by the lane (tx + 5) % 32 and by the lane itself */
  Stmt *fill = loop(j, 4, store(wb, lane4(V(j)), load(gin, lane4(V(j)))));
  Expr *other = add(mul(fmod_(add(V(tx), I(5)), 32), I(4)), V(k));
  Expr *both = add(load(wb, other), load(wb, lane4(V(k))));
  check_same(tx_iv, 32, 128, fill, loop(k, 4, store(gout, lane4(V(k)), both)), 128);
  /* every lane sums all 128 elements (the softmax's sum done by each lane) */
  Stmt *sum = loop(k, 128, store(gout, V(tx), add(load(gout, V(tx)), load(wb, V(k)))));
  check_same(tx_iv, 32, 128, fill, sum, 32);
  /* 16 lanes, one element each in 4 groups (m = 1): lane t holds t, t + 16, t + 32, t + 48 */
  Var *t = tx16_iv->var;
  Stmt *fill16 =
      loop(j, 4, store(wb, add(mul(V(j), I(16)), V(t)), load(gin, add(mul(V(j), I(16)), V(t)))));
  Expr *rot = add(mul(V(k), I(16)), fmod_(add(V(t), I(3)), 16));
  Stmt *use16 = loop(k, 4, store(gout, add(mul(V(k), I(16)), V(t)), load(wb, rot)));
  check_same(tx16_iv, 16, 64, fill16, use16, 64);
  /* a size that is not whole groups: 40 elements of m = 1 over 16 lanes, 3 groups */
  Stmt *fill40 = loop(j, 3,
                      ir_if(&A, lt(add(mul(V(j), I(16)), V(t)), I(40)),
                            store(wb, add(mul(V(j), I(16)), V(t)), load(gin, V(j))), NULL));
  Stmt *use40 = store(gout, V(t), load(wb, add(I(16), fmod_(add(V(t), I(1)), 16))));
  check_same(tx16_iv, 16, 40, fill40, use40, 16);
  wb = saved;
}

int main(void) {
  arena_init(&A);
  tx = var("tx");
  j = var("j");
  k = var("k");
  tx_iv = ir_itervar(&A, tx, (Range){I(0), I(32)}, ITER_THREAD, "threadIdx.x");
  tx16_iv = ir_itervar(&A, var("t"), (Range){I(0), I(16)}, ITER_THREAD, "threadIdx.x");
  wb = arena_alloc(&A, sizeof *wb);
  *wb =
      (Buffer){.name = "W", .data = ir_var(&A, "W", DT_HANDLE64), .dtype = DT_F32, .scope = "warp"};
  glob = arena_alloc(&A, sizeof *glob);
  *glob = (Buffer){
      .name = "G", .data = ir_var(&A, "G", DT_HANDLE64), .dtype = DT_F32, .scope = "global"};
  test_lower_warp_memory_own_lane();
  test_lower_warp_memory_shuffle();
  test_lower_warp_memory_half_warp();
  test_lower_warp_memory_vector();
  test_lower_warp_memory_refusals();
  test_lower_warp_memory_untouched();
  gin = arena_alloc(&A, sizeof *gin);
  *gin = (Buffer){
      .name = "IN", .data = ir_var(&A, "IN", DT_HANDLE64), .dtype = DT_I32, .scope = "global"};
  gout = arena_alloc(&A, sizeof *gout);
  *gout = (Buffer){
      .name = "OUT", .data = ir_var(&A, "OUT", DT_HANDLE64), .dtype = DT_I32, .scope = "global"};
  test_lower_warp_memory_same_results();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
