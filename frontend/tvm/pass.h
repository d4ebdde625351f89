/* pass.h: tvm.transform.PassContext (SPEC §9) and the session's lowering state, in
 * tvm/pass.c. Every lowering of a session goes through bi_pass_lower, so the innermost entered
 * PassContext configures it and the hooks of main.c (--dump-after, --emit=ir) see it; the
 * schedule bindings report each primitive that succeeded, for the REPL's :watch. */
#ifndef TES_TVM_PASS_H
#define TES_TVM_PASS_H

#include "frontend/lang/value.h"
#include "ir/lower.h"

/* Called with each function tvm.lower makes (--emit=ir). */
typedef void (*BiLoweredFn)(void *user, Interp *I, const LoweredFunc *f);
/* Called after a schedule primitive succeeded on s: a Stage primitive on stage st, or a
 * Schedule method (cache_read, cache_write, rfactor) with st NULL; `what` is its name. */
typedef void (*BiSchedChangedFn)(void *user, Interp *I, Schedule *s, Stage *st, const char *what);

/* Called with each Module tvm.build makes (--emit=llvm|asm). */
typedef void (*BiBuiltFn)(void *user, Interp *I, Value *module);

/* Per session: set by main.c and the REPL; a NULL function is no hook. */
typedef struct BiLowerHooks {
  LowerDumpFn dump; /* --dump-after: after schedule_ops and each pass of tvm.lower */
  void *dump_user;
  BiLoweredFn lowered; /* --emit=ir */
  void *lowered_user;
  BiSchedChangedFn changed; /* :watch */
  void *changed_user;
  BiBuiltFn built; /* --emit=llvm|asm */
  void *built_user;
} BiLowerHooks;

/* The session's hooks, to set or to copy into a fresh session (:reset). Never NULL. */
BiLowerHooks *bi_pass_hooks(Interp *I);

/* Lowers s with args into a (which must outlive the result) under the innermost entered
 * PassContext's config and disabled passes. hooks: --dump-after and --emit=ir see it, as
 * they see tvm.lower (:ir and :watch pass false). NULL with LowerError raised. */
LoweredFunc *bi_pass_lower(Interp *I, Arena *a, Schedule *s, int nargs, Tensor **args,
                           const char *name, bool hooks);
/* The same for a GPU target when gpu (LowerOptions.gpu: the GPU-only passes run too). */
/* binds: per argument, the buffer it is passed in (NULL entries, or NULL: compact ones).
 * partition: tir.LoopPartition runs (tvm.build, tvm.lower(simple_mode=False)). */
LoweredFunc *bi_pass_lower_for(Interp *I, Arena *a, Schedule *s, int nargs, Tensor **args,
                               const char *name, bool hooks, bool gpu, Buffer *const *binds,
                               bool partition);

/* lower_gpu_passes (ir/lower.h) on f, lowered by tvm.lower without them, for tvm.build of an
 * IRModule for a GPU target: under the same config, disabled passes and --dump-after. NULL
 * with LowerError raised. */
LoweredFunc *bi_pass_gpu_passes(Interp *I, Arena *a, const LoweredFunc *f);

/* The schedule bindings call this after every primitive that succeeded. */
void bi_pass_schedule_changed(Interp *I, Schedule *s, Stage *st, const char *what);

/* tvm.transform's members (modules.c's ModuleDef init). */
int bi_pass_module_init(Interp *I, Value *module);

/* A PassContext that lowers for VTA t (vta.build_config): VTA's passes run. */
Value *bi_pass_context_vta(Interp *I, const VtaTarget *t);

#endif
