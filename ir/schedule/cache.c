/* cache.c: cache_read and cache_write (TVM's schedule_dataflow_rewrite.cc), and the dataflow
 * rewriting they share with rfactor.c. Unlike the other primitives these change the graph: a
 * new stage joins s->stages, and a stage whose computation changes gets a new Operation in
 * `op` while `origin_op` keeps the one the user holds. Every later stage that read the old
 * outputs is given an op reading the new ones (TVM's ReplaceDataFlow), so lowering sees one
 * consistent graph; sched_restore_tensors then names the original tensors in the IR again, so
 * that tvm.lower's arguments still bind. */
#include <stdio.h>
#include <string.h>

#include "ir/schedule/sched_impl.h"

/* ---- replacing what an operation reads ---- */

typedef struct Replacer {
  IrMutator m;
  const PtrMap *vmap; /* Tensor * -> Tensor * */
} Replacer;

static Expr *replace_load(IrMutator *m, Expr *e) {
  Replacer *r = (Replacer *)m;
  e = ir_mutate_children_expr(m, e);
  if (e->kind != EXPR_PRODUCER_LOAD) return e;
  Tensor *to = ptrmap_get(r->vmap, e->u.pload.tensor);
  return to ? ir_pload(m->arena, to, e->u.pload.n, e->u.pload.indices) : e;
}

static bool reads_any(const Operation *op, const PtrMap *vmap) {
  for (int i = 0; op->kind != OP_PLACEHOLDER && i < op->ninputs; i++)
    if (ptrmap_get(vmap, op->inputs[i])) return true;
  return false;
}

Operation *sched_replace_inputs(Arena *a, Operation *op, const PtrMap *vmap) {
  if (!reads_any(op, vmap) || op->kind == OP_SCAN) return op;
  if (op->kind == OP_EXTERN) { /* its buffers bind to whichever tensors it reads now */
    Tensor **in = arena_alloc(a, (size_t)op->ninputs * sizeof *in);
    for (int i = 0; i < op->ninputs; i++) {
      Tensor *to = ptrmap_get(vmap, op->inputs[i]);
      in[i] = to ? to : op->inputs[i];
    }
    return ir_extern_op(a, op->name, op->tag, op->ninputs, in, op->in_buffers, op->noutputs,
                        op->out_buffers, op->body_stmt);
  }
  Replacer r = {{a, replace_load, NULL}, vmap};
  Expr **body = arena_alloc(a, (size_t)op->noutputs * sizeof *body);
  for (int i = 0; i < op->noutputs; i++) body[i] = ir_mutate_expr(&r.m, op->body[i]);
  return ir_compute_op(a, op->name, op->tag, op->naxis, op->outputs[0]->shape, op->axis,
                       op->noutputs, body);
}

/* Stages come producers first, so one pass carries a replacement to every consumer, and to
 * their consumers in turn. A stage replaced earlier in the same rewrite (a cache_read reader)
 * is still read through its original tensors, which rvmap leads back to. */
void sched_replace_dataflow(Schedule *s, PtrMap *vmap, PtrMap *rvmap) {
  for (int i = 0; i < s->nstages; i++) {
    Stage *st = s->stages[i];
    Operation *op = sched_replace_inputs(s->arena, st->op, vmap);
    if (op == st->op) continue;
    for (int j = 0; j < op->noutputs; j++) {
      Tensor *old = st->op->outputs[j], *orig = ptrmap_get(rvmap, old);
      if (orig) {
        ptrmap_put(vmap, orig, op->outputs[j]);
      } else {
        ptrmap_put(vmap, old, op->outputs[j]);
        ptrmap_put(rvmap, op->outputs[j], old);
      }
    }
    st->op = op;
  }
}

void sched_replace_stage_op(Stage *st, Operation *to) {
  Arena scratch;
  arena_init(&scratch);
  PtrMap vmap, rvmap;
  ptrmap_init(&vmap, &scratch);
  ptrmap_init(&rvmap, &scratch);
  for (int j = 0; j < to->noutputs && j < st->op->noutputs; j++) {
    ptrmap_put(&vmap, st->op->outputs[j], to->outputs[j]);
    ptrmap_put(&rvmap, to->outputs[j], st->op->outputs[j]);
  }
  sched_replace_dataflow(st->sched, &vmap, &rvmap);
  arena_free(&scratch);
  sched_stage_set_op(st, to);
}

/* ---- stages ---- */

