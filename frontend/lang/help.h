/* help.h: the text help(x) and the REPL's :help print, from the tables that define a value
 * (builtin doc lines, module members, object properties and methods). */
#ifndef TES_HELP_H
#define TES_HELP_H

#include "frontend/lang/interp.h"
#include "ir/strbuf.h"

/* Appends v's help to b; false (b unchanged) when v has none (an int, a list). */
bool val_help(Interp *I, StrBuf *b, Value *v);
/* The class an object belongs to or an object type stands for (te.Tensor), else NULL. */
const ObjClass *val_help_class(Value *v);
/* The str items of names, two blanks apart, in lines under 78 columns that open with indent. */
void val_help_wrapped(StrBuf *b, const char *indent, Value *names);

#endif
