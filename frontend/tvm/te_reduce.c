/* te_reduce.c: reductions: te.sum / te.max / te.min, te.comm_reducer and the reducers it
 * makes. As in TVM, each call builds a fresh CommReducer (combiner variables named after
 * fcombine's parameters, x and y for the built-in ones) and one REDUCE per value it reduces.
 * te.max, te.min and comm_reducer reducers called with something other than axes as their
 * second positional argument combine their arguments elementwise instead (te.max(a, b) is
 * max(a, b), which TOPI's relu uses). An axis= keyword must be reduce axes, and so must te.sum's
 * second argument, so that te.sum(A[i, 0], axis=i) or axis=5 is a TypeError rather than the
 * nonsense A[i, 0] + i. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/tvm/te_impl.h"

typedef enum { RED_SUM, RED_MAX, RED_MIN, RED_USER } RedKind;

typedef struct Reducer {
  RedKind kind;
  const char *name;            /* malloc'd for RED_USER */
  Value *fcombine, *fidentity; /* RED_USER: counted */
} Reducer;

static Reducer red_sum = {RED_SUM, "sum", NULL, NULL};
static Reducer red_max = {RED_MAX, "max", NULL, NULL};
static Reducer red_min = {RED_MIN, "min", NULL, NULL};

/* ---- the combiner ---- */

static Expr **new_exprs(Interp *I, int n) {
  return arena_alloc(arena(I), (size_t)(n + 1) * sizeof(Expr *));
}

static CommReducer *new_combiner(Interp *I, const char *name, int n) {
  CommReducer *c = arena_alloc(arena(I), sizeof *c);
  c->name = arena_strndup(arena(I), name, strlen(name));
  c->n = n;
  c->lhs = arena_alloc(arena(I), (size_t)n * sizeof(Var *));
  c->rhs = arena_alloc(arena(I), (size_t)n * sizeof(Var *));
  c->result = new_exprs(I, n);
  c->identity = new_exprs(I, n);
  return c;
}

static CommReducer *builtin_combiner(Interp *I, const Reducer *r, DType t) {
  static const TeOp ops[] = {[RED_SUM] = TE_ADD, [RED_MAX] = TE_MAX, [RED_MIN] = TE_MIN};
  CommReducer *c = new_combiner(I, r->name, 1);
  c->lhs[0] = ir_var(arena(I), "x", t);
  c->rhs[0] = ir_var(arena(I), "y", t);
  Expr *x = ir_varref(arena(I), c->lhs[0]), *y = ir_varref(arena(I), c->rhs[0]);
  if (!(c->result[0] = bi_te_binary_exprs(I, ops[r->kind], x, y))) return NULL;
  if (r->kind == RED_SUM)
    c->identity[0] = dt_is_float(t) ? ir_float(arena(I), t, 0) : ir_int(arena(I), t, 0);
  else
    c->identity[0] = r->kind == RED_MAX ? bi_te_min_value(I, t) : bi_te_max_value(I, t);
  return c->identity[0] ? c : NULL;
}

/* The names of fcombine's two parameters (TVM names the combiner's variables after them). */
static int combine_names(Interp *I, const Reducer *r, const char *names[2]) {
  names[0] = "x", names[1] = "y";
  if (r->fcombine->kind != VAL_FUNC) return 0;
  const FuncDef *d = r->fcombine->u.func->def;
  int n = 0;
  for (int i = 0; i < d->nparams; i++)
    if (d->params[i].kind == PARAM_PLAIN && n < 2) names[n++] = SYM_STR(d->params[i].name);
  if (n == 2 && d->nparams == 2) return 0;
  interp_raise(I, EXC_TypeError, "comm_reducer %s: fcombine must take two arguments (lhs, rhs)",
               r->name);
  return -1;
}

/* The combiner's variables for n values: x and y for one value, x_0, x_1 ... for several. */
static Value *combine_vars(Interp *I, const char *base, int n, Expr **src, Var **out) {
  char name[128];
  Value *tup = n == 1 ? NULL : val_tuple_new(n);
  for (int i = 0; i < n; i++) {
    if (n == 1) snprintf(name, sizeof name, "%s", base);
    else snprintf(name, sizeof name, "%s_%d", base, i);
    out[i] = ir_var(arena(I), name, src[i]->dtype);
    Value *v = bi_te_wrap_expr(ir_varref(arena(I), out[i]));
    if (n == 1) return v;
    val_seq_set_take(tup, i, v);
  }
  return tup;
}

