/* interp_impl.h: what interp.c (statements and expressions) and call.c (calls and argument
 * binding) share; nothing outside the interpreter includes it, but for tvm/pass.c (the
 * session's lowering state lives in struct Interp) and repl.c (:ir evaluates an expression). */
#ifndef TES_INTERP_IMPL_H
#define TES_INTERP_IMPL_H

#include "frontend/lang/interp.h"

/* The Python limit; the C stack is checked as well (stack_limit) since a TES call costs
 * several C frames, more under AddressSanitizer. */
enum { MAX_CALL_DEPTH = 1000 };

struct Interp {
  Value *globals;  /* __main__ */
  Value *builtins;
  Value *modules;  /* dotted name -> module */
  Value *argv;
  Value *error;    /* the pending exception (VAL_EXC), or NULL */
  Value *handling; /* the exception an `except` block is handling, for a bare `raise` */
  FILE *out;
  int depth;       /* TES calls in progress */
  char *stack_base;
  size_t stack_limit;
  int64_t steps, step_limit;
  Arena ir_arena;  /* freed after every value, in interp_free */
  /* The session's lowering state (tvm/pass.c): entered PassContexts and the hooks of
   * --dump-after, --emit=ir and :watch. Lives in ir_arena; NULL until first used. */
  struct BiPassState *pass_state;
  /* tvm.register_func's functions by name (tvm/packed_func.c): a dict, NULL until first used */
  Value *packed_funcs;
  /* tvm.ir.register_intrin_lowering's rules and register_op_attr's effect kinds
   * (tvm/intrin_lowering.c): a dict, NULL until first used */
  Value *intrin_rules;
  /* te.compute's attrs by operation (tvm/te.c): a dict from the operation's address to its
   * attrs dict, NULL until first used */
  Value *op_attrs;
};

/* One activation: a function call, a comprehension, or the module level (env NULL). */
typedef struct Frame {
  Value *env;      /* VAL_ENV of the locals, NULL at module level */
  const FuncDef *def; /* the frame's layout (NULL at module level) */
  Unit *unit;      /* the source its code comes from */
  Value *globals;  /* VAL_DICT */
  Value *name;     /* str: the function's name, "<module>" */
  Value *retval;   /* set by `return` */
  bool echo;       /* REPL: print the value of expression statements */
} Frame;

/* eval.c */
Value *interp_eval(Interp *I, Frame *F, Node *n);
int interp_truthy(Interp *I, Value *v); /* val_truthy with a fast path for bools */

/* exec.c */
/* Binds a value to an assignment target (NAME, ATTR, SUBSCRIPT, TUPLE/LIST, STARRED inside
 * those); 0 or -1. */
int interp_assign(Interp *I, Frame *F, Node *target, Value *v);
/* A def or lambda evaluated in F: defaults now, the frame as closure. */
Value *interp_make_function(Interp *I, Frame *F, FuncDef *def);

/* Runs a unit's statements at module level with these globals; 0 or -1. */
int interp_exec_module(Interp *I, Unit *u, Value *globals, bool echo);
/* Runs a function body in a fresh frame; returns its result. */
Value *interp_run_body(Interp *I, Func *fn, Value *env);

/* interp.c */
/* Gives a pending exception without a location this node's location, and starts its traceback
 * (tb[0]) in the frame F. */
void interp_locate(Interp *I, Frame *F, SrcLoc loc);
/* A call at `loc` in frame F returned an error from a deeper frame: add this frame to the
 * traceback. */
void interp_trace_call(Interp *I, Frame *F, SrcLoc loc);
/* Interrupt, step-limit and stack checks; -1 with an exception raised. Inline for the usual
 * case, where none is due: a loop iteration and a call make one. */
int interp_tick_slow(Interp *I);
static inline int interp_tick(Interp *I) {
  char *here = __builtin_frame_address(0);
  if (__builtin_expect(!tes_interrupted && !I->step_limit &&
                           (!I->stack_base || (size_t)(I->stack_base - here) <= I->stack_limit),
                       1))
    return 0;
  return interp_tick_slow(I);
}


#endif
