/* test_cuda_wmma.c: TensorCores on the cuda target (backends/cuda/cuda_wmma.c) on IR built by
 * hand as a tensorized schedule leaves it: the fragments' declarations from tir.InferFragment's
 * attributes, the four intrinsics as nvcuda::wmma calls, tvm_access_ptr as a pointer, and what
 * is refused (a fragment read element by element, a fragment no intrinsic shapes, a shape or
 * type CUDA has no fragment of). Each text is compiled by NVRTC for sm_80 and sm_90 where NVRTC
 * can be loaded (skipped with the reason printed otherwise). */
#include <stdlib.h>

#include "backends/cuda/codegen_cuda.h"
#include "ir/lower.h"
#include "jit/nvrtc.h"
#include "tests/unit/schedule/sched_test.h"

#define DT_F16 DT_MAKE(DT_FLOAT, 16, 1)

static bool have_nvrtc;

static Buffer *param(const char *name, DType t, int64_t n) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = name,
                .data = ir_var(&A, name, DT_HANDLE64),
                .dtype = t,
                .ndim = 1,
                .shape = arena_alloc(&A, sizeof(Expr *)),
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  b->shape[0] = I(n);
  return b;
}

static Expr *call(const char *op, int n, ...) {
  Expr *args[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) args[i] = va_arg(ap, Expr *);
  va_end(ap);
  return ir_call(&A, DT_HANDLE64, op, CALL_EFFECT, n, args);
}

static Stmt *eval(Expr *e) { return ir_evaluate(&A, e); }
static Expr *str(const char *s) { return ir_str(&A, s); }

/* tvm_access_ptr(type_annotation(dtype), buf, offset, 256, mask) */
static Expr *access_ptr(Buffer *b, Expr *offset, int mask) {
  Expr *type = ir_call(&A, b->dtype, "tir.type_annotation", CALL_PURE, 0, NULL);
  return call("tir.tvm_access_ptr", 5, type, V(b->data), offset, I(256), I(mask));
}

static Stmt *seq(int n, ...) {
  Stmt *items[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) items[i] = va_arg(ap, Stmt *);
  va_end(ap);
  return ir_seq(&A, n, items);
}

static Stmt *alloc(Var *v, DType t, int64_t n, const char *scope, Stmt *body) {
  Expr **ext = arena_alloc(&A, sizeof *ext);
  ext[0] = I(n);
  return ir_allocate(&A, v, t, 1, ext, scope, NULL, body);
}

static Stmt *warp(Stmt *body) {
  IterVar *iv =
      ir_itervar(&A, var("threadIdx.x"), (Range){I(0), I(32)}, ITER_THREAD, "threadIdx.x");
  return ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(32), body);
}

/* The GPU passes, tir.InferFragment among them, over body as function f(bufs); NULL with the
 * error in *d. */
static LoweredFunc *lower(int n, Buffer **bufs, Stmt *body, Diag *d) {
  LoweredFunc *f = arena_alloc(&A, sizeof *f);
  *f = (LoweredFunc){.name = "mm", .nparams = n, .params = bufs, .body = body};
  LowerOptions o = {0};
  return lower_gpu_passes(&A, f, &o, d);
}

/* The CUDA source of body; NULL with the error in *d. Compiled by NVRTC for sm_80 and sm_90
 * when it is there. */
static char *source(int n, Buffer **bufs, Stmt *body, Diag *d) {
  LoweredFunc *f = lower(n, bufs, body, d);
  if (!f) return NULL;
  CudaModule *m = cg_cuda_build(f, NULL, d);
  if (!m) return NULL;
  if (have_nvrtc) {
    const char *archs[] = {"sm_80", "sm_90"};
    for (int i = 0; i < 2; i++) {
      Diag nd = DIAG_INIT;
      char *ptx = nvrtc_compile(m->source, archs[i], &nd);
      CHECK(ptx != NULL);
      if (!ptx) printf("%s\n%s\n", m->source, nd.msg);
      CHECK(!ptx || strstr(ptx, "wmma.mma.sync") != NULL);
      free(ptx);
    }
  }
  char *s = xstrdup(m->source);
  cg_cuda_free(m);
  return s;
}

#define HAS(text, part)                                                                            \
  do {                                                                                             \
    CHECK(strstr(text, part) != NULL);                                                             \
    if (!strstr(text, part)) printf("--- wanted\n%s\n--- in\n%s\n", part, text);                   \
  } while (0)

