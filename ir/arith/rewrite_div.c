/* rewrite_div.c: the rewrite rules of the four divisions (TVM's rewrite_simplify.cc, Div,
 * Mod, FloorDiv, FloorMod). Truncating division rounds toward zero, so its rules ask for
 * non-negative operands; floor division needs no such care, which is why lowering writes
 * floordiv. A vector rule folds a ramp divided by a constant when every lane lands in the
 * same quotient, which the modular set of the ramp's base decides. */
#include "ir/arith/arith_impl.h"

static bool ge0(Simp *s, Expr *e) { return arith_simp_prove_ge(s, e, 0); }

static Expr *add(Simp *s, ExprKind k, Expr *a, Expr *b) {
  return arith_binary(s->an->arena, k, a, b);
}

static bool c1c2_pos(Simp *s, const PMatch *m) { return m->c[0] > 0 && m->c[1] > 0; }
static bool c1_neg(Simp *s, const PMatch *m) { return m->c[0] < 0; }
static bool c1_nonzero(Simp *s, const PMatch *m) { return m->c[0] != 0; }
static bool c2_nonzero(Simp *s, const PMatch *m) { return m->c[1] != 0; }
static bool c1c3_pos(Simp *s, const PMatch *m) { return m->c[0] > 0 && m->c[2] > 0; }
static bool x_ge0(Simp *s, const PMatch *m) { return ge0(s, m->var[PV_X]); }
static bool z_ge0(Simp *s, const PMatch *m) { return ge0(s, m->var[PV_Z]); }
static bool y_ge0(Simp *s, const PMatch *m) { return ge0(s, m->var[PV_Y]); }
static bool xy_ge0(Simp *s, const PMatch *m) { return x_ge0(s, m) && y_ge0(s, m); }
static bool xyz_ge0(Simp *s, const PMatch *m) { return xy_ge0(s, m) && z_ge0(s, m); }

/* c2 > 0 and c2 divides c1: (x*c1 + y) / c2 splits into x*(c1/c2) + y/c2. */
static bool c2_divides_c1(Simp *s, const PMatch *m) {
  return m->c[1] > 0 && m->c[0] % m->c[1] == 0;
}
static bool c1_divides_c2(Simp *s, const PMatch *m) {
  return m->c[0] > 0 && m->c[1] > 0 && m->c[1] % m->c[0] == 0;
}

/* The truncating split also needs x and y (or the expression given) non-negative. */
static bool trunc_split(Simp *s, const PMatch *m) {
  return m->c[0] >= 0 && c2_divides_c1(s, m) && xy_ge0(s, m);
}
static bool trunc_split_sum(Simp *s, const PMatch *m, ExprKind k, Expr *a, Expr *b) {
  return m->c[0] >= 0 && c2_divides_c1(s, m) && ge0(s, m->var[PV_X]) && ge0(s, add(s, k, a, b));
}
static bool trunc_split_yz(Simp *s, const PMatch *m) {
  return trunc_split_sum(s, m, EXPR_ADD, m->var[PV_Y], m->var[PV_Z]);
}
static bool trunc_split_zy(Simp *s, const PMatch *m) {
  return trunc_split_sum(s, m, EXPR_SUB, m->var[PV_Z], m->var[PV_Y]);
}
static bool trunc_split_y_z(Simp *s, const PMatch *m) {
  return trunc_split_sum(s, m, EXPR_SUB, m->var[PV_Y], m->var[PV_Z]);
}
static bool trunc_split_yz_pos(Simp *s, const PMatch *m) {
  return m->c[0] > 0 && trunc_split_yz(s, m);
}

