/* index.c: numpy's basic indexing (a[i], a[i, j], negative indices, slices, None as a
 * new axis, `...` for the axes left) for reading and assigning, boolean masks (a[a > 0], a[mask] = 0), integer arrays
 * on the first axis (a[[0, 2]]), and the functions that move elements without computing:
 * reshape, transpose, nonzero, pad, concatenate. numpy's views are copies in tes: a[1:3] is a
 * new array, and writing to it leaves a alone (docs/numpy.md). */
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

/* ---- element copies ---- */

/* Copies every element of out (contiguous, its own shape) from src at base + the offsets
 * that strides give, byte for byte (both of one dtype). */
static void gather(NDArray *out, const NDArray *src, int64_t base, const int64_t *strides) {
  NpShape s;
  bi_np_shape_of(out, &s);
  NpIter it;
  bi_np_iter_init(&it, &s, 1);
  memcpy(it.strides[0], strides, (size_t)s.ndim * sizeof *strides);
  size_t e = nd_elem_bytes(out->dtype);
  char *o = out->data;
  const char *in = (const char *)src->data + base * (int64_t)e;
  for (int64_t i = 0; i < out->size; i++, bi_np_iter_next(&it))
    memcpy(o + (size_t)i * e, in + it.off[0] * (int64_t)e, e);
}

/* ---- index plans ---- */

/* What a key selects: a box of the array, stepped, with new axes of length 1. */
typedef struct View {
  int ndim;
  int64_t dims[ND_MAX_DIMS], strides[ND_MAX_DIMS];
  int64_t base;
  bool scalar; /* every axis taken by an int: one element */
} View;

/* Python's slice.indices: start, step and how many elements a slice takes from len. */
static int slice_indices(Interp *I, Value *sl, int64_t len, int64_t *start, int64_t *step,
                         int64_t *count) {
  int64_t st = 1, b, e;
  Value *vs = sl->u.slice.start, *ve = sl->u.slice.stop, *vp = sl->u.slice.step;
  if (vp->kind != VAL_NONE && bi_arg_index(I, vp, &st) < 0) return -1;
  if (st == 0) return interp_raise(I, EXC_ValueError, "slice step cannot be zero"), -1;
  if (st == INT64_MIN) st = -INT64_MAX;
  if (vs->kind == VAL_NONE)
    b = st > 0 ? 0 : len - 1;
  else if (bi_arg_index(I, vs, &b) < 0)
    return -1;
  else if (b < 0)
    b = b + len < 0 ? (st < 0 ? -1 : 0) : b + len;
  else if (b >= len)
    b = st < 0 ? len - 1 : len;
  if (ve->kind == VAL_NONE)
    e = st > 0 ? len : -1;
  else if (bi_arg_index(I, ve, &e) < 0)
    return -1;
  else if (e < 0)
    e = e + len < 0 ? (st < 0 ? -1 : 0) : e + len;
  else if (e >= len)
    e = st < 0 ? len - 1 : len;
  *start = b;
  *step = st;
  *count = st > 0 ? (e > b ? (e - b - 1) / st + 1 : 0) : (b > e ? (b - e - 1) / (-st) + 1 : 0);
  return 0;
}

/* An integer index: an int, or a 0-d integer array (numpy's int64 scalar, what argmax gives),
 * which numpy takes as the int it holds. */
static bool int_key(Value *k, int64_t *x) {
  if (val_is_int(k)) return *x = k->u.i, true;
  NDArray *a = bi_ndarray_of(k);
  if (!a || a->ndim != 0 || (a->dtype.code != DT_INT && a->dtype.code != DT_UINT)) return false;
  *x = bi_np_get(a, 0, NK_INT).i;
  return true;
}

static bool is_basic(Value *k) {
  int64_t x;
  return int_key(k, &x) || k->kind == VAL_SLICE || k->kind == VAL_NONE || k == val_ellipsis();
}

static int bad_index(Interp *I) {
  interp_raise(I, EXC_IndexError,
               "only integers, slices (`:`), numpy.newaxis (`None`) and integer or boolean "
               "arrays are valid indices");
  return -1;
}

/* The view a basic key (an int, a slice, None, `...` or a tuple of them) selects. `...`
 * stands for as many whole axes as the other keys leave. */
