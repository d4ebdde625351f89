/* inject_double_buffer: double buffering (TVM's tir.InjectDoubleBuffer): a buffer filled
 *   anew on every iteration of a loop gets two halves, so that each iteration fills the half
 *   the next one will read while it reads the half the previous one filled.
 * Assumes: flat buffers (after storage_flatten), which has turned stage.double_buffer()'s
 *   mark into `attr [buf] "double_buffer_scope" = 1` around the producer of the buffer
 *   `buf`, directly inside the buffer's ALLOCATE, inside the loop the stage is computed at.
 * Guarantees: for each such buffer that fits the pattern below, with loop `for (i, 0, N)`
 *   and allocation extent S:
 *     allocate(buf, [S*2]) {
 *       producer(i = 0), writing the first half
 *       for (i.outer, 0, (N - 1)/K) {                        K: config split_loop (1)
 *         K copies of, with i = i.outer*K + j:
 *           if ((i + 1) < N) { attr [buf] "double_buffer_write" = 1;
 *                              producer(i + 1), writing half floormod(i + 1, 2) }
 *           the rest of the loop body, reading half floormod(i, 2)
 *       }
 *       the last iterations (those the split loop leaves), the same way
 *     }
 *   Stores index `half*S + index`, loads `floormod(i, 2)*S + index`; inside the producer,
 *   moved to i + 1, that is the half it fills. Loops and lets of the copies get fresh
 *   variables of the same names (each loop its own variable, as tir.Simplify assumes). With
 *   split_loop <= 0 the loop is kept whole: the prefetch, then the original loop. A mark that does
 * not fit is dropped and its buffer stays single, which is correct (only slower): the pattern is
 * one mark and one 1-D allocation of the buffer, of an extent the loop's variable does not change
 * (the allocation moves out of the loop), with no loop between them; that loop is serial or
 * unrolled, from 0, of constant extent (a symbolic one may be 0, and the prefetch would then read
 * outside its input); the buffer's variable is used only by loads and stores; the producer stores
 * to that buffer only, and reads nothing the rest of the loop body writes (it now runs one
 * iteration early). So a multi-output stage, whose producer writes two buffers, stays single. Why
 * here: it needs flat buffers and the loops as built, before unrolling and vectorization change
 * them; after virtual threads, which copy bodies (TVM's order). */
#include <string.h>

#include "ir/pass/pass.h"
#include "ir/support.h"

typedef struct Entry {
  Var *buf; /* the buffer's data variable */
  int nscope, nalloc;
  const Stmt *scope; /* its double_buffer_scope attr */
  const Stmt *alloc; /* its ALLOCATE */
  const Stmt *loop;  /* the innermost loop around the attr */
  bool ok;           /* fits the pattern; decided by find_entries */
  /* rewriting: */
  Expr *stride;      /* the allocation's extent: where the second half starts */
  Var *write_half;   /* the half the producer writes, until substituted */
  Stmt *pre;         /* the producer for i = 0 */
  Buffer *from, *to; /* the last buffer remapped, and the doubled one that replaced it */
} Entry;

typedef struct Entries {
  int n, cap;
  Entry *e;
} Entries;

static Entry *entry_of(Entries *es, const Var *v) {
  for (int i = 0; i < es->n; i++)
    if (es->e[i].buf == v) return &es->e[i];
  return NULL;
}

static Entry *add_entry(Arena *a, Entries *es, Var *v) {
  Entry *e = entry_of(es, v);
  if (e) return e;
  VEC_GROW(a, es->e, es->cap, es->n + 1);
  e = &es->e[es->n++];
  *e = (Entry){.buf = v, .ok = true};
  return e;
}

static bool is_scope(const Stmt *s) {
  return s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_VAR &&
         strcmp(s->u.attr.key, "double_buffer_scope") == 0;
}

/* ---- finding the buffers that fit (the contract's pattern) ---- */

/* A growable array of pointers in the arena. */
typedef struct Ptrs {
  int n, cap;
  const void **p;
} Ptrs;

