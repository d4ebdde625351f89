/* rewrite_cmp.c: the rewrite rules of comparisons (TVM's rewrite_simplify.cc, EQ NE LT LE).
 * GT and GE never reach here: the walk turns a > b into b < a and a >= b into b <= a, and
 * a <= b is decided as !(b < a). The bounds decide a comparison first (a < b when a - b is
 * bounded below 0); otherwise a constant moves to one side and a constant factor divides out,
 * with the rounding that keeps the integers the comparison admits. */
#include "ir/arith/arith_impl.h"
#include "ir/support.h"

static Expr *truth(Simp *s, Expr *e, bool v) { return arith_const(s->an->arena, e->dtype, v); }

static bool c1_pos(Simp *s, const PMatch *m) { return m->c[0] > 0; }
static bool c1_neg(Simp *s, const PMatch *m) { return m->c[0] < 0; }
static bool c2_pos(Simp *s, const PMatch *m) { return m->c[1] > 0; }
static bool c1_pos_c2_pos(Simp *s, const PMatch *m) { return m->c[0] > 0 && m->c[1] > 0; }
static bool c1_le0_c2_pos(Simp *s, const PMatch *m) { return m->c[0] <= 0 && m->c[1] > 0; }
static bool c1_pos_c2_neg(Simp *s, const PMatch *m) { return m->c[0] > 0 && m->c[1] < 0; }
static bool c1_le0_c2_neg(Simp *s, const PMatch *m) { return m->c[0] <= 0 && m->c[1] < 0; }
static bool c1_neg_c2_pos(Simp *s, const PMatch *m) { return m->c[0] < 0 && m->c[1] > 0; }
static bool c1_ge0_c2_pos(Simp *s, const PMatch *m) { return m->c[0] >= 0 && m->c[1] > 0; }
static bool c1_neg_c2_neg(Simp *s, const PMatch *m) { return m->c[0] < 0 && m->c[1] < 0; }
static bool c1_ge0_c2_neg(Simp *s, const PMatch *m) { return m->c[0] >= 0 && m->c[1] < 0; }
static bool c1_pos_c2_le0(Simp *s, const PMatch *m) { return m->c[0] > 0 && m->c[1] <= 0; }
static bool x_pure(Simp *s, const PMatch *m) { return arith_is_pure(m->var[PV_X]); }

/* clang-format off */
RULES(vector_lt,
  R("broadcast(x, lanes) < broadcast(y, lanes)", "broadcast(x < y, lanes)"),
  R("ramp(x, s1, lanes) < ramp(y, s1, lanes)", "broadcast(x < y, lanes)"),
);
/* clang-format on */

