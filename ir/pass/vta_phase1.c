/* vta_phase1: the small passes of VTA's phase 1 (vta.build_config's list, after
 *   vta.InjectDMAIntrin):
 *   vta.InjectSkipCopy: a statement under `pragma_skip_dma_copy` (a debugging aid) becomes
 *     nothing (Evaluate(0)).
 *   vta.AnnotateALUCoProcScope: a statement under `pragma_alu` (env.alu) is put in the compute
 *     queue, `attr [vta] "coproc_scope" = 2 { attr [vta] "coproc_uop_scope" = "VTAPushALUOp"
 *     { the pragma } }`, for vta.InjectALUIntrin to turn into micro-ops after the virtual
 *     threads are injected; `pragma_skip_alu` becomes nothing.
 *   vta.LiftAllocToScopeBegin: every allocation moves to the beginning of the innermost loop
 *     or virtual_thread attr around it (or of the function), so that the queue scopes around
 *     and between them can be lifted and merged by tir.LiftAttrScope; the allocations of one
 *     scope keep their nesting, the one met last outermost.
 *   vta.EarlyRewrite: tir.StorageRewrite once more, early (ALU stages written in place, as
 *     VTA's ALU computes); a program it cannot rewrite is left as it was, its error dropped.
 * Assumes: flat IR (after tir.StorageFlatten); ctx->vta set.
 * Why here: TVM's vta.build_config runs them in this order in phase 1. */
#include "ir/pass/vta.h"
#include "ir/support.h"

/* ---- InjectSkipCopy, AnnotateALUCoProcScope ---- */

typedef struct Annot {
  IrMutator m;
  PassCtx *ctx;
  bool alu; /* AnnotateALUCoProcScope; else InjectSkipCopy */
} Annot;

static Stmt *annot_stmt(IrMutator *m, Stmt *s) {
  Annot *an = (Annot *)m;
  Arena *a = m->arena;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (!an->alu) return vta_is_pragma(r, "skip_dma_copy") ? ir_evaluate(a, ir_i32(a, 0)) : r;
  if (vta_is_pragma(r, "skip_alu")) return ir_evaluate(a, ir_i32(a, 0));
  if (!vta_is_pragma(r, "alu")) return r;
  Stmt *uop = vta_scope(an->ctx, "coproc_uop_scope", ir_str(a, "VTAPushALUOp"), r);
  return vta_scope(an->ctx, "coproc_scope", ir_i32(a, VTA_QID_COMPUTE), uop);
}

static Stmt *annotate(Stmt *s, PassCtx *ctx, bool alu) {
  if (!ctx->vta) return s;
  vta_axis(ctx, s);
  Annot an = {.m = {.arena = ctx->arena, .stmt = annot_stmt}, .ctx = ctx, .alu = alu};
  return ir_mutate_stmt(&an.m, s);
}

Stmt *pass_vta_inject_skip_copy(Stmt *s, PassCtx *ctx) { return annotate(s, ctx, false); }

Stmt *pass_vta_annotate_alu(Stmt *s, PassCtx *ctx) { return annotate(s, ctx, true); }

/* ---- LiftAllocToScopeBegin ---- */

typedef struct Lift {
  IrMutator m;
  int n, cap;
  Stmt **allocs; /* the allocations taken out of the scope being walked, innermost first */
} Lift;

/* body inside the allocations from..n-1 (the last one outermost), which leave the list */
static Stmt *merge(Lift *l, int from, Stmt *body) {
  for (int i = from; i < l->n; i++) {
    const Stmt *al = l->allocs[i];
    body = ir_allocate(l->m.arena, al->u.alloc.buffer_var, al->u.alloc.dtype, al->u.alloc.ndim,
                       al->u.alloc.extents, al->u.alloc.scope, al->u.alloc.condition, body);
  }
  l->n = from;
  return body;
}

static bool opens_scope(const Stmt *s) {
  return s->kind == STMT_FOR ||
         (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "virtual_thread") == 0);
}

static Stmt *lift_stmt(IrMutator *m, Stmt *s) {
  Lift *l = (Lift *)m;
  if (s->kind == STMT_ALLOCATE) {
    Stmt *body = ir_mutate_stmt(m, s->u.alloc.body);
    VEC_GROW(m->arena, l->allocs, l->cap, l->n + 1);
    l->allocs[l->n++] = s;
    return body;
  }
  if (!opens_scope(s)) return ir_mutate_children_stmt(m, s);
  int from = l->n;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (l->n == from) return r;
  Arena *a = m->arena;
  if (r->kind == STMT_FOR)
    return ir_for(a, r->u.for_.var, r->u.for_.min, r->u.for_.extent, r->u.for_.fkind,
                  r->u.for_.thread_tag, merge(l, from, r->u.for_.body));
  return ir_attr(a, r->u.attr.nkind, r->u.attr.node, r->u.attr.key, r->u.attr.value,
                 merge(l, from, r->u.attr.body));
}

Stmt *pass_vta_lift_alloc(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  Lift l = {.m = {.arena = ctx->arena, .stmt = lift_stmt}};
  Stmt *r = ir_mutate_stmt(&l.m, s);
  return merge(&l, 0, r);
}

/* ---- EarlyRewrite ---- */

Stmt *pass_vta_early_rewrite(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  Diag *keep = ctx->diag, quiet = DIAG_INIT;
  ctx->diag = &quiet;
  Stmt *r = pass_storage_rewrite(s, ctx);
  ctx->diag = keep;
  return diag_failed(&quiet) ? s : r;
}
