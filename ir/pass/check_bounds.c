/* check_bounds: tes.CheckBounds, the out-of-bounds check of tensor accesses at lowering.
 * Assumes: the loop nest as schedule_ops builds it (tensor Provide / PRODUCER_LOAD nodes, each
 *   tensor with its declared shape), inlined bodies in place.
 * Guarantees: returns its input. Every read of a tensor is compared, dimension by dimension,
 *   with the tensor's shape, under the ranges of the loops around it and the facts of the
 *   conditions guarding it (if, likely, the branch of if_then_else taken, and the ranges those
 *   give compound expressions): the guarded reads of padding and of non-dividing splits are
 *   proven inside and pass in silence.
 *   An access certainly outside (bounds.h: unguarded, every loop around it runs, an index
 *   range that is reached) is an error on ctx->diag, naming the stage, the tensor, the
 *   dimension, the range and the shape; lower_run's caller raises it as a LowerError. An access it
 * cannot prove inside gets one warning (ctx->warn), once per access and message, where its bounds
 * are constant: when every variable of the index is a loop's of constant range (bounds are proven
 * where they are constant; over symbolic extents the analyzer knows too little, and a gather,
 *   A[idx[i]], is the data's to keep inside). Reads in a select's
 * branches are never errors: select evaluates both and keeps one, so `select(i >= 1, A[i - 1], 0)`
 * reads A[-1] and discards it, which TVM accepts; they are warned about, pointing at if_then_else,
 * which reads only the branch it takes. Against a symbolic size only a certain error is reported
 * (bounds.h says why); tir.InstrumentBoundCheckers checks the rest while the kernel runs. Writes
 * are lowering's, not the script's, and may fill the padding a split adds (a reduction's init):
 * they are compared with the region realized for them, and only one certainly outside it is
 * reported, as an internal error. Why here: before flattening, while each access still names its
 * tensor and each index its dimension, so that a message speaks of A[i + 5] and shape (10,), not of
 * a flat offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/bounds.h"
#include "ir/pass/pass.h"
#include "ir/printer.h"
#include "ir/support.h"

/* A compound expression a guard bounds: `(x + (x.outer*7)) < 9` bounds the sum, which the
 * analyzer's constant bounds, kept per variable, do not see in `((x + (x.outer*7)) + rx)`. */
typedef struct Bounded {
  const Expr *e;
  ConstBound b;
} Bounded;

typedef struct Checker {
  IrVisitor v; /* first: the visitor hooks cast back to Checker */
  PassCtx *ctx;
  Analyzer *an;
  AccessNest nest;
  int nrealized, cap_realized;
  const Stmt **realized; /* the REALIZEs open here, innermost last */
  int nbounded, cap_bounded;
  Bounded *bounded;    /* what the guards around here bound */
  const Tensor *stage; /* the tensor of the Provide being checked; NULL outside one */
  bool failed;
  int nwarned, cap_warned;
  char **warned; /* the warnings given, so that an access inlined twice warns once */
} Checker;

/* Longer accesses are cut: the message ends in a ScheduleError-sized buffer. */
enum { EXCERPT_CHARS = 120 };

static void put_excerpt(StrBuf *out, const Expr *e) {
  StrBuf text = STRBUF_INIT;
  ir_print_expr(&text, e);
  size_t n = text.len > EXCERPT_CHARS ? EXCERPT_CHARS : text.len;
  sb_putn(out, sb_cstr(&text), n);
  if (n < text.len) sb_puts(out, "...");
  sb_free(&text);
}

static void put_shape(StrBuf *out, const Tensor *t) {
  sb_putc(out, '(');
  for (int d = 0; d < t->ndim; d++) {
    if (d) sb_puts(out, ", ");
    put_excerpt(out, t->shape[d]);
  }
  sb_puts(out, t->ndim == 1 ? ",)" : ")");
}

/* "stage C reads tensor A out of bounds: dimension 0 of A[(i + 5)] takes indices [5, 14],
 * outside its shape (10,)"; for a warning "may read", "not provably inside". */
