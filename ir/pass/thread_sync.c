/* thread_sync: barriers between the threads of a block around shared memory (TVM's
 *   tir.ThreadSync for the "shared" scope).
 * Assumes: flat buffers; each kernel is an outermost "thread_extent" attribute; shared buffers
 *   are allocations of scope "shared" (or buffers whose scope says so).
 * Guarantees: inside each kernel, `@tir.tvm_storage_sync("shared")` stands between every
 *   access to a shared buffer and a later access to the same buffer by which one of the two
 *   writes and the other reads (read after write, and write after read across the iterations of
 *   a loop), on every path the program can take. Indices are not compared: any two such
 *   accesses are taken to be by different threads, so a barrier is put where one might be
 *   needed (correctness first). A barrier goes as far out as it can: before the outermost
 *   statement whose accesses conflict with those since the last barrier. A barrier that would
 *   have to sit under a condition, loop bound or let on a thread index (threadIdx.*, which not
 *   every thread of the block would reach, a deadlock) is an error on ctx->diag ("not supported
 *   yet"), and the input is returned. Everything else is returned as it is. A shared buffer's
 *   address passed on is taken as read and written, unless it is a tvm_access_ptr, whose mask
 *   says which.
 * Why here: last, on the lowered kernel, and only for GPU targets, as TVM runs it in its device
 *   build; tvm.lower's output does not have it. */
#include <string.h>

#include "ir/pass/pass.h"
#include "ir/support.h"

/* The shared buffers of the function, a bit each; past 63 they share the last bit, which only
 * adds barriers. */
enum { MAX_BITS = 64 };

/* Shared accesses since the last barrier on the path to a point. */
typedef struct Seen {
  uint64_t reads, writes;
} Seen;

typedef struct Sync {
  PassCtx *ctx;
  const Var **shared; /* in bit order */
  int nshared;
  const Var **thread; /* threadIdx variables and lets computed from them */
  int nthread;
  int in_thread_branch; /* >0: under a condition on the thread index */
} Sync;

static void push_var(Arena *a, const Var ***list, int *n, const Var *v) {
  for (int i = 0; i < *n; i++)
    if ((*list)[i] == v) return;
  const Var **grown = arena_alloc(a, (size_t)(*n + 1) * sizeof *grown);
  if (*n) memcpy(grown, *list, (size_t)*n * sizeof *grown);
  grown[(*n)++] = v;
  *list = grown;
}

static uint64_t bit_of(const Sync *y, const Var *v) {
  for (int i = 0; i < y->nshared; i++)
    if (y->shared[i] == v) return UINT64_C(1) << (i < MAX_BITS ? i : MAX_BITS - 1);
  return 0;
}

/* ---- finding the shared buffers and the thread variables ---- */

typedef struct Collect {
  IrVisitor v;
  Sync *y;
} Collect;

static bool is_shared(const char *scope) { return scope && strcmp(scope, "shared") == 0; }

static void collect_expr(IrVisitor *v, const Expr *e) {
  Sync *y = ((Collect *)v)->y;
  if (e->kind == EXPR_LOAD && is_shared(e->u.load.buf->scope))
    push_var(y->ctx->arena, &y->shared, &y->nshared, e->u.load.buf->data);
  ir_visit_children_expr(v, e);
}

static void collect_stmt(IrVisitor *v, const Stmt *s) {
  Sync *y = ((Collect *)v)->y;
  Arena *a = y->ctx->arena;
  if (s->kind == STMT_ALLOCATE && is_shared(s->u.alloc.scope))
    push_var(a, &y->shared, &y->nshared, s->u.alloc.buffer_var);
  if (s->kind == STMT_STORE && is_shared(s->u.store.buf->scope))
    push_var(a, &y->shared, &y->nshared, s->u.store.buf->data);
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0 &&
      s->u.attr.nkind == ATTR_NODE_ITERVAR) {
    const IterVar *iv = s->u.attr.node;
    if (iv->thread_tag && strncmp(iv->thread_tag, "threadIdx.", 10) == 0)
      push_var(a, &y->thread, &y->nthread, iv->var);
  }
  ir_visit_children_stmt(v, s);
}

static bool on_thread(const Sync *y, const Expr *e) {
  for (int i = 0; e && i < y->nthread; i++)
    if (ir_expr_uses_var(e, y->thread[i])) return true;
  return false;
}

/* ---- what a statement touches ---- */

typedef struct Access {
  IrVisitor v;
  const Sync *y;
  Seen seen;
  bool synced; /* holds a barrier */
} Access;

