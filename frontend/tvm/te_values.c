/* te_values.c: the value classes of tensor expressions: PrimExpr, IterVar (and its dom, a
 * Range), Tensor, Operation and CommReducer. Each value points at a node of the session's IR
 * arena and owns nothing, so two values may wrap one node: equality and identity go by the
 * node. Printing goes through the one IR printer (ir_print_expr, ir_print_op ...). */
#include <string.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"

/* ---- wrapping ---- */

static const ObjClass *expr_class(const Expr *e);
Value *bi_te_wrap_expr(Expr *e) { return val_obj_new(expr_class(e), e); }
Value *bi_te_wrap_itervar(IterVar *iv) { return val_obj_new(&bi_te_itervar_class, iv); }
Value *bi_te_wrap_tensor(Tensor *t) { return val_obj_new(&bi_te_tensor_class, t); }
static const ObjClass *op_class(const Operation *op) {
  switch (op->kind) {
  case OP_PLACEHOLDER:
    return &bi_te_placeholder_op_class;
  case OP_COMPUTE:
    return &bi_te_compute_op_class;
  case OP_EXTERN:
    return &bi_te_extern_op_class;
  case OP_SCAN:
    return &bi_te_scan_op_class;
  }
  TES_UNREACHABLE();
}

Value *bi_te_wrap_op(Operation *op) { return val_obj_new(op_class(op), op); }
Value *bi_te_wrap_combiner(CommReducer *c) { return val_obj_new(&bi_te_combiner_class, c); }

static bool is_expr_class(const ObjClass *c);
Expr *bi_te_expr_of(Value *v) {
  return v->kind == VAL_OBJ && is_expr_class(v->u.obj.cls) ? v->u.obj.p : NULL;
}
bool bi_te_int_of(Value *v, int64_t *out) {
  Expr *e = bi_te_expr_of(v);
  return e && dt_is_int(e->dtype) && ir_as_int(e, out);
}
IterVar *bi_te_itervar_of(Value *v) { return val_obj_of(v, &bi_te_itervar_class); }
Tensor *bi_te_tensor_of(Value *v) { return val_obj_of(v, &bi_te_tensor_class); }
Operation *bi_te_op_of(Value *v) {
  if (v->kind != VAL_OBJ) return NULL;
  const ObjClass *c = v->u.obj.cls;
  return c == &bi_te_compute_op_class || c == &bi_te_placeholder_op_class ||
                 c == &bi_te_extern_op_class || c == &bi_te_scan_op_class
             ? v->u.obj.p
             : NULL;
}

Value *bi_te_dtype_str(DType t) {
  char buf[32];
  return val_cstr(dt_name(t, buf));
}

Value *bi_te_expr_list(int n, Expr *const *xs) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_te_wrap_expr(xs[i]));
  return l;
}

Value *bi_te_itervar_list(int n, IterVar *const *ivs) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_te_wrap_itervar(ivs[i]));
  return l;
}

static Value *var_list(Interp *I, int n, Var *const *vars) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_te_wrap_expr(ir_varref(arena(I), vars[i])));
  return l;
}

/* Tensors, operations, ranges and combiners compare by the node they wrap, as TVM's objects
 * do (same_as); == between two expressions builds an EQ node instead (see expr_compare). */
static Value *node_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  if ((op != CMP_EQ && op != CMP_NE) || a->kind != VAL_OBJ || b->kind != VAL_OBJ ||
      a->u.obj.cls != b->u.obj.cls)
    return NULL;
  return val_bool((a->u.obj.p == b->u.obj.p) == (op == CMP_EQ));
}

/* ---- PrimExpr and IterVar: the operators ---- */

static bool te_binop_of(BinOp op, TeOp *out) {
  switch (op) {
  case BIN_ADD: *out = TE_ADD; return true;
  case BIN_SUB: *out = TE_SUB; return true;
  case BIN_MUL: *out = TE_MUL; return true;
  case BIN_DIV: *out = TE_DIV; return true;
  case BIN_FLOORDIV: *out = TE_FLOORDIV; return true;
  case BIN_MOD: *out = TE_FLOORMOD; return true;
  case BIN_POW: *out = TE_POW; return true;
  case BIN_LSHIFT: *out = TE_SHL; return true;
  case BIN_RSHIFT: *out = TE_SHR; return true;
  case BIN_AND: *out = TE_BITAND; return true;
  case BIN_OR: *out = TE_BITOR; return true;
  case BIN_XOR: *out = TE_BITXOR; return true;
  case BIN_MATMUL: return false;
  case BIN_OP_COUNT: break;
  }
  TES_UNREACHABLE();
}

