/* message_passing.c: passing ranges, values and sets along a stage's itervar relations (TVM's
 * message_passing.cc). Down: from root axes to the leaves a split, fuse or rebase made of
 * them; up: from the leaves, which are the loops, back to the root axes the body indexes by. */
#include <stdio.h>

#include "ir/arith/arith.h"
#include "ir/printer.h"
#include "ir/schedule/sched_impl.h"

Range sched_dom(const SchedBounds *b, const IterVar *iv) {
  Range *r = ptrmap_get(&b->dom, iv);
  TES_ASSERT(r, "itervar %s has no range", iv->var->name);
  return *r;
}

void sched_set_dom(SchedBounds *b, const IterVar *iv, Range r) {
  Range *rp = arena_alloc(b->arena, sizeof *rp);
  *rp = r;
  ptrmap_put(&b->dom, iv, rp);
  IntSet *s = arena_alloc(b->arena, sizeof *s);
  *s = sched_set_range(b->fold, r);
  ptrmap_put(&b->var_set, iv->var, s);
}

static Expr *zero(Arena *a, DType t) { return arith_const(a, t, 0); }

static Expr *fold(const SchedBounds *b, ExprKind k, Expr *x, Expr *y) {
  return arith_simplify_binary(b->fold, k, x, y);
}

/* Whether x k y (a comparison) holds for any values of the variables. */
static bool proves(const SchedBounds *b, ExprKind k, Expr *x, Expr *y) {
  return arith_can_prove(b->fold, ir_binary(b->arena, k, x, y));
}

/* floordiv((x + (y - 1)), y), the parts of x a split by y makes. */
static Expr *ceil_div(const SchedBounds *b, Expr *x, Expr *y) {
  Arena *a = b->arena;
  Expr *less = arith_binary(a, EXPR_SUB, y, arith_const(a, y->dtype, 1));
  return fold(b, EXPR_FLOORDIV, arith_binary(a, EXPR_ADD, x, less), y);
}

/* ---- ranges, down ---- */

/* The extent of the part a split makes by `amount` (its factor or nparts): amount itself, or
 * the parent's extent where that is provably smaller (TVM's tightening in PassDownDomain), so
 * that an axis of 3 split by 8 loops 3 times, not 8 under a guard. Not where a thread is
 * bound under it, whose count the split may set on purpose, nor without an analyzer. */
static Expr *split_part(Arena *a, Analyzer *an, const PtrMap *threads, const IterVar *part,
                        Range parent, Expr *amount) {
  if (!an || ptrmap_get(threads, part) || ir_is_const_int(parent.extent, 0)) return amount;
  Expr *lt = ir_binary(a, EXPR_LT, parent.extent, amount);
  return arith_can_prove(an, lt) ? parent.extent : amount;
}

static void down_split(SchedBounds *b, Analyzer *an, const PtrMap *threads, const IterRelation *r) {
  Arena *a = b->arena;
  Range p = sched_dom(b, r->parent);
  DType t = r->parent->var->dtype;
  if (r->factor) {
    Expr *inner = split_part(a, an, threads, r->inner, p, r->factor);
    sched_set_dom(b, r->inner, (Range){zero(a, t), inner});
    sched_set_dom(b, r->outer, (Range){zero(a, t), ceil_div(b, p.extent, r->factor)});
  } else {
    Expr *outer = split_part(a, an, threads, r->outer, p, r->nparts);
    sched_set_dom(b, r->outer, (Range){zero(a, t), outer});
    sched_set_dom(b, r->inner, (Range){zero(a, t), ceil_div(b, p.extent, r->nparts)});
  }
}

static Expr *as_dtype(Arena *a, Expr *e, DType t) {
  return dt_eq(e->dtype, t) ? e : ir_cast(a, t, e);
}

static void down_fuse(SchedBounds *b, const IterRelation *r) {
  Arena *a = b->arena;
  DType t = r->fused->var->dtype;
  Expr *o = as_dtype(a, sched_dom(b, r->outer).extent, t);
  Expr *i = as_dtype(a, sched_dom(b, r->inner).extent, t);
  sched_set_dom(b, r->fused, (Range){zero(a, t), fold(b, EXPR_MUL, o, i)});
}