static void ptrs_push(Arena *a, Ptrs *v, const void *x) {
  VEC_GROW(a, v->p, v->cap, v->n + 1);
  v->p[v->n++] = x;
}

static bool ptrs_has(const Ptrs *v, const void *x) {
  for (int i = 0; i < v->n; i++)
    if (v->p[i] == x) return true;
  return false;
}

static void ptrs_add(Arena *a, Ptrs *v, const void *x) {
  if (!ptrs_has(v, x)) ptrs_push(a, v, x);
}

/* Two walks: the first (collect) makes an entry per mark, the second checks them, so that an
 * allocation or a use met before its mark counts. */
typedef struct Finder {
  IrVisitor v;
  Arena *arena;
  Entries *es;
  bool collect;
  Ptrs loops;  /* the loops around the current node, innermost last */
  Ptrs allocs; /* the allocations around it, and in depths the loop count at each */
  int *depths;
  Ptrs scopes; /* the marks around it */
  Ptrs vars;   /* handle variables used as values (a pointer passed to a call) */
} Finder;

static void find_expr(IrVisitor *v, const Expr *e) {
  Finder *fd = (Finder *)v;
  if (e->kind == EXPR_VAR && e->dtype.code == DT_HANDLE) ptrs_add(fd->arena, &fd->vars, e->u.var);
  ir_visit_children_expr(v, e);
}

/* A store to buffer var b: fine only inside b's own mark, and a mark stores to nothing else
 * (what it writes must be what moves an iteration ahead). */
static void find_store(Finder *fd, const Var *b) {
  for (int i = 0; i < fd->scopes.n; i++) {
    const Stmt *sc = fd->scopes.p[i];
    if (sc->u.attr.node != b) entry_of(fd->es, sc->u.attr.node)->ok = false;
  }
  Entry *e = entry_of(fd->es, b);
  if (!e) return;
  bool inside = false;
  for (int i = 0; i < fd->scopes.n; i++)
    inside |= ((const Stmt *)fd->scopes.p[i])->u.attr.node == b;
  if (!inside) e->ok = false;
}

/* The mark: its loop must be the innermost one around the allocation, with no loop between. */
static void find_scope(Finder *fd, const Stmt *s) {
  Entry *e = entry_of(fd->es, s->u.attr.node);
  e->nscope++;
  e->scope = s;
  e->loop = fd->loops.n ? fd->loops.p[fd->loops.n - 1] : NULL;
  int k = fd->allocs.n - 1;
  while (k >= 0 && ((const Stmt *)fd->allocs.p[k])->u.alloc.buffer_var != e->buf) k--;
  if (k < 0 || !e->loop || fd->depths[k] != fd->loops.n) e->ok = false;
  if (fd->scopes.n) e->ok = false; /* a mark inside another one */
}

static void find_alloc(Finder *fd, const Stmt *s) {
  Entry *e = entry_of(fd->es, s->u.alloc.buffer_var);
  if (e) e->nalloc++, e->alloc = s;
  int cap = fd->allocs.cap;
  ptrs_push(fd->arena, &fd->allocs, s);
  if (cap != fd->allocs.cap)
    fd->depths = arena_realloc(fd->arena, fd->depths, (size_t)cap * sizeof *fd->depths,
                               (size_t)fd->allocs.cap * sizeof *fd->depths);
  fd->depths[fd->allocs.n - 1] = fd->loops.n;
}

