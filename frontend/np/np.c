/* np.c: the numpy module (SPEC §10): array creation (array, zeros, ones, full, arange,
 * linspace, *_like), the ufuncs and reductions as functions, the dtype names, the constants,
 * and the argument helpers the other bi_np files share. The functions themselves live by
 * theme in bi_np_*.c; this file holds the table. */
#include <math.h>
#include <string.h>

#include "frontend/lang/state.h"
#include "frontend/np/np_impl.h"

/* ---- arguments ---- */

void bi_np_set_int_hook(NpIntHook hook) { tes_state()->int_hook = hook; }

void bi_np_set_device_hooks(const NpDeviceHooks *hooks) { tes_state()->device_hooks = hooks; }

bool bi_np_refused(Interp *I, Value *v) {
  const NpDeviceHooks *h = tes_state()->device_hooks;
  return h && h->refuse(I, v);
}

Value *bi_np_copyto_elsewhere(Interp *I, Value *self, Value *target) {
  const NpDeviceHooks *h = tes_state()->device_hooks;
  if (h) return h->copyto(I, self, target);
  return interp_raise(I, EXC_TypeError, "copyto: the target must be an array, not '%s'",
                      val_type_name(target));
}

bool bi_np_int_of(Value *v, int64_t *out) {
  if (val_is_int(v)) return *out = v->u.i, true;
  NDArray *a = bi_ndarray_of(v); /* numpy's integer scalars (np.prod(shape)) */
  if (a && a->ndim == 0 && (a->dtype.code == DT_INT || a->dtype.code == DT_UINT))
    return *out = bi_np_get(a, 0, NK_INT).i, true;
  NpIntHook hook = tes_state()->int_hook;
  return hook && hook(v, out);
}

int bi_np_shape_arg(Interp *I, Value *v, const char *fn, NpShape *out) {
  int64_t x;
  if (bi_np_int_of(v, &x)) {
    out->ndim = 1;
    out->dims[0] = x;
  } else if (v->kind == VAL_TUPLE || v->kind == VAL_LIST) {
    if (VAL_SEQ_N(v) > ND_MAX_DIMS) {
      interp_raise(I, EXC_ValueError, "%s: maximum supported dimension for an ndarray is %d", fn,
                   ND_MAX_DIMS);
      return -1;
    }
    out->ndim = (int)VAL_SEQ_N(v);
    for (int i = 0; i < out->ndim; i++)
      if (!bi_np_int_of(VAL_SEQ_ITEM(v, i), &out->dims[i])) {
        interp_raise(I, EXC_TypeError, "%s: '%s' object cannot be interpreted as an integer", fn,
                     val_type_name(VAL_SEQ_ITEM(v, i)));
        return -1;
      }
  } else {
    interp_raise(I, EXC_TypeError, "%s: '%s' object cannot be interpreted as an integer", fn,
                 val_type_name(v));
    return -1;
  }
  for (int i = 0; i < out->ndim; i++)
    if (out->dims[i] < 0) {
      interp_raise(I, EXC_ValueError, "%s: negative dimensions are not allowed", fn);
      return -1;
    }
  return 0;
}

int bi_np_axis(Interp *I, Value *v, int ndim, int *out) {
  int64_t x;
  if (!bi_np_int_of(v, &x)) {
    interp_raise(I, EXC_TypeError, "'%s' object cannot be interpreted as an integer",
                 val_type_name(v));
    return -1;
  }
  if (x < -ndim || x >= ndim) {
    interp_raise(I, EXC_ValueError, "axis %lld is out of bounds for array of dimension %d",
                 (long long)x, ndim);
    return -1;
  }
  *out = (int)(x < 0 ? x + ndim : x);
  return 0;
}

NDArray *bi_np_array_arg(Interp *I, Value *v, const char *fn, bool *owned) {
  NDArray *a = bi_ndarray_of(v);
  *owned = false;
  if (a) return a;
  if (!bi_np_is_arraylike(v)) {
    if (bi_np_refused(I, v)) return NULL;
    interp_raise(I, EXC_TypeError, "%s: expected an array, not '%s'", fn, val_type_name(v));
    return NULL;
  }
  *owned = true;
  return bi_np_from_value(I, v, NULL);
}

