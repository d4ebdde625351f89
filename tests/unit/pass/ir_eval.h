/* ir_eval.h: a small interpreter of lowered IR for the tests of ir/pass/, so that a test can
 * check that a pass keeps what a program computes, not only how it prints. It runs integer
 * programs (int and bool lanes, any lane count up to EVAL_LANES) on int32 buffers the test
 * binds; loops of every kind and virtual threads run one iteration after another, and an
 * allocation is a fresh zeroed buffer each time it is entered. An access out of bounds, a
 * division by zero or an unbound variable marks the run failed instead of crashing. */
#ifndef TES_TEST_IR_EVAL_H
#define TES_TEST_IR_EVAL_H

#include <stdlib.h>
#include <string.h>

#include "ir/arith/arith.h"
#include "tests/unit/schedule/sched_test.h"

enum { EVAL_LANES = 64, EVAL_MAX = 64 };

typedef struct EvalVal {
  int lanes;
  int64_t v[EVAL_LANES];
} EvalVal;

typedef struct EvalBuf {
  const Var *data;
  int64_t n;
  int32_t *v;
  bool owned; /* an allocation of the program, freed when it ends */
} EvalBuf;

typedef struct Eval {
  bool ok;
  /* under a branch of a vector if_then_else: the lanes (bits) that do not take it, whose loads
   * are not made (the back ends mask them), of mlanes; 0 outside one */
  uint64_t off;
  int mlanes;
  int nbuf, nvar;
  EvalBuf bufs[EVAL_MAX];
  const Var *vars[EVAL_MAX];
  EvalVal vals[EVAL_MAX];
} Eval;

HELPER void eval_bind_buffer(Eval *ev, const Buffer *b, int32_t *data, int64_t n) {
  ev->bufs[ev->nbuf++] = (EvalBuf){b->data, n, data, false};
}

HELPER void eval_push_var(Eval *ev, const Var *v, EvalVal x) {
  if (ev->nvar == EVAL_MAX) {
    ev->ok = false;
    return;
  }
  ev->vars[ev->nvar] = v;
  ev->vals[ev->nvar++] = x;
}

HELPER EvalVal eval_scalar(int64_t x) {
  EvalVal r = {1, {0}};
  r.v[0] = x;
  return r;
}

static EvalVal eval_expr(Eval *ev, const Expr *e);

static EvalBuf *eval_buffer(Eval *ev, const Var *data) {
  for (int i = ev->nbuf - 1; i >= 0; i--)
    if (ev->bufs[i].data == data) return &ev->bufs[i];
  ev->ok = false;
  return NULL;
}

/* a's lane i, a scalar standing for every lane */
static int64_t lane(const EvalVal *a, int i) { return a->v[a->lanes == 1 ? 0 : i]; }

static int64_t eval_binop(Eval *ev, ExprKind k, DType t, int64_t x, int64_t y) {
  if ((k == EXPR_DIV || k == EXPR_MOD || k == EXPR_FLOORDIV || k == EXPR_FLOORMOD) && y == 0) {
    ev->ok = false;
    return 0;
  }
  switch (k) {
  case EXPR_ADD:
    return arith_wrap(t, (int64_t)((uint64_t)x + (uint64_t)y));
  case EXPR_SUB:
    return arith_wrap(t, (int64_t)((uint64_t)x - (uint64_t)y));
  case EXPR_MUL:
    return arith_wrap(t, (int64_t)((uint64_t)x * (uint64_t)y));
  case EXPR_DIV:
    return arith_wrap(t, x / y);
  case EXPR_MOD:
    return arith_wrap(t, x % y);
  case EXPR_FLOORDIV:
    return arith_wrap(t, x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
  case EXPR_FLOORMOD:
    return arith_wrap(t, x - y * (x / y - ((x % y != 0) && ((x < 0) != (y < 0)))));
  case EXPR_MIN:
    return x < y ? x : y;
  case EXPR_MAX:
    return x > y ? x : y;
  case EXPR_EQ:
    return x == y;
  case EXPR_NE:
    return x != y;
  case EXPR_LT:
    return x < y;
  case EXPR_LE:
    return x <= y;
  case EXPR_GT:
    return x > y;
  case EXPR_GE:
    return x >= y;
  case EXPR_AND:
    return x && y;
  case EXPR_OR:
    return x || y;
  default: /* a subset of the kinds: anything else fails the run */
    ev->ok = false;
    return 0;
  }
}

static EvalVal eval_load(Eval *ev, const Expr *e) {
  EvalVal idx = eval_expr(ev, e->u.load.index), r = {idx.lanes, {0}};
  EvalVal pred = e->u.load.predicate ? eval_expr(ev, e->u.load.predicate) : eval_scalar(1);
  EvalBuf *b = eval_buffer(ev, e->u.load.buf->data);
  uint64_t all = ev->mlanes >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << ev->mlanes) - 1;
  if (ev->off && idx.lanes == 1 && (ev->off & all) == all) return r; /* no lane reads it */
  for (int i = 0; b && i < idx.lanes; i++) {
    if (!lane(&pred, i) || (idx.lanes == ev->mlanes && (ev->off >> i & 1))) continue;
    if (idx.v[i] < 0 || idx.v[i] >= b->n) {
      ev->ok = false;
      return r;
    }
    r.v[i] = b->v[idx.v[i]];
  }
  return r;
}

