/* schedule_lang.c: te.create_schedule and the stage primitives (TVM's schedule_lang.cc). A
 * primitive checks its request, records it on the Stage and returns; lowering does the work.
 * A refused request changes nothing and leaves its reason in Schedule.diag. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/schedule/sched_impl.h"

bool sched_fail(Schedule *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_clear(&s->diag);
  ir_verror(&s->diag, fmt, ap);
  va_end(ap);
  return false;
}

/* Appends p to the arena array *items of *n items and *cap slots. */
static void push_ptr(Arena *a, void ***items, int *n, int *cap, void *p) {
  VEC_GROW(a, *items, *cap, *n + 1);
  (*items)[(*n)++] = p;
}

IterVar **sched_root_ivs(Arena *a, const Operation *op, int *n) {
  if (op->kind == OP_SCAN) {
    IterVar **roots = arena_alloc(a, sizeof *roots);
    roots[0] = op->scan_axis;
    *n = 1;
    return roots;
  }
  *n = op->kind == OP_COMPUTE ? op->naxis + op->nreduce : 0;
  IterVar **roots = arena_alloc(a, (size_t)(*n + 1) * sizeof *roots);
  for (int i = 0; i < *n; i++)
    roots[i] = i < op->naxis ? op->axis[i] : op->reduce_axis[i - op->naxis];
  return roots;
}

/* ---- create_schedule ---- */

static Stage *new_stage(Schedule *s, Operation *op) {
  Arena *a = s->arena;
  Stage *st = arena_alloc(a, sizeof *st);
  st->sched = s;
  st->op = op;
  st->origin_op = op;
  st->attach = ATTACH_ROOT;
  st->scope = "";
  int n;
  IterVar **roots = sched_root_ivs(a, op, &n);
  for (int i = 0; i < n; i++) {
    push_ptr(a, (void ***)&st->all_iter_vars, &st->nall, &st->cap_all, roots[i]);
    push_ptr(a, (void ***)&st->leaf_iter_vars, &st->nleaf, &st->cap_leaf, roots[i]);
  }
  return st;
}

static int input_count(const Operation *op) { return op->kind == OP_PLACEHOLDER ? 0 : op->ninputs; }

/* Post-order over the read graph from op, inputs in the order the body reads them, so that
 * producers come before consumers; an explicit stack, since graphs can be deep. */
static void post_order(Schedule *s, PtrMap *seen, Operation *root, int *cap) {
  typedef struct Frame {
    Operation *op;
    int next;
  } Frame;
  int depth = 0, fcap = 0;
  Frame *stack = NULL;
  VEC_GROW(NULL, stack, fcap, 1);
  stack[depth++] = (Frame){root, 0};
  ptrmap_put(seen, root, root);
  while (depth) {
    Frame *f = &stack[depth - 1];
    if (f->next < input_count(f->op)) {
      Operation *in = f->op->inputs[f->next++]->op;
      if (!in || ptrmap_get(seen, in)) continue;
      ptrmap_put(seen, in, in);
      VEC_GROW(NULL, stack, fcap, depth + 1);
      stack[depth++] = (Frame){in, 0};
      continue;
    }
    push_ptr(s->arena, (void ***)&s->stages, &s->nstages, cap, new_stage(s, f->op));
    depth--;
  }
  free(stack);
}

Schedule *sched_create(Arena *a, int noutputs, Operation **outputs) {
  Schedule *s = arena_alloc(a, sizeof *s);
  s->arena = a;
  s->outputs = arena_alloc(a, (size_t)(noutputs ? noutputs : 1) * sizeof *s->outputs);
  PtrMap seen;
  ptrmap_init(&seen, a);
  int cap = 0;
  for (int i = 0; i < noutputs; i++) {
    bool dup = false;
    for (int j = 0; j < s->noutputs; j++) dup |= s->outputs[j] == outputs[i];
    if (dup) continue;
    s->outputs[s->noutputs++] = outputs[i];
    if (!ptrmap_get(&seen, outputs[i])) post_order(s, &seen, outputs[i], &cap);
  }
  for (int i = 0; i < s->noutputs; i++) sched_stage(s, s->outputs[i])->is_output = true;
  sched_attach_scans(s);
  return s;
}

