/* int_set.c: the integer sets of bound inference (TVM's IntSet and EvalSet, intervals only).
 * Every bound is built and every comparison proved by the arithmetic analyzer it is given, so
 * bound inference and the simplifier cannot disagree on what an index is; that analyzer knows
 * no variable, so a bound holds wherever it lands. What cannot be proved is left as a guard or
 * a full-shape bound, which is always correct. */
#include <stdint.h>
#include <string.h>

#include "ir/schedule/sched_impl.h"

/* ---- index arithmetic, all of it the analyzer's ---- */

static Expr *fold(Analyzer *an, ExprKind k, Expr *x, Expr *y) {
  return arith_simplify_binary(an, k, x, y);
}

static Expr *one(Analyzer *an, DType t) { return arith_const(arith_arena(an), t, 1); }

/* ---- integer sets ---- */

bool sched_set_is_point(IntSet s) {
  return s.min && s.max && (s.min == s.max || ir_expr_equal(s.min, s.max));
}

IntSet sched_set_point(Expr *e) { return (IntSet){e, e}; }

static const IntSet everything = {NULL, NULL};

/* min + extent - 1, the last value of a range. */
static Expr *last_of(Analyzer *an, Range r) {
  Arena *a = arith_arena(an);
  Expr *end = arith_binary(a, EXPR_ADD, r.min, r.extent);
  return arith_simplify(an, arith_binary(a, EXPR_SUB, end, one(an, r.min->dtype)));
}

IntSet sched_set_range(Analyzer *an, Range r) {
  if (ir_is_const_int(r.extent, 1)) return sched_set_point(r.min);
  return (IntSet){r.min, last_of(an, r)};
}

IntSet sched_set_union(Analyzer *an, IntSet x, IntSet y) {
  IntSet u = everything;
  if (x.min && y.min) u.min = fold(an, EXPR_MIN, x.min, y.min);
  if (x.max && y.max) u.max = fold(an, EXPR_MAX, x.max, y.max);
  return u;
}

Range sched_set_cover(Analyzer *an, IntSet s, Range dom) {
  if (!s.min || !s.max) return dom;
  DType t = s.min->dtype;
  if (sched_set_is_point(s)) return (Range){s.min, one(an, t)};
  Arena *a = arith_arena(an);
  Expr *extent = arith_binary(a, EXPR_ADD, arith_binary(a, EXPR_SUB, s.max, s.min), one(an, t));
  return (Range){s.min, arith_simplify(an, extent)};
}

bool sched_set_matches(Analyzer *an, IntSet s, Range r) {
  return s.min && s.max && arith_can_prove_equal(an, s.min, r.min) &&
         arith_can_prove_equal(an, s.max, last_of(an, r));
}

/* ---- evaluating a set ---- */

