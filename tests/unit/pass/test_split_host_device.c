/* test_split_host_device.c: tir.SplitHostDevice (ir/pass/split_host_device.c): a kernel in a
 * host loop becomes a launch once an iteration, its parameters the buffers it uses (the
 * function's first, in their order, then a host allocation) and its scalars (the shape
 * variable before the loop variable); kernels in sequence are numbered; a body without
 * kernels is returned as it is; host code reading a kernel's thread variable is refused. */
#include "tests/unit/schedule/sched_test.h"

static Var *n, *i, *bx, *tx;
static IterVar *bx_iv, *tx_iv;
static Buffer *pa, *pb, *tmp;

static Buffer *buffer(const char *name, Expr *extent) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  Expr **shape = arena_alloc(&A, sizeof *shape);
  shape[0] = extent;
  *b = (Buffer){.name = name, .data = ir_var(&A, name, DT_HANDLE64), .dtype = DT_F32,
                .ndim = 1, .shape = shape, .scope = "global"};
  return b;
}

static PassCtx ctx_for(Diag *d) {
  static Buffer *params[2];
  params[0] = pa, params[1] = pb;
  return (PassCtx){.arena = &A, .gpu = true, .diag = d, .nbinds = 2, .bind_buffers = params,
                   .func_name = "f"};
}

/* blockIdx.x of 8, threadIdx.x of 32 around body */
static Stmt *kernel(Stmt *body) {
  Stmt *t = ir_attr(&A, ATTR_NODE_ITERVAR, tx_iv, "thread_extent", I(32), body);
  return ir_attr(&A, ATTR_NODE_ITERVAR, bx_iv, "thread_extent", I(8), t);
}

static Expr *flat(void) { return add(ir_binary(&A, EXPR_MUL, V(bx), I(32)), V(tx)); }
static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }

static void test_split_host_loop(void) {
  Diag d = DIAG_INIT;
  PassCtx ctx = ctx_for(&d);
  /* for i: B[i * 256 + flat] = A[i * 256 + flat] + n */
  Expr *idx = add(ir_binary(&A, EXPR_MUL, V(i), I(256)), flat());
  Stmt *s = ir_for(&A, i, I(0), I(4), FOR_SERIAL, NULL,
                   kernel(store(pb, idx, add(load(pa, idx), ir_cast(&A, DT_F32, V(n))))));
  Stmt *host = pass_split_host_device(s, &ctx);
  CHECK(!diag_failed(&d));
  CHECK_TEXT(ps(host), "for (i: int32, 0, 4) {\n"
                       "  @tir.tvm_call_packed(\"f_kernel0\", A, B, n, i, 8, 32, dtype=int32)\n"
                       "}\n");
  CHECK(ctx.ndevice == 1);
  const DeviceFunc *k = &ctx.device[0];
  CHECK_TEXT(k->name, "f_kernel0");
  CHECK(k->nbufs == 2 && k->bufs[0] == pa->data && k->bufs[1] == pb->data);
  CHECK(dt_eq(k->buf_dtypes[0], DT_F32));
  CHECK(k->nscalars == 2 && k->scalars[0] == n && k->scalars[1] == i);
  CHECK(ir_is_const_int(k->grid[0], 8) && ir_is_const_int(k->block[0], 32));
  CHECK(!k->grid[1] && !k->block[1] && !k->block[2]);
  CHECK(k->body == s->u.for_.body);
}

static void test_split_sequence(void) {
  Diag d = DIAG_INIT;
  PassCtx ctx = ctx_for(&d);
  /* allocate T { kernel: T[flat] = A[flat]; kernel: B[flat] = T[flat] } */
  Stmt *k0 = kernel(store(tmp, flat(), load(pa, flat())));
  Stmt *k1 = kernel(store(pb, flat(), load(tmp, flat())));
  Expr *ext = I(256);
  Stmt *s = ir_allocate(&A, tmp->data, DT_F32, 1, &ext, "global", NULL,
                        ir_seq(&A, 2, (Stmt *[]){k0, k1}));
  Stmt *host = pass_split_host_device(s, &ctx);
  CHECK(!diag_failed(&d) && ctx.ndevice == 2);
  CHECK(strstr(ps(host), "  @tir.tvm_call_packed(\"f_kernel0\", A, T, 8, 32, dtype=int32)\n"
                         "  @tir.tvm_call_packed(\"f_kernel1\", B, T, 8, 32, dtype=int32)\n"));
  CHECK(ctx.device[1].nbufs == 2 && ctx.device[1].bufs[0] == pb->data &&
        ctx.device[1].bufs[1] == tmp->data && ctx.device[1].nscalars == 0);
  CHECK_TEXT(ctx.device[1].name, "f_kernel1");
}

static void test_split_untouched(void) {
  Diag d = DIAG_INIT;
  PassCtx ctx = ctx_for(&d);
  Stmt *s = ir_for(&A, i, I(0), I(4), FOR_SERIAL, NULL, store(pb, V(i), load(pa, V(i))));
  CHECK(pass_split_host_device(s, &ctx) == s && ctx.ndevice == 0 && !diag_failed(&d));
}

static void test_split_host_reads_thread(void) {
  Diag d = DIAG_INIT;
  PassCtx ctx = ctx_for(&d);
  /* T[bx] = A[bx] at the root, then the kernel that binds bx */
  Stmt *s = ir_seq(&A, 2, (Stmt *[]){store(tmp, V(bx), load(pa, V(bx))),
                                      kernel(store(pb, flat(), load(tmp, V(bx))))});
  CHECK(pass_split_host_device(s, &ctx) == s);
  CHECK(diag_failed(&d) && strstr(d.msg, "the store to T is in host code, outside the kernel "
                                         "that binds blockIdx.x"));
}

int main(void) {
  arena_init(&A);
  n = var("n");
  i = var("i");
  bx = var("blockIdx.x");
  tx = var("threadIdx.x");
  bx_iv = ir_itervar(&A, bx, (Range){I(0), I(8)}, ITER_THREAD, "blockIdx.x");
  tx_iv = ir_itervar(&A, tx, (Range){I(0), I(32)}, ITER_THREAD, "threadIdx.x");
  pa = buffer("A", V(n));
  pb = buffer("B", V(n));
  tmp = buffer("T", I(256));
  test_split_host_loop();
  test_split_sequence();
  test_split_untouched();
  test_split_host_reads_thread();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
