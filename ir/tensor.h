/* tensor.h: tensors and the operations that produce them (te.placeholder, te.compute). An
 * operation is built once, by the constructors below, and never changes; schedules refer to
 * operations and keep their own mutable state (ir/schedule/). */
#ifndef TES_IR_TENSOR_H
#define TES_IR_TENSOR_H

#include "ir/expr.h"

typedef struct Operation Operation;

struct Tensor {
  const char *name;  /* printed in PRODUCER_LOAD / PROVIDE: "A", "C.local" */
  DType dtype;
  int ndim;
  Expr **shape;
  Operation *op;     /* the producer; NULL only in unit tests of the printer and simplifier */
  int value_index;   /* which output of op */
};

typedef enum {
  OP_PLACEHOLDER, /* an input: te.placeholder */
  OP_COMPUTE,     /* te.compute: one expression per output element */
  OP_EXTERN,      /* te.extern: a statement writing whole output buffers (opaque to schedules) */
  OP_SCAN         /* te.scan: states computed row by row over their first axis */
} OpKind;

struct Operation {
  OpKind kind;
  const char *name;
  const char *tag;     /* "" if none; TOPI marks injective/reduction ops through it */
  int noutputs;
  Tensor **outputs;    /* noutputs tensors, each with op == this */
  /* OP_COMPUTE: */
  int naxis;
  IterVar **axis;      /* one ITER_DATA_PAR per output dimension, over [0, shape[i]) */
  int nreduce;
  IterVar **reduce_axis; /* the ITER_REDUCE axes its body's REDUCE uses (from the body) */
  Expr **body;         /* noutputs expressions over axis (and reduce_axis) */
  int ninputs;
  Tensor **inputs;     /* the tensors the body reads, in order of first use, no repeats;
                          OP_EXTERN: as given, one per in_buffers entry */
  /* OP_EXTERN (naxis 0): body_stmt reads inputs[i] through in_buffers[i] and writes
   * outputs[i] through out_buffers[i]; lowering binds each buffer to its tensor's storage. */
  Buffer **in_buffers;
  Buffer **out_buffers;
  Stmt *body_stmt;
  /* OP_SCAN (naxis 0; inputs: the inits, then the updates): the rows [0, init rows) of state
   * k come from scan_init[k], each later row t (scan_axis, over [init rows, update rows)) from
   * scan_update[k], which reads the rows before t through scan_state[k], a placeholder.
   * scan_inputs (te.scan's inputs=) bound the update's group of stages; scan_init_axis only
   * marks where the inits are computed (before the loop). */
  IterVar *scan_axis, *scan_init_axis;
  Tensor **scan_init, **scan_update, **scan_state;
  int nscan_inputs;
  Tensor **scan_inputs;
};

/* Every array argument is copied into the arena; names too. */
Operation *ir_placeholder_op(Arena *a, const char *name, int ndim, Expr **shape, DType t);
/* The spatial axes of a compute of this shape: ITER_DATA_PAR IterVars over [0, shape[i]),
 * named by `names` (the lambda's parameter names: "i", "j"). */
IterVar **ir_compute_axes(Arena *a, int ndim, Expr **shape, const char *const *names);
/* A compute op with `nbody` outputs named name (one output) or name.v0, name.v1, ... as TVM
 * does. The body reads the axes made by ir_compute_axes; reduce_axis and inputs are worked
 * out from the body. All outputs share the shape; their dtypes are their bodies' dtypes. A
 * REDUCE must be a body's root (TVM's rule): anything else is the caller's user error, so it
 * is checked there, not here. */
Operation *ir_compute_op(Arena *a, const char *name, const char *tag, int ndim, Expr **shape,
                         IterVar **axis, int nbody, Expr **body);

/* An extern op (te.extern): outputs shaped and typed as out_buffers, named as a compute's. */
Operation *ir_extern_op(Arena *a, const char *name, const char *tag, int ninputs, Tensor **inputs,
                        Buffer **in_buffers, int noutputs, Buffer **out_buffers, Stmt *body);
/* A scan op (te.scan) of nstate states; its outputs are shaped and typed as the updates. */
Operation *ir_scan_op(Arena *a, const char *name, const char *tag, int nstate, Tensor **init,
                      Tensor **update, Tensor **state, int ninputs, Tensor **inputs);

#endif
