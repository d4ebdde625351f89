/* inject_virtual_thread: replaces each virtual thread by copies of the code it covers (TVM's
 *   tir.InjectVirtualThread, its VTInjector).
 * Assumes: flat buffers (after storage_flatten); a vthread/cthread binding is an
 *   `attr [IterVar(vx)] "virtual_thread" = N` over the code of its stage.
 * Guarantees: no "virtual_thread" attr remains; vx is free nowhere. The variables, buffers and
 *   lets whose values depend on vx are "touched" (followed through the stores that compute
 *   them). Each innermost statement that reads a touched one (a store, or a loop, `if`, let or
 *   allocate whose own expressions do) is replaced by N copies with vx = 0 .. N-1 when it holds
 *   no loop and N is a constant below 16, else by `for (vx.s, 0, N)` around it. An allocation
 *   touched by vx (under a cthread: every allocation, and every store is copied, since the
 *   copies must not share anything) grows N-fold, its first extent multiplied by N, and each
 *   access adds vx*size, size being its element count, so every copy has its own storage; its
 *   Buffer keeps its shape. What vx does not touch is returned as it is, so a thread that
 *   every statement ignores leaves one copy. The copies share the variables they bind (loops,
 *   lets, allocations): TVM renames them with ConvertSSA; here a Var is its pointer and each
 *   copy binds it in its own scope, which is all the later passes and printers need.
 * Why here: right after storage flattening, as in TVM, so that the accesses it offsets are
 *   flat, and before unrolling and vectorization, which see plain loops. */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/support.h"

/* ---- small sets of variables ---- */

typedef struct VarSet {
  int n, cap;
  const Var **v;
} VarSet;

static bool set_has(const VarSet *s, const Var *v) {
  for (int i = 0; i < s->n; i++)
    if (s->v[i] == v) return true;
  return false;
}

static void set_add(VarSet *s, const Var *v) {
  if (set_has(s, v)) return;
  VEC_GROW(NULL, s->v, s->cap, s->n + 1);
  s->v[s->n++] = v;
}

static void set_free(VarSet *s) {
  free(s->v);
  *s = (VarSet){0};
}

/* tvm_access_ptr(type, data, offset, extent, rw_mask): a pointer into a buffer that a tensor
 * intrinsic reads (mask 1) or writes (mask 2). */
static bool is_access_ptr(const Expr *e) {
  return e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_access_ptr") == 0 &&
         e->u.call.n == 5 && e->u.call.args[1]->kind == EXPR_VAR &&
         e->u.call.args[4]->kind == EXPR_INT;
}

/* ---- which variables vx touches (TVM's VarTouchedAnalysis) ---- */

/* One expression's reads: whether it reads a touched variable and, until it does, the
 * variables (and buffers) it reads, so that a later touch can reach what it computes. */
typedef struct ExprTouch {
  IrVisitor v;
  const VarSet *touched;
  bool check_write; /* an evaluated call: collect the buffers it writes too */
  bool hit;
  VarSet used, written;
} ExprTouch;

static void use_var(ExprTouch *t, const Var *v) {
  if (set_has(t->touched, v)) t->hit = true;
  if (!t->hit) set_add(&t->used, v);
}

static void touch_expr(IrVisitor *v, const Expr *e) {
  ExprTouch *t = (ExprTouch *)v;
  if (t->hit && !t->check_write) return;
  if (e->kind == EXPR_VAR) {
    use_var(t, e->u.var);
  } else if (e->kind == EXPR_LOAD) {
    use_var(t, e->u.load.buf->data);
    ir_visit_children_expr(v, e);
  } else if (is_access_ptr(e)) {
    int64_t mask = e->u.call.args[4]->u.ival;
    if (mask & 1) use_var(t, e->u.call.args[1]->u.var);
    if (mask & 2) set_add(&t->written, e->u.call.args[1]->u.var);
    ir_visit_expr(v, e->u.call.args[2]);
  } else {
    ir_visit_children_expr(v, e);
  }
}

typedef struct Affect {
  const Var *from, *to; /* a touch of from touches to */
} Affect;

typedef struct Touched {
  IrVisitor v;
  VarSet set;
  int n, cap;
  Affect *edges;
} Touched;

