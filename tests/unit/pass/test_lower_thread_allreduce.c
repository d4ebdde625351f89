/* test_lower_thread_allreduce.c: tir.LowerThreadAllreduce (ir/pass/lower_thread_allreduce.c):
 * a sum over 32 threads becomes warp shuffles ending in a broadcast into the result buffer;
 * the reduce_scope attribute and the allreduce are gone; a function without an allreduce is
 * returned as it is; an allreduce under a condition on the thread index (not every thread
 * would reach its shuffles) is refused. The forms are run against numpy by
 * tests/lit/codegen/cuda_allreduce_emulate_*.tes. */
#include "tests/unit/schedule/sched_test.h"

static Var *tx;
static IterVar *tx_iv;
static Buffer *temp, *glob;
static CommReducer *adder;

static Stmt *run_pass(Stmt *s, Diag *d) {
  PassCtx ctx = {.arena = &A, .gpu = true, .diag = d};
  return pass_lower_thread_allreduce(s, &ctx);
}

/* attr [sum] "reduce_scope"; tvm_thread_allreduce(1u32, G[tx], True, temp[0], tx) */
static Stmt *allreduce(void) {
  Expr *args[5] = {ir_int(&A, DT_MAKE(DT_UINT, 32, 1), 1), ir_load(&A, glob, V(tx), NULL),
                   ir_int(&A, DT_BOOL1, 1), ir_load(&A, temp, I(0), NULL), V(tx)};
  Expr *call = ir_call(&A, DT_HANDLE64, "tir.tvm_thread_allreduce", CALL_EFFECT, 5, args);
  Expr *zero = ir_int(&A, DT_MAKE(DT_UINT, 64, 1), 0);
  Expr *handle = ir_call(&A, DT_HANDLE64, "tir.reinterpret", CALL_PURE, 1, &zero);
  return ir_attr(&A, ATTR_NODE_COMMREDUCER, adder, "reduce_scope", handle,
                 ir_evaluate(&A, call));
}

static Stmt *kernel(Stmt *body) {
  Expr *one = I(1);
  Stmt *alloc = ir_allocate(&A, temp->data, DT_F32, 1, &one, "local", NULL, body);
  return ir_attr(&A, ATTR_NODE_ITERVAR, tx_iv, "thread_extent", I(32), alloc);
}

static void test_lower_thread_allreduce_warp(void) {
  Diag d = DIAG_INIT;
  const char *text = ps(run_pass(kernel(allreduce()), &d));
  CHECK(!diag_failed(&d));
  CHECK(!strstr(text, "tvm_thread_allreduce") && !strstr(text, "reduce_scope"));
  CHECK(strstr(text, "mask[0] = @tir.tvm_warp_activemask(dtype=uint32)\n"));
  CHECK(strstr(text, "red_buf0[0] = G[tx]\n"));
  CHECK(strstr(text, "t0[0] = @tir.tvm_warp_shuffle_down(mask[0], red_buf0[0], 16, 32, 32, "
                     "dtype=float32)\n"));
  CHECK(strstr(text, "t0[0] = @tir.tvm_warp_shuffle_down(mask[0], red_buf0[0], 1, 32, 32, "
                     "dtype=float32)\n"));
  CHECK(strstr(text, "red_buf0[0] = @tir.tvm_warp_shuffle(mask[0], red_buf0[0], 0, 32, 32, "
                     "dtype=float32)\n"));
  CHECK(strstr(text, "temp[0] = red_buf0[0]\n"));
  CHECK(!strstr(text, "tvm_storage_sync")); /* one warp: no shared memory, no barrier */
}

static void test_lower_thread_allreduce_untouched(void) {
  Diag d = DIAG_INIT;
  Stmt *s = kernel(ir_store(&A, glob, F(1), V(tx), NULL));
  CHECK(run_pass(s, &d) == s && !diag_failed(&d));
}

static void test_lower_thread_allreduce_thread_guard(void) {
  Diag d = DIAG_INIT;
  Stmt *s = kernel(ir_if(&A, ir_binary(&A, EXPR_LT, V(tx), I(16)), allreduce(), NULL));
  CHECK(run_pass(s, &d) == s);
  CHECK(diag_failed(&d) && strstr(d.msg, "not supported yet") &&
        strstr(d.msg, "every thread of the block must reach it"));
}

int main(void) {
  arena_init(&A);
  tx = var("tx");
  tx_iv = ir_itervar(&A, tx, (Range){I(0), I(32)}, ITER_THREAD, "threadIdx.x");
  temp = arena_alloc(&A, sizeof *temp);
  *temp = (Buffer){.name = "temp", .data = ir_var(&A, "temp", DT_HANDLE64), .dtype = DT_F32,
                   .scope = "local"};
  glob = arena_alloc(&A, sizeof *glob);
  *glob = (Buffer){.name = "G", .data = ir_var(&A, "G", DT_HANDLE64), .dtype = DT_F32,
                   .scope = "global"};
  adder = sum(F(0), 0, NULL)->u.reduce.combiner;
  test_lower_thread_allreduce_warp();
  test_lower_thread_allreduce_untouched();
  test_lower_thread_allreduce_thread_guard();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