static bool nested_trunc(Simp *s, const PMatch *m) {
  return m->c[0] > 0 && m->c[1] >= 0 && m->c[2] > 0 && x_ge0(s, m);
}
static bool trunc_const_split(Simp *s, const PMatch *m) {
  return m->c[0] > 0 && m->c[1] > 0 && m->c[0] % m->c[1] == 0 && x_ge0(s, m);
}
static bool x_yz_ge0(Simp *s, const PMatch *m) {
  return x_ge0(s, m) && ge0(s, add(s, EXPR_ADD, m->var[PV_Y], m->var[PV_Z]));
}
static bool mul_c1_div_c2(Simp *s, const PMatch *m) {
  return c1c2_pos(s, m) && m->c[0] % m->c[1] == 0;
}
static bool mul_c2_div_c1(Simp *s, const PMatch *m) {
  return c1c2_pos(s, m) && m->c[1] % m->c[0] == 0;
}

/* floordiv(y, c1) == 0, that is 0 <= y < c1: x*c1 + y then divides as x alone. */
static bool y_below_c1(Simp *s, const PMatch *m) {
  Expr *q = add(s, EXPR_FLOORDIV, m->var[PV_Y], m->cnode[0]);
  return c1_divides_c2(s, m) && arith_simp_prove_equal(s, q, 0);
}
static bool yz_below_c1(Simp *s, const PMatch *m) {
  Expr *q = add(s, EXPR_FLOORDIV, add(s, EXPR_ADD, m->var[PV_Y], m->var[PV_Z]), m->cnode[0]);
  return c1_divides_c2(s, m) && arith_simp_prove_equal(s, q, 0);
}

/* ---- truncating division ---- */

/* clang-format off */
RULES(vector_div,
  R("broadcast(x, lanes) / broadcast(y, lanes)", "broadcast(x / y, lanes)"),
);
/* clang-format on */

/* clang-format off */
RULES(index_div,
  R_IF("truncdiv(truncdiv(x, c1), c2)", "truncdiv(x, c1*c2)", c1c2_pos),
  R_IF("truncdiv(truncdiv(x, c1) + c2, c3)", "truncdiv(x + c1*c2, c1*c3)", nested_trunc),
  R_IF("truncdiv(x*c1, c2)", "x*truncdiv(c1, c2)", mul_c1_div_c2),
  R_IF("truncdiv(x*c1, c2)", "truncdiv(x, truncdiv(c2, c1))", mul_c2_div_c1),
  R("truncdiv(x, x)", "1"),
  R("truncdiv(x*c1, x); truncdiv(c1*x, x)", "c1"),
  R_IF("truncdiv(x*c1 + y, c2)", "x*truncdiv(c1, c2) + truncdiv(y, c2)", trunc_split),
  R_IF("truncdiv(min(x*c1, y), c2)", "min(x*truncdiv(c1, c2), truncdiv(y, c2))", trunc_split),
  R_IF("truncdiv(max(x*c1, y), c2)", "max(x*truncdiv(c1, c2), truncdiv(y, c2))", trunc_split),
  R_IF("truncdiv(y + x*c1, c2)", "truncdiv(y, c2) + x*truncdiv(c1, c2)", trunc_split),
  R_IF("truncdiv(min(y, x*c1), c2)", "min(truncdiv(y, c2), x*truncdiv(c1, c2))", trunc_split),
  R_IF("truncdiv(max(y, x*c1), c2)", "max(truncdiv(y, c2), x*truncdiv(c1, c2))", trunc_split),
  R_IF("truncdiv(x*c1 + y + z, c2)", "x*truncdiv(c1, c2) + truncdiv(y + z, c2)", trunc_split_yz),
  R_IF("truncdiv(x*c1 - y + z, c2)", "x*truncdiv(c1, c2) + truncdiv(z - y, c2)", trunc_split_zy),
  R_IF("truncdiv(x*c1 + y - z, c2)", "x*truncdiv(c1, c2) + truncdiv(y - z, c2)", trunc_split_y_z),
  R_IF("truncdiv(y + x*c1 + z, c2)", "x*truncdiv(c1, c2) + truncdiv(y + z, c2)",
       trunc_split_yz_pos),
  R_IF("truncdiv(x + c1, c2)", "truncdiv(x, c2) + truncdiv(c1, c2)", trunc_const_split),
  R_IF("truncdiv(x + y, x); truncdiv(y + x, x)", "truncdiv(y, x) + 1", xy_ge0),
  R_IF("truncdiv((x + y) + z, x); truncdiv((y + x) + z, x); truncdiv(y + (z + x), x);"
       "truncdiv(y + (x + z), x)", "truncdiv(y + z, x) + 1", x_yz_ge0),
  R_IF("truncdiv(x*y, y); truncdiv(y*x, y)", "x", xy_ge0),
  R_IF("truncdiv(x*z + y, z); truncdiv(z*x + y, z)", "x + truncdiv(y, z)", xyz_ge0),
  R_IF("truncdiv(y + x*z, z); truncdiv(y + z*x, z)", "truncdiv(y, z) + x", xyz_ge0),
);
/* clang-format on */

