/* resolve.h: binds every name of a parsed unit to where it lives (a frame slot, an enclosing
 * frame's slot, or the globals) and turns literals into values, once, before the unit runs. */
#ifndef TES_RESOLVE_H
#define TES_RESOLVE_H

#include "frontend/lang/parse.h"

/* Fills NAME scope fields, FuncDef frame layouts, comprehension scopes and Node.konst for the
 * whole unit. Python's rules: a name bound anywhere in a function body (assignment, for, def,
 * import, except-as, with-as, del) is local to it unless declared `global`; comprehensions
 * have a scope of their own whose first iterable is evaluated outside it. Returns 0, or -1 with
 * *err filled (a SyntaxError: misplaced `*expr`, `global` after use of a parameter, nesting
 * too deep to walk safely). */
int resolve_unit(Unit *u, ParseError *err);

/* The slot of `name` in a frame laid out by resolve_unit, or -1 if it is not a local. */
int resolve_slot(const FuncDef *def, const Sym *name);

#endif