static ExprTouch expr_touch(const Touched *tv, bool check_write) {
  return (ExprTouch){{touch_expr, NULL}, &tv->set, check_write, false, {0}, {0}};
}

static void scan(ExprTouch *t, const Expr *e) {
  if (e) ir_visit_expr(&t->v, e);
}

/* v is computed from what t read: touched now, or when one of those reads is. */
static void record(Touched *tv, const Var *v, const ExprTouch *t) {
  if (set_has(&tv->set, v)) return;
  if (t->hit) {
    set_add(&tv->set, v);
    return;
  }
  for (int i = 0; i < t->used.n; i++) {
    if (t->used.v[i] == v) continue;
    VEC_GROW(NULL, tv->edges, tv->cap, tv->n + 1);
    tv->edges[tv->n++] = (Affect){t->used.v[i], v};
  }
}

/* What a statement computes: a let's variable, a store's buffer, a loop's variable, the
 * buffers a call writes, an allocation's buffer. */
static void record_stmt(Touched *tv, const Stmt *s, ExprTouch *t) {
  switch (s->kind) {
  case STMT_LET:
    scan(t, s->u.let.value);
    record(tv, s->u.let.var, t);
    return;
  case STMT_STORE:
    scan(t, s->u.store.value);
    scan(t, s->u.store.index);
    record(tv, s->u.store.buf->data, t);
    return;
  case STMT_FOR:
    scan(t, s->u.for_.min);
    scan(t, s->u.for_.extent);
    record(tv, s->u.for_.var, t);
    return;
  case STMT_EVALUATE:
    scan(t, s->u.eval.value);
    for (int i = 0; i < t->written.n; i++) record(tv, t->written.v[i], t);
    return;
  case STMT_ALLOCATE:
    for (int i = 0; i < s->u.alloc.ndim; i++) scan(t, s->u.alloc.extents[i]);
    scan(t, s->u.alloc.condition);
    record(tv, s->u.alloc.buffer_var, t);
    return;
  case STMT_IF:
  case STMT_SEQ:
  case STMT_PROVIDE:
  case STMT_REALIZE:
  case STMT_ATTR:
  case STMT_ASSERT:
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static void touched_stmt(IrVisitor *v, const Stmt *s) {
  Touched *tv = (Touched *)v;
  ExprTouch t = expr_touch(tv, s->kind == STMT_EVALUATE);
  record_stmt(tv, s, &t);
  set_free(&t.used);
  set_free(&t.written);
  ir_visit_children_stmt(v, s);
}

/* Only statements are walked; their expressions are read by ExprTouch above. */
static void skip_expr(IrVisitor *v, const Expr *e) {}

/* Every variable whose value depends on vx: what the statements compute from it, then what is
 * computed from those, to the end (the order of the statements does not matter). */
static VarSet touched_vars(const Stmt *body, const Var *vx) {
  Touched tv = {{skip_expr, touched_stmt}, {0}, 0, 0, NULL};
  set_add(&tv.set, vx);
  ir_visit_stmt(&tv.v, body);
  for (int i = 0; i < tv.set.n; i++) /* the set grows as the loop runs: a breadth-first walk */
    for (int j = 0; j < tv.n; j++)
      if (tv.edges[j].from == tv.set.v[i]) set_add(&tv.set, tv.edges[j].to);
  free(tv.edges);
  return tv.set;
}

/* ---- the copies (TVM's VTInjector) ---- */

typedef struct Remap {
  const Var *buf;
  Expr *size; /* the elements of one copy */
} Remap;

typedef struct Injector {
  IrMutator m;
  Var *vx;
  Expr *nthreads;
  const VarSet *touched;
  bool allow_share;   /* vthread: copies may share untouched storage; cthread: never */
  bool injected;      /* inside the statement being copied */
  bool reads_touched; /* the expressions just mutated read a touched variable */
  bool must_copy;     /* a store or call under a cthread: copy it even if untouched */
  int n, cap;
  Remap *remaps;
} Injector;

static Expr *size_of(const Injector *in, const Var *buf) {
  for (int i = in->n - 1; i >= 0; i--)
    if (in->remaps[i].buf == buf) return in->remaps[i].size;
  return NULL;
}

/* index + vx*size, in index's dtype (and lanes). */
static Expr *offset(Injector *in, Expr *index, Expr *size) {
  Arena *a = in->m.arena;
  DType t = dt_element(index->dtype);
  Expr *off =
      arith_binary(a, EXPR_MUL, arith_cast(a, t, ir_varref(a, in->vx)), arith_cast(a, t, size));
  if (index->dtype.lanes > 1) off = ir_broadcast(a, off, index->dtype.lanes);
  return ir_binary(a, EXPR_ADD, index, off);
}

static Expr *inject_access_ptr(Injector *in, Expr *e) {
  Expr *size = size_of(in, e->u.call.args[1]->u.var);
  if (!size) return ir_mutate_children_expr(&in->m, e);
  in->reads_touched = true;
  Arena *a = in->m.arena;
  Expr *args[5];
  memcpy(args, e->u.call.args, sizeof args);
  args[2] = ir_mutate_expr(&in->m, args[2]);
  args[3] = ir_mutate_expr(&in->m, args[3]);
  int lanes = args[0]->dtype.lanes;
  Expr *stride = arith_binary(a, EXPR_DIV, arith_cast(a, args[2]->dtype, size),
                              arith_const(a, args[2]->dtype, lanes));
  DType t = args[2]->dtype;
  args[2] =
      ir_binary(a, EXPR_ADD,
                arith_binary(a, EXPR_MUL, stride, arith_cast(a, t, ir_varref(a, in->vx))), args[2]);
  return ir_call(a, e->dtype, e->u.call.op, e->u.call.ckind, 5, args);
}

static Expr *inject_expr(IrMutator *m, Expr *e) {
  Injector *in = (Injector *)m;
  if (e->kind == EXPR_VAR) {
    if (set_has(in->touched, e->u.var)) in->reads_touched = true;
    return e;
  }
  if (e->kind == EXPR_LOAD) {
    Expr *r = ir_mutate_children_expr(m, e);
    const Buffer *b = r->u.load.buf;
    if (set_has(in->touched, b->data)) in->reads_touched = true;
    Expr *size = size_of(in, b->data);
    return size ? ir_load(m->arena, r->u.load.buf, offset(in, r->u.load.index, size),
                          r->u.load.predicate)
                : r;
  }
  if (is_access_ptr(e)) return inject_access_ptr(in, e);
  /* tvm_context_id: which copy is running, for the copies that cannot share */
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_context_id") == 0 && !in->allow_share)
    return arith_cast(m->arena, e->dtype, ir_varref(m->arena, in->vx));
  return ir_mutate_children_expr(m, e);
}

static bool holds_loop(const Stmt *s);

static Stmt *inject_stmt(IrMutator *m, Stmt *s);

/* s as copies for vx = 0 .. N-1, or a loop over vx.s around it. before: s is not mutated
 * yet (its own expressions read vx), so it is mutated first, with nothing copied inside. */
static Stmt *copies(Injector *in, Stmt *s, bool before) {
  Arena *a = in->m.arena;
  in->injected = true;
  in->reads_touched = in->must_copy = false;
  if (before) s = inject_stmt(&in->m, s);
  in->injected = false;
  in->reads_touched = false;
  int64_t n;
  if (ir_as_int(in->nthreads, &n) && n < 16 && !holds_loop(s)) {
    Stmt **items = arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof *items);
    for (int64_t i = 0; i < n; i++) {
      VarMap map = {in->vx, ir_int(a, in->vx->dtype, i)};
      items[i] = ir_substitute_stmt(a, s, 1, &map);
    }
    return ir_seq(a, (int)(n > 0 ? n : 0), items);
  }
  size_t len = strlen(in->vx->name) + 3;
  char *name = arena_alloc(a, len);
  memcpy(name, in->vx->name, len - 3);
  memcpy(name + len - 3, ".s", 3);
  Var *idx = ir_var(a, name, in->vx->dtype);
  VarMap map = {in->vx, ir_varref(a, idx)};
  return ir_for(a, idx, ir_int(a, idx->dtype, 0), arith_cast(a, idx->dtype, in->nthreads),
                FOR_SERIAL, NULL, ir_substitute_stmt(a, s, 1, &map));
}

static bool is_loop(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind == STMT_FOR;
}

static bool holds_loop(const Stmt *s) { return ir_stmt_any(s, NULL, is_loop, NULL); }

/* The statement's own expressions read vx (or something it touches): copy it whole. */
static bool copy_here(const Injector *in) { return in->reads_touched && !in->injected; }

static Stmt *inject_for(Injector *in, Stmt *s) {
  Expr *min = ir_mutate_expr(&in->m, s->u.for_.min);
  Expr *ext = ir_mutate_expr(&in->m, s->u.for_.extent);
  if (copy_here(in)) return copies(in, s, true);
  in->reads_touched = false;
  Stmt *body = ir_mutate_stmt(&in->m, s->u.for_.body);
  if (min == s->u.for_.min && ext == s->u.for_.extent && body == s->u.for_.body) return s;
  return ir_for(in->m.arena, s->u.for_.var, min, ext, s->u.for_.fkind, s->u.for_.thread_tag, body);
}

static Stmt *inject_if(Injector *in, Stmt *s) {
  Expr *cond = ir_mutate_expr(&in->m, s->u.if_.cond);
  if (copy_here(in)) return copies(in, s, true);
  in->reads_touched = false;
  Stmt *then = ir_mutate_stmt(&in->m, s->u.if_.then);
  Stmt *orelse = ir_mutate_stmt(&in->m, s->u.if_.orelse);
  if (cond == s->u.if_.cond && then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
  return ir_if(in->m.arena, cond, then, orelse);
}

static Stmt *inject_let(Injector *in, Stmt *s) {
  Expr *value = ir_mutate_expr(&in->m, s->u.let.value);
  if (copy_here(in)) return copies(in, s, true);
  in->reads_touched = false;
  Stmt *body = ir_mutate_stmt(&in->m, s->u.let.body);
  if (value == s->u.let.value && body == s->u.let.body) return s;
  return ir_let_stmt(in->m.arena, s->u.let.var, value, body);
}

/* TVM would fail on an assert whose condition reads vx; it is copied like an `if`. */
static Stmt *inject_assert(Injector *in, Stmt *s) {
  Expr *cond = ir_mutate_expr(&in->m, s->u.assert_.cond);
  Expr *msg = ir_mutate_expr(&in->m, s->u.assert_.msg);
  if (copy_here(in)) return copies(in, s, true);
  in->reads_touched = false;
  Stmt *body = ir_mutate_stmt(&in->m, s->u.assert_.body);
  if (cond == s->u.assert_.cond && msg == s->u.assert_.msg && body == s->u.assert_.body) return s;
  return ir_assert(in->m.arena, cond, msg, body);
}

static Stmt *inject_attr(Injector *in, Stmt *s) {
  Expr *value = ir_mutate_expr(&in->m, s->u.attr.value);
  bool coproc =
      strcmp(s->u.attr.key, "coproc_scope") == 0 || strcmp(s->u.attr.key, "coproc_uop_scope") == 0;
  if (copy_here(in) || (!in->allow_share && !in->injected && coproc)) return copies(in, s, true);
  in->reads_touched = false;
  Stmt *body = ir_mutate_stmt(&in->m, s->u.attr.body);
  if (value == s->u.attr.value && body == s->u.attr.body) return s;
  return ir_attr(in->m.arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, value, body);
}

static void push_remap(Injector *in, const Var *buf, Expr *size) {
  VEC_GROW(NULL, in->remaps, in->cap, in->n + 1);
  in->remaps[in->n++] = (Remap){buf, size};
}

static Stmt *inject_allocate(Injector *in, Stmt *s) {
  Arena *a = in->m.arena;
  Expr *cond = ir_mutate_expr(&in->m, s->u.alloc.condition);
  int nd = s->u.alloc.ndim;
  Expr **ext = arena_alloc(a, (size_t)(nd + 1) * sizeof *ext);
  bool changed = cond != s->u.alloc.condition;
  for (int i = 0; i < nd; i++) {
    ext[i] = ir_mutate_expr(&in->m, s->u.alloc.extents[i]);
    changed |= ext[i] != s->u.alloc.extents[i];
  }
  if (copy_here(in)) return copies(in, s, true);
  in->reads_touched = false;
  Var *buf = s->u.alloc.buffer_var;
  bool grow = nd > 0 && (set_has(in->touched, buf) || !in->allow_share);
  if (grow) {
    Expr *size = arith_const(a, ext[0]->dtype, s->u.alloc.dtype.lanes);
    for (int i = nd - 1; i >= 0; i--)
      size = arith_binary(a, EXPR_MUL, arith_cast(a, size->dtype, ext[i]), size);
    ext[0] = arith_binary(a, EXPR_MUL, arith_cast(a, ext[0]->dtype, in->nthreads), ext[0]);
    changed = true;
    push_remap(in, buf, size);
  }
  Stmt *body = ir_mutate_stmt(&in->m, s->u.alloc.body);
  if (grow) in->n--;
  if (!changed && body == s->u.alloc.body) return s;
  return ir_allocate(a, buf, s->u.alloc.dtype, nd, ext, s->u.alloc.scope, cond, body);
}

static Stmt *inject_store(Injector *in, Stmt *s) {
  Stmt *r = ir_mutate_children_stmt(&in->m, s);
  const Buffer *b = r->u.store.buf;
  if (set_has(in->touched, b->data)) in->reads_touched = true;
  in->must_copy = !in->allow_share;
  Expr *size = size_of(in, b->data);
  if (!size) return r;
  return ir_store(in->m.arena, r->u.store.buf, r->u.store.value, offset(in, r->u.store.index, size),
                  r->u.store.predicate);
}

static Stmt *inject_kind(Injector *in, Stmt *s) {
  switch (s->kind) {
  case STMT_FOR:
    return inject_for(in, s);
  case STMT_IF:
    return inject_if(in, s);
  case STMT_LET:
    return inject_let(in, s);
  case STMT_ASSERT:
    return inject_assert(in, s);
  case STMT_ATTR:
    return inject_attr(in, s);
  case STMT_ALLOCATE:
    return inject_allocate(in, s);
  case STMT_STORE:
    return inject_store(in, s);
  case STMT_EVALUATE:
    in->must_copy = !in->allow_share;
    return ir_mutate_children_stmt(&in->m, s);
  case STMT_SEQ: /* each item copies itself as needed */
  case STMT_PROVIDE:
  case STMT_REALIZE:
    return ir_mutate_children_stmt(&in->m, s);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* A statement whose expressions read vx and that nothing inside copied yet is copied here,
 * innermost first: the copies stay as small as they can. */
static Stmt *inject_stmt(IrMutator *m, Stmt *s) {
  Injector *in = (Injector *)m;
  Stmt *r = inject_kind(in, s);
  if (in->reads_touched || in->must_copy) {
    if (!in->injected) return copies(in, r, false);
    in->reads_touched = in->must_copy = false;
  }
  return r;
}

/* ---- the pass ---- */

static bool is_virtual_thread(const Stmt *s) {
  return s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR &&
         strcmp(s->u.attr.key, "virtual_thread") == 0;
}

/* Inner virtual threads first, so an outer one copies the copies of the inner. */
static Stmt *vthread_stmt(IrMutator *m, Stmt *s) {
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (!is_virtual_thread(r)) return r;
  const IterVar *iv = r->u.attr.node;
  VarSet touched = touched_vars(r->u.attr.body, iv->var);
  Injector in = {.m = {m->arena, inject_expr, inject_stmt},
                 .vx = iv->var,
                 .nthreads = r->u.attr.value,
                 .touched = &touched,
                 .allow_share = iv->thread_tag && strncmp(iv->thread_tag, "vthread", 7) == 0};
  Stmt *body = ir_mutate_stmt(&in.m, r->u.attr.body);
  free(in.remaps);
  set_free(&touched);
  return body;
}

Stmt *pass_inject_virtual_thread(Stmt *s, PassCtx *ctx) {
  IrMutator m = {ctx->arena, NULL, vthread_stmt};
  return ir_mutate_stmt(&m, s);
}
