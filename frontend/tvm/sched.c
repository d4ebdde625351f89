/* sched.c: schedules and lowering as values (SPEC §7–§8): te.create_schedule, s[T] and the
 * Stage primitives over ir/schedule/, and tvm.lower over ir/lower.c with its IRModule and
 * PrimFunc. The Schedule lives in the session's IR arena, so, like the te values, its values
 * own nothing; each lowering has an arena of its own, owned by its values (Lowered). A
 * primitive asked something illegal raises ScheduleError with the schedule's Diag at the
 * call; a schedule that cannot be lowered, LowerError. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/tvm/pass.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/sched.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tensor_intrin.h"
#include "frontend/tvm/tir.h"
#include "ir/lower.h"

/* Schedules, stages and lowered functions compare by identity, as TVM's objects do. */
static Value *same_node(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  if ((op != CMP_EQ && op != CMP_NE) || a->kind != VAL_OBJ || b->kind != VAL_OBJ ||
      a->u.obj.cls != b->u.obj.cls)
    return NULL;
  return val_bool((a->u.obj.p == b->u.obj.p) == (op == CMP_EQ));
}

static Value *sched_raise(Interp *I, const Schedule *s) {
  return bi_raise_diag(I, EXC_ScheduleError, &s->diag);
}

static Value *wrap_stage(Stage *st) { return val_obj_new(&bi_sched_stage_class, st); }

static Value *op_list(int n, Operation *const *ops) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_te_wrap_op(ops[i]));
  return l;
}

/* ---- arguments ---- */

/* An operation argument: an Operation, or a Tensor standing for the op that makes it. */
static Operation *op_arg(Interp *I, Value *v, const char *fn) {
  Tensor *t = bi_te_tensor_of(v);
  Operation *op = t ? t->op : bi_te_op_of(v);
  if (!op)
    interp_raise(I, EXC_TypeError, "%s: expected an Operation or a Tensor, not '%s'", fn,
                 val_type_name(v));
  return op;
}

static IterVar *axis_arg(Interp *I, Value *v, const char *fn) {
  IterVar *iv = bi_te_itervar_of(v);
  if (!iv)
    interp_raise(I, EXC_TypeError, "%s: an axis must be an IterVar, not '%s'", fn,
                 val_type_name(v));
  return iv;
}

/* An optional expression argument (split's factor ...): *out NULL when absent or None. */
static int opt_expr_arg(Interp *I, Value *v, const char *what, Expr **out) {
  *out = NULL;
  if (!v || v->kind == VAL_NONE) return 0;
  return (*out = bi_te_to_expr(I, v, what)) ? 0 : -1;
}

/* split's and tile's factor or nparts: an optional expression (NULL when absent) that, when
 * it is a constant, fits the dtype of the axis it splits. A factor of 10**12 on an int32 axis
 * would otherwise wrap to a negative extent and make a kernel that computes nothing. */
static int factor_arg(Interp *I, Value *v, const char *fn, const char *arg, const IterVar *axis,
                      Expr **out) {
  char what[64], name[32];
  snprintf(what, sizeof what, "%s: %s", fn, arg);
  if (opt_expr_arg(I, v, what, out) < 0) return -1;
  int64_t k;
  DType t = axis->var->dtype;
  if (!*out || !dt_is_int((*out)->dtype) || !dt_is_int(t) || !ir_as_int(*out, &k)) return 0;
  int bits = t.code == DT_UINT ? t.bits : t.bits - 1;
  /* k <= 0 is sched_split's to refuse ("must be positive") */
  if (bits >= 63 || k <= 0 || k <= (INT64_C(1) << bits) - 1) return 0;
  interp_raise(I, EXC_ValueError, "%s %lld does not fit in %s, the dtype of axis %s", what,
               (long long)k, dt_name(t, name), axis->var->name);
  return -1;
}

