/* te.c: the functions of tvm.te, tvm.tir and the pre-0.7 tvm spellings (SPEC §6):
 * variables and constants, te.placeholder and te.compute, reduce and thread axes, the
 * conditional and logical helpers and the math intrinsics, and the tables that make them
 * module members, te.create_schedule and tvm.lower (tvm/sched.c) among them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp_impl.h"
#include "frontend/tvm/sched.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tensor_intrin.h"
#include "frontend/tvm/tir.h"
#include "frontend/tvm/tir_impl.h"

static Value *wrap_or_null(Expr *e) { return e ? bi_te_wrap_expr(e) : NULL; }

/* ---- arguments ---- */

const char *bi_te_str_arg(Interp *I, Value *v, const char *fn, const char *arg,
                          const char *dflt) {
  if (!v) return dflt;
  if (v->kind == VAL_STR) return v->u.str.s;
  interp_raise(I, EXC_TypeError, "%s: %s must be a str, not '%s'", fn, arg, val_type_name(v));
  return NULL;
}

int bi_te_dtype_arg(Interp *I, Value *v, const char *fn, const char *arg, DType dflt,
                    DType *out) {
  char name[32];
  if (!v || v->kind == VAL_NONE) return *out = dflt, 0;
  if (v->kind != VAL_STR) {
    interp_raise(I, EXC_TypeError, "%s: %s must be a dtype name such as \"float32\", not '%s'",
                 fn, arg, val_type_name(v));
    return -1;
  }
  if (!dt_parse(v->u.str.s, out)) {
    bool plain = !strcmp(arg, "dtype");
    interp_raise(I, EXC_ValueError, "%s: unknown dtype '%s'%s%s", fn, v->u.str.s,
                 plain ? "" : " for ", plain ? "" : arg);
    return -1;
  }
  if (out->lanes != 1) {
    interp_raise(I, EXC_ValueError, "%s: %s is a vector dtype (%s); tensor expressions are scalar",
                 fn, arg, dt_name(*out, name));
    return -1;
  }
  return 0;
}

/* An element type: any scalar dtype but handle. */
static int elem_dtype_arg(Interp *I, Value *v, const char *fn, DType dflt, DType *out) {
  if (bi_te_dtype_arg(I, v, fn, "dtype", dflt, out) < 0) return -1;
  if (out->code != DT_HANDLE) return 0;
  interp_raise(I, EXC_ValueError, "%s: handle is not an element dtype", fn);
  return -1;
}

Expr *bi_te_cond_arg(Interp *I, Value *v, const char *fn, const char *arg) {
  char what[64], name[32];
  snprintf(what, sizeof what, "%s: %s", fn, arg);
  Expr *e = bi_te_to_expr(I, v, what);
  if (e && (!dt_is_bool(e->dtype) || e->dtype.lanes != 1))
    return BI_TE_RAISE(I, EXC_TypeError, "%s must be a bool expression (a comparison), not %s",
                        what, dt_name(e->dtype, name));
  return e;
}

/* One extent of a shape: an integer expression, not negative if it is a literal. te.compute,
 * like TVM's, truncates a Python float (TVM's CPU GEMM tutorial writes `(N / bn, K, bn)`). */
static Expr *extent_arg(Interp *I, Value *v, const char *fn, int i) {
  char what[64], name[32];
  snprintf(what, sizeof what, "%s: shape[%d]", fn, i);
  if (v->kind == VAL_FLOAT && strcmp(fn, "compute") == 0 && v->u.f >= 0 && v->u.f < 2147483648.0)
    return ir_i32(arena(I), (int64_t)v->u.f);
  if (v->kind == VAL_FLOAT || v->kind == VAL_BOOL)
    return BI_TE_RAISE(I, EXC_TypeError, "%s must be an integer, not %s", what,
                        val_type_name(v));
  Expr *e = bi_te_to_expr(I, v, what);
  if (!e) return NULL;
  if (!dt_is_int(e->dtype) || e->dtype.lanes != 1)
    return BI_TE_RAISE(I, EXC_TypeError, "%s must be an integer, not %s", what,
                        dt_name(e->dtype, name));
  if (e->kind == EXPR_INT && e->dtype.code == DT_INT && e->u.ival < 0)
    return BI_TE_RAISE(I, EXC_ValueError, "%s is negative (%lld)", what, (long long)e->u.ival);
  return e;
}

/* A shape: a tuple or list of extents (Tensor.shape is a list), or a single extent. */
static int shape_arg(Interp *I, Value *v, const char *fn, int *ndim, Expr ***out) {
  Value **items = &v;
  int64_t n = 1;
  if (v->kind == VAL_TUPLE || v->kind == VAL_LIST) {
    items = v->u.list->items, n = VAL_SEQ_N(v);
  } else if (!bi_te_is_exprlike(v)) {
    interp_raise(I, EXC_TypeError, "%s: shape must be a tuple or list of extents, not '%s'", fn,
                 val_type_name(v));
    return -1;
  }
  if (n > 1024) {
    interp_raise(I, EXC_ValueError, "%s: a shape of %lld dimensions is too many", fn,
                 (long long)n);
    return -1;
  }
  *out = arena_alloc(arena(I), (size_t)(n + 1) * sizeof **out);
  for (int i = 0; i < n; i++)
    if (!((*out)[i] = extent_arg(I, items[i], fn, i))) return -1;
  *ndim = (int)n;
  return 0;
}

int bi_te_shape_arg(Interp *I, Value *v, const char *fn, int *ndim, Expr ***out) {
  return shape_arg(I, v, fn, ndim, out);
}

/* The integer literal of a Python int, int32 unless it needs int64. */
static Expr *int_literal(Interp *I, int64_t v) {
  return ir_int(arena(I), v >= INT32_MIN && v <= INT32_MAX ? DT_I32 : DT_I64, v);
}

/* dom = (min, end) as a tuple or list, or a range with step 1: min and extent = end - min,
 * as TVM's Range(begin, end) (the extent is end itself when min is 0). */
