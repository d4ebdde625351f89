/* te_impl.h: what the te binding files share: tvm/te.c (the te/tvm/tir functions),
 * tvm/te_values.c (the value classes), tvm/te_arith.c (SPEC §6's dtype rules and operators) and
 * tvm/te_broadcast.c (tensor arithmetic as TOPI's broadcast ops), and the session's arena that
 * sched.c and pass.c use too. Private to those files. */
#ifndef TES_TVM_TE_IMPL_H
#define TES_TVM_TE_IMPL_H

#include "frontend/tvm/te.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "ir/printer.h"
#include "ir/strbuf.h"

/* The session's IR arena, where te nodes, schedules and PassContexts live until the session
 * ends (a lowering has its own: sched.h's Lowered). */
static inline Arena *arena(Interp *I) { return interp_ir_arena(I); }

/* interp_raise for a function that returns a node: raises, gives NULL. */
#define BI_TE_RAISE(...) (interp_raise(__VA_ARGS__), NULL)

/* ---- value classes (tvm/te_values.c) ---- */
extern const ObjClass bi_te_expr_class;     /* PrimExpr: any Expr, te.var's VAR included */
/* The subtype of PrimExpr for one kind (IntImm, Add, Call ...), NULL for the kinds of lowered
 * IR only; tvm.tir binds them as types. */
const ObjClass *bi_te_expr_kind_class(ExprKind k);
/* Their constructors, tvm.tir's (te.c): IntImm(dtype, value), Add(a, b) ... */
extern const Builtin bi_tir_ctor_intimm, bi_tir_ctor_floatimm, bi_tir_ctor_stringimm,
    bi_tir_ctor_var, bi_tir_ctor_cast, bi_tir_ctor_not, bi_tir_ctor_select, bi_tir_ctor_call;
/* TVM's class name and the kind of each binary node */
#define BI_TIR_BINARY_NODES(X)                                                                 \
  X(Add, ADD) X(Sub, SUB) X(Mul, MUL) X(Div, DIV) X(Mod, MOD) X(FloorDiv, FLOORDIV)              \
  X(FloorMod, FLOORMOD) X(Min, MIN) X(Max, MAX) X(EQ, EQ) X(NE, NE) X(LT, LT) X(LE, LE)          \
  X(GT, GT) X(GE, GE) X(And, AND) X(Or, OR)
#define BI_TIR_BINARY_CTOR_DECL(name, kind) extern const Builtin bi_tir_ctor_##name;
BI_TIR_BINARY_NODES(BI_TIR_BINARY_CTOR_DECL)
#undef BI_TIR_BINARY_CTOR_DECL
extern const ObjClass bi_te_itervar_class;  /* IterVar */
extern const ObjClass bi_te_range_class;    /* an IterVar's dom: p is the IterVar */
extern const ObjClass bi_te_tensor_class;   /* Tensor */
extern const ObjClass bi_te_op_class;       /* Operation: the base type of the two below */
extern const ObjClass bi_te_compute_op_class, bi_te_placeholder_op_class, bi_te_extern_op_class,
    bi_te_scan_op_class;
extern const ObjClass bi_te_combiner_class; /* CommReducer (a reduction's combiner) */
extern const ObjClass bi_te_reducer_class;  /* what te.comm_reducer returns (tvm/te.c) */

Value *bi_te_wrap_combiner(CommReducer *c);
/* A str value of a dtype's name. */
Value *bi_te_dtype_str(DType t);
/* A new list of wrapped nodes. */
Value *bi_te_expr_list(int n, Expr *const *xs);
Value *bi_te_itervar_list(int n, IterVar *const *ivs);

