/* storage_flatten: turns multi-dimensional tensor storage into 1-D row-major buffers.
 * Assumes: the loop nest of schedule_ops: tensors are written by PROVIDE and read by
 *   PRODUCER_LOAD inside a REALIZE of their region, except the function's arguments, whose
 *   buffers ctx binds; a placeholder is always an argument.
 * Guarantees: no REALIZE, PROVIDE or PRODUCER_LOAD remains. An argument's realize is dropped
 *   (its storage is the parameter); any other becomes an ALLOCATE of the region's element
 *   count, in the realize's scope or, without one, global / shared under blockIdx / local
 *   under threadIdx. Accesses become STORE/LOAD at ((i0 - min0)*extent1 + (i1 - min1))...,
 *   with only zero terms and unit factors folded; subtrees without tensor accesses are
 *   returned as they are.
 * Why here: it is the first pass; virtual threads, unrolling and vectorization need flat
 *   indices, and the simplifier after them folds what the row-major arithmetic leaves. */
#include <string.h>

#include "ir/pass/pass.h"
#include "ir/support.h"

typedef struct Binding {
  const Tensor *tensor;
  Buffer *buf;
  Range *bounds; /* the realized region; NULL for an argument (it starts at 0) */
} Binding;

typedef struct Flatten {
  IrMutator m;
  PassCtx *ctx;
  int n, cap;
  Binding *binds;  /* the arguments, then the realizes around the current node, innermost last */
  int thread_rank; /* -1 outside threads, 0 under blockIdx, 1 under threadIdx */
} Flatten;

static bool is_const(const Expr *e, int64_t *v) {
  if (e->kind != EXPR_INT) return false;
  *v = e->u.ival;
  return true;
}

static Expr *int_const(Arena *a, DType t, int64_t v) {
  if (t.bits < 64) v = (int64_t)((uint64_t)v << (64 - t.bits)) >> (64 - t.bits);
  return ir_int(a, t, v);
}

/* TVM builds indices with operators that fold these; the simplifier does the rest. */
static Expr *fold(Arena *a, ExprKind k, Expr *x, Expr *y) {
  int64_t cx, cy;
  bool kx = is_const(x, &cx), ky = is_const(y, &cy);
  if (kx && ky) { /* unsigned, to wrap as the machine does */
    uint64_t ux = (uint64_t)cx, uy = (uint64_t)cy;
    return int_const(a, x->dtype,
                     (int64_t)(k == EXPR_MUL   ? ux * uy
                               : k == EXPR_ADD ? ux + uy
                                               : ux - uy));
  }
  if (k == EXPR_MUL) {
    if ((kx && cx == 0) || (ky && cy == 0)) return int_const(a, x->dtype, 0);
    if (ky && cy == 1) return x;
    if (kx && cx == 1) return y;
  } else {
    if (ky && cy == 0) return x;
    if (k == EXPR_ADD && kx && cx == 0) return y;
  }
  return ir_binary(a, k, x, y);
}

static Expr *as_dtype(Arena *a, Expr *e, DType t) {
  return dt_eq(e->dtype, t) ? e : ir_cast(a, t, e);
}

static void push_binding(Flatten *f, Binding b) {
  if (f->n == f->cap) {
    int ncap = f->cap ? f->cap * 2 : 16;
    f->binds =
        arena_realloc(f->m.arena, f->binds, (size_t)f->cap * sizeof b, (size_t)ncap * sizeof b);
    f->cap = ncap;
  }
  f->binds[f->n++] = b;
}

static const Binding *binding(const Flatten *f, const Tensor *t) {
  for (int i = f->n - 1; i >= 0; i--)
    if (f->binds[i].tensor == t) return &f->binds[i];
  return NULL;
}

/* The row-major offset of indices (already flattened themselves) in b's buffer. */
static Expr *flat_index(Flatten *f, const Binding *b, int n, Expr **indices) {
  Arena *a = f->m.arena;
  Expr *idx = NULL;
  for (int d = 0; d < n; d++) {
    Expr *i = ir_mutate_expr(&f->m, indices[d]);
    if (b->bounds) i = fold(a, EXPR_SUB, i, as_dtype(a, b->bounds[d].min, i->dtype));
    idx = idx ? fold(a, EXPR_ADD, fold(a, EXPR_MUL, idx, as_dtype(a, b->buf->shape[d], idx->dtype)),
                     as_dtype(a, i, idx->dtype))
              : i;
  }
  return idx ? idx : ir_i32(a, 0);
}

