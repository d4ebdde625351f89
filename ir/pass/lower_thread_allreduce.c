/* lower_thread_allreduce: cross-thread reductions as warp shuffles and shared memory (TVM's
 *   tir.LowerThreadAllreduce).
 * Assumes: flat buffers; each kernel is an outermost "thread_extent" attribute; each
 *   `@tir.tvm_thread_allreduce(n, values..., cond, temps[0]..., threads...)` stands alone
 *   under `attr [combiner] "reduce_scope"`, as schedule_ops builds it, inside the
 *   thread_extent attributes of the threads it names.
 * Guarantees: every allreduce is gone; in its place every thread of a reduction group (the
 *   threads that differ only in the reduced thread indices) gets the combination of the
 *   group's values (those where cond holds) in temps[i][0]. The reduced threads' extents
 *   need not be powers of two: the partial steps are guarded. Three forms, by the layout of
 *   the block (docs/ir.md, "Cross-thread reduction", walks through them):
 *   - the group is a run of at most 32 consecutive threads, a power of two, so whole groups
 *     tile each warp: __shfl_down_sync within the group's lanes (width = the group), then
 *     __shfl_sync from its first lane to all;
 *   - the group is the whole block: shuffles within each warp (guarded where the last warp is
 *     partial); a block of one warp then takes lane 0's result by __shfl_sync, a larger one
 *     puts one value per warp into shared memory, the first warp combines those, the result
 *     goes back through shared memory, with barriers before, between and after;
 *   - anything else (groups larger than a warp with several groups a block, or reduced
 *     indices that are not the fastest-varying ones, or values that do not shuffle): a tree
 *     in shared memory, halving with a barrier after each step.
 *   An allreduce that not every thread of the block reaches (under a condition or loop bound
 *   on a thread index) would deadlock on its barriers or shuffle with absent lanes: it is a
 *   "not supported yet" error on ctx->diag, as is a thread extent known only at run time.
 * Why here: last, after tir.ThreadSync, and only for GPU targets, as TVM runs it in its device
 *   build. It places its own barriers, so ThreadSync need not understand the tree's guarded
 *   steps (which it would refuse as barriers under a thread condition). */
#include <stdio.h>
#include <string.h>

#include "ir/pass/pass.h"
#include "ir/support.h"

enum { WARP = 32 };

typedef struct Lower {
  IrMutator m;
  PassCtx *ctx;
  bool in_kernel;
  int64_t block[3];      /* threadIdx.x/y/z extents of the kernel; 1 unbound, -1 not constant */
  const Var *dim_var[3]; /* the thread variable in scope for each dimension, or NULL */
  const Var **derived;   /* variables whose value depends on a thread index */
  int nderived, cap_derived;
  int on_thread; /* >0: under a condition, loop bound or let on a thread index */
  int count;     /* allreduces lowered so far, for the names of their buffers */
} Lower;

/* ---- the kernel's threads ---- */

static int thread_dim(const Stmt *s) {
  if (s->kind != STMT_ATTR || s->u.attr.nkind != ATTR_NODE_ITERVAR ||
      strcmp(s->u.attr.key, "thread_extent") != 0)
    return -1;
  const char *tag = ((const IterVar *)s->u.attr.node)->thread_tag;
  if (!tag || strncmp(tag, "threadIdx.", 10) != 0 || !tag[10] || tag[11]) return -2;
  return tag[10] >= 'x' && tag[10] <= 'z' ? tag[10] - 'x' : -2;
}

typedef struct Dims {
  IrVisitor v;
  int64_t *block;
} Dims;

static void dims_stmt(IrVisitor *v, const Stmt *s) {
  int d = thread_dim(s);
  if (d >= 0) {
    int64_t *slot = &((Dims *)v)->block[d], ext;
    if (!ir_as_int(s->u.attr.value, &ext))
      *slot = -1;
    else if (*slot != -1 && ext > *slot)
      *slot = ext;
  }
  ir_visit_children_stmt(v, s);
}

static bool uses_thread(const Lower *L, const Expr *e) {
  for (int d = 0; e && d < 3; d++)
    if (L->dim_var[d] && ir_expr_uses_var(e, L->dim_var[d])) return true;
  for (int i = 0; e && i < L->nderived; i++)
    if (ir_expr_uses_var(e, L->derived[i])) return true;
  return false;
}

/* ---- building blocks ---- */

