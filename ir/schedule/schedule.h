/* schedule.h: TE schedules (SPEC §7) and the first half of lowering (SPEC §8): bound inference
 * and loop-nest construction.
 *
 * As in TVM, a schedule primitive only records: sched_split adds a Split relation and two leaf
 * itervars to a Stage, sched_compute_at sets the Stage's attach point, and so on. Nothing is
 * lowered until sched_infer_bound and sched_schedule_ops run, so `:watch` simply lowers again
 * after each primitive and a lowering never changes the Schedule.
 *
 * A Schedule lives in the arena given to sched_create, which must outlive it; the operations
 * it schedules live in a longer-lived arena (the session's). Stages are mutable, but only
 * through the primitives below. A primitive that is asked something illegal changes nothing,
 * returns false (or NULL) and leaves a user error naming the stage and axes in the schedule's
 * diag, in the wording of SPEC §7 ("cannot compute_at: stage B is not a producer of C"); the
 * caller raises it as a ScheduleError. Lowering reports to a Diag of its own (sched_infer_bound,
 * lower_run), so it never changes the schedule. */
#ifndef TES_IR_SCHEDULE_H
#define TES_IR_SCHEDULE_H

#include <stdbool.h>

#include "ir/diag.h"
#include "ir/tensor.h"

typedef struct Schedule Schedule;
typedef struct Stage Stage;

/* How leaf itervars derive from root ones. Rebase is made only by lowering (a root axis that
 * is still a leaf gets a copy over [0, extent), TVM's RebaseNonZeroMinLoop). */
typedef enum { REL_SPLIT, REL_FUSE, REL_REBASE } RelationKind;

typedef struct IterRelation {
  RelationKind kind;
  IterVar *parent;        /* split: the axis split; rebase: the root axis */
  IterVar *outer, *inner; /* split: its results; fuse: the two axes fused */
  IterVar *fused;         /* fuse: the result; rebase: the copy */
  Expr *factor, *nparts;  /* split: exactly one is set */
} IterRelation;

typedef enum {
  ATTACH_ROOT,   /* computed at the top level, before its consumers */
  ATTACH_INLINE, /* substituted into its consumers */
  ATTACH_SCOPE   /* computed inside attach_stage's loop over attach_ivar */
} AttachKind;

/* A tensor intrinsic (te.decl_tensor_intrin): what a compute op looks like (op, whose loops
 * tensorize matches) and the statements that replace such loops, written over one buffer per
 * input of op (in op->inputs' order) and then per output. body computes the whole region;
 * reduce_init and reduce_update are the two halves of a reduction whose outer reduce loops stay
 * (any may be NULL). */
typedef struct TensorIntrin {
  const char *name;
  Operation *op;
  int nbuffers; /* op->ninputs + op->noutputs */
  Buffer **buffers;
  Stmt *body, *reduce_init, *reduce_update;
} TensorIntrin;

/* What the loop of one leaf itervar becomes. */
typedef struct IterVarAttr {
  IterVar *iv;
  ForKind for_kind;     /* FOR_SERIAL unless parallel/vectorize/unroll */
  IterVar *bind_thread; /* bind: a thread itervar (te.thread_axis), or NULL */
  int npragma;
  const char **pragma_keys; /* "unroll", "auto_unroll_max_step", ... */
  Expr **pragma_values;     /* an entry NULL: pragma without a value (1) */
  /* storage_align on a root spatial axis: that dimension's stride % factor == offset in the
   * stage's buffer; factor 0: not aligned. */
  int dim_align_factor, dim_align_offset;
  /* tensorize(): the loops from this one inwards are the intrinsic (ir/schedule/tensorize.c) */
  const TensorIntrin *tensor_intrin;
  /* prefetch(tensor, axis, offset): inside this loop, attr [tensor] "prefetch_scope" = offset
   * (tir.InjectPrefetch turns it into the prefetch of what iteration axis + offset reads) */
  int nprefetch;
  Tensor **prefetch_data;
  Expr **prefetch_offset;
} IterVarAttr;