#define FAILS_WITH(d, part)                                                                        \
  do {                                                                                             \
    CHECK(diag_failed(&(d)) && strstr((d).msg, part) != NULL);                                     \
    if (!diag_failed(&(d)) || !strstr((d).msg, part))                                              \
      printf("--- wanted an error with\n%s\n--- got\n%s\n", part, (d).msg);                        \
  } while (0)

/* One warp, C (32 x 16, float32) = A (32 x 16, float16) x B (16 x 16, float16): two rows of
 * 16 x 16 x 16 tiles, as the seed's intrinsics leave it. m, n, k and the layouts come from the
 * arguments so that the errors below can get them wrong. */
typedef struct Gemm {
  int64_t m, n, k;                  /* of the fill */
  int64_t load_m;                   /* of matrix_a's load */
  const char *a_layout, *a_layout2; /* of matrix_a's two loads */
  DType acc;
  bool element_read; /* also read the accumulator element by element */
  bool no_fill;      /* the accumulator only in mma_sync: its shape from there */
} Gemm;

static Buffer *bufA, *bufB, *bufC, *bufCh;

static Stmt *gemm(const Gemm *g, Var **frags) {
  Var *af = frags[0], *bf = frags[1], *cf = frags[2];
  Var *i = var("i");
  Stmt *body = seq(
      5,
      g->no_fill ? eval(call("tir.tvm_fill_fragment", 6, V(af), I(16), I(16), I(16), I(0),
                             ir_float(&A, DT_F16, 0)))
                 : ir_for(&A, i, I(0), I(2), FOR_SERIAL, NULL,
                          eval(call("tir.tvm_fill_fragment", 6, V(cf), I(g->m), I(g->n), I(g->k),
                                    V(i), ir_float(&A, g->acc, 0)))),
      ir_for(&A, i, I(0), I(2), FOR_SERIAL, NULL,
             eval(call("tir.tvm_load_matrix_sync", 8, V(af), I(g->load_m), I(16), I(16), V(i),
                       access_ptr(bufA, mul(V(i), I(256)), 1), I(16), str(g->a_layout)))),
      seq(2,
          eval(call("tir.tvm_load_matrix_sync", 8, V(bf), I(16), I(16), I(16), I(0),
                    access_ptr(bufB, I(0), 1), I(16), str("row_major"))),
          g->a_layout2 ? eval(call("tir.tvm_load_matrix_sync", 8, V(af), I(16), I(16), I(16), I(1),
                                   access_ptr(bufA, I(256), 1), I(16), str(g->a_layout2)))
                       : eval(call("tir.tvm_storage_sync", 1, str("warp")))),
      ir_for(&A, i, I(0), I(2), FOR_SERIAL, NULL,
             eval(call("tir.tvm_mma_sync", 8, V(cf), V(i), V(af), V(i), V(bf), I(0), V(cf), V(i)))),
      ir_for(&A, i, I(0), I(2), FOR_SERIAL, NULL,
             eval(call("tir.tvm_store_matrix_sync", 8, V(cf), I(16), I(16), I(16), V(i),
                       access_ptr(g->acc.bits == 16 ? bufCh : bufC, mul(V(i), I(256)), 2), I(16),
                       str("row_major")))));
  if (g->element_read) {
    Buffer *cb = arena_alloc(&A, sizeof *cb);
    *cb = *bufC;
    cb->name = cf->name, cb->data = cf, cb->dtype = g->acc;
    body = seq(2, body, ir_store(&A, bufC, ir_load(&A, cb, I(0), NULL), I(0), NULL));
  }
  return warp(alloc(
      af, DT_F16, 512, "wmma.matrix_a",
      alloc(bf, DT_F16, 256, "wmma.matrix_b", alloc(cf, g->acc, 512, "wmma.accumulator", body))));
}

static Var **frag_vars(void) {
  Var **v = arena_alloc(&A, 3 * sizeof *v);
  v[0] = ir_var(&A, "A.wmma.matrix_a", DT_HANDLE64);
  v[1] = ir_var(&A, "B.wmma.matrix_b", DT_HANDLE64);
  v[2] = ir_var(&A, "C.wmma.accumulator", DT_HANDLE64);
  return v;
}

static const Gemm good = {16, 16, 16, 16, "row_major", NULL, DT_F32, false, false};

