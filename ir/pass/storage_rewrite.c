/* storage_rewrite.c: tir.StorageRewrite, memory planning after flattening.
 *
 * Flattening leaves each computed tensor's ALLOCATE wrapped around its producer and consumers,
 * nested as deep as the stages. This pass
 *  - lifts every allocation to its attach point: the top of the function, or just inside the
 *    outermost thread_extent attr, virtual_thread attr or parallel loop that is open where the
 *    allocation is first used (shared and local memory live per thread block / per thread);
 *  - lets allocations whose lifetimes do not overlap share storage: same attach point, same
 *    scope, same element type, and either constant sizes within a factor of 16 of each other
 *    or both symbolic sizes (TVM's round robin over the free symbolic ones, one of the same
 *    size first); the shared allocation keeps the first one's name, and its size is the
 *    largest of its members' element counts: a constant when all are, else their max()
 *    expression, simplified (max(n, n) is n);
 *  - writes in place: when the statement that first uses dst is the last use of src and it
 *    only reads src[I] while storing dst[I] (an elementwise stage), dst takes src's storage
 *    if their sizes are equal (the same constant, or the same symbolic element count).
 *    Like TVM, this assumes such a statement writes each element of dst once, which holds for
 *    every statement loop-nest construction builds.
 * Lifetimes are measured at each allocation's own level (TVM's linear access pattern): a use
 * inside a loop counts as a use by the whole loop at the level of the allocation, so storage
 * freed inside a loop iteration is not reused in the same iteration by an outer allocation.
 * Not planned (left where they are, untouched): allocations whose extents use a variable bound
 * inside the function or that have a condition, and allocations inside a vectorized loop
 * (tir.VectorizeLoop, which runs later, gives each lane its own copy of them). Never shared:
 * local, warp, wmma.* and tagged (local.NAME) scopes and arrays of at most 32 bits
 * (registers); a constant size with a symbolic one. Allocations nothing uses are dropped. */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/support.h"

/* ---- the allocations ---- */

typedef struct Entry Entry;

typedef struct AllocInfo {
  Stmt *alloc;
  int index;       /* in Rewrite.allocs */
  int level;       /* the number of scopes open at the ALLOCATE */
  bool plannable;
  bool inplace_src; /* its storage was taken over in place: not freed again */
  Buffer *buf;     /* the first buffer seen over its data var, for the rewrite */
  Entry *entry;    /* where it lives, once planned */
} AllocInfo;

struct Entry {
  const Stmt *attach; /* NULL: the function's top */
  const char *scope;
  DType elem;
  int64_t nbits;      /* 0: symbolic size (or one too large for int64 bits) */
  int nallocs;
  AllocInfo **allocs; /* in the order they were placed; the first names the storage */
  bool is_free;
  Entry *next_free;
};

/* One point of the linear access sequence: a leaf statement (offset 0) or the begin (offset
 * > 0, the distance to its end) or end (offset < 0) of a scope. */
typedef struct SeqEntry {
  const Stmt *stmt;
  int offset;
  int ntouched, cap;
  AllocInfo **touched;
} SeqEntry;

typedef struct Rewrite {
  IrMutator m; /* first: the mutator hooks cast back to Rewrite */
  Arena *a;
  int nalloc, cap_alloc;
  AllocInfo **allocs; /* each in the arena on its own: access lists point at them */
  int nseq, cap_seq;
  SeqEntry *seq;
  int nframes, cap_frames;
  SeqEntry *frames; /* the open scopes; frames[l] collects uses at level l */
  bool in_thread;   /* inside the outermost thread_extent already */
  int in_vector;    /* vectorized loops open: allocations there are each lane's own */
  int nbound, cap_bound;
  const Var **bound; /* variables bound inside the body */
  int nentries, cap_entries;
  Entry **entries;
  Entry *free_list;
} Rewrite;

static AllocInfo *info_of(const Rewrite *r, const Var *v) {
  for (int i = 0; i < r->nalloc; i++)
    if (r->allocs[i]->alloc->u.alloc.buffer_var == v) return r->allocs[i];
  return NULL;
}

