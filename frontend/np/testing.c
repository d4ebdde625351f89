/* testing.c: comparing arrays: np.allclose, np.isclose, np.array_equal and
 * numpy.testing's assert_allclose / assert_array_equal (tvm.testing.assert_allclose is the
 * same check). A failed assertion is an AssertionError worded as numpy 2 words it: the
 * mismatch count, the first mismatching indices with both values, the largest absolute and
 * relative differences among the mismatches, and both arrays. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

/* Two arrays broadcast to one shape, as doubles. */
typedef struct Cmp {
  NDArray *x, *y; /* the arguments as arrays (owned when ox/oy) */
  bool ox, oy;
  NpShape s;
  double *xv, *yv; /* broadcast values, s's size of them */
  int64_t n;
} Cmp;

static void cmp_done(Cmp *c) {
  if (c->ox) nd_free(c->x);
  if (c->oy) nd_free(c->y);
  free(c->xv);
  free(c->yv);
}

/* Every element of a as a double, in order. */
static void to_doubles(const NDArray *a, double *out) {
  if (dt_eq(a->dtype, DT_F32)) {
    const float *p = a->data;
    for (int64_t i = 0; i < a->size; i++) out[i] = p[i];
  } else if (dt_eq(a->dtype, DT_F64)) {
    memcpy(out, a->data, (size_t)a->size * sizeof *out);
  } else {
    for (int64_t i = 0; i < a->size; i++) out[i] = bi_np_get_f(a, i);
  }
}

/* -1 with an error raised; 1 when the shapes do not broadcast and `strict_shapes` asked for
 * equal shapes (or 0-d) instead of raising. */
static int cmp_init(Interp *I, Cmp *c, Value *a, Value *b, const char *fn, bool strict_shapes) {
  memset(c, 0, sizeof *c);
  if (!(c->x = bi_np_array_arg(I, a, fn, &c->ox))) return -1;
  if (!(c->y = bi_np_array_arg(I, b, fn, &c->oy))) return -1;
  if (strict_shapes && c->x->ndim && c->y->ndim) {
    bool same = c->x->ndim == c->y->ndim;
    for (int i = 0; same && i < c->x->ndim; i++) same = c->x->shape[i] == c->y->shape[i];
    if (!same) return 1;
  }
  if (bi_np_broadcast(I, 2, (NDArray *[]){c->x, c->y}, &c->s) < 0) return -1;
  c->n = 1;
  for (int i = 0; i < c->s.ndim; i++) c->n *= c->s.dims[i];
  if (!(c->xv = val_alloc(I, c->n, sizeof *c->xv)) || !(c->yv = val_alloc(I, c->n, sizeof *c->yv)))
    return -1;
  if (c->x->size == c->n && c->y->size == c->n) { /* the usual case: one shape, no iterator */
    to_doubles(c->x, c->xv);
    to_doubles(c->y, c->yv);
    return 0;
  }
  NpIter it;
  bi_np_iter_init(&it, &c->s, 2);
  bi_np_bcast_strides(c->x, &c->s, it.strides[0]);
  bi_np_bcast_strides(c->y, &c->s, it.strides[1]);
  for (int64_t i = 0; i < c->n; i++, bi_np_iter_next(&it)) {
    c->xv[i] = bi_np_get_f(c->x, it.off[0]);
    c->yv[i] = bi_np_get_f(c->y, it.off[1]);
  }
  return 0;
}

/* numpy's isclose for one pair. */
static bool is_close(double x, double y, double rtol, double atol, bool equal_nan) {
  if (isnan(x) || isnan(y)) return equal_nan && isnan(x) && isnan(y);
  if (isinf(x) || isinf(y)) return x == y;
  return fabs(x - y) <= atol + rtol * fabs(y);
}

