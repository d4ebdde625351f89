/* frontend/lang/ -- the language. The AST and name resolution (ast.h, resolve.h), the
 * interpreter (this header), values with their reference counts and the cycle collector
 * (value.h), dict, strings and formatting, the builtins and the module loader that finds
 * stdlib/ by path (modules.h, stdlib.h). It knows nothing of tensors or arrays: it may include
 * grammar/'s generated parser, ir/'s support headers (strbuf, arena, support) and nothing of
 * frontend/np, frontend/tvm or the driver; the rooms above it add modules through its tables.
 */
/* interp.h: the tree-walking interpreter. One Interp is one session: its globals, loaded
 * modules, the pending exception and the call depth. Errors are returned, not thrown: a
 * function that fails raises with interp_raise* and returns NULL (or -1), and every caller
 * passes that on after releasing its own references. */
#ifndef TES_INTERP_H
#define TES_INTERP_H

#include <signal.h>
#include <stdatomic.h>

#include "frontend/lang/value.h"

/* Set by the SIGINT handler; the interpreter checks it in loops and calls and raises
 * KeyboardInterrupt. Compiled kernels poll it too (the runtime's interrupt flag, jit/runtime.h,
 * which tvm.build points here), so it is a lock-free atomic: the handler and the pool's
 * threads may touch it at once. */
extern atomic_int tes_interrupted;

Interp *interp_new(void);
void interp_free(Interp *I);
void interp_set_argv(Interp *I, int argc, char **argv); /* sys.argv / argv */
Value *interp_globals(Interp *I); /* borrowed: the __main__ globals dict */
Value *interp_builtins(Interp *I); /* borrowed: the builtins dict */
Value *interp_argv(Interp *I); /* borrowed: the list sys.argv */
Value *interp_modules(Interp *I); /* borrowed: dict of imported modules by dotted name */

/* Runs a parsed unit in the globals. echo: expression statements print the repr of a non-None
 * result (the REPL). Returns 0, or -1 with an exception pending. */
int interp_run_unit(Interp *I, Unit *u, bool echo);
/* Parses and runs `text`; a syntax error becomes a pending SyntaxError. */
int interp_run_text(Interp *I, const char *name, const char *text, size_t len, bool echo);
int interp_run_file(Interp *I, const char *path); /* ImportError-like RuntimeError if unreadable */
/* Parses and runs src with `globals` (a dict: a module's members) as its global scope, as an
 * import runs a module's file. Returns 0, or -1 with an exception pending. */
int interp_run_source_in(Interp *I, Source *src, Value *globals);

/* ---- exceptions ---- */
Value *interp_raise(Interp *I, ExcKind kind, const char *fmt, ...) TES_PRINTF(3, 4); /* NULL */
Value *interp_raise_at(Interp *I, SrcLoc loc, ExcKind kind, const char *fmt, ...)
    TES_PRINTF(4, 5);
Value *interp_raise_value(Interp *I, Value *exc); /* borrowed VAL_EXC; returns NULL */
bool interp_error_pending(const Interp *I);
bool interp_error_matches(const Interp *I, ExcKind kind); /* pending and an instance of kind */
Value *interp_error_take(Interp *I); /* the pending VAL_EXC (new reference); none pending after */
void interp_error_clear(Interp *I);

/* ---- calling ---- */
Value *interp_call(Interp *I, Value *fn, CallArgs *args);
Value *interp_callv(Interp *I, Value *fn, int n, Value **args); /* positional only */
/* Matches a call to a builtin's params (see Builtin in value.h) into slots[count of params]. */
int interp_bind_builtin(Interp *I, const Builtin *b, CallArgs *args, Value **slots);

/* The session's IR arena: what scripts build (te.var, placeholders, compute bodies, schedules)
 * lives here until the session ends, so values may point into it without owning anything. */
Arena *interp_ir_arena(Interp *I);

/* Standard output as the script sees it (print writes here); stdout unless set. */
FILE *interp_stdout(Interp *I);
void interp_set_stdout(Interp *I, FILE *out);
/* Fuzzing and tests: after max_steps statements and calls, raise RuntimeError "step limit
 * exceeded". 0 (the default) means no limit. */
void interp_set_step_limit(Interp *I, int64_t max_steps);

#endif
