/* codegen_llvm_call.c: calls of LLVM intrinsics by name (@tir.call_llvm_intrin and
 * @tir.call_llvm_pure_intrin, what tvm.tir.call_llvm_intrin builds: the intrinsic's name
 * first, then TVM's optional count of signature arguments as a uint32, then the operands),
 * tir.reinterpret, @tir.tvm_call_packed (the runtime's rt_call_packed), and LLVM IR text linked into the module (the "pragma_import_llvm"
 * attribute, s[C].pragma(axis, "import_llvm", text)). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>

#include "backends/llvm/codegen_llvm_impl.h"

static LLVMValueRef poison(Cg *cg, const Expr *e) { return LLVMGetPoison(cg_type(cg, e->dtype)); }

/* Whether fty takes exactly the argument types given and returns ret (or void). */
static bool fits(LLVMTypeRef fty, LLVMTypeRef ret, LLVMTypeRef *types, int n) {
  if ((int)LLVMCountParamTypes(fty) != n || LLVMIsFunctionVarArg(fty)) return false;
  LLVMTypeRef r = LLVMGetReturnType(fty);
  if (r != ret && LLVMGetTypeKind(r) != LLVMVoidTypeKind) return false;
  LLVMTypeRef *ps = xmalloc((size_t)(n + 1) * sizeof *ps);
  LLVMGetParamTypes(fty, ps);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) ok = ps[i] == types[i];
  free(ps);
  return ok;
}

/* Whether the declaration of intrinsic id overloaded on tys[0..k) is one LLVM accepts: a call
 * of it in a scratch module passes the verifier, which checks the name's mangling against the
 * types. */
static bool overload_valid(Cg *cg, unsigned id, LLVMTypeRef *tys, int k) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tes.overload", cg->ctx);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, tys, (size_t)k);
  LLVMValueRef decl = LLVMGetIntrinsicDeclaration(m, id, tys, (size_t)k);
  LLVMValueRef f = LLVMAddFunction(m, "probe", LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx),
                                                                 NULL, 0, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(cg->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(cg->ctx, f, "entry"));
  unsigned n = LLVMCountParamTypes(fty);
  LLVMTypeRef *ps = xmalloc((n + 1) * sizeof *ps);
  LLVMValueRef *args = xmalloc((n + 1) * sizeof *args);
  LLVMGetParamTypes(fty, ps);
  /* zeros, not poison: an immarg operand (llvm.prefetch's rw) must be a constant integer */
  for (unsigned i = 0; i < n; i++) args[i] = LLVMConstNull(ps[i]);
  LLVMBuildCall2(b, fty, decl, args, n, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  char *msg = NULL;
  bool bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
  LLVMDisposeMessage(msg);
  LLVMDisposeModule(m);
  free(ps);
  free(args);
  return !bad;
}

/* The overloaded types of intrinsic id for a call returning ret with the given arguments:
 * TVM's signature arguments when it gave a count, else the result's type, then the result's
 * and the arguments' in order. 0 when none fits. The array is padded, so that LLVM reading a
 * type past a guess too short reads one of ours. */
static int find_overload(Cg *cg, unsigned id, LLVMTypeRef ret, LLVMTypeRef *types, int n,
                         int64_t nsig, LLVMTypeRef out[8]) {
  enum { MAXK = 3 };
  LLVMTypeRef cand[2 * MAXK + 2][8];
  int ks[2 * MAXK + 2], nc = 0;
  if (nsig > 0 && nsig <= n && nsig <= MAXK) {
    for (int i = 0; i < 8; i++) cand[nc][i] = i < nsig ? types[i] : ret;
    ks[nc++] = (int)nsig;
  }
  for (int k = 1; k <= MAXK; k++) {
    /* the result's type, then the arguments' */
    for (int i = 0; i < 8; i++) cand[nc][i] = i == 0 ? ret : i - 1 < n ? types[i - 1] : ret;
    ks[nc++] = k;
    if (k > n) continue;
    for (int i = 0; i < 8; i++) cand[nc][i] = i < n ? types[i] : ret;
    ks[nc++] = k;
  }
  for (int c = 0; c < nc; c++) {
    LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, cand[c], (size_t)ks[c]);
    if (fits(fty, ret, types, n) && overload_valid(cg, id, cand[c], ks[c])) {
      memcpy(out, cand[c], sizeof cand[c]);
      return ks[c];
    }
  }
  return 0;
}

