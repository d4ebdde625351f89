/* tir_stmt.c: tvm.tir's statements and calls as scripts build them by hand (SPEC §12): the Stmt
 * value (printed by the one IR printer), call_intrin, call_extern, call_pure_extern, Evaluate,
 * SeqStmt and stmt_seq. Statements live in the session's IR arena, like te nodes, and the
 * values own nothing. The calls are the ones tensor intrinsics emit; codegen gives them
 * meaning (backends/llvm/codegen_intrin.c, backends/c). */
#include <stdio.h>
#include <string.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"

/* ---- the Stmt value ---- */

static Value *stmt_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  ir_print_stmt(&b, self->u.obj.p, 0);
  /* the printer ends every line; a value's repr has no trailing newline */
  if (b.len && b.s[b.len - 1] == '\n') b.s[--b.len] = '\0';
  return val_str_sb(&b);
}

static Value *stmt_kind(Interp *I, Value *self) {
  return val_cstr(ir_stmt_kind_names[((Stmt *)self->u.obj.p)->kind]);
}

static const Property stmt_props[] = {
    {"kind", stmt_kind, "what statement this is: 'FOR', 'SEQ', 'EVALUATE' ..."},
    {0},
};

const ObjClass bi_tir_stmt_class = {
    .type = {"Stmt", NULL, VAL_OBJ, NULL},
    .repr = stmt_repr,
    .props = stmt_props,
};

Value *bi_tir_wrap_stmt(Stmt *s) { return val_obj_new(&bi_tir_stmt_class, s); }
Stmt *bi_tir_stmt_of(Value *v) { return val_obj_of(v, &bi_tir_stmt_class); }

Stmt *bi_tir_to_stmt(Interp *I, Value *v, const char *what) {
  Stmt *s = bi_tir_stmt_of(v);
  if (s) return s;
  if (bi_te_is_exprlike(v) && !bi_te_is_number(v)) {
    Expr *e = bi_te_to_expr(I, v, what);
    return e ? ir_evaluate(arena(I), e) : NULL;
  }
  interp_raise(I, EXC_TypeError, "%s must be a Stmt or a PrimExpr (a call), not '%s'", what,
               val_type_name(v));
  return NULL;
}

/* ---- calls ---- */

Expr *bi_tir_call_arg(Interp *I, Value *v, const char *what) {
  if (v->kind == VAL_STR) return ir_str(arena(I), v->u.str.s);
  return bi_te_to_expr(I, v, what);
}

/* A call's dtype: any dtype, vectors ("int32x16") and handle included. */
static int call_dtype(Interp *I, Value *v, const char *fn, DType *out) {
  if (!v || v->kind != VAL_STR) {
    interp_raise(I, EXC_TypeError, "%s: dtype must be a dtype name such as \"int32\", not '%s'",
                 fn, v ? val_type_name(v) : "nothing");
    return -1;
  }
  if (dt_parse(v->u.str.s, out)) return 0;
  interp_raise(I, EXC_ValueError, "%s: unknown dtype '%s'", fn, v->u.str.s);
  return -1;
}

/* The arguments of a call: the `*args` tuple, after `skip` leading expressions. */
static Expr **call_args(Interp *I, Value *tuple, const char *fn, int skip, Expr **lead,
                        int *n) {
  int64_t m = VAL_SEQ_N(tuple);
  if (m > 1024) return BI_TE_RAISE(I, EXC_ValueError, "%s: too many arguments (%lld)", fn,
                                   (long long)m);
  Expr **args = arena_alloc(arena(I), (size_t)(m + skip + 1) * sizeof *args);
  for (int i = 0; i < skip; i++) args[i] = lead[i];
  for (int64_t i = 0; i < m; i++) {
    char what[64];
    snprintf(what, sizeof what, "%s: argument %lld", fn, (long long)i + 1);
    if (!(args[skip + i] = bi_tir_call_arg(I, VAL_SEQ_ITEM(tuple, i), what))) return NULL;
  }
  *n = (int)m + skip;
  return args;
}

static Value *make_call(Interp *I, Value **a, const char *fn, CallKind k) {
  DType t;
  const char *name = bi_ir_op_name(a[1]); /* an Op, as Call.op gives */
  if (!name) name = bi_te_str_arg(I, a[1], fn, "func_name", NULL);
  if (call_dtype(I, a[0], fn, &t) < 0 || !name) return NULL;
  if (!name[0]) return interp_raise(I, EXC_ValueError, "%s: func_name is empty", fn);
  const char *op = name;
  Expr *lead = NULL;
  int skip = 0, n;
  if (k == CALL_EFFECT && strncmp(name, "tir.", 4) != 0) {
    /* TVM's ops are "tir.NAME"; the short spelling names the same op */
    size_t len = strlen(name);
    char *full = arena_alloc(arena(I), len + 5);
    memcpy(full, "tir.", 4);
    memcpy(full + 4, name, len + 1);
    op = full;
  } else if (strcmp(fn, "call_pure_extern") == 0) {
    /* printed as TVM does: @tir.call_pure_extern("name", args...) */
    op = "tir.call_pure_extern";
    lead = ir_str(arena(I), name);
    skip = 1;
  }
  /* an op of the script's own that register_op_attr made Pure (or an annotation) */
  if (k == CALL_EFFECT && bi_ir_op_is_pure(I, op)) k = CALL_PURE;
  Expr **args = call_args(I, a[2], fn, skip, &lead, &n);
  if (!args) return NULL;
  Expr *e = bi_te_shallow(I, ir_call(arena(I), t, op, k, n, args));
  return e ? bi_te_wrap_expr(e) : NULL;
}

