/* reduce.c: numpy's reductions (sum, prod, max, min, mean, argmax, argmin, all, any over
 * an axis, a tuple of axes or everything, keepdims) and its products (dot, matmul and @).
 * Sums, products and means of floats accumulate in double, left to right, which is at least
 * as exact as numpy's pairwise float32 summation; integers wrap as numpy's do. The result
 * types are numpy's: sums of small integers and bools are int64 (uint64 for unsigned), means
 * of integers float64, argmax int64. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

static const char *const reduce_names[NPR_COUNT] = {
#define NP_RED_NAME(k, name) name,
    NP_REDUCES(NP_RED_NAME)
#undef NP_RED_NAME
};

/* numpy's names in its "zero-size array to reduction operation maximum" message. */
static const char *ufunc_name(NpReduce r) { return r == NPR_MAX ? "maximum" : "minimum"; }

/* Which axes an axis argument names: None all; an int one; a tuple several. */
static int reduced_axes(Interp *I, NpReduce r, Value *axis, int ndim, bool *red) {
  for (int i = 0; i < ndim; i++) red[i] = !axis || axis->kind == VAL_NONE;
  if (!axis || axis->kind == VAL_NONE) return 0;
  bool tuple = axis->kind == VAL_TUPLE || axis->kind == VAL_LIST;
  if (tuple && (r == NPR_ARGMAX || r == NPR_ARGMIN)) {
    interp_raise(I, EXC_TypeError, "%s: axis must be an int or None", reduce_names[r]);
    return -1;
  }
  int n = tuple ? (int)VAL_SEQ_N(axis) : 1;
  for (int i = 0; i < n; i++) {
    int ax;
    if (bi_np_axis(I, tuple ? VAL_SEQ_ITEM(axis, i) : axis, ndim, &ax) < 0) return -1;
    if (red[ax]) {
      interp_raise(I, EXC_ValueError, "duplicate value in 'axis'");
      return -1;
    }
    red[ax] = true;
  }
  return 0;
}

