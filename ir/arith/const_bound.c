/* const_bound.c: the constant bounds of an integer expression (TVM's const_int_bound.cc).
 * Each operator maps its operands' bounds to a bound of its result, evaluating corners where
 * the operator is monotonic; infinities (ARITH_POS_INF/ARITH_NEG_INF) absorb, and a finite
 * result that would overflow int64 becomes infinite, so a bound is never wrong, only loose.
 * Like TVM, the analysis assumes that index arithmetic does not wrap. */
#include <string.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

static bool is_inf(int64_t x) { return x == ARITH_POS_INF || x <= ARITH_NEG_INF; }

static ConstBound make(int64_t lo, int64_t hi) {
  return (ConstBound){lo <= ARITH_NEG_INF ? ARITH_NEG_INF : lo, hi};
}

static int64_t add_sat(int64_t x, int64_t y) {
  if (is_inf(x)) return x;
  if (is_inf(y)) return y;
  int64_t r;
  if (__builtin_add_overflow(x, y, &r) || r <= ARITH_NEG_INF)
    return x > 0 ? ARITH_POS_INF : ARITH_NEG_INF;
  return r;
}

static int64_t neg_sat(int64_t x) {
  return x == ARITH_POS_INF ? ARITH_NEG_INF : x <= ARITH_NEG_INF ? ARITH_POS_INF : -x;
}

static int64_t mul_sat(int64_t x, int64_t y) {
  if (x == 0 || y == 0) return 0;
  bool neg = (x < 0) != (y < 0);
  int64_t r;
  if (is_inf(x) || is_inf(y) || __builtin_mul_overflow(x, y, &r) || r <= ARITH_NEG_INF)
    return neg ? ARITH_NEG_INF : ARITH_POS_INF;
  return r;
}

/* x / y (y != 0) with infinite x keeping its sign; a finite x over an infinite y rounds as
 * over INT64_MAX, which is the limit. */
static int64_t div_sat(int64_t x, int64_t y, bool floor) {
  if (is_inf(x)) return y > 0 ? x : neg_sat(x);
  return floor ? arith_floordiv_i64(x, y) : x / y;
}

static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

ConstBound arith_bound_everything(DType t) {
  switch ((DTypeCode)t.code) {
  case DT_INT:
    if (t.bits >= 64) return make(ARITH_NEG_INF, ARITH_POS_INF);
    return make(-(INT64_C(1) << (t.bits - 1)), (INT64_C(1) << (t.bits - 1)) - 1);
  case DT_UINT: return make(0, t.bits >= 63 ? ARITH_POS_INF : (INT64_C(1) << t.bits) - 1);
  case DT_BOOL: return make(0, 1);
  case DT_FLOAT: case DT_HANDLE: return make(ARITH_NEG_INF, ARITH_POS_INF);
  }
  TES_UNREACHABLE();
}

ConstBound arith_bound_intersect(ConstBound a, ConstBound b) {
  return make(max2(a.min, b.min), min2(a.max, b.max));
}

static ConstBound union2(ConstBound a, ConstBound b) {
  return make(min2(a.min, b.min), max2(a.max, b.max));
}

typedef int64_t (*CornerOp)(int64_t, int64_t, bool);

static int64_t mul_corner(int64_t x, int64_t y, bool unused) { return mul_sat(x, y); }

/* op over the four corners of a and b: exact for operators monotonic in each operand. */
static ConstBound corners(ConstBound a, ConstBound b, CornerOp op, bool flag) {
  int64_t v[4] = {op(a.min, b.min, flag), op(a.min, b.max, flag), op(a.max, b.min, flag),
                  op(a.max, b.max, flag)};
  return make(min2(min2(v[0], v[1]), min2(v[2], v[3])), max2(max2(v[0], v[1]), max2(v[2], v[3])));
}

/* a / b; when b's range holds 0, the halves on either side of it are bounded apart, since
 * division is monotonic only where the divisor keeps its sign. */