static int make_view(Interp *I, const NDArray *a, Value *key, View *v) {
  bool tuple = key->kind == VAL_TUPLE;
  int n = tuple ? (int)VAL_SEQ_N(key) : 1, used = 0, ellipses = 0;
  for (int i = 0; i < n; i++) {
    Value *k = tuple ? VAL_SEQ_ITEM(key, i) : key;
    if (!is_basic(k)) return bad_index(I);
    ellipses += k == val_ellipsis();
    used += k->kind != VAL_NONE && k != val_ellipsis();
  }
  if (ellipses > 1)
    return interp_raise(I, EXC_IndexError, "an index can only have a single ellipsis ('...')"),
           -1;
  if (used > a->ndim) {
    interp_raise(I, EXC_IndexError,
                 "too many indices for array: array is %d-dimensional, but %d were indexed",
                 a->ndim, used);
    return -1;
  }
  int64_t st[ND_MAX_DIMS];
  bi_np_strides(a->ndim, a->shape, st);
  *v = (View){.scalar = used == a->ndim && !ellipses}; /* a[1, 2, ...] is a 0-d array */
  int d = 0;
  for (int i = 0; i < n; i++) {
    Value *k = tuple ? VAL_SEQ_ITEM(key, i) : key;
    int64_t x = 0;
    bool is_int = int_key(k, &x);
    if (v->ndim == ND_MAX_DIMS && !is_int && k != val_ellipsis()) {
      interp_raise(I, EXC_IndexError, "indexing gives more than %d dimensions", ND_MAX_DIMS);
      return -1;
    }
    if (k == val_ellipsis()) {
      if (v->ndim + a->ndim - used > ND_MAX_DIMS) {
        interp_raise(I, EXC_IndexError, "indexing gives more than %d dimensions", ND_MAX_DIMS);
        return -1;
      }
      for (int e = a->ndim - used; e > 0; e--, d++)
        v->dims[v->ndim] = a->shape[d], v->strides[v->ndim++] = st[d];
    } else if (k->kind == VAL_NONE) {
      v->scalar = false;
      v->dims[v->ndim] = 1, v->strides[v->ndim++] = 0;
    } else if (k->kind == VAL_SLICE) {
      int64_t start, step, count;
      if (slice_indices(I, k, a->shape[d], &start, &step, &count) < 0) return -1;
      v->scalar = false;
      v->base += start * st[d];
      v->dims[v->ndim] = count, v->strides[v->ndim++] = step * st[d];
      d++;
    } else {
      if (x < -a->shape[d] || x >= a->shape[d]) {
        interp_raise(I, EXC_IndexError, "index %lld is out of bounds for axis %d with size %lld",
                     (long long)x, d, (long long)a->shape[d]);
        return -1;
      }
      v->base += (x < 0 ? x + a->shape[d] : x) * st[d];
      d++;
    }
  }
  for (; d < a->ndim; d++) v->dims[v->ndim] = a->shape[d], v->strides[v->ndim++] = st[d];
  return 0;
}

/* ---- advanced keys: boolean masks and integer arrays ---- */

