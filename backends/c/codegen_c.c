/* codegen_c.c: C source of lowered IR (backends/c/codegen_c.h). One pass over the tree,
 * printing as it goes. Variables get C names from their own (dots become underscores), with a
 * suffix when two different variables would print the same. A store of a vector value becomes
 * a loop over its lanes in which every vector expression is printed for lane `_lane`: a ramp
 * as base + stride * _lane, a broadcast as its scalar, a vector let as its value. Integer
 * division follows the IR's meaning through two helpers (floordiv, floormod); if_then_else is
 * C's ?:, which evaluates only the branch taken, as the IR wants. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/c/c_printer.h"
#include "backends/c/codegen_c.h"
#include "ir/strbuf.h"

/* ---- names and types ---- */

const char *cp_name_of(CPrinter *p, const Var *v) {
  for (int i = 0; i < p->nnames; i++)
    if (p->names[i].var == v) return p->names[i].name;
  StrBuf b = STRBUF_INIT;
  if (isdigit((unsigned char)v->name[0])) sb_putc(&b, '_');
  for (const char *s = v->name; *s; s++) sb_putc(&b, isalnum((unsigned char)*s) ? *s : '_');
  size_t base = b.len;
  for (int k = 1;; k++) {
    bool taken = false;
    for (int i = 0; i < p->nnames && !taken; i++)
      taken = strcmp(p->names[i].name, sb_cstr(&b)) == 0;
    if (!taken) break;
    b.len = base;
    sb_printf(&b, "_%d", k);
  }
  p->names = xrealloc(p->names, (size_t)(p->nnames + 1) * sizeof *p->names);
  p->names[p->nnames] = (CName){v, sb_take(&b, NULL)};
  return p->names[p->nnames++].name;
}

const char *cp_type(const CPrinter *p, DType t) {
  return t.code == DT_FLOAT && t.bits == 16 && p->dialect->float16 ? p->dialect->float16
                                                                     : cp_c_type(t);
}

void cp_line(CPrinter *p, const char *fmt, ...) {
  for (int i = 0; i < p->indent; i++) sb_puts(&p->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&p->out, fmt, ap);
  va_end(ap);
}

/* ---- expressions ---- */

static void expr(CPrinter *p, const Expr *e, bool lane);

void cp_put(CPrinter *p, const char *s) { sb_puts(&p->out, s); }

static void literal(CPrinter *p, const Expr *e) {
  DType t = dt_element(e->dtype);
  if (e->kind == EXPR_INT) {
    if (t.code == DT_BOOL) return cp_put(p, e->u.ival ? "true" : "false");
    if (t.code == DT_INT && t.bits == 32) return sb_printf(&p->out, "%lld", (long long)e->u.ival);
    if (t.code == DT_UINT)
      return sb_printf(&p->out, "((%s)%lluu)", cp_type(p, t), (unsigned long long)e->u.ival);
    return sb_printf(&p->out, "((%s)%lld)", cp_type(p, t), (long long)e->u.ival);
  }
  double v = e->u.fval;
  if (isnan(v)) return sb_printf(&p->out, "((%s)NAN)", cp_type(p, t));
  if (isinf(v)) return sb_printf(&p->out, "((%s)%sINFINITY)", cp_type(p, t), v < 0 ? "-" : "");
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", v);
  if (!strpbrk(buf, ".e")) strcat(buf, ".0");
  if (t.bits == 32) return sb_printf(&p->out, "%sf", buf);
  if (t.bits == 16) return sb_printf(&p->out, "((%s)%s)", cp_type(p, t), buf);
  cp_put(p, buf);
}

