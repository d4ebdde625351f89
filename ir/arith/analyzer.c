/* analyzer.c: the Analyzer, which fronts the analyses as TVM's analyzer.cc does: it keeps
 * what is known of each variable (bounds, modular set, a value to inline), binds variables,
 * pushes and pops constraints, and runs the simplifiers. Variables are looked up by pointer in
 * a PtrMap; a constraint logs the entries it replaces and its pop restores them, so nested
 * conditions cost only what they change. */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith_impl.h"
#include "ir/support.h"

Analyzer *arith_new(Arena *a) {
  Analyzer *an = xcalloc(1, sizeof *an);
  an->arena = a;
  arena_init(&an->scratch);
  ptrmap_init(&an->index, NULL);
  return an;
}

Arena *arith_arena(const Analyzer *an) { return an->arena; }

void arith_free(Analyzer *an) {
  if (!an) return;
  arena_free(&an->scratch);
  ptrmap_free(&an->index);
  free(an->vars);
  free(an->undo);
  free(an->frames);
  free(an->facts);
  free(an->ebounds);
  free(an);
}

/* ---- the variable table ---- */

static VarInfo *entry_of(const Analyzer *an, const Var *v) {
  intptr_t k = (intptr_t)ptrmap_get(&an->index, v);
  return k ? &an->vars[k - 1] : NULL;
}

const VarInfo *arith_lookup(const Analyzer *an, const Var *v) { return entry_of(an, v); }

void arith_update(Analyzer *an, const VarInfo *info) {
  void **k = ptrmap_slot(&an->index, info->var);
  if (!*k) {
    VEC_GROW(NULL, an->vars, an->capvars, an->nvars + 1);
    an->vars[an->nvars++] = (VarInfo){.var = info->var};
    *k = (void *)(intptr_t)an->nvars;
  }
  VarInfo *entry = &an->vars[(intptr_t)*k - 1];
  if (an->nframes) {
    VEC_GROW(NULL, an->undo, an->capundo, an->nundo + 1);
    an->undo[an->nundo++] = *entry;
  }
  *entry = *info;
}

static VarInfo info_of(Analyzer *an, const Var *v) {
  const VarInfo *found = arith_lookup(an, v);
  return found ? *found : (VarInfo){.var = v};
}

void arith_bind(Analyzer *an, const Var *v, Range r) {
  TES_ASSERT(r.min && r.extent, "arith_bind of %s without a range", v->name);
  if (ir_is_const_int(r.extent, 1)) {
    arith_bind_value(an, v, r.min);
    return;
  }
  VarInfo info = info_of(an, v);
  info.has_bound = true;
  info.bound = arith_bound_of_range(an, r);
  info.has_mod = false;
  info.value = NULL;
  arith_update(an, &info);
}

void arith_bind_value(Analyzer *an, const Var *v, Expr *value) {
  value = arith_simplify(an, value);
  VarInfo info = {.var = v, .has_bound = true, .has_mod = true, .value = value};
  info.bound = arith_const_bound(an, value);
  info.mod = arith_modular_set(an, value);
  arith_update(an, &info);
}

void arith_bind_bound(Analyzer *an, const Var *v, ConstBound b) {
  VarInfo info = info_of(an, v);
  info.bound = info.has_bound ? arith_bound_intersect(info.bound, b) : b;
  info.has_bound = true;
  arith_update(an, &info);
}

/* ---- constraints ---- */

void arith_push_expr_bound(Analyzer *an, const Expr *e, ConstBound b) {
  VEC_GROW(NULL, an->ebounds, an->capebounds, an->nebounds + 1);
  an->ebounds[an->nebounds++] = (ExprBound){e, b};
}

static void push_fact(Analyzer *an, Expr *e, bool value) {
  VEC_GROW(NULL, an->facts, an->capfacts, an->nfacts + 1);
  an->facts[an->nfacts++] = (Fact){e, value};
}

/* !c with the negation pushed inward as TVM's NormalizeBooleanOperators does, so that the
 * fact "c is true" also folds the forms the simplifier writes for "c is false". */
