/* normalize.c: the view of a schedule that bound inference and loop building work on (TVM's
 * Schedule::normalize, done without touching the Schedule so that lowering can run after
 * every primitive). Root axes that are still leaves get rebased copies over [0, extent), since
 * bound inference may give them any minimum; every body gets its inlined producers
 * substituted; every stage gets the path of loops around its attach point. */
#include <string.h>

#include "ir/schedule/sched_impl.h"

LStage *sched_lstage(const SchedBounds *b, const Operation *op) {
  return ptrmap_get(&b->op_index, op);
}

/* ---- rebasing ---- */

static IterVar *rebase_of(const LStage *ls, const IterVar *root) {
  for (int i = 0; i < ls->nrel; i++)
    if (ls->rel[i].kind == REL_REBASE && ls->rel[i].parent == root) return ls->rel[i].fused;
  return NULL;
}

const IterVarAttr *sched_leaf_attr(const LStage *ls, const IterVar *iv) {
  for (int i = 0; i < ls->nrel; i++)
    if (ls->rel[i].kind == REL_REBASE && ls->rel[i].fused == iv) {
      iv = ls->rel[i].parent;
      break;
    }
  return sched_iter_attr(ls->st, iv);
}

/* Copies the stage's leaves and relations, rebasing each root axis that is a leaf and not
 * bound to a thread (a thread index always starts at 0). */
static void rebase_stage(SchedBounds *b, LStage *ls) {
  Stage *st = ls->st;
  Arena *a = b->arena;
  ls->nleaf = st->nleaf;
  ls->leaf = arena_alloc(a, (size_t)(st->nleaf + 1) * sizeof *ls->leaf);
  if (st->nleaf) memcpy(ls->leaf, st->leaf_iter_vars, (size_t)st->nleaf * sizeof *ls->leaf);
  ls->rel = arena_alloc(a, (size_t)(st->nrel + st->nleaf + 1) * sizeof *ls->rel);
  if (st->nrel) memcpy(ls->rel, st->relations, (size_t)st->nrel * sizeof *ls->rel);
  ls->nrel = st->nrel;
  if (st->attach == ATTACH_INLINE) return;
  int nroot;
  IterVar **roots = sched_root_ivs(a, st->op, &nroot);
  for (int i = 0; i < nroot; i++) {
    const IterVarAttr *at = sched_iter_attr(st, roots[i]);
    int pos = -1;
    for (int j = 0; j < ls->nleaf; j++)
      if (ls->leaf[j] == roots[i]) pos = j;
    if (pos < 0 || (at && at->bind_thread)) continue;
    Var *v = ir_var(a, roots[i]->var->name, roots[i]->var->dtype);
    IterVar *copy = ir_itervar(a, v, (Range){NULL, NULL}, roots[i]->kind, NULL);
    ls->rel[ls->nrel++] = (IterRelation){.kind = REL_REBASE, .parent = roots[i], .fused = copy};
    ls->leaf[pos] = copy;
  }
}

/* ---- inlining ---- */

typedef struct Inliner {
  IrMutator m;
  SchedBounds *b;
  bool too_deep; /* a substitution would pass IR_MAX_LOWERED_DEPTH: it was not made */
} Inliner;

/* e converted to t, for an index of one integer type standing for an axis of another. */
static Expr *as_dtype(Arena *a, Expr *e, DType t) {
  return dt_eq(e->dtype, t) ? e : ir_cast(a, t, e);
}

static Expr *inline_expr(IrMutator *m, Expr *e) {
  Inliner *in = (Inliner *)m;
  e = ir_mutate_children_expr(m, e);
  if (e->kind != EXPR_PRODUCER_LOAD) return e;
  Tensor *t = e->u.pload.tensor;
  LStage *src = t->op ? sched_lstage(in->b, t->op) : NULL;
  if (!src || src->st->attach != ATTACH_INLINE) return e;
  /* the result is at most this deep; deeper would overflow the C stack of later passes */
  if (src->body[t->value_index]->depth + e->depth > IR_MAX_LOWERED_DEPTH) {
    in->too_deep = true;
    return e;
  }
  Operation *op = t->op;
  VarMap *map = arena_alloc(m->arena, (size_t)(op->naxis + 1) * sizeof *map);
  for (int i = 0; i < op->naxis; i++)
    map[i] = (VarMap){op->axis[i]->var,
                      as_dtype(m->arena, e->u.pload.indices[i], op->axis[i]->var->dtype)};
  return ir_substitute_expr(m->arena, src->body[t->value_index], op->naxis, map);
}

typedef struct ReadScan {
  IrVisitor v;
  Arena *arena;
  LStage *ls;
  int cap;
} ReadScan;

static void scan_reads(IrVisitor *v, const Expr *e) {
  ReadScan *rs = (ReadScan *)v;
  ir_visit_children_expr(v, e);
  if (e->kind != EXPR_PRODUCER_LOAD) return;
  LStage *ls = rs->ls;
  for (int i = 0; i < ls->nreads; i++)
    if (ls->reads[i] == e->u.pload.tensor) return;
  VEC_GROW(rs->arena, ls->reads, rs->cap, ls->nreads + 1);
  ls->reads[ls->nreads++] = e->u.pload.tensor;
}

