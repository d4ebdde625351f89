/* pass.h: the lowering passes, one per file, each `Stmt *pass_<name>(Stmt *, PassCtx *)`,
 * run in order by lower_run (ir/lower.c) under their TVM names. A pass builds new nodes in
 * ctx->arena, shares what it does not change and returns its argument itself when it changed
 * nothing. Each file opens with the pass's contract. */
#ifndef TES_IR_PASS_H
#define TES_IR_PASS_H

#include <stdbool.h>
#include <string.h>

#include "ir/diag.h"
#include "ir/func.h"
#include "ir/tensor.h"

/* One setting of a pass, as PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}})
 * gives it: pass "tir.UnrollLoop", key "auto_max_step", value 16. */
typedef struct PassOption {
  const char *pass;
  const char *key;
  int64_t value;
} PassOption;

/* What VTA's passes (vta_*.c) need of VTA's configuration: the GEMM's blocking and the on-chip
 * buffers' sizes in bytes. Lowering for VTA (vta.build_config) runs them; NULL elsewhere. */
typedef struct VtaTarget {
  int batch, block_in, block_out;
  int inp_bits, wgt_bits, acc_bits; /* bits of one value */
  int64_t inp_buff_bytes, wgt_buff_bytes, acc_buff_bytes, uop_buff_bytes;
} VtaTarget;

typedef struct PassCtx {
  Arena *arena;
  /* The function's arguments: tensor i is stored in buffer i. */
  int nbinds;
  Tensor **bind_tensors;
  Buffer **bind_buffers;
  bool gpu; /* lowering for a GPU target */
  const VtaTarget *vta; /* lowering for VTA (vta.lower, vta.build_config); NULL otherwise */
  IterVar *vta_axis;    /* the "vta" axis of VTA's coproc attrs, once a VTA pass found it */
  int noptions;
  const PassOption *options;
  /* Variables the body reads that no argument or statement binds: a te.var of a compute body
   * that no argument's shape has. TVM's lowering keeps them free (its build binds them). */
  int nfree;
  Var **free_vars;
  /* A pass that finds the program cannot be lowered (tes.CheckBounds, tir.UnrollLoop) records
   * why on diag and returns its input; lower_run stops there. Needed by those two only. */
  Diag *diag;
  /* Where a pass's warnings about the program go; NULL: stderr, "tes: warning: MSG". */
  void (*warn)(void *user, const char *msg);
  void *warn_user;
  /* tir.SplitHostDevice: the function's name (kernels are NAME_kernelK) and the kernels it
   * took out of the body, in the arena. */
  const char *func_name;
  int ndevice;
  DeviceFunc *device;
} PassCtx;

/* A pass's option, or dflt when the config does not set it. */
static inline int64_t pass_option(const PassCtx *ctx, const char *pass, const char *key,
                                  int64_t dflt) {
  for (int i = 0; i < ctx->noptions; i++)
    if (strcmp(ctx->options[i].pass, pass) == 0 && strcmp(ctx->options[i].key, key) == 0)
      return ctx->options[i].value;
  return dflt;
}