static char *expr_text(const Expr *e, char *buf, size_t n) {
  StrBuf sb = STRBUF_INIT;
  ir_print_expr(&sb, e);
  snprintf(buf, n, "%s", sb_cstr(&sb));
  sb_free(&sb);
  return buf;
}

/* A thread itervar bound in several stages must get one extent in all of them. */
static bool bind_thread_range(SchedBounds *b, LStage *ls, IterVar *thread, Range r) {
  Range *old = ptrmap_get(&b->dom, thread);
  if (!old) {
    sched_set_dom(b, thread, r);
    ptrmap_put(&b->thread_stage, thread, ls);
    return true;
  }
  if (arith_can_prove_equal(b->fold, old->extent, r.extent)) return true;
  LStage *first = ptrmap_get(&b->thread_stage, thread);
  char x[128], y[128];
  return ir_error(b->diag, "cannot bind: thread %s has extent %s in stage %s but %s in stage %s",
                  thread->thread_tag, expr_text(old->extent, x, sizeof x), first->st->op->name,
                  expr_text(r.extent, y, sizeof y), ls->st->op->name);
}

/* The itervars a thread-bound leaf derives from (TVM's PassUpThreadBinding). */
static void thread_bound(const LStage *ls, PtrMap *out) {
  for (int i = 0; i < ls->st->nattr; i++)
    if (ls->st->attrs[i].bind_thread) ptrmap_put(out, ls->st->attrs[i].iv, (void *)1);
  for (int k = ls->nrel - 1; k >= 0; k--) {
    const IterRelation *r = &ls->rel[k];
    switch (r->kind) {
    case REL_SPLIT:
      if (ptrmap_get(out, r->outer) || ptrmap_get(out, r->inner))
        ptrmap_put(out, r->parent, (void *)1);
      break;
    case REL_FUSE:
      if (ptrmap_get(out, r->fused)) {
        ptrmap_put(out, r->outer, (void *)1);
        ptrmap_put(out, r->inner, (void *)1);
      }
      break;
    case REL_REBASE:
      if (ptrmap_get(out, r->fused)) ptrmap_put(out, r->parent, (void *)1);
      break;
    }
  }
}

bool sched_pass_down_domain(SchedBounds *b, LStage *ls, Analyzer *an) {
  PtrMap threads;
  ptrmap_init(&threads, b->arena);
  thread_bound(ls, &threads);
  for (int i = 0; i < ls->nrel; i++) {
    const IterRelation *r = &ls->rel[i];
    switch (r->kind) {
    case REL_SPLIT:
      down_split(b, an, &threads, r);
      break;
    case REL_FUSE:
      down_fuse(b, r);
      break;
    case REL_REBASE:
      sched_set_dom(b, r->fused,
                    (Range){zero(b->arena, r->fused->var->dtype), sched_dom(b, r->parent).extent});
      break;
    }
  }
  for (int i = 0; i < ls->st->nattr; i++) {
    const IterVarAttr *at = &ls->st->attrs[i];
    if (at->bind_thread && !bind_thread_range(b, ls, at->bind_thread, sched_dom(b, at->iv)))
      return false;
  }
  return true;
}

/* ---- values, up ---- */

static Expr *value_of(const PtrMap *values, const IterVar *iv) { return ptrmap_get(values, iv); }

/* The values of itervars are built as TVM's operators build them (constants folded, the rest
 * as written), since the guards and loops made of them print so until tir.Simplify. */
static Expr *plus_min(Arena *a, Expr *v, Expr *min) {
  return ir_is_const_int(min, 0) ? v : arith_binary(a, EXPR_ADD, v, as_dtype(a, min, v->dtype));
}

static void up_index_split(SchedBounds *b, const IterRelation *r, PtrMap *values) {
  Arena *a = b->arena;
  Expr *o = value_of(values, r->outer), *i = value_of(values, r->inner);
  if (!o || !i) return;
  Expr *factor = sched_dom(b, r->inner).extent;
  /* TVM writes inner + outer*factor; its simplifier prints it outer first, as built here */
  Expr *v = arith_binary(a, EXPR_ADD, arith_binary(a, EXPR_MUL, o, factor), i);
  ptrmap_put(values, r->parent, plus_min(a, v, sched_dom(b, r->parent).min));
}

