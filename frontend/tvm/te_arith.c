/* te_arith.c: expressions out of values under SPEC §6's dtype rules: Python numbers as
 * constants, two operands promoted to one dtype, and every operator on expressions. Nodes are
 * built plainly (folding is the simplifier's, ir/arith), save TVM's cast() of a literal, which
 * makes the literal in its new dtype so that `x + te.const(1)` on float32 x reads (x + 1f32). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/np/ndarray.h"
#include "frontend/tvm/te_impl.h"

const char *const bi_te_op_names[TE_OP_COUNT] = {
#define BI_TE_OP_NAME(k, s) s,
    BI_TE_OPS(BI_TE_OP_NAME)
#undef BI_TE_OP_NAME
};

bool bi_te_is_number(Value *v) {
  return v->kind == VAL_INT || v->kind == VAL_BOOL || v->kind == VAL_FLOAT;
}

/* A numpy scalar or 0-d array (np.sum(a)): a constant of its value, as TVM takes them. */
static bool is_scalar_array(Value *v) {
  NDArray *a = bi_ndarray_of(v);
  return a && a->ndim == 0;
}

bool bi_te_is_exprlike(Value *v) {
  return bi_te_is_number(v) || bi_te_expr_of(v) || bi_te_itervar_of(v) ||
         is_scalar_array(v);
}

/* ---- constants ---- */

static bool int_fits(int64_t v, DType t) {
  if (t.code == DT_UINT)
    return v >= 0 && (t.bits >= 63 || v <= (int64_t)((UINT64_C(1) << t.bits) - 1));
  if (t.bits >= 64) return true;
  int64_t lim = INT64_C(1) << (t.bits - 1);
  return v >= -lim && v < lim;
}

static double float_max(DType t) {
  return t.bits == 16 ? 65504.0 : t.bits == 32 ? (double)FLT_MAX : DBL_MAX;
}

static bool float_fits(double d, DType t) { return !isfinite(d) || fabs(d) <= float_max(t); }

/* C++'s static_cast of a double to an integer dtype, where it is defined. */
static bool float_to_int(double d, DType t, int64_t *out) {
  if (!isfinite(d) || d >= 9.2233720368547758e18 || d < -9.2233720368547758e18) return false;
  *out = (int64_t)trunc(d);
  return int_fits(*out, t);
}

static Expr *float_const(Interp *I, double d, DType t, const char *what) {
  char name[32];
  if (!float_fits(d, t))
    return BI_TE_RAISE(I, EXC_ValueError, "%s: %g does not fit in %s", what, d, dt_name(t, name));
  return ir_float(arena(I), t, d);
}

static Expr *int_const(Interp *I, Value *num, DType t, const char *what) {
  char name[32];
  int64_t v;
  if (num->kind == VAL_FLOAT) {
    if (!float_to_int(num->u.f, t, &v))
      return BI_TE_RAISE(I, EXC_ValueError, "%s: %g does not fit in %s", what, num->u.f,
                          dt_name(t, name));
  } else {
    v = num->u.i;
    if (!int_fits(v, t))
      return BI_TE_RAISE(I, EXC_ValueError, "%s: %lld does not fit in %s", what, (long long)v,
                          dt_name(t, name));
  }
  return ir_int(arena(I), t, v);
}

Expr *bi_te_const(Interp *I, Value *num, DType t, const char *what) {
  char name[32];
  if (!bi_te_is_number(num))
    return BI_TE_RAISE(I, EXC_TypeError, "%s: expected a number, not '%s'", what,
                        val_type_name(num));
  if (t.lanes != 1)
    return BI_TE_RAISE(I, EXC_ValueError, "%s: a constant has a scalar dtype, not %s", what,
                        dt_name(t, name));
  switch ((DTypeCode)t.code) {
  case DT_BOOL:
    return ir_int(arena(I), t, num->kind == VAL_FLOAT ? num->u.f != 0 : num->u.i != 0);
  case DT_FLOAT:
    return float_const(I, num->kind == VAL_FLOAT ? num->u.f : (double)num->u.i, t, what);
  case DT_INT:
  case DT_UINT:
    return int_const(I, num, t, what);
  case DT_HANDLE:
    return BI_TE_RAISE(I, EXC_TypeError, "%s: there are no constants of dtype handle", what);
  }
  TES_UNREACHABLE();
}