/* x86 intrinsics and the CPU feature each needs, most specific first: LLVM cannot select one
 * for a target without the feature and would end the process, so the build fails first. */
static const struct {
  const char *prefix, *feature;
} x86_features[] = {
    {"llvm.x86.avx512.vpdpbusd", "avx512vnni"}, {"llvm.x86.avx512.vpdpwssd", "avx512vnni"},
    {"llvm.x86.avx512.", "avx512f"},            {"llvm.x86.avx2.", "avx2"},
    {"llvm.x86.fma.", "fma"},                   {"llvm.x86.avx.", "avx"},
    {"llvm.x86.sse42.crc32", "crc32"},          {"llvm.x86.sse42.", "sse4.2"},
    {"llvm.x86.sse41.", "sse4.1"},
    {"llvm.x86.ssse3.", "ssse3"},               {"llvm.x86.sse3.", "sse3"},
    {"llvm.x86.bmi.", "bmi"},                   {"llvm.x86.avx512bf16.", "avx512bf16"},
    {"llvm.x86.avx512fp16.", "avx512fp16"},     {"llvm.x86.avx10.", "avx10.1-512"},
};

static bool has_feature(const char *features, const char *f) {
  size_t n = strlen(f);
  for (const char *p = features; p && (p = strchr(p, '+')); p++)
    if (strncmp(p + 1, f, n) == 0 && (p[1 + n] == ',' || p[1 + n] == '\0')) return true;
  return false;
}

/* false with a BuildError when the target lacks the feature the intrinsic needs. */
static bool target_has(Cg *cg, const char *name) {
  for (size_t i = 0; i < sizeof x86_features / sizeof *x86_features; i++) {
    if (strncmp(name, x86_features[i].prefix, strlen(x86_features[i].prefix)) != 0) continue;
    if (has_feature(cg->features, x86_features[i].feature)) return true;
    ir_error(cg->diag, "LLVM intrinsic '%s' needs the CPU feature %s, which the target does not "
             "have (the host CPU's features, or those -mattr=+%s adds)", name,
             x86_features[i].feature, x86_features[i].feature);
    return false;
  }
  return true;
}

static bool is_uint32_const(const Expr *e) {
  return e->kind == EXPR_INT && e->dtype.code == DT_UINT && e->dtype.bits == 32 &&
         e->dtype.lanes == 1;
}

static LLVMValueRef intrin_call(Cg *cg, const Expr *e, unsigned id, const char *name,
                                Expr *const *ops, int nargs, int64_t nsig);

static LLVMValueRef llvm_intrin(Cg *cg, const Expr *e) {
  Expr *const *a = e->u.call.args;
  int n = e->u.call.n;
  if (n < 1 || a[0]->kind != EXPR_STR) {
    ir_error(cg->diag, "@%s needs the LLVM intrinsic's name first", e->u.call.op);
    return poison(cg, e);
  }
  const char *name = a[0]->u.str;
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) {
    ir_error(cg->diag, "unknown LLVM intrinsic '%s' (in @%s)", name, e->u.call.op);
    return poison(cg, e);
  }
  if (!target_has(cg, name)) return poison(cg, e);
  int first = 1;
  int64_t nsig = -1;
  if (n > 1 && is_uint32_const(a[1])) nsig = a[1]->u.ival, first = 2;
  return intrin_call(cg, e, id, name, a + first, n - first, nsig);
}

/* A call of intrinsic id (name) on the operands ops, returning e's dtype; nsig: TVM's count
 * of signature arguments, or -1. */
