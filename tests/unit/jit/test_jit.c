/* test_jit.c: jit/jit.c (loading objects into the ORC session, lookups, unloading, errors) and
 * jit/runtime.c (the thread pool of parallel loops). */
#include <stdatomic.h>
#include <stdlib.h>

#include "../schedule/sched_test.h"
#include "backends/llvm/codegen_llvm.h"
#include "jit/jit.h"
#include "jit/runtime.h"

/* ---- the thread pool ---- */

typedef struct Visits {
  int64_t n;
  atomic_int *count;
  atomic_int calls;
  int64_t fail_at; /* the chunk holding this index returns 7; -1: none */
} Visits;

static int32_t visit(int64_t begin, int64_t end, void *closure) {
  Visits *v = closure;
  atomic_fetch_add(&v->calls, 1);
  for (int64_t i = begin; i < end; i++) atomic_fetch_add(&v->count[i], 1);
  return v->fail_at >= begin && v->fail_at < end ? 7 : 0;
}

static void test_jit_parallel_for(void) {
  static const int64_t sizes[] = {0, 1, 2, 3, 5, 1000, 100003};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int64_t n = sizes[k];
    Visits v = {n, calloc((size_t)n + 1, sizeof(atomic_int)), 0, -1};
    CHECK(rt_parallel_for(n, visit, &v) == 0);
    int once = 0;
    for (int64_t i = 0; i < n; i++) once += atomic_load(&v.count[i]) == 1;
    CHECK(once == n);
    CHECK(atomic_load(&v.calls) <= rt_num_threads());
    free(v.count);
  }
}

static void test_jit_parallel_error(void) {
  Visits v = {1000, calloc(1000, sizeof(atomic_int)), 0, 500};
  CHECK(rt_parallel_for(1000, visit, &v) == 7);
  int once = 0;
  for (int i = 0; i < 1000; i++) once += atomic_load(&v.count[i]) == 1;
  CHECK(once == 1000); /* the other chunks still ran */
  free(v.count);
}

/* A parallel loop inside a chunk runs on the calling thread. */
static int32_t outer(int64_t begin, int64_t end, void *closure) {
  Visits *v = closure;
  for (int64_t i = begin; i < end; i++) {
    Visits inner = {10, v->count + i * 10, 0, -1};
    int32_t rc = rt_parallel_for(10, visit, &inner);
    if (rc || atomic_load(&inner.calls) != 1) return 3;
  }
  return 0;
}

static void test_jit_parallel_nested(void) {
  Visits v = {640, calloc(640, sizeof(atomic_int)), 0, -1};
  CHECK(rt_parallel_for(64, outer, &v) == 0);
  int once = 0;
  for (int i = 0; i < 640; i++) once += atomic_load(&v.count[i]) == 1;
  CHECK(once == 640);
  free(v.count);
}

/* Ctrl-C: with the flag set no chunk starts; chunks that stop on it (as generated code does)
 * pass RT_ERR_INTERRUPTED on, every worker still reports in, and the pool runs the next loop
 * once the flag is clear. */
static int32_t stop_at_flag(int64_t begin, int64_t end, void *closure) {
  Visits *v = closure;
  atomic_fetch_add(&v->calls, 1);
  atomic_store(rt_interrupt_flag(), 1);
  return RT_ERR_INTERRUPTED;
}

static void test_jit_parallel_interrupt(void) {
  CHECK(rt_interrupt_flag() == &rt_interrupt_requested);
  Visits v = {1000, calloc(1000, sizeof(atomic_int)), 0, -1};
  atomic_store(rt_interrupt_flag(), 1);
  CHECK(rt_parallel_for(1000, visit, &v) == RT_ERR_INTERRUPTED);
  CHECK(atomic_load(&v.calls) == 0);
  atomic_store(rt_interrupt_flag(), 0);
  for (int round = 0; round < 3; round++) {
    CHECK(rt_parallel_for(1000, stop_at_flag, &v) == RT_ERR_INTERRUPTED);
    CHECK(atomic_load(&v.calls) >= 1);
    atomic_store(rt_interrupt_flag(), 0);
    atomic_store(&v.calls, 0);
    CHECK(rt_parallel_for(1000, visit, &v) == 0);
    int once = 0;
    for (int i = 0; i < 1000; i++) once += atomic_exchange(&v.count[i], 0) == 1;
    CHECK(once == 1000);
    atomic_store(&v.calls, 0);
  }
  /* a host's flag replaces the runtime's own */
  atomic_int host = 1;
  rt_set_interrupt_flag(&host);
  CHECK(rt_parallel_for(1000, visit, &v) == RT_ERR_INTERRUPTED && atomic_load(&v.calls) == 0);
  rt_set_interrupt_flag(NULL);
  CHECK(rt_parallel_for(1000, visit, &v) == 0);
  free(v.count);
}