/* fcombine's or fidentity's result: n expressions of the sources' dtypes. */
static int take_results(Interp *I, const Reducer *r, const char *what, Value *res, int n,
                        Expr **src, Expr **out) {
  char msg[160], a[32], b[32];
  bool seq = res->kind == VAL_TUPLE || res->kind == VAL_LIST;
  if (n > 1 && (!seq || VAL_SEQ_N(res) != n)) {
    interp_raise(I, EXC_TypeError, "comm_reducer %s: %s must return %d values, one per source",
                 r->name, what, n);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    snprintf(msg, sizeof msg, "comm_reducer %s: %s", r->name, what);
    out[i] = bi_te_to_expr_as(I, n == 1 ? res : VAL_SEQ_ITEM(res, i), src[i]->dtype, msg);
    if (!out[i]) return -1;
    if (!dt_eq(out[i]->dtype, src[i]->dtype)) {
      interp_raise(I, EXC_TypeError, "%s returned %s for a value of dtype %s", msg,
                   dt_name(out[i]->dtype, a), dt_name(src[i]->dtype, b));
      return -1;
    }
  }
  return 0;
}

static int call_identity(Interp *I, const Reducer *r, CommReducer *c, Expr **src) {
  Value **dts = xcalloc((size_t)c->n, sizeof *dts);
  for (int i = 0; i < c->n; i++) dts[i] = bi_te_dtype_str(src[i]->dtype);
  Value *res = interp_callv(I, r->fidentity, c->n, dts);
  for (int i = 0; i < c->n; i++) val_decref(dts[i]);
  free(dts);
  if (!res) return -1;
  int rc = take_results(I, r, "fidentity", res, c->n, src, c->identity);
  val_decref(res);
  return rc;
}

static CommReducer *user_combiner(Interp *I, const Reducer *r, int n, Expr **src) {
  const char *names[2];
  if (combine_names(I, r, names) < 0) return NULL;
  CommReducer *c = new_combiner(I, r->name, n);
  Value *args[2] = {combine_vars(I, names[0], n, src, c->lhs),
                    combine_vars(I, names[1], n, src, c->rhs)};
  Value *res = interp_callv(I, r->fcombine, 2, args);
  val_decref(args[0]);
  val_decref(args[1]);
  if (!res) return NULL;
  int rc = take_results(I, r, "fcombine", res, n, src, c->result);
  val_decref(res);
  if (rc < 0 || call_identity(I, r, c, src) < 0) return NULL;
  return c;
}

/* ---- arguments ---- */

static bool is_axis_arg(Value *v) {
  return bi_te_itervar_of(v) || v->kind == VAL_TUPLE || v->kind == VAL_LIST;
}

static int axes_arg(Interp *I, const Reducer *r, Value *axis, int *n, IterVar ***out) {
  Value **items = &axis;
  int64_t count = 1;
  if (axis->kind == VAL_TUPLE || axis->kind == VAL_LIST)
    items = axis->u.list->items, count = VAL_SEQ_N(axis);
  if (count == 0) {
    interp_raise(I, EXC_ValueError, "%s: axis is empty; give the reduce axes to reduce over",
                 r->name);
    return -1;
  }
  *out = arena_alloc(arena(I), (size_t)count * sizeof **out);
  for (int64_t i = 0; i < count; i++) {
    IterVar *iv = bi_te_itervar_of(items[i]);
    if (!iv || iv->kind != ITER_REDUCE) {
      interp_raise(I, EXC_TypeError, "%s: axis must be reduce axes (te.reduce_axis), not %s%s",
                   r->name, iv ? "the axis " : val_type_name(items[i]), iv ? iv->var->name : "");
      return -1;
    }
    for (int64_t j = 0; j < i; j++)
      if ((*out)[j] == iv) {
        interp_raise(I, EXC_ValueError, "%s: reduce axis %s is given twice", r->name,
                     iv->var->name);
        return -1;
      }
    (*out)[i] = iv;
  }
  *n = (int)count;
  return 0;
}