Stage *sched_stage(const Schedule *s, const Operation *op) {
  for (int i = 0; i < s->nstages; i++)
    if (s->stages[i]->op == op || s->stages[i]->origin_op == op) return s->stages[i];
  return NULL;
}

/* ---- checks shared by the primitives ---- */

static const char *nm(const IterVar *iv) { return iv ? iv->var->name : "(none)"; }

static int find(IterVar *const *ivs, int n, const IterVar *iv) {
  for (int i = 0; i < n; i++)
    if (ivs[i] == iv) return i;
  return -1;
}

/* The position of iv among st's leaves, or -1 with the error set. */
static int leaf_pos(Stage *st, const IterVar *iv, const char *what) {
  int pos = iv ? find(st->leaf_iter_vars, st->nleaf, iv) : -1;
  if (pos >= 0 && st->op->kind == OP_SCAN && strcmp(what, "compute_at") != 0) {
    sched_fail(st->sched, "cannot %s: axis %s of stage %s is the scan axis, which is not "
               "schedulable (its steps run in order)", what, nm(iv), st->op->name);
    return -1;
  }
  if (pos >= 0) return pos;
  if (!iv || find(st->all_iter_vars, st->nall, iv) < 0)
    sched_fail(st->sched, "cannot %s: %s is not an axis of stage %s", what, nm(iv), st->op->name);
  else
    sched_fail(st->sched, "cannot %s: axis %s of stage %s is not a leaf (it was split or fused)",
               what, nm(iv), st->op->name);
  return -1;
}

static void add_iv(Stage *st, IterVar *iv) {
  push_ptr(st->sched->arena, (void ***)&st->all_iter_vars, &st->nall, &st->cap_all, iv);
}

static void add_relation(Stage *st, IterRelation r) {
  Arena *a = st->sched->arena;
  VEC_GROW(a, st->relations, st->cap_rel, st->nrel + 1);
  st->relations[st->nrel++] = r;
}

static IterVar *derived_iv(Stage *st, const char *name, DType t, IterVarKind kind) {
  Arena *a = st->sched->arena;
  return ir_itervar(a, ir_var(a, name, t), (Range){NULL, NULL}, kind, NULL);
}

static char *join(Arena *a, const char *x, const char *y, const char *z) {
  size_t n = strlen(x) + strlen(y) + strlen(z) + 1;
  char *s = arena_alloc(a, n);
  snprintf(s, n, "%s%s%s", x, y, z);
  return s;
}

/* ---- split, tile, fuse, reorder ---- */

/* factor or nparts as an expression of the axis's dtype; NULL with the error set. */
static Expr *split_amount(Stage *st, const IterVar *parent, Expr *factor, Expr *nparts) {
  const char *what = factor ? "factor" : "nparts";
  Expr *f = factor ? factor : nparts;
  int64_t k;
  if ((factor == NULL) == (nparts == NULL)) {
    sched_fail(st->sched, "cannot split axis %s of stage %s: give exactly one of factor and nparts",
               nm(parent), st->op->name);
    return NULL;
  }
  if (!dt_is_int(f->dtype) || f->dtype.lanes != 1) {
    sched_fail(st->sched, "cannot split axis %s of stage %s: %s must be an integer", nm(parent),
               st->op->name, what);
    return NULL;
  }
  if (ir_as_int(f, &k) && k <= 0) {
    sched_fail(st->sched, "cannot split axis %s of stage %s: %s must be positive, not %lld",
               nm(parent), st->op->name, what, (long long)k);
    return NULL;
  }
  DType t = parent->var->dtype;
  if (dt_eq(f->dtype, t)) return f;
  return arith_cast(st->sched->arena, t, f);
}

