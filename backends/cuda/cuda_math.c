/* cuda_math.c: the math intrinsics in CUDA's spelling (backends/cuda/cuda_dialect.h). C's
 * printing already writes float32's expf and float64's exp, which CUDA has too; this file adds
 * what differs: the fast intrinsics (__expf, ...) of a "cuda -fast-math" target, float16's own
 * functions (hexp, hsqrt, ...) or, where CUDA has none, the float function between casts, and
 * sigmoid, rsqrt, isnan and popcount. CUDA's half converts to float implicitly, but float and
 * half operands together are ambiguous to its operators, so every float result that stands for
 * a half is cast back. */
#include <stdio.h>
#include <string.h>

#include "backends/cuda/cuda_dialect.h"

typedef struct MathFn {
  const char *fn;   /* tir.NAME */
  const char *fast; /* float32 under fast math; NULL: as without */
  const char *half; /* float16's own; NULL: through float */
} MathFn;

static const MathFn math_fns[] = {
    {"exp", "__expf", "hexp"},        {"exp2", NULL, "hexp2"},
    {"exp10", "__exp10f", "hexp10"},  {"log", "__logf", "hlog"},
    {"log2", "__log2f", "hlog2"},     {"log10", "__log10f", "hlog10"},
    {"log1p", NULL, NULL},            {"sqrt", NULL, "hsqrt"},
    {"tanh", "__tanhf", NULL},        {"erf", NULL, NULL},
    {"sin", "__sinf", "hsin"},        {"cos", "__cosf", "hcos"},
    {"tan", "__tanf", NULL},          {"sinh", NULL, NULL},
    {"cosh", NULL, NULL},             {"asin", NULL, NULL},
    {"acos", NULL, NULL},             {"atan", NULL, NULL},
    {"floor", NULL, "hfloor"},        {"ceil", NULL, "hceil"},
    {"round", NULL, NULL}, /* half away from zero; hrint rounds to even */
    {"nearbyint", NULL, "hrint"},     {"trunc", NULL, "htrunc"},
    {"fabs", NULL, "__habs"},         {"pow", "__powf", NULL},
    {"fmod", NULL, NULL},             {"acosh", NULL, NULL},
    {"asinh", NULL, NULL},            {"atanh", NULL, NULL},
    {"atan2", NULL, NULL},
};

static bool is_half(DType t) { return t.code == DT_FLOAT && t.bits == 16; }

/* (a0, a1, ...), each argument cast to float when to_float. */
static void args(CPrinter *p, const Expr *e, bool lane, bool to_float) {
  cp_put(p, "(");
  for (int i = 0; i < e->u.call.n; i++) {
    cp_put(p, i ? ", " : "");
    if (to_float) cp_put(p, "(float)");
    cp_expr_lane(p, e->u.call.args[i], lane);
  }
  cp_put(p, ")");
}

static bool math_fn(CPrinter *p, const Expr *e, const char *fn, bool lane, bool fast_math) {
  DType t = dt_element(e->dtype);
  for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++) {
    const MathFn *m = &math_fns[i];
    if (strcmp(fn, m->fn) != 0 || !dt_is_float(t)) continue;
    if (is_half(t) && m->half) {
      cp_put(p, m->half);
      args(p, e, lane, false);
    } else if (is_half(t)) {
      sb_printf(&p->out, "((half)%sf", fn);
      args(p, e, lane, true);
      cp_put(p, ")");
    } else if (t.bits == 32 && fast_math && m->fast) {
      cp_put(p, m->fast);
      args(p, e, lane, false);
    } else {
      return false; /* C's expf, exp */
    }
    return true;
  }
  return false;
}

/* 1/(1 + e^-x) in x's precision; float16 through float. */
static void sigmoid(CPrinter *p, const Expr *e, bool lane, bool fast_math) {
  DType t = dt_element(e->dtype);
  const char *one = t.bits == 64 ? "1.0" : "1.0f";
  const char *exp = t.bits == 64 ? "exp" : fast_math && t.bits == 32 ? "__expf" : "expf";
  if (is_half(t)) cp_put(p, "((half)");
  sb_printf(&p->out, "(%s / (%s + %s(-(%s", one, one, exp, is_half(t) ? "(float)" : "");
  cp_expr_lane(p, e->u.call.args[0], lane);
  cp_put(p, is_half(t) ? ")))))" : "))))");
}

/* float16's floordiv, floormod and % through float. */
static bool half_binary(CPrinter *p, const Expr *e, bool lane) {
  static const char *const pre[][2] = {
      {"floorf((float)", " / (float)"}, {"tes_floormodf((float)", ", (float)"},
      {"fmodf((float)", ", (float)"}};
  int k = e->kind == EXPR_FLOORDIV ? 0 : e->kind == EXPR_FLOORMOD ? 1 : e->kind == EXPR_MOD ? 2 : -1;
  if (k < 0 || !is_half(e->dtype)) return false;
  sb_printf(&p->out, "((half)%s", pre[k][0]);
  cp_expr_lane(p, e->u.bin.a, lane);
  cp_put(p, pre[k][1]);
  cp_expr_lane(p, e->u.bin.b, lane);
  cp_put(p, "))");
  return true;
}

