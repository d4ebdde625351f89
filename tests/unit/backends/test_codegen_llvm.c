/* test_codegen_llvm.c: backends/llvm through the JIT. Each test lowers a schedule (or builds a
 * lowered function by hand, for statements and operators no schedule makes), generates and
 * JIT-compiles it, calls NAME_packed on 64-byte aligned buffers of random data (fixed seed) and
 * compares with a plain C loop computing the same thing. */
#include <math.h>
#include <sched.h>
#include <stdlib.h>

#include "../schedule/sched_test.h"
#include "backends/llvm/codegen_llvm.h"
#include "jit/jit.h"
#include "jit/plugin_api.h"
#include "jit/runtime.h"

/* ---- building and calling ---- */

typedef struct Built {
  CgLlvmCode *code;
  JitLib *lib;
  int32_t (*packed)(void **);
  Diag err;
} Built;

static Built build_func(const LoweredFunc *f, const char *target) {
  Built b = {0};
  b.code = cg_llvm_build(f, target, &b.err);
  if (!b.code) return b;
  void *obj;
  size_t len;
  if (!cg_llvm_object(b.code, &obj, &len, &b.err)) return b;
  b.lib = jit_load_object(obj, len, &b.err);
  free(obj);
  if (!b.lib) return b;
  char name[256];
  snprintf(name, sizeof name, "%s_packed", f->name);
  b.packed = (int32_t(*)(void **))jit_lookup(b.lib, name, &b.err);
  return b;
}

static void unbuild(Built *b) {
  jit_unload(b->lib);
  cg_llvm_free(b->code);
}

static LoweredFunc *lower_args(Schedule *s, const char *name, int nargs, Tensor **args) {
  LowerOptions opt = {.name = name};
  Diag d = DIAG_INIT;
  LoweredFunc *f = lower_run(&A, s, nargs, args, &opt, &d);
  if (!f) printf("lowering failed: %s\n", d.msg);
  return f;
}

/* Calls with buffers then integers (the shape variables), as the ABI orders them. */
static int32_t call(Built *b, int nbuf, void **bufs, int nint, int32_t *ints) {
  void *args[16];
  for (int i = 0; i < nbuf; i++) args[i] = &bufs[i];
  for (int i = 0; i < nint; i++) args[nbuf + i] = &ints[i];
  return b->packed(args);
}

static void *buffer(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 127) / 64 * 64);
  memset(p, 0, (bytes + 127) / 64 * 64);
  return p;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}
static float frand(void) { return (float)(next_rand() % 20001) / 10000.0f - 1.0f; } /* [-1, 1] */

static float *random_floats(int64_t n) {
  float *p = buffer((size_t)n * sizeof *p);
  for (int64_t i = 0; i < n; i++) p[i] = frand();
  return p;
}

static bool close_to(double got, double want, double rtol) {
  if (isnan(want)) return isnan(got);
  return fabs(got - want) <= rtol * (1 + fabs(want));
}

static int count_mismatch(const float *got, const float *want, int64_t n, double rtol) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (!close_to(got[i], want[i], rtol)) {
      if (bad++ < 3) printf("  [%lld] got %.9g want %.9g\n", (long long)i, got[i], want[i]);
    }
  return bad;
}

#define CHECK_BUILT(b)                                                                             \
  do {                                                                                             \
    CHECK((b).packed != NULL);                                                                     \
    if (!(b).packed) printf("  build error: %s\n", (b).err.msg);                                   \
  } while (0)

/* ---- schedules ---- */

/* C = A + B over a symbolic n: one shape variable, called with several sizes. */
static void test_codegen_llvm_add_symbolic(void) {
  Var *n = var("n");
  Tensor *a = placeholder("A", 1, V(n)), *b = placeholder("B", 1, V(n));
  ComputeDef d = axes(1, (Expr *[]){V(n)}, NULL);
  Tensor *c = compute("C", d, add(at(a, iv_ref(d.axis[0])), at(b, iv_ref(d.axis[0]))));
  Schedule *s = schedule(1, c);
  LoweredFunc *f = lower_args(s, "vadd", 3, (Tensor *[]){a, b, c});
  Var *shape[4];
  CHECK(ir_func_shape_vars(f, shape, 4) == 1 && shape[0] == n);
  Built bt = build_func(f, NULL);
  CHECK_BUILT(bt);
  if (!bt.packed) return unbuild(&bt);
  static const int32_t sizes[] = {0, 1, 7, 1000};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int32_t len = sizes[k];
    float *x = random_floats(len), *y = random_floats(len), *z = random_floats(len);
    float *want = buffer((size_t)len * 4 + 4);
    for (int i = 0; i < len; i++) want[i] = x[i] + y[i];
    CHECK(call(&bt, 3, (void *[]){x, y, z}, 1, &len) == 0);
    CHECK(count_mismatch(z, want, len, 0) == 0);
    free(x), free(y), free(z), free(want);
  }
  unbuild(&bt);
}

/* C[i, j] = A[i, j]*2 + B[i, j], j split by 16 and vectorised, i parallel. */
static void test_codegen_llvm_vectorize_parallel(void) {
  Var *n = var("n");
  Tensor *a = placeholder("A", 2, V(n), I(64)), *b = placeholder("B", 2, V(n), I(64));
  ComputeDef d = axes(2, (Expr *[]){V(n), I(64)}, NULL);
  Expr *i = iv_ref(d.axis[0]), *j = iv_ref(d.axis[1]);
  Tensor *c = compute("C", d, add(mul(at(a, i, j), F(2)), at(b, i, j)));
  Schedule *s = schedule(1, c);
  IterVar *jo, *ji;
  CHECK(sched_split(S(s, c), d.axis[1], I(16), NULL, &jo, &ji));
  CHECK(sched_vectorize(S(s, c), ji));
  CHECK(sched_parallel(S(s, c), d.axis[0]));
  LoweredFunc *f = lower_args(s, "vec_par", 3, (Tensor *[]){a, b, c});
  Built bt = build_func(f, NULL);
  CHECK_BUILT(bt);
  if (!bt.packed) return unbuild(&bt);
  const char *ir = cg_llvm_ir_text(bt.code);
  CHECK(strstr(ir, "rt_parallel_for") != NULL);
  CHECK(strstr(ir, "x float>") != NULL);
  int32_t rows = 37;
  float *x = random_floats(rows * 64), *y = random_floats(rows * 64), *z = random_floats(rows * 64);
  float *want = buffer(rows * 64 * 4);
  for (int k = 0; k < rows * 64; k++) want[k] = x[k] * 2 + y[k];
  CHECK(call(&bt, 3, (void *[]){x, y, z}, 1, &rows) == 0);
  CHECK(count_mismatch(z, want, rows * 64, 1e-6) == 0);
  free(x), free(y), free(z), free(want);
  unbuild(&bt);
}

