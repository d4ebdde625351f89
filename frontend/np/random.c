/* random.c: numpy.random (SPEC §10) over tes's own generator, xoshiro256** (Blackman and
 * Vigna) seeded through splitmix64, so a seed gives the same numbers on every machine; they
 * are not numpy's numbers (docs/numpy.md). Floats take the top 53 bits of a draw; randint
 * rejects draws past the largest multiple of the range, so it has no bias; normal is
 * Box-Muller, one draw pair per value. Without np.random.seed the generator starts from the
 * operating system's entropy, as numpy's does.
 *
 * np.random is a module whose functions are methods bound to the session's generator, a
 * RandomState object; np.random.RandomState(seed) and np.random.default_rng(seed) make
 * others. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "frontend/np/np_impl.h"

typedef struct Rng {
  uint64_t s[4];
} Rng;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static void rng_seed(Rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(Rng *r) {
  uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

static double rng_double(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Uniform in [0, range) (range 0: all 64 bits). */
static uint64_t rng_below(Rng *r, uint64_t range) {
  if (range == 0) return rng_next(r);
  uint64_t limit = (0 - range) % range; /* draws below it would favor small results */
  for (;;) {
    uint64_t x = rng_next(r);
    if (x >= limit) return x % range;
  }
}

static double rng_normal(Rng *r) {
  double u1 = 1.0 - rng_double(r), u2 = rng_double(r); /* u1 in (0, 1]: log is finite */
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void seed_from_os(Rng *r) {
  uint64_t seed;
  if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
    seed = (uint64_t)time(NULL) ^ (uint64_t)clock();
  rng_seed(r, seed);
}

/* ---- the generator value ---- */

extern const ObjClass bi_np_rng_class;

static Rng *rng_of(Value *self) { return self->u.obj.p; }

static Value *new_rng(Interp *I, Value *seed) {
  Rng *r = xmalloc(sizeof *r);
  int64_t s;
  if (!seed || seed->kind == VAL_NONE) {
    seed_from_os(r);
  } else if (bi_arg_index(I, seed, &s) < 0) {
    free(r);
    return NULL;
  } else if (s < 0) {
    free(r);
    return interp_raise(I, EXC_ValueError, "Seed must be between 0 and 2**32 - 1");
  } else {
    rng_seed(r, (uint64_t)s);
  }
  return val_obj_new(&bi_np_rng_class, r);
}

static Value *m_seed(Interp *I, Value *self, Value **a) {
  Value *fresh = new_rng(I, a[0]);
  if (!fresh) return NULL;
  *rng_of(self) = *rng_of(fresh);
  val_decref(fresh);
  return val_none();
}

/* size: None gives one Python number; an int or a tuple, an array of that shape. fill draws
 * element i of dtype t's kind. */
typedef NpScalar (*DrawFn)(Rng *r, const void *ctx);

static Value *draw(Interp *I, Value *self, Value *size, DType t, DrawFn fill, const void *ctx) {
  NpShape s = {0};
  bool scalar = !size || size->kind == VAL_NONE;
  if (!scalar && bi_np_shape_arg(I, size, "random", &s) < 0) return NULL;
  NDArray *a = bi_np_new(I, t, s.ndim, s.dims);
  if (!a) return NULL;
  NpKind k = bi_np_kind(t);
  for (int64_t i = 0; i < a->size; i++) bi_np_set(a, i, fill(rng_of(self), ctx), k);
  if (!scalar) return bi_ndarray_wrap(a);
  Value *v = bi_np_item(a, 0);
  nd_free(a);
  return v;
}

typedef struct Span {
  double lo, scale;
} Span;

static NpScalar draw_uniform(Rng *r, const void *ctx) {
  const Span *sp = ctx;
  return (NpScalar){.f = sp->lo + sp->scale * rng_double(r)};
}

static NpScalar draw_normal(Rng *r, const void *ctx) {
  const Span *sp = ctx;
  return (NpScalar){.f = sp->lo + sp->scale * rng_normal(r)};
}

static Value *m_uniform(Interp *I, Value *self, Value **a) {
  double lo = 0.0, hi = 1.0;
  if ((a[0] && bi_arg_real(I, a[0], &lo) < 0) || (a[1] && bi_arg_real(I, a[1], &hi) < 0))
    return NULL;
  Span sp = {lo, hi - lo};
  return draw(I, self, a[2], NP_FLOAT, draw_uniform, &sp);
}

static Value *m_normal(Interp *I, Value *self, Value **a) {
  double loc = 0.0, scale = 1.0;
  if ((a[0] && bi_arg_real(I, a[0], &loc) < 0) || (a[1] && bi_arg_real(I, a[1], &scale) < 0))
    return NULL;
  if (scale < 0) return interp_raise(I, EXC_ValueError, "scale < 0");
  Span sp = {loc, scale};
  return draw(I, self, a[2], NP_FLOAT, draw_normal, &sp);
}

static Value *m_random(Interp *I, Value *self, Value **a) {
  Span sp = {0.0, 1.0};
  return draw(I, self, a[0], NP_FLOAT, draw_uniform, &sp);
}

static Value *m_standard_normal(Interp *I, Value *self, Value **a) {
  Span sp = {0.0, 1.0};
  return draw(I, self, a[0], NP_FLOAT, draw_normal, &sp);
}

/* rand(d0, d1, ...) and randn(...): the shape as separate ints. */
static Value *dims_draw(Interp *I, Value *self, Value *dims, DrawFn fn) {
  Span sp = {0.0, 1.0};
  return draw(I, self, VAL_SEQ_N(dims) ? dims : NULL, NP_FLOAT, fn, &sp);
}

static Value *m_rand(Interp *I, Value *self, Value **a) {
  return dims_draw(I, self, a[0], draw_uniform);
}

static Value *m_randn(Interp *I, Value *self, Value **a) {
  return dims_draw(I, self, a[0], draw_normal);
}

typedef struct IntSpan {
  int64_t lo;
  uint64_t range;
} IntSpan;

static NpScalar draw_int(Rng *r, const void *ctx) {
  const IntSpan *sp = ctx;
  return (NpScalar){.i = (int64_t)((uint64_t)sp->lo + rng_below(r, sp->range))};
}

static bool in_range(int64_t x, DType t) {
  if (t.code == DT_BOOL) return x == 0 || x == 1;
  if (t.code == DT_UINT) return x >= 0 && (t.bits == 64 || x < (INT64_C(1) << t.bits));
  return t.bits == 64 || (x >= -(INT64_C(1) << (t.bits - 1)) && x < (INT64_C(1) << (t.bits - 1)));
}

/* randint(low, high=None, size=None, dtype=int64): [low, high), or [0, low). */
static Value *m_randint(Interp *I, Value *self, Value **a) {
  int64_t lo = 0, hi;
  DType t;
  if (bi_arg_index(I, a[0], &hi) < 0 ||
      (a[1] && a[1]->kind != VAL_NONE && (lo = hi, bi_arg_index(I, a[1], &hi) < 0)) ||
      bi_np_dtype_arg(I, a[3], "randint", NP_INT, &t) < 0)
    return NULL;
  if (t.code == DT_FLOAT)
    return interp_raise(I, EXC_TypeError, "Unsupported dtype %s for randint", bi_np_dtype_name(t));
  if (lo >= hi) return interp_raise(I, EXC_ValueError, "low >= high");
  if (!in_range(lo, t))
    return interp_raise(I, EXC_ValueError, "low is out of bounds for %s", bi_np_dtype_name(t));
  if (!in_range(hi - 1, t))
    return interp_raise(I, EXC_ValueError, "high is out of bounds for %s", bi_np_dtype_name(t));
  IntSpan sp = {lo, (uint64_t)hi - (uint64_t)lo};
  return draw(I, self, a[2], t, draw_int, &sp);
}

static const Builtin rng_methods[] = {
    {"seed", m_seed, 0, PARAMS("seed"),
     "seed(seed=None): restart the generator (xoshiro256**) from an int seed"},
    {"uniform", m_uniform, 0, PARAMS("low", "high", "size"),
     "uniform(low=0.0, high=1.0, size=None): floats uniform in [low, high)"},
    {"normal", m_normal, 0, PARAMS("loc", "scale", "size"),
     "normal(loc=0.0, scale=1.0, size=None): normally distributed floats"},
    {"randint", m_randint, 1, PARAMS("low", "high", "size", "dtype"),
     "randint(low, high=None, size=None, dtype=int64): ints uniform in [low, high)"},
    {"integers", m_randint, 1, PARAMS("low", "high", "size", "dtype"),
     "integers(low, high=None, size=None, dtype=int64): randint()"},
    {"rand", m_rand, 0, PARAMS("*dims"), "rand(d0, d1, ...): floats uniform in [0, 1)"},
    {"randn", m_randn, 0, PARAMS("*dims"), "randn(d0, d1, ...): standard normal floats"},
    {"random", m_random, 0, PARAMS("size"), "random(size=None): floats uniform in [0, 1)"},
    {"random_sample", m_random, 0, PARAMS("size"), "random_sample(size=None): random()"},
    {"standard_normal", m_standard_normal, 0, PARAMS("size"),
     "standard_normal(size=None): normal(0, 1, size)"},
    {0},
};

static void free_rng(void *p) { free(p); }

static Value *rng_repr(Interp *I, Value *self) { return val_cstr("RandomState(xoshiro256**)"); }

const ObjClass bi_np_rng_class = {
    .type = {"RandomState", NULL, VAL_OBJ, NULL},
    .free = free_rng,
    .repr = rng_repr,
    .methods = rng_methods,
};

static Value *fn_random_state(Interp *I, Value *self, Value **a) { return new_rng(I, a[0]); }

static const Builtin random_funcs[] = {
    {"RandomState", fn_random_state, 0, PARAMS("seed"),
     "RandomState(seed=None): a generator of its own, with the methods of np.random"},
    {"default_rng", fn_random_state, 0, PARAMS("seed"),
     "default_rng(seed=None): a generator of its own (tes's RandomState)"},
    {0},
};

Value *bi_np_random_module(Interp *I) {
  Value *m = val_module_new("numpy.random"), *state = new_rng(I, NULL);
  for (const Builtin *f = rng_methods; f->name; f++)
    bi_set_member_take(m, f->name, val_builtin(f, state));
  for (const Builtin *f = random_funcs; f->name; f++)
    bi_set_member_take(m, f->name, val_builtin(f, NULL));
  val_decref(state);
  return m;
}