/* TVM's const(v) without a dtype: int32 (int64 when it does not fit), float32, bool. */
static Expr *default_const(Interp *I, Value *v, const char *what) {
  if (v->kind == VAL_BOOL) return ir_int(arena(I), DT_BOOL1, v->u.i);
  if (v->kind == VAL_INT) return ir_int(arena(I), int_fits(v->u.i, DT_I32) ? DT_I32 : DT_I64, v->u.i);
  return float_const(I, v->u.f, DT_F32, what);
}

static Expr *number_expr(Interp *I, Value *v, const DType *t, const char *what);

Expr *bi_te_to_expr(Interp *I, Value *v, const char *what) {
  Expr *e = bi_te_expr_of(v);
  if (e) return e;
  IterVar *iv = bi_te_itervar_of(v);
  if (iv) return ir_varref(arena(I), iv->var);
  if (bi_te_is_number(v)) return default_const(I, v, what);
  if (is_scalar_array(v)) return number_expr(I, v, NULL, what);
  if (bi_te_tensor_of(v))
    return BI_TE_RAISE(I, EXC_TypeError,
                        "%s: a tensor is not an expression; read an element with T[i, j]", what);
  return BI_TE_RAISE(I, EXC_TypeError, "%s: expected an expression, not '%s'", what,
                      val_type_name(v));
}

/* A Python float next to an integer expression stays float32, and the integer side is then
 * promoted (TVM's rule for `i * 2.5`): taking int32 would truncate it. */
Expr *bi_te_to_expr_as(Interp *I, Value *v, DType t, const char *what) {
  if (is_scalar_array(v)) return number_expr(I, v, &t, what);
  if (!bi_te_is_number(v)) return bi_te_to_expr(I, v, what);
  if (v->kind == VAL_FLOAT && !dt_is_float(t)) return float_const(I, v->u.f, DT_F32, what);
  if (t.lanes != 1) return bi_te_to_expr(I, v, what);
  return bi_te_const(I, v, t, what);
}

/* A numpy scalar (np.sum(a)) or 0-d array is the Python number it holds: typed by t as a
 * Python number would be, or alone (t NULL). */
static Expr *number_expr(Interp *I, Value *v, const DType *t, const char *what) {
  Value *n = val_number_of(I, v, NUM_SCALAR);
  Expr *e = !n ? NULL : t ? bi_te_to_expr_as(I, n, *t, what) : bi_te_to_expr(I, n, what);
  val_xdecref(n);
  return e;
}

/* A numpy scalar next to an expression: a constant of its own dtype, as TVM converts it. */
static Expr *numpy_scalar_expr(Interp *I, Value *v, const char *what) {
  DType t = bi_ndarray_of(v)->dtype;
  if (dt_is_bool(t)) t = DT_BOOL1;
  Value *n = val_number_of(I, v, NUM_SCALAR);
  Expr *e = n ? bi_te_const(I, n, t, what) : NULL;
  val_xdecref(n);
  return e;
}

/* ---- depth ---- */

/* Every walk of the IR recurses, so a script that grows an expression in a loop
 * (`e = e + A[i]`) would overflow the C stack in the first pass that met it. A node past
 * IR_MAX_DEPTH is built (the constructors are O(1): depth is a field) but never handed out. */
Expr *bi_te_shallow(Interp *I, Expr *e) {
  if (!e || e->depth <= IR_MAX_DEPTH) return e;
  return BI_TE_RAISE(I, EXC_ValueError, "expression too deep (more than %d nested operations)",
                      IR_MAX_DEPTH);
}

/* ---- casts and promotion ---- */

/* An integer literal's value as an unsigned dtype stores it: its low bits. */
static uint64_t uint_value(const Expr *e) {
  uint64_t u = (uint64_t)e->u.ival;
  return e->dtype.bits >= 64 ? u : u & ((UINT64_C(1) << e->dtype.bits) - 1);
}

static Expr *cast_int_literal(Interp *I, DType t, const Expr *x) {
  bool is_uint = x->dtype.code == DT_UINT;
  if (dt_is_float(t)) {
    double d = is_uint ? (double)uint_value(x) : (double)x->u.ival;
    return float_fits(d, t) ? ir_float(arena(I), t, d) : NULL;
  }
  if (dt_is_bool(t)) return ir_int(arena(I), t, x->u.ival != 0);
  if (is_uint && uint_value(x) > INT64_MAX) return NULL;
  int64_t v = is_uint ? (int64_t)uint_value(x) : x->u.ival;
  return int_fits(v, t) ? ir_int(arena(I), t, v) : NULL;
}