static void find_stmt(IrVisitor *v, const Stmt *s) {
  Finder *fd = (Finder *)v;
  if (fd->collect) {
    if (is_scope(s)) add_entry(fd->arena, fd->es, s->u.attr.node);
    ir_visit_children_stmt(v, s);
    return;
  }
  Ptrs *stack = NULL;
  switch (s->kind) {
  case STMT_FOR:
    ptrs_push(fd->arena, stack = &fd->loops, s);
    break;
  case STMT_ALLOCATE:
    find_alloc(fd, s);
    stack = &fd->allocs;
    break;
  case STMT_ATTR:
    if (!is_scope(s)) break;
    find_scope(fd, s);
    ptrs_push(fd->arena, stack = &fd->scopes, s);
    break;
  case STMT_STORE:
    find_store(fd, s->u.store.buf->data);
    break;
  case STMT_IF:
  case STMT_SEQ:
  case STMT_PROVIDE:
  case STMT_REALIZE:
  case STMT_LET:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    break;
  case STMT_KIND_COUNT:
    TES_UNREACHABLE();
  }
  ir_visit_children_stmt(v, s);
  if (stack) stack->n--;
}

/* Buffer variables loaded (loads) or stored (!loads) under a statement, skipping one subtree. */
typedef struct Access {
  IrVisitor v;
  Arena *arena;
  bool loads;
  const Stmt *skip;
  Ptrs bufs;
} Access;

static void access_expr(IrVisitor *v, const Expr *e) {
  Access *ac = (Access *)v;
  if (ac->loads && e->kind == EXPR_LOAD) ptrs_add(ac->arena, &ac->bufs, e->u.load.buf->data);
  ir_visit_children_expr(v, e);
}

static void access_stmt(IrVisitor *v, const Stmt *s) {
  Access *ac = (Access *)v;
  if (s == ac->skip) return;
  if (!ac->loads && s->kind == STMT_STORE) ptrs_add(ac->arena, &ac->bufs, s->u.store.buf->data);
  ir_visit_children_stmt(v, s);
}

/* The producer runs an iteration early: it must not read what the rest of the loop writes. */
static bool reads_loop_writes(Arena *a, const Entry *e) {
  Access loads = {{access_expr, access_stmt}, a, true, NULL, {0, 0, NULL}};
  Access stores = {{access_expr, access_stmt}, a, false, e->scope, {0, 0, NULL}};
  ir_visit_stmt(&loads.v, e->scope->u.attr.body);
  ir_visit_stmt(&stores.v, e->loop->u.for_.body);
  for (int i = 0; i < loads.bufs.n; i++)
    if (ptrs_has(&stores.bufs, loads.bufs.p[i])) return true;
  return false;
}

static bool loop_fits(const Stmt *loop) {
  ForKind k = loop->u.for_.fkind;
  const Expr *ext = loop->u.for_.extent;
  return (k == FOR_SERIAL || k == FOR_UNROLLED) && ir_is_const_int(loop->u.for_.min, 0) &&
         ext->kind == EXPR_INT && ext->u.ival >= 1;
}

static void find_entries(Arena *a, Entries *es, const Stmt *s) {
  Finder fd = {.v = {find_expr, find_stmt}, .arena = a, .es = es, .collect = true};
  ir_visit_stmt(&fd.v, s);
  if (es->n == 0) return;
  fd.collect = false;
  ir_visit_stmt(&fd.v, s);
  for (int i = 0; i < es->n; i++) {
    Entry *e = &es->e[i];
    e->ok = e->ok && !ptrs_has(&fd.vars, e->buf) && e->nscope == 1 && e->nalloc == 1 &&
            e->alloc->u.alloc.ndim == 1 && loop_fits(e->loop) && !reads_loop_writes(a, e) &&
            !ir_expr_uses_var(e->alloc->u.alloc.extents[0], e->loop->u.for_.var);
  }
}

/* ---- fresh variables for a copied body ---- */

typedef struct Fresh {
  IrMutator m;
  int n, cap;
  VarMap *map; /* the binders renamed so far around the current node, innermost last */
  int nbuf, cap_buf;
  Buffer **bufs; /* pairs: a buffer of a renamed allocation, and its copy on the new var */
} Fresh;

static Var *rename(Fresh *f, const Var *v) {
  Var *nv = ir_var(f->m.arena, v->name, v->dtype);
  VEC_GROW(f->m.arena, f->map, f->cap, f->n + 1);
  f->map[f->n++] = (VarMap){v, ir_varref(f->m.arena, nv)};
  return nv;
}