static EvalVal eval_call(Eval *ev, const Expr *e) {
  const char *op = e->u.call.op;
  if (strcmp(op, "tir.likely") == 0) return eval_expr(ev, e->u.call.args[0]);
  if (strcmp(op, "tir.if_then_else") == 0) {
    EvalVal c = eval_expr(ev, e->u.call.args[0]);
    if (c.lanes == 1) return eval_expr(ev, e->u.call.args[c.v[0] ? 1 : 2]);
    /* each branch in its own lanes: the others' loads masked off */
    uint64_t off = ev->off, taken = 0;
    int mlanes = ev->mlanes;
    for (int i = 0; i < c.lanes; i++) taken |= (uint64_t)(c.v[i] != 0) << i;
    ev->mlanes = c.lanes;
    ev->off = (mlanes == c.lanes ? off : 0) | ~taken;
    EvalVal t = eval_expr(ev, e->u.call.args[1]);
    ev->off = (mlanes == c.lanes ? off : 0) | taken;
    EvalVal f = eval_expr(ev, e->u.call.args[2]);
    ev->off = off;
    ev->mlanes = mlanes;
    EvalVal r = {c.lanes, {0}};
    for (int i = 0; i < c.lanes; i++) r.v[i] = c.v[i] ? lane(&t, i) : lane(&f, i);
    return r;
  }
  ev->ok = false;
  return eval_scalar(0);
}

static EvalVal eval_var(Eval *ev, const Var *v) {
  for (int i = ev->nvar - 1; i >= 0; i--)
    if (ev->vars[i] == v) return ev->vals[i];
  ev->ok = false;
  return eval_scalar(0);
}

static EvalVal eval_expr(Eval *ev, const Expr *e) {
  int n = e->dtype.lanes;
  EvalVal r = {n, {0}};
  if (!ev->ok || n > EVAL_LANES) {
    ev->ok = false;
    return r;
  }
  if (e->kind == EXPR_INT) return eval_scalar(e->u.ival);
  if (e->kind == EXPR_VAR) return eval_var(ev, e->u.var);
  if (e->kind >= EXPR_ADD && e->kind <= EXPR_OR) {
    EvalVal a = eval_expr(ev, e->u.bin.a), b = eval_expr(ev, e->u.bin.b);
    for (int i = 0; i < n; i++)
      r.v[i] = eval_binop(ev, e->kind, e->u.bin.a->dtype, lane(&a, i), lane(&b, i));
    return r;
  }
  switch (e->kind) {
  case EXPR_NOT: {
    EvalVal a = eval_expr(ev, e->u.unary.a);
    for (int i = 0; i < n; i++) r.v[i] = !a.v[i];
    return r;
  }
  case EXPR_CAST: {
    EvalVal a = eval_expr(ev, e->u.unary.a);
    for (int i = 0; i < n; i++) r.v[i] = arith_wrap(e->dtype, a.v[i]);
    return r;
  }
  case EXPR_SELECT: {
    EvalVal c = eval_expr(ev, e->u.select.cond), t = eval_expr(ev, e->u.select.t),
            f = eval_expr(ev, e->u.select.f);
    for (int i = 0; i < n; i++) r.v[i] = lane(&c, i) ? lane(&t, i) : lane(&f, i);
    return r;
  }
  case EXPR_RAMP: {
    EvalVal b = eval_expr(ev, e->u.ramp.base), s = eval_expr(ev, e->u.ramp.stride);
    for (int i = 0; i < n; i++) r.v[i] = arith_wrap(e->dtype, b.v[0] + i * s.v[0]);
    return r;
  }
  case EXPR_BROADCAST: {
    EvalVal x = eval_expr(ev, e->u.bcast.value);
    for (int i = 0; i < n; i++) r.v[i] = x.v[0];
    return r;
  }
  case EXPR_LET: {
    eval_push_var(ev, e->u.let.var, eval_expr(ev, e->u.let.value));
    r = eval_expr(ev, e->u.let.body);
    ev->nvar--;
    return r;
  }
  case EXPR_LOAD:
    return eval_load(ev, e);
  case EXPR_CALL:
    return eval_call(ev, e);
  default: /* a subset of the kinds: anything else fails the run */
    ev->ok = false;
    return r;
  }
}