/* Records a split already checked: parent at leaf position pos. */
static void do_split(Stage *st, int pos, Expr *factor, Expr *nparts, IterVar **outer,
                     IterVar **inner) {
  Arena *a = st->sched->arena;
  IterVar *p = st->leaf_iter_vars[pos];
  IterVar *o = derived_iv(st, join(a, p->var->name, ".outer", ""), p->var->dtype, p->kind);
  IterVar *i = derived_iv(st, join(a, p->var->name, ".inner", ""), p->var->dtype, p->kind);
  add_relation(st, (IterRelation){.kind = REL_SPLIT,
                                  .parent = p,
                                  .outer = o,
                                  .inner = i,
                                  .factor = factor,
                                  .nparts = nparts});
  add_iv(st, o);
  add_iv(st, i);
  push_ptr(a, (void ***)&st->leaf_iter_vars, &st->nleaf, &st->cap_leaf, NULL);
  memmove(&st->leaf_iter_vars[pos + 2], &st->leaf_iter_vars[pos + 1],
          (size_t)(st->nleaf - pos - 2) * sizeof(IterVar *));
  st->leaf_iter_vars[pos] = o;
  st->leaf_iter_vars[pos + 1] = i;
  *outer = o;
  *inner = i;
}

bool sched_split(Stage *st, IterVar *parent, Expr *factor, Expr *nparts, IterVar **outer,
                 IterVar **inner) {
  int pos = leaf_pos(st, parent, "split");
  if (pos < 0) return false;
  Expr *f = split_amount(st, parent, factor, nparts);
  if (!f) return false;
  do_split(st, pos, factor ? f : NULL, nparts ? f : NULL, outer, inner);
  return true;
}

bool sched_tile(Stage *st, IterVar *x, IterVar *y, Expr *x_factor, Expr *y_factor,
                IterVar *out[4]) {
  if (leaf_pos(st, x, "tile") < 0 || leaf_pos(st, y, "tile") < 0) return false;
  if (x == y)
    return sched_fail(st->sched, "cannot tile: axis %s of stage %s given twice", nm(x),
                      st->op->name);
  Expr *xf = split_amount(st, x, x_factor, NULL),
       *yf = xf ? split_amount(st, y, y_factor, NULL) : NULL;
  if (!xf || !yf) return false;
  do_split(st, leaf_pos(st, x, "tile"), xf, NULL, &out[0], &out[2]);
  do_split(st, leaf_pos(st, y, "tile"), yf, NULL, &out[1], &out[3]);
  return sched_reorder(st, 4, out);
}

/* TVM orders iter types DataPar < ThreadIndex < CommReduce < Opaque and gives a fused axis
 * the larger of its two. */
static int kind_rank(IterVarKind k) {
  switch (k) {
  case ITER_DATA_PAR:
    return 0;
  case ITER_THREAD:
  case ITER_VTHREAD:
    return 1;
  case ITER_REDUCE:
    return 2;
  case ITER_OPAQUE:
    return 4;
  }
  TES_UNREACHABLE();
}

static IterVar *fuse2(Stage *st, IterVar *outer, IterVar *inner) {
  Arena *a = st->sched->arena;
  DType t =
      outer->var->dtype.bits >= inner->var->dtype.bits ? outer->var->dtype : inner->var->dtype;
  IterVarKind k = kind_rank(inner->kind) > kind_rank(outer->kind) ? inner->kind : outer->kind;
  IterVar *f =
      derived_iv(st, join(a, outer->var->name, ".", join(a, inner->var->name, ".fused", "")), t, k);
  add_relation(st, (IterRelation){.kind = REL_FUSE, .outer = outer, .inner = inner, .fused = f});
  add_iv(st, f);
  int pos = find(st->leaf_iter_vars, st->nleaf, outer);
  st->leaf_iter_vars[pos] = f;
  memmove(&st->leaf_iter_vars[pos + 1], &st->leaf_iter_vars[pos + 2],
          (size_t)(st->nleaf - pos - 2) * sizeof(IterVar *));
  st->nleaf--;
  return f;
}