/* tes.CheckBounds (check_bounds.c) */
Stmt *pass_check_bounds(Stmt *s, PassCtx *ctx);
/* tir.StorageFlatten (storage_flatten.c) */
Stmt *pass_storage_flatten(Stmt *s, PassCtx *ctx);
/* tir.InjectVirtualThread (inject_virtual_thread.c) */
Stmt *pass_inject_virtual_thread(Stmt *s, PassCtx *ctx);
/* tir.InjectPrefetch (inject_prefetch.c) */
Stmt *pass_inject_prefetch(Stmt *s, PassCtx *ctx);
/* tir.InjectDoubleBuffer (inject_double_buffer.c) */
Stmt *pass_inject_double_buffer(Stmt *s, PassCtx *ctx);
/* tir.StorageRewrite (storage_rewrite.c) */
Stmt *pass_storage_rewrite(Stmt *s, PassCtx *ctx);
/* tir.LoopPartition (loop_partition.c), when not lowering in simple mode */
Stmt *pass_loop_partition(Stmt *s, PassCtx *ctx);
/* tir.UnrollLoop (unroll_loop.c) */
Stmt *pass_unroll_loop(Stmt *s, PassCtx *ctx);
/* tir.InstrumentBoundCheckers (instrument_bound_checkers.c) */
Stmt *pass_instrument_bound_checkers(Stmt *s, PassCtx *ctx);
/* tir.VectorizeLoop (vectorize_loop.c) */
Stmt *pass_vectorize_loop(Stmt *s, PassCtx *ctx);
/* For the LLVM back end (vectorize_loop.c): a serial loop `for (x, min, L) { if (c) { S } }`
 * of constant L in [2, 64] whose guard c reads x, as tir.VectorizeLoop leaves a vectorized loop
 * whose split guard varies across its lanes, as vector code in a: S with x the ramp of its
 * lanes and every load and store of S predicated by c (so a lane that is off touches no
 * memory). NULL when S is not stores and lets, or some statement of it cannot be vector code
 * (the vectorizer's rules). The printed IR keeps the loop, as TVM's does. */
Stmt *vectorize_guarded_loop(Arena *a, const Stmt *loop);
/* tir.Simplify (simplify.c) */
Stmt *pass_simplify(Stmt *s, PassCtx *ctx);
/* tir.HoistIfThenElse (hoist_if_then_else.c) */
Stmt *pass_hoist_if_then_else(Stmt *s, PassCtx *ctx);
/* tir.ThreadSync (thread_sync.c), GPU targets only */
Stmt *pass_thread_sync(Stmt *s, PassCtx *ctx);
/* tir.LowerThreadAllreduce (lower_thread_allreduce.c), GPU targets only */
Stmt *pass_lower_thread_allreduce(Stmt *s, PassCtx *ctx);
/* tir.LowerWarpMemory (lower_warp_memory.c), GPU targets only */
Stmt *pass_lower_warp_memory(Stmt *s, PassCtx *ctx);
/* tir.InferFragment (infer_fragment.c), GPU targets only */
Stmt *pass_infer_fragment(Stmt *s, PassCtx *ctx);
/* tir.SplitHostDevice (split_host_device.c), GPU targets only */
Stmt *pass_split_host_device(Stmt *s, PassCtx *ctx);
/* VTA only: vta.InjectDMAIntrin (vta_inject_dma.c); vta.InjectSkipCopy,
 * vta.AnnotateALUCoProcScope, vta.LiftAllocToScopeBegin, vta.EarlyRewrite (vta_phase1.c);
 * tir.LiftAttrScope for "coproc_uop_scope" and "coproc_scope" (lift_attr_scope.c);
 * vta.InjectCoProcSync (vta_coproc_sync.c) */
Stmt *pass_vta_inject_dma(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_inject_skip_copy(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_annotate_alu(Stmt *s, PassCtx *ctx);
Stmt *pass_lift_attr_scope_uop(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_lift_alloc(Stmt *s, PassCtx *ctx);
Stmt *pass_lift_attr_scope_coproc(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_inject_coproc_sync(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_early_rewrite(Stmt *s, PassCtx *ctx);
/* VTA's phase 2: vta.InjectALUIntrin (vta_alu.c); phase 3: tir.LowerDeviceStorageAccessInfo
 * (lower_device_storage_access_info.c), vta.FoldUopLoop, vta.CPUAccessRewrite (vta_phase3.c) */
Stmt *pass_vta_inject_alu(Stmt *s, PassCtx *ctx);
Stmt *pass_lower_device_storage_access_info(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_fold_uop_loop(Stmt *s, PassCtx *ctx);
Stmt *pass_vta_cpu_access_rewrite(Stmt *s, PassCtx *ctx);

#endif