static void describe(StrBuf *out, const Checker *c, const Tensor *t, const Expr *access, bool write,
                     bool may, int dim, ConstBound range) {
  char r[64];
  if (c->stage)
    sb_printf(out, "stage %s ", c->stage->name);
  else
    sb_puts(out, "a loop bound or condition ");
  sb_printf(out, "%s%s tensor %s out of bounds: dimension %d of ", may ? "may " : "",
            write ? (may ? "write" : "writes") : (may ? "read" : "reads"), t->name, dim);
  put_excerpt(out, access);
  sb_printf(out, " takes indices %s, %s its shape ", ir_range_text(range, r),
            may ? "not provably inside" : "outside");
  put_shape(out, t);
}

static void warn_once(Checker *c, StrBuf *msg) {
  for (int i = 0; i < c->nwarned; i++)
    if (strcmp(c->warned[i], sb_cstr(msg)) == 0) return;
  VEC_GROW(NULL, c->warned, c->cap_warned, c->nwarned + 1);
  c->warned[c->nwarned++] = xstrdup(sb_cstr(msg));
  if (c->ctx->warn)
    c->ctx->warn(c->ctx->warn_user, sb_cstr(msg));
  else
    fprintf(stderr, "tes: warning: %s\n", sb_cstr(msg));
}

/* ---- what guards bound ---- */

typedef struct Replacer {
  IrMutator m;
  Checker *c;
  Var **fresh; /* fresh[i] stands for bounded[i], made on first use */
} Replacer;

static Expr *replace_bounded(IrMutator *m, Expr *e) {
  Replacer *r = (Replacer *)m;
  Checker *c = r->c;
  for (int i = c->nbounded - 1; i >= 0; i--) {
    if (!ir_expr_equal(e, c->bounded[i].e)) continue;
    if (!r->fresh[i]) {
      r->fresh[i] = ir_var(m->arena, "guarded", e->dtype);
      arith_bind_bound(c->an, r->fresh[i], c->bounded[i].b);
    }
    return ir_varref(m->arena, r->fresh[i]);
  }
  return ir_mutate_children_expr(m, e);
}

/* index with each guarded expression in it replaced by a variable over the guard's range. */
static Expr *with_guards(Checker *c, Expr *index) {
  Var **fresh = xcalloc((size_t)c->nbounded, sizeof *fresh);
  Replacer r = {{c->ctx->arena, replace_bounded, NULL}, c, fresh};
  Expr *x = ir_mutate_expr(&r.m, index);
  free(fresh);
  return x;
}

static void add_bounded(Checker *c, const Expr *e, int64_t lo, int64_t hi) {
  ConstBound b = arith_const_bound(c->an, e);
  if (lo > b.min) b.min = lo;
  if (hi < b.max) b.max = hi;
  VEC_GROW(NULL, c->bounded, c->cap_bounded, c->nbounded + 1);
  c->bounded[c->nbounded++] = (Bounded){e, b};
}

/* E < k, E <= k, E > k, E >= k (either side constant; negated: the opposite) bounds E. */
static ExprKind swap_sides(ExprKind k) {
  return k == EXPR_LT ? EXPR_GT : k == EXPR_LE ? EXPR_GE : k == EXPR_GT ? EXPR_LT : EXPR_LE;
}

static ExprKind negate(ExprKind k) {
  return k == EXPR_LT ? EXPR_GE : k == EXPR_LE ? EXPR_GT : k == EXPR_GT ? EXPR_LE : EXPR_LT;
}

static void learn(Checker *c, const Expr *fact, bool negated) {
  if (fact->kind == EXPR_NOT) {
    learn(c, fact->u.unary.a, !negated);
    return;
  }
  if (fact->kind == EXPR_AND && !negated) {
    learn(c, fact->u.bin.a, false);
    learn(c, fact->u.bin.b, false);
    return;
  }
  if (fact->kind < EXPR_LT || fact->kind > EXPR_GE) return;
  const Expr *e = fact->u.bin.a;
  int64_t k;
  bool flip = false;
  if (!ir_as_int(fact->u.bin.b, &k)) {
    if (!ir_as_int(fact->u.bin.a, &k)) return;
    e = fact->u.bin.b, flip = true;
  }
  if (e->kind == EXPR_INT || e->kind == EXPR_VAR || !dt_is_int(e->dtype) || e->dtype.lanes != 1)
    return;
  /* as `E op k`: flipping the sides turns < into >, negating turns < into >= */
  ExprKind op = flip ? swap_sides(fact->kind) : fact->kind;
  if (negated) op = negate(op);
  if (op == EXPR_LT) add_bounded(c, e, ARITH_NEG_INF, k - 1);
  if (op == EXPR_LE) add_bounded(c, e, ARITH_NEG_INF, k);
  if (op == EXPR_GT) add_bounded(c, e, k + 1, ARITH_POS_INF);
  if (op == EXPR_GE) add_bounded(c, e, k, ARITH_POS_INF);
}