static LLVMValueRef intrin_call(Cg *cg, const Expr *e, unsigned id, const char *name,
                                Expr *const *ops, int nargs, int64_t nsig) {
  LLVMTypeRef *types = xmalloc((size_t)(nargs + 1) * sizeof *types);
  LLVMValueRef *args = xmalloc((size_t)(nargs + 1) * sizeof *args);
  for (int i = 0; i < nargs; i++) {
    args[i] = cg_expr(cg, ops[i]);
    types[i] = LLVMTypeOf(args[i]);
  }
  LLVMTypeRef ret = cg_type(cg, e->dtype), tys[8] = {0}, fty;
  int k = 0;
  LLVMValueRef r = NULL;
  if (LLVMIntrinsicIsOverloaded(id) && !(k = find_overload(cg, id, ret, types, nargs, nsig, tys))) {
    ir_error(cg->diag, "LLVM intrinsic '%s' has no form taking these %d arguments and "
             "returning the call's dtype", name, nargs);
  } else {
    fty = LLVMIntrinsicGetType(cg->ctx, id, tys, (size_t)k);
    if (!fits(fty, ret, types, nargs)) {
      ir_error(cg->diag, "LLVM intrinsic '%s' takes other argument or result types than the "
               "call's %d arguments and dtype", name, nargs);
    } else {
      LLVMValueRef f = LLVMGetIntrinsicDeclaration(cg->mod, id, tys, (size_t)k);
      r = LLVMBuildCall2(cg->b, fty, f, args, (unsigned)nargs, "");
      /* a void intrinsic (llvm.prefetch) is a call of TVM's int32 */
      if (LLVMGetTypeKind(LLVMGetReturnType(fty)) == LLVMVoidTypeKind) r = LLVMConstNull(ret);
    }
  }
  free(types);
  free(args);
  return r ? r : poison(cg, e);
}

/* @tir.prefetch(address, rw, locality, cache type), what tir.InjectPrefetch makes: llvm.prefetch
 * on the address's pointer type. */
static LLVMValueRef prefetch(Cg *cg, const Expr *e) {
  if (e->u.call.n != 4) {
    ir_error(cg->diag, "@tir.prefetch takes 4 arguments, not %d", e->u.call.n);
    return poison(cg, e);
  }
  static const char name[] = "llvm.prefetch";
  return intrin_call(cg, e, LLVMLookupIntrinsicID(name, strlen(name)), name, e->u.call.args, 4, 1);
}

/* tir.reinterpret: the same bits as another type of the same size. */
static LLVMValueRef reinterpret(Cg *cg, const Expr *e) {
  if (e->u.call.n != 1) {
    ir_error(cg->diag, "@tir.reinterpret takes 1 argument, not %d", e->u.call.n);
    return poison(cg, e);
  }
  const Expr *x = e->u.call.args[0];
  DType f = x->dtype, t = e->dtype;
  if (f.bits * f.lanes != t.bits * t.lanes || dt_is_bool(f) || dt_is_bool(t)) {
    char a[32], b[32];
    ir_error(cg->diag, "@tir.reinterpret of %s as %s: the sizes differ", dt_name(f, a),
             dt_name(t, b));
    return poison(cg, e);
  }
  LLVMValueRef v = cg_expr(cg, x);
  if (f.code == DT_HANDLE) v = LLVMBuildPtrToInt(cg->b, v, cg_type(cg, DT_MAKE(DT_UINT, 64, 1)), "");
  if (t.code == DT_HANDLE) return LLVMBuildIntToPtr(cg->b, v, cg_type(cg, t), "");
  return LLVMBuildBitCast(cg->b, v, cg_type(cg, t), "");
}

/* ---- call_packed ---- */

static bool is_call(const Expr *x, const char *op) {
  return x->kind == EXPR_CALL && strcmp(x->u.call.op, op) == 0;
}

/* @tir.tvm_stack_make_array(data, tvm_stack_make_shape(shape...), 0, ndim, 0 of dtype,
 * elem_offset), a compact buffer as call_packed passes it: its words (codegen_llvm.h's
 * CG_LLVM_ARRAY_*) on the stack, or NULL with an error for a strided one. */
