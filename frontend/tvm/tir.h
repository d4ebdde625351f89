/* tir.h: the loop-IR values scripts build by hand for tensor intrinsics (SPEC §12): buffers
 * (tvm.tir.decl_buffer, tir_buffer.c) and statements (ir_builder, call_intrin wrapped in
 * Evaluate, tir_stmt.c). Like te.h's values they point at nodes of the session's IR arena and
 * own nothing. Tensorize (te.decl_tensor_intrin, Stage.tensorize) reads them back. */
#ifndef TES_TVM_TIR_H
#define TES_TVM_TIR_H

#include "frontend/lang/value.h"
#include "ir/expr.h"

/* tvm.tir.Buffer (tir_buffer.c). */
Value *bi_tir_wrap_buffer(Buffer *b);
Buffer *bi_tir_buffer_of(Value *v); /* NULL, nothing raised: not a Buffer */
/* Adds decl_buffer and the Buffer type to the tvm.tir module. */
int bi_tir_buffer_init(Interp *I, Value *module);

/* tvm.tir.Stmt (tir_stmt.c). */
Value *bi_tir_wrap_stmt(Stmt *s);
Stmt *bi_tir_stmt_of(Value *v); /* NULL, nothing raised: not a Stmt */
/* A statement argument: a Stmt, or a PrimExpr (a call) as Evaluate(expr), as TVM accepts
 * both from an intrinsic's body; otherwise a TypeError naming `what`, and NULL. */
Stmt *bi_tir_to_stmt(Interp *I, Value *v, const char *what);

#endif
