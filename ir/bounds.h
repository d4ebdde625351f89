/* bounds.h: whether an index stays inside [0, size), as the checks of tensor and buffer
 * accesses decide it: tes.CheckBounds (user errors and warnings before flattening) and the IR
 * verifier (internal errors after). A walk keeps an AccessNest of what surrounds the access
 * (the loops, the conditions guarding it) next to an Analyzer that knows the loops' ranges and,
 * for the tensor check, the guards' facts; ir_index_verdict then sorts the index into
 * inside / maybe outside / certainly outside. "Certainly" means some execution of the access
 * goes outside, for sure: nothing guards the access, every loop around it runs, and the
 * index's bounds are reached (all values outside, or a linear form of loop variables with
 * constant ranges, each variable once, whose interval arithmetic is exact). */
#ifndef TES_IR_BOUNDS_H
#define TES_IR_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/arith/arith.h"

typedef struct NestLoop {
  const Var *var;
  bool known;       /* a constant range */
  bool maybe_empty; /* it may run no iteration */
} NestLoop;

typedef struct AccessNest {
  int nloops, cap;
  NestLoop *loops; /* the loops around the access, innermost last */
  int guards;      /* conditions around it: if, likely, a branch of if_then_else */
  int selects;     /* branches of select around it (both are evaluated: not guarded) */
} AccessNest;

/* Enters a loop over v in [min, min + extent): binds v in an, pushes the fact
 * min <= v < min + extent (built in a) and records the loop; leave it after the body. */
void ir_nest_enter_loop(AccessNest *nest, Analyzer *an, Arena *a, Var *v, Expr *min, Expr *extent);
void ir_nest_leave_loop(AccessNest *nest, Analyzer *an);
void ir_nest_free(AccessNest *nest);

typedef enum {
  IDX_INSIDE,  /* proven inside, or nothing can be said (not proven, against a symbolic
                * size) */
  IDX_MAYBE,   /* not proven inside a constant size */
  IDX_OUTSIDE, /* certainly outside for some execution (see above) */
} IndexVerdict;

/* The verdict on a scalar integer index against [0, size) (size a scalar integer, constant or
 * not). *range gets the index's bounds, as the analyzer knows them. Nodes it builds go in a. */
IndexVerdict ir_index_verdict(Analyzer *an, Arena *a, const AccessNest *nest, Expr *index,
                              Expr *size, ConstBound *range);

/* The element count of an allocation or a compact buffer: the product of dims, built in a.
 * A constant one is folded in int64 (an int32 when it fits): int32 extents 2**24 x 2**24 are
 * 2**48 elements, not the 0 int32 arithmetic would give; NULL past int64. A symbolic one is
 * the product as written (int64 when the dims' dtypes differ). */
Expr *ir_count_of(Arena *a, int n, Expr *const *dims);

/* "[5, 14]", "[0, +inf)": a range for a message, into buf. */
const char *ir_range_text(ConstBound r, char buf[64]);

#endif