static DType result_dtype(NpReduce r, DType t) {
  switch (r) {
  case NPR_SUM:
  case NPR_PROD:
    if (t.code == DT_BOOL || (t.code == DT_INT && t.bits < 64)) return NP_INT;
    if (t.code == DT_UINT && t.bits < 64) return DT_MAKE(DT_UINT, 64, 1);
    return t;
  case NPR_MEAN:
    return t.code == DT_FLOAT ? t : NP_FLOAT;
  case NPR_MAX:
  case NPR_MIN:
    return t;
  case NPR_ARGMAX:
  case NPR_ARGMIN:
    return NP_INT;
  case NPR_ALL:
  case NPR_ANY:
    return NP_BOOL;
  case NPR_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static bool is_nan(NpScalar v, NpKind k) { return k == NK_FLOAT && isnan(v.f); }

/* x beats the current best for max (sign 1) or min (sign -1); a NaN beats everything but an
 * earlier NaN, as numpy propagates the first NaN. */
static bool beats(NpScalar x, NpScalar best, NpKind k, int sign) {
  if (is_nan(best, k)) return false;
  if (is_nan(x, k)) return true;
  switch (k) {
  case NK_INT:
    return sign > 0 ? x.i > best.i : x.i < best.i;
  case NK_UINT:
    return sign > 0 ? x.u > best.u : x.u < best.u;
  case NK_FLOAT:
    return sign > 0 ? x.f > best.f : x.f < best.f;
  }
  TES_UNREACHABLE();
}

static NpScalar combine(NpReduce r, NpKind k, NpScalar acc, NpScalar x) {
  switch (r) {
  case NPR_SUM:
  case NPR_MEAN:
    if (k == NK_FLOAT)
      acc.f += x.f;
    else
      acc.u += x.u; /* wraps, for int64 too */
    return acc;
  case NPR_PROD:
    if (k == NK_FLOAT)
      acc.f *= x.f;
    else
      acc.u *= x.u;
    return acc;
  case NPR_ALL:
    acc.i = acc.i && (k == NK_FLOAT ? x.f != 0 : x.u != 0);
    return acc;
  case NPR_ANY:
    acc.i = acc.i || (k == NK_FLOAT ? x.f != 0 : x.u != 0);
    return acc;
  case NPR_MAX:
  case NPR_MIN:
  case NPR_ARGMAX:
  case NPR_ARGMIN:
  case NPR_COUNT:
    break; /* by beats() */
  }
  TES_UNREACHABLE();
}

static NpScalar identity(NpReduce r, NpKind k) {
  NpScalar v = {.u = 0};
  if (r == NPR_PROD) {
    if (k == NK_FLOAT)
      v.f = 1.0;
    else
      v.u = 1;
  }
  if (r == NPR_ALL) v.i = 1;
  return v;
}

typedef struct Reduction {
  NpReduce r;
  NpKind k; /* the kind values are compared or accumulated in */
  const NDArray *a;
  const bool *red; /* per axis of a */
  NpScalar *acc;   /* per output element */
  int64_t *pos;    /* argmax/argmin: the index of the best */
  bool *seen;      /* max/min/arg: whether acc holds a value yet */
} Reduction;

/* Position of an element within the reduced axes, row-major over them (argmax's answer). */
static int64_t reduced_pos(const NpIter *it, const bool *red) {
  int64_t p = 0;
  for (int d = 0; d < it->ndim; d++)
    if (red[d]) p = p * it->dims[d] + it->idx[d];
  return p;
}

/* Element x into output element o; at is its position within the reduced axes (argmax). */
#define TAKE(o, x, at)                                                                            \
  do {                                                                                             \
    if (!best) {                                                                                   \
      R->acc[o] = combine(R->r, R->k, R->acc[o], x);                                               \
    } else if (!R->seen[o] || beats(x, R->acc[o], R->k, sign)) {                                   \
      R->seen[o] = true;                                                                           \
      R->acc[o] = x;                                                                               \
      if (arg) R->pos[o] = (at);                                                                   \
    }                                                                                              \
  } while (0)

/* The suffix case of a float32 or float64 array's sum, mean, max or min in a typed loop: the
 * same left-to-right double sums and the same first-NaN-wins comparisons as TAKE makes, without
 * widening each element through an NpScalar. false: not this case. */
#define FAST_REDUCE(T)                                                                             \
  do {                                                                                             \
    const T *xa = R->a->data;                                                                      \
    for (int64_t o = 0; o < out_size; o++) {                                                       \
      const T *row = xa + o * count;                                                               \
      double acc = row[0];                                                                         \
      if (R->r == NPR_SUM || R->r == NPR_MEAN) {                                                   \
        acc = 0.0;                                                                                 \
        for (int64_t j = 0; j < count; j++) acc += row[j];                                         \
      } else {                                                                                     \
        for (int64_t j = 1; j < count && !isnan(acc); j++) {                                       \
          double x = row[j];                                                                       \
          if (isnan(x) || (R->r == NPR_MAX ? x > acc : x < acc)) acc = x;                          \
        }                                                                                          \
      }                                                                                            \
      R->acc[o].f = acc;                                                                           \
      if (R->r == NPR_MAX || R->r == NPR_MIN) R->seen[o] = true;                                  \
    }                                                                                              \
  } while (0)

static bool run_fast(Reduction *R, int64_t out_size, int64_t count) {
  DType t = R->a->dtype;
  if (R->k != NK_FLOAT || count == 0 ||
      (R->r != NPR_SUM && R->r != NPR_MEAN && R->r != NPR_MAX && R->r != NPR_MIN))
    return false;
  if (dt_eq(t, DT_F32))
    FAST_REDUCE(float);
  else if (dt_eq(t, DT_F64))
    FAST_REDUCE(double);
  else
    return false;
  return true;
}

static void run(Reduction *R, int64_t out_size) {
  const NDArray *a = R->a;
  for (int64_t o = 0; o < out_size; o++) R->acc[o] = identity(R->r, R->k);
  bool arg = R->r == NPR_ARGMAX || R->r == NPR_ARGMIN,
       best = arg || R->r == NPR_MAX || R->r == NPR_MIN;
  int sign = R->r == NPR_MAX || R->r == NPR_ARGMAX ? 1 : -1;
  /* the reduced axes last (np.sum(a), a row sum): each output element is a run of count
   * consecutive elements, and no iterator is needed */
  bool suffix = true;
  int64_t count = 1;
  for (int d = 0; d < a->ndim; d++) {
    if (R->red[d]) count *= a->shape[d];
    else if (d > 0 && R->red[d - 1]) suffix = false;
  }
  if (suffix && run_fast(R, out_size, count)) return;
  NpShape s;
  bi_np_shape_of(a, &s);
  /* otherwise: the output's strides over a's axes, 0 along reduced ones */
  int64_t kept[ND_MAX_DIMS], kstr[ND_MAX_DIMS];
  int nk = 0;
  for (int d = 0; d < a->ndim; d++)
    if (!R->red[d]) kept[nk++] = a->shape[d];
  bi_np_strides(nk, kept, kstr);
  NpIter it;
  bi_np_iter_init(&it, &s, 1);
  for (int d = 0, j = 0; d < a->ndim; d++) it.strides[0][d] = R->red[d] ? 0 : kstr[j++];
  /* the elements are read a run at a time, each widened to the accumulating kind as it is
   * read: an int8 sum reads int8s and adds int64s, with no int64 copy of the array */
  NpScalar x[NP_RUN];
  int64_t o = 0, j = 0; /* the suffix case's output element and position in it */
  for (int64_t first = 0; first < a->size; first += NP_RUN) {
    int64_t n = a->size - first < NP_RUN ? a->size - first : NP_RUN;
    bi_np_load_run(a, first, n, R->k, x);
    if (suffix) {
      for (int64_t i = 0; i < n; i++) {
        TAKE(o, x[i], j);
        if (++j == count) j = 0, o++;
      }
    } else {
      for (int64_t i = 0; i < n; i++, bi_np_iter_next(&it))
        TAKE(it.off[0], x[i], reduced_pos(&it, R->red));
    }
  }
}
#undef TAKE

static Value *empty_error(Interp *I, NpReduce r) {
  if (r == NPR_ARGMAX || r == NPR_ARGMIN)
    return interp_raise(I, EXC_ValueError, "attempt to get %s of an empty sequence",
                        reduce_names[r]);
  return interp_raise(I, EXC_ValueError,
                      "zero-size array to reduction operation %s which has no identity",
                      ufunc_name(r));
}

/* The results of R, as an array of dtype t and shape (out_ndim, out_dims). */
static NDArray *finish(Interp *I, Reduction *R, DType t, int ndim, const int64_t *dims,
                       int64_t count) {
  NDArray *out = bi_np_new(I, t, ndim, dims);
  if (!out) return NULL;
  for (int64_t o = 0; o < out->size; o++) {
    NpScalar v = R->acc[o];
    NpKind k = R->k;
    if (R->r == NPR_ARGMAX || R->r == NPR_ARGMIN) {
      v.i = R->pos[o];
      k = NK_INT;
    } else if (R->r == NPR_MEAN) {
      v.f = count ? v.f / (double)count : NAN;
    } else if (R->r == NPR_ALL || R->r == NPR_ANY) {
      k = NK_INT;
    }
    bi_np_set(out, o, v, k);
  }
  return out;
}

static Value *reduce_array(Interp *I, NpReduce r, const NDArray *a, Value *axis, bool keep,
                           Value *dtype) {
  bool red[ND_MAX_DIMS];
  if (reduced_axes(I, r, axis, a->ndim, red) < 0) return NULL;
  DType t = result_dtype(r, a->dtype);
  if (dtype && dtype->kind != VAL_NONE && bi_np_dtype_arg(I, dtype, reduce_names[r], t, &t) < 0)
    return NULL;
  int64_t dims[ND_MAX_DIMS], count = 1, out_size = 1;
  int ndim = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (red[d])
      count *= a->shape[d];
    else
      out_size *= a->shape[d];
    if (!red[d] || keep) dims[ndim++] = red[d] ? 1 : a->shape[d];
  }
  bool best = r == NPR_MAX || r == NPR_MIN || r == NPR_ARGMAX || r == NPR_ARGMIN;
  if (best && count == 0 && out_size > 0) return empty_error(I, r);
  NpKind k = r == NPR_MEAN                   ? NK_FLOAT
             : r == NPR_SUM || r == NPR_PROD ? bi_np_kind(t)
                                             : bi_np_kind(a->dtype);
  /* one accumulator per output element: as big as the result, which a reduction over a few
   * axes of a big array may make big too */
  Reduction R = {.r = r, .k = k, .a = a, .red = red};
  NDArray *out = NULL;
  if ((R.acc = val_alloc(I, out_size, sizeof *R.acc)) &&
      (R.pos = val_alloc(I, best ? out_size : 0, sizeof *R.pos)) &&
      (R.seen = val_alloc(I, best ? out_size : 0, 1))) {
    run(&R, out_size);
    out = finish(I, &R, t, ndim, dims, count);
  }
  free(R.acc), free(R.pos), free(R.seen);
  if (!out) return NULL;
  return ndim > 0 || keep ? bi_ndarray_wrap(out) : bi_ndarray_scalar_wrap(out);
}

Value *bi_np_reduce(Interp *I, NpReduce r, Value *av, Value *axis, Value *keepdims, Value *dtype) {
  bool owned, keep;
  if (bi_np_bool_arg(I, keepdims, false, &keep) < 0) return NULL;
  NDArray *a = bi_np_array_arg(I, av, reduce_names[r], &owned);
  if (!a) return NULL;
  Value *v = reduce_array(I, r, a, axis, keep, dtype);
  if (owned) nd_free(a);
  return v;
}

/* ---- products ---- */

/* C[m, n] = sum over k of A[m, k] * B[k, n], every matrix row-major in kind k; i-k-j order,
 * so the innermost loop runs along rows of B and C. false when Ctrl-C stopped it (a big
 * product takes seconds; the caller raises KeyboardInterrupt). */
static bool gemm(NpKind k, int64_t M, int64_t K, int64_t N, const NpScalar *restrict A,
                 const NpScalar *restrict B, NpScalar *restrict C) {
  for (int64_t i = 0; i < M * N; i++) C[i].u = 0;
  for (int64_t m = 0; m < M; m++) {
    if (tes_interrupted) return false;
    NpScalar *c = C + m * N;
    for (int64_t kk = 0; kk < K; kk++) {
      NpScalar av = A[m * K + kk];
      const NpScalar *b = B + kk * N;
      if (k == NK_FLOAT)
        for (int64_t n = 0; n < N; n++) c[n].f += av.f * b[n].f;
      else
        for (int64_t n = 0; n < N; n++) c[n].u += av.u * b[n].u;
    }
  }
  return true;
}

/* Both operands as arrays of their common dtype's kind. */
typedef struct Pair {
  NpOperand x, y;
  DType t;
  NpKind k;
} Pair;

static int pair_init(Interp *I, Pair *p, Value *a, Value *b) {
  if (bi_np_operand(I, a, &p->x) < 0) return -1;
  if (bi_np_operand(I, b, &p->y) < 0) return bi_np_operand_done(&p->x), -1;
  p->x.weak = p->y.weak = NP_STRONG; /* numpy's dot and matmul take Python numbers as arrays */
  p->t = bi_np_promote(p->x.a->dtype, p->y.a->dtype);
  p->k = bi_np_kind(p->t);
  return 0;
}

static void pair_done(Pair *p) {
  bi_np_operand_done(&p->x);
  bi_np_operand_done(&p->y);
}

static Value *not_aligned(Interp *I, const NDArray *a, const NDArray *b, int da, int db) {
  StrBuf x = STRBUF_INIT, y = STRBUF_INIT;
  bi_np_shape_str(&x, a->ndim, a->shape);
  bi_np_shape_str(&y, b->ndim, b->shape);
  interp_raise(I, EXC_ValueError, "shapes %s and %s not aligned: %lld (dim %d) != %lld (dim %d)",
               sb_cstr(&x), sb_cstr(&y), (long long)a->shape[da], da, (long long)b->shape[db], db);
  sb_free(&x), sb_free(&y);
  return NULL;
}

/* out filled from C (kind k), as a Python number when it has no dimensions; out is freed
 * and KeyboardInterrupt raised when the product was interrupted. */
static Value *product_result(Interp *I, NDArray *out, NpKind k, const NpScalar *C, bool done) {
  if (!done) {
    nd_free(out);
    bi_check_interrupt(I);
    return NULL;
  }
  bi_np_store(out, C, k);
  if (out->ndim > 0) return bi_ndarray_wrap(out);
  Value *v = bi_np_item(out, 0);
  nd_free(out);
  return v;
}

/* dot of a (..., K) and b (..., K, N) or b (K): a as P x K, b as Q slices of K x N. */
static Value *dot_arrays(Interp *I, Pair *p) {
  const NDArray *a = p->x.a, *b = p->y.a;
  int ka = a->ndim - 1, kb = b->ndim == 1 ? 0 : b->ndim - 2;
  if (a->shape[ka] != b->shape[kb]) return not_aligned(I, a, b, ka, kb);
  int64_t K = a->shape[ka], P = 1, Q = 1, N = b->ndim == 1 ? 1 : b->shape[b->ndim - 1];
  int64_t dims[2 * ND_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < ka; d++) P *= a->shape[d], dims[nd++] = a->shape[d];
  for (int d = 0; d < kb; d++) Q *= b->shape[d], dims[nd++] = b->shape[d];
  if (b->ndim > 1) dims[nd++] = N;
  if (nd > ND_MAX_DIMS)
    return interp_raise(I, EXC_ValueError, "dot: the result would have %d dimensions", nd);
  NDArray *out = bi_np_new(I, p->t, nd, dims); /* first: it refuses a result too big */
  if (!out) return NULL;
  NpScalar *A = bi_np_load(I, a, p->k), *B = A ? bi_np_load(I, b, p->k) : NULL;
  NpScalar *C = B ? val_alloc(I, out->size, sizeof *C) : NULL;
  NpScalar *T = C ? val_alloc(I, P * N, sizeof *T) : NULL;
  if (!T) {
    free(A), free(B), free(C), nd_free(out);
    return NULL;
  }
  bool done = true;
  for (int64_t q = 0; done && q < Q; q++) { /* C[p, q, n] from A[p, :] B[q, :, n] */
    done = gemm(p->k, P, K, N, A, B + q * K * N, T);
    for (int64_t i = 0; i < P; i++) memcpy(C + (i * Q + q) * N, T + i * N, (size_t)N * sizeof *C);
  }
  Value *r = product_result(I, out, p->k, C, done);
  free(A), free(B), free(C), free(T);
  return r;
}

Value *bi_np_dot(Interp *I, Value *a, Value *b) {
  Pair p;
  if (pair_init(I, &p, a, b) < 0) return NULL;
  Value *r;
  if (p.x.a->ndim == 0 || p.y.a->ndim == 0)
    r = bi_np_binary(I, NPB_MUL, a, b);
  else
    r = dot_arrays(I, &p);
  pair_done(&p);
  return r;
}

/* matmul's operands as stacks of matrices: a 1-d operand is a row (a) or a column (b) that
 * the result drops again. */
static Value *matmul_arrays(Interp *I, Pair *p) {
  const NDArray *a = p->x.a, *b = p->y.a;
  if (a->ndim == 0 || b->ndim == 0)
    return interp_raise(I, EXC_ValueError,
                        "matmul: Input operand %d does not have enough dimensions (has 0, "
                        "gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
                        a->ndim == 0 ? 0 : 1);
  int64_t M = a->ndim == 1 ? 1 : a->shape[a->ndim - 2], K = a->shape[a->ndim - 1];
  int64_t Kb = b->shape[b->ndim == 1 ? 0 : b->ndim - 2],
          N = b->ndim == 1 ? 1 : b->shape[b->ndim - 1];
  if (K != Kb)
    return interp_raise(I, EXC_ValueError,
                        "matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                        "gufunc signature (n?,k),(k,m?)->(n?,m?) (size %lld is different from "
                        "%lld)",
                        (long long)Kb, (long long)K);
  /* the batch dimensions broadcast */
  NDArray ba = {.ndim = a->ndim > 2 ? a->ndim - 2 : 0},
          bb = {.ndim = b->ndim > 2 ? b->ndim - 2 : 0};
  memcpy(ba.shape, a->shape, (size_t)ba.ndim * sizeof *ba.shape);
  memcpy(bb.shape, b->shape, (size_t)bb.ndim * sizeof *bb.shape);
  NpShape s;
  if (bi_np_broadcast(I, 2, (NDArray *[]){&ba, &bb}, &s) < 0) return NULL;
  int64_t dims[ND_MAX_DIMS + 2], batch = 1;
  int nd = s.ndim;
  memcpy(dims, s.dims, (size_t)nd * sizeof *dims);
  for (int i = 0; i < nd; i++) batch *= s.dims[i];
  if (a->ndim > 1) dims[nd++] = M;
  if (b->ndim > 1) dims[nd++] = N;
  if (nd > ND_MAX_DIMS) return interp_raise(I, EXC_ValueError, "matmul: too many dimensions");
  NDArray *out = bi_np_new(I, p->t, nd, dims);
  if (!out) return NULL;
  NpScalar *A = bi_np_load(I, a, p->k), *B = A ? bi_np_load(I, b, p->k) : NULL;
  NpScalar *C = B ? val_alloc(I, out->size, sizeof *C) : NULL;
  if (!C) {
    free(A), free(B), nd_free(out);
    return NULL;
  }
  NpIter it;
  bi_np_iter_init(&it, &s, 2);
  bi_np_bcast_strides(&ba, &s, it.strides[0]);
  bi_np_bcast_strides(&bb, &s, it.strides[1]);
  bool done = true;
  for (int64_t i = 0; done && i < batch; i++, bi_np_iter_next(&it))
    done = gemm(p->k, M, K, N, A + it.off[0] * M * K, B + it.off[1] * K * N, C + i * M * N);
  Value *r = product_result(I, out, p->k, C, done);
  free(A), free(B), free(C);
  return r;
}

Value *bi_np_matmul(Interp *I, Value *a, Value *b) {
  Pair p;
  if (pair_init(I, &p, a, b) < 0) return NULL;
  Value *r = matmul_arrays(I, &p);
  pair_done(&p);
  return r;
}
