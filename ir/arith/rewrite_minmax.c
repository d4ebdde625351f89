/* rewrite_minmax.c: the rewrite rules of min and max (TVM's rewrite_simplify.cc, Min and Max;
 * Halide's Simplify_Min.cpp and Simplify_Max.cpp). The bounds decide first: min(a, b) is a
 * when a can never exceed b. Then come absorption (min(x, max(x, y)) is x), distribution over
 * + and -, and scaling, before constants move outward. */
#include "ir/arith/arith_impl.h"

static bool c1_lt_c2(Simp *s, const PMatch *m) { return m->c[0] < m->c[1]; }
static bool c1_gt_c2(Simp *s, const PMatch *m) { return m->c[0] > m->c[1]; }
static bool c1_neg(Simp *s, const PMatch *m) { return m->c[0] < 0; }
static bool c1_pos(Simp *s, const PMatch *m) { return m->c[0] > 0; }
static bool c2_nonzero(Simp *s, const PMatch *m) { return m->c[1] != 0; }
static bool x_ge1(Simp *s, const PMatch *m) { return arith_simp_prove_ge(s, m->var[PV_X], 1); }

/* c2 > 0 and c1 + 1 == c2: floordiv(x + c1, c2)*c2 is x rounded up to a multiple of c2. */
static bool round_up(Simp *s, const PMatch *m) { return m->c[1] > 0 && m->c[0] + 1 == m->c[1]; }
static bool round_up_x_ge1(Simp *s, const PMatch *m) { return round_up(s, m) && x_ge1(s, m); }
static bool c2_pos(Simp *s, const PMatch *m) { return m->c[1] > 0; }

/* c1 != 0 divides c2, of the sign given. */
static bool c1_pos_divides_c2(Simp *s, const PMatch *m) {
  return m->c[0] > 0 && m->c[1] % m->c[0] == 0;
}
static bool c1_neg_divides_c2(Simp *s, const PMatch *m) {
  return m->c[0] < 0 && arith_divides(m->c[0], m->c[1]);
}

/* clang-format off */
RULES(vector_min,
  R("min(broadcast(x, lanes), broadcast(y, lanes))", "broadcast(min(x, y), lanes)"),
  R("min(min(x, broadcast(y, lanes)), broadcast(z, lanes))", "min(x, broadcast(min(y, z), lanes))"),
);
/* clang-format on */

/* clang-format off */
RULES(index_min_first, R("min(x, x)", "x"), );
/* clang-format on */