/* The axes of a *args tuple, or of one list given alone (reorder([a, b]) as TVM allows). */
static IterVar **axes_arg(Interp *I, Value *tuple, const char *fn, int *n) {
  Value *seq = tuple;
  if (VAL_SEQ_N(tuple) == 1 && VAL_SEQ_ITEM(tuple, 0)->kind == VAL_LIST)
    seq = VAL_SEQ_ITEM(tuple, 0);
  *n = (int)VAL_SEQ_N(seq);
  IterVar **ivs = arena_alloc(arena(I), (size_t)(*n + 1) * sizeof *ivs);
  for (int i = 0; i < *n; i++)
    if (!(ivs[i] = axis_arg(I, VAL_SEQ_ITEM(seq, i), fn))) return NULL;
  return ivs;
}

/* ---- te.create_schedule ---- */

static int add_op(Interp *I, Value *item, void *ctx) {
  Operation ***ops = ctx;
  Operation *op = op_arg(I, item, "create_schedule");
  if (!op) return -1;
  **ops = op;
  (*ops)++;
  return 0;
}

Value *bi_sched_create_schedule(Interp *I, Value *self, Value **a) {
  Value *v = a[0];
  bool seq = v->kind == VAL_LIST || v->kind == VAL_TUPLE;
  int n = seq ? (int)VAL_SEQ_N(v) : 1;
  if (n == 0)
    return interp_raise(I, EXC_ValueError, "create_schedule: no operations given");
  Operation **ops = arena_alloc(arena(I), (size_t)n * sizeof *ops), **next = ops;
  if (seq ? bi_for_each(I, v, add_op, &next) < 0 : add_op(I, v, &next) < 0) return NULL;
  return val_obj_new(&bi_sched_schedule_class, sched_create(arena(I), n, ops));
}

/* ---- Schedule ---- */

static Value *schedule_repr(Interp *I, Value *self) {
  const Schedule *s = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "schedule(outputs=[");
  for (int i = 0; i < s->noutputs; i++) sb_printf(&b, "%s%s", i ? ", " : "", s->outputs[i]->name);
  sb_printf(&b, "], stages=%d)", s->nstages);
  return val_str_sb(&b);
}

static Value *schedule_outputs(Interp *I, Value *self) {
  const Schedule *s = self->u.obj.p;
  return op_list(s->noutputs, s->outputs);
}

static Value *schedule_stages(Interp *I, Value *self) {
  const Schedule *s = self->u.obj.p;
  Value *l = val_list_new(s->nstages);
  for (int i = 0; i < s->nstages; i++) val_list_append_take(l, wrap_stage(s->stages[i]));
  return l;
}

static const Property schedule_props[] = {
    {"outputs", schedule_outputs, "the operations the schedule computes, a list"},
    {"stages", schedule_stages, "every stage of the schedule, a list of Stage"},
    {0},
};

/* s[T]: the stage of a tensor's operation, or of an operation. */
static Value *schedule_getitem(Interp *I, Value *self, Value *key) {
  Schedule *s = self->u.obj.p;
  Operation *op = op_arg(I, key, "schedule[]");
  if (!op) return NULL;
  Stage *st = sched_stage(s, op);
  if (!st)
    return interp_raise(I, EXC_ScheduleError, "no stage for %s: it is not in the schedule",
                        op->name);
  return wrap_stage(st);
}

/* ---- Schedule: the dataflow rewrites (cache_read, cache_write, rfactor) ---- */

static Tensor *tensor_arg(Interp *I, Value *v, const char *fn) {
  Tensor *t = bi_te_tensor_of(v);
  if (!t) interp_raise(I, EXC_TypeError, "%s: expected a Tensor, not '%s'", fn, val_type_name(v));
  return t;
}

static const char *scope_arg(Interp *I, Value *v, const char *fn) {
  const char *scope = bi_te_str_arg(I, v, fn, "scope", NULL);
  return scope ? arena_strndup(arena(I), scope, strlen(scope)) : NULL;
}

static int add_reader(Interp *I, Value *item, void *ctx) {
  Operation ***ops = ctx;
  Operation *op = op_arg(I, item, "cache_read");
  if (!op) return -1;
  *(*ops)++ = op;
  return 0;
}

