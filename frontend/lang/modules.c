/* modules.c: the import machinery (mod_register, mod_import) and the modules that mirror
 * Python's standard library: math, time, timeit, os, os.path and __future__. sys is in
 * mod_sys.c; the rooms above register theirs (tvm/packages.c, np/np.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/lang/stdlib.h"
#include "ir/strbuf.h"

/* ---- math ---- */

static Value *domain_error(Interp *I) {
  return interp_raise(I, EXC_ValueError, "math domain error");
}

static Value *range_error(Interp *I) {
  return interp_raise(I, EXC_OverflowError, "math range error");
}

/* CPython's math_1: a NaN out of a non-NaN is a domain error; an infinity out of a finite
 * argument is a range error where the function can overflow (exp), else a domain error
 * (atanh(1)). */
static Value *math_1(Interp *I, Value *arg, double (*f)(double), bool can_overflow) {
  double x, r;
  if (bi_arg_real(I, arg, &x) < 0) return NULL;
  r = f(x);
  if (isnan(r) && !isnan(x)) return domain_error(I);
  if (isinf(r) && isfinite(x)) return can_overflow ? range_error(I) : domain_error(I);
  return val_float(r);
}

static double degrees(double x) { return x * (180.0 / M_PI); }
static double radians(double x) { return x * (M_PI / 180.0); }

/* name, C function, can overflow, doc: the functions of one float */
#define MATH_1_FUNCS(X)                                                                 \
  X(sqrt, sqrt, false, "sqrt(x) -> float: the square root of x")                       \
  X(exp, exp, true, "exp(x) -> float: e to the power x")                               \
  X(expm1, expm1, true, "expm1(x) -> float: exp(x) - 1, exact for small x")            \
  X(log1p, log1p, false, "log1p(x) -> float: log(1 + x), exact for small x")           \
  X(sin, sin, false, "sin(x) -> float: the sine of x radians")                         \
  X(cos, cos, false, "cos(x) -> float: the cosine of x radians")                       \
  X(tan, tan, false, "tan(x) -> float: the tangent of x radians")                      \
  X(asin, asin, false, "asin(x) -> float: the arc sine of x, in radians")              \
  X(acos, acos, false, "acos(x) -> float: the arc cosine of x, in radians")            \
  X(atan, atan, false, "atan(x) -> float: the arc tangent of x, in radians")           \
  X(sinh, sinh, true, "sinh(x) -> float: the hyperbolic sine of x")                    \
  X(cosh, cosh, true, "cosh(x) -> float: the hyperbolic cosine of x")                  \
  X(tanh, tanh, false, "tanh(x) -> float: the hyperbolic tangent of x")                \
  X(asinh, asinh, false, "asinh(x) -> float: the inverse hyperbolic sine of x")        \
  X(acosh, acosh, false, "acosh(x) -> float: the inverse hyperbolic cosine of x")      \
  X(atanh, atanh, false, "atanh(x) -> float: the inverse hyperbolic tangent of x")     \
  X(erf, erf, false, "erf(x) -> float: the error function at x")                       \
  X(erfc, erfc, false, "erfc(x) -> float: 1 - erf(x), exact for large x")              \
  X(fabs, fabs, false, "fabs(x) -> float: the absolute value of x as a float")         \
  X(degrees, degrees, false, "degrees(x) -> float: x radians in degrees")              \
  X(radians, radians, false, "radians(x) -> float: x degrees in radians")

#define MATH_1_DEF(name, cfn, ovf, doc)                                    \
  static Value *bi_math_##name(Interp *I, Value *self, Value **a) {       \
    return math_1(I, a[0], cfn, ovf);                                      \
  }
MATH_1_FUNCS(MATH_1_DEF)
#undef MATH_1_DEF

/* The argument of a logarithm: +inf and NaN pass through, x <= 0 is a domain error. */
static int log_arg(Interp *I, Value *v, double (*f)(double), double *out) {
  double x;
  if (bi_arg_real(I, v, &x) < 0) return -1;
  if (x <= 0.0) return domain_error(I), -1;
  *out = isfinite(x) ? f(x) : x;
  return 0;
}

static Value *bi_math_log(Interp *I, Value *self, Value **a) {
  double num, den;
  if (log_arg(I, a[0], log, &num) < 0) return NULL;
  if (!a[1]) return val_float(num);
  if (log_arg(I, a[1], log, &den) < 0) return NULL;
  if (den == 0.0) return interp_raise(I, EXC_ZeroDivisionError, "float division by zero");
  return val_float(num / den);
}

static Value *bi_math_log2(Interp *I, Value *self, Value **a) {
  double r;
  return log_arg(I, a[0], log2, &r) < 0 ? NULL : val_float(r);
}

static Value *bi_math_log10(Interp *I, Value *self, Value **a) {
  double r;
  return log_arg(I, a[0], log10, &r) < 0 ? NULL : val_float(r);
}

/* C99's pow for the non-finite cases, which CPython spells out to be sure of them. */
static double pow_special(double x, double y) {
  if (isnan(x)) return y == 0.0 ? 1.0 : x;
  if (isnan(y)) return x == 1.0 ? 1.0 : y;
  if (isinf(x)) {
    bool odd_y = isfinite(y) && fmod(fabs(y), 2.0) == 1.0;
    if (y > 0.0) return odd_y ? x : fabs(x);
    if (y == 0.0) return 1.0;
    return odd_y ? copysign(0.0, x) : 0.0;
  }
  if (fabs(x) == 1.0) return 1.0; /* y is infinite */
  if (y > 0.0 && fabs(x) > 1.0) return y;
  if (y < 0.0 && fabs(x) < 1.0) return -y;
  return 0.0;
}

