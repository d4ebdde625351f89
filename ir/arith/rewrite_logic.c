/* rewrite_logic.c: the rewrite rules of !, &&, ||, select and the intrinsic calls the
 * simplifier understands (TVM's rewrite_simplify.cc, Not And Or Select Call). A negation is
 * pushed into comparisons so that no ! is left in front of one; contradictions and tautologies
 * over one variable fold; `likely(c)` gives way to c once c is a constant or a pushed fact,
 * which is how the guards of a split disappear where the bounds prove them. */
#include <string.h>

#include "ir/arith/arith_impl.h"

/* clang-format off */
RULES(vector_not, R("!broadcast(x, lanes)", "broadcast(!x, lanes)"), );
/* clang-format on */

/* clang-format off */
RULES(not_rules,
  R("!!x", "x"),
  R("!(x <= y)", "y < x"),
  R("!(x >= y)", "x < y"),
  R("!(x < y)", "y <= x"),
  R("!(x > y)", "x <= y"),
  R("!(x == y)", "x != y"),
  R("!(x != y)", "x == y"),
  R_AGAIN("!(x || y)", "!x && !y"),
  R_AGAIN("!(x && y)", "!x || !y"),
);
/* clang-format on */

Expr *arith_rw_apply_not(Simp *s, Expr *e) {
  Expr *r = e->dtype.lanes > 1 ? arith_rules_apply(s, &vector_not, e) : NULL;
  if (!r) r = arith_rules_apply(s, &not_rules, e);
  return r ? r : e;
}

Expr *arith_rw_not(Simp *s, Expr *e) {
  if (e->u.unary.a->kind == EXPR_INT) return arith_not(s->an->arena, e->u.unary.a);
  Expr *fact = arith_simp_fact(s, e);
  return fact ? fact : arith_rw_apply_not(s, e);
}

static bool c2_plus1_ge_c1(Simp *s, const PMatch *m) { return m->c[1] >= m->c[0] - 1; }
static bool c2_ge_c1(Simp *s, const PMatch *m) { return m->c[1] >= m->c[0]; }
static bool c2_gt_c1(Simp *s, const PMatch *m) { return m->c[1] > m->c[0]; }
static bool c2_lt_c1(Simp *s, const PMatch *m) { return m->c[1] < m->c[0]; }
static bool c2_le_c1(Simp *s, const PMatch *m) { return m->c[1] <= m->c[0]; }
static bool c2_le_c1_plus1(Simp *s, const PMatch *m) { return m->c[1] - 1 <= m->c[0]; }
static bool c1_pos(Simp *s, const PMatch *m) { return m->c[0] > 0; }
static bool c2_is_neg_c1(Simp *s, const PMatch *m) { return m->c[1] == -m->c[0]; }

/* floormod(x, c2) < c3 is a real restriction: 0 < c3 < c2. */
static bool mod_window(const PMatch *m) { return m->c[1] > 0 && m->c[2] > 0 && m->c[2] < m->c[1]; }
/* x < c1 with c1 a multiple of c2: the last c2 - c3 values below c1 are excluded. */
static bool below_multiple(Simp *s, const PMatch *m) {
  return mod_window(m) && m->c[0] % m->c[1] == 0;
}
static bool below_rest(Simp *s, const PMatch *m) {
  return mod_window(m) && arith_floormod_i64(m->c[0], m->c[1]) > m->c[2];
}
static bool upto_multiple(Simp *s, const PMatch *m) {
  return mod_window(m) && m->c[0] < INT64_MAX && (m->c[0] + 1) % m->c[1] == 0;
}
static bool upto_rest(Simp *s, const PMatch *m) {
  return mod_window(m) && m->c[0] < INT64_MAX && arith_floormod_i64(m->c[0] + 1, m->c[1]) > m->c[2];
}

/* clang-format off */
RULES(vector_and, R("broadcast(x, lanes) && broadcast(y, lanes)", "broadcast(x && y, lanes)"), );
/* clang-format on */

