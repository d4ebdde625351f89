/* rewrite.c: the walk of the rewrite simplifier (TVM's rewrite_simplify.cc and
 * ir_mutator_with_analyzer.cc). A node's children are simplified first, the branches of a
 * select or if_then_else under its condition, and then the rules of the node's kind
 * (rewrite_*.c) are tried in order. A node comes back as itself when neither its children
 * nor a rule changed it. The helpers here are what the rules' side conditions ask: how two
 * expressions compare under the known bounds, and whether a pushed fact decides a condition. */
#include <string.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

/* TVM's kMaxRecurDepth: a rule's result is simplified again at most this deep. */
enum { MAX_RECURSION = 5 };

static Expr *hook(IrMutator *m, Expr *e) { return arith_simp_visit((Simp *)m, e); }

void arith_simp_init(Simp *s, Analyzer *an, bool canonical) {
  s->m = (IrMutator){an->arena, hook, NULL};
  s->an = an;
  s->canonical = canonical;
}

Expr *arith_simp_visit(Simp *s, Expr *e) {
  return s->canonical ? arith_canon_visit(s, e) : arith_simp_node(s, e);
}

Expr *arith_simp_recurse(Simp *s, Expr *e) {
  if (s->an->recursion >= MAX_RECURSION) return e;
  s->an->recursion++;
  Expr *r = arith_simp_visit(s, e);
  s->an->recursion--;
  return r;
}

/* ---- what the rules ask ---- */

CmpResult arith_simp_compare_const(Simp *s, Expr *x, int64_t v) {
  Expr *d = arith_simp_visit(s, x);
  int64_t c;
  if (arith_is_int(d, &c)) return c == v ? CMP_EQ : c > v ? CMP_GT : CMP_LT;
  ConstBound b = arith_const_bound(s->an, d);
  if (b.min == v && b.max == v) return CMP_EQ;
  if (b.min > v) return CMP_GT;
  if (b.max < v) return CMP_LT;
  if (b.min >= v) return CMP_GE;
  if (b.max <= v) return CMP_LE;
  if (v == 0 && arith_modular_set(s->an, d).base != 0) return CMP_NE;
  return CMP_UNKNOWN;
}

CmpResult arith_simp_compare(Simp *s, Expr *x, Expr *y) {
  return arith_simp_compare_const(s, arith_binary(s->an->arena, EXPR_SUB, x, y), 0);
}

bool arith_simp_prove_ge(Simp *s, Expr *e, int64_t v) {
  int64_t c;
  if (arith_is_int(e, &c)) return c >= v;
  return arith_const_bound(s->an, e).min >= v;
}

bool arith_simp_prove_equal(Simp *s, Expr *e, int64_t v) {
  return arith_simp_compare_const(s, e, v) == CMP_EQ;
}

Expr *arith_simp_fact(Simp *s, Expr *e) {
  for (int i = s->an->nfacts - 1; i >= 0; i--)
    if (ir_expr_equal(s->an->facts[i].e, e))
      return arith_const(s->an->arena, e->dtype, s->an->facts[i].value);
  return NULL;
}

static bool impure_call(const Expr *e, const void *ctx) {
  (void)ctx;
  return e->kind == EXPR_CALL && e->u.call.ckind != CALL_PURE;
}

bool arith_is_pure(const Expr *e) { return !ir_expr_any(e, impure_call, NULL); }

/* ---- nodes with context ---- */

static Expr *visit_var(Simp *s, Expr *e) {
  if (dt_is_bool(e->dtype)) {
    Expr *fact = arith_simp_fact(s, e);
    if (fact) return fact;
  }
  const VarInfo *info = arith_lookup(s->an, e->u.var);
  return info && info->value ? info->value : e;
}

static Expr *visit_cast(Simp *s, Expr *e) {
  Expr *a = arith_simp_visit(s, e->u.unary.a);
  Expr *r = arith_cast(s->an->arena, e->dtype, a);
  return r->kind == EXPR_CAST && r->u.unary.a == e->u.unary.a ? e : r;
}

/* t under cond, f under !cond (TVM's IRMutatorWithAnalyzer); cond is simplified already, and
 * its negation only needs the ! pushed inward. */
static void visit_branches(Simp *s, Expr *cond, Expr **t, Expr **f) {
  Analyzer *an = s->an;
  arith_push_simplified(an, cond, false);
  *t = arith_simp_visit(s, *t);
  arith_pop_constraint(an);
  arith_push_simplified(an, arith_rw_apply_not(s, ir_not(an->arena, cond)), false);
  *f = arith_simp_visit(s, *f);
  arith_pop_constraint(an);
}

static Expr *visit_select(Simp *s, Expr *e) {
  Expr *c = arith_simp_visit(s, e->u.select.cond), *t = e->u.select.t, *f = e->u.select.f;
  int64_t v;
  if (arith_is_uniform_int(c, &v)) return arith_simp_visit(s, v ? t : f);
  visit_branches(s, c, &t, &f);
  if (c != e->u.select.cond || t != e->u.select.t || f != e->u.select.f)
    e = ir_select(s->an->arena, c, t, f);
  return arith_rw_select(s, e);
}

