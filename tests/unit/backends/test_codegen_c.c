/* test_codegen_c.c: unit tests of backends/c/codegen_c.c, the "c" target's C source. Lowered
 * schedules are printed, compiled by the system's C compiler (cc, or $CC) with warnings as
 * errors, loaded and called on seeded data, and compared with plain C loops: vector stores as
 * lane loops, a parallel loop (as OpenMP where the compiler has it), an allocation per
 * iteration of it, a shape variable, floor division
 * and modulo of negative numbers, min, max and if_then_else. Also the C names
 * of variables (dots, two variables of one name), and what the target refuses. */
#include <dlfcn.h>
#include <stdlib.h>

#include "backends/c/codegen_c.h"
#include "tests/unit/schedule/sched_test.h"

static char dir[] = "/tmp/tes_test_codegen_c_XXXXXX";

static LoweredFunc *lower_named(Schedule *s, const char *name, int nargs, Tensor **args) {
  LowerOptions opt = {.name = name};
  Diag d = DIAG_INIT;
  LoweredFunc *f = lower_run(&A, s, nargs, args, &opt, &d);
  if (!f) printf("lowering failed: %s\n", d.msg);
  return f;
}

/* "-fopenmp" when the C compiler builds OpenMP programs (gcc with libgomp; clang without
 * libomp does not), so that parallel loops are compiled as OpenMP and checked by it; "" and a
 * printed note otherwise. */
static const char *openmp_flag(const char *cc) {
  static const char *flag;
  if (flag) return flag;
  char probe[128], cmd[512];
  snprintf(probe, sizeof probe, "%s/probe.c", dir);
  FILE *out = fopen(probe, "w");
  if (out) {
    fputs("int main(void) {\n  int s = 0;\n#pragma omp parallel for\n"
          "  for (int i = 0; i < 4; i++) {\n#pragma omp atomic write\n    s = i;\n  }\n"
          "  return s < 0;\n}\n",
          out);
    fclose(out);
  }
  snprintf(cmd, sizeof cmd, "%s -fopenmp -Werror -o %s/probe %s 2>/dev/null", cc, dir, probe);
  flag = out && system(cmd) == 0 ? "-fopenmp" : "";
  if (!*flag) printf("note: %s does not build OpenMP programs; parallel loops compiled serial\n", cc);
  return flag;
}

