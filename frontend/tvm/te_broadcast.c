/* te_broadcast.c: arithmetic on tensors as TOPI overloads it (topi/broadcast.h): A + B of
 * two tensors is broadcast_add over numpy-style broadcast shapes (tag "broadcast"), A - 3.14
 * of a tensor and a scalar is elementwise (tag "elemwise"), -A is topi.negative. The computes
 * are named T_add, T_subtract, ... and their axes ax0, ax1, ... as TOPI's C++ computes are. */
#include <stdio.h>
#include <string.h>

#include "frontend/tvm/te_impl.h"

Tensor *bi_te_topi_compute(Interp *I, const char *name, const char *tag, int ndim, Expr **shape,
                           BiTeBodyFn body, void *ctx) {
  Arena *a = arena(I);
  const char **names = arena_alloc(a, (size_t)(ndim + 1) * sizeof *names);
  Expr **vars = arena_alloc(a, (size_t)(ndim + 1) * sizeof *vars);
  for (int i = 0; i < ndim; i++) {
    char buf[16];
    snprintf(buf, sizeof buf, "ax%d", i);
    names[i] = arena_strndup(a, buf, strlen(buf));
  }
  IterVar **axes = ir_compute_axes(a, ndim, shape, names);
  for (int i = 0; i < ndim; i++) vars[i] = ir_varref(a, axes[i]->var);
  Expr *e = body(I, ctx, vars);
  if (!e) return NULL;
  return ir_compute_op(a, name, tag, ndim, shape, axes, 1, &e)->outputs[0];
}

/* ---- broadcasting two shapes (TVM's topi::detail::BroadcastShape) ---- */

/* One operand: a tensor read at the output axes dim[j] (-1: at 0, a broadcast dimension of
 * extent 1), or a scalar value. */
typedef struct Side {
  Tensor *t;
  Value *scalar; /* borrowed */
  int *dim;
} Side;

typedef struct BinCtx {
  TeOp op;
  Side a, b;
} BinCtx;

static bool const_dim(const Expr *e, int64_t *v) { return e->kind == EXPR_INT && ir_as_int(e, v); }

static bool same_dim(const Expr *x, const Expr *y) {
  int64_t a, b;
  if (const_dim(x, &a) && const_dim(y, &b)) return a == b;
  return ir_expr_equal(x, y);
}

static void put_shape(StrBuf *b, const Tensor *t) {
  sb_putc(b, '[');
  for (int i = 0; i < t->ndim; i++) {
    if (i) sb_puts(b, ", ");
    ir_print_expr(b, t->shape[i]);
  }
  sb_putc(b, ']');
}

static int incompatible(Interp *I, const Tensor *a, const Tensor *b, int64_t x, int64_t y) {
  StrBuf sa = STRBUF_INIT, sb = STRBUF_INIT;
  put_shape(&sa, a);
  put_shape(&sb, b);
  interp_raise(I, EXC_ValueError,
               "cannot broadcast %s (shape %s) with %s (shape %s): extent %lld against %lld",
               a->name, sb_cstr(&sa), b->name, sb_cstr(&sb), (long long)x, (long long)y);
  sb_free(&sa);
  sb_free(&sb);
  return -1;
}

/* One output dimension o from x (a's dim ia) and y (b's dim ib), aligned from the right;
 * where neither is 1 and one is symbolic, TVM takes the other and reads both at the axis. */
static int broadcast_dim(Interp *I, BinCtx *c, int o, int ia, int ib, Expr **out) {
  Expr *x = c->a.t->shape[ia], *y = c->b.t->shape[ib];
  int64_t vx = 0, vy = 0;
  bool kx = const_dim(x, &vx), ky = const_dim(y, &vy);
  c->a.dim[ia] = c->b.dim[ib] = o;
  if (same_dim(x, y)) {
    *out = x;
  } else if (kx && vx == 1) {
    *out = y, c->a.dim[ia] = -1;
  } else if (ky && vy == 1) {
    *out = x, c->b.dim[ib] = -1;
  } else if (!kx && !ky) {
    *out = bi_te_binary_exprs(I, TE_MAX, x, y);
  } else if (kx != ky) {
    *out = kx ? x : y;
  } else {
    return incompatible(I, c->a.t, c->b.t, vx, vy);
  }
  return *out ? 0 : -1;
}

static int broadcast_shapes(Interp *I, BinCtx *c, int *ndim, Expr ***shape) {
  int ra = c->a.t->ndim, rb = c->b.t->ndim, n = ra > rb ? ra : rb;
  Expr **out = arena_alloc(arena(I), (size_t)(n + 1) * sizeof *out);
  for (int k = 0; k < n; k++) {
    int o = n - 1 - k, ia = ra - 1 - k, ib = rb - 1 - k;
    if (ia < 0) {
      out[o] = c->b.t->shape[ib], c->b.dim[ib] = o;
    } else if (ib < 0) {
      out[o] = c->a.t->shape[ia], c->a.dim[ia] = o;
    } else if (broadcast_dim(I, c, o, ia, ib, &out[o]) < 0) {
      return -1;
    }
  }
  *ndim = n;
  *shape = out;
  return 0;
}

