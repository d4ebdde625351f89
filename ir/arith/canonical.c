/* canonical.c: the canonical simplifier (TVM's canonical_simplify.cc). Integer arithmetic is
 * read into a sum of scaled split terms plus a constant,
 *
 *     sum = base + sum_i ((index_i % upper_i) / lower_i) * scale_i,
 *
 * where like terms merge (i*2 + i is i*3; (x/6)*6 + ((x%6)/3)*3 is (x/3)*3) and a division by
 * a constant divides the scales it can, keeping the remainder only when the bounds do not
 * prove it smaller than the divisor: floordiv(i.outer*32 + i.inner, 32) is i.outer when
 * i.inner is in [0, 32). The sum is written back with terms by descending scale, positive
 * ones first, then the constant, then the negative ones subtracted, which is the order of the
 * IR TVM prints: ((i.outer*32) + i.inner), (((m*4) + n) - 2). Every other node goes through
 * the rewrite rules, with its children canonical. Forms live in the Analyzer's scratch arena
 * until the outermost simplification returns. */
#include <string.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

typedef enum { DIV_TRUNC, DIV_FLOOR } DivMode;

/* ((index % upper) / lower) * scale, upper ARITH_POS_INF for none; upper % lower == 0. */
typedef struct Split {
  Expr *index;
  int64_t lower, upper, scale;
  DivMode mode;
} Split;

/* base + the sum of args. Terms of one index are adjacent, by descending lower factor. */
typedef struct Sum {
  DType dtype;
  Split *args;
  int n, cap;
  int64_t base;
} Sum;

/* What visiting an expression gives: a plain expression, a split term or a sum. */
typedef enum { CF_EXPR, CF_SPLIT, CF_SUM } FormKind;
typedef struct Form {
  FormKind kind;
  Expr *e;     /* CF_EXPR */
  Split split; /* CF_SPLIT */
  Sum *sum;    /* CF_SUM */
} Form;

/* Scales and bases wrap like the machine's arithmetic instead of overflowing in C: they only
 * overflow on programs whose index arithmetic overflows anyway. */
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static Arena *out(Simp *s) { return s->an->arena; }
static Expr *num(Simp *s, DType t, int64_t v) { return arith_const(out(s), t, v); }
static Expr *op2(Simp *s, ExprKind k, Expr *a, Expr *b) { return arith_binary(out(s), k, a, b); }

static Form from_expr(Expr *e) { return (Form){.kind = CF_EXPR, .e = e}; }
static Form from_split(Split sp) { return (Form){.kind = CF_SPLIT, .split = sp}; }
static Form from_sum(Sum *sum) { return (Form){.kind = CF_SUM, .sum = sum}; }

static bool form_int(const Form *f, int64_t *v) {
  return f->kind == CF_EXPR && arith_is_int(f->e, v);
}

/* ---- split terms ---- */

static Split split_of(Expr *e) {
  return (Split){.index = e, .lower = 1, .upper = ARITH_POS_INF, .scale = 1, .mode = DIV_TRUNC};
}

static Expr *mod_impl(Simp *s, Expr *a, int64_t c, DivMode m) {
  return op2(s, m == DIV_FLOOR ? EXPR_FLOORMOD : EXPR_MOD, a, num(s, a->dtype, c));
}

static Expr *div_impl(Simp *s, Expr *a, int64_t c, DivMode m) {
  return op2(s, m == DIV_FLOOR ? EXPR_FLOORDIV : EXPR_DIV, a, num(s, a->dtype, c));
}

/* The term times extra, written out. */
static Expr *split_expr(Simp *s, const Split *sp, int64_t extra) {
  Expr *r = sp->index;
  if (sp->scale == 0) return num(s, r->dtype, 0);
  if (sp->upper != ARITH_POS_INF) r = mod_impl(s, r, sp->upper, sp->mode);
  if (sp->lower != 1) r = div_impl(s, r, sp->lower, sp->mode);
  int64_t scale = wmul(sp->scale, extra);
  return scale == 1 ? r : op2(s, EXPR_MUL, r, num(s, r->dtype, scale));
}

