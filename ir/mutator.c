/* mutator.c: the one mutator and visitor of the loop IR, and variable substitution on top.
 * A node is rebuilt (through its constructor, which checks dtypes again) only when one of its
 * children came back as a different pointer; otherwise the node itself is returned, so that
 * unchanged subtrees are shared and "did a pass change anything?" is a pointer compare.
 * Constructors copy the arrays they are given; where a rebuilt node's array did not change,
 * the mutator points the new node (not yet seen by anyone) back at the original array, which
 * is already in an arena and immutable, so arrays are copied only when an element changed. */
#include "ir/expr.h"

#include <string.h>

#include "ir/support.h"

Expr *ir_mutate_expr(IrMutator *m, Expr *e) {
  if (!e) return NULL;
  return m->expr ? m->expr(m, e) : ir_mutate_children_expr(m, e);
}

Stmt *ir_mutate_stmt(IrMutator *m, Stmt *s) {
  if (!s) return NULL;
  return m->stmt ? m->stmt(m, s) : ir_mutate_children_stmt(m, s);
}

/* Mutates n expressions; returns the array itself when none changed, else a copy in the arena. */
static Expr **mutate_exprs(IrMutator *m, int n, Expr **xs) {
  Expr **out = xs;
  for (int i = 0; i < n; i++) {
    Expr *x = ir_mutate_expr(m, xs[i]);
    if (x == xs[i]) continue;
    if (out == xs) {
      out = arena_alloc(m->arena, (size_t)n * sizeof *out);
      memcpy(out, xs, (size_t)n * sizeof *out);
    }
    out[i] = x;
  }
  return out;
}

static Range *mutate_ranges(IrMutator *m, int n, Range *rs) {
  Range *out = rs;
  for (int i = 0; i < n; i++) {
    Range r = {ir_mutate_expr(m, rs[i].min), ir_mutate_expr(m, rs[i].extent)};
    if (r.min == rs[i].min && r.extent == rs[i].extent) continue;
    if (out == rs) {
      out = arena_alloc(m->arena, (size_t)n * sizeof *out);
      memcpy(out, rs, (size_t)n * sizeof *out);
    }
    out[i] = r;
  }
  return out;
}

/* A reduce axis whose domain changed becomes a new IterVar over the same Var. */
static IterVar **mutate_axes(IrMutator *m, int n, IterVar **axes) {
  IterVar **out = axes;
  for (int i = 0; i < n; i++) {
    IterVar *iv = axes[i];
    Range r = {ir_mutate_expr(m, iv->dom.min), ir_mutate_expr(m, iv->dom.extent)};
    if (r.min == iv->dom.min && r.extent == iv->dom.extent) continue;
    if (out == axes) {
      out = arena_alloc(m->arena, (size_t)n * sizeof *out);
      memcpy(out, axes, (size_t)n * sizeof *out);
    }
    out[i] = ir_itervar(m->arena, iv->var, r, iv->kind, iv->thread_tag);
  }
  return out;
}

static Expr *mutate_binary(IrMutator *m, Expr *e) {
  Expr *a = ir_mutate_expr(m, e->u.bin.a), *b = ir_mutate_expr(m, e->u.bin.b);
  if (a == e->u.bin.a && b == e->u.bin.b) return e;
  return ir_binary(m->arena, e->kind, a, b);
}

static Expr *mutate_select(IrMutator *m, Expr *e) {
  Expr *c = ir_mutate_expr(m, e->u.select.cond);
  Expr *t = ir_mutate_expr(m, e->u.select.t), *f = ir_mutate_expr(m, e->u.select.f);
  if (c == e->u.select.cond && t == e->u.select.t && f == e->u.select.f) return e;
  return ir_select(m->arena, c, t, f);
}

static Expr *mutate_ramp(IrMutator *m, Expr *e) {
  Expr *base = ir_mutate_expr(m, e->u.ramp.base), *stride = ir_mutate_expr(m, e->u.ramp.stride);
  if (base == e->u.ramp.base && stride == e->u.ramp.stride) return e;
  return ir_ramp(m->arena, base, stride, e->u.ramp.lanes);
}

static Expr *mutate_let(IrMutator *m, Expr *e) {
  Expr *value = ir_mutate_expr(m, e->u.let.value), *body = ir_mutate_expr(m, e->u.let.body);
  if (value == e->u.let.value && body == e->u.let.body) return e;
  return ir_let(m->arena, e->u.let.var, value, body);
}

