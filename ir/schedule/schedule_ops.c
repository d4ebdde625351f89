/* schedule_ops.c: loop-nest construction (TVM's schedule_ops.cc, with the loop nests of
 * op_utils.cc and compute_op.cc). Stages are built consumers first: a root stage's loops go
 * before everything built so far, a compute_at stage's go inside its host's loop over the
 * attach axis, found by the `loop_scope` attr every loop carries until the end. Inside a
 * stage's loops come its split guards (`if @tir.likely(...)`), and for a reduction the init
 * statement, under `x.init` loops where the reduction loops are not innermost. */
#include <stdio.h>
#include <string.h>

#include "ir/schedule/sched_impl.h"

/* ---- nests: the wrappers around a stage's body, by loop level ---- */

static void push(Nest *n, Wrap w) {
  VEC_GROW(n->arena, n->w, n->cap, n->n + 1);
  n->w[n->n++] = w;
}

static Stmt *wrap(Arena *a, const Wrap *w, Stmt *body) {
  switch (w->kind) {
  case WRAP_FOR:
    return ir_for(a, w->var, w->min, w->extent, w->fkind, NULL, body);
  case WRAP_LET:
    return ir_let_stmt(a, w->var, w->min, body);
  case WRAP_ATTR:
    return ir_attr(a, ATTR_NODE_ITERVAR, w->node, w->key, w->value, body);
  case WRAP_TENSOR_ATTR:
    return ir_attr(a, ATTR_NODE_TENSOR, w->tensor, w->key, w->value, body);
  case WRAP_IF:
    return ir_if(a, w->value, body, NULL);
  }
  TES_UNREACHABLE();
}

/* body inside the wrappers of levels [from, to), innermost applied first. */
Stmt *sched_merge_nest(const Nest *n, int from, int to, Stmt *body) {
  for (int i = n->n - 1; i >= 0; i--)
    if (n->w[i].level >= from && n->w[i].level < to) body = wrap(n->arena, &n->w[i], body);
  return body;
}

/* ---- the loops of one stage (TVM's MakeLoopNest) ---- */

static Expr *as_dtype(Arena *a, Expr *e, DType t) {
  return dt_eq(e->dtype, t) ? e : ir_cast(a, t, e);
}

static void pragmas(Nest *n, int level, IterVar *iv, const IterVarAttr *at) {
  for (int k = 0; at && k < at->npragma; k++) {
    Expr *v = at->pragma_values[k] ? at->pragma_values[k] : ir_i32(n->arena, 1);
    push(n, (Wrap){.kind = WRAP_ATTR,
                   .level = level,
                   .node = iv,
                   .key = arena_strcat(n->arena, "pragma_", at->pragma_keys[k]),
                   .value = v});
  }
}

/* A plain loop over leaf iv; an extent-1 axis gets no loop, its value is its minimum. */
static Expr *serial_loop(Nest *n, int level, IterVar *iv, const IterVarAttr *at, Range dom,
                         bool init) {
  Arena *a = n->arena;
  pragmas(n, level, iv, at);
  if (ir_is_const_int(dom.extent, 1)) return dom.min;
  Var *v = init ? ir_var(a, arena_strcat(a, iv->var->name, ".init"), iv->var->dtype) : iv->var;
  ForKind k = at ? at->for_kind : FOR_SERIAL;
  if (ir_is_const_int(dom.min, 0)) {
    push(n, (Wrap){.kind = WRAP_FOR,
                   .level = level,
                   .var = v,
                   .min = dom.min,
                   .extent = dom.extent,
                   .fkind = k});
    return ir_varref(a, v);
  }
  Var *idx = ir_var(a, arena_strcat(a, iv->var->name, ".idx"), iv->var->dtype);
  push(n, (Wrap){.kind = WRAP_FOR,
                 .level = level,
                 .var = idx,
                 .min = arith_const(a, idx->dtype, 0),
                 .extent = dom.extent,
                 .fkind = k});
  Expr *value = arith_binary(a, EXPR_ADD, dom.min, ir_varref(a, idx));
  push(n, (Wrap){.kind = WRAP_LET, .level = level, .var = v, .min = value});
  return value;
}