static ConstBound divide(ConstBound a, ConstBound b, DType t, bool floor) {
  if (b.min <= 0 && b.max >= 0) {
    ConstBound all = arith_bound_everything(t);
    if (b.min == 0 && b.max == 0) return all;
    ConstBound r = make(ARITH_POS_INF, ARITH_NEG_INF);
    if (b.min < 0) r = union2(r, corners(a, make(b.min, -1), div_sat, floor));
    if (b.max > 0) r = union2(r, corners(a, make(1, b.max), div_sat, floor));
    return t.code == DT_INT ? r : all;
  }
  return corners(a, b, div_sat, floor);
}

/* a % b with truncation (the sign of a) or floor (the sign of b) rounding. */
static ConstBound modulo(ConstBound a, ConstBound b, DType t, bool floor) {
  if (b.min <= 0) return arith_bound_everything(t);
  int64_t cap = add_sat(b.max, -1);
  if (a.min >= 0) return a.max < b.min ? a : make(0, min2(a.max, cap));
  if (floor) return make(0, cap);
  return make(max2(a.min, neg_sat(cap)), min2(max2(a.max, 0), cap));
}

/* A cast keeps the value when it fits the new type; otherwise it wraps anywhere in it. */
static ConstBound cast_bound(ConstBound a, DType from, DType to) {
  ConstBound all = arith_bound_everything(to);
  if (dt_is_float(from) || !(dt_is_int(to) || dt_is_bool(to))) return all;
  if (dt_is_bool(to)) return a.min > 0 || a.max < 0 ? make(1, 1) : all;
  return a.min >= all.min && a.max <= all.max ? a : all;
}

static ConstBound bound_of(Analyzer *an, const Expr *e);

static ConstBound binary_bound(Analyzer *an, const Expr *e) {
  ConstBound a = bound_of(an, e->u.bin.a), b = bound_of(an, e->u.bin.b);
  switch (e->kind) {
  case EXPR_ADD: return make(add_sat(a.min, b.min), add_sat(a.max, b.max));
  case EXPR_SUB: return make(add_sat(a.min, neg_sat(b.max)), add_sat(a.max, neg_sat(b.min)));
  case EXPR_MUL: return corners(a, b, mul_corner, false);
  case EXPR_DIV: return divide(a, b, e->dtype, false);
  case EXPR_FLOORDIV: return divide(a, b, e->dtype, true);
  case EXPR_MOD: return modulo(a, b, e->dtype, false);
  case EXPR_FLOORMOD: return modulo(a, b, e->dtype, true);
  case EXPR_MIN: return make(min2(a.min, b.min), min2(a.max, b.max));
  case EXPR_MAX: return make(max2(a.min, b.min), max2(a.max, b.max));
  case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE: case EXPR_GT: case EXPR_GE:
  case EXPR_AND: case EXPR_OR:
    return make(0, 1);
  ARITH_CASES_NOT_BINARY: break;
  }
  TES_UNREACHABLE();
}

static ConstBound int_bound(const Expr *e) {
  int64_t v = e->u.ival;
  if (e->dtype.code == DT_UINT && v < 0) return arith_bound_everything(e->dtype);
  return make(v, v);
}

static ConstBound var_bound(Analyzer *an, const Expr *e) {
  const VarInfo *info = arith_lookup(an, e->u.var);
  if (info && info->has_bound) return info->bound;
  return arith_bound_everything(e->dtype);
}

/* base, base + stride, ..., base + stride*(lanes - 1) */
static ConstBound ramp_bound(Analyzer *an, const Expr *e) {
  ConstBound b = bound_of(an, e->u.ramp.base), s = bound_of(an, e->u.ramp.stride);
  ConstBound last = corners(s, make(e->u.ramp.lanes - 1, e->u.ramp.lanes - 1), mul_corner, false);
  return union2(b, make(add_sat(b.min, last.min), add_sat(b.max, last.max)));
}

/* The body's bound with the let variable bounded by its value. */
static ConstBound let_bound(Analyzer *an, const Expr *e) {
  const VarInfo *found = arith_lookup(an, e->u.let.var);
  VarInfo old = found ? *found : (VarInfo){.var = e->u.let.var};
  VarInfo now = old;
  now.has_bound = true;
  now.bound = bound_of(an, e->u.let.value);
  arith_update(an, &now);
  ConstBound r = bound_of(an, e->u.let.body);
  arith_update(an, &old);
  return r;
}