/* readers: a Tensor, an Operation, or a list or tuple of them. */
static Value *sc_cache_read(Interp *I, Value *self, Value **a) {
  Schedule *s = self->u.obj.p;
  Tensor *t = tensor_arg(I, a[0], "cache_read");
  const char *scope = t ? scope_arg(I, a[1], "cache_read") : NULL;
  if (!scope) return NULL;
  bool seq = a[2]->kind == VAL_LIST || a[2]->kind == VAL_TUPLE;
  int n = seq ? (int)VAL_SEQ_N(a[2]) : 1;
  Operation **ops = arena_alloc(arena(I), (size_t)(n + 1) * sizeof *ops), **next = ops;
  if (seq ? bi_for_each(I, a[2], add_reader, &next) < 0 : add_reader(I, a[2], &next) < 0)
    return NULL;
  Tensor *cache = sched_cache_read(s, t, scope, n, ops);
  if (!cache) return sched_raise(I, s);
  bi_pass_schedule_changed(I, s, NULL, "cache_read");
  return bi_te_wrap_tensor(cache);
}

/* A list of tensors must be every output of one operation (TVM's multi-output form); the
 * result is then the list of their caches. */
static Value *sc_cache_write(Interp *I, Value *self, Value **a) {
  Schedule *s = self->u.obj.p;
  bool seq = a[0]->kind == VAL_LIST || a[0]->kind == VAL_TUPLE;
  int n = seq ? (int)VAL_SEQ_N(a[0]) : 1;
  Tensor **ts = arena_alloc(arena(I), (size_t)(n + 1) * sizeof *ts);
  for (int i = 0; i < n; i++)
    if (!(ts[i] = tensor_arg(I, seq ? VAL_SEQ_ITEM(a[0], i) : a[0], "cache_write"))) return NULL;
  const char *scope = scope_arg(I, a[1], "cache_write");
  if (!scope) return NULL;
  bool whole = n > 0 && (!seq || n == ts[0]->op->noutputs);
  for (int i = 1; i < n; i++) whole &= ts[i]->op == ts[0]->op;
  if (!whole)
    return interp_raise(I, EXC_ScheduleError,
                        "cannot cache_write: a list of tensors must hold every output of one "
                        "operation");
  Tensor *cache = sched_cache_write(s, ts[0], scope);
  if (!cache) return sched_raise(I, s);
  bi_pass_schedule_changed(I, s, NULL, "cache_write");
  if (!seq) return bi_te_wrap_tensor(cache);
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++)
    val_list_append_take(l, bi_te_wrap_tensor(cache->op->outputs[ts[i]->value_index]));
  return l;
}

/* The factored tensor, or the list of them for a reduction of several values (argmax). */
static Value *sc_rfactor(Interp *I, Value *self, Value **a) {
  Schedule *s = self->u.obj.p;
  Tensor *t = tensor_arg(I, a[0], "rfactor");
  IterVar *axis = t ? axis_arg(I, a[1], "rfactor") : NULL;
  int64_t factor_axis = 0;
  if (!axis || (a[2] && bi_arg_index(I, a[2], &factor_axis) < 0)) return NULL;
  if (factor_axis < -1024 || factor_axis > 1024)
    return interp_raise(I, EXC_ScheduleError, "cannot rfactor: factor_axis %lld is out of range",
                        (long long)factor_axis);
  Tensor *rf = sched_rfactor(s, t, axis, (int)factor_axis);
  if (!rf) return sched_raise(I, s);
  bi_pass_schedule_changed(I, s, NULL, "rfactor");
  if (rf->op->noutputs == 1) return bi_te_wrap_tensor(rf);
  Value *l = val_list_new(rf->op->noutputs);
  for (int i = 0; i < rf->op->noutputs; i++)
    val_list_append_take(l, bi_te_wrap_tensor(rf->op->outputs[i]));
  return l;
}

static const Builtin schedule_methods[] = {
    {"cache_read", sc_cache_read, 3, PARAMS("tensor", "scope", "readers"),
     "cache_read(tensor, scope, readers) -> Tensor: readers read a copy of tensor in scope"},
    {"cache_write", sc_cache_write, 2, PARAMS("tensor", "scope"),
     "cache_write(tensor, scope) -> Tensor: tensor is computed in scope, then copied out"},
    {"rfactor", sc_rfactor, 2, PARAMS("tensor", "axis", "factor_axis"),
     "rfactor(tensor, axis, factor_axis=0) -> Tensor: partial reductions over axis as a stage"},
    {0},
};