static bool te_cmp_of(CmpOp op, TeOp *out) {
  switch (op) {
  case CMP_LT: *out = TE_LT; return true;
  case CMP_LE: *out = TE_LE; return true;
  case CMP_GT: *out = TE_GT; return true;
  case CMP_GE: *out = TE_GE; return true;
  case CMP_EQ: *out = TE_EQ; return true;
  case CMP_NE: *out = TE_NE; return true;
  case CMP_IN:
  case CMP_NOTIN:
  case CMP_IS:
  case CMP_ISNOT: return false;
  }
  TES_UNREACHABLE();
}

static Value *wrap_or_null(Expr *e) { return e ? bi_te_wrap_expr(e) : NULL; }

/* A tensor on the other side is the tensor class's (TOPI broadcast); anything but an
 * expression or a number is not ours to combine. */
static Value *expr_binop(Interp *I, BinOp op, Value *a, Value *b, bool right) {
  TeOp t;
  if (!bi_te_is_exprlike(right ? a : b) || !te_binop_of(op, &t)) return NULL;
  if (op == BIN_DIV && bi_te_div_op(I, a, b, &t) < 0) return NULL;
  return wrap_or_null(bi_te_binary(I, t, a, b));
}

static Value *expr_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  TeOp t;
  if (!bi_te_is_exprlike(right ? a : b) || !te_cmp_of(op, &t)) return NULL;
  return wrap_or_null(bi_te_binary(I, t, a, b));
}

static Value *expr_unop(Interp *I, UnOp op, Value *self) {
  Expr *e = bi_te_to_expr(I, self, "operand");
  return e ? wrap_or_null(bi_te_unary(I, op, e)) : NULL;
}

static int expr_truthy(Interp *I, Value *self) {
  Expr *e = bi_te_to_expr(I, self, "operand");
  return e ? bi_te_truthy(I, e) : -1;
}

/* SPEC §3: and/or/not on expressions build logical nodes (TVM itself needs te.all). */
static Value *expr_logic(Interp *I, LogicOp op, Value *a, Value *b) {
  Expr *lit = bi_te_to_expr(I, a, "operand");
  if (!lit) return NULL;
  if (lit->kind == EXPR_INT) return NULL; /* a literal has a truth value: Python's meaning */
  if (op == LOGIC_NOT) {
    Expr *e = lit;
    if (!dt_is_bool(e->dtype)) {
      char name[32];
      interp_raise(I, EXC_TypeError, "'not' needs a bool expression, not %s",
                   dt_name(e->dtype, name));
      return NULL;
    }
    return wrap_or_null(bi_te_unary(I, UN_NOT, e));
  }
  return wrap_or_null(bi_te_binary(I, op == LOGIC_AND ? TE_AND : TE_OR, a, b));
}

static Value *bi_expr_astype(Interp *I, Value *self, Value **a) {
  DType t;
  Expr *e = bi_te_to_expr(I, self, "astype");
  if (!e) return NULL;
  Expr *v = bi_tir_vector_cast(I, a[0], e, "astype"); /* "int32x16": a broadcast */
  if (v || interp_error_pending(I)) return wrap_or_null(v);
  if (bi_te_dtype_arg(I, a[0], "astype", "dtype", DT_F32, &t) < 0) return NULL;
  return wrap_or_null(bi_te_cast(I, t, e));
}

static Value *bi_expr_same_as(Interp *I, Value *self, Value **a) {
  if (!bi_te_expr_of(a[0]) && !bi_te_itervar_of(a[0])) return val_bool(false);
  Expr *x = bi_te_to_expr(I, self, "same_as"), *y = bi_te_to_expr(I, a[0], "same_as");
  if (!x || !y) return NULL;
  return val_bool(x == y || (x->kind == EXPR_VAR && y->kind == EXPR_VAR && x->u.var == y->u.var));
}

static const Builtin expr_methods[] = {
    {"astype", bi_expr_astype, 1, PARAMS("dtype"),
     "astype(dtype) -> PrimExpr: the expression cast to dtype (a literal becomes a literal)"},
    {"same_as", bi_expr_same_as, 1, PARAMS("other"),
     "same_as(other) -> bool: whether other is this very node (or the same variable)"},
    {0},
};

/* ---- PrimExpr ---- */

static Value *expr_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  ir_print_expr(&b, self->u.obj.p);
  return val_str_sb(&b);
}

