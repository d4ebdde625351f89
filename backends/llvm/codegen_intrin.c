/* codegen_intrin.c: calls in lowered IR. Math functions on vectors go to libmvec where the
 * target has it (codegen_vecmath.c: exp, log, pow, tanh, erf, sigmoid); otherwise they become
 * LLVM intrinsics where LLVM has one (it folds constants through them; sqrt is vector code,
 * rsqrt exactly 1 / sqrt), else calls into libm, lane by lane for vectors; float16 goes through float32 for libm. tir.if_then_else evaluates only the
 * branch taken: with a scalar condition by branching, with a vector one by masking the loads
 * of each branch to the lanes that take it (codegen_mem.c reads cg->lane_mask). Intrinsics of
 * other targets (tensor cores, VTA) are "not supported yet" here. */
#include <stdlib.h>
#include <string.h>

#include "backends/llvm/codegen_llvm_impl.h"

static LLVMValueRef poison(Cg *cg, const Expr *e) { return LLVMGetPoison(cg_type(cg, e->dtype)); }

static LLVMValueRef call_intrinsic(Cg *cg, const char *name, LLVMValueRef *args, int n) {
  LLVMTypeRef t = LLVMTypeOf(args[0]), fty;
  LLVMValueRef f = cg_intrinsic(cg, name, &t, 1, &fty);
  return LLVMBuildCall2(cg->b, fty, f, args, (unsigned)n, "");
}

/* A libm function (name is the double version: "tanh") on scalars of type t. */
static LLVMValueRef libm_scalar(Cg *cg, const char *name, DType t, LLVMValueRef *args, int n) {
  DType ct = t.bits == 64 ? DT_F64 : DT_F32;
  char fname[32];
  snprintf(fname, sizeof fname, "%s%s", name, t.bits == 64 ? "" : "f");
  LLVMTypeRef ft = cg_type(cg, ct), params[2] = {ft, ft};
  LLVMValueRef conv[2];
  for (int i = 0; i < n; i++) conv[i] = cg_convert(cg, args[i], dt_element(t), ct);
  LLVMValueRef r = cg_call_named(cg, fname, LLVMFunctionType(ft, params, (unsigned)n, 0), conv, n);
  return cg_convert(cg, r, ct, dt_element(t));
}

/* libm on vectors: one call per lane, as LLVM has no vector form of these to call. */
static LLVMValueRef libm(Cg *cg, const char *name, DType t, LLVMValueRef *args, int n) {
  if (t.lanes <= 1) return libm_scalar(cg, name, t, args, n);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMValueRef out = LLVMGetPoison(cg_type(cg, t));
  for (int lane = 0; lane < t.lanes; lane++) {
    LLVMValueRef idx = LLVMConstInt(i32, (unsigned long long)lane, 0), lane_args[2];
    for (int i = 0; i < n; i++) lane_args[i] = LLVMBuildExtractElement(cg->b, args[i], idx, "");
    LLVMValueRef r = libm_scalar(cg, name, t, lane_args, n);
    out = LLVMBuildInsertElement(cg->b, out, r, idx, "");
  }
  return out;
}

/* tir.NAME -> what computes it. */
typedef enum { M_INTRINSIC, M_LIBM, M_SIGMOID, M_RSQRT, M_FMOD, M_ISNAN } MathHow;
typedef struct MathFn {
  /* mvec: the libmvec function that computes it on vectors (codegen_vecmath.c), or NULL */
  const char *tir, *target;
  int nargs;
  MathHow how;
  const char *mvec;
} MathFn;

static const MathFn math_fns[] = {
    {"tir.exp", "llvm.exp", 1, M_INTRINSIC, "exp"},
    {"tir.exp2", "llvm.exp2", 1, M_INTRINSIC, NULL},
    {"tir.exp10", "exp10", 1, M_LIBM, NULL},
    {"tir.log", "llvm.log", 1, M_INTRINSIC, "log"},
    {"tir.log2", "llvm.log2", 1, M_INTRINSIC, NULL},
    {"tir.log10", "llvm.log10", 1, M_INTRINSIC, NULL},
    {"tir.log1p", "log1p", 1, M_LIBM, NULL},
    {"tir.sqrt", "llvm.sqrt", 1, M_INTRINSIC, NULL},
    {"tir.rsqrt", "llvm.sqrt", 1, M_RSQRT, NULL},
    {"tir.sigmoid", "llvm.exp", 1, M_SIGMOID, "exp"},
    {"tir.tanh", "tanh", 1, M_LIBM, "tanh"},
    {"tir.erf", "erf", 1, M_LIBM, "erf"},
    {"tir.sin", "llvm.sin", 1, M_INTRINSIC, NULL},
    {"tir.cos", "llvm.cos", 1, M_INTRINSIC, NULL},
    {"tir.tan", "tan", 1, M_LIBM, NULL},
    {"tir.sinh", "sinh", 1, M_LIBM, NULL},
    {"tir.cosh", "cosh", 1, M_LIBM, NULL},
    {"tir.asin", "asin", 1, M_LIBM, NULL},
    {"tir.acos", "acos", 1, M_LIBM, NULL},
    {"tir.atan", "atan", 1, M_LIBM, NULL},
    {"tir.acosh", "acosh", 1, M_LIBM, NULL},
    {"tir.asinh", "asinh", 1, M_LIBM, NULL},
    {"tir.atanh", "atanh", 1, M_LIBM, NULL},
    {"tir.atan2", "atan2", 2, M_LIBM, NULL},
    {"tir.floor", "llvm.floor", 1, M_INTRINSIC, NULL},
    {"tir.ceil", "llvm.ceil", 1, M_INTRINSIC, NULL},
    {"tir.round", "llvm.round", 1, M_INTRINSIC, NULL}, /* half away from zero, as TVM's */
    {"tir.nearbyint", "llvm.nearbyint", 1, M_INTRINSIC, NULL},
    {"tir.trunc", "llvm.trunc", 1, M_INTRINSIC, NULL},
    {"tir.fabs", "llvm.fabs", 1, M_INTRINSIC, NULL},
    {"tir.pow", "llvm.pow", 2, M_INTRINSIC, "pow"},
    {"tir.fmod", NULL, 2, M_FMOD, NULL},
    {"tir.isnan", NULL, 1, M_ISNAN, NULL},
};