static Value *bi_math_pow(Interp *I, Value *self, Value **a) {
  double x, y, r;
  if (bi_arg_real(I, a[0], &x) < 0 || bi_arg_real(I, a[1], &y) < 0) return NULL;
  if (!isfinite(x) || !isfinite(y)) return val_float(pow_special(x, y));
  r = pow(x, y);
  if (isnan(r)) return domain_error(I);         /* (-8) ** (1/3) */
  if (isinf(r)) return x == 0.0 ? domain_error(I) : range_error(I); /* 0 ** -1 */
  return val_float(r);
}

static Value *bi_math_atan2(Interp *I, Value *self, Value **a) {
  double y, x;
  if (bi_arg_real(I, a[0], &y) < 0 || bi_arg_real(I, a[1], &x) < 0) return NULL;
  return val_float(atan2(y, x));
}

static Value *bi_math_copysign(Interp *I, Value *self, Value **a) {
  double x, y;
  if (bi_arg_real(I, a[0], &x) < 0 || bi_arg_real(I, a[1], &y) < 0) return NULL;
  return val_float(copysign(x, y));
}

static Value *bi_math_fmod(Interp *I, Value *self, Value **a) {
  double x, y;
  if (bi_arg_real(I, a[0], &x) < 0 || bi_arg_real(I, a[1], &y) < 0) return NULL;
  if (isinf(y) && isfinite(x)) return val_float(x);
  double r = fmod(x, y);
  if (isnan(r) && !isnan(x) && !isnan(y)) return domain_error(I);
  return val_float(r);
}

/* floor, ceil and trunc return ints, as in Python 3; an int argument comes back as it is. */
static Value *to_int_by(Interp *I, Value *v, double (*f)(double)) {
  double x;
  if (val_is_int(v)) return val_int(v->u.i);
  if (bi_arg_real(I, v, &x) < 0) return NULL;
  return bi_int_from_double(I, f(x));
}

static Value *bi_math_floor(Interp *I, Value *self, Value **a) { return to_int_by(I, a[0], floor); }
static Value *bi_math_ceil(Interp *I, Value *self, Value **a) { return to_int_by(I, a[0], ceil); }
static Value *bi_math_trunc(Interp *I, Value *self, Value **a) { return to_int_by(I, a[0], trunc); }

static Value *classify(Interp *I, Value *v, int (*pred)(double)) {
  double x;
  return bi_arg_real(I, v, &x) < 0 ? NULL : val_bool(pred(x));
}

static int is_nan(double x) { return isnan(x); }
static int is_inf(double x) { return isinf(x); }
static int is_finite(double x) { return isfinite(x); }
static Value *bi_math_isnan(Interp *I, Value *self, Value **a) { return classify(I, a[0], is_nan); }
static Value *bi_math_isinf(Interp *I, Value *self, Value **a) { return classify(I, a[0], is_inf); }
static Value *bi_math_isfinite(Interp *I, Value *self, Value **a) {
  return classify(I, a[0], is_finite);
}

static Value *bi_math_isclose(Interp *I, Value *self, Value **a) {
  double x, y, rel = 1e-9, abs_tol = 0.0;
  if (bi_arg_real(I, a[0], &x) < 0 || bi_arg_real(I, a[1], &y) < 0 ||
      (a[2] && bi_arg_real(I, a[2], &rel) < 0) || (a[3] && bi_arg_real(I, a[3], &abs_tol) < 0))
    return NULL;
  if (rel < 0.0 || abs_tol < 0.0)
    return interp_raise(I, EXC_ValueError, "tolerances must be non-negative");
  if (x == y) return val_bool(true);
  if (isinf(x) || isinf(y)) return val_bool(false);
  double diff = fabs(y - x);
  return val_bool(diff <= fabs(rel * y) || diff <= fabs(rel * x) || diff <= abs_tol);
}

static Value *bi_math_gcd(Interp *I, Value *self, Value **a) {
  uint64_t g = 0;
  for (int64_t i = 0; i < VAL_SEQ_N(a[0]); i++) {
    int64_t v;
    if (bi_arg_index(I, VAL_SEQ_ITEM(a[0], i), &v) < 0) return NULL;
    uint64_t b = v < 0 ? -(uint64_t)v : (uint64_t)v;
    while (b) {
      uint64_t t = g % b;
      g = b;
      b = t;
    }
  }
  if (g > INT64_MAX) return interp_raise(I, EXC_OverflowError, "gcd does not fit in 64 bits");
  return val_int((int64_t)g);
}

static Value *bi_math_factorial(Interp *I, Value *self, Value **a) {
  int64_t n, r = 1;
  if (bi_arg_index(I, a[0], &n) < 0) return NULL;
  if (n < 0) return interp_raise(I, EXC_ValueError, "factorial() not defined for negative values");
  if (n > 20) return interp_raise(I, EXC_OverflowError, "factorial(%lld) does not fit in 64 bits",
                                  (long long)n);
  for (int64_t i = 2; i <= n; i++) r *= i;
  return val_int(r);
}

static int prod_one(Interp *I, Value *item, void *ctx) {
  Value **acc = ctx, *r = val_binop(I, BIN_MUL, *acc, item);
  if (!r) return -1;
  val_decref(*acc);
  *acc = r;
  return 0;
}

static Value *bi_math_prod(Interp *I, Value *self, Value **a) {
  Value *acc = a[1] ? val_incref(a[1]) : val_int(1);
  if (bi_for_each(I, a[0], prod_one, &acc) < 0) return val_decref(acc), NULL;
  return acc;
}

/* fsum: Shewchuk's exact partial sums, as CPython's math.fsum (mathmodule.c). */
typedef struct FSum {
  double *p; /* non-overlapping partials, increasing magnitude */
  int64_t n, cap;
  double special, inf; /* sums of the non-finite items */
} FSum;