/* A leaf bound to a thread: no loop, an attr giving the thread's extent. A thread index
 * starts at 0; a root axis bound directly may not (compute_at gives it its consumer's
 * offset), so its value is the index plus the minimum, where TVM would stop. */
static Expr *thread_loop(Nest *n, int level, IterVar *iv, IterVar *thread, Range dom) {
  Arena *a = n->arena;
  const char *tag = thread->thread_tag;
  bool virt = strncmp(tag, "vthread", 7) == 0 || strcmp(tag, "cthread") == 0;
  push(n, (Wrap){.kind = WRAP_ATTR,
                 .level = level,
                 .node = thread,
                 .key = virt ? "virtual_thread" : "thread_extent",
                 .value = dom.extent});
  if (!virt && ir_is_const_int(dom.extent, 1)) return dom.min;
  Expr *v = as_dtype(a, ir_varref(a, thread->var), iv->var->dtype);
  return ir_is_const_int(dom.min, 0) ? v : arith_binary(a, EXPR_ADD, v, dom.min);
}

/* prefetch(): inside the loop over iv, an attr per prefetched tensor (TVM's MakeLoopNest),
 * for tir.InjectPrefetch. An axis without a loop has no other iteration to prefetch for: one
 * of extent 1 (TVM stops there) or bound to a thread (TVM ignores the prefetch) gets none. */
static void prefetches(Nest *n, int level, const IterVarAttr *at, bool has_loop) {
  if (!at || !has_loop) return;
  for (int k = 0; k < at->nprefetch; k++)
    push(n, (Wrap){.kind = WRAP_TENSOR_ATTR,
                   .level = level,
                   .tensor = at->prefetch_data[k],
                   .key = "prefetch_scope",
                   .value = at->prefetch_offset[k]});
}

/* Loops for leaves [begin, nleaf) into n, their values into values (IterVar * -> Expr *),
 * then the root values. init: fresh `x.init` variables and no attach points. */
void sched_make_loop_nest(SchedBounds *b, const LStage *ls, int begin, bool init,
                           const PtrMap *skip, PtrMap *values, Nest *n) {
  Arena *a = b->arena;
  for (int i = begin; i < ls->nleaf; i++) {
    IterVar *iv = ls->leaf[i];
    if ((skip && ptrmap_get(skip, iv)) || iv->kind == ITER_OPAQUE) {
      ptrmap_put(values, iv, ir_varref(a, iv->var));
      continue;
    }
    const IterVarAttr *at = sched_leaf_attr(ls, iv);
    IterVar *thread = at && at->bind_thread ? at->bind_thread : iv->thread_tag ? iv : NULL;
    Range dom = sched_dom(b, iv);
    Expr *v =
        thread ? thread_loop(n, i + 1, iv, thread, dom) : serial_loop(n, i + 1, iv, at, dom, init);
    ptrmap_put(values, iv, v);
    if (!init)
      prefetches(n, i + 1, at, !thread && !ir_is_const_int(dom.extent, 1));
    if (!init)
      push(n, (Wrap){.kind = WRAP_ATTR,
                     .level = i + 1,
                     .node = iv,
                     .key = "loop_scope",
                     .value = ir_varref(a, iv->var)});
  }
  sched_pass_up_index(b, ls, values);
}

/* The guards at level nleaf + 1, each inside `@tir.likely`. */
void sched_add_guards(SchedBounds *b, const LStage *ls, const PtrMap *values, bool skip_root,
                       const PtrMap *skip, Nest *n) {
  Expr **guards;
  int ng = sched_make_bound_check(b, ls, values, skip_root, skip, &guards);
  for (int i = 0; i < ng; i++) {
    Expr *likely = ir_call(b->arena, DT_BOOL1, "tir.likely", CALL_PURE, 1, &guards[i]);
    push(n, (Wrap){.kind = WRAP_IF, .level = ls->nleaf + 1, .value = likely});
  }
}