static bool is_call(const Expr *e, const char *op, int n) {
  return e->kind == EXPR_CALL && e->u.call.n == n && !strcmp(e->u.call.op, op);
}

static Expr *visit_if_then_else(Simp *s, Expr *e) {
  Expr *args[3] = {arith_simp_visit(s, e->u.call.args[0]), e->u.call.args[1], e->u.call.args[2]};
  int64_t v;
  if (arith_is_uniform_int(args[0], &v)) return arith_simp_visit(s, v ? args[1] : args[2]);
  visit_branches(s, args[0], &args[1], &args[2]);
  if (memcmp(args, e->u.call.args, sizeof args))
    e = ir_call(s->an->arena, e->dtype, e->u.call.op, e->u.call.ckind, 3, args);
  return arith_rw_call(s, e);
}

/* A let of a constant or a variable is inlined, as TVM's CanInlineLet; others stay. */
static Expr *visit_let(Simp *s, Expr *e) {
  Expr *value = arith_simp_visit(s, e->u.let.value);
  if (value->kind == EXPR_INT || value->kind == EXPR_FLOAT || value->kind == EXPR_VAR) {
    arith_bind_value(s->an, e->u.let.var, value);
    return arith_simp_visit(s, e->u.let.body);
  }
  Expr *body = arith_simp_visit(s, e->u.let.body);
  if (value == e->u.let.value && body == e->u.let.body) return e;
  return ir_let(s->an->arena, e->u.let.var, value, body);
}

/* a > b is b < a and a >= b is b <= a: the rules only know < and <=. */
static Expr *visit_flipped(Simp *s, Expr *e, ExprKind k) {
  Arena *a = s->an->arena;
  return arith_simp_visit(s, arith_binary(a, k, e->u.bin.b, e->u.bin.a));
}

/* The rules of a binary kind, on e with its children simplified. */
static Expr *binary_rules(Simp *s, Expr *e) {
  switch (e->kind) {
  case EXPR_ADD: return arith_rw_add(s, e);
  case EXPR_SUB: return arith_rw_sub(s, e);
  case EXPR_MUL: return arith_rw_mul(s, e);
  case EXPR_DIV: return arith_rw_div(s, e);
  case EXPR_MOD: return arith_rw_mod(s, e);
  case EXPR_FLOORDIV: return arith_rw_floordiv(s, e);
  case EXPR_FLOORMOD: return arith_rw_floormod(s, e);
  case EXPR_MIN: return arith_rw_min(s, e);
  case EXPR_MAX: return arith_rw_max(s, e);
  case EXPR_EQ: return arith_rw_eq(s, e);
  case EXPR_NE: return arith_rw_ne(s, e);
  case EXPR_LT: return arith_rw_lt(s, e);
  case EXPR_LE: return arith_rw_le(s, e);
  case EXPR_AND: return arith_rw_and(s, e);
  case EXPR_OR: return arith_rw_or(s, e);
  case EXPR_GT: case EXPR_GE: ARITH_CASES_NOT_BINARY: break;
  }
  TES_UNREACHABLE();
}

/* r, or node when r only rebuilt it (a <= b comes back from !(b < a) as a new a <= b). */
static Expr *settle(Expr *r, Expr *node) { return r != node && ir_expr_equal(r, node) ? node : r; }

static Expr *node_rules(Simp *s, Expr *node) {
  Expr *r = node->kind == EXPR_NOT    ? arith_rw_not(s, node)
            : node->kind == EXPR_CALL ? arith_rw_call(s, node)
                                      : binary_rules(s, node);
  return settle(r, node);
}

Expr *arith_simp_node(Simp *s, Expr *e) {
  switch (e->kind) {
  case EXPR_INT: case EXPR_FLOAT: case EXPR_STR: return e;
  case EXPR_VAR: return visit_var(s, e);
  case EXPR_CAST: return visit_cast(s, e);
  case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD:
  case EXPR_FLOORDIV: case EXPR_FLOORMOD: case EXPR_MIN: case EXPR_MAX: case EXPR_EQ:
  case EXPR_NE: case EXPR_LT: case EXPR_LE: case EXPR_AND: case EXPR_OR: case EXPR_NOT:
    return node_rules(s, ir_mutate_children_expr(&s->m, e));
  case EXPR_GT: return visit_flipped(s, e, EXPR_LT);
  case EXPR_GE: return visit_flipped(s, e, EXPR_LE);
  case EXPR_SELECT: return visit_select(s, e);
  case EXPR_CALL:
    if (is_call(e, "tir.if_then_else", 3)) return visit_if_then_else(s, e);
    return node_rules(s, ir_mutate_children_expr(&s->m, e));
  case EXPR_LET: return visit_let(s, e);
  case EXPR_RAMP: case EXPR_BROADCAST: case EXPR_LOAD: case EXPR_PRODUCER_LOAD: case EXPR_REDUCE:
    return ir_mutate_children_expr(&s->m, e);
  case EXPR_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}