static void up_index_fuse(SchedBounds *b, const IterRelation *r, PtrMap *values) {
  Arena *a = b->arena;
  Expr *f = value_of(values, r->fused);
  if (!f) return;
  Expr *factor = as_dtype(a, sched_dom(b, r->inner).extent, f->dtype);
  Expr *o = as_dtype(a, arith_binary(a, EXPR_FLOORDIV, f, factor), r->outer->var->dtype);
  Expr *i = as_dtype(a, arith_binary(a, EXPR_FLOORMOD, f, factor), r->inner->var->dtype);
  ptrmap_put(values, r->outer, plus_min(a, o, sched_dom(b, r->outer).min));
  ptrmap_put(values, r->inner, plus_min(a, i, sched_dom(b, r->inner).min));
}

void sched_pass_up_index(SchedBounds *b, const LStage *ls, PtrMap *values) {
  for (int k = ls->nrel - 1; k >= 0; k--) {
    const IterRelation *r = &ls->rel[k];
    switch (r->kind) {
    case REL_SPLIT:
      up_index_split(b, r, values);
      break;
    case REL_FUSE:
      up_index_fuse(b, r, values);
      break;
    case REL_REBASE: {
      Expr *v = value_of(values, r->fused);
      if (v) ptrmap_put(values, r->parent, plus_min(b->arena, v, sched_dom(b, r->parent).min));
      break;
    }
    }
  }
}

/* ---- sets, up ---- */

static IntSet *new_set(Arena *a, IntSet s) {
  IntSet *p = arena_alloc(a, sizeof *p);
  *p = s;
  return p;
}

/* A bound plus the minimum of a range, simplified as every bound of a set is. */
static Expr *bound_plus_min(const SchedBounds *b, Expr *v, Expr *min) {
  return ir_is_const_int(min, 0) ? v : fold(b, EXPR_ADD, v, as_dtype(b->arena, min, v->dtype));
}

static IntSet set_of(const PtrMap *sets, const IterVar *iv) {
  IntSet *s = ptrmap_get(sets, iv);
  TES_ASSERT(s, "itervar %s has no set", iv->var->name);
  return *s;
}

static void up_domain_split(SchedBounds *b, const IterRelation *r, PtrMap *sets) {
  Arena *a = b->arena;
  IntSet o = set_of(sets, r->outer), i = set_of(sets, r->inner);
  if (sched_set_matches(b->fold, o, sched_dom(b, r->outer)) &&
      sched_set_matches(b->fold, i, sched_dom(b, r->inner))) {
    ptrmap_put(sets, r->parent, new_set(a, sched_set_range(b->fold, sched_dom(b, r->parent))));
    return;
  }
  PtrMap vars;
  ptrmap_init(&vars, a);
  ptrmap_put(&vars, r->outer->var, &o);
  ptrmap_put(&vars, r->inner->var, &i);
  Expr *outer = ir_varref(a, r->outer->var);
  Expr *v = arith_binary(a, EXPR_MUL, outer, sched_dom(b, r->inner).extent);
  v = plus_min(a, arith_binary(a, EXPR_ADD, v, ir_varref(a, r->inner->var)),
               sched_dom(b, r->parent).min);
  ptrmap_put(sets, r->parent, new_set(a, sched_eval_set(b->fold, v, &vars)));
}

/* Whether the part f of a fused range stays within one row of the inner axis: its length
 * divides the row's and it starts at a multiple of its length (TVM's test), as when a fused
 * axis is split by a factor of the inner extent. */
static bool within_row(const SchedBounds *b, IntSet f, Expr *row) {
  Arena *a = b->arena;
  Analyzer *an = b->fold;
  Expr *len = sched_set_cover(an, f, (Range){NULL, NULL}).extent;
  Expr *zero_ = zero(a, len->dtype);
  return arith_can_prove_ge(an, len, 1) &&
         arith_can_prove_equal(an, arith_binary(a, EXPR_FLOORMOD, row, len), zero_) &&
         arith_can_prove_equal(an, arith_binary(a, EXPR_FLOORMOD, f.min, len), zero_);
}

/* A part of the fused range maps back to whole rows of the inner axis, which is what TVM
 * does too unless the part provably stays within one row. */