/* clang-format off */
RULES(index_lt,
  R("x + y < x + z; x + y < z + x; y + x < x + z; y + x < z + x", "y < z"),
  R("y - x < z - x", "y < z"),
  R("x - y < x - z", "z < y"),
  R("x < x + z; x < z + x", "0 < z"),
  R("x < x - z", "z < 0"),
  R_IF("x*c1 < y*c1", "x < y", c1_pos),
  R_IF("x*c1 < y*c1", "y < x", c1_neg),
  /* x*c2 < c1 keeps the integers x with x*c2 <= c1 - 1 */
  R_IF("x*c2 < c1", "x < truncdiv(c1 - 1, c2) + 1", c1_pos_c2_pos),
  R_IF("x*c2 < c1", "x < truncdiv(c1, c2)", c1_le0_c2_pos),
  R_IF("x*c2 < c1", "truncdiv(c1 - 1, c2) - 1 < x", c1_pos_c2_neg),
  R_IF("x*c2 < c1", "truncdiv(c1, c2) < x", c1_le0_c2_neg),
  R_IF("c1 < x*c2", "truncdiv(c1 + 1, c2) - 1 < x", c1_neg_c2_pos),
  R_IF("c1 < x*c2", "truncdiv(c1, c2) < x", c1_ge0_c2_pos),
  R_IF("c1 < x*c2", "x < truncdiv(c1 + 1, c2) + 1", c1_neg_c2_neg),
  R_IF("c1 < x*c2", "x < truncdiv(c1, c2)", c1_ge0_c2_neg),
  R_IF("truncdiv(x, c1) < c2", "x < c1*c2", c1_pos_c2_pos),
  R_IF("truncdiv(x, c1) < c2", "x < c1*(c2 - 1) + 1", c1_pos_c2_le0),
  R_IF("c1 < truncdiv(x, c2)", "(c1 + 1)*c2 - 1 < x", c1_ge0_c2_pos),
  R_IF("c1 < truncdiv(x, c2)", "c1*c2 < x", c1_neg_c2_pos),
  /* x - (x/c)*c is x % c */
  R_IF("truncdiv(x, c1)*c1 < x", "0 < truncmod(x, c1)", c1_pos),
  R_IF("truncdiv(x, c1)*c1 < x + y", "0 < truncmod(x, c1) + y", c1_pos),
  R_IF("truncdiv(x, c1)*c1 < x - y", "y < truncmod(x, c1)", c1_pos),
  R_IF("truncdiv(x + c2, c1)*c1 < x", "c2 < truncmod(x + c2, c1)", c1_pos),
  R_IF("truncdiv(x + c2, c1)*c1 < x + y", "c2 < truncmod(x + c2, c1) + y", c1_pos),
  R_IF("truncdiv(x + c2, c1)*c1 < x - y", "y < truncmod(x + c2, c1) + (0 - c2)", c1_pos),
  R_IF("floordiv(x, c1) < c2", "x < c1*c2", c1_pos),
  R_IF("c1 < floordiv(x, c2)", "(c1 + 1)*c2 - 1 < x", c2_pos),
  R_IF("floordiv(x, c1)*c1 < x", "0 < floormod(x, c1)", c1_pos),
  R_IF("floordiv(x, c1)*c1 < x + y", "0 < floormod(x, c1) + y", c1_pos),
  R_IF("floordiv(x, c1)*c1 < x - y", "y < floormod(x, c1)", c1_pos),
  R_IF("floordiv(x + c2, c1)*c1 < x", "c2 < floormod(x + c2, c1)", c1_pos),
  R_IF("floordiv(x + c2, c1)*c1 < x + y", "c2 < floormod(x + c2, c1) + y", c1_pos),
  R_IF("floordiv(x + c2, c1)*c1 < x - y", "y < floormod(x + c2, c1) + (0 - c2)", c1_pos),
  R_AGAIN("min(x, y) < z", "x < z || y < z"),
  R_AGAIN("max(x, y) < z", "x < z && y < z"),
  R_AGAIN("z < min(x, y)", "z < x && z < y"),
  R_AGAIN("z < max(x, y)", "z < x || z < y"),
  R_AGAIN("c1 < x + c2; c1 - x < c2", "c1 - c2 < x"),
  R_AGAIN("c1 < c2 - x; x + c1 < c2", "x < c2 - c1"),
  R_AGAIN("c1 < x - c2", "c1 + c2 < x"),
  R_AGAIN("x - c2 < c1", "x < c1 + c2"),
  R_AGAIN("x < c1 - y", "x + y < c1"),
  R_AGAIN("c1 - y < x", "c1 < x + y"),
  R_AGAIN("x < c1 + y", "x - y < c1"),
  R_AGAIN("c1 + y < x", "c1 < x - y"),
);
/* clang-format on */

/* The base and the constant stride of a ramp, or of a broadcast (stride 0). */
static bool lanes_linear(Expr *e, Expr **base, int64_t *stride) {
  if (e->kind == EXPR_BROADCAST) {
    *base = e->u.bcast.value;
    *stride = 0;
    return true;
  }
  *base = e->kind == EXPR_RAMP ? e->u.ramp.base : NULL;
  return *base && arith_is_int(e->u.ramp.stride, stride);
}

/* a < b over lanes that are each linear (ramps and broadcasts): lane l compares
 * base_a + l*(stride_a - stride_b) with base_b, so every lane holds when the lane where the
 * left side is largest does, and none does when the one where it is smallest does not. A
 * ramp against a loop bound (`ramp(x*16, 1, 16) < broadcast(n*16, 16)`) folds this way. */
static Expr *linear_lanes_lt(Simp *s, Expr *e) {
  Expr *a, *b;
  int64_t sa, sb, span;
  if (!arith_is_index(dt_element(e->u.bin.a->dtype)) || !lanes_linear(e->u.bin.a, &a, &sa) ||
      !lanes_linear(e->u.bin.b, &b, &sb))
    return NULL;
  if (__builtin_sub_overflow(sa, sb, &span) ||
      __builtin_mul_overflow(span, (int64_t)e->dtype.lanes - 1, &span))
    return NULL;
  Arena *ar = s->an->arena;
  DType t = a->dtype;
  Expr *top = arith_binary(ar, EXPR_ADD, a, arith_const(ar, t, span > 0 ? span : 0));
  if (arith_simp_compare(s, top, b) == CMP_LT) return truth(s, e, true);
  Expr *bottom = arith_binary(ar, EXPR_ADD, a, arith_const(ar, t, span < 0 ? span : 0));
  CmpResult c = arith_simp_compare(s, bottom, b);
  return c == CMP_EQ || c == CMP_GT || c == CMP_GE ? truth(s, e, false) : NULL;
}

