/* arrange.c: numpy's functions that pick or reorder elements along an axis: np.take,
 * np.stack, np.sort and np.argsort (docs/numpy.md). Sorting is always stable (a merge sort),
 * with NaN last, as numpy's kind='stable' sorts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

/* ---- take ---- */

/* Products of the dims before and after axis ax. */
static void around_axis(const NDArray *a, int ax, int64_t *outer, int64_t *inner) {
  *outer = *inner = 1;
  for (int d = 0; d < ax; d++) *outer *= a->shape[d];
  for (int d = ax + 1; d < a->ndim; d++) *inner *= a->shape[d];
}

NDArray *bi_np_take(Interp *I, const NDArray *a, const NDArray *idx, int ax) {
  if (a->ndim - 1 + idx->ndim > ND_MAX_DIMS) {
    interp_raise(I, EXC_IndexError, "indexing gives more than %d dimensions", ND_MAX_DIMS);
    return NULL;
  }
  int64_t dims[ND_MAX_DIMS], outer, inner, len = a->shape[ax];
  int nd = 0;
  for (int d = 0; d < ax; d++) dims[nd++] = a->shape[d];
  for (int d = 0; d < idx->ndim; d++) dims[nd++] = idx->shape[d];
  for (int d = ax + 1; d < a->ndim; d++) dims[nd++] = a->shape[d];
  around_axis(a, ax, &outer, &inner);
  for (int64_t i = 0; i < idx->size; i++) { /* checked before anything is allocated */
    int64_t x = bi_np_get(idx, i, NK_INT).i;
    if (x < -len || x >= len)
      return interp_raise(I, EXC_IndexError, "index %lld is out of bounds for axis %d with size %lld",
                          (long long)x, ax, (long long)len),
             NULL;
  }
  NDArray *out = bi_np_new(I, a->dtype, nd, dims);
  if (!out) return NULL;
  size_t rb = (size_t)inner * nd_elem_bytes(a->dtype);
  char *o = out->data;
  for (int64_t p = 0; p < outer; p++)
    for (int64_t i = 0; i < idx->size; i++, o += rb) {
      int64_t x = bi_np_get(idx, i, NK_INT).i;
      memcpy(o, (const char *)a->data + (size_t)(p * len + (x < 0 ? x + len : x)) * rb, rb);
    }
  return out;
}

/* Integer indices: ints, or arrays and lists of them (bools are 0 and 1, a safe cast);
 * numpy's TypeError for floats. */
static NDArray *int_indices(Interp *I, Value *v) {
  NDArray *k = bi_np_from_value(I, v, NULL);
  if (k && k->dtype.code == DT_FLOAT) {
    interp_raise(I, EXC_TypeError,
                 "Cannot cast array data from dtype('%s') to dtype('int64') according to the "
                 "rule 'safe'",
                 bi_np_dtype_name(k->dtype));
    nd_free(k);
    return NULL;
  }
  return k;
}

Value *bi_np_fn_take(Interp *I, Value *self, Value **a) {
  bool owned;
  NDArray *x = bi_np_array_arg(I, a[0], "take", &owned), *idx = NULL, *out = NULL;
  if (!x || !(idx = int_indices(I, a[1]))) goto done;
  NDArray flat = *x; /* axis=None: x read as 1-d, same data */
  int ax = 0;
  if (!a[2] || a[2]->kind == VAL_NONE) {
    flat.ndim = 1, flat.shape[0] = x->size;
  } else if (bi_np_axis(I, a[2], x->ndim, &ax) < 0) {
    goto done;
  }
  out = bi_np_take(I, &flat, idx, ax);
done:
  nd_free(idx);
  if (owned) nd_free(x);
  if (out && out->ndim == 0) { /* one index, one element: a number, as a[i] gives */
    Value *r = bi_np_item(out, 0);
    nd_free(out);
    return r;
  }
  return bi_np_wrap(out);
}

/* ---- stack ---- */

static int collect(Interp *I, Value *item, void *ctx) {
  val_list_append(ctx, item);
  return 0;
}