int bi_np_bool_arg(Interp *I, Value *v, bool dflt, bool *out) {
  if (!v) return *out = dflt, 0;
  int t = val_truthy(I, v);
  if (t < 0) return -1;
  *out = t;
  return 0;
}

/* ---- creation ---- */

static Value *fn_array(Interp *I, Value *self, Value **a) {
  DType t;
  if (a[1] && a[1]->kind != VAL_NONE) {
    if (bi_np_dtype_arg(I, a[1], "array", NP_FLOAT, &t) < 0) return NULL;
    return bi_np_wrap(bi_np_from_value(I, a[0], &t));
  }
  return bi_np_wrap(bi_np_from_value(I, a[0], NULL));
}

/* zeros, ones, empty and full: shape, then a fill value of the array's dtype. */
static Value *filled(Interp *I, Value *shape, Value *dtype, Value *fill, const char *fn) {
  NpShape s;
  DType t = NP_FLOAT;
  if (fill && (!dtype || dtype->kind == VAL_NONE)) {
    NpOperand o; /* full() without a dtype takes the fill value's */
    if (bi_np_operand(I, fill, &o) < 0) return NULL;
    t = o.a->dtype;
    bi_np_operand_done(&o);
  }
  if (bi_np_shape_arg(I, shape, fn, &s) < 0 || bi_np_dtype_arg(I, dtype, fn, t, &t) < 0)
    return NULL;
  NDArray *r = bi_np_new(I, t, s.ndim, s.dims);
  if (r && fill && bi_np_fill(I, r, fill) < 0) {
    nd_free(r);
    return NULL;
  }
  return bi_np_wrap(r);
}

static Value *fn_zeros(Interp *I, Value *self, Value **a) {
  return filled(I, a[0], a[1], NULL, "zeros");
}
static Value *fn_empty(Interp *I, Value *self, Value **a) {
  return filled(I, a[0], a[1], NULL, "empty");
}
static Value *fn_ones(Interp *I, Value *self, Value **a) {
  Value *one = val_int(1), *r = filled(I, a[0], a[1] ? a[1] : VAL_NONE_P, one, "ones");
  if (r && (!a[1] || a[1]->kind == VAL_NONE)) { /* ones() is float64 like zeros() */
    NDArray *f = bi_np_astype(I, bi_ndarray_of(r), NP_FLOAT);
    val_decref(r);
    r = bi_np_wrap(f);
  }
  val_decref(one);
  return r;
}
static Value *fn_full(Interp *I, Value *self, Value **a) {
  return filled(I, a[0], a[2], a[1], "full");
}

/* zeros_like ...: the shape of a, and its dtype unless one is given. */
static Value *like(Interp *I, Value *proto, Value *dtype, Value *fill, const char *fn) {
  bool owned;
  NDArray *p = bi_np_array_arg(I, proto, fn, &owned);
  if (!p) return NULL;
  NpShape s;
  bi_np_shape_of(p, &s);
  Value *shape = val_tuple_new(s.ndim);
  for (int i = 0; i < s.ndim; i++) val_seq_set_take(shape, i, val_int(s.dims[i]));
  Value *dt = dtype && dtype->kind != VAL_NONE ? val_incref(dtype) : bi_np_dtype_value(p->dtype);
  if (owned) nd_free(p);
  Value *r = filled(I, shape, dt, fill, fn);
  val_decref(shape);
  val_decref(dt);
  return r;
}

static Value *fn_zeros_like(Interp *I, Value *self, Value **a) {
  return like(I, a[0], a[1], NULL, "zeros_like");
}
static Value *fn_empty_like(Interp *I, Value *self, Value **a) {
  return like(I, a[0], a[1], NULL, "empty_like");
}
static Value *fn_ones_like(Interp *I, Value *self, Value **a) {
  Value *one = val_int(1), *r = like(I, a[0], a[1], one, "ones_like");
  val_decref(one);
  return r;
}
static Value *fn_full_like(Interp *I, Value *self, Value **a) {
  return like(I, a[0], a[2], a[1], "full_like");
}

