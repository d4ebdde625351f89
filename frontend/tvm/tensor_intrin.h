/* tensor_intrin.h: te.decl_tensor_intrin's TensorIntrin value (tensor_intrin.c), as
 * Stage.tensorize (sched.c) reads it back. */
#ifndef TES_TVM_TENSOR_INTRIN_H
#define TES_TVM_TENSOR_INTRIN_H

#include "frontend/lang/value.h"
#include "ir/schedule/schedule.h"

/* The intrinsic a value wraps, or NULL (nothing raised). */
TensorIntrin *bi_tensor_intrin_of(Value *v);
/* Adds decl_tensor_intrin and the TensorIntrin type to the tvm.te module. */
int bi_tensor_intrin_init(Interp *I, Value *module);

#endif