static Expr *mutate_call(IrMutator *m, Expr *e) {
  Expr **args = mutate_exprs(m, e->u.call.n, e->u.call.args);
  if (args == e->u.call.args) return e;
  return ir_call(m->arena, e->dtype, e->u.call.op, e->u.call.ckind, e->u.call.n, args);
}

static Expr *mutate_load(IrMutator *m, Expr *e) {
  Expr *index = ir_mutate_expr(m, e->u.load.index);
  Expr *pred = ir_mutate_expr(m, e->u.load.predicate);
  if (index == e->u.load.index && pred == e->u.load.predicate) return e;
  return ir_load(m->arena, e->u.load.buf, index, pred);
}

static Expr *mutate_pload(IrMutator *m, Expr *e) {
  Expr **idx = mutate_exprs(m, e->u.pload.n, e->u.pload.indices);
  if (idx == e->u.pload.indices) return e;
  return ir_pload(m->arena, e->u.pload.tensor, e->u.pload.n, idx);
}

static Expr *mutate_reduce(IrMutator *m, Expr *e) {
  Expr **src = mutate_exprs(m, e->u.reduce.nsrc, e->u.reduce.source);
  IterVar **axis = mutate_axes(m, e->u.reduce.naxis, e->u.reduce.axis);
  Expr *cond = ir_mutate_expr(m, e->u.reduce.condition);
  if (src == e->u.reduce.source && axis == e->u.reduce.axis && cond == e->u.reduce.condition)
    return e;
  Expr *r = ir_reduce(m->arena, e->u.reduce.combiner, e->u.reduce.nsrc, src, e->u.reduce.naxis,
                      axis, cond, e->u.reduce.value_index);
  r->u.reduce.source = src;
  r->u.reduce.axis = axis;
  return r;
}