/* Whether the term also reads correctly with the other rounding: no division in it. */
static bool mode_compatible(const Split *sp, DivMode m) {
  return sp->mode == m || (sp->lower == 1 && sp->upper == ARITH_POS_INF);
}

static bool same_index(const Split *a, const Split *b) {
  return a->index == b->index || ir_expr_equal(a->index, b->index);
}

/* ---- sums ---- */

static Sum *sum_new(Simp *s, DType t) {
  Sum *sum = arena_alloc(&s->an->scratch, sizeof *sum);
  sum->dtype = t;
  return sum;
}

static void sum_insert(Simp *s, Sum *sum, int at, Split sp) {
  VEC_GROW(&s->an->scratch, sum->args, sum->cap, sum->n + 1);
  memmove(&sum->args[at + 1], &sum->args[at], (size_t)(sum->n - at) * sizeof(Split));
  sum->args[at] = sp;
  sum->n++;
}

/* sum += sp*scale, merged into a like term or placed with the terms of its index. */
static void sum_add_split(Simp *s, Sum *sum, Split sp, int64_t scale) {
  if (sp.scale == 0) return;
  int start = 0;
  while (start < sum->n && !same_index(&sum->args[start], &sp)) start++;
  for (int j = start; j < sum->n; j++) {
    Split *t = &sum->args[j];
    if (!same_index(t, &sp) || sp.lower > t->lower) {
      sp.scale = wmul(sp.scale, scale);
      sum_insert(s, sum, j, sp);
      return;
    }
    if (sp.lower == t->lower && sp.upper == t->upper && mode_compatible(&sp, t->mode)) {
      t->scale = wadd(t->scale, wmul(sp.scale, scale));
      return;
    }
  }
  sp.scale = wmul(sp.scale, scale);
  sum_insert(s, sum, sum->n, sp);
}

static void sum_add_sum(Simp *s, Sum *sum, const Sum *other, int64_t scale) {
  for (int i = 0; i < other->n; i++) sum_add_split(s, sum, other->args[i], scale);
  sum->base = wadd(sum->base, wmul(other->base, scale));
}

static void sum_mul(Sum *sum, int64_t scale) {
  sum->base = wmul(sum->base, scale);
  for (int i = 0; i < sum->n; i++) sum->args[i].scale = wmul(sum->args[i].scale, scale);
}

static void sum_divide(Sum *sum, int64_t c) {
  TES_ASSERT(sum->base % c == 0, "canonical sum not divisible");
  sum->base /= c;
  for (int i = 0; i < sum->n; i++) sum->args[i].scale /= c;
}

static bool sum_is_zero(const Sum *sum) { return sum->base == 0 && sum->n == 0; }

/* The parts of sum whose scales (and base) c divides, and the rest. */
static void sum_separate(Simp *s, const Sum *sum, int64_t c, Sum **divisible, Sum **rest) {
  *divisible = sum_new(s, sum->dtype);
  *rest = sum_new(s, sum->dtype);
  (sum->base % c == 0 ? *divisible : *rest)->base = sum->base;
  for (int i = 0; i < sum->n; i++) {
    Sum *to = sum->args[i].scale % c == 0 ? *divisible : *rest;
    sum_insert(s, to, to->n, sum->args[i]);
  }
}

/* Whether l = (x/(c*k))*k*s and r = ((x % (c*k))/c)*s for the same x: together (x/c)*s. */
static bool completes(const Split *l, const Split *r) {
  if (l->lower != r->upper || !arith_divides(r->scale, l->scale) || !mode_compatible(l, r->mode))
    return false;
  int64_t k = r->scale == -1 ? wmul(l->scale, -1) : l->scale / r->scale, lower;
  return !__builtin_mul_overflow(k, r->lower, &lower) && lower == l->lower;
}

/* Merges terms that add up to a coarser split: x/6*6 + (x%6)/3*3 is x/3*3 (in TVM, a proof
 * by x = p*c*s + q*c + r), then orders the terms by descending scale, lower and upper
 * factors, stably, so that equal scales keep the order the program wrote them in. */
