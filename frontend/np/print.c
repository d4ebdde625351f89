/* print.c: arrays printed as numpy 2 prints them (numpy/_core/arrayprint.py with its
 * default options: precision 8, floatmode 'maxprec', threshold 1000, edgeitems 3, linewidth
 * 75). Floats print with the fewest digits that read back as the same value of their own
 * dtype (so a float32 0.1 prints as 0.1), at most 8 after the point; an array switches to
 * scientific notation when its largest magnitude is >= 1e8 (1e6 for float32, 1e3 for
 * float16), its smallest nonzero one is < 1e-4, or their ratio is above 1000. Elements line up in
 * columns, rows wrap at the line width, and an array of more than 1000 elements shows 3 items at
 * each end of every axis around "...". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

enum { THRESHOLD = 1000, EDGE = 3, LINEWIDTH = 75, PRECISION = 8 };

/* ---- float digits ---- */

/* Whether the decimal text s reads back as x in float type t. */
static bool round_trips(const char *s, double x, DType t) {
  if (t.bits == 32) return strtof(s, NULL) == (float)x;
  if (t.bits == 16) return nd_double_to_half(strtod(s, NULL)) == nd_double_to_half(x);
  return strtod(s, NULL) == x;
}

/* The shortest decimal digits of |x| that read back as x in t (x finite): digits without a
 * point and the exponent of the first one, |x| = d.ddd * 10^e. Zero is "0", e 0. */
static void shortest(double x, DType t, char *digits, int *e) {
  char buf[40];
  x = fabs(x);
  if (x == 0.0) {
    strcpy(digits, "0");
    *e = 0;
    return;
  }
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    if (p == 17 || round_trips(buf, x, t)) break;
  }
  char *ep = strchr(buf, 'e'), *d = digits;
  for (char *c = buf; c < ep; c++)
    if (*c != '.') *d++ = *c;
  while (d > digits + 1 && d[-1] == '0') d--;
  *d = 0;
  *e = atoi(ep + 1);
}

/* x positionally with at most `precision` digits after the point, trailing zeros trimmed (the
 * point stays: "1."): the part before the point, sign included, and the part after. */
static void positional(double x, DType t, int precision, char *ip, char *fp) {
  char digits[40];
  int e;
  shortest(x, t, digits, &e);
  int nd = (int)strlen(digits), nfrac = nd - 1 - e;
  const char *sign = signbit(x) ? "-" : "";
  if (nfrac > precision) { /* more digits than shown: round the exact value */
    char buf[400];
    snprintf(buf, sizeof buf, "%s%.*f", sign, precision, fabs(x));
    char *dot = strchr(buf, '.');
    *dot = 0;
    strcpy(ip, buf);
    strcpy(fp, dot + 1);
    for (size_t n = strlen(fp); n > 0 && fp[n - 1] == '0'; n--) fp[n - 1] = 0;
    return;
  }
  if (e < 0) {
    sprintf(ip, "%s0", sign);
    int z = -e - 1;
    memset(fp, '0', (size_t)z);
    strcpy(fp + z, digits);
    return;
  }
  int n = sprintf(ip, "%s", sign);
  for (int i = 0; i <= e; i++) ip[n++] = i < nd ? digits[i] : '0';
  ip[n] = 0;
  strcpy(fp, nd > e + 1 ? digits + e + 1 : "");
}

/* x as d.ddd: the mantissa's digits after the point (at most `precision`, trailing zeros
 * trimmed) and the exponent. */
static void scientific(double x, DType t, int precision, char *lead, char *frac, int *e) {
  char digits[40];
  shortest(x, t, digits, e);
  if ((int)strlen(digits) - 1 > precision) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*e", precision, fabs(x));
    char *ep = strchr(buf, 'e'), *d = digits;
    for (char *c = buf; c < ep; c++)
      if (*c != '.') *d++ = *c;
    while (d > digits + 1 && d[-1] == '0') d--;
    *d = 0;
    *e = atoi(ep + 1);
  }
  sprintf(lead, "%s%c", signbit(x) ? "-" : "", digits[0]);
  strcpy(frac, digits + 1);
}