static void binary(CPrinter *p, const Expr *e, bool lane) {
  static const char *const ops[EXPR_KIND_COUNT] = {
      [EXPR_ADD] = "+", [EXPR_SUB] = "-",  [EXPR_MUL] = "*", [EXPR_DIV] = "/", [EXPR_MOD] = "%",
      [EXPR_EQ] = "==", [EXPR_NE] = "!=",  [EXPR_LT] = "<",  [EXPR_LE] = "<=", [EXPR_GT] = ">",
      [EXPR_GE] = ">=", [EXPR_AND] = "&&", [EXPR_OR] = "||"};
  const Expr *a = e->u.bin.a, *b = e->u.bin.b;
  DType t = dt_element(a->dtype);
  bool floor_op = e->kind == EXPR_FLOORDIV || e->kind == EXPR_FLOORMOD;
  if (e->kind == EXPR_MIN || e->kind == EXPR_MAX) {
    sb_printf(&p->out, "tes_%s(", e->kind == EXPR_MIN ? "min" : "max");
  } else if (floor_op && dt_is_float(t)) {
    cp_put(p, e->kind == EXPR_FLOORDIV ? "floor(" : "tes_floormodf(");
  } else if (floor_op && t.code == DT_INT) {
    sb_printf(&p->out, "((%s)tes_%s(", cp_type(p, t),
              e->kind == EXPR_FLOORDIV ? "floordiv" : "floormod");
  } else if (e->kind == EXPR_MOD && dt_is_float(t)) {
    cp_put(p, "fmod(");
  } else {
    const char *op = floor_op ? (e->kind == EXPR_FLOORDIV ? "/" : "%") : ops[e->kind];
    cp_put(p, "(");
    expr(p, a, lane);
    sb_printf(&p->out, " %s ", op);
    expr(p, b, lane);
    cp_put(p, ")");
    return;
  }
  expr(p, a, lane);
  cp_put(p, e->kind == EXPR_FLOORDIV && dt_is_float(t) ? " / " : ", ");
  expr(p, b, lane);
  cp_put(p, floor_op && t.code == DT_INT ? "))" : ")");
}

/* tir.NAME -> a libm function (the double one; float gets its f) or an operator. */
static const char *const libm_names[] = {
    "exp",   "exp2", "exp10", "log",       "log2",  "log10", "log1p", "sqrt", "tanh",
    "erf",   "sin",  "cos",   "tan",       "sinh",  "cosh",  "asin",  "acos", "atan",
    "floor", "ceil", "round", "nearbyint", "trunc", "fabs",  "pow",   "fmod",
    "acosh", "asinh", "atanh", "atan2"};

/* (args[first], ..., args[end - 1]) */
static void call_arg_range(CPrinter *p, const Expr *e, int first, int end, bool lane) {
  cp_put(p, "(");
  for (int i = first; i < end; i++) {
    if (i > first) cp_put(p, ", ");
    expr(p, e->u.call.args[i], lane);
  }
  cp_put(p, ")");
}

static void call_args(CPrinter *p, const Expr *e, int first, bool lane) {
  call_arg_range(p, e, first, e->u.call.n, lane);
}

static bool math_call(CPrinter *p, const Expr *e, const char *fn, bool lane) {
  for (size_t i = 0; i < sizeof libm_names / sizeof *libm_names; i++) {
    if (strcmp(fn, libm_names[i]) != 0) continue;
    DType t = dt_element(e->dtype);
    if (t.bits == 16) sb_printf(&p->out, "((%s)", cp_type(p, t));
    sb_printf(&p->out, "%s%s", fn, t.bits == 64 ? "" : "f");
    call_args(p, e, 0, lane);
    if (t.bits == 16) cp_put(p, ")");
    return true;
  }
  return false;
}