struct Stage {
  Schedule *sched;
  Operation *op;
  Operation *origin_op; /* the op the stage was made for; op too until cache/rfactor rewrites */
  bool is_output;
  int nall, nleaf, nrel, nattr;
  IterVar **all_iter_vars;  /* root axes (axis, then reduce_axis), then every derived one */
  IterVar **leaf_iter_vars; /* the loops, outermost first */
  IterRelation *relations;  /* in the order they were made */
  IterVarAttr *attrs;
  AttachKind attach;
  Stage *attach_stage; /* ATTACH_SCOPE */
  IterVar *attach_ivar;
  const char *scope; /* storage scope; "" infers it (global, or shared/local under threads) */
  bool double_buffer; /* double_buffer(): its producer gets attr "double_buffer_scope" */
  Expr *store_predicate; /* set_store_predicate(): guards a cross-thread reduction's store */
  int cap_all, cap_leaf, cap_rel, cap_attr;
};

struct Schedule {
  Arena *arena;
  int noutputs;
  Operation **outputs;
  int nstages;
  Stage **stages; /* every op reachable from the outputs, producers first (TVM's post-DFS) */
  Diag diag;      /* why the last refused primitive was refused */
};

/* ---- building and primitives (schedule_lang.c) ---- */

/* The schedule of `outputs` (te.create_schedule): a Stage per reachable operation. Outputs
 * named twice count once. */
Schedule *sched_create(Arena *a, int noutputs, Operation **outputs);
/* The stage of op, or NULL when op is not in the schedule (s[T] on a foreign tensor). op may
 * be the stage's current op or the one it was made for (before cache_write/rfactor). */
Stage *sched_stage(const Schedule *s, const Operation *op);
/* Records why a primitive refused on s->diag (printf-style), in place of an earlier refusal;
 * returns false, so that `return sched_fail(...)` reads well. */
bool sched_fail(Schedule *s, const char *fmt, ...) TES_PRINTF(2, 3);

/* Splits a leaf axis by factor (inner extent) or nparts (outer extent): exactly one is
 * non-NULL, a positive integer expression. The results are named x.outer and x.inner. */
bool sched_split(Stage *st, IterVar *parent, Expr *factor, Expr *nparts, IterVar **outer,
                 IterVar **inner);
/* Splits x and y and reorders to (x.outer, y.outer, x.inner, y.inner), returned in that order. */
bool sched_tile(Stage *st, IterVar *x, IterVar *y, Expr *x_factor, Expr *y_factor, IterVar *out[4]);
/* Fuses n >= 1 leaf axes, each directly after the previous in the loop order, left to right:
 * fuse(a, b, c) is a.b.fused.c.fused. One axis fuses to itself. */
IterVar *sched_fuse(Stage *st, int n, IterVar **axes);
/* Puts the n given leaf axes, in the given order, where those axes were. */
bool sched_reorder(Stage *st, int n, IterVar **order);
bool sched_compute_at(Stage *st, Stage *parent, IterVar *scope);
bool sched_compute_inline(Stage *st);
bool sched_compute_root(Stage *st);
bool sched_parallel(Stage *st, IterVar *iv);
bool sched_vectorize(Stage *st, IterVar *iv);
bool sched_unroll(Stage *st, IterVar *iv);
/* Binds a leaf axis to a thread itervar (ITER_THREAD or ITER_VTHREAD with a thread_tag). */
bool sched_bind(Stage *st, IterVar *iv, IterVar *thread);
/* Annotates a leaf axis's loop with attr "pragma_KEY" = value (NULL: 1). */
bool sched_pragma(Stage *st, IterVar *iv, const char *key, Expr *value);
/* prefetch(tensor, axis, offset): at each iteration of leaf iv, the part of tensor (which st's
 * op reads) that iteration iv + offset reads is prefetched (offset an integer expression). */
bool sched_prefetch(Stage *st, Tensor *tensor, IterVar *iv, Expr *offset);
/* tensorize(axis, intrin): the loop over leaf iv and the loops inside it become intrin's
 * statements. The loops are matched against intrin's op when the schedule is lowered
 * (tensorize.c), where a mismatch is a user error of the lowering. */