static int exp_digits(int e) {
  int n = 0;
  for (int a = e < 0 ? -e : e; a; a /= 10) n++;
  return n < 2 ? 2 : n;
}

/* ---- the formats ---- */

typedef struct Format {
  DType t;
  int max_digits; /* floats: numpy's precision option, digits after the point */
  bool exp;       /* floats: scientific */
  int pad_left, pad_right;
  int precision, exp_size; /* scientific: digits after the point, of the exponent */
  int width;               /* integers: the widest value */
  bool bool_pad;           /* bool: " True" beside "False" */
} Format;

typedef struct Shown { /* which elements print: all, or the edges of a summary */
  const NDArray *a;
  bool summarize;
  int64_t strides[ND_MAX_DIMS];
} Shown;

static bool is_shown(const Shown *s, int64_t flat) {
  if (!s->summarize) return true;
  for (int d = 0; d < s->a->ndim; d++) {
    int64_t i = flat / s->strides[d] % s->a->shape[d];
    if (s->a->shape[d] > 2 * EDGE && i >= EDGE && i < s->a->shape[d] - EDGE) return false;
  }
  return true;
}

static int imax(int a, int b) { return a > b ? a : b; }

/* numpy's FloatingFormat.fillFormat over the shown values. */
static void float_format(Format *f, const Shown *s) {
  const NDArray *a = s->a;
  double maxv = 0, minv = INFINITY;
  bool finite = false, nonfinite = false, neginf = false;
  for (int64_t i = 0; i < a->size; i++) {
    if (!is_shown(s, i)) continue;
    double x = bi_np_get_f(a, i);
    if (!isfinite(x)) {
      nonfinite = true;
      neginf |= x < 0;
      continue;
    }
    finite = true;
    if (x != 0) maxv = fmax(maxv, fabs(x)), minv = fmin(minv, fabs(x));
  }
  /* numpy 2.3's cutoff: 1e8, or 10 ** the decimal precision of a narrower float */
  double cutoff = f->t.bits == 16 ? 1e3 : f->t.bits == 32 ? 1e6 : 1e8;
  /* compared in the array's dtype, as numpy compares its float32 max with a Python float */
  f->exp = maxv > 0 && (maxv >= cutoff || minv < bi_np_round_to(f->t, 0.0001) ||
                        bi_np_round_to(f->t, maxv / minv) > 1000.);
  char ip[400], fp[400];
  int e, max_exp = 0;
  f->pad_left = f->pad_right = 0;
  f->precision = 0;
  for (int64_t i = 0; finite && i < a->size; i++) {
    double x;
    if (!is_shown(s, i) || !isfinite(x = bi_np_get_f(a, i))) continue;
    if (f->exp) {
      scientific(x, a->dtype, f->max_digits, ip, fp, &e);
      max_exp = imax(max_exp, exp_digits(e));
      f->precision = imax(f->precision, (int)strlen(fp));
    } else {
      positional(x, a->dtype, f->max_digits, ip, fp);
      f->pad_right = imax(f->pad_right, (int)strlen(fp));
    }
    f->pad_left = imax(f->pad_left, (int)strlen(ip));
  }
  if (f->exp) {
    f->exp_size = max_exp;
    f->pad_right = f->exp_size + 2 + f->precision;
  }
  if (nonfinite) {
    int offset = f->pad_right + 1;
    f->pad_left = imax(f->pad_left, imax(3 - offset, 3 + neginf - offset));
  }
}

static void int_format(Format *f, const Shown *s) {
  char buf[32];
  f->width = 0;
  for (int64_t i = 0; i < s->a->size; i++) {
    if (!is_shown(s, i)) continue;
    Value *v = bi_np_item(s->a, i);
    int n = v->kind == VAL_FLOAT ? snprintf(buf, sizeof buf, "%.0f", v->u.f)
                                 : snprintf(buf, sizeof buf, "%lld", (long long)v->u.i);
    val_decref(v);
    f->width = imax(f->width, n);
  }
}

static void make_format(Format *f, const Shown *s, int precision) {
  memset(f, 0, sizeof *f);
  f->t = s->a->dtype;
  f->max_digits = precision;
  if (f->t.code == DT_FLOAT)
    float_format(f, s);
  else if (f->t.code == DT_BOOL)
    f->bool_pad = s->a->ndim > 0;
  else
    int_format(f, s);
}