const ObjClass bi_sched_schedule_class = {
    .type = {"Schedule", NULL, VAL_OBJ, NULL},
    .repr = schedule_repr,
    .getitem = schedule_getitem,
    .compare = same_node,
    .methods = schedule_methods,
    .props = schedule_props,
};

/* ---- Stage: the primitives ---- */

static Stage *stage_of(Value *self) { return self->u.obj.p; }

/* Every primitive that succeeded says so, for the REPL's :watch; None, what most return. */
static Value *changed(Interp *I, Stage *st, const char *what) {
  bi_pass_schedule_changed(I, st->sched, st, what);
  return val_none();
}

static Value *pair(Value *a, Value *b) {
  Value *t = val_tuple_new(2);
  val_seq_set_take(t, 0, a);
  val_seq_set_take(t, 1, b);
  return t;
}

static Value *st_split(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *parent = axis_arg(I, a[0], "split"), *outer, *inner;
  Expr *factor, *nparts;
  if (!parent || factor_arg(I, a[1], "split", "factor", parent, &factor) < 0 ||
      factor_arg(I, a[2], "split", "nparts", parent, &nparts) < 0)
    return NULL;
  if (!sched_split(st, parent, factor, nparts, &outer, &inner)) return sched_raise(I, st->sched);
  bi_pass_schedule_changed(I, st->sched, st, "split");
  return pair(bi_te_wrap_itervar(outer), bi_te_wrap_itervar(inner));
}

static Value *st_tile(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *x = axis_arg(I, a[0], "tile"), *y = x ? axis_arg(I, a[1], "tile") : NULL, *out[4];
  Expr *xf, *yf;
  if (!y || factor_arg(I, a[2], "tile", "x_factor", x, &xf) < 0 ||
      factor_arg(I, a[3], "tile", "y_factor", y, &yf) < 0)
    return NULL;
  if (!sched_tile(st, x, y, xf, yf, out)) return sched_raise(I, st->sched);
  bi_pass_schedule_changed(I, st->sched, st, "tile");
  Value *t = val_tuple_new(4);
  for (int i = 0; i < 4; i++) val_seq_set_take(t, i, bi_te_wrap_itervar(out[i]));
  return t;
}

static Value *st_fuse(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  int n;
  IterVar **axes = axes_arg(I, a[0], "fuse", &n), *fused;
  if (!axes) return NULL;
  if (!(fused = sched_fuse(st, n, axes))) return sched_raise(I, st->sched);
  bi_pass_schedule_changed(I, st->sched, st, "fuse");
  return bi_te_wrap_itervar(fused);
}

static Value *st_reorder(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  int n;
  IterVar **axes = axes_arg(I, a[0], "reorder", &n);
  if (!axes) return NULL;
  return sched_reorder(st, n, axes) ? changed(I, st, "reorder") : sched_raise(I, st->sched);
}

static Value *st_compute_at(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self), *parent = val_obj_of(a[0], &bi_sched_stage_class);
  if (!parent)
    return interp_raise(I, EXC_TypeError, "compute_at: the target must be a Stage (s[T]), not '%s'",
                        val_type_name(a[0]));
  IterVar *iv = axis_arg(I, a[1], "compute_at");
  if (!iv) return NULL;
  return sched_compute_at(st, parent, iv) ? changed(I, st, "compute_at")
                                          : sched_raise(I, st->sched);
}

static Value *st_compute_inline(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  return sched_compute_inline(st) ? changed(I, st, "compute_inline") : sched_raise(I, st->sched);
}

static Value *st_compute_root(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  return sched_compute_root(st) ? changed(I, st, "compute_root") : sched_raise(I, st->sched);
}

/* parallel, vectorize and unroll: one axis, one primitive. */
static Value *annotate(Interp *I, Value *self, Value *axis, const char *fn,
                       bool (*prim)(Stage *, IterVar *)) {
  Stage *st = stage_of(self);
  IterVar *iv = axis_arg(I, axis, fn);
  if (!iv) return NULL;
  return prim(st, iv) ? changed(I, st, fn) : sched_raise(I, st->sched);
}