static int sources_arg(Interp *I, const Reducer *r, Value *expr, int *n, Expr ***out) {
  Value **items = &expr;
  int64_t count = 1;
  char what[64];
  if (expr->kind == VAL_TUPLE || expr->kind == VAL_LIST)
    items = expr->u.list->items, count = VAL_SEQ_N(expr);
  if (count == 0 || (count > 1 && r->kind != RED_USER)) {
    interp_raise(I, EXC_TypeError, "%s: reduces %s, not %lld", r->name,
                 r->kind == RED_USER ? "at least one expression" : "one expression",
                 (long long)count);
    return -1;
  }
  *out = new_exprs(I, (int)count);
  snprintf(what, sizeof what, "%s: the expression to reduce", r->name);
  for (int64_t i = 0; i < count; i++)
    if (!((*out)[i] = bi_te_to_expr(I, items[i], what))) return -1;
  *n = (int)count;
  return 0;
}

/* ---- reducing ---- */

static Value *make_reduce(Interp *I, const Reducer *r, Value **a) {
  int nsrc, naxis;
  Expr **src, *cond = NULL;
  IterVar **axes;
  if (a[3] && a[3]->kind != VAL_NONE)
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: %s(init=...) (reductions with an initial value)",
                        r->name);
  if (sources_arg(I, r, a[0], &nsrc, &src) < 0 || axes_arg(I, r, a[1], &naxis, &axes) < 0)
    return NULL;
  if (a[2] && a[2]->kind != VAL_NONE && !(cond = bi_te_cond_arg(I, a[2], r->name, "where")))
    return NULL;
  CommReducer *c = r->kind == RED_USER ? user_combiner(I, r, nsrc, src)
                                       : builtin_combiner(I, r, src[0]->dtype);
  if (!c) return NULL;
  Expr *first = bi_te_shallow(I, ir_reduce(arena(I), c, nsrc, src, naxis, axes, cond, 0));
  if (!first) return NULL;
  if (nsrc == 1) return bi_te_wrap_expr(first);
  Value *t = val_tuple_new(nsrc);
  val_seq_set_take(t, 0, bi_te_wrap_expr(first));
  for (int i = 1; i < nsrc; i++) /* as deep as the first: same children */
    val_seq_set_take(t, i, bi_te_wrap_expr(ir_reduce(arena(I), c, nsrc, src, naxis, axes, cond, i)));
  return t;
}

/* x, y -> combine(x, y) with fcombine, or the built-in operator. */
static Value *combine2(Interp *I, const Reducer *r, Value *x, Value *y) {
  static const TeOp ops[] = {[RED_SUM] = TE_ADD, [RED_MAX] = TE_MAX, [RED_MIN] = TE_MIN};
  if (r->kind != RED_USER) {
    Expr *e = bi_te_binary(I, ops[r->kind], x, y);
    return e ? bi_te_wrap_expr(e) : NULL;
  }
  Value *args[2] = {x, y};
  return interp_callv(I, r->fcombine, 2, args);
}

/* TVM's _reduce_directly: expr and the positional arguments folded left with the combiner; a
 * None where `where` and `init` would stand is skipped, as TVM skips it. */
static Value *reduce_directly(Interp *I, const Reducer *r, Value *expr, Value *rest) {
  Value *acc = val_incref(expr);
  for (int64_t i = 0; i < VAL_SEQ_N(rest) && acc; i++) {
    Value *v = VAL_SEQ_ITEM(rest, i);
    if (i > 0 && i < 3 && v->kind == VAL_NONE) continue;
    Value *next = combine2(I, r, acc, v);
    val_decref(acc);
    acc = next;
  }
  return acc;
}

/* What a second argument that is not axes is, for the error: "int", "the variable i". */
static Value *not_axes(Interp *I, const Reducer *r, Value *v) {
  Expr *e = bi_te_expr_of(v);
  if (e && e->kind == EXPR_VAR)
    return interp_raise(I, EXC_TypeError,
                        "%s: axis must be reduce axes (te.reduce_axis), not the variable %s",
                        r->name, e->u.var->name);
  return interp_raise(I, EXC_TypeError, "%s: axis must be reduce axes (te.reduce_axis), not %s",
                      r->name, val_type_name(v));
}

/* The slots of BI_TE_REDUCER_PARAMS: expr, the other positional arguments, then axis, where
 * and init when given by keyword. Given by keyword, axis must be axes; so must a positional
 * one for te.sum, while te.max, te.min and comm_reducer reducers combine (a, b, ...)
 * elementwise (TVM's overload; a + b is what te.sum(a, b) would be, never meant). */