static int range_of_python(Interp *I, Value *v, const char *fn, Range *out) {
  int64_t lo = v->u.range.start, hi = v->u.range.stop;
  if (v->u.range.step != 1 || hi < lo) {
    interp_raise(I, EXC_ValueError, "%s: dom must be a range with step 1 and start <= stop", fn);
    return -1;
  }
  /* one dtype for both: range(0, 2**40) is an int64 range from an int64 0 */
  int64_t ext;
  if (__builtin_sub_overflow(hi, lo, &ext)) {
    interp_raise(I, EXC_ValueError, "%s: dom %lld..%lld is too large", fn, (long long)lo,
                 (long long)hi);
    return -1;
  }
  bool wide = int_literal(I, lo)->dtype.bits == 64 || int_literal(I, ext)->dtype.bits == 64;
  out->min = ir_int(arena(I), wide ? DT_I64 : DT_I32, lo);
  out->extent = ir_int(arena(I), wide ? DT_I64 : DT_I32, ext);
  return 0;
}

static int range_arg(Interp *I, Value *v, const char *fn, Range *out) {
  char name[32];
  Expr *lo, *hi;
  int64_t a, b;
  if (v->kind == VAL_RANGE) return range_of_python(I, v, fn, out);
  if ((v->kind != VAL_TUPLE && v->kind != VAL_LIST) || VAL_SEQ_N(v) != 2) {
    interp_raise(I, EXC_TypeError, "%s: dom must be a (min, end) tuple or a range, not %s", fn,
                 v->kind == VAL_TUPLE || v->kind == VAL_LIST ? "a sequence of another length"
                                                             : val_type_name(v));
    return -1;
  }
  if (bi_te_operands(I, VAL_SEQ_ITEM(v, 0), VAL_SEQ_ITEM(v, 1), fn, &lo, &hi) < 0) return -1;
  if (!dt_is_int(lo->dtype) || lo->dtype.lanes != 1) {
    interp_raise(I, EXC_TypeError, "%s: dom must be integers, not %s", fn, dt_name(lo->dtype, name));
    return -1;
  }
  out->min = lo;
  if (ir_as_int(lo, &a) && ir_as_int(hi, &b) && lo->kind == EXPR_INT && hi->kind == EXPR_INT) {
    if (b < a || __builtin_sub_overflow(b, a, &b)) {
      interp_raise(I, EXC_ValueError, "%s: dom (%lld, %lld) is empty or too large", fn,
                   (long long)a, (long long)hi->u.ival);
      return -1;
    }
    /* (-2**31, 2**31 - 1) is two int32s whose extent is not one */
    char what[64];
    snprintf(what, sizeof what, "%s: the extent of dom", fn);
    Value *ext = val_int(b);
    out->extent = bi_te_const(I, ext, lo->dtype, what);
    val_decref(ext);
    return out->extent ? 0 : -1;
  }
  out->extent = ir_is_const_int(lo, 0) && lo->kind == EXPR_INT
                    ? hi
                    : bi_te_shallow(I, ir_binary(arena(I), EXPR_SUB, hi, lo));
  return out->extent ? 0 : -1;
}

int bi_te_range_arg(Interp *I, Value *v, const char *fn, Range *out) {
  if (v->kind == VAL_OBJ && v->u.obj.cls == &bi_te_range_class) {
    *out = ((IterVar *)v->u.obj.p)->dom;
    return 0;
  }
  return range_arg(I, v, fn, out);
}

/* ---- variables and constants ---- */

static Value *make_var(Interp *I, Value **a, const char *fn, const char *dflt) {
  const char *name = bi_te_str_arg(I, a[0], fn, "name", dflt);
  DType t;
  if (!name || bi_te_dtype_arg(I, a[1], fn, "dtype", DT_I32, &t) < 0) return NULL;
  return bi_te_wrap_expr(ir_varref(arena(I), ir_var(arena(I), name, t)));
}

static Value *fn_var(Interp *I, Value *self, Value **a) { return make_var(I, a, "var", "v"); }

static Value *fn_size_var(Interp *I, Value *self, Value **a) {
  return make_var(I, a, "size_var", "size");
}

static Value *fn_const(Interp *I, Value *self, Value **a) {
  DType t;
  /* a numpy scalar (np.sum(x)) is its number */
  Value *n = bi_te_is_number(a[0]) ? val_incref(a[0]) : val_number_of(I, a[0], NUM_SCALAR);
  if (!n || !bi_te_is_number(n)) {
    if (n) val_decref(n);
    if (interp_error_pending(I)) return NULL;
    return interp_raise(I, EXC_TypeError, "const: value must be a number, not '%s'",
                        val_type_name(a[0]));
  }
  Value *r = NULL;
  DType vt;
  if (a[1] && a[1]->kind == VAL_STR && dt_parse(a[1]->u.str.s, &vt) && vt.lanes > 1) {
    /* TVM's const(0, "int32x16"): the scalar broadcast */
    Expr *x = bi_te_const(I, n, dt_element(vt), "const");
    r = x ? wrap_or_null(bi_tir_vector_cast(I, a[1], x, "const")) : NULL;
  } else if (!a[1] || a[1]->kind == VAL_NONE) r = wrap_or_null(bi_te_to_expr(I, n, "const"));
  else if (bi_te_dtype_arg(I, a[1], "const", "dtype", DT_I32, &t) == 0)
    r = wrap_or_null(bi_te_const(I, n, t, "const"));
  val_decref(n);
  return r;
}

/* tvm.tir.IntImm(dtype, value) and FloatImm(dtype, value): a literal of a dtype of that kind. */
static Value *typed_literal(Interp *I, Value **a, const char *fn, bool want_float) {
  DType t;
  if (bi_te_dtype_arg(I, a[0], fn, "dtype", DT_I32, &t) < 0) return NULL;
  if (dt_is_float(t) != want_float || t.code == DT_HANDLE)
    return interp_raise(I, EXC_TypeError, "%s: dtype must be a%s type", fn,
                        want_float ? " float" : "n integer or bool");
  return wrap_or_null(bi_te_const(I, a[1], t, fn));
}

static Value *fn_intimm(Interp *I, Value *self, Value **a) {
  return typed_literal(I, a, "IntImm", false);
}

static Value *fn_floatimm(Interp *I, Value *self, Value **a) {
  return typed_literal(I, a, "FloatImm", true);
}

static Value *fn_max_value(Interp *I, Value *self, Value **a) {
  DType t;
  if (bi_te_dtype_arg(I, a[0], "max_value", "dtype", DT_I32, &t) < 0) return NULL;
  return wrap_or_null(bi_te_max_value(I, t));
}