/* clang-format off */
RULES(index_min,
  R_IF("min(x + c1, x + c2)", "x + c1", c1_lt_c2),
  R("min(x + c1, x + c2)", "x + c2"),
  R_IF("min(x + c1, x); min(x, x + c1)", "x + c1", c1_neg),
  R("min(x + c1, x); min(x, x + c1)", "x"),
  R_IF("min(c1 - x, c2 - x)", "c1 - x", c1_lt_c2),
  R("min(c1 - x, c2 - x)", "c2 - x"),
  /* truncdiv(x, y) >= floordiv(x, y) */
  R_IF("min(truncdiv(x + c1, c2)*c2, x); min(x, truncdiv(x + c1, c2)*c2);"
       "min(floordiv(x + c1, c2)*c2, x); min(x, floordiv(x + c1, c2)*c2)", "x", round_up),
  R_IF("min(truncdiv(x + c1, c2)*c2, max(x, c2)); min(max(x, c2), truncdiv(x + c1, c2)*c2);"
       "min(floordiv(x + c1, c2)*c2, max(x, c2)); min(max(x, c2), floordiv(x + c1, c2)*c2)",
       "max(x, c2)", round_up_x_ge1),
  R_IF("min(x, floordiv(x, c2)*c2); min(floordiv(x, c2)*c2, x)", "floordiv(x, c2)*c2", c2_pos),
  R("min(max(x, y), min(x, y)); min(max(x, y), min(y, x)); min(min(x, y), max(x, y));"
    "min(min(x, y), max(y, x)); min(min(x, y), x); min(min(x, y), y); min(x, min(x, y));"
    "min(y, min(x, y))", "min(x, y)"),
  R("min(max(x, y), x); min(max(y, x), x); min(x, max(x, y)); min(x, max(y, x))", "x"),
  R("min(min(min(x, y), z), y)", "min(min(x, y), z)"),
  R("min(min(min(min(x, y), z), s1), y)", "min(min(min(x, y), z), s1)"),
  R("min(min(min(min(min(x, y), z), s1), s2), y)", "min(min(min(min(x, y), z), s1), s2)"),
  R("min(max(x, y), max(x, z)); min(max(x, y), max(z, x)); min(max(y, x), max(x, z));"
    "min(max(y, x), max(z, x))", "max(min(y, z), x)"),
  R("min(min(x, y), min(x, z)); min(min(x, y), min(z, x)); min(min(y, x), min(x, z));"
    "min(min(y, x), min(z, x))", "min(min(y, z), x)"),
  R("min(y + x, z + x); min(y + x, x + z); min(x + y, x + z); min(x + y, z + x)", "min(y, z) + x"),
  R("min(y - x, z - x)", "min(y, z) - x"),
  R("min(x - y, x - z)", "x - max(y, z)"),
  R("min(min(x, c1), c2)", "min(x, min(c1, c2))"),
  R_IF("min(truncdiv(x, c1), truncdiv(y, c1))", "truncdiv(min(x, y), c1)", c1_pos),
  R_IF("min(truncdiv(x, c1), truncdiv(y, c1))", "truncdiv(max(x, y), c1)", c1_neg),
  R_IF("min(floordiv(x, c1), floordiv(y, c1))", "floordiv(min(x, y), c1)", c1_pos),
  R_IF("min(floordiv(x, c1), floordiv(y, c1))", "floordiv(max(x, y), c1)", c1_neg),
  R_IF("min(x*c1, y*c1)", "min(x, y)*c1", c1_pos),
  R_IF("min(x*c1, y*c1)", "max(x, y)*c1", c1_neg),
  R_IF("min(x*c1, c2)", "min(x, truncdiv(c2, c1))*c1", c1_pos_divides_c2),
  R_IF("min(x*c1, c2)", "max(x, truncdiv(c2, c1))*c1", c1_neg_divides_c2),
  R_AGAIN("min(min(x, c1), y)", "min(min(x, y), c1)"),
  R_AGAIN_IF("min(c1 - x, c2)", "c1 - max(x, c1 - c2)", c2_nonzero),
);
/* clang-format on */

/* clang-format off */
RULES(select_min,
  R("min(select(x, y, z), select(x, s1, s2))", "select(x, min(y, s1), min(z, s2))"),
);
/* clang-format on */

/* min(a, b) is the operand the bounds prove no greater than the other. */
static Expr *by_bounds(Simp *s, Expr *e, bool is_min) {
  ConstBound a = arith_const_bound(s->an, e->u.bin.a), b = arith_const_bound(s->an, e->u.bin.b);
  if (is_min ? a.max <= b.min : a.min >= b.max) return e->u.bin.a;
  if (is_min ? b.max <= a.min : b.min >= a.max) return e->u.bin.b;
  return NULL;
}

Expr *arith_rw_min(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_MIN, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_min, e);
  if (!r && arith_is_index(e->dtype) && !(r = arith_rules_apply(s, &index_min_first, e)) &&
      !(r = by_bounds(s, e, true)))
    r = arith_rules_apply(s, &index_min, e);
  if (!r) r = arith_rules_apply(s, &select_min, e);
  return r ? r : e;
}

/* clang-format off */
RULES(vector_max,
  R("max(broadcast(x, lanes), broadcast(y, lanes))", "broadcast(max(x, y), lanes)"),
  R("max(max(x, broadcast(y, lanes)), broadcast(z, lanes))", "max(x, broadcast(max(y, z), lanes))"),
);
/* clang-format on */

/* clang-format off */
RULES(index_max_first, R("max(x, x)", "x"), );
/* clang-format on */