typedef struct Out {
  Arena *a;
  Stmt **items;
  int n, cap;
} Out;

static void emit(Out *o, Stmt *s) {
  VEC_GROW(o->a, o->items, o->cap, o->n + 1);
  o->items[o->n++] = s;
}

static Stmt *seq_of(Out *o) { return ir_seq(o->a, o->n, o->items); }

typedef struct Allocs {
  Buffer **bufs;
  int n, cap;
} Allocs;

static Buffer *new_buffer(Arena *a, Allocs *al, const char *name, DType t, const char *scope,
                          int64_t size) {
  Buffer *b = arena_alloc(a, sizeof *b);
  Expr **shape = arena_alloc(a, sizeof *shape);
  shape[0] = ir_i32(a, size);
  *b = (Buffer){.name = arena_strndup(a, name, strlen(name)),
                .data = ir_var(a, name, DT_HANDLE64),
                .dtype = t,
                .ndim = 1,
                .shape = shape,
                .scope = scope,
                .offset_factor = 1};
  VEC_GROW(a, al->bufs, al->cap, al->n + 1);
  al->bufs[al->n++] = b;
  return b;
}

static Stmt *allocated(Arena *a, const Allocs *al, Stmt *body) {
  for (int i = al->n - 1; i >= 0; i--) {
    Buffer *b = al->bufs[i];
    body = ir_allocate(a, b->data, b->dtype, 1, b->shape, b->scope, NULL, body);
  }
  return body;
}

static Expr *ld(Arena *a, Buffer *b, Expr *idx) { return ir_load(a, b, idx, NULL); }
static Stmt *st(Arena *a, Buffer *b, Expr *idx, Expr *v) { return ir_store(a, b, v, idx, NULL); }
static Expr *i32(Arena *a, int64_t v) { return ir_i32(a, v); }
static Expr *bin(Arena *a, ExprKind k, Expr *x, Expr *y) { return ir_binary(a, k, x, y); }

static Stmt *sync_shared(Arena *a) {
  Expr *arg = ir_str(a, "shared");
  return ir_evaluate(a, ir_call(a, DT_MAKE(DT_INT, 32, 1), "tir.tvm_storage_sync", CALL_EFFECT,
                                1, &arg));
}

/* into[i][idx] = combine(into[.][idx], from[.][from_idx]) for every value i; with several
 * values each result is bound by a let first, so that none reads another's new value. */
static Stmt *combine_into(Arena *a, const CommReducer *c, Buffer **into, Expr *idx,
                          Buffer **from, Expr *from_idx) {
  int n = c->n;
  VarMap *map = arena_alloc(a, (size_t)(2 * n) * sizeof *map);
  for (int i = 0; i < n; i++) {
    map[2 * i] = (VarMap){c->lhs[i], ld(a, into[i], idx)};
    map[2 * i + 1] = (VarMap){c->rhs[i], ld(a, from[i], from_idx)};
  }
  if (n == 1) return st(a, into[0], idx, ir_substitute_expr(a, c->result[0], 2, map));
  Var **r = arena_alloc(a, (size_t)n * sizeof *r);
  Stmt **stores = arena_alloc(a, (size_t)n * sizeof *stores);
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "combined%d", i);
    r[i] = ir_var(a, name, into[i]->dtype);
    stores[i] = st(a, into[i], idx, ir_varref(a, r[i]));
  }
  Stmt *body = ir_seq(a, n, stores);
  for (int i = n - 1; i >= 0; i--)
    body = ir_let_stmt(a, r[i], ir_substitute_expr(a, c->result[i], 2 * n, map), body);
  return body;
}