static Value *reduce_call(Interp *I, const Reducer *r, Value **a) {
  Value *pos = a[1], *axis = a[2], *where = a[3], *init = a[4];
  int64_t n = VAL_SEQ_N(pos);
  if (!axis && n == 0)
    return interp_raise(I, EXC_TypeError, "%s() missing required argument 'axis' (pos 2)",
                        r->name);
  if (axis && n > 0)
    return interp_raise(I, EXC_TypeError, "%s() got multiple values for argument 'axis'",
                        r->name);
  if (!axis && !is_axis_arg(VAL_SEQ_ITEM(pos, 0))) {
    if (r->kind == RED_SUM || where || init)
      return not_axes(I, r, VAL_SEQ_ITEM(pos, 0));
    return reduce_directly(I, r, a[0], pos);
  }
  if (n > 3)
    return interp_raise(I, EXC_TypeError,
                        "%s() takes at most 4 arguments when reducing over axes", r->name);
  if ((n > 1 && where) || (n > 2 && init))
    return interp_raise(I, EXC_TypeError, "%s() got multiple values for argument '%s'", r->name,
                        n > 1 && where ? "where" : "init");
  Value *slots[4] = {a[0], axis ? axis : VAL_SEQ_ITEM(pos, 0),
                     n > 1 ? VAL_SEQ_ITEM(pos, 1) : where, n > 2 ? VAL_SEQ_ITEM(pos, 2) : init};
  if (!is_axis_arg(slots[1])) return not_axes(I, r, slots[1]);
  return make_reduce(I, r, slots);
}

Value *bi_te_sum(Interp *I, Value *self, Value **a) { return reduce_call(I, &red_sum, a); }
Value *bi_te_max(Interp *I, Value *self, Value **a) { return reduce_call(I, &red_max, a); }
Value *bi_te_min(Interp *I, Value *self, Value **a) { return reduce_call(I, &red_min, a); }

/* ---- te.comm_reducer and its reducers ---- */

static void reducer_free(void *p) {
  Reducer *r = p;
  val_xdecref(r->fcombine);
  val_xdecref(r->fidentity);
  free((char *)r->name);
  free(r);
}

static void reducer_visit(void *p, void (*fn)(Value *child, void *arg), void *arg) {
  Reducer *r = p;
  if (r->fcombine) fn(r->fcombine, arg);
  if (r->fidentity) fn(r->fidentity, arg);
}

static void reducer_clear(void *p) {
  Reducer *r = p;
  Value *held[2] = {r->fcombine, r->fidentity};
  r->fcombine = r->fidentity = NULL;
  val_xdecref(held[0]);
  val_xdecref(held[1]);
}

static Value *reducer_repr(Interp *I, Value *self) {
  const Reducer *r = self->u.obj.p;
  size_t n = strlen(r->name) + 32;
  char *s = xmalloc(n);
  snprintf(s, n, "<comm_reducer %s>", r->name);
  return val_str_take(s, strlen(s));
}

static Value *reducer_call(Interp *I, Value *self, CallArgs *args) {
  const Reducer *r = self->u.obj.p;
  const Builtin sig = {r->name, NULL, 1, BI_TE_REDUCER_PARAMS, NULL};
  Value *slots[5];
  Value *v = interp_bind_builtin(I, &sig, args, slots) < 0 ? NULL : reduce_call(I, r, slots);
  val_xdecref(slots[1]); /* the binder's *args tuple, made even when binding failed later */
  return v;
}

const ObjClass bi_te_reducer_class = {
    .type = {"Reducer", NULL, VAL_OBJ, NULL},
    .free = reducer_free,
    .visit = reducer_visit,
    .clear = reducer_clear,
    .repr = reducer_repr,
    .call = reducer_call,
};

Value *bi_te_comm_reducer(Interp *I, Value *self, Value **a) {
  const char *name = bi_te_str_arg(I, a[2], "comm_reducer", "name", "reduce");
  if (!name) return NULL;
  for (int i = 0; i < 2; i++)
    if (!val_is_callable(a[i]))
      return interp_raise(I, EXC_TypeError, "comm_reducer: %s must be callable, not '%s'",
                          i ? "fidentity" : "fcombine", val_type_name(a[i]));
  Reducer *r = xcalloc(1, sizeof *r);
  r->kind = RED_USER;
  r->name = xstrdup(name);
  r->fcombine = val_incref(a[0]);
  r->fidentity = val_incref(a[1]);
  return val_obj_new(&bi_te_reducer_class, r);
}