/* A parallel loop over a reduce axis would have its iterations race to update the same
 * element (TVM accepts it and computes garbage); reductions go parallel through rfactor. */
static Value *st_parallel(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *iv = bi_te_itervar_of(a[0]);
  for (int i = 0; iv && iv->kind == ITER_REDUCE && i < st->nleaf; i++)
    if (st->leaf_iter_vars[i] == iv)
      return interp_raise(I, EXC_ScheduleError,
                          "cannot parallel axis %s of stage %s: it is a reduce axis, whose "
                          "iterations would race to update the same element (rfactor it first)",
                          iv->var->name, st->op->name);
  return annotate(I, self, a[0], "parallel", sched_parallel);
}

static Value *st_vectorize(Interp *I, Value *self, Value **a) {
  return annotate(I, self, a[0], "vectorize", sched_vectorize);
}

static Value *st_unroll(Interp *I, Value *self, Value **a) {
  return annotate(I, self, a[0], "unroll", sched_unroll);
}

static Value *st_bind(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *iv = axis_arg(I, a[0], "bind"), *thread = iv ? axis_arg(I, a[1], "bind") : NULL;
  if (!thread) return NULL;
  return sched_bind(st, iv, thread) ? changed(I, st, "bind") : sched_raise(I, st->sched);
}

static Value *st_pragma(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *iv = axis_arg(I, a[0], "pragma");
  const char *key = iv ? bi_te_str_arg(I, a[1], "pragma", "name", NULL) : NULL;
  Expr *value;
  /* a str value is a StringImm: the LLVM IR text of "import_llvm" */
  if (key && a[2] && a[2]->kind == VAL_STR) value = ir_str(arena(I), a[2]->u.str.s);
  else if (!key || opt_expr_arg(I, a[2], "pragma: value", &value) < 0) return NULL;
  key = arena_strndup(arena(I), key, strlen(key)); /* the str value may go before the schedule does */
  return sched_pragma(st, iv, key, value) ? changed(I, st, "pragma") : sched_raise(I, st->sched);
}

static Value *st_set_scope(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  const char *scope = bi_te_str_arg(I, a[0], "set_scope", "scope", NULL);
  if (!scope) return NULL;
  scope = arena_strndup(arena(I), scope, strlen(scope));
  return sched_set_scope(st, scope) ? changed(I, st, "set_scope") : sched_raise(I, st->sched);
}

/* An int argument: a Python int or a constant integer expression (tvm.tir.const). */
static int int_arg(Interp *I, Value *v, const char *fn, const char *arg, int *out) {
  Expr *e = bi_te_expr_of(v);
  int64_t x = 0;
  bool ok = val_is_int(v) ? val_as_int(I, v, &x) == 0
                          : e && dt_is_int(e->dtype) && ir_as_int(e, &x);
  if (!ok) {
    interp_raise(I, EXC_TypeError, "%s: %s must be an int, not '%s'", fn, arg, val_type_name(v));
    return -1;
  }
  if (x < INT32_MIN || x > INT32_MAX) {
    interp_raise(I, EXC_ValueError, "%s: %s %lld is out of range", fn, arg, (long long)x);
    return -1;
  }
  *out = (int)x;
  return 0;
}

static Value *st_storage_align(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *iv = axis_arg(I, a[0], "storage_align");
  int factor, offset;
  if (!iv || int_arg(I, a[1], "storage_align", "factor", &factor) < 0 ||
      int_arg(I, a[2], "storage_align", "offset", &offset) < 0)
    return NULL;
  return sched_storage_align(st, iv, factor, offset) ? changed(I, st, "storage_align")
                                                      : sched_raise(I, st->sched);
}

static Value *st_double_buffer(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  return sched_double_buffer(st) ? changed(I, st, "double_buffer") : sched_raise(I, st->sched);
}

static Value *st_set_store_predicate(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  Expr *pred = bi_te_cond_arg(I, a[0], "set_store_predicate", "predicate");
  if (!pred) return NULL;
  return sched_set_store_predicate(st, pred) ? changed(I, st, "set_store_predicate")
                                              : sched_raise(I, st->sched);
}