typedef struct EvalCtx {
  Analyzer *an;
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

/* x k y where both are points, sharing e when nothing changed. */
static IntSet point_binary(EvalCtx *cx, Expr *e, IntSet x, IntSet y) {
  if (x.min == e->u.bin.a && y.min == e->u.bin.b) return sched_set_point(e);
  return sched_set_point(fold(cx->an, e->kind, x.min, y.min));
}

/* x k y on bounds that may be missing (unbounded). */
static Expr *bound(EvalCtx *cx, ExprKind k, Expr *x, Expr *y) {
  return x && y ? fold(cx->an, k, x, y) : NULL;
}

static IntSet eval_add(EvalCtx *cx, IntSet x, IntSet y) {
  return (IntSet){bound(cx, EXPR_ADD, x.min, y.min), bound(cx, EXPR_ADD, x.max, y.max)};
}

static IntSet eval_sub(EvalCtx *cx, IntSet x, IntSet y) {
  return (IntSet){bound(cx, EXPR_SUB, x.min, y.max), bound(cx, EXPR_SUB, x.max, y.min)};
}

/* y as a constant point, in *k. */
static bool const_point(IntSet y, int64_t *k) {
  return sched_set_is_point(y) && ir_as_int(y.min, k);
}

/* x scaled by the constant k (given also as the expression ke). */
static IntSet eval_scale(EvalCtx *cx, IntSet x, Expr *ke, int64_t k) {
  if (k == 0) return sched_set_point(ke);
  Expr *lo = bound(cx, EXPR_MUL, x.min, ke), *hi = bound(cx, EXPR_MUL, x.max, ke);
  return k > 0 ? (IntSet){lo, hi} : (IntSet){hi, lo};
}

static IntSet eval_mul(EvalCtx *cx, IntSet x, IntSet y) {
  int64_t k;
  if (const_point(y, &k)) return eval_scale(cx, x, y.min, k);
  if (const_point(x, &k)) return eval_scale(cx, y, x.min, k);
  return everything;
}

/* floordiv/floormod by a positive constant, the only divisions index sets need. */
static IntSet eval_floordiv(EvalCtx *cx, IntSet x, IntSet y) {
  int64_t k;
  if (!const_point(y, &k) || k <= 0) return everything;
  return (IntSet){bound(cx, EXPR_FLOORDIV, x.min, y.min), bound(cx, EXPR_FLOORDIV, x.max, y.min)};
}

static IntSet eval_floormod(EvalCtx *cx, IntSet x, IntSet y) {
  int64_t k;
  if (!const_point(y, &k) || k <= 0) return everything;
  return (IntSet){arith_const(cx->arena, y.min->dtype, 0),
                  arith_const(cx->arena, y.min->dtype, k - 1)};
}

static IntSet eval_min(EvalCtx *cx, IntSet x, IntSet y) {
  Expr *hi = x.max && y.max ? bound(cx, EXPR_MIN, x.max, y.max) : x.max ? x.max : y.max;
  return (IntSet){bound(cx, EXPR_MIN, x.min, y.min), hi};
}

static IntSet eval_max(EvalCtx *cx, IntSet x, IntSet y) {
  Expr *lo = x.min && y.min ? bound(cx, EXPR_MAX, x.min, y.min) : x.min ? x.min : y.min;
  return (IntSet){lo, bound(cx, EXPR_MAX, x.max, y.max)};
}

typedef IntSet (*SetOp)(EvalCtx *, IntSet, IntSet);

/* How each arithmetic kind combines intervals. */
static const SetOp binary_rules[EXPR_KIND_COUNT] = {
    [EXPR_ADD] = eval_add,           [EXPR_SUB] = eval_sub,           [EXPR_MUL] = eval_mul,
    [EXPR_FLOORDIV] = eval_floordiv, [EXPR_FLOORMOD] = eval_floormod, [EXPR_MIN] = eval_min,
    [EXPR_MAX] = eval_max,
};

static IntSet eval_binary(EvalCtx *cx, Expr *e) {
  IntSet x = eval(cx, e->u.bin.a), y = eval(cx, e->u.bin.b);
  bool points = sched_set_is_point(x) && sched_set_is_point(y);
  /* truncating division agrees with floor division on non-negative operands */
  if (e->kind == EXPR_DIV || e->kind == EXPR_MOD) {
    if (points || !x.min || !arith_can_prove_ge(cx->an, x.min, 0)) return eval_generic(cx, e);
    return e->kind == EXPR_DIV ? eval_floordiv(cx, x, y) : eval_floormod(cx, x, y);
  }
  TES_ASSERT(binary_rules[e->kind], "no set rule for %s", ir_expr_kind_names[e->kind]);
  if (points) return point_binary(cx, e, x, y);
  return binary_rules[e->kind](cx, x, y);
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

IntSet sched_eval_set(Analyzer *an, Expr *e, const PtrMap *sets) {
  EvalCtx cx = {an, arith_arena(an), sets, 0, false, NULL};
  return eval(&cx, e);
}

IntSet sched_relax_set(Analyzer *an, Expr *e, const PtrMap *sets) {
  PtrMap memo;
  ptrmap_init(&memo, arith_arena(an));
  EvalCtx cx = {an, arith_arena(an), sets, 0, true, &memo};
  return eval(&cx, e);
}