static int64_t pow2_ceil(int64_t x) {
  int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

/* What one allreduce needs to know. */
typedef struct Red {
  const CommReducer *c;
  int n;
  Expr **values; /* cond folded in */
  Buffer **temps;
  Expr *reduce_index, *group_index; /* group_index NULL: not every dimension is in scope */
  int64_t reduce_extent, group_extent;
  char prefix[24]; /* "red_buf0" for the first allreduce, then "red_buf0_1", ... */
} Red;

static Buffer **buffers(Arena *a, Allocs *al, const Red *r, const char *what, const char *scope,
                        int64_t size) {
  Buffer **b = arena_alloc(a, (size_t)r->n * sizeof *b);
  for (int i = 0; i < r->n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%d%s", what, i, r->prefix);
    b[i] = new_buffer(a, al, name, r->values[i]->dtype, scope, size);
  }
  return b;
}

/* ---- the warp forms ---- */

static Expr *shuffle(Arena *a, const char *op, Buffer *mask, Expr *v, int64_t lane, int64_t width) {
  /* TVM's form: mask, value, lane (or offset), width, warp size */
  Expr *args[5] = {ld(a, mask, i32(a, 0)), v, i32(a, lane), i32(a, width), i32(a, 32)};
  return ir_call(a, v->dtype, op, CALL_EFFECT, 5, args);
}

/* v[i] combined down a tree over `count` lanes starting at each group's first (lane index
 * `index` within a segment of `width` lanes): after the step at offset o, lane j < o holds the
 * combination of lanes j, j + o, j + 2o, ... below count, so lane 0 ends with all of them.
 * Guarded where count is not a power of two: a lane whose partner is past count keeps its
 * value. */
static void warp_tree(Arena *a, Out *o, const Red *r, Buffer *mask, Buffer **v, Buffer **t,
                      Expr *index, int64_t count, int64_t width) {
  bool guard = pow2_ceil(count) != count;
  for (int64_t off = pow2_ceil(count) / 2; off >= 1; off /= 2) {
    for (int i = 0; i < r->n; i++)
      emit(o, st(a, t[i], i32(a, 0),
                 shuffle(a, "tir.tvm_warp_shuffle_down", mask, ld(a, v[i], i32(a, 0)), off,
                         width)));
    Stmt *step = combine_into(a, r->c, v, i32(a, 0), t, i32(a, 0));
    if (guard) step = ir_if(a, bin(a, EXPR_LT, bin(a, EXPR_ADD, index, i32(a, off)),
                                   i32(a, count)), step, NULL);
    emit(o, step);
  }
}

static Buffer *activemask(Arena *a, Allocs *al, Out *o, const Red *r) {
  char name[40];
  snprintf(name, sizeof name, "mask%s", r->prefix);
  Buffer *mask = new_buffer(a, al, name, DT_MAKE(DT_UINT, 32, 1), "local", 1);
  emit(o, st(a, mask, i32(a, 0),
             ir_call(a, DT_MAKE(DT_UINT, 32, 1), "tir.tvm_warp_activemask", CALL_EFFECT, 0,
                     NULL)));
  return mask;
}

/* Groups of `width` lanes (a power of two dividing the warp, or the whole block when it is
 * one partial warp of reduce_extent threads): the tree, then lane 0's result to all. */
static Stmt *warp_single(Arena *a, const Red *r, int64_t width) {
  Allocs al = {0};
  Out o = {a, NULL, 0, 0};
  Buffer *mask = activemask(a, &al, &o, r);
  Buffer **v = buffers(a, &al, r, "red_buf", "local", 1);
  Buffer **t = buffers(a, &al, r, "t", "local", 1);
  for (int i = 0; i < r->n; i++) emit(&o, st(a, v[i], i32(a, 0), r->values[i]));
  warp_tree(a, &o, r, mask, v, t, r->reduce_index, r->reduce_extent, width);
  for (int i = 0; i < r->n; i++) {
    emit(&o, st(a, v[i], i32(a, 0),
                shuffle(a, "tir.tvm_warp_shuffle", mask, ld(a, v[i], i32(a, 0)), 0, width)));
    emit(&o, st(a, r->temps[i], i32(a, 0), ld(a, v[i], i32(a, 0))));
  }
  return allocated(a, &al, seq_of(&o));
}

/* The group is the whole block, more than a warp: each warp's tree, its lane 0 into
 * staging[warp]; the first warp's tree over staging; its lane 0 into staging[0]; everyone
 * reads that. */
static Stmt *warp_multi(Arena *a, const Red *r) {
  Allocs al = {0};
  Out o = {a, NULL, 0, 0};
  int64_t E = r->reduce_extent, nwarps = (E + WARP - 1) / WARP;
  Buffer **staging = buffers(a, &al, r, "red_buf_staging", "shared", nwarps);
  emit(&o, sync_shared(a)); /* the last reads of staging, by an earlier allreduce in a loop */
  Buffer *mask = activemask(a, &al, &o, r);
  Buffer **v = buffers(a, &al, r, "red_buf", "local", 1);
  Buffer **t = buffers(a, &al, r, "t", "local", 1);
  Expr *idx = r->reduce_index;
  Expr *lane = bin(a, EXPR_FLOORMOD, idx, i32(a, WARP));
  for (int i = 0; i < r->n; i++) emit(&o, st(a, v[i], i32(a, 0), r->values[i]));
  /* the last warp holds E % 32 threads: guard with the block-wide index against E */
  bool partial = E % WARP != 0;
  for (int64_t off = WARP / 2; off >= 1; off /= 2) {
    for (int i = 0; i < r->n; i++)
      emit(&o, st(a, t[i], i32(a, 0),
                  shuffle(a, "tir.tvm_warp_shuffle_down", mask, ld(a, v[i], i32(a, 0)), off,
                          WARP)));
    Stmt *step = combine_into(a, r->c, v, i32(a, 0), t, i32(a, 0));
    if (partial)
      step = ir_if(a, bin(a, EXPR_LT, bin(a, EXPR_ADD, idx, i32(a, off)), i32(a, E)), step, NULL);
    emit(&o, step);
  }
  Out lead = {a, NULL, 0, 0};
  for (int i = 0; i < r->n; i++)
    emit(&lead, st(a, staging[i], bin(a, EXPR_FLOORDIV, idx, i32(a, WARP)),
                   ld(a, v[i], i32(a, 0))));
  emit(&o, ir_if(a, bin(a, EXPR_EQ, lane, i32(a, 0)), seq_of(&lead), NULL));
  emit(&o, sync_shared(a));
  Out first = {a, NULL, 0, 0};
  Out load = {a, NULL, 0, 0};
  for (int i = 0; i < r->n; i++) emit(&load, st(a, v[i], i32(a, 0), ld(a, staging[i], idx)));
  emit(&first, ir_if(a, bin(a, EXPR_LT, idx, i32(a, nwarps)), seq_of(&load), NULL));
  warp_tree(a, &first, r, mask, v, t, idx, nwarps, WARP);
  Out back = {a, NULL, 0, 0};
  for (int i = 0; i < r->n; i++)
    emit(&back, st(a, staging[i], i32(a, 0), ld(a, v[i], i32(a, 0))));
  emit(&first, ir_if(a, bin(a, EXPR_EQ, idx, i32(a, 0)), seq_of(&back), NULL));
  emit(&o, ir_if(a, bin(a, EXPR_LT, idx, i32(a, WARP)), seq_of(&first), NULL));
  emit(&o, sync_shared(a));
  for (int i = 0; i < r->n; i++)
    emit(&o, st(a, r->temps[i], i32(a, 0), ld(a, staging[i], i32(a, 0))));
  return allocated(a, &al, seq_of(&o));
}

/* ---- the shared-memory tree ---- */

/* buf[group*E + index] for each thread; halving steps, each followed by a barrier; the first
 * a partial one when E is not a power of two. */
static Stmt *shared_tree(Arena *a, const Red *r) {
  Allocs al = {0};
  Out o = {a, NULL, 0, 0};
  int64_t E = r->reduce_extent;
  Buffer **buf = buffers(a, &al, r, "red_buf", "shared", r->group_extent * E);
  Expr *base = r->group_extent == 1 ? i32(a, 0) : bin(a, EXPR_MUL, r->group_index, i32(a, E));
  Expr *idx = r->group_extent == 1 ? r->reduce_index : bin(a, EXPR_ADD, base, r->reduce_index);
  emit(&o, sync_shared(a)); /* the last reads of buf, by an earlier allreduce in a loop */
  for (int i = 0; i < r->n; i++) emit(&o, st(a, buf[i], idx, r->values[i]));
  emit(&o, sync_shared(a));
  int64_t align = pow2_ceil(E);
  while (align > 1) {
    int64_t limit = align > E ? E - align / 2 : align / 2;
    align /= 2;
    Stmt *step = combine_into(a, r->c, buf, idx, buf, bin(a, EXPR_ADD, idx, i32(a, align)));
    emit(&o, ir_if(a, bin(a, EXPR_LT, r->reduce_index, i32(a, limit)), step, NULL));
    emit(&o, sync_shared(a));
  }
  for (int i = 0; i < r->n; i++) emit(&o, st(a, r->temps[i], i32(a, 0), ld(a, buf[i], base)));
  return allocated(a, &al, seq_of(&o));
}

/* ---- one allreduce ---- */

static bool shuffles(DType t) {
  return t.lanes == 1 && (t.code == DT_INT || t.code == DT_UINT || t.code == DT_FLOAT) &&
         (t.bits == 32 || t.bits == 64);
}

static Stmt *refuse(Lower *L, const Stmt *s, const char *why) {
  ir_error(L->ctx->diag, "not supported yet: a cross-thread reduction %s", why);
  return (Stmt *)s;
}

/* The thread dimensions the allreduce reduces over (a bit each), or -1. */
static int reduced_dims(Lower *L, const Expr *call, int first) {
  int mask = 0;
  for (int k = first; k < call->u.call.n; k++) {
    const Expr *v = call->u.call.args[k];
    /* a thread index of extent 1 the simplifier replaced by 0: one thread, nothing to reduce
     * across (as TVM's pass ignores it) */
    if (ir_is_const_int(v, 0)) continue;
    int d = 0;
    while (d < 3 && !(v->kind == EXPR_VAR && L->dim_var[d] == v->u.var)) d++;
    if (d == 3) return -1;
    mask |= 1 << d;
  }
  return mask;
}

/* The flat index of the dimensions in `dims` (a bit each), the lower ones varying fastest, and
 * their extent in the kernel; the index is NULL when one of them is not in scope (its extent
 * still counts). */
static Expr *flatten(Lower *L, int dims, int64_t *extent) {
  Arena *a = L->m.arena;
  Expr *index = NULL;
  bool missing = false;
  *extent = 1;
  for (int d = 0; d < 3; d++) {
    if (!(dims & (1 << d)) || L->block[d] == 1) continue;
    if (!L->dim_var[d]) missing = true;
    if (!missing) {
      Expr *v = ir_varref(a, (Var *)L->dim_var[d]);
      Expr *term = *extent == 1 ? v : bin(a, EXPR_MUL, v, i32(a, *extent));
      index = index ? bin(a, EXPR_ADD, index, term) : term;
    }
    *extent *= L->block[d];
  }
  return missing ? NULL : index ? index : i32(a, 0);
}

static Stmt *make_allreduce(Lower *L, const Stmt *s, const CommReducer *c, const Expr *call) {
  Arena *a = L->m.arena;
  int n = c->n;
  int64_t nv;
  const Expr *const *args = (const Expr *const *)call->u.call.args;
  if (call->u.call.n < 2 * n + 2 || !ir_as_int(args[0], &nv) || nv != n) {
    ir_internal_error(L->ctx->diag, "tvm_thread_allreduce with %d arguments for %d values",
                      call->u.call.n, n);
    return (Stmt *)s;
  }
  if (L->on_thread)
    return refuse(L, s, "under a condition, loop bound or let on a thread index (every thread "
                        "of the block must reach it)");
  int dims = reduced_dims(L, call, 2 * n + 2);
  if (dims < 0) return refuse(L, s, "over a thread index it is not inside the binding of");
  for (int d = 0; d < 3; d++)
    if (L->block[d] < 0)
      return refuse(L, s, "in a kernel whose thread extents are known only at run time");
  Red r = {.c = c, .n = n};
  snprintf(r.prefix, sizeof r.prefix, L->count ? "_%d" : "", L->count);
  L->count++;
  r.values = arena_alloc(a, (size_t)n * sizeof *r.values);
  r.temps = arena_alloc(a, (size_t)n * sizeof *r.temps);
  Expr *cond = (Expr *)args[n + 1];
  bool contiguous = true, shuffle_ok = true;
  for (int i = 0; i < n; i++) {
    const Expr *t = args[n + 2 + i];
    if (t->kind != EXPR_LOAD) {
      ir_internal_error(L->ctx->diag, "tvm_thread_allreduce's result %d is not a buffer", i);
      return (Stmt *)s;
    }
    r.temps[i] = t->u.load.buf;
    Expr *v = (Expr *)args[1 + i];
    r.values[i] = ir_is_const_int(cond, 1) ? v : ir_select(a, cond, v, c->identity[i]);
    shuffle_ok = shuffle_ok && shuffles(v->dtype);
  }
  r.reduce_index = flatten(L, dims, &r.reduce_extent);
  r.group_index = flatten(L, 7 & ~dims, &r.group_extent);
  /* the group's threads are consecutive when no dimension below a reduced one varies */
  for (int d = 0; d < 3; d++)
    if (!(dims & (1 << d)) && L->block[d] > 1 && (dims >> d) > 1) contiguous = false;
  int64_t E = r.reduce_extent;
  Stmt *out;
  if (E == 1) {
    Out o = {a, NULL, 0, 0};
    for (int i = 0; i < n; i++) emit(&o, st(a, r.temps[i], i32(a, 0), r.values[i]));
    out = seq_of(&o);
  } else if (contiguous && shuffle_ok && E <= WARP && pow2_ceil(E) == E) {
    out = warp_single(a, &r, E);
  } else if (contiguous && shuffle_ok && r.group_extent == 1 && E <= WARP) {
    out = warp_single(a, &r, WARP);
  } else if (contiguous && shuffle_ok && r.group_extent == 1) {
    out = warp_multi(a, &r);
  } else if (!r.group_index) {
    return refuse(L, s, "outside the binding of a thread index of its block that it does not "
                        "reduce over");
  } else {
    out = shared_tree(a, &r);
  }
  return out;
}

/* ---- the walk ---- */

static Stmt *lower_stmt(IrMutator *m, Stmt *s) {
  Lower *L = (Lower *)m;
  switch (s->kind) {
  case STMT_ATTR: {
    if (s->u.attr.nkind == ATTR_NODE_COMMREDUCER && strcmp(s->u.attr.key, "reduce_scope") == 0) {
      const Stmt *b = s->u.attr.body;
      if (b->kind == STMT_EVALUATE && b->u.eval.value->kind == EXPR_CALL &&
          strcmp(b->u.eval.value->u.call.op, "tir.tvm_thread_allreduce") == 0)
        return make_allreduce(L, s, s->u.attr.node, b->u.eval.value);
      return ir_mutate_children_stmt(m, s);
    }
    int d = thread_dim(s);
    if (d == -1) return ir_mutate_children_stmt(m, s);
    bool kernel = !L->in_kernel;
    if (kernel) {
      L->in_kernel = true;
      L->block[0] = L->block[1] = L->block[2] = 1;
      Dims dv = {{NULL, dims_stmt}, L->block};
      ir_visit_stmt(&dv.v, s);
    }
    const Var *saved = d >= 0 ? L->dim_var[d] : NULL;
    if (d >= 0) L->dim_var[d] = ((const IterVar *)s->u.attr.node)->var;
    Stmt *r = ir_mutate_children_stmt(m, s);
    if (d >= 0) L->dim_var[d] = saved;
    if (kernel) L->in_kernel = false;
    return r;
  }
  case STMT_IF:
  case STMT_FOR: {
    bool dep = s->kind == STMT_IF ? uses_thread(L, s->u.if_.cond)
                                  : uses_thread(L, s->u.for_.min) ||
                                        uses_thread(L, s->u.for_.extent);
    L->on_thread += dep;
    Stmt *r = ir_mutate_children_stmt(m, s);
    L->on_thread -= dep;
    return r;
  }
  case STMT_LET:
    if (uses_thread(L, s->u.let.value)) {
      VEC_GROW(m->arena, L->derived, L->cap_derived, L->nderived + 1);
      L->derived[L->nderived++] = s->u.let.var;
    }
    return ir_mutate_children_stmt(m, s);
  case STMT_EVALUATE:
    if (s->u.eval.value->kind == EXPR_CALL &&
        strcmp(s->u.eval.value->u.call.op, "tir.tvm_thread_allreduce") == 0)
      ir_internal_error(L->ctx->diag, "tvm_thread_allreduce outside a reduce_scope attribute");
    return s;
  case STMT_SEQ:
  case STMT_STORE:
  case STMT_PROVIDE:
  case STMT_REALIZE:
  case STMT_ALLOCATE:
  case STMT_ASSERT:
    return ir_mutate_children_stmt(m, s);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Whether s holds an allreduce, so that a kernel without one is returned as it is. */
static bool is_allreduce(const Expr *e, const void *ctx) {
  (void)ctx;
  return e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_thread_allreduce") == 0;
}

Stmt *pass_lower_thread_allreduce(Stmt *s, PassCtx *ctx) {
  if (!ir_stmt_any(s, is_allreduce, NULL, NULL)) return s;
  Lower L = {.m = {ctx->arena, NULL, lower_stmt}, .ctx = ctx};
  Stmt *r = ir_mutate_stmt(&L.m, s);
  return diag_failed(ctx->diag) ? s : r;
}