/* TVM's IntImm.value: an unsigned literal is its unsigned value. */
static Value *literal_value(const Expr *e) {
  if (e->dtype.code != DT_UINT || e->dtype.bits >= 64 || e->u.ival >= 0) return val_int(e->u.ival);
  return val_int((int64_t)((uint64_t)e->u.ival & ((UINT64_C(1) << e->dtype.bits) - 1)));
}

static Expr *expr_at(Value *self) { return self->u.obj.p; }

static Value *int_value(Interp *I, Value *self) { return literal_value(expr_at(self)); }
static Value *float_value(Interp *I, Value *self) { return val_float(expr_at(self)->u.fval); }
static Value *str_value(Interp *I, Value *self) { return val_cstr(expr_at(self)->u.str); }
static Value *var_name(Interp *I, Value *self) { return val_cstr(expr_at(self)->u.var->name); }
static Value *unary_a(Interp *I, Value *self) { return bi_te_wrap_expr(expr_at(self)->u.unary.a); }
static Value *binary_a(Interp *I, Value *self) { return bi_te_wrap_expr(expr_at(self)->u.bin.a); }
static Value *binary_b(Interp *I, Value *self) { return bi_te_wrap_expr(expr_at(self)->u.bin.b); }

static Value *select_cond(Interp *I, Value *self) {
  return bi_te_wrap_expr(expr_at(self)->u.select.cond);
}
static Value *select_t(Interp *I, Value *self) { return bi_te_wrap_expr(expr_at(self)->u.select.t); }
static Value *select_f(Interp *I, Value *self) { return bi_te_wrap_expr(expr_at(self)->u.select.f); }

static Value *call_op(Interp *I, Value *self) { return bi_ir_op_new(expr_at(self)->u.call.op); }
static Value *call_args(Interp *I, Value *self) {
  const Expr *e = expr_at(self);
  return bi_te_expr_list(e->u.call.n, e->u.call.args);
}

static Value *pload_producer(Interp *I, Value *self) {
  return bi_te_wrap_tensor(expr_at(self)->u.pload.tensor);
}
static Value *pload_indices(Interp *I, Value *self) {
  const Expr *e = expr_at(self);
  return bi_te_expr_list(e->u.pload.n, e->u.pload.indices);
}

static Value *reduce_combiner(Interp *I, Value *self) {
  return bi_te_wrap_combiner(expr_at(self)->u.reduce.combiner);
}
static Value *reduce_source(Interp *I, Value *self) {
  const Expr *e = expr_at(self);
  return bi_te_expr_list(e->u.reduce.nsrc, e->u.reduce.source);
}
static Value *reduce_axis(Interp *I, Value *self) {
  const Expr *e = expr_at(self);
  return bi_te_itervar_list(e->u.reduce.naxis, e->u.reduce.axis);
}
static Value *reduce_value_index(Interp *I, Value *self) {
  return val_int(expr_at(self)->u.reduce.value_index);
}
static Value *reduce_condition(Interp *I, Value *self) {
  Expr *c = expr_at(self)->u.reduce.condition;
  return c ? bi_te_wrap_expr(c) : val_none();
}

/* The fields TVM's node classes show, one table a kind (IntImm.value, Add.a, Select.condition
 * ...), beside the dtype every expression has. */
static const Property int_props[] = {{"value", int_value, "the literal's value, an int"}, {0}};
static const Property float_props[] = {{"value", float_value, "the literal's value, a float"},
                                       {0}};
static const Property str_props[] = {{"value", str_value, "the literal's value, a str"}, {0}};
static const Property var_props[] = {{"name", var_name, "the variable's name, a str"}, {0}};
static const Property cast_props[] = {{"value", unary_a, "the expression cast, a PrimExpr"}, {0}};
static const Property not_props[] = {{"a", unary_a, "the operand, a PrimExpr"}, {0}};
static const Property binary_props[] = {
    {"a", binary_a, "the left operand, a PrimExpr"},
    {"b", binary_b, "the right operand, a PrimExpr"},
    {0},
};
static const Property select_props[] = {
    {"condition", select_cond, "the condition, a boolean PrimExpr"},
    {"true_value", select_t, "the value where the condition holds, a PrimExpr"},
    {"false_value", select_f, "the value where it does not, a PrimExpr"},
    {0},
};
static const Property call_props[] = {
    {"op", call_op, "the called intrinsic, an Op (its name: op.name, 'tir.exp')"},
    {"args", call_args, "the arguments, a list of PrimExpr"},
    {0},
};
static const Property pload_props[] = {
    {"producer", pload_producer, "the Tensor read"},
    {"indices", pload_indices, "the index of each dimension, a list of PrimExpr"},
    {0},
};
static const Property reduce_props[] = {
    {"combiner", reduce_combiner, "the CommReducer that combines the values"},
    {"source", reduce_source, "the values reduced, a list of PrimExpr"},
    {"axis", reduce_axis, "the reduction axes, a list of IterVar"},
    {"value_index", reduce_value_index, "which of the combiner's results this is, an int"},
    {"condition", reduce_condition, "the values' condition, a PrimExpr, or None"},
    {0},
};

