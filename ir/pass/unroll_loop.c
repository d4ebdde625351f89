/* unroll_loop: replaces loops by copies of their bodies (TVM's tir.UnrollLoop, after Halide).
 * Assumes: flat buffers; loops of any kind.
 * Guarantees: an "unroll" loop (s[C].unroll) of constant extent becomes its body repeated,
 *   the loop variable replaced by min, min + 1, ...; a serial loop is unrolled the same way
 *   when TVM's rules allow it: no plain loop below it, at most auto_max_depth unrolled loops
 *   below it, and its extent times the stores and calls below it at most auto_max_step, or its
 *   extent at most auto_max_extent. Options come from PassCtx under "tir.UnrollLoop":
 *   auto_max_step (default 0: no serial loop is unrolled), auto_max_depth (8), auto_max_extent
 *   (0) and explicit_unroll (1; 0 marks the loops "unroll" instead of copying them). The
 *   pragmas `attr [...] "pragma_auto_unroll_max_step" = N` and "pragma_unroll_explicit" set
 *   them for the code they cover and are dropped. An "unroll" loop whose extent is not a
 *   constant stays an "unroll" loop (TVM stops with an error; here it runs as a loop, the kind
 *   a hint to the code generator). Copies share their inner variables, each bound in its own
 *   scope. Unrolling one loop makes at most UNROLL_MAX_NODES statements and expressions: past
 *   that an "unroll" loop is an error on ctx->diag (a LowerError naming the loop; TVM copies
 * whatever the size, and LLVM then runs for minutes or out of memory) and a serial loop stays a
 * loop. Nested unrolls are counted whole, as the inner ones are copied first. Everything else is
 *   returned as it is.
 * Why here: after virtual threads are injected and before vectorization, as in TVM, so that
 *   unrolled copies of a vectorized loop are each vectorized. */
#include <limits.h>
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/strbuf.h"
#include "ir/support.h"

/* The most IR nodes one unrolled loop may become. A real micro-kernel unrolls into a few
 * thousand; LLVM compiles 2^17 nodes of simple stores (~22,000 of them) in ~6 s, but takes
 * ~100 s for three times more (its time grows faster than the code) and runs out of memory
 * at 2^20 stores. */
#define UNROLL_MAX_NODES (INT64_C(1) << 17)

typedef struct Unroller {
  IrMutator m;
  PassCtx *ctx;
  Analyzer *an;
  int64_t auto_max_step, auto_max_depth, auto_max_extent;
  bool explicit_unroll;
  /* what the statements visited since the last reset hold: */
  int64_t steps;    /* stores and calls, counting unrolled copies */
  int unroll_depth; /* nesting of loops unrolled (or marked) */
  int normal_depth; /* nesting of loops kept */
  bool failed;      /* ctx->diag has why: the pass returns its input */
} Unroller;

/* The loop's extent if it folds to a constant in [0, INT_MAX], else -1 (TVM's GetExtent). */
static int64_t const_extent(Unroller *u, const Stmt *loop) {
  int64_t v;
  Expr *e = arith_simplify(u->an, loop->u.for_.extent);
  return e->kind == EXPR_INT && ir_as_int(e, &v) && v >= 0 && v <= INT_MAX ? v : -1;
}

static Stmt *unroll(Unroller *u, const Stmt *loop, int64_t n) {
  Arena *a = u->m.arena;
  if (n == 0) return ir_seq(a, 0, NULL);
  Stmt **items = arena_alloc(a, (size_t)n * sizeof *items);
  Var *v = loop->u.for_.var;
  for (int64_t i = 0; i < n; i++) {
    VarMap map = {v, arith_binary(a, EXPR_ADD, loop->u.for_.min, ir_int(a, v->dtype, i))};
    items[i] = ir_substitute_stmt(a, loop->u.for_.body, 1, &map);
  }
  return ir_seq(a, (int)n, items);
}