static void access_expr(IrVisitor *v, const Expr *e) {
  Access *x = (Access *)v;
  if (e->kind == EXPR_LOAD) x->seen.reads |= bit_of(x->y, e->u.load.buf->data);
  /* tvm_access_ptr(type, data, offset, extent, mask) says how the pointer is used: mask 1
   * read, 2 written (a TensorCore load reads shared memory, it does not write it) */
  int64_t mask;
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_access_ptr") == 0 &&
      e->u.call.n == 5 && e->u.call.args[1]->kind == EXPR_VAR &&
      ir_as_int(e->u.call.args[4], &mask) && mask >= 1 && mask <= 3) {
    uint64_t b = bit_of(x->y, e->u.call.args[1]->u.var);
    if (mask & 1) x->seen.reads |= b;
    if (mask & 2) x->seen.writes |= b;
    for (int i = 2; i < 4; i++) ir_visit_expr(v, e->u.call.args[i]);
    return;
  }
  /* a shared pointer passed on (an address, an extern call): read and written, for all we know */
  if (e->kind == EXPR_VAR) {
    uint64_t b = bit_of(x->y, e->u.var);
    x->seen.reads |= b, x->seen.writes |= b;
  }
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_storage_sync") == 0) x->synced = true;
  ir_visit_children_expr(v, e);
}

static void access_stmt(IrVisitor *v, const Stmt *s) {
  Access *x = (Access *)v;
  if (s->kind == STMT_STORE) x->seen.writes |= bit_of(x->y, s->u.store.buf->data);
  ir_visit_children_stmt(v, s);
}

static Access access_of(const Sync *y, const Stmt *s) {
  Access x = {{access_expr, access_stmt}, y, {0, 0}, false};
  if (s) ir_visit_stmt(&x.v, s);
  return x;
}

static Access access_of_expr(const Sync *y, const Expr *e) {
  Access x = {{access_expr, access_stmt}, y, {0, 0}, false};
  if (e) ir_visit_expr(&x.v, e);
  return x;
}

static bool conflicts(Seen a, Seen since) {
  return (a.reads & since.writes) || (a.writes & since.reads);
}

static void add(Seen *into, Seen a) { into->reads |= a.reads, into->writes |= a.writes; }

/* ---- placing the barriers ---- */

static Stmt *barrier(Arena *a) {
  Expr *scope = ir_str(a, "shared");
  return ir_evaluate(a, ir_call(a, DT_I32, "tir.tvm_storage_sync", CALL_EFFECT, 1, &scope));
}

static Stmt *plan(Sync *y, Stmt *s, Seen *since);
static Stmt *host(Sync *y, Stmt *s);

/* s planned inside a kernel, or, with since NULL, walked as host code */
static Stmt *walk(Sync *y, Stmt *s, Seen *since) { return since ? plan(y, s, since) : host(y, s); }

static Stmt *each_item(Sync *y, Stmt *s, Seen *since) {
  Stmt **items = arena_alloc(y->ctx->arena, (size_t)s->u.seq.n * sizeof *items);
  bool changed = false;
  for (int i = 0; i < s->u.seq.n; i++) {
    items[i] = walk(y, s->u.seq.items[i], since);
    changed = changed || items[i] != s->u.seq.items[i];
  }
  return changed ? ir_seq(y->ctx->arena, s->u.seq.n, items) : s;
}

static Stmt *attr_body(Sync *y, Stmt *s, Seen *since) {
  Stmt *body = walk(y, s->u.attr.body, since);
  if (body == s->u.attr.body) return s;
  return ir_attr(y->ctx->arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, s->u.attr.value,
                 body);
}

/* Under a condition on the thread index when `on` holds. */
static Stmt *plan_under(Sync *y, Stmt *s, Seen *since, bool on) {
  y->in_thread_branch += on;
  Stmt *out = plan(y, s, since);
  y->in_thread_branch -= on;
  return out;
}

/* A loop's body runs again after itself: the accesses at its end meet those at its start.
 * The set at the body's entry grows until it holds what the end of an iteration leaves. */
static Stmt *plan_for(Sync *y, Stmt *s, Seen *since) {
  bool on = on_thread(y, s->u.for_.min) || on_thread(y, s->u.for_.extent);
  Seen entry = *since;
  Stmt *body;
  for (;;) {
    Seen end = entry;
    body = plan_under(y, s->u.for_.body, &end, on);
    if (diag_failed(y->ctx->diag)) return s;
    Seen next = entry;
    add(&next, end);
    if (next.reads == entry.reads && next.writes == entry.writes) break;
    entry = next;
  }
  *since = entry;
  if (body == s->u.for_.body) return s;
  return ir_for(y->ctx->arena, s->u.for_.var, s->u.for_.min, s->u.for_.extent, s->u.for_.fkind,
                s->u.for_.thread_tag, body);
}

