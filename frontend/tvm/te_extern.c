/* te_extern.c: te.extern (SPEC §6): an operation whose outputs a statement writes, given the
 * buffers of its inputs and outputs, as TVM's python/tvm/te/operation.py builds it. The
 * statement is usually a call (tvm.tir.call_packed, call_extern) or an ir_builder program;
 * schedules treat the op as opaque (ir/schedule/) and lowering binds each buffer to its
 * tensor's storage. */
#include <string.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"

/* Buffers given by the caller (one Buffer or a list of them), n of them. */
static Buffer **given_buffers(Interp *I, Value *v, const char *arg, int n) {
  Value **items = &v;
  int64_t m = 1;
  if (v->kind == VAL_TUPLE || v->kind == VAL_LIST) items = v->u.list->items, m = VAL_SEQ_N(v);
  if (m != n)
    return BI_TE_RAISE(I, EXC_ValueError, "extern: %s has %lld buffers for %d tensors", arg,
                       (long long)m, n);
  Buffer **bufs = arena_alloc(arena(I), (size_t)(n + 1) * sizeof *bufs);
  for (int i = 0; i < n; i++)
    if (!(bufs[i] = bi_tir_buffer_of(items[i])))
      return BI_TE_RAISE(I, EXC_TypeError, "extern: %s[%d] must be a tvm.tir.Buffer, not '%s'",
                         arg, i, val_type_name(items[i]));
  return bufs;
}

/* A compact global buffer named name over shape (TVM's decl_buffer default). */
static Buffer *default_buffer(Interp *I, const char *name, int ndim, Expr **shape, DType t) {
  Arena *a = arena(I);
  Buffer *b = arena_alloc(a, sizeof *b);
  *b = (Buffer){.name = name,
                .data = ir_var(a, name, DT_HANDLE64),
                .dtype = t,
                .ndim = ndim,
                .shape = shape,
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  return b;
}

/* The output shapes: one shape (a tuple of extents) or a list of them. */
static int out_shapes(Interp *I, Value *v, int *nout, int **ndims, Expr ****shapes) {
  bool many = (v->kind == VAL_TUPLE || v->kind == VAL_LIST) && VAL_SEQ_N(v) > 0 &&
              (VAL_SEQ_ITEM(v, 0)->kind == VAL_TUPLE || VAL_SEQ_ITEM(v, 0)->kind == VAL_LIST);
  Value **items = many ? v->u.list->items : &v;
  int64_t n = many ? VAL_SEQ_N(v) : 1;
  if (n > 1024) {
    interp_raise(I, EXC_ValueError, "extern: %lld outputs are too many", (long long)n);
    return -1;
  }
  *nout = (int)n;
  *ndims = arena_alloc(arena(I), (size_t)n * sizeof **ndims);
  *shapes = arena_alloc(arena(I), (size_t)n * sizeof **shapes);
  for (int i = 0; i < n; i++)
    if (bi_te_shape_arg(I, items[i], "extern", &(*ndims)[i], &(*shapes)[i]) < 0) return -1;
  return 0;
}

/* dtype=None: the inputs' one dtype; a str: every output's; a list: one per output. */
static int out_dtypes(Interp *I, Value *v, int ninputs, Tensor **inputs, int nout, DType *out) {
  if (!v || v->kind == VAL_NONE) {
    for (int i = 1; i < ninputs; i++)
      if (!dt_eq(inputs[i]->dtype, inputs[0]->dtype)) ninputs = 0;
    if (ninputs == 0) {
      interp_raise(I, EXC_ValueError, "extern: cannot infer the output type, please provide the "
                                      "dtype argument");
      return -1;
    }
    for (int i = 0; i < nout; i++) out[i] = inputs[0]->dtype;
    return 0;
  }
  if (v->kind == VAL_STR) {
    if (bi_te_dtype_arg(I, v, "extern", "dtype", DT_F32, &out[0]) < 0) return -1;
    for (int i = 1; i < nout; i++) out[i] = out[0];
    return 0;
  }
  if ((v->kind != VAL_TUPLE && v->kind != VAL_LIST) || VAL_SEQ_N(v) != nout) {
    interp_raise(I, EXC_ValueError, "extern: dtype must be a dtype name or a list of %d", nout);
    return -1;
  }
  for (int i = 0; i < nout; i++)
    if (bi_te_dtype_arg(I, VAL_SEQ_ITEM(v, i), "extern", "dtype", DT_F32, &out[i]) < 0) return -1;
  return 0;
}

static Value *buffer_list(int n, Buffer **bufs) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_tir_wrap_buffer(bufs[i]));
  return l;
}