static const MathFn *math_fn(const char *op) {
  for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++)
    if (strcmp(math_fns[i].tir, op) == 0) return &math_fns[i];
  return NULL;
}

static LLVMValueRef math(Cg *cg, const Expr *e, const MathFn *m) {
  DType t = e->u.call.args[0]->dtype;
  if (e->u.call.n != m->nargs || !dt_is_float(t)) {
    ir_error(cg->diag, "@%s takes %d float argument%s", m->tir, m->nargs, m->nargs == 1 ? "" : "s");
    return poison(cg, e);
  }
  LLVMValueRef a[2];
  for (int i = 0; i < m->nargs; i++) a[i] = cg_expr(cg, e->u.call.args[i]);
  LLVMValueRef one = cg_splat(cg, LLVMConstReal(cg_type(cg, dt_element(t)), 1.0), t.lanes);
  LLVMValueRef v = m->mvec && m->how != M_SIGMOID ? cg_vecmath(cg, m->mvec, t, a, m->nargs) : NULL;
  if (v) return v;
  switch (m->how) {
  case M_INTRINSIC:
    return call_intrinsic(cg, m->target, a, m->nargs);
  case M_LIBM:
    return libm(cg, m->target, t, a, m->nargs);
  case M_SIGMOID: {
    LLVMValueRef neg = LLVMBuildFNeg(cg->b, a[0], "");
    LLVMValueRef ex = cg_vecmath(cg, m->mvec, t, &neg, 1);
    if (!ex) ex = call_intrinsic(cg, m->target, &neg, 1);
    return LLVMBuildFDiv(cg->b, one, LLVMBuildFAdd(cg->b, one, ex, ""), "");
  }
  case M_RSQRT:
    return LLVMBuildFDiv(cg->b, one, call_intrinsic(cg, m->target, a, 1), "");
  case M_FMOD:
    return LLVMBuildFRem(cg->b, a[0], a[1], "");
  case M_ISNAN:
    return LLVMBuildFCmp(cg->b, LLVMRealUNO, a[0], a[0], "");
  }
  TES_UNREACHABLE();
}

/* ---- integer intrinsics ---- */

static LLVMValueRef bits(Cg *cg, const Expr *e) {
  const char *op = e->u.call.op + 4; /* past "tir." */
  int n = e->u.call.n;
  bool unary = strcmp(op, "bitwise_not") == 0 || strcmp(op, "popcount") == 0;
  if (n != (unary ? 1 : 2) || !dt_is_int(e->u.call.args[0]->dtype)) {
    ir_error(cg->diag, "@%s takes %d integer argument%s", e->u.call.op, unary ? 1 : 2,
             unary ? "" : "s");
    return poison(cg, e);
  }
  LLVMValueRef a = cg_expr(cg, e->u.call.args[0]);
  if (strcmp(op, "bitwise_not") == 0) return LLVMBuildNot(cg->b, a, "");
  if (strcmp(op, "popcount") == 0) return call_intrinsic(cg, "llvm.ctpop", &a, 1);
  LLVMValueRef b = cg_expr(cg, e->u.call.args[1]);
  if (strcmp(op, "shift_left") == 0) return LLVMBuildShl(cg->b, a, b, "");
  if (strcmp(op, "shift_right") == 0)
    return e->dtype.code == DT_INT ? LLVMBuildAShr(cg->b, a, b, "")
                                   : LLVMBuildLShr(cg->b, a, b, "");
  if (strcmp(op, "bitwise_and") == 0) return LLVMBuildAnd(cg->b, a, b, "");
  if (strcmp(op, "bitwise_or") == 0) return LLVMBuildOr(cg->b, a, b, "");
  return LLVMBuildXor(cg->b, a, b, ""); /* bitwise_xor */
}