static Var *renamed(const Fresh *f, const Var *v) {
  for (int i = f->n - 1; i >= 0; i--)
    if (f->map[i].from == v) return f->map[i].to->u.var;
  return NULL;
}

/* b itself, or its copy on the renamed variable of its allocation. */
static Buffer *fresh_buffer(Fresh *f, Buffer *b) {
  Var *v = renamed(f, b->data);
  if (!v) return b;
  for (int i = 0; i < f->nbuf; i += 2)
    if (f->bufs[i] == b && f->bufs[i + 1]->data == v) return f->bufs[i + 1];
  VEC_GROW(f->m.arena, f->bufs, f->cap_buf, f->nbuf + 1);
  Buffer *nb = arena_alloc(f->m.arena, sizeof *nb);
  *nb = *b;
  nb->data = v;
  f->bufs[f->nbuf++] = b;
  f->bufs[f->nbuf++] = nb;
  return nb;
}

static Expr *fresh_expr(IrMutator *m, Expr *e) {
  Fresh *f = (Fresh *)m;
  if (e->kind == EXPR_VAR) {
    Var *v = renamed(f, e->u.var);
    return v ? ir_varref(m->arena, v) : e;
  }
  if (e->kind == EXPR_LOAD) {
    Expr *r = ir_mutate_children_expr(m, e);
    Buffer *b = fresh_buffer(f, r->u.load.buf);
    return b == r->u.load.buf ? r : ir_load(m->arena, b, r->u.load.index, r->u.load.predicate);
  }
  if (e->kind != EXPR_LET) return ir_mutate_children_expr(m, e);
  Expr *value = ir_mutate_expr(m, e->u.let.value);
  Var *v = rename(f, e->u.let.var);
  Expr *body = ir_mutate_expr(m, e->u.let.body);
  f->n--;
  return ir_let(m->arena, v, value, body);
}

/* The statements that bind a variable for their body: it gets a fresh one. */
static Stmt *fresh_for(Fresh *f, Stmt *s) {
  IrMutator *m = &f->m;
  Expr *min = ir_mutate_expr(m, s->u.for_.min), *ext = ir_mutate_expr(m, s->u.for_.extent);
  Var *v = rename(f, s->u.for_.var);
  Stmt *body = ir_mutate_stmt(m, s->u.for_.body);
  f->n--;
  return ir_for(m->arena, v, min, ext, s->u.for_.fkind, s->u.for_.thread_tag, body);
}

static Stmt *fresh_let(Fresh *f, Stmt *s) {
  IrMutator *m = &f->m;
  Expr *value = ir_mutate_expr(m, s->u.let.value);
  Var *v = rename(f, s->u.let.var);
  Stmt *body = ir_mutate_stmt(m, s->u.let.body);
  f->n--;
  return ir_let_stmt(m->arena, v, value, body);
}

static Stmt *fresh_alloc(Fresh *f, Stmt *s) {
  IrMutator *m = &f->m;
  int nd = s->u.alloc.ndim;
  Expr **ext = arena_alloc(m->arena, (size_t)(nd + 1) * sizeof *ext);
  for (int i = 0; i < nd; i++) ext[i] = ir_mutate_expr(m, s->u.alloc.extents[i]);
  Expr *cond = ir_mutate_expr(m, s->u.alloc.condition);
  Var *v = rename(f, s->u.alloc.buffer_var);
  Stmt *body = ir_mutate_stmt(m, s->u.alloc.body);
  f->n--;
  return ir_allocate(m->arena, v, s->u.alloc.dtype, nd, ext, s->u.alloc.scope, cond, body);
}

