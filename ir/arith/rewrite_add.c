/* rewrite_add.c: the rewrite rules of + and - (TVM's rewrite_simplify.cc, Add and Sub; most
 * rules come from Halide's Simplify_Add.cpp and Simplify_Sub.cpp). Cancellation first, then
 * division identities, then canonicalisation: constants move right (x - c becomes x + -c,
 * which the canonical simplifier prints back as x - c) and min/max move left, so that later
 * rules see one order. */
#include "ir/arith/arith_impl.h"

static bool c1_is_neg_c2(Simp *s, const PMatch *m) { return m->c[0] == -m->c[1]; }
static bool c1_nonzero(Simp *s, const PMatch *m) { return m->c[0] != 0; }
static bool c2_pos(Simp *s, const PMatch *m) { return m->c[1] > 0; }
static bool c3_pos(Simp *s, const PMatch *m) { return m->c[2] > 0; }
static bool c1_odd(Simp *s, const PMatch *m) { return arith_floormod_i64(m->c[0], 2) == 1; }

/* c1 != 0 and c3 == c1*c2: x*c2 - (x/c1)*c3 is (x % c1)*c2. */
static bool c3_is_c1_c2(Simp *s, const PMatch *m) {
  int64_t p;
  return m->c[0] != 0 && !__builtin_mul_overflow(m->c[0], m->c[1], &p) && p == m->c[2];
}

static bool x_pure(Simp *s, const PMatch *m) { return arith_is_pure(m->var[PV_X]); }
static bool y_pure(Simp *s, const PMatch *m) { return arith_is_pure(m->var[PV_Y]); }

/* min(b1, b2) - min(s1, s2) is b1 - s1 when the pairs differ by the same amount. */
static bool same_offsets(Simp *s, const PMatch *m) {
  Arena *a = s->an->arena;
  Expr *d1 = arith_binary(a, EXPR_SUB, m->var[PV_B1], m->var[PV_S1]);
  Expr *d2 = arith_binary(a, EXPR_SUB, m->var[PV_B2], m->var[PV_S2]);
  return arith_simp_prove_equal(s, arith_binary(a, EXPR_SUB, d1, d2), 0);
}

/* truncdiv(x + c1, c3) - truncdiv(x + c2, c3) needs x + c2 >= 0. */
static bool trunc_offsets(Simp *s, const PMatch *m) {
  return m->c[0] >= m->c[1] && m->c[2] > 0 && m->c[1] != INT64_MIN &&
         arith_simp_prove_ge(s, m->var[PV_X], -m->c[1]);
}

static bool trunc_offset0(Simp *s, const PMatch *m) {
  return m->c[0] >= 0 && m->c[2] > 0 && arith_simp_prove_ge(s, m->var[PV_X], 0);
}

/* clang-format off */
RULES(vector_add,
  R("ramp(b1, s1, lanes) + ramp(b2, s2, lanes)", "ramp(b1 + b2, s1 + s2, lanes)"),
  R("ramp(b1, s1, lanes) + broadcast(x, lanes)", "ramp(b1 + x, s1, lanes)"),
  R("broadcast(x, lanes) + ramp(b1, s1, lanes)", "ramp(x + b1, s1, lanes)"),
  R("broadcast(x, lanes) + broadcast(y, lanes)", "broadcast(x + y, lanes)"),
);
/* clang-format on */

