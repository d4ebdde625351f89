/* modules_impl.h: what builtins.c, modules.c, mod_sys.c, mod_resource.c and the builtin
 * modules of np/ and tvm/ share. Private to those files; the rest of tes sees modules.h. */
#ifndef TES_MODULES_IMPL_H
#define TES_MODULES_IMPL_H

#include "frontend/lang/modules.h"

/* ---- the language's modules living outside modules.c (it lists them in its ModuleSet) ---- */
extern const ModuleDef mod_sys;      /* mod_sys.c */
extern const ModuleDef mod_resource; /* mod_resource.c */
/* The FILE that v, sys.stdout or sys.stderr, writes to (stdout flushed first for stderr), or
 * NULL when v is neither. */
FILE *sys_stream_file(Interp *I, Value *v);

/* ---- helpers for builtin functions ---- */
/* Sets module member `name` to v and drops the caller's reference to v. */
void bi_set_member_take(Value *module, const char *name, Value *v);
/* Raises KeyboardInterrupt (clearing the flag) if Ctrl-C was pressed; -1 then, else 0. Long
 * loops inside builtins call it, since the interpreter only checks between statements. */
int bi_check_interrupt(Interp *I);
/* Calls fn on each item of an iterable (borrowed item). fn returns 0 to go on, 1 to stop,
 * -1 on error. Returns 0 or -1. */
typedef int (*BiEachFn)(Interp *I, Value *item, void *ctx);
int bi_for_each(Interp *I, Value *iterable, BiEachFn fn, void *ctx);
/* int or bool (or an object's int: val_as_int); else TypeError "'float' object cannot be
 * interpreted as an integer". */
int bi_arg_index(Interp *I, Value *v, int64_t *out);
/* int, bool or float (or an object's number: val_as_float); else TypeError "must be real
 * number, not str". */
int bi_arg_real(Interp *I, Value *v, double *out);
/* A float that is already integral (or to be truncated) as an int: ValueError for NaN,
 * OverflowError for infinities and values outside 64 bits. */
Value *bi_int_from_double(Interp *I, double d);

#endif