static const Property *expr_kind_props(Value *self) {
  switch (expr_at(self)->kind) {
  case EXPR_INT: return int_props;
  case EXPR_FLOAT: return float_props;
  case EXPR_STR: return str_props;
  case EXPR_VAR: return var_props;
  case EXPR_CAST: return cast_props;
  case EXPR_NOT: return not_props;
  IR_CASE_BINARY: return binary_props;
  case EXPR_SELECT: return select_props;
  case EXPR_CALL: return call_props;
  case EXPR_PRODUCER_LOAD: return pload_props;
  case EXPR_REDUCE: return reduce_props;
  case EXPR_RAMP: /* lowered IR only: scripts never hold these */
  case EXPR_BROADCAST:
  case EXPR_LET:
  case EXPR_LOAD: return NULL;
  case EXPR_KIND_COUNT: break;
  }
  TES_UNREACHABLE();
}

static Value *expr_dtype(Interp *I, Value *self) {
  return bi_te_dtype_str(((Expr *)self->u.obj.p)->dtype);
}

static const Property expr_props[] = {
    {"dtype", expr_dtype, "the type of the value, a str ('int32', 'float32x4')"},
    {0},
};

#define EXPR_CLASS_HOOKS                                                                           \
  .repr = expr_repr, .binop = expr_binop, .unop = expr_unop, .compare = expr_compare,              \
  .methods = expr_methods, .truthy = expr_truthy, .logic = expr_logic, .props = expr_props,        \
  .props_of = expr_kind_props

const ObjClass bi_te_expr_class = {
    .type = {"PrimExpr", NULL, VAL_OBJ, NULL},
    EXPR_CLASS_HOOKS,
};

/* int(IntImm) and float(FloatImm), as TVM's __int__ and __float__ (not indices: TVM's IntImm
 * has no __index__). */
static Value *literal_number(Interp *I, Value *self, NumWant want) {
  const Expr *e = expr_at(self);
  if (want == NUM_INDEX) return NULL;
  return e->kind == EXPR_INT ? literal_value(e) : val_float(e->u.fval);
}

/* TVM's node classes, one for each kind a script can hold, each a subtype of PrimExpr:
 * isinstance(x, tvm.tir.IntImm), type(x).__name__. Their constructors are tvm.tir's (te.c). */
#define KIND_CLASS(kind, name, ctor) \
  [EXPR_##kind] = {.type = {name, &bi_te_expr_class.type, VAL_OBJ, ctor}, EXPR_CLASS_HOOKS}
static const ObjClass kind_classes[EXPR_KIND_COUNT] = {
    [EXPR_INT] = {.type = {"IntImm", &bi_te_expr_class.type, VAL_OBJ, &bi_tir_ctor_intimm},
                  EXPR_CLASS_HOOKS, .number = literal_number},
    [EXPR_FLOAT] = {.type = {"FloatImm", &bi_te_expr_class.type, VAL_OBJ, &bi_tir_ctor_floatimm},
                    EXPR_CLASS_HOOKS, .number = literal_number},
    KIND_CLASS(STR, "StringImm", &bi_tir_ctor_stringimm),
    KIND_CLASS(VAR, "Var", &bi_tir_ctor_var),
    KIND_CLASS(CAST, "Cast", &bi_tir_ctor_cast),
#define BINARY_CLASS(name, kind) KIND_CLASS(kind, #name, &bi_tir_ctor_##name),
    BI_TIR_BINARY_NODES(BINARY_CLASS)
#undef BINARY_CLASS
    KIND_CLASS(NOT, "Not", &bi_tir_ctor_not),
    KIND_CLASS(SELECT, "Select", &bi_tir_ctor_select),
    KIND_CLASS(CALL, "Call", &bi_tir_ctor_call),
    KIND_CLASS(PRODUCER_LOAD, "ProducerLoad", NULL),
    KIND_CLASS(REDUCE, "Reduce", NULL),
};
#undef KIND_CLASS
#undef EXPR_CLASS_HOOKS

static const ObjClass *expr_class(const Expr *e) {
  return kind_classes[e->kind].type.name ? &kind_classes[e->kind] : &bi_te_expr_class;
}

static bool is_expr_class(const ObjClass *c) {
  return c == &bi_te_expr_class || c->type.base == &bi_te_expr_class.type;
}

const ObjClass *bi_te_expr_kind_class(ExprKind k) {
  return kind_classes[k].type.name ? &kind_classes[k] : NULL;
}

/* ---- IterVar and its Range ---- */

static Value *itervar_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  ir_print_itervar(&b, self->u.obj.p);
  return val_str_sb(&b);
}