/* clang-format off */
RULES(index_max,
  R_IF("max(x + c1, x + c2)", "x + c1", c1_gt_c2),
  R("max(x + c1, x + c2)", "x + c2"),
  R_IF("max(x + c1, x); max(x, x + c1)", "x + c1", c1_pos),
  R("max(x + c1, x); max(x, x + c1)", "x"),
  R_IF("max(c1 - x, c2 - x)", "c1 - x", c1_gt_c2),
  R("max(c1 - x, c2 - x)", "c2 - x"),
  R_IF("max(truncdiv(x + c1, c2)*c2, x); max(x, truncdiv(x + c1, c2)*c2)",
       "truncdiv(x + c1, c2)*c2", round_up),
  R_IF("max(floordiv(x + c1, c2)*c2, x); max(x, floordiv(x + c1, c2)*c2)",
       "floordiv(x + c1, c2)*c2", round_up),
  R_IF("max(floordiv(x, c2)*c2, x); max(x, floordiv(x, c2)*c2)", "x", c2_pos),
  R("max(min(x, y), x); max(min(y, x), x); max(x, min(x, y)); max(x, min(y, x))", "x"),
  R("max(min(x, y), max(x, y)); max(min(x, y), max(y, x)); max(max(x, y), min(x, y));"
    "max(max(x, y), min(y, x)); max(max(x, y), x); max(max(x, y), y); max(x, max(x, y));"
    "max(y, max(x, y))", "max(x, y)"),
  R("max(max(max(x, y), z), y)", "max(max(x, y), z)"),
  R("max(max(max(max(x, y), z), s1), y)", "max(max(max(x, y), z), s1)"),
  R("max(max(max(max(max(x, y), z), s1), s2), y)", "max(max(max(max(x, y), z), s1), s2)"),
  R("max(max(x, y), max(x, z)); max(max(x, y), max(z, x)); max(max(y, x), max(x, z));"
    "max(max(y, x), max(z, x))", "max(max(y, z), x)"),
  R("max(min(x, y), min(x, z)); max(min(x, y), min(z, x)); max(min(y, x), min(x, z));"
    "max(min(y, x), min(z, x))", "min(max(y, z), x)"),
  R("max(y + x, z + x); max(y + x, x + z); max(x + y, x + z); max(x + y, z + x)", "max(y, z) + x"),
  R("max(y - x, z - x)", "max(y, z) - x"),
  R("max(x - y, x - z)", "x - min(y, z)"),
  R("max(max(x, c1), c2)", "max(x, max(c1, c2))"),
  R_IF("max(truncdiv(x, c1), truncdiv(y, c1))", "truncdiv(max(x, y), c1)", c1_pos),
  R_IF("max(truncdiv(x, c1), truncdiv(y, c1))", "truncdiv(min(x, y), c1)", c1_neg),
  R_IF("max(floordiv(x, c1), floordiv(y, c1))", "floordiv(max(x, y), c1)", c1_pos),
  R_IF("max(floordiv(x, c1), floordiv(y, c1))", "floordiv(min(x, y), c1)", c1_neg),
  R_IF("max(x*c1, y*c1)", "max(x, y)*c1", c1_pos),
  R_IF("max(x*c1, y*c1)", "min(x, y)*c1", c1_neg),
  R_IF("max(x*c1, c2)", "max(x, truncdiv(c2, c1))*c1", c1_pos_divides_c2),
  R_IF("max(x*c1, c2)", "min(x, truncdiv(c2, c1))*c1", c1_neg_divides_c2),
  R_AGAIN("max(max(x, c1), y)", "max(max(x, y), c1)"),
  R_AGAIN_IF("max(c1 - x, c2)", "c1 - min(x, c1 - c2)", c2_nonzero),
);
/* clang-format on */

/* clang-format off */
RULES(select_max,
  R("max(select(x, y, z), select(x, s1, s2))", "select(x, max(y, s1), max(z, s2))"),
);
/* clang-format on */

Expr *arith_rw_max(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_MAX, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_max, e);
  if (!r && arith_is_index(e->dtype) && !(r = arith_rules_apply(s, &index_max_first, e)) &&
      !(r = by_bounds(s, e, false)))
    r = arith_rules_apply(s, &index_max, e);
  if (!r) r = arith_rules_apply(s, &select_max, e);
  return r ? r : e;
}