Expr *arith_rw_apply_lt(Simp *s, Expr *e) {
  Expr *r = NULL;
  if (e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_lt, e);
  if (!r && e->dtype.lanes > 1) r = linear_lanes_lt(s, e);
  if (r || !arith_is_index(e->u.bin.a->dtype)) return r ? r : e;
  CmpResult c = arith_simp_compare(s, e->u.bin.a, e->u.bin.b);
  if (c == CMP_LT) return truth(s, e, true);
  if (c == CMP_EQ || c == CMP_GT || c == CMP_GE) return truth(s, e, false);
  r = arith_rules_apply(s, &index_lt, e);
  return r ? r : e;
}

/* What every comparison does first: fold constants, then look the node up among the facts. */
static Expr *fold_or_fact(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, e->kind, e->u.bin.a, e->u.bin.b);
  return r ? r : arith_simp_fact(s, e);
}

Expr *arith_rw_lt(Simp *s, Expr *e) {
  Expr *r = fold_or_fact(s, e);
  return r ? r : arith_rw_apply_lt(s, e);
}

static Expr *node(Simp *s, ExprKind k, Expr *a, Expr *b) {
  return ir_binary(s->an->arena, k, a, b);
}

/* !c with the ! pushed inward (a constant c just flips). */
static Expr *negated(Simp *s, Expr *c) {
  Arena *a = s->an->arena;
  return c->kind == EXPR_INT ? arith_not(a, c) : arith_rw_apply_not(s, ir_not(a, c));
}

/* a <= b is !(b < a); what the bounds leave open of a <= b narrows it to < or ==. */
Expr *arith_rw_le(Simp *s, Expr *e) {
  Expr *r = fold_or_fact(s, e);
  if (r) return r;
  Expr *lt = arith_rw_apply_lt(s, node(s, EXPR_LT, e->u.bin.b, e->u.bin.a));
  r = negated(s, lt);
  if (r->kind != EXPR_LE || !arith_is_index(r->u.bin.a->dtype)) return r;
  Expr *a = r->u.bin.a, *b = r->u.bin.b;
  switch (arith_simp_compare(s, a, b)) {
  case CMP_LE: case CMP_LT: case CMP_EQ: return truth(s, e, true);
  case CMP_GT: return truth(s, e, false);
  case CMP_NE: return arith_rw_apply_lt(s, node(s, EXPR_LT, a, b));
  case CMP_GE: return arith_rw_apply_eq(s, node(s, EXPR_EQ, a, b));
  case CMP_UNKNOWN: return r;
  }
  TES_UNREACHABLE();
}

/* clang-format off */
RULES(vector_eq,
  R("broadcast(x, lanes) == broadcast(y, lanes)", "broadcast(x == y, lanes)"),
);
/* clang-format on */

/* clang-format off */
RULES(index_eq,
  R("c1 == x", "x == c1"),
  R("x - c1 == c2", "x == c2 + c1"),
  R("c1 - x == c2", "x == c1 - c2"),
  R("x + c1 == c2", "x == c2 - c1"),
  R_AGAIN("x*y == 0", "x == 0 || y == 0"),
  R("x == x", "true"),
);
/* clang-format on */

/* NaN == NaN is false; like TVM, the rules assume there is no NaN. */
/* clang-format off */
RULES(other_eq, R_IF("x == x", "true", x_pure), );
/* clang-format on */

Expr *arith_rw_apply_eq(Simp *s, Expr *e) {
  Expr *r = NULL;
  if (e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_eq, e);
  if (r) return r;
  if (!arith_is_index(e->u.bin.a->dtype)) {
    r = arith_rules_apply(s, &other_eq, e);
    return r ? r : e;
  }
  CmpResult c = arith_simp_compare(s, e->u.bin.a, e->u.bin.b);
  if (c == CMP_EQ) return truth(s, e, true);
  if (c == CMP_NE || c == CMP_GT || c == CMP_LT) return truth(s, e, false);
  r = arith_rules_apply(s, &index_eq, e);
  return r ? r : e;
}

Expr *arith_rw_eq(Simp *s, Expr *e) {
  Expr *r = fold_or_fact(s, e);
  return r ? r : arith_rw_apply_eq(s, e);
}

/* a != b is !(a == b), unless the bounds already know one side of it. */
Expr *arith_rw_ne(Simp *s, Expr *e) {
  Expr *r = fold_or_fact(s, e);
  if (r) return r;
  Expr *a = e->u.bin.a, *b = e->u.bin.b;
  if (arith_is_index(a->dtype)) {
    switch (arith_simp_compare(s, a, b)) {
    case CMP_NE: case CMP_GT: case CMP_LT: return truth(s, e, true);
    case CMP_EQ: return truth(s, e, false);
    case CMP_GE: return arith_rw_apply_lt(s, node(s, EXPR_LT, b, a));
    case CMP_LE: return arith_rw_apply_lt(s, node(s, EXPR_LT, a, b));
    case CMP_UNKNOWN: break;
    }
  }
  Expr *eq = arith_rw_apply_eq(s, node(s, EXPR_EQ, a, b));
  return negated(s, eq);
}