/* TVM's IterVar.iter_type numbering (kDataPar, kThreadIndex, kCommReduce, kOrdered, kOpaque). */
static int iter_type_code(IterVarKind k) {
  switch (k) {
  case ITER_DATA_PAR: return 0;
  case ITER_THREAD:
  case ITER_VTHREAD: return 1;
  case ITER_REDUCE: return 2;
  case ITER_OPAQUE: return 4;
  }
  TES_UNREACHABLE();
}

static Value *itervar_var(Interp *I, Value *self) {
  return bi_te_wrap_expr(ir_varref(arena(I), ((IterVar *)self->u.obj.p)->var));
}

static Value *itervar_dom(Interp *I, Value *self) {
  IterVar *iv = self->u.obj.p;
  return iv->dom.min ? val_obj_new(&bi_te_range_class, iv) : val_none();
}

static Value *itervar_thread_tag(Interp *I, Value *self) {
  const IterVar *iv = self->u.obj.p;
  return val_cstr(iv->thread_tag ? iv->thread_tag : "");
}

static Value *itervar_iter_type(Interp *I, Value *self) {
  return val_int(iter_type_code(((IterVar *)self->u.obj.p)->kind));
}

static const Property itervar_props[] = {
    {"var", itervar_var, "the loop variable, a PrimExpr"},
    {"dom", itervar_dom, "the Range the variable runs over (min, extent), or None if not known"},
    {"thread_tag", itervar_thread_tag, "the thread it is bound to ('threadIdx.x'), or ''"},
    {"iter_type", itervar_iter_type,
     "TVM's kind number: 0 data parallel, 1 thread, 2 reduction, 4 opaque"},
    {0},
};

static const Builtin itervar_methods[] = {
    {"astype", bi_expr_astype, 1, PARAMS("dtype"),
     "astype(dtype) -> PrimExpr: the variable cast to dtype"},
    {"same_as", bi_expr_same_as, 1, PARAMS("other"),
     "same_as(other) -> bool: whether other is this axis (or its variable)"},
    {0},
};

const ObjClass bi_te_itervar_class = {
    .type = {"IterVar", NULL, VAL_OBJ, NULL},
    .repr = itervar_repr,
    .binop = expr_binop,
    .unop = expr_unop,
    .compare = expr_compare,
    .methods = itervar_methods,
    .truthy = expr_truthy,
    .logic = expr_logic,
    .props = itervar_props,
};

static Value *range_repr(Interp *I, Value *self) {
  const IterVar *iv = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "range(min=");
  ir_print_expr(&b, iv->dom.min);
  sb_puts(&b, ", ext=");
  ir_print_expr(&b, iv->dom.extent);
  sb_putc(&b, ')');
  return val_str_sb(&b);
}

static Value *range_min(Interp *I, Value *self) {
  return bi_te_wrap_expr(((IterVar *)self->u.obj.p)->dom.min);
}

static Value *range_extent(Interp *I, Value *self) {
  return bi_te_wrap_expr(((IterVar *)self->u.obj.p)->dom.extent);
}

static const Property range_props[] = {
    {"min", range_min, "the first value, a PrimExpr"},
    {"extent", range_extent, "the number of values, a PrimExpr"},
    {0},
};

const ObjClass bi_te_range_class = {
    .type = {"Range", NULL, VAL_OBJ, NULL},
    .repr = range_repr,
    .compare = node_compare,
    .props = range_props,
};

/* ---- Tensor ---- */

static void print_shape(StrBuf *b, const Tensor *t) {
  sb_putc(b, '[');
  for (int i = 0; i < t->ndim; i++) {
    if (i) sb_puts(b, ", ");
    ir_print_expr(b, t->shape[i]);
  }
  sb_putc(b, ']');
}

static Value *tensor_repr(Interp *I, Value *self) {
  const Tensor *t = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "Tensor(shape=");
  print_shape(&b, t);
  sb_printf(&b, ", op.name=%s)", t->op ? t->op->name : t->name);
  return val_str_sb(&b);
}

static Value *tensor_shape(Interp *I, Value *self) {
  const Tensor *t = self->u.obj.p;
  return bi_te_expr_list(t->ndim, t->shape);
}

