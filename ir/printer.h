/* printer.h: the one printer of IR, in the statement forms of SPEC §8. print, :ir,
 * --dump-after, --emit=ir, error messages and tests all use it. */
#ifndef TES_IR_PRINTER_H
#define TES_IR_PRINTER_H

#include "ir/expr.h"
#include "ir/strbuf.h"

typedef struct Operation Operation;

void ir_print_expr(StrBuf *out, const Expr *e);
/* Statements at `indent` levels of two spaces, each line ending in a newline. */
void ir_print_stmt(StrBuf *out, const Stmt *s, int indent);
/* A lowered function: `@name = primfn(A: Buffer(float32, [m]), ...) {`, the body at one level
 * of indentation, `}` and a newline. */
void ir_print_primfn(StrBuf *out, const char *name, int nparams, Buffer *const *params,
                     const Stmt *body);
/* A literal's text: "3", "3i64", "2f32", "0.5f64", "True". */
void ir_print_const(StrBuf *out, const Expr *e);

/* The te printer's forms of what lowered IR never shows (seeds/000_*.txt, `print(s.stages)`):
 *   iter_var(i, range(min=0, ext=n))            iter_var(threadIdx.x, , threadIdx.x)
 *   placeholder(A, 0x55d...)                    (TVM prints the node's address)
 *   compute(B, body=[...], axis=[...], reduce_axis=[...], tag=, attrs={})
 *   comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], identity_element=[0f32]) */
void ir_print_itervar(StrBuf *out, const IterVar *iv);
void ir_print_op(StrBuf *out, const Operation *op);
void ir_print_comm_reducer(StrBuf *out, const CommReducer *c);

#endif