int sched_stage_index(const Schedule *s, const Stage *st) {
  for (int i = 0; i < s->nstages; i++)
    if (s->stages[i] == st) return i;
  return -1;
}

static bool in_list(IterVar *const *ivs, int n, const IterVar *iv) {
  for (int i = 0; i < n; i++)
    if (ivs[i] == iv) return true;
  return false;
}

void sched_stage_set_op(Stage *st, Operation *op) {
  Arena *a = st->sched->arena;
  int n;
  IterVar **roots = sched_root_ivs(a, op, &n);
  st->op = op;
  st->all_iter_vars = roots;
  st->leaf_iter_vars = arena_alloc(a, (size_t)(n + 1) * sizeof(IterVar *));
  if (n) memcpy(st->leaf_iter_vars, roots, (size_t)n * sizeof(IterVar *));
  st->nall = st->nleaf = st->cap_all = st->cap_leaf = n;
  st->nrel = 0;
  int kept = 0;
  for (int i = 0; i < st->nattr; i++)
    if (in_list(roots, n, st->attrs[i].iv)) st->attrs[kept++] = st->attrs[i];
  st->nattr = kept;
}

/* The scope a cache stage gets, checked as set_scope checks it: on a probe stage, so that a
 * refused scope changes nothing in s. NULL with the error set. */
static const char *cache_scope(Schedule *s, Operation *cache, const char *what, const char *scope) {
  Stage probe = {.sched = s, .op = cache, .scope = ""};
  if (scope && *scope && sched_set_scope(&probe, scope)) return probe.scope;
  sched_fail(s, "cannot %s: unknown storage scope '%s'", what, scope ? scope : "");
  return NULL;
}

static const char *dotted(Arena *a, const char *name, const char *scope) {
  return arena_strcat(a, arena_strcat(a, name, "."), scope);
}

/* ---- cache_read ---- */

static bool reads(const Operation *op, const Tensor *t) {
  for (int i = 0; op->kind != OP_PLACEHOLDER && i < op->ninputs; i++)
    if (op->inputs[i] == t) return true;
  return false;
}

/* `<t>.<scope>`: t copied, over axes ax0, ax1, ... as TVM's compute names them. */
static Operation *copy_op(Arena *a, Tensor *t, const char *scope) {
  const char **names = arena_alloc(a, (size_t)(t->ndim + 1) * sizeof *names);
  for (int i = 0; i < t->ndim; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "ax%d", i);
    names[i] = arena_strndup(a, buf, strlen(buf));
  }
  IterVar **axes = ir_compute_axes(a, t->ndim, t->shape, names);
  Expr **idx = arena_alloc(a, (size_t)(t->ndim + 1) * sizeof *idx);
  for (int i = 0; i < t->ndim; i++) idx[i] = ir_varref(a, axes[i]->var);
  Expr *body = ir_pload(a, t, t->ndim, idx);
  return ir_compute_op(a, dotted(a, t->name, scope), "", t->ndim, t->shape, axes, 1, &body);
}

/* The stages of the readers, each a stage of s reading t, none twice; NULL with the error set. */
static Stage **reader_stages(Schedule *s, const Tensor *t, int n, Operation **readers) {
  if (n == 0) {
    sched_fail(s, "cannot cache_read: no readers of %s given", t->name);
    return NULL;
  }
  Stage **rs = arena_alloc(s->arena, (size_t)n * sizeof *rs);
  for (int i = 0; i < n; i++) {
    rs[i] = readers[i] ? sched_stage(s, readers[i]) : NULL;
    if (!rs[i]) {
      sched_fail(s, "cannot cache_read: reader %s is not in the schedule",
                 readers[i] ? readers[i]->name : "(none)");
      return NULL;
    }
    for (int j = 0; j < i; j++)
      if (rs[j] == rs[i]) {
        sched_fail(s, "cannot cache_read: reader %s given twice", rs[i]->op->name);
        return NULL;
      }
    if (!reads(rs[i]->op, t)) {
      sched_fail(s, "cannot cache_read: stage %s does not read %s", rs[i]->op->name, t->name);
      return NULL;
    }
  }
  return rs;
}

