/* ops.c: numpy's elementwise operations (ufuncs): + - * / // % ** & | ^ << >>,
 * maximum, minimum, comparisons, the unary math functions and np.where, with numpy's
 * broadcasting and type promotion. Each runs in three steps: the operands are loaded into
 * buffers of their compute kind (int64, uint64 or double; np/np_impl.h), combined in one pass
 * over the broadcast shape, and the result is stored, cast once, into an array of the result
 * dtype. Division by zero follows numpy without its warnings: 0 for integers, inf or nan for
 * floats. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

const char *const bi_np_binop_names[NPB_COUNT] = {
#define NP_BINOP_NAME(k, name) name,
    NP_BINOPS(NP_BINOP_NAME)
#undef NP_BINOP_NAME
};

const char *const bi_np_unop_names[NPU_COUNT] = {
#define NP_UNOP_NAME(k, name) name,
    NP_UNOPS(NP_UNOP_NAME)
#undef NP_UNOP_NAME
};

/* ---- shapes and iteration ---- */

void bi_np_strides(int ndim, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
}

void bi_np_bcast_strides(const NDArray *a, const NpShape *s, int64_t *strides) {
  int64_t own[ND_MAX_DIMS];
  bi_np_strides(a->ndim, a->shape, own);
  int lead = s->ndim - a->ndim;
  for (int i = 0; i < s->ndim; i++) {
    int j = i - lead;
    strides[i] = j < 0 || a->shape[j] == 1 ? 0 : own[j];
  }
}

void bi_np_shape_of(const NDArray *a, NpShape *s) {
  s->ndim = a->ndim;
  memcpy(s->dims, a->shape, (size_t)a->ndim * sizeof *s->dims);
}

void bi_np_shape_str(StrBuf *b, int ndim, const int64_t *dims) {
  sb_putc(b, '(');
  for (int i = 0; i < ndim; i++) sb_printf(b, "%s%lld", i ? ", " : "", (long long)dims[i]);
  sb_puts(b, ndim == 1 ? ",)" : ")");
}

void bi_np_iter_init(NpIter *it, const NpShape *s, int n) {
  memset(it, 0, sizeof *it);
  it->ndim = s->ndim;
  it->n = n;
  memcpy(it->dims, s->dims, (size_t)s->ndim * sizeof *s->dims);
}

void bi_np_iter_next(NpIter *it) {
  for (int d = it->ndim - 1; d >= 0; d--) {
    if (++it->idx[d] < it->dims[d]) {
      for (int k = 0; k < it->n; k++) it->off[k] += it->strides[k][d];
      return;
    }
    it->idx[d] = 0;
    for (int k = 0; k < it->n; k++) it->off[k] -= it->strides[k][d] * (it->dims[d] - 1);
  }
}

int bi_np_broadcast(Interp *I, int n, NDArray *const *arrs, NpShape *out) {
  out->ndim = 0;
  for (int k = 0; k < n; k++)
    if (arrs[k]->ndim > out->ndim) out->ndim = arrs[k]->ndim;
  for (int i = 0; i < out->ndim; i++) {
    int64_t d = 1;
    for (int k = 0; k < n; k++) {
      int j = i - (out->ndim - arrs[k]->ndim);
      int64_t ad = j < 0 ? 1 : arrs[k]->shape[j];
      if (ad == 1 || ad == d) continue;
      if (d != 1) goto mismatch;
      d = ad;
    }
    out->dims[i] = d;
  }
  return 0;
mismatch : {
  /* numpy's spelling: (2,3) (4,) */
  StrBuf b = STRBUF_INIT;
  for (int k = 0; k < n; k++) {
    sb_puts(&b, k ? " (" : "(");
    for (int i = 0; i < arrs[k]->ndim; i++)
      sb_printf(&b, "%s%lld", i ? "," : "", (long long)arrs[k]->shape[i]);
    sb_puts(&b, arrs[k]->ndim == 1 ? ",)" : ")");
  }
  interp_raise(I, EXC_ValueError, "operands could not be broadcast together with shapes %s",
               sb_cstr(&b));
  sb_free(&b);
  return -1;
}
}