bool cuda_math(CPrinter *p, const Expr *e, bool lane, bool fast_math) {
  if (e->kind != EXPR_CALL) return half_binary(p, e, lane);
  if (e->u.call.ckind == CALL_EXTERN) return false;
  const char *op = e->u.call.op, *fn = strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
  DType t = dt_element(e->dtype);
  if (e->u.call.n == 1 && strcmp(fn, "sigmoid") == 0 && dt_is_float(t)) {
    sigmoid(p, e, lane, fast_math);
    return true;
  }
  if (e->u.call.n == 1 && strcmp(fn, "rsqrt") == 0 && dt_is_float(t)) {
    cp_put(p, is_half(t) ? "hrsqrt" : t.bits == 64 ? "rsqrt" : "rsqrtf");
    args(p, e, lane, false);
    return true;
  }
  if (e->u.call.n == 1 && strcmp(fn, "isnan") == 0 && is_half(e->u.call.args[0]->dtype)) {
    cp_put(p, "__hisnan");
    args(p, e, lane, false);
    return true;
  }
  if (e->u.call.n == 1 && strcmp(fn, "popcount") == 0) {
    /* the count of the operand's own bits: a negative int8 is not 64 ones */
    int bits = e->u.call.args[0]->dtype.bits;
    sb_printf(&p->out, "%s((uint%d_t)", bits > 32 ? "__popcll" : "__popc", bits > 32 ? 64 : bits);
    cp_expr_lane(p, e->u.call.args[0], lane);
    cp_put(p, ")");
    return true;
  }
  return math_fn(p, e, fn, lane, fast_math);
}

/* ---- names ---- */

/* Identifiers the kernels' text uses besides the IR's variables: its functions, types and
 * built-in variables, and C++ keywords that make plausible tensor names. */
static const char *const reserved[] = {
    "isnan", "rsqrt", "rsqrtf", "hrsqrt", "sigmoid", "popcount", "__hisnan", "__popc",
    "half", "half2", "float2", "float4", "double2", "char2", "char4", "uchar2", "uchar4",
    "short2", "short4", "ushort2", "ushort4", "int2", "int4", "uint2", "uint4", "longlong2",
    "ulonglong2", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "new", "delete",
    "class", "template", "this", "operator", "namespace", "typename", "private", "public",
    "default", "register", "signed", "unsigned", "char", "short", "int", "long", "float",
    "double", "bool", "true", "false", "void", "const", "static", "inline", "extern", "return",
    "if", "else", "for", "while", "do", "switch", "case", "break", "continue", "goto",
    "sizeof", "struct", "union", "enum", "typedef", "volatile", "auto", "NAN", "INFINITY",
};

void cuda_reserve_names(CPrinter *p, Arena *a) {
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    cp_name_of(p, ir_var(a, reserved[i], DT_I32));
  char name[32];
  for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++) {
    const MathFn *m = &math_fns[i];
    const char *names[] = {m->fn, m->half};
    for (int j = 0; j < 2; j++)
      if (names[j]) cp_name_of(p, ir_var(a, names[j], DT_I32));
    snprintf(name, sizeof name, "%sf", m->fn);
    cp_name_of(p, ir_var(a, name, DT_I32));
  }
}

/* ---- whether a function computes with float16 ---- */

static bool half_expr(const Expr *e, const void *ctx) {
  (void)ctx;
  return is_half(e->dtype);
}

static bool half_stmt(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind == STMT_ALLOCATE && is_half(s->u.alloc.dtype);
}

/* The parameters, the host body and every kernel's buffers, scalars and body: a kernel whose
 * float16 is only in its allocations or expressions needs cuda_fp16.h as well. */
bool cuda_uses_half(const LoweredFunc *f) {
  for (int i = 0; i < f->nparams; i++)
    if (is_half(f->params[i]->dtype)) return true;
  if (ir_stmt_any(f->body, half_expr, half_stmt, NULL)) return true;
  for (int k = 0; k < f->ndevice; k++) {
    const DeviceFunc *df = &f->device[k];
    for (int i = 0; i < df->nbufs; i++)
      if (is_half(df->buf_dtypes[i])) return true;
    for (int i = 0; i < df->nscalars; i++)
      if (is_half(df->scalars[i]->dtype)) return true;
    if (ir_stmt_any(df->body, half_expr, half_stmt, NULL)) return true;
  }
  return false;
}
