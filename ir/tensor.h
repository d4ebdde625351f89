/* tensor.h: tensors and the operations that produce them (te.placeholder, te.compute).
 * Only the Tensor handle is settled here; Operation's fields arrive with the schedule work. */
#ifndef TES_IR_TENSOR_H
#define TES_IR_TENSOR_H

#include "ir/expr.h"

typedef struct Operation Operation;

struct Tensor {
  const char *name;  /* printed in PRODUCER_LOAD / PROVIDE: "A", "C.local" */
  DType dtype;
  int ndim;
  Expr **shape;
  Operation *op;     /* the producer; NULL in unit tests of the printer and the simplifier */
  int value_index;   /* which output of op */
};

#endif