Value *bi_np_fn_stack(Interp *I, Value *self, Value **a) {
  Value *items = val_list_new(0);
  int n = 0;
  NpOperand *ops = NULL;
  NDArray *out = NULL;
  if (bi_for_each(I, a[0], collect, items) < 0) goto done;
  if (VAL_SEQ_N(items) == 0) {
    interp_raise(I, EXC_ValueError, "need at least one array to stack");
    goto done;
  }
  if (!(ops = val_alloc(I, VAL_SEQ_N(items), sizeof *ops))) goto done;
  for (; n < VAL_SEQ_N(items); n++)
    if (bi_np_operand(I, VAL_SEQ_ITEM(items, n), &ops[n]) < 0) goto done;
  const NDArray *x0 = ops[0].a;
  DType t = x0->dtype;
  for (int i = 1; i < n; i++) {
    NDArray *x = ops[i].a;
    bool same = x->ndim == x0->ndim;
    for (int d = 0; same && d < x->ndim; d++) same = x->shape[d] == x0->shape[d];
    if (!same) {
      interp_raise(I, EXC_ValueError, "all input arrays must have the same shape");
      goto done;
    }
    t = bi_np_promote(t, x->dtype);
  }
  int ax = 0;
  if (x0->ndim == ND_MAX_DIMS) {
    interp_raise(I, EXC_ValueError, "stacking gives more than %d dimensions", ND_MAX_DIMS);
    goto done;
  }
  if (a[1] && bi_np_axis(I, a[1], x0->ndim + 1, &ax) < 0) goto done;
  int64_t dims[ND_MAX_DIMS], outer, inner;
  int nd = 0;
  for (int d = 0; d <= x0->ndim; d++) dims[nd++] = d == ax ? n : x0->shape[d - (d > ax)];
  NDArray head = {.ndim = x0->ndim + 1};
  memcpy(head.shape, dims, sizeof dims);
  around_axis(&head, ax, &outer, &inner);
  if (!(out = bi_np_new(I, t, nd, dims))) goto done;
  size_t rb = (size_t)inner * nd_elem_bytes(t);
  for (int i = 0; i < n; i++) {
    NDArray *c = bi_np_astype(I, ops[i].a, t);
    if (!c) {
      nd_free(out);
      out = NULL;
      goto done;
    }
    for (int64_t p = 0; p < outer; p++)
      memcpy((char *)out->data + (size_t)(p * n + i) * rb, (char *)c->data + (size_t)p * rb, rb);
    nd_free(c);
  }
done:
  for (int i = 0; i < n; i++) bi_np_operand_done(&ops[i]);
  free(ops);
  val_decref(items);
  return bi_np_wrap(out);
}

/* ---- sort and argsort ---- */

/* x < y in numpy's sort order: NaN after every number. */
static bool before(NpScalar x, NpScalar y, NpKind k) {
  switch (k) {
  case NK_INT: return x.i < y.i;
  case NK_UINT: return x.u < y.u;
  default: return x.f < y.f || (isnan(y.f) && !isnan(x.f));
  }
}

/* Stable merge sort of the positions p[0..n) by v[p[i] * stride]; tmp has room for n. */
static void merge_sort(int64_t *p, int64_t *tmp, int64_t n, const NpScalar *v, int64_t stride,
                       NpKind k) {
  if (n < 2) return;
  int64_t h = n / 2;
  merge_sort(p, tmp, h, v, stride, k);
  merge_sort(p + h, tmp, n - h, v, stride, k);
  int64_t i = 0, j = h, o = 0;
  while (i < h && j < n)
    tmp[o++] = before(v[p[j] * stride], v[p[i] * stride], k) ? p[j++] : p[i++];
  while (i < h) tmp[o++] = p[i++];
  while (j < n) tmp[o++] = p[j++];
  memcpy(p, tmp, (size_t)n * sizeof *p);
}

static int kind_arg(Interp *I, Value *v) {
  static const char *const kinds[] = {"quicksort", "mergesort", "heapsort", "stable"};
  if (!v || v->kind == VAL_NONE) return 0;
  if (v->kind == VAL_STR)
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
      if (strcmp(v->u.str.s, kinds[i]) == 0) return 0;
  interp_raise(I, EXC_ValueError,
               "sort kind must be one of 'quicksort', 'mergesort', 'heapsort' or 'stable'");
  return -1;
}

/* np.sort (want_index false) and np.argsort: along axis a[1] (default -1; None: a flattened). */
static Value *sort_fn(Interp *I, Value **a, const char *fn, bool want_index) {
  bool owned;
  NDArray *x = bi_np_array_arg(I, a[0], fn, &owned), *out = NULL;
  NpScalar *v = NULL;
  int64_t *p = NULL, *tmp = NULL;
  if (!x || kind_arg(I, a[2]) < 0) goto done;
  NDArray flat = *x; /* axis=None: x read as 1-d, same data */
  int ax = 0;
  if (a[1] && a[1]->kind == VAL_NONE) {
    flat.ndim = 1, flat.shape[0] = x->size;
  } else {
    Value *last = val_int(-1);
    int r = bi_np_axis(I, a[1] ? a[1] : last, x->ndim, &ax);
    val_decref(last);
    if (r < 0) goto done;
  }
  NpKind k = bi_np_kind(flat.dtype);
  int64_t outer, inner, len = flat.shape[ax];
  around_axis(&flat, ax, &outer, &inner);
  if (!(out = bi_np_new(I, want_index ? NP_INT : flat.dtype, flat.ndim, flat.shape)) ||
      !(v = bi_np_load(I, &flat, k)))
    goto fail;
  if (!(p = val_alloc(I, len, sizeof *p)) || !(tmp = val_alloc(I, len, sizeof *tmp))) goto fail;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t base = o * len * inner + in;
      for (int64_t i = 0; i < len; i++) p[i] = i;
      merge_sort(p, tmp, len, v + base, inner, k);
      for (int64_t i = 0; i < len; i++) {
        int64_t at = base + i * inner;
        if (want_index)
          ((int64_t *)out->data)[at] = p[i];
        else
          bi_np_set(out, at, v[base + p[i] * inner], k);
      }
    }
  goto done;
fail:
  nd_free(out);
  out = NULL;
done:
  free(v), free(p), free(tmp);
  if (owned) nd_free(x);
  return bi_np_wrap(out);
}

Value *bi_np_fn_sort(Interp *I, Value *self, Value **a) { return sort_fn(I, a, "sort", false); }
Value *bi_np_fn_argsort(Interp *I, Value *self, Value **a) {
  return sort_fn(I, a, "argsort", true);
}
