/* bound.c: bound inference (TVM's bound.cc). Stages are visited consumers first. An output
 * computes its whole declared shape; any other stage computes the union of what its consumers
 * read, where a consumer's loops inside the producer's attach point (and thread loops the
 * producer's storage is shared across) range fully and the loops outside it stay fixed. The
 * root ranges then pass down the relations to every leaf. */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/schedule/sched_impl.h"

/* ---- storage and thread ranks (TVM's thread_storage_scope.h) ---- */

enum { RANK_GLOBAL = 0, RANK_SHARED = 1, RANK_WARP = 2, RANK_LOCAL = 3, RANK_WMMA = 4 };

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int storage_rank(const char *scope) {
  if (starts(scope, "shared")) return RANK_SHARED;
  if (starts(scope, "warp")) return RANK_WARP;
  if (starts(scope, "local")) return RANK_LOCAL;
  if (starts(scope, "wmma.")) return RANK_WMMA;
  return RANK_GLOBAL;
}

/* blockIdx.* is rank 0, threadIdx.* and virtual threads rank 1; -1: not a thread. */
static int thread_rank(const char *tag, int *dim) {
  *dim = -1;
  if (!tag || !*tag) return -1;
  if (starts(tag, "vthread") || strcmp(tag, "cthread") == 0) return 1;
  if (starts(tag, "blockIdx.") && tag[9]) {
    *dim = tag[9] - 'x';
    return 0;
  }
  if (starts(tag, "threadIdx.") && tag[10]) {
    *dim = tag[10] - 'x';
    return 1;
  }
  return -1;
}

static const char *tag_of(const SchedBounds *b, const IterVar *iv) {
  IterVar *t = ptrmap_get(&b->bind, iv);
  return t ? t->thread_tag : iv->thread_tag;
}

/* Without a scope of its own, a stage's storage is global, or shared under blockIdx, or local
 * under threadIdx, by the threads around its attach point. */
static int scope_rank(const SchedBounds *b, const LStage *ls) {
  if (ls->scope && *ls->scope) return storage_rank(ls->scope);
  int max_rank = -1, dim;
  for (int i = 0; i < ls->npath; i++) {
    int r = thread_rank(tag_of(b, ls->attach_path[i]), &dim);
    if (r > max_rank) max_rank = r;
  }
  return max_rank < 0 ? RANK_GLOBAL : max_rank == 0 ? RANK_SHARED : RANK_LOCAL;
}

/* Whether a consumer loop ranges fully for the producer: plain loops inside the attach point
 * do; thread loops do when the producer's storage is shared across those threads. */
static bool need_relax(const SchedBounds *b, const IterVar *iv, bool found_attach, int rank) {
  int dim, tr = thread_rank(tag_of(b, iv), &dim);
  if (tr < 0) return !found_attach;
  if (rank == RANK_WARP && tr == 1 && dim == 0) return true;
  return rank <= tr;
}

/* ---- one consumer's reads ---- */

typedef struct Region {
  const Operation *op; /* the producer */
  int ndim;
  IntSet *dims; /* per output, ndim sets, their union so far */
  bool *seen;   /* per output and dimension: whether any read was seen */
} Region;

typedef struct ReadCollect {
  IrVisitor v;
  Analyzer *fold;
  Region *region;
  const PtrMap *sets;
} ReadCollect;

/* A read's range of dimension d of t, or t's whole extent there where that provably lies
 * inside it (TVM's ComputeOp PropBoundToInputs prefers the shape when it is tighter: a
 * padding stage reads [-1, n] under its guard, and its producer computes [0, n - 1]). */