/* Replaces each itervar's variable by its value in s. */
Stmt *sched_substitute_values(Arena *a, Stmt *s, const PtrMap *values) {
  VarMap *map = arena_alloc(a, (size_t)(values->n + 1) * sizeof *map);
  int n = 0;
  for (size_t i = 0; i < values->cap; i++)
    if (values->keys[i]) {
      const IterVar *iv = values->keys[i];
      Expr *to = values->vals[i];
      if (!(to->kind == EXPR_VAR && to->u.var == iv->var)) map[n++] = (VarMap){iv->var, to};
    }
  return ir_substitute_stmt(a, s, n, map);
}

/* ---- the statements of one stage (TVM's MakeComputeStmt) ---- */

/* T[axes] of every output, in the op's root variables. */
static Expr **axis_refs(Arena *a, const Operation *op) {
  Expr **idx = arena_alloc(a, (size_t)(op->naxis + 1) * sizeof *idx);
  for (int i = 0; i < op->naxis; i++) idx[i] = ir_varref(a, op->axis[i]->var);
  return idx;
}

static Stmt *provides(Arena *a, const LStage *ls) {
  const Operation *op = ls->st->op;
  Expr **idx = axis_refs(a, op);
  Stmt **items = arena_alloc(a, (size_t)op->noutputs * sizeof *items);
  for (int i = 0; i < op->noutputs; i++)
    items[i] = ir_provide(a, op->outputs[i], ls->body[i], op->naxis, idx);
  return ir_seq(a, op->noutputs, items);
}

/* The init and update statements of a reduction (TVM's MakeReduction). */
static void reduction(Arena *a, const LStage *ls, Stmt **init, Stmt **update) {
  const Operation *op = ls->st->op;
  const Expr *red = ls->body[0];
  TES_ASSERT(red->kind == EXPR_REDUCE, "reduction %s without a reduce body", op->name);
  CommReducer *c = red->u.reduce.combiner;
  Expr **idx = axis_refs(a, op);
  VarMap *map = arena_alloc(a, (size_t)(2 * c->n) * sizeof *map);
  for (int i = 0; i < c->n; i++) {
    map[2 * i] = (VarMap){c->lhs[i], ir_pload(a, op->outputs[i], op->naxis, idx)};
    map[2 * i + 1] = (VarMap){c->rhs[i], red->u.reduce.source[i]};
  }
  Stmt **inits = arena_alloc(a, (size_t)c->n * sizeof *inits);
  Stmt **updates = arena_alloc(a, (size_t)c->n * sizeof *updates);
  for (int i = 0; i < c->n; i++) {
    inits[i] = ir_provide(a, op->outputs[i], c->identity[i], op->naxis, idx);
    Expr *v = ir_substitute_expr(a, c->result[i], 2 * c->n, map);
    updates[i] = ir_provide(a, op->outputs[i], v, op->naxis, idx);
  }
  *init = ir_seq(a, c->n, inits);
  *update = ir_seq(a, c->n, updates);
  if (red->u.reduce.condition) *update = ir_if(a, red->u.reduce.condition, *update, NULL);
}

/* The first leaf a reduce axis feeds: loops before it hold the init statement too. */
int sched_first_reduce_loop(const LStage *ls, PtrMap *state) {
  const Operation *op = ls->st->op;
  for (int i = 0; i < op->nreduce; i++) ptrmap_put(state, op->reduce_axis[i], (void *)2);
  for (int i = 0; i < op->naxis; i++) ptrmap_put(state, op->axis[i], (void *)1);
  sched_pass_down_mask(ls, state);
  for (int i = 0; i < ls->nleaf; i++)
    if ((intptr_t)ptrmap_get(state, ls->leaf[i]) & 2) return i;
  return ls->nleaf;
}

static Stmt *reduce_stmt(SchedBounds *b, const LStage *ls, const Nest *main, PtrMap *values) {
  Arena *a = b->arena;
  PtrMap state, skip, init_values;
  ptrmap_init(&state, a);
  ptrmap_init(&skip, a);
  ptrmap_init(&init_values, a);
  int begin = sched_first_reduce_loop(ls, &state);
  for (size_t i = 0; i < state.cap; i++)
    if (state.keys[i] && (intptr_t)state.vals[i] == 2)
      ptrmap_put(&skip, state.keys[i], (void *)1);
  for (int i = 0; i < begin; i++)
    ptrmap_put(&init_values, ls->leaf[i], ptrmap_get(values, ls->leaf[i]));
  Nest init_nest = {a, 0, 0, NULL};
  sched_make_loop_nest(b, ls, begin, true, &skip, &init_values, &init_nest);
  sched_add_guards(b, ls, &init_values, true, &skip, &init_nest);
  Stmt *init, *update;
  reduction(a, ls, &init, &update);
  init = sched_substitute_values(a, sched_merge_nest(&init_nest, 0, ls->nleaf + 2, init), &init_values);
  update = sched_merge_nest(main, begin + 1, ls->nleaf + 2, update);
  Stmt *both[2] = {init, update};
  return sched_merge_nest(main, 0, begin + 1, ir_seq(a, 2, both));
}

