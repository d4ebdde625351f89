/* arith.h: the arithmetic analyzer of the loop IR, after TVM's arith::Analyzer. It folds
 * constants, bounds integer expressions by constants, tracks modular facts (x = coeff*k + base),
 * and simplifies expressions with rewrite rules and canonical linear forms, so that lowered IR
 * prints as TVM prints it: `((i.outer*32) + i.inner)`, `floordiv((m + 31), 32)`.
 *
 * An Analyzer holds what is known about variables: ranges from arith_bind (loop variables),
 * values from arith_bind_value (lets), and the facts of the enclosing conditions, pushed and
 * popped with arith_push_constraint/arith_pop_constraint as a pass enters and leaves an `if`.
 * Every query uses all of them. Simplification never changes a node: it builds new ones in
 * the Analyzer's arena, sharing what did not change, and returns its argument itself when
 * nothing simplified. */
#ifndef TES_IR_ARITH_H
#define TES_IR_ARITH_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/expr.h"

typedef struct Analyzer Analyzer;

/* ---- constant folding (const_fold.c); nothing else in tes evaluates constants ---- */

/* v wrapped to t's width as the machine would: int32 2147483648 is -2147483648, uint8 -1 is
 * 255 (kept as its bits), bool is 0 or 1. */
int64_t arith_wrap(DType t, int64_t v);
/* A constant of any dtype (a BROADCAST of one for vector dtypes), wrapped as above; for a
 * float dtype v is converted. */
Expr *arith_const(Arena *a, DType t, int64_t v);
/* The binary operation k (ADD..OR) on x and y folded, or NULL when it does not fold: both
 * operands constant, or an identity such as x + 0, x*1, x*0, floordiv(x, 1), True && x.
 * Integer results wrap in the dtype's width; division or modulo by zero never folds. */
Expr *arith_try_fold(Arena *a, ExprKind k, Expr *x, Expr *y);
/* arith_try_fold, or the node itself when nothing folds (TVM's operator overloads). */
Expr *arith_binary(Arena *a, ExprKind k, Expr *x, Expr *y);
Expr *arith_not(Arena *a, Expr *x);                   /* !True is False; !!x stays */
Expr *arith_cast(Arena *a, DType t, Expr *x);         /* x itself when already t */
Expr *arith_select(Arena *a, Expr *c, Expr *t, Expr *f); /* picks a branch on a constant c */

/* ---- what the analyzer knows ---- */

/* The inclusive bounds of an integer expression; ARITH_NEG_INF/ARITH_POS_INF when unbounded. */
#define ARITH_POS_INF INT64_MAX
#define ARITH_NEG_INF (-INT64_MAX)
typedef struct ConstBound {
  int64_t min, max;
} ConstBound;

/* The expression's values lie in {coeff*k + base | k integer}. coeff 0: it is exactly base;
 * coeff 1, base 0: nothing is known. Otherwise 0 <= base < coeff. */
typedef struct ModularSet {
  int64_t coeff, base;
} ModularSet;

/* New nodes from simplification go into a, which must outlive the Analyzer's results. */
Analyzer *arith_new(Arena *a);
void arith_free(Analyzer *an);
Arena *arith_arena(const Analyzer *an); /* that arena */

/* v ranges over [r.min, r.min + r.extent) (both given), r's bounds evaluated with what is
 * known now. An extent of 1 binds v to r.min, as TVM does: the simplifier then replaces v by
 * r.min. A later bind of the same variable replaces the earlier one. */
void arith_bind(Analyzer *an, const Var *v, Range r);
/* v is value, simplified: the simplifier replaces v by it, and every analysis uses its bounds
 * and modular set for v. Bind a let this way only when its value is worth inlining (a constant
 * or a variable, TVM's CanInlineLet); otherwise arith_bind_bound its bounds. */
void arith_bind_value(Analyzer *an, const Var *v, Expr *value);
/* v lies in b, intersected with what is known of v already (a size_var is [0, +inf)). */
void arith_bind_bound(Analyzer *an, const Var *v, ConstBound b);

/* cond holds until the matching pop: its conjuncts of the forms v < c, v <= c, v == c, c < v,
 * ... tighten v's bounds, floormod(v, c) == d gives v's modular set, and the simplifier folds
 * any occurrence of a conjunct (or of its negation) to True (False). Pushes nest. */
void arith_push_constraint(Analyzer *an, Expr *cond);
void arith_pop_constraint(Analyzer *an);

/* ---- queries ---- */

ConstBound arith_const_bound(Analyzer *an, const Expr *e);
ModularSet arith_modular_set(Analyzer *an, const Expr *e);

/* TVM's Analyzer::Simplify: the rewrite simplifier, then the canonical one. Returns e itself
 * when nothing simplified. */
Expr *arith_simplify(Analyzer *an, Expr *e);
/* arith_simplify of x k y (k ADD..OR), built as arith_binary builds it: how index arithmetic
 * is written outside the simplifier (bound inference), so that it reads as simplified IR. */
Expr *arith_simplify_binary(Analyzer *an, ExprKind k, Expr *x, Expr *y);
/* The two simplifiers alone. The rewriter applies ordered rules with side conditions (after
 * Halide's Simplify_*.cpp); the canonical simplifier turns integer arithmetic into sums of
 * scaled terms, merging like terms and ordering them by scale. */
Expr *arith_rewrite_simplify(Analyzer *an, Expr *e);
Expr *arith_canonical_simplify(Analyzer *an, Expr *e);

/* Whether the bool expression cond is true for every value the variables may take; false
 * means "not proven", not "false". Used to drop `likely` guards the bounds prove. */
bool arith_can_prove(Analyzer *an, Expr *cond);
/* Whether e >= lower for every value (by constant bounds alone, as TVM's
 * CanProveGreaterEqual). */
bool arith_can_prove_ge(Analyzer *an, const Expr *e, int64_t lower);
/* Whether a and b are always equal (their difference simplifies to 0). */
bool arith_can_prove_equal(Analyzer *an, Expr *a, Expr *b);

#endif