static bool is_bits_op(const char *op) {
  static const char *const names[] = {"tir.shift_left", "tir.shift_right", "tir.bitwise_and",
                                      "tir.bitwise_or", "tir.bitwise_xor", "tir.bitwise_not",
                                      "tir.popcount"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strcmp(op, names[i]) == 0) return true;
  return false;
}

/* ---- if_then_else ---- */

static LLVMValueRef branch_on_scalar(Cg *cg, const Expr *e, LLVMValueRef cond) {
  LLVMBasicBlockRef then_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ite.then");
  LLVMBasicBlockRef else_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ite.else");
  LLVMBasicBlockRef end_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ite.end");
  LLVMBuildCondBr(cg->b, cond, then_bb, else_bb);
  LLVMPositionBuilderAtEnd(cg->b, then_bb);
  LLVMValueRef tv = cg_expr(cg, e->u.call.args[1]);
  LLVMBasicBlockRef then_end = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, end_bb);
  LLVMPositionBuilderAtEnd(cg->b, else_bb);
  LLVMValueRef fv = cg_expr(cg, e->u.call.args[2]);
  LLVMBasicBlockRef else_end = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, end_bb);
  LLVMPositionBuilderAtEnd(cg->b, end_bb);
  LLVMValueRef phi = LLVMBuildPhi(cg->b, cg_type(cg, e->dtype), "");
  LLVMValueRef vals[2] = {tv, fv};
  LLVMBasicBlockRef bbs[2] = {then_end, else_end};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

static LLVMValueRef masked_branch(Cg *cg, const Expr *branch, LLVMValueRef lanes) {
  LLVMValueRef saved = cg->lane_mask;
  cg->lane_mask = saved ? LLVMBuildAnd(cg->b, saved, lanes, "") : lanes;
  LLVMValueRef v = cg_expr(cg, branch);
  cg->lane_mask = saved;
  return v;
}

static LLVMValueRef if_then_else(Cg *cg, const Expr *e) {
  if (e->u.call.n != 3) {
    ir_error(cg->diag, "@tir.if_then_else takes 3 arguments, not %d", e->u.call.n);
    return poison(cg, e);
  }
  const Expr *c = e->u.call.args[0];
  LLVMValueRef cond = cg_expr(cg, c);
  if (c->dtype.lanes == 1) return branch_on_scalar(cg, e, cond);
  LLVMValueRef tv = masked_branch(cg, e->u.call.args[1], cond);
  LLVMValueRef fv = masked_branch(cg, e->u.call.args[2], LLVMBuildNot(cg->b, cond, ""));
  return LLVMBuildSelect(cg->b, cond, tv, fv, "");
}

/* ---- call_extern ---- */

static LLVMValueRef call_extern(Cg *cg, const Expr *e) {
  const char *name = e->u.call.op;
  int first = 0;
  if (strcmp(name, "tir.call_extern") == 0 || strcmp(name, "tir.call_pure_extern") == 0) {
    if (e->u.call.n < 1 || e->u.call.args[0]->kind != EXPR_STR) {
      ir_error(cg->diag, "@%s needs the function's name first", name);
      return poison(cg, e);
    }
    name = e->u.call.args[0]->u.str;
    first = 1;
  }
  int n = e->u.call.n - first;
  LLVMTypeRef *types = xmalloc((size_t)(n + 1) * sizeof *types);
  LLVMValueRef *args = xmalloc((size_t)(n + 1) * sizeof *args);
  for (int i = 0; i < n; i++) {
    const Expr *a = e->u.call.args[first + i];
    if (a->dtype.lanes > 1 || a->kind == EXPR_STR)
      ir_error(cg->diag,
               "not supported yet: @tir.call_extern(\"%s\") with a vector or string argument",
               name);
    args[i] = cg_expr(cg, a);
    types[i] = LLVMTypeOf(args[i]);
  }
  LLVMTypeRef fty = LLVMFunctionType(cg_type(cg, e->dtype), types, (unsigned)n, 0);
  LLVMValueRef r = cg_call_named(cg, name, fty, args, n);
  free(types);
  free(args);
  return r;
}

LLVMValueRef cg_call(Cg *cg, const Expr *e) {
  const char *op = e->u.call.op;
  LLVMValueRef r;
  if (e->u.call.ckind == CALL_EXTERN || strcmp(op, "tir.call_extern") == 0 ||
      strcmp(op, "tir.call_pure_extern") == 0)
    return call_extern(cg, e);
  if (cg_call_llvm(cg, e, &r)) return r;
  if (strcmp(op, "tir.likely") == 0 && e->u.call.n == 1) return cg_expr(cg, e->u.call.args[0]);
  if (strcmp(op, "tir.if_then_else") == 0) return if_then_else(cg, e);
  if (strcmp(op, "tir.tvm_access_ptr") == 0) return cg_access_ptr(cg, e);
  if (strcmp(op, "tir.address_of") == 0) return cg_address_of(cg, e);
  const MathFn *m = math_fn(op);
  if (m) return math(cg, e, m);
  if (is_bits_op(op)) return bits(cg, e);
  ir_error(cg->diag, "not supported yet: @%s on the llvm target", op);
  return poison(cg, e);
}
