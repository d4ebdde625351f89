/* inject_prefetch: software prefetch (TVM's tir.InjectPrefetch, with the expansion its
 * StorageFlatten does of the Prefetch node, which tes does not have).
 * Assumes: the loop nest of schedule_ops: stage.prefetch(T, axis, offset) left
 *   `attr [T] "prefetch_scope" = offset` directly inside the loop over axis (after the let
 *   of the axis's value when the loop runs over axis.idx), and T is read through
 *   PRODUCER_LOAD.
 * Guarantees: every prefetch_scope attr is gone. Its body comes after a prefetch of the region
 *   of T that the body reads in iteration var + offset (var: the loop around the attr): every
 *   loop inside the body (and every thread axis) relaxed to its range, every variable from
 *   outside kept but those of vector loops, relaxed too. The region is walked as TVM walks it: the innermost dimensions that fit in
 *   one 64-byte cache line together (constant extents) are one block; the dimension outside
 *   them is stepped one cache line at a time, (extent - 1) / step + 1 calls, and every
 *   dimension further out gets a loop `prefetch.T.d` over its extent. Each call is
 *   `@tir.prefetch(@tir.address_of(T[...]), 0, 3, 1)` (read, keep in every cache level,
 *   data), typed as T's elements, as TVM types it. The region is not clipped to T's shape: a
 *   prefetch of an address past the end does not fault. A body that does not read T is a user
 *   error on ctx->diag; a region without bounds (TVM's "Cannot decide prefetch region"), and T
 *   realized inside the body (computed at the loop: TVM's flattening stops there), are
 *   warnings, and the attr is dropped without a prefetch.
 *   TVM 0.8-0.10 pass the indices of a region of two or more dimensions innermost first and
 *   name its loops in the reverse order, so their addresses are off (2-D A[i, j] prefetches
 *   A[j, i]'s line); tes prefetches the region itself.
 * Why here: before storage flattening, as in TVM: the region is in T's own indices, and
 *   flattening turns the address into the buffer's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/schedule/sched_impl.h"
#include "ir/strbuf.h"
#include "ir/support.h"

enum { CACHE_LINE_BYTES = 64 };

typedef struct Loop {
  Var *var;
  Expr *min, *extent;
  ForKind kind;
} Loop;

typedef struct Injector {
  IrMutator m;
  PassCtx *ctx;
  Analyzer *an;
  int nloops, cap_loops;
  Loop *loops; /* around the current node, innermost last */
  int nlets, cap_lets;
  VarMap *lets;  /* let statements around the current node, innermost last */
  int *let_loop; /* how many loops were around each let */
  int cap_let_loop;
} Injector;

/* ---- the region read ---- */

typedef struct Reads {
  IrVisitor v;
  Injector *in;
  const Tensor *t;
  int nmap;
  VarMap *map;  /* the loop's variable -> var + offset, and the lets that depend on it */
  PtrMap relax; /* loops and lets inside the body: Var * -> IntSet * */
  IntSet *region;
  bool found;
  bool realized; /* the tensor is realized inside the body (computed at the loop) */
} Reads;

static Expr *shifted(Reads *r, Expr *e) {
  return ir_substitute_expr(r->in->m.arena, e, r->nmap, r->map);
}

static void relax_var(Reads *r, const Var *v, IntSet s) {
  IntSet *p = arena_alloc(r->in->m.arena, sizeof *p);
  *p = s;
  ptrmap_put(&r->relax, v, p);
}

static void reads_expr(IrVisitor *v, const Expr *e) {
  Reads *r = (Reads *)v;
  if (e->kind == EXPR_LET) relax_var(r, e->u.let.var, sched_set_point(shifted(r, e->u.let.value)));
  ir_visit_children_expr(v, e);
  if (e->kind != EXPR_PRODUCER_LOAD || e->u.pload.tensor != r->t) return;
  for (int d = 0; d < r->t->ndim; d++) {
    IntSet s = sched_relax_set(r->in->an, shifted(r, e->u.pload.indices[d]), &r->relax);
    r->region[d] = r->found ? sched_set_union(r->in->an, r->region[d], s) : s;
  }
  r->found = true;
}

