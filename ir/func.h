/* func.h: the lowered function, what tvm.lower gives and what every back end reads: its name,
 * its parameters as buffers and the loop IR of its body. It stands apart from the lowering
 * (ir/lower.h) so a back end sees functions, not schedules. The printer is in ir/lower.c. */
#ifndef TES_IR_FUNC_H
#define TES_IR_FUNC_H

#include <stdbool.h>

#include "ir/expr.h"
#include "ir/strbuf.h"

/* A kernel tir.SplitHostDevice (ir/pass/split_host_device.c) took out of a GPU function's body:
 * an outermost thread_extent attribute and what it binds inside. Its parameters are the buffers
 * it reads or writes (their data variables: the function's parameters in their order, then
 * buffers the host code allocates, in order of first use) and then the scalars it reads from
 * host code (shape variables in the order of the parameters' shapes, then host loop and let
 * variables in order of first use). grid and block are the extents of blockIdx.x/y/z and
 * threadIdx.x/y/z (NULL: not bound, 1), expressions of host code. */
typedef struct DeviceFunc {
  const char *name; /* NAME_kernelK, K counting the kernels of the function from 0 */
  int nbufs;
  Var **bufs;
  DType *buf_dtypes; /* the element type of each buffer */
  int nscalars;
  Var **scalars;
  Expr *grid[3], *block[3];
  Stmt *body;
} DeviceFunc;

/* What a lowering gives: PrimFunc-like. params[i] is the buffer of the argument tensor
 * param_tensors[i], in the order the arguments were given. */
typedef struct LoweredFunc {
  const char *name;
  int nparams;
  Buffer **params;
  Tensor **param_tensors;
  Stmt *body;
  bool thread_synced; /* tir.ThreadSync ran: shared memory has its barriers */
  /* After tir.SplitHostDevice (GPU targets), the kernels; body is then the host function,
   * which launches kernel K by @tir.tvm_call_packed("NAME_kernelK", bufs..., scalars...,
   * launch extents...) (the extents of the bound tags in the order blockIdx.x/y/z,
   * threadIdx.x/y/z). */
  int ndevice;
  DeviceFunc *device;
} LoweredFunc;

/* `@main = primfn(A: Buffer(float32, [m]), B: ...) {`, the body, `}`, each line ending in a
 * newline. The body goes through the one IR printer. */
void lower_print_func(StrBuf *out, const LoweredFunc *f);

/* `@NAME_kernelK = primfn(A: handle(float32), n: int32) attr = {"launch": [...]} {`, the
 * body, `}`: a kernel as the dumps and lower_print_func show it (ir/lower.c). */
void lower_print_device_func(StrBuf *out, const DeviceFunc *k);

/* The variables that appear in f's parameter shapes, in order of first appearance (the
 * scalar arguments every back end passes after the buffers), into out, which has room for
 * max; returns how many there are (possibly more than max). func.c. */
int ir_func_shape_vars(const LoweredFunc *f, Var **out, int max);

#endif
