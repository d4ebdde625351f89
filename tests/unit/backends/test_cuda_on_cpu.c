/* test_cuda_on_cpu.c: the CUDA C of vectorized kernels, run on the CPU. With no GPU to run
 * them, the kernels' text is compiled by the host's C++ compiler (c++, or $CXX) behind a shim
 * of the CUDA built-ins it uses (threadIdx and blockIdx, float4 and the other vector structs,
 * make_float4, __align__) and called block by block, thread by thread: these kernels have no
 * shared memory, so their threads are independent and any order is theirs. The results are
 * compared, exactly, with the same computation in plain C, for every element type with a CUDA
 * vector (float16 as the host's _Float16), 2, 3, 4, 8 and 16 lanes, aligned and misaligned reads (A[i + off]) and strided ones
 * (A[2i]). What this cannot see is alignment: the host reads a misaligned float4 as well as an
 * aligned one (test_codegen_cuda.c checks which accesses are printed as float4). */
#include <dlfcn.h>
#include <stdlib.h>

#include "backends/cuda/codegen_cuda.h"
#include "tests/unit/schedule/sched_test.h"

static char dir[] = "/tmp/tes_test_cuda_on_cpu_XXXXXX";

static const char shim[] =
    "#define __global__\n#define __device__\n#define __launch_bounds__(n)\n"
    "#define __align__(n) alignas(n)\n"
    "struct tes_dim3 { unsigned x, y, z; };\n"
    "static tes_dim3 threadIdx, blockIdx;\n"
    "extern \"C\" void tes_set_thread(unsigned b, unsigned t) { blockIdx.x = b; threadIdx.x = t; }\n"
    "static inline float __int_as_float(int i) { float f; __builtin_memcpy(&f, &i, 4); return f; }\n"
    "extern \"C\" double floor(double);\n"
    "#define VEC2(T, N) struct N##2 { T x, y; }; \\\n"
    "  static inline N##2 make_##N##2(T a, T b) { return {a, b}; }\n"
    "#define VEC4(T, N) struct N##4 { T x, y, z, w; }; \\\n"
    "  static inline N##4 make_##N##4(T a, T b, T c, T d) { return {a, b, c, d}; }\n"
    "VEC2(float, float) VEC4(float, float) VEC2(double, double) VEC2(signed char, char)\n"
    "VEC4(signed char, char) VEC2(unsigned char, uchar) VEC4(unsigned char, uchar)\n"
    "VEC2(short, short) VEC4(short, short) VEC2(int, int) VEC4(int, int)\n"
    "VEC2(long long, longlong)\n"
    "typedef _Float16 half; /* cuda_fp16.h's arithmetic, the host's own */\n"
    "VEC2(half, half)\n";

typedef struct Case {
  DType t;
  int lanes, off;
  bool strided;
  char name[48];
} Case;

static const DType types[] = {DT_MAKE(DT_FLOAT, 32, 1), DT_MAKE(DT_FLOAT, 64, 1),
                              DT_MAKE(DT_FLOAT, 16, 1),
                              DT_MAKE(DT_INT, 8, 1),    DT_MAKE(DT_UINT, 8, 1),
                              DT_MAKE(DT_INT, 16, 1),   DT_MAKE(DT_INT, 32, 1),
                              DT_MAKE(DT_INT, 64, 1)};
enum { N = 768, THREADS = 4 };

/* C[i] = max(A[i + off], B[i]) + B[i] * A[i + off] (A[2i] when strided), vectorized by lanes
 * under blockIdx.x and threadIdx.x (4 threads a block). */