static Stmt *fresh_stmt(IrMutator *m, Stmt *s) {
  Fresh *f = (Fresh *)m;
  if (s->kind == STMT_FOR) return fresh_for(f, s);
  if (s->kind == STMT_LET) return fresh_let(f, s);
  if (s->kind == STMT_ALLOCATE) return fresh_alloc(f, s);
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (r->kind == STMT_STORE) {
    Buffer *b = fresh_buffer(f, r->u.store.buf);
    if (b != r->u.store.buf)
      r = ir_store(m->arena, b, r->u.store.value, r->u.store.index, r->u.store.predicate);
  }
  Var *v =
      r->kind == STMT_ATTR && r->u.attr.nkind == ATTR_NODE_VAR ? renamed(f, r->u.attr.node) : NULL;
  if (v) r = ir_attr(m->arena, ATTR_NODE_VAR, v, r->u.attr.key, r->u.attr.value, r->u.attr.body);
  return r;
}

/* s with the given substitution, its loop, let and allocation variables fresh. */
static Stmt *copy_with(Arena *a, Stmt *s, int n, const VarMap *map) {
  Fresh f = {{a, fresh_expr, fresh_stmt}, 0, 0, NULL, 0, 0, NULL};
  return ir_mutate_stmt(&f.m, ir_substitute_stmt(a, s, n, map));
}

/* ---- rewriting ---- */

typedef struct Injector {
  IrMutator m;
  Entries *es;
  int split; /* split_loop */
} Injector;

static Expr *cint(Arena *a, DType t, int64_t v) { return ir_int(a, t, v); }

static Entry *fitting(Injector *in, const Var *v) {
  Entry *e = entry_of(in->es, v);
  return e && e->ok ? e : NULL;
}

/* S*2, folded when S is a constant. */
static Expr *twice(Arena *a, Expr *stride) {
  if (stride->kind == EXPR_INT) return cint(a, stride->dtype, stride->u.ival * 2);
  return ir_binary(a, EXPR_MUL, stride, cint(a, stride->dtype, 2));
}

/* The doubled buffer standing for b: one dimension, two halves. */
static Buffer *doubled(Arena *a, Entry *e, Buffer *b) {
  if (e->from == b) return e->to;
  Buffer *nb = arena_alloc(a, sizeof *nb);
  *nb = *b;
  nb->ndim = 1;
  nb->shape = arena_alloc(a, sizeof *nb->shape);
  nb->shape[0] = twice(a, e->stride);
  nb->strides = NULL;
  e->from = b;
  e->to = nb;
  return nb;
}

/* half*S + index, in index's dtype and lanes. */
static Expr *in_half(Arena *a, const Entry *e, Expr *half, Expr *index) {
  DType t = index->dtype;
  t.lanes = 1;
  Expr *stride = dt_eq(e->stride->dtype, t) ? e->stride : ir_cast(a, t, e->stride);
  if (!dt_eq(half->dtype, t)) half = ir_cast(a, t, half);
  Expr *off = ir_binary(a, EXPR_MUL, half, stride);
  if (index->dtype.lanes > 1) off = ir_broadcast(a, off, index->dtype.lanes);
  return ir_binary(a, EXPR_ADD, off, index);
}

static Expr *read_half(Arena *a, const Entry *e) {
  Var *i = e->loop->u.for_.var;
  return ir_binary(a, EXPR_FLOORMOD, ir_varref(a, i), cint(a, i->dtype, 2));
}

static Expr *inject_expr(IrMutator *m, Expr *e) {
  Injector *in = (Injector *)m;
  if (e->kind != EXPR_LOAD) return ir_mutate_children_expr(m, e);
  Entry *en = fitting(in, e->u.load.buf->data);
  if (!en) return ir_mutate_children_expr(m, e);
  Expr *index = in_half(m->arena, en, read_half(m->arena, en), ir_mutate_expr(m, e->u.load.index));
  return ir_load(m->arena, doubled(m->arena, en, e->u.load.buf), index,
                 ir_mutate_expr(m, e->u.load.predicate));
}

