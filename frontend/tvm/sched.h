/* sched.h: schedules and lowering as values (SPEC §7–§8), implemented in tvm/sched.c: the
 * functions the tvm and tvm.te tables list and the classes their modules show. The hooks that
 * see every lowering (--dump-after, --emit=ir) are the session's: tvm/pass.h. */
#ifndef TES_TVM_SCHED_H
#define TES_TVM_SCHED_H

#include "frontend/lang/value.h"
#include "ir/lower.h"

extern const ObjClass bi_sched_schedule_class; /* Schedule: p is the Schedule */
extern const ObjClass bi_sched_stage_class;    /* Stage: p is the Stage */
extern const ObjClass bi_sched_module_class;   /* IRModule: p is the Lowered */
extern const ObjClass bi_sched_primfunc_class; /* PrimFunc: p is the Lowered */

/* One tvm.lower result and the arena that holds its IR, counted: the IRModule and PrimFunc
 * values made from it and every Module built from it hold a reference, and the last to go
 * frees the arena. Its IR points only into itself and into the session's arena (te nodes and
 * schedules, which live as long as the session), so nothing else need be kept alive. */
typedef struct Lowered {
  int refs;
  Arena arena;
  LoweredFunc *f;
} Lowered;
Lowered *bi_sched_lowered_ref(Lowered *l); /* returns l */
void bi_sched_lowered_release(Lowered *l);
/* The lowering an IRModule or PrimFunc value holds (borrowed), else NULL (nothing raised). */
Lowered *bi_sched_lowered_of(Value *v);

/* te.create_schedule(ops) and tvm.lower(sch, args, name, binds, simple_mode), for the tables. */
Value *bi_sched_create_schedule(Interp *I, Value *self, Value **a);
Value *bi_sched_lower(Interp *I, Value *self, Value **a);
/* tvm.lower's work for tvm.build: gpu lowers for a GPU target (bi_pass_lower_for). */
Value *bi_sched_lower_for(Interp *I, Value **a, bool gpu);
#define BI_SCHED_LOWER_PARAMS PARAMS("sch", "args", "name", "binds", "simple_mode")

#endif
