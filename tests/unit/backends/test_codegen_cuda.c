/* test_codegen_cuda.c: unit tests of the cuda dialect's vector code (backends/cuda/
 * cuda_vector.c) on IR built by hand, for the forms no schedule makes today: a scalar let that
 * proves a ramp's alignment, a store whose lanes read what earlier lanes write, a predicated
 * store, a load under a branch of if_then_else (not read ahead), a vector let, 3 lanes, a
 * buffer's elem_offset, popcount of int8 lanes, a let inside an expression and a vector
 * allocation (refused). Each text
 * is compiled by NVRTC where it can be loaded (skipped with the reason printed otherwise). */
#include <stdlib.h>

#include "backends/cuda/codegen_cuda.h"
#include "ir/lower.h"
#include "jit/nvrtc.h"
#include "tests/unit/schedule/sched_test.h"

static bool have_nvrtc;

static Buffer *param(const char *name, DType t, Expr *elem_offset) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = name,
                .data = ir_var(&A, name, DT_HANDLE64),
                .dtype = t,
                .ndim = 1,
                .shape = arena_alloc(&A, sizeof(Expr *)),
                .elem_offset = elem_offset,
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  b->shape[0] = I(4096);
  return b;
}

static Var *tx;

/* body under threadIdx.x of extent 64, as function f(bufs...). */
static LoweredFunc *func(const char *name, int n, Buffer **bufs, Stmt *body) {
  IterVar *iv = ir_itervar(&A, tx, (Range){I(0), I(64)}, ITER_THREAD, "threadIdx.x");
  LoweredFunc *f = arena_alloc(&A, sizeof *f);
  *f = (LoweredFunc){.name = name, .nparams = n, .params = bufs,
                     .body = ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(64), body)};
  /* the kernels are tir.SplitHostDevice's, as a cuda build has them */
  Diag d = DIAG_INIT;
  LowerOptions o = {0};
  LoweredFunc *g = lower_gpu_passes(&A, f, &o, &d);
  if (!g) printf("lower_gpu_passes: %s\n", d.msg);
  return g ? g : f;
}

/* The kernel's text (from its `extern "C"` on); compiled by NVRTC when it is there. */
static char *kernel_text(const LoweredFunc *f) {
  Diag d = DIAG_INIT;
  CudaModule *m = cg_cuda_build(f, NULL, &d);
  if (!m) {
    printf("cg_cuda_build: %s\n", d.msg);
    return xstrdup("");
  }
  if (have_nvrtc) {
    char *ptx = nvrtc_compile(m->source, "sm_80", &d);
    CHECK(ptx != NULL);
    if (!ptx) printf("%s\n%s\n", m->source, d.msg);
    free(ptx);
  }
  char *k = xstrdup(strstr(m->source, "extern \"C\""));
  cg_cuda_free(m);
  return k;
}

static Expr *ramp(Expr *base, int lanes) { return ir_ramp(&A, base, I(1), lanes); }
static Expr *bcast(Expr *v, int lanes) { return ir_broadcast(&A, v, lanes); }
static Expr *load(Buffer *b, Expr *index) { return ir_load(&A, b, index, NULL); }
static Expr *tx4(int64_t plus) { return plus ? add(mul(V(tx), I(4)), I(plus)) : mul(V(tx), I(4)); }

#define HAS(text, part)                                                                            \
  do {                                                                                             \
    const char *has_text_ = (text) ? (text) : "(no source)";                                       \
    CHECK(strstr(has_text_, part) != NULL);                                                        \
    if (!strstr(has_text_, part)) printf("--- wanted\n%s\n--- in\n%s\n", part, has_text_);       \
  } while (0)

/* let x = tx*4: x is a multiple of 4, so x's ramps move as float4 */
static void test_let_alignment(void) {
  Buffer *a = param("A", DT_F32, NULL), *c = param("C", DT_F32, NULL);
  Var *x = var("x");
  Stmt *st = ir_store(&A, c, add(load(a, ramp(V(x), 4)), bcast(F(1), 4)), ramp(V(x), 4), NULL);
  char *k = kernel_text(func("let_align", 2, (Buffer *[]){a, c}, ir_let_stmt(&A, x, mul(V(tx), I(4)), st)));
  HAS(k, "  int32_t x = (((int)threadIdx.x) * 4);\n"
         "  {\n"
         "    float4 A_v = *(float4*)(A + x);\n"
         "    float4 C_v;\n"
         "    C_v.x = (A_v.x + 1.0f);\n");
  HAS(k, "    *(float4*)(C + x) = C_v;\n  }\n");
  free(k);
}

/* C[tx*4+3 ...] = C[tx*4+1 ...]: lane 2 reads what lane 0 writes, so every lane is read
 * before any is stored; an aligned load is read ahead anyway */