/* The verdict on one index, retried with what the guards bound. */
static IndexVerdict verdict(Checker *c, Expr *index, Expr *size, ConstBound *range) {
  IndexVerdict v = ir_index_verdict(c->an, c->ctx->arena, &c->nest, index, size, range);
  if (v == IDX_INSIDE || c->nbounded == 0) return v;
  Expr *x = with_guards(c, index);
  ConstBound ignored;
  if (x != index &&
      ir_index_verdict(c->an, c->ctx->arena, &c->nest, x, size, &ignored) == IDX_INSIDE)
    return IDX_INSIDE;
  return v;
}

static bool other_var(const Expr *e, const void *access_nest) {
  const AccessNest *nest = access_nest;
  if (e->kind != EXPR_VAR) return false;
  for (int i = 0; i < nest->nloops; i++)
    if (nest->loops[i].var == e->u.var && nest->loops[i].known) return false;
  return true;
}

/* Whether every variable of the index is a loop's of constant range: a warning needs bounds
 * the schedule makes constant. Over a symbolic extent, or a fused symbolic axis
 * (floordiv(i.j.fused, n0)), the analyzer's bounds are the dtype's ends, nothing to warn
 * about; so is an index read from a tensor (a gather, A[idx[i]]: the data's to keep inside). */
static bool constant_ranges(const Checker *c, const Expr *index) {
  return !ir_expr_any(index, other_var, &c->nest) && !ir_expr_reads_memory(index);
}

/* A read: t[indices] (access is the node, for the message) against t's shape. */
static void check_read(Checker *c, const Tensor *t, int n, Expr *const *indices, const Expr *access,
                       bool write) {
  for (int d = 0; d < n && d < t->ndim && !c->failed; d++) {
    ConstBound range;
    IndexVerdict v = verdict(c, indices[d], t->shape[d], &range);
    if (v == IDX_INSIDE || (v == IDX_MAYBE && !constant_ranges(c, indices[d]))) continue;
    StrBuf msg = STRBUF_INIT;
    describe(&msg, c, t, access, write, v == IDX_MAYBE, d, range);
    if (v == IDX_OUTSIDE) {
      ir_error(c->ctx->diag, "%s", sb_cstr(&msg));
      c->failed = true;
    } else {
      if (c->nest.selects)
        sb_puts(&msg, " (select evaluates both values; te.if_then_else reads only the one it "
                      "picks)");
      warn_once(c, &msg);
    }
    sb_free(&msg);
    return; /* one report an access */
  }
}

/* ---- conditions ---- */

/* cond without its likely, and rfactor's if_then_else(a, b, False) (an `a && b` that reads b
 * only where a holds) as the `a && b` it is */
static Expr *strip_likely(Arena *arena, Expr *cond) {
  if (cond->kind == EXPR_CALL && strcmp(cond->u.call.op, "tir.likely") == 0 && cond->u.call.n == 1)
    cond = cond->u.call.args[0];
  int64_t f;
  if (cond->kind == EXPR_CALL && strcmp(cond->u.call.op, "tir.if_then_else") == 0 &&
      cond->u.call.n == 3 && cond->dtype.lanes == 1 && ir_as_int(cond->u.call.args[2], &f) &&
      f == 0)
    return ir_binary(arena, EXPR_AND, cond->u.call.args[0], cond->u.call.args[1]);
  return cond;
}

