/* rewrite_mul.c: the rewrite rules of * (TVM's rewrite_simplify.cc, Mul): constants gather on
 * the right, (x + c1)*c2 distributes so that the constant can meet others, and a negative
 * scale of a difference flips the difference instead. */
#include "ir/arith/arith_impl.h"

static bool ceil_multiple(Simp *s, const PMatch *m) {
  return m->c[0] == m->c[1] || m->c[0] == -m->c[1];
}
static bool c1_neg(Simp *s, const PMatch *m) { return m->c[0] < 0; }

/* clang-format off */
RULES(vector_mul,
  R("broadcast(x, lanes)*broadcast(y, lanes)", "broadcast(x*y, lanes)"),
  R("ramp(b1, s1, lanes)*broadcast(x, lanes); broadcast(x, lanes)*ramp(b1, s1, lanes)",
    "ramp(b1*x, s1*x, lanes)"),
);
/* clang-format on */

/* clang-format off */
RULES(index_mul,
  R("(x + c1)*c2", "x*c2 + c1*c2"),
  R("(x*c1)*c2", "x*(c1*c2)"),
  R("min(x, y)*max(x, y); max(x, y)*min(x, y)", "x*y"),
  /* x - floormod(x, c) is a multiple of c, so dividing and multiplying by +-c is exact */
  R_IF("floordiv(x - floormod(x, c2), c1)*c1", "x - floormod(x, c2)", ceil_multiple),
  R_AGAIN("x*(c1*y)", "(x*y)*c1"),
  R_AGAIN("c1*x", "x*c1"),
  R_AGAIN_IF("(x - y)*c1", "(y - x)*(0 - c1)", c1_neg),
);
/* clang-format on */

Expr *arith_rw_mul(Simp *s, Expr *e) {
  Expr *r = arith_try_fold(s->an->arena, EXPR_MUL, e->u.bin.a, e->u.bin.b);
  if (!r && e->dtype.lanes > 1) r = arith_rules_apply(s, &vector_mul, e);
  if (!r && arith_is_index(e->dtype)) r = arith_rules_apply(s, &index_mul, e);
  return r ? r : e;
}