static int fsum_one(Interp *I, Value *item, void *ctx) {
  FSum *f = ctx;
  double x, xsave;
  if (bi_arg_real(I, item, &x) < 0) return -1;
  xsave = x;
  int64_t i = 0;
  for (int64_t j = 0; j < f->n; j++) {
    double y = f->p[j];
    if (fabs(x) < fabs(y)) { double t = x; x = y; y = t; }
    double hi = x + y, lo = y - (hi - x);
    if (lo != 0.0) f->p[i++] = lo;
    x = hi;
  }
  f->n = i;
  if (x == 0.0) return 0;
  if (!isfinite(x)) {
    /* overflow of finite items, or an inf/nan item: then only the special sum counts */
    if (isfinite(xsave))
      return interp_raise(I, EXC_OverflowError, "intermediate overflow in fsum"), -1;
    if (isinf(xsave)) f->inf += xsave;
    f->special += xsave;
    f->n = 0;
    return 0;
  }
  if (f->n == f->cap) f->p = xrealloc(f->p, (size_t)(f->cap = f->cap * 2 + 32) * sizeof *f->p);
  f->p[f->n++] = x;
  return 0;
}

static double fsum_total(const FSum *f) {
  double hi = 0.0, lo = 0.0, x, y;
  int64_t n = f->n;
  if (n == 0) return 0.0;
  hi = f->p[--n];
  while (n > 0) { /* add from the top until the sum becomes inexact */
    x = hi;
    y = f->p[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  /* round half to even across several partials */
  if (n > 0 && ((lo < 0.0 && f->p[n - 1] < 0.0) || (lo > 0.0 && f->p[n - 1] > 0.0))) {
    y = lo * 2.0;
    x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

static Value *bi_math_fsum(Interp *I, Value *self, Value **a) {
  FSum f = {NULL, 0, 0, 0.0, 0.0};
  Value *r = NULL;
  if (bi_for_each(I, a[0], fsum_one, &f) == 0) {
    if (f.special != 0.0 && isnan(f.inf)) interp_raise(I, EXC_ValueError, "-inf + inf in fsum");
    else r = val_float(f.special != 0.0 ? f.special : fsum_total(&f));
  }
  free(f.p);
  return r;
}

static int math_init(Interp *I, Value *m) {
  bi_set_member_take(m, "pi", val_float(M_PI));
  bi_set_member_take(m, "e", val_float(M_E));
  bi_set_member_take(m, "tau", val_float(2 * M_PI));
  bi_set_member_take(m, "inf", val_float(INFINITY));
  bi_set_member_take(m, "nan", val_float(NAN));
  return 0;
}

#define MATH_1_ROW(name, cfn, ovf, doc) {#name, bi_math_##name, 1, PARAMS("x"), doc},
#define FN(name, nreq, params, doc) {#name, bi_math_##name, nreq, params, doc}
static const Builtin math_funcs[] = {
    MATH_1_FUNCS(MATH_1_ROW)
    FN(log, 1, PARAMS("x", "base"), "log(x, base=e) -> float: the logarithm of x to base"),
    FN(log2, 1, PARAMS("x"), "log2(x) -> float: the base-2 logarithm of x"),
    FN(log10, 1, PARAMS("x"), "log10(x) -> float: the base-10 logarithm of x"),
    FN(pow, 2, PARAMS("x", "y"), "pow(x, y) -> float: x to the power y, as floats"),
    FN(atan2, 2, PARAMS("y", "x"), "atan2(y, x) -> float: the angle of the point (x, y)"),
    FN(copysign, 2, PARAMS("x", "y"), "copysign(x, y) -> float: |x| with the sign of y"),
    FN(fmod, 2, PARAMS("x", "y"), "fmod(x, y) -> float: C's fmod (the sign of x)"),
    FN(floor, 1, PARAMS("x"), "floor(x) -> int: the largest int <= x"),
    FN(ceil, 1, PARAMS("x"), "ceil(x) -> int: the smallest int >= x"),
    FN(trunc, 1, PARAMS("x"), "trunc(x) -> int: x rounded toward zero"),
    FN(isnan, 1, PARAMS("x"), "isnan(x) -> bool: whether x is a NaN"),
    FN(isinf, 1, PARAMS("x"), "isinf(x) -> bool: whether x is an infinity"),
    FN(isfinite, 1, PARAMS("x"), "isfinite(x) -> bool: whether x is neither inf nor NaN"),
    FN(isclose, 2, PARAMS("a", "b", "rel_tol", "abs_tol"),
       "isclose(a, b, rel_tol=1e-09, abs_tol=0.0) -> bool: whether a and b are close"),
    FN(gcd, 0, PARAMS("*integers"), "gcd(*integers) -> int: the greatest common divisor"),
    FN(factorial, 1, PARAMS("n"), "factorial(n) -> int: n!"),
    FN(prod, 1, PARAMS("iterable", "start"),
       "prod(iterable, start=1) -> the product of start and the items"),
    FN(fsum, 1, PARAMS("iterable"), "fsum(iterable) -> float: the exactly rounded sum"),
    {0},
};
#undef FN
#undef MATH_1_ROW

static const ModuleDef mod_math = {"math", math_funcs, math_init,
                                   "mathematical functions of floats (C's libm)", NULL, NULL};

/* ---- time and timeit ---- */

static double clock_seconds(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static Value *bi_time_time(Interp *I, Value *self, Value **a) {
  return val_float(clock_seconds(CLOCK_REALTIME));
}

static Value *bi_time_perf_counter(Interp *I, Value *self, Value **a) {
  return val_float(clock_seconds(CLOCK_MONOTONIC));
}

static Value *bi_time_process_time(Interp *I, Value *self, Value **a) {
  return val_float(clock_seconds(CLOCK_PROCESS_CPUTIME_ID));
}

/* Sleeps in slices of 10 ms so that Ctrl-C interrupts a long sleep promptly. */
static Value *bi_time_sleep(Interp *I, Value *self, Value **a) {
  double secs;
  if (bi_arg_real(I, a[0], &secs) < 0) return NULL;
  if (isnan(secs)) return interp_raise(I, EXC_ValueError, "Invalid value NaN (not a number)");
  if (secs < 0) return interp_raise(I, EXC_ValueError, "sleep length must be non-negative");
  double end = clock_seconds(CLOCK_MONOTONIC) + secs;
  for (;;) {
    if (bi_check_interrupt(I) < 0) return NULL;
    double left = end - clock_seconds(CLOCK_MONOTONIC);
    if (left <= 0) return val_none();
    if (left > 0.01) left = 0.01;
    struct timespec ts = {0, (long)(left * 1e9)};
    nanosleep(&ts, NULL); /* EINTR just ends the slice early */
  }
}

static const Builtin time_funcs[] = {
    {"time", bi_time_time, 0, NOPARAMS, "time() -> float: seconds since the Unix epoch"},
    {"perf_counter", bi_time_perf_counter, 0, NOPARAMS,
     "perf_counter() -> float: a monotonic clock in seconds, for timing"},
    {"monotonic", bi_time_perf_counter, 0, NOPARAMS,
     "monotonic() -> float: a clock in seconds that never goes back"},
    {"process_time", bi_time_process_time, 0, NOPARAMS,
     "process_time() -> float: CPU seconds used by this process"},
    {"sleep", bi_time_sleep, 1, PARAMS("secs"),
     "sleep(secs) -> None: waits secs seconds (Ctrl-C interrupts)"},
    {0},
};

static const ModuleDef mod_time = {"time", time_funcs, NULL, "clocks and sleeping", NULL, NULL};

/* timeit's statements: a callable, a str of code, or None / 'pass' (nothing). */
static bool timeit_is_code(Value *v) {
  return v && v->kind == VAL_STR && strcmp(v->u.str.s, "pass") != 0;
}

static int timeit_check(Interp *I, Value *v, const char *arg) {
  if (!v || v->kind == VAL_NONE || v->kind == VAL_STR || val_is_callable(v)) return 0;
  interp_raise(I, EXC_ValueError, "%s is neither a string nor callable", arg);
  return -1;
}

/* Python's template: setup and stmt in one function (so stmt sees setup's names), stmt in a
 * loop between two readings of the timer. A callable statement is called there. */
static void timeit_put(StrBuf *b, Value *v, const char *call, const char *indent) {
  if (!timeit_is_code(v)) {
    sb_printf(b, "%s%s\n", indent, v && val_is_callable(v) ? call : "pass");
    return;
  }
  const char *p = v->u.str.s;
  for (;;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    sb_puts(b, indent);
    sb_putn(b, p, n);
    sb_putc(b, '\n');
    if (!nl) break;
    p = nl + 1;
  }
}

/* One timing, in seconds: stmt run `number` times after setup, with timer (None: the default
 * timer, time.perf_counter), in the namespace globals (None: a fresh one). */
static int timeit_once(Interp *I, Value *stmt, Value *setup, Value *timer, int64_t number,
                       Value *globals, double *secs) {
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "import time as _tes_time\n"
              "def _tes_inner(_timer, _n, _setup, _stmt):\n"
              "    if _timer is None:\n"
              "        _timer = _tes_time.perf_counter\n");
  timeit_put(&b, setup, "_setup()", "    ");
  sb_puts(&b, "    _t0 = _timer()\n"
              "    for _i in range(_n):\n");
  timeit_put(&b, stmt, "_stmt()", "        ");
  sb_puts(&b, "        pass\n"
              "    return _timer() - _t0\n");
  Source *src = src_new("<timeit-src>", sb_cstr(&b), strlen(sb_cstr(&b)));
  sb_free(&b);
  Value *g = globals && globals->kind == VAL_DICT ? val_incref(globals) : val_dict_new();
  int rc = interp_run_source_in(I, src, g);
  src_decref(src);
  Value *none = val_none(), *n = val_int(number);
  Value *args[4] = {timer ? timer : none, n, setup ? setup : none, stmt ? stmt : none};
  Value *fn = rc < 0 ? NULL : dict_get_sym(g, sym_cstr("_tes_inner"));
  Value *r = fn ? interp_callv(I, fn, 4, args) : NULL;
  rc = r ? bi_arg_real(I, r, secs) : -1;
  val_xdecref(r);
  val_decref(n);
  val_decref(none);
  val_decref(g);
  return rc;
}

static int timeit_args(Interp *I, Value **a, int64_t *number) {
  if (timeit_check(I, a[0], "stmt") < 0 || timeit_check(I, a[1], "setup") < 0) return -1;
  *number = 1000000;
  if (a[3] && bi_arg_index(I, a[3], number) < 0) return -1;
  if (*number < 0) {
    interp_raise(I, EXC_ValueError, "timeit: number must be non-negative");
    return -1;
  }
  return 0;
}

/* timeit(stmt='pass', setup='pass', timer=default_timer, number=1000000, globals=None) */
static Value *bi_timeit_timeit(Interp *I, Value *self, Value **a) {
  int64_t number;
  double secs;
  if (timeit_args(I, a, &number) < 0 || timeit_once(I, a[0], a[1], a[2], number, a[4], &secs) < 0)
    return NULL;
  return val_float(secs);
}

/* repeat(stmt='pass', setup='pass', timer=default_timer, number=1000000, repeat=5, ...) */
static Value *bi_timeit_repeat(Interp *I, Value *self, Value **a) {
  int64_t number, repeat = 5;
  if (timeit_args(I, a, &number) < 0 || (a[4] && bi_arg_index(I, a[4], &repeat) < 0))
    return NULL;
  Value *l = val_list_new(repeat > 0 ? repeat : 0);
  for (int64_t i = 0; i < repeat; i++) {
    double secs;
    if (timeit_once(I, a[0], a[1], a[2], number, a[5], &secs) < 0) return val_decref(l), NULL;
    val_list_append_take(l, val_float(secs));
  }
  return l;
}

static const Builtin timeit_funcs[] = {
    {"default_timer", bi_time_perf_counter, 0, NOPARAMS,
     "default_timer() -> float: time.perf_counter(), in seconds"},
    {"timeit", bi_timeit_timeit, 0, PARAMS("stmt", "setup", "timer", "number", "globals"),
     "timeit(stmt='pass', setup='pass', timer=default_timer, number=1000000) -> float: the "
     "seconds stmt (code in a str, or a function) takes number times, after setup"},
    {"repeat", bi_timeit_repeat, 0,
     PARAMS("stmt", "setup", "timer", "number", "repeat", "globals"),
     "repeat(stmt, setup='pass', timer=default_timer, number=1000000, repeat=5) -> list: "
     "timeit's seconds, repeat times"},
    {0},
};

static const ModuleDef mod_timeit = {"timeit", timeit_funcs, NULL, "timing functions: timeit, repeat", NULL,
                                     NULL};

/* ---- os and os.path ---- */

static int path_arg(Interp *I, Value *v) {
  if (v->kind == VAL_STR) return 0;
  interp_raise(I, EXC_TypeError, "expected str, bytes or os.PathLike object, not %s",
               val_type_name(v));
  return -1;
}

static Value *bi_os_getcwd(Interp *I, Value *self, Value **a) {
  char *cwd = getcwd(NULL, 0);
  if (!cwd) return interp_raise(I, EXC_RuntimeError, "getcwd failed: %s", strerror(errno));
  Value *r = val_cstr(cwd);
  free(cwd);
  return r;
}

static Value *bi_os_getenv(Interp *I, Value *self, Value **a) {
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "str expected, not %s", val_type_name(a[0]));
  const char *v = getenv(a[0]->u.str.s);
  if (v) return val_cstr(v);
  return a[1] ? val_incref(a[1]) : val_none();
}

/* os.environ: a snapshot taken at import, as Python's is. */
static int os_init(Interp *I, Value *m) {
  Value *env = val_dict_new();
  for (char **e = environ; *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq) continue;
    Value *k = val_str(*e, (size_t)(eq - *e)), *v = val_cstr(eq + 1);
    int r = dict_set(I, env, k, v);
    val_decref(k);
    val_decref(v);
    if (r < 0) return val_decref(env), -1;
  }
  bi_set_member_take(m, "environ", env);
  bi_set_member_take(m, "sep", val_cstr("/"));
  bi_set_member_take(m, "name", val_cstr("posix"));
  return 0;
}

static const Builtin os_funcs[] = {
    {"getcwd", bi_os_getcwd, 0, NOPARAMS, "getcwd() -> str: the current directory"},
    {"getenv", bi_os_getenv, 1, PARAMS("key", "default"),
     "getenv(key, default=None) -> str: an environment variable, or default"},
    {0},
};

static const ModuleDef mod_os = {"os", os_funcs, os_init,
                                 "the environment and the current directory", NULL, NULL};

/* posixpath.join: an absolute part restarts the path. */
static Value *bi_path_join(Interp *I, Value *self, Value **a) {
  if (path_arg(I, a[0]) < 0) return NULL;
  StrBuf b = STRBUF_INIT;
  sb_putn(&b, a[0]->u.str.s, (size_t)a[0]->u.str.len);
  for (int64_t i = 0; i < VAL_SEQ_N(a[1]); i++) {
    Value *p = VAL_SEQ_ITEM(a[1], i);
    if (p->kind != VAL_STR) {
      sb_free(&b);
      return interp_raise(I, EXC_TypeError,
                          "join() argument must be str, bytes, or os.PathLike object, not '%s'",
                          val_type_name(p));
    }
    if (p->u.str.len > 0 && p->u.str.s[0] == '/') b.len = 0;
    else if (b.len > 0 && b.s[b.len - 1] != '/') sb_putc(&b, '/');
    sb_putn(&b, p->u.str.s, (size_t)p->u.str.len);
  }
  size_t n;
  char *s = sb_take(&b, &n);
  return s ? val_str_take(s, n) : val_str("", 0);
}

/* posixpath.split's cut: the head's length (trailing slashes dropped unless it is all
 * slashes) and where the tail starts. */
static size_t split_head(const char *p, size_t n, size_t *tail) {
  size_t i = n, h;
  while (i > 0 && p[i - 1] != '/') i--;
  *tail = h = i;
  if (strspn(p, "/") < i)
    while (h > 0 && p[h - 1] == '/') h--;
  return h;
}

static Value *bi_path_split(Interp *I, Value *self, Value **a) {
  if (path_arg(I, a[0]) < 0) return NULL;
  const char *p = a[0]->u.str.s;
  size_t n = (size_t)a[0]->u.str.len, tail, head = split_head(p, n, &tail);
  Value *h = val_str(p, head), *t = val_str(p + tail, n - tail), *r = val_tuple_of(2, h, t);
  val_decref(h);
  val_decref(t);
  return r;
}

static Value *bi_path_dirname(Interp *I, Value *self, Value **a) {
  size_t tail;
  if (path_arg(I, a[0]) < 0) return NULL;
  return val_str(a[0]->u.str.s, split_head(a[0]->u.str.s, (size_t)a[0]->u.str.len, &tail));
}

static Value *bi_path_basename(Interp *I, Value *self, Value **a) {
  size_t tail, n;
  if (path_arg(I, a[0]) < 0) return NULL;
  n = (size_t)a[0]->u.str.len;
  split_head(a[0]->u.str.s, n, &tail);
  return val_str(a[0]->u.str.s + tail, n - tail);
}

/* posixpath.splitext: the extension is from the last dot of the last component, unless
 * that component is only dots before it (".bashrc" has none). */
static Value *bi_path_splitext(Interp *I, Value *self, Value **a) {
  if (path_arg(I, a[0]) < 0) return NULL;
  const char *p = a[0]->u.str.s, *slash = strrchr(p, '/'), *dot = strrchr(p, '.');
  size_t n = (size_t)a[0]->u.str.len, cut = n;
  const char *name = slash ? slash + 1 : p;
  if (dot && dot > name && strspn(name, ".") < (size_t)(dot - name)) cut = (size_t)(dot - p);
  Value *root = val_str(p, cut), *ext = val_str(p + cut, n - cut), *r = val_tuple_of(2, root, ext);
  val_decref(root);
  val_decref(ext);
  return r;
}

typedef struct PathPart {
  const char *s;
  size_t n;
} PathPart;

/* posixpath.normpath: drops "." and empty parts and folds "x/.." (not above the root). */
static Value *normpath(const char *p, size_t n) {
  int slashes = n > 0 && p[0] == '/' ? 1 : 0;
  if (n > 1 && p[0] == '/' && p[1] == '/' && !(n > 2 && p[2] == '/')) slashes = 2; /* POSIX */
  PathPart *parts = xmalloc((n / 2 + 1) * sizeof *parts);
  size_t np = 0;
  for (size_t i = 0, j; i < n; i = j + 1) {
    for (j = i; j < n && p[j] != '/'; j++) continue;
    PathPart c = {p + i, j - i};
    bool dotdot = c.n == 2 && c.s[0] == '.' && c.s[1] == '.';
    bool last_dotdot = np > 0 && parts[np - 1].n == 2 && !memcmp(parts[np - 1].s, "..", 2);
    if (c.n == 0 || (c.n == 1 && c.s[0] == '.')) continue;
    if (!dotdot || (!slashes && np == 0) || last_dotdot) parts[np++] = c;
    else if (np > 0) np--;
  }
  StrBuf b = STRBUF_INIT;
  sb_putn(&b, "//", (size_t)slashes);
  for (size_t i = 0; i < np; i++) {
    if (i > 0) sb_putc(&b, '/');
    sb_putn(&b, parts[i].s, parts[i].n);
  }
  free(parts);
  if (b.len == 0) sb_putc(&b, '.');
  size_t len;
  char *s = sb_take(&b, &len);
  return val_str_take(s, len);
}

static Value *bi_path_normpath(Interp *I, Value *self, Value **a) {
  if (path_arg(I, a[0]) < 0) return NULL;
  return normpath(a[0]->u.str.s, (size_t)a[0]->u.str.len);
}

static Value *bi_path_abspath(Interp *I, Value *self, Value **a) {
  if (path_arg(I, a[0]) < 0) return NULL;
  if (a[0]->u.str.len > 0 && a[0]->u.str.s[0] == '/')
    return normpath(a[0]->u.str.s, (size_t)a[0]->u.str.len);
  char *cwd = getcwd(NULL, 0);
  if (!cwd) return interp_raise(I, EXC_RuntimeError, "getcwd failed: %s", strerror(errno));
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s/", cwd);
  sb_putn(&b, a[0]->u.str.s, (size_t)a[0]->u.str.len);
  free(cwd);
  Value *r = normpath(b.s, b.len);
  sb_free(&b);
  return r;
}

static Value *bi_path_isabs(Interp *I, Value *self, Value **a) {
  if (path_arg(I, a[0]) < 0) return NULL;
  return val_bool(a[0]->u.str.len > 0 && a[0]->u.str.s[0] == '/');
}

/* stat's file type bits, or 0 when the path does not exist (or cannot, holding a NUL). */
static int file_mode(Value *path) {
  struct stat st;
  if (memchr(path->u.str.s, 0, (size_t)path->u.str.len) || stat(path->u.str.s, &st) != 0)
    return 0;
  return (int)(st.st_mode & S_IFMT);
}

static Value *bi_path_exists(Interp *I, Value *self, Value **a) {
  return path_arg(I, a[0]) < 0 ? NULL : val_bool(file_mode(a[0]) != 0);
}

static Value *bi_path_isfile(Interp *I, Value *self, Value **a) {
  return path_arg(I, a[0]) < 0 ? NULL : val_bool(file_mode(a[0]) == S_IFREG);
}

static Value *bi_path_isdir(Interp *I, Value *self, Value **a) {
  return path_arg(I, a[0]) < 0 ? NULL : val_bool(file_mode(a[0]) == S_IFDIR);
}

static int path_init(Interp *I, Value *m) {
  bi_set_member_take(m, "sep", val_cstr("/"));
  return 0;
}

#define FN(name, params, doc) {#name, bi_path_##name, 1, params, doc}
static const Builtin path_funcs[] = {
    FN(join, PARAMS("a", "*p"), "join(a, *p) -> str: the parts joined by '/'"),
    FN(split, PARAMS("p"), "split(p) -> tuple: (head, tail), tail after the last '/'"),
    FN(dirname, PARAMS("p"), "dirname(p) -> str: the path up to the last '/'"),
    FN(basename, PARAMS("p"), "basename(p) -> str: the path after the last '/'"),
    FN(splitext, PARAMS("p"), "splitext(p) -> tuple: (root, ext), ext from the last '.'"),
    FN(normpath, PARAMS("p"), "normpath(p) -> str: the path without '.', '..' and '//'"),
    FN(abspath, PARAMS("p"), "abspath(p) -> str: the absolute, normalized path"),
    FN(isabs, PARAMS("p"), "isabs(p) -> bool: whether the path starts with '/'"),
    FN(exists, PARAMS("p"), "exists(p) -> bool: whether the path exists"),
    FN(isfile, PARAMS("p"), "isfile(p) -> bool: whether the path is a regular file"),
    FN(isdir, PARAMS("p"), "isdir(p) -> bool: whether the path is a directory"),
    {0},
};
#undef FN

static const ModuleDef mod_os_path = {"os.path", path_funcs, path_init,
                                      "POSIX path names (posixpath)", NULL, NULL};

/* Every feature name of Python's __future__ is already on, so importing one does nothing. */
static int future_init(Interp *I, Value *m) {
  static const char *const features[] = {
      "nested_scopes",  "generators",       "division",       "absolute_import", "with_statement",
      "print_function", "unicode_literals", "generator_stop", "annotations",
  };
  for (size_t i = 0; i < sizeof features / sizeof *features; i++)
    bi_set_member_take(m, features[i], val_bool(true));
  return 0;
}

static const ModuleDef mod_future = {
    "__future__", NULL, future_init, "Python's future features, all already on", NULL, NULL};

/* ---- the registered modules and import ---- */

static const ModuleDef *const lang_defs[] = {
    &mod_math, &mod_time, &mod_timeit, &mod_os, &mod_os_path, &mod_sys, &mod_resource, &mod_future,
    NULL,
};
static const ModuleSet lang_set = {lang_defs, NULL, NULL};

/* The language's set first, then the rooms' in the order they registered. A handful of rooms
 * registers once at start-up, hence a fixed table. */
enum { MAX_MODULE_SETS = 8 };
static const ModuleSet *module_sets[MAX_MODULE_SETS] = {&lang_set};
static size_t n_module_sets = 1;

void mod_register(const ModuleSet *set) {
  for (size_t i = 0; i < n_module_sets; i++)
    if (module_sets[i] == set) return;
  TES_ASSERT(n_module_sets < MAX_MODULE_SETS, "more than %d module sets", MAX_MODULE_SETS);
  module_sets[n_module_sets++] = set;
}

/* The registered ModuleDefs one after another: *set and *i start at 0; NULL after the last. */
static const ModuleDef *next_def(size_t *set, size_t *i) {
  for (; *set < n_module_sets; (*set)++, *i = 0) {
    const ModuleDef *d = module_sets[*set]->defs[*i];
    if (d) return (*i)++, d;
  }
  return NULL;
}

static const ModuleDef *find_def(const char *name, size_t len) {
  size_t set = 0, i = 0;
  for (const ModuleDef *d; (d = next_def(&set, &i));)
    if (strlen(d->name) == len && memcmp(d->name, name, len) == 0) return d;
  return NULL;
}

static const char *find_alias(const char *name, size_t len) {
  for (size_t s = 0; s < n_module_sets; s++)
    for (const ModuleAlias *a = module_sets[s]->aliases; a && a->name; a++)
      if (strlen(a->name) == len && memcmp(a->name, name, len) == 0) return a->target;
  return NULL;
}

void mod_bind_prebound(Interp *I, Value *globals) {
  for (size_t s = 0; s < n_module_sets; s++)
    for (const ModuleAlias *p = module_sets[s]->prebound; p && p->name; p++) {
      Value *m = mod_import(I, interp_modules(I), p->target);
      TES_ASSERT(m, "builtin module %s failed to load", p->target);
      dict_set_sym(globals, sym_cstr(p->name), m);
      val_decref(m);
    }
}

/* A dotted name's last parts as a path below a package's folder: "nn.pooling" as
 * "nn/pooling"; false for a part that is not a plain name (or is __init__, which is the
 * package itself). */
static bool rest_as_path(const char *rest, size_t len, StrBuf *b) {
  size_t part = 0;
  for (size_t i = 0; i <= len; i++) {
    char c = i < len ? rest[i] : '.';
    if (c == '.') {
      if (part == 0 || (part == 8 && memcmp(rest + i - 8, "__init__", 8) == 0)) return false;
      if (i < len) sb_putc(b, '/');
      part = 0;
      continue;
    }
    bool name_char = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (part > 0 && c >= '0' && c <= '9');
    if (!name_char) return false;
    sb_putc(b, c);
    part++;
  }
  return true;
}

/* Modules found by path, so that adding one is adding its file: below a registered package
 * written in TES (tvm.topi, source "topi/__init__.tes"), PACKAGE.A.B is the file A/B.tes, or
 * the package A/B/__init__.tes, in the package's folder of stdlib/. The stdlib path (living as
 * long as the process), or NULL. */
static const char *path_of(const char *dotted, size_t len) {
  static const char init[] = "__init__.tes";
  size_t set = 0, i = 0;
  for (const ModuleDef *d; (d = next_def(&set, &i));) {
    const char *src = d->source;
    size_t n = strlen(d->name), sn = src ? strlen(src) : 0;
    if (sn < sizeof init - 1 || strcmp(src + sn - (sizeof init - 1), init) != 0) continue;
    if (len <= n + 1 || memcmp(dotted, d->name, n) != 0 || dotted[n] != '.') continue;
    StrBuf b = STRBUF_INIT;
    sb_putn(&b, src, sn - (sizeof init - 1));
    const char *found = NULL;
    if (rest_as_path(dotted + n + 1, len - n - 1, &b)) {
      size_t stem = b.len;
      sb_puts(&b, "/__init__.tes"); /* a package first, as Python looks */
      if (!(found = stdlib_find(sb_cstr(&b)))) {
        b.len = stem;
        sb_puts(&b, ".tes");
        found = stdlib_find(sb_cstr(&b));
      }
    }
    sb_free(&b);
    if (found) return found;
  }
  return NULL;
}

bool mod_known(const char *dotted) {
  size_t n = strlen(dotted);
  return find_def(dotted, n) || find_alias(dotted, n) || path_of(dotted, n);
}

char *mod_doc(const char *dotted) {
  size_t n = strlen(dotted);
  const ModuleDef *def = find_def(dotted, n);
  if (def && def->doc) return xstrdup(def->doc);
  const char *path = def ? def->source : path_of(dotted, n);
  return path ? stdlib_doc(path) : NULL;
}

/* ImportError naming the shortest unknown prefix, as Python names 'foo' for `import foo.bar`. */
static int check_known(Interp *I, const char *dotted) {
  for (size_t i = 0;; i++) {
    if ((dotted[i] == '.' || !dotted[i]) && !find_def(dotted, i) && !find_alias(dotted, i) &&
        !path_of(dotted, i)) {
      interp_raise(I, EXC_ImportError, "no module named '%.*s'", (int)i, dotted);
      return -1;
    }
    if (!dotted[i]) return 0;
  }
}

/* Makes `m` the attribute of its parent module (already in the cache) under its last name. A
 * module found by path joins its parent only once the parent's file has run and left the name
 * free: a package may define a function named as one of its files (nn.conv2d, nn/conv2d.tes),
 * and a parent not yet loaded finds its child by path on the first lookup (mod_getattr_miss). */
static void link_parent(Value *cache, const char *name, Value *m, bool by_path) {
  const char *dot = strrchr(name, '.');
  if (!dot) return;
  Value *parent = dict_get_sym(cache, sym_intern(name, (size_t)(dot - name)));
  if (!parent) return;
  Sym *key = sym_cstr(dot + 1);
  if (by_path && (parent->u.mod->source || dict_get_sym(parent->u.mod->dict, key))) return;
  dict_set_sym(parent->u.mod->dict, key, m);
}

/* A package imports its builtin submodules, as `import os` gives os.path and `import tvm`
 * gives tvm.te in Python. */
static int import_children(Interp *I, Value *cache, const char *name) {
  size_t n = strlen(name);
  size_t set = 0, i = 0;
  for (const ModuleDef *d; (d = next_def(&set, &i));) {
    const char *c = d->name;
    if (strncmp(c, name, n) != 0 || c[n] != '.' || strchr(c + n + 1, '.')) continue;
    Value *m = mod_import(I, cache, c);
    if (!m) return -1;
    val_decref(m);
  }
  return 0;
}

static Value *build_module(Interp *I, Value *cache, const ModuleDef *def, bool by_path) {
  Value *m = val_module_new(def->name);
  Sym *key = sym_cstr(def->name);
  m->u.mod->pending = def->pending;
  m->u.mod->source = def->source;
  for (const Builtin *f = def->funcs; f && f->name; f++)
    bi_set_member_take(m, f->name, val_builtin(f, NULL));
  /* cached before init, as Python's sys.modules, so a child importing its parent finds it */
  dict_set_sym(cache, key, m);
  link_parent(cache, def->name, m, by_path);
  if ((def->init && def->init(I, m) < 0) || import_children(I, cache, def->name) < 0) {
    Value *err = interp_error_take(I);
    if (dict_del(I, cache, key) < 0) interp_error_clear(I);
    interp_raise_value(I, err);
    val_decref(err);
    val_decref(m);
    return NULL;
  }
  return m;
}

Value *mod_import(Interp *I, Value *cache, const char *dotted) {
  Value *m = dict_get_sym(cache, sym_cstr(dotted));
  if (m) return val_incref(m);
  if (check_known(I, dotted) < 0) return NULL;
  const char *target = find_alias(dotted, strlen(dotted));
  if (target) { /* the cache maps the alias to the very same module value */
    m = mod_import(I, cache, target);
    if (m) dict_set_sym(cache, sym_cstr(dotted), m);
    return m;
  }
  const char *dot = strrchr(dotted, '.');
  if (dot) {
    char *parent_name = xstrndup(dotted, (size_t)(dot - dotted));
    Value *parent = mod_import(I, cache, parent_name);
    free(parent_name);
    /* the parent package's own source runs before its submodule, as Python's: a submodule
     * that imports a name from the package then finds it defined */
    int r = parent ? mod_load_source(I, parent) : -1;
    val_xdecref(parent);
    if (r < 0) return NULL;
    m = dict_get_sym(cache, sym_cstr(dotted)); /* the parent imported its children */
    if (m) return val_incref(m);
  }
  size_t n = strlen(dotted);
  const ModuleDef *def = find_def(dotted, n);
  if (def) return build_module(I, cache, def, false);
  ModuleDef by_path = {dotted, NULL, NULL, NULL, NULL, path_of(dotted, n)};
  return build_module(I, cache, &by_path, true);
}

Value *mod_getattr_miss(Interp *I, Value *m, Sym *name) {
  if (mod_load_source(I, m) < 0) return NULL;
  Value *v = dict_get_sym(m->u.mod->dict, name);
  if (v) return val_incref(v);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s.%s", m->u.mod->name->u.str.s, SYM_STR(name));
  v = path_of(b.s, b.len) ? mod_import(I, interp_modules(I), b.s) : NULL;
  sb_free(&b);
  return v;
}