/* C = A x B (64x48 times 48x40), tiled, k split and unrolled, inner axis vectorised, outer
 * parallel: the opt_gemm shape of schedule. */
static void test_codegen_llvm_matmul(void) {
  enum { M = 64, K = 48, N = 40 };
  Tensor *a = placeholder("A", 2, I(M), I(K)), *b = placeholder("B", 2, I(K), I(N));
  IterVar *k = reduce_axis("k", I(K));
  ComputeDef d = axes(2, (Expr *[]){I(M), I(N)}, NULL);
  Expr *i = iv_ref(d.axis[0]), *j = iv_ref(d.axis[1]);
  Tensor *c = compute("C", d, sum(mul(at(a, i, iv_ref(k)), at(b, iv_ref(k), j)), 1, &k));
  Schedule *s = schedule(1, c);
  IterVar *t[4], *ko, *ki;
  CHECK(sched_tile(S(s, c), d.axis[0], d.axis[1], I(16), I(8), t));
  CHECK(sched_split(S(s, c), k, I(4), NULL, &ko, &ki));
  CHECK(sched_reorder(S(s, c), 6, (IterVar *[]){t[0], t[1], ko, ki, t[2], t[3]}));
  CHECK(sched_vectorize(S(s, c), t[3]));
  CHECK(sched_unroll(S(s, c), ki));
  CHECK(sched_parallel(S(s, c), t[0]));
  LoweredFunc *f = lower_args(s, "mm", 3, (Tensor *[]){a, b, c});
  Built bt = build_func(f, NULL);
  CHECK_BUILT(bt);
  if (!bt.packed) return unbuild(&bt);
  float *x = random_floats(M * K), *y = random_floats(K * N), *z = random_floats(M * N);
  float *want = buffer(M * N * 4);
  for (int r = 0; r < M; r++)
    for (int q = 0; q < N; q++) {
      double acc = 0;
      for (int p = 0; p < K; p++) acc += (double)x[r * K + p] * y[p * N + q];
      want[r * N + q] = (float)acc;
    }
  CHECK(call(&bt, 3, (void *[]){x, y, z}, 0, NULL) == 0);
  CHECK(count_mismatch(z, want, M * N, 1e-5) == 0);
  free(x), free(y), free(z), free(want);
  unbuild(&bt);
}

/* The GEMM of bench/build/build_time.tes, small: B packed in a parallel loop of its own, C
 * tiled, k split and unrolled, vectorised, parallel. Its two chunk functions are generated on
 * two threads into a bundle of two objects (codegen_split.c) that the JIT loads as one module;
 * with TES_LLVM_SPLIT=0, or bound to one CPU, one object. cg_llvm_object stays one ELF object either way, and a
 * bundle cut short is refused. */
static void test_codegen_llvm_split(void) {
  enum { M = 64, K = 48, N = 64, BN = 16 };
  Tensor *a = placeholder("A", 2, I(M), I(K)), *b = placeholder("B", 2, I(K), I(N));
  ComputeDef dp = axes(3, (Expr *[]){I(N / BN), I(K), I(BN)}, NULL);
  Tensor *pb = compute("packedB", dp,
                       at(b, iv_ref(dp.axis[1]),
                          add(mul(iv_ref(dp.axis[0]), I(BN)), iv_ref(dp.axis[2]))));
  IterVar *k = reduce_axis("k", I(K));
  ComputeDef d = axes(2, (Expr *[]){I(M), I(N)}, NULL);
  Expr *i = iv_ref(d.axis[0]), *j = iv_ref(d.axis[1]);
  Tensor *c = compute("C", d,
                      sum(mul(at(a, i, iv_ref(k)),
                              at(pb, ir_binary(&A, EXPR_FLOORDIV, j, I(BN)), iv_ref(k),
                                 ir_binary(&A, EXPR_FLOORMOD, j, I(BN)))),
                          1, &k));
  Schedule *s = schedule(1, c);
  IterVar *t[4], *ko, *ki;
  CHECK(sched_tile(S(s, c), d.axis[0], d.axis[1], I(8), I(BN), t));
  CHECK(sched_split(S(s, c), k, I(4), NULL, &ko, &ki));
  CHECK(sched_reorder(S(s, c), 6, (IterVar *[]){t[0], t[1], ko, ki, t[2], t[3]}));
  CHECK(sched_vectorize(S(s, c), t[3]));
  CHECK(sched_unroll(S(s, c), ki));
  CHECK(sched_unroll(S(s, c), t[2]));
  CHECK(sched_parallel(S(s, c), t[0]));
  CHECK(sched_vectorize(S(s, pb), dp.axis[2]));
  CHECK(sched_parallel(S(s, pb), dp.axis[0]));
  LoweredFunc *f = lower_args(s, "mm_split", 3, (Tensor *[]){a, b, c});
  if (!f) return;
  float *x = random_floats(M * K), *y = random_floats(K * N), *want = buffer(M * N * 4);
  for (int r = 0; r < M; r++)
    for (int q = 0; q < N; q++) {
      double acc = 0;
      for (int p = 0; p < K; p++) acc += (double)x[r * K + p] * y[p * N + q];
      want[r * N + q] = (float)acc;
    }
  Diag err = DIAG_INIT;
  cpu_set_t all, one;
  bool two_cpus = sched_getaffinity(0, sizeof all, &all) == 0 && CPU_COUNT(&all) >= 2;
  if (!two_cpus) printf("test_codegen_llvm_split: one CPU, the split is not tested\n");
  /* split: 1 split, 0 TES_LLVM_SPLIT=0, -1 bound to one CPU */
  for (int split = two_cpus ? 1 : 0; split >= -1; split--) {
    setenv("TES_LLVM_SPLIT", split ? "1" : "0", 1);
    if (split == -1) {
      CPU_ZERO(&one);
      for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &all)) {
          CPU_SET(cpu, &one);
          break;
        }
      if (two_cpus) CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    }
    diag_clear(&err);
    CgLlvmCode *code = cg_llvm_build(f, NULL, &err);
    CHECK(code != NULL);
    if (!code) break;
    void *obj = NULL, *elf = NULL;
    size_t len = 0, elflen = 0;
    CHECK(cg_llvm_jit_object(code, &obj, &len, &err) && len > 16);
    bool bundled = len > 16 && memcmp(obj, TES_OBJECT_BUNDLE_MAGIC, 8) == 0;
    CHECK(bundled == (split == 1));
    if (bundled) CHECK(((const unsigned char *)obj)[8] == 2); /* two objects */
    CHECK(cg_llvm_object(code, &elf, &elflen, &err) && memcmp(elf, "\x7f" "ELF", 4) == 0);
    JitLib *lib = obj ? jit_load_object(obj, len, &err) : NULL;
    CHECK(lib != NULL);
    int32_t (*packed)(void **) =
        lib ? (int32_t(*)(void **))jit_lookup(lib, "mm_split_packed", &err) : NULL;
    CHECK(packed != NULL);
    if (packed) {
      float *z = random_floats(M * N);
      Built bt = {.packed = packed};
      CHECK(call(&bt, 3, (void *[]){x, y, z}, 0, NULL) == 0);
      CHECK(count_mismatch(z, want, M * N, 1e-5) == 0);
      free(z);
    }
    jit_unload(lib);
    if (bundled) { /* the second object's bytes cut off */
      Diag cut = DIAG_INIT;
      CHECK(jit_load_object(obj, len - 8, &cut) == NULL);
      CHECK(strstr(cut.msg, "a bundle of objects cut short") != NULL);
    }
    free(obj), free(elf);
    cg_llvm_free(code);
  }
  if (two_cpus) CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
  unsetenv("TES_LLVM_SPLIT");
  free(x), free(y), free(want);
}

