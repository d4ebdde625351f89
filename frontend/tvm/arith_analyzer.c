/* arith_analyzer.c: tvm.arith, TVM's Analyzer over ir/arith: simplify, rewrite_simplify,
 * canonical_simplify, const_int_bound (a ConstIntBound with min_value and max_value),
 * modular_set (a ModularSet with coeff and base), bind, can_prove. Its nodes go into the
 * session's IR arena, where every expression a script holds lives. */
#include <stdio.h>
#include <stdlib.h>

#include "frontend/tvm/packages.h"
#include "frontend/tvm/te_impl.h"
#include "ir/arith/arith.h"

typedef struct BiAnalyzer {
  Analyzer *an;
} BiAnalyzer;

typedef struct Bound {
  int64_t a, b; /* ConstIntBound: min, max; ModularSet: coeff, base */
} Bound;

static void analyzer_free(void *p) {
  BiAnalyzer *a = p;
  arith_free(a->an);
  free(a);
}

static Analyzer *analyzer_of(Value *self) { return ((BiAnalyzer *)self->u.obj.p)->an; }

static Expr *int_expr_arg(Interp *I, Value *v, const char *fn) {
  char t[32];
  Expr *e = bi_te_to_expr(I, v, fn);
  if (e && (!dt_is_int(e->dtype) || e->dtype.lanes != 1))
    return BI_TE_RAISE(I, EXC_TypeError, "%s: expected an integer expression, not %s", fn,
                       dt_name(e->dtype, t));
  return e;
}

/* ---- ConstIntBound and ModularSet ---- */

static Value *bound_a(Interp *I, Value *self) { return val_int(((Bound *)self->u.obj.p)->a); }
static Value *bound_b(Interp *I, Value *self) { return val_int(((Bound *)self->u.obj.p)->b); }

static Value *bound_repr(Interp *I, Value *self, const char *fmt) {
  const Bound *b = self->u.obj.p;
  char s[96];
  snprintf(s, sizeof s, fmt, (long long)b->a, (long long)b->b);
  return val_cstr(s);
}

static Value *const_bound_repr(Interp *I, Value *self) {
  return bound_repr(I, self, "ConstIntBound(min_value=%lld, max_value=%lld)");
}

static Value *modular_repr(Interp *I, Value *self) {
  return bound_repr(I, self, "ModularSet(coeff=%lld, base=%lld)");
}

static const Property const_bound_props[] = {
    {"min_value", bound_a, "the least value (-(2**63 - 1): unbounded)"},
    {"max_value", bound_b, "the greatest value (2**63 - 1: unbounded)"},
    {0},
};

static const Property modular_props[] = {
    {"coeff", bound_a, "the values are coeff*k + base (coeff 0: exactly base)"},
    {"base", bound_b, "the remainder, 0 <= base < coeff"},
    {0},
};

static const ObjClass const_bound_class = {
    .type = {"ConstIntBound", NULL, VAL_OBJ, NULL},
    .free = free,
    .repr = const_bound_repr,
    .props = const_bound_props,
};

static const ObjClass modular_class = {
    .type = {"ModularSet", NULL, VAL_OBJ, NULL},
    .free = free,
    .repr = modular_repr,
    .props = modular_props,
};

static Value *new_bound(const ObjClass *cls, int64_t a, int64_t b) {
  Bound *p = malloc(sizeof *p);
  p->a = a, p->b = b;
  return val_obj_new(cls, p);
}

/* ---- the Analyzer's methods ---- */

typedef Expr *(*Simplifier)(Analyzer *, Expr *);

static Value *simplify_with(Interp *I, Value *self, Value *v, const char *fn, Simplifier f) {
  Expr *e = bi_te_to_expr(I, v, fn);
  return e ? bi_te_wrap_expr(f(analyzer_of(self), e)) : NULL;
}

static Value *an_simplify(Interp *I, Value *self, Value **a) {
  return simplify_with(I, self, a[0], "simplify", arith_simplify);
}
static Value *an_rewrite_simplify(Interp *I, Value *self, Value **a) {
  return simplify_with(I, self, a[0], "rewrite_simplify", arith_rewrite_simplify);
}
static Value *an_canonical_simplify(Interp *I, Value *self, Value **a) {
  return simplify_with(I, self, a[0], "canonical_simplify", arith_canonical_simplify);
}

