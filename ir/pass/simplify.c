/* simplify: simplifies every expression with what the enclosing statements tell (TVM's
 *   tir.Simplify): loop ranges, thread extents, let values and `if` conditions.
 * Assumes: flat buffers (after storage_flatten); variables are bound once (each loop its own).
 * Guarantees: each expression is ir/arith's arith_simplify of it under the facts in scope; an
 *   `if` whose condition folds is replaced by the branch taken (an empty sequence for none); a
 *   let of a constant or a variable is substituted and dropped; `A[i] = A[i]` is dropped; a
 *   loop whose extent is a constant <= 0 or whose body does nothing is dropped (the empty
 *   parts tir.LoopPartition may leave).
 *   A statement nothing simplified in is returned as it is.
 * Why here: after flattening and the loop transformations, which leave index arithmetic
 *   unfolded (`((i - i)*1)`); the passes after it see simple conditions, as in TVM. */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/support.h"

typedef struct Simplify {
  IrMutator m;
  Analyzer *an;
} Simplify;

static Expr *simplify_expr(IrMutator *m, Expr *e) { return arith_simplify(((Simplify *)m)->an, e); }

static Stmt *nothing(Arena *a) { return ir_seq(a, 0, NULL); }

/* v in [min, min + extent): a bound for the bound analyses, a fact for the rewriter. */
static void enter_range(Simplify *s, Var *v, Expr *min, Expr *extent) {
  Arena *a = s->m.arena;
  arith_bind(s->an, v, (Range){min, extent});
  Expr *x = ir_varref(a, v);
  Expr *ge = ir_binary(a, EXPR_GE, x, min);
  Expr *lt = ir_binary(a, EXPR_LT, x, arith_binary(a, EXPR_ADD, min, extent));
  arith_push_constraint(s->an, ir_binary(a, EXPR_AND, ge, lt));
}

/* A statement that does nothing: an empty sequence (what a folded `if` leaves), a constant
 * evaluated. */
static bool is_no_op(const Stmt *st) {
  return (st->kind == STMT_SEQ && st->u.seq.n == 0) ||
         (st->kind == STMT_EVALUATE && st->u.eval.value->kind == EXPR_INT);
}

static Stmt *simplify_for(Simplify *s, Stmt *st) {
  Expr *min = ir_mutate_expr(&s->m, st->u.for_.min),
       *ext = ir_mutate_expr(&s->m, st->u.for_.extent);
  int64_t n;
  if (ir_as_int(ext, &n) && n <= 0) return nothing(s->m.arena); /* an empty partition */
  enter_range(s, st->u.for_.var, min, ext);
  Stmt *body = ir_mutate_stmt(&s->m, st->u.for_.body);
  arith_pop_constraint(s->an);
  if (is_no_op(body)) return nothing(s->m.arena);
  if (min == st->u.for_.min && ext == st->u.for_.extent && body == st->u.for_.body) return st;
  return ir_for(s->m.arena, st->u.for_.var, min, ext, st->u.for_.fkind, st->u.for_.thread_tag,
                body);
}

/* The condition a branch may assume: c itself under `likely`. */
static Expr *real_condition(Expr *c) {
  if (c->kind == EXPR_CALL && strcmp(c->u.call.op, "tir.likely") == 0 && c->u.call.n == 1)
    return c->u.call.args[0];
  return c;
}

static Stmt *branch(Simplify *s, Stmt *st, Expr *assume) {
  if (!st) return NULL;
  arith_push_constraint(s->an, assume);
  Stmt *r = ir_mutate_stmt(&s->m, st);
  arith_pop_constraint(s->an);
  return r;
}