static bool same_shape(const NDArray *a, const NDArray *b) {
  if (a->ndim != b->ndim) return false;
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

static int mask_check(Interp *I, const NDArray *a, const NDArray *m) {
  if (same_shape(a, m)) return 0;
  StrBuf x = STRBUF_INIT, y = STRBUF_INIT;
  bi_np_shape_str(&x, m->ndim, m->shape);
  bi_np_shape_str(&y, a->ndim, a->shape);
  interp_raise(I, EXC_RuntimeError,
               "not supported yet: a boolean index of shape %s into an array of shape %s (the "
               "mask must have the array's shape)",
               sb_cstr(&x), sb_cstr(&y));
  sb_free(&x), sb_free(&y);
  return -1;
}

static NDArray *mask_get(Interp *I, const NDArray *a, const NDArray *m) {
  if (mask_check(I, a, m) < 0) return NULL;
  int64_t n = 0;
  const uint8_t *mk = m->data;
  for (int64_t i = 0; i < m->size; i++) n += mk[i] != 0;
  NDArray *out = bi_np_new(I, a->dtype, 1, &n);
  if (!out) return NULL;
  size_t e = nd_elem_bytes(a->dtype);
  for (int64_t i = 0, j = 0; i < a->size; i++)
    if (mk[i]) memcpy((char *)out->data + (size_t)j++ * e, (char *)a->data + (size_t)i * e, e);
  return out;
}

/* An integer array on the first axis: the rows it names, in its shape. */
static NDArray *take_rows(Interp *I, const NDArray *a, const NDArray *idx) {
  if (a->ndim == 0) return interp_raise(I, EXC_IndexError, "too many indices for array"), NULL;
  return bi_np_take(I, a, idx, 0);
}

/* A key that is an array or a list: a mask (bool) or row numbers (integers). */
static NDArray *array_key(Interp *I, Value *key) {
  NDArray *k = bi_np_from_value(I, key, NULL);
  if (k && k->dtype.code == DT_FLOAT) {
    nd_free(k);
    bad_index(I);
    return NULL;
  }
  return k;
}

static bool is_array_key(Value *key) {
  int64_t x;
  return (bi_ndarray_of(key) && !int_key(key, &x)) || key->kind == VAL_LIST;
}

Value *bi_np_getitem(Interp *I, Value *self, Value *key) {
  NDArray *a = bi_ndarray_of(self);
  if (is_array_key(key)) {
    NDArray *k = array_key(I, key);
    if (!k) return NULL;
    NDArray *r = k->dtype.code == DT_BOOL ? mask_get(I, a, k) : take_rows(I, a, k);
    nd_free(k);
    return bi_np_wrap(r);
  }
  View v;
  if (make_view(I, a, key, &v) < 0) return NULL;
  if (v.scalar) return bi_np_item(a, v.base);
  NDArray *out = bi_np_new(I, a->dtype, v.ndim, v.dims);
  if (!out) return NULL;
  gather(out, a, v.base, v.strides);
  return bi_ndarray_wrap(out);
}

/* ---- assignment ---- */

/* The value to assign, as an array of a's dtype: a Python int out of its range is numpy 2's
 * OverflowError. */
static NDArray *assigned(Interp *I, const NDArray *a, Value *v) {
  NpOperand o;
  if (bi_np_operand(I, v, &o) < 0) return NULL;
  DType t;
  NDArray *r = NULL;
  if (o.weak != NP_WEAK_INT || bi_np_weak_dtype(I, &o, a->dtype, &t) == 0)
    r = bi_np_astype(I, o.a, a->dtype);
  bi_np_operand_done(&o);
  return r;
}

/* Writes val, broadcast, into the view of a. Like numpy, val may have extra leading axes of
 * length 1. */
static int scatter(Interp *I, NDArray *a, const View *v, const NDArray *val) {
  NpShape s = {.ndim = v->ndim};
  memcpy(s.dims, v->dims, (size_t)v->ndim * sizeof *s.dims);
  NDArray vv = *val; /* val's header with the extra leading 1s dropped; same data */
  int lead = 0;
  while (lead < val->ndim - s.ndim && val->shape[lead] == 1) lead++;
  vv.ndim = val->ndim - lead;
  memmove(vv.shape, val->shape + lead, (size_t)vv.ndim * sizeof *vv.shape);
  bool ok = vv.ndim <= s.ndim;
  for (int i = 0; ok && i < vv.ndim; i++) {
    int64_t vd = vv.shape[i], sd = s.dims[s.ndim - vv.ndim + i];
    ok = vd == 1 || vd == sd;
  }
  if (!ok) {
    StrBuf x = STRBUF_INIT, y = STRBUF_INIT;
    bi_np_shape_str(&x, val->ndim, val->shape);
    bi_np_shape_str(&y, s.ndim, s.dims);
    interp_raise(I, EXC_ValueError, "could not broadcast input array from shape %s into shape %s",
                 sb_cstr(&x), sb_cstr(&y));
    sb_free(&x), sb_free(&y);
    return -1;
  }
  NpIter it;
  bi_np_iter_init(&it, &s, 2);
  memcpy(it.strides[0], v->strides, (size_t)s.ndim * sizeof *v->strides);
  bi_np_bcast_strides(&vv, &s, it.strides[1]);
  it.off[0] = v->base;
  size_t e = nd_elem_bytes(a->dtype);
  int64_t n = 1;
  for (int i = 0; i < s.ndim; i++) n *= s.dims[i];
  for (int64_t i = 0; i < n; i++, bi_np_iter_next(&it))
    memcpy((char *)a->data + it.off[0] * (int64_t)e, (char *)val->data + it.off[1] * (int64_t)e, e);
  return 0;
}

int bi_np_fill(Interp *I, NDArray *a, Value *value) {
  NDArray *val = assigned(I, a, value);
  if (!val) return -1;
  View v = {.ndim = a->ndim};
  memcpy(v.dims, a->shape, (size_t)a->ndim * sizeof *v.dims);
  bi_np_strides(a->ndim, a->shape, v.strides);
  int r = scatter(I, a, &v, val);
  nd_free(val);
  return r;
}

static int mask_set(Interp *I, NDArray *a, const NDArray *m, const NDArray *val) {
  if (mask_check(I, a, m) < 0) return -1;
  const uint8_t *mk = m->data;
  int64_t n = 0;
  for (int64_t i = 0; i < m->size; i++) n += mk[i] != 0;
  if (val->size != 1 && val->size != n) {
    interp_raise(I, EXC_ValueError,
                 "NumPy boolean array indexing assignment cannot assign %lld input values to the "
                 "%lld output values where the mask is true",
                 (long long)val->size, (long long)n);
    return -1;
  }
  size_t e = nd_elem_bytes(a->dtype);
  for (int64_t i = 0, j = 0; i < a->size; i++)
    if (mk[i]) {
      memcpy((char *)a->data + (size_t)i * e,
             (char *)val->data + (size_t)(val->size == 1 ? 0 : j) * e, e);
      j++;
    }
  return 0;
}

int bi_np_setitem(Interp *I, Value *self, Value *key, Value *value) {
  NDArray *a = bi_ndarray_of(self), *val = assigned(I, a, value), *k = NULL;
  if (!val) return -1;
  int r = -1;
  View v;
  if (is_array_key(key)) {
    if (!(k = array_key(I, key))) goto done;
    if (k->dtype.code == DT_BOOL) {
      r = mask_set(I, a, k, val);
    } else {
      interp_raise(I, EXC_RuntimeError,
                   "not supported yet: assigning through an integer array index (use a loop)");
    }
  } else if (make_view(I, a, key, &v) == 0) {
    r = scatter(I, a, &v, val);
  }
done:
  nd_free(k);
  nd_free(val);
  return r;
}

/* ---- shape changes ---- */

static void numpy_shape(StrBuf *b, int n, const int64_t *dims) {
  sb_putc(b, '(');
  for (int i = 0; i < n; i++) sb_printf(b, "%s%lld", i ? "," : "", (long long)dims[i]);
  sb_puts(b, n == 1 ? ",)" : ")");
}

NDArray *bi_np_reshape(Interp *I, const NDArray *a, int n, const int64_t *dims) {
  int64_t d[ND_MAX_DIMS], known = 1;
  int unknown = -1;
  for (int i = 0; i < n; i++) {
    d[i] = dims[i];
    if (d[i] == -1) {
      if (unknown >= 0)
        return interp_raise(I, EXC_ValueError, "can only specify one unknown dimension"), NULL;
      unknown = i;
    } else if (d[i] < 0) {
      return interp_raise(I, EXC_ValueError, "negative dimensions not allowed"), NULL;
    } else {
      known = d[i] && known > INT64_MAX / d[i] ? -2 : known * d[i];
    }
  }
  if (unknown >= 0 && known > 0 && a->size % known == 0) d[unknown] = a->size / known;
  if ((unknown >= 0 && (known <= 0 || a->size % known)) || (unknown < 0 && known != a->size)) {
    StrBuf b = STRBUF_INIT;
    numpy_shape(&b, n, dims);
    interp_raise(I, EXC_ValueError, "cannot reshape array of size %lld into shape %s",
                 (long long)a->size, sb_cstr(&b));
    sb_free(&b);
    return NULL;
  }
  NDArray *r = bi_np_new(I, a->dtype, n, d);
  if (r) memcpy(r->data, a->data, nd_nbytes(a));
  return r;
}

NDArray *bi_np_transpose(Interp *I, const NDArray *a, const int *perm) {
  int p[ND_MAX_DIMS];
  bool seen[ND_MAX_DIMS] = {0};
  for (int i = 0; i < a->ndim; i++) {
    p[i] = perm ? perm[i] : a->ndim - 1 - i;
    if (seen[p[i]]) return interp_raise(I, EXC_ValueError, "repeated axis in transpose"), NULL;
    seen[p[i]] = true;
  }
  int64_t dims[ND_MAX_DIMS], st[ND_MAX_DIMS], pst[ND_MAX_DIMS];
  bi_np_strides(a->ndim, a->shape, st);
  for (int i = 0; i < a->ndim; i++) dims[i] = a->shape[p[i]], pst[i] = st[p[i]];
  NDArray *r = bi_np_new(I, a->dtype, a->ndim, dims);
  if (r) gather(r, a, 0, pst);
  return r;
}

Value *bi_np_nonzero(Interp *I, Value *cond) {
  bool owned;
  NDArray *c = bi_np_array_arg(I, cond, "nonzero", &owned);
  if (!c) return NULL;
  if (c->ndim == 0) {
    if (owned) nd_free(c);
    return interp_raise(I, EXC_ValueError,
                        "Calling nonzero on 0d arrays is not allowed. Use "
                        "np.atleast_1d(scalar).nonzero() instead.");
  }
  int64_t n = 0, st[ND_MAX_DIMS];
  for (int64_t i = 0; i < c->size; i++) n += bi_np_get_f(c, i) != 0.0;
  bi_np_strides(c->ndim, c->shape, st);
  Value *t = val_tuple_new(c->ndim);
  for (int d = 0; d < c->ndim; d++) {
    NDArray *idx = bi_np_new(I, NP_INT, 1, &n);
    if (!idx) {
      if (owned) nd_free(c);
      return val_decref(t), NULL;
    }
    for (int64_t i = 0, j = 0; i < c->size; i++)
      if (bi_np_get_f(c, i) != 0.0) ((int64_t *)idx->data)[j++] = i / st[d] % c->shape[d];
    val_seq_set_take(t, d, bi_ndarray_wrap(idx));
  }
  if (owned) nd_free(c);
  return t;
}

/* ---- pad and concatenate ---- */

/* pad_width as numpy reads it: broadcast to (ndim, 2) non-negative ints. */
static NDArray *pad_widths(Interp *I, Value *w, int ndim) {
  DType i64 = NP_INT;
  NDArray *raw = bi_np_from_value(I, w, &i64);
  if (!raw) return NULL;
  NpShape s = {2, {ndim, 2}};
  NDArray *r = raw->ndim <= 2 ? bi_np_broadcast_to(I, raw, &s, NP_INT) : NULL;
  if (!r && !interp_error_pending(I))
    interp_raise(I, EXC_ValueError, "pad_width has too many dimensions");
  nd_free(raw);
  for (int64_t i = 0; r && i < r->size; i++)
    if (((int64_t *)r->data)[i] < 0) {
      nd_free(r);
      return interp_raise(I, EXC_ValueError, "index can't contain negative values"), NULL;
    }
  return r;
}

Value *bi_np_fn_pad(Interp *I, Value *self, Value **a) {
  if (a[2] && (a[2]->kind != VAL_STR || strcmp(a[2]->u.str.s, "constant") != 0))
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: np.pad(mode='%s') (only mode='constant')",
                        a[2]->kind == VAL_STR ? a[2]->u.str.s : val_type_name(a[2]));
  if (a[3] && !val_is_number(a[3]))
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: np.pad(constant_values=%s) (one number only)",
                        val_type_name(a[3]));
  bool owned;
  NDArray *x = bi_np_array_arg(I, a[0], "pad", &owned),
          *w = x ? pad_widths(I, a[1], x->ndim) : NULL;
  NDArray *out = NULL;
  if (!w) goto done;
  const int64_t *pw = w->data;
  int64_t dims[ND_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++) dims[d] = x->shape[d] + pw[2 * d] + pw[2 * d + 1];
  Value *zero = val_int(0);
  out = bi_np_new(I, x->dtype, x->ndim, dims);
  if (out && bi_np_fill(I, out, a[3] ? a[3] : zero) == 0) {
    View v = {.ndim = x->ndim};
    bi_np_strides(x->ndim, dims, v.strides);
    for (int d = 0; d < x->ndim; d++) v.base += pw[2 * d] * v.strides[d];
    memcpy(v.dims, x->shape, (size_t)x->ndim * sizeof *v.dims);
    scatter(I, out, &v, x);
  } else {
    nd_free(out);
    out = NULL;
  }
  val_decref(zero);