static void merge_terms(Split *args, int n) {
  for (int i = 0; i < n; i++) {
    if (args[i].scale == 0) continue;
    for (int j = i + 1; j < n; j++) {
      Split *l = &args[i], *r = &args[j];
      if (!same_index(l, r) || l->upper < r->lower) break;
      if (l->upper == r->upper && l->lower == r->lower && mode_compatible(l, r->mode)) {
        r->scale = wadd(r->scale, l->scale);
        l->scale = 0;
      } else if (completes(l, r)) {
        r->upper = l->upper;
        l->scale = 0;
        break;
      }
    }
  }
}

static bool split_before(const Split *a, const Split *b) {
  if (a->scale != b->scale) return a->scale > b->scale;
  if (a->lower != b->lower) return a->lower > b->lower;
  if (a->upper != b->upper) return a->upper > b->upper;
  return a->mode > b->mode;
}

static void sort_terms(Split *args, int n) {
  for (int i = 1; i < n; i++) { /* insertion sort: stable, and sums are short */
    Split t = args[i];
    int j = i;
    for (; j > 0 && split_before(&t, &args[j - 1]); j--) args[j] = args[j - 1];
    args[j] = t;
  }
}

static Expr *sum_expr(Simp *s, const Sum *sum) {
  DType t = sum->dtype;
  if (sum->n == 0) return num(s, t, sum->base);
  Split *args = arena_alloc(&s->an->scratch, (size_t)sum->n * sizeof *args);
  memcpy(args, sum->args, (size_t)sum->n * sizeof *args);
  merge_terms(args, sum->n);
  sort_terms(args, sum->n);
  /* the most negative base has no negation to subtract */
  bool min_base =
      t.bits >= 64 ? sum->base == INT64_MIN : sum->base == -(INT64_C(1) << (t.bits - 1));
  Expr *r = num(s, t, 0);
  for (int i = 0; i < sum->n; i++)
    if (args[i].scale > 0) r = op2(s, EXPR_ADD, r, split_expr(s, &args[i], 1));
  if (sum->base > 0 || min_base) r = op2(s, EXPR_ADD, r, num(s, t, sum->base));
  for (int i = 0; i < sum->n; i++)
    if (args[i].scale < 0) r = op2(s, EXPR_SUB, r, split_expr(s, &args[i], -1));
  if (sum->base < 0 && !min_base) r = op2(s, EXPR_SUB, r, num(s, t, -sum->base));
  return r;
}

/* ---- forms ---- */

static Expr *form_expr(Simp *s, const Form *f) {
  switch (f->kind) {
  case CF_EXPR: return f->e;
  case CF_SPLIT: return split_expr(s, &f->split, 1);
  case CF_SUM: return sum_expr(s, f->sum);
  }
  TES_UNREACHABLE();
}

static Split to_split(Simp *s, const Form *f) {
  if (f->kind == CF_SPLIT) return f->split;
  if (f->kind == CF_SUM && f->sum->base == 0 && f->sum->n == 1) return f->sum->args[0];
  return split_of(form_expr(s, f));
}

static Sum *to_sum(Simp *s, const Form *f, DType t) {
  if (f->kind == CF_SUM) return f->sum;
  Sum *sum = sum_new(s, t);
  int64_t v;
  if (form_int(f, &v))
    sum->base = v;
  else
    sum_insert(s, sum, 0, to_split(s, f));
  return sum;
}

static Split convert_mode(Simp *s, Split sp, DivMode m) {
  if (sp.mode == m) return sp;
  if (!mode_compatible(&sp, m)) sp = split_of(split_expr(s, &sp, 1));
  sp.mode = m;
  return sp;
}