static Stmt *inject_store(Injector *in, Stmt *s) {
  Arena *a = in->m.arena;
  Entry *en = fitting(in, s->u.store.buf->data);
  if (!en) return ir_mutate_children_stmt(&in->m, s);
  Expr *index =
      in_half(a, en, ir_varref(a, en->write_half), ir_mutate_expr(&in->m, s->u.store.index));
  return ir_store(a, doubled(a, en, s->u.store.buf), ir_mutate_expr(&in->m, s->u.store.value),
                  index, ir_mutate_expr(&in->m, s->u.store.predicate));
}

/* The producer: kept as the prefetch before the loop (i = 0, first half), and in the loop
 * it fills the other half for i + 1 (TVM's MakeProducer). */
static Stmt *inject_scope(Injector *in, Stmt *s) {
  Arena *a = in->m.arena;
  Entry *en = fitting(in, s->u.attr.node);
  if (!en) return ir_mutate_stmt(&in->m, s->u.attr.body);
  Var *i = en->loop->u.for_.var;
  en->write_half = ir_var(a, "db", i->dtype);
  Stmt *body = ir_mutate_stmt(&in->m, s->u.attr.body);
  VarMap first[2] = {{en->write_half, cint(a, i->dtype, 0)}, {i, cint(a, i->dtype, 0)}};
  en->pre = copy_with(a, body, 2, first);
  Expr *next = ir_binary(a, EXPR_ADD, ir_varref(a, i), cint(a, i->dtype, 1));
  VarMap ahead[2] = {{i, next},
                     {en->write_half, ir_binary(a, EXPR_FLOORMOD, next, cint(a, i->dtype, 2))}};
  body = ir_substitute_stmt(a, body, 2, ahead);
  body = ir_attr(a, ATTR_NODE_VAR, en->buf, "double_buffer_write", s->u.attr.value, body);
  return ir_if(a, ir_binary(a, EXPR_LT, next, en->loop->u.for_.extent), body, NULL);
}

/* The allocation moves out to the loop (inject_for puts it back, doubled). */
static Stmt *inject_alloc(Injector *in, Stmt *s) {
  Entry *en = fitting(in, s->u.alloc.buffer_var);
  if (!en) return ir_mutate_children_stmt(&in->m, s);
  en->stride = s->u.alloc.extents[0];
  return ir_mutate_stmt(&in->m, s->u.alloc.body);
}

static Stmt *without_write_marks(Injector *in, const Stmt *loop, Stmt *s);

/* The loop body for i = value: fresh variables unless it is the copy that keeps them. */
static Stmt *iteration(Arena *a, const Stmt *loop, Stmt *body, Expr *value, bool keep) {
  VarMap at = {loop->u.for_.var, value};
  if (keep) return ir_substitute_stmt(a, body, 1, &at);
  return copy_with(a, body, 1, &at);
}

/* TVM's loop split: K copies per step of i.outer, then the iterations left over, whose
 * prefetch guards fail at the end (the write mark is only for the steady state). */
static Stmt *split_loop(Injector *in, const Stmt *loop, Stmt *body) {
  Arena *a = in->m.arena;
  Var *i = loop->u.for_.var;
  int64_t n = loop->u.for_.extent->u.ival, k = in->split < n ? in->split : n;
  int64_t steps = (n - 1) / k;
  Var *o = ir_var(a, arena_strcat(a, i->name, ".outer"), i->dtype);
  Stmt **items = arena_alloc(a, (size_t)(k + 1) * sizeof *items);
  for (int64_t j = 0; j < k; j++) {
    Expr *v = ir_varref(a, o);
    if (k != 1) v = ir_binary(a, EXPR_MUL, v, cint(a, i->dtype, k));
    if (j) v = ir_binary(a, EXPR_ADD, v, cint(a, i->dtype, j));
    items[j] = iteration(a, loop, body, v, j == 0);
  }
  int nout = 0;
  Stmt **out = arena_alloc(a, (size_t)(k + 1) * sizeof *out);
  if (steps > 0)
    out[nout++] = ir_for(a, o, cint(a, i->dtype, 0), cint(a, i->dtype, steps), loop->u.for_.fkind,
                         NULL, ir_seq(a, (int)k, items));
  Stmt *tail = without_write_marks(in, loop, body);
  for (int64_t j = 0; j < k && steps * k + j < n; j++)
    out[nout++] = iteration(a, loop, tail, cint(a, i->dtype, steps * k + j), steps == 0 && j == 0);
  return ir_seq(a, nout, out);
}