static void test_hazard(void) {
  Buffer *c = param("C", DT_F32, NULL);
  Stmt *st = ir_store(&A, c, load(c, ramp(tx4(1), 4)), ramp(tx4(3), 4), NULL);
  char *k = kernel_text(func("hazard", 1, (Buffer *[]){c}, st));
  HAS(k, "    float4 C_v;\n"
         "    C_v.x = C[((((int)threadIdx.x) * 4) + 1)];\n"
         "    C_v.y = C[(((((int)threadIdx.x) * 4) + 1) + 1)];\n");
  HAS(k, "    C_v.w = C[(((((int)threadIdx.x) * 4) + 1) + 3)];\n"
         "    C[((((int)threadIdx.x) * 4) + 3)] = C_v.x;\n"
         "    C[(((((int)threadIdx.x) * 4) + 3) + 1)] = C_v.y;\n");
  free(k);
  c = param("C", DT_F32, NULL);
  st = ir_store(&A, c, load(c, ramp(tx4(2), 4)), ramp(tx4(1), 4), NULL);
  k = kernel_text(func("read_ahead", 1, (Buffer *[]){c}, st));
  HAS(k, "    float2 C_v0 = *(float2*)(C + ((((int)threadIdx.x) * 4) + 2));\n"
         "    float2 C_v1 = *(float2*)(C + ((((int)threadIdx.x) * 4) + 2) + 2);\n"
         "    C[((((int)threadIdx.x) * 4) + 1)] = C_v0.x;\n");
  free(k);
  /* the same addresses in every lane are no hazard: lane by lane in place */
  c = param("C", DT_F32, NULL);
  st = ir_store(&A, c, mul(load(c, ramp(tx4(1), 4)), bcast(F(2), 4)), ramp(tx4(1), 4), NULL);
  k = kernel_text(func("in_place", 1, (Buffer *[]){c}, st));
  HAS(k, "{\n  C[((((int)threadIdx.x) * 4) + 1)] = (C[((((int)threadIdx.x) * 4) + 1)] * 2.0f);\n");
  free(k);
}

/* a predicate per lane; a load under if_then_else's branch stays where it is */
static void test_predicate_and_branch(void) {
  Buffer *a = param("A", DT_F32, NULL), *c = param("C", DT_F32, NULL);
  Expr *pred = ir_binary(&A, EXPR_LT, ramp(tx4(0), 4), bcast(I(250), 4));
  Expr *guarded = ir_call(&A, dt_with_lanes(DT_F32, 4), "tir.if_then_else", CALL_PURE, 3,
                          (Expr *[]){pred, load(a, ramp(tx4(0), 4)), bcast(F(0), 4)});
  Stmt *st = ir_seq(&A, 2, (Stmt *[]){ir_store(&A, c, load(a, ramp(tx4(0), 4)), ramp(tx4(0), 4), pred),
                                      ir_store(&A, a, guarded, ramp(tx4(0), 4), NULL)});
  char *k = kernel_text(func("pred", 2, (Buffer *[]){a, c}, st));
  HAS(k, "    float4 A_v = *(float4*)(A + (((int)threadIdx.x) * 4));\n"
         "    if (((((int)threadIdx.x) * 4) < 250)) C[(((int)threadIdx.x) * 4)] = A_v.x;\n"
         "    if ((((((int)threadIdx.x) * 4) + 1) < 250)) C[((((int)threadIdx.x) * 4) + 1)] = A_v.y;\n");
  HAS(k, "    A_v.x = (((((int)threadIdx.x) * 4) < 250) ? A[(((int)threadIdx.x) * 4)] : 0.0f);\n");
  CHECK(strstr(k, "float4 A_v_1") == NULL);
  free(k);
}

/* let v: float32x4 = A*2 becomes a float4 variable, read lane by lane */
static void test_vector_let(void) {
  Buffer *a = param("A", DT_F32, NULL), *c = param("C", DT_F32, NULL);
  Var *v = ir_var(&A, "v", dt_with_lanes(DT_F32, 4));
  Expr *val = mul(load(a, ramp(tx4(0), 4)), bcast(F(2), 4));
  Stmt *st = ir_let_stmt(&A, v, val, ir_store(&A, c, add(V(v), V(v)), ramp(tx4(0), 4), NULL));
  char *k = kernel_text(func("vlet", 2, (Buffer *[]){a, c}, st));
  HAS(k, "  float4 A_v = *(float4*)(A + (((int)threadIdx.x) * 4));\n"
         "  float4 v;\n"
         "  v.x = (A_v.x * 2.0f);\n");
  HAS(k, "    C_v.w = (v.w + v.w);\n");
  free(k);
}

