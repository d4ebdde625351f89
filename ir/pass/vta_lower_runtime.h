/* vta_lower_runtime.h: the pass vta.build runs after lowering (vta_lower_runtime.c), which
 * turns VTA's builtins into calls of VTA's runtime for the host's code generator. Not one of
 * lower_run's passes: vta.lower's IR keeps the builtins, as TVM prints them. */
#ifndef TES_IR_PASS_VTA_LOWER_RUNTIME_H
#define TES_IR_PASS_VTA_LOWER_RUNTIME_H

#include "ir/pass/pass.h"

/* Needs ctx->arena and ctx->diag (errors: an unknown tir.vta builtin, a bad uop scope). */
Stmt *pass_vta_lower_runtime(Stmt *s, PassCtx *ctx);

#endif
