/* test_verify_gpu.c: the GPU verifier (backends/cuda/verify_gpu.c) on hand-made functions
 * after tir.SplitHostDevice: a good kernel passes; a load or store in host code, shared memory
 * allocated by the host, too many threads or too much shared or local memory a block, and a
 * tag bound twice with different extents are each refused naming what is wrong. */
#include "backends/cuda/verify_gpu.h"
#include "tests/unit/schedule/sched_test.h"

static Var *bx, *tx, *ty;
static Buffer *pa, *pb, *sh;
static const GpuLimits lim = {1024, "the test", 48 * 1024, "the test", CUDA_MAX_LOCAL_BYTES};

static Buffer *buffer(const char *name, const char *scope) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = name, .data = ir_var(&A, name, DT_HANDLE64), .dtype = DT_F32,
                .scope = scope};
  return b;
}

static Stmt *bind(Var *v, const char *tag, int64_t extent, Stmt *body) {
  IterVar *iv = ir_itervar(&A, v, (Range){I(0), I(extent)}, ITER_THREAD, tag);
  return ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(extent), body);
}

static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }

static Stmt *alloc(Buffer *b, int64_t n, const char *scope, Stmt *body) {
  Expr *ext = I(n);
  return ir_allocate(&A, b->data, DT_F32, 1, &ext, scope, NULL, body);
}

/* The verifier's message for host body `host` and kernel body `kernel` (NULL: none), or ""
 * when it passes. */
static const char *verify(Stmt *host, Stmt *kernel) {
  static Buffer *params[2];
  static DeviceFunc k;
  static Diag d;
  params[0] = pa, params[1] = pb;
  k = (DeviceFunc){.name = "f_kernel0", .body = kernel};
  LoweredFunc f = {.name = "f", .nparams = 2, .params = params, .body = host,
                   .ndevice = kernel ? 1 : 0, .device = &k};
  d = (Diag)DIAG_INIT;
  return cuda_verify(&f, &lim, &d) ? "" : d.msg;
}

static Stmt *launch(void) {
  return ir_evaluate(&A, ir_call(&A, DT_I32, "tir.tvm_call_packed", CALL_EFFECT, 1,
                                 (Expr *[]){ir_str(&A, "f_kernel0")}));
}

static void test_verify_gpu_passes(void) {
  Stmt *k = bind(bx, "blockIdx.x", 64, bind(tx, "threadIdx.x", 1024,
                 store(pb, V(tx), load(pa, V(tx)))));
  CHECK_TEXT(verify(launch(), k), "");
  /* the same tag twice with one extent is fine */
  Stmt *twice = bind(tx, "threadIdx.x", 32, ir_seq(&A, 2, (Stmt *[]){
      store(pb, V(tx), F(0)), bind(ty, "threadIdx.x", 32, store(pb, V(ty), F(1)))}));
  CHECK_TEXT(verify(launch(), twice), "");
}

static void test_verify_gpu_host(void) {
  CHECK_TEXT(verify(store(pb, I(0), F(1)), NULL),
             "cannot build for cuda: the store to B is outside every thread binding (did you "
             "forget to bind?)");
  Stmt *k = bind(tx, "threadIdx.x", 32, store(pb, V(tx), F(0)));
  Stmt *if_load = ir_if(&A, ir_binary(&A, EXPR_LT, load(pa, I(0)), F(1)), launch(), NULL);
  CHECK(strstr(verify(if_load, k), "the load of A is in host code"));
  CHECK(strstr(verify(alloc(sh, 32, "shared", launch()), k),
               "shared memory 'S' is allocated outside every kernel"));
  CHECK(strstr(verify(ir_evaluate(&A, I(0)), NULL), "f binds no loop to a GPU thread"));
}

static void test_verify_gpu_limits(void) {
  Stmt *big = bind(tx, "threadIdx.x", 64, bind(ty, "threadIdx.y", 32, store(pb, V(tx), F(0))));
  CHECK_TEXT(verify(launch(), big),
             "cannot build for cuda: kernel f_kernel0 (computing B) has 2048 threads a block "
             "(threadIdx.x 'tx' 64 x threadIdx.y 'ty' 32), more than the 1024 of the test");
  Stmt *shared = bind(tx, "threadIdx.x", 32, alloc(sh, 16384, "shared", store(pb, V(tx), F(0))));
  CHECK_TEXT(verify(launch(), shared),
             "cannot build for cuda: kernel f_kernel0 (computing B) uses 65536 bytes of shared "
             "memory a block (S 65536), more than the 49152 of the test");
  Stmt *local = bind(tx, "threadIdx.x", 32, alloc(sh, 200000, "local", store(pb, V(tx), F(0))));
  CHECK(strstr(verify(launch(), local), "uses 800000 bytes of local memory a thread, more than "
                                        "CUDA's 524288"));
  /* TensorCore fragments are registers shared by a warp: 32x the bytes of local memory */
  Stmt *frags = bind(tx, "threadIdx.x", 32, alloc(sh, 2048, "wmma.accumulator",
                                                  store(pb, V(tx), F(0))));
  CHECK_TEXT(verify(launch(), frags), "");
  Stmt *many = bind(tx, "threadIdx.x", 32, alloc(sh, 6400000, "wmma.accumulator",
                                                 store(pb, V(tx), F(0))));
  CHECK(strstr(verify(launch(), many), "uses 800000 bytes of local memory a thread"));
  Stmt *twice = bind(tx, "threadIdx.x", 32, bind(ty, "threadIdx.x", 16, store(pb, V(ty), F(0))));
  CHECK_TEXT(verify(launch(), twice),
             "cannot build for cuda: threadIdx.x is bound twice in one kernel (f_kernel0) with "
             "different extents, 32 ('tx') and 16 ('ty')");
}

int main(void) {
  arena_init(&A);
  bx = var("bx");
  tx = var("tx");
  ty = var("ty");
  pa = buffer("A", "global");
  pb = buffer("B", "global");
  sh = buffer("S", "shared");
  test_verify_gpu_passes();
  test_verify_gpu_host();
  test_verify_gpu_limits();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
