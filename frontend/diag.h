/* diag.h: the one place that prints errors for a user. */
#ifndef TES_DIAG_H
#define TES_DIAG_H

#include <stdio.h>

#include "frontend/lang/value.h"

/* Prints an exception (VAL_EXC) as:
 *   FILE:LINE:COL: error: KIND: MESSAGE
 *   <the source line, verbatim>
 *   <spaces (tabs where the line has tabs) up to the column>^
 *   traceback (most recent call last):      <- only when it unwound through a call
 *     FILE:LINE:COL in <module>
 *     FILE:LINE:COL in f                     <- innermost last
 * An exception with no location prints "tes: error: KIND: MESSAGE". */
void diag_print_exc(FILE *out, Value *exc);
/* The location that first line names (loc.src NULL: none). */
SrcLoc diag_exc_loc(Value *exc);

/* The first lines of the same format for an error that is not an exception value (a ParseError
 * in `tes --dump-ast`): "FILE:LINE:COL: error: KIND: MESSAGE", the line and the caret; KIND may
 * be NULL. loc.src NULL prints "tes: error: KIND: MESSAGE". */
void diag_print_loc(FILE *out, SrcLoc loc, const char *kind, const char *msg);

#endif