/* Producers come first, so the bodies of inlined producers are final when a consumer is done. */
static bool inline_bodies(SchedBounds *b, LStage *ls) {
  Operation *op = ls->st->op;
  if (op->kind == OP_EXTERN) { /* reads its inputs whole, through buffers: none inlined */
    ls->nreads = op->ninputs;
    ls->reads = op->inputs;
    for (int i = 0; i < op->ninputs; i++) {
      LStage *p = sched_lstage(b, op->inputs[i]->op);
      if (p && p->st->attach == ATTACH_INLINE)
        return ir_error(b->diag, "cannot lower: stage %s is inlined, but extern op %s reads it "
                        "through a buffer (compute it at root)", p->st->op->name, op->name);
    }
    return true;
  }
  if (op->kind == OP_SCAN) {
    ls->nreads = op->ninputs;
    ls->reads = op->inputs;
    return true;
  }
  if (op->kind != OP_COMPUTE) return true;
  Inliner in = {{b->arena, inline_expr, NULL}, b, false};
  ReadScan rs = {{scan_reads, NULL}, b->arena, ls, 0};
  ls->body = arena_alloc(b->arena, (size_t)op->noutputs * sizeof *ls->body);
  for (int i = 0; i < op->noutputs; i++) {
    ls->body[i] = ir_mutate_expr(&in.m, op->body[i]);
    ir_visit_expr(&rs.v, ls->body[i]);
  }
  if (in.too_deep)
    return ir_error(b->diag,
                    "cannot lower: inlining into %s makes an expression more than %d nested "
                    "operations deep (inline fewer stages)",
                    op->name, IR_MAX_LOWERED_DEPTH);
  return true;
}

/* ---- attach paths ---- */

static int leaf_index(const LStage *ls, const IterVar *iv) {
  for (int i = 0; i < ls->nleaf; i++)
    if (ls->leaf[i] == iv) return i;
  return -1;
}

/* The loops around ls's attach point, innermost first, through every stage it nests in. */
static bool attach_path(SchedBounds *b, LStage *ls) {
  int cap = 0;
  for (LStage *cur = ls; cur->st->attach == ATTACH_SCOPE;) {
    LStage *host = sched_lstage(b, cur->st->attach_stage->op);
    if (host->st->op->kind == OP_SCAN && cur->attach_ivar == host->st->op->scan_init_axis)
      break; /* a scan's init: before its loop, so outside every loop of the scan */
    if (host->st->attach == ATTACH_INLINE)
      return ir_error(b->diag, "cannot compute_at: stage %s is computed at %s, which is inlined",
                      cur->st->op->name, host->st->op->name);
    int at = leaf_index(host, cur->attach_ivar);
    if (at < 0)
      return ir_error(b->diag,
                      "cannot compute_at: axis %s of stage %s, where %s is computed, is no "
                      "longer a loop of %s (it was split or fused)",
                      cur->st->attach_ivar->var->name, host->st->op->name, cur->st->op->name,
                      host->st->op->name);
    int n = ls->npath + at + 1;
    if (n > cap) {
      int ncap = n * 2;
      ls->attach_path = arena_realloc(b->arena, ls->attach_path, (size_t)cap * sizeof(IterVar *),
                                      (size_t)ncap * sizeof(IterVar *));
      cap = ncap;
    }
    for (int i = at; i >= 0; i--) ls->attach_path[ls->npath++] = host->leaf[i];
    cur = host;
  }
  return true;
}

bool sched_normalize(SchedBounds *b) {
  Schedule *s = b->sch;
  b->ls = arena_alloc(b->arena, (size_t)(s->nstages ? s->nstages : 1) * sizeof *b->ls);
  for (int i = 0; i < s->nstages; i++) {
    LStage *ls = &b->ls[i];
    ls->st = s->stages[i];
    ls->index = i;
    ls->scope = ls->st->scope;
    ptrmap_put(&b->op_index, ls->st->op, ls);
    for (int j = 0; j < ls->st->nattr; j++)
      if (ls->st->attrs[j].bind_thread)
        ptrmap_put(&b->bind, ls->st->attrs[j].iv, ls->st->attrs[j].bind_thread);
    rebase_stage(b, ls);
  }
  for (int i = 0; i < s->nstages; i++) {
    LStage *ls = &b->ls[i];
    if (ls->st->attach == ATTACH_SCOPE) {
      IterVar *r = rebase_of(sched_lstage(b, ls->st->attach_stage->op), ls->st->attach_ivar);
      ls->attach_ivar = r ? r : ls->st->attach_ivar;
    }
    if (!inline_bodies(b, ls)) return false;
  }
  for (int i = 0; i < s->nstages; i++)
    if (!attach_path(b, &b->ls[i])) return false;
  return true;
}