/* arange(stop), arange(start, stop[, step]): int64 when every bound is an int. */
static Value *fn_arange(Interp *I, Value *self, Value **a) {
  Value *lo = a[1] && a[1]->kind != VAL_NONE ? a[0] : NULL;
  Value *hi = lo ? a[1] : a[0], *st = a[2] && a[2]->kind != VAL_NONE ? a[2] : NULL;
  double start = 0, stop, step = 1;
  if ((lo && bi_arg_real(I, lo, &start) < 0) || bi_arg_real(I, hi, &stop) < 0 ||
      (st && bi_arg_real(I, st, &step) < 0))
    return NULL;
  if (step == 0) return interp_raise(I, EXC_ZeroDivisionError, "arange: step is zero");
  bool ints = (!lo || val_is_int(lo)) && val_is_int(hi) && (!st || val_is_int(st));
  DType t;
  if (bi_np_dtype_arg(I, a[3], "arange", ints ? NP_INT : NP_FLOAT, &t) < 0) return NULL;
  double len = ceil((stop - start) / step);
  if (!(len < 9e15)) return interp_raise(I, EXC_ValueError, "arange: too many elements");
  int64_t n = len > 0 ? (int64_t)len : 0;
  NDArray *r = bi_np_new(I, t, 1, &n);
  if (!r) return NULL;
  for (int64_t i = 0; i < n; i++) {
    NpScalar v;
    if (ints)
      v.i = (lo ? lo->u.i : 0) + i * (st ? st->u.i : 1);
    else
      v.f = start + (double)i * step;
    bi_np_set(r, i, v, ints ? NK_INT : NK_FLOAT);
  }
  return bi_ndarray_wrap(r);
}

static Value *fn_linspace(Interp *I, Value *self, Value **a) {
  double start, stop;
  int64_t num = 50;
  bool endpoint;
  DType t;
  if (bi_arg_real(I, a[0], &start) < 0 || bi_arg_real(I, a[1], &stop) < 0 ||
      (a[2] && bi_arg_index(I, a[2], &num) < 0) || bi_np_bool_arg(I, a[3], true, &endpoint) < 0 ||
      bi_np_dtype_arg(I, a[4], "linspace", NP_FLOAT, &t) < 0)
    return NULL;
  if (num < 0)
    return interp_raise(I, EXC_ValueError, "Number of samples, %lld, must be non-negative.",
                        (long long)num);
  int64_t div = endpoint ? num - 1 : num;
  double step = div > 0 ? (stop - start) / (double)div : 0;
  NDArray *r = bi_np_new(I, t, 1, &num);
  if (!r) return NULL;
  for (int64_t i = 0; i < num; i++) {
    NpScalar v = {.f = endpoint && i == num - 1 && num > 1 ? stop : start + (double)i * step};
    bi_np_set(r, i, v, NK_FLOAT);
  }
  return bi_ndarray_wrap(r);
}

static Value *fn_copy(Interp *I, Value *self, Value **a) {
  return bi_np_wrap(bi_np_from_value(I, a[0], NULL));
}

static Value *fn_dtype(Interp *I, Value *self, Value **a) {
  DType t;
  if (bi_np_dtype_arg(I, a[0], "dtype", NP_FLOAT, &t) < 0) return NULL;
  return bi_np_dtype_value(t);
}

/* ---- shape functions ---- */

static Value *call_method(Interp *I, Value *arr, const char *name, int n, Value **args) {
  bool owned;
  NDArray *x = bi_np_array_arg(I, arr, name, &owned);
  if (!x) return NULL;
  Value *v = owned ? bi_ndarray_wrap(x) : val_incref(arr);
  Value *m = val_getattr(I, v, sym_cstr(name)), *r = m ? interp_callv(I, m, n, args) : NULL;
  val_xdecref(m);
  val_decref(v);
  return r;
}

static Value *fn_reshape(Interp *I, Value *self, Value **a) {
  return call_method(I, a[0], "reshape", 1, &a[1]);
}
static Value *fn_transpose(Interp *I, Value *self, Value **a) {
  return call_method(I, a[0], "transpose", a[1] && a[1]->kind != VAL_NONE ? 1 : 0, &a[1]);
}
static Value *fn_ravel(Interp *I, Value *self, Value **a) {
  return call_method(I, a[0], "flatten", 0, NULL);
}