/* D[i] = sum_k (A[i, k] * 3), the product an intermediate the size of A (on the heap: its size
 * is symbolic), then a small constant one (on the stack) through compute_at. */
static void test_codegen_llvm_allocate(void) {
  Var *n = var("n");
  Tensor *a = placeholder("A", 2, V(n), I(16));
  ComputeDef dc = axes(2, (Expr *[]){V(n), I(16)}, NULL);
  Tensor *c = compute("C", dc, mul(at(a, iv_ref(dc.axis[0]), iv_ref(dc.axis[1])), F(3)));
  IterVar *k = reduce_axis("k", I(16));
  ComputeDef dd = axes(1, (Expr *[]){V(n)}, NULL);
  Tensor *dt = compute("D", dd, sum(at(c, iv_ref(dd.axis[0]), iv_ref(k)), 1, &k));
  for (int at_row = 0; at_row < 2; at_row++) {
    Schedule *s = schedule(1, dt);
    if (at_row) CHECK(sched_compute_at(S(s, c), S(s, dt), dd.axis[0]));
    LoweredFunc *f = lower_args(s, at_row ? "alloc_stack" : "alloc_heap", 2, (Tensor *[]){a, dt});
    Built bt = build_func(f, NULL);
    CHECK_BUILT(bt);
    if (!bt.packed) {
      unbuild(&bt);
      continue;
    }
    CHECK((strstr(cg_llvm_ir_text(bt.code), "aligned_alloc") != NULL) == !at_row);
    int32_t rows = 123;
    float *x = random_floats(rows * 16), *y = random_floats(rows), *want = buffer(rows * 4);
    for (int r = 0; r < rows; r++) {
      float acc = 0;
      for (int q = 0; q < 16; q++) acc += x[r * 16 + q] * 3;
      want[r] = acc;
    }
    CHECK(call(&bt, 2, (void *[]){x, y}, 1, &rows) == 0);
    CHECK(count_mismatch(y, want, rows, 1e-5) == 0);
    free(x), free(y), free(want);
    unbuild(&bt);
  }
}

/* ---- Ctrl-C ---- */

/* T = A * 2 (n x n, a heap buffer), C = T x B; i of C parallel when asked. */
static Built build_scaled_matmul(Var *n, bool parallel) {
  Tensor *a = placeholder("A", 2, V(n), V(n)), *b = placeholder("B", 2, V(n), V(n));
  ComputeDef dt = axes(2, (Expr *[]){V(n), V(n)}, NULL);
  Tensor *t = compute("T", dt, mul(at(a, iv_ref(dt.axis[0]), iv_ref(dt.axis[1])), F(2)));
  IterVar *k = reduce_axis("k", V(n));
  ComputeDef d = axes(2, (Expr *[]){V(n), V(n)}, NULL);
  Expr *i = iv_ref(d.axis[0]), *j = iv_ref(d.axis[1]);
  Tensor *c = compute("C", d, sum(mul(at(t, i, iv_ref(k)), at(b, iv_ref(k), j)), 1, &k));
  Schedule *s = schedule(1, c);
  if (parallel) CHECK(sched_parallel(S(s, c), d.axis[0]));
  LoweredFunc *f = lower_args(s, parallel ? "mm_par" : "mm", 3, (Tensor *[]){a, b, c});
  return build_func(f, NULL);
}