/* ---- cross-thread reduction (TVM's MakeCrossThreadReduction) ---- */

/* Whether leaf i of ls is a reduce axis bound to a thread. */
static bool thread_reduce_leaf(const LStage *ls, int i) {
  const IterVarAttr *at = sched_leaf_attr(ls, ls->leaf[i]);
  return ls->leaf[i]->kind == ITER_REDUCE && at && at->bind_thread;
}

static bool is_cross_thread(const LStage *ls) {
  for (int i = 0; i < ls->nleaf; i++)
    if (thread_reduce_leaf(ls, i)) return true;
  return false;
}

/* A cross-thread reduction's data axes come before its thread-bound reduce axes (the threads
 * of one reduction must meet at one allreduce), and only a cross-thread reduction has a store
 * predicate. */
static bool check_cross_thread(SchedBounds *b, const LStage *ls) {
  const Stage *st = ls->st;
  const IterVar *bound = NULL;
  for (int i = 0; i < ls->nleaf; i++) {
    if (thread_reduce_leaf(ls, i) && !bound) bound = ls->leaf[i];
    if (bound && ls->leaf[i]->kind != ITER_REDUCE)
      return ir_error(b->diag,
                      "cannot lower: stage %s: axis %s comes after reduction axis %s, which is "
                      "bound to %s (a cross-thread reduction's data axes must be outer loops)",
                      st->op->name, ls->leaf[i]->var->name, bound->var->name,
                      sched_leaf_attr(ls, bound)->bind_thread->thread_tag);
  }
  if (st->store_predicate && !bound)
    return ir_error(b->diag,
                    "not supported yet: the store predicate of stage %s, which is not a "
                    "cross-thread reduction (no reduction axis of it is bound to a thread)",
                    st->op->name);
  return true;
}

/* body inside the wrappers of the levels where pick[level] holds, innermost applied first. */
static Stmt *merge_picked(const Nest *n, const bool *pick, Stmt *body) {
  for (int i = n->n - 1; i >= 0; i--)
    if (pick[n->w[i].level]) body = wrap(n->arena, &n->w[i], body);
  return body;
}

/* Whether e reads a reduce leaf of ls or the thread it is bound to. */
static bool on_reduce_leaf(const LStage *ls, const Expr *e) {
  for (int i = 0; i < ls->nleaf; i++) {
    if (ls->leaf[i]->kind != ITER_REDUCE) continue;
    const IterVarAttr *at = sched_leaf_attr(ls, ls->leaf[i]);
    if (ir_expr_uses_var(e, ls->leaf[i]->var) ||
        (at && at->bind_thread && ir_expr_uses_var(e, at->bind_thread->var)))
      return true;
  }
  return false;
}

static bool is_true(const Expr *e) { return !e || ir_is_const_int(e, 1); }

static Stmt *guarded(Arena *a, Expr *cond, Stmt *s) {
  return is_true(cond) ? s : ir_if(a, cond, s, NULL);
}

/* A [1] tensor in local memory, a cross-thread reduction's temporary. */
static Tensor *temp_tensor(Arena *a, const char *prefix, int i, DType t) {
  char name[48];
  snprintf(name, sizeof name, "%s%d", prefix, i);
  Expr *one = ir_i32(a, 1);
  return ir_placeholder_op(a, name, 1, &one, t)->outputs[0];
}

static Expr *temp_load(Arena *a, Tensor *t) {
  Expr *zero = ir_i32(a, 0);
  return ir_pload(a, t, 1, &zero);
}