static void call(CPrinter *p, const Expr *e, bool lane) {
  if (p->dialect->call && p->dialect->call(p, e)) return;
  const char *op = e->u.call.op, *fn = strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
  Expr *const *a = e->u.call.args;
  int n = e->u.call.n;
  static const char *const bin_ops[][2] = {{"shift_left", "<<"},
                                           {"shift_right", ">>"},
                                           {"bitwise_and", "&"},
                                           {"bitwise_or", "|"},
                                           {"bitwise_xor", "^"}};
  bool by_name = strcmp(fn, "call_extern") == 0 || strcmp(fn, "call_pure_extern") == 0;
  if (e->u.call.ckind == CALL_EXTERN || by_name) {
    bool named = by_name && n >= 1 && a[0]->kind == EXPR_STR;
    cp_put(p, named ? a[0]->u.str : fn);
    return call_args(p, e, named ? 1 : 0, lane);
  }
  if ((strcmp(fn, "likely") == 0 || strcmp(fn, "bitwise_not") == 0 || strcmp(fn, "isnan") == 0 ||
       strcmp(fn, "popcount") == 0 || strcmp(fn, "sigmoid") == 0 || strcmp(fn, "rsqrt") == 0) &&
      n == 1) {
    const char *pre = strcmp(fn, "likely") == 0        ? "("
                      : strcmp(fn, "bitwise_not") == 0 ? "(~"
                      : strcmp(fn, "isnan") == 0       ? "isnan("
                      : strcmp(fn, "popcount") == 0    ? "__builtin_popcountll("
                      : strcmp(fn, "sigmoid") == 0     ? "(1 / (1 + exp(-"
                                                       : "(1 / sqrt(";
    cp_put(p, pre);
    expr(p, a[0], lane);
    cp_put(p, strcmp(fn, "sigmoid") == 0 ? ")))" : strcmp(fn, "rsqrt") == 0 ? "))" : ")");
    return;
  }
  for (size_t i = 0; i < sizeof bin_ops / sizeof *bin_ops; i++)
    if (strcmp(fn, bin_ops[i][0]) == 0 && n == 2) {
      cp_put(p, "(");
      expr(p, a[0], lane);
      sb_printf(&p->out, " %s ", bin_ops[i][1]);
      expr(p, a[1], lane);
      cp_put(p, ")");
      return;
    }
  if (strcmp(fn, "if_then_else") == 0 && n == 3) {
    cp_put(p, "(");
    expr(p, a[0], lane);
    cp_put(p, " ? ");
    expr(p, a[1], lane);
    cp_put(p, " : ");
    expr(p, a[2], lane);
    cp_put(p, ")");
    return;
  }
  if (strcmp(fn, "address_of") == 0 && n == 1) {
    cp_put(p, "(&(");
    expr(p, a[0], lane);
    cp_put(p, "))");
    return;
  }
  /* tir.InjectPrefetch's hint (TVM's C back end has none): gcc's builtin, read, locality */
  if (strcmp(fn, "prefetch") == 0 && n == 4) {
    cp_put(p, "__builtin_prefetch");
    return call_arg_range(p, e, 0, 3, lane);
  }
  /* Buffer.access_ptr: the address of element offset of data, as T's (TVM's CodeGenC) */
  if (strcmp(fn, "tvm_access_ptr") == 0 && n == 5 && a[1]->kind == EXPR_VAR) {
    sb_printf(&p->out, "((%s*)%s + ", cp_type(p, a[0]->dtype), cp_name_of(p, a[1]->u.var));
    expr(p, a[2], lane);
    cp_put(p, ")");
    return;
  }
  if (!math_call(p, e, fn, lane)) ir_error(p->diag, "not supported yet: @%s on the %s target", op,
                                    p->dialect->target);
}

static void load(CPrinter *p, const Expr *e, bool lane) {
  const Expr *pred = e->u.load.predicate;
  if (pred) {
    cp_put(p, "(");
    expr(p, pred, lane);
    cp_put(p, " ? ");
  }
  sb_printf(&p->out, "%s[", cp_name_of(p, e->u.load.buf->data));
  expr(p, e->u.load.index, lane);
  if (e->u.load.buf->elem_offset) {
    cp_put(p, " + ");
    expr(p, e->u.load.buf->elem_offset, false);
  }
  cp_put(p, "]");
  if (pred) sb_printf(&p->out, " : (%s)0)", cp_type(p, dt_element(e->dtype)));
}

