/* tir_primfunc.c: tvm.tir.PrimFunc(params, body, ret_type=None, buffer_map=None), a function
 * written by hand (ir_builder) rather than lowered from a schedule, for tvm.build and
 * vta.build. A parameter is a handle Var that buffer_map maps to its Buffer (TVM's form), or
 * a Buffer itself; the body refers to each buffer's data. The result is a PrimFunc named
 * "main", as tvm.lower's; its lowering holds only the function, the body and the parameters'
 * tensors staying in the session's arena. */
#include "frontend/lang/interp.h"
#include "frontend/tvm/sched.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"
#include "ir/support.h"

/* Parameter i's buffer: a Buffer, or a Var buffer_map maps to one; NULL with TypeError. */
static Buffer *param_buffer(Interp *I, Value *p, Value *buffer_map, int i) {
  Buffer *b = bi_tir_buffer_of(p);
  if (b) return b;
  Expr *e = bi_te_expr_of(p);
  if (e && e->kind == EXPR_VAR && buffer_map && buffer_map->kind == VAL_DICT) {
    int64_t pos = 0;
    Value *k, *v;
    while (dict_next(buffer_map, &pos, &k, &v)) {
      Expr *ke = bi_te_expr_of(k);
      if (ke && ke->kind == EXPR_VAR && ke->u.var == e->u.var && (b = bi_tir_buffer_of(v)))
        return b;
    }
  }
  return interp_raise(I, EXC_TypeError,
                      "PrimFunc: parameter %d must be a Buffer, or a Var that buffer_map maps to "
                      "one (%s)", i, val_type_name(p)),
         NULL;
}

Value *bi_tir_primfunc(Interp *I, Value *self, Value **a) {
  Value *params = a[0];
  Stmt *body = bi_tir_stmt_of(a[1]);
  if (params->kind != VAL_LIST && params->kind != VAL_TUPLE)
    return interp_raise(I, EXC_TypeError, "PrimFunc: params must be a list, not '%s'",
                        val_type_name(params));
  if (!body)
    return interp_raise(I, EXC_TypeError, "PrimFunc: body must be a Stmt, not '%s'",
                        val_type_name(a[1]));
  if (a[3] && a[3]->kind != VAL_NONE && a[3]->kind != VAL_DICT)
    return interp_raise(I, EXC_TypeError, "PrimFunc: buffer_map must be a dict, not '%s'",
                        val_type_name(a[3]));
  int n = (int)VAL_SEQ_N(params);
  Lowered *l = xcalloc(1, sizeof *l);
  l->refs = 1;
  arena_init(&l->arena);
  LoweredFunc *f = arena_alloc(&l->arena, sizeof *f);
  *f = (LoweredFunc){.name = "main", .nparams = n, .body = body};
  f->params = arena_alloc(&l->arena, (size_t)(n + 1) * sizeof *f->params);
  f->param_tensors = arena_alloc(&l->arena, (size_t)(n + 1) * sizeof *f->param_tensors);
  for (int i = 0; i < n; i++) {
    Buffer *b = param_buffer(I, VAL_SEQ_ITEM(params, i), a[3], i);
    if (!b) {
      bi_sched_lowered_release(l);
      return NULL;
    }
    f->params[i] = b;
    /* in the session's arena, as te's tensors are: PrimFunc.params outlives the PrimFunc */
    f->param_tensors[i] =
        ir_placeholder_op(arena(I), b->name, b->ndim, b->shape, b->dtype)->outputs[0];
  }
  l->f = f;
  return val_obj_new(&bi_sched_primfunc_class, l);
}
