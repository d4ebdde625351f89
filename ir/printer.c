/* printer.c: the one printer of IR, in the text form of TVM's 0.9 TIR printer (SPEC §8) so that
 * printed IR can be held against the seed tutorials line by line; seeds/000_*.txt shows most
 * forms. TVM's noise is left out: no `_1` suffixes and no inline Buffer declarations. */
#include "ir/printer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/tensor.h"

/* ---- literals ---- */

static void put_dtype(StrBuf *out, DType t) {
  char buf[32];
  sb_puts(out, dt_name(t, buf));
}

/* A literal's suffix is the dtype in short ("i64", "u8", "f32"); int32 has none. */
static void put_suffix(StrBuf *out, DType t) {
  if (t.code == DT_INT && t.bits == 32) return;
  sb_printf(out, "%c%d", t.code == DT_INT ? 'i' : t.code == DT_UINT ? 'u' : 'f', t.bits);
}

static void print_int(StrBuf *out, const Expr *e) {
  DType t = e->dtype;
  if (t.code == DT_BOOL) {
    sb_puts(out, e->u.ival ? "True" : "False");
    return;
  }
  if (t.code == DT_UINT) {
    uint64_t mask = t.bits >= 64 ? UINT64_MAX : (UINT64_C(1) << t.bits) - 1;
    sb_printf(out, "%" PRIu64, (uint64_t)e->u.ival & mask);
  } else {
    sb_printf(out, "%" PRId64, e->u.ival);
  }
  put_suffix(out, t);
}

/* TVM writes a float with C++'s default stream format, which is %g: six significant digits.
 * The seeds show it (min_value("float32") prints as -3.40282e+38f32, 000_*.txt), so the
 * printed IR matches TVM's even where six digits do not round-trip. */
static void print_float(StrBuf *out, const Expr *e) {
  sb_printf(out, "%g", e->u.fval);
  put_suffix(out, e->dtype);
}

static void print_string(StrBuf *out, const char *s) {
  sb_putc(out, '"');
  for (; *s; s++) {
    switch (*s) {
    case '"':
      sb_puts(out, "\\\"");
      break;
    case '\\':
      sb_puts(out, "\\\\");
      break;
    case '\n':
      sb_puts(out, "\\n");
      break;
    case '\t':
      sb_puts(out, "\\t");
      break;
    default:
      sb_putc(out, *s);
    }
  }
  sb_putc(out, '"');
}

void ir_print_const(StrBuf *out, const Expr *e) {
  if (e->kind == EXPR_INT)
    print_int(out, e);
  else if (e->kind == EXPR_FLOAT)
    print_float(out, e);
  else if (e->kind == EXPR_STR)
    print_string(out, e->u.str);
  else
    TES_ASSERT(0, "ir_print_const of a %s", ir_expr_kind_names[e->kind]);
}

/* ---- expressions ---- */

static void print_list(StrBuf *out, int n, Expr *const *xs) {
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(out, ", ");
    ir_print_expr(out, xs[i]);
  }
}

/* `(a + b)`; TVM writes `*` without spaces and every other operator with them. */
static const char *const infix_ops[EXPR_KIND_COUNT] = {
    [EXPR_ADD] = " + ", [EXPR_SUB] = " - ", [EXPR_MUL] = "*",   [EXPR_DIV] = " / ",
    [EXPR_MOD] = " % ", [EXPR_EQ] = " == ", [EXPR_NE] = " != ", [EXPR_LT] = " < ",
    [EXPR_LE] = " <= ", [EXPR_GT] = " > ",  [EXPR_GE] = " >= ", [EXPR_AND] = " && ",
    [EXPR_OR] = " || ",
};

static void print_binary(StrBuf *out, const Expr *e) {
  sb_putc(out, '(');
  ir_print_expr(out, e->u.bin.a);
  sb_puts(out, infix_ops[e->kind]);
  ir_print_expr(out, e->u.bin.b);
  sb_putc(out, ')');
}

/* floordiv(a, b), min(a, b), ...: the binary kinds TVM writes as calls. */
static void print_call2(StrBuf *out, const char *name, const Expr *e) {
  sb_printf(out, "%s(", name);
  ir_print_expr(out, e->u.bin.a);
  sb_puts(out, ", ");
  ir_print_expr(out, e->u.bin.b);
  sb_putc(out, ')');
}