/* ramp(b, c1, n) / c2: the quotients of the lanes (all non-negative). */
static Expr *ramp_truncdiv(Simp *s, Expr *e) {
  static Pat *p;
  if (!p) p = arith_pat_compile("truncdiv(ramp(b1, c1, lanes), broadcast(c2, lanes))");
  PMatch m;
  if (!arith_pat_match(p, e, &m, NULL, NULL) || m.c[1] <= 0 || m.c[0] < 0 || !ge0(s, m.var[PV_B1]))
    return NULL;
  Arena *a = s->an->arena;
  Expr *base = arith_binary(a, EXPR_DIV, m.var[PV_B1], m.cnode[1]);
  if (m.c[0] % m.c[1] == 0)
    return ir_ramp(a, base, arith_binary(a, EXPR_DIV, m.cnode[0], m.cnode[1]), m.lanes);
  ModularSet bm = arith_modular_set(s->an, m.var[PV_B1]);
  int64_t last = bm.base + (m.lanes - 1) * m.c[0];
  if (bm.coeff % m.c[1] == 0 && bm.base / m.c[1] == last / m.c[1])
    return ir_broadcast(a, base, m.lanes);
  return NULL;
}

Expr *arith_rw_div(Simp *s, Expr *e) {
  Arena *a = s->an->arena;
  Expr *x = e->u.bin.a, *y = e->u.bin.b;
  Expr *r = arith_try_fold(a, EXPR_DIV, x, y);
  if (r) return r;
  if (y->kind == EXPR_FLOAT && y->u.fval != 0) /* x / c is x * (1/c) */
    return arith_binary(a, EXPR_MUL, x, arith_binary(a, EXPR_DIV, arith_const(a, y->dtype, 1), y));
  if (e->dtype.lanes > 1 && !(r = arith_rules_apply(s, &vector_div, e))) r = ramp_truncdiv(s, e);
  if (!r && arith_is_index(e->dtype)) r = arith_rules_apply(s, &index_div, e);
  return r ? r : e;
}

/* clang-format off */
RULES(vector_mod,
  R("broadcast(x, lanes) % broadcast(y, lanes)", "broadcast(x % y, lanes)"),
);
/* clang-format on */

static bool mod_zero(Simp *s, const PMatch *m) { return arith_divides(m->c[1], m->c[0]); }
static bool mod_drop_xc1(Simp *s, const PMatch *m) {
  return m->c[1] > 0 && m->c[0] % m->c[1] == 0 &&
         ge0(s, add(s, EXPR_MUL, m->var[PV_X], m->cnode[0])) &&
         y_ge0(s, m);
}
static bool mod_drop_c1(Simp *s, const PMatch *m) {
  return m->c[1] > 0 && m->c[0] >= 0 && m->c[0] % m->c[1] == 0 && x_ge0(s, m);
}
static bool mod_drop_yc1(Simp *s, const PMatch *m) {
  return m->c[1] > 0 && m->c[0] % m->c[1] == 0 && x_ge0(s, m) &&
         ge0(s, add(s, EXPR_MUL, m->var[PV_Y], m->cnode[0]));
}

