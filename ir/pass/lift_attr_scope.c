/* lift_attr_scope: lifts the attrs of one key as far up as they stay the same (TVM's
 *   tir.LiftAttrScope(key), run twice by VTA's lowering: for "coproc_uop_scope", then for
 *   "coproc_scope"; dump names tir.LiftAttrScope.coproc_uop_scope and
 *   tir.LiftAttrScope.coproc_scope).
 * Assumes: nothing; runs on flat IR.
 * Guarantees: an attr of the key is taken off its body and carried up through the statements
 *   around it (loops, lets, other attrs, an if without else) until a sequence whose items do
 *   not all carry the same one (the same node, the same constant value): there each run of
 *   neighbouring items that carry the same attr (or none) is wrapped in it once. An allocation
 *   stops the lift (the attr goes inside it), an if with an else lifts it only when both
 *   branches carry the same one; what reaches the top wraps the whole body. Nested attrs of
 *   the same key under a lifted one are left as they are.
 * Why here: VTA's passes merge the queue scopes of neighbouring DMA copies and micro-op
 *   kernels, so that tir.InjectVirtualThread and vta.InjectCoProcSync see one scope each. */
#include "ir/pass/pass.h"
#include "ir/support.h"

typedef struct Lifter {
  IrMutator m;
  const char *key;
  bool has;   /* an attr is being lifted */
  AttrNodeKind nkind;
  void *node;
  Expr *value;
} Lifter;

static bool value_same(const Expr *a, const Expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind == EXPR_INT) return a->u.ival == b->u.ival && dt_eq(a->dtype, b->dtype);
  if (a->kind == EXPR_STR) return strcmp(a->u.str, b->u.str) == 0;
  return false;
}

typedef struct Carried {
  bool has;
  AttrNodeKind nkind;
  void *node;
  Expr *value;
} Carried;

static bool carried_same(const Carried *x, const Carried *y) {
  if (!x->has || !y->has) return x->has == y->has;
  return x->node == y->node && value_same(x->value, y->value);
}

static Stmt *wrap(Lifter *l, const Carried *c, Stmt *body) {
  return ir_attr(l->m.arena, c->nkind, c->node, l->key, c->value, body);
}

static Carried take(Lifter *l) {
  Carried c = {l->has, l->nkind, l->node, l->value};
  l->has = false;
  return c;
}

static void give(Lifter *l, const Carried *c) {
  l->has = c->has, l->nkind = c->nkind, l->node = c->node, l->value = c->value;
}

static Stmt *lift_seq(Lifter *l, Stmt *s) {
  Arena *a = l->m.arena;
  int n = s->u.seq.n;
  Stmt **items = arena_alloc(a, (size_t)n * sizeof *items);
  Carried *c = arena_alloc(a, (size_t)n * sizeof *c);
  for (int i = 0; i < n; i++) {
    l->has = false;
    items[i] = ir_mutate_stmt(&l->m, s->u.seq.items[i]);
    c[i] = take(l);
  }
  Stmt **groups = arena_alloc(a, (size_t)n * sizeof *groups);
  int ng = 0;
  for (int b = 0; b < n;) {
    int e = b + 1;
    while (e < n && carried_same(&c[e], &c[b])) e++;
    if (b == 0 && e == n) { /* all alike: the attr goes on up */
      give(l, &c[0]);
      return ir_seq(a, n, items);
    }
    Stmt *g = ir_seq(a, e - b, items + b);
    groups[ng++] = c[b].has ? wrap(l, &c[b], g) : g;
    b = e;
  }
  l->has = false;
  return ir_seq(a, ng, groups);
}

static Stmt *lift_if(Lifter *l, Stmt *s) {
  if (!s->u.if_.orelse) return ir_mutate_children_stmt(&l->m, s);
  Stmt *then = ir_mutate_stmt(&l->m, s->u.if_.then);
  Carried first = take(l);
  Stmt *orelse = ir_mutate_stmt(&l->m, s->u.if_.orelse);
  Carried second = take(l);
  if (first.has && second.has && carried_same(&first, &second)) {
    give(l, &first);
  } else {
    if (first.has) then = wrap(l, &first, then);
    if (second.has) orelse = wrap(l, &second, orelse);
  }
  if (then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
  return ir_if(l->m.arena, s->u.if_.cond, then, orelse);
}

static Stmt *lift_stmt(IrMutator *m, Stmt *s) {
  Lifter *l = (Lifter *)m;
  switch (s->kind) {
  case STMT_ATTR:
    if (strcmp(s->u.attr.key, l->key) == 0) {
      l->has = true, l->nkind = s->u.attr.nkind, l->node = s->u.attr.node;
      l->value = s->u.attr.value;
      return s->u.attr.body;
    }
    return ir_mutate_children_stmt(m, s);
  case STMT_ALLOCATE: {
    Stmt *r = ir_mutate_children_stmt(m, s);
    if (!l->has) return r;
    Carried c = take(l);
    return ir_allocate(m->arena, r->u.alloc.buffer_var, r->u.alloc.dtype, r->u.alloc.ndim,
                       r->u.alloc.extents, r->u.alloc.scope, r->u.alloc.condition,
                       wrap(l, &c, r->u.alloc.body));
  }
  case STMT_SEQ:
    return lift_seq(l, s);
  case STMT_IF:
    return lift_if(l, s);
  default:
    return ir_mutate_children_stmt(m, s);
  }
}

static Stmt *lift(Stmt *s, PassCtx *ctx, const char *key) {
  Lifter l = {.m = {.arena = ctx->arena, .stmt = lift_stmt}, .key = key};
  Stmt *r = ir_mutate_stmt(&l.m, s);
  if (l.has) {
    Carried c = take(&l);
    r = wrap(&l, &c, r);
  }
  return r;
}

Stmt *pass_lift_attr_scope_uop(Stmt *s, PassCtx *ctx) { return lift(s, ctx, "coproc_uop_scope"); }

Stmt *pass_lift_attr_scope_coproc(Stmt *s, PassCtx *ctx) { return lift(s, ctx, "coproc_scope"); }
