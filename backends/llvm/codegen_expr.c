/* codegen_expr.c: LLVM values for the expressions of lowered IR, with TVM's semantics: signed
 * integer overflow is undefined (nsw, as TVM emits it, so index arithmetic optimises);
 * DIV/MOD truncate and FLOORDIV/FLOORMOD round toward -inf; float division is true division.
 * An integer division by zero, which would trap, gives 0 instead (numpy's answer), and so does
 * INT_MIN / -1's remainder; the guard costs nothing when the divisor is a constant. */
#include <stdlib.h>

#include "backends/llvm/codegen_llvm_impl.h"

/* ---- types and constants ---- */

static LLVMTypeRef scalar_type(Cg *cg, DType t) {
  switch ((DTypeCode)t.code) {
  case DT_INT:
  case DT_UINT:
    return LLVMIntTypeInContext(cg->ctx, t.bits);
  case DT_BOOL:
    return LLVMInt1TypeInContext(cg->ctx);
  case DT_FLOAT:
    if (t.bits == 16) return LLVMHalfTypeInContext(cg->ctx);
    if (t.bits == 32) return LLVMFloatTypeInContext(cg->ctx);
    if (t.bits == 64) return LLVMDoubleTypeInContext(cg->ctx);
    ir_error(cg->diag, "not supported yet: float%d on the llvm target", t.bits);
    return LLVMFloatTypeInContext(cg->ctx);
  case DT_HANDLE:
    return LLVMPointerTypeInContext(cg->ctx, 0);
  }
  TES_UNREACHABLE();
}

LLVMTypeRef cg_type(Cg *cg, DType t) {
  LLVMTypeRef s = scalar_type(cg, t);
  return t.lanes > 1 ? LLVMVectorType(s, t.lanes) : s;
}

LLVMTypeRef cg_mem_type(Cg *cg, DType t) {
  if (t.code == DT_BOOL) return LLVMInt8TypeInContext(cg->ctx);
  return scalar_type(cg, t);
}

LLVMValueRef cg_splat(Cg *cg, LLVMValueRef v, int lanes) {
  if (lanes <= 1) return v;
  if (LLVMIsConstant(v)) {
    LLVMValueRef *copies = xmalloc((size_t)lanes * sizeof *copies);
    for (int i = 0; i < lanes; i++) copies[i] = v;
    LLVMValueRef c = LLVMConstVector(copies, (unsigned)lanes);
    free(copies);
    return c;
  }
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), (unsigned)lanes);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMValueRef one =
      LLVMBuildInsertElement(cg->b, LLVMGetPoison(vt), v, LLVMConstInt(i32, 0, 0), "");
  LLVMValueRef zeros = LLVMConstNull(LLVMVectorType(i32, (unsigned)lanes));
  return LLVMBuildShuffleVector(cg->b, one, LLVMGetPoison(vt), zeros, "");
}

LLVMValueRef cg_const_int(Cg *cg, DType t, int64_t v) {
  LLVMValueRef c = LLVMConstInt(scalar_type(cg, t), (unsigned long long)v, t.code == DT_INT);
  return cg_splat(cg, c, t.lanes);
}

static LLVMValueRef const_float(Cg *cg, DType t, double v) {
  return cg_splat(cg, LLVMConstReal(scalar_type(cg, t), v), t.lanes);
}

static bool is_signed(DType t) { return t.code == DT_INT; }

/* Floating-point results may be contracted into fused multiply-adds, as TVM lets LLVM do
 * (AllowFPOpFusion=Fast); nothing else is relaxed. */
static LLVMValueRef contract(LLVMValueRef v) {
  if (LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v))
    LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
  return v;
}

/* ---- conversions ---- */

static LLVMValueRef to_bool(Cg *cg, LLVMValueRef v, DType from) {
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(v));
  if (dt_is_float(from)) return LLVMBuildFCmp(cg->b, LLVMRealUNE, v, zero, "");
  return LLVMBuildICmp(cg->b, LLVMIntNE, v, zero, "");
}