/* visit under cond (negated: under its negation), as a guard */
static int enter_guard(Checker *c, Expr *cond, bool negated) {
  int nbounded = c->nbounded;
  Expr *fact = strip_likely(c->ctx->arena, cond);
  arith_push_constraint(c->an, negated ? arith_not(c->ctx->arena, fact) : fact);
  learn(c, fact, negated);
  c->nest.guards++;
  return nbounded;
}

static void leave_guard(Checker *c, int nbounded) {
  c->nest.guards--;
  c->nbounded = nbounded;
  arith_pop_constraint(c->an);
}

static void visit_expr_under(Checker *c, Expr *cond, bool negated, const Expr *e) {
  int mark = enter_guard(c, cond, negated);
  ir_visit_expr(&c->v, e);
  leave_guard(c, mark);
}

static void visit_stmt_under(Checker *c, Expr *cond, bool negated, const Stmt *s) {
  int mark = enter_guard(c, cond, negated);
  ir_visit_stmt(&c->v, s);
  leave_guard(c, mark);
}

/* A let's variable: its value when that is worth inlining, else its bounds. */
static void bind_let(Checker *c, const Var *v, Expr *value) {
  if (value->kind == EXPR_INT || value->kind == EXPR_VAR)
    arith_bind_value(c->an, v, value);
  else if (dt_is_int(value->dtype) && value->dtype.lanes == 1)
    arith_bind_bound(c->an, v, arith_const_bound(c->an, value));
}

/* ---- the walk ---- */

static void check_expr(IrVisitor *v, const Expr *e) {
  Checker *c = (Checker *)v;
  if (c->failed) return;
  if (e->kind == EXPR_PRODUCER_LOAD) {
    check_read(c, e->u.pload.tensor, e->u.pload.n, e->u.pload.indices, e, false);
  } else if (e->kind == EXPR_SELECT) {
    ir_visit_expr(v, e->u.select.cond);
    c->nest.selects++;
    ir_visit_expr(v, e->u.select.t);
    ir_visit_expr(v, e->u.select.f);
    c->nest.selects--;
    return;
  } else if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.if_then_else") == 0 &&
             e->u.call.n == 3) {
    ir_visit_expr(v, e->u.call.args[0]);
    visit_expr_under(c, e->u.call.args[0], false, e->u.call.args[1]);
    visit_expr_under(c, e->u.call.args[0], true, e->u.call.args[2]);
    return;
  } else if ((e->kind == EXPR_AND || e->kind == EXPR_OR) && e->dtype.lanes == 1) {
    /* `a && b`: b's value matters only where a holds (`a || b`: where it fails), so b's reads
     * are guarded by a, as a select's are by its condition: rfactor's `ko*f + ki < n &&
     * where(A[.., ko*f + ki])` reads A past its end where the split's guard fails, and
     * TVM keeps that (both sides are evaluated; the result is the same). */
    ir_visit_expr(v, e->u.bin.a);
    visit_expr_under(c, e->u.bin.a, e->kind == EXPR_OR, e->u.bin.b);
    return;
  } else if (e->kind == EXPR_LET) {
    ir_visit_expr(v, e->u.let.value);
    bind_let(c, e->u.let.var, e->u.let.value);
    ir_visit_expr(v, e->u.let.body);
    return;
  }
  ir_visit_children_expr(v, e);
}

static void check_loop(Checker *c, Var *var, Expr *min, Expr *extent, const Stmt *body) {
  ir_nest_enter_loop(&c->nest, c->an, c->ctx->arena, var, min, extent);
  ir_visit_stmt(&c->v, body);
  ir_nest_leave_loop(&c->nest, c->an);
}

static const Stmt *realize_of(const Checker *c, const Tensor *t) {
  for (int i = c->nrealized - 1; i >= 0; i--)
    if (c->realized[i]->u.realize.tensor == t) return c->realized[i];
  return NULL;
}

/* A write: lowering writes a stage's padding too (the init of a reduction over a split that
 * does not divide), so the reference is the region realized, not the shape; and since
 * lowering, not the user, makes writes, only a certain one is reported. */
