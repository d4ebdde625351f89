/* instrument_bound_checkers: tir.InstrumentBoundCheckers, run-time checks of buffer accesses
 *   (TVM's pass of that name, which PassContext(config={"tir.instrument_bound_checkers": True})
 *   turns on; the option is "tir.InstrumentBoundCheckers" "enable").
 * Assumes: flat buffers (Load/Store); a buffer is a parameter's (compact, its size the product
 *   of its shape) or an enclosing ALLOCATE's (the product of its extents).
 * Guarantees: with the option off, returns its input. With it on, each statement that reads
 *   or writes a buffer at an index the analyzer cannot prove inside [0, size) (with the loops'
 *   ranges and the conditions around it) is preceded by
 *     assert((0 <= index) && (index < size), "out-of-bounds read of buffer A: index ... is
 *     outside [0, size)")
 *   one for each such access, a load inside an index before the access that uses it. A read in
 *   a branch of if_then_else is checked only when the branch is taken (the check becomes
 *   `!cond || inside`, the lets around it kept); both values of a select are read, and both
 *   are checked. A ramp index is checked at its two ends, a broadcast at its value; a buffer
 *   seen through another element type, or with strides, is not checked, nor is the element
 *   whose address is taken (@tir.address_of: a prefetch past the end is harmless). A failing assert
 *   makes the kernel return its message, which the module call raises as RuntimeError.
 * Why here: after tir.StorageRewrite, so that a size is that of the storage really allocated,
 *   and after tir.UnrollLoop, so that each copy is checked; before tir.VectorizeLoop, while
 *   every index is a scalar: a vectorized loop whose body asserts a condition that differs
 *   across lanes runs lane by lane, a cost a debugging mode can pay. (TVM runs it last, over
 *   vector indices.) */
#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/bounds.h"
#include "ir/pass/pass.h"
#include "ir/printer.h"
#include "ir/support.h"

typedef struct OpenAlloc {
  const Var *data;
  DType dtype;
  Expr *count;
} OpenAlloc;

typedef struct Check {
  Expr *cond, *msg;
} Check;

typedef struct Instrument {
  IrMutator m; /* first: the mutator hooks cast back to Instrument */
  Arena *a;
  const PassCtx *ctx;
  Analyzer *an;
  int nallocs, cap_allocs;
  OpenAlloc *allocs; /* the allocations open here, innermost last */
  /* while the expressions of one statement are read: */
  int nchecks, cap_checks;
  Check *checks;
  int nguards, cap_guards;
  Expr **guards; /* the if_then_else conditions the access runs under (negated for else) */
  int nlets, cap_lets;
  const Expr **lets; /* the EXPR_LETs around the access */
} Instrument;

static void *grow(void *items, int *cap, int n, size_t size) {
  if (n < *cap) return items;
  *cap = *cap ? 2 * *cap : 8;
  return xrealloc(items, (size_t)*cap * size);
}

/* ---- sizes ---- */

/* b's element count in b's own element type, or NULL when it is not known here. */
static Expr *size_of(Instrument *in, const Buffer *b) {
  for (int i = in->nallocs - 1; i >= 0; i--)
    if (in->allocs[i].data == b->data)
      return dt_eq(in->allocs[i].dtype, b->dtype) ? in->allocs[i].count : NULL;
  for (int i = 0; i < in->ctx->nbinds; i++) {
    const Buffer *p = in->ctx->bind_buffers[i];
    if (p->data != b->data) continue;
    if (p->strides || p->elem_offset || !dt_eq(p->dtype, b->dtype)) return NULL;
    return ir_count_of(in->a, p->ndim, p->shape);
  }
  return NULL;
}

/* ---- the checks of one statement ---- */

/* cond as the access sees it: under its guards, inside the lets it reads. */
static Expr *in_context(Instrument *in, Expr *cond) {
  for (int i = in->nguards - 1; i >= 0; i--)
    cond = ir_binary(in->a, EXPR_OR, arith_not(in->a, in->guards[i]), cond);
  for (int i = in->nlets - 1; i >= 0; i--)
    if (ir_expr_uses_var(cond, in->lets[i]->u.let.var))
      cond = ir_let(in->a, in->lets[i]->u.let.var, in->lets[i]->u.let.value, cond);
  return cond;
}

static void add_check(Instrument *in, Expr *cond, Expr *msg) {
  for (int i = 0; i < in->nchecks; i++)
    if (ir_expr_equal(in->checks[i].cond, cond)) return;
  in->checks = grow(in->checks, &in->cap_checks, in->nchecks, sizeof *in->checks);
  in->checks[in->nchecks++] = (Check){cond, msg};
}

static Expr *message(Instrument *in, const Buffer *b, const Expr *index, const Expr *size,
                     bool write) {
  StrBuf s = STRBUF_INIT;
  sb_printf(&s, "out-of-bounds %s of buffer %s: index ", write ? "write" : "read", b->name);
  ir_print_expr(&s, index);
  sb_puts(&s, " is outside [0, ");
  ir_print_expr(&s, size);
  sb_putc(&s, ')');
  Expr *msg = ir_str(in->a, sb_cstr(&s));
  sb_free(&s);
  return msg;
}