static Expr *cast_float_literal(Interp *I, DType t, const Expr *x) {
  int64_t v;
  if (dt_is_float(t)) return float_fits(x->u.fval, t) ? ir_float(arena(I), t, x->u.fval) : NULL;
  if (dt_is_bool(t)) return ir_int(arena(I), t, x->u.fval != 0);
  return float_to_int(x->u.fval, t, &v) ? ir_int(arena(I), t, v) : NULL;
}

Expr *bi_te_cast(Interp *I, DType t, Expr *x) {
  char a[32], b[32];
  if (dt_eq(x->dtype, t)) return x;
  if (x->dtype.lanes != t.lanes || t.code == DT_HANDLE || x->dtype.code == DT_HANDLE)
    return BI_TE_RAISE(I, EXC_TypeError, "cannot cast %s to %s", dt_name(x->dtype, a),
                        dt_name(t, b));
  Expr *lit = NULL;
  if (t.lanes == 1 && x->kind == EXPR_INT) lit = cast_int_literal(I, t, x);
  if (t.lanes == 1 && x->kind == EXPR_FLOAT) lit = cast_float_literal(I, t, x);
  return lit ? lit : bi_te_shallow(I, ir_cast(arena(I), t, x));
}

static int cannot_combine(Interp *I, const char *what, DType ta, DType tb, const char *why) {
  char a[32], b[32];
  interp_raise(I, EXC_TypeError, "cannot combine %s and %s in %s%s", dt_name(ta, a),
               dt_name(tb, b), what, why);
  return -1;
}

/* SPEC §6, TVM's BinaryOpMatchTypes: an integer next to a float becomes that float type; of
 * two integers or two floats the narrower is widened; of a signed and an unsigned integer the
 * wider wins, and at one width the unsigned one. bool with anything else and different lane
 * counts have no rule. */
static int match_types(Interp *I, const char *what, Expr **a, Expr **b) {
  DType ta = (*a)->dtype, tb = (*b)->dtype;
  if (dt_eq(ta, tb)) return 0;
  if (ta.lanes != tb.lanes || ta.code == DT_HANDLE || tb.code == DT_HANDLE || dt_is_bool(ta) ||
      dt_is_bool(tb))
    return cannot_combine(I, what, ta, tb, "");
  Expr **from = NULL;
  DType to = ta;
  if (dt_is_float(ta) != dt_is_float(tb))
    from = dt_is_float(ta) ? b : a, to = dt_is_float(ta) ? ta : tb;
  else if (ta.bits != tb.bits)
    from = ta.bits < tb.bits ? a : b, to = ta.bits < tb.bits ? tb : ta;
  else /* signed and unsigned of one width */
    from = ta.code == DT_UINT ? b : a, to = ta.code == DT_UINT ? ta : tb;
  *from = bi_te_cast(I, to, *from);
  return *from ? 0 : -1;
}

static bool is_number_value(Value *v) { return bi_te_is_number(v) || is_scalar_array(v); }

/* An operand alone: a Python int an int32 constant (int64 when it does not fit), a float a
 * float32 one, a numpy scalar one of its own dtype (SPEC §6, as TVM converts them). */
static Expr *operand_expr(Interp *I, Value *v, const char *what) {
  return is_scalar_array(v) ? numpy_scalar_expr(I, v, what) : bi_te_to_expr(I, v, what);
}

/* TVM's bit operators take a Python int as a constant of the other operand's dtype
 * (REGISTER_MAKE_BIT_OP); keep_dtype asks for that. */
static int operands(Interp *I, Value *a, Value *b, const char *what, bool keep_dtype,
                    Expr **ea, Expr **eb) {
  bool na = keep_dtype && is_number_value(a), nb = keep_dtype && is_number_value(b);
  if (na && !nb) {
    *eb = bi_te_to_expr(I, b, what);
    *ea = *eb ? bi_te_to_expr_as(I, a, (*eb)->dtype, what) : NULL;
  } else {
    *ea = operand_expr(I, a, what);
    *eb = !*ea ? NULL : nb ? bi_te_to_expr_as(I, b, (*ea)->dtype, what) : operand_expr(I, b, what);
  }
  if (!*ea || !*eb) return -1;
  return match_types(I, what, ea, eb);
}