/* clang-format off */
RULES(index_mod,
  R_IF("truncmod(x*c1, c2)", "0", mod_zero),
  R_IF("truncmod(x*c1 + y, c2)", "truncmod(y, c2)", mod_drop_xc1),
  R_IF("truncmod(x + c1, c2)", "truncmod(x, c2)", mod_drop_c1),
  R_IF("truncmod(x + y*c1, c2)", "truncmod(x, c2)", mod_drop_yc1),
  /* x % c == x % -c when rounding toward zero */
  R_AGAIN_IF("truncmod(x, c1)", "truncmod(x, 0 - c1)", c1_neg),
);
/* clang-format on */

/* ramp(b, c1, n) % c2 with b >= 0, from the modular set of b. */
static Expr *ramp_truncmod(Simp *s, Expr *e) {
  static Pat *p;
  if (!p) p = arith_pat_compile("truncmod(ramp(b1, c1, lanes), broadcast(c2, lanes))");
  PMatch m;
  if (!arith_pat_match(p, e, &m, NULL, NULL) || m.c[1] <= 0 || m.c[0] < 0 || !ge0(s, m.var[PV_B1]))
    return NULL;
  Arena *a = s->an->arena;
  if (m.c[0] % m.c[1] == 0)
    return ir_broadcast(a, arith_binary(a, EXPR_MOD, m.var[PV_B1], m.cnode[1]), m.lanes);
  ModularSet bm = arith_modular_set(s->an, m.var[PV_B1]);
  if (bm.coeff % m.c[1] != 0) return NULL;
  int64_t last = bm.base + (m.lanes - 1) * m.c[0];
  Expr *ramp = ir_ramp(a, arith_const(a, m.cnode[0]->dtype, bm.base % m.c[1]), m.cnode[0], m.lanes);
  if (bm.base / m.c[1] == last / m.c[1]) return ramp;
  return ir_binary(a, EXPR_MOD, ramp, e->u.bin.b);
}

/* x % c with x >= 0 and c dividing x's modular coefficient: the constant remainder. */
static Expr *modular_truncmod(Simp *s, Expr *e) {
  int64_t c;
  Expr *x = e->u.bin.a;
  if (!arith_is_int(e->u.bin.b, &c) || c <= 0 || !ge0(s, x)) return NULL;
  ModularSet mod = arith_modular_set(s->an, x);
  if (mod.coeff % c != 0) return NULL;
  return arith_const(s->an->arena, e->dtype, mod.base % c);
}

Expr *arith_rw_mod(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_MOD, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1 && !(r = arith_rules_apply(s, &vector_mod, e)))
    r = ramp_truncmod(s, e);
  if (!r && arith_is_index(e->dtype) && !(r = arith_rules_apply(s, &index_mod, e)))
    r = modular_truncmod(s, e);
  return r ? r : e;
}

/* ---- floor division ---- */

/* clang-format off */
RULES(vector_floordiv,
  R("floordiv(broadcast(x, lanes), broadcast(y, lanes))", "broadcast(floordiv(x, y), lanes)"),
);
/* clang-format on */

static bool c2_pos_c1_rem(Simp *s, const PMatch *m) { return c2_divides_c1(s, m); }
static bool c2_pos(Simp *s, const PMatch *m) { return m->c[1] > 0; }
static bool zc1_ge0(Simp *s, const PMatch *m) {
  return ge0(s, add(s, EXPR_MUL, m->var[PV_Z], m->cnode[0]));
}

/* clang-format off */
RULES(index_floordiv_first,
  R_IF("floordiv(floordiv(x, c1), c2)", "floordiv(x, c1*c2)", c1c2_pos),
  R_IF("floordiv(floordiv(x, c1) + c2, c3)", "floordiv(x + c1*c2, c1*c3)", c1c3_pos),
);
/* clang-format on */