static ConstBound call_bound(Analyzer *an, const Expr *e) {
  if (!strcmp(e->u.call.op, "tir.if_then_else") && e->u.call.n == 3)
    return union2(bound_of(an, e->u.call.args[1]), bound_of(an, e->u.call.args[2]));
  return arith_bound_everything(e->dtype);
}

static ConstBound node_bound(Analyzer *an, const Expr *e) {
  switch (e->kind) {
  case EXPR_INT: return int_bound(e);
  case EXPR_VAR: return var_bound(an, e);
  case EXPR_CAST: return cast_bound(bound_of(an, e->u.unary.a), e->u.unary.a->dtype, e->dtype);
  IR_CASE_BINARY:
    return binary_bound(an, e);
  case EXPR_NOT: return make(0, 1);
  case EXPR_SELECT: return union2(bound_of(an, e->u.select.t), bound_of(an, e->u.select.f));
  case EXPR_RAMP: return ramp_bound(an, e);
  case EXPR_BROADCAST: return bound_of(an, e->u.bcast.value);
  case EXPR_LET: return let_bound(an, e);
  case EXPR_CALL: return call_bound(an, e);
  case EXPR_FLOAT: case EXPR_STR: case EXPR_LOAD: case EXPR_PRODUCER_LOAD: case EXPR_REDUCE:
    return arith_bound_everything(e->dtype);
  case EXPR_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}

/* The node's own bound, tightened by constraints pushed on expressions equal to it. */
static ConstBound bound_of(Analyzer *an, const Expr *e) {
  ConstBound b = node_bound(an, e);
  for (int i = 0; i < an->nebounds; i++)
    if (ir_expr_equal(an->ebounds[i].e, e)) b = arith_bound_intersect(b, an->ebounds[i].b);
  return b;
}

ConstBound arith_const_bound(Analyzer *an, const Expr *e) { return bound_of(an, e); }

ConstBound arith_bound_of_range(Analyzer *an, Range r) {
  ConstBound lo = bound_of(an, r.min), ext = bound_of(an, r.extent);
  return make(lo.min, add_sat(add_sat(lo.max, ext.max), -1));
}

/* ---- constraints ---- */

/* e is known to lie in b from now on. */
static void constrain(Analyzer *an, const Expr *e, ConstBound b) {
  if (!dt_is_int(e->dtype) || e->dtype.lanes != 1) return;
  if (e->kind != EXPR_VAR) {
    arith_push_expr_bound(an, e, b);
    return;
  }
  const VarInfo *found = arith_lookup(an, e->u.var);
  VarInfo info = found ? *found : (VarInfo){.var = e->u.var};
  info.bound = arith_bound_intersect(var_bound(an, e), b);
  info.has_bound = true;
  arith_update(an, &info);
}

/* One comparison of an expression with a constant, in either order. */
static void constrain_compare(Analyzer *an, const Expr *c) {
  int64_t v;
  const Expr *x = c->u.bin.a;
  ExprKind k = c->kind;
  if (arith_is_int(c->u.bin.a, &v)) { /* c < x is x > c */
    x = c->u.bin.b;
    k = k == EXPR_LT ? EXPR_GT : k == EXPR_LE ? EXPR_GE : k == EXPR_GT ? EXPR_LT
      : k == EXPR_GE ? EXPR_LE : k;
  } else if (!arith_is_int(c->u.bin.b, &v)) {
    return;
  }
  if (x->kind == EXPR_INT) return;
  if (k == EXPR_LT) constrain(an, x, make(ARITH_NEG_INF, add_sat(v, -1)));
  else if (k == EXPR_LE) constrain(an, x, make(ARITH_NEG_INF, v));
  else if (k == EXPR_GT) constrain(an, x, make(add_sat(v, 1), ARITH_POS_INF));
  else if (k == EXPR_GE) constrain(an, x, make(v, ARITH_POS_INF));
  else if (k == EXPR_EQ) constrain(an, x, make(v, v));
}

void arith_bound_constrain(Analyzer *an, const Expr *cond) {
  if (cond->kind == EXPR_AND) {
    arith_bound_constrain(an, cond->u.bin.a);
    arith_bound_constrain(an, cond->u.bin.b);
  } else if (cond->kind >= EXPR_EQ && cond->kind <= EXPR_GE) {
    constrain_compare(an, cond);
  }
}