static Stmt *temp_store(Arena *a, Tensor *t, Expr *v) {
  Expr *zero = ir_i32(a, 0);
  return ir_provide(a, t, v, 1, &zero);
}

/* The reduce axes not bound to threads, if any, reduce into normal_reduce_temp first (under
 * their loops and the stage's guards); then tvm_thread_allreduce(n, values..., cond,
 * reduce_temp..., threads...) combines the threads' values into reduce_temp, under attr
 * "reduce_scope" naming the combiner; the store of each output reads reduce_temp, guarded by
 * the store predicate (not under the where= condition). Without serial reduce loops the guards go into the values, as
 * if_then_else(guards, value, identity) (TVM reads out of bounds where a guard fails), so a
 * thread whose part is out of range contributes the identity. The guards on data axes alone also guard the store (TVM leaves
 * that to the store predicate, and writes past the output where it does not say so). */
static Stmt *cross_thread_reduction(SchedBounds *b, const LStage *ls) {
  Arena *a = b->arena;
  const Operation *op = ls->st->op;
  const Expr *red = ls->body[0];
  TES_ASSERT(red->kind == EXPR_REDUCE, "reduction %s without a reduce body", op->name);
  CommReducer *c = red->u.reduce.combiner;
  int n = c->n;
  PtrMap values;
  ptrmap_init(&values, a);
  Nest main = {a, 0, 0, NULL};
  sched_make_loop_nest(b, ls, 0, false, NULL, &values, &main);
  Expr **guards;
  int ng = sched_make_bound_check(b, ls, &values, false, NULL, &guards);
  bool *normal = arena_alloc(a, (size_t)(ls->nleaf + 2) * sizeof *normal);
  bool *common = arena_alloc(a, (size_t)(ls->nleaf + 2) * sizeof *common);
  bool any_normal = false;
  for (int l = 0; l < ls->nleaf + 2; l++) {
    int i = l - 1;
    normal[l] = i >= 0 && i < ls->nleaf && ls->leaf[i]->kind == ITER_REDUCE &&
                !thread_reduce_leaf(ls, i);
    common[l] = !normal[l] && l <= ls->nleaf;
    any_normal = any_normal || normal[l];
  }
  Expr *input_pred = is_true(red->u.reduce.condition) ? NULL : red->u.reduce.condition;
  Expr *pred = input_pred, *data_pred = NULL;
  for (int i = ng - 1; i >= 0; i--) {
    Expr *likely = ir_call(a, DT_BOOL1, "tir.likely", CALL_PURE, 1, &guards[i]);
    pred = pred ? ir_binary(a, EXPR_AND, likely, pred) : likely;
    if (!on_reduce_leaf(ls, guards[i]))
      data_pred = data_pred ? ir_binary(a, EXPR_AND, likely, data_pred) : likely;
  }
  Tensor **temps = arena_alloc(a, (size_t)n * sizeof *temps);
  Tensor **normals = arena_alloc(a, (size_t)n * sizeof *normals);
  int nargs = 0;
  Expr **args = arena_alloc(a, (size_t)(2 * n + 2 + ls->nleaf) * sizeof *args);
  args[nargs++] = ir_int(a, DT_MAKE(DT_UINT, 32, 1), n);
  for (int i = 0; i < n; i++) {
    DType t = op->outputs[i]->dtype;
    temps[i] = temp_tensor(a, "reduce_temp", i, t);
    normals[i] = any_normal ? temp_tensor(a, "normal_reduce_temp", i, t) : NULL;
    Expr *v = red->u.reduce.source[i];
    if (!any_normal && pred) {
      Expr *ite[3] = {pred, v, c->identity[i]};
      v = ir_call(a, v->dtype, "tir.if_then_else", CALL_PURE, 3, ite);
    }
    args[nargs++] = any_normal ? temp_load(a, normals[i]) : v;
  }
  args[nargs++] = ir_int(a, DT_BOOL1, 1);
  for (int i = 0; i < n; i++) args[nargs++] = temp_load(a, temps[i]);
  for (int i = 0; i < ls->nleaf; i++)
    if (thread_reduce_leaf(ls, i))
      args[nargs++] = ir_varref(a, sched_leaf_attr(ls, ls->leaf[i])->bind_thread->var);
  Expr *zero_handle_arg = ir_int(a, DT_MAKE(DT_UINT, 64, 1), 0);
  Expr *zero_handle = ir_call(a, DT_HANDLE64, "tir.reinterpret", CALL_PURE, 1, &zero_handle_arg);
  Expr *call = ir_call(a, DT_HANDLE64, "tir.tvm_thread_allreduce", CALL_EFFECT, nargs, args);
  Stmt *reduce = ir_attr(a, ATTR_NODE_COMMREDUCER, c, "reduce_scope", zero_handle,
                         ir_evaluate(a, call));
  if (any_normal) {
    VarMap *map = arena_alloc(a, (size_t)(2 * n) * sizeof *map);
    for (int i = 0; i < n; i++) {
      map[2 * i] = (VarMap){c->lhs[i], temp_load(a, normals[i])};
      map[2 * i + 1] = (VarMap){c->rhs[i], red->u.reduce.source[i]};
    }
    Stmt **inits = arena_alloc(a, (size_t)n * sizeof *inits);
    Stmt **updates = arena_alloc(a, (size_t)n * sizeof *updates);
    for (int i = 0; i < n; i++) {
      inits[i] = temp_store(a, normals[i], c->identity[i]);
      updates[i] = temp_store(a, normals[i], ir_substitute_expr(a, c->result[i], 2 * n, map));
    }
    Stmt *update = merge_picked(&main, normal, guarded(a, pred, ir_seq(a, n, updates)));
    Stmt *three[3] = {ir_seq(a, n, inits), update, reduce};
    reduce = ir_seq(a, 3, three);
  }
  Expr **idx = axis_refs(a, op);
  Stmt **stores = arena_alloc(a, (size_t)n * sizeof *stores);
  for (int i = 0; i < n; i++)
    stores[i] = ir_provide(a, op->outputs[i], temp_load(a, temps[i]), op->naxis, idx);
  /* (not under the where= condition: it is the inputs', and reads the reduce axes, which
   * the store is outside of; a row no input passes stores the identity) */
  Stmt *store = guarded(a, data_pred, ir_seq(a, n, stores));
  store = guarded(a, ls->st->store_predicate, store);
  Stmt *both[2] = {reduce, store};
  Stmt *body = ir_seq(a, 2, both);
  Range one = {ir_i32(a, 0), ir_i32(a, 1)};
  for (int i = n - 1; i >= 0; i--) {
    body = ir_realize(a, temps[i], 1, &one, NULL, "local", body);
    if (any_normal) body = ir_realize(a, normals[i], 1, &one, NULL, "local", body);
  }
  return sched_substitute_values(a, merge_picked(&main, common, body), &values);
}