LLVMValueRef cg_convert(Cg *cg, LLVMValueRef v, DType from, DType to) {
  if (dt_eq(from, to)) return v;
  LLVMTypeRef t = cg_type(cg, to);
  if (from.code == DT_HANDLE || to.code == DT_HANDLE) {
    ir_error(cg->diag, "not supported yet: a cast between a handle and a number");
    return LLVMGetPoison(t);
  }
  if (to.code == DT_BOOL) return to_bool(cg, v, from);
  if (from.code == DT_BOOL)
    return dt_is_float(to) ? LLVMBuildUIToFP(cg->b, v, t, "") : LLVMBuildZExt(cg->b, v, t, "");
  if (dt_is_int(from) && dt_is_int(to)) return LLVMBuildIntCast2(cg->b, v, t, is_signed(from), "");
  if (dt_is_int(from))
    return is_signed(from) ? LLVMBuildSIToFP(cg->b, v, t, "") : LLVMBuildUIToFP(cg->b, v, t, "");
  if (dt_is_int(to))
    return is_signed(to) ? LLVMBuildFPToSI(cg->b, v, t, "") : LLVMBuildFPToUI(cg->b, v, t, "");
  return LLVMBuildFPCast(cg->b, v, t, "");
}

LLVMValueRef cg_to_i64(Cg *cg, LLVMValueRef v, DType from) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
  if (from.lanes > 1) i64 = LLVMVectorType(i64, from.lanes);
  return LLVMBuildIntCast2(cg->b, v, i64, is_signed(from), "");
}

/* ---- division ---- */

/* A divisor that can be neither 0 nor -1, so the division needs no guard. */
static bool safe_divisor(const Expr *b) {
  int64_t v;
  return ir_as_int(b, &v) && v != 0 && v != -1;
}

typedef struct Division {
  LLVMValueRef a, b; /* b replaced by 1 where it is 0 (or -1 under INT_MIN) */
  LLVMValueRef zero; /* i1 (vector): the lanes where the divisor was 0; NULL if none can be */
} Division;

static Division guard_division(Cg *cg, const Expr *e, LLVMValueRef a, LLVMValueRef b) {
  Division d = {a, b, NULL};
  DType t = e->dtype;
  if (safe_divisor(e->u.bin.b)) return d;
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(b)), one = cg_const_int(cg, t, 1);
  d.zero = LLVMBuildICmp(cg->b, LLVMIntEQ, b, zero, "");
  LLVMValueRef bad = d.zero;
  if (is_signed(t)) {
    int64_t min = t.bits >= 64 ? INT64_MIN : -((int64_t)1 << (t.bits - 1));
    LLVMValueRef amin = LLVMBuildICmp(cg->b, LLVMIntEQ, a, cg_const_int(cg, t, min), "");
    LLVMValueRef bm1 = LLVMBuildICmp(cg->b, LLVMIntEQ, b, cg_const_int(cg, t, -1), "");
    bad = LLVMBuildOr(cg->b, bad, LLVMBuildAnd(cg->b, amin, bm1, ""), "");
  }
  d.b = LLVMBuildSelect(cg->b, bad, one, b, "");
  return d;
}

static LLVMValueRef zero_where(Cg *cg, const Division *d, LLVMValueRef v) {
  if (!d->zero) return v;
  return LLVMBuildSelect(cg->b, d->zero, LLVMConstNull(LLVMTypeOf(v)), v, "");
}

/* floordiv/floormod from the truncating ones: when the remainder is nonzero and its sign
 * differs from the divisor's, the quotient is one less and the modulo one divisor more. */
static LLVMValueRef floor_adjust(Cg *cg, DType t, LLVMValueRef r, LLVMValueRef b) {
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(r));
  LLVMValueRef nz = LLVMBuildICmp(cg->b, LLVMIntNE, r, zero, "");
  LLVMValueRef sign = LLVMBuildICmp(cg->b, LLVMIntSLT, LLVMBuildXor(cg->b, r, b, ""), zero, "");
  return LLVMBuildAnd(cg->b, nz, sign, "");
}

static LLVMValueRef float_floor(Cg *cg, LLVMValueRef v) {
  LLVMTypeRef ty = LLVMTypeOf(v), fty;
  LLVMValueRef f = cg_intrinsic(cg, "llvm.floor", &ty, 1, &fty);
  return LLVMBuildCall2(cg->b, fty, f, &v, 1, "");
}

static LLVMValueRef int_division(Cg *cg, const Expr *e, LLVMValueRef a, LLVMValueRef b) {
  Division d = guard_division(cg, e, a, b);
  bool s = is_signed(e->dtype);
  LLVMValueRef q = s ? LLVMBuildSDiv(cg->b, d.a, d.b, "") : LLVMBuildUDiv(cg->b, d.a, d.b, "");
  LLVMValueRef r = s ? LLVMBuildSRem(cg->b, d.a, d.b, "") : LLVMBuildURem(cg->b, d.a, d.b, "");
  LLVMValueRef out = e->kind == EXPR_DIV || e->kind == EXPR_FLOORDIV ? q : r;
  if (s && e->kind == EXPR_FLOORDIV) {
    LLVMValueRef adj = floor_adjust(cg, e->dtype, r, d.b);
    out = LLVMBuildSub(cg->b, q, LLVMBuildZExt(cg->b, adj, LLVMTypeOf(q), ""), "");
  } else if (s && e->kind == EXPR_FLOORMOD) {
    LLVMValueRef adj = floor_adjust(cg, e->dtype, r, d.b);
    out = LLVMBuildAdd(cg->b, r, LLVMBuildSelect(cg->b, adj, d.b, LLVMConstNull(LLVMTypeOf(r)), ""),
                       "");
  }
  return zero_where(cg, &d, out);
}