/* f's C source, compiled into a shared object and loaded; the function f->name in it. */
static void *compile(const LoweredFunc *f, void **lib) {
  Diag d = DIAG_INIT;
  char *src = cg_c_source(f, &d);
  *lib = NULL;
  if (!src) {
    printf("cg_c_source: %s\n", d.msg);
    return NULL;
  }
  char c_path[128], so_path[128], cmd[512];
  snprintf(c_path, sizeof c_path, "%s/%s.c", dir, f->name);
  snprintf(so_path, sizeof so_path, "%s/%s.so", dir, f->name);
  FILE *out = fopen(c_path, "w");
  bool written = out && fputs(src, out) >= 0;
  if (out) written &= fclose(out) == 0;
  free(src);
  if (!written) return NULL;
  const char *cc = getenv("CC");
  cc = cc && *cc ? cc : "cc";
  snprintf(cmd, sizeof cmd,
           "%s -std=gnu11 -O1 %s -Wall -Werror -Wno-unknown-pragmas -shared -fPIC -o %s %s -lm", cc,
           openmp_flag(cc), so_path, c_path);
  fflush(stdout);
  if (system(cmd) != 0) {
    printf("failed: %s\n", cmd);
    return NULL;
  }
  /* kept loaded by dlclose: OpenMP's worker threads outlive the call */
  *lib = dlopen(so_path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  return *lib ? dlsym(*lib, f->name) : NULL;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_rand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}

static Tensor *placeholder_t(const char *name, DType t, int ndim, Expr **shape) {
  return ir_placeholder_op(&A, name, ndim, shape, t)->outputs[0];
}

/* C = (A*3)*2 + float(B[j]) over (n, 16): the product in a buffer allocated per row (T
 * computed at C's rows), the columns split by 4 and vectorized, the rows parallel. */
static void test_codegen_c_vector_parallel(void) {
  Var *n = var("n");
  Tensor *a = placeholder("A", 2, V(n), I(16));
  Tensor *b = placeholder_t("B", DT_I32, 1, (Expr *[]){I(16)});
  Expr *shape[2] = {V(n), I(16)};
  ComputeDef dt = axes(2, shape, NULL);
  Tensor *t = compute("T", dt, mul(at(a, iv_ref(dt.axis[0]), iv_ref(dt.axis[1])), F(3)));
  ComputeDef dc = axes(2, shape, NULL);
  Expr *j = iv_ref(dc.axis[1]);
  Tensor *c =
      compute("C", dc, add(mul(at(t, iv_ref(dc.axis[0]), j), F(2)), ir_cast(&A, DT_F32, at(b, j))));
  Schedule *s = schedule(1, c);
  IterVar *jo, *ji;
  CHECK(sched_split(S(s, c), axis_of(c, 1), I(4), NULL, &jo, &ji));
  CHECK(sched_vectorize(S(s, c), ji));
  CHECK(sched_parallel(S(s, c), axis_of(c, 0)));
  CHECK(sched_compute_at(S(s, t), S(s, c), axis_of(c, 0)));
  LoweredFunc *f = lower_named(s, "scale", 3, (Tensor *[]){a, b, c});
  CHECK(f != NULL);
  if (!f) return;
  Diag d = DIAG_INIT;
  char *src = cg_c_source(f, &d);
  CHECK(src && !diag_failed(&d));
  if (!src) return;
  CHECK(strstr(src, "int32_t scale(float *restrict A, int32_t *restrict B, "
                    "float *restrict C, int32_t n) {") != NULL);
  CHECK(strstr(src, "#pragma omp parallel for") != NULL);
  CHECK(strstr(src, "for (int32_t _lane = 0; _lane < 4; ++_lane) {") != NULL);
  CHECK(strstr(src, "aligned_alloc(64, ") != NULL && strstr(src, "free(T);") != NULL);
  /* the allocation's check inside the parallel loop sets a status returned after the loop:
   * OpenMP forbids a return from the loop's block */
  CHECK(strstr(src, "return -1") == NULL);
  CHECK(strstr(src, "if (!T) {") != NULL && strstr(src, "_tes_status1 = -1;") != NULL);
  CHECK(strstr(src, "if (_tes_status1) return _tes_status1;") != NULL);
  free(src);

  void *lib;
  int32_t (*fn)(float *, int32_t *, float *, int32_t) =
      (int32_t(*)(float *, int32_t *, float *, int32_t))compile(f, &lib);
  CHECK(fn != NULL);
  if (!fn) return;
  enum { ROWS = 5 };
  float av[ROWS * 16], cv[ROWS * 16];
  int32_t bv[16];
  for (int i = 0; i < ROWS * 16; i++) av[i] = (float)(next_rand() % 2001) / 100.0f - 10.0f;
  for (int i = 0; i < 16; i++) bv[i] = (int32_t)(next_rand() % 201) - 100;
  for (int i = 0; i < ROWS * 16; i++) cv[i] = -12345.0f;
  CHECK(fn(av, bv, cv, ROWS) == 0);
  int bad = 0;
  for (int i = 0; i < ROWS * 16; i++) {
    float want = (av[i] * 3.0f) * 2.0f + (float)bv[i % 16];
    if (cv[i] != want && bad++ < 3) printf("  C[%d] = %.9g, want %.9g\n", i, cv[i], want);
  }
  CHECK(bad == 0);
  dlclose(lib);
}

static int32_t floordiv_ref(int32_t a, int32_t b) {
  int32_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static int32_t floormod_ref(int32_t a, int32_t b) { return a - floordiv_ref(a, b) * b; }

/* E[i, j] = floordiv(B[j] - i, 3)*1000 + floormod(B[j] - i, 5)*100 + max(B[j], i) -
 *           min(B[j], -i) + if_then_else(B[j] < 0, 7, 11), on negative and positive B. */
static void test_codegen_c_integer_ops(void) {
  Tensor *b = placeholder_t("B", DT_I32, 1, (Expr *[]){I(16)});
  Expr *shape[2] = {I(4), I(16)};
  ComputeDef d = axes(2, shape, NULL);
  Expr *i = iv_ref(d.axis[0]), *bj = at(b, iv_ref(d.axis[1]));
  Expr *diff = sub(bj, i);
  Expr *ite_args[3] = {ir_binary(&A, EXPR_LT, bj, I(0)), I(7), I(11)};
  Expr *body =
      add(add(add(mul(ir_binary(&A, EXPR_FLOORDIV, diff, I(3)), I(1000)),
                  mul(ir_binary(&A, EXPR_FLOORMOD, diff, I(5)), I(100))),
              sub(ir_binary(&A, EXPR_MAX, bj, i), ir_binary(&A, EXPR_MIN, bj, sub(I(0), i)))),
          ir_call(&A, DT_I32, "tir.if_then_else", CALL_PURE, 3, ite_args));
  Tensor *e = ir_compute_op(&A, "E", "", 2, d.shape, d.axis, 1, &body)->outputs[0];
  Schedule *s = schedule(1, e);
  LoweredFunc *f = lower_named(s, "ints", 2, (Tensor *[]){b, e});
  CHECK(f != NULL);
  if (!f) return;
  void *lib;
  int32_t (*fn)(int32_t *, int32_t *) = (int32_t(*)(int32_t *, int32_t *))compile(f, &lib);
  CHECK(fn != NULL);
  if (!fn) return;
  int32_t bv[16], ev[64];
  for (int j = 0; j < 16; j++) bv[j] = (int32_t)(next_rand() % 41) - 20;
  bv[0] = -7, bv[1] = 6; /* one of each sign, whatever the seed gives */
  CHECK(fn(bv, ev) == 0);
  int bad = 0;
  for (int r = 0; r < 4; r++)
    for (int j = 0; j < 16; j++) {
      int32_t x = bv[j] - r, mx = bv[j] > r ? bv[j] : r, mn = bv[j] < -r ? bv[j] : -r;
      int32_t want =
          floordiv_ref(x, 3) * 1000 + floormod_ref(x, 5) * 100 + (mx - mn) + (bv[j] < 0 ? 7 : 11);
      if (ev[r * 16 + j] != want && bad++ < 3)
        printf("  E[%d, %d] = %d, want %d (B[j] = %d)\n", r, j, ev[r * 16 + j], want, bv[j]);
    }
  CHECK(bad == 0);
  dlclose(lib);
}

/* Dots become underscores; a second variable of a name already given gets a suffix. */
static void test_codegen_c_names(void) {
  Tensor *a = placeholder("A", 1, I(8));
  ComputeDef d = axes(1, (Expr *[]){I(8)}, NULL);
  Tensor *b = compute("B", d, add(at(a, iv_ref(d.axis[0])), F(1)));
  ComputeDef d2 = axes(1, (Expr *[]){I(8)}, NULL);
  Tensor *c = compute("C", d2, mul(at(b, iv_ref(d2.axis[0])), F(2)));
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(4), NULL, &xo, &xi));
  LoweredFunc *f = lower_named(s, "names", 2, (Tensor *[]){a, c});
  CHECK(f != NULL);
  if (!f) return;
  Diag why = DIAG_INIT;
  char *src = cg_c_source(f, &why);
  CHECK(src != NULL);
  if (!src) return;
  CHECK(strstr(src, "for (int32_t i = 0; i < 8; ++i) {") != NULL);
  CHECK(strstr(src, "for (int32_t i_outer = 0; i_outer < 2; ++i_outer) {") != NULL);
  CHECK(strstr(src, "for (int32_t i_inner = 0; i_inner < 4; ++i_inner) {") != NULL);
  free(src);
  /* two stages whose axes are both "i": the second loop is i_1 */
  Schedule *s2 = schedule(1, c);
  f = lower_named(s2, "twice", 2, (Tensor *[]){a, c});
  src = f ? cg_c_source(f, &why) : NULL;
  CHECK(src != NULL);
  if (!src) return;
  CHECK(strstr(src, "for (int32_t i = 0; i < 8; ++i) {") != NULL);
  CHECK(strstr(src, "for (int32_t i_1 = 0; i_1 < 8; ++i_1) {") != NULL);
  free(src);
}