/* @tir.exp(x, dtype=float32). An extern call whose op is a bare C name is written as TVM
 * writes it, through tir.call_extern with the name as the first argument. */
static void print_call(StrBuf *out, const Expr *e) {
  const char *op = e->u.call.op;
  bool bare_extern = e->u.call.ckind == CALL_EXTERN && strncmp(op, "tir.", 4) != 0;
  sb_printf(out, "@%s(", bare_extern ? "tir.call_extern" : op);
  if (bare_extern) {
    print_string(out, op);
    if (e->u.call.n) sb_puts(out, ", ");
  }
  print_list(out, e->u.call.n, e->u.call.args);
  /* TVM prints a call without arguments (a type annotation, VTA's command handle) as
   * `(, dtype=T)` */
  if (e->u.call.n || bare_extern || strcmp(op, "tir.type_annotation") == 0 ||
      strncmp(op, "tir.vta.", 8) == 0)
    sb_puts(out, ", ");
  sb_puts(out, "dtype=");
  put_dtype(out, e->dtype);
  sb_putc(out, ')');
}

static void print_load(StrBuf *out, const Expr *e) {
  sb_printf(out, "%s[", e->u.load.buf->name);
  ir_print_expr(out, e->u.load.index);
  sb_putc(out, ']');
  if (e->u.load.predicate) {
    sb_puts(out, " if ");
    ir_print_expr(out, e->u.load.predicate);
  }
}

static void print_pload(StrBuf *out, const char *name, int n, Expr *const *indices) {
  sb_printf(out, "%s[", name);
  print_list(out, n, indices);
  sb_putc(out, ']');
}

static void print_var_list(StrBuf *out, int n, Var *const *vars) {
  for (int i = 0; i < n; i++) sb_printf(out, "%s%s", i ? ", " : "", vars[i]->name);
}

/* The te printer's form (seeds/000_*.txt's stage list); it never appears in lowered IR. */
static void print_reduce(StrBuf *out, const Expr *e) {
  const CommReducer *c = e->u.reduce.combiner;
  sb_puts(out, "reduce(combiner=comm_reducer(result=[");
  print_list(out, c->n, c->result);
  sb_puts(out, "], lhs=[");
  print_var_list(out, c->n, c->lhs);
  sb_puts(out, "], rhs=[");
  print_var_list(out, c->n, c->rhs);
  sb_puts(out, "], identity_element=[");
  print_list(out, c->n, c->identity);
  sb_puts(out, "]), source=[");
  print_list(out, e->u.reduce.nsrc, e->u.reduce.source);
  sb_puts(out, "], init=[], axis=[");
  for (int i = 0; i < e->u.reduce.naxis; i++) {
    const IterVar *iv = e->u.reduce.axis[i];
    sb_printf(out, "%siter_var(%s, range(min=", i ? ", " : "", iv->var->name);
    ir_print_expr(out, iv->dom.min);
    sb_puts(out, ", ext=");
    ir_print_expr(out, iv->dom.extent);
    sb_puts(out, "))");
  }
  sb_puts(out, "], where=");
  if (e->u.reduce.condition)
    ir_print_expr(out, e->u.reduce.condition);
  else
    sb_puts(out, "True");
  sb_printf(out, ", value_index=%d)", e->u.reduce.value_index);
}

static void print_vector(StrBuf *out, const char *name, const Expr *a, const Expr *b, int lanes) {
  sb_printf(out, "%s(", name);
  ir_print_expr(out, a);
  if (b) {
    sb_puts(out, ", ");
    ir_print_expr(out, b);
  }
  sb_printf(out, ", %d)", lanes);
}

static void print_ternary(StrBuf *out, const char *name, const Expr *a, const Expr *b,
                          const Expr *c) {
  sb_printf(out, "%s(", name);
  ir_print_expr(out, a);
  sb_puts(out, ", ");
  ir_print_expr(out, b);
  sb_puts(out, ", ");
  ir_print_expr(out, c);
  sb_putc(out, ')');
}

static void print_cast(StrBuf *out, const Expr *e) {
  sb_puts(out, "cast(");
  put_dtype(out, e->dtype);
  sb_puts(out, ", ");
  ir_print_expr(out, e->u.unary.a);
  sb_putc(out, ')');
}

static void print_let_expr(StrBuf *out, const Expr *e) {
  sb_printf(out, "(let %s = ", e->u.let.var->name);
  ir_print_expr(out, e->u.let.value);
  sb_puts(out, " in ");
  ir_print_expr(out, e->u.let.body);
  sb_putc(out, ')');
}

