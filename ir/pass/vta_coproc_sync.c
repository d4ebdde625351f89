/* vta_coproc_sync: the synchronisation of VTA's queues (TVM's vta.InjectCoProcSync: its
 *   pragmas, then tir.CoProcSync).
 *   The pragmas: a statement under `pragma_coproc_sync` is followed by
 *   `@tir.vta.coproc_sync()`; a loop under `pragma_trim_loop` keeps 2 iterations.
 *   The dependences: each `coproc_scope` attr of the vta axis is a task of queue Q (its value).
 *   Walking the program in order, a task of queue B after a task of queue A (A != B) waits for
 *   it: `@tir.vta.coproc_dep_push(A, B)` ends the first, `@tir.vta.coproc_dep_pop(A, B)` starts
 *   the second. A loop is a task entered by its first task's queue and left by its last's; its
 *   next iteration depends on the previous one the same way, and a push that a loop leaves
 *   pending at its exit (or a pop at its entry) is balanced where the loop meets its
 *   neighbours: a pop after it when the next task is of the same queue, a push before the
 *   program's first task for the pop its first iteration would wait for, a pop after the
 *   program's last. Both branches of an if are balanced on their own. Then the end of the
 *   program waits for VTA to finish: `@tir.vta.coproc_sync()` after the body.
 * Assumes: flat IR; the coproc_scope attrs lifted and merged (tir.LiftAttrScope).
 * Guarantees: as above; a program without coproc_scope is returned as it is. Errors: more
 *   than one coprocessor axis; a buffer that both the CPU and VTA touch, VTA's DMA included
 *   ("not supported yet": tes does not plan the CPU's waits for VTA's accesses).
 * Why here: after the scopes are merged and before the virtual threads are injected, so that
 *   each virtual thread's copy of a task carries its own push and pop, as TVM's order has it. */
#include <stdint.h>
#include <stdio.h>

#include "ir/pass/vta.h"
#include "ir/ptrmap.h"
#include "ir/support.h"

#define PASS "vta.InjectCoProcSync"

/* ---- the pragmas ---- */

static Stmt *pragma_stmt(IrMutator *m, Stmt *s) {
  Arena *a = m->arena;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (vta_is_pragma(r, "coproc_sync")) {
    Expr *sync = ir_call(a, DT_I32, "tir.vta.coproc_sync", CALL_EFFECT, 0, NULL);
    Stmt *items[2] = {r->u.attr.body, ir_evaluate(a, sync)};
    return ir_seq(a, 2, items);
  }
  if (vta_is_pragma(r, "trim_loop") && r->u.attr.body->kind == STMT_FOR) {
    const Stmt *f = r->u.attr.body;
    return ir_for(a, f->u.for_.var, f->u.for_.min, ir_i32(a, 2), f->u.for_.fkind,
                  f->u.for_.thread_tag, f->u.for_.body);
  }
  return r;
}

/* ---- which buffers the CPU and VTA both touch, and the coprocessor axes ---- */

typedef struct Touch {
  IrVisitor v;
  PtrMap seen; /* buffer var -> 1 CPU, 2 VTA, 3 both */
  int in_scope;
  const IterVar *axes[4];
  int naxes;
  const Var *both;
} Touch;

static void touch_buf(Touch *t, const Var *buf) {
  void **slot = ptrmap_slot(&t->seen, buf);
  intptr_t bits = (intptr_t)*slot | (t->in_scope ? 2 : 1);
  *slot = (void *)bits;
  if (bits == 3 && !t->both) t->both = buf;
}

static void touch_expr(IrVisitor *v, const Expr *e) {
  Touch *t = (Touch *)v;
  if (e->kind == EXPR_LOAD) touch_buf(t, e->u.load.buf->data);
  if (vta_is_call(e, "tir.tvm_access_ptr") && e->u.call.n == 5 &&
      e->u.call.args[1]->kind == EXPR_VAR)
    touch_buf(t, e->u.call.args[1]->u.var);
  /* the DRAM side of VTA's DMA, which TVM does not count (a CPU access to it would race) */
  int dram = vta_is_call(e, "VTALoadBuffer2D") ? 1 : vta_is_call(e, "VTAStoreBuffer2D") ? 3 : -1;
  if (dram >= 0 && e->u.call.n > dram && e->u.call.args[dram]->kind == EXPR_VAR)
    touch_buf(t, e->u.call.args[dram]->u.var);
  ir_visit_children_expr(v, e);
}