static Value *an_const_int_bound(Interp *I, Value *self, Value **a) {
  Expr *e = int_expr_arg(I, a[0], "const_int_bound");
  if (!e) return NULL;
  ConstBound b = arith_const_bound(analyzer_of(self), e);
  return new_bound(&const_bound_class, b.min, b.max);
}

static Value *an_modular_set(Interp *I, Value *self, Value **a) {
  Expr *e = int_expr_arg(I, a[0], "modular_set");
  if (!e) return NULL;
  ModularSet m = arith_modular_set(analyzer_of(self), e);
  return new_bound(&modular_class, m.coeff, m.base);
}

/* bind(var, value): value an expression (var is it) or a range (var lies in it). */
static Value *an_bind(Interp *I, Value *self, Value **a) {
  Expr *v = bi_te_to_expr(I, a[0], "bind");
  if (!v) return NULL;
  if (v->kind != EXPR_VAR)
    return interp_raise(I, EXC_TypeError, "bind: the first argument must be a variable");
  Value *x = a[1];
  bool is_range = x->kind == VAL_RANGE || x->kind == VAL_TUPLE || x->kind == VAL_LIST ||
                  (x->kind == VAL_OBJ && x->u.obj.cls == &bi_te_range_class);
  if (is_range) {
    Range r;
    if (bi_te_range_arg(I, x, "bind", &r) < 0) return NULL;
    arith_bind(analyzer_of(self), v->u.var, r);
    return val_none();
  }
  Expr *e = bi_te_to_expr(I, x, "bind");
  if (!e) return NULL;
  arith_bind_value(analyzer_of(self), v->u.var, e);
  return val_none();
}

static Value *an_can_prove(Interp *I, Value *self, Value **a) {
  Expr *c = bi_te_cond_arg(I, a[0], "can_prove", "cond");
  return c ? val_bool(arith_can_prove(analyzer_of(self), c)) : NULL;
}

static Value *an_repr(Interp *I, Value *self) { return val_cstr("<tvm.arith.Analyzer>"); }

static const Builtin analyzer_methods[] = {
    {"simplify", an_simplify, 1, PARAMS("expr", "steps"),
     "simplify(expr) -> PrimExpr: the rewrite simplifier, then the canonical one"},
    {"rewrite_simplify", an_rewrite_simplify, 1, PARAMS("expr"),
     "rewrite_simplify(expr) -> PrimExpr: the rewrite rules alone"},
    {"canonical_simplify", an_canonical_simplify, 1, PARAMS("expr"),
     "canonical_simplify(expr) -> PrimExpr: integer arithmetic as a sum of scaled terms"},
    {"const_int_bound", an_const_int_bound, 1, PARAMS("expr"),
     "const_int_bound(expr) -> ConstIntBound: .min_value and .max_value of an integer "
     "expression"},
    {"modular_set", an_modular_set, 1, PARAMS("expr"),
     "modular_set(expr) -> ModularSet: .coeff and .base, the values being coeff*k + base"},
    {"bind", an_bind, 2, PARAMS("var", "expr"),
     "bind(var, expr_or_range): var is expr from now on, or lies in the range ((min, end), "
     "range(...) or an IterVar's dom)"},
    {"can_prove", an_can_prove, 1, PARAMS("cond"),
     "can_prove(cond) -> bool: whether cond holds for every value the variables may take"},
    {0},
};

static const ObjClass analyzer_class = {
    .type = {"Analyzer", NULL, VAL_OBJ, NULL},
    .free = analyzer_free,
    .repr = an_repr,
    .methods = analyzer_methods,
};

static Value *fn_analyzer(Interp *I, Value *self, Value **a) {
  BiAnalyzer *p = malloc(sizeof *p);
  p->an = arith_new(arena(I));
  return val_obj_new(&analyzer_class, p);
}

const Builtin bi_arith_funcs[] = {
    {"Analyzer", fn_analyzer, 0, NOPARAMS,
     "Analyzer() -> Analyzer: TVM's arithmetic analyzer (simplify, const_int_bound, "
     "modular_set, canonical_simplify, bind, can_prove)"},
    {0},
};