static Value *fn_min_value(Interp *I, Value *self, Value **a) {
  DType t;
  if (bi_te_dtype_arg(I, a[0], "min_value", "dtype", DT_I32, &t) < 0) return NULL;
  return wrap_or_null(bi_te_min_value(I, t));
}

/* tvm.tir.Cast(dtype, value): a CAST node, even of a literal (unlike astype). */
static Value *fn_cast(Interp *I, Value *self, Value **a) {
  DType t;
  char x[32], y[32];
  if (bi_te_dtype_arg(I, a[0], "Cast", "dtype", DT_I32, &t) < 0) return NULL;
  Expr *e = bi_te_to_expr(I, a[1], "Cast: value");
  if (!e) return NULL;
  if (t.code == DT_HANDLE || e->dtype.code == DT_HANDLE)
    return interp_raise(I, EXC_TypeError, "Cast: cannot cast %s to %s", dt_name(e->dtype, x),
                        dt_name(t, y));
  return wrap_or_null(bi_te_shallow(I, ir_cast(arena(I), t, e)));
}

/* ---- the node classes' constructors (tvm.tir.IntImm ... as types: te_values.c) ---- */

static Value *fn_stringimm(Interp *I, Value *self, Value **a) {
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "StringImm: value must be a str, not '%s'",
                        val_type_name(a[0]));
  return bi_te_wrap_expr(ir_str(arena(I), a[0]->u.str.s));
}

/* Add(a, b), LT(a, b) ...: the node of the type called, over the operands matched as an
 * operator matches them. */
static Value *fn_binary_node(Interp *I, Value *self, Value **a) {
  ExprKind k = EXPR_KIND_COUNT;
  for (int i = 0; i < EXPR_KIND_COUNT && self && self->kind == VAL_TYPE; i++)
    if (bi_te_expr_kind_class((ExprKind)i) &&
        &bi_te_expr_kind_class((ExprKind)i)->type == self->u.type)
      k = (ExprKind)i;
  if (k == EXPR_KIND_COUNT) return interp_raise(I, EXC_TypeError, "not a node constructor");
  const char *name = self->u.type->name;
  Expr *x, *y;
  if (bi_te_operands(I, a[0], a[1], name, &x, &y) < 0) return NULL;
  char t[32];
  bool logical = k == EXPR_AND || k == EXPR_OR;
  if (logical != dt_is_bool(x->dtype) || x->dtype.code == DT_HANDLE)
    return interp_raise(I, EXC_TypeError, "%s: operands of dtype %s", name, dt_name(x->dtype, t));
  return wrap_or_null(bi_te_shallow(I, ir_binary(arena(I), k, x, y)));
}

static Value *fn_not_node(Interp *I, Value *self, Value **a) {
  Expr *x = bi_te_to_expr(I, a[0], "Not");
  char t[32];
  if (x && !dt_is_bool(x->dtype))
    return interp_raise(I, EXC_TypeError, "Not: operand of dtype %s, not bool",
                        dt_name(x->dtype, t));
  return x ? wrap_or_null(bi_te_shallow(I, ir_not(arena(I), x))) : NULL;
}

/* Call(dtype, op, args): call_intrin's call with the arguments as a list. */
static Value *fn_call_node(Interp *I, Value *self, Value **a) {
  if (a[2]->kind != VAL_LIST && a[2]->kind != VAL_TUPLE)
    return interp_raise(I, EXC_TypeError, "Call: args must be a list, not '%s'",
                        val_type_name(a[2]));
  return bi_tir_call_intrin(I, self, a);
}

const Builtin bi_tir_ctor_intimm = {"IntImm", fn_intimm, 2, PARAMS("dtype", "value"),
                                    "IntImm(dtype, value) -> PrimExpr: an integer literal"};
const Builtin bi_tir_ctor_floatimm = {"FloatImm", fn_floatimm, 2, PARAMS("dtype", "value"),
                                      "FloatImm(dtype, value) -> PrimExpr: a float literal"};
const Builtin bi_tir_ctor_stringimm = {"StringImm", fn_stringimm, 1, PARAMS("value"),
                                       "StringImm(value) -> PrimExpr: a string literal"};
const Builtin bi_tir_ctor_var = {"Var", fn_var, 2, PARAMS("name", "dtype"),
                                 "Var(name, dtype) -> PrimExpr: a variable"};
const Builtin bi_tir_ctor_cast = {"Cast", fn_cast, 2, PARAMS("dtype", "value"),
                                  "Cast(dtype, value) -> PrimExpr: cast(dtype, value)"};
#define BINARY_CTOR(name, kind)                                                                 \
  const Builtin bi_tir_ctor_##name = {#name, fn_binary_node, 2, PARAMS("a", "b"),               \
                                      #name "(a, b) -> PrimExpr: the " #name " node of a and b"};
BI_TIR_BINARY_NODES(BINARY_CTOR)
#undef BINARY_CTOR
const Builtin bi_tir_ctor_not = {"Not", fn_not_node, 1, PARAMS("a"),
                                 "Not(a) -> PrimExpr: !a of a bool"};
static Value *fn_select(Interp *I, Value *self, Value **a);
const Builtin bi_tir_ctor_select = {
    "Select", fn_select, 3, PARAMS("condition", "true_value", "false_value"),
    "Select(condition, true_value, false_value) -> PrimExpr: both branches evaluated"};
const Builtin bi_tir_ctor_call = {"Call", fn_call_node, 3, PARAMS("dtype", "op", "args"),
                                  "Call(dtype, op, args) -> PrimExpr: a call of op"};

/* ---- placeholder and compute ---- */

static Value *fn_placeholder(Interp *I, Value *self, Value **a) {
  int ndim;
  Expr **shape;
  DType t;
  const char *name = bi_te_str_arg(I, a[2], "placeholder", "name", "placeholder");
  if (!name || shape_arg(I, a[0], "placeholder", &ndim, &shape) < 0 ||
      elem_dtype_arg(I, a[1], "placeholder", DT_F32, &t) < 0)
    return NULL;
  return bi_te_wrap_tensor(ir_placeholder_op(arena(I), name, ndim, shape, t)->outputs[0]);
}

static const char *index_name(Interp *I, int i) {
  char buf[16];
  snprintf(buf, sizeof buf, "i%d", i);
  return arena_strndup(arena(I), buf, strlen(buf));
}