/* clang-format off */
RULES(and_rules,
  R("x == y && x != y; x != y && x == y; x && !x; x <= y && y < x; y < x && x <= y", "false"),
  R_IF("x < c1 && c2 < x; c2 < x && x < c1", "false", c2_plus1_ge_c1),
  R_IF("x < c1 && c2 <= x; c2 <= x && x < c1; x <= c1 && c2 < x; c2 < x && x <= c1", "false",
       c2_ge_c1),
  R_IF("x <= c1 && c2 <= x; c2 <= x && x <= c1", "false", c2_gt_c1),
  R("x == c1 && x == c2", "x == c1 && c1 == c2"),
  R("x == c1 && x != c2; x != c2 && x == c1", "x == c1 && c1 != c2"),
  R_AGAIN("floordiv(x, c2) == c1 && floormod(x, c2) == c3;"
          "floormod(x, c2) == c3 && floordiv(x, c2) == c1",
          "x == c1*c2 + c3"),
  R_AGAIN_IF("0 <= x - y*c1 && x - y*c1 < c1; x - y*c1 < c1 && 0 <= x - y*c1",
             "y == floordiv(x, c1)",
             c1_pos),
  R_AGAIN_IF("0 <= x + y*c2 && x + y*c2 < c1; x + y*c2 < c1 && 0 <= x + y*c2",
             "y == floordiv(x, c1)",
             c2_is_neg_c1),
  /* an upper bound of x narrows to the last value with floormod(x, c2) < c3 */
  R_AGAIN_IF("x < c1 && floormod(x, c2) < c3", "x < c1 - c2 + c3 && floormod(x, c2) < c3",
             below_multiple),
  R_AGAIN_IF("x < c1 && floormod(x, c2) < c3",
             "x < c1 - floormod(c1, c2) + c3 && floormod(x, c2) < c3", below_rest),
  R_AGAIN_IF("x <= c1 && floormod(x, c2) < c3", "x < c1 + 1 - c2 + c3 && floormod(x, c2) < c3",
             upto_multiple),
  R_AGAIN_IF("x <= c1 && floormod(x, c2) < c3",
             "x < c1 + 1 - floormod(c1, c2) + c3 && floormod(x, c2) < c3", upto_rest),
  /* a known quotient and a bound on the remainder make a range */
  R_AGAIN("floordiv(x, c2) == c1 && floormod(x, c2) < c3;"
          "floormod(x, c2) < c3 && floordiv(x, c2) == c1",
          "c1*c2 <= x && x < c1*c2 + c3"),
  R_AGAIN("floordiv(x, c2) == c1 && floormod(x, c2) <= c3;"
          "floormod(x, c2) <= c3 && floordiv(x, c2) == c1",
          "c1*c2 <= x && x <= c1*c2 + c3"),
  R_AGAIN("floordiv(x, c2) == c1 && c3 <= floormod(x, c2);"
          "c3 <= floormod(x, c2) && floordiv(x, c2) == c1",
          "c1*c2 + c3 <= x && x < (c1 + 1)*c2"),
  R_AGAIN("floordiv(x, c2) == c1 && c3 < floormod(x, c2);"
          "c3 < floormod(x, c2) && floordiv(x, c2) == c1",
          "c1*c2 + c3 < x && x < (c1 + 1)*c2"),
  R_AGAIN("x && (y && z)", "(x && y) && z"),
);
/* clang-format on */

/* x && y or x || y with a vector operand whose lanes are all one constant: the constant that
 * decides it (False && x, True || x), or the other operand (True && x, False || x). */
static Expr *uniform_operand(Expr *e) {
  int64_t v;
  bool deciding = e->kind == EXPR_OR;
  for (int i = 0; i < 2; i++) {
    Expr *x = i ? e->u.bin.b : e->u.bin.a, *other = i ? e->u.bin.a : e->u.bin.b;
    if (x->kind == EXPR_BROADCAST && arith_is_int(x->u.bcast.value, &v))
      return (v != 0) == deciding ? x : other;
  }
  return NULL;
}