/* sp / c for c > 0. */
static Split split_div(Simp *s, Split sp, int64_t c, DivMode m) {
  sp = convert_mode(s, sp, m);
  if (sp.scale % c == 0) {
    sp.scale /= c;
    return sp;
  }
  int64_t lower; /* a negative scale would give negative factors: written out instead */
  if (sp.scale > 0 && c % sp.scale == 0 &&
      !__builtin_mul_overflow(sp.lower, c / sp.scale, &lower)) {
    if (sp.upper == ARITH_POS_INF || sp.upper % lower == 0) {
      sp.scale = 1;
      sp.lower = lower;
      return sp;
    }
    if (sp.upper <= lower) return split_of(num(s, sp.index->dtype, 0)); /* (x % c)/d, d >= c */
    sp.index = mod_impl(s, sp.index, sp.upper, m);
    sp.upper = ARITH_POS_INF;
    sp.scale = 1;
    sp.lower = lower;
    return sp;
  }
  sp = split_of(split_expr(s, &sp, 1));
  sp.lower = c;
  sp.mode = m;
  return sp;
}

/* sp % c for c > 0. */
static Split split_mod(Simp *s, Split sp, int64_t c, DivMode m) {
  sp = convert_mode(s, sp, m);
  if (sp.scale % c == 0) {
    sp.scale = 0;
    return sp;
  }
  int64_t upper; /* (x/l % (c/scale))*scale is ((x % (l*c/scale)) / l)*scale */
  if (sp.scale > 0 && c % sp.scale == 0 &&
      !__builtin_mul_overflow(sp.lower, c / sp.scale, &upper)) {
    if (sp.upper == ARITH_POS_INF || sp.upper % upper == 0) {
      if (upper < sp.upper && sp.upper != ARITH_POS_INF) {
        /* a smaller modulus may simplify the index further: visit it again */
        Form f = from_expr(arith_canon_visit(s, mod_impl(s, sp.index, upper, m)));
        Split r = to_split(s, &f);
        if (sp.lower != 1) r = split_div(s, r, sp.lower, m);
        r.scale = wmul(r.scale, sp.scale);
        return r;
      }
      sp.upper = upper;
      return sp;
    }
    if (upper % sp.upper == 0) return sp; /* (x % 2) % 4 is x % 2 */
  }
  sp = split_of(split_expr(s, &sp, 1));
  sp.mode = m;
  sp.upper = c;
  return sp;
}

/* ---- visiting ---- */

static Form mutate(Simp *s, Expr *e);

static Expr *keep(Expr *r, Expr *orig) { return r == orig || ir_expr_equal(r, orig) ? orig : r; }

/* TVM's TryConstFold on the forms: both operands constant, or an identity with a constant
 * operand (x + 0, x*1, x*0, 0 / x, x % 1). */
static bool fold(Simp *s, ExprKind k, const Form *a, const Form *b, Form *r) {
  int64_t x, y;
  bool ca = form_int(a, &x), cb = form_int(b, &y);
  if (ca && cb) {
    Expr *v = arith_try_fold(out(s), k, a->e, b->e);
    if (v) *r = from_expr(v);
    return v != NULL;
  }
  const Form *pick = NULL;
  if (k == EXPR_ADD) pick = ca && x == 0 ? b : cb && y == 0 ? a : NULL;
  else if (k == EXPR_SUB) pick = cb && y == 0 ? a : NULL;
  else if (k == EXPR_MUL)
    pick = (ca && x == 1) || (cb && y == 0) ? b : (cb && y == 1) || (ca && x == 0) ? a : NULL;
  else if (k == EXPR_DIV || k == EXPR_FLOORDIV) pick = (ca && x == 0) || (cb && y == 1) ? a : NULL;
  else if (ca && x == 0) pick = a; /* the modulos */
  else if (cb && y == 1) {
    *r = from_expr(num(s, b->e->dtype, 0));
    return true;
  }
  if (pick) *r = *pick;
  return pick != NULL;
}

