/* func.h: the lowered function, what tvm.lower gives and what every back end reads: its name,
 * its parameters as buffers and the loop IR of its body. It stands apart from the lowering
 * (ir/lower.h) so a back end sees functions, not schedules. The printer is in ir/lower.c. */
#ifndef TES_IR_FUNC_H
#define TES_IR_FUNC_H

#include <stdbool.h>

#include "ir/expr.h"
#include "ir/strbuf.h"

/* What a lowering gives: PrimFunc-like. params[i] is the buffer of the argument tensor
 * param_tensors[i], in the order the arguments were given. */
typedef struct LoweredFunc {
  const char *name;
  int nparams;
  Buffer **params;
  Tensor **param_tensors;
  Stmt *body;
  bool thread_synced; /* tir.ThreadSync ran: shared memory has its barriers */
} LoweredFunc;

/* `@main = primfn(A: Buffer(float32, [m]), B: ...) {`, the body, `}`, each line ending in a
 * newline. The body goes through the one IR printer. */
void lower_print_func(StrBuf *out, const LoweredFunc *f);

/* The variables that appear in f's parameter shapes, in order of first appearance (the
 * scalar arguments every back end passes after the buffers), into out, which has room for
 * max; returns how many there are (possibly more than max). func.c. */
int ir_func_shape_vars(const LoweredFunc *f, Var **out, int max);

#endif