static IntSet clip_to_shape(Analyzer *an, IntSet s, const Tensor *t, int d) {
  Expr *ext = t->shape[d];
  if ((s.min && s.min->dtype.bits != ext->dtype.bits) ||
      (s.max && s.max->dtype.bits != ext->dtype.bits))
    return s;
  Arena *a = arith_arena(an);
  Expr *zero = arith_const(a, ext->dtype, 0);
  Expr *last = arith_simplify(an, arith_binary(a, EXPR_SUB, ext, arith_const(a, ext->dtype, 1)));
  if ((!s.min || arith_can_prove(an, arith_binary(a, EXPR_GE, zero, s.min))) &&
      (!s.max || arith_can_prove(an, arith_binary(a, EXPR_LE, last, s.max))))
    return (IntSet){zero, last};
  return s;
}

static void collect_read(IrVisitor *v, const Expr *e) {
  ReadCollect *rc = (ReadCollect *)v;
  ir_visit_children_expr(v, e);
  if (e->kind != EXPR_PRODUCER_LOAD || e->u.pload.tensor->op != rc->region->op) return;
  Region *rg = rc->region;
  int base = e->u.pload.tensor->value_index * rg->ndim;
  for (int d = 0; d < rg->ndim && d < e->u.pload.n; d++) {
    IntSet s = clip_to_shape(rc->fold, sched_relax_set(rc->fold, e->u.pload.indices[d], rc->sets),
                             e->u.pload.tensor, d);
    rg->dims[base + d] = rg->seen[base + d] ? sched_set_union(rc->fold, rg->dims[base + d], s) : s;
    rg->seen[base + d] = true;
  }
}

static IntSet *new_set(Arena *a, IntSet s) {
  IntSet *p = arena_alloc(a, sizeof *p);
  *p = s;
  return p;
}

/* The sets of the consumer's leaves as seen from the producer's attach point. */
static void leaf_sets(SchedBounds *b, const LStage *prod, const LStage *cons, int rank, PtrMap *up,
                      bool *found) {
  Arena *a = b->arena;
  IterVar *first = prod->npath ? prod->attach_path[0] : NULL;
  for (int i = cons->nleaf - 1; i >= 0; i--) {
    IterVar *iv = cons->leaf[i];
    if (iv == first) *found = true;
    Range r = sched_dom(b, iv);
    IntSet s;
    if (ir_is_const_int(r.extent, 1)) {
      s = sched_set_point(r.min);
    } else if (!need_relax(b, iv, *found, rank)) {
      IterVar *t = ptrmap_get(&b->bind, iv);
      Expr *v = ir_varref(a, (t ? t : iv)->var);
      /* a root axis bound to a thread keeps its minimum (see schedule_ops.c's thread_loop) */
      bool offset = t && !ir_is_const_int(r.min, 0);
      s = sched_set_point(offset ? arith_binary(a, EXPR_ADD, v, r.min) : v);
    } else {
      s = sched_set_range(b->fold, r);
    }
    ptrmap_put(up, iv, new_set(a, s));
  }
}

/* The loops around the consumer's own attach point that range fully for the producer. */
static void relax_sets(SchedBounds *b, const LStage *prod, const LStage *cons, int rank,
                       PtrMap *relax, bool *found) {
  IterVar *first = prod->npath ? prod->attach_path[0] : NULL;
  for (int i = 0; i < cons->npath; i++) {
    IterVar *iv = cons->attach_path[i];
    if (iv == first) *found = true;
    if (!need_relax(b, iv, *found, rank)) continue;
    IntSet *s = new_set(b->arena, sched_set_range(b->fold, sched_dom(b, iv)));
    ptrmap_put(relax, iv->var, s);
    const IterVar *root = sched_scan_axis_of(b, iv); /* the updates read the scan's own axis */
    if (root) ptrmap_put(relax, root->var, new_set(b->arena, sched_set_range(b->fold, root->dom)));
    IterVar *t = ptrmap_get(&b->bind, iv);
    if (t) ptrmap_put(relax, t->var, s);
  }
}