static void touch_stmt(IrVisitor *v, const Stmt *s) {
  Touch *t = (Touch *)v;
  if (s->kind == STMT_STORE) touch_buf(t, s->u.store.buf->data);
  bool scope = s->kind == STMT_ATTR && strcmp(s->u.attr.key, "coproc_scope") == 0 &&
               s->u.attr.nkind == ATTR_NODE_ITERVAR && !t->in_scope;
  if (scope) {
    bool known = false;
    for (int i = 0; i < t->naxes; i++) known |= t->axes[i] == s->u.attr.node;
    if (!known && t->naxes < 4) t->axes[t->naxes++] = s->u.attr.node;
    t->in_scope++;
  }
  ir_visit_children_stmt(v, s);
  if (scope) t->in_scope--;
}

/* ---- the dependences (TVM's CoProcInstDepDetector) ---- */

typedef struct Dep {
  int from, to;
} Dep;

enum { MAX_DEPS = 64 };

typedef struct DepList {
  int n;
  Dep v[MAX_DEPS];
} DepList;

typedef struct SyncState {
  const Stmt *node;            /* NULL: no task */
  uint64_t enter_ctx, exit_ctx; /* the queues that may start / end it, as bits */
  DepList enter_pop, exit_push; /* the pops it does on entry, the pushes on exit */
} SyncState;

typedef struct StmtList {
  int n, cap;
  Stmt **v;
} StmtList;

typedef struct Detector {
  IrVisitor v;
  PassCtx *ctx;
  const IterVar *axis;
  const char *push_op, *pop_op;
  SyncState first, last, curr;
  PtrMap before, after; /* Stmt -> StmtList: what goes before / after it */
} Detector;

static bool has_dep(const DepList *l, Dep d) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i].from == d.from && l->v[i].to == d.to) return true;
  return false;
}

static void add_dep(Detector *dt, DepList *l, Dep d) {
  if (l->n == MAX_DEPS) {
    vta_fail(dt->ctx, PASS, "more than %d pending dependences between VTA's queues", MAX_DEPS);
    return;
  }
  l->v[l->n++] = d;
}

static Stmt *dep_call(Detector *dt, const char *op, Dep d) {
  Arena *a = dt->ctx->arena;
  Expr *args[2] = {ir_i32(a, d.from), ir_i32(a, d.to)};
  return ir_evaluate(a, ir_call(a, DT_I32, op, CALL_EFFECT, 2, args));
}

static void emit(Detector *dt, PtrMap *where, const Stmt *at, Stmt *s) {
  void **slot = ptrmap_slot(where, at);
  StmtList *l = *slot;
  if (!l) *slot = l = arena_alloc(dt->ctx->arena, sizeof *l);
  VEC_GROW(dt->ctx->arena, l->v, l->cap, l->n + 1);
  l->v[l->n++] = s;
}

static Stmt *push(Detector *dt, Dep d) { return dep_call(dt, dt->push_op, d); }
static Stmt *pop(Detector *dt, Dep d) { return dep_call(dt, dt->pop_op, d); }

static int only_ctx(uint64_t bits) { return __builtin_ctzll(bits); }
static bool one_ctx(uint64_t bits) { return bits && !(bits & (bits - 1)); }

/* prev runs before next: the pushes after prev and pops before next they need; what stays
 * pending goes to *prev_exit_push and *next_enter_pop. */