static Stmt *inject_for(Injector *in, Stmt *s) {
  Arena *a = in->m.arena;
  Stmt *body = ir_mutate_stmt(&in->m, s->u.for_.body);
  int nmine = 0;
  for (int i = 0; i < in->es->n; i++) nmine += in->es->e[i].ok && in->es->e[i].loop == s;
  if (!nmine) {
    if (body == s->u.for_.body) return s;
    return ir_for(a, s->u.for_.var, s->u.for_.min, s->u.for_.extent, s->u.for_.fkind,
                  s->u.for_.thread_tag, body);
  }
  Stmt **items = arena_alloc(a, (size_t)(nmine + 1) * sizeof *items);
  int n = 0;
  for (int i = 0; i < in->es->n; i++)
    if (in->es->e[i].ok && in->es->e[i].loop == s) items[n++] = in->es->e[i].pre;
  items[n++] = in->split > 0 ? split_loop(in, s, body)
                             : ir_for(a, s->u.for_.var, s->u.for_.min, s->u.for_.extent,
                                      s->u.for_.fkind, s->u.for_.thread_tag, body);
  Stmt *r = ir_seq(a, n, items);
  for (int i = in->es->n - 1; i >= 0; i--) {
    const Entry *e = &in->es->e[i];
    if (!e->ok || e->loop != s) continue;
    const Stmt *al = e->alloc;
    Expr *ext = twice(a, e->stride);
    r = ir_allocate(a, al->u.alloc.buffer_var, al->u.alloc.dtype, 1, &ext, al->u.alloc.scope,
                    al->u.alloc.condition, r);
  }
  return r;
}

static Stmt *inject_stmt(IrMutator *m, Stmt *s) {
  Injector *in = (Injector *)m;
  switch (s->kind) {
  case STMT_FOR:
    return inject_for(in, s);
  case STMT_ALLOCATE:
    return inject_alloc(in, s);
  case STMT_ATTR:
    return is_scope(s) ? inject_scope(in, s) : ir_mutate_children_stmt(m, s);
  case STMT_STORE:
    return inject_store(in, s);
  case STMT_IF:
  case STMT_SEQ:
  case STMT_PROVIDE:
  case STMT_REALIZE:
  case STMT_LET:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    return ir_mutate_children_stmt(m, s);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

typedef struct Strip {
  IrMutator m;
  Injector *in;
  const Stmt *loop;
} Strip;

static Stmt *strip_write(IrMutator *m, Stmt *s) {
  Strip *st = (Strip *)m;
  if (s->kind != STMT_ATTR || strcmp(s->u.attr.key, "double_buffer_write") != 0)
    return ir_mutate_children_stmt(m, s);
  Entry *e = fitting(st->in, s->u.attr.node);
  return e && e->loop == st->loop ? ir_mutate_stmt(m, s->u.attr.body)
                                  : ir_mutate_children_stmt(m, s);
}

/* s without the write marks of loop's buffers (those of loops inside it stay). */
static Stmt *without_write_marks(Injector *in, const Stmt *loop, Stmt *s) {
  Strip st = {{in->m.arena, NULL, strip_write}, in, loop};
  return ir_mutate_stmt(&st.m, s);
}

Stmt *pass_inject_double_buffer(Stmt *s, PassCtx *ctx) {
  Entries es = {0, 0, NULL};
  find_entries(ctx->arena, &es, s);
  if (es.n == 0) return s;
  int64_t split = pass_option(ctx, "tir.InjectDoubleBuffer", "split_loop", 1);
  Injector in = {{ctx->arena, inject_expr, inject_stmt}, &es, split > 0 ? (int)split : 0};
  return ir_mutate_stmt(&in.m, s);
}
