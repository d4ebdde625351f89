/* const_fold.c: constant folding, the one place in tes where operations on constants are
 * evaluated at compile time (TVM's const_fold.h). Integers fold in their dtype's width, so an
 * int32 sum wraps as the generated code would; float32 results are rounded to float; floordiv
 * and floormod round toward negative infinity; division and modulo by zero never fold, so the
 * program still fails where it would have failed. Uint constants are kept as their bits. */
#include <math.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

int64_t arith_wrap(DType t, int64_t v) {
  if (t.code == DT_BOOL) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1;
  uint64_t u = (uint64_t)v & mask;
  if (t.code == DT_INT && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

/* The double a float dtype can hold nearest to v. */
static double round_float(DType t, double v) {
  return t.bits == 32 ? (double)(float)v : v;
}

static Expr *scalar_const(Arena *a, DType t, int64_t v) {
  if (dt_is_float(t)) return ir_float(a, t, round_float(t, (double)v));
  return ir_int(a, t, arith_wrap(t, v));
}

Expr *arith_const(Arena *a, DType t, int64_t v) {
  Expr *c = scalar_const(a, dt_element(t), v);
  return t.lanes > 1 ? ir_broadcast(a, c, t.lanes) : c;
}

static Expr *float_const(Arena *a, DType t, double v) {
  Expr *c = ir_float(a, dt_element(t), round_float(t, v));
  return t.lanes > 1 ? ir_broadcast(a, c, t.lanes) : c;
}

bool arith_is_int(const Expr *e, int64_t *v) {
  if (e->kind != EXPR_INT) return false;
  *v = e->u.ival;
  return true;
}

bool arith_is_uniform_int(const Expr *e, int64_t *v) {
  return arith_is_int(e->kind == EXPR_BROADCAST ? e->u.bcast.value : e, v);
}

static bool is_float(const Expr *e, double *v) {
  if (e->kind != EXPR_FLOAT) return false;
  *v = e->u.fval;
  return true;
}

/* x / y rounded down; INT64_MIN / -1 wraps as two's complement does. */
int64_t arith_floordiv_i64(int64_t x, int64_t y) {
  TES_ASSERT(y != 0, "floordiv by zero");
  if (y == -1) return (int64_t)(0 - (uint64_t)x);
  int64_t q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) q--;
  return q;
}

int64_t arith_floormod_i64(int64_t x, int64_t y) {
  TES_ASSERT(y != 0, "floormod by zero");
  if (y == -1) return 0;
  int64_t r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

static int64_t truncdiv_i64(int64_t x, int64_t y) {
  return y == -1 ? (int64_t)(0 - (uint64_t)x) : x / y;
}

static int64_t truncmod_i64(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }

/* Signed or unsigned order of two constants of dtype t. */
static int compare_int(DType t, int64_t x, int64_t y) {
  if (t.code == DT_UINT) return (uint64_t)x < (uint64_t)y ? -1 : (uint64_t)x > (uint64_t)y;
  return x < y ? -1 : x > y;
}

/* Division of two constants of dtype t, y != 0. */
static int64_t divide_int(ExprKind k, DType t, int64_t x, int64_t y) {
  bool div = k == EXPR_DIV || k == EXPR_FLOORDIV;
  if (t.code == DT_UINT) return div ? (int64_t)((uint64_t)x / (uint64_t)y)
                                    : (int64_t)((uint64_t)x % (uint64_t)y);
  if (k == EXPR_DIV) return truncdiv_i64(x, y);
  if (k == EXPR_MOD) return truncmod_i64(x, y);
  return k == EXPR_FLOORDIV ? arith_floordiv_i64(x, y) : arith_floormod_i64(x, y);
}

/* k on two integer constants of dtype t into *out (in t's width, or 0/1 for a comparison);
 * false when it must not fold (a division by zero). */
static bool fold_int(ExprKind k, DType t, int64_t x, int64_t y, int64_t *out) {
  switch (k) {
  case EXPR_ADD: *out = (int64_t)((uint64_t)x + (uint64_t)y); break;
  case EXPR_SUB: *out = (int64_t)((uint64_t)x - (uint64_t)y); break;
  case EXPR_MUL: *out = (int64_t)((uint64_t)x * (uint64_t)y); break;
  case EXPR_DIV: case EXPR_MOD: case EXPR_FLOORDIV: case EXPR_FLOORMOD:
    if (y == 0) return false;
    *out = divide_int(k, t, x, y);
    break;
  case EXPR_MIN: *out = compare_int(t, x, y) <= 0 ? x : y; break;
  case EXPR_MAX: *out = compare_int(t, x, y) >= 0 ? x : y; break;
  case EXPR_EQ: *out = x == y; return true;
  case EXPR_NE: *out = x != y; return true;
  case EXPR_LT: *out = compare_int(t, x, y) < 0; return true;
  case EXPR_LE: *out = compare_int(t, x, y) <= 0; return true;
  case EXPR_GT: *out = compare_int(t, x, y) > 0; return true;
  case EXPR_GE: *out = compare_int(t, x, y) >= 0; return true;
  case EXPR_AND: *out = x && y; return true;
  case EXPR_OR: *out = x || y; return true;
  ARITH_CASES_NOT_BINARY: TES_UNREACHABLE();
  }
  *out = arith_wrap(t, *out);
  return true;
}

/* k on two float constants; false for what does not fold (modulo, division by zero). */
static bool fold_float(ExprKind k, double x, double y, double *out, bool *is_bool) {
  *is_bool = k >= EXPR_EQ && k <= EXPR_GE;
  switch (k) {
  case EXPR_ADD: *out = x + y; return true;
  case EXPR_SUB: *out = x - y; return true;
  case EXPR_MUL: *out = x * y; return true;
  case EXPR_DIV: if (y == 0) return false; *out = x / y; return true;
  case EXPR_FLOORDIV: if (y == 0) return false; *out = floor(x / y); return true;
  case EXPR_MIN: *out = x < y ? x : y; return true;
  case EXPR_MAX: *out = x > y ? x : y; return true;
  case EXPR_EQ: *out = x == y; return true;
  case EXPR_NE: *out = x != y; return true;
  case EXPR_LT: *out = x < y; return true;
  case EXPR_LE: *out = x <= y; return true;
  case EXPR_GT: *out = x > y; return true;
  case EXPR_GE: *out = x >= y; return true;
  case EXPR_MOD: case EXPR_FLOORMOD: case EXPR_AND: case EXPR_OR: return false;
  ARITH_CASES_NOT_BINARY: break;
  }
  TES_UNREACHABLE();
}

static bool is_zero(const Expr *e) {
  return (e->kind == EXPR_INT && e->u.ival == 0) || (e->kind == EXPR_FLOAT && e->u.fval == 0);
}

static bool is_one(const Expr *e) {
  return (e->kind == EXPR_INT && e->u.ival == 1) || (e->kind == EXPR_FLOAT && e->u.fval == 1);
}

/* The folds with one constant operand that TVM's TryConstFold makes: x + 0, x*1, x*0 (also
 * on floats, where it forgets NaN and infinity, as TVM does), 0 / x, x % 1, True && x, ... */
static Expr *fold_identity(Arena *a, ExprKind k, Expr *x, Expr *y) {
  switch (k) {
  case EXPR_ADD: return is_zero(x) ? y : is_zero(y) ? x : NULL;
  case EXPR_SUB: return is_zero(y) ? x : NULL;
  case EXPR_MUL:
    if (is_one(x) || is_zero(y)) return y;
    return is_one(y) || is_zero(x) ? x : NULL;
  case EXPR_DIV: case EXPR_FLOORDIV: return is_zero(x) || is_one(y) ? x : NULL;
  case EXPR_MOD: case EXPR_FLOORMOD:
    if (dt_is_float(x->dtype)) return NULL;
    if (is_zero(x)) return x;
    return is_one(y) ? arith_const(a, x->dtype, 0) : NULL;
  case EXPR_AND:
    if (x->kind == EXPR_INT) return x->u.ival ? y : x;
    if (y->kind == EXPR_INT) return y->u.ival ? x : y;
    return NULL;
  case EXPR_OR:
    if (x->kind == EXPR_INT) return x->u.ival ? x : y;
    if (y->kind == EXPR_INT) return y->u.ival ? y : x;
    return NULL;
  case EXPR_MIN: case EXPR_MAX: case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE:
  case EXPR_GT: case EXPR_GE:
    return NULL;
  ARITH_CASES_NOT_BINARY: break;
  }
  TES_UNREACHABLE();
}

Expr *arith_try_fold(Arena *a, ExprKind k, Expr *x, Expr *y) {
  TES_ASSERT(k >= EXPR_ADD && k <= EXPR_OR, "arith_try_fold of %s", ir_expr_kind_names[k]);
  bool cmp = k >= EXPR_EQ && k <= EXPR_GE;
  int64_t i, j, r;
  double f, g, d;
  bool is_bool;
  if (arith_is_int(x, &i) && arith_is_int(y, &j)) {
    if (!fold_int(k, x->dtype, i, j, &r)) return NULL;
    return cmp ? ir_int(a, DT_BOOL1, r) : ir_int(a, x->dtype, r);
  }
  if (is_float(x, &f) && is_float(y, &g)) {
    if (!fold_float(k, f, g, &d, &is_bool)) return NULL;
    return is_bool ? ir_int(a, DT_BOOL1, d != 0) : float_const(a, x->dtype, d);
  }
  return fold_identity(a, k, x, y);
}

Expr *arith_binary(Arena *a, ExprKind k, Expr *x, Expr *y) {
  Expr *r = arith_try_fold(a, k, x, y);
  return r ? r : ir_binary(a, k, x, y);
}

Expr *arith_not(Arena *a, Expr *x) {
  if (x->kind == EXPR_INT) return ir_int(a, x->dtype, !x->u.ival);
  return ir_not(a, x);
}

/* A scalar constant converted to the scalar dtype t, or NULL when C could not convert it
 * (a float out of the integer range). */
static Expr *cast_const(Arena *a, DType t, const Expr *x) {
  if (x->kind == EXPR_INT) {
    int64_t v = x->u.ival;
    if (dt_is_float(t))
      return ir_float(a, t, round_float(t, x->dtype.code == DT_UINT ? (double)(uint64_t)v
                                                                    : (double)v));
    return ir_int(a, t, arith_wrap(t, v));
  }
  if (x->kind != EXPR_FLOAT) return NULL;
  double v = x->u.fval;
  if (dt_is_float(t)) return ir_float(a, t, round_float(t, v));
  if (dt_is_bool(t)) return ir_int(a, t, v != 0);
  if (!(v > -9.2e18 && v < 9.2e18)) return NULL; /* NaN too: converting it is undefined */
  return ir_int(a, t, arith_wrap(t, (int64_t)v));
}

Expr *arith_cast(Arena *a, DType t, Expr *x) {
  if (dt_eq(t, x->dtype)) return x;
  if (t.code == DT_HANDLE || x->dtype.code == DT_HANDLE) return ir_cast(a, t, x);
  Expr *c = NULL;
  if (t.lanes == 1)
    c = cast_const(a, t, x);
  else if (x->kind == EXPR_BROADCAST)
    c = ir_broadcast(a, arith_cast(a, dt_element(t), x->u.bcast.value), t.lanes);
  return c ? c : ir_cast(a, t, x);
}

Expr *arith_select(Arena *a, Expr *c, Expr *t, Expr *f) {
  if (c->kind == EXPR_INT) return c->u.ival ? t : f;
  return ir_select(a, c, t, f);
}