static int occurrences(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* With the interrupt flag set, a kernel returns CG_LLVM_ERR_INTERRUPTED at the first poll,
 * having freed its heap buffer (LeakSanitizer) and written nothing; clear, it computes as
 * before. The polls sit in the outermost loops (one per loop nest, and one in the parallel
 * body), the inner loops are still vectorized. */
static void test_codegen_llvm_interrupt(void) {
  atomic_int *flag = rt_interrupt_flag();
  for (int parallel = 0; parallel < 2; parallel++) {
    Built bt = build_scaled_matmul(var("n"), parallel);
    CHECK_BUILT(bt);
    if (!bt.packed) {
      unbuild(&bt);
      continue;
    }
    const char *ir = cg_llvm_ir_text(bt.code);
    CHECK(occurrences(ir, "load atomic i32, ptr @rt_interrupt_requested monotonic") >= 2);
    CHECK(strstr(ir, "x float>") != NULL);
    int32_t n = 33;
    float *x = random_floats(n * n), *y = random_floats(n * n), *z = random_floats(n * n);
    float *want = buffer((size_t)n * n * 4);
    memcpy(want, z, (size_t)n * n * 4);
    atomic_store(flag, 1);
    int32_t rc = call(&bt, 3, (void *[]){x, y, z}, 1, &n);
    char buf[64];
    CHECK(rc == CG_LLVM_ERR_INTERRUPTED &&
          strcmp(cg_llvm_error_message(bt.code, rc, buf), "interrupted") == 0);
    CHECK(count_mismatch(z, want, n * n, 0) == 0);
    atomic_store(flag, 0);
    for (int r = 0; r < n; r++)
      for (int q = 0; q < n; q++) {
        double acc = 0;
        for (int p = 0; p < n; p++) acc += 2.0 * x[r * n + p] * y[p * n + q];
        want[r * n + q] = (float)acc;
      }
    CHECK(call(&bt, 3, (void *[]){x, y, z}, 1, &n) == 0);
    CHECK(count_mismatch(z, want, n * n, 1e-5) == 0);
    free(x), free(y), free(z), free(want);
    unbuild(&bt);
  }
}

/* Where a kernel stops. C[i, j, k] = 1 over rows x 32 x 32 (int32), with the interrupt flag
 * made C[si, sj, 0]: the kernel sets the flag itself there and must stop at its next poll. With
 * 64 rows only i polls, so row si is finished and row si + 1 untouched; with 4 (tiny) j polls
 * too, so C stops after (si, sj). A parallel i polls in its chunk's loop (rows si and si + 1
 * are one chunk: at least 4 rows a chunk with 4 threads). */
static void test_codegen_llvm_interrupt_where(void) {
  static const struct {
    int rows, si, sj;
    bool parallel;
  } cases[] = {{64, 2, 0, false}, {4, 1, 5, false}, {64, 2, 0, true}};
  enum { M = 32, N = 32 };
  for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
    int rows = cases[t].rows, si = cases[t].si, sj = cases[t].sj;
    ComputeDef d = axes(3, (Expr *[]){I(rows), I(M), I(N)}, NULL);
    Tensor *c = compute("C", d, I(1));
    Schedule *s = schedule(1, c);
    if (cases[t].parallel) CHECK(sched_parallel(S(s, c), d.axis[0]));
    int32_t *out = buffer((size_t)rows * M * N * 4);
    rt_set_interrupt_flag((atomic_int *)&out[(si * M + sj) * N]); /* before linking */
    Built bt = build_func(lower_args(s, "ones", 1, (Tensor *[]){c}), NULL);
    CHECK_BUILT(bt);
    if (bt.packed) {
      CHECK(call(&bt, 1, (void *[]){out}, 0, NULL) == CG_LLVM_ERR_INTERRUPTED);
      int last = rows == 4 ? (si * M + sj) * N + N - 1 : ((si + 1) * M) * N - 1;
      CHECK(out[0] == 1 && out[last] == 1 && out[last + 1] == 0);
    }
    rt_set_interrupt_flag(NULL);
    unbuild(&bt);
    free(out);
  }
}

/* A loop with no loop inside, or only a tiny one that LLVM unrolls, does not poll: the poll's
 * early exit would keep LLVM from vectorizing it. */
static void test_codegen_llvm_interrupt_not_innermost(void) {
  Var *n = var("n");
  for (int width = 0; width <= 4; width += 4) {
    Tensor *a = width ? placeholder("A", 2, V(n), I(width)) : placeholder("A", 1, V(n));
    ComputeDef d =
        width ? axes(2, (Expr *[]){V(n), I(width)}, NULL) : axes(1, (Expr *[]){V(n)}, NULL);
    Expr *v = width ? at(a, iv_ref(d.axis[0]), iv_ref(d.axis[1])) : at(a, iv_ref(d.axis[0]));
    Tensor *c = compute("C", d, add(mul(v, F(2)), F(1)));
    LoweredFunc *f = lower_args(schedule(1, c), "flat", 2, (Tensor *[]){a, c});
    Built bt = build_func(f, NULL);
    CHECK_BUILT(bt);
    if (bt.packed) {
      const char *ir = cg_llvm_ir_text(bt.code);
      CHECK(!strstr(ir, "rt_interrupt_requested") && strstr(ir, "x float>"));
    }
    unbuild(&bt);
  }
}

/* A GPU binding has no meaning on the CPU: an error naming the axis, not a crash. */
static void test_codegen_llvm_thread_binding(void) {
  Tensor *a = placeholder("A", 1, I(64));
  ComputeDef d = axes(1, (Expr *[]){I(64)}, NULL);
  Tensor *c = compute("C", d, add(at(a, iv_ref(d.axis[0])), F(1)));
  Schedule *s = schedule(1, c);
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  CHECK(sched_bind(S(s, c), d.axis[0], tx));
  LoweredFunc *f = lower_args(s, "gpu", 2, (Tensor *[]){a, c});
  Diag err = DIAG_INIT;
  CgLlvmCode *code = f ? cg_llvm_build(f, NULL, &err) : NULL;
  CHECK(code == NULL && strstr(err.msg, "not supported yet") && strstr(err.msg, "threadIdx.x"));
  if (!strstr(err.msg, "threadIdx.x")) printf("  got: %s\n", err.msg);
  diag_clear(&err);
  cg_llvm_free(code);
}