static int arity_error(Interp *I, int nargs, bool star, int ndim) {
  interp_raise(I, EXC_ValueError,
               "compute: fcompute takes %s%d index argument%s but the shape has %d dimension%s",
               star ? "at least " : "", nargs, nargs == 1 ? "" : "s", ndim, ndim == 1 ? "" : "s");
  return -1;
}

/* The axes' names: fcompute's parameter names, then i0, i1 ... for `*i` (TVM's compute). A
 * callable that is not a def or lambda gets i0, i1 ... for every axis. */
static int index_names(Interp *I, Value *fn, int ndim, const char **names) {
  int n = 0;
  bool star = fn->kind != VAL_FUNC;
  const FuncDef *d = star ? NULL : fn->u.func->def;
  for (int i = 0; d && i < d->nparams; i++) {
    const Param *p = &d->params[i];
    if (p->kind == PARAM_STAR && p->name) {
      star = true;
    } else if (p->kind != PARAM_PLAIN || p->dflt) {
      interp_raise(I, EXC_TypeError, "compute: fcompute must take only index arguments, one per "
                                     "dimension (no defaults or keywords)");
      return -1;
    } else {
      if (n < ndim) names[n] = SYM_STR(p->name);
      n++;
    }
  }
  if (n > ndim || (!star && n != ndim)) return arity_error(I, n, star, ndim);
  for (int k = 0; n < ndim; k++) names[n++] = index_name(I, k);
  return 0;
}

/* fcompute's result: one expression or a tuple (list) of them, one per output. */
static int take_bodies(Interp *I, Value *r, int *nbody, Expr ***body) {
  bool seq = r->kind == VAL_TUPLE || r->kind == VAL_LIST;
  int64_t n = seq ? VAL_SEQ_N(r) : 1;
  char what[64];
  if (n == 0) {
    interp_raise(I, EXC_ValueError, "compute: fcompute returned an empty %s", val_type_name(r));
    return -1;
  }
  *body = arena_alloc(arena(I), (size_t)n * sizeof **body);
  for (int64_t i = 0; i < n; i++) {
    if (seq) snprintf(what, sizeof what, "compute: output %lld of fcompute", (long long)i);
    else snprintf(what, sizeof what, "compute: the result of fcompute");
    if (!((*body)[i] = bi_te_to_expr(I, seq ? VAL_SEQ_ITEM(r, i) : r, what))) return -1;
  }
  *nbody = (int)n;
  return 0;
}

static int call_fcompute(Interp *I, Value *fn, int ndim, IterVar **axes, int *nbody,
                         Expr ***body) {
  Value **args = xcalloc((size_t)ndim + 1, sizeof *args);
  for (int i = 0; i < ndim; i++) args[i] = bi_te_wrap_expr(ir_varref(arena(I), axes[i]->var));
  Value *r = interp_callv(I, fn, ndim, args);
  for (int i = 0; i < ndim; i++) val_decref(args[i]);
  free(args);
  if (!r) return -1;
  int rc = take_bodies(I, r, nbody, body);
  val_decref(r);
  return rc;
}

static bool is_reduce(const Expr *e, const void *ctx) {
  (void)ctx;
  return e->kind == EXPR_REDUCE;
}

static bool has_reduce(const Expr *e) { return ir_expr_any(e, is_reduce, NULL); }

/* A REDUCE below the root (te.sum(...) * 2) is not a valid body. */
static bool nested_reduce(const Expr *e) {
  if (e->kind != EXPR_REDUCE) return has_reduce(e);
  for (int i = 0; i < e->u.reduce.nsrc; i++)
    if (has_reduce(e->u.reduce.source[i])) return true;
  return has_reduce(e->u.reduce.condition);
}

static bool same_reduction(const Expr *a, const Expr *b) {
  if (b->kind != EXPR_REDUCE || a->u.reduce.combiner != b->u.reduce.combiner) return false;
  return a->u.reduce.naxis == b->u.reduce.naxis &&
         !memcmp(a->u.reduce.axis, b->u.reduce.axis, (size_t)a->u.reduce.naxis * sizeof(IterVar *));
}

/* TVM's rules: a reduction only at the top of a body, and either every output is the same
 * reduction (a multi-value comm_reducer) or none is. */
static int check_reductions(Interp *I, const char *name, int n, Expr **body) {
  for (int i = 0; i < n; i++)
    if (nested_reduce(body[i])) {
      interp_raise(I, EXC_ValueError,
                   "compute of %s: reductions are only allowed at the top level of compute", name);
      return -1;
    }
  for (int i = 1; i < n; i++)
    if ((body[0]->kind == EXPR_REDUCE) != (body[i]->kind == EXPR_REDUCE) ||
        (body[0]->kind == EXPR_REDUCE && !same_reduction(body[0], body[i]))) {
      interp_raise(I, EXC_ValueError, "compute of %s: the outputs must all be the same reduction "
                                      "(one te.comm_reducer over a tuple) or none", name);
      return -1;
    }
  return 0;
}

int bi_te_op_naming(Interp *I, const char *fn, Value *v_name, const char *dflt, Value *v_tag,
                    Value *v_attrs, const char **name, const char **tag) {
  if (!(*name = bi_te_str_arg(I, v_name, fn, "name", dflt))) return -1;
  if (!(*tag = bi_te_str_arg(I, v_tag, fn, "tag", ""))) return -1;
  *tag = bi_te_scope_tag(I, *tag); /* te.tag_scope's */
  if (!v_attrs || v_attrs->kind == VAL_NONE || v_attrs->kind == VAL_DICT) return 0;
  interp_raise(I, EXC_TypeError, "%s: attrs must be a dict, not '%s'", fn,
               val_type_name(v_attrs));
  return -1;
}

Tensor **bi_te_tensor_list(Interp *I, Value *v, const char *fn, const char *arg, bool one,
                           int *n) {
  Value **items = &v;
  int64_t m = 1;
  if (v->kind == VAL_TUPLE || v->kind == VAL_LIST)
    items = v->u.list->items, m = VAL_SEQ_N(v);
  else if (!one)
    return BI_TE_RAISE(I, EXC_TypeError, "%s: %s must be a list of tensors, not '%s'", fn, arg,
                       val_type_name(v));
  if (m > 1024 || (one && m < 1))
    return BI_TE_RAISE(I, EXC_ValueError, "%s: %s must be %s1024 tensors", fn, arg,
                       one ? "a tensor or a list of 1 to " : "a list of at most ");
  Tensor **ts = arena_alloc(arena(I), (size_t)(m + 1) * sizeof *ts);
  for (int i = 0; i < m; i++)
    if (!(ts[i] = bi_te_tensor_of(items[i])))
      return BI_TE_RAISE(I, EXC_TypeError, "%s: %s[%d] must be a Tensor, not '%s'", fn, arg, i,
                         val_type_name(items[i]));
  *n = (int)m;
  return ts;
}