static Stmt *plan_kind(Sync *y, Stmt *s, Seen *since) {
  Arena *a = y->ctx->arena;
  switch (s->kind) {
  case STMT_SEQ:
    return each_item(y, s, since);
  case STMT_FOR:
    return plan_for(y, s, since);
  case STMT_IF: {
    add(since, access_of_expr(y, s->u.if_.cond).seen);
    bool on = on_thread(y, s->u.if_.cond);
    Seen other = *since;
    Stmt *then = plan_under(y, s->u.if_.then, since, on);
    Stmt *orelse = s->u.if_.orelse ? plan_under(y, s->u.if_.orelse, &other, on) : NULL;
    add(since, other);
    if (then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
    return ir_if(a, s->u.if_.cond, then, orelse);
  }
  case STMT_ATTR:
    return attr_body(y, s, since);
  case STMT_ALLOCATE: {
    Stmt *body = plan(y, s->u.alloc.body, since);
    if (body == s->u.alloc.body) return s;
    return ir_allocate(a, s->u.alloc.buffer_var, s->u.alloc.dtype, s->u.alloc.ndim,
                       s->u.alloc.extents, s->u.alloc.scope, s->u.alloc.condition, body);
  }
  case STMT_LET: {
    add(since, access_of_expr(y, s->u.let.value).seen);
    if (on_thread(y, s->u.let.value)) push_var(a, &y->thread, &y->nthread, s->u.let.var);
    Stmt *body = plan(y, s->u.let.body, since);
    if (body == s->u.let.body) return s;
    return ir_let_stmt(a, s->u.let.var, s->u.let.value, body);
  }
  case STMT_ASSERT: {
    add(since, access_of_expr(y, s->u.assert_.cond).seen);
    Stmt *body = plan(y, s->u.assert_.body, since);
    if (body == s->u.assert_.body) return s;
    return ir_assert(a, s->u.assert_.cond, s->u.assert_.msg, body);
  }
  default: /* a store, an evaluation: one access */
    add(since, access_of(y, s).seen);
    return s;
  }
}

/* s with a barrier before it when what it touches conflicts with what was touched since the
 * last one; *since: the accesses since the last barrier, before s and then after it. */
static Stmt *plan(Sync *y, Stmt *s, Seen *since) {
  if (!s || diag_failed(y->ctx->diag)) return s;
  Access x = access_of(y, s);
  if (s->kind == STMT_EVALUATE && x.synced) {
    *since = (Seen){0, 0};
    return s;
  }
  if (!x.seen.reads && !x.seen.writes && !x.synced) return s;
  bool before = conflicts(x.seen, *since);
  if (before) {
    if (y->in_thread_branch) {
      ir_error(y->ctx->diag, "not supported yet: shared memory needs a barrier "
                             "(tvm_storage_sync) under a condition on the thread index, which "
                             "not every thread of the block would reach");
      return s;
    }
    *since = (Seen){0, 0};
  }
  Stmt *out = plan_kind(y, s, since);
  if (!before) return out;
  return ir_seq(y->ctx->arena, 2, (Stmt *[]){barrier(y->ctx->arena), out});
}

/* The host part: each kernel starts with nothing seen. Kernels may sit under the host's
 * allocations of intermediate buffers, loops, conditions and lets (kernels in sequence). */
static Stmt *host(Sync *y, Stmt *s) {
  if (!s) return s;
  Arena *a = y->ctx->arena;
  switch (s->kind) {
  case STMT_ATTR:
    if (strcmp(s->u.attr.key, "thread_extent") == 0) {
      Seen since = {0, 0};
      return plan(y, s, &since);
    }
    return attr_body(y, s, NULL);
  case STMT_SEQ:
    return each_item(y, s, NULL);
  case STMT_ALLOCATE: {
    Stmt *body = host(y, s->u.alloc.body);
    if (body == s->u.alloc.body) return s;
    return ir_allocate(a, s->u.alloc.buffer_var, s->u.alloc.dtype, s->u.alloc.ndim,
                       s->u.alloc.extents, s->u.alloc.scope, s->u.alloc.condition, body);
  }
  case STMT_FOR: {
    Stmt *body = host(y, s->u.for_.body);
    if (body == s->u.for_.body) return s;
    return ir_for(a, s->u.for_.var, s->u.for_.min, s->u.for_.extent, s->u.for_.fkind,
                  s->u.for_.thread_tag, body);
  }
  case STMT_IF: {
    Stmt *then = host(y, s->u.if_.then), *orelse = host(y, s->u.if_.orelse);
    if (then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
    return ir_if(a, s->u.if_.cond, then, orelse);
  }
  case STMT_LET: {
    Stmt *body = host(y, s->u.let.body);
    if (body == s->u.let.body) return s;
    return ir_let_stmt(a, s->u.let.var, s->u.let.value, body);
  }
  case STMT_ASSERT: {
    Stmt *body = host(y, s->u.assert_.body);
    if (body == s->u.assert_.body) return s;
    return ir_assert(a, s->u.assert_.cond, s->u.assert_.msg, body);
  }
  default:
    return s; /* code outside every kernel runs on the host: no threads to wait for */
  }
}

Stmt *pass_thread_sync(Stmt *s, PassCtx *ctx) {
  Sync y = {.ctx = ctx};
  Collect c = {{collect_expr, collect_stmt}, &y};
  ir_visit_stmt(&c.v, s);
  if (y.nshared == 0) return s;
  Stmt *out = host(&y, s);
  return diag_failed(ctx->diag) ? s : out;
}