/* clang-format off */
RULES(index_add,
  R("(x - y) + y", "x"),
  R("x + (y - x)", "y"),
  R("(x - y) + (y - z)", "x - z"),
  R("(x - y) + (z - x)", "z - y"),
  R("min(x, y - z) + z", "min(x + z, y)"),
  R("min(x - z, y) + z", "min(x, y + z)"),
  R("max(x, y - z) + z", "max(x + z, y)"),
  R("max(x - z, y) + z", "max(x, y + z)"),
  R_IF("min(x, y + z*c1) + z*c2", "min(x + z*c2, y)", c1_is_neg_c2),
  R_IF("max(x, y + z*c1) + z*c2", "max(x + z*c2, y)", c1_is_neg_c2),
  R_IF("min(y + z*c1, x) + z*c2", "min(x + z*c2, y)", c1_is_neg_c2),
  R_IF("max(y + z*c1, x) + z*c2", "max(x + z*c2, y)", c1_is_neg_c2),
  R("max(x, y) + min(x, y); min(x, y) + max(x, y); max(x, y) + min(y, x); min(x, y) + max(y, x)",
    "x + y"),
  R_IF("min(x, y + c1) + c2", "min(x + c2, y)", c1_is_neg_c2),
  R_IF("min(x + c1, y) + c2", "min(x, y + c2)", c1_is_neg_c2),
  R_IF("max(x, y + c1) + c2", "max(x + c2, y)", c1_is_neg_c2),
  R_IF("max(x + c1, y) + c2", "max(x, y + c2)", c1_is_neg_c2),
  R("(x + c1) + c2", "x + (c1 + c2)"),
  R("x + x", "x*2"),
  R("x*y + x; y*x + x", "x*(y + 1)"),
  R("x + y*x; x + x*y", "x*(1 + y)"),
  R("x*y + x*z; y*x + x*z; x*y + z*x; y*x + z*x", "x*(y + z)"),
  R("truncdiv(x, c1)*c1 + truncmod(x, c1)", "x"),
  R("floordiv(x, y)*y + floormod(x, y); y*floordiv(x, y) + floormod(x, y);"
    "floormod(x, y) + floordiv(x, y)*y; floormod(x, y) + y*floordiv(x, y)", "x"),
  R_IF("floordiv(floormod(x, c2) + c1, c2) + floordiv(x, c2)", "floordiv(x + c1, c2)", c2_pos),
  R_AGAIN("floordiv(x, 2) + floormod(x, 2)", "floordiv(x + 1, 2)"),
  R_IF("floormod(x + c1, 2) + floormod(x, 2); floormod(x, 2) + floormod(x + c1, 2)", "1", c1_odd),
  R_AGAIN("x + (c1 - y); (c1 - y) + x", "(x - y) + c1"),
  R_AGAIN("(x + c1) + y; x + (c1 + y); x + (y + c1)", "(x + y) + c1"),
  R_AGAIN("x + max(y, z)", "max(y, z) + x"),
  R_AGAIN("x + min(y, z)", "min(y, z) + x"),
  R_AGAIN("truncmod(y, c1) + x*c1", "x*c1 + truncmod(y, c1)"),
  R_AGAIN("floormod(y, c1) + x*c1", "x*c1 + floormod(y, c1)"),
);
/* clang-format on */

/* clang-format off */
RULES(select_add,
  R("select(x, b1, b2) + select(x, s1, s2)", "select(x, b1 + s1, b2 + s2)"),
);
/* clang-format on */

/* A vector zero: x + 0 is x in every lane, as the scalar fold has it (floats too). */
static bool is_zero_lanes(const Expr *e) {
  if (e->kind != EXPR_BROADCAST) return false;
  const Expr *v = e->u.bcast.value;
  return (v->kind == EXPR_INT && v->u.ival == 0) || (v->kind == EXPR_FLOAT && v->u.fval == 0);
}

Expr *arith_rw_add(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_ADD, e->u.bin.a, e->u.bin.b);
  if (!r && is_zero_lanes(e->u.bin.b)) r = e->u.bin.a;
  if (!r && is_zero_lanes(e->u.bin.a)) r = e->u.bin.b;
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_add, e);
  if (!r && arith_is_index(e->dtype)) r = arith_rules_apply(s, &index_add, e);
  if (!r) r = arith_rules_apply(s, &select_add, e);
  return r ? r : e;
}

/* clang-format off */
RULES(vector_sub,
  R("ramp(b1, s1, lanes) - ramp(b2, s2, lanes)", "ramp(b1 - b2, s1 - s2, lanes)"),
  R("ramp(b1, s1, lanes) - broadcast(x, lanes)", "ramp(b1 - x, s1, lanes)"),
  R("broadcast(x, lanes) - ramp(b1, s1, lanes)", "ramp(x - b1, 0 - s1, lanes)"),
  R("broadcast(x, lanes) - broadcast(y, lanes)", "broadcast(x - y, lanes)"),
);
/* clang-format on */