static Buffer **params(void) {
  Buffer **b = arena_alloc(&A, 4 * sizeof *b);
  b[0] = bufA, b[1] = bufB, b[2] = bufC, b[3] = bufCh;
  return b;
}

static void test_gemm(void) {
  Diag d = DIAG_INIT;
  Var **f = frag_vars();
  char *src = source(4, params(), gemm(&good, f), &d);
  CHECK(src != NULL);
  if (!src) return (void)printf("%s\n", d.msg);
  HAS(src, "#include <mma.h>\n");
  HAS(src, "nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, "
           "nvcuda::wmma::row_major> A_wmma_matrix_a[2];");
  HAS(src, "nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, "
           "nvcuda::wmma::row_major> B_wmma_matrix_b[1];");
  HAS(src, "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> "
           "C_wmma_accumulator[2];");
  HAS(src, "nvcuda::wmma::fill_fragment(C_wmma_accumulator[i], 0.0f);");
  HAS(src, "nvcuda::wmma::load_matrix_sync(A_wmma_matrix_a[i], ((half*)A + (i * 256)), 16);");
  HAS(src, "nvcuda::wmma::mma_sync(C_wmma_accumulator[i], A_wmma_matrix_a[i], "
           "B_wmma_matrix_b[0], C_wmma_accumulator[i]);");
  HAS(src, "nvcuda::wmma::store_matrix_sync(((float*)C + (i * 256)), C_wmma_accumulator[i], 16, "
           "nvcuda::wmma::mem_row_major);");
  free(src);
}

/* tir.InferFragment's attributes, as the lowered IR prints them. */
static void test_infer_attrs(void) {
  Diag d = DIAG_INIT;
  LoweredFunc *f = lower(4, params(), gemm(&good, frag_vars()), &d);
  CHECK(f != NULL && f->ndevice == 1);
  if (!f || f->ndevice != 1) return;
  StrBuf b = STRBUF_INIT;
  lower_print_device_func(&b, &f->device[0]);
  HAS(sb_cstr(&b), "attr [A.wmma.matrix_a] \"fragment_layout\" = \"row_major\";\n"
                   "  attr [A.wmma.matrix_a] \"fragment_shape\" = \"16, 16, 16\";\n"
                   "  allocate(A.wmma.matrix_a");
  HAS(sb_cstr(&b), "attr [C.wmma.accumulator] \"fragment_shape\" = \"16, 16, 16\";\n"
                   "  allocate(C.wmma.accumulator");
  CHECK(!strstr(sb_cstr(&b), "[C.wmma.accumulator] \"fragment_layout\""));
  /* the passes again over their own output: nothing wrapped twice */
  LowerOptions o = {0};
  LoweredFunc again = *f;
  again.body = f->device[0].body;
  again.ndevice = 0;
  LoweredFunc *g = lower_gpu_passes(&A, &again, &o, &d);
  CHECK(g != NULL && g->ndevice == 1);
  if (g && g->ndevice == 1) {
    StrBuf c = STRBUF_INIT;
    lower_print_device_func(&c, &g->device[0]);
    const char *first = strstr(sb_cstr(&c), "\"fragment_shape\"");
    CHECK(first && strstr(first + 1, "[A.wmma.matrix_a] \"fragment_shape\"") == NULL);
    sb_free(&c);
  }
  sb_free(&b);
}

/* The accumulator's shape from mma_sync alone (its fill is of matrix_a); float16 accumulation. */
static void test_shape_through_mma(void) {
  Gemm g = good;
  g.no_fill = true;
  g.acc = DT_F16;
  Diag d = DIAG_INIT;
  char *src = source(4, params(), gemm(&g, frag_vars()), &d);
  CHECK(src != NULL);
  if (!src) return (void)printf("%s\n", d.msg);
  HAS(src, "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, half> "
           "C_wmma_accumulator[2];");
  free(src);
}

static void expect_error(const Gemm *g, const char *part) {
  Diag d = DIAG_INIT;
  char *src = source(4, params(), gemm(g, frag_vars()), &d);
  CHECK(src == NULL);
  free(src);
  FAILS_WITH(d, part);
}