static void add_touch(Rewrite *r, SeqEntry *e, AllocInfo *ai) {
  for (int i = 0; i < e->ntouched; i++)
    if (e->touched[i] == ai) return;
  VEC_GROW(r->a, e->touched, e->cap, e->ntouched + 1);
  e->touched[e->ntouched++] = ai;
}

/* ---- finding the linear access sequence ---- */

static void touch(Rewrite *r, const Var *v, Buffer *buf) {
  AllocInfo *ai = info_of(r, v);
  if (!ai || !ai->plannable) return;
  if (!ai->buf && buf) ai->buf = buf;
  if (ai->level < r->nframes)
    add_touch(r, &r->frames[ai->level], ai);
  else /* used outside any statement at its own level (an allocation's extent): leave it */
    ai->plannable = false;
}

typedef struct Toucher {
  IrVisitor v;
  Rewrite *r;
} Toucher;

static void touch_expr(IrVisitor *v, const Expr *e) {
  Rewrite *r = ((Toucher *)v)->r;
  if (e->kind == EXPR_VAR) touch(r, e->u.var, NULL);
  if (e->kind == EXPR_LOAD) touch(r, e->u.load.buf->data, e->u.load.buf);
  ir_visit_children_expr(v, e);
}

static void touch_all(Rewrite *r, const Expr *e) {
  if (!e) return;
  Toucher t = {{touch_expr, NULL}, r};
  ir_visit_expr(&t.v, e);
}

static void push_frame(Rewrite *r) {
  VEC_GROW(r->a, r->frames, r->cap_frames, r->nframes + 1);
  r->frames[r->nframes++] = (SeqEntry){0};
}

static int push_seq(Rewrite *r, SeqEntry e) {
  VEC_GROW(r->a, r->seq, r->cap_seq, r->nseq + 1);
  r->seq[r->nseq] = e;
  return r->nseq++;
}

static void find(Rewrite *r, const Stmt *s);

/* A leaf: the expressions of a statement that opens no scope. */
static void find_leaf(Rewrite *r, const Stmt *s, int n, Expr *const *exprs) {
  push_frame(r);
  for (int i = 0; i < n; i++) touch_all(r, exprs[i]);
  if (s->kind == STMT_STORE) touch(r, s->u.store.buf->data, s->u.store.buf);
  SeqEntry e = r->frames[--r->nframes];
  e.stmt = s;
  if (e.ntouched) push_seq(r, e);
}

static void find_scope(Rewrite *r, const Stmt *s, int n, Expr *const *exprs, const Stmt *body,
                       const Stmt *orelse) {
  push_frame(r);
  int begin = push_seq(r, (SeqEntry){.stmt = s});
  for (int i = 0; i < n; i++) touch_all(r, exprs[i]);
  find(r, body);
  if (orelse) find(r, orelse);
  SeqEntry e = r->frames[--r->nframes];
  e.stmt = s;
  int end = r->nseq;
  e.offset = begin - end;
  push_seq(r, e);
  r->seq[begin].offset = end - begin;
}

static void bind(Rewrite *r, const Var *v) {
  VEC_GROW(r->a, r->bound, r->cap_bound, r->nbound + 1);
  r->bound[r->nbound++] = v;
}

static void find_attr(Rewrite *r, const Stmt *s) {
  const char *key = s->u.attr.key;
  if (s->u.attr.nkind == ATTR_NODE_ITERVAR) bind(r, ((IterVar *)s->u.attr.node)->var);
  bool outer_thread = strcmp(key, "thread_extent") == 0 && !r->in_thread;
  if (outer_thread || strcmp(key, "virtual_thread") == 0) {
    bool was = r->in_thread;
    r->in_thread = true;
    find_scope(r, s, 1, &s->u.attr.value, s->u.attr.body, NULL);
    r->in_thread = was;
    return;
  }
  find_leaf(r, s, 1, &s->u.attr.value);
  find(r, s->u.attr.body);
}