Expr *arith_rw_and(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_AND, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1) r = uniform_operand(e);
  if (!r) r = arith_simp_fact(s, e);
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_and, e);
  if (!r) r = arith_rules_apply(s, &and_rules, e);
  return r ? r : e;
}

/* clang-format off */
RULES(vector_or, R("broadcast(x, lanes) || broadcast(y, lanes)", "broadcast(x || y, lanes)"), );
/* clang-format on */

/* clang-format off */
RULES(or_rules,
  R("x == y || x != y; x != y || x == y; x || !x; x <= y || y < x; y < x || x <= y", "true"),
  R("x < y || y < x", "x != y"),
  R_IF("x < c1 || c2 < x; c2 < x || x < c1", "true", c2_lt_c1),
  R_IF("x <= c1 || c2 < x; c2 < x || x <= c1; x < c1 || c2 <= x; c2 <= x || x < c1", "true",
       c2_le_c1),
  R_IF("x <= c1 || c2 <= x; c2 <= x || x <= c1", "true", c2_le_c1_plus1),
  R("x != c1 || x != c2", "x != c1 || c1 != c2"),
  R("x != c1 || x == c2; x == c2 || x != c1", "x != c1 || c1 == c2"),
  R_AGAIN("x < y || x == y; x < y || y == x; x == y || x < y; y == x || x < y", "x <= y"),
  R_AGAIN("x || (y || z)", "(x || y) || z"),
);
/* clang-format on */

Expr *arith_rw_or(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_OR, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1) r = uniform_operand(e);
  if (!r) r = arith_simp_fact(s, e);
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_or, e);
  if (!r) r = arith_rules_apply(s, &or_rules, e);
  return r ? r : e;
}

/* clang-format off */
RULES(select_rules, R("select(x, y, y)", "y"), );
/* clang-format on */

Expr *arith_rw_select(Simp *s, Expr *e) {
  Expr *r = arith_rules_apply(s, &select_rules, e);
  return r ? r : e;
}

/* likely(c) is c once c is known; a pushed fact makes it known too (a loop inside
 * `if i < n` proving its own likely(i < n)). if_then_else(c, t, t) is t, as select's rule. */
static bool is_if_then_else(const Expr *e) {
  return e->kind == EXPR_CALL && e->u.call.n == 3 && !strcmp(e->u.call.op, "tir.if_then_else");
}

/* if_then_else(c, if_then_else(d, t, k), k) for a constant k is if_then_else(c && d, t, k). */
static Expr *nested_if_then_else(Simp *s, Expr *e) {
  Expr **args = e->u.call.args;
  if (!is_if_then_else(args[1])) return NULL;
  Expr **inner = args[1]->u.call.args;
  bool number = inner[2]->kind == EXPR_INT || inner[2]->kind == EXPR_FLOAT;
  if (!number || !ir_expr_equal(inner[2], args[2])) return NULL;
  Expr *merged[3] = {arith_binary(s->an->arena, EXPR_AND, args[0], inner[0]), inner[1], args[2]};
  return ir_call(s->an->arena, e->dtype, e->u.call.op, e->u.call.ckind, 3, merged);
}

Expr *arith_rw_call(Simp *s, Expr *e) {
  if (is_if_then_else(e)) {
    if (ir_expr_equal(e->u.call.args[1], e->u.call.args[2]) && arith_is_pure(e->u.call.args[0]))
      return e->u.call.args[1];
    Expr *r = nested_if_then_else(s, e);
    return r ? r : e;
  }
  if (strcmp(e->u.call.op, "tir.likely") != 0 || e->u.call.n != 1) return e;
  Expr *c = e->u.call.args[0];
  if (c->kind == EXPR_INT) return c;
  Expr *fact = arith_simp_fact(s, c);
  return fact ? fact : e;
}