/* clang-format off */
RULES(index_sub,
  R("(x + y) - y; (y + x) - y", "x"),
  R("x - (y + x); x - (x + y)", "0 - y"),
  R("min(x, y) - y; x - max(y, x)", "min(x - y, 0)"),
  R("x - max(x, y); min(y, x) - y", "min(0, x - y)"),
  R("max(x, y) - y; x - min(y, x)", "max(x - y, 0)"),
  R("x - min(x, y); max(y, x) - y", "max(0, x - y)"),
  R("x - x", "0"),
  R("x*y - x; y*x - x", "x*(y - 1)"),
  R("x - y*x; x - x*y", "x*(1 - y)"),
  R("x*y - x*z; y*x - x*z; x*y - z*x; y*x - z*x", "x*(y - z)"),
  R("(x + c1) - c2", "x + (c1 - c2)"),
  R("(c1 - x) - (c2 - y)", "(y - x) + (c1 - c2)"),
  R("(x + y) - (x + z); (x + y) - (z + x); (y + x) - (z + x); (y + x) - (x + z)", "y - z"),
  R("min(x + y, z) - x; min(y + x, z) - x", "min(y, z - x)"),
  R("min(z, x + y) - x; min(z, y + x) - x", "min(z - x, y)"),
  R("max(x + y, z) - x; max(y + x, z) - x", "max(y, z - x)"),
  R("max(z, x + y) - x; max(z, y + x) - x", "max(z - x, y)"),
  R("x - min(x + y, z); x - min(y + x, z)", "max(0 - y, x - z)"),
  R("x - min(z, x + y); x - min(z, y + x)", "max(x - z, 0 - y)"),
  R("x - max(x + y, z); x - max(y + x, z)", "min(0 - y, x - z)"),
  R("x - max(z, x + y); x - max(z, y + x)", "min(x - z, 0 - y)"),
  R("min(x, y) - min(y, x)", "0"),
  R("max(x, y) - max(y, x)", "0"),
  R_IF("min(b1, b2) - min(s1, s2); min(b1, b2) - min(s2, s1)", "b1 - s1", same_offsets),
  R_IF("max(b1, b2) - max(s1, s2); max(b1, b2) - max(s2, s1)", "b1 - s1", same_offsets),
  /* x - (x/c)*c is x % c in either rounding */
  R_IF("x - truncdiv(x, c1)*c1", "truncmod(x, c1)", c1_nonzero),
  R_IF("truncdiv(x, c1)*c1 - x", "0 - truncmod(x, c1)", c1_nonzero),
  R_IF("x - truncdiv(x + y, c1)*c1", "truncmod(x + y, c1) - y", c1_nonzero),
  R_IF("truncdiv(x + y, c1)*c1 - x", "y - truncmod(x + y, c1)", c1_nonzero),
  R_IF("x - truncdiv(x - y, c1)*c1", "truncmod(x - y, c1) + y", c1_nonzero),
  R_IF("truncdiv(x - y, c1)*c1 - x", "0 - truncmod(x - y, c1) - y", c1_nonzero),
  R_IF("x*c2 - truncdiv(x, c1)*c3", "truncmod(x, c1)*c2", c3_is_c1_c2),
  R_IF("truncdiv(x, c1)*c3 - x*c2", "0 - truncmod(x, c1)*c2", c3_is_c1_c2),
  R_IF("x*c2 - truncdiv(x + y, c1)*c3", "(truncmod(x + y, c1) - y)*c2", c3_is_c1_c2),
  R_IF("truncdiv(x + y, c1)*c3 - x*c2", "(y - truncmod(x + y, c1))*c2", c3_is_c1_c2),
  R_IF("x*c2 - truncdiv(x - y, c1)*c3", "(truncmod(x - y, c1) + y)*c2", c3_is_c1_c2),
  R_IF("truncdiv(x - y, c1)*c3 - x*c2", "(0 - truncmod(x - y, c1) - y)*c2", c3_is_c1_c2),
  R_IF("truncdiv(x + c1, c3) - truncdiv(x + c2, c3)",
       "truncdiv(truncmod(x + floormod(c2, c3), c3) + (c1 - c2), c3)", trunc_offsets),
  R_IF("truncdiv(x + c1, c3) - truncdiv(x, c3)", "truncdiv(truncmod(x, c3) + c1, c3)",
       trunc_offset0),
  R_IF("x - floordiv(x, c1)*c1", "floormod(x, c1)", c1_nonzero),
  R_IF("floordiv(x, c1)*c1 - x", "0 - floormod(x, c1)", c1_nonzero),
  R_IF("x - floordiv(x + y, c1)*c1", "floormod(x + y, c1) - y", c1_nonzero),
  R_IF("floordiv(x + y, c1)*c1 - x", "y - floormod(x + y, c1)", c1_nonzero),
  R_IF("x - floordiv(x - y, c1)*c1", "floormod(x - y, c1) + y", c1_nonzero),
  R_IF("floordiv(x - y, c1)*c1 - x", "0 - floormod(x - y, c1) - y", c1_nonzero),
  R_AGAIN("floordiv(x + c1, 2) - floordiv(x + c2, 2)",
          "floormod(x, 2)*(floormod(c1, 2) - floormod(c2, 2))"
          " + (floordiv(c1, 2) - floordiv(c2, 2))"),
  R_AGAIN("floordiv(x, 2) - floordiv(x + c2, 2)",
          "floormod(x, 2)*(0 - floormod(c2, 2)) - floordiv(c2, 2)"),
  R_AGAIN("floordiv(x + c1, 2) - floordiv(x, 2)",
          "floormod(x, 2)*floormod(c1, 2) + floordiv(c1, 2)"),
  R_IF("x*c2 - floordiv(x, c1)*c3", "floormod(x, c1)*c2", c3_is_c1_c2),
  R_IF("floordiv(x, c1)*c3 - x*c2", "0 - floormod(x, c1)*c2", c3_is_c1_c2),
  R_IF("x*c2 - floordiv(x + y, c1)*c3", "(floormod(x + y, c1) - y)*c2", c3_is_c1_c2),
  R_IF("floordiv(x + y, c1)*c3 - x*c2", "(y - floormod(x + y, c1))*c2", c3_is_c1_c2),
  R_IF("x*c2 - floordiv(x - y, c1)*c3", "(floormod(x - y, c1) + y)*c2", c3_is_c1_c2),
  R_IF("floordiv(x - y, c1)*c3 - x*c2", "(0 - floormod(x - y, c1) - y)*c2", c3_is_c1_c2),
  R_AGAIN("floordiv(x + 1, 2) - floormod(x, 2)", "floordiv(x, 2)"),
  R_IF("floordiv(x + c1, c3) - floordiv(x + c2, c3)",
       "floordiv(floormod(x + floormod(c2, c3), c3) + (c1 - c2), c3)", c3_pos),
  R_IF("floordiv(x + c1, c3) - floordiv(x, c3)", "floordiv(floormod(x, c3) + c1, c3)", c3_pos),
  R("x - c1", "x + (0 - c1)"),
  R_AGAIN("(x + c1) - y", "(x - y) + c1"),
  R_AGAIN("x - (y + c1)", "(x - y) + (0 - c1)"),
  R_AGAIN("x - (y - z)", "(x + z) - y"),
  R_AGAIN("x - y*c1", "x + y*(0 - c1)"),
);
/* clang-format on */

/* NaN - NaN is not 0; like TVM, the rules assume models have no NaN in them. */
/* clang-format off */
RULES(float_sub,
  R_IF("x - x", "0", x_pure),
  R_IF("(x + y) - y", "x", y_pure),
  R_IF("(x + y) - x", "y", x_pure),
  R_IF("x - (y + x); x - (x + y)", "0 - y", x_pure),
);
/* clang-format on */

/* clang-format off */
RULES(select_sub,
  R("select(x, b1, b2) - select(x, s1, s2)", "select(x, b1 - s1, b2 - s2)"),
  R("select(x, y, z) - z", "select(x, y - z, 0)"),
  R("select(x, y, z) - y", "select(x, 0, z - y)"),
);
/* clang-format on */

Expr *arith_rw_sub(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_SUB, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_sub, e);
  if (!r) r = arith_rules_apply(s, arith_is_index(e->dtype) ? &index_sub : &float_sub, e);
  if (!r) r = arith_rules_apply(s, &select_sub, e);
  return r ? r : e;
}
