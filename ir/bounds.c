/* bounds.c: index verdicts for the access checks (bounds.h). */
#include "ir/bounds.h"

#include <stdio.h>
#include <stdlib.h>

#include "ir/support.h"

/* ---- the nest ---- */

void ir_nest_enter_loop(AccessNest *nest, Analyzer *an, Arena *a, Var *v, Expr *min, Expr *extent) {
  int64_t lo, n;
  bool known = ir_as_int(min, &lo) && ir_as_int(extent, &n) && n >= 1;
  VEC_GROW(NULL, nest->loops, nest->cap, nest->nloops + 1);
  nest->loops[nest->nloops++] = (NestLoop){v, known, !known && !arith_can_prove_ge(an, extent, 1)};
  /* the fact too, as tir.Simplify gives it: `i < n` for a loop over [0, n) */
  arith_bind(an, v, (Range){min, extent});
  Expr *x = ir_varref(a, v);
  arith_push_constraint(
      an, ir_binary(a, EXPR_AND, ir_binary(a, EXPR_GE, x, min),
                    ir_binary(a, EXPR_LT, x, arith_binary(a, EXPR_ADD, min, extent))));
}

void ir_nest_leave_loop(AccessNest *nest, Analyzer *an) {
  nest->nloops--;
  arith_pop_constraint(an);
}

void ir_nest_free(AccessNest *nest) {
  free(nest->loops);
  *nest = (AccessNest){0};
}

/* ---- exactness ---- */

static const NestLoop *loop_of(const AccessNest *nest, const Var *v) {
  for (int i = nest->nloops - 1; i >= 0; i--)
    if (nest->loops[i].var == v) return &nest->loops[i];
  return NULL;
}

enum { MAX_TERMS = 16 };

typedef struct Terms {
  const Var *seen[MAX_TERMS];
  int n;
} Terms;

/* Whether e is a sum of constants and constant multiples of loop variables of constant range,
 * each variable once: then interval arithmetic gives its exact range. */
static bool linear(const AccessNest *nest, const Expr *e, Terms *t) {
  if (e->kind == EXPR_INT) return true;
  if (e->kind == EXPR_ADD || e->kind == EXPR_SUB)
    return linear(nest, e->u.bin.a, t) && linear(nest, e->u.bin.b, t);
  if (e->kind == EXPR_MUL && e->u.bin.a->kind == EXPR_INT) return linear(nest, e->u.bin.b, t);
  if (e->kind == EXPR_MUL && e->u.bin.b->kind == EXPR_INT) return linear(nest, e->u.bin.a, t);
  if (e->kind != EXPR_VAR) return false;
  const NestLoop *l = loop_of(nest, e->u.var);
  if (!l || !l->known || t->n == MAX_TERMS) return false;
  for (int i = 0; i < t->n; i++)
    if (t->seen[i] == e->u.var) return false;
  t->seen[t->n++] = e->u.var;
  return true;
}

/* Nothing guards the access and every loop around it runs at least once: each value of its
 * index over the loops' ranges is taken by some execution. */
static bool always_runs(const AccessNest *nest) {
  if (nest->guards || nest->selects) return false;
  for (int i = 0; i < nest->nloops; i++)
    if (nest->loops[i].maybe_empty) return false;
  return true;
}

/* ---- the verdict ---- */

/* Whether the analyzer proves x >= 0 (x < n when n is given), beyond x's constant bounds: a
 * guard `likely((i + (i.outer*8)) < 67)` bounds the sum, not its variables. */
static bool proven(Analyzer *an, Arena *a, Expr *x, const int64_t *n) {
  Expr *c = n ? ir_binary(a, EXPR_LT, x, arith_const(a, x->dtype, *n))
              : ir_binary(a, EXPR_GE, x, arith_const(a, x->dtype, 0));
  return arith_can_prove(an, c);
}

/* Against a symbolic size, only a certain verdict is given: the analyzer can rarely prove an
 * index inside [0, m) (TVM's bound inference makes such accesses, and constant bounds of
 * products of size variables reach int32's ends), and a check that warned on each would drown
 * the real ones. */
IndexVerdict ir_index_verdict(Analyzer *an, Arena *a, const AccessNest *nest, Expr *index,
                              Expr *size, ConstBound *range) {
  Expr *x = arith_simplify(an, index);
  ConstBound b = arith_const_bound(an, x);
  int64_t n;
  bool constant = ir_as_int(size, &n);
  *range = b;
  if (b.min > b.max) return IDX_INSIDE; /* the guards contradict each other: it never runs */
  bool low = b.min >= 0 || proven(an, a, x, NULL);
  bool high = !constant || b.max < n || proven(an, a, x, &n);
  if (low && high) return IDX_INSIDE;
  bool all_out = b.max < 0 || (constant && b.min >= n);
  Terms t = {.n = 0};
  if (always_runs(nest) && (all_out || linear(nest, x, &t))) return IDX_OUTSIDE;
  return constant ? IDX_MAYBE : IDX_INSIDE;
}

Expr *ir_count_of(Arena *a, int n, Expr *const *dims) {
  int64_t total = 1, v;
  int nconst = 0;
  bool overflow = false;
  for (int d = 0; d < n; d++)
    if (ir_as_int(dims[d], &v)) nconst++, overflow |= __builtin_mul_overflow(total, v, &total);
  if (nconst == n)
    return overflow ? NULL : ir_int(a, total == (int32_t)total ? DT_I32 : DT_I64, total);
  Expr *p = NULL;
  for (int d = 0; d < n; d++) {
    Expr *x = dims[d];
    if (p && !dt_eq(p->dtype, x->dtype)) p = arith_cast(a, DT_I64, p), x = arith_cast(a, DT_I64, x);
    p = p ? ir_binary(a, EXPR_MUL, p, x) : x;
  }
  return p ? p : ir_i32(a, 1);
}

const char *ir_range_text(ConstBound r, char buf[64]) {
  char lo[24], hi[24];
  if (r.min == ARITH_NEG_INF)
    snprintf(lo, sizeof lo, "(-inf");
  else
    snprintf(lo, sizeof lo, "[%lld", (long long)r.min);
  if (r.max == ARITH_POS_INF)
    snprintf(hi, sizeof hi, "+inf)");
  else
    snprintf(hi, sizeof hi, "%lld]", (long long)r.max);
  snprintf(buf, 64, "%s, %s", lo, hi);
  return buf;
}