/* The operation's attrs (a dict), kept by the session beside the IR, which holds no values. */
int bi_te_set_op_attrs(Interp *I, const Operation *op, Value *attrs) {
  if (!attrs || attrs->kind != VAL_DICT || dict_len(attrs) == 0) return 0;
  if (!I->op_attrs) I->op_attrs = val_dict_new();
  Value *key = val_int((int64_t)(uintptr_t)op);
  int rc = dict_set(I, I->op_attrs, key, attrs);
  val_decref(key);
  return rc;
}

Value *bi_te_op_attrs(Interp *I, const Operation *op) {
  Value *key = val_int((int64_t)(uintptr_t)op);
  Value *d = I->op_attrs ? dict_get(I, I->op_attrs, key) : NULL;
  val_decref(key);
  return d ? val_incref(d) : val_dict_new();
}

static Value *outputs_value(Operation *op) {
  if (op->noutputs == 1) return bi_te_wrap_tensor(op->outputs[0]);
  Value *t = val_tuple_new(op->noutputs);
  for (int i = 0; i < op->noutputs; i++) val_seq_set_take(t, i, bi_te_wrap_tensor(op->outputs[i]));
  return t;
}

static Value *fn_compute(Interp *I, Value *self, Value **a) {
  int ndim, nbody;
  Expr **shape, **body;
  const char *name, *tag;
  if (bi_te_op_naming(I, "compute", a[2], "compute", a[3], a[4], &name, &tag) < 0 ||
      shape_arg(I, a[0], "compute", &ndim, &shape) < 0)
    return NULL;
  if (!val_is_callable(a[1]))
    return interp_raise(I, EXC_TypeError, "compute: fcompute must be callable, not '%s'",
                        val_type_name(a[1]));
  const char **names = arena_alloc(arena(I), (size_t)(ndim + 1) * sizeof *names);
  if (index_names(I, a[1], ndim, names) < 0) return NULL;
  IterVar **axes = ir_compute_axes(arena(I), ndim, shape, names);
  if (call_fcompute(I, a[1], ndim, axes, &nbody, &body) < 0 ||
      check_reductions(I, name, nbody, body) < 0)
    return NULL;
  Operation *op = ir_compute_op(arena(I), name, tag, ndim, shape, axes, nbody, body);
  if (bi_te_set_op_attrs(I, op, a[4]) < 0) return NULL;
  return outputs_value(op);
}

/* ---- axes ---- */

static Value *fn_reduce_axis(Interp *I, Value *self, Value **a) {
  Range r;
  const char *name = bi_te_str_arg(I, a[1], "reduce_axis", "name", "rv");
  const char *tag = bi_te_str_arg(I, a[2], "reduce_axis", "thread_tag", "");
  if (!name || !tag || range_arg(I, a[0], "reduce_axis", &r) < 0) return NULL;
  Var *v = ir_var(arena(I), name, r.extent->dtype);
  return bi_te_wrap_itervar(ir_itervar(arena(I), v, r, ITER_REDUCE, tag[0] ? tag : NULL));
}

/* te.thread_axis(dom=None, tag="", name=""): dom may be the tag itself, as in TVM. */
static Value *fn_thread_axis(Interp *I, Value *self, Value **a) {
  Value *dom = a[0];
  const char *tag = bi_te_str_arg(I, a[1], "thread_axis", "tag", "");
  if (!tag) return NULL;
  if (dom && dom->kind == VAL_STR) tag = dom->u.str.s, dom = NULL;
  if (!tag[0])
    return interp_raise(I, EXC_ValueError, "thread_axis: a thread tag is required "
                                           "(\"threadIdx.x\", \"blockIdx.y\", \"vthread\" ...)");
  const char *name = bi_te_str_arg(I, a[2], "thread_axis", "name", "");
  Range r = {NULL, NULL};
  if (!name || (dom && dom->kind != VAL_NONE && range_arg(I, dom, "thread_axis", &r) < 0))
    return NULL;
  bool virt = !strncmp(tag, "vthread", 7) || !strncmp(tag, "cthread", 7);
  Var *v = ir_var(arena(I), name[0] ? name : tag, r.extent ? r.extent->dtype : DT_I32);
  return bi_te_wrap_itervar(ir_itervar(arena(I), v, r, virt ? ITER_VTHREAD : ITER_THREAD, tag));
}

/* ---- conditions and logic ---- */

static Value *choice(Interp *I, Value **a, const char *fn, bool as_select) {
  Expr *c = bi_te_cond_arg(I, a[0], fn, "cond"), *t, *f;
  if (!c || bi_te_operands(I, a[1], a[2], fn, &t, &f) < 0) return NULL;
  if (as_select) return wrap_or_null(bi_te_shallow(I, ir_select(arena(I), c, t, f)));
  Expr *args[3] = {c, t, f};
  return wrap_or_null(bi_te_intrin(I, t->dtype, "tir.if_then_else", 3, args));
}

static Value *fn_if_then_else(Interp *I, Value *self, Value **a) {
  return choice(I, a, "if_then_else", false);
}

static Value *fn_select(Interp *I, Value *self, Value **a) { return choice(I, a, "Select", true); }

/* te.all / te.any: ((a && b) && c), as TVM chains them; one argument is itself. */
static Value *chain(Interp *I, Value *args, const char *fn, ExprKind k) {
  char arg[32];
  Expr *acc = NULL;
  if (VAL_SEQ_N(args) == 0)
    return interp_raise(I, EXC_ValueError, "%s: needs at least one condition", fn);
  for (int64_t i = 0; i < VAL_SEQ_N(args); i++) {
    snprintf(arg, sizeof arg, "argument %lld", (long long)i + 1);
    Expr *c = bi_te_cond_arg(I, VAL_SEQ_ITEM(args, i), fn, arg);
    if (!c) return NULL;
    acc = acc ? bi_te_shallow(I, ir_binary(arena(I), k, acc, c)) : c;
    if (!acc) return NULL;
  }
  return bi_te_wrap_expr(acc);
}

