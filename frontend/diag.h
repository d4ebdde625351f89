/* diag.h: the one place that prints errors for a user. */
#ifndef TES_DIAG_H
#define TES_DIAG_H

#include <stdio.h>

#include "frontend/value.h"

/* Prints an exception (VAL_EXC) as:
 *   FILE:LINE:COL: error: KIND: MESSAGE
 *   <the source line, verbatim>
 *   <spaces (tabs where the line has tabs) up to the column>^
 *   traceback (most recent call last):      <- only when it unwound through a call
 *     FILE:LINE:COL in <module>
 *     FILE:LINE:COL in f                     <- innermost last
 * An exception with no location prints "tes: error: KIND: MESSAGE". */
void diag_print_exc(FILE *out, Value *exc);

#endif