static void inject_sync(Detector *dt, const SyncState *prev, const SyncState *next,
                        DepList *prev_exit_push, DepList *next_enter_pop) {
  prev_exit_push->n = next_enter_pop->n = 0;
  if (prev->exit_push.n == 0 && next->enter_pop.n == 0 && one_ctx(prev->exit_ctx) &&
      one_ctx(next->enter_ctx)) {
    Dep d = {only_ctx(prev->exit_ctx), only_ctx(next->enter_ctx)};
    if (d.from != d.to) {
      emit(dt, &dt->after, prev->node, push(dt, d));
      emit(dt, &dt->before, next->node, pop(dt, d));
      add_dep(dt, prev_exit_push, d);
      add_dep(dt, next_enter_pop, d);
    }
    return;
  }
  DepList vpush = prev->exit_push, vpop = next->enter_pop;
  StmtList prev_after = {0}, next_before = {0};
  Arena *a = dt->ctx->arena;
  for (int from = 0; from < 64; from++) {
    if (!(prev->exit_ctx >> from & 1)) continue;
    for (int to = 0; to < 64; to++) {
      if (!(next->enter_ctx >> to & 1) || from == to) continue;
      Dep p = {from, to};
      if (!has_dep(&prev->exit_push, p)) {
        add_dep(dt, &vpush, p);
        VEC_GROW(a, prev_after.v, prev_after.cap, prev_after.n + 1);
        prev_after.v[prev_after.n++] = push(dt, p);
      }
      if (!has_dep(&next->enter_pop, p)) {
        add_dep(dt, &vpop, p);
        VEC_GROW(a, next_before.v, next_before.cap, next_before.n + 1);
        next_before.v[next_before.n++] = pop(dt, p);
      }
    }
  }
  for (int i = 0; i < vpush.n; i++) {
    if (!has_dep(&vpop, vpush.v[i])) {
      VEC_GROW(a, prev_after.v, prev_after.cap, prev_after.n + 1);
      prev_after.v[prev_after.n++] = pop(dt, vpush.v[i]);
    } else {
      add_dep(dt, prev_exit_push, vpush.v[i]);
    }
  }
  for (int i = 0; i < vpop.n; i++) {
    if (!has_dep(&vpush, vpop.v[i])) {
      VEC_GROW(a, next_before.v, next_before.cap, next_before.n + 1);
      next_before.v[next_before.n++] = push(dt, vpop.v[i]);
    } else {
      add_dep(dt, next_enter_pop, vpop.v[i]);
    }
  }
  for (int i = 0; i < prev_after.n; i++) emit(dt, &dt->after, prev->node, prev_after.v[i]);
  for (int i = 0; i < next_before.n; i++) emit(dt, &dt->before, next->node, next_before.v[i]);
}

static void match_enter_pop(Detector *dt, const SyncState *s) {
  for (int i = 0; i < s->enter_pop.n; i++)
    emit(dt, &dt->before, s->node, push(dt, s->enter_pop.v[i]));
}

static void match_exit_push(Detector *dt, const SyncState *s) {
  for (int i = 0; i < s->exit_push.n; i++)
    emit(dt, &dt->after, s->node, pop(dt, s->exit_push.v[i]));
}

static void clear_state(SyncState *s) { *s = (SyncState){0}; }

static void update_state(Detector *dt) {
  if (dt->last.node) {
    DepList t1, t2;
    inject_sync(dt, &dt->last, &dt->curr, &t1, &t2);
    dt->last = dt->curr;
  } else {
    dt->first = dt->last = dt->curr;
  }
}

static void detect_stmt(IrVisitor *v, const Stmt *s);

static void detect_for(Detector *dt, const Stmt *s) {
  SyncState first = dt->first, last = dt->last;
  clear_state(&dt->first), clear_state(&dt->last);
  ir_visit_stmt(&dt->v, s->u.for_.body);
  clear_state(&dt->curr);
  if (dt->last.node) {
    dt->curr.node = s;
    /* the next iteration after this one */
    inject_sync(dt, &dt->last, &dt->first, &dt->curr.exit_push, &dt->curr.enter_pop);
    dt->curr.enter_ctx = dt->first.enter_ctx;
    dt->curr.exit_ctx = dt->last.exit_ctx;
  }
  dt->first = first, dt->last = last;
  if (dt->curr.node) update_state(dt);
}

/* one branch of an if, balanced on its own, into *curr */
static void detect_branch(Detector *dt, const Stmt *if_, const Stmt *branch, SyncState *curr) {
  ir_visit_stmt(&dt->v, branch);
  if (dt->last.node) {
    curr->node = if_;
    match_enter_pop(dt, &dt->first);
    match_exit_push(dt, &dt->last);
    curr->enter_ctx |= dt->first.enter_ctx;
    curr->exit_ctx |= dt->last.exit_ctx;
  }
  clear_state(&dt->first), clear_state(&dt->last);
}