/* clang-format off */
RULES(index_floordiv,
  R("floordiv(x, x)", "1"),
  R("floordiv(x*c1, x); floordiv(c1*x, x)", "c1"),
  R("floordiv(floormod(x, 2) + 1, 2)", "floormod(x, 2)"),
  R_IF("floordiv(min(x*c1, y), c2)", "min(x*floordiv(c1, c2), floordiv(y, c2))", c2_pos_c1_rem),
  R_IF("floordiv(max(x*c1, y), c2)", "max(x*floordiv(c1, c2), floordiv(y, c2))", c2_pos_c1_rem),
  R_IF("floordiv(y + x*c1, c2)", "floordiv(y, c2) + x*floordiv(c1, c2)", c2_pos_c1_rem),
  R_IF("floordiv(min(y, x*c1), c2)", "min(floordiv(y, c2), x*floordiv(c1, c2))", c2_pos_c1_rem),
  R_IF("floordiv(max(y, x*c1), c2)", "max(floordiv(y, c2), x*floordiv(c1, c2))", c2_pos_c1_rem),
  R_IF("floordiv(x*c1 + y + z, c2)", "x*floordiv(c1, c2) + floordiv(y + z, c2)", c2_pos_c1_rem),
  R_IF("floordiv(x*c1 + y + z, c2)", "floordiv(x, floordiv(c2, c1))", yz_below_c1),
  R_IF("floordiv(x*c1 - y + z, c2); floordiv(x*c1 + z - y, c2)",
       "x*floordiv(c1, c2) + floordiv(z - y, c2)", c2_pos_c1_rem),
  R_IF("floordiv(y + x*c1 + z, c2)", "x*floordiv(c1, c2) + floordiv(y + z, c2)", c2_pos_c1_rem),
  R_IF("floordiv(x + c1, c2)", "floordiv(x, c2) + floordiv(c1, c2)", c2_pos_c1_rem),
  R_IF("floordiv(x*c1, x*c2)", "floordiv(c1, c2)", c2_pos),
  R_IF("floordiv(x + y, x); floordiv(y + x, x)", "floordiv(y, x) + 1", x_ge0),
  R_IF("floordiv((x + y) + z, x); floordiv((y + x) + z, x); floordiv(y + (z + x), x);"
       "floordiv(y + (x + z), x)", "floordiv(y + z, x) + 1", x_ge0),
  R_IF("floordiv(x*y, y); floordiv(y*x, y)", "x", y_ge0),
  R_IF("floordiv(x*z + y, z); floordiv(z*x + y, z)", "x + floordiv(y, z)", z_ge0),
  R_IF("floordiv(y + x*z, z); floordiv(y + z*x, z)", "floordiv(y, z) + x", z_ge0),
  R_IF("floordiv(x*z*c1 + y, z*c1)", "x + floordiv(y, z*c1)", zc1_ge0),
  R_IF("floordiv(x - floormod(x, c1), c1)", "floordiv(x, c1)", c1_nonzero),
);
/* clang-format on */

/* floordiv(x*c1 + y, c2): the residue floordiv(x*(c1 mod c2) + y mod c2, c2) may be a known
 * constant; else when c1 divides c2 and y mod c2 < c1, the quotient is x's own. */
