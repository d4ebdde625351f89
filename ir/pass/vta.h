/* vta.h: what VTA's lowering passes (vta_*.c) share: the on-chip memories and their element
 * sizes, the one "vta" thread axis of their coproc_scope attrs, the command handle, the
 * pragma test and located errors. */
#ifndef TES_IR_PASS_VTA_H
#define TES_IR_PASS_VTA_H

#include "ir/pass/pass.h"

/* VTA's memory kinds (mem_type of VTALoadBuffer2D) and its three queues (coproc_scope). */
enum { VTA_MEM_UOP = 0, VTA_MEM_WGT = 1, VTA_MEM_INP = 2, VTA_MEM_ACC = 3, VTA_MEM_OUT = 4 };
enum { VTA_QID_LOAD = 1, VTA_QID_COMPUTE = 2, VTA_QID_STORE = 3 };

/* The memory kind of an on-chip scope (local.inp_buffer, ...); -1 for any other scope. */
int vta_mem_of(const char *scope);
/* Values in one element of memory kind mem (BATCH x BLOCK_IN for the inputs, ...). */
int64_t vta_lanes(const VtaTarget *t, int mem);

/* The "vta" thread axis of every coproc_scope / coproc_uop_scope attr of the lowering, so that
 * tir.LiftAttrScope can merge them (TVM's env.dev.vta_axis): the first one s holds (env.gemm's)
 * or a new one, kept in ctx. */
IterVar *vta_axis(PassCtx *ctx, const Stmt *s);
/* attr [vta] key = value { body } */
Stmt *vta_scope(PassCtx *ctx, const char *key, Expr *value, Stmt *body);
/* @tir.tvm_thread_context(@tir.vta.command_handle()) */
Expr *vta_command_handle(Arena *a);

/* @tir.tvm_access_ptr(@tir.type_annotation(, dtype=elem), data, offset, extent, mask), int32:
 * offset and extent count values of elem; mask 1 reads, 2 writes. */
Expr *vta_access_ptr(Arena *a, Var *data, DType elem, Expr *offset, Expr *extent, int mask);

/* Whether s is `attr "pragma_KEY"` (or TVM's pragma_scope with value KEY). */
bool vta_is_pragma(const Stmt *s, const char *key);
/* A call to op (a "tir.vta.*" intrinsic or an extern's name)? */
bool vta_is_call(const Expr *e, const char *op);

/* e as coef[0]*vars[0] + ... + coef[n-1]*vars[n-1] + coef[n] (TVM's DetectLinearEquation: the
 * rest, coef[n], keeps e's own order of terms); false when e is not linear in them. */
bool vta_linear(Arena *a, Expr *e, int n, Var *const *vars, Expr **coef);

/* Records "PASS: message" on ctx->diag unless an error is there already; false. */
bool vta_fail(PassCtx *ctx, const char *pass, const char *fmt, ...) TES_PRINTF(3, 4);

#endif