/* rtol, atol and equal_nan with their defaults. */
static int tolerances(Interp *I, Value **a, double rtol, double atol, bool nan, double *r,
                      double *t, bool *e) {
  *r = rtol, *t = atol;
  if ((a[0] && bi_arg_real(I, a[0], r) < 0) || (a[1] && bi_arg_real(I, a[1], t) < 0)) return -1;
  return bi_np_bool_arg(I, a[2], nan, e);
}

Value *bi_np_fn_isclose(Interp *I, Value *self, Value **a) {
  double rtol, atol;
  bool en;
  Cmp c;
  if (tolerances(I, a + 2, 1e-5, 1e-8, false, &rtol, &atol, &en) < 0) return NULL;
  NDArray *r = NULL;
  if (cmp_init(I, &c, a[0], a[1], "isclose", false) == 0 &&
      (r = bi_np_new(I, NP_BOOL, c.s.ndim, c.s.dims)))
    for (int64_t i = 0; i < c.n; i++)
      ((uint8_t *)r->data)[i] = is_close(c.xv[i], c.yv[i], rtol, atol, en);
  cmp_done(&c);
  return bi_np_wrap(r);
}

Value *bi_np_fn_allclose(Interp *I, Value *self, Value **a) {
  double rtol, atol;
  bool en, all = true;
  Cmp c;
  if (tolerances(I, a + 2, 1e-5, 1e-8, false, &rtol, &atol, &en) < 0) return NULL;
  if (cmp_init(I, &c, a[0], a[1], "allclose", false) < 0) return cmp_done(&c), NULL;
  for (int64_t i = 0; all && i < c.n; i++) all = is_close(c.xv[i], c.yv[i], rtol, atol, en);
  cmp_done(&c);
  return val_bool(all);
}

/* Exact comparison in each array's own kind, so that int64s are not rounded. */
static bool elements_equal(const NDArray *x, const NDArray *y) {
  NpKind k = bi_np_kind(bi_np_promote(x->dtype, y->dtype));
  for (int64_t i = 0; i < x->size; i++) {
    NpScalar a = bi_np_get(x, i, k), b = bi_np_get(y, i, k);
    if (k == NK_FLOAT ? a.f != b.f : a.u != b.u) return false;
  }
  return true;
}

Value *bi_np_fn_array_equal(Interp *I, Value *self, Value **a) {
  bool ox, oy, eq = false;
  NDArray *x = bi_np_array_arg(I, a[0], "array_equal", &ox);
  NDArray *y = x ? bi_np_array_arg(I, a[1], "array_equal", &oy) : NULL;
  if (!y) {
    if (x && ox) nd_free(x);
    return NULL;
  }
  if (x->ndim == y->ndim) {
    eq = true;
    for (int i = 0; eq && i < x->ndim; i++) eq = x->shape[i] == y->shape[i];
    eq = eq && elements_equal(x, y);
  }
  if (ox) nd_free(x);
  if (oy) nd_free(y);
  return val_bool(eq);
}

/* ---- assert_allclose ---- */

/* numpy.testing prints the arrays with 6 digits after the point. */
static void put_repr(Interp *I, StrBuf *b, const char *name, const NDArray *a) {
  Value *r = bi_np_repr_precision(I, a, 6);
  sb_printf(b, "\n %s: %s", name, r->u.str.s);
  val_decref(r);
}

/* The AssertionError: header, the remarks, then both arrays. */
static Value *fail(Interp *I, const Cmp *c, const char *header, const char *err_msg,
                   const char *remarks) {
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "\n%s\n%s\n%s", header, err_msg, remarks);
  put_repr(I, &b, "ACTUAL", c->x);
  put_repr(I, &b, "DESIRED", c->y);
  interp_raise(I, EXC_AssertionError, "%s", sb_cstr(&b));
  sb_free(&b);
  return NULL;
}

