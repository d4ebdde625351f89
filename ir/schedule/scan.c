/* scan.c: te.scan in schedules and lowering (TVM's scan_op.cc and the scan parts of
 * schedule_lang.cc, bound.cc and schedule_ops.cc). A scan stage has one loop, over its scan
 * axis; the stages of each state's update (the update and every compute between it and the
 * states or the scan's inputs) are computed inside it, at each step, unless scheduled at
 * another of their loops; each init is computed before the loop. Then the init, the update and
 * the state placeholder of a state all name the scan's output tensor, so the steps read the
 * rows the earlier steps wrote. */
#include <string.h>

#include "ir/schedule/sched_impl.h"

/* The scan that s_op is the init (role 1) or update (role 2) of, and which state; NULL. */
const Operation *sched_scan_role(const Schedule *s, const Operation *op, int *role, int *k) {
  const Stage *st = sched_stage(s, op); /* a cache_read may have rewritten its op */
  const Operation *origin = st ? st->origin_op : op;
  for (int i = 0; i < s->nstages; i++) {
    const Operation *sc = s->stages[i]->op;
    if (sc->kind != OP_SCAN) continue;
    for (int j = 0; j < sc->noutputs; j++) {
      if (sc->scan_init[j]->op == op || sc->scan_init[j]->op == origin)
        return *role = 1, *k = j, sc;
      if (sc->scan_update[j]->op == op || sc->scan_update[j]->op == origin)
        return *role = 2, *k = j, sc;
    }
  }
  return NULL;
}

bool sched_is_scan_state(const Schedule *s, const Tensor *t) {
  for (int i = 0; i < s->nstages; i++) {
    const Operation *sc = s->stages[i]->op;
    for (int j = 0; sc->kind == OP_SCAN && j < sc->noutputs; j++)
      if (sc->scan_state[j] == t) return true;
  }
  return false;
}

/* ---- the update group (TVM's ScanGetBody) ---- */

static bool is_boundary(const Operation *sc, const Tensor *t) {
  for (int j = 0; j < sc->noutputs; j++)
    if (sc->scan_state[j] == t) return true;
  for (int j = 0; j < sc->nscan_inputs; j++)
    if (sc->scan_inputs[j] == t) return true;
  return false;
}

/* Whether op reads, through computes, a state or an input of the scan (memo: op -> 1 no, 2 yes). */
static bool reaches(const Operation *sc, const Operation *op, PtrMap *memo) {
  intptr_t m = (intptr_t)ptrmap_get(memo, op);
  if (m) return m == 2;
  ptrmap_put(memo, op, (void *)1);
  bool r = false;
  for (int i = 0; op->kind == OP_COMPUTE && i < op->ninputs && !r; i++)
    r = is_boundary(sc, op->inputs[i]) || reaches(sc, op->inputs[i]->op, memo);
  ptrmap_put(memo, op, (void *)(intptr_t)(r ? 2 : 1));
  return r;
}

/* After create_schedule: each update stage and each compute stage of its group is computed at
 * the scan axis, each init stage before the scan's loop. */
void sched_attach_scans(Schedule *s) {
  for (int i = 0; i < s->nstages; i++) {
    Stage *scan = s->stages[i];
    const Operation *sc = scan->op;
    if (sc->kind != OP_SCAN) continue;
    Arena scratch;
    arena_init(&scratch);
    PtrMap memo;
    ptrmap_init(&memo, &scratch);
    for (int j = 0; j < s->nstages; j++) {
      Stage *st = s->stages[j];
      int role, k;
      if (st->op->kind != OP_COMPUTE || st->attach != ATTACH_ROOT) continue;
      const Operation *owner = sched_scan_role(s, st->op, &role, &k);
      bool member = owner == sc && role == 2;
      if (!owner) {
        /* a compute some update of this scan reads that reads a state or an input */
        for (int u = 0; u < sc->noutputs && !member; u++)
          member = reaches(sc, st->op, &memo) &&
                   sched_reads_transitively(s, sc->scan_update[u]->op, st->op);
      }
      if (owner == sc && role == 1) {
        st->attach = ATTACH_SCOPE;
        st->attach_stage = scan;
        st->attach_ivar = sc->scan_init_axis;
      } else if (member) {
        st->attach = ATTACH_SCOPE;
        st->attach_stage = scan;
        st->attach_ivar = sc->scan_axis;
      }
    }
    arena_free(&scratch);
  }
}

/* ---- bound inference ---- */

/* The ranges of an init or update stage: an init computes its whole shape, an update the row
 * of the scan axis's step (TVM's ScanOp PropBoundToInputs) and every other dimension whole.
 * false when op is neither. */
