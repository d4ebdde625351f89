/* abi.c: the part of codegen_llvm.h's ABI that needs no LLVM, so the front end can check a
 * call's arguments without loading the back end: which shape variables follow the buffers. */
#include <stdlib.h>

#include "backends/llvm/codegen_llvm.h"
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

int cg_llvm_shape_vars(const LoweredFunc *f, Var **out, int max) {
  ShapeVars sv = {{shape_var, NULL}, NULL, 0, 0};
  for (int i = 0; i < f->nparams; i++)
    for (int d = 0; d < f->params[i]->ndim; d++) ir_visit_expr(&sv.v, f->params[i]->shape[d]);
  for (int i = 0; i < sv.n && i < max; i++) out[i] = sv.vars[i];
  free(sv.vars);
  return sv.n;
}