static void pad(StrBuf *b, int n) {
  for (int i = 0; i < n; i++) sb_putc(b, ' ');
}

static void format_float(StrBuf *b, const Format *f, double x) {
  char ip[400], fp[400];
  if (!isfinite(x)) {
    const char *s = isnan(x) ? "nan" : x < 0 ? "-inf" : "inf";
    pad(b, f->pad_left + f->pad_right + 1 - (int)strlen(s));
    sb_puts(b, s);
    return;
  }
  if (f->exp) {
    int e;
    scientific(x, f->t, f->precision, ip, fp, &e);
    if ((int)strlen(fp) < f->precision) {
      /* numpy's min_digits: every value shows `precision` digits, and those past the shortest
       * ones are the value's own next digits (3.7835059e-44 beside 1.0966332e+03), not zeros */
      char buf[64];
      snprintf(buf, sizeof buf, "%.*e", f->precision, fabs(x));
      char *ep = strchr(buf, 'e');
      *ep = 0;
      snprintf(fp, sizeof fp, "%s", buf + 2);
      e = atoi(ep + 1);
    }
    pad(b, f->pad_left - (int)strlen(ip));
    sb_printf(b, "%s.%s", ip, fp);
    sb_printf(b, "e%c%0*d", e < 0 ? '-' : '+', f->exp_size, e < 0 ? -e : e);
    return;
  }
  positional(x, f->t, f->max_digits, ip, fp);
  pad(b, f->pad_left - (int)strlen(ip));
  sb_printf(b, "%s.%s", ip, fp);
  pad(b, f->pad_right - (int)strlen(fp));
}

static void format_elem(StrBuf *b, const Format *f, const NDArray *a, int64_t i) {
  if (f->t.code == DT_FLOAT) {
    format_float(b, f, bi_np_get_f(a, i));
    return;
  }
  Value *v = bi_np_item(a, i);
  if (v->kind == VAL_BOOL)
    sb_puts(b, v->u.i ? (f->bool_pad ? " True" : "True") : "False");
  else if (v->kind == VAL_FLOAT) /* uint64 above INT64_MAX */
    sb_printf(b, "%*.0f", f->width, v->u.f);
  else
    sb_printf(b, "%*lld", f->width, (long long)v->u.i);
  val_decref(v);
}

void bi_np_format_value(StrBuf *b, DType t, NpScalar v) {
  NDArray *a = nd_new(t, 0, NULL);
  TES_ASSERT(a, "out of memory");
  bi_np_set(a, 0, v, bi_np_kind(t));
  Shown s = {.a = a};
  Format f;
  make_format(&f, &s, PRECISION);
  format_elem(b, &f, a, 0);
  nd_free(a);
}

/* ---- layout: numpy's _formatArray ---- */

typedef struct Printer {
  Shown shown;
  Format f;
  const char *sep;
  int64_t strides[ND_MAX_DIMS];
} Printer;

/* numpy's _extendLine: word goes on the line, or on a new one when it would pass width
 * (but never onto a fresh line that holds only the indent). */
static void extend_line(StrBuf *s, StrBuf *line, const char *word, int width, int hang) {
  if ((int)(line->len + strlen(word)) > width && (int)line->len > hang) {
    size_t n = line->len;
    while (n > 0 && sb_cstr(line)[n - 1] == ' ') n--;
    sb_putn(s, sb_cstr(line), n);
    sb_putc(s, '\n');
    line->len = 0;
    pad(line, hang);
  }
  sb_puts(line, word);
}

static void recurse(const Printer *p, int axis, int64_t base, int hang, int width, StrBuf *out);

static void item_at(const Printer *p, int axis, int64_t base, int hang, int width, StrBuf *w) {
  w->len = 0;
  recurse(p, axis, base, hang, width, w);
  sb_cstr(w);
}

