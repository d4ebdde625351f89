/* sched_impl.h: what the files of ir/schedule/ share and nothing else sees: integer sets, the
 * lowering's view of each stage, and the message passing along itervar relations.
 *
 * Index arithmetic is the analyzer's (ir/arith/): the bounds of sets are built with
 * arith_simplify_binary and compared with its provers, through an analyzer that knows no
 * variable (SchedBounds.fold), so that they hold wherever they land; the values of itervars,
 * which loops and guards print, are built with arith_binary, as TVM's operators build them. */
#ifndef TES_IR_SCHED_IMPL_H
#define TES_IR_SCHED_IMPL_H

#include "ir/arith/arith.h"
#include "ir/ptrmap.h"
#include "ir/schedule/schedule.h"
#include "ir/support.h"

/* ---- integer sets (int_set.c): the inclusive interval [min, max] of an index ---- */

/* Bounds are built in an's arena and simplified by an, which should know no variable. */

typedef struct IntSet {
  Expr *min, *max; /* NULL: unbounded on that side */
} IntSet;

bool sched_set_is_point(IntSet s);
IntSet sched_set_point(Expr *e);
IntSet sched_set_range(Analyzer *an, Range r); /* [min, min + extent - 1] */
IntSet sched_set_union(Analyzer *an, IntSet x, IntSet y);
/* The range s covers, or dom where s is unbounded (TVM's IntSet::CoverRange). */
Range sched_set_cover(Analyzer *an, IntSet s, Range dom);
/* Whether s is provably r. */
bool sched_set_matches(Analyzer *an, IntSet s, Range r);
/* The set of values e takes while each variable v ranges over sets[v] (an IntSet *); a
 * variable not in sets is itself. Unknown operations over a varying variable give the
 * unbounded set, which bound inference then covers with the tensor's full shape. */
IntSet sched_eval_set(Analyzer *an, Expr *e, const PtrMap *sets);
/* sched_eval_set where the bounds of a variable's set may mention other variables of sets,
 * which range in turn (TVM's EvalSet): a loop whose extent depends on an outer loop, both
 * relaxed. Bound inference relaxes so; guards prove with sched_eval_set, whose sets keep
 * such bounds symbolic and so tighter. */
IntSet sched_relax_set(Analyzer *an, Expr *e, const PtrMap *sets);

/* ---- the lowering's view (normalize.c) ---- */

/* One stage as lowering sees it: root axes that are still leaves replaced by rebased copies
 * over [0, extent), and the stage's body with every inlined producer substituted. */
typedef struct LStage {
  Stage *st;
  int index; /* in the schedule's stage order */
  int nleaf, nrel;
  IterVar **leaf;
  IterRelation *rel;    /* the stage's relations, then the rebases */
  IterVar *attach_ivar; /* rebased like the leaves */
  Expr **body;          /* op->noutputs bodies, inlined producers substituted */
  int nreads;
  Tensor **reads; /* the tensors the body reads, no repeats */
  int npath;
  IterVar **attach_path; /* the loops around this stage's attach point, innermost first */
  const char *scope;     /* the storage scope realize gets; "" for the default */
} LStage;

struct SchedBounds {
  Arena *arena;
  Schedule *sch;
  Diag *diag;          /* where lowering reports why it cannot go on */
  /* the index arithmetic's analyzer, knowing no variable; held (arith_new, arith_free) by
   * whichever of sched_infer_bound, sched_schedule_ops and rfactor is running */
  Analyzer *fold;
  LStage *ls;          /* one per stage, same order */
  PtrMap op_index;     /* Operation * -> LStage * */
  PtrMap dom;          /* IterVar * -> Range * */
  PtrMap var_set;      /* Var * -> IntSet *: every range in dom, as a set of its variable */
  PtrMap bind;         /* IterVar * -> the thread IterVar it is bound to */
  PtrMap thread_stage; /* thread IterVar * -> the LStage that first gave it a range */
  PtrMap scan_values;  /* a scan axis's Var * -> its value in the scan's loop (scan.c) */
};

/* Fills b->ls, b->op_index and b->bind; false with b->diag set on a schedule that cannot be
 * lowered. */