static void test_errors(void) {
  Gemm g = good;
  g.n = 8;
  expect_error(&g, "cannot infer the TensorCore fragments: fragment 'C.wmma.accumulator' "
                   "(wmma.accumulator) is 16x8x16 by @tir.tvm_fill_fragment and 16x16x16 by "
                   "@tir.tvm_store_matrix_sync");
  g = good;
  g.load_m = 32;
  expect_error(&g, "@tir.tvm_mma_sync multiplies fragments of different shapes: "
                   "'C.wmma.accumulator' is 16x16x16 (by @tir.tvm_fill_fragment) and "
                   "'A.wmma.matrix_a' is 32x16x16 (by @tir.tvm_load_matrix_sync)");
  g = good;
  g.a_layout2 = "col_major";
  expect_error(&g, "fragment 'A.wmma.matrix_a' (wmma.matrix_a) is loaded both row_major and "
                   "col_major");
  g = good;
  g.a_layout = "diagonal";
  expect_error(&g, "the layout of @tir.tvm_load_matrix_sync is \"diagonal\", not \"row_major\" "
                   "or \"col_major\"");
  g = good;
  g.element_read = true;
  expect_error(&g, "not supported yet: TensorCore fragment 'C.wmma.accumulator' is read element "
                   "by element on the cuda target");
}

/* mma_sync with its fragments in the wrong scopes; a fragment no intrinsic uses. */
static void test_scope_errors(void) {
  Var **f = frag_vars();
  Stmt *body = warp(alloc(f[0], DT_F16, 256, "wmma.matrix_a",
                          alloc(f[2], DT_F32, 256, "wmma.accumulator",
                                eval(call("tir.tvm_mma_sync", 8, V(f[2]), I(0), V(f[0]), I(0),
                                          V(f[0]), I(0), V(f[2]), I(0))))));
  Diag d = DIAG_INIT;
  CHECK(source(4, params(), body, &d) == NULL);
  FAILS_WITH(d, "argument 4 of @tir.tvm_mma_sync is fragment 'A.wmma.matrix_a' of "
                "wmma.matrix_a, where wmma.matrix_b is wanted");

  Var *lone = ir_var(&A, "D.wmma.accumulator", DT_HANDLE64);
  Diag d2 = DIAG_INIT;
  char *src = source(4, params(),
                     warp(alloc(lone, DT_F32, 256, "wmma.accumulator",
                                eval(call("tir.tvm_storage_sync", 1, str("warp"))))),
                     &d2);
  CHECK(src == NULL);
  FAILS_WITH(d2, "TensorCore fragment 'D.wmma.accumulator' (wmma.accumulator) has no shape");
  free(src);

  Diag d3 = DIAG_INIT;
  Stmt *store = warp(alloc(f[0], DT_F16, 256, "wmma.matrix_a",
                           eval(call("tir.tvm_store_matrix_sync", 8, V(f[0]), I(16), I(16), I(16),
                                     I(0), access_ptr(bufA, I(0), 2), I(16), str("row_major")))));
  CHECK(source(4, params(), store, &d3) == NULL);
  FAILS_WITH(d3, "@tir.tvm_store_matrix_sync stores fragment 'A.wmma.matrix_a' of "
                 "wmma.matrix_a: only a wmma.accumulator fragment can be stored");

  /* a shape CUDA has no fragment of */
  Diag d4 = DIAG_INIT;
  Stmt *small =
      warp(alloc(lone, DT_F32, 64, "wmma.accumulator",
                 seq(2,
                     eval(call("tir.tvm_fill_fragment", 6, V(lone), I(8), I(8), I(8), I(0),
                               ir_float(&A, DT_F32, 0))),
                     eval(call("tir.tvm_store_matrix_sync", 8, V(lone), I(8), I(8), I(8), I(0),
                               access_ptr(bufC, I(0), 2), I(8), str("row_major"))))));
  CHECK(source(4, params(), small, &d4) == NULL);
  FAILS_WITH(d4, "not supported yet: fragment 'D.wmma.accumulator' of shape 8x8x8 on the cuda "
                 "target (TensorCores take 16x16x16, 32x8x16 and 8x32x16)");
}

int main(void) {
  arena_init(&A);
  Diag d = DIAG_INIT;
  have_nvrtc = nvrtc_available(&d);
  if (!have_nvrtc) printf("NVRTC checks skipped: %s\n", d.msg);
  bufA = param("A", DT_F16, 512);
  bufB = param("B", DT_F16, 256);
  bufC = param("C", DT_F32, 512);
  bufCh = param("Ch", DT_F16, 512);
  test_gemm();
  test_infer_attrs();
  test_shape_through_mma();
  test_errors();
  test_scope_errors();
  arena_free(&A);
  return finish();
}