static LLVMValueRef packed_array(Cg *cg, const Expr *x) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
  Expr *const *a = x->u.call.args;
  if (x->u.call.n != 6 || !is_call(a[1], "tir.tvm_stack_make_shape") ||
      !ir_is_const_int(a[2], 0)) {
    ir_error(cg->diag, "not supported yet: a strided buffer (@tir.tvm_stack_make_array with "
                       "strides) as an argument of @tir.tvm_call_packed");
    return NULL;
  }
  int nd = a[1]->u.call.n;
  LLVMValueRef words = cg_entry_alloca(cg, i64, (unsigned)(CG_LLVM_ARRAY_SHAPE + nd), 8);
  DType t = a[4]->dtype;
  LLVMValueRef w[CG_LLVM_ARRAY_SHAPE] = {
      LLVMBuildPtrToInt(cg->b, cg_expr(cg, a[0]), i64, ""),
      LLVMConstInt(i64, (unsigned long long)nd, 0),
      LLVMConstInt(i64, (unsigned long long)t.code | (unsigned long long)t.bits << 8 |
                            (unsigned long long)t.lanes << 16, 0),
      cg_to_i64(cg, cg_expr(cg, a[5]), a[5]->dtype)};
  for (int i = 0; i < CG_LLVM_ARRAY_SHAPE + nd; i++) {
    LLVMValueRef idx = LLVMConstInt(i64, (unsigned long long)i, 0);
    const Expr *e = i < CG_LLVM_ARRAY_SHAPE ? NULL : a[1]->u.call.args[i - CG_LLVM_ARRAY_SHAPE];
    LLVMValueRef v = e ? cg_to_i64(cg, cg_expr(cg, e), e->dtype) : w[i];
    LLVMBuildStore(cg->b, v, LLVMBuildGEP2(cg->b, i64, words, &idx, 1, ""));
  }
  return LLVMBuildPtrToInt(cg->b, words, i64, "");
}

/* Argument i's 8 bytes and its code (codegen_llvm.h's CG_LLVM_ARG_*). */
static LLVMValueRef packed_arg(Cg *cg, const Expr *x, int *code) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
  if (is_call(x, "tir.tvm_stack_make_array")) {
    *code = CG_LLVM_ARG_ARRAY;
    return packed_array(cg, x);
  }
  if (x->kind == EXPR_STR) {
    *code = CG_LLVM_ARG_STR;
    return LLVMBuildPtrToInt(cg->b, LLVMBuildGlobalStringPtr(cg->b, x->u.str, ""), i64, "");
  }
  LLVMValueRef v = cg_expr(cg, x);
  DType t = x->dtype;
  if (t.code == DT_HANDLE) return *code = CG_LLVM_ARG_HANDLE, LLVMBuildPtrToInt(cg->b, v, i64, "");
  if (dt_is_float(t)) {
    *code = CG_LLVM_ARG_FLOAT;
    v = cg_convert(cg, v, t, DT_F64);
    return LLVMBuildBitCast(cg->b, v, i64, "");
  }
  *code = CG_LLVM_ARG_INT;
  return cg_to_i64(cg, v, t);
}