static Value *st_prefetch(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  Tensor *t = tensor_arg(I, a[0], "prefetch");
  IterVar *iv = t ? axis_arg(I, a[1], "prefetch") : NULL;
  Expr *offset = iv ? bi_te_to_expr(I, a[2], "prefetch: offset") : NULL;
  if (!offset) return NULL;
  return sched_prefetch(st, t, iv, offset) ? changed(I, st, "prefetch") : sched_raise(I, st->sched);
}

/* The loops are matched against the intrinsic when the schedule is lowered (tensorize.c). */
static Value *st_tensorize(Interp *I, Value *self, Value **a) {
  Stage *st = stage_of(self);
  IterVar *iv = axis_arg(I, a[0], "tensorize");
  if (!iv) return NULL;
  TensorIntrin *in = bi_tensor_intrin_of(a[1]);
  if (!in)
    return interp_raise(I, EXC_TypeError,
                        "tensorize: intrin must be a TensorIntrin (te.decl_tensor_intrin), not "
                        "'%s'",
                        val_type_name(a[1]));
  return sched_tensorize(st, iv, in) ? changed(I, st, "tensorize") : sched_raise(I, st->sched);
}

static const Builtin stage_methods[] = {
    {"split", st_split, 1, PARAMS("parent", "factor", "nparts"),
     "split(axis, factor=None, nparts=None) -> (outer, inner): one axis as two loops"},
    {"tile", st_tile, 4, PARAMS("x_parent", "y_parent", "x_factor", "y_factor"),
     "tile(x, y, x_factor, y_factor) -> (xo, yo, xi, yi): split both, outer loops first"},
    {"fuse", st_fuse, 0, PARAMS("*args"), "fuse(*axes) -> IterVar: adjacent loops as one"},
    {"reorder", st_reorder, 0, PARAMS("*args"), "reorder(*axes): these loops in this order"},
    {"compute_at", st_compute_at, 2, PARAMS("parent", "scope"),
     "compute_at(stage, axis): compute this stage inside stage's loop over axis"},
    {"compute_inline", st_compute_inline, 0, NOPARAMS,
     "compute_inline(): substitute this stage into its consumers"},
    {"compute_root", st_compute_root, 0, NOPARAMS,
     "compute_root(): compute this stage at the top level again"},
    {"parallel", st_parallel, 1, PARAMS("var"), "parallel(axis): a parallel loop"},
    {"vectorize", st_vectorize, 1, PARAMS("var"), "vectorize(axis): a vector loop"},
    {"unroll", st_unroll, 1, PARAMS("var"), "unroll(axis): an unrolled loop"},
    {"bind", st_bind, 2, PARAMS("ivar", "thread_ivar"),
     "bind(axis, thread_axis): the loop becomes a GPU thread or block index"},
    {"pragma", st_pragma, 2, PARAMS("var", "pragma_type", "pragma_value"),
     "pragma(axis, name, value=None): annotate the loop with pragma_NAME"},
    {"set_scope", st_set_scope, 1, PARAMS("scope"),
     "set_scope(scope): the storage scope of this stage's output (global, shared, local ...)"},
    {"storage_align", st_storage_align, 3, PARAMS("axis", "factor", "offset"),
     "storage_align(axis, factor, offset): pad axis's stride so stride % factor == offset"},
    {"double_buffer", st_double_buffer, 0, NOPARAMS,
     "double_buffer(): load the next tile of this stage while the loop uses the current one"},
    {"set_store_predicate", st_set_store_predicate, 1, PARAMS("predicate"),
     "set_store_predicate(pred): store this stage's cross-thread reduction only where pred "
     "holds"},
    {"prefetch", st_prefetch, 3, PARAMS("tensor", "var", "offset"),
     "prefetch(tensor, axis, offset): each iteration of axis prefetches what iteration "
     "axis + offset reads of tensor"},
    {"tensorize", st_tensorize, 2, PARAMS("var", "tensor_intrin"),
     "tensorize(axis, intrin): the loops from axis inwards as a tensor intrinsic"},
    {0},
};

/* ---- Stage: the value ---- */

static Value *stage_repr(Interp *I, Value *self) {
  const Stage *st = stage_of(self);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "stage(%s, ", st->op->name);
  ir_print_op(&b, st->op);
  sb_putc(&b, ')');
  return val_str_sb(&b);
}