/* ramp(base, stride, n) at lane p->lane_at: base + stride * lane, folded for a constant stride. */
static void ramp_at(CPrinter *p, const Expr *e) {
  int64_t stride;
  bool known = ir_as_int(e->u.ramp.stride, &stride);
  if (known && stride * p->lane_at == 0) return expr(p, e->u.ramp.base, false);
  cp_put(p, "(");
  expr(p, e->u.ramp.base, false);
  if (known) return sb_printf(&p->out, " + %lld)", (long long)(stride * p->lane_at));
  cp_put(p, " + ");
  expr(p, e->u.ramp.stride, false);
  sb_printf(&p->out, " * %d)", p->lane_at);
}

static const Expr *vector_let(CPrinter *p, const Var *v) {
  for (int i = p->nlets - 1; i >= 0; i--)
    if (p->lets[i].var == v) return p->lets[i].value;
  return NULL;
}

static void push_let(CPrinter *p, const Var *v, const Expr *value) {
  p->lets = xrealloc(p->lets, (size_t)(p->nlets + 1) * sizeof *p->lets);
  p->lets[p->nlets++] = (CVecLet){v, value};
}

/* e at lane `_lane` (or p->lane_at) when `lane` and e is a vector; as it is otherwise. */
static void expr(CPrinter *p, const Expr *e, bool lane) {
  if (p->dialect->expr && p->dialect->expr(p, e, lane)) return;
  bool vec = lane && e->dtype.lanes > 1;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
    return literal(p, e);
  case EXPR_STR:
    return sb_printf(&p->out, "\"%s\"", e->u.str);
  case EXPR_VAR: {
    if (p->dialect->var && p->dialect->var(p, e->u.var)) return;
    const Expr *v = vec ? vector_let(p, e->u.var) : NULL;
    return v ? expr(p, v, lane) : cp_put(p, cp_name_of(p, e->u.var));
  }
  case EXPR_CAST:
    sb_printf(&p->out, "((%s)", cp_type(p, dt_element(e->dtype)));
    expr(p, e->u.unary.a, lane);
    return cp_put(p, ")");
  IR_CASE_BINARY:
    return binary(p, e, lane);
  case EXPR_NOT:
    cp_put(p, "(!");
    expr(p, e->u.unary.a, lane);
    return cp_put(p, ")");
  case EXPR_SELECT:
    cp_put(p, "(");
    expr(p, e->u.select.cond, lane);
    cp_put(p, " ? ");
    expr(p, e->u.select.t, lane);
    cp_put(p, " : ");
    expr(p, e->u.select.f, lane);
    return cp_put(p, ")");
  case EXPR_RAMP:
    if (vec && p->lane_at >= 0) return ramp_at(p, e);
    cp_put(p, "(");
    expr(p, e->u.ramp.base, false);
    cp_put(p, " + ");
    expr(p, e->u.ramp.stride, false);
    return cp_put(p, vec ? " * _lane)" : " * 0)");
  case EXPR_BROADCAST:
    return expr(p, e->u.bcast.value, false);
  case EXPR_LET: /* lanes substitute the value; a scalar let is a GNU statement expression */
    if (vec) {
      push_let(p, e->u.let.var, e->u.let.value);
      expr(p, e->u.let.body, lane);
      p->nlets--;
      return;
    }
    sb_printf(&p->out, "({ %s %s = ", cp_type(p, e->u.let.value->dtype), cp_name_of(p, e->u.let.var));
    expr(p, e->u.let.value, false);
    cp_put(p, "; ");
    expr(p, e->u.let.body, false);
    return cp_put(p, "; })");
  case EXPR_CALL:
    return call(p, e, lane);
  case EXPR_LOAD:
    return load(p, e, lane);
  case EXPR_PRODUCER_LOAD:
  case EXPR_REDUCE:
    ir_error(p->diag, "not supported yet: %s expression left by lowering on the %s target",
             ir_expr_kind_names[e->kind], p->dialect->target);
    return;
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- statements ---- */

static void stmt(CPrinter *p, const Stmt *s);

void cp_block(CPrinter *p, const Stmt *s) {
  p->indent++;
  stmt(p, s);
  p->indent--;
}

static bool failing(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind == STMT_ALLOCATE || s->kind == STMT_ASSERT;
}

/* Whether s holds a statement printed as a check that returns (an allocation, an assert). */
static bool may_fail(const Stmt *s) { return ir_stmt_any(s, NULL, failing, NULL); }

/* The start of a check's failure: a return, or inside a parallel loop the status variable set
 * to code, then `} else {` before what the check guards (closed by fail_end). */
static void fail_begin(CPrinter *p, int code) {
  if (!p->par_status) {
    sb_printf(&p->out, "return %d;", code);
    return;
  }
  cp_put(p, "{\n");
  p->indent++;
  cp_line(p, "#pragma omp atomic write\n");
  cp_line(p, "_tes_status%d = %d;", p->par_status, code);
  p->indent--;
}

static void fail_guarded(CPrinter *p, const Stmt *body) {
  if (!p->par_status) {
    cp_put(p, "\n");
    stmt(p, body);
    return;
  }
  cp_put(p, "\n");
  cp_line(p, "} else {\n");
  cp_block(p, body);
  cp_line(p, "}\n");
}

static void for_loop(CPrinter *p, const Stmt *s) {
  const char *i = cp_name_of(p, s->u.for_.var), *t = cp_type(p, s->u.for_.var->dtype);
  if (s->u.for_.fkind == FOR_THREAD_BINDING) {
    ir_error(p->diag, "not supported yet: loop '%s' bound to a GPU thread on the %s target",
             s->u.for_.var->name, p->dialect->target);
    return;
  }
  /* an outermost parallel loop whose body may fail keeps the first failure in a status
   * variable, returned after the loop */
  int status = 0;
  if (s->u.for_.fkind == FOR_PARALLEL && !p->par_status && may_fail(s->u.for_.body)) {
    status = p->par_status = ++p->npar;
    cp_line(p, "int32_t _tes_status%d = 0;\n", status);
  }
  if (s->u.for_.fkind == FOR_PARALLEL) cp_line(p, "#pragma omp parallel for\n");
  if (s->u.for_.fkind == FOR_UNROLLED) cp_line(p, "%s\n", p->dialect->unroll_pragma);
  cp_line(p, "for (%s %s = ", t, i);
  expr(p, s->u.for_.min, false);
  sb_printf(&p->out, "; %s < ", i);
  if (!ir_is_const_int(s->u.for_.min, 0)) {
    expr(p, s->u.for_.min, false);
    cp_put(p, " + ");
  }
  expr(p, s->u.for_.extent, false);
  sb_printf(&p->out, "; ++%s) {\n", i);
  cp_block(p, s->u.for_.body);
  cp_line(p, "}\n");
  if (status) {
    cp_line(p, "if (_tes_status%d) return _tes_status%d;\n", status, status);
    p->par_status = 0;
  }
}

static void store(CPrinter *p, const Stmt *s) {
  const Expr *v = s->u.store.value, *pred = s->u.store.predicate;
  bool vec = v->dtype.lanes > 1;
  if (vec) {
    cp_line(p, "for (int32_t _lane = 0; _lane < %d; ++_lane) {\n", v->dtype.lanes);
    p->indent++;
  }
  if (pred) {
    cp_line(p, "if (");
    expr(p, pred, vec);
    cp_put(p, ") ");
  } else {
    cp_line(p, "%s", "");
  }
  sb_printf(&p->out, "%s[", cp_name_of(p, s->u.store.buf->data));
  expr(p, s->u.store.index, vec);
  if (s->u.store.buf->elem_offset) {
    cp_put(p, " + ");
    expr(p, s->u.store.buf->elem_offset, false);
  }
  cp_put(p, "] = ");
  expr(p, v, vec);
  cp_put(p, ";\n");
  if (vec) {
    p->indent--;
    cp_line(p, "}\n");
  }
}

/* Opens a block when v was declared before in this function (C forbids declaring one name
 * twice in a scope; in a block the second declaration shadows the first); true if it did. */
static bool declare(CPrinter *p, const Var *v) {
  for (int i = 0; i < p->ndeclared; i++)
    if (p->declared[i] == v) {
      cp_line(p, "{\n");
      p->indent++;
      return true;
    }
  p->declared = xrealloc(p->declared, (size_t)(p->ndeclared + 1) * sizeof *p->declared);
  p->declared[p->ndeclared++] = v;
  return false;
}

static void end_declared(CPrinter *p, bool block) {
  if (!block) return;
  p->indent--;
  cp_line(p, "}\n");
}

static void allocate(CPrinter *p, const Stmt *s) {
  bool block = declare(p, s->u.alloc.buffer_var);
  const char *name = cp_name_of(p, s->u.alloc.buffer_var), *t = cp_type(p, dt_element(s->u.alloc.dtype));
  cp_line(p, "%s *%s = (%s *)aligned_alloc(64, (((size_t)%d * sizeof(%s)", t, name, t,
       s->u.alloc.dtype.lanes, t);
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    cp_put(p, " * ");
    expr(p, s->u.alloc.extents[i], false);
  }
  sb_printf(&p->out, " + 63) / 64 * 64)); /* %s */\n",
            s->u.alloc.scope ? s->u.alloc.scope : "global");
  cp_line(p, "if (!%s) ", name);
  fail_begin(p, -1);
  fail_guarded(p, s->u.alloc.body);
  cp_line(p, "free(%s);\n", name);
  end_declared(p, block);
}