static Form visit_add(Simp *s, Expr *e, int64_t sign) {
  Form a = mutate(s, e->u.bin.a), b = mutate(s, e->u.bin.b), r;
  if (fold(s, e->kind, &a, &b, &r)) return r;
  Sum *sum = to_sum(s, &a, e->dtype);
  int64_t v;
  if (form_int(&b, &v))
    sum->base = wadd(sum->base, wmul(v, sign));
  else if (b.kind == CF_SUM)
    sum_add_sum(s, sum, b.sum, sign);
  else
    sum_add_split(s, sum, to_split(s, &b), sign);
  return from_sum(sum);
}

/* a op b when b is not a positive constant: the node, rebuilt only if a child changed. */
static Form plain(Simp *s, Expr *e, const Form *a, const Form *b) {
  Expr *x = keep(form_expr(s, a), e->u.bin.a), *y = keep(form_expr(s, b), e->u.bin.b);
  if (x == e->u.bin.a && y == e->u.bin.b) return from_expr(e);
  return from_expr(ir_binary(out(s), e->kind, x, y));
}

static Form visit_mul(Simp *s, Expr *e) {
  Form a = mutate(s, e->u.bin.a), b = mutate(s, e->u.bin.b), r;
  if (fold(s, EXPR_MUL, &a, &b, &r)) return r;
  int64_t c;
  if (form_int(&a, &c)) {
    Form t = a;
    a = b, b = t;
  }
  if (!form_int(&b, &c)) return plain(s, e, &a, &b);
  if (a.kind == CF_SUM) {
    sum_mul(a.sum, c);
    return a;
  }
  Split sp = to_split(s, &a);
  sp.scale = wmul(sp.scale, c);
  return from_split(sp);
}

static bool ge0(Simp *s, Expr *e) { return arith_simp_prove_ge(s, e, 0); }

/* a / c (truncating) of a sum: the divisible part divides exactly; the rest, when both parts
 * are non-negative, adds its own quotient unless the bounds prove it below c. False when the
 * signs are unknown. */
static bool trunc_div_sum(Simp *s, Sum *a, int64_t c, Form *r) {
  Sum *lhs, *extra;
  sum_separate(s, a, c, &lhs, &extra);
  if (!sum_is_zero(extra) && (!ge0(s, sum_expr(s, lhs)) || !ge0(s, sum_expr(s, extra))))
    return false;
  sum_divide(lhs, c);
  *r = from_sum(lhs);
  if (sum_is_zero(extra)) return true;
  Expr *rest = sum_expr(s, extra);
  int64_t v;
  if (arith_is_int(rest, &v))
    lhs->base = wadd(lhs->base, v / c);
  else if (arith_simp_compare_const(s, rest, c) != CMP_LT)
    sum_add_split(s, lhs, split_div(s, split_of(rest), c, DIV_TRUNC), 1);
  return true;
}

static Form floor_div_sum(Simp *s, Sum *a, int64_t c) {
  Sum *lhs, *extra;
  sum_separate(s, a, c, &lhs, &extra);
  sum_divide(lhs, c);
  if (sum_is_zero(extra)) return from_sum(lhs);
  Expr *rest = sum_expr(s, extra);
  int64_t v;
  if (arith_is_int(rest, &v))
    lhs->base = wadd(lhs->base, arith_floordiv_i64(v, c));
  else if (!(arith_simp_compare_const(s, rest, c) == CMP_LT && ge0(s, rest)))
    sum_add_split(s, lhs, split_div(s, split_of(rest), c, DIV_FLOOR), 1);
  return from_sum(lhs);
}

static Form visit_div(Simp *s, Expr *e, DivMode m) {
  Form a = mutate(s, e->u.bin.a), b = mutate(s, e->u.bin.b), r;
  if (fold(s, e->kind, &a, &b, &r)) return r;
  int64_t c;
  if (!form_int(&b, &c) || c <= 0) return plain(s, e, &a, &b);
  if (a.kind == CF_SUM) {
    if (m == DIV_FLOOR) return floor_div_sum(s, a.sum, c);
    if (trunc_div_sum(s, a.sum, c, &r)) return r;
  } else {
    ConstBound cb = arith_const_bound(s->an, form_expr(s, &a));
    if (cb.min >= 0 && cb.max < c) return from_expr(num(s, e->dtype, 0));
  }
  return from_split(split_div(s, to_split(s, &a), c, m));
}