IterVar *sched_fuse(Stage *st, int n, IterVar **axes) {
  if (n < 1) {
    sched_fail(st->sched, "cannot fuse: no axes of stage %s given", st->op->name);
    return NULL;
  }
  int prev = -1;
  for (int i = 0; i < n; i++) {
    int pos = leaf_pos(st, axes[i], "fuse");
    if (pos < 0) return NULL;
    if (i && pos != prev + 1) {
      sched_fail(st->sched,
                 "cannot fuse: axes %s and %s of stage %s are not adjacent in its loop order",
                 nm(axes[i - 1]), nm(axes[i]), st->op->name);
      return NULL;
    }
    prev = pos;
  }
  IterVar *fused = axes[0];
  for (int i = 1; i < n; i++) fused = fuse2(st, fused, axes[i]);
  return fused;
}

static int cmp_int(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }

bool sched_reorder(Stage *st, int n, IterVar **order) {
  int *pos = xmalloc((size_t)(n ? n : 1) * sizeof *pos);
  for (int i = 0; i < n; i++) {
    pos[i] = leaf_pos(st, order[i], "reorder");
    bool twice = pos[i] >= 0 && find(order, i, order[i]) >= 0;
    if (twice)
      sched_fail(st->sched, "cannot reorder: axis %s of stage %s given twice", nm(order[i]),
                 st->op->name);
    if (pos[i] < 0 || twice) {
      free(pos);
      return false;
    }
  }
  qsort(pos, (size_t)n, sizeof *pos, cmp_int);
  for (int i = 0; i < n; i++) st->leaf_iter_vars[pos[i]] = order[i];
  free(pos);
  return true;
}

/* ---- where a stage is computed ---- */

static int stage_index(const Schedule *s, const Stage *st) {
  for (int i = 0; i < s->nstages; i++)
    if (s->stages[i] == st) return i;
  return -1;
}

/* Whether producer's op is read, directly or through other operations, by consumer's. Stages
 * come producers first, so the walk only goes down the list. */
static bool is_producer_of(const Schedule *s, const Stage *producer, const Stage *consumer) {
  int target = stage_index(s, producer), top = stage_index(s, consumer);
  if (target < 0 || target >= top) return false;
  bool *reach = xcalloc((size_t)s->nstages, sizeof *reach);
  reach[top] = true;
  for (int i = top; i > target; i--) {
    if (!reach[i]) continue;
    const Operation *op = s->stages[i]->op;
    for (int j = 0; j < input_count(op); j++) {
      int k = stage_index(s, sched_stage(s, op->inputs[j]->op));
      if (k >= 0) reach[k] = true;
    }
  }
  bool found = reach[target];
  free(reach);
  return found;
}

bool sched_reads_transitively(const Schedule *s, const Operation *consumer,
                              const Operation *producer) {
  const Stage *c = sched_stage(s, consumer), *p = sched_stage(s, producer);
  return c && p && is_producer_of(s, p, c);
}

static bool computable(Stage *st, const char *what) {
  int role, k;
  const Operation *sc = sched_scan_role(st->sched, st->op, &role, &k);
  if (sc)
    return sched_fail(st->sched, "cannot %s: stage %s is the %s of scan %s (it is computed %s)",
                      what, st->op->name, role == 1 ? "init" : "update", sc->name,
                      role == 1 ? "before the scan's loop" : "at each step of the scan axis");
  if (st->op->kind == OP_COMPUTE) return true;
  if (st->op->kind == OP_SCAN && strcmp(what, "compute_root") == 0) return true;
  if (st->op->kind == OP_SCAN && strcmp(what, "compute_at") == 0)
    return sched_fail(st->sched, "not supported yet: compute_at of scan stage %s (a scan is "
                      "computed at root)", st->op->name);
  if (st->op->kind == OP_SCAN)
    return sched_fail(st->sched, "cannot %s: stage %s is a scan", what, st->op->name);
  if (st->op->kind == OP_EXTERN && strcmp(what, "compute_root") == 0) return true;
  if (st->op->kind == OP_EXTERN && strcmp(what, "compute_at") == 0)
    return sched_fail(st->sched, "not supported yet: compute_at of extern stage %s (an extern "
                      "stage is computed at root)", st->op->name);
  if (st->op->kind == OP_EXTERN)
    return sched_fail(st->sched, "cannot %s: stage %s is an extern op", what, st->op->name);
  return sched_fail(st->sched, "cannot %s: stage %s is a placeholder", what, st->op->name);
}

