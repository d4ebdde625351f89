/* test_module_cuda.c: the host-code interpreter of frontend/tvm/module_cuda.c against the FAKE
 * CUDA driver (tests/unit/jit/fake_cuda.c, its path the first argument; its log read back).
 * Schedules give host loops, sequences and allocations (tests/lit/codegen/cuda_run_host.tes);
 * lets, conditions, asserts and what is refused do not come out of a schedule yet, so here a
 * built module's host_body is replaced by hand-made ones around its launch: a let binding the
 * kernel's scalar, an if/else on the loop variable, an assert that fails mid-loop, a parallel
 * loop and a store (refused), and a launch whose scalar nothing binds. Skipped, with the reason
 * printed, without NVRTC (the fake needs the kernels' PTX). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/codegen_cuda.h"
#include "frontend/lang/interp.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/packages.h"
#include "jit/nvrtc.h"

#include "tests/unit/check.h"
#include "tests/unit/exc_text.h"

static Interp *I;
static char log_path[] = "/tmp/tes_module_cuda_XXXXXX";

static int run(const char *src) { return interp_run_text(I, "<test>", src, strlen(src), false); }

/* The driver's log since the last call (then emptied). */
static const char *logged(void) {
  static char buf[8192];
  FILE *f = fopen(log_path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = 0;
  if (f) fclose(f);
  fclose(fopen(log_path, "w"));
  return buf;
}

#define LAUNCH(i) "launch rows_kernel0 grid=(4,1,1) block=(64,1,1) shared=0 args=(buf#0, buf#1, " #i ")\n"

int main(int argc, char **argv) {
  Diag d = DIAG_INIT;
  if (argc < 2 || !nvrtc_available(&d)) {
    printf("skipped: %s\n", argc < 2 ? "no fake driver given" : d.msg);
    return 0;
  }
  int fd = mkstemp(log_path);
  CHECK(fd >= 0);
  close(fd);
  setenv("TES_CUDA_DRIVER", argv[1], 1);
  setenv("FAKE_CUDA_LOG", log_path, 1);
  tvm_register_modules();
  I = interp_new();
  CHECK(run("import tvm\nfrom tvm import te\n"
            "A = te.placeholder((4, 256), name='A')\n"
            "B = te.compute((4, 256), lambda i, j: A[i, j] * 2.0, name='B')\n"
            "s = te.create_schedule(B.op)\n"
            "bx, tx = s[B].split(B.op.axis[1], factor=64)\n"
            "s[B].bind(bx, te.thread_axis('blockIdx.x'))\n"
            "s[B].bind(tx, te.thread_axis('threadIdx.x'))\n"
            "f = tvm.build(s, [A, B], 'cuda', name='rows')\n"
            "a = tvm.nd.empty((4, 256), 'float32', tvm.cuda(0))\n"
            "b = tvm.nd.empty((4, 256), 'float32', tvm.cuda(0))\n"
            "f(a, b)\n") == 0);
  CHECK(strstr(logged(), LAUNCH(0) LAUNCH(1) LAUNCH(2) LAUNCH(3)) != NULL);

  Built *m = built_of(dict_get_sym(interp_globals(I), sym_cstr("f")));
  CudaModule *cm = m->kernels;
  const Stmt *orig = cm->host_body;
  CHECK(orig->kind == STMT_FOR && orig->u.for_.body->kind == STMT_EVALUATE);
  Var *i = orig->u.for_.var;
  Stmt *launch = orig->u.for_.body;
  Arena a;
  arena_init(&a);
  Expr *iv = ir_varref(&a, i);

  /* a let binds the kernel's scalar: one launch with its value */
  cm->host_body = ir_let_stmt(&a, i, ir_i32(&a, 2), launch);
  CHECK(run("f(a, b)\n") == 0);
  CHECK(strcmp(logged(), LAUNCH(2)) == 0);

  /* if/else on the loop variable: i < 2 launches with i, else a let launches with i + 10 */
  Stmt *other = ir_let_stmt(&a, i, ir_binary(&a, EXPR_ADD, iv, ir_i32(&a, 10)), launch);
  Expr *cond = ir_binary(&a, EXPR_AND, ir_binary(&a, EXPR_LT, iv, ir_i32(&a, 2)),
                         ir_not(&a, ir_binary(&a, EXPR_EQ, iv, ir_i32(&a, 7))));
  cm->host_body = ir_for(&a, i, ir_i32(&a, 0), ir_i32(&a, 4), FOR_SERIAL, NULL,
                         ir_if(&a, cond, launch, other));
  CHECK(run("f(a, b)\n") == 0);
  CHECK(strcmp(logged(), LAUNCH(0) LAUNCH(1) LAUNCH(12) LAUNCH(13)) == 0);

  /* an assert that fails at i = 2: two launches, then a RuntimeError with its message */
  cm->host_body = ir_for(&a, i, ir_i32(&a, 0), ir_i32(&a, 4), FOR_SERIAL, NULL,
                         ir_assert(&a, ir_binary(&a, EXPR_LT, iv, ir_i32(&a, 2)),
                                   ir_str(&a, "i went too far"), launch));
  CHECK(run("f(a, b)\n") < 0 && interp_error_matches(I, EXC_RuntimeError));
  CHECK(strcmp(exc_text(I), "rows: i went too far") == 0);
  CHECK(strcmp(logged(), LAUNCH(0) LAUNCH(1)) == 0);

  /* refused, never skipped: a parallel loop, a store, a launch of something unknown */
  cm->host_body = ir_for(&a, i, ir_i32(&a, 0), ir_i32(&a, 4), FOR_PARALLEL, NULL, launch);
  CHECK(run("f(a, b)\n") < 0 && interp_error_matches(I, EXC_RuntimeError));
  CHECK(strcmp(exc_text(I), "rows: not supported yet: a loop that is not serial, over 4 in the host "
                        "code of a cuda module") == 0);
  cm->host_body = ir_store(&a, m->f->params[1], ir_float(&a, DT_F32, 1.0), ir_i32(&a, 0), NULL);
  CHECK(run("f(a, b)\n") < 0 && interp_error_matches(I, EXC_RuntimeError));
  CHECK(strcmp(exc_text(I), "rows: not supported yet: a STORE statement in the host code of a cuda "
                        "module") == 0);
  Expr *name = ir_str(&a, "elsewhere");
  cm->host_body = ir_evaluate(&a, ir_call(&a, DT_I32, "tir.tvm_call_packed", CALL_EFFECT, 1, &name));
  CHECK(run("f(a, b)\n") < 0 && interp_error_matches(I, EXC_RuntimeError));
  const char *t = exc_text(I);
  CHECK(strstr(t, "rows: not supported yet: the evaluation of @tir.tvm_call_packed(") == t);
  CHECK(strstr(t, "in the host code of a cuda module") != NULL);

  /* the launch alone: its scalar i is bound by nothing */
  cm->host_body = launch;
  CHECK(run("f(a, b)\n") < 0 && interp_error_matches(I, EXC_RuntimeError));
  CHECK(strcmp(exc_text(I), "rows: rows_kernel0's argument i is not bound where the host launches "
                        "it") == 0);
  CHECK(strcmp(logged(), "") == 0);

  cm->host_body = orig;
  CHECK(run("f(a, b)\n") == 0);
  CHECK(strstr(logged(), LAUNCH(3)) != NULL);
  arena_free(&a);
  interp_free(I);
  remove(log_path);
  return finish();
}