bool sched_normalize(SchedBounds *b);
LStage *sched_lstage(const SchedBounds *b, const Operation *op);
/* The attributes of a leaf of the view (a rebased copy has its root axis's). */
const IterVarAttr *sched_leaf_attr(const LStage *ls, const IterVar *iv);
/* The range of iv; it must have one. */
Range sched_dom(const SchedBounds *b, const IterVar *iv);
/* Records iv's range (and its variable's set). */
void sched_set_dom(SchedBounds *b, const IterVar *iv, Range r);
/* The root itervars of a compute (its axes, then its reduce axes) in an array in a; their
 * count in *n. None for a placeholder. */
IterVar **sched_root_ivs(Arena *a, const Operation *op, int *n);

/* ---- message passing along relations (message_passing.c) ---- */

/* Ranges of the derived itervars from the root ones; false (b->diag set) when a thread
 * itervar would get two different extents. With an analyzer (knowing the ranges around the
 * stage), a split's part is no longer than its parent where that is provable, as TVM's final
 * InferBound does; without one (rfactor, before any binding), every part is as asked. */
bool sched_pass_down_domain(SchedBounds *b, LStage *ls, Analyzer *an);
/* The values of the root itervars (IterVar * -> Expr * in values) from those of the leaves. */
void sched_pass_up_index(SchedBounds *b, const LStage *ls, PtrMap *values);
/* The sets of the root itervars (IterVar * -> IntSet * in sets) from those of the leaves. */
void sched_pass_up_domain(SchedBounds *b, const LStage *ls, PtrMap *sets);
/* Which itervars get a bit of mask from their relations: down from roots to leaves
 * (IterVar * -> intptr_t in state). */
void sched_pass_down_mask(const LStage *ls, PtrMap *state);
/* The guards of one stage's body (TVM's MakeBoundCheck): `value < extent` where a split does
 * not divide, and `value >= 0` / `value < extent` for root axes whose inferred range is not
 * their declared one, each unless proven. values: IterVar * -> Expr *. skip: IterVar * ->
 * non-NULL for itervars without a guard (may be NULL). Returns the count; guards in out. */
int sched_make_bound_check(SchedBounds *b, const LStage *ls, const PtrMap *values,
                           bool skip_root_domain, const PtrMap *skip, Expr ***out);

/* ---- loop nests (schedule_ops.c), shared with tensorize.c ---- */

/* The wrappers around a stage's body, by loop level. */
typedef enum { WRAP_FOR, WRAP_LET, WRAP_ATTR, WRAP_TENSOR_ATTR, WRAP_IF } WrapKind;

typedef struct Wrap {
  WrapKind kind;
  int level;          /* 0 outside every loop, i + 1 inside leaf i, nleaf + 1 the guards */
  Var *var;           /* FOR, LET */
  Expr *min, *extent; /* FOR; LET's value in min */
  ForKind fkind;
  IterVar *node; /* ATTR */
  Tensor *tensor; /* TENSOR_ATTR */
  const char *key;
  Expr *value; /* ATTR, TENSOR_ATTR; IF's condition */
} Wrap;

typedef struct Nest {
  Arena *arena;
  int n, cap;
  Wrap *w;
} Nest;

/* body inside the wrappers of levels [from, to), innermost applied first. */
Stmt *sched_merge_nest(const Nest *n, int from, int to, Stmt *body);
/* Loops for leaves [begin, nleaf) into n (wrapper level i + 1 for leaf i), their values into
 * values (IterVar * -> Expr *), then the root values. init: fresh `x.init` variables and no
 * attach points. skip: leaves (IterVar * -> non-NULL) that get no loop (may be NULL). */
void sched_make_loop_nest(SchedBounds *b, const LStage *ls, int begin, bool init,
                          const PtrMap *skip, PtrMap *values, Nest *n);
/* The split guards at level nleaf + 1, each inside `@tir.likely`. */
void sched_add_guards(SchedBounds *b, const LStage *ls, const PtrMap *values, bool skip_root,
                      const PtrMap *skip, Nest *n);