/* A GPU schedule is refused with a message naming the attr; nothing is returned. */
static void test_codegen_c_refuses(void) {
  Tensor *a = placeholder("A", 1, I(64));
  ComputeDef d = axes(1, (Expr *[]){I(64)}, NULL);
  Tensor *b = compute("B", d, add(at(a, iv_ref(d.axis[0])), F(1)));
  Schedule *s = schedule(1, b);
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  CHECK(sched_bind(S(s, b), axis_of(b, 0), tx));
  LoweredFunc *f = lower_named(s, "gpu", 2, (Tensor *[]){a, b});
  CHECK(f != NULL);
  if (!f) return;
  Diag why = DIAG_INIT;
  char *src = cg_c_source(f, &why);
  CHECK(src == NULL && why.kind == DIAG_USER);
  CHECK_TEXT(why.msg, "not supported yet: attr \"thread_extent\" on the c target (a GPU schedule)");
  free(src);
}

int main(void) {
  arena_init(&A);
  if (!mkdtemp(dir)) {
    printf("cannot make a scratch folder under /tmp\n");
    failed++;
    return finish();
  }
  test_codegen_c_vector_parallel();
  test_codegen_c_integer_ops();
  test_codegen_c_names();
  test_codegen_c_refuses();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("could not remove %s\n", dir);
  arena_free(&A);
  sb_free(&sb);
  return finish();
}