static LoweredFunc *kernel(Case *c) {
  Tensor *a = ir_placeholder_op(&A, "A", 1, (Expr *[]){I(2 * N + 64)}, c->t)->outputs[0];
  Tensor *b = ir_placeholder_op(&A, "B", 1, (Expr *[]){I(N)}, c->t)->outputs[0];
  Expr *shape[1] = {I(N)};
  ComputeDef d = axes(1, shape, NULL);
  Expr *i = iv_ref(d.axis[0]);
  Expr *ai = at(a, c->strided ? mul(i, I(2)) : add(i, I(c->off)));
  Expr *body = add(ir_binary(&A, EXPR_MAX, ai, at(b, i)), mul(at(b, i), ai));
  Tensor *out = compute("C", d, body);
  Schedule *s = schedule(1, out);
  IterVar *bo, *bi, *to, *ti;
  IterVar *bx = ir_itervar(&A, var("blockIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "blockIdx.x");
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  CHECK(sched_split(S(s, out), axis_of(out, 0), I(c->lanes * THREADS), NULL, &bo, &bi));
  CHECK(sched_split(S(s, out), bi, I(c->lanes), NULL, &to, &ti));
  CHECK(sched_bind(S(s, out), bo, bx) && sched_bind(S(s, out), to, tx));
  CHECK(sched_vectorize(S(s, out), ti));
  char tn[32];
  snprintf(c->name, sizeof c->name, "k_%s_%d_%d%s", dt_name(c->t, tn), c->lanes, c->off,
           c->strided ? "_strided" : "");
  LowerOptions opt = {.name = c->name, .gpu = true};
  Diag e = DIAG_INIT;
  LoweredFunc *f = lower_run(&A, s, 3, (Tensor *[]){a, b, out}, &opt, &e);
  if (!f) printf("lowering %s failed: %s\n", c->name, e.msg);
  return f;
}

/* Element k of buffer p (of type t) as a double, and stored from one. */
static double get(DType t, const void *p, int k) {
  switch (t.code * 100 + t.bits) {
  case DT_FLOAT * 100 + 32: return ((const float *)p)[k];
  case DT_FLOAT * 100 + 64: return ((const double *)p)[k];
  case DT_FLOAT * 100 + 16: return (double)((const _Float16 *)p)[k];
  case DT_INT * 100 + 8: return ((const int8_t *)p)[k];
  case DT_UINT * 100 + 8: return ((const uint8_t *)p)[k];
  case DT_INT * 100 + 16: return ((const int16_t *)p)[k];
  case DT_INT * 100 + 32: return ((const int32_t *)p)[k];
  default: return (double)((const int64_t *)p)[k];
  }
}

static void set(DType t, void *p, int k, double v) {
  switch (t.code * 100 + t.bits) {
  case DT_FLOAT * 100 + 32: ((float *)p)[k] = (float)v; break;
  case DT_FLOAT * 100 + 64: ((double *)p)[k] = v; break;
  case DT_FLOAT * 100 + 16: ((_Float16 *)p)[k] = (_Float16)v; break;
  case DT_INT * 100 + 8: ((int8_t *)p)[k] = (int8_t)v; break;
  case DT_UINT * 100 + 8: ((uint8_t *)p)[k] = (uint8_t)v; break;
  case DT_INT * 100 + 16: ((int16_t *)p)[k] = (int16_t)v; break;
  case DT_INT * 100 + 32: ((int32_t *)p)[k] = (int32_t)v; break;
  default: ((int64_t *)p)[k] = (int64_t)v; break;
  }
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static int small(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (int)(rng % 11); /* 0..10: every result fits int8 and is exact in float */
}

typedef void (*KernelFn)(void *, void *, void *);

static void run(void *lib, const Case *c) {
  char sym[64];
  snprintf(sym, sizeof sym, "%s_kernel0", c->name);
  KernelFn k = (KernelFn)dlsym(lib, sym);
  void (*set_thread)(unsigned, unsigned) = (void (*)(unsigned, unsigned))dlsym(lib, "tes_set_thread");
  CHECK(k && set_thread);
  if (!k || !set_thread) return;
  size_t es = c->t.bits / 8;
  void *a = calloc(2 * N + 64, es), *b = calloc(N, es), *out = calloc(N, es);
  for (int i = 0; i < 2 * N + 64; i++) set(c->t, a, i, small());
  for (int i = 0; i < N; i++) set(c->t, b, i, small());
  int blocks = N / (c->lanes * THREADS) + (N % (c->lanes * THREADS) != 0);
  for (int bx = 0; bx < blocks; bx++)
    for (int tx = 0; tx < THREADS; tx++) {
      set_thread((unsigned)bx, (unsigned)tx);
      k(a, b, out);
    }
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double x = get(c->t, a, c->strided ? 2 * i : i + c->off), y = get(c->t, b, i);
    double want = (x > y ? x : y) + y * x;
    if (get(c->t, out, i) != want && bad++ < 3)
      printf("%s: C[%d] = %g, want %g\n", c->name, i, get(c->t, out, i), want);
  }
  CHECK(bad == 0);
  free(a), free(b), free(out);
}

int main(void) {
  arena_init(&A);
  if (!mkdtemp(dir)) {
    printf("cannot make a scratch folder under /tmp\n");
    failed++;
    return finish();
  }
  enum { NCASES = sizeof types / sizeof *types * 5 * 4 };
  static Case cases[NCASES];
  static const int lanes[] = {2, 3, 4, 8, 16}, offs[] = {0, 1, 2, -1};
  int n = 0;
  StrBuf src = STRBUF_INIT;
  sb_puts(&src, shim);
  for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
    for (int li = 0; li < 5; li++)
      for (int oi = 0; oi < 4; oi++) {
        Case *c = &cases[n];
        *c = (Case){.t = types[ti], .lanes = lanes[li], .off = offs[oi] < 0 ? 0 : offs[oi],
                    .strided = offs[oi] < 0};
        LoweredFunc *f = kernel(c);
        Diag d = DIAG_INIT;
        CudaModule *m = f ? cg_cuda_build(f, NULL, &d) : NULL;
        CHECK(m != NULL);
        if (!m) continue;
        /* the helpers once, then each module's kernels */
        const char *text = n == 0 ? m->source : strstr(m->source, "extern \"C\"");
        sb_puts(&src, text);
        cg_cuda_free(m);
        n++;
      }
  char cpp[128], so[128], cmd[512];
  snprintf(cpp, sizeof cpp, "%s/kernels.cpp", dir);
  snprintf(so, sizeof so, "%s/kernels.so", dir);
  FILE *out = fopen(cpp, "w");
  bool written = out && fputs(sb_cstr(&src), out) >= 0;
  if (out) written &= fclose(out) == 0;
  CHECK(written);
  const char *cxx = getenv("CXX");
  snprintf(cmd, sizeof cmd,
           "%s -std=c++17 -O1 -w -fno-strict-aliasing -shared -fPIC -o %s %s",
           cxx && *cxx ? cxx : "c++", so, cpp);
  fflush(stdout);
  void *lib = NULL;
  if (system(cmd) != 0)
    printf("failed: %s\n", cmd), failed++;
  else if (!(lib = dlopen(so, RTLD_NOW | RTLD_LOCAL)))
    printf("dlopen: %s\n", dlerror()), failed++;
  for (int i = 0; lib && i < n; i++) run(lib, &cases[i]);
  if (lib) dlclose(lib);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("could not remove %s\n", dir);
  sb_free(&src);
  arena_free(&A);
  return finish();
}