done:
  nd_free(w);
  if (owned) nd_free(x);
  return bi_np_wrap(out);
}

static int concat_arrays(Interp *I, Value *item, void *ctx) {
  Value *list = ctx;
  val_list_append(list, item);
  return 0;
}

enum { CONCAT_MAX = 64 };

/* The result's shape (axis -1: the arrays flattened); -1 with numpy's ValueError when the
 * shapes disagree off the axis. */
static int concat_shape(Interp *I, NDArray *const *xs, int n, int ax, int *nd, int64_t *dims) {
  const NDArray *first = xs[0];
  *nd = ax < 0 ? 1 : first->ndim;
  memcpy(dims, first->shape, (size_t)*nd * sizeof *dims);
  if (ax < 0) dims[0] = 0;
  for (int i = ax < 0 ? 0 : 1; i < n; i++) {
    const NDArray *x = xs[i];
    bool ok = ax < 0 || x->ndim == *nd;
    for (int d = 0; ok && ax >= 0 && d < *nd; d++) ok = d == ax || x->shape[d] == dims[d];
    if (!ok) {
      interp_raise(I, EXC_ValueError,
                   "all the input array dimensions except for the concatenation axis must match "
                   "exactly, but array %d does not match array 0",
                   i);
      return -1;
    }
    dims[ax < 0 ? 0 : ax] += ax < 0 ? x->size : x->shape[ax];
  }
  return 0;
}