Tensor *sched_cache_read(Schedule *s, Tensor *t, const char *scope, int nreaders,
                         Operation **readers) {
  Stage *src = t && t->op ? sched_stage(s, t->op) : NULL;
  if (!src) {
    sched_fail(s, "cannot cache_read: tensor %s is not in the schedule", t ? t->name : "(none)");
    return NULL;
  }
  /* after a cache_write, the stage's op makes the tensor its readers read */
  Tensor *cur = src->op->outputs[t->value_index];
  Stage **rs = reader_stages(s, cur, nreaders, readers);
  if (!rs) return NULL;
  Operation *cache = copy_op(s->arena, cur, scope ? scope : "");
  const char *sc = cache_scope(s, cache, "cache_read", scope);
  if (!sc) return NULL;
  Arena scratch;
  arena_init(&scratch);
  PtrMap sub, vmap, rvmap;
  ptrmap_init(&sub, &scratch);
  ptrmap_init(&vmap, &scratch);
  ptrmap_init(&rvmap, &scratch);
  ptrmap_put(&sub, cur, cache->outputs[0]);
  for (int i = 0; i < nreaders; i++) {
    Operation *op = sched_replace_inputs(s->arena, rs[i]->op, &sub);
    for (int j = 0; j < op->noutputs; j++) {
      ptrmap_put(&vmap, rs[i]->op->outputs[j], op->outputs[j]);
      ptrmap_put(&rvmap, op->outputs[j], rs[i]->op->outputs[j]);
    }
    rs[i]->op = op;
  }
  sched_replace_dataflow(s, &vmap, &rvmap);
  arena_free(&scratch);
  Stage *cst = sched_insert_stage(s, cache, sched_stage_index(s, src) + 1);
  cst->scope = sc;
  return cache->outputs[0];
}

/* ---- cache_write ---- */

/* Whether st's loops are still its root axes in order: no split, fuse or reorder yet. */
static bool unscheduled(const Stage *st) {
  int n;
  IterVar **roots = sched_root_ivs(st->sched->arena, st->op, &n);
  if (st->nrel || st->nleaf != n) return false;
  for (int i = 0; i < n; i++)
    if (st->leaf_iter_vars[i] != roots[i]) return false;
  return true;
}

static Stage *writable_stage(Schedule *s, const Tensor *t) {
  Stage *st = t && t->op ? sched_stage(s, t->op) : NULL;
  if (!st)
    sched_fail(s, "cannot cache_write: tensor %s is not in the schedule", t ? t->name : "(none)");
  else if (st->op->kind != OP_COMPUTE)
    sched_fail(s, "cannot cache_write: stage %s is %s", st->op->name,
               st->op->kind == OP_EXTERN ? "an extern op"
               : st->op->kind == OP_SCAN ? "a scan"
                                         : "a placeholder");
  else if (sched_scan_role(s, st->op, &(int){0}, &(int){0}))
    sched_fail(s, "not supported yet: cache_write of stage %s, the init or update of a scan",
               st->op->name);
  else if (!unscheduled(st))
    sched_fail(s,
               "cannot cache_write: stage %s was already split, fused or reordered; call "
               "cache_write before scheduling stage %s",
               st->op->name, st->op->name);
  else
    return st;
  return NULL;
}

/* op's computation over fresh axes `x.c`, under the name `<op>.<scope>`. */
static Operation *moved_op(Arena *a, const Operation *op, const char *scope) {
  int n = op->naxis;
  IterVar **axes = arena_alloc(a, (size_t)(n + 1) * sizeof *axes);
  VarMap *map = arena_alloc(a, (size_t)(n + 1) * sizeof *map);
  for (int i = 0; i < n; i++) {
    IterVar *iv = op->axis[i];
    Var *v = ir_var(a, dotted(a, iv->var->name, "c"), iv->var->dtype);
    axes[i] = ir_itervar(a, v, iv->dom, iv->kind, iv->thread_tag);
    map[i] = (VarMap){iv->var, ir_varref(a, v)};
  }
  Expr **body = arena_alloc(a, (size_t)op->noutputs * sizeof *body);
  for (int i = 0; i < op->noutputs; i++) body[i] = ir_substitute_expr(a, op->body[i], n, map);
  return ir_compute_op(a, dotted(a, op->name, scope), op->tag, n, op->outputs[0]->shape, axes,
                       op->noutputs, body);
}

/* op again over its own axes (so the stage's itervars stay valid), each output read from
 * the cache. */