/* @tir.tvm_call_packed("name", args...): rt_call_packed, returning its code when it fails. */
static LLVMValueRef call_packed(Cg *cg, const Expr *e) {
  Expr *const *a = e->u.call.args;
  int n = e->u.call.n - 1;
  if (n < 0 || a[0]->kind != EXPR_STR || e->dtype.lanes > 1) {
    ir_error(cg->diag, "@tir.tvm_call_packed needs the function's name first and a scalar dtype");
    return poison(cg, e);
  }
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx), i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMValueRef vals = cg_entry_alloca(cg, i64, (unsigned)(n ? n : 1), 8);
  LLVMValueRef codes = cg_entry_alloca(cg, i32, (unsigned)(n ? n : 1), 4);
  LLVMValueRef ret = cg_entry_alloca(cg, i64, 1, 8);
  for (int i = 0; i < n; i++) {
    if (a[1 + i]->dtype.lanes > 1) {
      ir_error(cg->diag, "not supported yet: a vector argument of @tir.tvm_call_packed(\"%s\")",
               a[0]->u.str);
      return poison(cg, e);
    }
    int code;
    LLVMValueRef v = packed_arg(cg, a[1 + i], &code);
    if (!v) return poison(cg, e);
    LLVMValueRef idx = LLVMConstInt(i64, (unsigned long long)i, 0);
    LLVMBuildStore(cg->b, v, LLVMBuildGEP2(cg->b, i64, vals, &idx, 1, ""));
    LLVMBuildStore(cg->b, LLVMConstInt(i32, (unsigned long long)code, 0),
                   LLVMBuildGEP2(cg->b, i32, codes, &idx, 1, ""));
  }
  LLVMTypeRef params[5] = {ptr, ptr, ptr, i32, ptr};
  LLVMValueRef args[5] = {LLVMBuildGlobalStringPtr(cg->b, a[0]->u.str, ""), vals, codes,
                          LLVMConstInt(i32, (unsigned long long)n, 0), ret};
  LLVMValueRef rc =
      cg_call_named(cg, "rt_call_packed", LLVMFunctionType(i32, params, 5, 0), args, 5);
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "packed.fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "packed.ok");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, rc, LLVMConstInt(i32, 0, 0), ""), fail,
                  ok);
  LLVMPositionBuilderAtEnd(cg->b, fail);
  cg_return_code(cg, rc);
  LLVMPositionBuilderAtEnd(cg->b, ok);
  LLVMValueRef bits = LLVMBuildLoad2(cg->b, i64, ret, "");
  if (dt_is_float(e->dtype))
    return cg_convert(cg, LLVMBuildBitCast(cg->b, bits, cg_type(cg, DT_F64), ""), DT_F64, e->dtype);
  if (e->dtype.code == DT_HANDLE) return LLVMBuildIntToPtr(cg->b, bits, cg_type(cg, e->dtype), "");
  return cg_convert(cg, bits, DT_I64, e->dtype);
}

bool cg_call_llvm(Cg *cg, const Expr *e, LLVMValueRef *out) {
  const char *op = e->u.call.op;
  if (strcmp(op, "tir.call_llvm_intrin") == 0 || strcmp(op, "tir.call_llvm_pure_intrin") == 0)
    *out = llvm_intrin(cg, e);
  else if (strcmp(op, "tir.reinterpret") == 0)
    *out = reinterpret(cg, e);
  else if (strcmp(op, "tir.prefetch") == 0)
    *out = prefetch(cg, e);
  else if (strcmp(op, "tir.tvm_call_packed") == 0)
    *out = call_packed(cg, e);
  else
    return false;
  return true;
}

/* ---- import_llvm ---- */

void cg_import_llvm(Cg *cg, const Expr *text) {
  if (text->kind != EXPR_STR) {
    ir_error(cg->diag, "pragma import_llvm needs the LLVM IR as a str");
    return;
  }
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(text->u.str, strlen(text->u.str), "import_llvm");
  LLVMModuleRef src;
  char *msg = NULL;
  if (LLVMParseIRInContext(cg->ctx, buf, &src, &msg)) { /* takes buf */
    char *why = cg_llvm_message(msg);
    ir_error(cg->diag, "pragma import_llvm: the LLVM IR does not parse: %s", why);
    free(why);
    return;
  }
  /* the module's own target; what it defines stays inside the module being built, once
   * linked (before, an internal definition would not resolve the module's declaration) */
  LLVMSetTarget(src, LLVMGetTarget(cg->mod));
  LLVMSetModuleDataLayout(src, cg->td);
  int n = 0, cap = 0;
  char **names = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    size_t len;
    const char *nm = LLVMGetValueName2(f, &len);
    VEC_GROW(NULL, names, cap, n + 1);
    names[n++] = xstrdup(nm);
  }
  if (LLVMLinkModules2(cg->mod, src)) /* destroys src */
    ir_error(cg->diag, "pragma import_llvm: LLVM cannot link the IR into the module (a "
                       "function defined twice, or declared with another type?)");
  for (int i = 0; i < n; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(cg->mod, names[i]);
    if (f && !LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMInternalLinkage);
    free(names[i]);
  }
  free(names);
}