/* ---- the computes ---- */

/* The operand as a value: the tensor read at the output axes, or the scalar itself. */
static Value *side_value(Interp *I, const Side *s, Expr **vars) {
  if (!s->t) return val_incref(s->scalar);
  int n = s->t->ndim;
  Expr **ix = arena_alloc(arena(I), (size_t)(n + 1) * sizeof *ix);
  for (int j = 0; j < n; j++)
    ix[j] = s->dim[j] >= 0 ? vars[s->dim[j]] : ir_int(arena(I), s->t->shape[j]->dtype, 0);
  return bi_te_wrap_expr(ir_pload(arena(I), s->t, n, ix));
}

/* TOPI's floor_divide: floordiv on integers, floor(a / b) on floats. */
static Expr *floor_divide(Interp *I, Value *a, Value *b) {
  Expr *ea, *eb;
  if (bi_te_operands(I, a, b, "'//'", &ea, &eb) < 0) return NULL;
  if (!dt_is_float(ea->dtype)) return bi_te_binary_exprs(I, TE_FLOORDIV, ea, eb);
  Expr *q = bi_te_binary_exprs(I, TE_DIV, ea, eb);
  return q ? bi_te_intrin(I, q->dtype, "tir.floor", 1, &q) : NULL;
}

static Expr *binary_body(Interp *I, void *ctx, Expr **vars) {
  BinCtx *c = ctx;
  Value *a = side_value(I, &c->a, vars), *b = side_value(I, &c->b, vars);
  Expr *e = c->op == TE_FLOORDIV ? floor_divide(I, a, b) : bi_te_binary(I, c->op, a, b);
  val_decref(a);
  val_decref(b);
  return e;
}

static const char *topi_name(BinOp op, TeOp *t) {
  switch (op) {
  case BIN_ADD: *t = TE_ADD; return "T_add";
  case BIN_SUB: *t = TE_SUB; return "T_subtract";
  case BIN_MUL: *t = TE_MUL; return "T_multiply";
  case BIN_DIV: *t = TE_DIV; return "T_divide";
  case BIN_FLOORDIV: *t = TE_FLOORDIV; return "T_floor_divide";
  case BIN_MOD: case BIN_POW: case BIN_MATMUL: case BIN_LSHIFT: case BIN_RSHIFT: case BIN_AND:
  case BIN_OR: case BIN_XOR: return NULL;
  case BIN_OP_COUNT: break;
  }
  TES_UNREACHABLE();
}

static Side side_of(Interp *I, Value *v) {
  Side s = {bi_te_tensor_of(v), v, NULL};
  if (s.t) s.dim = arena_alloc(arena(I), (size_t)(s.t->ndim + 1) * sizeof *s.dim);
  return s;
}

Value *bi_te_tensor_binop(Interp *I, BinOp op, Value *a, Value *b) {
  BinCtx c;
  const char *name = topi_name(op, &c.op);
  c.a = side_of(I, a);
  c.b = side_of(I, b);
  if (!name || (!c.a.t && !bi_te_is_exprlike(a)) || (!c.b.t && !bi_te_is_exprlike(b)))
    return NULL;
  if (op == BIN_DIV && bi_te_div_op(I, a, b, &c.op) < 0) return NULL;
  int ndim;
  Expr **shape;
  if (c.a.t && c.b.t) {
    if (broadcast_shapes(I, &c, &ndim, &shape) < 0) return NULL;
  } else {
    Side *t = c.a.t ? &c.a : &c.b;
    for (int j = 0; j < t->t->ndim; j++) t->dim[j] = j;
    ndim = t->t->ndim, shape = t->t->shape;
  }
  const char *tag = c.a.t && c.b.t ? "broadcast" : "elemwise";
  Tensor *r = bi_te_topi_compute(I, name, tag, ndim, shape, binary_body, &c);
  return r ? bi_te_wrap_tensor(r) : NULL;
}

static Expr *negative_body(Interp *I, void *ctx, Expr **vars) {
  Tensor *t = ctx;
  Expr *x = ir_pload(arena(I), t, t->ndim, vars);
  return bi_te_unary(I, UN_NEG, x);
}

Value *bi_te_tensor_neg(Interp *I, Tensor *t) {
  Tensor *r = bi_te_topi_compute(I, "T_negative", "elemwise", t->ndim, t->shape, negative_body, t);
  return r ? bi_te_wrap_tensor(r) : NULL;
}