static Value *fn_all(Interp *I, Value *self, Value **a) { return chain(I, a[0], "all", EXPR_AND); }
static Value *fn_any(Interp *I, Value *self, Value **a) { return chain(I, a[0], "any", EXPR_OR); }

/* ---- math ---- */

typedef enum {
  MATH_FLOAT, /* transcendental: float operands only */
  MATH_ROUND  /* floor, ceil ...: an integer is its own rounding, as in TVM */
} MathKind;

static Value *math1(Interp *I, Value *x, const char *fn, const char *op, MathKind kind) {
  char name[32];
  Expr *e = bi_te_to_expr(I, x, fn);
  if (!e) return NULL;
  if (kind == MATH_ROUND && dt_is_int(e->dtype)) return bi_te_wrap_expr(e);
  if (!dt_is_float(e->dtype))
    return interp_raise(I, EXC_TypeError, "%s needs a float operand, not %s (cast it with "
                                          ".astype(\"float32\"))", fn, dt_name(e->dtype, name));
  return wrap_or_null(bi_te_intrin(I, e->dtype, op, 1, &e));
}

/* name, intrinsic, kind: te's one-operand math (TVM's tvm.tir.op). */
#define BI_TE_MATH1(X)                                                                       \
  X(exp, "tir.exp", MATH_FLOAT) X(exp2, "tir.exp2", MATH_FLOAT)                              \
  X(exp10, "tir.exp10", MATH_FLOAT) X(log, "tir.log", MATH_FLOAT)                            \
  X(log2, "tir.log2", MATH_FLOAT) X(log10, "tir.log10", MATH_FLOAT)                          \
  X(log1p, "tir.log1p", MATH_FLOAT) X(sqrt, "tir.sqrt", MATH_FLOAT)                          \
  X(rsqrt, "tir.rsqrt", MATH_FLOAT) X(tanh, "tir.tanh", MATH_FLOAT)                          \
  X(sigmoid, "tir.sigmoid", MATH_FLOAT) X(erf, "tir.erf", MATH_FLOAT)                        \
  X(sin, "tir.sin", MATH_FLOAT) X(cos, "tir.cos", MATH_FLOAT) X(tan, "tir.tan", MATH_FLOAT)  \
  X(sinh, "tir.sinh", MATH_FLOAT) X(cosh, "tir.cosh", MATH_FLOAT)                            \
  X(asin, "tir.asin", MATH_FLOAT) X(acos, "tir.acos", MATH_FLOAT)                            \
  X(atan, "tir.atan", MATH_FLOAT) X(acosh, "tir.acosh", MATH_FLOAT)                          \
  X(asinh, "tir.asinh", MATH_FLOAT) X(atanh, "tir.atanh", MATH_FLOAT)                        \
  X(floor, "tir.floor", MATH_ROUND)                                                          \
  X(ceil, "tir.ceil", MATH_ROUND) X(round, "tir.round", MATH_ROUND)                          \
  X(trunc, "tir.trunc", MATH_ROUND) X(nearbyint, "tir.nearbyint", MATH_ROUND)

#define BI_TE_MATH1_DEF(name, op, kind)                                 \
  static Value *fn_##name(Interp *I, Value *self, Value **a) {          \
    return math1(I, a[0], #name, op, kind);                             \
  }
BI_TE_MATH1(BI_TE_MATH1_DEF)
#undef BI_TE_MATH1_DEF

/* TVM's abs: fabs of a float, select(x >= 0, x, 0 - x) of a signed integer, an unsigned x. */
static Value *fn_abs(Interp *I, Value *self, Value **a) {
  char name[32];
  Expr *x = bi_te_to_expr(I, a[0], "abs");
  if (!x) return NULL;
  if (dt_is_float(x->dtype)) return wrap_or_null(bi_te_intrin(I, x->dtype, "tir.fabs", 1, &x));
  if (x->dtype.code == DT_UINT) return bi_te_wrap_expr(x);
  if (x->dtype.code != DT_INT)
    return interp_raise(I, EXC_TypeError, "abs needs a numeric operand, not %s",
                        dt_name(x->dtype, name));
  Expr *zero = ir_int(arena(I), x->dtype, 0);
  Expr *ge = ir_binary(arena(I), EXPR_GE, x, zero);
  Expr *neg = ir_binary(arena(I), EXPR_SUB, zero, x);
  return wrap_or_null(bi_te_shallow(I, ir_select(arena(I), ge, x, neg)));
}

static Value *fn_isnan(Interp *I, Value *self, Value **a) {
  Expr *x = bi_te_to_expr(I, a[0], "isnan");
  if (!x) return NULL;
  if (!dt_is_float(x->dtype)) return bi_te_wrap_expr(ir_int(arena(I), DT_BOOL1, 0));
  return wrap_or_null(bi_te_intrin(I, DT_BOOL1, "tir.isnan", 1, &x));
}

/* TVM's isinf: |x| == inf and not NaN for a float, False for an integer. */
static Expr *isinf_expr(Interp *I, Expr *x) {
  DType b = DT_MAKE(DT_BOOL, 1, x->dtype.lanes);
  if (!dt_is_float(x->dtype)) return ir_int(arena(I), b, 0);
  Expr *ab = bi_te_intrin(I, x->dtype, "tir.fabs", 1, &x);
  Expr *nan = bi_te_intrin(I, b, "tir.isnan", 1, &x);
  if (!ab || !nan) return NULL;
  Expr *inf = ir_float(arena(I), dt_element(x->dtype), INFINITY);
  if (x->dtype.lanes > 1) inf = ir_broadcast(arena(I), inf, x->dtype.lanes);
  Expr *eq = ir_binary(arena(I), EXPR_EQ, ab, inf);
  return bi_te_shallow(I, ir_binary(arena(I), EXPR_AND, eq, ir_not(arena(I), nan)));
}

static Value *fn_isinf(Interp *I, Value *self, Value **a) {
  Expr *x = bi_te_to_expr(I, a[0], "isinf");
  return x ? wrap_or_null(isinf_expr(I, x)) : NULL;
}