static Expr *floordiv_scaled(Simp *s, Expr *e) {
  static Pat *p;
  if (!p)
    p = arith_pat_compile("floordiv(x*c1 + y, c2); floordiv(x*c1, c2); floordiv(y + x*c1, c2)");
  PMatch m;
  if (!arith_pat_match(p, e, &m, NULL, NULL) || m.c[1] == 0) return NULL;
  Expr *x = m.var[PV_X], *c1 = m.cnode[0], *c2 = m.cnode[1];
  Expr *y = m.var[PV_Y] ? m.var[PV_Y] : arith_const(s->an->arena, e->dtype, 0);
  Expr *ymod = add(s, EXPR_FLOORMOD, y, c2), *ydiv = add(s, EXPR_FLOORDIV, y, c2);
  if (arith_simp_prove_equal(s, ydiv, 0)) ydiv = arith_const(s->an->arena, e->dtype, 0);
  Expr *xrem = add(s, EXPR_MUL, x, add(s, EXPR_FLOORMOD, c1, c2));
  Expr *residue = add(s, EXPR_FLOORDIV, add(s, EXPR_ADD, xrem, ymod), c2);
  ConstBound b = arith_const_bound(s->an, residue);
  if (b.min == b.max) {
    Expr *k = add(s, EXPR_ADD, ydiv, arith_const(s->an->arena, e->dtype, b.max));
    return add(s, EXPR_ADD, add(s, EXPR_MUL, x, add(s, EXPR_FLOORDIV, c1, c2)), k);
  }
  if (m.c[0] > 0 && m.c[1] > 0 && m.c[1] % m.c[0] == 0 &&
      arith_const_bound(s->an, ymod).max < m.c[0])
    return add(s, EXPR_ADD, add(s, EXPR_FLOORDIV, x, add(s, EXPR_FLOORDIV, c2, c1)), ydiv);
  return NULL;
}

/* The lanes of ramp(b, c1, n) all have one quotient by c2: b's modular set puts b + c1*i
 * (i < n) inside one multiple of c2. Returns whether, with *mod the set. */
static bool one_quotient(Simp *s, const PMatch *m, ModularSet *mod) {
  *mod = arith_modular_set(s->an, m->var[PV_B1]);
  int64_t last;
  if (__builtin_mul_overflow((int64_t)(m->lanes - 1), m->c[0], &last) ||
      __builtin_add_overflow(last, mod->base, &last))
    return false;
  if (arith_floordiv_i64(mod->base, m->c[1]) != arith_floordiv_i64(last, m->c[1])) return false;
  if (mod->coeff % m->c[1] == 0) return true;
  return mod->coeff && m->c[1] % mod->coeff == 0 && last < mod->coeff;
}

static Expr *ramp_floordiv(Simp *s, Expr *e) {
  static Pat *p;
  if (!p) p = arith_pat_compile("floordiv(ramp(b1, c1, lanes), broadcast(c2, lanes))");
  PMatch m;
  ModularSet mod;
  if (!arith_pat_match(p, e, &m, NULL, NULL) || m.c[1] <= 0) return NULL;
  Arena *a = s->an->arena;
  Expr *base = arith_binary(a, EXPR_FLOORDIV, m.var[PV_B1], m.cnode[1]);
  if (m.c[0] % m.c[1] == 0)
    return ir_ramp(a, base, arith_binary(a, EXPR_FLOORDIV, m.cnode[0], m.cnode[1]), m.lanes);
  return one_quotient(s, &m, &mod) ? ir_broadcast(a, base, m.lanes) : NULL;
}

Expr *arith_rw_floordiv(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_FLOORDIV, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1 && !(r = arith_rules_apply(s, &vector_floordiv, e)))
    r = ramp_floordiv(s, e);
  if (!r && arith_is_index(e->dtype) && !(r = arith_rules_apply(s, &index_floordiv_first, e)) &&
      !(r = floordiv_scaled(s, e)))
    r = arith_rules_apply(s, &index_floordiv, e);
  return r ? r : e;
}

/* ---- floor modulo ---- */

/* clang-format off */
RULES(vector_floormod,
  R("floormod(broadcast(x, lanes), broadcast(y, lanes))", "broadcast(floormod(x, y), lanes)"),
);
/* clang-format on */