static const Binding *must_bind(const Flatten *f, const Tensor *t) {
  const Binding *b = binding(f, t);
  TES_ASSERT(b, "tensor %s is accessed outside its realize and is not an argument", t->name);
  return b;
}

static Expr *flatten_expr(IrMutator *m, Expr *e) {
  Flatten *f = (Flatten *)m;
  if (e->kind != EXPR_PRODUCER_LOAD) return ir_mutate_children_expr(m, e);
  const Binding *b = must_bind(f, e->u.pload.tensor);
  return ir_load(m->arena, b->buf, flat_index(f, b, e->u.pload.n, e->u.pload.indices), NULL);
}

static const char *default_scope(const Flatten *f) {
  return f->thread_rank < 0 ? "global" : f->thread_rank == 0 ? "shared" : "local";
}

static Stmt *flatten_realize(Flatten *f, Stmt *s) {
  Arena *a = f->m.arena;
  Tensor *t = s->u.realize.tensor;
  if (binding(f, t) && !binding(f, t)->bounds) return ir_mutate_stmt(&f->m, s->u.realize.body);
  int nd = s->u.realize.ndim;
  const char *scope =
      s->u.realize.scope && *s->u.realize.scope ? s->u.realize.scope : default_scope(f);
  Buffer *buf = arena_alloc(a, sizeof *buf);
  *buf = (Buffer){.name = t->name,
                  .data = ir_var(a, t->name, DT_HANDLE64),
                  .dtype = t->dtype,
                  .ndim = nd,
                  .shape = arena_alloc(a, (size_t)(nd + 1) * sizeof(Expr *)),
                  .scope = scope,
                  .offset_factor = 1};
  Expr *count = NULL;
  for (int d = 0; d < nd; d++) {
    buf->shape[d] = s->u.realize.bounds[d].extent;
    count =
        count ? fold(a, EXPR_MUL, count, as_dtype(a, buf->shape[d], count->dtype)) : buf->shape[d];
  }
  push_binding(f, (Binding){t, buf, s->u.realize.bounds});
  Stmt *body = ir_mutate_stmt(&f->m, s->u.realize.body);
  f->n--;
  if (!count) count = ir_i32(a, 1);
  return ir_allocate(a, buf->data, t->dtype, 1, &count, scope, NULL, body);
}

static int thread_rank(const Stmt *s) {
  if (s->u.attr.nkind != ATTR_NODE_ITERVAR || strcmp(s->u.attr.key, "thread_extent") != 0)
    return -1;
  const char *tag = ((const IterVar *)s->u.attr.node)->thread_tag;
  return tag && strncmp(tag, "blockIdx.", 9) == 0 ? 0 : 1;
}

static Stmt *flatten_stmt(IrMutator *m, Stmt *s) {
  Flatten *f = (Flatten *)m;
  if (s->kind == STMT_REALIZE) return flatten_realize(f, s);
  if (s->kind == STMT_PROVIDE) {
    const Binding *b = must_bind(f, s->u.provide.tensor);
    Expr *idx = flat_index(f, b, s->u.provide.n, s->u.provide.indices);
    return ir_store(m->arena, b->buf, ir_mutate_expr(m, s->u.provide.value), idx, NULL);
  }
  if (s->kind != STMT_ATTR || thread_rank(s) <= f->thread_rank)
    return ir_mutate_children_stmt(m, s);
  int saved = f->thread_rank;
  f->thread_rank = thread_rank(s);
  Stmt *r = ir_mutate_children_stmt(m, s);
  f->thread_rank = saved;
  return r;
}

Stmt *pass_storage_flatten(Stmt *s, PassCtx *ctx) {
  Flatten f = {{ctx->arena, flatten_expr, flatten_stmt}, ctx, 0, 0, NULL, -1};
  for (int i = 0; i < ctx->nbinds; i++)
    push_binding(&f, (Binding){ctx->bind_tensors[i], ctx->bind_buffers[i], NULL});
  return ir_mutate_stmt(&f.m, s);
}