static void reads_stmt(IrVisitor *v, const Stmt *s) {
  Reads *r = (Reads *)v;
  Analyzer *an = r->in->an;
  if (s->kind == STMT_FOR)
    relax_var(r, s->u.for_.var,
              sched_set_range(an, (Range){shifted(r, s->u.for_.min), shifted(r, s->u.for_.extent)}));
  else if (s->kind == STMT_LET)
    relax_var(r, s->u.let.var, sched_set_point(shifted(r, s->u.let.value)));
  else if (s->kind == STMT_REALIZE && s->u.realize.tensor == r->t)
    r->realized = true;
  else if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR &&
           (strcmp(s->u.attr.key, "thread_extent") == 0 ||
            strcmp(s->u.attr.key, "virtual_thread") == 0)) {
    const IterVar *iv = s->u.attr.node;
    Expr *zero = arith_const(r->in->m.arena, iv->var->dtype, 0);
    relax_var(r, iv->var, sched_set_range(an, (Range){zero, shifted(r, s->u.attr.value)}));
  }
  ir_visit_children_stmt(v, s);
}

/* ---- the prefetch calls ---- */

static char *loop_name(Arena *a, const Tensor *t, int d) {
  size_t n = strlen(t->name) + 32;
  char *s = arena_alloc(a, n);
  snprintf(s, n, "prefetch.%s.%d", t->name, d);
  return s;
}

/* The calls over region (one Range per dimension of t). */
static Stmt *prefetch_calls(Injector *in, const Tensor *t, const Range *region) {
  Arena *a = in->m.arena;
  int bytes = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  int64_t per_line = bytes > 0 && bytes < CACHE_LINE_BYTES ? CACHE_LINE_BYTES / bytes : 1;
  int64_t block = 1, dim;
  int starts = t->ndim - 1;
  while (starts > 0 && ir_as_int(t->shape[starts], &dim) && dim > 0 && block * dim <= per_line) {
    block *= dim;
    starts--;
  }
  int64_t step = per_line / block;
  Expr **idx = arena_alloc(a, (size_t)t->ndim * sizeof *idx);
  Var **vars = arena_alloc(a, (size_t)t->ndim * sizeof *vars);
  for (int d = 0; d < t->ndim; d++) {
    DType it = region[d].min->dtype;
    if (d > starts) {
      idx[d] = region[d].min;
      continue;
    }
    vars[d] = ir_var(a, loop_name(a, t, d), it);
    Expr *p = ir_varref(a, vars[d]);
    idx[d] = d == starts ? arith_binary(a, EXPR_ADD, region[d].min,
                                        arith_binary(a, EXPR_MUL, arith_const(a, it, step), p))
                         : arith_binary(a, EXPR_ADD, p, region[d].min);
  }
  Expr *load = ir_pload(a, (Tensor *)t, t->ndim, idx);
  Expr *addr = ir_call(a, DT_HANDLE64, "tir.address_of", CALL_PURE, 1, &load);
  Expr *args[4] = {addr, ir_i32(a, 0), ir_i32(a, 3), ir_i32(a, 1)};
  Stmt *s = ir_evaluate(a, ir_call(a, t->dtype, "tir.prefetch", CALL_EFFECT, 4, args));
  for (int d = starts; d >= 0; d--) {
    DType it = region[d].min->dtype;
    Expr *extent = region[d].extent;
    if (d == starts) {
      Expr *one = arith_const(a, it, 1);
      extent = arith_binary(a, EXPR_SUB, extent, one);
      extent = arith_binary(a, EXPR_ADD, arith_binary(a, EXPR_DIV, extent, arith_const(a, it, step)), one);
    }
    s = ir_for(a, vars[d], arith_const(a, it, 0), arith_simplify(in->an, extent), FOR_SERIAL, NULL, s);
  }
  return s;
}

static void warn(PassCtx *ctx, const char *msg) {
  if (ctx->warn)
    ctx->warn(ctx->warn_user, msg);
  else
    fprintf(stderr, "tes: warning: %s\n", msg);
}

