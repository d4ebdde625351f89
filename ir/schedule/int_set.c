/* int_set.c: the arithmetic under bound inference: pointer maps, index expressions built with
 * constants folded and like terms cancelled, proofs of comparisons that reduce to constants,
 * and integer sets (TVM's IntSet and EvalSet, intervals only). It is deliberately small: what
 * it cannot prove it leaves as a guard or a full-shape bound, which is always correct, and the
 * simplifier pass cleans up what it leaves unfolded. */
#include <stdint.h>
#include <string.h>

#include "ir/schedule/sched_impl.h"

/* ---- constants ---- */

static bool as_const(const Expr *e, int64_t *v) {
  if (e->kind != EXPR_INT) return false;
  *v = e->u.ival;
  return true;
}

/* v as the machine holds it in t (int32 2147483648 is -2147483648). */
static int64_t wrap(DType t, int64_t v) {
  if (t.bits >= 64) return v;
  uint64_t mask = (UINT64_C(1) << t.bits) - 1, u = (uint64_t)v & mask;
  if (t.code == DT_INT && (u >> (t.bits - 1))) u |= ~mask;
  return (int64_t)u;
}

Expr *sched_const(Arena *a, DType t, int64_t v) { return ir_int(a, t, wrap(t, v)); }

/* ---- linear forms: a sum of scaled atoms plus a constant, for cancellation and proofs ---- */

enum { LIN_MAX = 16, LIN_DEPTH = 64 };

typedef struct Lin {
  int n;
  const Expr *atom[LIN_MAX];
  int64_t coeff[LIN_MAX];
  int64_t c;
  bool ok; /* false: too many atoms or an overflow; nothing can be concluded */
} Lin;

static void lin_atom(Lin *l, const Expr *e, int64_t s) {
  for (int i = 0; i < l->n; i++)
    if (ir_expr_equal(l->atom[i], e)) {
      if (__builtin_add_overflow(l->coeff[i], s, &l->coeff[i])) l->ok = false;
      return;
    }
  if (l->n == LIN_MAX) {
    l->ok = false;
    return;
  }
  l->atom[l->n] = e;
  l->coeff[l->n++] = s;
}

static void lin_add(Lin *l, const Expr *e, int64_t s, int depth) {
  int64_t k, t;
  if (!l->ok || depth > LIN_DEPTH) {
    l->ok = false;
    return;
  }
  if (as_const(e, &k)) {
    if (__builtin_mul_overflow(k, s, &t) || __builtin_add_overflow(l->c, t, &l->c)) l->ok = false;
  } else if (e->kind == EXPR_ADD || e->kind == EXPR_SUB) {
    lin_add(l, e->u.bin.a, s, depth + 1);
    lin_add(l, e->u.bin.b, e->kind == EXPR_ADD ? s : -s, depth + 1);
  } else if (e->kind == EXPR_MUL && as_const(e->u.bin.b, &k)) {
    if (__builtin_mul_overflow(k, s, &t))
      l->ok = false;
    else
      lin_add(l, e->u.bin.a, t, depth + 1);
  } else if (e->kind == EXPR_MUL && as_const(e->u.bin.a, &k)) {
    if (__builtin_mul_overflow(k, s, &t))
      l->ok = false;
    else
      lin_add(l, e->u.bin.b, t, depth + 1);
  } else {
    lin_atom(l, e, s);
  }
}

/* Whether y - x is a constant once like terms cancel; the constant in *d. */
static bool const_diff(const Expr *x, const Expr *y, int64_t *d) {
  if (!dt_is_int(x->dtype) || !dt_is_int(y->dtype) || x->dtype.lanes != 1) return false;
  Lin l = {.ok = true};
  lin_add(&l, y, 1, 0);
  lin_add(&l, x, -1, 0);
  if (!l.ok) return false;
  for (int i = 0; i < l.n; i++)
    if (l.coeff[i] != 0) return false;
  *d = l.c;
  return true;
}

bool sched_prove_lt(const Expr *x, const Expr *y) {
  int64_t d;
  return const_diff(x, y, &d) && d > 0;
}

bool sched_prove_le(const Expr *x, const Expr *y) {
  int64_t d;
  return const_diff(x, y, &d) && d >= 0;
}