static Value *tensor_dtype(Interp *I, Value *self) {
  return bi_te_dtype_str(((Tensor *)self->u.obj.p)->dtype);
}

static Value *tensor_name(Interp *I, Value *self) {
  return val_cstr(((Tensor *)self->u.obj.p)->name);
}

static Value *tensor_ndim(Interp *I, Value *self) {
  return val_int(((Tensor *)self->u.obj.p)->ndim);
}

static Value *tensor_value_index(Interp *I, Value *self) {
  return val_int(((Tensor *)self->u.obj.p)->value_index);
}

static Value *tensor_op(Interp *I, Value *self) {
  Tensor *t = self->u.obj.p;
  return t->op ? bi_te_wrap_op(t->op) : NULL;
}

static const Property tensor_props[] = {
    {"shape", tensor_shape, "the extent of each dimension, a list of PrimExpr"},
    {"dtype", tensor_dtype, "the element type, a str ('float32')"},
    {"name", tensor_name, "the tensor's name"},
    {"ndim", tensor_ndim, "the number of dimensions"},
    {"value_index", tensor_value_index, "which output of its operation it is"},
    {"op", tensor_op, "the Operation that produces it"},
    {0},
};

/* One index of A[i, j] / A(i, j): an integer expression (a Python int is int32). */
static Expr *tensor_index(Interp *I, const Tensor *t, int i, Value *v) {
  char what[64], name[32];
  if (v->kind == VAL_SLICE)
    return BI_TE_RAISE(I, EXC_TypeError,
                        "tensor %s: slices are not supported; index with expressions", t->name);
  snprintf(what, sizeof what, "tensor %s index %d", t->name, i);
  Expr *e = bi_te_to_expr(I, v, what);
  if (e && (!dt_is_int(e->dtype) || e->dtype.lanes != 1))
    return BI_TE_RAISE(I, EXC_TypeError, "%s is %s, not an integer", what,
                        dt_name(e->dtype, name));
  return e;
}

static Value *tensor_load(Interp *I, Tensor *t, int n, Value **idx) {
  if (n != t->ndim)
    return interp_raise(I, EXC_IndexError, "tensor %s has %d dimension%s, indexed with %d", t->name,
                        t->ndim, t->ndim == 1 ? "" : "s", n);
  Expr **ix = arena_alloc(arena(I), (size_t)(n ? n : 1) * sizeof *ix);
  for (int i = 0; i < n; i++)
    if (!(ix[i] = tensor_index(I, t, i, idx[i]))) return NULL;
  return wrap_or_null(bi_te_shallow(I, ir_pload(arena(I), t, n, ix)));
}

static Value *tensor_getitem(Interp *I, Value *self, Value *key) {
  if (key->kind == VAL_TUPLE)
    return tensor_load(I, self->u.obj.p, (int)VAL_SEQ_N(key), key->u.list->items);
  return tensor_load(I, self->u.obj.p, 1, &key);
}

static Value *tensor_call(Interp *I, Value *self, CallArgs *args) {
  Tensor *t = self->u.obj.p;
  if (args->nkw)
    return interp_raise(I, EXC_TypeError, "tensor %s takes indices, not keyword arguments",
                        t->name);
  return tensor_load(I, t, args->n, args->v);
}

static Value *tensor_unop(Interp *I, UnOp op, Value *self) {
  if (op == UN_NEG) return bi_te_tensor_neg(I, self->u.obj.p);
  return op == UN_POS ? val_incref(self) : NULL;
}

static Value *tensor_binop(Interp *I, BinOp op, Value *a, Value *b, bool right) {
  return bi_te_tensor_binop(I, op, a, b);
}

/* TVM's Object.same_as for tensors, operations and the rest of the node values: one node.
 * (Two values wrapping one node are the same: values own no node.) */
static Value *node_same_as(Interp *I, Value *self, Value **a) {
  return val_bool(a[0]->kind == VAL_OBJ && a[0]->u.obj.p == self->u.obj.p &&
                  (a[0]->u.obj.cls == self->u.obj.cls ||
                   (bi_te_op_of(a[0]) && bi_te_op_of(self))));
}

static const Builtin node_methods[] = {
    {"same_as", node_same_as, 1, PARAMS("other"),
     "same_as(other) -> bool: whether other is this very node"},
    {0},
};

const ObjClass bi_te_tensor_class = {
    .type = {"Tensor", NULL, VAL_OBJ, NULL},
    .repr = tensor_repr,
    .call = tensor_call,
    .getitem = tensor_getitem,
    .binop = tensor_binop,
    .unop = tensor_unop,
    .compare = node_compare,
    .methods = node_methods,
    .props = tensor_props,
};