bool sched_tensorize(Stage *st, IterVar *iv, const TensorIntrin *intrin);
/* The storage scope of a computed stage's outputs: "global", "shared", "local", "warp",
 * "wmma.matrix_a"/"wmma.matrix_b"/"wmma.accumulator", or "local.NAME" (VTA's buffers); ""
 * infers it from the threads around the stage again. */
bool sched_set_scope(Stage *st, const char *scope);

/* set_store_predicate(pred): the store of st's cross-thread reduction happens only where pred
 * (a bool expression) holds, as in TVM (schedule_reduce stores from thread 0 only). */
bool sched_set_store_predicate(Stage *st, Expr *pred);

/* Buffer layout of a stage's output (storage_align, double_buffer): TVM puts them on the
 * realize as attrs "buffer_dim_align" and "double_buffer_scope". */
/* Pads the stride of the dimension of axis iv (a root spatial axis of st's op) so that
 * stride % factor == offset: avoids shared-memory bank conflicts. */
bool sched_storage_align(Stage *st, IterVar *iv, int factor, int offset);
/* Double-buffers st's output (a shared or local stage computed at a loop): the loop loads the
 * next tile while computing on the current one. */
bool sched_double_buffer(Stage *st);

/* ---- dataflow rewriting (cache.c, rfactor.c): these change the schedule's graph ---- */

/* s.cache_read(t, scope, readers): a new stage `<t>.<scope>` copying t, placed right after
 * t's stage; the given readers (stages of s) read the copy instead of t. NULL with
 * s->diag on an illegal request (t not in s, a reader that does not read t, ...). */
Tensor *sched_cache_read(Schedule *s, Tensor *t, const char *scope, int nreaders,
                         Operation **readers);
/* s.cache_write(t, scope): t's computation moves into a new stage `<t>.<scope>` (axes named
 * `x.c`), and t's stage becomes a copy out of it. t's stage must not have been split,
 * fused or reordered yet. */
Tensor *sched_cache_write(Schedule *s, Tensor *t, const char *scope);
/* s.rfactor(t, axis, factor_axis): the reduction of t over `axis` (a leaf reduce axis of
 * t's stage, made by a split) becomes a spatial axis of a new stage `<t>.rf` inserted at
 * position factor_axis of its dimensions; t's stage then reduces `<t>.rf` over it. The
 * relations of t's stage that do not involve `axis` (splits and fuses of its spatial axes and
 * of other reduce axes) go on in `<t>.rf`, whose loops they make. */
Tensor *sched_rfactor(Schedule *s, Tensor *t, IterVar *axis, int factor_axis);

/* Whether t is the state placeholder of a scan of s: the scan's output, not an argument. */
bool sched_is_scan_state(const Schedule *s, const Tensor *t);

/* The attributes of iv in st, or NULL. */
const IterVarAttr *sched_iter_attr(const Stage *st, const IterVar *iv);

/* ---- lowering (normalize.c, bound.c, schedule_ops.c) ---- */

/* What one lowering knows about a schedule: the ranges of every itervar of every stage. It
 * lives in the lowering's arena and does not change the Schedule. */
typedef struct SchedBounds SchedBounds;

/* Bound inference (TVM's InferBound): the ranges of every itervar, from the outputs back to
 * the producers, through the split/fuse relations. NULL with a user error on d for a schedule
 * that cannot be lowered (a compute_at whose axis was split away, a thread bound to two
 * extents, ...); loop-nest construction reports to d too. Nodes it builds go into a. */
SchedBounds *sched_infer_bound(Schedule *s, Arena *a, Diag *d);
/* The inferred range of iv, an itervar of the schedule; false if it has none. */
bool sched_bound(const SchedBounds *b, const IterVar *iv, Range *out);

/* Loop-nest construction (TVM's ScheduleOps; dump name "schedule_ops"): each stage's loops in
 * leaf order with split guards, reduction init loops, compute_at placement, inlining and a
 * realize around every computed tensor (storage flattening drops those of arguments). */
Stmt *sched_schedule_ops(SchedBounds *b);

#endif