int bi_te_operands(Interp *I, Value *a, Value *b, const char *what, Expr **ea, Expr **eb) {
  return operands(I, a, b, what, false, ea, eb);
}

/* ---- operators ---- */

Expr *bi_te_intrin(Interp *I, DType t, const char *op, int n, Expr **args) {
  return bi_te_shallow(I, ir_call(arena(I), t, op, CALL_PURE, n, args));
}

static Expr *intrin2(Interp *I, const char *op, Expr *a, Expr *b) {
  Expr *args[2] = {a, b};
  return bi_te_intrin(I, a->dtype, op, 2, args);
}

static Expr *bad_dtype(Interp *I, TeOp op, DType t, const char *need) {
  char name[32];
  return BI_TE_RAISE(I, EXC_TypeError, "'%s' needs %s operands, not %s", bi_te_op_names[op],
                      need, dt_name(t, name));
}

static bool is_numeric(DType t) { return dt_is_int(t) || dt_is_float(t); }

/* + - * / min max: numbers of any kind; Div of integers truncates, as TVM's Div node does (the
 * `/` operator refuses signed integers before it gets here: bi_te_div_ambiguous). */
static Expr *arith(Interp *I, TeOp op, ExprKind k, Expr *a, Expr *b) {
  if (!is_numeric(a->dtype)) return bad_dtype(I, op, a->dtype, "numeric");
  return ir_binary(arena(I), k, a, b);
}

static Expr *int_only(Interp *I, TeOp op, ExprKind k, Expr *a, Expr *b) {
  char name[32];
  if (!dt_is_int(a->dtype)) {
    const char *hint = !dt_is_float(a->dtype) ? ""
                       : op == TE_FLOORDIV    ? " (for floats: te.floor(a / b))"
                       : op == TE_FLOORMOD    ? " (for floats: te.fmod(a, b))"
                                              : "";
    return BI_TE_RAISE(I, EXC_TypeError, "'%s' needs integer operands, not %s%s",
                        bi_te_op_names[op], dt_name(a->dtype, name), hint);
  }
  return ir_binary(arena(I), k, a, b);
}

static Expr *float_intrin(Interp *I, TeOp op, const char *name, Expr *a, Expr *b) {
  if (!dt_is_float(a->dtype)) return bad_dtype(I, op, a->dtype, "float");
  return intrin2(I, name, a, b);
}

/* << >> & | ^ are TVM's bitwise intrinsics on integers; & | ^ of two bools are logical. */
static Expr *bitwise(Interp *I, TeOp op, const char *name, ExprKind on_bool, Expr *a, Expr *b) {
  if (dt_is_bool(a->dtype) && on_bool != EXPR_KIND_COUNT)
    return ir_binary(arena(I), on_bool, a, b);
  if (!dt_is_int(a->dtype)) return bad_dtype(I, op, a->dtype, "integer");
  return intrin2(I, name, a, b);
}

static Expr *logical(Interp *I, TeOp op, ExprKind k, Expr *a, Expr *b) {
  if (!dt_is_bool(a->dtype)) return bad_dtype(I, op, a->dtype, "bool");
  return ir_binary(arena(I), k, a, b);
}

