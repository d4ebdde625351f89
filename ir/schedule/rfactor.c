/* rfactor.c: s.rfactor(t, axis, factor_axis) (TVM's Schedule::rfactor). Take B = sum over k,
 * with k split into k.outer and k.inner, factored over k.inner: a new stage `B.rf` keeps one
 * partial sum per value of k.inner, which is a spatial axis of B.rf (so its loop can run in
 * parallel or on threads), and reduces over what is left of k (k.outer, the index rebuilt
 * from the split, the split's guard as the reduction's condition); B's stage then sums B.rf
 * over a new reduce axis `k.inner.v`. Names follow TVM so that the IR reads as its reduction
 * tutorial prints it: in B.rf the factored axis keeps its variable (`k.inner`), and B's stage
 * gets fresh axes ax0, ax1, ... (so axes of B.op no longer name its loops; s[B].op.axis do).
 * B.rf reuses B's spatial axes and untouched reduce axes, so the splits and fuses B's stage
 * made of them carry over to B.rf with their itervars, as TVM keeps them. */
#include <stdio.h>
#include <string.h>

#include "ir/schedule/sched_impl.h"

/* What rfactor works out before it changes anything. */
typedef struct Factor {
  Schedule *s;
  Stage *st;
  const Expr *red; /* the reduction of t's output */
  IterVar *axis;   /* the axis factored out */
  int pos;         /* where it goes among B.rf's axes */
  PtrMap touched;  /* IterVar * -> non-NULL: axis and what the relations tie it to */
  Stage view;      /* st without attributes: a thread bound elsewhere has no range here */
  SchedBounds b;   /* the ranges of the touched itervars */
  PtrMap values;   /* IterVar * -> Expr *: the touched itervars in terms of the leaves */
  Expr *cond;      /* the guards of the split and the reduction's own condition, or NULL */
  PtrMap moved;    /* IterVar * -> IterVar *: a touched leaf of B -> B.rf's itervar for it */
} Factor;

static const char *nm(const IterVar *iv) { return iv ? iv->var->name : "(none)"; }

static bool has(const PtrMap *m, const IterVar *iv) { return ptrmap_get(m, iv) != NULL; }

static void mark(PtrMap *m, IterVar *iv) { ptrmap_put(m, iv, iv); }

/* ---- checks ---- */

static bool in_list(IterVar *const *ivs, int n, const IterVar *iv) {
  for (int i = 0; i < n; i++)
    if (ivs[i] == iv) return true;
  return false;
}

static bool all_reductions(const Operation *op) {
  for (int i = 0; i < op->noutputs; i++)
    if (op->body[i]->kind != EXPR_REDUCE) return false;
  return true;
}

static Stage *factor_stage(Schedule *s, Tensor *t, IterVar *axis) {
  Stage *st = t && t->op ? sched_stage(s, t->op) : NULL;
  if (!st)
    sched_fail(s, "cannot rfactor: tensor %s is not in the schedule", t ? t->name : "(none)");
  else if (st->op->kind != OP_COMPUTE || !all_reductions(st->op))
    sched_fail(s, "cannot rfactor: stage %s is not a reduction", st->op->name);
  else if (sched_scan_role(s, st->op, &(int){0}, &(int){0}))
    sched_fail(s, "not supported yet: rfactor of stage %s, the init or update of a scan",
               st->op->name);
  else if (!axis || !in_list(st->all_iter_vars, st->nall, axis))
    sched_fail(s, "cannot rfactor: %s is not an axis of stage %s", nm(axis), st->op->name);
  else if (!in_list(st->leaf_iter_vars, st->nleaf, axis))
    sched_fail(s, "cannot rfactor: axis %s of stage %s is not a leaf (it was split or fused)",
               nm(axis), st->op->name);
  else if (axis->kind != ITER_REDUCE)
    sched_fail(s, "cannot rfactor: axis %s of stage %s is not a reduce axis", nm(axis),
               st->op->name);
  else
    return st;
  return NULL;
}

/* ---- the itervars tied to the axis (TVM's PassUpBitMaskOr, then down) ---- */

