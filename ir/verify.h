/* verify.h: the IR verifier. lower_run calls it after loop-nest construction and after every
 * pass with TES_VERIFY_IR set in the environment or at LowerOptions.debug >= 1
 * (lower_verifies_each_pass), and always once more after the last pass, before code
 * generation, so that a pass that breaks the IR is named where it does it, not by a crash
 * inside LLVM or a wrong kernel later. */
#ifndef TES_IR_VERIFY_H
#define TES_IR_VERIFY_H

#include <stdbool.h>

#include "ir/diag.h"
#include "ir/pass/pass.h"

/* Whether `body`, the body of a function whose parameters are ctx's binds (tensor i stored in
 * buffer i), is well formed:
 *   - every Var read is bound: by an enclosing loop, let or allocate (its buffer variable), a
 *     parameter buffer's data variable or a variable of its shape, strides or offset, an
 *     enclosing "virtual_thread" attr, or a "thread_extent" attr anywhere in the body (a
 *     kernel has every thread index; TVM's bound inference for local storage reads
 *     threadIdx.x before the attr that launches it), or one of ctx->free_vars;
 *   - no variable is bound again where it is already bound (loop, let, allocate);
 *   - a Load or Store goes to a parameter's buffer or an enclosing allocation;
 *   - operands of a binary node share one dtype (lanes included), conditions and predicates
 *     are bool, ramp and broadcast lanes agree with their dtypes, a Store's value has its
 *     buffer's element type (lanes aside), a loop's bounds have its variable's dtype;
 *   - no REDUCE is left; with `flattened`, no PROVIDE, PRODUCER_LOAD or REALIZE either;
 *     before, a tensor is read or written only under its REALIZE or as a parameter;
 *   - no allocation has a negative constant extent; one of constant size 0 is used by nothing
 *     that runs (under no loop of constant extent 0); no Load or Store of an allocation
 *     certainly leaves it (ir/bounds.h: unguarded, under loops that run, at an index whose
 *     range is reached; a ramp at both ends). Parameters' accesses are the user's: tes.CheckBounds
 *     and tir.InstrumentBoundCheckers look at them.
 * ctx->arena takes the nodes the bound checks build (none when it is NULL: they are skipped).
 * On failure, records the internal error "IR after PASS is malformed: WHAT: NODE" on d (the
 * first one found), NODE printed by the one printer (a statement by its first line), and
 * returns false. */
bool ir_verify_func(const Stmt *body, const PassCtx *ctx, bool flattened, const char *pass,
                    Diag *d);

/* The variables body reads where nothing binds them (by ir_verify_func's rules, ctx->free_vars
 * aside), each once, in the order first read: *out gets a NULL-terminated array in a; returns
 * how many. Some are free variables of the function (a te.var in a compute body that no
 * argument's shape has), which TVM's lowering keeps and its build binds; any other is a bug of
 * the step that made body. */
int ir_unbound_vars(Arena *a, const Stmt *body, const PassCtx *ctx, Var ***out);

/* The first statement of body holding an expression deeper than limit, or NULL. Inlining can
 * make expressions deeper than the front end lets a script build them (IR_MAX_DEPTH), and the
 * passes recurse over them; this reads the depth fields and walks statements only, so it is
 * safe on any depth. */
const Stmt *ir_find_deep_stmt(const Stmt *body, uint32_t limit);

#endif