static LLVMValueRef float_division(Cg *cg, ExprKind k, LLVMValueRef a, LLVMValueRef b) {
  if (k == EXPR_DIV) return contract(LLVMBuildFDiv(cg->b, a, b, ""));
  if (k == EXPR_MOD) return LLVMBuildFRem(cg->b, a, b, "");
  LLVMValueRef q = float_floor(cg, LLVMBuildFDiv(cg->b, a, b, ""));
  if (k == EXPR_FLOORDIV) return q;
  return LLVMBuildFSub(cg->b, a, LLVMBuildFMul(cg->b, q, b, ""), ""); /* FLOORMOD */
}

/* ---- binary operators ---- */

/* ADD, SUB or MUL. */
static LLVMValueRef arith(Cg *cg, ExprKind k, DType t, LLVMValueRef a, LLVMValueRef b) {
  if (dt_is_float(t)) {
    if (k == EXPR_ADD) return contract(LLVMBuildFAdd(cg->b, a, b, ""));
    if (k == EXPR_SUB) return contract(LLVMBuildFSub(cg->b, a, b, ""));
    return contract(LLVMBuildFMul(cg->b, a, b, ""));
  }
  if (is_signed(t) && t.bits >= 32) {
    if (k == EXPR_ADD) return LLVMBuildNSWAdd(cg->b, a, b, "");
    if (k == EXPR_SUB) return LLVMBuildNSWSub(cg->b, a, b, "");
    return LLVMBuildNSWMul(cg->b, a, b, "");
  }
  if (k == EXPR_ADD) return LLVMBuildAdd(cg->b, a, b, "");
  if (k == EXPR_SUB) return LLVMBuildSub(cg->b, a, b, "");
  return LLVMBuildMul(cg->b, a, b, "");
}