static Operation *copy_back_op(Arena *a, const Operation *op, const Operation *cache) {
  Expr **idx = arena_alloc(a, (size_t)(op->naxis + 1) * sizeof *idx);
  for (int i = 0; i < op->naxis; i++) idx[i] = ir_varref(a, op->axis[i]->var);
  Expr **body = arena_alloc(a, (size_t)op->noutputs * sizeof *body);
  for (int i = 0; i < op->noutputs; i++) body[i] = ir_pload(a, cache->outputs[i], op->naxis, idx);
  return ir_compute_op(a, op->name, op->tag, op->naxis, op->outputs[0]->shape, op->axis,
                       op->noutputs, body);
}

/* Every output of a multi-output op moves together (TVM's list form of cache_write); the
 * cache tensor of t's output is returned. */
Tensor *sched_cache_write(Schedule *s, Tensor *t, const char *scope) {
  Stage *st = writable_stage(s, t);
  if (!st) return NULL;
  Operation *op = st->op;
  Operation *cache = moved_op(s->arena, op, scope ? scope : "");
  const char *sc = cache_scope(s, cache, "cache_write", scope);
  if (!sc) return NULL;
  sched_replace_stage_op(st, copy_back_op(s->arena, op, cache));
  Stage *cst = sched_insert_stage(s, cache, sched_stage_index(s, st));
  cst->scope = sc;
  return cache->outputs[t->value_index];
}

/* ---- lowering: the original tensors again (TVM's SchedulePostProc replace_buffer) ---- */

typedef struct Restorer {
  IrMutator m;
  PtrMap map; /* a rewritten stage's output -> its origin_op's */
} Restorer;

static Tensor *restored(const Restorer *r, Tensor *t) {
  Tensor *to = ptrmap_get(&r->map, t);
  return to ? to : t;
}

static Expr *restore_expr(IrMutator *m, Expr *e) {
  e = ir_mutate_children_expr(m, e);
  if (e->kind != EXPR_PRODUCER_LOAD) return e;
  Tensor *t = restored((Restorer *)m, e->u.pload.tensor);
  return t == e->u.pload.tensor ? e : ir_pload(m->arena, t, e->u.pload.n, e->u.pload.indices);
}

static Stmt *restore_stmt(IrMutator *m, Stmt *s) {
  Restorer *r = (Restorer *)m;
  s = ir_mutate_children_stmt(m, s);
  Arena *a = m->arena;
  Tensor *t;
  switch (s->kind) {
  case STMT_PROVIDE:
    t = restored(r, s->u.provide.tensor);
    if (t == s->u.provide.tensor) return s;
    return ir_provide(a, t, s->u.provide.value, s->u.provide.n, s->u.provide.indices);
  case STMT_REALIZE:
    t = restored(r, s->u.realize.tensor);
    if (t == s->u.realize.tensor) return s;
    return ir_realize(a, t, s->u.realize.ndim, s->u.realize.bounds, s->u.realize.condition,
                      s->u.realize.scope, s->u.realize.body);
  case STMT_ATTR:
    if (s->u.attr.nkind == ATTR_NODE_BUFFER_BIND) {
      const BufferBind *bb = s->u.attr.node;
      t = restored(r, bb->tensor);
      if (t == bb->tensor) return s;
      BufferBind *nb = arena_alloc(a, sizeof *nb);
      *nb = (BufferBind){bb->buffer, t};
      return ir_attr(a, ATTR_NODE_BUFFER_BIND, nb, s->u.attr.key, s->u.attr.value, s->u.attr.body);
    }
    if (s->u.attr.nkind != ATTR_NODE_TENSOR) return s;
    t = restored(r, s->u.attr.node);
    if (t == s->u.attr.node) return s;
    return ir_attr(a, ATTR_NODE_TENSOR, t, s->u.attr.key, s->u.attr.value, s->u.attr.body);
  case STMT_FOR:
  case STMT_IF:
  case STMT_SEQ:
  case STMT_STORE:
  case STMT_ALLOCATE:
  case STMT_LET:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    return s;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

Stmt *sched_restore_tensors(const Schedule *s, Arena *a, Stmt *body) {
  Restorer r = {{a, restore_expr, restore_stmt}, {0}};
  ptrmap_init(&r.map, a);
  for (int i = 0; i < s->nstages; i++) {
    const Stage *st = s->stages[i];
    for (int j = 0; st->op != st->origin_op && j < st->op->noutputs; j++)
      if (j < st->origin_op->noutputs)
        ptrmap_put(&r.map, st->op->outputs[j], st->origin_op->outputs[j]);
  }
  return r.map.n ? ir_mutate_stmt(&r.m, body) : body;
}