/* ---- ufuncs ---- */

#define NP_BINARY_FUNCS(X)                                                                         \
  X(add, ADD)                                                                                      \
  X(subtract, SUB) X(multiply, MUL) X(divide, DIV) X(true_divide, DIV) X(floor_divide, FLOORDIV)   \
      X(remainder, MOD) X(mod, MOD) X(power, POW) X(maximum, MAX) X(minimum, MIN)                  \
          X(bitwise_and, AND) X(bitwise_or, OR) X(bitwise_xor, XOR) X(left_shift, SHL)             \
              X(right_shift, SHR) X(equal, EQ) X(not_equal, NE) X(less, LT) X(less_equal, LE)      \
                  X(greater, GT) X(greater_equal, GE)
#define BINARY_FN(name, op)                                                                        \
  static Value *fn_##name(Interp *I, Value *self, Value **a) {                                     \
    return bi_np_binary(I, NPB_##op, a[0], a[1]);                                                  \
  }
NP_BINARY_FUNCS(BINARY_FN)
#undef BINARY_FN

#define NP_UNARY_FUNCS(X)                                                                          \
  X(negative, NEG)                                                                                 \
  X(positive, POS) X(abs, ABS) X(absolute, ABS) X(fabs, ABS) X(invert, INVERT)                     \
      X(bitwise_not, INVERT) X(exp, EXP) X(log, LOG) X(log2, LOG2) X(log10, LOG10) X(sqrt, SQRT)   \
          X(tanh, TANH) X(sin, SIN) X(cos, COS) X(floor, FLOOR) X(ceil, CEIL) X(rint, RINT)        \
              X(trunc, TRUNC) X(sign, SIGN) X(square, SQUARE) X(isnan, ISNAN) X(isinf, ISINF)      \
                  X(isfinite, ISFINITE) X(logical_not, NOT)
#define UNARY_FN(name, op)                                                                         \
  static Value *fn_##name(Interp *I, Value *self, Value **a) {                                     \
    return bi_np_unary(I, NPU_##op, a[0]);                                                         \
  }
NP_UNARY_FUNCS(UNARY_FN)
#undef UNARY_FN

/* logical_and/or/xor: the truth of each operand, combined. */
static Value *logical(Interp *I, NpBinOp op, Value *x, Value *y) {
  Value *zero = val_int(0);
  Value *bx = bi_np_binary(I, NPB_NE, x, zero), *by = bx ? bi_np_binary(I, NPB_NE, y, zero) : NULL;
  Value *r = by ? bi_np_binary(I, op, bx, by) : NULL;
  val_decref(zero);
  val_xdecref(bx);
  val_xdecref(by);
  return r;
}
static Value *fn_logical_and(Interp *I, Value *self, Value **a) {
  return logical(I, NPB_AND, a[0], a[1]);
}
static Value *fn_logical_or(Interp *I, Value *self, Value **a) {
  return logical(I, NPB_OR, a[0], a[1]);
}
static Value *fn_logical_xor(Interp *I, Value *self, Value **a) {
  return logical(I, NPB_XOR, a[0], a[1]);
}

/* round(a, decimals=0): half to even, as numpy; integers come back as they are. */
static Value *fn_round(Interp *I, Value *self, Value **a) {
  int64_t dec = 0;
  bool owned;
  if (a[1] && bi_arg_index(I, a[1], &dec) < 0) return NULL;
  NDArray *x = bi_np_array_arg(I, a[0], "round", &owned);
  if (!x) return NULL;
  NDArray *r = x->dtype.code == DT_FLOAT ? bi_np_copy(I, x) : bi_np_astype(I, x, x->dtype);
  if (r && r->dtype.code == DT_FLOAT) {
    double scale = pow(10.0, (double)(dec < -400 ? -400 : dec > 400 ? 400 : dec));
    for (int64_t i = 0; i < r->size; i++) {
      NpScalar v = {.f = nearbyint(bi_np_get_f(r, i) * scale) / scale};
      bi_np_set(r, i, v, NK_FLOAT);
    }
  }
  if (owned) nd_free(x);
  return bi_np_wrap(r);
}