static Value *stage_op(Interp *I, Value *self) { return bi_te_wrap_op(stage_of(self)->op); }

static Value *stage_origin_op(Interp *I, Value *self) {
  return bi_te_wrap_op(stage_of(self)->origin_op);
}

static Value *stage_leaf_iter_vars(Interp *I, Value *self) {
  const Stage *st = stage_of(self);
  return bi_te_itervar_list(st->nleaf, st->leaf_iter_vars);
}

static Value *stage_all_iter_vars(Interp *I, Value *self) {
  const Stage *st = stage_of(self);
  return bi_te_itervar_list(st->nall, st->all_iter_vars);
}

static Value *stage_is_output(Interp *I, Value *self) {
  return val_bool(stage_of(self)->is_output);
}

static const Property stage_props[] = {
    {"op", stage_op, "the operation the stage computes"},
    {"origin_op", stage_origin_op, "the operation the stage was made for"},
    {"leaf_iter_vars", stage_leaf_iter_vars, "the loops as scheduled, outermost first"},
    {"all_iter_vars", stage_all_iter_vars, "every axis the stage has had, split ones included"},
    {"is_output", stage_is_output, "whether the stage computes an output of the schedule"},
    {0},
};

const ObjClass bi_sched_stage_class = {
    .type = {"Stage", NULL, VAL_OBJ, NULL},
    .repr = stage_repr,
    .compare = same_node,
    .methods = stage_methods,
    .props = stage_props,
};

/* ---- tvm.lower, IRModule and PrimFunc ---- */

Lowered *bi_sched_lowered_ref(Lowered *l) {
  l->refs++;
  return l;
}

void bi_sched_lowered_release(Lowered *l) {
  if (--l->refs > 0) return;
  arena_free(&l->arena);
  free(l);
}

static void lowered_free(void *p) { bi_sched_lowered_release(p); }

Lowered *bi_sched_lowered_of(Value *v) {
  Lowered *l = val_obj_of(v, &bi_sched_module_class);
  return l ? l : val_obj_of(v, &bi_sched_primfunc_class);
}

static LoweredFunc *func_of(Value *self) { return ((Lowered *)self->u.obj.p)->f; }

/* lower_print_func's text less its last newline, which print adds back. */
static Value *lowered_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  lower_print_func(&b, func_of(self));
  if (b.len && sb_cstr(&b)[b.len - 1] == '\n') b.len--;
  return val_str_sb(&b);
}

/* mod[name]: the one function of the module, by the name it was lowered under. */
static Value *module_getitem(Interp *I, Value *self, Value *key) {
  LoweredFunc *f = func_of(self);
  if (key->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "IRModule keys are function names, not '%s'",
                        val_type_name(key));
  if (strcmp(key->u.str.s, f->name) != 0)
    return interp_raise(I, EXC_KeyError, "IRModule has no function '%s' (it has '%s')",
                        key->u.str.s, f->name);
  return val_obj_new(&bi_sched_primfunc_class, bi_sched_lowered_ref(self->u.obj.p));
}

static Value *primfunc_name(Interp *I, Value *self) { return val_cstr(func_of(self)->name); }

static Value *primfunc_params(Interp *I, Value *self) {
  const LoweredFunc *f = func_of(self);
  Value *l = val_list_new(f->nparams);
  for (int i = 0; i < f->nparams; i++) val_list_append_take(l, bi_te_wrap_tensor(f->param_tensors[i]));
  return l;
}

static const Property primfunc_props[] = {
    {"name", primfunc_name, "the name it was lowered under"},
    {"params", primfunc_params, "its argument tensors, in order"},
    {0},
};

const ObjClass bi_sched_module_class = {
    .type = {"IRModule", NULL, VAL_OBJ, NULL},
    .free = lowered_free,
    .repr = lowered_repr,
    .getitem = module_getitem,
    .compare = same_node,
};

const ObjClass bi_sched_primfunc_class = {
    .type = {"PrimFunc", NULL, VAL_OBJ, NULL},
    .free = lowered_free,
    .repr = lowered_repr,
    .compare = same_node,
    .props = primfunc_props,
};