Expr *ir_mutate_children_expr(IrMutator *m, Expr *e) {
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STR:
  case EXPR_VAR:
    return e;
  case EXPR_CAST: {
    Expr *a = ir_mutate_expr(m, e->u.unary.a);
    return a == e->u.unary.a ? e : ir_cast(m->arena, e->dtype, a);
  }
  case EXPR_NOT: {
    Expr *a = ir_mutate_expr(m, e->u.unary.a);
    return a == e->u.unary.a ? e : ir_not(m->arena, a);
  }
  IR_CASE_BINARY:
    return mutate_binary(m, e);
  case EXPR_SELECT:
    return mutate_select(m, e);
  case EXPR_RAMP:
    return mutate_ramp(m, e);
  case EXPR_BROADCAST: {
    Expr *v = ir_mutate_expr(m, e->u.bcast.value);
    return v == e->u.bcast.value ? e : ir_broadcast(m->arena, v, e->u.bcast.lanes);
  }
  case EXPR_LET:
    return mutate_let(m, e);
  case EXPR_CALL:
    return mutate_call(m, e);
  case EXPR_LOAD:
    return mutate_load(m, e);
  case EXPR_PRODUCER_LOAD:
    return mutate_pload(m, e);
  case EXPR_REDUCE:
    return mutate_reduce(m, e);
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- statements ---- */

static Stmt *mutate_for(IrMutator *m, Stmt *s) {
  Expr *min = ir_mutate_expr(m, s->u.for_.min), *extent = ir_mutate_expr(m, s->u.for_.extent);
  Stmt *body = ir_mutate_stmt(m, s->u.for_.body);
  if (min == s->u.for_.min && extent == s->u.for_.extent && body == s->u.for_.body) return s;
  return ir_for(m->arena, s->u.for_.var, min, extent, s->u.for_.fkind, s->u.for_.thread_tag, body);
}

static Stmt *mutate_if(IrMutator *m, Stmt *s) {
  Expr *cond = ir_mutate_expr(m, s->u.if_.cond);
  Stmt *then = ir_mutate_stmt(m, s->u.if_.then), *orelse = ir_mutate_stmt(m, s->u.if_.orelse);
  if (cond == s->u.if_.cond && then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
  return ir_if(m->arena, cond, then, orelse);
}

/* Items may come back as SEQs (flattened by ir_seq) or NULL (dropped). */
static Stmt *mutate_seq(IrMutator *m, Stmt *s) {
  int n = s->u.seq.n;
  Stmt **items = s->u.seq.items;
  for (int i = 0; i < n; i++) {
    Stmt *x = ir_mutate_stmt(m, s->u.seq.items[i]);
    if (x == s->u.seq.items[i]) continue;
    if (items == s->u.seq.items) {
      items = arena_alloc(m->arena, (size_t)n * sizeof *items);
      memcpy(items, s->u.seq.items, (size_t)n * sizeof *items);
    }
    items[i] = x;
  }
  return items == s->u.seq.items ? s : ir_seq(m->arena, n, items);
}

static Stmt *mutate_store(IrMutator *m, Stmt *s) {
  Expr *value = ir_mutate_expr(m, s->u.store.value), *index = ir_mutate_expr(m, s->u.store.index);
  Expr *pred = ir_mutate_expr(m, s->u.store.predicate);
  if (value == s->u.store.value && index == s->u.store.index && pred == s->u.store.predicate)
    return s;
  return ir_store(m->arena, s->u.store.buf, value, index, pred);
}

static Stmt *mutate_provide(IrMutator *m, Stmt *s) {
  Expr *value = ir_mutate_expr(m, s->u.provide.value);
  Expr **idx = mutate_exprs(m, s->u.provide.n, s->u.provide.indices);
  if (value == s->u.provide.value && idx == s->u.provide.indices) return s;
  Stmt *r = ir_provide(m->arena, s->u.provide.tensor, value, s->u.provide.n, idx);
  r->u.provide.indices = idx;
  return r;
}

static Stmt *mutate_realize(IrMutator *m, Stmt *s) {
  Range *bounds = mutate_ranges(m, s->u.realize.ndim, s->u.realize.bounds);
  Expr *cond = ir_mutate_expr(m, s->u.realize.condition);
  Stmt *body = ir_mutate_stmt(m, s->u.realize.body);
  if (bounds == s->u.realize.bounds && cond == s->u.realize.condition && body == s->u.realize.body)
    return s;
  Stmt *r = ir_realize(m->arena, s->u.realize.tensor, s->u.realize.ndim, bounds, cond,
                       s->u.realize.scope, body);
  r->u.realize.bounds = bounds;
  return r;
}

static Stmt *mutate_allocate(IrMutator *m, Stmt *s) {
  Expr **ext = mutate_exprs(m, s->u.alloc.ndim, s->u.alloc.extents);
  Expr *cond = ir_mutate_expr(m, s->u.alloc.condition);
  Stmt *body = ir_mutate_stmt(m, s->u.alloc.body);
  if (ext == s->u.alloc.extents && cond == s->u.alloc.condition && body == s->u.alloc.body)
    return s;
  Stmt *r = ir_allocate(m->arena, s->u.alloc.buffer_var, s->u.alloc.dtype, s->u.alloc.ndim, ext,
                        s->u.alloc.scope, cond, body);
  r->u.alloc.extents = ext;
  return r;
}

static Stmt *mutate_attr(IrMutator *m, Stmt *s) {
  Expr *value = ir_mutate_expr(m, s->u.attr.value);
  Stmt *body = ir_mutate_stmt(m, s->u.attr.body);
  if (value == s->u.attr.value && body == s->u.attr.body) return s;
  return ir_attr(m->arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, value, body);
}

static Stmt *mutate_let_stmt(IrMutator *m, Stmt *s) {
  Expr *value = ir_mutate_expr(m, s->u.let.value);
  Stmt *body = ir_mutate_stmt(m, s->u.let.body);
  if (value == s->u.let.value && body == s->u.let.body) return s;
  return ir_let_stmt(m->arena, s->u.let.var, value, body);
}

static Stmt *mutate_assert(IrMutator *m, Stmt *s) {
  Expr *cond = ir_mutate_expr(m, s->u.assert_.cond), *msg = ir_mutate_expr(m, s->u.assert_.msg);
  Stmt *body = ir_mutate_stmt(m, s->u.assert_.body);
  if (cond == s->u.assert_.cond && msg == s->u.assert_.msg && body == s->u.assert_.body) return s;
  return ir_assert(m->arena, cond, msg, body);
}

Stmt *ir_mutate_children_stmt(IrMutator *m, Stmt *s) {
  switch (s->kind) {
  case STMT_FOR:
    return mutate_for(m, s);
  case STMT_IF:
    return mutate_if(m, s);
  case STMT_SEQ:
    return mutate_seq(m, s);
  case STMT_STORE:
    return mutate_store(m, s);
  case STMT_PROVIDE:
    return mutate_provide(m, s);
  case STMT_REALIZE:
    return mutate_realize(m, s);
  case STMT_ALLOCATE:
    return mutate_allocate(m, s);
  case STMT_ATTR:
    return mutate_attr(m, s);
  case STMT_LET:
    return mutate_let_stmt(m, s);
  case STMT_ASSERT:
    return mutate_assert(m, s);
  case STMT_EVALUATE: {
    Expr *v = ir_mutate_expr(m, s->u.eval.value);
    return v == s->u.eval.value ? s : ir_evaluate(m->arena, v);
  }
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- the read-only visitor ---- */

void ir_visit_expr(IrVisitor *v, const Expr *e) {
  if (!e) return;
  if (v->expr)
    v->expr(v, e);
  else
    ir_visit_children_expr(v, e);
}

void ir_visit_stmt(IrVisitor *v, const Stmt *s) {
  if (!s) return;
  if (v->stmt)
    v->stmt(v, s);
  else
    ir_visit_children_stmt(v, s);
}

static void visit_all(IrVisitor *v, int n, Expr *const *xs) {
  for (int i = 0; i < n; i++) ir_visit_expr(v, xs[i]);
}

static void visit_reduce(IrVisitor *v, const Expr *e) {
  visit_all(v, e->u.reduce.nsrc, e->u.reduce.source);
  for (int i = 0; i < e->u.reduce.naxis; i++) {
    ir_visit_expr(v, e->u.reduce.axis[i]->dom.min);
    ir_visit_expr(v, e->u.reduce.axis[i]->dom.extent);
  }
  ir_visit_expr(v, e->u.reduce.condition);
}

void ir_visit_children_expr(IrVisitor *v, const Expr *e) {
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STR:
  case EXPR_VAR:
    return;
  case EXPR_CAST:
  case EXPR_NOT:
    ir_visit_expr(v, e->u.unary.a);
    return;
  IR_CASE_BINARY:
    ir_visit_expr(v, e->u.bin.a);
    ir_visit_expr(v, e->u.bin.b);
    return;
  case EXPR_SELECT:
    ir_visit_expr(v, e->u.select.cond);
    ir_visit_expr(v, e->u.select.t);
    ir_visit_expr(v, e->u.select.f);
    return;
  case EXPR_RAMP:
    ir_visit_expr(v, e->u.ramp.base);
    ir_visit_expr(v, e->u.ramp.stride);
    return;
  case EXPR_BROADCAST:
    ir_visit_expr(v, e->u.bcast.value);
    return;
  case EXPR_LET:
    ir_visit_expr(v, e->u.let.value);
    ir_visit_expr(v, e->u.let.body);
    return;
  case EXPR_CALL:
    visit_all(v, e->u.call.n, e->u.call.args);
    return;
  case EXPR_LOAD:
    ir_visit_expr(v, e->u.load.index);
    ir_visit_expr(v, e->u.load.predicate);
    return;
  case EXPR_PRODUCER_LOAD:
    visit_all(v, e->u.pload.n, e->u.pload.indices);
    return;
  case EXPR_REDUCE:
    visit_reduce(v, e);
    return;
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static void visit_realize(IrVisitor *v, const Stmt *s) {
  for (int i = 0; i < s->u.realize.ndim; i++) {
    ir_visit_expr(v, s->u.realize.bounds[i].min);
    ir_visit_expr(v, s->u.realize.bounds[i].extent);
  }
  ir_visit_expr(v, s->u.realize.condition);
  ir_visit_stmt(v, s->u.realize.body);
}

void ir_visit_children_stmt(IrVisitor *v, const Stmt *s) {
  switch (s->kind) {
  case STMT_FOR:
    ir_visit_expr(v, s->u.for_.min);
    ir_visit_expr(v, s->u.for_.extent);
    ir_visit_stmt(v, s->u.for_.body);
    return;
  case STMT_IF:
    ir_visit_expr(v, s->u.if_.cond);
    ir_visit_stmt(v, s->u.if_.then);
    ir_visit_stmt(v, s->u.if_.orelse);
    return;
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) ir_visit_stmt(v, s->u.seq.items[i]);
    return;
  case STMT_STORE:
    ir_visit_expr(v, s->u.store.value);
    ir_visit_expr(v, s->u.store.index);
    ir_visit_expr(v, s->u.store.predicate);
    return;
  case STMT_PROVIDE:
    ir_visit_expr(v, s->u.provide.value);
    visit_all(v, s->u.provide.n, s->u.provide.indices);
    return;
  case STMT_REALIZE:
    visit_realize(v, s);
    return;
  case STMT_ALLOCATE:
    visit_all(v, s->u.alloc.ndim, s->u.alloc.extents);
    ir_visit_expr(v, s->u.alloc.condition);
    ir_visit_stmt(v, s->u.alloc.body);
    return;
  case STMT_ATTR:
    ir_visit_expr(v, s->u.attr.value);
    ir_visit_stmt(v, s->u.attr.body);
    return;
  case STMT_LET:
    ir_visit_expr(v, s->u.let.value);
    ir_visit_stmt(v, s->u.let.body);
    return;
  case STMT_ASSERT:
    ir_visit_expr(v, s->u.assert_.cond);
    ir_visit_expr(v, s->u.assert_.msg);
    ir_visit_stmt(v, s->u.assert_.body);
    return;
  case STMT_EVALUATE:
    ir_visit_expr(v, s->u.eval.value);
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- substitution ---- */

typedef struct SubstCtx {
  IrMutator m;
  int n;
  const VarMap *map;
} SubstCtx;

static Expr *subst_expr(IrMutator *m, Expr *e) {
  SubstCtx *cx = (SubstCtx *)m;
  if (e->kind == EXPR_VAR)
    for (int i = 0; i < cx->n; i++)
      if (cx->map[i].from == e->u.var) return cx->map[i].to;
  return ir_mutate_children_expr(m, e);
}

Expr *ir_substitute_expr(Arena *a, Expr *e, int n, const VarMap *map) {
  if (n == 0) return e;
  SubstCtx cx = {{a, subst_expr, NULL}, n, map};
  return ir_mutate_expr(&cx.m, e);
}

Stmt *ir_substitute_stmt(Arena *a, Stmt *s, int n, const VarMap *map) {
  if (n == 0) return s;
  SubstCtx cx = {{a, subst_expr, NULL}, n, map};
  return ir_mutate_stmt(&cx.m, s);
}

/* ---- does any node match ---- */

typedef struct AnyWalk {
  IrVisitor v;
  IrExprPred expr; /* NULL: expressions are not asked (nor walked: they hold no statements) */
  IrStmtPred stmt;
  const void *ctx;
  bool found;
} AnyWalk;

static void any_expr(IrVisitor *v, const Expr *e) {
  AnyWalk *w = (AnyWalk *)v;
  if (w->found) return;
  if (w->expr(e, w->ctx))
    w->found = true;
  else
    ir_visit_children_expr(v, e);
}

static void any_stmt(IrVisitor *v, const Stmt *s) {
  AnyWalk *w = (AnyWalk *)v;
  if (w->found) return;
  if (w->stmt && w->stmt(s, w->ctx))
    w->found = true;
  else
    ir_visit_children_stmt(v, s);
}

static void skip_expr(IrVisitor *v, const Expr *e) { (void)v, (void)e; }

bool ir_expr_any(const Expr *e, IrExprPred expr, const void *ctx) {
  AnyWalk w = {{any_expr, NULL}, expr, NULL, ctx, false};
  ir_visit_expr(&w.v, e);
  return w.found;
}

bool ir_stmt_any(const Stmt *s, IrExprPred expr, IrStmtPred stmt, const void *ctx) {
  AnyWalk w = {{expr ? any_expr : skip_expr, any_stmt}, expr, stmt, ctx, false};
  ir_visit_stmt(&w.v, s);
  return w.found;
}

static bool is_var(const Expr *e, const void *var) {
  return e->kind == EXPR_VAR && e->u.var == var;
}

bool ir_expr_uses_var(const Expr *e, const Var *var) { return ir_expr_any(e, is_var, var); }

bool ir_stmt_uses_var(const Stmt *s, const Var *var) { return ir_stmt_any(s, is_var, NULL, var); }

static bool is_load(const Expr *e, const void *ctx) {
  (void)ctx;
  return e->kind == EXPR_PRODUCER_LOAD || e->kind == EXPR_LOAD;
}

bool ir_expr_reads_memory(const Expr *e) { return ir_expr_any(e, is_load, NULL); }
