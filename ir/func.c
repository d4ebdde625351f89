/* func.c: what every back end and the front end ask of a lowered function: its shape
 * variables, which follow the buffers in every back end's calling convention. */
#include <stdlib.h>

#include "ir/func.h"
#include "ir/support.h"

typedef struct ShapeVars {
  IrVisitor v;
  Var **vars;
  int n, cap;
} ShapeVars;

static void shape_var(IrVisitor *v, const Expr *e) {
  ShapeVars *sv = (ShapeVars *)v;
  if (e->kind != EXPR_VAR) {
    ir_visit_children_expr(v, e);
    return;
  }
  for (int i = 0; i < sv->n; i++)
    if (sv->vars[i] == e->u.var) return;
  VEC_GROW(NULL, sv->vars, sv->cap, sv->n + 1);
  sv->vars[sv->n++] = e->u.var;
}

int ir_func_shape_vars(const LoweredFunc *f, Var **out, int max) {
  ShapeVars sv = {{shape_var, NULL}, NULL, 0, 0};
  for (int i = 0; i < f->nparams; i++) {
    const Buffer *b = f->params[i];
    for (int d = 0; d < b->ndim; d++) ir_visit_expr(&sv.v, b->shape[d]);
    /* a bound buffer's (tvm.build's binds) */
    for (int d = 0; b->strides && d < b->ndim; d++) ir_visit_expr(&sv.v, b->strides[d]);
    if (b->elem_offset) ir_visit_expr(&sv.v, b->elem_offset);
  }
  for (int i = 0; i < sv.n && i < max; i++) out[i] = sv.vars[i];
  free(sv.vars);
  return sv.n;
}