Value *bi_tir_call_intrin(Interp *I, Value *self, Value **a) {
  return make_call(I, a, "call_intrin", CALL_EFFECT);
}

Value *bi_tir_call_extern(Interp *I, Value *self, Value **a) {
  return make_call(I, a, "call_extern", CALL_EXTERN);
}

Value *bi_tir_call_pure_extern(Interp *I, Value *self, Value **a) {
  return make_call(I, a, "call_pure_extern", CALL_EXTERN);
}

/* call_llvm_intrin(dtype, name, *args): @tir.call_llvm_intrin("llvm.NAME", args...). TVM
 * puts LLVM's number of the intrinsic first; the name stands in for it, as LLVM's numbers
 * change between versions and the back end looks it up. A first argument that is a uint32
 * constant is TVM's count of the arguments whose types pick an overloaded intrinsic. */
static Value *llvm_call(Interp *I, Value **a, const char *fn, CallKind k) {
  DType t;
  const char *name = bi_te_str_arg(I, a[1], fn, "name", NULL);
  if (call_dtype(I, a[0], fn, &t) < 0 || !name) return NULL;
  if (strncmp(name, "llvm.", 5) != 0)
    return interp_raise(I, EXC_ValueError, "%s: '%s' is not an LLVM intrinsic (llvm.NAME)", fn,
                        name);
  Expr *lead = ir_str(arena(I), name);
  int n;
  Expr **args = call_args(I, a[2], fn, 1, &lead, &n);
  if (!args) return NULL;
  char op[64];
  snprintf(op, sizeof op, "tir.%s", fn);
  Expr *e = bi_te_shallow(I, ir_call(arena(I), t, op, k, n, args));
  return e ? bi_te_wrap_expr(e) : NULL;
}

Value *bi_tir_call_llvm_intrin(Interp *I, Value *self, Value **a) {
  return llvm_call(I, a, "call_llvm_intrin", CALL_EFFECT);
}

Value *bi_tir_call_llvm_pure_intrin(Interp *I, Value *self, Value **a) {
  return llvm_call(I, a, "call_llvm_pure_intrin", CALL_PURE);
}

Expr *bi_tir_vector_cast(Interp *I, Value *dtype, Expr *x, const char *fn) {
  DType t;
  char a[32], b[32];
  if (!dtype || dtype->kind != VAL_STR || !dt_parse(dtype->u.str.s, &t) || t.lanes == 1)
    return NULL;
  if (t.code == DT_HANDLE || x->dtype.code == DT_HANDLE ||
      (x->dtype.lanes != 1 && x->dtype.lanes != t.lanes))
    return BI_TE_RAISE(I, EXC_TypeError, "%s: cannot cast %s to %s", fn, dt_name(x->dtype, a),
                       dt_name(t, b));
  if (x->dtype.lanes == 1) {
    Expr *e = bi_te_cast(I, dt_element(t), x);
    return e ? ir_broadcast(arena(I), e, t.lanes) : NULL;
  }
  return dt_eq(x->dtype, t) ? x : ir_cast(arena(I), t, x);
}

/* Broadcast(value, lanes): value in every lane of a vector. */
Value *bi_tir_broadcast(Interp *I, Value *self, Value **a) {
  Expr *v = bi_te_to_expr(I, a[0], "Broadcast: value");
  int64_t lanes;
  if (!v) return NULL;
  if (a[1]->kind != VAL_INT || (lanes = a[1]->u.i) < 1 || lanes > 1024)
    return interp_raise(I, EXC_ValueError, "Broadcast: lanes must be an int from 1 to 1024");
  if (v->dtype.lanes != 1)
    return interp_raise(I, EXC_TypeError, "Broadcast: value must be a scalar");
  return lanes == 1 ? bi_te_wrap_expr(v) : bi_te_wrap_expr(ir_broadcast(arena(I), v, (int)lanes));
}

/* ---- statements ---- */

Value *bi_tir_evaluate(Interp *I, Value *self, Value **a) {
  Stmt *s = bi_tir_stmt_of(a[0]);
  if (s) return interp_raise(I, EXC_TypeError, "Evaluate: value must be a PrimExpr, not a Stmt");
  Expr *e = bi_te_to_expr(I, a[0], "Evaluate: value");
  return e ? bi_tir_wrap_stmt(ir_evaluate(arena(I), e)) : NULL;
}

static Value *seq_of(Interp *I, Value *items, const char *fn) {
  int64_t n = VAL_SEQ_N(items);
  if (n == 0) return interp_raise(I, EXC_ValueError, "%s: needs at least one statement", fn);
  Stmt **ss = arena_alloc(arena(I), (size_t)n * sizeof *ss);
  for (int64_t i = 0; i < n; i++) {
    char what[64];
    snprintf(what, sizeof what, "%s: item %lld", fn, (long long)i);
    if (!(ss[i] = bi_tir_to_stmt(I, VAL_SEQ_ITEM(items, i), what))) return NULL;
  }
  return bi_tir_wrap_stmt(ir_seq(arena(I), (int)n, ss));
}

Value *bi_tir_seq_stmt(Interp *I, Value *self, Value **a) {
  if (a[0]->kind != VAL_LIST && a[0]->kind != VAL_TUPLE)
    return interp_raise(I, EXC_TypeError, "SeqStmt: seq must be a list of statements, not '%s'",
                        val_type_name(a[0]));
  return seq_of(I, a[0], "SeqStmt");
}

Value *bi_tir_stmt_seq(Interp *I, Value *self, Value **a) { return seq_of(I, a[0], "stmt_seq"); }