static Expr *negate(Arena *a, Expr *c) {
  Expr *x = c->u.bin.a, *y = c->u.bin.b;
  switch (c->kind) {
  case EXPR_NOT: return c->u.unary.a;
  case EXPR_AND: return ir_binary(a, EXPR_OR, negate(a, x), negate(a, y));
  case EXPR_OR: return ir_binary(a, EXPR_AND, negate(a, x), negate(a, y));
  case EXPR_LT: return ir_binary(a, EXPR_LE, y, x);
  case EXPR_LE: return ir_binary(a, EXPR_LT, y, x);
  case EXPR_GT: return ir_binary(a, EXPR_LE, x, y);
  case EXPR_GE: return ir_binary(a, EXPR_LT, x, y);
  case EXPR_EQ: return ir_binary(a, EXPR_NE, x, y);
  case EXPR_NE: return ir_binary(a, EXPR_EQ, x, y);
  case EXPR_INT: case EXPR_FLOAT: case EXPR_STR: case EXPR_VAR: case EXPR_CAST: case EXPR_ADD:
  case EXPR_SUB: case EXPR_MUL: case EXPR_DIV: case EXPR_MOD: case EXPR_FLOORDIV:
  case EXPR_FLOORMOD: case EXPR_MIN: case EXPR_MAX: case EXPR_SELECT: case EXPR_RAMP:
  case EXPR_BROADCAST: case EXPR_LET: case EXPR_CALL: case EXPR_LOAD: case EXPR_PRODUCER_LOAD:
  case EXPR_REDUCE:
    return ir_not(a, c);
  case EXPR_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}

/* Each conjunct of c is true and its negation false; with `canonical`, also in the form the
 * canonical simplifier writes, for a c that came from the rewriter. */
static void push_facts(Analyzer *an, Expr *c, bool canonical) {
  if (c->kind == EXPR_AND) {
    push_facts(an, c->u.bin.a, canonical);
    push_facts(an, c->u.bin.b, canonical);
    return;
  }
  if (c->kind == EXPR_INT) return;
  push_fact(an, c, true);
  push_fact(an, negate(an->arena, c), false);
  Expr *other = canonical ? arith_canonical_simplify(an, c) : c;
  if (other != c && other->kind != EXPR_INT) {
    push_fact(an, other, true);
    push_fact(an, negate(an->arena, other), false);
  }
}

void arith_push_simplified(Analyzer *an, Expr *c, bool canonical) {
  TES_ASSERT(dt_is_bool(c->dtype), "constraint of a non-bool expression");
  VEC_GROW(NULL, an->frames, an->capframes, an->nframes + 1);
  an->frames[an->nframes++] = (ConstraintFrame){an->nundo, an->nfacts, an->nebounds};
  arith_bound_constrain(an, c);
  arith_modular_constrain(an, c);
  push_facts(an, c, canonical);
}

void arith_push_constraint(Analyzer *an, Expr *cond) {
  arith_push_simplified(an, arith_rewrite_simplify(an, cond), true);
}

void arith_pop_constraint(Analyzer *an) {
  TES_ASSERT(an->nframes > 0, "arith_pop_constraint without a push");
  ConstraintFrame f = an->frames[--an->nframes];
  while (an->nundo > f.undo_mark) {
    VarInfo *old = &an->undo[--an->nundo];
    *entry_of(an, old->var) = *old;
  }
  an->nfacts = f.fact_mark;
  an->nebounds = f.ebound_mark;
}

/* ---- simplification ---- */

/* The canonical forms live in the scratch arena until the outermost simplification ends. */
static void scratch_enter(Analyzer *an) { an->scratch_users++; }

static void scratch_leave(Analyzer *an) {
  if (--an->scratch_users == 0) arena_free(&an->scratch);
}

/* TVM's RewriteSimplifier runs its pass twice at most, stopping when nothing changes. */
Expr *arith_rewrite_simplify(Analyzer *an, Expr *e) {
  Simp s;
  arith_simp_init(&s, an, false);
  Expr *r = arith_simp_visit(&s, e);
  return r == e ? e : arith_simp_visit(&s, r);
}

Expr *arith_canonical_simplify(Analyzer *an, Expr *e) {
  Simp s;
  arith_simp_init(&s, an, true);
  scratch_enter(an);
  Expr *r = arith_simp_visit(&s, e);
  scratch_leave(an);
  return r;
}

Expr *arith_simplify(Analyzer *an, Expr *e) {
  if (e->kind == EXPR_INT) return e;
  Expr *r = arith_rewrite_simplify(an, e);
  if (r->kind == EXPR_INT) return r;
  r = arith_canonical_simplify(an, r);
  return r != e && ir_expr_equal(r, e) ? e : r;
}

Expr *arith_simplify_binary(Analyzer *an, ExprKind k, Expr *x, Expr *y) {
  return arith_simplify(an, arith_binary(an->arena, k, x, y));
}

bool arith_can_prove(Analyzer *an, Expr *cond) {
  int64_t v;
  if (arith_is_int(arith_simplify(an, cond), &v)) return v != 0;
  return arith_is_int(arith_canonical_simplify(an, cond), &v) && v != 0;
}

bool arith_can_prove_ge(Analyzer *an, const Expr *e, int64_t lower) {
  return arith_const_bound(an, e).min >= lower;
}

bool arith_can_prove_equal(Analyzer *an, Expr *a, Expr *b) {
  if (a == b) return true;
  Expr *d = arith_simplify(an, arith_binary(an->arena, EXPR_SUB, a, b));
  return ir_is_const_int(d, 0) && d->dtype.lanes == 1;
}