void ir_print_expr(StrBuf *out, const Expr *e) {
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STR:
    ir_print_const(out, e);
    return;
  case EXPR_VAR:
    sb_puts(out, e->u.var->name);
    return;
  case EXPR_CAST:
    print_cast(out, e);
    return;
  case EXPR_ADD:
  case EXPR_SUB:
  case EXPR_MUL:
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
    print_binary(out, e);
    return;
  case EXPR_FLOORDIV:
    print_call2(out, "floordiv", e);
    return;
  case EXPR_FLOORMOD:
    print_call2(out, "floormod", e);
    return;
  case EXPR_MIN:
    print_call2(out, "min", e);
    return;
  case EXPR_MAX:
    print_call2(out, "max", e);
    return;
  case EXPR_NOT:
    sb_putc(out, '!');
    ir_print_expr(out, e->u.unary.a);
    return;
  case EXPR_SELECT:
    print_ternary(out, "select", e->u.select.cond, e->u.select.t, e->u.select.f);
    return;
  case EXPR_RAMP:
    print_vector(out, "ramp", e->u.ramp.base, e->u.ramp.stride, e->u.ramp.lanes);
    return;
  case EXPR_BROADCAST:
    print_vector(out, "broadcast", e->u.bcast.value, NULL, e->u.bcast.lanes);
    return;
  case EXPR_LET:
    print_let_expr(out, e);
    return;
  case EXPR_CALL:
    print_call(out, e);
    return;
  case EXPR_LOAD:
    print_load(out, e);
    return;
  case EXPR_PRODUCER_LOAD:
    print_pload(out, e->u.pload.tensor->name, e->u.pload.n, e->u.pload.indices);
    return;
  case EXPR_REDUCE:
    print_reduce(out, e);
    return;
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- statements ---- */

/* TVM annotates a variable with its type where it is first printed (`for (i: int32, ...`,
 * `IterVar(threadIdx.x: int32, ...`) and writes the bare name after that; seeds/000_*.txt
 * shows a second attr on one thread variable as `IterVar(threadIdx.x, [0:32], ...)`. The
 * printer remembers the variables one ir_print_stmt call has annotated. */
typedef struct Printer {
  StrBuf *out;
  const Var **seen;
  int nseen, cap;
  const CommReducer **reducers; /* meta[tir.CommReducer][i], in order of first print */
  int nreducers, cap_reducers;
} Printer;

/* Whether v was annotated already; marks it annotated. */
static bool seen_before(Printer *p, const Var *v) {
  for (int i = 0; i < p->nseen; i++)
    if (p->seen[i] == v) return true;
  VEC_GROW(NULL, p->seen, p->cap, p->nseen + 1);
  p->seen[p->nseen++] = v;
  return false;
}

static void print_def(Printer *p, const Var *v) {
  sb_puts(p->out, v->name);
  if (seen_before(p, v)) return;
  sb_puts(p->out, ": ");
  put_dtype(p->out, v->dtype);
}

static void indent_to(Printer *p, int indent) {
  for (int i = 0; i < indent; i++) sb_puts(p->out, "  ");
}

static void print_stmt(Printer *p, const Stmt *s, int indent);

/* ` {`, the body one level in, and `}` on its own line; the caller ends the line. */
static void print_block(Printer *p, const Stmt *body, int indent) {
  sb_puts(p->out, " {\n");
  print_stmt(p, body, indent + 1);
  indent_to(p, indent);
  sb_putc(p->out, '}');
}

/* attr and allocate cover a sequence with braces, and a single statement by `;` and that
 * statement at the same indentation (seeds/000_*.txt: runs of `allocate(...);` lines). */
static void print_covered(Printer *p, const Stmt *body, int indent) {
  if (body->kind == STMT_SEQ) {
    print_block(p, body, indent);
    sb_putc(p->out, '\n');
  } else {
    sb_puts(p->out, ";\n");
    print_stmt(p, body, indent);
  }
}

static const char *for_kind_name(ForKind k) {
  switch (k) {
  case FOR_SERIAL:
    return "serial";
  case FOR_PARALLEL:
    return "parallel";
  case FOR_VECTORIZED:
    return "vectorized";
  case FOR_UNROLLED:
    return "unroll";
  case FOR_THREAD_BINDING:
    return "thread_binding";
  }
  TES_UNREACHABLE();
}

static void print_for(Printer *p, const Stmt *s, int indent) {
  sb_puts(p->out, "for (");
  print_def(p, s->u.for_.var);
  sb_puts(p->out, ", ");
  ir_print_expr(p->out, s->u.for_.min);
  sb_puts(p->out, ", ");
  ir_print_expr(p->out, s->u.for_.extent);
  sb_putc(p->out, ')');
  if (s->u.for_.fkind != FOR_SERIAL) sb_printf(p->out, " \"%s\"", for_kind_name(s->u.for_.fkind));
  print_block(p, s->u.for_.body, indent);
  sb_putc(p->out, '\n');
}

static void print_if(Printer *p, const Stmt *s, int indent) {
  sb_puts(p->out, "if ");
  ir_print_expr(p->out, s->u.if_.cond);
  print_block(p, s->u.if_.then, indent);
  if (s->u.if_.orelse) {
    sb_puts(p->out, " else");
    print_block(p, s->u.if_.orelse, indent);
  }
  sb_putc(p->out, '\n');
}

static void print_realize(Printer *p, const Stmt *s, int indent) {
  sb_printf(p->out, "realize %s(", s->u.realize.tensor->name);
  for (int i = 0; i < s->u.realize.ndim; i++) {
    sb_puts(p->out, i ? ", [" : "[");
    ir_print_expr(p->out, s->u.realize.bounds[i].min);
    sb_puts(p->out, ", ");
    ir_print_expr(p->out, s->u.realize.bounds[i].extent);
    sb_putc(p->out, ']');
  }
  sb_putc(p->out, ')');
  if (s->u.realize.condition && !ir_is_const_int(s->u.realize.condition, 1)) {
    sb_puts(p->out, " if ");
    ir_print_expr(p->out, s->u.realize.condition);
  }
  print_block(p, s->u.realize.body, indent);
  sb_putc(p->out, '\n');
}

/* allocate(B.local: Pointer(local float32), float32, [4]), storage_scope = local; */
static void print_allocate(Printer *p, const Stmt *s, int indent) {
  const char *scope = s->u.alloc.scope && *s->u.alloc.scope ? s->u.alloc.scope : "global";
  const Var *v = s->u.alloc.buffer_var;
  sb_printf(p->out, "allocate(%s", v->name);
  if (!seen_before(p, v)) {
    sb_printf(p->out, ": Pointer(%s ", scope);
    put_dtype(p->out, s->u.alloc.dtype);
    sb_putc(p->out, ')');
  }
  sb_puts(p->out, ", ");
  put_dtype(p->out, s->u.alloc.dtype);
  sb_puts(p->out, ", [");
  print_list(p->out, s->u.alloc.ndim, s->u.alloc.extents);
  sb_printf(p->out, "]), storage_scope = %s", scope);
  if (s->u.alloc.condition && !ir_is_const_int(s->u.alloc.condition, 1)) {
    sb_puts(p->out, " if ");
    ir_print_expr(p->out, s->u.alloc.condition);
  }
  print_covered(p, s->u.alloc.body, indent);
}

static const char *iter_kind_name(IterVarKind k) {
  switch (k) {
  case ITER_DATA_PAR:
    return "DataPar";
  case ITER_REDUCE:
    return "CommReduce";
  /* TVM's vthread is a thread index too, told apart only by its tag */
  case ITER_THREAD:
  case ITER_VTHREAD:
    return "ThreadIndex";
  case ITER_OPAQUE:
    return "Opaque";
  }
  TES_UNREACHABLE();
}

/* [min:end], TVM's slice form of a Range (seeds/000_*.txt: `[0:1024]`). */
static void print_range(Printer *p, Range r) {
  int64_t min, ext;
  sb_putc(p->out, '[');
  ir_print_expr(p->out, r.min);
  sb_putc(p->out, ':');
  if (ir_is_const_int(r.min, 0)) {
    ir_print_expr(p->out, r.extent);
  } else if (ir_as_int(r.min, &min) && ir_as_int(r.extent, &ext)) {
    sb_printf(p->out, "%" PRId64, min + ext);
  } else {
    sb_putc(p->out, '(');
    ir_print_expr(p->out, r.min);
    sb_puts(p->out, " + ");
    ir_print_expr(p->out, r.extent);
    sb_putc(p->out, ')');
  }
  sb_putc(p->out, ']');
}

/* IterVar(threadIdx.x: int32, (nullptr), "ThreadIndex", "threadIdx.x") */
static void print_itervar(Printer *p, const IterVar *iv) {
  sb_puts(p->out, "IterVar(");
  print_def(p, iv->var);
  sb_puts(p->out, ", ");
  if (iv->dom.min)
    print_range(p, iv->dom);
  else
    sb_puts(p->out, "(nullptr)");
  sb_printf(p->out, ", \"%s\", ", iter_kind_name(iv->kind));
  print_string(p->out, iv->thread_tag ? iv->thread_tag : "");
  sb_putc(p->out, ')');
}

static void print_attr_node(Printer *p, AttrNodeKind k, const void *node) {
  switch (k) {
  case ATTR_NODE_NONE:
    sb_puts(p->out, "(nullptr)");
    return;
  case ATTR_NODE_EXPR:
    ir_print_expr(p->out, node);
    return;
  case ATTR_NODE_ITERVAR:
    print_itervar(p, node);
    return;
  case ATTR_NODE_VAR:
    sb_puts(p->out, ((const Var *)node)->name);
    return;
  case ATTR_NODE_BUFFER:
    sb_puts(p->out, ((const Buffer *)node)->name);
    return;
  case ATTR_NODE_TENSOR:
    sb_puts(p->out, ((const Tensor *)node)->name);
    return;
  case ATTR_NODE_COMMREDUCER: {
    /* TVM prints the combiner into its meta section and refers to it by index */
    int i = 0;
    while (i < p->nreducers && p->reducers[i] != node) i++;
    if (i == p->nreducers) {
      VEC_GROW(NULL, p->reducers, p->cap_reducers, p->nreducers + 1);
      p->reducers[p->nreducers++] = node;
    }
    sb_printf(p->out, "meta[tir.CommReducer][%d]", i);
    return;
  }
  case ATTR_NODE_BUFFER_BIND: {
    const BufferBind *bb = node;
    sb_printf(p->out, "[buffer(%s), %s]", bb->buffer->name, bb->tensor->name);
    return;
  }
  }
  TES_UNREACHABLE();
}

/* attr [IterVar(...)] "thread_extent" = 16; */
static void print_attr(Printer *p, const Stmt *s, int indent) {
  sb_puts(p->out, "attr [");
  print_attr_node(p, s->u.attr.nkind, s->u.attr.node);
  sb_puts(p->out, "] ");
  print_string(p->out, s->u.attr.key);
  sb_puts(p->out, " = ");
  ir_print_expr(p->out, s->u.attr.value);
  print_covered(p, s->u.attr.body, indent);
}

/* `let x: int32 = v` and the body on the next line at the same indentation (seeds/000_*.txt). */
static void print_let(Printer *p, const Stmt *s, int indent) {
  sb_puts(p->out, "let ");
  print_def(p, s->u.let.var);
  sb_puts(p->out, " = ");
  ir_print_expr(p->out, s->u.let.value);
  sb_putc(p->out, '\n');
  print_stmt(p, s->u.let.body, indent);
}

static void print_assert(Printer *p, const Stmt *s, int indent) {
  sb_puts(p->out, "assert(");
  ir_print_expr(p->out, s->u.assert_.cond);
  sb_puts(p->out, ", ");
  ir_print_expr(p->out, s->u.assert_.msg);
  sb_puts(p->out, ");\n");
  print_stmt(p, s->u.assert_.body, indent);
}

static void print_store(Printer *p, const Stmt *s) {
  sb_printf(p->out, "%s[", s->u.store.buf->name);
  ir_print_expr(p->out, s->u.store.index);
  sb_puts(p->out, "] = ");
  ir_print_expr(p->out, s->u.store.value);
  if (s->u.store.predicate) {
    sb_puts(p->out, " if ");
    ir_print_expr(p->out, s->u.store.predicate);
  }
  sb_putc(p->out, '\n');
}

static void print_stmt(Printer *p, const Stmt *s, int indent) {
  if (s->kind != STMT_SEQ) indent_to(p, indent);
  switch (s->kind) {
  case STMT_FOR:
    print_for(p, s, indent);
    return;
  case STMT_IF:
    print_if(p, s, indent);
    return;
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) print_stmt(p, s->u.seq.items[i], indent);
    return;
  case STMT_STORE:
    print_store(p, s);
    return;
  case STMT_PROVIDE:
    print_pload(p->out, s->u.provide.tensor->name, s->u.provide.n, s->u.provide.indices);
    sb_puts(p->out, " = ");
    ir_print_expr(p->out, s->u.provide.value);
    sb_putc(p->out, '\n');
    return;
  case STMT_REALIZE:
    print_realize(p, s, indent);
    return;
  case STMT_ALLOCATE:
    print_allocate(p, s, indent);
    return;
  case STMT_ATTR:
    print_attr(p, s, indent);
    return;
  case STMT_LET:
    print_let(p, s, indent);
    return;
  case STMT_ASSERT:
    print_assert(p, s, indent);
    return;
  case STMT_EVALUATE:
    ir_print_expr(p->out, s->u.eval.value);
    sb_putc(p->out, '\n');
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

void ir_print_stmt(StrBuf *out, const Stmt *s, int indent) {
  Printer p = {out, NULL, 0, 0, NULL, 0, 0};
  print_stmt(&p, s, indent);
  free(p.seen);
  free(p.reducers);
}

void ir_print_primfn(StrBuf *out, const char *name, int nparams, Buffer *const *params,
                     const Stmt *body) {
  char dt[32];
  sb_printf(out, "@%s = primfn(", name);
  for (int i = 0; i < nparams; i++) {
    const Buffer *b = params[i];
    sb_printf(out, "%s%s: Buffer(%s, [", i ? ", " : "", b->name, dt_name(b->dtype, dt));
    for (int d = 0; d < b->ndim; d++) {
      if (d) sb_puts(out, ", ");
      ir_print_expr(out, b->shape[d]);
    }
    sb_puts(out, "])");
  }
  sb_puts(out, ") {\n");
  ir_print_stmt(out, body, 1);
  sb_puts(out, "}\n");
}

/* ---- the te layer's objects (what `print(s.stages)` shows; lowered IR never does) ---- */

static void print_expr_list(StrBuf *out, int n, Expr *const *xs) {
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(out, ", ");
    ir_print_expr(out, xs[i]);
  }
}

static void print_itervar_list(StrBuf *out, int n, IterVar *const *ivs) {
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(out, ", ");
    ir_print_itervar(out, ivs[i]);
  }
}