/* One scalar index of an access: a check unless the analyzer proves it inside. */
static void check_index(Instrument *in, const Buffer *b, Expr *index, Expr *size, bool write) {
  if (index->dtype.lanes != 1 || !dt_is_int(index->dtype)) return;
  Expr *shown = index, *n = size; /* compared in the wider of the two dtypes: no wrapping */
  if (size->dtype.bits > index->dtype.bits)
    index = arith_cast(in->a, size->dtype, index);
  else if (!dt_eq(size->dtype, index->dtype))
    n = arith_cast(in->a, index->dtype, size);
  Expr *inside = ir_binary(in->a, EXPR_AND,
                           ir_binary(in->a, EXPR_LE, arith_const(in->a, index->dtype, 0), index),
                           ir_binary(in->a, EXPR_LT, index, n));
  if (arith_can_prove(in->an, inside)) return;
  add_check(in, in_context(in, inside), message(in, b, shown, size, write));
}

/* An access at index (scalar, ramp or broadcast) of buffer b. */
static void check_access(Instrument *in, const Buffer *b, Expr *index, bool write) {
  Expr *size = size_of(in, b);
  if (!size) return;
  if (index->kind == EXPR_RAMP) {
    Expr *base = index->u.ramp.base, *stride = index->u.ramp.stride;
    Expr *span = arith_binary(in->a, EXPR_MUL, stride,
                              arith_const(in->a, stride->dtype, index->u.ramp.lanes - 1));
    check_index(in, b, base, size, write);
    check_index(in, b, arith_binary(in->a, EXPR_ADD, base, span), size, write);
  } else if (index->kind == EXPR_BROADCAST) {
    check_index(in, b, index->u.bcast.value, size, write);
  } else {
    check_index(in, b, index, size, write);
  }
}

static Expr *strip_likely(Expr *cond) {
  if (cond->kind == EXPR_CALL && strcmp(cond->u.call.op, "tir.likely") == 0 && cond->u.call.n == 1)
    return cond->u.call.args[0];
  return cond;
}

static void collect(Instrument *in, Expr *e);

/* A branch of if_then_else: read only under its condition. */
static void collect_under(Instrument *in, Expr *cond, Expr *e) {
  Expr *fact = strip_likely(cond);
  in->guards = grow(in->guards, &in->cap_guards, in->nguards, sizeof *in->guards);
  in->guards[in->nguards++] = fact;
  arith_push_constraint(in->an, fact);
  collect(in, e);
  arith_pop_constraint(in->an);
  in->nguards--;
}

static void bind_let(Instrument *in, const Var *v, Expr *value) {
  if (value->kind == EXPR_INT || value->kind == EXPR_VAR)
    arith_bind_value(in->an, v, value);
  else if (dt_is_int(value->dtype) && value->dtype.lanes == 1)
    arith_bind_bound(in->an, v, arith_const_bound(in->an, value));
}

typedef struct Collector {
  IrVisitor v;
  Instrument *in;
} Collector;

static void collect_expr(IrVisitor *v, const Expr *ce) {
  Instrument *in = ((Collector *)v)->in;
  Expr *e = (Expr *)ce; /* read only; the checks share its subtrees */
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.if_then_else") == 0 && e->u.call.n == 3) {
    collect(in, e->u.call.args[0]);
    collect_under(in, e->u.call.args[0], e->u.call.args[1]);
    collect_under(in, arith_not(in->a, strip_likely(e->u.call.args[0])), e->u.call.args[2]);
    return;
  }
  if (e->kind == EXPR_LET) {
    collect(in, e->u.let.value);
    bind_let(in, e->u.let.var, e->u.let.value);
    in->lets = grow(in->lets, &in->cap_lets, in->nlets, sizeof *in->lets);
    in->lets[in->nlets++] = e;
    collect(in, e->u.let.body);
    in->nlets--;
    return;
  }
  /* an address taken (a prefetch's) reads nothing there: only its index's loads are checked */
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.address_of") == 0 && e->u.call.n == 1 &&
      e->u.call.args[0]->kind == EXPR_LOAD)
    return collect(in, e->u.call.args[0]->u.load.index);
  ir_visit_children_expr(v, e); /* an index's own loads are checked first */
  if (e->kind == EXPR_LOAD) check_access(in, e->u.load.buf, e->u.load.index, false);
}

static void collect(Instrument *in, Expr *e) {
  if (!e) return;
  Collector c = {{collect_expr, NULL}, in};
  ir_visit_expr(&c.v, e);
}

/* s preceded by the checks gathered since `first`, which are then dropped. */
static Stmt *guarded(Instrument *in, int first, Stmt *s) {
  for (int i = in->nchecks - 1; i >= first; i--)
    s = ir_assert(in->a, in->checks[i].cond, in->checks[i].msg, s);
  in->nchecks = first;
  return s;
}

/* ---- statements ---- */