/* Copies each array, converted to out's dtype, into its stretch of out along ax. */
static int concat_fill(Interp *I, NDArray *out, NDArray *const *xs, int n, int ax) {
  int a = ax < 0 ? 0 : ax;
  int64_t outer = 1, inner = 1, at = 0;
  for (int d = 0; d < a; d++) outer *= out->shape[d];
  for (int d = a + 1; d < out->ndim; d++) inner *= out->shape[d];
  size_t e = nd_elem_bytes(out->dtype);
  for (int i = 0; i < n; i++) {
    NDArray *c = bi_np_astype(I, xs[i], out->dtype);
    if (!c) return -1;
    int64_t len = ax < 0 ? c->size : c->shape[ax];
    for (int64_t o = 0; o < outer; o++)
      memcpy((char *)out->data + (size_t)((o * out->shape[a] + at) * inner) * e,
             (char *)c->data + (size_t)(o * len * inner) * e, (size_t)(len * inner) * e);
    at += len;
    nd_free(c);
  }
  return 0;
}

Value *bi_np_fn_concatenate(Interp *I, Value *self, Value **a) {
  Value *items = val_list_new(0);
  NpOperand ops[CONCAT_MAX];
  NDArray *xs[CONCAT_MAX] = {0}, *out = NULL;
  int n = 0, nd, ax = -1;
  int64_t dims[ND_MAX_DIMS];
  if (bi_for_each(I, a[0], concat_arrays, items) < 0) goto done;
  if (VAL_SEQ_N(items) == 0 || VAL_SEQ_N(items) > CONCAT_MAX) {
    interp_raise(I, EXC_ValueError, "need at least one array to concatenate (and at most %d)",
                 CONCAT_MAX);
    goto done;
  }
  for (; n < VAL_SEQ_N(items); n++) {
    if (bi_np_operand(I, VAL_SEQ_ITEM(items, n), &ops[n]) < 0) goto done;
    xs[n] = ops[n].a;
  }
  DType t = xs[0]->dtype;
  for (int i = 1; i < n; i++) t = bi_np_promote(t, xs[i]->dtype);
  if (!a[1] || a[1]->kind != VAL_NONE) { /* axis=None flattens; the default is 0 */
    if (xs[0]->ndim == 0) {
      interp_raise(I, EXC_ValueError, "zero-dimensional arrays cannot be concatenated");
      goto done;
    }
    ax = 0;
    if (a[1] && bi_np_axis(I, a[1], xs[0]->ndim, &ax) < 0) goto done;
  }
  if (concat_shape(I, xs, n, ax, &nd, dims) < 0 || !(out = bi_np_new(I, t, nd, dims))) goto done;
  if (concat_fill(I, out, xs, n, ax) < 0) {
    nd_free(out);
    out = NULL;
  }
done:
  for (int i = 0; i < n; i++) bi_np_operand_done(&ops[i]);
  val_decref(items);
  return bi_np_wrap(out);
}