static void last_axis(const Printer *p, int axis, int64_t base, int hang, int width, StrBuf *s) {
  const NDArray *a = p->shown.a;
  int64_t n = a->shape[axis], st = p->strides[axis];
  bool summary = p->shown.summarize && n > 2 * EDGE;
  int64_t lead = summary ? EDGE : 0, trail = summary ? EDGE : n;
  size_t seplen = strlen(p->sep);
  while (seplen > 0 && p->sep[seplen - 1] == ' ') seplen--;
  int elem_width = width - imax((int)seplen, 1);
  StrBuf line = STRBUF_INIT, w = STRBUF_INIT;
  pad(&line, hang);
  for (int64_t i = 0; i < lead; i++) {
    item_at(p, axis + 1, base + i * st, hang + 1, width - 1, &w);
    extend_line(s, &line, w.s, elem_width, hang);
    sb_puts(&line, p->sep);
  }
  if (summary) {
    extend_line(s, &line, "...", elem_width, hang);
    sb_puts(&line, p->sep);
  }
  for (int64_t i = trail; i > 1; i--) {
    item_at(p, axis + 1, base + (n - i) * st, hang + 1, width - 1, &w);
    extend_line(s, &line, w.s, elem_width, hang);
    sb_puts(&line, p->sep);
  }
  item_at(p, axis + 1, base + (n - 1) * st, hang + 1, width - 1, &w);
  extend_line(s, &line, w.s, elem_width, hang);
  sb_putn(s, sb_cstr(&line), line.len);
  sb_free(&line);
  sb_free(&w);
}

static void outer_axis(const Printer *p, int axis, int64_t base, int hang, int width, StrBuf *s) {
  const NDArray *a = p->shown.a;
  int64_t n = a->shape[axis], st = p->strides[axis];
  bool summary = p->shown.summarize && n > 2 * EDGE;
  int64_t lead = summary ? EDGE : 0, trail = summary ? EDGE : n;
  StrBuf line_sep = STRBUF_INIT, w = STRBUF_INIT;
  size_t seplen = strlen(p->sep);
  while (seplen > 0 && p->sep[seplen - 1] == ' ') seplen--;
  sb_putn(&line_sep, p->sep, seplen);
  for (int i = 0; i < a->ndim - axis - 1; i++) sb_putc(&line_sep, '\n');
  for (int64_t i = 0; i < lead; i++) {
    item_at(p, axis + 1, base + i * st, hang + 1, width - 1, &w);
    pad(s, hang);
    sb_printf(s, "%s%s", w.s, sb_cstr(&line_sep));
  }
  if (summary) {
    pad(s, hang);
    sb_printf(s, "...%s", sb_cstr(&line_sep));
  }
  for (int64_t i = trail; i > 1; i--) {
    item_at(p, axis + 1, base + (n - i) * st, hang + 1, width - 1, &w);
    pad(s, hang);
    sb_printf(s, "%s%s", w.s, sb_cstr(&line_sep));
  }
  item_at(p, axis + 1, base + (n - 1) * st, hang + 1, width - 1, &w);
  pad(s, hang);
  sb_puts(s, w.s);
  sb_free(&line_sep);
  sb_free(&w);
}

/* One axis: its items within [], the first line's indent dropped. */
static void recurse(const Printer *p, int axis, int64_t base, int hang, int width, StrBuf *out) {
  const NDArray *a = p->shown.a;
  if (axis == a->ndim) {
    format_elem(out, &p->f, a, base);
    return;
  }
  StrBuf s = STRBUF_INIT;
  if (axis == a->ndim - 1)
    last_axis(p, axis, base, hang, width, &s);
  else
    outer_axis(p, axis, base, hang, width, &s);
  sb_putc(out, '[');
  if (s.len > (size_t)hang) sb_putn(out, s.s + hang, s.len - (size_t)hang);
  sb_putc(out, ']');
  sb_free(&s);
}

/* numpy's array2string: prefix is what stands before the text on its first line. */
static void array2string(StrBuf *b, const NDArray *a, const char *sep, int prefix, int width,
                         int precision) {
  if (a->size == 0) {
    sb_puts(b, "[]");
    return;
  }
  Printer p = {.shown = {.a = a, .summarize = a->size > THRESHOLD}, .sep = sep};
  bi_np_strides(a->ndim, a->shape, p.strides);
  memcpy(p.shown.strides, p.strides, sizeof p.strides);
  make_format(&p.f, &p.shown, precision);
  recurse(&p, 0, 0, 1 + prefix, width, b);
}