static bool touches(const IterRelation *r, const PtrMap *t) {
  switch (r->kind) {
  case REL_SPLIT:
    return has(t, r->parent) || has(t, r->outer) || has(t, r->inner);
  case REL_FUSE:
    return has(t, r->outer) || has(t, r->inner) || has(t, r->fused);
  case REL_REBASE:
    return has(t, r->parent) || has(t, r->fused);
  }
  TES_UNREACHABLE();
}

/* Marks every itervar of r; whether any was new. */
static bool touch_all(const IterRelation *r, PtrMap *t) {
  IterVar *ivs[4] = {r->parent, r->outer, r->inner, r->fused};
  bool grew = false;
  for (int i = 0; i < 4; i++)
    if (ivs[i] && !has(t, ivs[i])) {
      mark(t, ivs[i]);
      grew = true;
    }
  return grew;
}

/* Up to the roots and down to the leaves until nothing changes: an axis fused with a part of
 * the factored one is tied to it as well (TVM goes up once and down once, and so would still
 * reduce such an axis in B.rf on its own besides the fused loop). */
static void touch_closure(const Stage *st, PtrMap *t) {
  for (bool grew = true; grew;) {
    grew = false;
    for (int k = 0; k < st->nrel; k++)
      if (touches(&st->relations[k], t)) grew |= touch_all(&st->relations[k], t);
  }
}

/* The touched itervars; refused when they reach a spatial axis. The relations they do not
 * touch (splits of spatial axes, of other reduce axes) go on in B.rf. */
static bool find_touched(Factor *f) {
  Stage *st = f->st;
  ptrmap_init(&f->touched, f->s->arena);
  mark(&f->touched, f->axis);
  touch_closure(st, &f->touched);
  for (int i = 0; i < st->op->naxis; i++)
    if (has(&f->touched, st->op->axis[i]))
      return sched_fail(f->s, "cannot rfactor: axis %s of stage %s is fused with spatial axis %s",
                        nm(f->axis), st->op->name, nm(st->op->axis[i]));
  return true;
}

/* ---- ranges, values and guards of the touched itervars ---- */

static Expr *and_of(Arena *a, Expr *x, Expr *y) {
  return !x ? y : !y ? x : ir_binary(a, EXPR_AND, x, y);
}

/* The touched relations alone, in their order. */
static IterRelation *touched_relations(Factor *f, int *n) {
  const Stage *st = f->st;
  IterRelation *out = arena_alloc(f->s->arena, (size_t)(st->nrel + 1) * sizeof *out);
  *n = 0;
  for (int k = 0; k < st->nrel; k++)
    if (touches(&st->relations[k], &f->touched)) out[(*n)++] = st->relations[k];
  return out;
}

/* As bound inference does for a whole stage, here over the touched relations alone: root
 * ranges down to the leaves, leaf values up to the roots, and the guards of splits that do
 * not divide. */
static void touched_bounds(Factor *f) {
  Arena *a = f->s->arena;
  SchedBounds *b = &f->b;
  Diag none = DIAG_INIT;
  *b = (SchedBounds){.arena = a, .sch = f->s, .diag = &none, .fold = arith_new(a)};
  ptrmap_init(&b->dom, a);
  ptrmap_init(&b->var_set, a);
  ptrmap_init(&b->bind, a);
  ptrmap_init(&b->thread_stage, a);
  f->view = *f->st;
  f->view.nattr = 0;
  LStage ls = {.st = &f->view, .nleaf = f->st->nleaf, .leaf = f->st->leaf_iter_vars};
  ls.rel = touched_relations(f, &ls.nrel);
  for (int i = 0; i < f->st->op->nreduce; i++) {
    IterVar *iv = f->st->op->reduce_axis[i];
    if (has(&f->touched, iv)) sched_set_dom(b, iv, iv->dom);
  }
  /* only a thread bound to two extents fails, and the view binds none */
  bool ok = sched_pass_down_domain(b, &ls, NULL);
  TES_ASSERT(ok, "rfactor's view: %s", none.msg);
  b->diag = NULL;
  ptrmap_init(&f->values, a);
  for (int i = 0; i < ls.nleaf; i++) {
    IterVar *iv = ls.leaf[i];
    if (!has(&f->touched, iv)) continue;
    Range r = sched_dom(b, iv);
    ptrmap_put(&f->values, iv, ir_is_const_int(r.extent, 1) ? r.min : ir_varref(a, iv->var));
  }
  sched_pass_up_index(b, &ls, &f->values);
  Expr **guards;
  int n = sched_make_bound_check(b, &ls, &f->values, true, NULL, &guards);
  arith_free(b->fold);
  b->fold = NULL;
  Expr *c = NULL;
  for (int i = 0; i < n; i++) c = and_of(a, c, guards[i]);
  Expr *where = f->red->u.reduce.condition;
  if (c && where && ir_expr_reads_memory(where)) {
    /* a where= reading a tensor is evaluated only where the guards hold: an `&&` evaluates
     * both sides (as TVM's rfactor does), and its reads would go past the tensor */
    Expr *ite[3] = {c, where, ir_int(a, DT_BOOL1, 0)};
    c = ir_call(a, DT_BOOL1, "tir.if_then_else", CALL_PURE, 3, ite);
  } else {
    c = and_of(a, c, where);
  }
  f->cond = c ? ir_call(a, DT_BOOL1, "tir.likely", CALL_PURE, 1, &c) : NULL;
}