bool sched_compute_at(Stage *st, Stage *parent, IterVar *scope) {
  if (!computable(st, "compute_at")) return false;
  if (!parent || parent->sched != st->sched)
    return sched_fail(st->sched, "cannot compute_at: the target stage of %s is not in its schedule",
                      st->op->name);
  if (!is_producer_of(st->sched, st, parent))
    return sched_fail(st->sched, "cannot compute_at: stage %s is not a producer of %s",
                      st->op->name, parent->op->name);
  if (parent->op->kind == OP_EXTERN)
    return sched_fail(st->sched, "cannot compute_at: stage %s is an extern op, opaque to "
                      "schedules: it has no loop to compute %s in", parent->op->name, st->op->name);
  if (leaf_pos(parent, scope, "compute_at") < 0) return false;
  st->attach = ATTACH_SCOPE;
  st->attach_stage = parent;
  st->attach_ivar = scope;
  return true;
}

bool sched_compute_inline(Stage *st) {
  if (!computable(st, "compute_inline")) return false;
  if (st->op->nreduce)
    return sched_fail(st->sched, "cannot compute_inline: stage %s is a reduction", st->op->name);
  if (st->is_output)
    return sched_fail(st->sched, "cannot compute_inline: stage %s is an output of the schedule",
                      st->op->name);
  st->attach = ATTACH_INLINE;
  st->attach_stage = NULL;
  st->attach_ivar = NULL;
  return true;
}

bool sched_compute_root(Stage *st) {
  if (!computable(st, "compute_root")) return false;
  st->attach = ATTACH_ROOT;
  st->attach_stage = NULL;
  st->attach_ivar = NULL;
  return true;
}

/* ---- loop annotations ---- */

const IterVarAttr *sched_iter_attr(const Stage *st, const IterVar *iv) {
  for (int i = 0; i < st->nattr; i++)
    if (st->attrs[i].iv == iv) return &st->attrs[i];
  return NULL;
}

static IterVarAttr *attr_of(Stage *st, IterVar *iv) {
  IterVarAttr *at = (IterVarAttr *)sched_iter_attr(st, iv);
  if (at) return at;
  VEC_GROW(st->sched->arena, st->attrs, st->cap_attr, st->nattr + 1);
  at = &st->attrs[st->nattr++];
  *at = (IterVarAttr){.iv = iv, .for_kind = FOR_SERIAL};
  return at;
}

static bool set_kind(Stage *st, IterVar *iv, ForKind k, const char *what) {
  if (leaf_pos(st, iv, what) < 0) return false;
  attr_of(st, iv)->for_kind = k;
  return true;
}

bool sched_parallel(Stage *st, IterVar *iv) { return set_kind(st, iv, FOR_PARALLEL, "parallel"); }
bool sched_vectorize(Stage *st, IterVar *iv) {
  return set_kind(st, iv, FOR_VECTORIZED, "vectorize");
}
bool sched_unroll(Stage *st, IterVar *iv) { return set_kind(st, iv, FOR_UNROLLED, "unroll"); }