bool sched_prove_eq(const Expr *x, const Expr *y) {
  int64_t d;
  return x == y || (const_diff(x, y, &d) && d == 0);
}

/* ---- building index expressions ---- */

/* e as base + c; base NULL when e is the constant c. */
static Expr *split_const(Expr *e, int64_t *c) {
  int64_t k;
  *c = 0;
  if (as_const(e, c)) return NULL;
  if (e->kind == EXPR_ADD && as_const(e->u.bin.b, &k)) {
    *c = k;
    return e->u.bin.a;
  }
  if (e->kind == EXPR_SUB && as_const(e->u.bin.b, &k) && k != INT64_MIN) {
    *c = -k;
    return e->u.bin.a;
  }
  return e;
}

/* base + c, written as TVM's simplifier writes it: (x + 3), (x - 3), x. */
static Expr *plus_const(Arena *a, Expr *base, int64_t c, DType t) {
  if (!base) return sched_const(a, t, c);
  if (c == 0) return base;
  if (c < 0 && c != INT64_MIN) return ir_binary(a, EXPR_SUB, base, sched_const(a, t, -c));
  return ir_binary(a, EXPR_ADD, base, sched_const(a, t, c));
}

Expr *sched_add(Arena *a, Expr *x, Expr *y) {
  int64_t cx, cy, c;
  Expr *bx = split_const(x, &cx), *by = split_const(y, &cy);
  if (__builtin_add_overflow(cx, cy, &c)) return ir_binary(a, EXPR_ADD, x, y);
  if (!by) return plus_const(a, bx, c, x->dtype);
  if (!bx) return plus_const(a, by, c, x->dtype);
  if (bx == x && by == y) return ir_binary(a, EXPR_ADD, x, y);
  return plus_const(a, ir_binary(a, EXPR_ADD, bx, by), c, x->dtype);
}

/* x - y as one term plus a constant, when the other terms cancel: (m + n) - n is m. */
static Expr *cancel_to_atom(Arena *a, Expr *x, Expr *y) {
  if (!dt_is_int(x->dtype) || x->dtype.lanes != 1) return NULL;
  Lin l = {.ok = true};
  lin_add(&l, x, 1, 0);
  lin_add(&l, y, -1, 0);
  const Expr *atom = NULL;
  for (int i = 0; l.ok && i < l.n; i++) {
    if (l.coeff[i] == 0) continue;
    if (l.coeff[i] != 1 || atom) return NULL;
    atom = l.atom[i];
  }
  /* atoms are nodes of x or y, which the caller owns */
  return l.ok && atom ? plus_const(a, (Expr *)atom, l.c, x->dtype) : NULL;
}

Expr *sched_sub(Arena *a, Expr *x, Expr *y) {
  int64_t d, cx, cy, c;
  if (const_diff(y, x, &d)) return sched_const(a, x->dtype, d);
  Expr *r = cancel_to_atom(a, x, y);
  if (r) return r;
  Expr *bx = split_const(x, &cx), *by = split_const(y, &cy);
  if (__builtin_sub_overflow(cx, cy, &c)) return ir_binary(a, EXPR_SUB, x, y);
  if (!by) return plus_const(a, bx, c, x->dtype);
  if (!bx) return ir_binary(a, EXPR_SUB, sched_const(a, x->dtype, c), by);
  return plus_const(a, ir_binary(a, EXPR_SUB, bx, by), c, x->dtype);
}

Expr *sched_mul(Arena *a, Expr *x, Expr *y) {
  int64_t cx = 0, cy = 0, p;
  bool kx = as_const(x, &cx), ky = as_const(y, &cy);
  if (kx && ky && !__builtin_mul_overflow(cx, cy, &p)) return sched_const(a, x->dtype, p);
  if ((kx && cx == 0) || (ky && cy == 0)) return sched_const(a, x->dtype, 0);
  if (kx && cx == 1) return y;
  if (ky && cy == 1) return x;
  return ir_binary(a, EXPR_MUL, x, y);
}