static void up_domain_fuse(SchedBounds *b, const IterRelation *r, PtrMap *sets) {
  Arena *a = b->arena;
  IntSet f = set_of(sets, r->fused);
  Range ro = sched_dom(b, r->outer), ri = sched_dom(b, r->inner);
  if (sched_set_matches(b->fold, f, sched_dom(b, r->fused)) || !f.min || !f.max) {
    ptrmap_put(sets, r->outer, new_set(a, sched_set_range(b->fold, ro)));
    ptrmap_put(sets, r->inner, new_set(a, sched_set_range(b->fold, ri)));
    return;
  }
  Expr *factor = as_dtype(a, ri.extent, f.min->dtype);
  if (sched_set_is_point(f)) {
    Expr *o = as_dtype(a, fold(b, EXPR_FLOORDIV, f.min, factor), r->outer->var->dtype);
    Expr *i = as_dtype(a, fold(b, EXPR_FLOORMOD, f.min, factor), r->inner->var->dtype);
    ptrmap_put(sets, r->outer, new_set(a, sched_set_point(bound_plus_min(b, o, ro.min))));
    ptrmap_put(sets, r->inner, new_set(a, sched_set_point(bound_plus_min(b, i, ri.min))));
    return;
  }
  Expr *lo = as_dtype(a, fold(b, EXPR_FLOORDIV, f.min, factor), r->outer->var->dtype);
  Expr *hi = as_dtype(a, fold(b, EXPR_FLOORDIV, f.max, factor), r->outer->var->dtype);
  ptrmap_put(sets, r->outer,
             new_set(a, (IntSet){bound_plus_min(b, lo, ro.min), bound_plus_min(b, hi, ro.min)}));
  if (!within_row(b, f, factor)) {
    ptrmap_put(sets, r->inner, new_set(a, sched_set_range(b->fold, ri)));
    return;
  }
  lo = as_dtype(a, fold(b, EXPR_FLOORMOD, f.min, factor), r->inner->var->dtype);
  hi = as_dtype(a, fold(b, EXPR_FLOORMOD, f.max, factor), r->inner->var->dtype);
  ptrmap_put(sets, r->inner,
             new_set(a, (IntSet){bound_plus_min(b, lo, ri.min), bound_plus_min(b, hi, ri.min)}));
}

static void up_domain_rebase(SchedBounds *b, const IterRelation *r, PtrMap *sets) {
  Arena *a = b->arena;
  IntSet s = set_of(sets, r->fused);
  Range p = sched_dom(b, r->parent);
  if (sched_set_matches(b->fold, s, sched_dom(b, r->fused))) {
    ptrmap_put(sets, r->parent, new_set(a, sched_set_range(b->fold, p)));
    return;
  }
  IntSet q = {s.min ? bound_plus_min(b, s.min, p.min) : NULL,
              s.max ? bound_plus_min(b, s.max, p.min) : NULL};
  ptrmap_put(sets, r->parent, new_set(a, q));
}

void sched_pass_up_domain(SchedBounds *b, const LStage *ls, PtrMap *sets) {
  for (int k = ls->nrel - 1; k >= 0; k--) {
    const IterRelation *r = &ls->rel[k];
    switch (r->kind) {
    case REL_SPLIT:
      up_domain_split(b, r, sets);
      break;
    case REL_FUSE:
      up_domain_fuse(b, r, sets);
      break;
    case REL_REBASE:
      up_domain_rebase(b, r, sets);
      break;
    }
  }
}

/* ---- masks, down ---- */

static intptr_t mask_of(const PtrMap *state, const IterVar *iv) {
  return (intptr_t)ptrmap_get(state, iv);
}

static void or_mask(PtrMap *state, const IterVar *iv, intptr_t m) {
  ptrmap_put(state, iv, (void *)(mask_of(state, iv) | m));
}

void sched_pass_down_mask(const LStage *ls, PtrMap *state) {
  for (int k = 0; k < ls->nrel; k++) {
    const IterRelation *r = &ls->rel[k];
    switch (r->kind) {
    case REL_SPLIT:
      or_mask(state, r->outer, mask_of(state, r->parent));
      or_mask(state, r->inner, mask_of(state, r->parent));
      break;
    case REL_FUSE:
      or_mask(state, r->fused, mask_of(state, r->outer) | mask_of(state, r->inner));
      break;
    case REL_REBASE:
      or_mask(state, r->fused, mask_of(state, r->parent));
      break;
    }
  }
}