/* The sets of the consumer's root axes, relaxed over its outer loops where needed. */
static void root_sets(SchedBounds *b, const LStage *cons, const PtrMap *up, const PtrMap *relax,
                      PtrMap *out) {
  Arena *a = b->arena;
  int n;
  IterVar **roots = sched_root_ivs(a, cons->st->op, &n);
  for (int i = 0; i < n; i++) {
    IntSet *s = ptrmap_get(up, roots[i]);
    Range r = s ? sched_set_cover(b->fold, *s, roots[i]->dom) : roots[i]->dom;
    IntSet set = sched_set_range(b->fold, r);
    if (relax->n) {
      set.min = sched_relax_set(b->fold, set.min, relax).min;
      set.max = set.max ? sched_relax_set(b->fold, set.max, relax).max : NULL;
    }
    ptrmap_put(out, roots[i]->var, new_set(a, set));
  }
}

static bool reads_op(const LStage *cons, const Operation *op) {
  for (int i = 0; i < cons->nreads; i++)
    if (cons->reads[i]->op == op) return true;
  return false;
}

static bool add_consumer(SchedBounds *b, const LStage *prod, const LStage *cons, Region *rg) {
  Arena *a = b->arena;
  int rank = scope_rank(b, prod);
  PtrMap up, relax, roots;
  ptrmap_init(&up, a);
  ptrmap_init(&relax, a);
  ptrmap_init(&roots, a);
  bool found = false;
  leaf_sets(b, prod, cons, rank, &up, &found);
  relax_sets(b, prod, cons, rank, &relax, &found);
  if (prod->npath && !found)
    return ir_error(b->diag,
                    "cannot compute_at: stage %s is computed at axis %s of %s, but %s reads it "
                    "outside that loop",
                    prod->st->op->name, prod->st->attach_ivar->var->name,
                    prod->st->attach_stage->op->name, cons->st->op->name);
  sched_pass_up_domain(b, cons, &up);
  root_sets(b, cons, &up, &relax, &roots);
  ReadCollect rc = {{collect_read, NULL}, b->fold, rg, &roots};
  for (int i = 0; i < cons->st->op->noutputs; i++) ir_visit_expr(&rc.v, cons->body[i]);
  return true;
}

/* ---- one stage ---- */

static bool infer_root_bound(SchedBounds *b, LStage *ls) {
  Arena *a = b->arena;
  const Operation *op = ls->st->op;
  if (op->kind == OP_SCAN) {
    sched_set_dom(b, op->scan_axis, op->scan_axis->dom);
    return true;
  }
  if (sched_scan_root_bound(b, op)) return true;
  if (ls->st->is_output) {
    for (int i = 0; i < op->naxis; i++) sched_set_dom(b, op->axis[i], op->axis[i]->dom);
  } else {
    int n = op->noutputs * op->naxis;
    Region rg = {op, op->naxis, arena_alloc(a, (size_t)(n + 1) * sizeof(IntSet)),
                 arena_alloc(a, (size_t)(n + 1) * sizeof(bool))};
    bool whole = false; /* an extern op reads its inputs whole (TVM's ExternOp) */
    for (int j = ls->index + 1; j < b->sch->nstages; j++) {
      LStage *cons = &b->ls[j];
      if (cons->st->op->kind == OP_EXTERN && reads_op(cons, op)) whole = true;
      if (cons->st->op->kind != OP_COMPUTE || cons->st->attach == ATTACH_INLINE) continue;
      if (reads_op(cons, op) && !add_consumer(b, ls, cons, &rg)) return false;
    }
    for (int k = 0; whole && k < n; k++) rg.seen[k] = false;
    for (int d = 0; d < op->naxis; d++) {
      IntSet u = {NULL, NULL};
      bool any = false;
      for (int k = 0; k < op->noutputs; k++) {
        if (!rg.seen[k * op->naxis + d]) continue;
        u = any ? sched_set_union(b->fold, u, rg.dims[k * op->naxis + d])
                : rg.dims[k * op->naxis + d];
        any = true;
      }
      sched_set_dom(b, op->axis[d], sched_set_cover(b->fold, u, op->axis[d]->dom));
    }
  }
  for (int i = 0; i < op->nreduce; i++)
    sched_set_dom(b, op->reduce_axis[i], op->reduce_axis[i]->dom);
  return true;
}

