/* vta_common.c: the helpers VTA's lowering passes share (ir/pass/vta.h). */
#include <stdarg.h>

#include "ir/arith/arith.h"
#include "ir/pass/vta.h"
#include "ir/support.h"

int vta_mem_of(const char *scope) {
  if (!scope) return -1;
  if (strcmp(scope, "local.inp_buffer") == 0) return VTA_MEM_INP;
  if (strcmp(scope, "local.wgt_buffer") == 0) return VTA_MEM_WGT;
  if (strcmp(scope, "local.acc_buffer") == 0) return VTA_MEM_ACC;
  return -1;
}

int64_t vta_lanes(const VtaTarget *t, int mem) {
  return mem == VTA_MEM_INP   ? (int64_t)t->batch * t->block_in
         : mem == VTA_MEM_WGT ? (int64_t)t->block_out * t->block_in
                              : (int64_t)t->batch * t->block_out;
}

static bool is_coproc_key(const char *key) {
  return strcmp(key, "coproc_scope") == 0 || strcmp(key, "coproc_uop_scope") == 0;
}

typedef struct AxisFinder {
  IrVisitor v;
  IterVar *found;
} AxisFinder;

static void find_axis(IrVisitor *v, const Stmt *s) {
  AxisFinder *f = (AxisFinder *)v;
  if (f->found) return;
  if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR && is_coproc_key(s->u.attr.key)) {
    f->found = s->u.attr.node;
    return;
  }
  ir_visit_children_stmt(v, s);
}

static void skip_expr(IrVisitor *v, const Expr *e) { (void)v, (void)e; }

IterVar *vta_axis(PassCtx *ctx, const Stmt *s) {
  if (ctx->vta_axis) return ctx->vta_axis;
  AxisFinder f = {{skip_expr, find_axis}, NULL};
  if (s) ir_visit_stmt(&f.v, s);
  if (!f.found) {
    Arena *a = ctx->arena;
    f.found = ir_itervar(a, ir_var(a, "vta", DT_I32), (Range){0}, ITER_THREAD, "vta");
  }
  return ctx->vta_axis = f.found;
}

Stmt *vta_scope(PassCtx *ctx, const char *key, Expr *value, Stmt *body) {
  return ir_attr(ctx->arena, ATTR_NODE_ITERVAR, vta_axis(ctx, NULL), key, value, body);
}

Expr *vta_command_handle(Arena *a) {
  Expr *h = ir_call(a, DT_HANDLE64, "tir.vta.command_handle", CALL_PURE, 0, NULL);
  return ir_call(a, DT_HANDLE64, "tir.tvm_thread_context", CALL_PURE, 1, &h);
}

Expr *vta_access_ptr(Arena *a, Var *data, DType elem, Expr *offset, Expr *extent, int mask) {
  Expr *args[5] = {ir_call(a, elem, "tir.type_annotation", CALL_PURE, 0, NULL), ir_varref(a, data),
                   offset, extent, ir_i32(a, mask)};
  return ir_call(a, DT_I32, "tir.tvm_access_ptr", CALL_PURE, 5, args);
}

bool vta_is_pragma(const Stmt *s, const char *key) {
  if (s->kind != STMT_ATTR) return false;
  const char *k = s->u.attr.key;
  if (strncmp(k, "pragma_", 7) == 0 && strcmp(k + 7, key) == 0) return true;
  const Expr *v = s->u.attr.value;
  return strcmp(k, "pragma_scope") == 0 && v && v->kind == EXPR_STR && strcmp(v->u.str, key) == 0;
}

bool vta_is_call(const Expr *e, const char *op) {
  return e->kind == EXPR_CALL && strcmp(e->u.call.op, op) == 0;
}

bool vta_fail(PassCtx *ctx, const char *pass, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ir_verror_prefixed(ctx->diag, pass, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- linear forms (TVM's DetectLinearEquation, whose base keeps the expression's order) ---- */

typedef struct LinEq {
  Expr *coeff, *base; /* NULL: zero */
} LinEq;

static Expr *add_combine(Arena *a, Expr *x, Expr *y) {
  if (!x) return y;
  if (!y) return x;
  return arith_binary(a, EXPR_ADD, x, y);
}

static Expr *sub_combine(Arena *a, Expr *x, Expr *y) {
  if (!y) return x;
  if (!x) return arith_binary(a, EXPR_SUB, ir_int(a, y->dtype, 0), y);
  return arith_binary(a, EXPR_SUB, x, y);
}

static Expr *mul_combine(Arena *a, Expr *x, Expr *y) {
  if (!x || !y) return NULL;
  return arith_binary(a, EXPR_MUL, x, y);
}

static bool detect(Arena *a, Expr *e, const Var *v, LinEq *out) {
  LinEq x, y;
  switch (e->kind) {
  case EXPR_ADD:
  case EXPR_SUB:
    if (!detect(a, e->u.bin.a, v, &x) || !detect(a, e->u.bin.b, v, &y)) return false;
    if (e->kind == EXPR_ADD)
      *out = (LinEq){add_combine(a, x.coeff, y.coeff), add_combine(a, x.base, y.base)};
    else
      *out = (LinEq){sub_combine(a, x.coeff, y.coeff), sub_combine(a, x.base, y.base)};
    return true;
  case EXPR_MUL:
    if (!detect(a, e->u.bin.a, v, &x) || !detect(a, e->u.bin.b, v, &y)) return false;
    if (x.coeff) {
      LinEq t = x;
      x = y, y = t;
    }
    if (x.coeff) return false;
    *out = (LinEq){mul_combine(a, x.base, y.coeff), mul_combine(a, x.base, y.base)};
    return true;
  case EXPR_VAR:
    if (e->u.var == v) {
      *out = (LinEq){ir_int(a, e->dtype, 1), NULL};
      return true;
    }
    *out = (LinEq){NULL, e};
    return true;
  default:
    if (ir_expr_uses_var(e, v)) return false;
    *out = (LinEq){NULL, e};
    return true;
  }
}

bool vta_linear(Arena *a, Expr *e, int n, Var *const *vars, Expr **coef) {
  Expr *base = e;
  for (int k = 0; k < n; k++) {
    LinEq r;
    if (!base || !detect(a, base, vars[k], &r)) {
      if (base) return false;
      r = (LinEq){NULL, NULL};
    }
    coef[k] = r.coeff ? r.coeff : ir_int(a, e->dtype, 0);
    base = r.base;
  }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      if (ir_expr_uses_var(coef[k], vars[j])) return false;
  coef[n] = base ? base : ir_int(a, e->dtype, 0);
  return true;
}