bool sched_bind(Stage *st, IterVar *iv, IterVar *thread) {
  if (leaf_pos(st, iv, "bind") < 0) return false;
  if (!thread || (thread->kind != ITER_THREAD && thread->kind != ITER_VTHREAD) ||
      !thread->thread_tag || !*thread->thread_tag)
    return sched_fail(st->sched, "cannot bind axis %s of stage %s: %s is not a thread axis", nm(iv),
                      st->op->name, nm(thread));
  if (iv->kind != ITER_DATA_PAR && iv->kind != ITER_REDUCE)
    return sched_fail(st->sched, "cannot bind axis %s of stage %s: it is already a thread axis",
                      nm(iv), st->op->name);
  /* A reduce axis over threads is a cross-thread reduction (tvm_thread_allreduce): the threads
   * of one block combine their values, which blocks and virtual threads cannot do. */
  if (iv->kind == ITER_REDUCE && strncmp(thread->thread_tag, "threadIdx.", 10) != 0)
    return sched_fail(st->sched,
                      "cannot bind reduction axis %s of stage %s to %s: a reduction axis binds "
                      "only to threadIdx.x/y/z (a cross-thread reduction within a block)",
                      nm(iv), st->op->name, thread->thread_tag);
  /* the loop variable becomes the thread index itself, so the two must agree */
  if (!dt_eq(iv->var->dtype, thread->var->dtype)) {
    char a[32], b[32];
    return sched_fail(st->sched, "cannot bind axis %s of stage %s: it is %s but thread %s is %s",
                      nm(iv), st->op->name, dt_name(iv->var->dtype, a), thread->thread_tag,
                      dt_name(thread->var->dtype, b));
  }
  for (int i = 0; i < st->nattr; i++)
    if (st->attrs[i].bind_thread == thread && st->attrs[i].iv != iv)
      return sched_fail(st->sched, "cannot bind axis %s of stage %s: %s is already bound to %s",
                        nm(iv), st->op->name, thread->thread_tag, nm(st->attrs[i].iv));
  attr_of(st, iv)->bind_thread = thread;
  return true;
}

bool sched_tensorize(Stage *st, IterVar *iv, const TensorIntrin *intrin) {
  if (leaf_pos(st, iv, "tensorize") < 0) return false;
  if (st->op->kind != OP_COMPUTE)
    return sched_fail(st->sched, "cannot tensorize stage %s: it is not a compute", st->op->name);
  for (int i = 0; i < st->nattr; i++)
    if (st->attrs[i].tensor_intrin && st->attrs[i].iv != iv)
      return sched_fail(st->sched,
                        "cannot tensorize axis %s of stage %s: axis %s is tensorized already",
                        nm(iv), st->op->name, nm(st->attrs[i].iv));
  attr_of(st, iv)->tensor_intrin = intrin;
  return true;
}

bool sched_pragma(Stage *st, IterVar *iv, const char *key, Expr *value) {
  if (leaf_pos(st, iv, "pragma") < 0) return false;
  if (!key || !*key)
    return sched_fail(st->sched, "cannot pragma axis %s of stage %s: empty pragma name", nm(iv),
                      st->op->name);
  Arena *a = st->sched->arena;
  IterVarAttr *at = attr_of(st, iv);
  int n = at->npragma;
  at->pragma_keys = arena_realloc(a, at->pragma_keys, (size_t)n * sizeof(char *),
                                  (size_t)(n + 1) * sizeof(char *));
  at->pragma_values = arena_realloc(a, at->pragma_values, (size_t)n * sizeof(Expr *),
                                    (size_t)(n + 1) * sizeof(Expr *));
  at->pragma_keys[n] = arena_strndup(a, key, strlen(key));
  at->pragma_values[n] = value;
  at->npragma = n + 1;
  return true;
}

/* TVM's Stage::prefetch, with two checks it leaves to a crash in lowering: the axis is a leaf
 * of the stage and the stage's op reads the tensor, itself or, when a cache or rfactor
 * rewrote its stage since, what its stage computes now (lowering names both the same). */
bool sched_prefetch(Stage *st, Tensor *tensor, IterVar *iv, Expr *offset) {
  if (leaf_pos(st, iv, "prefetch") < 0) return false;
  const Stage *ps = sched_stage(st->sched, tensor->op);
  const Tensor *now = ps && tensor->value_index < ps->op->noutputs
                          ? ps->op->outputs[tensor->value_index] : tensor;
  bool read = false;
  for (int i = 0; i < st->op->ninputs && !read; i++)
    read = st->op->inputs[i] == tensor || st->op->inputs[i] == now;
  if (!read)
    return sched_fail(st->sched, "cannot prefetch %s at axis %s of stage %s: stage %s does not "
                      "read %s", tensor->name, nm(iv), st->op->name, st->op->name, tensor->name);
  if (!dt_is_int(offset->dtype) || offset->dtype.lanes != 1)
    return sched_fail(st->sched, "cannot prefetch %s at axis %s of stage %s: the offset is not "
                      "an integer", tensor->name, nm(iv), st->op->name);
  Arena *a = st->sched->arena;
  IterVarAttr *at = attr_of(st, iv);
  int n = at->nprefetch;
  at->prefetch_data = arena_realloc(a, at->prefetch_data, (size_t)n * sizeof(Tensor *),
                                    (size_t)(n + 1) * sizeof(Tensor *));
  at->prefetch_offset = arena_realloc(a, at->prefetch_offset, (size_t)n * sizeof(Expr *),
                                      (size_t)(n + 1) * sizeof(Expr *));
  at->prefetch_data[n] = tensor;
  at->prefetch_offset[n] = offset;
  at->nprefetch = n + 1;
  return true;
}

