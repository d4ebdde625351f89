/* hoist_if_then_else: moves an `if` out of the loops its condition does not depend on.
 * Assumes: conditions are pure; the split guards of schedule_ops sit innermost, under every
 *   loop of their stage.
 * Guarantees: a loop whose whole body is an `if` on a condition that reads variables, none of
 *   them the loop's own, none bound by an enclosing attr (a thread index), and reads no memory,
 *   becomes that `if` around the loop (one copy of the loop per branch), repeatedly, so the
 *   guard lands just inside the innermost loop it depends on; as in TVM, a statement sequence
 *   stops it. Anything else is returned as it is.
 * Why here: last, after the simplifier has settled the conditions, as in TVM 0.8-0.10's
 *   pipeline; it puts `likely(i < m)` of a tile above the inner loop, as those versions
 *   printed it. */
#include <stdlib.h>

#include "ir/pass/pass.h"
#include "ir/support.h"

typedef struct Hoist {
  IrMutator m;
  int n, cap;
  const Var **attr_vars; /* variables of the attrs around the current node */
} Hoist;

typedef struct CondScan {
  IrVisitor v;
  const Hoist *h;
  const Var *loop_var;
  int nvars;
  bool blocked; /* reads the loop variable, an attr variable or memory */
} CondScan;

static void scan_cond(IrVisitor *v, const Expr *e) {
  CondScan *cs = (CondScan *)v;
  if (e->kind == EXPR_LOAD || e->kind == EXPR_PRODUCER_LOAD ||
      (e->kind == EXPR_CALL && e->u.call.ckind != CALL_PURE))
    cs->blocked = true;
  if (e->kind == EXPR_VAR) {
    cs->nvars++;
    if (e->u.var == cs->loop_var) cs->blocked = true;
    for (int i = 0; i < cs->h->n; i++)
      if (cs->h->attr_vars[i] == e->u.var) cs->blocked = true;
  }
  ir_visit_children_expr(v, e);
}

/* TVM leaves a condition without variables where it is. */
static bool hoistable(const Hoist *h, const Expr *cond, const Var *loop_var) {
  CondScan cs = {{scan_cond, NULL}, h, loop_var, 0, false};
  ir_visit_expr(&cs.v, cond);
  return cs.nvars > 0 && !cs.blocked;
}

static Stmt *with_body(Arena *a, const Stmt *loop, Stmt *body) {
  return ir_for(a, loop->u.for_.var, loop->u.for_.min, loop->u.for_.extent, loop->u.for_.fkind,
                loop->u.for_.thread_tag, body);
}

/* loop, whose body is already done, with its body's `if` moved out when it can be. */
static Stmt *hoist_for(Hoist *h, Stmt *loop) {
  Stmt *body = loop->u.for_.body;
  if (body->kind != STMT_IF || !hoistable(h, body->u.if_.cond, loop->u.for_.var)) return loop;
  Arena *a = h->m.arena;
  Stmt *then = hoist_for(h, with_body(a, loop, body->u.if_.then));
  Stmt *orelse = body->u.if_.orelse ? hoist_for(h, with_body(a, loop, body->u.if_.orelse)) : NULL;
  return ir_if(a, body->u.if_.cond, then, orelse);
}

static const Var *attr_var(const Stmt *s) {
  if (s->u.attr.nkind == ATTR_NODE_ITERVAR) return ((const IterVar *)s->u.attr.node)->var;
  if (s->u.attr.nkind == ATTR_NODE_VAR) return s->u.attr.node;
  return NULL;
}

static Stmt *hoist_stmt(IrMutator *m, Stmt *s) {
  Hoist *h = (Hoist *)m;
  if (s->kind == STMT_FOR) {
    Stmt *r = ir_mutate_children_stmt(m, s);
    return hoist_for(h, r);
  }
  const Var *v = s->kind == STMT_ATTR ? attr_var(s) : NULL;
  if (!v) return ir_mutate_children_stmt(m, s);
  VEC_GROW(NULL, h->attr_vars, h->cap, h->n + 1);
  h->attr_vars[h->n++] = v;
  Stmt *r = ir_mutate_children_stmt(m, s);
  h->n--;
  return r;
}

Stmt *pass_hoist_if_then_else(Stmt *s, PassCtx *ctx) {
  Hoist h = {{ctx->arena, NULL, hoist_stmt}, 0, 0, NULL};
  Stmt *r = ir_mutate_stmt(&h.m, s);
  free(h.attr_vars);
  return r;
}
