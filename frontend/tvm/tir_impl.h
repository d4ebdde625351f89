/* tir_impl.h: what the tvm.tir statement files share with the package tables (te.c,
 * packages.c): the Stmt class, the rows of tvm.tir's call and statement functions
 * (tir_stmt.c) and the tvm.tir.ir_builder module (tir_builder.c). Private to frontend/tvm. */
#ifndef TES_TVM_TIR_IMPL_H
#define TES_TVM_TIR_IMPL_H

#include "frontend/tvm/tir.h"
#include "frontend/lang/modules_impl.h"

extern const ObjClass bi_tir_stmt_class; /* tvm.tir.Stmt: any statement */

/* A call argument as TVM's intrinsics take them: a str (a StringImm), else bi_te_to_expr. */
Expr *bi_tir_call_arg(Interp *I, Value *v, const char *what);

Value *bi_tir_call_intrin(Interp *I, Value *self, Value **a);
Value *bi_tir_call_extern(Interp *I, Value *self, Value **a);
Value *bi_tir_call_pure_extern(Interp *I, Value *self, Value **a);
Value *bi_tir_evaluate(Interp *I, Value *self, Value **a);
Value *bi_tir_seq_stmt(Interp *I, Value *self, Value **a);
Value *bi_tir_stmt_seq(Interp *I, Value *self, Value **a);

/* tvm.tir.ir_builder (tir_builder.c). */
extern const Builtin bi_tir_builder_funcs[];

#define BI_TIR_STMT_ROWS                                                                      \
  {"call_intrin", bi_tir_call_intrin, 2, PARAMS("dtype", "func_name", "*args"),               \
   "call_intrin(dtype, func_name, *args) -> PrimExpr: @tir.NAME(args), an intrinsic with "    \
   "side effects"},                                                                           \
  {"call_extern", bi_tir_call_extern, 2, PARAMS("dtype", "func_name", "*args"),               \
   "call_extern(dtype, func_name, *args) -> PrimExpr: a call of the C function func_name"},   \
  {"call_pure_extern", bi_tir_call_pure_extern, 2, PARAMS("dtype", "func_name", "*args"),     \
   "call_pure_extern(dtype, func_name, *args) -> PrimExpr: a call of a C function without "   \
   "side effects"},                                                                           \
  {"Evaluate", bi_tir_evaluate, 1, PARAMS("value"),                                           \
   "Evaluate(value) -> Stmt: an expression evaluated for its effect"},                        \
  {"SeqStmt", bi_tir_seq_stmt, 1, PARAMS("seq"),                                              \
   "SeqStmt(seq) -> Stmt: the statements of a list, in order"},                               \
  {"stmt_seq", bi_tir_stmt_seq, 0, PARAMS("*args"),                                           \
   "stmt_seq(*args) -> Stmt: statements (or calls, as Evaluate) in order"},

#endif
