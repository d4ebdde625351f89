/* cuda_trunc_div.c: a kernel's integer floordiv and floormod printed as C's / and % where
 * both agree: the dividend provably non-negative and the divisor provably positive. The C
 * printer calls the 64-bit tes_floordiv / tes_floormod helpers for the general case; index
 * arithmetic over thread indices and loop variables (all from 0) then stays 32-bit. The
 * bounds are those of the kernel's thread extents, loops and lets, as TVM's LowerIntrin
 * proves them before turning floordiv into truncdiv. */
#include <string.h>

#include "backends/cuda/cuda_dialect.h"
#include "ir/arith/arith.h"

typedef struct TruncDiv {
  IrMutator m;
  Analyzer *an;
} TruncDiv;

static Expr *trunc_expr(IrMutator *m, Expr *e) {
  TruncDiv *t = (TruncDiv *)m;
  Expr *r = ir_mutate_children_expr(m, e);
  if ((r->kind != EXPR_FLOORDIV && r->kind != EXPR_FLOORMOD) || r->dtype.code != DT_INT ||
      r->dtype.lanes != 1)
    return r;
  Expr *a = r->u.bin.a, *b = r->u.bin.b;
  if (!arith_can_prove_ge(t->an, a, 0) || !arith_can_prove_ge(t->an, b, 1)) return r;
  return ir_binary(m->arena, r->kind == EXPR_FLOORDIV ? EXPR_DIV : EXPR_MOD, a, b);
}

static Stmt *trunc_stmt(IrMutator *m, Stmt *s) {
  TruncDiv *t = (TruncDiv *)m;
  switch (s->kind) {
  case STMT_FOR:
    arith_bind(t->an, s->u.for_.var, (Range){s->u.for_.min, s->u.for_.extent});
    break;
  case STMT_ATTR:
    if (strcmp(s->u.attr.key, "thread_extent") == 0 && s->u.attr.nkind == ATTR_NODE_ITERVAR) {
      const IterVar *iv = s->u.attr.node;
      arith_bind(t->an, iv->var,
                 (Range){arith_const(m->arena, iv->var->dtype, 0), s->u.attr.value});
    }
    break;
  case STMT_LET:
    arith_bind_value(t->an, s->u.let.var, s->u.let.value);
    break;
  default:
    break;
  }
  return ir_mutate_children_stmt(m, s);
}

Stmt *cuda_trunc_div(Stmt *body, Arena *a) {
  TruncDiv t = {{a, trunc_expr, trunc_stmt}, arith_new(a)};
  Stmt *r = ir_mutate_stmt(&t.m, body);
  arith_free(t.an);
  return r;
}