static int64_t floor_div(int64_t x, int64_t y) {
  int64_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

Expr *sched_floordiv(Arena *a, Expr *x, Expr *y) {
  int64_t cx, cy;
  bool ky = as_const(y, &cy);
  if (ky && cy == 1) return x;
  /* INT64_MIN / -1 overflows; leave it to run time like any other division */
  if (ky && cy != 0 && as_const(x, &cx) && !(cx == INT64_MIN && cy == -1))
    return sched_const(a, x->dtype, floor_div(cx, cy));
  return ir_binary(a, EXPR_FLOORDIV, x, y);
}

Expr *sched_floormod(Arena *a, Expr *x, Expr *y) {
  int64_t cx, cy;
  bool ky = as_const(y, &cy);
  if (ky && (cy == 1 || cy == -1)) return sched_const(a, x->dtype, 0);
  if (ky && cy != 0 && as_const(x, &cx))
    return sched_const(a, x->dtype, cx - floor_div(cx, cy) * cy);
  return ir_binary(a, EXPR_FLOORMOD, x, y);
}

Expr *sched_min(Arena *a, Expr *x, Expr *y) {
  if (sched_prove_le(x, y)) return x;
  if (sched_prove_le(y, x)) return y;
  return ir_binary(a, EXPR_MIN, x, y);
}

Expr *sched_max(Arena *a, Expr *x, Expr *y) {
  if (sched_prove_le(y, x)) return x;
  if (sched_prove_le(x, y)) return y;
  return ir_binary(a, EXPR_MAX, x, y);
}

Expr *sched_ceil_div(Arena *a, Expr *x, Expr *y) {
  int64_t cx, cy;
  if (as_const(x, &cx) && as_const(y, &cy) && cy > 0 && cx % cy == 0)
    return sched_const(a, x->dtype, cx / cy);
  Expr *less = sched_sub(a, y, sched_const(a, y->dtype, 1));
  return sched_floordiv(a, sched_add(a, x, less), y);
}

/* ---- integer sets ---- */

bool sched_set_is_point(IntSet s) {
  return s.min && s.max && (s.min == s.max || ir_expr_equal(s.min, s.max));
}

IntSet sched_set_point(Expr *e) { return (IntSet){e, e}; }

static const IntSet everything = {NULL, NULL};

IntSet sched_set_range(Arena *a, Range r) {
  if (ir_is_const_int(r.extent, 1)) return sched_set_point(r.min);
  Expr *last = sched_sub(a, sched_add(a, r.min, r.extent), sched_const(a, r.min->dtype, 1));
  return (IntSet){r.min, last};
}

IntSet sched_set_union(Arena *a, IntSet x, IntSet y) {
  IntSet u = everything;
  if (x.min && y.min) u.min = sched_min(a, x.min, y.min);
  if (x.max && y.max) u.max = sched_max(a, x.max, y.max);
  return u;
}

Range sched_set_cover(Arena *a, IntSet s, Range dom) {
  if (!s.min || !s.max) return dom;
  if (sched_set_is_point(s)) return (Range){s.min, sched_const(a, s.min->dtype, 1)};
  Expr *extent = sched_add(a, sched_sub(a, s.max, s.min), sched_const(a, s.min->dtype, 1));
  return (Range){s.min, extent};
}

bool sched_set_matches(IntSet s, Range r) {
  if (!s.min || !s.max || !sched_prove_eq(s.min, r.min)) return false;
  int64_t d;
  /* max = min + extent - 1, i.e. (min + extent) - max is 1 */
  Lin l = {.ok = true};
  lin_add(&l, r.min, 1, 0);
  lin_add(&l, r.extent, 1, 0);
  lin_add(&l, s.max, -1, 0);
  if (!l.ok) return false;
  for (int i = 0; i < l.n; i++)
    if (l.coeff[i] != 0) return false;
  d = l.c;
  return d == 1;
}

/* ---- evaluating a set ---- */

typedef struct EvalCtx {
  Arena *arena;
  const PtrMap *sets;
  int depth;
  bool relax;   /* a variable's set is itself evaluated over sets (sched_relax_set) */
  PtrMap *memo; /* relaxing: Var * -> IntSet *, each variable's relaxed set, once */
} EvalCtx;

static IntSet eval(EvalCtx *cx, Expr *e);

/* The generic rule: an expression over fixed variables is a point (with each variable that is
 * a single point replaced by it); one that reads a varying variable is unbounded. */
typedef struct PointSubst {
  IrMutator m;
  EvalCtx *cx;
  bool varies;
} PointSubst;

static IntSet eval_var(EvalCtx *cx, Expr *e);

static Expr *point_subst_expr(IrMutator *m, Expr *e) {
  PointSubst *ps = (PointSubst *)m;
  if (e->kind != EXPR_VAR) return ir_mutate_children_expr(m, e);
  IntSet s = eval_var(ps->cx, e);
  if (!sched_set_is_point(s)) {
    ps->varies = true;
    return e;
  }
  return s.min;
}

static IntSet eval_generic(EvalCtx *cx, Expr *e) {
  PointSubst ps = {{cx->arena, point_subst_expr, NULL}, cx, false};
  Expr *r = ir_mutate_expr(&ps.m, e);
  return ps.varies ? everything : sched_set_point(r);
}

typedef Expr *(*BinOp)(Arena *, Expr *, Expr *);

/* x op y where both are points, sharing e when nothing changed. */
static IntSet point_binary(EvalCtx *cx, Expr *e, IntSet x, IntSet y, BinOp op) {
  if (x.min == e->u.bin.a && y.min == e->u.bin.b) return sched_set_point(e);
  return sched_set_point(op(cx->arena, x.min, y.min));
}

static IntSet eval_add(EvalCtx *cx, IntSet x, IntSet y) {
  IntSet r = everything;
  if (x.min && y.min) r.min = sched_add(cx->arena, x.min, y.min);
  if (x.max && y.max) r.max = sched_add(cx->arena, x.max, y.max);
  return r;
}

static IntSet eval_sub(EvalCtx *cx, IntSet x, IntSet y) {
  IntSet r = everything;
  if (x.min && y.max) r.min = sched_sub(cx->arena, x.min, y.max);
  if (x.max && y.min) r.max = sched_sub(cx->arena, x.max, y.min);
  return r;
}

/* x scaled by the constant k (given also as the expression ke). */
static IntSet eval_scale(EvalCtx *cx, IntSet x, Expr *ke, int64_t k) {
  if (k == 0) return sched_set_point(ke);
  Expr *lo = x.min ? sched_mul(cx->arena, x.min, ke) : NULL;
  Expr *hi = x.max ? sched_mul(cx->arena, x.max, ke) : NULL;
  return k > 0 ? (IntSet){lo, hi} : (IntSet){hi, lo};
}

static IntSet eval_mul(EvalCtx *cx, IntSet x, IntSet y) {
  int64_t k;
  if (sched_set_is_point(y) && as_const(y.min, &k)) return eval_scale(cx, x, y.min, k);
  if (sched_set_is_point(x) && as_const(x.min, &k)) return eval_scale(cx, y, x.min, k);
  return everything;
}

/* floordiv/floormod by a positive constant, the only divisions index sets need. */
static IntSet eval_floordiv(EvalCtx *cx, IntSet x, IntSet y) {
  int64_t k;
  if (!sched_set_is_point(y) || !as_const(y.min, &k) || k <= 0) return everything;
  Expr *lo = x.min ? sched_floordiv(cx->arena, x.min, y.min) : NULL;
  Expr *hi = x.max ? sched_floordiv(cx->arena, x.max, y.min) : NULL;
  return (IntSet){lo, hi};
}

static IntSet eval_floormod(EvalCtx *cx, IntSet x, IntSet y) {
  int64_t k;
  if (!sched_set_is_point(y) || !as_const(y.min, &k) || k <= 0) return everything;
  return (IntSet){sched_const(cx->arena, y.min->dtype, 0),
                  sched_const(cx->arena, y.min->dtype, k - 1)};
}

static IntSet eval_min(EvalCtx *cx, IntSet x, IntSet y) {
  IntSet r = everything;
  if (x.min && y.min) r.min = sched_min(cx->arena, x.min, y.min);
  r.max = x.max && y.max ? sched_min(cx->arena, x.max, y.max) : x.max ? x.max : y.max;
  return r;
}

static IntSet eval_max(EvalCtx *cx, IntSet x, IntSet y) {
  IntSet r = everything;
  r.min = x.min && y.min ? sched_max(cx->arena, x.min, y.min) : x.min ? x.min : y.min;
  if (x.max && y.max) r.max = sched_max(cx->arena, x.max, y.max);
  return r;
}

static bool provably_nonneg(IntSet x) {
  int64_t k;
  return x.min && as_const(x.min, &k) && k >= 0;
}

typedef IntSet (*SetOp)(EvalCtx *, IntSet, IntSet);

/* How each arithmetic kind combines points and intervals. */
static const struct {
  BinOp point;
  SetOp set;
} binary_rules[EXPR_KIND_COUNT] = {
    [EXPR_ADD] = {sched_add, eval_add},
    [EXPR_SUB] = {sched_sub, eval_sub},
    [EXPR_MUL] = {sched_mul, eval_mul},
    [EXPR_FLOORDIV] = {sched_floordiv, eval_floordiv},
    [EXPR_FLOORMOD] = {sched_floormod, eval_floormod},
    [EXPR_MIN] = {sched_min, eval_min},
    [EXPR_MAX] = {sched_max, eval_max},
};

static IntSet eval_binary(EvalCtx *cx, Expr *e) {
  IntSet x = eval(cx, e->u.bin.a), y = eval(cx, e->u.bin.b);
  bool points = sched_set_is_point(x) && sched_set_is_point(y);
  /* truncating division agrees with floor division on non-negative operands */
  if (e->kind == EXPR_DIV || e->kind == EXPR_MOD) {
    if (points || !provably_nonneg(x)) return eval_generic(cx, e);
    return e->kind == EXPR_DIV ? eval_floordiv(cx, x, y) : eval_floormod(cx, x, y);
  }
  TES_ASSERT(binary_rules[e->kind].point, "no set rule for %s", ir_expr_kind_names[e->kind]);
  if (points) return point_binary(cx, e, x, y, binary_rules[e->kind].point);
  return binary_rules[e->kind].set(cx, x, y);
}

/* A variable's set; relaxing, the bounds of that set are evaluated in turn, since a loop's
 * range may mention the loops around it (an attached stage's extent, say), which may be
 * relaxed as well. A set that is the variable itself ends the chain. Each variable is relaxed
 * once (a chain of loops each bounded by the last would otherwise cost 2^depth); one met again
 * while it is being relaxed (a cycle, which no schedule makes) is unbounded, which the caller
 * covers soundly. */
static IntSet eval_var(EvalCtx *cx, Expr *e) {
  static IntSet unbounded = {NULL, NULL};
  const Var *v = e->u.var;
  IntSet *s = ptrmap_get(cx->sets, v);
  if (!s) return sched_set_point(e);
  if (!cx->relax || (sched_set_is_point(*s) && s->min->kind == EXPR_VAR && s->min->u.var == v))
    return *s;
  IntSet *done = ptrmap_get(cx->memo, v);
  if (done) return *done;
  ptrmap_put(cx->memo, v, &unbounded);
  IntSet r;
  if (sched_set_is_point(*s))
    r = eval(cx, s->min);
  else
    r = (IntSet){s->min ? eval(cx, s->min).min : NULL, s->max ? eval(cx, s->max).max : NULL};
  IntSet *keep = arena_alloc(cx->arena, sizeof *keep);
  *keep = r;
  ptrmap_put(cx->memo, v, keep);
  return r;
}

static IntSet eval(EvalCtx *cx, Expr *e) {
  if (++cx->depth > 200 || !dt_is_int(e->dtype) || e->dtype.lanes != 1) {
    cx->depth--;
    return eval_generic(cx, e);
  }
  IntSet r;
  switch (e->kind) {
  case EXPR_VAR:
    r = eval_var(cx, e);
    break;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
    r = eval_binary(cx, e);
    break;
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STR:
  case EXPR_CAST:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_RAMP:
  case EXPR_BROADCAST:
  case EXPR_LET:
  case EXPR_CALL:
  case EXPR_LOAD:
  case EXPR_PRODUCER_LOAD:
  case EXPR_REDUCE:
    r = eval_generic(cx, e);
    break;
  case EXPR_KIND_COUNT:
    TES_UNREACHABLE();
  }
  cx->depth--;
  return r;
}

IntSet sched_eval_set(Arena *a, Expr *e, const PtrMap *sets) {
  EvalCtx cx = {a, sets, 0, false, NULL};
  return eval(&cx, e);
}

IntSet sched_relax_set(Arena *a, Expr *e, const PtrMap *sets) {
  PtrMap memo;
  ptrmap_init(&memo, a);
  EvalCtx cx = {a, sets, 0, true, &memo};
  return eval(&cx, e);
}