/* ---- Operation ---- */

/* The printer shows `attrs={}` (the IR holds none); a compute given attrs shows them. */
static Value *op_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  ir_print_op(&b, self->u.obj.p);
  static const char empty[] = "attrs={})";
  size_t n = strlen(sb_cstr(&b)), m = sizeof empty - 1;
  Value *attrs = bi_te_op_of(self)->kind != OP_PLACEHOLDER ? bi_te_op_attrs(I, self->u.obj.p) : NULL;
  if (attrs && dict_len(attrs) > 0 && n >= m && !strcmp(sb_cstr(&b) + n - m, empty)) {
    Value *r = val_repr(I, attrs);
    if (!r) {
      sb_free(&b);
      val_decref(attrs);
      return NULL;
    }
    StrBuf c = STRBUF_INIT;
    sb_printf(&c, "%.*sattrs=%s)", (int)(n - m), sb_cstr(&b), r->u.str.s);
    val_decref(r);
    sb_free(&b);
    b = c;
  }
  val_xdecref(attrs);
  return val_str_sb(&b);
}

static Value *tensor_list(int n, Tensor *const *ts) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_te_wrap_tensor(ts[i]));
  return l;
}

static Value *op_name(Interp *I, Value *self) {
  return val_cstr(((Operation *)self->u.obj.p)->name);
}

static Value *op_tag(Interp *I, Value *self) { return val_cstr(((Operation *)self->u.obj.p)->tag); }

static Value *op_num_outputs(Interp *I, Value *self) {
  return val_int(((Operation *)self->u.obj.p)->noutputs);
}

static Value *op_input_tensors(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return tensor_list(op->ninputs, op->inputs);
}

static Value *compute_axis(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return bi_te_itervar_list(op->naxis, op->axis);
}

static Value *compute_reduce_axis(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return bi_te_itervar_list(op->nreduce, op->reduce_axis);
}

static Value *compute_body(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return bi_te_expr_list(op->noutputs, op->body);
}

static Value *compute_attrs(Interp *I, Value *self) { return bi_te_op_attrs(I, self->u.obj.p); }

static Value *placeholder_shape(Interp *I, Value *self) {
  const Tensor *t = ((Operation *)self->u.obj.p)->outputs[0];
  return bi_te_expr_list(t->ndim, t->shape);
}

static Value *placeholder_dtype(Interp *I, Value *self) {
  return bi_te_dtype_str(((Operation *)self->u.obj.p)->outputs[0]->dtype);
}

static Value *buffer_list(int n, Buffer *const *bufs) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_tir_wrap_buffer(bufs[i]));
  return l;
}

static Value *extern_inputs(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return buffer_list(op->ninputs, op->in_buffers);
}

static Value *extern_outputs(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return buffer_list(op->noutputs, op->out_buffers);
}

static Value *extern_body(Interp *I, Value *self) {
  return bi_tir_wrap_stmt(((Operation *)self->u.obj.p)->body_stmt);
}

/* What every operation has; each kind adds its own. */
#define OP_PROPS                                                                                   \
  {"name", op_name, "the operation's name"},                                                       \
  {"tag", op_tag, "the tag it was made with, or ''"},                                              \
  {"num_outputs", op_num_outputs, "the number of tensors it produces"},                            \
  {"input_tensors", op_input_tensors, "the tensors it reads, a list"}
static const Property op_props[] = {OP_PROPS, {0}};
static const Property compute_op_props[] = {
    OP_PROPS,
    {"axis", compute_axis, "the data-parallel axes, a list of IterVar"},
    {"reduce_axis", compute_reduce_axis, "the reduction axes, a list of IterVar"},
    {"body", compute_body, "the expression of each output, a list of PrimExpr"},
    {"attrs", compute_attrs, "the operation's attributes, the dict te.compute was given"},
    {0},
};
static const Property extern_op_props[] = {
    OP_PROPS,
    {"input_placeholders", extern_inputs, "the Buffer of each input, a list"},
    {"output_placeholders", extern_outputs, "the Buffer of each output, a list"},
    {"body", extern_body, "the statement that writes the outputs, a Stmt"},
    {"attrs", compute_attrs, "the operation's attributes, the dict te.extern was given"},
    {0},
};
static Value *scan_axis(Interp *I, Value *self) {
  return bi_te_wrap_itervar(((Operation *)self->u.obj.p)->scan_axis);
}

static Value *scan_tensors(Tensor **ts, int n) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, bi_te_wrap_tensor(ts[i]));
  return l;
}