static void check_write(Checker *c, const Stmt *s) {
  const Tensor *t = s->u.provide.tensor;
  const Stmt *r = realize_of(c, t);
  if (!r) {
    Expr *access = ir_pload(c->ctx->arena, (Tensor *)t, s->u.provide.n, s->u.provide.indices);
    check_read(c, t, s->u.provide.n, s->u.provide.indices, access, true);
    return;
  }
  for (int d = 0; d < s->u.provide.n && d < r->u.realize.ndim && !c->failed; d++) {
    Range b = r->u.realize.bounds[d];
    Expr *x = s->u.provide.indices[d], *min = b.min;
    if (!dt_eq(x->dtype, min->dtype)) continue;
    ConstBound range;
    Expr *off = ir_binary(c->ctx->arena, EXPR_SUB, x, min);
    if (verdict(c, off, b.extent, &range) != IDX_OUTSIDE) continue;
    StrBuf msg = STRBUF_INIT;
    char rt[64];
    sb_printf(&msg,
              "stage %s writes tensor %s outside the region realized for "
              "it: dimension %d at offset %s from its start, extent ",
              c->stage->name, t->name, d, ir_range_text(range, rt));
    put_excerpt(&msg, b.extent);
    ir_internal_error(c->ctx->diag, "%s", sb_cstr(&msg));
    c->failed = true;
    sb_free(&msg);
  }
}

static void check_provide(Checker *c, const Stmt *s) {
  const Tensor *outer = c->stage;
  c->stage = s->u.provide.tensor;
  check_write(c, s);
  ir_visit_children_stmt(&c->v, s);
  c->stage = outer;
}

static void check_realize(Checker *c, const Stmt *s) {
  VEC_GROW(NULL, c->realized, c->cap_realized, c->nrealized + 1);
  c->realized[c->nrealized++] = s;
  ir_visit_children_stmt(&c->v, s);
  c->nrealized--;
}

static bool is_thread_scope(const Stmt *s) {
  return s->u.attr.nkind == ATTR_NODE_ITERVAR && (strcmp(s->u.attr.key, "thread_extent") == 0 ||
                                                  strcmp(s->u.attr.key, "virtual_thread") == 0);
}

static void check_stmt(IrVisitor *v, const Stmt *s) {
  Checker *c = (Checker *)v;
  if (c->failed) return;
  switch (s->kind) {
  case STMT_FOR:
    ir_visit_expr(v, s->u.for_.min);
    ir_visit_expr(v, s->u.for_.extent);
    check_loop(c, s->u.for_.var, s->u.for_.min, s->u.for_.extent, s->u.for_.body);
    return;
  case STMT_IF:
    ir_visit_expr(v, s->u.if_.cond);
    visit_stmt_under(c, s->u.if_.cond, false, s->u.if_.then);
    if (s->u.if_.orelse) visit_stmt_under(c, s->u.if_.cond, true, s->u.if_.orelse);
    return;
  case STMT_PROVIDE:
    check_provide(c, s);
    return;
  case STMT_ATTR:
    ir_visit_expr(v, s->u.attr.value);
    if (is_thread_scope(s))
      check_loop(c, ((IterVar *)s->u.attr.node)->var,
                 arith_const(c->ctx->arena, s->u.attr.value->dtype, 0), s->u.attr.value,
                 s->u.attr.body);
    else
      ir_visit_stmt(v, s->u.attr.body);
    return;
  case STMT_LET:
    ir_visit_expr(v, s->u.let.value);
    bind_let(c, s->u.let.var, s->u.let.value);
    ir_visit_stmt(v, s->u.let.body);
    return;
  case STMT_REALIZE:
    check_realize(c, s);
    return;
  case STMT_SEQ:
  case STMT_STORE:
  case STMT_ALLOCATE:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    ir_visit_children_stmt(v, s);
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

Stmt *pass_check_bounds(Stmt *s, PassCtx *ctx) {
  Checker c = {.v = {check_expr, check_stmt}, .ctx = ctx, .an = arith_new(ctx->arena)};
  ir_visit_stmt(&c.v, s);
  arith_free(c.an);
  ir_nest_free(&c.nest);
  free(c.realized);
  free(c.bounded);
  for (int i = 0; i < c.nwarned; i++) free(c.warned[i]);
  free(c.warned);
  return s;
}