static void eval_stmt(Eval *ev, const Stmt *s);

static void eval_store(Eval *ev, const Stmt *s) {
  EvalVal v = eval_expr(ev, s->u.store.value), idx = eval_expr(ev, s->u.store.index);
  EvalVal pred = s->u.store.predicate ? eval_expr(ev, s->u.store.predicate) : eval_scalar(1);
  EvalBuf *b = eval_buffer(ev, s->u.store.buf->data);
  for (int i = 0; b && ev->ok && i < v.lanes; i++) {
    if (!lane(&pred, i)) continue;
    int64_t at = lane(&idx, i);
    if (at < 0 || at >= b->n) {
      ev->ok = false;
      return;
    }
    b->v[at] = (int32_t)v.v[i];
  }
}

static void eval_loop(Eval *ev, const Var *v, int64_t min, int64_t extent, const Stmt *body) {
  for (int64_t i = min; ev->ok && i < min + extent; i++) {
    eval_push_var(ev, v, eval_scalar(i));
    eval_stmt(ev, body);
    ev->nvar--;
  }
}

static void eval_allocate(Eval *ev, const Stmt *s) {
  int64_t n = 1;
  for (int i = 0; i < s->u.alloc.ndim; i++) n *= eval_expr(ev, s->u.alloc.extents[i]).v[0];
  if (!ev->ok || n < 0 || n > (1 << 20) || ev->nbuf == EVAL_MAX) {
    ev->ok = false;
    return;
  }
  ev->bufs[ev->nbuf++] = (EvalBuf){s->u.alloc.buffer_var, n, calloc((size_t)n + 1, 4), true};
  eval_stmt(ev, s->u.alloc.body);
  free(ev->bufs[--ev->nbuf].v);
}

static void eval_stmt(Eval *ev, const Stmt *s) {
  if (!ev->ok) return;
  switch (s->kind) {
  case STMT_FOR:
    eval_loop(ev, s->u.for_.var, eval_expr(ev, s->u.for_.min).v[0],
              eval_expr(ev, s->u.for_.extent).v[0], s->u.for_.body);
    return;
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) eval_stmt(ev, s->u.seq.items[i]);
    return;
  case STMT_STORE:
    eval_store(ev, s);
    return;
  case STMT_IF:
    if (eval_expr(ev, s->u.if_.cond).v[0])
      eval_stmt(ev, s->u.if_.then);
    else if (s->u.if_.orelse)
      eval_stmt(ev, s->u.if_.orelse);
    return;
  case STMT_LET:
    eval_push_var(ev, s->u.let.var, eval_expr(ev, s->u.let.value));
    eval_stmt(ev, s->u.let.body);
    ev->nvar--;
    return;
  case STMT_ALLOCATE:
    eval_allocate(ev, s);
    return;
  case STMT_ATTR:
    if (s->u.attr.nkind == ATTR_NODE_ITERVAR && (strcmp(s->u.attr.key, "virtual_thread") == 0 ||
                                                 strcmp(s->u.attr.key, "thread_extent") == 0))
      eval_loop(ev, ((const IterVar *)s->u.attr.node)->var, 0, eval_expr(ev, s->u.attr.value).v[0],
                s->u.attr.body);
    else
      eval_stmt(ev, s->u.attr.body);
    return;
  case STMT_EVALUATE:
    eval_expr(ev, s->u.eval.value);
    return;
  case STMT_ASSERT:
    if (!eval_expr(ev, s->u.assert_.cond).v[0]) ev->ok = false;
    eval_stmt(ev, s->u.assert_.body);
    return;
  default: /* a subset of the kinds: anything else fails the run */
    ev->ok = false;
  }
}

/* Runs s with buffers bound (bufs[i] over data[i], n[i] elements); false if it failed. */
HELPER bool eval_run(const Stmt *s, int nbuf, Buffer **bufs, int32_t **data, const int64_t *n) {
  Eval ev = {.ok = true};
  for (int i = 0; i < nbuf; i++) eval_bind_buffer(&ev, bufs[i], data[i], n[i]);
  eval_stmt(&ev, s);
  return ev.ok;
}

/* Whether before and after both run and leave the same 64 values in buf (zeroed first). */
HELPER bool eval_same(const Stmt *before, const Stmt *after, Buffer *buf) {
  int32_t b0[64] = {0}, b1[64] = {0};
  int64_t size = 64;
  bool ok0 = eval_run(before, 1, &buf, (int32_t *[]){b0}, &size);
  bool ok1 = eval_run(after, 1, &buf, (int32_t *[]){b1}, &size);
  return ok0 && ok1 && memcmp(b0, b1, sizeof b0) == 0;
}

#endif