static Value *scan_init(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return scan_tensors(op->scan_init, op->noutputs);
}

static Value *scan_update(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return scan_tensors(op->scan_update, op->noutputs);
}

static Value *scan_state(Interp *I, Value *self) {
  const Operation *op = self->u.obj.p;
  return scan_tensors(op->scan_state, op->noutputs);
}

static const Property scan_op_props[] = {
    OP_PROPS,
    {"scan_axis", scan_axis, "the axis the steps run over, an IterVar"},
    {"init", scan_init, "the tensor of each state's first rows, a list"},
    {"update", scan_update, "the tensor of each state's later rows, a list"},
    {"state_placeholder", scan_state, "the placeholder each update reads the state by, a list"},
    {"attrs", compute_attrs, "the operation's attributes, the dict te.scan was given"},
    {0},
};
static const Property placeholder_op_props[] = {
    OP_PROPS,
    {"shape", placeholder_shape, "the extent of each dimension, a list of PrimExpr"},
    {"dtype", placeholder_dtype, "the element type, a str ('float32')"},
    {0},
};
#undef OP_PROPS

static Value *bi_op_output(Interp *I, Value *self, Value **a) {
  Operation *op = self->u.obj.p;
  int64_t i;
  if (bi_arg_index(I, a[0], &i) < 0) return NULL;
  if (i < 0 || i >= op->noutputs)
    return interp_raise(I, EXC_IndexError, "operation %s has %d output%s, asked for output %lld",
                        op->name, op->noutputs, op->noutputs == 1 ? "" : "s", (long long)i);
  return bi_te_wrap_tensor(op->outputs[i]);
}

static const Builtin op_methods[] = {
    {"output", bi_op_output, 1, PARAMS("index"),
     "output(index) -> Tensor: the index-th tensor the operation produces"},
    {"same_as", node_same_as, 1, PARAMS("other"),
     "same_as(other) -> bool: whether other is this very operation"},
    {0},
};

/* Operation is the base type (isinstance(x, te.Operation)); a value is always one of the
 * kinds below it, as in TVM: te.ComputeOp or te.PlaceholderOp. */
const ObjClass bi_te_op_class = {
    .type = {"Operation", NULL, VAL_OBJ, NULL},
    .repr = op_repr,
    .compare = node_compare,
    .methods = op_methods,
    .props = op_props,
};
#define OP_KIND_CLASS(var, name, props_)                                                           \
  const ObjClass var = {                                                                           \
      .type = {name, &bi_te_op_class.type, VAL_OBJ, NULL},                                         \
      .repr = op_repr,                                                                             \
      .compare = node_compare,                                                                     \
      .methods = op_methods,                                                                       \
      .props = props_,                                                                             \
  };
OP_KIND_CLASS(bi_te_compute_op_class, "ComputeOp", compute_op_props)
OP_KIND_CLASS(bi_te_placeholder_op_class, "PlaceholderOp", placeholder_op_props)
OP_KIND_CLASS(bi_te_extern_op_class, "ExternOp", extern_op_props)
OP_KIND_CLASS(bi_te_scan_op_class, "ScanOp", scan_op_props)
#undef OP_KIND_CLASS

/* ---- CommReducer ---- */

static Value *combiner_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  ir_print_comm_reducer(&b, self->u.obj.p);
  return val_str_sb(&b);
}

static Value *combiner_lhs(Interp *I, Value *self) {
  const CommReducer *c = self->u.obj.p;
  return var_list(I, c->n, c->lhs);
}

static Value *combiner_rhs(Interp *I, Value *self) {
  const CommReducer *c = self->u.obj.p;
  return var_list(I, c->n, c->rhs);
}

static Value *combiner_result(Interp *I, Value *self) {
  const CommReducer *c = self->u.obj.p;
  return bi_te_expr_list(c->n, c->result);
}

static Value *combiner_identity(Interp *I, Value *self) {
  const CommReducer *c = self->u.obj.p;
  return bi_te_expr_list(c->n, c->identity);
}

static const Property combiner_props[] = {
    {"lhs", combiner_lhs, "the left operands of the combining expressions, a list of Var"},
    {"rhs", combiner_rhs, "the right operands, a list of Var"},
    {"result", combiner_result, "the combining expressions, a list of PrimExpr"},
    {"identity_element", combiner_identity, "the starting values, a list of PrimExpr"},
    {0},
};

const ObjClass bi_te_combiner_class = {
    .type = {"CommReducer", NULL, VAL_OBJ, NULL},
    .repr = combiner_repr,
    .compare = node_compare,
    .props = combiner_props,
};