bool sched_scan_root_bound(SchedBounds *b, const Operation *op) {
  int role, k;
  const Operation *sc = sched_scan_role(b->sch, op, &role, &k);
  if (!sc) return false;
  for (int d = 0; d < op->naxis; d++) {
    Range r = op->axis[d]->dom;
    if (role == 2 && d == 0) {
      Expr *v = ir_varref(b->arena, sc->scan_axis->var);
      DType t = op->axis[0]->var->dtype;
      r = (Range){dt_eq(v->dtype, t) ? v : ir_cast(b->arena, t, v), arith_const(b->arena, t, 1)};
    }
    sched_set_dom(b, op->axis[d], r);
  }
  for (int i = 0; i < op->nreduce; i++)
    sched_set_dom(b, op->reduce_axis[i], op->reduce_axis[i]->dom);
  return true;
}

const IterVar *sched_scan_axis_of(const SchedBounds *b, const IterVar *iv) {
  for (int i = 0; i < b->sch->nstages; i++) {
    const LStage *ls = &b->ls[i];
    if (ls->st->op->kind != OP_SCAN) continue;
    if (iv == ls->st->op->scan_axis) return iv;
    for (int r = 0; r < ls->nrel; r++)
      if (ls->rel[r].kind == REL_REBASE && ls->rel[r].fused == iv) return ls->rel[r].parent;
  }
  return NULL;
}

/* ---- loop nest and clean-up ---- */

/* The scan's loop over its axis (with the attach point of its updates) after the attach point
 * of its inits, before consumer (may be NULL), inside a realize of each whole output. */
Stmt *sched_scan_pipeline(SchedBounds *b, const LStage *ls, Stmt *consumer) {
  Arena *a = b->arena;
  const Operation *op = ls->st->op;
  PtrMap values;
  ptrmap_init(&values, a);
  Nest main = {a, 0, 0, NULL};
  sched_make_loop_nest(b, ls, 0, false, NULL, &values, &main);
  ptrmap_put(&b->scan_values, op->scan_axis->var, ptrmap_get(&values, op->scan_axis));
  Stmt *s = sched_merge_nest(&main, 0, ls->nleaf + 2, ir_seq(a, 0, NULL));
  s = ir_attr(a, ATTR_NODE_ITERVAR, op->scan_init_axis, "loop_scope",
              ir_varref(a, op->scan_init_axis->var), s);
  return sched_realize_whole(a, ls, s, consumer);
}

typedef struct ScanPost {
  IrMutator m;
  PtrMap map; /* an init, update or state tensor -> the scan's output */
} ScanPost;

static Expr *post_expr(IrMutator *m, Expr *e) {
  ScanPost *p = (ScanPost *)m;
  e = ir_mutate_children_expr(m, e);
  if (e->kind != EXPR_PRODUCER_LOAD) return e;
  Tensor *t = ptrmap_get(&p->map, e->u.pload.tensor);
  return t ? ir_pload(m->arena, t, e->u.pload.n, e->u.pload.indices) : e;
}

static Stmt *post_stmt(IrMutator *m, Stmt *s) {
  ScanPost *p = (ScanPost *)m;
  if (s->kind == STMT_REALIZE && ptrmap_get(&p->map, s->u.realize.tensor))
    return ir_mutate_stmt(m, s->u.realize.body); /* the scan's realize holds it */
  s = ir_mutate_children_stmt(m, s);
  if (s->kind != STMT_PROVIDE) return s;
  Tensor *t = ptrmap_get(&p->map, s->u.provide.tensor);
  return t ? ir_provide(m->arena, t, s->u.provide.value, s->u.provide.n, s->u.provide.indices)
           : s;
}

static void map_stage_outputs(const Schedule *s, PtrMap *map, const Tensor *t, Tensor *to) {
  ptrmap_put(map, t, to);
  const Stage *st = sched_stage(s, t->op);
  if (st && st->op != t->op && t->value_index < st->op->noutputs)
    ptrmap_put(map, st->op->outputs[t->value_index], to);
}

/* Every init, update and state tensor becomes its scan's output, and the scan axis's variable
 * its value in the loop (TVM's SchedulePostProc for scans). */
Stmt *sched_scan_postproc(SchedBounds *b, Stmt *body) {
  Arena *a = b->arena;
  ScanPost p = {{a, post_expr, post_stmt}, {0}};
  ptrmap_init(&p.map, a);
  int nvars = 0;
  VarMap *vars = arena_alloc(a, (size_t)(b->sch->nstages + 1) * sizeof *vars);
  for (int i = 0; i < b->sch->nstages; i++) {
    const Operation *sc = b->sch->stages[i]->op;
    if (sc->kind != OP_SCAN) continue;
    for (int k = 0; k < sc->noutputs; k++) {
      map_stage_outputs(b->sch, &p.map, sc->scan_init[k], sc->outputs[k]);
      map_stage_outputs(b->sch, &p.map, sc->scan_update[k], sc->outputs[k]);
      ptrmap_put(&p.map, sc->scan_state[k], sc->outputs[k]);
    }
    Expr *v = ptrmap_get(&b->scan_values, sc->scan_axis->var);
    if (v) vars[nvars++] = (VarMap){sc->scan_axis->var, v};
  }
  if (!p.map.n) return body;
  body = ir_mutate_stmt(&p.m, body);
  return nvars ? ir_substitute_stmt(a, body, nvars, vars) : body;
}