/* TVM's isfinite: neither infinite nor NaN (True for an integer). */
static Value *fn_isfinite(Interp *I, Value *self, Value **a) {
  Expr *x = bi_te_to_expr(I, a[0], "isfinite");
  if (!x) return NULL;
  if (!dt_is_float(x->dtype)) return bi_te_wrap_expr(ir_int(arena(I), DT_BOOL1, 1));
  Expr *inf = isinf_expr(I, x);
  Expr *nan = bi_te_intrin(I, DT_MAKE(DT_BOOL, 1, x->dtype.lanes), "tir.isnan", 1, &x);
  if (!inf || !nan) return NULL;
  Expr *r = ir_binary(arena(I), EXPR_AND, ir_not(arena(I), inf), ir_not(arena(I), nan));
  return wrap_or_null(bi_te_shallow(I, r));
}

/* TVM's atan2(x1, x2): @tir.atan2 in x1's dtype, a float; x2 must have it too. */
static Value *fn_atan2(Interp *I, Value *self, Value **a) {
  char n1[32], n2[32];
  Expr *args[2] = {bi_te_to_expr(I, a[0], "atan2: x1"), bi_te_to_expr(I, a[1], "atan2: x2")};
  if (!args[0] || !args[1]) return NULL;
  if (!dt_is_float(args[0]->dtype) || !dt_eq(args[0]->dtype, args[1]->dtype))
    return interp_raise(I, EXC_TypeError, "atan2 needs two floats of one dtype, not %s and %s",
                        dt_name(args[0]->dtype, n1), dt_name(args[1]->dtype, n2));
  return wrap_or_null(bi_te_intrin(I, args[0]->dtype, "tir.atan2", 2, args));
}

/* tvm.tir.reinterpret(dtype, value): value's bits read as dtype, which has its size. */
static Value *fn_reinterpret(Interp *I, Value *self, Value **a) {
  DType t;
  char x[32], y[32];
  if (bi_te_dtype_arg(I, a[0], "reinterpret", "dtype", DT_I32, &t) < 0) return NULL;
  Expr *e = bi_te_to_expr(I, a[1], "reinterpret: value");
  if (!e) return NULL;
  if (t.bits * t.lanes != e->dtype.bits * e->dtype.lanes || t.code == DT_HANDLE ||
      e->dtype.code == DT_HANDLE)
    return interp_raise(I, EXC_TypeError, "reinterpret: cannot read %s as %s, the sizes differ",
                        dt_name(e->dtype, x), dt_name(t, y));
  return wrap_or_null(bi_te_intrin(I, t, "tir.reinterpret", 1, &e));
}

/* name, operator: the two-operand functions, each a binary operator under SPEC §6's rules. */
#define BI_TE_MATH2(X)                                                                   \
  X(power, TE_POW) X(fmod, TE_FMOD) X(floordiv, TE_FLOORDIV) X(floormod, TE_FLOORMOD)    \
  X(truncdiv, TE_TRUNCDIV) X(truncmod, TE_TRUNCMOD) X(indexdiv, TE_FLOORDIV)             \
  X(indexmod, TE_FLOORMOD) X(div, TE_DIV)

#define BI_TE_MATH2_DEF(name, op)                                       \
  static Value *fn_##name(Interp *I, Value *self, Value **a) {          \
    return wrap_or_null(bi_te_binary(I, op, a[0], a[1]));               \
  }
BI_TE_MATH2(BI_TE_MATH2_DEF)
#undef BI_TE_MATH2_DEF

/* ---- the tables ---- */