/* The argument tensors; an item that is not a tensor goes in as NULL, which lower_run
 * reports with its position. */
static Tensor **tensor_args(Interp *I, Arena *a, Value *v, int *n) {
  if (v->kind != VAL_LIST && v->kind != VAL_TUPLE)
    return BI_TE_RAISE(I, EXC_TypeError, "lower: args must be a list of tensors, not '%s'",
                        val_type_name(v));
  *n = (int)VAL_SEQ_N(v);
  Tensor **ts = arena_alloc(a, (size_t)(*n + 1) * sizeof *ts);
  for (int i = 0; i < *n; i++) {
    ts[i] = bi_te_tensor_of(VAL_SEQ_ITEM(v, i));
    const Expr *e = ts[i] ? NULL : bi_te_expr_of(VAL_SEQ_ITEM(v, i));
    if (e && e->kind == EXPR_VAR) /* TVM makes it a scalar parameter of the function */
      return BI_TE_RAISE(I, EXC_LowerError,
                         "not supported yet: a te.var (%s) as an argument: tes binds each var "
                         "from the shape of a tensor argument",
                         e->u.var->name);
  }
  return ts;
}

/* binds={tensor: Buffer}: each argument's buffer, NULL for a compact one; -1 with TypeError
 * or ValueError raised. */
static int bind_args(Interp *I, Arena *a, Value *binds, int n, Tensor **args, Buffer ***out) {
  *out = NULL;
  if (!binds || binds->kind == VAL_NONE) return 0;
  if (binds->kind != VAL_DICT) {
    interp_raise(I, EXC_TypeError, "lower: binds must be a dict of tensor: Buffer, not '%s'",
                 val_type_name(binds));
    return -1;
  }
  *out = arena_alloc(a, (size_t)(n + 1) * sizeof **out);
  int64_t pos = 0;
  Value *k, *v;
  while (dict_next(binds, &pos, &k, &v)) {
    Tensor *t = bi_te_tensor_of(k);
    Buffer *b = bi_tir_buffer_of(v);
    if (!t || !b) {
      interp_raise(I, EXC_TypeError, "lower: binds must map tensors to Buffers, not '%s' to '%s'",
                   val_type_name(k), val_type_name(v));
      return -1;
    }
    int i = 0;
    while (i < n && args[i] != t) i++;
    if (i == n) {
      interp_raise(I, EXC_ValueError, "lower: binds: tensor %s is not an argument", t->name);
      return -1;
    }
    (*out)[i] = b;
  }
  return 0;
}

Value *bi_sched_lower(Interp *I, Value *self, Value **a) { return bi_sched_lower_for(I, a, false); }

Value *bi_sched_lower_for(Interp *I, Value **a, bool gpu) {
  Schedule *s = val_obj_of(a[0], &bi_sched_schedule_class);
  if (!s)
    return interp_raise(I, EXC_TypeError, "lower: expected a Schedule, not '%s'",
                        val_type_name(a[0]));
  Lowered *l = xcalloc(1, sizeof *l);
  l->refs = 1;
  arena_init(&l->arena);
  int n = 0;
  Tensor **args = a[1] ? tensor_args(I, &l->arena, a[1], &n) : NULL;
  const char *name = bi_te_str_arg(I, a[2], "lower", "name", "main");
  Buffer **binds = NULL;
  /* simple_mode=False (tvm.build's lowering) runs tir.LoopPartition, as TVM's lower does;
   * tes's default is True, the tutorials' setting */
  int simple = a[4] && a[4]->kind != VAL_NONE ? val_truthy(I, a[4]) : 1;
  if (simple < 0) return bi_sched_lowered_release(l), NULL;
  /* under the current PassContext; --dump-after and --emit=ir see it */
  if ((a[1] && !args) || !name || bind_args(I, &l->arena, a[3], n, args, &binds) < 0 ||
      !(l->f = bi_pass_lower_for(I, &l->arena, s, n, args, name, true, gpu, binds, !simple))) {
    bi_sched_lowered_release(l);
    return NULL;
  }
  return val_obj_new(&bi_sched_module_class, l);
}