/* floormod(c1, c2) differs from c1, so that reducing it changes the expression. */
static bool c1_reducible_any(Simp *s, const PMatch *m) {
  return m->c[1] != 0 && arith_floormod_i64(m->c[0], m->c[1]) != m->c[0];
}

/* clang-format off */
RULES(index_floormod,
  R_IF("floormod(x*c1, c2)", "floormod(x*floormod(c1, c2), c2)", c1_reducible_any),
  R_IF("floormod(x*c1 + y, c2)", "floormod(x, floordiv(c2, c1))*c1 + y", y_below_c1),
  /* A term that c2 divides drops out; one it does not divide keeps its coefficient (not
   * floormod(x*1024 + y, 100) -> floormod(x*24 + y, 100)): a coefficient reduced on the
   * modulo's side alone hides the index it shares with a floordiv of the same sum, and the
   * canonical simplifier no longer folds floordiv(s, 10)*10 + floormod(s, 10) back to s. So
   * TVM restricts these two rules (apache/tvm#19832), and seed 000 prints them so. */
  R_IF("floormod(x*c1 + y, c2)", "floormod(y, c2)", c2_pos_c1_rem),
  R_IF("floormod(x + c1, c2)", "floormod(x, c2)", c2_pos_c1_rem),
  R_IF("floormod(x + y*c1, c2)", "floormod(x, c2)", c2_pos_c1_rem),
  R_IF("floormod(x*c1, x*c2)", "x*floormod(c1, c2)", c2_nonzero),
  R("floormod(x*y, y); floormod(y*x, y)", "0"),
);
/* clang-format on */

static Expr *ramp_floormod(Simp *s, Expr *e) {
  static Pat *p;
  if (!p) p = arith_pat_compile("floormod(ramp(b1, c1, lanes), broadcast(c2, lanes))");
  PMatch m;
  ModularSet mod;
  if (!arith_pat_match(p, e, &m, NULL, NULL) || m.c[1] <= 0) return NULL;
  Arena *a = s->an->arena;
  if (m.c[0] % m.c[1] == 0)
    return ir_broadcast(a, arith_binary(a, EXPR_FLOORMOD, m.var[PV_B1], m.cnode[1]), m.lanes);
  DType t = m.cnode[0]->dtype;
  if (one_quotient(s, &m, &mod)) {
    Expr *base = mod.coeff % m.c[1] == 0 ? arith_const(a, t, arith_floormod_i64(mod.base, m.c[1]))
                                         : arith_binary(a, EXPR_FLOORMOD, m.var[PV_B1], m.cnode[1]);
    return ir_ramp(a, base, m.cnode[0], m.lanes);
  }
  if (mod.coeff % m.c[1] != 0) return NULL;
  Expr *base = arith_const(a, t, arith_floormod_i64(mod.base, m.c[1]));
  return ir_binary(a, EXPR_FLOORMOD, ir_ramp(a, base, m.cnode[0], m.lanes), e->u.bin.b);
}

/* floormod(x, c) is a constant when c divides x's modular coefficient, and x itself when x
 * lies in [0, c) already. */
static Expr *known_floormod(Simp *s, Expr *e) {
  int64_t c;
  Expr *x = e->u.bin.a;
  if (!arith_is_int(e->u.bin.b, &c) || c <= 0) return NULL;
  ModularSet mod = arith_modular_set(s->an, x);
  if (mod.coeff % c == 0)
    return arith_const(s->an->arena, e->dtype, arith_floormod_i64(mod.base, c));
  ConstBound b = arith_const_bound(s->an, x);
  return b.min >= 0 && b.max < c ? x : NULL;
}

Expr *arith_rw_floormod(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_FLOORMOD, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1 && !(r = arith_rules_apply(s, &vector_floormod, e)))
    r = ramp_floormod(s, e);
  if (!r && arith_is_index(e->dtype) && !(r = arith_rules_apply(s, &index_floormod, e)))
    r = known_floormod(s, e);
  return r ? r : e;
}