static Stmt *build_provide(SchedBounds *b, const LStage *ls) {
  Arena *a = b->arena;
  int tloc = sched_tensorize_loc(ls);
  if (tloc >= 0) return sched_make_tensorize(b, ls, tloc);
  if (is_cross_thread(ls)) return cross_thread_reduction(b, ls);
  PtrMap values;
  ptrmap_init(&values, a);
  Nest main = {a, 0, 0, NULL};
  sched_make_loop_nest(b, ls, 0, false, NULL, &values, &main);
  sched_add_guards(b, ls, &values, false, NULL, &main);
  Stmt *s = ls->st->op->nreduce ? reduce_stmt(b, ls, &main, &values)
                                : sched_merge_nest(&main, 0, ls->nleaf + 2, provides(a, ls));
  return sched_substitute_values(a, s, &values);
}

/* ---- placing stages ---- */

/* `attr [T] "buffer_dim_align" = @tir.tvm_tuple(dim, factor, offset)` around s for each
 * storage_align'ed dimension of t (TVM's BuildRealize); storage flattening pads the strides. */
static Stmt *dim_align_attrs(Arena *a, const Stage *st, Tensor *t, Stmt *s) {
  const Operation *op = st->op;
  for (int d = 0; d < op->naxis; d++) {
    const IterVarAttr *at = sched_iter_attr(st, op->axis[d]);
    if (!at || !at->dim_align_factor) continue;
    Expr *tuple[3] = {ir_i32(a, d), ir_i32(a, at->dim_align_factor),
                      ir_i32(a, at->dim_align_offset)};
    Expr *v = ir_call(a, DT_HANDLE64, "tir.tvm_tuple", CALL_PURE, 3, tuple);
    s = ir_attr(a, ATTR_NODE_TENSOR, t, "buffer_dim_align", v, s);
  }
  return s;
}