/* Where a value class (nan, +inf, -inf) sits must agree; such places are then skipped. */
static bool same_positions(const Cmp *c, bool *flagged, int cls) {
  for (int64_t i = 0; i < c->n; i++) {
    double x = c->xv[i], y = c->yv[i];
    bool fx = cls == 0 ? isnan(x) : cls == 1 ? x == INFINITY : x == -INFINITY;
    bool fy = cls == 0 ? isnan(y) : cls == 1 ? y == INFINITY : y == -INFINITY;
    if (fx != fy) return false;
    flagged[i] |= fx;
  }
  return true;
}

static void index_str(StrBuf *b, const NpShape *s, int64_t flat) {
  int64_t st[ND_MAX_DIMS];
  bi_np_strides(s->ndim, s->dims, st);
  sb_putc(b, '[');
  for (int d = 0; d < s->ndim; d++)
    sb_printf(b, "%s%lld", d ? ", " : "", (long long)(flat / st[d] % s->dims[d]));
  sb_putc(b, ']');
}

/* A value at a broadcast position as Python prints the element (item()'s repr). */
static void element_str(Interp *I, StrBuf *b, const NDArray *a, const NpShape *s, int64_t flat) {
  NpIter it;
  bi_np_iter_init(&it, s, 1);
  bi_np_bcast_strides(a, s, it.strides[0]);
  int64_t st[ND_MAX_DIMS], off = 0;
  bi_np_strides(s->ndim, s->dims, st);
  for (int d = 0; d < s->ndim; d++) off += flat / st[d] % s->dims[d] * it.strides[0][d];
  Value *v = bi_np_item(a, off), *r = val_repr(I, v);
  sb_puts(b, r->u.str.s);
  val_decref(r);
  val_decref(v);
}

static void remarks(Interp *I, StrBuf *b, const Cmp *c, const bool *bad, int64_t nbad) {
  char pct[32];
  snprintf(pct, sizeof pct, "%.3g", 100.0 * (double)nbad / (double)c->n);
  sb_printf(b, "Mismatched elements: %lld / %lld (%s%%)", (long long)nbad, (long long)c->n, pct);
  if (c->s.ndim > 0) {
    sb_printf(b, "\n%s:",
              nbad == 1   ? "Mismatch at index"
              : nbad <= 5 ? "Mismatch at indices"
                          : "First 5 mismatches are at indices");
    for (int64_t i = 0, shown = 0; i < c->n && shown < 5; i++) {
      if (!bad[i]) continue;
      shown++;
      sb_puts(b, "\n ");
      index_str(b, &c->s, i);
      sb_puts(b, ": ");
      element_str(I, b, c->x, &c->s, i);
      sb_puts(b, " (ACTUAL), ");
      element_str(I, b, c->y, &c->s, i);
      sb_puts(b, " (DESIRED)");
    }
  }
  /* the differences in the operands' common dtype, printed as numpy prints a 0-d array */
  DType e = bi_np_promote(c->x->dtype, c->y->dtype), rt = e.code == DT_FLOAT ? e : NP_FLOAT;
  double max_abs = 0, max_rel = -1;
  for (int64_t i = 0; i < c->n; i++) {
    if (!bad[i]) continue;
    double d = bi_np_round_to(e, fabs(c->xv[i] - c->yv[i]));
    if (d > max_abs || isnan(d)) max_abs = d;
    if (c->yv[i] != 0) {
      double r = bi_np_round_to(rt, d / fabs(c->yv[i]));
      if (r > max_rel || isnan(r)) max_rel = r;
    }
  }
  NpScalar v;
  if (e.code == DT_FLOAT)
    v.f = max_abs;
  else if (e.code == DT_UINT)
    v.u = (uint64_t)max_abs;
  else
    v.i = (int64_t)max_abs;
  sb_puts(b, "\nMax absolute difference among violations: ");
  bi_np_format_value(b, e.code == DT_BOOL ? NP_INT : e, v);
  sb_puts(b, "\nMax relative difference among violations: ");
  bi_np_format_value(b, rt, (NpScalar){.f = max_rel < 0 ? INFINITY : max_rel});
}