/* The attr's body after the prefetch of what iteration var + offset reads of its tensor. */
static Stmt *inject(Injector *in, const Stmt *s, Stmt *body) {
  Arena *a = in->m.arena;
  const Tensor *t = s->u.attr.node;
  if (!in->nloops) {
    ir_internal_error(in->ctx->diag, "prefetch_scope of %s outside every loop", t->name);
    return body;
  }
  const Loop *loop = &in->loops[in->nloops - 1];
  Reads r = {.v = {reads_expr, reads_stmt}, .in = in, .t = t};
  ptrmap_init(&r.relax, a);
  r.region = arena_alloc(a, (size_t)(t->ndim + 1) * sizeof *r.region);
  /* the loop's variable one offset on, and the lets inside the loop that read it */
  r.map = arena_alloc(a, (size_t)(in->nlets + 1) * sizeof *r.map);
  Expr *offset = arith_cast(a, loop->var->dtype, s->u.attr.value);
  r.map[r.nmap++] = (VarMap){loop->var, arith_binary(a, EXPR_ADD, ir_varref(a, loop->var), offset)};
  for (int i = 0; i < in->nlets; i++)
    if (in->let_loop[i] == in->nloops)
      r.map[r.nmap++] = (VarMap){in->lets[i].from, shifted(&r, in->lets[i].to)};
  /* a vector loop around is one step: all its lanes are read at once */
  for (int i = 0; i < in->nloops - 1; i++)
    if (in->loops[i].kind == FOR_VECTORIZED)
      relax_var(&r, in->loops[i].var, sched_set_range(in->an, (Range){in->loops[i].min,
                                                                     in->loops[i].extent}));
  ir_visit_stmt(&r.v, body);
  if (!r.found) {
    ir_error(in->ctx->diag,
             "cannot prefetch %s at axis %s: nothing inside that loop reads %s (was the read "
             "inlined or cached?)",
             t->name, loop->var->name, t->name);
    return body;
  }
  Range *region = arena_alloc(a, (size_t)(t->ndim + 1) * sizeof *region);
  if (r.realized) {
    StrBuf msg = STRBUF_INIT;
    sb_printf(&msg, "cannot prefetch %s at axis %s: %s is computed inside that loop, so what "
              "iteration %s + offset reads does not exist yet: no prefetch", t->name,
              loop->var->name, t->name, loop->var->name);
    warn(in->ctx, sb_cstr(&msg));
    sb_free(&msg);
    return body;
  }
  for (int d = 0; d < t->ndim; d++) {
    if (!r.region[d].min || !r.region[d].max) {
      StrBuf msg = STRBUF_INIT;
      sb_printf(&msg, "cannot decide the region of %s to prefetch at axis %s (dimension %d has "
                "no bounds): no prefetch", t->name, loop->var->name, d);
      warn(in->ctx, sb_cstr(&msg));
      sb_free(&msg);
      return body;
    }
    region[d] = sched_set_cover(in->an, r.region[d], (Range){NULL, NULL});
    region[d].min = arith_simplify(in->an, region[d].min);
  }
  Stmt *both[2] = {prefetch_calls(in, t, region), body};
  return ir_seq(a, 2, both);
}

static Stmt *inject_stmt(IrMutator *m, Stmt *s) {
  Injector *in = (Injector *)m;
  if (s->kind == STMT_FOR) {
    VEC_GROW(NULL, in->loops, in->cap_loops, in->nloops + 1);
    in->loops[in->nloops++] =
        (Loop){s->u.for_.var, s->u.for_.min, s->u.for_.extent, s->u.for_.fkind};
    Stmt *r = ir_mutate_children_stmt(m, s);
    in->nloops--;
    return r;
  }
  if (s->kind == STMT_LET) {
    VEC_GROW(NULL, in->lets, in->cap_lets, in->nlets + 1);
    VEC_GROW(NULL, in->let_loop, in->cap_let_loop, in->nlets + 1);
    in->let_loop[in->nlets] = in->nloops;
    in->lets[in->nlets++] = (VarMap){s->u.let.var, s->u.let.value};
    Stmt *r = ir_mutate_children_stmt(m, s);
    in->nlets--;
    return r;
  }
  if (s->kind != STMT_ATTR || s->u.attr.nkind != ATTR_NODE_TENSOR ||
      strcmp(s->u.attr.key, "prefetch_scope") != 0)
    return ir_mutate_children_stmt(m, s);
  Stmt *body = ir_mutate_stmt(m, s->u.attr.body);
  return inject(in, s, body);
}

Stmt *pass_inject_prefetch(Stmt *s, PassCtx *ctx) {
  Injector in = {.m = {ctx->arena, NULL, inject_stmt}, .ctx = ctx, .an = arith_new(ctx->arena)};
  Stmt *r = ir_mutate_stmt(&in.m, s);
  arith_free(in.an);
  free(in.loops);
  free(in.lets);
  free(in.let_loop);
  return r;
}
