/* c_printer.h: the printer of lowered IR as C-family text, shared by the "c" target
 * (codegen_c.c) and the "cuda" target (backends/cuda/), which differ in a few places only: a
 * dialect's hooks print what it says its own way (CUDA's thread indices, __shared__ arrays,
 * __syncthreads) before the C printing is tried. */
#ifndef TES_BACKENDS_C_C_PRINTER_H
#define TES_BACKENDS_C_C_PRINTER_H

#include "ir/diag.h"
#include "ir/dtype.h"
#include "ir/expr.h"
#include "ir/strbuf.h"

typedef struct CPrinter CPrinter;

typedef struct CDialect {
  const char *target; /* in messages: "not supported yet: ... on the cuda target" */
  const char *unroll_pragma; /* the line before an unrolled loop */
  /* Each hook prints what it handles and returns true; false leaves it to the C printing.
   * A NULL hook handles nothing. */
  bool (*var)(CPrinter *p, const Var *v);
  bool (*call)(CPrinter *p, const Expr *e);
  bool (*stmt)(CPrinter *p, const Stmt *s);
  /* Any expression, before the C printing; lane: e is printed at a lane (cp_expr_lane). */
  bool (*expr)(CPrinter *p, const Expr *e, bool lane);
  const char *float16; /* the name of float16; NULL: C's _Float16 */
} CDialect;

typedef struct CName {
  const Var *var;
  char *name;
} CName;

typedef struct CVecLet { /* a vector let, printed lane by lane as its value */
  const Var *var;
  const Expr *value;
} CVecLet;

struct CPrinter {
  StrBuf out;
  int indent;
  CName *names;
  int nnames;
  CVecLet *lets;
  int nlets;
  /* The variables declared so far (allocations, scalar lets): one declared again, in a copy
   * of a subtree lowering made (a loop partition's parts), goes in a block of its own. */
  const Var **declared;
  int ndeclared;
  int nasserts;
  /* Inside a parallel loop that checks (an allocation, an assert), a failure is stored in
   * this status variable rather than returned: OpenMP forbids leaving the loop's block. 0: not
   * inside one. */
  int par_status;
  int npar;
  int lane_at; /* the lane a vector expression printed at a lane stands for; -1: `_lane` */
  Diag *diag; /* the first error; printing goes on to the end */
  const CDialect *dialect;
  void *user; /* the dialect's state */
};

/* A printer writing for dialect dl, its errors on d; cp_free frees all but p->out. */
CPrinter cp_init(const CDialect *dl, void *user, Diag *d);
void cp_free(CPrinter *p);

/* v's name in the text: its own, made a C identifier, with a suffix when two different
 * variables would print the same. */
const char *cp_name_of(CPrinter *p, const Var *v);
static inline const char *cp_c_type(DType t) { return dt_c_name(t, false); }
/* The dialect's name of element type t (CUDA's half for float16). */
const char *cp_type(const CPrinter *p, DType t);
void cp_put(CPrinter *p, const char *s);
/* A line's start: the indentation, then fmt. */
void cp_line(CPrinter *p, const char *fmt, ...) TES_PRINTF(2, 3);
void cp_expr(CPrinter *p, const Expr *e); /* a scalar expression */
/* e, when lane and e is a vector, at one lane: p->lane_at, or the C loop's `_lane` when that
 * is -1 (a ramp is base + stride * lane, a broadcast its value, a vector let its value);
 * as cp_expr otherwise. */
void cp_expr_lane(CPrinter *p, const Expr *e, bool lane);
void cp_stmt(CPrinter *p, const Stmt *s);
void cp_block(CPrinter *p, const Stmt *s); /* s, one level deeper */
/* The macros and functions the printed expressions call (tes_min, tes_floordiv, ...), each
 * function declared with qual ("static inline", "__device__ inline"). */
void cp_helpers(StrBuf *out, const char *qual);

#endif
