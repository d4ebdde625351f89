/* time_eval.c: Module.time_evaluator and the BenchmarkResult it gives (SPEC §9): one warm-up
 * call, then `repeat` measurements of `number` calls each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/np/ndarray.h"

typedef struct Timer {
  Value *module; /* counted */
  int64_t number, repeat, min_repeat_ms;
} Timer;

static void timer_free(void *p) {
  Timer *t = p;
  val_xdecref(t->module);
  free(t);
}

static void timer_visit(void *p, void (*fn)(Value *, void *), void *arg) {
  Timer *t = p;
  if (t->module) fn(t->module, arg);
}

static void timer_clear(void *p) {
  Timer *t = p;
  Value *m = t->module;
  t->module = NULL;
  val_xdecref(m);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per call over `number` calls; -1 with an exception raised. */
static double time_calls(Interp *I, Built *m, Args *a, int64_t number) {
  if (m->cuda) return bi_module_cuda_time(I, m, a, number); /* CUDA events */
  double start = now();
  for (int64_t i = 0; i < number; i++) {
    if (bi_module_run(I, m, a) < 0 || bi_check_interrupt(I) < 0) return -1;
  }
  return (now() - start) / (double)number;
}

static Value *make_result(int n, const double *secs); /* a BenchmarkResult */

/* As TVM's: one call to warm up, then `repeat` measurements of `number` calls each; a
 * measurement shorter than min_repeat_ms is taken again with more calls. */
static Value *timer_call(Interp *I, Value *self, CallArgs *args) {
  Timer *t = self->u.obj.p;
  Built *m = built_of(t->module);
  Args a;
  if (bi_module_runnable(I, m) < 0 || bi_module_prepare(I, m, args->n, args->v, &a) < 0) return NULL;
  double *secs = xcalloc((size_t)t->repeat + 1, sizeof *secs);
  Value *result = NULL;
  if (bi_module_run(I, m, &a) < 0) goto done;
  for (int64_t r = 0; r < t->repeat; r++) {
    int64_t number = t->number;
    for (;;) {
      double per = time_calls(I, m, &a, number);
      if (per < 0) goto done;
      secs[r] = per;
      double ms = per * (double)number * 1e3;
      if (ms >= (double)t->min_repeat_ms || number >= INT64_MAX / 2) break;
      int64_t more = per > 0 ? (int64_t)((double)t->min_repeat_ms / (per * 1e3)) + 1 : number * 2;
      number =
          more > (int64_t)((double)number * 1.618) ? more : (int64_t)((double)number * 1.618) + 1;
    }
  }
  result = make_result((int)t->repeat, secs);
done:
  free(secs);
  bi_args_free(&a);
  return result;
}

static Value *timer_repr(Interp *I, Value *self) { return val_cstr("<time_evaluator>"); }

static const ObjClass timer_class = {
    .type = {"TimeEvaluator", NULL, VAL_OBJ, NULL},
    .free = timer_free,
    .visit = timer_visit,
    .clear = timer_clear,
    .repr = timer_repr,
    .call = timer_call,
};

static int positive_arg(Interp *I, Value *v, const char *name, int64_t dflt, int64_t min,
                        int64_t *out) {
  *out = dflt;
  if (!v || v->kind == VAL_NONE) return 0;
  if (val_as_int(I, v, out) < 0) return -1;
  if (*out < min) {
    interp_raise(I, EXC_ValueError, "time_evaluator: %s must be >= %lld, not %lld", name,
                 (long long)min, (long long)*out);
    return -1;
  }
  return 0;
}

Value *bi_module_time_evaluator(Interp *I, Value *self, Value **a) {
  Value *fn = bi_module_function_named(I, self, a[0], "time_evaluator");
  if (!fn) return NULL;
  val_decref(fn);
  NDDevice type;
  int id;
  Built *m = built_of(self);
  NDDevice want = m->cuda ? ND_CUDA : ND_CPU;
  if (a[1] && a[1]->kind != VAL_NONE && (!bi_build_device_of(a[1], &type, &id) || type != want))
    return interp_raise(I, EXC_TypeError, "time_evaluator: dev must be a %s Device for %s %s module",
                        bi_device_name(want), m->cuda ? "a" : "an", m->cuda ? "cuda" : "llvm");
  Timer t = {self, 0, 0, 0};
  if (positive_arg(I, a[2], "number", 10, 1, &t.number) < 0 ||
      positive_arg(I, a[3], "repeat", 1, 1, &t.repeat) < 0 ||
      positive_arg(I, a[4], "min_repeat_ms", 0, 0, &t.min_repeat_ms) < 0)
    return NULL;
  if (t.repeat > 1000000)
    return interp_raise(I, EXC_ValueError, "time_evaluator: repeat %lld is too large",
                        (long long)t.repeat);
  Timer *p = xmalloc(sizeof *p);
  *p = t;
  val_incref(self);
  return val_obj_new(&timer_class, p);
}

/* ---- BenchmarkResult ---- */

static const ObjClass result_class;

typedef struct Result {
  int n;
  double *secs; /* as measured */
  double mean, median, min, max, std;
} Result;

static void result_free(void *p) {
  Result *r = p;
  free(r->secs);
  free(r);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static Value *make_result(int n, const double *secs) {
  Result *r = xcalloc(1, sizeof *r);
  r->n = n;
  r->secs = xmalloc((size_t)n * sizeof *secs);
  memcpy(r->secs, secs, (size_t)n * sizeof *secs);
  double *sorted = xmalloc((size_t)n * sizeof *sorted), sum = 0, sq = 0;
  memcpy(sorted, secs, (size_t)n * sizeof *secs);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
  for (int i = 0; i < n; i++) sum += secs[i];
  r->mean = sum / n;
  for (int i = 0; i < n; i++) sq += (secs[i] - r->mean) * (secs[i] - r->mean);
  r->std = sqrt(sq / n);
  r->min = sorted[0];
  r->max = sorted[n - 1];
  r->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  free(sorted);
  return val_obj_new(&result_class, r);
}

static Value *seconds_tuple(const Result *r) {
  Value *t = val_tuple_new(r->n);
  for (int i = 0; i < r->n; i++) val_seq_set_take(t, i, val_float(r->secs[i]));
  return t;
}

static Value *result_mean(Interp *I, Value *self) {
  return val_float(((Result *)self->u.obj.p)->mean);
}
static Value *result_median(Interp *I, Value *self) {
  return val_float(((Result *)self->u.obj.p)->median);
}
static Value *result_min(Interp *I, Value *self) {
  return val_float(((Result *)self->u.obj.p)->min);
}
static Value *result_max(Interp *I, Value *self) {
  return val_float(((Result *)self->u.obj.p)->max);
}
static Value *result_std(Interp *I, Value *self) {
  return val_float(((Result *)self->u.obj.p)->std);
}
static Value *result_results(Interp *I, Value *self) { return seconds_tuple(self->u.obj.p); }

static const Property result_props[] = {
    {"mean", result_mean, "the mean of the repeats' times, in seconds"},
    {"median", result_median, "the median time, in seconds"},
    {"min", result_min, "the shortest time, in seconds"},
    {"max", result_max, "the longest time, in seconds"},
    {"std", result_std, "the standard deviation of the times, in seconds"},
    {"results", result_results, "every repeat's time, a tuple of seconds"},
    {0},
};

/* TVM's BenchmarkResult repr, seconds with Python's float repr. */
static Value *result_repr(Interp *I, Value *self) {
  Result *r = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  const char *names[] = {"min", "mean", "median", "max", "std"};
  double vals[] = {r->min, r->mean, r->median, r->max, r->std};
  sb_puts(&b, "BenchmarkResult(");
  for (int i = 0; i < 5; i++) {
    Value *f = val_float(vals[i]), *s = val_repr(I, f);
    sb_printf(&b, "%s=%s, ", names[i], s ? s->u.str.s : "?");
    val_decref(f);
    val_xdecref(s);
  }
  Value *t = seconds_tuple(r), *s = val_repr(I, t);
  sb_printf(&b, "results=%s)", s ? s->u.str.s : "?");
  val_decref(t);
  val_xdecref(s);
  return val_str_sb(&b);
}

static const ObjClass result_class = {
    .type = {"BenchmarkResult", NULL, VAL_OBJ, NULL},
    .free = result_free,
    .repr = result_repr,
    .props = result_props,
};
