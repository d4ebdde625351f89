/* printer.h: the one printer of IR, in the statement forms of SPEC §8. print, :ir,
 * --dump-after, --emit=ir, error messages and tests all use it. */
#ifndef TES_IR_PRINTER_H
#define TES_IR_PRINTER_H

#include "ir/expr.h"
#include "ir/strbuf.h"

void ir_print_expr(StrBuf *out, const Expr *e);
/* Statements at `indent` levels of two spaces, each line ending in a newline. */
void ir_print_stmt(StrBuf *out, const Stmt *s, int indent);
/* A literal's text: "3", "3i64", "2f32", "0.5f64", "True". */
void ir_print_const(StrBuf *out, const Expr *e);

#endif