/* fcompute(ins, outs) as a statement: a Stmt, or a PrimExpr as Evaluate(expr). */
static Stmt *call_fcompute(Interp *I, Value *f, int nin, Buffer **ins, int nout, Buffer **outs) {
  Value *args[2] = {buffer_list(nin, ins), buffer_list(nout, outs)};
  Value *r = interp_callv(I, f, 2, args);
  val_decref(args[0]);
  val_decref(args[1]);
  if (!r) return NULL;
  Stmt *s = bi_tir_stmt_of(r);
  Expr *e = s ? NULL : bi_te_expr_of(r);
  if (e) s = ir_evaluate(arena(I), e);
  if (!s)
    interp_raise(I, EXC_ValueError, "extern: fcompute should return a PrimExpr or a Stmt, not '%s'",
                 val_type_name(r));
  val_decref(r);
  return s;
}

/* te.extern(shape, inputs, fcompute, name="extern", dtype=None, in_buffers=None,
 * out_buffers=None, tag="", attrs=None) -> Tensor, or a list of Tensors for several shapes. */
Value *bi_te_extern(Interp *I, Value *self, Value **a) {
  const char *name, *tag;
  if (bi_te_op_naming(I, "extern", a[3], "extern", a[7], a[8], &name, &tag) < 0) return NULL;
  int nout, *ndims;
  Expr ***shapes;
  if (out_shapes(I, a[0], &nout, &ndims, &shapes) < 0) return NULL;
  int nin;
  Tensor **inputs = bi_te_tensor_list(I, a[1], "extern", "inputs", false, &nin);
  if (!inputs) return NULL;
  if (!val_is_callable(a[2]))
    return interp_raise(I, EXC_TypeError, "extern: fcompute must be callable, not '%s'",
                        val_type_name(a[2]));
  DType *dtypes = arena_alloc(arena(I), (size_t)nout * sizeof *dtypes);
  if (out_dtypes(I, a[4], nin, inputs, nout, dtypes) < 0) return NULL;
  Buffer **ins, **outs;
  if (a[5] && a[5]->kind != VAL_NONE) {
    if (!(ins = given_buffers(I, a[5], "in_buffers", nin))) return NULL;
  } else {
    ins = arena_alloc(arena(I), (size_t)(nin + 1) * sizeof *ins);
    for (int i = 0; i < nin; i++)
      ins[i] = default_buffer(I, inputs[i]->op->name, inputs[i]->ndim, inputs[i]->shape,
                              inputs[i]->dtype);
  }
  if (a[6] && a[6]->kind != VAL_NONE) {
    if (!(outs = given_buffers(I, a[6], "out_buffers", nout))) return NULL;
  } else {
    outs = arena_alloc(arena(I), (size_t)nout * sizeof *outs);
    for (int i = 0; i < nout; i++) outs[i] = default_buffer(I, name, ndims[i], shapes[i], dtypes[i]);
  }
  for (int i = 0; i < nin; i++)
    if (!dt_eq(ins[i]->dtype, inputs[i]->dtype) || ins[i]->ndim != inputs[i]->ndim)
      return interp_raise(I, EXC_ValueError, "extern: in_buffers[%d] (%s) does not match input "
                          "%s in dtype or rank", i, ins[i]->name, inputs[i]->name);
  Stmt *body = call_fcompute(I, a[2], nin, ins, nout, outs);
  if (!body) return NULL;
  Operation *op = ir_extern_op(arena(I), name, tag, nin, inputs, ins, nout, outs, body);
  if (bi_te_set_op_attrs(I, op, a[8]) < 0) return NULL;
  if (nout == 1) return bi_te_wrap_tensor(op->outputs[0]);
  Value *l = val_list_new(nout);
  for (int i = 0; i < nout; i++) val_list_append_take(l, bi_te_wrap_tensor(op->outputs[i]));
  return l;
}