/* a and b have one dtype already. */
static Expr *build(Interp *I, TeOp op, Expr *a, Expr *b) {
  switch (op) {
  case TE_ADD: return arith(I, op, EXPR_ADD, a, b);
  case TE_SUB: return arith(I, op, EXPR_SUB, a, b);
  case TE_MUL: return arith(I, op, EXPR_MUL, a, b);
  case TE_DIV: return arith(I, op, EXPR_DIV, a, b);
  case TE_MIN: return arith(I, op, EXPR_MIN, a, b);
  case TE_MAX: return arith(I, op, EXPR_MAX, a, b);
  case TE_FLOORDIV: return int_only(I, op, EXPR_FLOORDIV, a, b);
  case TE_FLOORMOD: return int_only(I, op, EXPR_FLOORMOD, a, b);
  case TE_TRUNCDIV: return int_only(I, op, EXPR_DIV, a, b);
  case TE_TRUNCMOD: return int_only(I, op, EXPR_MOD, a, b);
  case TE_POW: return float_intrin(I, op, "tir.pow", a, b);
  case TE_FMOD: return float_intrin(I, op, "tir.fmod", a, b);
  case TE_SHL: return bitwise(I, op, "tir.shift_left", EXPR_KIND_COUNT, a, b);
  case TE_SHR: return bitwise(I, op, "tir.shift_right", EXPR_KIND_COUNT, a, b);
  case TE_BITAND: return bitwise(I, op, "tir.bitwise_and", EXPR_AND, a, b);
  case TE_BITOR: return bitwise(I, op, "tir.bitwise_or", EXPR_OR, a, b);
  case TE_BITXOR: return bitwise(I, op, "tir.bitwise_xor", EXPR_NE, a, b);
  case TE_EQ: return ir_binary(arena(I), EXPR_EQ, a, b);
  case TE_NE: return ir_binary(arena(I), EXPR_NE, a, b);
  case TE_LT: return ir_binary(arena(I), EXPR_LT, a, b);
  case TE_LE: return ir_binary(arena(I), EXPR_LE, a, b);
  case TE_GT: return ir_binary(arena(I), EXPR_GT, a, b);
  case TE_GE: return ir_binary(arena(I), EXPR_GE, a, b);
  case TE_AND: return logical(I, op, EXPR_AND, a, b);
  case TE_OR: return logical(I, op, EXPR_OR, a, b);
  case TE_OP_COUNT: break;
  }
  TES_UNREACHABLE();
}

static void quote_op(char *buf, size_t n, TeOp op) { snprintf(buf, n, "'%s'", bi_te_op_names[op]); }

Expr *bi_te_binary_exprs(Interp *I, TeOp op, Expr *a, Expr *b) {
  char what[24];
  quote_op(what, sizeof what, op);
  if (match_types(I, what, &a, &b) < 0) return NULL;
  return bi_te_shallow(I, build(I, op, a, b));
}

static bool is_bit_op(TeOp op) {
  return op == TE_SHL || op == TE_SHR || op == TE_BITAND || op == TE_BITOR || op == TE_BITXOR;
}

Expr *bi_te_binary(Interp *I, TeOp op, Value *a, Value *b) {
  char what[24];
  Expr *ea, *eb;
  quote_op(what, sizeof what, op);
  if (operands(I, a, b, what, is_bit_op(op), &ea, &eb) < 0) return NULL;
  return bi_te_shallow(I, build(I, op, ea, eb));
}

/* ExprOp's _dtype_is_int without the Python int: an expression, axis or tensor of a signed
 * integer dtype (unsigned ones and numpy scalars do not count, as in TVM). */
static bool int_operand(Value *v) {
  Expr *e = bi_te_expr_of(v);
  IterVar *iv = bi_te_itervar_of(v);
  Tensor *t = bi_te_tensor_of(v);
  DType d = e ? e->dtype : iv ? iv->var->dtype : t ? t->dtype : DT_BOOL1;
  return d.code == DT_INT;
}

static bool python_int(Value *v) { return v->kind == VAL_INT || v->kind == VAL_BOOL; }

int bi_te_div_op(Interp *I, Value *a, Value *b, TeOp *op) {
  *op = TE_DIV;
  if (int_operand(a) && int_operand(b)) {
    interp_raise(I, EXC_RuntimeError,
                 "TVM supports multiple types of integer divisions, please call div, "
                 "indexdiv/indexmod, floordiv/floormod  or truncdiv/truncmod directly to avoid "
                 "ambiguity in the code.");
    return -1;
  }
  if ((int_operand(a) && python_int(b)) || (python_int(a) && int_operand(b))) *op = TE_FLOORDIV;
  return 0;
}

static const char *const unop_symbols[] = {"-", "+", "~", "not"};

/* TVM's -x is x * -1 in x's dtype (an unsigned -1 is all ones, as TVM's make_const has it). */
Expr *bi_te_unary(Interp *I, UnOp op, Expr *x) {
  char name[32];
  DType t = x->dtype;
  if (dt_is_bool(t) && (op == UN_NOT || op == UN_INVERT)) return bi_te_shallow(I, ir_not(arena(I), x));
  bool ok = op == UN_INVERT ? dt_is_int(t) : op != UN_NOT && is_numeric(t) && t.lanes == 1;
  if (!ok)
    return BI_TE_RAISE(I, EXC_TypeError, "bad operand dtype for unary %s: %s", unop_symbols[op],
                        dt_name(t, name));
  if (op == UN_POS) return x;
  if (op == UN_INVERT) return bi_te_intrin(I, t, "tir.bitwise_not", 1, &x);
  Expr *minus_one = dt_is_float(t) ? ir_float(arena(I), t, -1) : ir_int(arena(I), t, -1);
  return bi_te_shallow(I, ir_binary(arena(I), EXPR_MUL, x, minus_one));
}