static bool check_axis(Factor *f, int factor_axis) {
  int naxis = f->st->op->naxis;
  f->pos = factor_axis >= 0 ? factor_axis : naxis + 1 + factor_axis;
  if (f->pos < 0 || f->pos > naxis)
    return sched_fail(f->s, "cannot rfactor: factor_axis %d of stage %s is not in [%d, %d]",
                      factor_axis, f->st->op->name, -naxis - 1, naxis);
  if (!ir_is_const_int(sched_dom(&f->b, f->axis).min, 0))
    return sched_fail(f->s, "cannot rfactor: axis %s of stage %s does not start at 0", nm(f->axis),
                      f->st->op->name);
  return true;
}

/* ---- B.rf ---- */

/* items with x inserted at pos (n items before). */
static void **insert_at(Arena *a, void *const *items, int n, int pos, void *x) {
  void **out = arena_alloc(a, (size_t)(n + 1) * sizeof *out);
  for (int i = 0, j = 0; i <= n; i++) out[i] = i == pos ? x : items[j++];
  return out;
}

/* The reduce axes left to B.rf: the untouched ones of the op, then copies of the touched
 * leaves other than the factored axis, over their ranges (k.outer). */
static IterVar **rf_reduce_axes(Factor *f, int *n) {
  Arena *a = f->s->arena;
  const Operation *op = f->st->op;
  IterVar **out = arena_alloc(a, (size_t)(op->nreduce + f->st->nleaf + 1) * sizeof *out);
  *n = 0;
  for (int i = 0; i < op->nreduce; i++)
    if (!has(&f->touched, op->reduce_axis[i])) out[(*n)++] = op->reduce_axis[i];
  for (int i = 0; i < f->st->nleaf; i++) {
    IterVar *iv = f->st->leaf_iter_vars[i];
    if (iv == f->axis || !has(&f->touched, iv)) continue;
    out[(*n)++] = ir_itervar(a, iv->var, sched_dom(&f->b, iv), ITER_REDUCE, NULL);
    ptrmap_put(&f->moved, iv, out[*n - 1]);
  }
  return out;
}

/* The touched root axes' variables by their values in the leaves (k -> k.outer*16 + k.inner). */
static VarMap *root_values(Factor *f, int *n) {
  const Operation *op = f->st->op;
  VarMap *map = arena_alloc(f->s->arena, (size_t)(op->nreduce + 1) * sizeof *map);
  *n = 0;
  for (int i = 0; i < op->nreduce; i++) {
    IterVar *iv = op->reduce_axis[i];
    if (has(&f->touched, iv)) map[(*n)++] = (VarMap){iv->var, ptrmap_get(&f->values, iv)};
  }
  return map;
}

/* One body per value of the combiner; with no reduce axis left, a reduction over one point
 * is its source (or the identity where the condition fails). */