/* The stage's statements before `consumer` (may be NULL), inside a realize of each output
 * (TVM's MakePipeline). A double-buffered stage's producer is marked for
 * tir.InjectDoubleBuffer, by way of storage flattening, which moves the mark to the buffer. */
static Stmt *make_pipeline(SchedBounds *b, const LStage *ls, Stmt *consumer) {
  Arena *a = b->arena;
  const Operation *op = ls->st->op;
  Stmt *s = build_provide(b, ls);
  if (!s) return NULL;
  for (int i = 0; ls->st->double_buffer && i < op->noutputs; i++)
    s = ir_attr(a, ATTR_NODE_TENSOR, op->outputs[i], "double_buffer_scope", ir_i32(a, 1), s);
  if (consumer) {
    Stmt *both[2] = {s, consumer};
    s = ir_seq(a, 2, both);
  }
  Range *bounds = arena_alloc(a, (size_t)(op->naxis + 1) * sizeof *bounds);
  for (int i = 0; i < op->naxis; i++) bounds[i] = sched_dom(b, op->axis[i]);
  for (int i = 0; i < op->noutputs; i++) {
    s = ir_realize(a, op->outputs[i], op->naxis, bounds, NULL, ls->scope, s);
    s = dim_align_attrs(a, ls->st, op->outputs[i], s);
  }
  return s;
}

/* ---- extern stages (TVM's ExternOp BuildProvide and BuildRealize) ---- */

/* attr [[buffer(B), T]] "buffer_bind_scope" = tvm_tuple(0, shape0, ...): B stands for all of T
 * in body (storage flattening makes it a view of T's storage). */
static Stmt *bind_whole(Arena *a, Buffer *buf, Tensor *t, Stmt *body) {
  Expr **tuple = arena_alloc(a, (size_t)(2 * t->ndim + 1) * sizeof *tuple);
  for (int d = 0; d < t->ndim; d++) {
    tuple[2 * d] = arith_const(a, t->shape[d]->dtype, 0);
    tuple[2 * d + 1] = t->shape[d];
  }
  BufferBind *bb = arena_alloc(a, sizeof *bb);
  *bb = (BufferBind){buf, t};
  Expr *v = ir_call(a, DT_HANDLE64, "tir.tvm_tuple", CALL_PURE, 2 * t->ndim, tuple);
  return ir_attr(a, ATTR_NODE_BUFFER_BIND, bb, "buffer_bind_scope", v, body);
}

/* The extern's statement under `attr [0] "extern_scope" = 0`, its buffers bound to its
 * tensors, before `consumer` (may be NULL), inside a realize of each whole output. */
static Stmt *extern_pipeline(SchedBounds *b, const LStage *ls, Stmt *consumer) {
  Arena *a = b->arena;
  const Operation *op = ls->st->op;
  Expr *zero = ir_i32(a, 0);
  Stmt *s = ir_attr(a, ATTR_NODE_EXPR, zero, "extern_scope", zero, op->body_stmt);
  for (int i = op->noutputs - 1; i >= 0; i--)
    s = bind_whole(a, op->out_buffers[i], op->outputs[i], s);
  for (int i = op->ninputs - 1; i >= 0; i--) s = bind_whole(a, op->in_buffers[i], op->inputs[i], s);
  return sched_realize_whole(a, ls, s, consumer);
}

Stmt *sched_realize_whole(Arena *a, const LStage *ls, Stmt *s, Stmt *consumer) {
  const Operation *op = ls->st->op;
  if (consumer) {
    Stmt *both[2] = {s, consumer};
    s = ir_seq(a, 2, both);
  }
  for (int i = 0; i < op->noutputs; i++) {
    Tensor *t = op->outputs[i];
    Range *bounds = arena_alloc(a, (size_t)(t->ndim + 1) * sizeof *bounds);
    for (int d = 0; d < t->ndim; d++)
      bounds[d] = (Range){arith_const(a, t->shape[d]->dtype, 0), t->shape[d]};
    s = ir_realize(a, t, t->ndim, bounds, NULL, ls->scope, s);
  }
  return s;
}