static void test_codegen_llvm_targets(void) {
  Diag err = DIAG_INIT;
  CHECK(cg_llvm_target_check("llvm", &err));
  CHECK(cg_llvm_target_check("llvm -mcpu=x86-64 -mattr=+avx2 -keys=cpu", &err));
  CHECK(!cg_llvm_target_check("llvm -frobnicate", &err) && strstr(err.msg, "-frobnicate"));
  diag_clear(&err);
  CHECK(!cg_llvm_target_check("cuda", &err) && strstr(err.msg, "not an llvm target"));
  diag_clear(&err);
  CHECK(!cg_llvm_target_check("llvm -opt-level=7", &err));
  diag_clear(&err);
}

/* get_source("ll"/"asm") of a build for a named CPU. */
static void test_codegen_llvm_sources(void) {
  Tensor *a = placeholder("A", 1, I(256));
  ComputeDef d = axes(1, (Expr *[]){I(256)}, NULL);
  Tensor *c = compute("C", d, mul(at(a, iv_ref(d.axis[0])), F(0.5)));
  Schedule *s = schedule(1, c);
  LoweredFunc *f = lower_args(s, "halve", 2, (Tensor *[]){a, c});
  Diag err = DIAG_INIT;
  CgLlvmCode *code = cg_llvm_build(f, "llvm -mcpu=x86-64-v3", &err);
  CHECK(code != NULL);
  if (!code) return (void)printf("  %s\n", err.msg);
  const char *ir = cg_llvm_ir_text(code);
  CHECK(strstr(ir, "define") && strstr(ir, "@halve(") && strstr(ir, "@halve_packed("));
  CHECK(strstr(ir, "noalias") && strstr(ir, "align 64"));
  CHECK(strstr(ir, "\"target-cpu\"=\"x86-64-v3\""));
  char *as = cg_llvm_asm_text(code, &err);
  CHECK(as && strstr(as, "halve:") && strstr(as, "ymm")); /* AVX2 vectors */
  free(as);
  CHECK(strcmp(ir, cg_llvm_ir_text(code)) == 0); /* emission did not change the module */
  cg_llvm_free(code);
}

/* ---- hand-built functions ---- */

static Buffer *param(const char *name, DType t, Expr *extent) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  Expr **shape = arena_alloc(&A, sizeof *shape);
  shape[0] = extent;
  *b = (Buffer){.name = name,
                .data = ir_var(&A, name, DT_HANDLE64),
                .dtype = t,
                .ndim = 1,
                .shape = shape,
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  return b;
}

static LoweredFunc *func(const char *name, int n, Buffer **params, Stmt *body) {
  LoweredFunc *f = arena_alloc(&A, sizeof *f);
  f->name = name;
  f->nparams = n;
  f->params = arena_alloc(&A, (size_t)n * sizeof *f->params);
  memcpy(f->params, params, (size_t)n * sizeof *params);
  f->body = body;
  return f;
}

static Expr *ld(Buffer *b, Expr *i) { return ir_load(&A, b, i, NULL); }

/* for (i, 0, n) out[i] = value(i) */
static Stmt *loop(Var *i, Expr *n, Buffer *out, Expr *value) {
  return ir_for(&A, i, I(0), n, FOR_SERIAL, NULL, ir_store(&A, out, value, V(i), NULL));
}

/* allocate T[extents] { for (i, 0, n) { T[i] = i; O[i] = T[i] * 2 } } with O of shape n: a
 * size that overflows, as one int32 extent n*n (past 2^31 for n = 65536) or as four extents n
 * (past 2^64), returns CG_LLVM_ERR_NOMEM, where it once made a small buffer the loop wrote
 * past; a small n computes. */
static void test_codegen_llvm_alloc_overflow(void) {
  Var *n = var("n"), *i = var("i");
  for (int dims = 1; dims <= 4; dims += 3) {
    Buffer *o = param("O", DT_F32, V(n)), *t = param("T", DT_F32, V(n));
    Expr *extents[4] = {V(n), V(n), V(n), V(n)};
    if (dims == 1) extents[0] = mul(V(n), V(n));
    Stmt *st[2] = {ir_store(&A, t, ir_cast(&A, DT_F32, V(i)), V(i), NULL),
                   ir_store(&A, o, mul(ld(t, V(i)), F(2)), V(i), NULL)};
    Stmt *body = ir_for(&A, i, I(0), V(n), FOR_SERIAL, NULL, ir_seq(&A, 2, st));
    body = ir_allocate(&A, t->data, DT_F32, dims, extents, "global", NULL, body);
    Built bt = build_func(func(dims == 1 ? "ovf1" : "ovf4", 1, (Buffer *[]){o}, body), NULL);
    CHECK_BUILT(bt);
    if (!bt.packed) {
      unbuild(&bt);
      continue;
    }
    float *out = buffer(20 * 4);
    int32_t big = 65536, small = 20;
    CHECK(call(&bt, 1, (void *[]){out}, 1, &big) == CG_LLVM_ERR_NOMEM);
    CHECK(call(&bt, 1, (void *[]){out}, 1, &small) == 0);
    for (int k = 0; k < small; k++) CHECK(out[k] == 2.0f * (float)k);
    free(out);
    unbuild(&bt);
  }
}

static int64_t c_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static int64_t c_floormod(int64_t a, int64_t b) { return b == 0 ? 0 : a - c_floordiv(a, b) * b; }