static Expr **rf_bodies(Factor *f, int nred, IterVar **red) {
  Arena *a = f->s->arena;
  const Expr *r = f->red;
  CommReducer *c = r->u.reduce.combiner;
  int nmap;
  VarMap *map = root_values(f, &nmap);
  Expr **src = arena_alloc(a, (size_t)c->n * sizeof *src);
  for (int i = 0; i < c->n; i++) src[i] = ir_substitute_expr(a, r->u.reduce.source[i], nmap, map);
  Expr *cond = f->cond ? ir_substitute_expr(a, f->cond, nmap, map) : NULL;
  Expr **body = arena_alloc(a, (size_t)c->n * sizeof *body);
  for (int i = 0; i < c->n; i++) {
    if (nred)
      body[i] = ir_reduce(a, c, c->n, src, nred, red, cond, i);
    else
      body[i] = cond ? ir_select(a, cond, src[i], c->identity[i]) : src[i];
  }
  return body;
}

static Operation *rf_op(Factor *f) {
  Arena *a = f->s->arena;
  const Operation *op = f->st->op;
  Range dom = sched_dom(&f->b, f->axis);
  IterVar *v = ir_itervar(a, f->axis->var, dom, ITER_DATA_PAR, NULL);
  ptrmap_put(&f->moved, f->axis, v);
  IterVar **axes = (IterVar **)insert_at(a, (void *const *)op->axis, op->naxis, f->pos, v);
  Expr **shape =
      (Expr **)insert_at(a, (void *const *)op->outputs[0]->shape, op->naxis, f->pos, dom.extent);
  int nred;
  IterVar **red = rf_reduce_axes(f, &nred);
  char name[256];
  snprintf(name, sizeof name, "%s.rf", op->name);
  return ir_compute_op(a, name, "", op->naxis + 1, shape, axes, f->red->u.reduce.combiner->n,
                       rf_bodies(f, nred, red));
}

/* ---- B.rf's loops ---- */

static IterVar **copy_ivs(Arena *a, IterVar *const *ivs, int n, int cap) {
  IterVar **out = arena_alloc(a, (size_t)cap * sizeof *out);
  if (n) memcpy(out, ivs, (size_t)n * sizeof *out);
  return out;
}

/* Marks the itervars the n relations rel derive from what is marked already. */
static void derive_down(const IterRelation *rel, int n, PtrMap *t) {
  for (int k = 0; k < n; k++)
    if (touches(&rel[k], t)) touch_all(&rel[k], t);
}

/* B.rf's loops: its axes, then its reduce axes, as a new stage has them, but each axis that
 * B's stage split or fused replaced by the loops made of it, in B's order. */
static void rf_leaves(Factor *f, Stage *rst, const IterRelation *rel, int nrel) {
  Arena *a = f->s->arena;
  const Stage *st = f->st;
  int cap = rst->nleaf + st->nleaf + 1, n = 0;
  IterVar **leaf = arena_alloc(a, (size_t)cap * sizeof *leaf);
  PtrMap done;
  ptrmap_init(&done, a);
  for (int i = 0; i < rst->nleaf; i++) {
    IterVar *r = rst->leaf_iter_vars[i];
    if (!in_list(st->all_iter_vars, st->nall, r) || in_list(st->leaf_iter_vars, st->nleaf, r)) {
      leaf[n++] = r;
      continue;
    }
    PtrMap from;
    ptrmap_init(&from, a);
    mark(&from, r);
    derive_down(rel, nrel, &from);
    for (int j = 0; j < st->nleaf; j++) {
      IterVar *l = st->leaf_iter_vars[j];
      if (has(&from, l) && !has(&done, l)) leaf[n++] = l, mark(&done, l);
    }
  }
  rst->leaf_iter_vars = leaf;
  rst->nleaf = n;
  rst->cap_leaf = cap;
}

/* B.rf goes on with the relations of B's stage that rfactor did not touch: the splits and
 * fuses of the spatial axes and of the other reduce axes (TVM keeps them too). */