/* a % c of a sum: the multiples of c drop out; a remainder the bounds prove in [0, c) is the
 * answer; otherwise the constant shrinks below c where the rounding allows. */
static Form mod_sum(Simp *s, Sum *a, int64_t c, DivMode m) {
  Sum *lhs, *extra;
  sum_separate(s, a, c, &lhs, &extra);
  int64_t v;
  if (m == DIV_TRUNC) {
    if (sum_is_zero(extra)) return from_expr(num(s, a->dtype, 0));
    if (ge0(s, sum_expr(s, lhs)) && ge0(s, sum_expr(s, extra))) {
      Expr *rest = sum_expr(s, extra);
      if (arith_is_int(rest, &v)) return from_expr(op2(s, EXPR_MOD, rest, num(s, a->dtype, c)));
      if (arith_simp_compare_const(s, rest, c) == CMP_LT) return from_expr(rest);
      a = extra;
    }
    /* (x - 5) % 3 is (x - 2) % 3 when x - 5 >= 0 */
    int64_t base = a->base % c, low = arith_const_bound(s->an, sum_expr(s, a)).min, shifted;
    if (low >= 0 && !__builtin_sub_overflow(low, a->base - base, &shifted) && shifted >= 0)
      a->base = base;
    Form f = from_sum(a);
    return from_split(split_mod(s, to_split(s, &f), c, m));
  }
  Expr *rest = sum_expr(s, extra);
  if (arith_is_int(rest, &v)) return from_expr(op2(s, EXPR_FLOORMOD, rest, num(s, a->dtype, c)));
  if (arith_simp_compare_const(s, rest, c) == CMP_LT && ge0(s, rest)) return from_expr(rest);
  extra->base = arith_floormod_i64(extra->base, c); /* floormod(x - 5, 3) is floormod(x + 1, 3) */
  Form f = from_sum(extra);
  return from_split(split_mod(s, to_split(s, &f), c, m));
}

static Form visit_mod(Simp *s, Expr *e, DivMode m) {
  Form a = mutate(s, e->u.bin.a), b = mutate(s, e->u.bin.b), r;
  if (fold(s, e->kind, &a, &b, &r)) return r;
  int64_t c;
  if (!form_int(&b, &c) || c <= 0) return plain(s, e, &a, &b);
  if (a.kind == CF_SUM) return mod_sum(s, a.sum, c, m);
  ConstBound cb = arith_const_bound(s->an, form_expr(s, &a));
  if (cb.min >= 0 && cb.max < c) return a;
  return from_split(split_mod(s, to_split(s, &a), c, m));
}

/* TVM's CanonicalMutate: the form of e, not yet written out. */
static Form mutate(Simp *s, Expr *e) {
  if (!arith_is_index(e->dtype)) return from_expr(arith_simp_node(s, e));
  switch (e->kind) {
  case EXPR_ADD: return visit_add(s, e, 1);
  case EXPR_SUB: return visit_add(s, e, -1);
  case EXPR_MUL: return visit_mul(s, e);
  case EXPR_DIV: return visit_div(s, e, DIV_TRUNC);
  case EXPR_FLOORDIV: return visit_div(s, e, DIV_FLOOR);
  case EXPR_MOD: return visit_mod(s, e, DIV_TRUNC);
  case EXPR_FLOORMOD: return visit_mod(s, e, DIV_FLOOR);
  case EXPR_MIN: case EXPR_MAX: case EXPR_EQ: case EXPR_NE: case EXPR_LT: case EXPR_LE:
  case EXPR_GT: case EXPR_GE: case EXPR_AND: case EXPR_OR:
  ARITH_CASES_NOT_BINARY:
    return from_expr(arith_simp_node(s, e));
  }
  TES_UNREACHABLE();
}

Expr *arith_canon_visit(Simp *s, Expr *e) {
  Form f = mutate(s, e);
  return keep(form_expr(s, &f), e);
}