static void detect_if(Detector *dt, const Stmt *s) {
  SyncState first = dt->first, last = dt->last, curr = {0};
  clear_state(&dt->first), clear_state(&dt->last);
  detect_branch(dt, s, s->u.if_.then, &curr);
  if (s->u.if_.orelse) detect_branch(dt, s, s->u.if_.orelse, &curr);
  dt->first = first, dt->last = last, dt->curr = curr;
  if (dt->curr.node) update_state(dt);
}

static void detect_stmt(IrVisitor *v, const Stmt *s) {
  Detector *dt = (Detector *)v;
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "coproc_scope") == 0 &&
      s->u.attr.node == dt->axis) {
    int64_t q;
    if (!ir_as_int(s->u.attr.value, &q) || q < 0 || q >= 64) {
      vta_fail(dt->ctx, PASS, "a coproc_scope whose queue is not a constant from 0 to 63");
      return;
    }
    clear_state(&dt->curr);
    dt->curr.node = s->u.attr.body;
    dt->curr.enter_ctx = dt->curr.exit_ctx = (uint64_t)1 << q;
    update_state(dt);
  } else if (s->kind == STMT_FOR) {
    detect_for(dt, s);
  } else if (s->kind == STMT_IF) {
    detect_if(dt, s);
  } else {
    ir_visit_children_stmt(v, s);
  }
}

static void skip_expr(IrVisitor *v, const Expr *e) { (void)v, (void)e; }

/* ---- putting them in ---- */

typedef struct Inserter {
  IrMutator m;
  const PtrMap *before, *after;
} Inserter;

static Stmt *insert_stmt(IrMutator *m, Stmt *s) {
  Inserter *in = (Inserter *)m;
  const StmtList *b = ptrmap_get(in->before, s), *af = ptrmap_get(in->after, s);
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (!b && !af) return r;
  int n = (b ? b->n : 0) + 1 + (af ? af->n : 0), k = 0;
  Stmt **items = arena_alloc(m->arena, (size_t)n * sizeof *items);
  for (int i = 0; b && i < b->n; i++) items[k++] = b->v[i];
  items[k++] = r;
  for (int i = 0; af && i < af->n; i++) items[k++] = af->v[i];
  return ir_seq(m->arena, n, items);
}

Stmt *pass_vta_inject_coproc_sync(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  Arena *a = ctx->arena;
  IrMutator pm = {.arena = a, .stmt = pragma_stmt};
  s = ir_mutate_stmt(&pm, s);
  Touch t = {.v = {touch_expr, touch_stmt}};
  ptrmap_init(&t.seen, a);
  ir_visit_stmt(&t.v, s);
  if (t.naxes == 0) return s;
  if (t.naxes > 1)
    return vta_fail(ctx, PASS, "coproc_scope attrs of %d different coprocessor axes (VTA has "
                               "one, env.dev.vta_axis)", t.naxes), s;
  if (t.both)
    return vta_fail(ctx, PASS, "not supported yet: buffer %s is touched both by the CPU and by "
                               "VTA (tes does not plan the barriers between them)",
                    t.both->name), s;
  const char *name = t.axes[0]->var->name;
  Detector dt = {.v = {skip_expr, detect_stmt}, .ctx = ctx, .axis = t.axes[0]};
  char push_op[128], pop_op[128], sync_op[128];
  snprintf(push_op, sizeof push_op, "tir.%s.coproc_dep_push", name);
  snprintf(pop_op, sizeof pop_op, "tir.%s.coproc_dep_pop", name);
  snprintf(sync_op, sizeof sync_op, "tir.%s.coproc_sync", name);
  dt.push_op = push_op, dt.pop_op = pop_op;
  ptrmap_init(&dt.before, a);
  ptrmap_init(&dt.after, a);
  ir_visit_stmt(&dt.v, s);
  if (dt.last.node) {
    match_enter_pop(&dt, &dt.first);
    match_exit_push(&dt, &dt.last);
  }
  if (diag_failed(ctx->diag)) return s;
  Inserter in = {.m = {.arena = a, .stmt = insert_stmt}, .before = &dt.before, .after = &dt.after};
  Stmt *r = ir_mutate_stmt(&in.m, s);
  /* nothing the CPU reads is written by VTA: one wait for VTA at the end */
  Expr *sync = ir_call(a, DT_I32, sync_op, CALL_EFFECT, 0, NULL);
  Stmt *items[2] = {r, ir_evaluate(a, sync)};
  return ir_seq(a, 2, items);
}