NDArray *bi_np_broadcast_to(Interp *I, const NDArray *a, const NpShape *s, DType t) {
  NDArray *out = bi_np_new(I, t, s->ndim, s->dims);
  if (!out) return NULL;
  NpKind k = bi_np_kind(a->dtype);
  NpScalar *src = bi_np_load(I, a, k), dst[NP_RUN];
  if (!src) return nd_free(out), NULL;
  NpIter it;
  bi_np_iter_init(&it, s, 1);
  bi_np_bcast_strides(a, s, it.strides[0]);
  for (int64_t first = 0; first < out->size; first += NP_RUN) {
    int64_t n = out->size - first < NP_RUN ? out->size - first : NP_RUN;
    for (int64_t i = 0; i < n; i++, bi_np_iter_next(&it)) dst[i] = src[it.off[0]];
    bi_np_store_run(out, first, n, dst, k);
  }
  free(src);
  return out;
}

/* ---- operands read in the output's order ---- */

/* An operand with as many elements as the output is the output's shape (broadcasting only
 * adds leading 1s then): it is read a run at a time, straight from its array. A broadcast one
 * is smaller than the output, and read through one copy of it in the compute kind. */
typedef struct NpRuns {
  const NDArray *a;
  NpScalar *all; /* the whole operand when broadcast, else NULL */
  NpScalar run[NP_RUN];
} NpRuns;

static int runs_init(Interp *I, NpRuns *r, const NDArray *a, const NDArray *out, NpKind k) {
  r->a = a;
  r->all = NULL;
  if (a->size == out->size) return 0;
  return (r->all = bi_np_load(I, a, k)) ? 0 : -1;
}

static void runs_load(NpRuns *r, int64_t first, int64_t n, NpKind k) {
  if (!r->all) bi_np_load_run(r->a, first, n, k, r->run);
}

/* Element i of the current run, at broadcast offset off. */
#define RUNS_AT(r, i, off) ((r)->all ? (r)->all[off] : (r)->run[i])

/* ---- the binary operations, one function per kind ---- */

static bool is_compare(NpBinOp op) { return op >= NPB_EQ; }

static int64_t int_pow(int64_t base, int64_t e) {
  uint64_t r = 1, b = (uint64_t)base;
  for (uint64_t x = (uint64_t)e; x; x >>= 1, b *= b)
    if (x & 1) r *= b;
  return (int64_t)r;
}