static void carry_relations(Factor *f, Stage *rst) {
  Arena *a = f->s->arena;
  const Stage *st = f->st;
  IterRelation *rel = arena_alloc(a, (size_t)(st->nrel + 1) * sizeof *rel);
  int nrel = 0;
  for (int k = 0; k < st->nrel; k++)
    if (!touches(&st->relations[k], &f->touched)) rel[nrel++] = st->relations[k];
  if (!nrel) return;
  int cap = rst->nall + 2 * nrel + 1;
  rst->all_iter_vars = copy_ivs(a, rst->all_iter_vars, rst->nall, cap);
  rst->cap_all = cap;
  for (int k = 0; k < nrel; k++) {
    IterVar *made[2] = {rel[k].kind == REL_SPLIT ? rel[k].outer : rel[k].fused,
                        rel[k].kind == REL_SPLIT ? rel[k].inner : NULL};
    for (int i = 0; i < 2; i++)
      if (made[i]) rst->all_iter_vars[rst->nall++] = made[i];
  }
  rf_leaves(f, rst, rel, nrel);
  rst->relations = rel;
  rst->nrel = nrel;
  rst->cap_rel = st->nrel + 1;
}

/* Stages computed at a loop of B's stage follow that loop into B.rf, which reads what B read
 * (B's stage gets fresh loops and reads B.rf alone); a touched leaf's loop is B.rf's itervar
 * made of it. TVM leaves them at B and then fails to find the loop. */
static void move_attached(Factor *f, Stage *rst) {
  for (int i = 0; i < f->s->nstages; i++) {
    Stage *x = f->s->stages[i];
    if (x->attach != ATTACH_SCOPE || x->attach_stage != f->st) continue;
    IterVar *to = ptrmap_get(&f->moved, x->attach_ivar);
    IterVar *iv = to ? to : x->attach_ivar;
    if (!in_list(rst->leaf_iter_vars, rst->nleaf, iv)) continue;
    x->attach_stage = rst;
    x->attach_ivar = iv;
  }
}

/* ---- B, reducing B.rf ---- */

/* t's op as a reduction of rf over `<axis>.v`, on fresh axes ax0, ax1, ... */
static Operation *repl_op(Factor *f, const Operation *rf) {
  Arena *a = f->s->arena;
  const Operation *op = f->st->op;
  char buf[256];
  const char **names = arena_alloc(a, (size_t)(op->naxis + 1) * sizeof *names);
  for (int i = 0; i < op->naxis; i++) {
    snprintf(buf, sizeof buf, "ax%d", i);
    names[i] = arena_strndup(a, buf, strlen(buf));
  }
  Expr **shape = op->outputs[0]->shape;
  IterVar **axes = ir_compute_axes(a, op->naxis, shape, names);
  snprintf(buf, sizeof buf, "%s.v", nm(f->axis));
  IterVar *rv = ir_itervar(a, ir_var(a, buf, f->axis->var->dtype), sched_dom(&f->b, f->axis),
                           ITER_REDUCE, NULL);
  Expr **idx = arena_alloc(a, (size_t)(op->naxis + 1) * sizeof *idx);
  for (int i = 0; i < op->naxis; i++) idx[i] = ir_varref(a, axes[i]->var);
  idx = (Expr **)insert_at(a, (void *const *)idx, op->naxis, f->pos, ir_varref(a, rv->var));
  CommReducer *c = f->red->u.reduce.combiner;
  Expr **src = arena_alloc(a, (size_t)c->n * sizeof *src);
  for (int i = 0; i < c->n; i++) src[i] = ir_pload(a, rf->outputs[i], op->naxis + 1, idx);
  Expr **body = arena_alloc(a, (size_t)op->noutputs * sizeof *body);
  for (int i = 0; i < op->noutputs; i++)
    body[i] = ir_reduce(a, c, c->n, src, 1, &rv, NULL, op->body[i]->u.reduce.value_index);
  return ir_compute_op(a, op->name, op->tag, op->naxis, shape, axes, op->noutputs, body);
}

Tensor *sched_rfactor(Schedule *s, Tensor *t, IterVar *axis, int factor_axis) {
  Factor f = {.s = s, .axis = axis};
  if (!(f.st = factor_stage(s, t, axis))) return NULL;
  f.red = f.st->op->body[t->value_index];
  if (!find_touched(&f)) return NULL;
  touched_bounds(&f);
  if (!check_axis(&f, factor_axis)) return NULL;
  ptrmap_init(&f.moved, s->arena);
  Operation *rf = rf_op(&f);
  Stage *rst = sched_insert_stage(s, rf, sched_stage_index(s, f.st));
  carry_relations(&f, rst);
  move_attached(&f, rst);
  sched_replace_stage_op(f.st, repl_op(&f, rf));
  return rf->outputs[0];
}