/* ---- operators (tvm/te_arith.c) ---- */
/* Every binary operation on expressions; the string is how errors name it. */
#define BI_TE_OPS(X)                                                                         \
  X(ADD, "+") X(SUB, "-") X(MUL, "*") X(DIV, "/") X(FLOORDIV, "//") X(FLOORMOD, "%")        \
  X(TRUNCDIV, "truncdiv") X(TRUNCMOD, "truncmod") X(MIN, "min") X(MAX, "max")               \
  X(POW, "power") X(FMOD, "fmod") X(SHL, "<<") X(SHR, ">>") X(BITAND, "&") X(BITOR, "|")    \
  X(BITXOR, "^") X(EQ, "==") X(NE, "!=") X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=")      \
  X(AND, "and") X(OR, "or")

typedef enum {
#define BI_TE_OP_ENUM(k, s) TE_##k,
  BI_TE_OPS(BI_TE_OP_ENUM)
#undef BI_TE_OP_ENUM
  TE_OP_COUNT
} TeOp;

extern const char *const bi_te_op_names[TE_OP_COUNT];

/* int, bool or float: the Python numbers that take the other operand's dtype. */
bool bi_te_is_number(Value *v);
/* What bi_te_to_expr accepts: an Expr, an IterVar or a Python number. */
bool bi_te_is_exprlike(Value *v);
/* A Python number as a constant of dtype t (range-checked: ValueError naming `what`). */
Expr *bi_te_const(Interp *I, Value *num, DType t, const char *what);
/* v as an expression of dtype t when v is a Python number, else as bi_te_to_expr. */
Expr *bi_te_to_expr_as(Interp *I, Value *v, DType t, const char *what);
/* TVM's cast(): the value itself for its own dtype, a literal of the new dtype for a literal
 * that survives the trip exactly, else a CAST node. */
Expr *bi_te_cast(Interp *I, DType t, Expr *x);
/* Two operands made into expressions of one dtype by SPEC §6's rules (a Python int an int32
 * constant, a float a float32 one, then TVM's type matching): -1 with a TypeError naming both
 * dtypes and `what`. */
int bi_te_operands(Interp *I, Value *a, Value *b, const char *what, Expr **ea, Expr **eb);
/* a OP b on values (bi_te_operands first), or on expressions already built. */
Expr *bi_te_binary(Interp *I, TeOp op, Value *a, Value *b);
Expr *bi_te_binary_exprs(Interp *I, TeOp op, Expr *a, Expr *b);
/* The operator `/` means on a and b (SPEC §6): two signed integer expressions or tensors are
 * TVM's RuntimeError asking for floordiv/truncdiv/indexdiv (-1); one of them with a Python
 * int is floor division, which the pre-0.7 tutorials (seed 002's `c/channel_multiplier`)
 * write; anything else is TE_DIV. */
int bi_te_div_op(Interp *I, Value *a, Value *b, TeOp *op);
/* -x, +x, ~x (UN_NOT is the interpreter's, through truthiness). */
Expr *bi_te_unary(Interp *I, UnOp op, Expr *x);
/* e, or NULL with a ValueError when e is deeper than IR_MAX_DEPTH: what every operation that
 * builds a node for a script returns through (NULL e: NULL, the error already raised). */
Expr *bi_te_shallow(Interp *I, Expr *e);
/* A CALL of a pure intrinsic: "tir.exp" ... */
Expr *bi_te_intrin(Interp *I, DType t, const char *op, int n, Expr **args);
/* The largest and smallest values of a scalar dtype, as constants. */
Expr *bi_te_max_value(Interp *I, DType t);
Expr *bi_te_min_value(Interp *I, DType t);
/* The truth of an expression as TVM's __bool__ gives it: a constant is its value; == and !=
 * are identity (TVM's EqualOp); anything else is a ValueError. */
int bi_te_truthy(Interp *I, Expr *e);

/* te.tag_scope(tag) (tvm/te_tag.c), and the tag a compute given `tag` takes: the scope's when
 * one is entered (NULL with a ValueError when both are set), else tag. */