/* ---- guards ---- */

/* Which itervars may run past their range (TVM's PassUpBoundCheck): the parent of a split
 * that does not divide it, and everything above such a parent. */
static void up_bound_check(SchedBounds *b, const LStage *ls, PtrMap *state) {
  for (int k = ls->nrel - 1; k >= 0; k--) {
    const IterRelation *r = &ls->rel[k];
    switch (r->kind) {
    case REL_SPLIT: {
      bool check = ptrmap_get(state, r->outer) || ptrmap_get(state, r->inner);
      if (!check) {
        Expr *covered = arith_binary(b->arena, EXPR_MUL, sched_dom(b, r->inner).extent,
                                     sched_dom(b, r->outer).extent);
        check = !arith_can_prove_equal(b->fold, sched_dom(b, r->parent).extent, covered);
      }
      if (check) ptrmap_put(state, r->parent, (void *)1);
      break;
    }
    case REL_FUSE:
      if (ptrmap_get(state, r->fused)) {
        ptrmap_put(state, r->outer, (void *)1);
        ptrmap_put(state, r->inner, (void *)1);
      }
      break;
    case REL_REBASE:
      if (ptrmap_get(state, r->fused)) ptrmap_put(state, r->parent, (void *)1);
      break;
    }
  }
}

typedef struct Guards {
  Arena *arena;
  int n, cap;
  Expr **items;
} Guards;

static void add_guard(Guards *g, ExprKind k, Expr *value, Expr *bound) {
  VEC_GROW(g->arena, g->items, g->cap, g->n + 1);
  g->items[g->n++] = ir_binary(g->arena, k, value, as_dtype(g->arena, bound, value->dtype));
}

static bool same_range(const SchedBounds *b, Range x, Range y) {
  return arith_can_prove_equal(b->fold, x.min, y.min) &&
         arith_can_prove_equal(b->fold, x.extent, y.extent);
}

/* Root axes whose inferred range is not their declared one may step outside it. */
static void root_guards(SchedBounds *b, const LStage *ls, const PtrMap *values, const PtrMap *skip,
                        Guards *g) {
  Arena *a = b->arena;
  int n;
  IterVar **roots = sched_root_ivs(a, ls->st->op, &n);
  for (int i = 0; i < n; i++) {
    IterVar *iv = roots[i];
    if ((skip && ptrmap_get(skip, iv)) || iv->kind == ITER_OPAQUE) continue;
    if (same_range(b, iv->dom, sched_dom(b, iv))) continue;
    Expr *value = arith_binary(a, EXPR_SUB, value_of(values, iv), iv->dom.min);
    IntSet s = sched_eval_set(b->fold, value, &b->var_set);
    if (!s.min || !proves(b, EXPR_LE, zero(a, value->dtype), s.min))
      add_guard(g, EXPR_GE, value, zero(a, value->dtype));
    if (!s.max || !proves(b, EXPR_LT, s.max, iv->dom.extent))
      add_guard(g, EXPR_LT, value, iv->dom.extent);
  }
}

int sched_make_bound_check(SchedBounds *b, const LStage *ls, const PtrMap *values,
                           bool skip_root_domain, const PtrMap *skip, Expr ***out) {
  Arena *a = b->arena;
  PtrMap state;
  ptrmap_init(&state, a);
  up_bound_check(b, ls, &state);
  Guards g = {a, 0, 0, NULL};
  const Stage *st = ls->st;
  for (int i = 0; i < st->nall; i++) {
    IterVar *iv = st->all_iter_vars[i];
    if ((skip && ptrmap_get(skip, iv)) || iv->kind == ITER_OPAQUE) continue;
    if (!ptrmap_get(&state, iv)) continue;
    Range dom = sched_dom(b, iv);
    Expr *value = arith_binary(a, EXPR_SUB, value_of(values, iv), dom.min);
    IntSet s = sched_eval_set(b->fold, value, &b->var_set);
    if (!s.max || !proves(b, EXPR_LT, s.max, dom.extent)) add_guard(&g, EXPR_LT, value, dom.extent);
  }
  if (!skip_root_domain) root_guards(b, ls, values, skip, &g);
  *out = g.items;
  return g.n;
}