static Value *fn_clip(Interp *I, Value *self, Value **a) {
  return call_method(I, a[0], "clip", 2, &a[1]);
}

static Value *fn_where(Interp *I, Value *self, Value **a) {
  if (!a[1] && !a[2]) return bi_np_nonzero(I, a[0]);
  if (!a[1] || !a[2])
    return interp_raise(I, EXC_ValueError, "either both or neither of x and y should be given");
  return bi_np_wrap(bi_np_where3(I, a[0], a[1], a[2]));
}

/* ---- reductions and products ---- */

/* np.sum(a, axis, dtype, out, keepdims) and the others: out= is not supported. */
static int no_out(Interp *I, Value *out, const char *fn) {
  if (!out || out->kind == VAL_NONE) return 0;
  interp_raise(I, EXC_RuntimeError, "not supported yet: %s(out=...) (results are new arrays)", fn);
  return -1;
}

#define REDUCE_DT_FN(name, R)                                                                      \
  static Value *fn_##name(Interp *I, Value *self, Value **a) {                                     \
    if (no_out(I, a[3], #name) < 0) return NULL;                                                   \
    return bi_np_reduce(I, R, a[0], a[1], a[4], a[2]);                                             \
  }
REDUCE_DT_FN(sum, NPR_SUM)
REDUCE_DT_FN(prod, NPR_PROD)
REDUCE_DT_FN(mean, NPR_MEAN)
#undef REDUCE_DT_FN
#define REDUCE_FN(name, R)                                                                         \
  static Value *fn_##name(Interp *I, Value *self, Value **a) {                                     \
    if (no_out(I, a[2], #name) < 0) return NULL;                                                   \
    return bi_np_reduce(I, R, a[0], a[1], a[3], NULL);                                             \
  }
REDUCE_FN(max, NPR_MAX)
REDUCE_FN(min, NPR_MIN)
REDUCE_FN(argmax, NPR_ARGMAX)
REDUCE_FN(argmin, NPR_ARGMIN)
REDUCE_FN(all, NPR_ALL)
REDUCE_FN(any, NPR_ANY)
#undef REDUCE_FN

static Value *fn_dot(Interp *I, Value *self, Value **a) { return bi_np_dot(I, a[0], a[1]); }
static Value *fn_matmul(Interp *I, Value *self, Value **a) { return bi_np_matmul(I, a[0], a[1]); }

/* ---- the table ---- */

#define ROW(name, fn, nreq, params, doc)                                                           \
  { name, fn, nreq, params, doc }
#define BINARY_ROW(name, op)                                                                       \
  ROW(#name, fn_##name, 2, PARAMS("x1", "x2"), #name "(x1, x2) -> ndarray: elementwise, broadcast"),
#define UNARY_ROW(name, op)                                                                        \
  ROW(#name, fn_##name, 1, PARAMS("x"), #name "(x) -> ndarray: elementwise"),
#define RED_PARAMS PARAMS("a", "axis", "out", "keepdims")
#define RED_DT_PARAMS PARAMS("a", "axis", "dtype", "out", "keepdims")

static const Builtin bi_np_funcs[] = {
    ROW("array", fn_array, 1, PARAMS("object", "dtype"),
        "array(object, dtype=None) -> ndarray: an array of nested lists, numbers or arrays"),
    ROW("asarray", fn_array, 1, PARAMS("a", "dtype"),
        "asarray(a, dtype=None) -> ndarray: a as an array (a copy: tes has no views)"),
    ROW("copy", fn_copy, 1, PARAMS("a"), "copy(a) -> ndarray: a copy of a"),
    ROW("zeros", fn_zeros, 1, PARAMS("shape", "dtype"),
        "zeros(shape, dtype=float64) -> ndarray: an array of zeros"),
    ROW("ones", fn_ones, 1, PARAMS("shape", "dtype"),
        "ones(shape, dtype=float64) -> ndarray: an array of ones"),
    ROW("empty", fn_empty, 1, PARAMS("shape", "dtype"),
        "empty(shape, dtype=float64) -> ndarray: a new array (zero-filled in tes)"),
    ROW("full", fn_full, 2, PARAMS("shape", "fill_value", "dtype"),
        "full(shape, fill_value, dtype=None) -> ndarray: an array of fill_value"),
    ROW("zeros_like", fn_zeros_like, 1, PARAMS("a", "dtype"),
        "zeros_like(a, dtype=None) -> ndarray: zeros of a's shape and dtype"),
    ROW("ones_like", fn_ones_like, 1, PARAMS("a", "dtype"),
        "ones_like(a, dtype=None) -> ndarray: ones of a's shape and dtype"),
    ROW("empty_like", fn_empty_like, 1, PARAMS("a", "dtype"),
        "empty_like(a, dtype=None) -> ndarray: a new array of a's shape and dtype"),
    ROW("full_like", fn_full_like, 2, PARAMS("a", "fill_value", "dtype"),
        "full_like(a, fill_value, dtype=None) -> ndarray: fill_value in a's shape"),
    ROW("arange", fn_arange, 1, PARAMS("start", "stop", "step", "dtype"),
        "arange([start,] stop[, step], dtype=None) -> ndarray: evenly spaced values"),
    ROW("linspace", fn_linspace, 2, PARAMS("start", "stop", "num", "endpoint", "dtype"),
        "linspace(start, stop, num=50, endpoint=True) -> ndarray: num evenly spaced values"),
    ROW("dtype", fn_dtype, 1, PARAMS("dtype"), "dtype(name) -> dtype: a data type"),
    ROW("reshape", fn_reshape, 2, PARAMS("a", "newshape"),
        "reshape(a, newshape) -> ndarray: a's elements in a new shape"),
    ROW("transpose", fn_transpose, 1, PARAMS("a", "axes"),
        "transpose(a, axes=None) -> ndarray: a's axes permuted"),
    ROW("ravel", fn_ravel, 1, PARAMS("a"), "ravel(a) -> ndarray: a's elements as 1-d"),
    NP_BINARY_FUNCS(BINARY_ROW) NP_UNARY_FUNCS(UNARY_ROW)
        ROW("logical_and", fn_logical_and, 2, PARAMS("x1", "x2"),
            "logical_and(x1, x2) -> ndarray of bool"),
    ROW("logical_or", fn_logical_or, 2, PARAMS("x1", "x2"),
        "logical_or(x1, x2) -> ndarray of bool"),
    ROW("logical_xor", fn_logical_xor, 2, PARAMS("x1", "x2"),
        "logical_xor(x1, x2) -> ndarray of bool"),
    ROW("round", fn_round, 1, PARAMS("a", "decimals"),
        "round(a, decimals=0) -> ndarray: rounded half to even"),
    ROW("around", fn_round, 1, PARAMS("a", "decimals"), "around(a, decimals=0): round()"),
    ROW("clip", fn_clip, 3, PARAMS("a", "a_min", "a_max"),
        "clip(a, a_min, a_max) -> ndarray: a's values limited to [a_min, a_max]"),
    ROW("where", fn_where, 1, PARAMS("condition", "x", "y"),
        "where(condition, x, y) -> ndarray: x where condition holds, else y"),
    ROW("sum", fn_sum, 1, RED_DT_PARAMS, "sum(a, axis=None, dtype=None, keepdims=False)"),
    ROW("prod", fn_prod, 1, RED_DT_PARAMS, "prod(a, axis=None, dtype=None, keepdims=False)"),
    ROW("mean", fn_mean, 1, RED_DT_PARAMS, "mean(a, axis=None, dtype=None, keepdims=False)"),
    ROW("max", fn_max, 1, RED_PARAMS, "max(a, axis=None, keepdims=False): the largest value"),
    ROW("amax", fn_max, 1, RED_PARAMS, "amax(a, axis=None, keepdims=False): max()"),
    ROW("min", fn_min, 1, RED_PARAMS, "min(a, axis=None, keepdims=False): the smallest value"),
    ROW("amin", fn_min, 1, RED_PARAMS, "amin(a, axis=None, keepdims=False): min()"),
    ROW("argmax", fn_argmax, 1, RED_PARAMS, "argmax(a, axis=None): the index of the largest"),
    ROW("argmin", fn_argmin, 1, RED_PARAMS, "argmin(a, axis=None): the index of the smallest"),
    ROW("all", fn_all, 1, RED_PARAMS, "all(a, axis=None, keepdims=False): every value true"),
    ROW("any", fn_any, 1, RED_PARAMS, "any(a, axis=None, keepdims=False): some value true"),
    ROW("dot", fn_dot, 2, PARAMS("a", "b"), "dot(a, b) -> ndarray: the dot product"),
    ROW("matmul", fn_matmul, 2, PARAMS("x1", "x2"), "matmul(x1, x2) -> ndarray: a @ b"),
    ROW("pad", bi_np_fn_pad, 2, PARAMS("array", "pad_width", "mode", "constant_values"),
        "pad(array, pad_width, mode='constant', constant_values=0) -> ndarray: padded"),
    ROW("concatenate", bi_np_fn_concatenate, 1, PARAMS("arrays", "axis"),
        "concatenate(arrays, axis=0) -> ndarray: the arrays joined along axis"),
    ROW("stack", bi_np_fn_stack, 1, PARAMS("arrays", "axis"),
        "stack(arrays, axis=0) -> ndarray: same-shaped arrays joined along a new axis"),
    ROW("take", bi_np_fn_take, 2, PARAMS("a", "indices", "axis"),
        "take(a, indices, axis=None) -> ndarray: the elements at indices along axis"),
    ROW("sort", bi_np_fn_sort, 1, PARAMS("a", "axis", "kind"),
        "sort(a, axis=-1, kind=None) -> ndarray: a sorted along axis (stable, NaN last)"),
    ROW("argsort", bi_np_fn_argsort, 1, PARAMS("a", "axis", "kind"),
        "argsort(a, axis=-1, kind=None) -> ndarray: the indices that sort a (stable)"),
    ROW("allclose", bi_np_fn_allclose, 2, PARAMS("a", "b", "rtol", "atol", "equal_nan"),
        "allclose(a, b, rtol=1e-05, atol=1e-08) -> bool: |a - b| <= atol + rtol * |b|"),
    ROW("isclose", bi_np_fn_isclose, 2, PARAMS("a", "b", "rtol", "atol", "equal_nan"),
        "isclose(a, b, rtol=1e-05, atol=1e-08) -> ndarray: allclose elementwise"),
    ROW("array_equal", bi_np_fn_array_equal, 2, PARAMS("a1", "a2"),
        "array_equal(a1, a2) -> bool: same shape and elements"),
    ROW("load", bi_np_fn_load, 1, PARAMS("file", "allow_pickle"),
        "load(file) -> ndarray: an array from a .npy file"),
    ROW("save", bi_np_fn_save, 2, PARAMS("file", "arr", "allow_pickle"),
        "save(file, arr): writes arr to a .npy file ('.npy' appended when missing)"),
    {0},
};
#undef BINARY_ROW
#undef UNARY_ROW
#undef ROW

static int bi_np_module_init(Interp *I, Value *m) {
  bi_np_dtype_members(m);
  bi_set_member_take(m, "ndarray", val_type(&bi_ndarray_class.type));
  bi_set_member_take(m, "pi", val_float(M_PI));
  bi_set_member_take(m, "e", val_float(M_E));
  bi_set_member_take(m, "inf", val_float(INFINITY));
  bi_set_member_take(m, "nan", val_float(NAN));
  bi_set_member_take(m, "newaxis", val_none());
  Value *random = bi_np_random_module(I), *testing = random ? bi_np_testing_module(I) : NULL;
  if (!testing) return val_xdecref(random), -1;
  bi_set_member_take(m, "random", random);
  bi_set_member_take(m, "testing", testing);
  return 0;
}

static const ModuleDef mod_numpy = {
    "numpy", bi_np_funcs, bi_np_module_init, "the numpy subset of SPEC §10", NULL, NULL};
static const ModuleDef *const np_defs[] = {&mod_numpy, NULL};
static const ModuleAlias np_prebound[] = {{"np", "numpy"}, {0}}; /* SPEC §5 */
static const ModuleSet np_set = {np_defs, NULL, np_prebound};

void np_register_modules(void) { mod_register(&np_set); }