/* ---- storage ---- */

static bool known_scope(const char *s) {
  static const char *const names[] = {
      "",     "global",        "shared",        "shared.dyn",      "local",
      "warp", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(s, names[i]) == 0) return true;
  return strncmp(s, "local.", 6) == 0 && s[6];
}

bool sched_set_scope(Stage *st, const char *scope) {
  if (!computable(st, "set_scope")) return false;
  if (!scope || !known_scope(scope))
    return sched_fail(st->sched, "cannot set_scope: unknown storage scope '%s' for stage %s",
                      scope ? scope : "", st->op->name);
  st->scope = arena_strndup(st->sched->arena, scope, strlen(scope));
  return true;
}

/* TVM takes any axis here and silently ignores all but the op's spatial ones (only those
 * are dimensions of the buffer), so a reduce or split axis is refused by name instead. */
bool sched_storage_align(Stage *st, IterVar *iv, int factor, int offset) {
  if (!computable(st, "storage_align")) return false;
  const Operation *op = st->op;
  if (!iv || find(op->axis, op->naxis, iv) < 0) {
    if (!iv || find(st->all_iter_vars, st->nall, iv) < 0)
      return sched_fail(st->sched, "cannot storage_align: %s is not an axis of stage %s", nm(iv),
                        op->name);
    return sched_fail(st->sched,
                      "cannot storage_align: axis %s of stage %s is not one of its output "
                      "dimensions (op.axis)",
                      nm(iv), op->name);
  }
  if (factor <= 0)
    return sched_fail(st->sched,
                      "cannot storage_align axis %s of stage %s: factor must be positive, not %d",
                      nm(iv), op->name, factor);
  if (offset < 0 || offset >= factor)
    return sched_fail(st->sched,
                      "cannot storage_align axis %s of stage %s: offset %d is not in [0, %d)",
                      nm(iv), op->name, offset, factor);
  IterVarAttr *at = attr_of(st, iv);
  at->dim_align_factor = factor;
  at->dim_align_offset = offset;
  return true;
}

bool sched_double_buffer(Stage *st) {
  if (!computable(st, "double_buffer")) return false;
  if (st->is_output)
    return sched_fail(st->sched,
                      "cannot double_buffer: stage %s is an output of the schedule (only a "
                      "buffer computed inside a loop can be)",
                      st->op->name);
  st->double_buffer = true;
  return true;
}

bool sched_set_store_predicate(Stage *st, Expr *pred) {
  if (!computable(st, "set_store_predicate")) return false;
  if (!pred || pred->dtype.code != DT_BOOL || pred->dtype.lanes != 1)
    return sched_fail(st->sched, "cannot set_store_predicate of stage %s: the predicate must be "
                                 "a bool expression", st->op->name);
  st->store_predicate = pred;
  return true;
}

/* ---- stages made by dataflow rewriting (cache.c, rfactor.c) ---- */

Stage *sched_insert_stage(Schedule *s, Operation *op, int pos) {
  Stage *st = new_stage(s, op);
  Stage **stages = arena_alloc(s->arena, (size_t)(s->nstages + 1) * sizeof *stages);
  if (pos) memcpy(stages, s->stages, (size_t)pos * sizeof *stages);
  stages[pos] = st;
  if (s->nstages > pos)
    memcpy(stages + pos + 1, s->stages + pos, (size_t)(s->nstages - pos) * sizeof *stages);
  s->stages = stages;
  s->nstages++;
  return st;
}