/* iv's range in the simplifier's form, iv then known to lie in it. */
static void simplify_dom(SchedBounds *b, Analyzer *an, const IterVar *iv) {
  Range *r = ptrmap_get(&b->dom, iv);
  if (!r) return;
  Range s = {arith_simplify(an, r->min), arith_simplify(an, r->extent)};
  sched_set_dom(b, iv, s);
  arith_bind(an, iv->var, s);
}

/* The stage's ranges in the simplifier's form, each variable known to lie in its range (TVM
 * binds each stage's ranges as InferBound goes), before its producers read them: a loop that
 * only simplifies to extent 1 is then a single point for them, as schedule_ops, which makes
 * no loop of it, sees it. Ranges mention only the loops around the stage, simplified
 * already, so the result is what simplifying at the end would give. The root ranges come
 * first, so that splitting them can prove what it tightens. */
static void simplify_roots(SchedBounds *b, Analyzer *an, const LStage *ls) {
  int n;
  IterVar **roots = sched_root_ivs(b->arena, ls->st->op, &n);
  for (int i = 0; i < n; i++) simplify_dom(b, an, roots[i]);
}

/* The rest of the stage's ranges, once passed down from the roots. */
static void simplify_derived(SchedBounds *b, Analyzer *an, const LStage *ls) {
  const Stage *st = ls->st;
  int n;
  sched_root_ivs(b->arena, st->op, &n);
  for (int i = n; i < st->nall; i++) simplify_dom(b, an, st->all_iter_vars[i]);
  for (int i = 0; i < ls->nrel; i++)
    if (ls->rel[i].kind == REL_REBASE) simplify_dom(b, an, ls->rel[i].fused);
  for (int i = 0; i < st->nattr; i++) {
    IterVar *t = st->attrs[i].bind_thread;
    if (t && ptrmap_get(&b->thread_stage, t) == ls) simplify_dom(b, an, t);
  }
}

/* Consumers first; an learns each stage's ranges as they are found. */
static bool infer_stages(SchedBounds *b, Analyzer *an) {
  for (int i = b->sch->nstages - 1; i >= 0; i--) {
    LStage *ls = &b->ls[i];
    if ((ls->st->op->kind != OP_COMPUTE && ls->st->op->kind != OP_SCAN) ||
        ls->st->attach == ATTACH_INLINE)
      continue;
    if (!infer_root_bound(b, ls)) return false;
    simplify_roots(b, an, ls);
    if (!sched_pass_down_domain(b, ls, an)) return false;
    simplify_derived(b, an, ls);
  }
  return true;
}

SchedBounds *sched_infer_bound(Schedule *s, Arena *a, Diag *d) {
  SchedBounds *b = arena_alloc(a, sizeof *b);
  b->arena = a;
  b->sch = s;
  b->diag = d;
  ptrmap_init(&b->op_index, a);
  ptrmap_init(&b->dom, a);
  ptrmap_init(&b->var_set, a);
  ptrmap_init(&b->bind, a);
  ptrmap_init(&b->thread_stage, a);
  ptrmap_init(&b->scan_values, a);
  if (!sched_normalize(b)) return NULL;
  Analyzer *an = arith_new(a);
  b->fold = arith_new(a);
  bool ok = infer_stages(b, an);
  arith_free(b->fold);
  b->fold = NULL;
  arith_free(an);
  return ok ? b : NULL;
}

bool sched_bound(const SchedBounds *b, const IterVar *iv, Range *out) {
  Range *r = ptrmap_get(&b->dom, iv);
  if (r) *out = *r;
  return r != NULL;
}
