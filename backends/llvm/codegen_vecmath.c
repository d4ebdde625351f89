/* codegen_vecmath.c: math functions on vectors through glibc's vector math library (libmvec,
 * part of libc6 on x86_64 since glibc 2.22; tanh and erf since 2.35). A vector of n lanes is
 * cut into chunks, each handed to the variant of the widest ISA the target has that the chunk
 * needs: _ZGVeN16v_expf (AVX-512, 16 floats), _ZGVdN8v_expf (AVX2), _ZGVbN4v_expf (SSE, the
 * x86_64 baseline), and N8/N4/N2 for doubles. A chunk shorter than its variant (the tail of 13
 * lanes, a 7-lane vector) is padded with 1.0, a value every function takes without raising,
 * and the padding lanes are dropped. float16 goes through float32. Other targets (no glibc,
 * not x86_64) keep LLVM's intrinsic or libm lane by lane: cg_vecmath returns NULL for them.
 * Accuracy: libmvec's own bound is 4 ulp; tests/numeric/vecmath_accuracy.tes measures each
 * function against the scalar libm and holds it to what it measured. */
#include <stdlib.h>
#include <string.h>

#include "backends/llvm/codegen_llvm_impl.h"

/* The variants the target has, widest first: ISA letter and register bits. */
typedef struct Isa {
  char letter;
  int bits;
} Isa;

/* Whether the feature list ("+64bit,+avx2,-avx512f") turns feature on; the last mention wins. */
bool cg_has_feature(const char *list, const char *feature) {
  size_t n = strlen(feature);
  bool on = false;
  for (const char *p = list; *p; p += *p == ',') {
    size_t len = strcspn(p, ",");
    if (len == n + 1 && (*p == '+' || *p == '-') && strncmp(p + 1, feature, n) == 0) on = *p == '+';
    p += len;
  }
  return on;
}

/* The target's features are those of the target string: the host's, or -mattr's. A CPU named
 * by -mcpu alone lists none here (LLVM knows them, its C API does not say), so it gets the
 * SSE variants; -mattr=+avx512f or +avx2 beside it picks the wider ones. */
static int target_isas(Cg *cg, Isa out[3]) {
  const char *triple = LLVMGetTarget(cg->mod);
  if (strncmp(triple, "x86_64", 6) != 0 || !strstr(triple, "linux-gnu")) return 0;
  const char *f = cg->features ? cg->features : "";
  int n = 0;
  if (cg_has_feature(f, "avx512f")) out[n++] = (Isa){'e', 512};
  if (cg_has_feature(f, "avx2")) out[n++] = (Isa){'d', 256};
  out[n++] = (Isa){'b', 128};
  return n;
}

/* The libmvec function `name` ("exp") of `lanes` lanes of ft (float or double), declared. */
static LLVMValueRef mvec_fn(Cg *cg, const char *name, char isa, int lanes, LLVMTypeRef ft,
                            int nargs, LLVMTypeRef *fty) {
  char fname[48];
  snprintf(fname, sizeof fname, "_ZGV%cN%d%s_%s%s", isa, lanes, nargs == 2 ? "vv" : "v", name,
           LLVMGetTypeKind(ft) == LLVMFloatTypeKind ? "f" : "");
  LLVMTypeRef vt = LLVMVectorType(ft, (unsigned)lanes), params[2] = {vt, vt};
  *fty = LLVMFunctionType(vt, params, (unsigned)nargs, 0);
  LLVMValueRef f = LLVMGetNamedFunction(cg->mod, fname);
  if (f) return f;
  f = LLVMAddFunction(cg->mod, fname, *fty);
  /* no memory touched (libmvec sets no errno): calls are CSE'd and hoisted out of loops */
  const char *attrs[] = {"nounwind", "willreturn", "nosync"};
  for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
    unsigned k = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, k, 0));
  }
  unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->ctx, mem, 0));
  return f;
}

/* Lanes [off, off + len) of v (n lanes) as a vector of w lanes, padded with lanes of pad. */
static LLVMValueRef take_lanes(Cg *cg, LLVMValueRef v, LLVMValueRef pad, int n, int off, int len,
                               int w) {
  if (off == 0 && len == n && w == n) return v;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMValueRef *mask = xmalloc((size_t)w * sizeof *mask);
  for (int i = 0; i < w; i++)
    mask[i] = LLVMConstInt(i32, (unsigned long long)(i < len ? off + i : n), 0);
  LLVMValueRef r = LLVMBuildShuffleVector(cg->b, v, pad, LLVMConstVector(mask, (unsigned)w), "");
  free(mask);
  return r;
}

/* acc (n lanes) with lanes [off, off + len) replaced by the first len lanes of part (w lanes). */
static LLVMValueRef put_lanes(Cg *cg, LLVMValueRef acc, LLVMValueRef part, int n, int off,
                              int len, int w) {
  if (off == 0 && len == n && w == n) return part;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMValueRef *mask = xmalloc((size_t)n * sizeof *mask);
  /* part widened to n lanes, its lanes at [off, off + len) */
  for (int i = 0; i < n; i++)
    mask[i] = i >= off && i < off + len ? LLVMConstInt(i32, (unsigned long long)(i - off), 0)
                                        : LLVMGetUndef(i32);
  LLVMValueRef wide = LLVMBuildShuffleVector(cg->b, part, LLVMGetPoison(LLVMTypeOf(part)),
                                             LLVMConstVector(mask, (unsigned)n), "");
  if (!acc) {
    free(mask);
    return wide;
  }
  for (int i = 0; i < n; i++)
    mask[i] = LLVMConstInt(i32, (unsigned long long)(i >= off && i < off + len ? n + i : i), 0);
  LLVMValueRef r = LLVMBuildShuffleVector(cg->b, acc, wide, LLVMConstVector(mask, (unsigned)n), "");
  free(mask);
  return r;
}

LLVMValueRef cg_vecmath(Cg *cg, const char *name, DType t, LLVMValueRef *args, int nargs) {
  Isa isas[3];
  int nisa = t.lanes > 1 && dt_is_float(t) ? target_isas(cg, isas) : 0;
  if (nisa == 0) return NULL;
  if (t.bits == 16) { /* through float32 */
    DType wide = DT_MAKE(t.code, 32, t.lanes);
    LLVMValueRef conv[2];
    for (int i = 0; i < nargs; i++) conv[i] = cg_convert(cg, args[i], t, wide);
    LLVMValueRef r = cg_vecmath(cg, name, wide, conv, nargs);
    return r ? cg_convert(cg, r, wide, t) : NULL;
  }
  if (t.bits != 32 && t.bits != 64) return NULL;
  LLVMTypeRef ft = cg_type(cg, dt_element(t));
  int n = t.lanes;
  LLVMValueRef pad = cg_splat(cg, LLVMConstReal(ft, 1.0), n), out = NULL;
  for (int off = 0; off < n;) {
    int left = n - off, k = 0;
    /* the widest variant, or the narrowest one that still holds what is left */
    while (k + 1 < nisa && isas[k + 1].bits / t.bits >= left) k++;
    int w = isas[k].bits / t.bits, len = left < w ? left : w;
    LLVMTypeRef fty;
    LLVMValueRef f = mvec_fn(cg, name, isas[k].letter, w, ft, nargs, &fty), in[2];
    for (int i = 0; i < nargs; i++) in[i] = take_lanes(cg, args[i], pad, n, off, len, w);
    LLVMValueRef r = LLVMBuildCall2(cg->b, fty, f, in, (unsigned)nargs, "");
    out = put_lanes(cg, out, r, n, off, len, w);
    off += len;
  }
  return out;
}