Value *bi_te_tag_scope(Interp *I, Value *self, Value **a);
const char *bi_te_scope_tag(Interp *I, const char *tag);
/* te.compute's attrs of op, a dict (a new empty one for none). */
Value *bi_te_op_attrs(Interp *I, const Operation *op);
/* Keeps attrs (a dict, or None) as op's; -1 with an exception. */
int bi_te_set_op_attrs(Interp *I, const Operation *op, Value *attrs);
/* te.extern (tvm/te_extern.c). */
Value *bi_te_extern(Interp *I, Value *self, Value **a);
/* te.scan (tvm/te_scan.c). */
Value *bi_te_scan(Interp *I, Value *self, Value **a);

/* ---- arguments (tvm/te.c) ---- */
/* A dom: a (min, end) tuple or list, a range with step 1, or an IterVar's Range value. */
int bi_te_range_arg(Interp *I, Value *v, const char *fn, Range *out);
/* A str argument, or dflt when v is NULL; TypeError naming fn and arg otherwise. */
const char *bi_te_str_arg(Interp *I, Value *v, const char *fn, const char *arg, const char *dflt);
/* A shape: a tuple or list of non-negative integer extents, or one extent; -1 with a
 * TypeError/ValueError naming fn. The array (ndim + 1 entries) is in the session's arena. */
int bi_te_shape_arg(Interp *I, Value *v, const char *fn, int *ndim, Expr ***out);
/* An operation's name (dflt where v_name is absent), tag (te.tag_scope's where absent) and attrs
 * (absent, None or a dict), as compute, extern and scan take them; -1 with TypeError raised. */
int bi_te_op_naming(Interp *I, const char *fn, Value *v_name, const char *dflt, Value *v_tag,
                    Value *v_attrs, const char **name, const char **tag);
/* A list of tensors (or, where one is true, a single tensor) as an array of *n (one entry
 * spare); with one, at least one tensor. NULL with TypeError/ValueError naming fn and arg. */
Tensor **bi_te_tensor_list(Interp *I, Value *v, const char *fn, const char *arg, bool one,
                           int *n);
/* A bool scalar expression (a condition): TypeError naming fn otherwise. */
Expr *bi_te_cond_arg(Interp *I, Value *v, const char *fn, const char *arg);

/* ---- reductions (tvm/te_reduce.c) ---- */
/* te.sum, te.max, te.min: (expr, axis, where=None, init=None); with something other than
 * axes as the second positional argument, max and min (and comm_reducer's reducers) are
 * elementwise (TVM's overload: te.max(a, b)), te.sum a TypeError. The parameters put every
 * positional argument after expr in *args, so that a keyword axis= (which must be axes) can be
 * told from a positional one. */
Value *bi_te_sum(Interp *I, Value *self, Value **a);
Value *bi_te_max(Interp *I, Value *self, Value **a);
Value *bi_te_min(Interp *I, Value *self, Value **a);
/* te.comm_reducer(fcombine, fidentity, name="reduce") -> a reducer like te.sum. */
Value *bi_te_comm_reducer(Interp *I, Value *self, Value **a);
#define BI_TE_REDUCER_PARAMS PARAMS("expr", "*args", "axis", "where", "init")

/* ---- tensor arithmetic (tvm/te_broadcast.c) ---- */
/* a OP b where a or b is a Tensor: TOPI's broadcast_add ... (T_add, T_subtract, T_multiply,
 * T_divide, T_floor_divide). NULL with nothing raised for an operator or operand it does not
 * handle. */
Value *bi_te_tensor_binop(Interp *I, BinOp op, Value *a, Value *b);
/* -A: T_negative. */
Value *bi_te_tensor_neg(Interp *I, Tensor *t);
/* A compute of a C-built body over axes named ax0, ax1, ... as TOPI's C++ computes name them:
 * body(ctx, vars) builds the body from the axis variables. */
typedef Expr *(*BiTeBodyFn)(Interp *I, void *ctx, Expr **vars);
Tensor *bi_te_topi_compute(Interp *I, const char *name, const char *tag, int ndim, Expr **shape,
                           BiTeBodyFn body, void *ctx);

#endif