/* floordiv/floormod round toward -inf, DIV/MOD truncate, a zero divisor gives 0. */
static void test_codegen_llvm_int_division(void) {
  enum { N = 200 };
  static const ExprKind kinds[] = {EXPR_FLOORDIV, EXPR_FLOORMOD, EXPR_DIV, EXPR_MOD};
  for (size_t kk = 0; kk < 4; kk++) {
    for (int vec = 0; vec < 2; vec++) {
      Buffer *a = param("A", DT_I32, I(N)), *b = param("B", DT_I32, I(N)),
             *c = param("C", DT_I32, I(N));
      Var *i = var("i");
      Stmt *body;
      if (vec) { /* the same over 8 lanes: vector division and its guards */
        Expr *idx = ir_ramp(&A, mul(V(i), I(8)), I(1), 8);
        Expr *v = ir_binary(&A, kinds[kk], ir_load(&A, a, idx, NULL), ir_load(&A, b, idx, NULL));
        body = ir_for(&A, i, I(0), I(N / 8), FOR_SERIAL, NULL, ir_store(&A, c, v, idx, NULL));
      } else {
        body = loop(i, I(N), c, ir_binary(&A, kinds[kk], ld(a, V(i)), ld(b, V(i))));
      }
      Built bt = build_func(func("idiv", 3, (Buffer *[]){a, b, c}, body), NULL);
      CHECK_BUILT(bt);
      if (!bt.packed) {
        unbuild(&bt);
        continue;
      }
      int32_t *x = buffer(N * 4), *y = buffer(N * 4), *z = buffer(N * 4);
      for (int k = 0; k < N; k++) {
        x[k] = (int32_t)(next_rand() % 2001) - 1000;
        y[k] = k % 17 == 0 ? 0 : (int32_t)(next_rand() % 41) - 20;
      }
      x[5] = INT32_MIN, y[5] = -1;
      CHECK(call(&bt, 3, (void *[]){x, y, z}, 0, NULL) == 0);
      int bad = 0;
      for (int k = 0; k < N; k++) {
        int64_t p = x[k], q = y[k], want;
        if (kinds[kk] == EXPR_FLOORDIV)
          want = c_floordiv(p, q);
        else if (kinds[kk] == EXPR_FLOORMOD)
          want = c_floormod(p, q);
        else if (kinds[kk] == EXPR_DIV)
          want = q ? p / q : 0;
        else
          want = q ? p % q : 0;
        if ((int32_t)want != z[k] && bad++ < 3)
          printf("  %s(%d, %d) = %d, want %d\n", ir_expr_kind_names[kinds[kk]], x[k], y[k], z[k],
                 (int32_t)want);
      }
      CHECK(bad == 0);
      free(x), free(y), free(z);
      unbuild(&bt);
    }
  }
}

/* Casts between dtypes, through C's own conversions (values in range of both). */
typedef struct CastCase {
  DType from, to;
} CastCase;

static double from_bytes(const void *p, DType t) {
  switch ((DTypeCode)t.code) {
  case DT_INT:
    return t.bits == 8    ? *(int8_t *)p
           : t.bits == 16 ? *(int16_t *)p
           : t.bits == 32 ? *(int32_t *)p
                          : (double)*(int64_t *)p;
  case DT_UINT:
    return t.bits == 8    ? *(uint8_t *)p
           : t.bits == 16 ? *(uint16_t *)p
           : t.bits == 32 ? *(uint32_t *)p
                          : (double)*(uint64_t *)p;
  case DT_BOOL:
    return *(uint8_t *)p != 0;
  case DT_FLOAT:
    return t.bits == 16 ? (double)*(_Float16 *)p : t.bits == 32 ? *(float *)p : *(double *)p;
  case DT_HANDLE:
    break;
  }
  TES_UNREACHABLE();
}

static void to_bytes(void *p, DType t, double v) {
  switch ((DTypeCode)t.code) {
  case DT_INT:
    if (t.bits == 8)
      *(int8_t *)p = (int8_t)v;
    else if (t.bits == 16)
      *(int16_t *)p = (int16_t)v;
    else if (t.bits == 32)
      *(int32_t *)p = (int32_t)v;
    else
      *(int64_t *)p = (int64_t)v;
    return;
  case DT_UINT:
    if (t.bits == 8)
      *(uint8_t *)p = (uint8_t)v;
    else if (t.bits == 16)
      *(uint16_t *)p = (uint16_t)v;
    else if (t.bits == 32)
      *(uint32_t *)p = (uint32_t)v;
    else
      *(uint64_t *)p = (uint64_t)v;
    return;
  case DT_BOOL:
    *(uint8_t *)p = v != 0;
    return;
  case DT_FLOAT:
    if (t.bits == 16)
      *(_Float16 *)p = (_Float16)v;
    else if (t.bits == 32)
      *(float *)p = (float)v;
    else
      *(double *)p = v;
    return;
  case DT_HANDLE:
    break;
  }
  TES_UNREACHABLE();
}

static size_t width(DType t) { return t.code == DT_BOOL ? 1 : t.bits / 8; }

/* Every dtype pair of SPEC §6, on values that fit both (0..100, and -100.. for signed). */
static void test_codegen_llvm_casts(void) {
  static const DType types[] = {DT_MAKE(DT_INT, 8, 1),
                                DT_MAKE(DT_INT, 16, 1),
                                DT_I32,
                                DT_I64,
                                DT_MAKE(DT_UINT, 8, 1),
                                DT_MAKE(DT_UINT, 16, 1),
                                DT_MAKE(DT_UINT, 32, 1),
                                DT_MAKE(DT_UINT, 64, 1),
                                DT_MAKE(DT_FLOAT, 16, 1),
                                DT_F32,
                                DT_F64,
                                DT_BOOL1};
  enum { N = 64, NT = sizeof types / sizeof *types };
  int bad = 0, built = 0;
  for (int p = 0; p < NT; p++)
    for (int q = 0; q < NT; q++) {
      DType from = types[p], to = types[q];
      DType mfrom = from.code == DT_BOOL ? DT_MAKE(DT_BOOL, 8, 1) : from;
      Buffer *a = param("A", from, I(N)), *b = param("B", to, I(N));
      Var *i = var("i");
      Stmt *body = loop(i, I(N), b, ir_cast(&A, to, ld(a, V(i))));
      Built bt = build_func(func("cast", 2, (Buffer *[]){a, b}, body), NULL);
      if (!bt.packed) {
        printf("  cast build failed: %s\n", bt.err.msg);
        bad++;
        unbuild(&bt);
        continue;
      }
      built++;
      unsigned char *x = buffer(N * 8), *y = buffer(N * 8);
      bool is_signed = from.code == DT_INT || from.code == DT_FLOAT;
      bool to_unsigned = to.code == DT_UINT;
      for (int k = 0; k < N; k++) {
        double v = (double)(next_rand() % 101);
        if (is_signed && !to_unsigned && k % 2) v = -v;
        if (from.code == DT_FLOAT && k % 3 == 0) v += 0.25;
        to_bytes(x + k * width(mfrom), mfrom, v);
      }
      CHECK(call(&bt, 2, (void *[]){x, y}, 0, NULL) == 0);
      for (int k = 0; k < N; k++) {
        double v = from_bytes(x + k * width(mfrom), mfrom);
        unsigned char want[8];
        to_bytes(want, to, to.code == DT_BOOL ? (v != 0) : v);
        if (memcmp(want, y + k * width(to), width(to)) != 0 && bad++ < 5) {
          char n1[32], n2[32];
          printf("  cast %s -> %s of %g: got %g\n", dt_name(from, n1), dt_name(to, n2), v,
                 from_bytes(y + k * width(to), to));
        }
      }
      free(x), free(y);
      unbuild(&bt);
    }
  CHECK(bad == 0);
  CHECK(built == NT * NT);
}