/* ---- the JIT ---- */

static Buffer *param(const char *name, Expr *extent) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  Expr **shape = arena_alloc(&A, sizeof *shape);
  shape[0] = extent;
  *b = (Buffer){.name = name,
                .data = ir_var(&A, name, DT_HANDLE64),
                .dtype = DT_F32,
                .ndim = 1,
                .shape = shape,
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  return b;
}

/* fill(A): A[i] = value for i < 16, or a call to an external function `callee`. */
static JitLib *load_fill(float value, const char *callee, Diag *err) {
  Buffer *a = param("A", I(16));
  Var *i = var("i");
  Expr *v = F(value);
  if (callee) v = ir_call(&A, DT_F32, callee, CALL_EXTERN, 1, &v);
  Stmt *body = ir_for(&A, i, I(0), I(16), FOR_SERIAL, NULL, ir_store(&A, a, v, V(i), NULL));
  LoweredFunc f = {"fill", 1, &a, NULL, body};
  CgLlvmCode *code = cg_llvm_build(&f, NULL, err);
  if (!code) return NULL;
  void *obj;
  size_t len;
  JitLib *lib = NULL;
  if (cg_llvm_object(code, &obj, &len, err)) {
    lib = jit_load_object(obj, len, err);
    free(obj);
  }
  cg_llvm_free(code);
  return lib;
}

static float run_fill(JitLib *lib) {
  Diag err = DIAG_INIT;
  int32_t (*fill)(float *) = (int32_t(*)(float *))jit_lookup(lib, "fill", &err);
  CHECK(fill != NULL);
  if (!fill) {
    printf("  %s\n", err.msg);
    diag_clear(&err);
    return -1;
  }
  float *buf = aligned_alloc(64, 64);
  float r = fill(buf) == 0 ? buf[15] : -1;
  free(buf);
  return r;
}

/* Two modules define "fill" at once; unloading one leaves the other, and its JITDylib is used
 * again for the next. */
static void test_jit_same_names(void) {
  Diag err = DIAG_INIT;
  JitLib *one = load_fill(1, NULL, &err), *two = load_fill(2, NULL, &err);
  CHECK(one && two);
  if (!one || !two) return;
  CHECK(run_fill(one) == 1 && run_fill(two) == 2);
  jit_unload(one);
  CHECK(run_fill(two) == 2);
  JitLib *three = load_fill(3, NULL, &err);
  CHECK(three && run_fill(three) == 3 && run_fill(two) == 2);
  jit_unload(two);
  jit_unload(three);
  jit_unload(NULL);
}

/* External functions resolve in the process (libm's expf), or fail at lookup with a name. */
static void test_jit_externals(void) {
  Diag err = DIAG_INIT;
  JitLib *lib = load_fill(0, "expf", &err);
  CHECK(lib && run_fill(lib) == 1);
  jit_unload(lib);
  lib = load_fill(0, "tes_no_such_function", &err);
  CHECK(lib != NULL);
  if (!lib) return;
  void *f = jit_lookup(lib, "fill", &err);
  CHECK(!f && strstr(err.msg, "tes_no_such_function"));
  diag_clear(&err);
  jit_unload(lib);
  lib = load_fill(4, NULL, &err); /* the session is fine after a failed link */
  CHECK(lib && run_fill(lib) == 4);
  CHECK(!jit_lookup(lib, "not_there", &err) && strstr(err.msg, "not_there"));
  diag_clear(&err);
  jit_unload(lib);
}

static void test_jit_bad_object(void) {
  Diag err = DIAG_INIT;
  static const char junk[] = "this is not an object file";
  JitLib *lib = jit_load_object(junk, sizeof junk, &err);
  if (lib) { /* ORC may accept the buffer and fail when it links it */
    CHECK(!jit_lookup(lib, "x", &err));
    jit_unload(lib);
  }
  CHECK(diag_failed(&err));
  diag_clear(&err);
}

int main(void) {
  setenv("TES_NUM_THREADS", "3", 1);
  arena_init(&A);
  CHECK(rt_num_threads() == 3);
  test_jit_parallel_for();
  test_jit_parallel_error();
  test_jit_parallel_nested();
  test_jit_parallel_interrupt();
  test_jit_same_names();
  test_jit_externals();
  test_jit_bad_object();
  arena_free(&A);
  sb_free(&sb);
  return finish();
}