/* Predicates of EQ NE LT LE GT GE in that order: signed, unsigned, float. */
static const LLVMIntPredicate sint_pred[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntSLT,
                                             LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
static const LLVMIntPredicate uint_pred[] = {LLVMIntEQ,  LLVMIntNE,  LLVMIntULT,
                                             LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
static const LLVMRealPredicate float_pred[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT,
                                               LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};

static LLVMValueRef compare(Cg *cg, int which, DType t, LLVMValueRef a, LLVMValueRef b) {
  if (dt_is_float(t)) return LLVMBuildFCmp(cg->b, float_pred[which], a, b, "");
  const LLVMIntPredicate *p = is_signed(t) ? sint_pred : uint_pred;
  return LLVMBuildICmp(cg->b, p[which], a, b, "");
}

static LLVMValueRef min_max(Cg *cg, bool is_min, DType t, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef lt = compare(cg, is_min ? 2 : 4, t, a, b); /* a < b for min, a > b for max */
  return LLVMBuildSelect(cg->b, lt, a, b, "");
}

/* Every kind of IR_CASE_BINARY. */
static LLVMValueRef binary(Cg *cg, const Expr *e) {
  DType t = e->u.bin.a->dtype;
  ExprKind k = e->kind;
  LLVMValueRef a = cg_expr(cg, e->u.bin.a), b = cg_expr(cg, e->u.bin.b);
  if (k == EXPR_ADD || k == EXPR_SUB || k == EXPR_MUL) return arith(cg, k, t, a, b);
  if (k == EXPR_DIV || k == EXPR_MOD || k == EXPR_FLOORDIV || k == EXPR_FLOORMOD)
    return dt_is_float(t) ? float_division(cg, k, a, b) : int_division(cg, e, a, b);
  if (k == EXPR_MIN || k == EXPR_MAX) return min_max(cg, k == EXPR_MIN, t, a, b);
  if (k >= EXPR_EQ && k <= EXPR_GE) return compare(cg, (int)(k - EXPR_EQ), t, a, b);
  if (k == EXPR_AND) return LLVMBuildAnd(cg->b, a, b, "");
  TES_ASSERT(k == EXPR_OR, "binary: %s", ir_expr_kind_names[k]);
  return LLVMBuildOr(cg->b, a, b, "");
}

static bool is_int32(DType t) { return t.code == DT_INT && t.bits == 32 && t.lanes == 1; }

LLVMValueRef cg_index(Cg *cg, const Expr *e) {
  if (is_int32(e->dtype)) {
    LLVMValueRef w;
    switch (e->kind) {
    case EXPR_INT:
      return LLVMConstInt(LLVMInt64TypeInContext(cg->ctx), (unsigned long long)e->u.ival, 1);
    case EXPR_VAR:
      if ((w = cg_lookup_wide(cg, e->u.var))) return w;
      break;
    case EXPR_ADD:
    case EXPR_SUB:
    case EXPR_MUL:
      return arith(cg, e->kind, DT_MAKE(DT_INT, 64, 1), cg_index(cg, e->u.bin.a),
                   cg_index(cg, e->u.bin.b));
    default:
      break;
    }
  }
  return cg_to_i64(cg, cg_expr(cg, e), e->dtype);
}

/* ---- vectors ---- */

static LLVMValueRef ramp(Cg *cg, const Expr *e) {
  DType t = e->u.ramp.base->dtype;
  int lanes = e->u.ramp.lanes;
  LLVMValueRef base = cg_splat(cg, cg_expr(cg, e->u.ramp.base), lanes);
  LLVMValueRef stride = cg_splat(cg, cg_expr(cg, e->u.ramp.stride), lanes);
  LLVMValueRef *iota = xmalloc((size_t)lanes * sizeof *iota);
  for (int i = 0; i < lanes; i++)
    iota[i] = dt_is_float(t) ? LLVMConstReal(scalar_type(cg, t), i)
                             : LLVMConstInt(scalar_type(cg, t), (unsigned long long)i, 0);
  LLVMValueRef steps = LLVMConstVector(iota, (unsigned)lanes);
  free(iota);
  DType vt = dt_with_lanes(t, lanes);
  return arith(cg, EXPR_ADD, vt, base, arith(cg, EXPR_MUL, vt, stride, steps));
}

static LLVMValueRef let(Cg *cg, const Expr *e) {
  cg_bind(cg, e->u.let.var, cg_expr(cg, e->u.let.value));
  LLVMValueRef v = cg_expr(cg, e->u.let.body);
  cg_unbind(cg, 1);
  return v;
}

static LLVMValueRef var(Cg *cg, const Expr *e) {
  LLVMValueRef v = cg_lookup(cg, e->u.var);
  if (v) return v;
  ir_error(cg->diag, "variable '%s' is not bound: pass a tensor whose shape has it as an argument",
           e->u.var->name);
  return LLVMGetPoison(cg_type(cg, e->dtype));
}

static LLVMValueRef unsupported(Cg *cg, const Expr *e, const char *why) {
  ir_error(cg->diag, "not supported yet: %s expression %s on the llvm target",
           ir_expr_kind_names[e->kind], why);
  return LLVMGetPoison(cg_type(cg, e->dtype));
}

LLVMValueRef cg_expr(Cg *cg, const Expr *e) {
  switch (e->kind) {
  case EXPR_INT:
    return cg_const_int(cg, e->dtype, e->u.ival);
  case EXPR_FLOAT:
    return const_float(cg, e->dtype, e->u.fval);
  case EXPR_STR:
    return unsupported(cg, e, "outside a call");
  case EXPR_VAR:
    return var(cg, e);
  case EXPR_CAST:
    return cg_convert(cg, cg_expr(cg, e->u.unary.a), e->u.unary.a->dtype, e->dtype);
  IR_CASE_BINARY:
    return binary(cg, e);
  case EXPR_NOT:
    return LLVMBuildNot(cg->b, cg_expr(cg, e->u.unary.a), "");
  case EXPR_SELECT:
    return LLVMBuildSelect(cg->b, cg_expr(cg, e->u.select.cond), cg_expr(cg, e->u.select.t),
                           cg_expr(cg, e->u.select.f), "");
  case EXPR_RAMP:
    return ramp(cg, e);
  case EXPR_BROADCAST:
    return cg_splat(cg, cg_expr(cg, e->u.bcast.value), e->u.bcast.lanes);
  case EXPR_LET:
    return let(cg, e);
  case EXPR_CALL:
    return cg_call(cg, e);
  case EXPR_LOAD:
    return cg_load(cg, e);
  case EXPR_PRODUCER_LOAD:
    return unsupported(cg, e, "(a tensor read left by lowering)");
  case EXPR_REDUCE:
    return unsupported(cg, e, "(a reduction left by lowering)");
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}