/* Math intrinsics on float32, scalar and 8 lanes, against libm. */
typedef struct MathCase {
  const char *op;
  double (*ref)(double);
  double lo, hi;
} MathCase;

static double sigmoid_ref(double x) { return 1 / (1 + exp(-x)); }
static double rsqrt_ref(double x) { return 1 / sqrt(x); }

static void test_codegen_llvm_math(void) {
  static const MathCase cases[] = {
      {"tir.exp", exp, -5, 5},
      {"tir.log", log, 0.01, 10},
      {"tir.sqrt", sqrt, 0, 100},
      {"tir.tanh", tanh, -3, 3},
      {"tir.sigmoid", sigmoid_ref, -6, 6},
      {"tir.erf", erf, -2, 2},
      {"tir.floor", floor, -9, 9},
      {"tir.ceil", ceil, -9, 9},
      {"tir.round", round, -9, 9},
      {"tir.trunc", trunc, -9, 9},
      {"tir.fabs", fabs, -9, 9},
      {"tir.log2", log2, 0.01, 10},
      {"tir.log10", log10, 0.01, 10},
      {"tir.exp2", exp2, -5, 5},
      {"tir.rsqrt", rsqrt_ref, 0.1, 10},
      {"tir.sin", sin, -3, 3},
      {"tir.cos", cos, -3, 3},
      {"tir.log1p", log1p, 0, 3},
      {"tir.atan", atan, -3, 3},
      {"tir.tan", tan, -1, 1},
  };
  enum { N = 64 };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int lanes = 1; lanes <= 8; lanes += 7) {
      Buffer *a = param("A", DT_F32, I(N)), *b = param("B", DT_F32, I(N));
      Var *i = var("i");
      Expr *idx = lanes == 1 ? V(i) : ir_ramp(&A, mul(V(i), I(lanes)), I(1), lanes);
      Expr *x = ir_load(&A, a, idx, NULL);
      Expr *v = ir_call(&A, x->dtype, cases[c].op, CALL_PURE, 1, &x);
      Stmt *body =
          ir_for(&A, i, I(0), I(N / lanes), FOR_SERIAL, NULL, ir_store(&A, b, v, idx, NULL));
      Built bt = build_func(func("mathf", 2, (Buffer *[]){a, b}, body), NULL);
      CHECK_BUILT(bt);
      if (!bt.packed) {
        unbuild(&bt);
        continue;
      }
      float *xs = buffer(N * 4), *ys = buffer(N * 4), *want = buffer(N * 4);
      for (int k = 0; k < N; k++) {
        xs[k] = (float)(cases[c].lo + (cases[c].hi - cases[c].lo) * (next_rand() % 10000) / 9999.0);
        want[k] = (float)cases[c].ref(xs[k]);
      }
      CHECK(call(&bt, 2, (void *[]){xs, ys}, 0, NULL) == 0);
      int bad = count_mismatch(ys, want, N, 2e-6);
      CHECK(bad == 0);
      if (bad) printf("  in %s, %d lanes\n", cases[c].op, lanes);
      free(xs), free(ys), free(want);
      unbuild(&bt);
    }
}

/* Shifts, bitwise operators and popcount on int32 and uint32. */
static void test_codegen_llvm_bits(void) {
  static const char *const ops[] = {"tir.shift_left", "tir.shift_right", "tir.bitwise_and",
                                    "tir.bitwise_or", "tir.bitwise_xor", "tir.bitwise_not",
                                    "tir.popcount"};
  enum { N = 64 };
  for (int u = 0; u < 2; u++)
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
      DType t = u ? DT_MAKE(DT_UINT, 32, 1) : DT_I32;
      Buffer *a = param("A", t, I(N)), *b = param("B", t, I(N)), *c = param("C", t, I(N));
      Var *i = var("i");
      Expr *args[2] = {ld(a, V(i)), ld(b, V(i))};
      int nargs = o >= 5 ? 1 : 2;
      Stmt *body = loop(i, I(N), c, ir_call(&A, t, ops[o], CALL_PURE, nargs, args));
      Built bt = build_func(func("bits", 3, (Buffer *[]){a, b, c}, body), NULL);
      CHECK_BUILT(bt);
      if (!bt.packed) {
        unbuild(&bt);
        continue;
      }
      uint32_t *x = buffer(N * 4), *y = buffer(N * 4), *z = buffer(N * 4);
      for (int k = 0; k < N; k++) x[k] = next_rand() * 2654435761u, y[k] = next_rand() % 31;
      CHECK(call(&bt, 3, (void *[]){x, y, z}, 0, NULL) == 0);
      int bad = 0;
      for (int k = 0; k < N; k++) {
        uint32_t want;
        switch (o) {
        case 0:
          want = x[k] << y[k];
          break;
        case 1:
          want = u ? x[k] >> y[k] : (uint32_t)((int32_t)x[k] >> y[k]);
          break;
        case 2:
          want = x[k] & y[k];
          break;
        case 3:
          want = x[k] | y[k];
          break;
        case 4:
          want = x[k] ^ y[k];
          break;
        case 5:
          want = ~x[k];
          break;
        default:
          want = (uint32_t)__builtin_popcount(x[k]);
          break;
        }
        bad += want != z[k];
      }
      CHECK(bad == 0);
      if (bad) printf("  %s on %s\n", ops[o], u ? "uint32" : "int32");
      free(x), free(y), free(z);
      unbuild(&bt);
    }
}

