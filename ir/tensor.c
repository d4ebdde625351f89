/* tensor.c: the constructors of operations and their output tensors (te.placeholder,
 * te.compute). A compute's reduce axes and input tensors are read off its body once, here, so
 * that schedules and lowering never walk a body to find them. */
#include "ir/tensor.h"

#include <stdio.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/support.h"

static const char *copy_str(Arena *a, const char *s) {
  return arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

/* Arrays are copied so that callers may pass stack arrays and operations stay immutable. */
static void *copy_array(Arena *a, const void *p, int n, size_t size) {
  if (n == 0) return NULL;
  void *q = arena_alloc(a, (size_t)n * size);
  memcpy(q, p, (size_t)n * size);
  return q;
}

/* TVM's Tensor.name: the op's name for a single output, "name.v0", "name.v1" otherwise. */
static const char *output_name(Arena *a, const char *op_name, int noutputs, int i) {
  if (noutputs == 1) return op_name;
  size_t n = strlen(op_name) + 16;
  char *s = arena_alloc(a, n);
  snprintf(s, n, "%s.v%d", op_name, i);
  return s;
}

/* The op and its outputs; every output gets the same (already copied) shape array. */
static Operation *new_op(Arena *a, OpKind kind, const char *name, const char *tag, int noutputs,
                         const DType *dtypes, int ndim, Expr **shape) {
  Operation *op = arena_alloc(a, sizeof *op);
  op->kind = kind;
  op->name = copy_str(a, name);
  op->tag = copy_str(a, tag);
  op->noutputs = noutputs;
  op->outputs = arena_alloc(a, (size_t)noutputs * sizeof *op->outputs);
  for (int i = 0; i < noutputs; i++) {
    Tensor *t = arena_alloc(a, sizeof *t);
    t->name = output_name(a, op->name, noutputs, i);
    t->dtype = dtypes[i];
    t->ndim = ndim;
    t->shape = shape;
    t->op = op;
    t->value_index = i;
    op->outputs[i] = t;
  }
  return op;
}

static void check_shape(int ndim, Expr **shape) {
  TES_ASSERT(ndim >= 0, "negative rank");
  for (int i = 0; i < ndim; i++)
    TES_ASSERT(shape[i] && dt_is_int(shape[i]->dtype) && shape[i]->dtype.lanes == 1,
               "shape[%d] is not a scalar integer", i);
}

Operation *ir_placeholder_op(Arena *a, const char *name, int ndim, Expr **shape, DType t) {
  check_shape(ndim, shape);
  Expr **sh = copy_array(a, shape, ndim, sizeof *shape);
  return new_op(a, OP_PLACEHOLDER, name, "", 1, &t, ndim, sh);
}

/* TVM gives a compute axis the dtype of its extent, so an int64 shape has int64 loops. */
IterVar **ir_compute_axes(Arena *a, int ndim, Expr **shape, const char *const *names) {
  check_shape(ndim, shape);
  if (ndim == 0) return NULL;
  IterVar **axes = arena_alloc(a, (size_t)ndim * sizeof *axes);
  for (int i = 0; i < ndim; i++) {
    DType t = shape[i]->dtype;
    Range dom = {ir_int(a, t, 0), shape[i]};
    axes[i] = ir_itervar(a, ir_var(a, names[i], t), dom, ITER_DATA_PAR, NULL);
  }
  return axes;
}

/* ---- reading a body: its reduce axes and the tensors it reads ---- */

typedef struct BodyScan {
  IrVisitor v;
  Arena *arena;
  int nreduce, reduce_cap;
  IterVar **reduce;
  int ninputs, inputs_cap;
  Tensor **inputs;
} BodyScan;

static void add_input(BodyScan *sc, Tensor *t) {
  for (int i = 0; i < sc->ninputs; i++)
    if (sc->inputs[i] == t) return;
  VEC_GROW(sc->arena, sc->inputs, sc->inputs_cap, sc->ninputs + 1);
  sc->inputs[sc->ninputs++] = t;
}

static void add_reduce_axis(BodyScan *sc, IterVar *iv) {
  for (int i = 0; i < sc->nreduce; i++)
    if (sc->reduce[i] == iv) return;
  VEC_GROW(sc->arena, sc->reduce, sc->reduce_cap, sc->nreduce + 1);
  sc->reduce[sc->nreduce++] = iv;
}

/* Children first, so inputs come in TVM's order (InputTensors is a post-order visit: the
 * tensor read in an index, B in A[B[i]], comes before the tensor it indexes). */
static void scan_expr(IrVisitor *v, const Expr *e) {
  BodyScan *sc = (BodyScan *)v;
  ir_visit_children_expr(v, e);
  if (e->kind == EXPR_PRODUCER_LOAD)
    add_input(sc, e->u.pload.tensor);
  else if (e->kind == EXPR_REDUCE)
    for (int i = 0; i < e->u.reduce.naxis; i++) add_reduce_axis(sc, e->u.reduce.axis[i]);
}

static void scan_bodies(Operation *op, Arena *a) {
  BodyScan sc = {.v = {.expr = scan_expr}, .arena = a};
  for (int i = 0; i < op->noutputs; i++) ir_visit_expr(&sc.v, op->body[i]);
  op->nreduce = sc.nreduce;
  op->reduce_axis = sc.reduce;
  op->ninputs = sc.ninputs;
  op->inputs = sc.inputs;
}

Operation *ir_compute_op(Arena *a, const char *name, const char *tag, int ndim, Expr **shape,
                         IterVar **axis, int nbody, Expr **body) {
  check_shape(ndim, shape);
  TES_ASSERT(nbody >= 1, "compute %s without a body", name);
  DType *dtypes = arena_alloc(a, (size_t)nbody * sizeof *dtypes);
  for (int i = 0; i < nbody; i++) {
    TES_ASSERT(body[i], "compute %s: body %d missing", name, i);
    dtypes[i] = body[i]->dtype;
  }
  for (int i = 0; i < ndim; i++)
    TES_ASSERT(axis[i] && axis[i]->kind == ITER_DATA_PAR, "compute %s: axis %d", name, i);
  Expr **sh = copy_array(a, shape, ndim, sizeof *shape);
  Operation *op = new_op(a, OP_COMPUTE, name, tag, nbody, dtypes, ndim, sh);
  op->naxis = ndim;
  op->axis = copy_array(a, axis, ndim, sizeof *axis);
  op->body = copy_array(a, body, nbody, sizeof *body);
  scan_bodies(op, a);
  return op;
}

Operation *ir_extern_op(Arena *a, const char *name, const char *tag, int ninputs, Tensor **inputs,
                        Buffer **in_buffers, int noutputs, Buffer **out_buffers, Stmt *body) {
  TES_ASSERT(noutputs >= 1 && body, "extern %s without outputs or body", name);
  DType *dtypes = arena_alloc(a, (size_t)noutputs * sizeof *dtypes);
  for (int i = 0; i < noutputs; i++) dtypes[i] = out_buffers[i]->dtype;
  Operation *op = new_op(a, OP_EXTERN, name, tag, noutputs, dtypes, 0, NULL);
  for (int i = 0; i < noutputs; i++) {
    check_shape(out_buffers[i]->ndim, out_buffers[i]->shape);
    op->outputs[i]->ndim = out_buffers[i]->ndim;
    op->outputs[i]->shape = copy_array(a, out_buffers[i]->shape, out_buffers[i]->ndim,
                                       sizeof(Expr *));
  }
  op->ninputs = ninputs;
  op->inputs = copy_array(a, inputs, ninputs, sizeof *inputs);
  op->in_buffers = copy_array(a, in_buffers, ninputs, sizeof *in_buffers);
  op->out_buffers = copy_array(a, out_buffers, noutputs, sizeof *out_buffers);
  op->body_stmt = body;
  return op;
}

Operation *ir_scan_op(Arena *a, const char *name, const char *tag, int nstate, Tensor **init,
                      Tensor **update, Tensor **state, int ninputs, Tensor **inputs) {
  TES_ASSERT(nstate >= 1, "scan %s without states", name);
  DType *dtypes = arena_alloc(a, (size_t)nstate * sizeof *dtypes);
  for (int i = 0; i < nstate; i++) dtypes[i] = update[i]->dtype;
  Operation *op = new_op(a, OP_SCAN, name, tag, nstate, dtypes, 0, NULL);
  for (int i = 0; i < nstate; i++) {
    op->outputs[i]->ndim = update[i]->ndim;
    op->outputs[i]->shape = update[i]->shape;
  }
  Expr *lo = init[0]->shape[0], *hi = update[0]->shape[0];
  if (!dt_eq(lo->dtype, hi->dtype)) lo = ir_cast(a, hi->dtype, lo);
  int64_t x, y;
  Expr *extent = ir_as_int(lo, &x) && ir_as_int(hi, &y) ? ir_int(a, hi->dtype, y - x)
                                                        : ir_binary(a, EXPR_SUB, hi, lo);
  op->scan_axis = ir_itervar(a, ir_var(a, arena_strcat(a, op->name, ".idx"), hi->dtype),
                             (Range){lo, extent}, ITER_DATA_PAR, NULL);
  op->scan_init_axis = ir_itervar(a, ir_var(a, arena_strcat(a, op->name, ".init"), hi->dtype),
                                  (Range){NULL, NULL}, ITER_OPAQUE, NULL);
  op->scan_init = copy_array(a, init, nstate, sizeof *init);
  op->scan_update = copy_array(a, update, nstate, sizeof *update);
  op->scan_state = copy_array(a, state, nstate, sizeof *state);
  op->nscan_inputs = ninputs;
  op->scan_inputs = copy_array(a, inputs, ninputs, sizeof *inputs);
  op->ninputs = 2 * nstate;
  op->inputs = arena_alloc(a, (size_t)(2 * nstate) * sizeof *op->inputs);
  for (int i = 0; i < nstate; i++) {
    op->inputs[i] = init[i];
    op->inputs[nstate + i] = update[i];
  }
  return op;
}