static void let_stmt(CPrinter *p, const Stmt *s) {
  const Expr *v = s->u.let.value;
  if (v->dtype.lanes > 1) {
    push_let(p, s->u.let.var, v);
    stmt(p, s->u.let.body);
    p->nlets--;
    return;
  }
  bool block = declare(p, s->u.let.var);
  cp_line(p, "%s %s = ", cp_type(p, v->dtype), cp_name_of(p, s->u.let.var));
  expr(p, v, false);
  cp_put(p, ";\n");
  stmt(p, s->u.let.body);
  end_declared(p, block);
}

static void if_stmt(CPrinter *p, const Stmt *s) {
  cp_line(p, "if (");
  expr(p, s->u.if_.cond, false);
  cp_put(p, ") {\n");
  cp_block(p, s->u.if_.then);
  if (s->u.if_.orelse) {
    cp_line(p, "} else {\n");
    cp_block(p, s->u.if_.orelse);
  }
  cp_line(p, "}\n");
}

static void stmt(CPrinter *p, const Stmt *s) {
  if (!s || (p->dialect->stmt && p->dialect->stmt(p, s))) return;
  switch (s->kind) {
  case STMT_FOR:
    return for_loop(p, s);
  case STMT_IF:
    return if_stmt(p, s);
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) stmt(p, s->u.seq.items[i]);
    return;
  case STMT_STORE:
    return store(p, s);
  case STMT_PROVIDE:
  case STMT_REALIZE:
    ir_error(p->diag, "not supported yet: %s statement left by lowering on the %s target",
             ir_stmt_kind_names[s->kind], p->dialect->target);
    return;
  case STMT_ALLOCATE:
    return allocate(p, s);
  case STMT_ATTR:
    if (strcmp(s->u.attr.key, "thread_extent") == 0 || strcmp(s->u.attr.key, "virtual_thread") == 0)
      ir_error(p->diag, "not supported yet: attr \"%s\" on the c target (a GPU schedule)",
               s->u.attr.key);
    cp_line(p, "/* attr %s */\n", s->u.attr.key);
    return stmt(p, s->u.attr.body);
  case STMT_LET:
    return let_stmt(p, s);
  case STMT_ASSERT:
    cp_line(p, "if (!(");
    expr(p, s->u.assert_.cond, false);
    cp_put(p, ")) ");
    fail_begin(p, ++p->nasserts);
    cp_put(p, " /* ");
    if (s->u.assert_.msg && s->u.assert_.msg->kind == EXPR_STR) cp_put(p, s->u.assert_.msg->u.str);
    cp_put(p, " */");
    return fail_guarded(p, s->u.assert_.body);
  case STMT_EVALUATE:
    cp_line(p, "%s", "");
    expr(p, s->u.eval.value, false);
    cp_put(p, ";\n");
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

void cp_expr(CPrinter *p, const Expr *e) { expr(p, e, false); }
void cp_expr_lane(CPrinter *p, const Expr *e, bool lane) { expr(p, e, lane); }

void cp_stmt(CPrinter *p, const Stmt *s) { stmt(p, s); }

CPrinter cp_init(const CDialect *dl, void *user, Diag *d) {
  return (CPrinter){.out = STRBUF_INIT, .diag = d, .dialect = dl, .user = user, .lane_at = -1};
}

void cp_free(CPrinter *p) {
  for (int i = 0; i < p->nnames; i++) free(p->names[i].name);
  free(p->names);
  free(p->lets);
  free(p->declared);
}

/* ---- the function ---- */

static const char prelude[] =
    "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n\n";

void cp_helpers(StrBuf *out, const char *qual) {
  sb_printf(out,
            "#define tes_min(a, b) ((a) < (b) ? (a) : (b))\n"
            "#define tes_max(a, b) ((a) > (b) ? (a) : (b))\n"
            "/* floordiv and floormod round toward minus infinity; / and %% of C truncate */\n"
            "%1$s int64_t tes_floordiv(int64_t a, int64_t b) {\n"
            "  int64_t q = a / b, r = a %% b;\n"
            "  return r != 0 && (r < 0) != (b < 0) ? q - 1 : q;\n}\n"
            "%1$s int64_t tes_floormod(int64_t a, int64_t b) {\n"
            "  int64_t r = a %% b;\n  return r != 0 && (r < 0) != (b < 0) ? r + b : r;\n}\n"
            "%1$s double tes_floormodf(double a, double b) { return a - floor(a / b) * b; }\n\n",
            qual);
}

static void signature(CPrinter *p, const LoweredFunc *f) {
  int nshape = ir_func_shape_vars(f, NULL, 0);
  Var **shape = xmalloc((size_t)(nshape + 1) * sizeof *shape);
  ir_func_shape_vars(f, shape, nshape);
  sb_printf(&p->out, "int32_t %s(", f->name);
  for (int i = 0; i < f->nparams; i++)
    sb_printf(&p->out, "%s%s *restrict %s", i ? ", " : "", cp_c_type(dt_element(f->params[i]->dtype)),
              cp_name_of(p, f->params[i]->data));
  for (int i = 0; i < nshape; i++)
    sb_printf(&p->out, "%s%s %s", f->nparams + i ? ", " : "", cp_c_type(shape[i]->dtype),
              cp_name_of(p, shape[i]));
  cp_put(p, ") {\n");
  free(shape);
}

char *cg_c_source(const LoweredFunc *f, Diag *d) {
  static const CDialect c_dialect = {"c", "#pragma GCC unroll 64", NULL, NULL, NULL, NULL, NULL};
  CPrinter p = cp_init(&c_dialect, NULL, d);
  sb_puts(&p.out, prelude);
  cp_helpers(&p.out, "static inline");
  signature(&p, f);
  cp_block(&p, f->body);
  cp_put(&p, "  return 0;\n}\n");
  cp_free(&p);
  if (diag_failed(d)) {
    sb_free(&p.out);
    return NULL;
  }
  return sb_take(&p.out, NULL);
}