/* Replaces each itervar's variable by its value in s. */
Stmt *sched_substitute_values(Arena *a, Stmt *s, const PtrMap *values);
/* The first leaf a reduce axis feeds (nleaf if none); state gets each itervar's mask, bit 1
 * from spatial axes, bit 2 from reduce axes. */
int sched_first_reduce_loop(const LStage *ls, PtrMap *state);

/* ---- scans (scan.c) ---- */

/* The scan whose init (*role 1) or update (*role 2) of state *k op is; NULL if none. */
const Operation *sched_scan_role(const Schedule *s, const Operation *op, int *role, int *k);
/* create_schedule's placement: updates and their groups at the scan axis, inits before it. */
void sched_attach_scans(Schedule *s);
/* Whether consumer reads producer, directly or through other operations of s. */
bool sched_reads_transitively(const Schedule *s, const Operation *consumer,
                              const Operation *producer);
/* The ranges of an init or update stage's root axes; false when op is neither. */
bool sched_scan_root_bound(SchedBounds *b, const Operation *op);
/* A scan stage's statements before consumer, inside the realize of its outputs. */
Stmt *sched_scan_pipeline(SchedBounds *b, const LStage *ls, Stmt *consumer);
/* schedule_ops.c: s, then consumer (may be NULL), inside a realize of each whole output of ls's
 * operation in its scope: how an extern's and a scan's stages are placed. */
Stmt *sched_realize_whole(Arena *a, const LStage *ls, Stmt *s, Stmt *consumer);
/* The scan axis whose loop iv (a leaf of a scan stage) is, or NULL. */
const IterVar *sched_scan_axis_of(const SchedBounds *b, const IterVar *iv);
/* Inits, updates and states read and written as their scan's outputs. */
Stmt *sched_scan_postproc(SchedBounds *b, Stmt *body);

/* ---- tensorize (tensorize.c) ---- */

/* The leaf position of ls's tensorized axis, or -1. */
int sched_tensorize_loc(const LStage *ls);
/* ls's statements with the loops from leaf tloc inwards replaced by its tensor intrinsic,
 * matched and bound (TVM's MakeTensorize); NULL with a user error on b->diag when the loops
 * do not match the intrinsic. */
Stmt *sched_make_tensorize(SchedBounds *b, const LStage *ls, int tloc);

/* ---- dataflow rewriting (cache.c, rfactor.c; sched_insert_stage in schedule_lang.c) ---- */

/* A new stage for op (its root axes as leaves, computed at root), put at position pos of
 * s->stages. */
Stage *sched_insert_stage(Schedule *s, Operation *op, int pos);
/* The position of st in s->stages, or -1. */
int sched_stage_index(const Schedule *s, const Stage *st);
/* op reading vmap[T] (Tensor * -> Tensor *) wherever it reads a key T: a new compute with
 * op's name, tag and axes; op itself when it reads no key. */
Operation *sched_replace_inputs(Arena *a, Operation *op, const PtrMap *vmap);
/* TVM's ReplaceDataFlow: each stage whose op reads a key of vmap gets a new op (in s's arena)
 * reading its value, and the old outputs map to the new ones, so that the replacement reaches
 * every consumer downstream. rvmap: a tensor this rewrite made -> the one it stands for. */
void sched_replace_dataflow(Schedule *s, PtrMap *vmap, PtrMap *rvmap);
/* st computes op from now on: its root axes are its leaves again, its relations are gone, and
 * so are the attributes of axes op does not have. */
void sched_stage_set_op(Stage *st, Operation *op);
/* st's op is rewritten as `to` (same outputs, in order): every consumer downstream follows
 * (sched_replace_dataflow), then sched_stage_set_op. */
void sched_replace_stage_op(Stage *st, Operation *to);
/* TVM's SchedulePostProc replace_buffer, the last step of sched_schedule_ops: the IR names
 * each rewritten stage's outputs by its origin_op's tensors, the ones the user holds and
 * passes to tvm.lower. body itself when no stage was rewritten. */
Stmt *sched_restore_tensors(const Schedule *s, Arena *a, Stmt *body);

#endif