/* v's range, and the fact min <= v < min + extent, for the rest of the body */
static void enter_range(Instrument *in, Var *v, Expr *min, Expr *extent) {
  Arena *a = in->a;
  arith_bind(in->an, v, (Range){min, extent});
  Expr *x = ir_varref(a, v);
  arith_push_constraint(
      in->an, ir_binary(a, EXPR_AND, ir_binary(a, EXPR_GE, x, min),
                        ir_binary(a, EXPR_LT, x, arith_binary(a, EXPR_ADD, min, extent))));
}

static Stmt *instrument_for(Instrument *in, Stmt *s) {
  int first = in->nchecks;
  collect(in, s->u.for_.min);
  collect(in, s->u.for_.extent);
  enter_range(in, s->u.for_.var, s->u.for_.min, s->u.for_.extent);
  Stmt *n = ir_mutate_children_stmt(&in->m, s);
  arith_pop_constraint(in->an);
  return guarded(in, first, n);
}

static Stmt *branch(Instrument *in, Expr *fact, Stmt *s) {
  if (!s) return NULL;
  arith_push_constraint(in->an, fact);
  Stmt *r = ir_mutate_stmt(&in->m, s);
  arith_pop_constraint(in->an);
  return r;
}

static Stmt *instrument_if(Instrument *in, Stmt *s) {
  int first = in->nchecks;
  collect(in, s->u.if_.cond);
  Expr *fact = strip_likely(s->u.if_.cond);
  Stmt *then = branch(in, fact, s->u.if_.then);
  Stmt *orelse = branch(in, arith_not(in->a, fact), s->u.if_.orelse);
  Stmt *n = then == s->u.if_.then && orelse == s->u.if_.orelse
                ? s
                : ir_if(in->a, s->u.if_.cond, then, orelse);
  return guarded(in, first, n);
}

static Stmt *instrument_allocate(Instrument *in, Stmt *s) {
  int first = in->nchecks;
  for (int d = 0; d < s->u.alloc.ndim; d++) collect(in, s->u.alloc.extents[d]);
  collect(in, s->u.alloc.condition);
  in->allocs = grow(in->allocs, &in->cap_allocs, in->nallocs, sizeof *in->allocs);
  in->allocs[in->nallocs++] = (OpenAlloc){s->u.alloc.buffer_var, s->u.alloc.dtype,
                                          ir_count_of(in->a, s->u.alloc.ndim, s->u.alloc.extents)};
  Stmt *n = ir_mutate_children_stmt(&in->m, s);
  in->nallocs--;
  return guarded(in, first, n);
}

static Stmt *instrument_attr(Instrument *in, Stmt *s) {
  int first = in->nchecks;
  collect(in, s->u.attr.value);
  if (s->u.attr.nkind != ATTR_NODE_ITERVAR ||
      (strcmp(s->u.attr.key, "thread_extent") != 0 && strcmp(s->u.attr.key, "virtual_thread") != 0))
    return guarded(in, first, ir_mutate_children_stmt(&in->m, s));
  Var *v = ((IterVar *)s->u.attr.node)->var;
  enter_range(in, v, arith_const(in->a, v->dtype, 0), s->u.attr.value);
  Stmt *n = ir_mutate_children_stmt(&in->m, s);
  arith_pop_constraint(in->an);
  return guarded(in, first, n);
}

static Stmt *instrument_stmt(IrMutator *m, Stmt *s) {
  Instrument *in = (Instrument *)m;
  int first = in->nchecks;
  switch (s->kind) {
  case STMT_FOR:
    return instrument_for(in, s);
  case STMT_IF:
    return instrument_if(in, s);
  case STMT_ALLOCATE:
    return instrument_allocate(in, s);
  case STMT_ATTR:
    return instrument_attr(in, s);
  case STMT_STORE:
    collect(in, s->u.store.value);
    collect(in, s->u.store.index);
    collect(in, s->u.store.predicate);
    check_access(in, s->u.store.buf, s->u.store.index, true);
    return guarded(in, first, s);
  case STMT_LET:
    collect(in, s->u.let.value);
    bind_let(in, s->u.let.var, s->u.let.value);
    return guarded(in, first, ir_mutate_children_stmt(m, s));
  case STMT_ASSERT:
    collect(in, s->u.assert_.cond);
    return guarded(in, first, ir_mutate_children_stmt(m, s));
  case STMT_EVALUATE:
    collect(in, s->u.eval.value);
    return guarded(in, first, s);
  case STMT_SEQ:
  case STMT_PROVIDE: /* none remain after flattening */
  case STMT_REALIZE:
    return ir_mutate_children_stmt(m, s);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Expressions are read by collect(), never rewritten. */
static Expr *keep_expr(IrMutator *m, Expr *e) { return e; }

Stmt *pass_instrument_bound_checkers(Stmt *s, PassCtx *ctx) {
  if (!pass_option(ctx, "tir.InstrumentBoundCheckers", "enable", 0)) return s;
  Instrument in = {.m = {ctx->arena, keep_expr, instrument_stmt},
                   .a = ctx->arena,
                   .ctx = ctx,
                   .an = arith_new(ctx->arena)};
  Stmt *r = ir_mutate_stmt(&in.m, s);
  arith_free(in.an);
  free(in.allocs);
  free(in.checks);
  free(in.guards);
  free(in.lets);
  return r;
}
