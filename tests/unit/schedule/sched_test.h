/* sched_test.h: what the tests of ir/schedule/, ir/pass/ and ir/lower.c share: the checks
 * of tests/unit/check.h, one arena, and short builders for the tensor expressions of the seed
 * tutorials (placeholders, computes, sums) so that a test reads like the TES it stands for.
 * Each test includes it once; every helper is static, and unused ones are fine. */
#ifndef TES_TEST_SCHED_TEST_H
#define TES_TEST_SCHED_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/lower.h"
#include "ir/printer.h"
#include "ir/schedule/schedule.h"
#include "tests/unit/check.h"

#define HELPER static __attribute__((unused))

static Arena A;
static StrBuf sb;

/* ---- expressions ---- */

HELPER Var *var(const char *name) { return ir_var(&A, name, DT_I32); }
HELPER Expr *V(Var *v) { return ir_varref(&A, v); }
HELPER Expr *I(int64_t v) { return ir_i32(&A, v); }
HELPER Expr *F(double v) { return ir_float(&A, DT_F32, v); }
HELPER Expr *add(Expr *a, Expr *b) { return ir_binary(&A, EXPR_ADD, a, b); }
HELPER Expr *sub(Expr *a, Expr *b) { return ir_binary(&A, EXPR_SUB, a, b); }
HELPER Expr *mul(Expr *a, Expr *b) { return ir_binary(&A, EXPR_MUL, a, b); }
HELPER Expr *iv_ref(IterVar *iv) { return ir_varref(&A, iv->var); }

/* ---- tensors ---- */

HELPER Tensor *placeholder(const char *name, int ndim, ...) {
  Expr *shape[8];
  va_list ap;
  va_start(ap, ndim);
  for (int i = 0; i < ndim; i++) shape[i] = va_arg(ap, Expr *);
  va_end(ap);
  return ir_placeholder_op(&A, name, ndim, shape, DT_F32)->outputs[0];
}

/* t[i, j, ...] */
HELPER Expr *at(Tensor *t, ...) {
  Expr *idx[8];
  va_list ap;
  va_start(ap, t);
  for (int i = 0; i < t->ndim; i++) idx[i] = va_arg(ap, Expr *);
  va_end(ap);
  return ir_pload(&A, t, t->ndim, idx);
}

/* The axes of a compute over shape: "i", "j", "k"... unless names are given. */
typedef struct ComputeDef {
  int ndim;
  Expr *shape[8];
  IterVar **axis;
} ComputeDef;

HELPER ComputeDef axes(int ndim, Expr **shape, const char *const *names) {
  static const char *const ijk[] = {"i", "j", "k", "l", "m2", "n2", "o", "p"};
  ComputeDef d = {.ndim = ndim};
  memcpy(d.shape, shape, (size_t)ndim * sizeof *shape);
  d.axis = ir_compute_axes(&A, ndim, d.shape, names ? names : ijk);
  return d;
}

HELPER Tensor *compute(const char *name, ComputeDef d, Expr *body) {
  return ir_compute_op(&A, name, "", d.ndim, d.shape, d.axis, 1, &body)->outputs[0];
}

HELPER IterVar *reduce_axis(const char *name, Expr *extent) {
  return ir_itervar(&A, var(name), (Range){I(0), extent}, ITER_REDUCE, NULL);
}

/* te.sum(src, axis=k) over float32 */
HELPER Expr *sum(Expr *src, int naxis, IterVar **axis) {
  CommReducer *c = arena_alloc(&A, sizeof *c);
  c->name = "sum";
  c->n = 1;
  c->lhs = arena_alloc(&A, sizeof(Var *));
  c->rhs = arena_alloc(&A, sizeof(Var *));
  c->result = arena_alloc(&A, sizeof(Expr *));
  c->identity = arena_alloc(&A, sizeof(Expr *));
  c->lhs[0] = ir_var(&A, "x", DT_F32);
  c->rhs[0] = ir_var(&A, "y", DT_F32);
  c->result[0] = add(ir_varref(&A, c->lhs[0]), ir_varref(&A, c->rhs[0]));
  c->identity[0] = F(0);
  return ir_reduce(&A, c, 1, &src, naxis, axis, NULL, 0);
}

HELPER IterVar *axis_of(Tensor *t, int i) { return t->op->axis[i]; }

HELPER Schedule *schedule(int n, ...) {
  Operation *ops[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) ops[i] = va_arg(ap, Tensor *)->op;
  va_end(ap);
  return sched_create(&A, n, ops);
}

HELPER Stage *S(Schedule *s, Tensor *t) { return sched_stage(s, t->op); }

/* ---- printing ---- */

HELPER void reset(void) {
  sb.len = 0;
  if (sb.s) sb.s[0] = 0;
}

HELPER const char *pe(const Expr *e) {
  reset();
  ir_print_expr(&sb, e);
  return sb_cstr(&sb);
}

HELPER const char *ps(const Stmt *s) {
  reset();
  ir_print_stmt(&sb, s, 0);
  return sb_cstr(&sb);
}

/* "[min, extent]" */
HELPER const char *pr(Range r) {
  reset();
  sb_putc(&sb, '[');
  ir_print_expr(&sb, r.min);
  sb_puts(&sb, ", ");
  ir_print_expr(&sb, r.extent);
  sb_putc(&sb, ']');
  return sb_cstr(&sb);
}

/* tvm.lower(s, args) printed, or "error: MESSAGE" ("internal error: MESSAGE"). */
HELPER const char *lowered_with(Schedule *s, const LowerOptions *opt, int nargs, Tensor **args) {
  Diag d = DIAG_INIT;
  LoweredFunc *f = lower_run(&A, s, nargs, args, opt, &d);
  reset();
  if (f)
    lower_print_func(&sb, f);
  else
    sb_printf(&sb, "%serror: %s", d.kind == DIAG_INTERNAL ? "internal " : "", d.msg);
  return sb_cstr(&sb);
}

/* The loop nest as schedule_ops built it, flattened and simplified but with loop kinds,
 * pragmas and virtual threads left for a reader to see (the passes that act on them are
 * tested on their own in tests/unit/pass/). */
HELPER const char *lowered_nest(Schedule *s, int nargs, ...) {
  static const char *const later[] = {"tir.InjectVirtualThread", "tir.UnrollLoop",
                                      "tir.VectorizeLoop"};
  LowerOptions opt = {.ndisabled = 3, .disabled = later};
  Tensor *args[8];
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++) args[i] = va_arg(ap, Tensor *);
  va_end(ap);
  return lowered_with(s, &opt, nargs, args);
}

HELPER const char *lowered(Schedule *s, int nargs, ...) {
  Tensor *args[8];
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++) args[i] = va_arg(ap, Tensor *);
  va_end(ap);
  return lowered_with(s, NULL, nargs, args);
}

#endif