static void find_alloc(Rewrite *r, Stmt *s) {
  VEC_GROW(r->a, r->allocs, r->cap_alloc, r->nalloc + 1);
  bool cond = s->u.alloc.condition && !ir_is_const_int(s->u.alloc.condition, 1);
  AllocInfo *ai = arena_alloc(r->a, sizeof *ai);
  *ai = (AllocInfo){.alloc = s, .index = r->nalloc, .level = r->nframes,
                    .plannable = !cond && !r->in_vector};
  r->allocs[r->nalloc++] = ai;
  find_leaf(r, s, s->u.alloc.ndim, s->u.alloc.extents);
  find(r, s->u.alloc.body);
}

static void find(Rewrite *r, const Stmt *s) {
  switch (s->kind) {
  case STMT_FOR: {
    bind(r, s->u.for_.var);
    Expr *bounds[2] = {s->u.for_.min, s->u.for_.extent};
    int vector = s->u.for_.fkind == FOR_VECTORIZED;
    r->in_vector += vector;
    find_scope(r, s, 2, bounds, s->u.for_.body, NULL);
    r->in_vector -= vector;
    return;
  }
  case STMT_IF:
    find_scope(r, s, 1, &s->u.if_.cond, s->u.if_.then, s->u.if_.orelse);
    return;
  case STMT_ASSERT: {
    Expr *e[2] = {s->u.assert_.cond, s->u.assert_.msg};
    find_scope(r, s, 2, e, s->u.assert_.body, NULL);
    return;
  }
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) find(r, s->u.seq.items[i]);
    return;
  case STMT_STORE: {
    Expr *e[3] = {s->u.store.value, s->u.store.index, s->u.store.predicate};
    find_leaf(r, s, 3, e);
    return;
  }
  case STMT_EVALUATE:
    find_leaf(r, s, 1, &s->u.eval.value);
    return;
  case STMT_LET:
    bind(r, s->u.let.var);
    find_leaf(r, s, 1, &s->u.let.value);
    find(r, s->u.let.body);
    return;
  case STMT_ATTR:
    find_attr(r, s);
    return;
  case STMT_ALLOCATE:
    find_alloc(r, (Stmt *)s);
    return;
  case STMT_PROVIDE:
  case STMT_REALIZE:
    /* gone after flattening; nothing here to plan */
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- which allocations can move ---- */

static bool bound_var(const Expr *e, const void *rewrite) {
  const Rewrite *r = rewrite;
  if (e->kind == EXPR_VAR)
    for (int i = 0; i < r->nbound; i++)
      if (r->bound[i] == e->u.var) return true;
  return false;
}

static void mark_movable(Rewrite *r) {
  for (int i = 0; i < r->nalloc; i++) {
    const Stmt *s = r->allocs[i]->alloc;
    for (int d = 0; d < s->u.alloc.ndim; d++)
      if (ir_expr_any(s->u.alloc.extents[d], bound_var, r)) r->allocs[i]->plannable = false;
  }
}

/* ---- liveness and planning ---- */

static bool shareable_scope(const char *scope) {
  return !*scope || strcmp(scope, "global") == 0 || strcmp(scope, "shared") == 0;
}

static const char *scope_of(const AllocInfo *ai) {
  const char *s = ai->alloc->u.alloc.scope;
  return s && *s ? s : "global";
}

/* The size in bits when every extent is a constant, else 0 (as for a size past int64). */
static int64_t const_nbits(const AllocInfo *ai) {
  const Stmt *s = ai->alloc;
  int64_t n = (int64_t)s->u.alloc.dtype.bits * s->u.alloc.dtype.lanes, v;
  for (int d = 0; d < s->u.alloc.ndim; d++) {
    if (!ir_as_int(s->u.alloc.extents[d], &v) || v < 0 || __builtin_mul_overflow(n, v, &n))
      return 0;
  }
  return n;
}

/* The element count: the product of the extents (1 for a scalar). */
static Expr *elem_count(Arena *a, const Stmt *alloc) {
  Expr *n = NULL;
  for (int d = 0; d < alloc->u.alloc.ndim; d++) {
    Expr *x = alloc->u.alloc.extents[d];
    if (n && !dt_eq(n->dtype, x->dtype)) n = arith_cast(a, DT_I64, n), x = arith_cast(a, DT_I64, x);
    n = n ? ir_binary(a, EXPR_MUL, n, x) : x;
  }
  return n ? n : ir_i32(a, 1);
}

/* Whether every member of the symbolic entry e has ai's element count, to the letter. */
static bool same_symbolic_size(Rewrite *r, const Entry *e, const AllocInfo *ai) {
  if (e->nbits != 0 || const_nbits(ai) != 0) return false;
  Expr *n = elem_count(r->a, ai->alloc);
  for (int i = 0; i < e->nallocs; i++)
    if (!ir_expr_equal(elem_count(r->a, e->allocs[i]->alloc), n)) return false;
  return true;
}

static Entry *new_entry(Rewrite *r, AllocInfo *ai, const Stmt *attach) {
  Entry *e = arena_alloc(r->a, sizeof *e);
  *e = (Entry){.attach = attach, .scope = scope_of(ai), .elem = ai->alloc->u.alloc.dtype,
               .nbits = const_nbits(ai)};
  VEC_GROW(r->a, r->entries, r->cap_entries, r->nentries + 1);
  r->entries[r->nentries++] = e;
  return e;
}

static bool reusable(const Entry *e, const AllocInfo *ai, const Stmt *attach) {
  return e->attach == attach && strcmp(e->scope, scope_of(ai)) == 0 &&
         dt_eq(e->elem, ai->alloc->u.alloc.dtype);
}

static void unlink_free(Rewrite *r, Entry *e) {
  for (Entry **p = &r->free_list; *p; p = &(*p)->next_free)
    if (*p == e) {
      *p = e->next_free;
      e->is_free = false;
      return;
    }
}

/* A free symbolic entry for ai: one of the same size, else the one freed last. */
static Entry *find_symbolic_entry(Rewrite *r, AllocInfo *ai, const Stmt *attach) {
  Entry *any = NULL;
  for (Entry *e = r->free_list; e; e = e->next_free) {
    if (e->nbits != 0 || !reusable(e, ai, attach)) continue;
    if (same_symbolic_size(r, e, ai)) return e;
    if (!any) any = e;
  }
  return any;
}

/* A free entry for ai: the smallest at least as large (up to 16 times), else the largest
 * smaller one (down to a 16th); for a symbolic size, find_symbolic_entry's; or a new one. */
static Entry *find_alloc_entry(Rewrite *r, AllocInfo *ai, const Stmt *attach) {
  int64_t need = const_nbits(ai);
  if (!shareable_scope(scope_of(ai)) || (need > 0 && need <= 32)) return new_entry(r, ai, attach);
  if (need == 0) {
    Entry *e = find_symbolic_entry(r, ai, attach);
    if (!e) return new_entry(r, ai, attach);
    unlink_free(r, e);
    return e;
  }
  Entry *above = NULL, *below = NULL;
  for (Entry *e = r->free_list; e; e = e->next_free) {
    if (e->nbits == 0 || !reusable(e, ai, attach)) continue;
    if (e->nbits >= need && e->nbits / 16 <= need && (!above || e->nbits < above->nbits))
      above = e;
    if (e->nbits < need && e->nbits >= need / 16 && (!below || e->nbits > below->nbits))
      below = e;
  }
  Entry *e = above ? above : below;
  if (!e) return new_entry(r, ai, attach);
  unlink_free(r, e);
  if (need > e->nbits) e->nbits = need;
  return e;
}

static void free_storage(Rewrite *r, AllocInfo *ai) {
  Entry *e = ai->entry;
  if (!e || e->is_free || (e->nbits > 0 && e->nbits <= 32) || !shareable_scope(e->scope)) return;
  e->is_free = true;
  e->next_free = r->free_list;
  r->free_list = e;
}

static void place(Rewrite *r, Entry *e, AllocInfo *ai) {
  e->allocs = arena_realloc(r->a, e->allocs, (size_t)e->nallocs * sizeof *e->allocs,
                            (size_t)(e->nallocs + 1) * sizeof *e->allocs);
  e->allocs[e->nallocs++] = ai;
  ai->entry = e;
}

/* dst[I] = f(src[I]) and nothing else touching dst or src: TVM's in-place pattern. */
typedef struct Inplace {
  IrVisitor v;
  const Var *dst, *src;
  const Stmt *store; /* the store to dst being inspected */
  int load_depth;
  bool ok;
} Inplace;

static void inplace_expr(IrVisitor *v, const Expr *e) {
  Inplace *c = (Inplace *)v;
  if (!c->ok) return;
  if (e->kind == EXPR_VAR && (e->u.var == c->dst || e->u.var == c->src)) c->ok = false;
  if (e->kind == EXPR_LOAD) {
    const Var *b = e->u.load.buf->data;
    bool src_ok = b != c->src || (c->store && dt_eq(c->store->u.store.value->dtype, e->dtype) &&
                                  ir_expr_equal(c->store->u.store.index, e->u.load.index));
    if (b == c->dst || c->load_depth > 0 || !src_ok) c->ok = false;
    c->load_depth++;
    ir_visit_children_expr(v, e);
    c->load_depth--;
    return;
  }
  ir_visit_children_expr(v, e);
}

static void inplace_stmt(IrVisitor *v, const Stmt *s) {
  Inplace *c = (Inplace *)v;
  if (!c->ok) return;
  if (s->kind != STMT_STORE) {
    ir_visit_children_stmt(v, s);
    return;
  }
  c->load_depth++;
  ir_visit_expr(v, s->u.store.index);
  c->load_depth--;
  const Stmt *outer = c->store;
  if (s->u.store.buf->data == c->dst) c->store = s;
  ir_visit_expr(v, s->u.store.value);
  if (s->u.store.predicate) ir_visit_expr(v, s->u.store.predicate);
  c->store = outer;
}

static bool inplace_ok(const Stmt *s, const AllocInfo *dst, const AllocInfo *src) {
  if (s->kind != STMT_FOR && s->kind != STMT_IF && s->kind != STMT_STORE && s->kind != STMT_ATTR)
    return false;
  Inplace c = {{inplace_expr, inplace_stmt}, dst->alloc->u.alloc.buffer_var,
               src->alloc->u.alloc.buffer_var, NULL, 0, true};
  ir_visit_stmt(&c.v, s);
  return c.ok;
}

typedef struct Events {
  int ngen, nkill;
  AllocInfo **gen, **kill;
} Events;

static void add_event(Arena *a, AllocInfo ***list, int *n, AllocInfo *ai) {
  *list = arena_realloc(a, *list, (size_t)*n * sizeof **list, (size_t)(*n + 1) * sizeof **list);
  (*list)[(*n)++] = ai;
}

static Events *liveness(Rewrite *r) {
  Events *ev = arena_alloc(r->a, (size_t)(r->nseq + 1) * sizeof *ev);
  bool *seen = arena_alloc(r->a, (size_t)(r->nalloc + 1) * sizeof *seen);
  for (int i = r->nseq - 1; i >= 0; i--)
    for (int k = 0; k < r->seq[i].ntouched; k++) {
      AllocInfo *ai = r->seq[i].touched[k];
      if (!ai->plannable) continue;
      if (!seen[ai->index]) add_event(r->a, &ev[i].kill, &ev[i].nkill, ai);
      seen[ai->index] = true;
    }
  memset(seen, 0, (size_t)(r->nalloc + 1) * sizeof *seen);
  for (int i = 0; i < r->nseq; i++) {
    if (r->seq[i].offset < 0) continue;
    const SeqEntry *s = &r->seq[i + r->seq[i].offset];
    for (int k = 0; k < s->ntouched; k++) {
      AllocInfo *ai = s->touched[k];
      if (!ai->plannable) continue;
      if (!seen[ai->index]) add_event(r->a, &ev[i].gen, &ev[i].ngen, ai);
      seen[ai->index] = true;
    }
  }
  return ev;
}

/* Whether dst fits e's storage exactly: in place, the one rewrites the other element by
 * element. A symbolic size must be the same expression (two zeros of const_nbits are not). */
static bool same_size(Rewrite *r, const Entry *e, const AllocInfo *dst) {
  return e->nbits != 0 ? e->nbits == const_nbits(dst) : same_symbolic_size(r, e, dst);
}

/* gen: the events where s begins; kill: where it ends (the same entry for a leaf). */
static Entry *inplace_entry(Rewrite *r, const Events *gen, const Events *kill, const Stmt *s,
                            AllocInfo *dst, const Stmt *attach) {
  if (gen->ngen > 2) return NULL;
  for (int k = 0; k < kill->nkill; k++) {
    AllocInfo *src = kill->kill[k];
    Entry *e = src->entry;
    if (src->inplace_src || !e || !reusable(e, dst, attach) || !same_size(r, e, dst) ||
        !inplace_ok(s, dst, src))
      continue;
    src->inplace_src = true;
    return e;
  }
  return NULL;
}

/* Storage attached inside a scope that has closed cannot serve anything after it. */
static void drop_free(Rewrite *r, const Stmt *scope) {
  for (Entry **p = &r->free_list; *p;) {
    if ((*p)->attach == scope) {
      (*p)->is_free = false;
      *p = (*p)->next_free;
    } else {
      p = &(*p)->next_free;
    }
  }
}

static bool opens_attach_scope(const Stmt *s) {
  return s->kind == STMT_ATTR || (s->kind == STMT_FOR && s->u.for_.fkind == FOR_PARALLEL);
}

static void plan(Rewrite *r) {
  Events *ev = liveness(r);
  const Stmt *thread_scope = NULL;
  for (int i = 0; i < r->nseq; i++) {
    const SeqEntry *s = &r->seq[i];
    for (int k = 0; s->offset >= 0 && k < ev[i].ngen; k++) {
      AllocInfo *ai = ev[i].gen[k];
      Entry *e = inplace_entry(r, &ev[i], &ev[i + s->offset], s->stmt, ai, thread_scope);
      place(r, e ? e : find_alloc_entry(r, ai, thread_scope), ai);
    }
    if (s->offset > 0 && !thread_scope && opens_attach_scope(s->stmt)) thread_scope = s->stmt;
    if (s->offset < 0 && thread_scope == s->stmt) {
      drop_free(r, thread_scope);
      thread_scope = NULL;
    }
    for (int k = 0; s->offset <= 0 && k < ev[i].nkill; k++)
      if (!ev[i].kill[k]->inplace_src) free_storage(r, ev[i].kill[k]);
  }
}

/* ---- the rewrite ---- */

/* The access's own buffer (its dtype and lanes kept) moved onto the entry's storage. */
static Buffer *entry_buffer(Rewrite *r, const AllocInfo *ai, const Buffer *view) {
  const AllocInfo *first = ai->entry->allocs[0];
  Buffer *b = arena_alloc(r->a, sizeof *b);
  *b = *view;
  b->name = first->alloc->u.alloc.buffer_var->name;
  b->data = first->alloc->u.alloc.buffer_var;
  return b;
}

static AllocInfo *planned(const Rewrite *r, const Var *v) {
  AllocInfo *ai = info_of(r, v);
  return ai && ai->plannable && ai->entry ? ai : NULL;
}

static Expr *rewrite_expr(IrMutator *m, Expr *e) {
  Rewrite *r = (Rewrite *)m;
  Expr *n = ir_mutate_children_expr(m, e);
  if (n->kind == EXPR_VAR) {
    AllocInfo *ai = planned(r, n->u.var);
    if (ai && ai->entry->allocs[0] != ai)
      return ir_varref(r->a, ai->entry->allocs[0]->alloc->u.alloc.buffer_var);
  }
  if (n->kind == EXPR_LOAD) {
    AllocInfo *ai = planned(r, n->u.load.buf->data);
    if (ai && ai->entry->allocs[0] != ai)
      return ir_load(r->a, entry_buffer(r, ai, n->u.load.buf), n->u.load.index,
                     n->u.load.predicate);
  }
  return n;
}

static bool has_attached(const Rewrite *r, const Stmt *at) {
  for (int i = 0; i < r->nentries; i++)
    if (r->entries[i]->attach == at) return true;
  return false;
}

/* The element count of a shared entry: the largest of its members'. All members have the
 * entry's element type (reusable() requires it), so counts compare directly. */
static Expr *merged_count(Rewrite *r, const Entry *e) {
  const Stmt *first = e->allocs[0]->alloc;
  if (e->nbits != 0) {
    int64_t bits = (int64_t)e->elem.bits * e->elem.lanes, n = (e->nbits + bits - 1) / bits;
    DType t = first->u.alloc.ndim ? first->u.alloc.extents[0]->dtype : DT_I32;
    return ir_int(r->a, n > INT32_MAX ? DT_I64 : t, n);
  }
  Expr *n = elem_count(r->a, first);
  for (int i = 1; i < e->nallocs; i++) {
    Expr *m = elem_count(r->a, e->allocs[i]->alloc);
    if (!dt_eq(n->dtype, m->dtype))
      n = arith_cast(r->a, DT_I64, n), m = arith_cast(r->a, DT_I64, m);
    n = arith_binary(r->a, EXPR_MAX, n, m);
  }
  Analyzer *an = arith_new(r->a);
  n = arith_simplify(an, n);
  arith_free(an);
  return n;
}

/* The new ALLOCATEs of the entries attached at `at`, around body, first entry outermost. */
static Stmt *attach(Rewrite *r, const Stmt *at, Stmt *body) {
  for (int i = r->nentries - 1; i >= 0; i--) {
    Entry *e = r->entries[i];
    if (e->attach != at) continue;
    const Stmt *first = e->allocs[0]->alloc;
    Expr *extent = e->nallocs == 1 ? elem_count(r->a, first) : merged_count(r, e);
    body = ir_allocate(r->a, first->u.alloc.buffer_var, first->u.alloc.dtype, 1, &extent,
                       first->u.alloc.scope, NULL, body);
  }
  return body;
}

static Stmt *rewrite_stmt(IrMutator *m, Stmt *s) {
  Rewrite *r = (Rewrite *)m;
  if (s->kind == STMT_ALLOCATE) {
    AllocInfo *ai = info_of(r, s->u.alloc.buffer_var);
    if (ai && ai->plannable) return ir_mutate_stmt(m, s->u.alloc.body);
  }
  Stmt *n = ir_mutate_children_stmt(m, s);
  if (n->kind == STMT_STORE) {
    AllocInfo *ai = planned(r, n->u.store.buf->data);
    if (ai && ai->entry->allocs[0] != ai)
      return ir_store(r->a, entry_buffer(r, ai, n->u.store.buf), n->u.store.value,
                      n->u.store.index, n->u.store.predicate);
  }
  if (!has_attached(r, s)) return n;
  if (n->kind == STMT_ATTR)
    return ir_attr(r->a, n->u.attr.nkind, n->u.attr.node, n->u.attr.key, n->u.attr.value,
                   attach(r, s, n->u.attr.body));
  if (n->kind == STMT_FOR)
    return ir_for(r->a, n->u.for_.var, n->u.for_.min, n->u.for_.extent, n->u.for_.fkind,
                  n->u.for_.thread_tag, attach(r, s, n->u.for_.body));
  return n;
}

Stmt *pass_storage_rewrite(Stmt *s, PassCtx *ctx) {
  Rewrite r = {.m = {ctx->arena, rewrite_expr, rewrite_stmt}, .a = ctx->arena};
  find(&r, s);
  if (r.nalloc == 0) return s;
  mark_movable(&r);
  plan(&r);
  return attach(&r, NULL, ir_mutate_stmt(&r.m, s));
}
