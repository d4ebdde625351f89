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
Value *bi_tir_call_llvm_intrin(Interp *I, Value *self, Value **a);
Value *bi_tir_call_llvm_pure_intrin(Interp *I, Value *self, Value **a);
/* x as a vector dtype named by dtype (TVM's cast: a scalar is cast to the lanes' type and
 * broadcast), for astype and const; NULL with nothing raised when dtype names no vector type,
 * NULL with a TypeError when x cannot become it. */
Expr *bi_tir_vector_cast(Interp *I, Value *dtype, Expr *x, const char *fn);
Value *bi_tir_broadcast(Interp *I, Value *self, Value **a);
Value *bi_tir_evaluate(Interp *I, Value *self, Value **a);
Value *bi_tir_seq_stmt(Interp *I, Value *self, Value **a);
Value *bi_tir_stmt_seq(Interp *I, Value *self, Value **a);
Value *bi_tir_primfunc(Interp *I, Value *self, Value **a); /* tir_primfunc.c */

/* tvm.tir.ir_builder (tir_builder.c). */
extern const Builtin bi_tir_builder_funcs[];
/* tvm.contrib.clang (contrib_clang.c): create_llvm, for pragma "import_llvm". */
extern const Builtin bi_contrib_clang_funcs[];

/* tvm.ir and the intrinsic lowering rules (intrin_lowering.c): the module's functions and
 * init, tvm.tir.CallEffectKind (added by tvm.tir's init), the Op that Call.op gives (its name,
 * or NULL for a value that is no Op) and whether register_op_attr made op's calls pure. The
 * build step that applies the rules is in build_impl.h. */
extern const Builtin bi_ir_funcs[];
int bi_ir_module_init(Interp *I, Value *m);
int bi_ir_tir_init(Interp *I, Value *tir);
Value *bi_ir_op_new(const char *name);
const char *bi_ir_op_name(Value *v);
bool bi_ir_op_is_pure(Interp *I, const char *op);

/* tvm.register_func, tvm.get_global_func, tvm.tir.call_packed (packed_func.c), and what the
 * Module's call (module_args.c) and the LLVM plugin's loading (build.c) hand the runtime: the
 * hook of rt_call_packed, and the interpreter it calls back into, entered around each run. */
Value *bi_packed_register_func(Interp *I, Value *self, Value **a);
Value *bi_packed_get_global_func(Interp *I, Value *self, Value **a);
Value *bi_tir_call_packed(Interp *I, Value *self, Value **a);
int32_t bi_packed_hook(const char *name, const int64_t *values, const int32_t *codes, int32_t n,
                       int64_t *ret);
struct Args; /* build_impl.h: the call's arguments, whose arrays handles are passed as */
void *bi_packed_enter(Interp *I, struct Args *a); /* gives what bi_packed_leave restores */
void bi_packed_leave(void *saved);

#define BI_PACKED_TVM_ROWS                                                                    \
  {"register_func", bi_packed_register_func, 1, PARAMS("func_name", "f", "override"),         \
   "register_func(func_name, f, override=False) -> f: make f callable from kernels by name "  \
   "(tvm.tir.call_packed)"},                                                                  \
  {"get_global_func", bi_packed_get_global_func, 1, PARAMS("name", "allow_missing"),          \
   "get_global_func(name, allow_missing=False) -> the function registered as name"},

#define BI_TIR_STMT_ROWS                                                                      \
  {"call_intrin", bi_tir_call_intrin, 2, PARAMS("dtype", "func_name", "*args"),               \
   "call_intrin(dtype, func_name, *args) -> PrimExpr: @tir.NAME(args), an intrinsic with "    \
   "side effects"},                                                                           \
  {"call_extern", bi_tir_call_extern, 2, PARAMS("dtype", "func_name", "*args"),               \
   "call_extern(dtype, func_name, *args) -> PrimExpr: a call of the C function func_name"},   \
  {"call_pure_extern", bi_tir_call_pure_extern, 2, PARAMS("dtype", "func_name", "*args"),     \
   "call_pure_extern(dtype, func_name, *args) -> PrimExpr: a call of a C function without "   \
   "side effects"},                                                                           \
  {"call_llvm_intrin", bi_tir_call_llvm_intrin, 2, PARAMS("dtype", "name", "*args"),         \
   "call_llvm_intrin(dtype, name, *args) -> PrimExpr: a call of the LLVM intrinsic name "     \
   "('llvm.x86.avx512.vpdpbusd.512')"},                                                       \
  {"call_llvm_pure_intrin", bi_tir_call_llvm_pure_intrin, 2, PARAMS("dtype", "name", "*args"), \
   "call_llvm_pure_intrin(dtype, name, *args) -> PrimExpr: a call of the LLVM intrinsic "     \
   "name without side effects"},                                                              \
  {"call_packed", bi_tir_call_packed, 1, PARAMS("*args"),                                    \
   "call_packed(name, *args) -> PrimExpr: @tir.tvm_call_packed, a call of the TES function "  \
   "registered as name"},                                                                     \
  {"Broadcast", bi_tir_broadcast, 2, PARAMS("value", "lanes"),                                \
   "Broadcast(value, lanes) -> PrimExpr: value in every lane of a vector"},                   \
  {"Evaluate", bi_tir_evaluate, 1, PARAMS("value"),                                           \
   "Evaluate(value) -> Stmt: an expression evaluated for its effect"},                        \
  {"SeqStmt", bi_tir_seq_stmt, 1, PARAMS("seq"),                                              \
   "SeqStmt(seq) -> Stmt: the statements of a list, in order"},                               \
  {"stmt_seq", bi_tir_stmt_seq, 0, PARAMS("*args"),                                           \
   "stmt_seq(*args) -> Stmt: statements (or calls, as Evaluate) in order"},                   \
  {"PrimFunc", bi_tir_primfunc, 2, PARAMS("params", "body", "ret_type", "buffer_map", "attrs"), \
   "PrimFunc(params, body, ret_type=None, buffer_map=None) -> PrimFunc: a function of "       \
   "hand-written IR; params are Buffers, or Vars that buffer_map maps to Buffers"},

#endif