Value *bi_np_assert_allclose(Interp *I, Value *actual, Value *desired, Value *rtol_v, Value *atol_v,
                             Value *equal_nan, Value *err_msg) {
  double rtol = 1e-7, atol = 0;
  bool en;
  Value *tol[3] = {rtol_v, atol_v, equal_nan};
  if (tolerances(I, tol, 1e-7, 0, true, &rtol, &atol, &en) < 0) return NULL;
  if (err_msg && err_msg->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "assert_allclose: err_msg must be a str");
  const char *msg = err_msg ? err_msg->u.str.s : "";
  char header[128];
  snprintf(header, sizeof header, "Not equal to tolerance rtol=%g, atol=%g", rtol, atol);
  Cmp c;
  int rc = cmp_init(I, &c, actual, desired, "assert_allclose", true);
  Value *r = NULL;
  if (rc < 0) goto done;
  if (rc == 1) {
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "(shapes ");
    bi_np_shape_str(&b, c.x->ndim, c.x->shape);
    sb_puts(&b, ", ");
    bi_np_shape_str(&b, c.y->ndim, c.y->shape);
    sb_puts(&b, " mismatch)");
    fail(I, &c, header, msg, sb_cstr(&b));
    sb_free(&b);
    goto done;
  }
  bool *flagged = val_alloc(I, c.n, 1), *bad = flagged ? val_alloc(I, c.n, 1) : NULL;
  if (!bad) {
    free(flagged);
    goto done;
  }
  static const char *const classes[] = {"nan", "inf", "-inf"};
  for (int cls = en ? 0 : 1; cls < 3; cls++)
    if (!same_positions(&c, flagged, cls)) {
      char what[32];
      snprintf(what, sizeof what, "%s location mismatch:", classes[cls]);
      fail(I, &c, header, msg, what);
      goto free_flags;
    }
  int64_t nbad = 0;
  for (int64_t i = 0; i < c.n; i++)
    nbad += bad[i] = !flagged[i] && !is_close(c.xv[i], c.yv[i], rtol, atol, en);
  if (nbad) {
    StrBuf b = STRBUF_INIT;
    remarks(I, &b, &c, bad, nbad);
    fail(I, &c, header, msg, sb_cstr(&b));
    sb_free(&b);
  } else {
    r = val_none();
  }
free_flags:
  free(flagged);
  free(bad);
done:
  cmp_done(&c);
  return r;
}

static Value *fn_assert_allclose(Interp *I, Value *self, Value **a) {
  return bi_np_assert_allclose(I, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* assert_array_equal: exact, so rtol 0 and atol 0, under numpy's own header. */
static Value *fn_assert_array_equal(Interp *I, Value *self, Value **a) {
  Value *zero = val_float(0.0);
  Value *r = bi_np_assert_allclose(I, a[0], a[1], zero, zero, NULL, a[2]);
  val_decref(zero);
  return r;
}

static const Builtin testing_funcs[] = {
    {"assert_allclose", fn_assert_allclose, 2,
     PARAMS("actual", "desired", "rtol", "atol", "equal_nan", "err_msg"),
     "assert_allclose(actual, desired, rtol=1e-07, atol=0): AssertionError unless "
     "|actual - desired| <= atol + rtol * |desired| everywhere"},
    {"assert_array_equal", fn_assert_array_equal, 2, PARAMS("x", "y", "err_msg"),
     "assert_array_equal(x, y): AssertionError unless every element is equal"},
    {"assert_equal", fn_assert_array_equal, 2, PARAMS("actual", "desired", "err_msg"),
     "assert_equal(actual, desired): assert_array_equal for arrays and numbers"},
    {0},
};

Value *bi_np_testing_module(Interp *I) {
  Value *m = val_module_new("numpy.testing");
  for (const Builtin *f = testing_funcs; f->name; f++)
    bi_set_member_take(m, f->name, val_builtin(f, NULL));
  return m;
}