/* 3 lanes: no CUDA vector divides them, element by element; an elem_offset of 1 breaks the
 * alignment, one of 4 keeps it */
static void test_lanes_and_offsets(void) {
  Buffer *a = param("A", DT_F32, NULL), *c = param("C", DT_F32, NULL);
  Expr *b3 = mul(V(tx), I(3));
  Stmt *st = ir_store(&A, c, add(load(a, ramp(b3, 3)), bcast(F(1), 3)), ramp(b3, 3), NULL);
  char *k = kernel_text(func("three", 2, (Buffer *[]){a, c}, st));
  HAS(k, "  C[((((int)threadIdx.x) * 3) + 2)] = (A[((((int)threadIdx.x) * 3) + 2)] + 1.0f);\n");
  free(k);
  Buffer *o1 = param("O", DT_F32, I(1)), *o4 = param("P", DT_F32, I(4));
  c = param("C", DT_F32, NULL);
  st = ir_store(&A, c, add(load(o1, ramp(tx4(0), 4)), load(o4, ramp(tx4(0), 4))), ramp(tx4(0), 4), NULL);
  k = kernel_text(func("offsets", 3, (Buffer *[]){o1, o4, c}, st));
  HAS(k, "    float4 P_v = *(float4*)(P + (((int)threadIdx.x) * 4) + 4);\n");
  HAS(k, "    C_v.y = (O[((((int)threadIdx.x) * 4) + 1) + 1] + P_v.y);\n");
  free(k);
}

/* popcount counts the int8's own bits, lane by lane */
static void test_popcount(void) {
  Buffer *a = param("A", DT_MAKE(DT_INT, 8, 1), NULL), *c = param("C", DT_I32, NULL);
  Expr *x = load(a, ramp(tx4(0), 4));
  Expr *pc = ir_call(&A, dt_with_lanes(DT_MAKE(DT_INT, 8, 1), 4), "tir.popcount", CALL_PURE, 1, &x);
  Stmt *st = ir_store(&A, c, ir_cast(&A, dt_with_lanes(DT_I32, 4), pc), ramp(tx4(0), 4), NULL);
  char *k = kernel_text(func("popc", 2, (Buffer *[]){a, c}, st));
  HAS(k, "    C_v.z = ((int32_t)__popc((uint8_t)A_v.z));\n");
  free(k);
}

/* a scalar let inside an expression, in a scalar store and in the lanes of a vector one */
static void test_let_expression(void) {
  Buffer *a = param("A", DT_F32, NULL), *c = param("C", DT_F32, NULL);
  Var *x = ir_var(&A, "x", DT_F32);
  Expr *lx = ir_let(&A, x, mul(load(a, V(tx)), F(2)), add(V(x), V(x)));
  Expr *lv = ir_let(&A, x, load(a, V(tx)), add(load(a, ramp(tx4(0), 4)), bcast(V(x), 4)));
  Stmt *st = ir_seq(&A, 2, (Stmt *[]){ir_store(&A, c, lx, V(tx), NULL),
                                      ir_store(&A, c, lv, ramp(tx4(0), 4), NULL)});
  char *k = kernel_text(func("let_expr", 2, (Buffer *[]){a, c}, st));
  HAS(k, "  C[((int)threadIdx.x)] = ([&]() { float x = (A[((int)threadIdx.x)] * 2.0f); return (x + x); }());\n");
  HAS(k, "    C_v.y = ([&]() { float x = A[((int)threadIdx.x)]; return (A[((((int)threadIdx.x) * 4) + 1)] + x); }());\n");
  free(k);
}

static void test_vector_allocation_refused(void) {
  Buffer *c = param("C", DT_F32, NULL);
  Var *t = ir_var(&A, "T", DT_HANDLE64);
  Stmt *st = ir_allocate(&A, t, dt_with_lanes(DT_F32, 4), 1, (Expr *[]){I(4)}, "local", NULL,
                         ir_store(&A, c, F(0), V(tx), NULL));
  Diag d = DIAG_INIT;
  CHECK(cg_cuda_build(func("valloc", 1, (Buffer *[]){c}, st), NULL, &d) == NULL);
  CHECK(strstr(d.msg, "not supported yet: vector allocation (4 lanes) on the cuda target") != NULL);
}

int main(void) {
  arena_init(&A);
  Diag d = DIAG_INIT;
  have_nvrtc = nvrtc_available(&d);
  if (!have_nvrtc) printf("NVRTC checks skipped: %s\n", d.msg);
  tx = var("threadIdx.x");
  test_let_alignment();
  test_hazard();
  test_predicate_and_branch();
  test_vector_let();
  test_lanes_and_offsets();
  test_popcount();
  test_let_expression();
  test_vector_allocation_refused();
  arena_free(&A);
  return finish();
}
