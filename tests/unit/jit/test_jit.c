/* test_jit.c: jit/jit.c (loading objects into the ORC session, lookups, unloading, the host's
 * symbols, errors); jit/runtime.c's thread pool is test_runtime.c's. */
#include <stdlib.h>

#include "../schedule/sched_test.h"
#include "backends/llvm/codegen_llvm.h"
#include "jit/jit.h"

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
  LoweredFunc f = {"fill", 1, &a, NULL, body, false, 0, NULL};
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

/* The host's functions (jit_define_host_symbols) resolve in objects loaded after they are
 * defined, ahead of the process's symbols; defined again, the new address. */
static float host_seven(float x) { return x + 7; }
static float host_eight(float x) { return x + 8; }

static void test_jit_host_symbols(void) {
  Diag err = DIAG_INIT;
  const char *names[] = {"tes_test_host_fn"};
  void *addrs[] = {(void *)host_seven};
  jit_define_host_symbols(1, names, addrs);
  JitLib *lib = load_fill(1, "tes_test_host_fn", &err);
  CHECK(lib && run_fill(lib) == 8);
  jit_unload(lib);
  addrs[0] = (void *)host_eight;
  jit_define_host_symbols(1, names, addrs);
  lib = load_fill(1, "tes_test_host_fn", &err);
  CHECK(lib && run_fill(lib) == 9);
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
  arena_init(&A);
  test_jit_same_names();
  test_jit_externals();
  test_jit_host_symbols();
  test_jit_bad_object();
  arena_free(&A);
  sb_free(&sb);
  return finish();
}