/* if_then_else runs only the branch taken: padding reads A only inside [0, n), scalar and
 * vectorised (masked loads); ASan would see a read outside. */
static void test_codegen_llvm_if_then_else(void) {
  for (int lanes = 1; lanes <= 16; lanes += 15) {
    Var *n = var("n");
    Buffer *a = param("A", DT_F32, V(n)), *b = param("B", DT_F32, add(V(n), I(32)));
    Var *i = var("i");
    Expr *idx = lanes == 1 ? V(i) : ir_ramp(&A, mul(V(i), I(lanes)), I(1), lanes);
    Expr *in = ir_binary(&A, EXPR_LT, idx, lanes == 1 ? V(n) : ir_broadcast(&A, V(n), lanes));
    Expr *ld_a = ir_load(&A, a, idx, NULL);
    Expr *zero = lanes == 1 ? F(-1) : ir_broadcast(&A, F(-1), lanes);
    Expr *args[3] = {in, ld_a, zero};
    Expr *v = ir_call(&A, ld_a->dtype, "tir.if_then_else", CALL_PURE, 3, args);
    Expr *count = ir_binary(&A, EXPR_FLOORDIV, add(V(n), I(32)), I(lanes));
    Stmt *body = ir_for(&A, i, I(0), count, FOR_SERIAL, NULL, ir_store(&A, b, v, idx, NULL));
    Built bt = build_func(func("pad", 2, (Buffer *[]){a, b}, body), NULL);
    CHECK_BUILT(bt);
    if (!bt.packed) {
      unbuild(&bt);
      continue;
    }
    int32_t len = 48;
    float *x = aligned_alloc(64, len * sizeof *x); /* exactly n floats: ASan sees a read past */
    for (int k = 0; k < len; k++) x[k] = frand();
    float *y = buffer((len + 32) * 4), *want = buffer((len + 32) * 4);
    for (int k = 0; k < len + 32; k++) want[k] = k < len ? x[k] : -1;
    CHECK(call(&bt, 2, (void *[]){x, y}, 1, &len) == 0);
    CHECK(count_mismatch(y, want, len + 32, 0) == 0);
    free(x), free(y), free(want);
    unbuild(&bt);
  }
}

/* A failed assert returns its number; the message comes back by that number. */
static void test_codegen_llvm_assert(void) {
  Var *n = var("n");
  Buffer *a = param("A", DT_F32, V(n));
  Var *i = var("i");
  Stmt *store = loop(i, V(n), a, F(7));
  Stmt *body =
      ir_assert(&A, ir_binary(&A, EXPR_LE, V(n), I(100)), ir_str(&A, "n must be <= 100"), store);
  Built bt = build_func(func("checked", 1, (Buffer *[]){a}, body), NULL);
  CHECK_BUILT(bt);
  if (!bt.packed) return unbuild(&bt);
  float *x = buffer(200 * 4);
  int32_t len = 150;
  int32_t rc = call(&bt, 1, (void *[]){x}, 1, &len);
  char buf[64];
  CHECK(rc == 1 && strcmp(cg_llvm_error_message(bt.code, rc, buf), "n must be <= 100") == 0);
  CHECK(x[0] == 0);
  len = 50;
  CHECK(call(&bt, 1, (void *[]){x}, 1, &len) == 0 && x[49] == 7 && x[50] == 0);
  CHECK(strcmp(cg_llvm_error_message(bt.code, 99, buf), "unknown error code 99") == 0);
  free(x);
  unbuild(&bt);
}

/* Nodes lowering never leaves for the CPU are a clean error. */
static void test_codegen_llvm_unsupported(void) {
  Buffer *a = param("A", DT_F32, I(4));
  Var *i = var("i");
  Expr *x = ld(a, V(i));
  Expr *v = ir_call(&A, DT_F32, "tir.tvm_mma_sync", CALL_EFFECT, 1, &x);
  Diag err = DIAG_INIT;
  CgLlvmCode *c = cg_llvm_build(func("bad", 1, (Buffer *[]){a}, loop(i, I(4), a, v)), NULL, &err);
  CHECK(!c && strstr(err.msg, "not supported yet: @tir.tvm_mma_sync"));
  diag_clear(&err);
  Var *free_var = var("m");
  c = cg_llvm_build(func("unbound", 1, (Buffer *[]){a}, loop(i, V(free_var), a, F(1))), NULL, &err);
  CHECK(!c && strstr(err.msg, "'m' is not bound"));
  diag_clear(&err);
}

int main(void) {
  setenv("TES_NUM_THREADS", "4", 1);
  arena_init(&A);
  test_codegen_llvm_add_symbolic();
  test_codegen_llvm_vectorize_parallel();
  test_codegen_llvm_matmul();
  test_codegen_llvm_split();
  test_codegen_llvm_allocate();
  test_codegen_llvm_interrupt();
  test_codegen_llvm_interrupt_not_innermost();
  test_codegen_llvm_interrupt_where();
  test_codegen_llvm_thread_binding();
  test_codegen_llvm_targets();
  test_codegen_llvm_sources();
  test_codegen_llvm_int_division();
  test_codegen_llvm_alloc_overflow();
  test_codegen_llvm_casts();
  test_codegen_llvm_math();
  test_codegen_llvm_bits();
  test_codegen_llvm_if_then_else();
  test_codegen_llvm_assert();
  test_codegen_llvm_unsupported();
  arena_free(&A);
  sb_free(&sb);
  return finish();
}