/* TVM's IterVar printer: the name, the range if known, the thread tag if any. */
void ir_print_itervar(StrBuf *out, const IterVar *iv) {
  sb_printf(out, "iter_var(%s, ", iv->var->name);
  if (iv->dom.min) {
    sb_puts(out, "range(min=");
    ir_print_expr(out, iv->dom.min);
    sb_puts(out, ", ext=");
    ir_print_expr(out, iv->dom.extent);
    sb_putc(out, ')');
  }
  if (iv->thread_tag && iv->thread_tag[0]) sb_printf(out, ", %s", iv->thread_tag);
  sb_putc(out, ')');
}

void ir_print_op(StrBuf *out, const Operation *op) {
  switch (op->kind) {
  case OP_PLACEHOLDER:
    sb_printf(out, "placeholder(%s, %p)", op->name, (const void *)op);
    return;
  case OP_COMPUTE:
    sb_printf(out, "compute(%s, body=[", op->name);
    print_expr_list(out, op->noutputs, op->body);
    sb_puts(out, "], axis=[");
    print_itervar_list(out, op->naxis, op->axis);
    sb_puts(out, "], reduce_axis=[");
    print_itervar_list(out, op->nreduce, op->reduce_axis);
    sb_printf(out, "], tag=%s, attrs={})", op->tag);
    return;
  case OP_EXTERN:
    sb_printf(out, "extern(%s, %p)", op->name, (const void *)op);
    return;
  case OP_SCAN:
    sb_printf(out, "scan(%s, %p)", op->name, (const void *)op);
    return;
  }
  TES_UNREACHABLE();
}

static void print_var_names(StrBuf *out, int n, Var *const *vars) {
  for (int i = 0; i < n; i++) sb_printf(out, "%s%s", i ? ", " : "", vars[i]->name);
}

void ir_print_comm_reducer(StrBuf *out, const CommReducer *c) {
  sb_puts(out, "comm_reducer(result=[");
  print_expr_list(out, c->n, c->result);
  sb_puts(out, "], lhs=[");
  print_var_names(out, c->n, c->lhs);
  sb_puts(out, "], rhs=[");
  print_var_names(out, c->n, c->rhs);
  sb_puts(out, "], identity_element=[");
  print_expr_list(out, c->n, c->identity);
  sb_puts(out, "])");
}