static int64_t apply_int(NpBinOp op, int64_t a, int64_t b) {
  switch (op) {
  case NPB_ADD:
    return (int64_t)((uint64_t)a + (uint64_t)b);
  case NPB_SUB:
    return (int64_t)((uint64_t)a - (uint64_t)b);
  case NPB_MUL:
    return (int64_t)((uint64_t)a * (uint64_t)b);
  case NPB_DIV:
    break; /* always computed in floats */
  case NPB_FLOORDIV: {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  }
  case NPB_MOD: {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
  }
  case NPB_POW:
    return int_pow(a, b);
  case NPB_AND:
    return a & b;
  case NPB_OR:
    return a | b;
  case NPB_XOR:
    return a ^ b;
  case NPB_SHL:
    return b < 0 || b >= 64 ? 0 : (int64_t)((uint64_t)a << b);
  case NPB_SHR:
    return b < 0 || b >= 64 ? (a < 0 ? -1 : 0) : a >> b;
  case NPB_MAX:
    return a > b ? a : b;
  case NPB_MIN:
    return a < b ? a : b;
  case NPB_EQ:
    return a == b;
  case NPB_NE:
    return a != b;
  case NPB_LT:
    return a < b;
  case NPB_LE:
    return a <= b;
  case NPB_GT:
    return a > b;
  case NPB_GE:
    return a >= b;
  case NPB_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static uint64_t apply_uint(NpBinOp op, uint64_t a, uint64_t b) {
  switch (op) {
  case NPB_ADD:
    return a + b;
  case NPB_SUB:
    return a - b;
  case NPB_MUL:
    return a * b;
  case NPB_DIV:
    break;
  case NPB_FLOORDIV:
    return b ? a / b : 0;
  case NPB_MOD:
    return b ? a % b : 0;
  case NPB_POW:
    return (uint64_t)int_pow((int64_t)a, (int64_t)b);
  case NPB_AND:
    return a & b;
  case NPB_OR:
    return a | b;
  case NPB_XOR:
    return a ^ b;
  case NPB_SHL:
    return b >= 64 ? 0 : a << b;
  case NPB_SHR:
    return b >= 64 ? 0 : a >> b;
  case NPB_MAX:
    return a > b ? a : b;
  case NPB_MIN:
    return a < b ? a : b;
  case NPB_EQ:
    return a == b;
  case NPB_NE:
    return a != b;
  case NPB_LT:
    return a < b;
  case NPB_LE:
    return a <= b;
  case NPB_GT:
    return a > b;
  case NPB_GE:
    return a >= b;
  case NPB_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Python's float floor division and modulo, which numpy follows. */
static double float_floordiv(double a, double b) {
  if (b == 0.0) return a / b;
  double mod = fmod(a, b), div = (a - mod) / b;
  if (mod != 0.0 && (b < 0.0) != (mod < 0.0)) div -= 1.0;
  if (div == 0.0) return copysign(0.0, a / b);
  double fl = floor(div);
  return div - fl > 0.5 ? fl + 1.0 : fl;
}

static double float_mod(double a, double b) {
  if (b == 0.0) return fmod(a, b);
  double mod = fmod(a, b);
  if (mod == 0.0) return copysign(0.0, b);
  return (b < 0.0) != (mod < 0.0) ? mod + b : mod;
}

/* The result of a comparison is 0 or 1 in the int field; floats otherwise. */
static NpScalar apply_float(NpBinOp op, double a, double b) {
  NpScalar r;
  switch (op) {
  case NPB_ADD:
    r.f = a + b;
    return r;
  case NPB_SUB:
    r.f = a - b;
    return r;
  case NPB_MUL:
    r.f = a * b;
    return r;
  case NPB_DIV:
    r.f = a / b;
    return r;
  case NPB_FLOORDIV:
    r.f = float_floordiv(a, b);
    return r;
  case NPB_MOD:
    r.f = float_mod(a, b);
    return r;
  case NPB_POW:
    r.f = pow(a, b);
    return r;
  case NPB_MAX:
    r.f = isnan(a) || a >= b ? a : b;
    return r;
  case NPB_MIN:
    r.f = isnan(a) || a <= b ? a : b;
    return r;
  case NPB_EQ:
    r.i = a == b;
    return r;
  case NPB_NE:
    r.i = a != b;
    return r;
  case NPB_LT:
    r.i = a < b;
    return r;
  case NPB_LE:
    r.i = a <= b;
    return r;
  case NPB_GT:
    r.i = a > b;
    return r;
  case NPB_GE:
    r.i = a >= b;
    return r;
  case NPB_AND:
  case NPB_OR:
  case NPB_XOR:
  case NPB_SHL:
  case NPB_SHR:
  case NPB_COUNT:
    break; /* refused before the loop */
  }
  TES_UNREACHABLE();
}

static NpScalar apply(NpBinOp op, NpKind k, NpScalar a, NpScalar b) {
  NpScalar r;
  switch (k) {
  case NK_INT:
    r.i = apply_int(op, a.i, b.i);
    return r;
  case NK_UINT:
    r.u = apply_uint(op, a.u, b.u);
    return r;
  case NK_FLOAT:
    return apply_float(op, a.f, b.f);
  }
  TES_UNREACHABLE();
}

/* ---- result types ---- */

static Value *unsupported(Interp *I, const char *ufunc) {
  return interp_raise(I, EXC_TypeError,
                      "ufunc '%s' not supported for the input types, and the inputs could not "
                      "be safely coerced to any supported types according to the casting rule "
                      "''safe''",
                      ufunc);
}

/* The dtype op gives for operands of common dtype t, and the kind it computes in; -1 with a
 * TypeError when numpy has no loop for them. */
static int binop_types(Interp *I, NpBinOp op, DType t, DType *res, NpKind *k) {
  bool is_bool = t.code == DT_BOOL, is_float = t.code == DT_FLOAT;
  *res = t;
  switch (op) {
  case NPB_DIV:
    if (!is_float) *res = NP_FLOAT;
    break;
  case NPB_SUB:
    if (is_bool)
      return interp_raise(I, EXC_TypeError,
                          "numpy boolean subtract, the `-` operator, is not supported, use the "
                          "bitwise_xor, the `^` operator, or the logical_xor function instead."),
             -1;
    break;
  case NPB_FLOORDIV:
  case NPB_MOD:
  case NPB_POW:
    if (is_bool) *res = DT_MAKE(DT_INT, 8, 1);
    break;
  case NPB_SHL:
  case NPB_SHR:
    if (is_bool) *res = DT_MAKE(DT_INT, 8, 1);
    /* fall through */
  case NPB_AND:
  case NPB_OR:
  case NPB_XOR:
    if (is_float) return unsupported(I, bi_np_binop_names[op]), -1;
    break;
  case NPB_EQ:
  case NPB_NE:
  case NPB_LT:
  case NPB_LE:
  case NPB_GT:
  case NPB_GE:
    *res = NP_BOOL;
    *k = bi_np_kind(t);
    return 0;
  case NPB_ADD:
  case NPB_MUL:
  case NPB_MAX:
  case NPB_MIN:
    break;
  case NPB_COUNT:
    TES_UNREACHABLE();
  }
  *k = bi_np_kind(*res);
  return 0;
}

/* Whether a weak Python int fits next to a strong integer dtype; comparisons take any int
 * (numpy 2 compares the values), so an int that does not fit becomes a strong int64. */
static void widen_for_compare(NpOperand *w, const NpOperand *other) {
  if (w->weak != NP_WEAK_INT || other->weak != NP_STRONG || !dt_is_int(other->a->dtype)) return;
  DType t = other->a->dtype;
  int64_t x = w->src->u.i;
  bool fits = t.code == DT_UINT ? x >= 0 && (t.bits == 64 || x < (INT64_C(1) << t.bits))
              : t.bits == 64
                  ? true
                  : x >= -(INT64_C(1) << (t.bits - 1)) && x < (INT64_C(1) << (t.bits - 1));
  if (!fits) w->weak = NP_STRONG;
}

static bool any_negative(const NDArray *a) {
  if (a->dtype.code != DT_INT) return false;
  for (int64_t i = 0; i < a->size; i++)
    if (bi_np_get(a, i, NK_INT).i < 0) return true;
  return false;
}

/* A Python number becomes a value of the operation's dtype before it takes part, as numpy
 * casts it: float32 * 1.000001 multiplies by float32(1.000001). */
static int cast_weak(Interp *I, NpOperand *o, DType t) {
  if (o->weak == NP_STRONG || t.code != DT_FLOAT || t.bits == 64) return 0;
  NDArray *c = bi_np_astype(I, o->a, t);
  if (!c) return -1;
  bi_np_operand_done(o);
  o->a = c;
  o->owned = true;
  return 0;
}

/* ---- the common case without the generic machinery ----
 * +, -, * (and / for floats) of operands that have the result's dtype and either its size
 * (arrays are contiguous, so element i of each is element i of the result) or one element:
 * a typed loop the compiler vectorizes, instead of converting each element to an NpScalar and
 * back. The results are the generic path's: it computes a float32 in double and rounds once,
 * and for these four operations that is the correctly rounded float32 result (a double holds
 * the exact result to well within half a float32 ulp); integers wrap in both. */
#define FAST_BINARY(T, U, EXPR)                                                                    \
  do {                                                                                             \
    const T *xa = x->data, *ya = y->data;                                                          \
    T *ra = out->data;                                                                             \
    int64_t n = out->size;                                                                         \
    if (x->size == n && y->size == n)                                                              \
      for (int64_t i = 0; i < n; i++) { T a = xa[i], b = ya[i]; ra[i] = (EXPR); }                \
    else if (x->size == n) {                                                                       \
      T b = ya[0];                                                                                 \
      for (int64_t i = 0; i < n; i++) { T a = xa[i]; ra[i] = (EXPR); }                           \
    } else {                                                                                       \
      T a = xa[0];                                                                                 \
      for (int64_t i = 0; i < n; i++) { T b = ya[i]; ra[i] = (EXPR); }                          \
    }                                                                                              \
  } while (0)

#define FAST_OPS(T, U)                                                                             \
  switch (op) {                                                                                    \
  case NPB_ADD: FAST_BINARY(T, U, (T)((U)a + (U)b)); return true;                                  \
  case NPB_SUB: FAST_BINARY(T, U, (T)((U)a - (U)b)); return true;                                  \
  case NPB_MUL: FAST_BINARY(T, U, (T)((U)a * (U)b)); return true;                                  \
  default: return false;                                                                           \
  }

static bool binary_fast(NpBinOp op, const NDArray *x, const NDArray *y, NDArray *out) {
  DType t = out->dtype;
  if (!dt_eq(x->dtype, t) || !dt_eq(y->dtype, t) || (x->size != out->size && x->size != 1) ||
      (y->size != out->size && y->size != 1) || out->size == 0)
    return false;
  if (op == NPB_DIV && dt_eq(t, DT_F32)) {
    FAST_BINARY(float, float, a / b);
    return true;
  }
  if (op == NPB_DIV && dt_eq(t, DT_F64)) {
    FAST_BINARY(double, double, a / b);
    return true;
  }
  if (dt_eq(t, DT_F32)) FAST_OPS(float, float)
  if (dt_eq(t, DT_F64)) FAST_OPS(double, double)
  if (dt_eq(t, DT_I32)) FAST_OPS(int32_t, uint32_t)
  if (dt_eq(t, DT_I64)) FAST_OPS(int64_t, uint64_t)
  return false;
}

static NDArray *binary_operands(Interp *I, NpBinOp op, NpOperand *x, NpOperand *y) {
  if (is_compare(op)) {
    widen_for_compare(x, y);
    widen_for_compare(y, x);
  }
  DType t, res;
  NpKind k;
  NpOperand ops[2] = {*x, *y};
  NpShape s;
  if (bi_np_result_dtype(I, 2, ops, &t) < 0 || binop_types(I, op, t, &res, &k) < 0 ||
      cast_weak(I, x, t) < 0 || cast_weak(I, y, t) < 0 ||
      bi_np_broadcast(I, 2, (NDArray *[]){x->a, y->a}, &s) < 0)
    return NULL;
  if (op == NPB_POW && dt_is_int(res) && any_negative(y->a))
    return interp_raise(I, EXC_ValueError, "Integers to negative integer powers are not allowed."),
           NULL;
  NDArray *out = bi_np_new(I, res, s.ndim, s.dims);
  if (!out || binary_fast(op, x->a, y->a, out)) return out;
  NpRuns xs, ys;
  if (runs_init(I, &xs, x->a, out, k) < 0) return nd_free(out), NULL;
  if (runs_init(I, &ys, y->a, out, k) < 0) return free(xs.all), nd_free(out), NULL;
  NpScalar r[NP_RUN];
  NpIter it;
  bi_np_iter_init(&it, &s, 2);
  bi_np_bcast_strides(x->a, &s, it.strides[0]);
  bi_np_bcast_strides(y->a, &s, it.strides[1]);
  for (int64_t first = 0; first < out->size; first += NP_RUN) {
    int64_t n = out->size - first < NP_RUN ? out->size - first : NP_RUN;
    runs_load(&xs, first, n, k);
    runs_load(&ys, first, n, k);
    for (int64_t i = 0; i < n; i++, bi_np_iter_next(&it))
      r[i] = apply(op, k, RUNS_AT(&xs, i, it.off[0]), RUNS_AT(&ys, i, it.off[1]));
    /* a comparison's 0/1 is in the int field whatever kind it compared in */
    bi_np_store_run(out, first, n, r, is_compare(op) ? NK_INT : k);
  }
  free(xs.all), free(ys.all);
  return out;
}

NDArray *bi_np_binary_arr(Interp *I, NpBinOp op, Value *va, Value *vb) {
  NpOperand x, y;
  if (bi_np_operand(I, va, &x) < 0) return NULL;
  if (bi_np_operand(I, vb, &y) < 0) return bi_np_operand_done(&x), NULL;
  NDArray *r = binary_operands(I, op, &x, &y);
  bi_np_operand_done(&x);
  bi_np_operand_done(&y);
  return r;
}

/* An array; a 0-d result is numpy's scalar when an operand was an array (np.float32 + 1 is
 * an np.float32 that prints as one), and the Python number when all were Python numbers
 * (np.sqrt(2.0): numpy gives an np.float64 there, which docs/numpy.md lists). */
static Value *ufunc_result(NDArray *r, bool from_array) {
  if (!r || r->ndim > 0) return bi_np_wrap(r);
  if (from_array) return bi_ndarray_scalar_wrap(r);
  Value *v = bi_np_item(r, 0);
  nd_free(r);
  return v;
}

Value *bi_np_binary(Interp *I, NpBinOp op, Value *a, Value *b) {
  return ufunc_result(bi_np_binary_arr(I, op, a, b), bi_ndarray_of(a) || bi_ndarray_of(b));
}

/* ---- unary operations ---- */

static double sign_f(double x) { return isnan(x) ? x : (x > 0) - (x < 0); }

static NpScalar unary_float(NpUnOp op, double x) {
  NpScalar r;
  switch (op) {
  case NPU_NEG:
    r.f = -x;
    return r;
  case NPU_POS:
    r.f = x;
    return r;
  case NPU_ABS:
    r.f = fabs(x);
    return r;
  case NPU_EXP:
    r.f = exp(x);
    return r;
  case NPU_LOG:
    r.f = log(x);
    return r;
  case NPU_LOG2:
    r.f = log2(x);
    return r;
  case NPU_LOG10:
    r.f = log10(x);
    return r;
  case NPU_SQRT:
    r.f = sqrt(x);
    return r;
  case NPU_TANH:
    r.f = tanh(x);
    return r;
  case NPU_SIN:
    r.f = sin(x);
    return r;
  case NPU_COS:
    r.f = cos(x);
    return r;
  case NPU_FLOOR:
    r.f = floor(x);
    return r;
  case NPU_CEIL:
    r.f = ceil(x);
    return r;
  case NPU_RINT:
    r.f = nearbyint(x);
    return r;
  case NPU_TRUNC:
    r.f = trunc(x);
    return r;
  case NPU_SIGN:
    r.f = sign_f(x);
    return r;
  case NPU_SQUARE:
    r.f = x * x;
    return r;
  case NPU_ISNAN:
    r.i = isnan(x) != 0;
    return r;
  case NPU_ISINF:
    r.i = isinf(x) != 0;
    return r;
  case NPU_ISFINITE:
    r.i = isfinite(x) != 0;
    return r;
  case NPU_NOT:
    r.i = x == 0.0;
    return r;
  case NPU_INVERT:
  case NPU_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Integer kinds: ops that keep integers (the float functions never get here). */
static NpScalar unary_int(NpUnOp op, NpKind k, NpScalar v) {
  NpScalar r = v;
  bool s = k == NK_INT;
  switch (op) {
  case NPU_NEG:
    r.u = 0 - v.u;
    return r;
  case NPU_ABS:
    if (s && v.i < 0) r.u = 0 - v.u;
    return r;
  case NPU_INVERT:
    r.u = ~v.u;
    return r;
  case NPU_SIGN:
    r.i = s ? (v.i > 0) - (v.i < 0) : v.u != 0;
    return r;
  case NPU_SQUARE:
    r.u = v.u * v.u;
    return r;
  case NPU_ISNAN:
  case NPU_ISINF:
    r.i = 0;
    return r;
  case NPU_ISFINITE:
    r.i = 1;
    return r;
  case NPU_NOT:
    r.i = v.u == 0;
    return r;
  case NPU_POS:
  case NPU_FLOOR:
  case NPU_CEIL:
  case NPU_TRUNC:
    return r;
  case NPU_EXP:
  case NPU_LOG:
  case NPU_LOG2:
  case NPU_LOG10:
  case NPU_SQRT:
  case NPU_TANH:
  case NPU_SIN:
  case NPU_COS:
  case NPU_RINT:
  case NPU_COUNT:
    break; /* the float functions: their operands were converted to floats */
  }
  TES_UNREACHABLE();
}

static bool unop_is_predicate(NpUnOp op) {
  return op == NPU_ISNAN || op == NPU_ISINF || op == NPU_ISFINITE || op == NPU_NOT;
}

/* The result dtype of op on t; -1 with a TypeError when numpy has no loop. */
static int unop_type(Interp *I, NpUnOp op, DType t, DType *res) {
  bool is_bool = t.code == DT_BOOL;
  *res = t;
  if (unop_is_predicate(op)) return *res = NP_BOOL, 0;
  switch (op) {
  case NPU_NEG:
    if (is_bool)
      return interp_raise(I, EXC_TypeError,
                          "The numpy boolean negative, the `-` operator, is not supported, use "
                          "the `~` operator or the logical_not function instead."),
             -1;
    return 0;
  case NPU_INVERT:
    return t.code == DT_FLOAT ? (unsupported(I, "invert"), -1) : 0;
  case NPU_SQUARE:
  case NPU_SIGN:
    if (is_bool) *res = DT_MAKE(DT_INT, 8, 1);
    return 0;
  case NPU_POS:
  case NPU_ABS:
  case NPU_FLOOR:
  case NPU_CEIL:
  case NPU_TRUNC:
    return 0;
  case NPU_EXP:
  case NPU_LOG:
  case NPU_LOG2:
  case NPU_LOG10:
  case NPU_SQRT:
  case NPU_TANH:
  case NPU_SIN:
  case NPU_COS:
  case NPU_RINT:
    *res = bi_np_float_for(t);
    return 0;
  case NPU_ISNAN:
  case NPU_ISINF:
  case NPU_ISFINITE:
  case NPU_NOT:
  case NPU_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* A float array's float result without the generic machinery: the same double arithmetic and
 * libm calls as unary_float, rounded once to the array's dtype, in a typed loop. */
#define FAST_UNARY(T, EXPR)                                                                        \
  do {                                                                                             \
    const T *xa = a->data;                                                                         \
    T *ra = out->data;                                                                             \
    for (int64_t i = 0; i < a->size; i++) {                                                        \
      double x = xa[i];                                                                            \
      ra[i] = (T)(EXPR);                                                                           \
    }                                                                                              \
  } while (0)

#define FAST_UNARY_OPS(T)                                                                          \
  switch (op) {                                                                                    \
  case NPU_NEG: FAST_UNARY(T, -x); return true;                                                    \
  case NPU_ABS: FAST_UNARY(T, fabs(x)); return true;                                               \
  case NPU_EXP: FAST_UNARY(T, exp(x)); return true;                                                \
  case NPU_LOG: FAST_UNARY(T, log(x)); return true;                                                \
  case NPU_SQRT: FAST_UNARY(T, sqrt(x)); return true;                                              \
  case NPU_TANH: FAST_UNARY(T, tanh(x)); return true;                                              \
  case NPU_SQUARE: FAST_UNARY(T, x * x); return true;                                              \
  default: return false;                                                                           \
  }

static bool unary_fast(NpUnOp op, const NDArray *a, NDArray *out) {
  if (!dt_eq(a->dtype, out->dtype)) return false;
  if (dt_eq(a->dtype, DT_F32)) FAST_UNARY_OPS(float)
  if (dt_eq(a->dtype, DT_F64)) FAST_UNARY_OPS(double)
  return false;
}

static NDArray *unary_arr(Interp *I, NpUnOp op, NDArray *a) {
  DType res;
  if (unop_type(I, op, a->dtype, &res) < 0) return NULL;
  NDArray *out = bi_np_new(I, res, a->ndim, a->shape);
  if (!out || unary_fast(op, a, out)) return out;
  /* bool ~x is logical not; integers keep their kind unless the function is a float one */
  if (op == NPU_INVERT && a->dtype.code == DT_BOOL) op = NPU_NOT;
  NpKind k = res.code == DT_FLOAT || (unop_is_predicate(op) && a->dtype.code == DT_FLOAT)
                 ? NK_FLOAT
                 : bi_np_kind(a->dtype);
  NpScalar v[NP_RUN];
  for (int64_t first = 0; first < a->size; first += NP_RUN) {
    int64_t n = a->size - first < NP_RUN ? a->size - first : NP_RUN;
    bi_np_load_run(a, first, n, k, v);
    for (int64_t i = 0; i < n; i++)
      v[i] = k == NK_FLOAT ? unary_float(op, v[i].f) : unary_int(op, k, v[i]);
    bi_np_store_run(out, first, n, v, unop_is_predicate(op) ? NK_INT : k);
  }
  return out;
}

Value *bi_np_unary(Interp *I, NpUnOp op, Value *v) {
  NpOperand x;
  if (bi_np_operand(I, v, &x) < 0) return NULL;
  NDArray *r = unary_arr(I, op, x.a);
  bi_np_operand_done(&x);
  return ufunc_result(r, bi_ndarray_of(v));
}

/* ---- where ---- */

NDArray *bi_np_where3(Interp *I, Value *vc, Value *vx, Value *vy) {
  NpOperand ops[3];
  int n = 0;
  NDArray *out = NULL;
  for (Value *v = vc; n < 3; v = n == 1 ? vx : vy)
    if (bi_np_operand(I, v, &ops[n++]) < 0) goto done;
  DType t;
  NpShape s;
  if (bi_np_result_dtype(I, 2, ops + 1, &t) < 0 ||
      bi_np_broadcast(I, 3, (NDArray *[]){ops[0].a, ops[1].a, ops[2].a}, &s) < 0 ||
      !(out = bi_np_new(I, t, s.ndim, s.dims)))
    goto done;
  NpKind k = bi_np_kind(t);
  NpRuns rs[3] = {{0}};
  NpScalar r[NP_RUN];
  for (int j = 0; j < 3; j++)
    if (runs_init(I, &rs[j], ops[j].a, out, j ? k : NK_FLOAT) < 0) {
      for (int i = 0; i < j; i++) free(rs[i].all);
      nd_free(out);
      out = NULL;
      goto done;
    }
  NpIter it;
  bi_np_iter_init(&it, &s, 3);
  for (int j = 0; j < 3; j++) bi_np_bcast_strides(ops[j].a, &s, it.strides[j]);
  for (int64_t first = 0; first < out->size; first += NP_RUN) {
    int64_t n = out->size - first < NP_RUN ? out->size - first : NP_RUN;
    for (int j = 0; j < 3; j++) runs_load(&rs[j], first, n, j ? k : NK_FLOAT);
    for (int64_t i = 0; i < n; i++, bi_np_iter_next(&it))
      r[i] = RUNS_AT(&rs[0], i, it.off[0]).f != 0.0 ? RUNS_AT(&rs[1], i, it.off[1])
                                                    : RUNS_AT(&rs[2], i, it.off[2]);
    bi_np_store_run(out, first, n, r, k);
  }
  for (int j = 0; j < 3; j++) free(rs[j].all);
done:
  for (int j = 0; j < n; j++) bi_np_operand_done(&ops[j]);
  return out;
}