typedef struct Injector {
  IrMutator m;
  SchedBounds *b;
  const LStage *ls;
  bool found;
} Injector;

static bool is_loop_scope(const Stmt *s) {
  return s->kind == STMT_ATTR && strcmp(s->u.attr.key, "loop_scope") == 0;
}

static Stmt *inject_stmt(IrMutator *m, Stmt *s) {
  Injector *in = (Injector *)m;
  s = ir_mutate_children_stmt(m, s);
  if (!is_loop_scope(s) || s->u.attr.node != in->ls->attach_ivar) return s;
  in->found = true;
  Stmt *body = make_pipeline(in->b, in->ls, s->u.attr.body);
  if (!body) return s; /* the error is on b->diag */
  return ir_attr(m->arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, s->u.attr.value, body);
}

/* ---- clean-up (TVM's SchedulePostProc) ---- */

typedef struct PostProc {
  IrMutator m;
  int n, cap;
  const void **threads; /* thread itervars whose extent attr encloses the current node */
} PostProc;

/* Drops the attach markers, and a thread's extent attr inside another for the same thread (a
 * compute_at stage under its host's threads, or a reduction's init under the same threads). */
static Stmt *post_stmt(IrMutator *m, Stmt *s) {
  PostProc *pp = (PostProc *)m;
  if (is_loop_scope(s)) return ir_mutate_stmt(m, s->u.attr.body);
  if (s->kind != STMT_ATTR || strcmp(s->u.attr.key, "thread_extent") != 0)
    return ir_mutate_children_stmt(m, s);
  for (int i = 0; i < pp->n; i++)
    if (pp->threads[i] == s->u.attr.node) return ir_mutate_stmt(m, s->u.attr.body);
  VEC_GROW(m->arena, pp->threads, pp->cap, pp->n + 1);
  pp->threads[pp->n++] = s->u.attr.node;
  Stmt *r = ir_mutate_children_stmt(m, s);
  pp->n--;
  return r;
}

static Stmt *schedule_ops(SchedBounds *b) {
  Arena *a = b->arena;
  Stmt *body = NULL;
  for (int i = 0; i < b->sch->nstages; i++)
    if (b->ls[i].st->op->kind == OP_COMPUTE && !check_cross_thread(b, &b->ls[i])) return NULL;
  for (int i = b->sch->nstages - 1; i >= 0; i--) {
    const LStage *ls = &b->ls[i];
    if (ls->st->op->kind == OP_EXTERN) {
      body = extern_pipeline(b, ls, body);
      continue;
    }
    if (ls->st->op->kind == OP_SCAN) {
      body = sched_scan_pipeline(b, ls, body);
      continue;
    }
    if (ls->st->op->kind != OP_COMPUTE || ls->st->attach == ATTACH_INLINE) continue;
    if (ls->st->attach == ATTACH_ROOT) {
      body = make_pipeline(b, ls, body);
      if (!body) return NULL;
      continue;
    }
    Injector in = {{a, NULL, inject_stmt}, b, ls, false};
    body = body ? ir_mutate_stmt(&in.m, body) : NULL;
    if (diag_failed(b->diag)) return NULL;
    if (!in.found) {
      ir_error(b->diag,
               "cannot compute_at: stage %s: axis %s of stage %s has no loop to compute it in",
               ls->st->op->name, ls->st->attach_ivar->var->name, ls->st->attach_stage->op->name);
      return NULL;
    }
  }
  if (!body) return ir_seq(a, 0, NULL);
  PostProc pp = {{a, NULL, post_stmt}, 0, 0, NULL};
  body = sched_scan_postproc(b, body);
  return sched_restore_tensors(b->sch, a, ir_mutate_stmt(&pp.m, body));
}

Stmt *sched_schedule_ops(SchedBounds *b) {
  b->fold = arith_new(b->arena);
  Stmt *body = schedule_ops(b);
  arith_free(b->fold);
  b->fold = NULL;
  return body;
}
