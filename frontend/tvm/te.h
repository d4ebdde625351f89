/* frontend/tvm/ -- the tvm, te and topi bindings (SPEC §5-§9): tensor expressions (te*.c),
 * schedules and lowering (sched.c, pass.c), tvm.build and the Module it gives (build.c,
 * module_args.c, module_source.c, time_eval.c), devices and targets (device.c, target.c), the
 * package tables (packages.c) and tvm.nd (nd_bridge.c). It may include frontend/lang/,
 * frontend/np/, ir/, backends/ and jit/; only the driver (main.c, repl.c, diag.c) includes it.
 */
/* te.h: the tensor-expression values of SPEC §6 (te.var, te.placeholder, te.compute ...) as
 * the other bindings see them: IR nodes of the session's arena wrapped as values, and read
 * back. Schedules, lowering and TOPI bindings build on these; tvm/te*.c implement them. */
#ifndef TES_TVM_TE_H
#define TES_TVM_TE_H

#include "frontend/lang/value.h"
#include "ir/tensor.h"

/* New values pointing at nodes of the session's IR arena (interp_ir_arena), which owns them:
 * the values own nothing. */
Value *bi_te_wrap_expr(Expr *e);
Value *bi_te_wrap_itervar(IterVar *iv);
Value *bi_te_wrap_tensor(Tensor *t);
Value *bi_te_wrap_op(Operation *op);

/* The node a value wraps, or NULL (nothing raised) when it wraps no such node. */
Expr *bi_te_expr_of(Value *v);
bool bi_te_int_of(Value *v, int64_t *out); /* an integer constant expression's value */
IterVar *bi_te_itervar_of(Value *v);
Tensor *bi_te_tensor_of(Value *v);
Operation *bi_te_op_of(Value *v);

/* A value as an expression, for arguments: an Expr; an IterVar (its variable); a Python int
 * (int32, or int64 when it does not fit), float (float32) or bool. Otherwise a TypeError
 * naming `what` ("compute: the result of fcompute"). */
Expr *bi_te_to_expr(Interp *I, Value *v, const char *what);
/* A dtype argument: a str naming a scalar dtype ("float32", "int", "bool"); NULL or None give
 * dflt. TypeError (not a str) or ValueError (no such dtype) naming fn and arg; -1 then. */
int bi_te_dtype_arg(Interp *I, Value *v, const char *fn, const char *arg, DType dflt,
                    DType *out);

/* The members of tvm.te, tvm and tvm.tir (tvm/packages.c): {0}-terminated tables, and inits that
 * add the type objects (te.Tensor, tvm.tir.PrimExpr, ...). */
extern const Builtin bi_te_funcs[], bi_tvm_funcs[], bi_tir_funcs[];
int bi_te_module_init(Interp *I, Value *module);
int bi_tir_module_init(Interp *I, Value *module);

#endif