#define ROW(name, fn, nreq, params, doc) {name, fn, nreq, params, doc}
#define MATH1_ROW(name, op, kind) \
  ROW(#name, fn_##name, 1, PARAMS("x"), #name "(x) -> PrimExpr: @" op "(x), float x"),
#define MATH2_ROW(name, op) \
  ROW(#name, fn_##name, 2, PARAMS("a", "b"), #name "(a, b) -> PrimExpr"),

/* The expression functions every one of te, tir and the old tvm namespace has. */
#define COMMON_ROWS                                                                         \
  ROW("const", fn_const, 1, PARAMS("value", "dtype"),                                   \
      "const(value, dtype=None) -> PrimExpr: a literal (int32, float32 or bool by default)"), \
  ROW("if_then_else", fn_if_then_else, 3, PARAMS("cond", "t", "f"),                      \
      "if_then_else(cond, t, f) -> PrimExpr: @tir.if_then_else, evaluating only one branch"), \
  ROW("all", fn_all, 0, PARAMS("*args"), "all(*conds) -> PrimExpr: (a && b) && ..."),    \
  ROW("any", fn_any, 0, PARAMS("*args"), "any(*conds) -> PrimExpr: (a || b) || ..."),    \
  ROW("sum", bi_te_sum, 1, BI_TE_REDUCER_PARAMS,                                            \
      "sum(expr, axis, where=None) -> PrimExpr: the sum over the reduce axes"),             \
  ROW("max", bi_te_max, 1, BI_TE_REDUCER_PARAMS,                                            \
      "max(expr, axis, where=None) -> PrimExpr: the maximum over the reduce axes; "         \
      "max(a, b) is elementwise"),                                                          \
  ROW("min", bi_te_min, 1, BI_TE_REDUCER_PARAMS,                                            \
      "min(expr, axis, where=None) -> PrimExpr: the minimum over the reduce axes; "         \
      "min(a, b) is elementwise"),                                                          \
  ROW("comm_reducer", bi_te_comm_reducer, 2, PARAMS("fcombine", "fidentity", "name"),       \
      "comm_reducer(fcombine, fidentity, name='reduce') -> a reducer like te.sum"),         \
  ROW("max_value", fn_max_value, 1, PARAMS("dtype"),                                     \
      "max_value(dtype) -> PrimExpr: the largest value of dtype"),                          \
  ROW("min_value", fn_min_value, 1, PARAMS("dtype"),                                     \
      "min_value(dtype) -> PrimExpr: the smallest value of dtype"),                         \
  ROW("abs", fn_abs, 1, PARAMS("x"), "abs(x) -> PrimExpr: |x| (@tir.fabs for floats)"),  \
  ROW("isnan", fn_isnan, 1, PARAMS("x"), "isnan(x) -> PrimExpr: whether x is a NaN"),    \
  ROW("isinf", fn_isinf, 1, PARAMS("x"), "isinf(x) -> PrimExpr: whether x is +-inf"),    \
  ROW("isfinite", fn_isfinite, 1, PARAMS("x"),                                           \
      "isfinite(x) -> PrimExpr: whether x is neither infinite nor NaN"),                    \
  ROW("atan2", fn_atan2, 2, PARAMS("x1", "x2"),                                          \
      "atan2(x1, x2) -> PrimExpr: @tir.atan2(x1, x2), the angle of (x2, x1)"),              \
  ROW("reinterpret", fn_reinterpret, 2, PARAMS("dtype", "value"),                        \
      "reinterpret(dtype, value) -> PrimExpr: value's bits read as dtype"),                 \
  BI_TE_MATH1(MATH1_ROW) BI_TE_MATH2(MATH2_ROW)

/* The te functions that build tensors and axes (te, and tvm's old spellings). */
#define TENSOR_ROWS                                                                         \
  ROW("var", fn_var, 0, PARAMS("name", "dtype"),                                         \
      "var(name='v', dtype='int32') -> PrimExpr: a symbolic variable"),                     \
  ROW("size_var", fn_size_var, 0, PARAMS("name", "dtype"),                               \
      "size_var(name='size', dtype='int32') -> PrimExpr: a variable standing for a size"),  \
  ROW("placeholder", fn_placeholder, 1, PARAMS("shape", "dtype", "name"),                \
      "placeholder(shape, dtype='float32', name='placeholder') -> Tensor: an input"),       \
  ROW("compute", fn_compute, 2, PARAMS("shape", "fcompute", "name", "tag", "attrs"),     \
      "compute(shape, fcompute, name='compute', tag='', attrs=None) -> Tensor: "            \
      "fcompute(i, j, ...) for every element"),                                             \
  ROW("extern", bi_te_extern, 3,                                                         \
      PARAMS("shape", "inputs", "fcompute", "name", "dtype", "in_buffers", "out_buffers",   \
             "tag", "attrs"),                                                               \
      "extern(shape, inputs, fcompute, name='extern', dtype=None, in_buffers=None, "        \
      "out_buffers=None, tag='', attrs=None) -> Tensor: outputs written by the statement "  \
      "fcompute(ins, outs) returns, ins and outs the tensors' Buffers"),                    \
  ROW("scan", bi_te_scan, 3,                                                             \
      PARAMS("init", "update", "state_placeholder", "inputs", "name", "tag", "attrs"),      \
      "scan(init, update, state_placeholder, inputs=None, name='scan', tag='', "            \
      "attrs=None) -> Tensor: states computed row by row: init's rows, then update's"),     \
  ROW("reduce_axis", fn_reduce_axis, 1, PARAMS("dom", "name", "thread_tag"),             \
      "reduce_axis(dom, name='rv') -> IterVar: an axis to reduce over, dom (min, end)"),    \
  ROW("thread_axis", fn_thread_axis, 0, PARAMS("dom", "tag", "name"),                    \
      "thread_axis(dom=None, tag='', name='') -> IterVar: a GPU thread or block index"),    \
  ROW("create_schedule", bi_sched_create_schedule, 1, PARAMS("ops"),                     \
      "create_schedule(ops) -> Schedule: a schedule for an operation or a list of them"),   \
  ROW("tag_scope", bi_te_tag_scope, 1, PARAMS("tag"),                                      \
      "tag_scope(tag) -> TagScope: computes made inside (`with`, or a decorated def) take "  \
      "the tag")

const Builtin bi_te_funcs[] = {TENSOR_ROWS, COMMON_ROWS{0}};

const Builtin bi_tvm_funcs[] = {
    TENSOR_ROWS,
    COMMON_ROWS
    ROW("select", fn_select, 3, PARAMS("cond", "t", "f"),
        "select(cond, t, f) -> PrimExpr: select(cond, t, f), both branches evaluated"),
    ROW("lower", bi_sched_lower, 1, BI_SCHED_LOWER_PARAMS,
        "lower(sch, args, name='main', simple_mode=True) -> IRModule: a schedule's loop IR "
        "(simple_mode=False also runs tir.LoopPartition, as tvm.build does)"),
    BI_PACKED_TVM_ROWS
    {0},
};

const Builtin bi_tir_funcs[] = {
    COMMON_ROWS
    ROW("Var", fn_var, 2, PARAMS("name", "dtype"), "Var(name, dtype) -> PrimExpr: a variable"),
    ROW("SizeVar", fn_size_var, 2, PARAMS("name", "dtype"),
        "SizeVar(name, dtype) -> PrimExpr: a variable standing for a size"),
    ROW("IntImm", fn_intimm, 2, PARAMS("dtype", "value"),
        "IntImm(dtype, value) -> PrimExpr: an integer literal"),
    ROW("FloatImm", fn_floatimm, 2, PARAMS("dtype", "value"),
        "FloatImm(dtype, value) -> PrimExpr: a float literal"),
    ROW("Cast", fn_cast, 2, PARAMS("dtype", "value"),
        "Cast(dtype, value) -> PrimExpr: cast(dtype, value)"),
    ROW("Select", fn_select, 3, PARAMS("condition", "true_value", "false_value"),
        "Select(condition, true_value, false_value) -> PrimExpr: both branches evaluated"),
    BI_TIR_STMT_ROWS
    {0},
};
#undef COMMON_ROWS
#undef TENSOR_ROWS
#undef MATH1_ROW
#undef MATH2_ROW
#undef ROW

static void add_type(Value *m, const ObjClass *cls) {
  bi_set_member_take(m, cls->type.name, val_type(&cls->type));
}

int bi_te_module_init(Interp *I, Value *m) {
  add_type(m, &bi_te_tensor_class);
  add_type(m, &bi_te_op_class);
  add_type(m, &bi_te_compute_op_class);
  add_type(m, &bi_te_placeholder_op_class);
  add_type(m, &bi_te_extern_op_class);
  add_type(m, &bi_te_scan_op_class);
  add_type(m, &bi_sched_schedule_class);
  add_type(m, &bi_sched_stage_class);
  return bi_tensor_intrin_init(I, m);
}

int bi_tir_module_init(Interp *I, Value *m) {
  add_type(m, &bi_te_expr_class);
  for (int k = 0; k < EXPR_KIND_COUNT; k++)
    if (bi_te_expr_kind_class((ExprKind)k)) add_type(m, bi_te_expr_kind_class((ExprKind)k));
  add_type(m, &bi_te_itervar_class);
  add_type(m, &bi_te_combiner_class);
  add_type(m, &bi_tir_stmt_class);
  if (bi_ir_tir_init(I, m) < 0) return -1;
  return bi_tir_buffer_init(I, m);
}
