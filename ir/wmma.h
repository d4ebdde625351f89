/* wmma.h: what tir.InferFragment (ir/pass/infer_fragment.c) and the cuda target's TensorCore
 * code (backends/cuda/cuda_wmma.c) agree on: the three fragment scopes, the four intrinsics
 * that reach them, and the attributes the pass puts on a fragment's allocation, as TVM has
 * them: `attr [buf] "fragment_shape" = "16, 16, 16"` (m, n, k) and, for matrix_a and matrix_b,
 * `attr [buf] "fragment_layout" = "row_major"`, around the allocation of buf. */
#ifndef TES_IR_WMMA_H
#define TES_IR_WMMA_H

#include <string.h>

#include "ir/expr.h"

typedef enum { WMMA_NONE, WMMA_MATRIX_A, WMMA_MATRIX_B, WMMA_ACCUMULATOR } WmmaScope;

static inline WmmaScope wmma_scope(const char *scope) {
  if (!scope) return WMMA_NONE;
  if (strcmp(scope, "wmma.matrix_a") == 0) return WMMA_MATRIX_A;
  if (strcmp(scope, "wmma.matrix_b") == 0) return WMMA_MATRIX_B;
  if (strcmp(scope, "wmma.accumulator") == 0) return WMMA_ACCUMULATOR;
  return WMMA_NONE;
}

/* The intrinsics and their arguments:
 *   tvm_fill_fragment(buf, m, n, k, index, value)
 *   tvm_load_matrix_sync(buf, m, n, k, index, ptr, stride, layout)
 *   tvm_store_matrix_sync(buf, m, n, k, index, ptr, stride, layout)
 *   tvm_mma_sync(d, di, a, ai, b, bi, c, ci)
 * buf, d, a, b, c: fragment data variables; index, di, ...: which fragment of the array. */
typedef enum { WMMA_CALL_NONE, WMMA_FILL, WMMA_LOAD, WMMA_STORE, WMMA_MMA } WmmaCall;

static inline WmmaCall wmma_call(const Expr *e) {
  if (e->kind != EXPR_CALL) return WMMA_CALL_NONE;
  const char *op = e->u.call.op, *fn = strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
  if (strcmp(fn, "tvm_fill_fragment") == 0) return WMMA_FILL;
  if (strcmp(fn, "tvm_load_matrix_sync") == 0) return WMMA_LOAD;
  if (strcmp(fn, "tvm_store_matrix_sync") == 0) return WMMA_STORE;
  if (strcmp(fn, "tvm_mma_sync") == 0) return WMMA_MMA;
  return WMMA_CALL_NONE;
}

/* The number of arguments each takes. */
static inline int wmma_call_arity(WmmaCall c) { return c == WMMA_FILL ? 6 : 8; }

#define WMMA_ATTR_SHAPE "fragment_shape"
#define WMMA_ATTR_LAYOUT "fragment_layout"

#endif