/* float64, int64 and bool are what numpy assumes when an array prints without a dtype. */
static bool dtype_implied(DType t) {
  return dt_eq(t, NP_FLOAT) || dt_eq(t, NP_INT) || t.code == DT_BOOL;
}

Value *bi_np_repr_precision(Interp *I, const NDArray *a, int precision) {
  StrBuf b = STRBUF_INIT, extra = STRBUF_INIT;
  sb_puts(&b, "array(");
  array2string(&b, a, ", ", 6, LINEWIDTH - 1, precision);
  if ((a->size == 0 && !(a->ndim == 1 && a->shape[0] == 0)) || a->size > THRESHOLD) {
    sb_puts(&extra, "shape=");
    bi_np_shape_str(&extra, a->ndim, a->shape);
  }
  if (!dtype_implied(a->dtype) || a->size == 0)
    sb_printf(&extra, "%sdtype=%s", extra.len ? ", " : "", bi_np_dtype_name(a->dtype));
  if (extra.len) {
    sb_putc(&b, ',');
    const char *nl = strrchr(sb_cstr(&b), '\n');
    size_t last = nl ? b.len - (size_t)(nl + 1 - b.s) : b.len;
    sb_puts(&b, last + extra.len + 2 > LINEWIDTH ? "\n      " : " ");
    sb_putn(&b, extra.s, extra.len);
  }
  sb_putc(&b, ')');
  sb_free(&extra);
  Value *r = val_str(sb_cstr(&b), b.len);
  sb_free(&b);
  return r;
}

Value *bi_np_repr(Interp *I, const NDArray *a) { return bi_np_repr_precision(I, a, PRECISION); }

/* A 0-d array prints as its scalar does: Python's float repr, with the shortest digits of
 * the array's own float type. */
static void scalar_str(StrBuf *b, const NDArray *a) {
  if (a->dtype.code != DT_FLOAT) {
    Value *v = bi_np_item(a, 0);
    if (v->kind == VAL_BOOL)
      sb_puts(b, v->u.i ? "True" : "False");
    else if (v->kind == VAL_INT)
      sb_printf(b, "%lld", (long long)v->u.i);
    else
      sb_printf(b, "%.0f", v->u.f);
    val_decref(v);
    return;
  }
  double x = bi_np_get_f(a, 0);
  if (!isfinite(x)) {
    sb_puts(b, isnan(x) ? "nan" : x < 0 ? "-inf" : "inf");
    return;
  }
  char digits[40];
  int e;
  shortest(x, a->dtype, digits, &e);
  /* Python's repr for float64; numpy narrows the positional range by the type's precision */
  double cutoff = a->dtype.bits == 16 ? 1e3 : a->dtype.bits == 32 ? 1e6 : 1e16;
  if (x != 0 && (fabs(x) < 1e-4 || fabs(x) >= cutoff)) {
    sb_printf(b, "%s%c", signbit(x) ? "-" : "", digits[0]);
    if (digits[1]) sb_printf(b, ".%s", digits + 1);
    sb_printf(b, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    return;
  }
  char ip[400], fp[400];
  positional(x, a->dtype, 40, ip, fp);
  sb_printf(b, "%s.%s", ip, fp[0] ? fp : "0");
}

Value *bi_np_scalar_repr(Interp *I, const NDArray *a) {
  StrBuf b = STRBUF_INIT;
  if (a->dtype.code == DT_BOOL) {
    sb_puts(&b, bi_np_get(a, 0, NK_INT).i ? "np.True_" : "np.False_");
  } else {
    sb_printf(&b, "np.%s(", bi_np_dtype_name(a->dtype));
    scalar_str(&b, a);
    sb_putc(&b, ')');
  }
  Value *r = val_str(sb_cstr(&b), b.len);
  sb_free(&b);
  return r;
}

Value *bi_np_str(Interp *I, const NDArray *a) {
  StrBuf b = STRBUF_INIT;
  if (a->ndim == 0)
    scalar_str(&b, a);
  else
    array2string(&b, a, " ", 0, LINEWIDTH, PRECISION);
  Value *r = val_str(sb_cstr(&b), b.len);
  sb_free(&b);
  return r;
}