static Stmt *simplify_if(Simplify *s, Stmt *st) {
  Arena *a = s->m.arena;
  Expr *c = ir_mutate_expr(&s->m, st->u.if_.cond);
  int64_t v;
  if (ir_as_int(c, &v)) {
    Stmt *taken = v ? st->u.if_.then : st->u.if_.orelse;
    return taken ? ir_mutate_stmt(&s->m, taken) : nothing(a);
  }
  Expr *real = real_condition(c);
  Stmt *then = branch(s, st->u.if_.then, real);
  Stmt *orelse = branch(s, st->u.if_.orelse, arith_not(a, real));
  if (c == st->u.if_.cond && then == st->u.if_.then && orelse == st->u.if_.orelse) return st;
  return ir_if(a, c, then, orelse);
}

/* A constant or a variable is substituted (the analyzer inlines a bound value); anything else
 * stays a let, and only its bounds are known below it, as in TVM's CanInlineLet. */
static Stmt *simplify_let(Simplify *s, Stmt *st) {
  Expr *value = ir_mutate_expr(&s->m, st->u.let.value);
  Var *v = st->u.let.var;
  if (value->kind == EXPR_INT || value->kind == EXPR_VAR) {
    arith_bind_value(s->an, v, value);
    return ir_mutate_stmt(&s->m, st->u.let.body);
  }
  if (dt_is_int(v->dtype) && v->dtype.lanes == 1)
    arith_bind_bound(s->an, v, arith_const_bound(s->an, value));
  Stmt *body = ir_mutate_stmt(&s->m, st->u.let.body);
  if (value == st->u.let.value && body == st->u.let.body) return st;
  return ir_let_stmt(s->m.arena, st->u.let.var, value, body);
}

static bool is_thread_attr(const Stmt *st) {
  return st->u.attr.nkind == ATTR_NODE_ITERVAR && (strcmp(st->u.attr.key, "thread_extent") == 0 ||
                                                   strcmp(st->u.attr.key, "virtual_thread") == 0);
}

static Stmt *simplify_attr(Simplify *s, Stmt *st) {
  if (!is_thread_attr(st)) return ir_mutate_children_stmt(&s->m, st);
  Expr *value = ir_mutate_expr(&s->m, st->u.attr.value);
  Var *v = ((IterVar *)st->u.attr.node)->var;
  enter_range(s, v, arith_const(s->m.arena, v->dtype, 0), value);
  Stmt *body = ir_mutate_stmt(&s->m, st->u.attr.body);
  arith_pop_constraint(s->an);
  if (value == st->u.attr.value && body == st->u.attr.body) return st;
  return ir_attr(s->m.arena, st->u.attr.nkind, st->u.attr.node, st->u.attr.key, value, body);
}

/* A[i] = A[i] does nothing. */
static Stmt *simplify_store(Simplify *s, Stmt *st) {
  Stmt *r = ir_mutate_children_stmt(&s->m, st);
  const Expr *v = r->u.store.value;
  if (v->kind == EXPR_LOAD && v->u.load.buf == r->u.store.buf && !v->u.load.predicate &&
      !r->u.store.predicate && ir_expr_equal(v->u.load.index, r->u.store.index))
    return nothing(s->m.arena);
  return r;
}

static Stmt *simplify_stmt(IrMutator *m, Stmt *st) {
  Simplify *s = (Simplify *)m;
  switch (st->kind) {
  case STMT_FOR:
    return simplify_for(s, st);
  case STMT_IF:
    return simplify_if(s, st);
  case STMT_LET:
    return simplify_let(s, st);
  case STMT_ATTR:
    return simplify_attr(s, st);
  case STMT_STORE:
    return simplify_store(s, st);
  case STMT_SEQ:
  case STMT_PROVIDE:
  case STMT_REALIZE:
  case STMT_ALLOCATE:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    return ir_mutate_children_stmt(m, st);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

Stmt *pass_simplify(Stmt *st, PassCtx *ctx) {
  Simplify s = {{ctx->arena, simplify_expr, simplify_stmt}, arith_new(ctx->arena)};
  Stmt *r = ir_mutate_stmt(&s.m, st);
  arith_free(s.an);
  return r;
}