/* ---- limits ---- */

Expr *bi_te_max_value(Interp *I, DType t) {
  char name[32];
  switch ((DTypeCode)t.code) {
  case DT_INT:
    return ir_int(arena(I), t, t.bits >= 64 ? INT64_MAX : (INT64_C(1) << (t.bits - 1)) - 1);
  case DT_UINT: /* all ones: the printer shows the unsigned value */
    return ir_int(arena(I), t, t.bits >= 64 ? -1 : (int64_t)((UINT64_C(1) << t.bits) - 1));
  case DT_FLOAT:
    return ir_float(arena(I), t, float_max(t));
  case DT_BOOL:
    return ir_int(arena(I), t, 1);
  case DT_HANDLE:
    break;
  }
  return BI_TE_RAISE(I, EXC_ValueError, "max_value: dtype %s has no maximum", dt_name(t, name));
}

Expr *bi_te_min_value(Interp *I, DType t) {
  char name[32];
  switch ((DTypeCode)t.code) {
  case DT_INT:
    return ir_int(arena(I), t, t.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (t.bits - 1)));
  case DT_UINT:
  case DT_BOOL:
    return ir_int(arena(I), t, 0);
  case DT_FLOAT:
    return ir_float(arena(I), t, -float_max(t));
  case DT_HANDLE:
    break;
  }
  return BI_TE_RAISE(I, EXC_ValueError, "min_value: dtype %s has no minimum", dt_name(t, name));
}

/* ---- truth ---- */

static bool is_compare(ExprKind k) { return k >= EXPR_EQ && k <= EXPR_GE; }

/* -1, 0, 1 for two literals of one dtype; 2 when unordered (a NaN) or not both literals. */
static int compare_literals(const Expr *a, const Expr *b) {
  if (a->kind == EXPR_INT && b->kind == EXPR_INT) {
    if (a->dtype.code == DT_UINT) {
      uint64_t x = uint_value(a), y = uint_value(b);
      return (x > y) - (x < y);
    }
    return (a->u.ival > b->u.ival) - (a->u.ival < b->u.ival);
  }
  if (a->kind == EXPR_FLOAT && b->kind == EXPR_FLOAT) {
    double x = a->u.fval, y = b->u.fval;
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
  }
  return 2;
}

static bool compare_holds(ExprKind k, int c) {
  if (k == EXPR_EQ) return c == 0;
  if (k == EXPR_NE) return c != 0;
  if (k == EXPR_LT) return c == -1;
  if (k == EXPR_LE) return c == -1 || c == 0;
  if (k == EXPR_GT) return c == 1;
  return c == 1 || c == 0; /* EXPR_GE */
}

/* TVM's Object.same_as: one node, or the same variable. */
static bool same_as(const Expr *a, const Expr *b) {
  return a == b || (a->kind == EXPR_VAR && b->kind == EXPR_VAR && a->u.var == b->u.var);
}

int bi_te_truthy(Interp *I, Expr *e) {
  if (e->kind == EXPR_INT) return e->u.ival != 0;
  if (is_compare(e->kind)) {
    int c = compare_literals(e->u.bin.a, e->u.bin.b);
    if (c != 2 || (e->u.bin.a->kind == EXPR_FLOAT && e->u.bin.b->kind == EXPR_FLOAT))
      return compare_holds(e->kind, c);
    if (e->kind == EXPR_EQ) return same_as(e->u.bin.a, e->u.bin.b);
    if (e->kind == EXPR_NE) return !same_as(e->u.bin.a, e->u.bin.b);
  }
  StrBuf b = STRBUF_INIT;
  ir_print_expr(&b, e);
  interp_raise(I, EXC_ValueError,
               "cannot use the tensor expression %s as a Python bool; use te.if_then_else to "
               "choose between expressions",
               sb_cstr(&b));
  sb_free(&b);
  return -1;
}