static int64_t times(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

typedef struct NodeCounter {
  IrVisitor v;
  int64_t n;
} NodeCounter;

/* Past the limit the walk stops: a body that shares a subexpression many times over (the
 * count is of the tree, as the code generator emits it) costs no more than the limit. */
static void count_expr(IrVisitor *v, const Expr *e) {
  NodeCounter *c = (NodeCounter *)v;
  if (c->n > UNROLL_MAX_NODES) return;
  c->n++;
  ir_visit_children_expr(v, e);
}

static void count_stmt(IrVisitor *v, const Stmt *s) {
  NodeCounter *c = (NodeCounter *)v;
  if (c->n > UNROLL_MAX_NODES) return;
  c->n += s->kind != STMT_SEQ;
  ir_visit_children_stmt(v, s);
}

/* The statements and expressions of s, or UNROLL_MAX_NODES + 1 when there are more. */
static int64_t count_nodes(const Stmt *s) {
  NodeCounter c = {{count_expr, count_stmt}, 0};
  ir_visit_stmt(&c.v, s);
  return c.n;
}

/* Whether n copies of the loop's body stay within UNROLL_MAX_NODES; if not and the user asked
 * for the unroll, ctx->diag says which loop, how big and the limit. */
static bool small_enough(Unroller *u, const Stmt *loop, int64_t n) {
  if (n <= 1) return true;
  int64_t size = count_nodes(loop->u.for_.body);
  if (times(size, n) <= UNROLL_MAX_NODES) return true;
  if (loop->u.for_.fkind != FOR_UNROLLED) return false;
  StrBuf msg = STRBUF_INIT;
  sb_printf(&msg, "cannot unroll loop %s of extent %lld: ", loop->u.for_.var->name, (long long)n);
  if (size > UNROLL_MAX_NODES)
    sb_printf(&msg, "its body alone is more than %lld IR nodes", (long long)UNROLL_MAX_NODES);
  else
    sb_printf(&msg, "%lld copies of its body (%lld IR nodes each) would be more than %lld",
              (long long)n, (long long)size, (long long)UNROLL_MAX_NODES);
  sb_puts(&msg, ", the limit of tir.UnrollLoop (unroll a smaller loop: split it and unroll the "
                "inner part)");
  ir_error(u->ctx->diag, "%s", sb_cstr(&msg));
  u->failed = true;
  sb_free(&msg);
  return false;
}

/* The loop, whose body is done; the counts then describe the loop itself. */
static Stmt *unroll_for(Unroller *u, Stmt *s) {
  if (u->failed) return s; /* lowering stops after this pass */
  int64_t n = const_extent(u, s);
  ForKind k = s->u.for_.fkind;
  bool unrolled = k == FOR_SERIAL && n >= 0 && u->normal_depth == 0 &&
                  u->unroll_depth <= u->auto_max_depth &&
                  (times(n, u->steps) <= u->auto_max_step || n <= u->auto_max_extent);
  if (k == FOR_UNROLLED) unrolled = n >= 0;
  if (unrolled && u->explicit_unroll && !small_enough(u, s, n)) {
    if (u->failed) return s;
    unrolled = false;
  }
  if (unrolled) {
    u->steps = times(u->steps, n);
    u->unroll_depth++;
  } else {
    u->normal_depth++;
  }
  /* TVM unrolls a loop of extent 0 or 1 whatever its body when auto_max_extent is 1 */
  if ((unrolled && u->explicit_unroll) ||
      (n >= 0 && n <= u->auto_max_extent && u->auto_max_extent == 1))
    return unroll(u, s, n);
  if (unrolled && k != FOR_UNROLLED)
    return ir_for(u->m.arena, s->u.for_.var, s->u.for_.min, s->u.for_.extent, FOR_UNROLLED,
                  s->u.for_.thread_tag, s->u.for_.body);
  return s;
}

/* Each item counts alone; the sequence holds the sum of their steps and the deepest nests. */
static Stmt *unroll_seq(Unroller *u, Stmt *s) {
  Stmt **items = s->u.seq.items;
  for (int i = 0; i < s->u.seq.n; i++) {
    int64_t steps = u->steps;
    int unroll_depth = u->unroll_depth, normal_depth = u->normal_depth;
    u->steps = 0;
    u->unroll_depth = u->normal_depth = 0;
    Stmt *r = ir_mutate_stmt(&u->m, s->u.seq.items[i]);
    u->steps = steps > INT64_MAX - u->steps ? INT64_MAX : u->steps + steps;
    if (normal_depth > u->normal_depth) u->normal_depth = normal_depth;
    if (unroll_depth > u->unroll_depth) u->unroll_depth = unroll_depth;
    if (r == s->u.seq.items[i]) continue;
    if (items == s->u.seq.items) {
      items = arena_alloc(u->m.arena, (size_t)s->u.seq.n * sizeof *items);
      memcpy(items, s->u.seq.items, (size_t)s->u.seq.n * sizeof *items);
    }
    items[i] = r;
  }
  return items == s->u.seq.items ? s : ir_seq(u->m.arena, s->u.seq.n, items);
}

/* The pragmas set an option for the code they cover; a value that is not a constant leaves
 * the attr alone. */
static Stmt *unroll_attr(Unroller *u, Stmt *s) {
  int64_t v;
  bool step = strcmp(s->u.attr.key, "pragma_auto_unroll_max_step") == 0;
  bool expl = strcmp(s->u.attr.key, "pragma_unroll_explicit") == 0;
  if (!(step || expl) || !ir_as_int(s->u.attr.value, &v) || s->u.attr.value->kind != EXPR_INT)
    return ir_mutate_children_stmt(&u->m, s);
  int64_t saved_step = u->auto_max_step;
  bool saved_expl = u->explicit_unroll;
  if (step)
    u->auto_max_step = v;
  else
    u->explicit_unroll = v != 0;
  Stmt *r = ir_mutate_stmt(&u->m, s->u.attr.body);
  u->auto_max_step = saved_step;
  u->explicit_unroll = saved_expl;
  return r;
}

static Stmt *unroll_stmt(IrMutator *m, Stmt *s) {
  Unroller *u = (Unroller *)m;
  switch (s->kind) {
  case STMT_FOR:
    return unroll_for(u, ir_mutate_children_stmt(m, s));
  case STMT_SEQ:
    return unroll_seq(u, s);
  case STMT_ATTR:
    return unroll_attr(u, s);
  case STMT_STORE:
  case STMT_EVALUATE:
  case STMT_PROVIDE:
    u->steps = u->steps == INT64_MAX ? INT64_MAX : u->steps + 1;
    return s;
  case STMT_IF:
  case STMT_REALIZE:
  case STMT_ALLOCATE:
  case STMT_LET:
  case STMT_ASSERT:
    return ir_mutate_children_stmt(m, s);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* Expressions hold no loops. */
static Expr *keep_expr(IrMutator *m, Expr *e) { return e; }

Stmt *pass_unroll_loop(Stmt *s, PassCtx *ctx) {
  const char *name = "tir.UnrollLoop";
  Unroller u = {.m = {ctx->arena, keep_expr, unroll_stmt},
                .ctx = ctx,
                .an = arith_new(ctx->arena),
                .auto_max_step = pass_option(ctx, name, "auto_max_step", 0),
                .auto_max_depth = pass_option(ctx, name, "auto_max_depth", 8),
                .auto_max_extent = pass_option(ctx, name, "auto_max_extent", 0),
                .explicit_unroll = pass_option(ctx, name, "explicit_unroll", 1) != 0};
  Stmt *r = ir_mutate_stmt(&u.m, s);
  arith_free(u.an);
  return u.failed ? s : r;
}
