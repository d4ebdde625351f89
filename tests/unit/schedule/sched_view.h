/* sched_view.h: the lowering's view of a schedule (ir/schedule/normalize.c) made on its own,
 * for the tests of normalize.c and message_passing.c, which look inside it (sched_impl.h)
 * without the bound inference that sched_infer_bound runs after it. */
#ifndef TES_TEST_SCHED_VIEW_H
#define TES_TEST_SCHED_VIEW_H

#include <stdlib.h>

#include "ir/schedule/sched_impl.h"
#include "tests/unit/schedule/sched_test.h"

/* Where the views below report: what normalize or message passing refused. */
static Diag view_diag;

/* The index arithmetic's analyzer (knowing no variable), one for every view, freed at exit. */
static Analyzer *view_fold;

static void free_view_fold(void) { arith_free(view_fold); }

HELPER Analyzer *fold(void) {
  if (!view_fold) {
    view_fold = arith_new(&A);
    atexit(free_view_fold);
  }
  return view_fold;
}

/* s normalized, its maps empty but op_index and bind; NULL (view_diag set) when refused. */
HELPER SchedBounds *normalized(Schedule *s) {
  SchedBounds *b = arena_alloc(&A, sizeof *b);
  diag_clear(&view_diag);
  *b = (SchedBounds){.arena = &A, .sch = s, .diag = &view_diag, .fold = fold()};
  ptrmap_init(&b->op_index, &A);
  ptrmap_init(&b->dom, &A);
  ptrmap_init(&b->var_set, &A);
  ptrmap_init(&b->bind, &A);
  ptrmap_init(&b->thread_stage, &A);
  return sched_normalize(b) ? b : NULL;
}

HELPER LStage *view_of(SchedBounds *b, Tensor *t) { return sched_lstage(b, t->op); }

HELPER IterVar *thread_axis(const char *tag) {
  return ir_itervar(&A, var(tag), (Range){NULL, NULL}, ITER_THREAD, tag);
}

#endif
