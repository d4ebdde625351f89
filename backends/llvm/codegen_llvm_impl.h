/* codegen_llvm_impl.h: what the files of backends/llvm share: the code generator's state (Cg)
 * and the entry points of each part. codegen_llvm.c makes the module, the entry points and the
 * target machine; codegen_target.c parses target strings; codegen_expr.c the expressions;
 * codegen_intrin.c the calls; codegen_vecmath.c math on vectors (libmvec); codegen_llvm_call.c LLVM intrinsics by name and imported IR; codegen_mem.c loads and stores; codegen_stmt.c statements, loops and
 * parallel outlining. */
#ifndef TES_BACKENDS_LLVM_CODEGEN_LLVM_IMPL_H
#define TES_BACKENDS_LLVM_CODEGEN_LLVM_IMPL_H

#include <stdio.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "backends/llvm/codegen_llvm.h"
#include "ir/strbuf.h"

/* A variable's value in the function being generated. */
typedef struct CgBinding {
  const Var *var;
  LLVMValueRef val;
  LLVMValueRef wide; /* an int32 loop variable's i64 counter (cg_index), else NULL */
} CgBinding;

typedef struct Cg {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMTargetDataRef td;
  const char *name; /* the entry point's name */
  /* The function being generated: its allocas go at the end of alloca_bb, which branches to
   * the code once the function is complete. */
  LLVMValueRef fn;
  LLVMBasicBlockRef alloca_bb;
  /* Variables in scope, innermost last (searched from the end, so shadowing works). */
  CgBinding *env;
  int nenv, capenv;
  /* Heap buffers live at this point of the current function, freed on an early return. */
  LLVMValueRef *heap;
  int nheap, capheap;
  /* Inside one branch of a vector if_then_else: the lanes that branch is taken in (loads
   * outside them must not touch memory), else NULL. */
  LLVMValueRef lane_mask;
  /* Assertion messages: code k is messages[k - 1]. */
  char **messages;
  int nmessages;
  int nparallel;    /* outlined parallel bodies so far, for their names */
  bool in_parallel; /* generating an outlined body: nested parallel loops run serially */
  int unrolled;     /* statements emitted by unrolling, against a code-size limit */
  Diag *diag;       /* the first error; generation goes on with placeholder values */
  const char *features; /* the target's CPU features, "+avx2,+avx512f,..." (x86 intrinsics) */
  /* Ctrl-C polls (codegen_stmt.c): loops of the current function around the code being
   * generated that are not tiny, and real loops emitted so far. */
  int outer_big, nloops;
} Cg;

/* ---- codegen_loop_hint.c ---- */
/* A loop of a constant extent up to this is tiny: LLVM unrolls it fully to vectorize the loop
 * around it, and polling Ctrl-C in it alone would not do, nor after it (codegen_stmt.c). */
enum { CG_TINY_LOOP_MAX = 16 };
/* Whether a serial loop is one for LLVM's loop vectorizer to see whole (innermost, of a
 * constant extent above tiny, scalar loads, stores and arithmetic only), and whether body
 * holds one; extent may be NULL (not constant). */
bool cg_vec_candidate(const Var *var, const Expr *extent, const Stmt *body);
bool cg_holds_vec_candidate(const Stmt *body);
/* Marks the loop whose back edge is latch_br: not unrolled before the vectorizer (a
 * candidate: and its vectorized loops free to be), as such a loop and those around it must. */
void cg_loop_hint(Cg *cg, LLVMValueRef latch_br, bool candidate);

/* ---- codegen_target.c ---- */
/* A parsed llvm target string, with the host's CPU and features filled in where it names
 * none. All malloc'd. */
typedef struct CgTarget {
  char *triple, *cpu, *features;
  int opt_level;
} CgTarget;
const char *cg_llvm_args(void); /* the LLVM options TES_LLVM_ARGS gave (cg_llvm_init), or "" */
bool cg_target_parse(const char *target, CgTarget *t, Diag *d);
void cg_target_free(CgTarget *t);
/* The target machine of t, made on first use and kept for the process (never dispose it): the
 * same one for every build with the same triple, CPU, features and level. NULL with d set. */
LLVMTargetMachineRef cg_target_machine(const CgTarget *t, Diag *d);
char *cg_host_triple(void);                          /* malloc'd */
char *cg_llvm_message(char *s);                      /* an LLVM-owned message as a malloc'd copy */
char *cg_fmt(const char *fmt, ...) TES_PRINTF(1, 2); /* malloc'd */

/* ---- codegen_split.c ---- */
/* The machine code of mod (optimised) as a bundle of two objects generated on two threads
 * (jit/plugin_api.h) into *data: 1; 0 (nothing made) when mod is not worth splitting or
 * TES_LLVM_SPLIT=0; -1 with d set on an LLVM error. mod is not changed. */
int cg_split_emit(LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level, void **data,
                  size_t *len, Diag *d);

/* ---- codegen_pipeline.c ---- */
/* The new pass manager's pipeline for an optimisation level (0 to 3), for LLVMRunPasses. */
const char *cg_pipeline(int opt_level);

/* ---- codegen_llvm.c ---- */
void cg_bind(Cg *cg, const Var *v, LLVMValueRef val);
/* An int32 variable with its value also as i64 (a loop counter), for cg_index. */
void cg_bind_wide(Cg *cg, const Var *v, LLVMValueRef val, LLVMValueRef wide);
void cg_unbind(Cg *cg, int n);                /* drops the n innermost bindings */
LLVMValueRef cg_lookup(Cg *cg, const Var *v); /* NULL when v is not in scope */
LLVMValueRef cg_lookup_wide(Cg *cg, const Var *v); /* its i64 value; NULL when it has none */
/* Marks parameter index (0-based) of fn as a buffer: noalias, 64-byte aligned. */
void cg_buffer_param(Cg *cg, LLVMValueRef fn, int index);
/* An alloca of `count` elements of t at the function's entry, aligned to align bytes. */
LLVMValueRef cg_entry_alloca(Cg *cg, LLVMTypeRef t, unsigned count, unsigned align);
/* The intrinsic `name` overloaded on the given types, declared in the module. */
LLVMValueRef cg_intrinsic(Cg *cg, const char *name, LLVMTypeRef *types, int ntypes,
                          LLVMTypeRef *fn_type);
/* Calls a function the module declares by name (libc, libm, the runtime) of type fty. */
LLVMValueRef cg_call_named(Cg *cg, const char *name, LLVMTypeRef fty, LLVMValueRef *args, int n);
/* Frees the live heap buffers and returns code from the current function. */
void cg_return_code(Cg *cg, LLVMValueRef code);

/* ---- codegen_expr.c ---- */
LLVMTypeRef cg_type(Cg *cg, DType t);     /* in registers: bool is i1 */
LLVMTypeRef cg_mem_type(Cg *cg, DType t); /* in memory: bool is i8; one element */
LLVMValueRef cg_expr(Cg *cg, const Expr *e);
LLVMValueRef cg_splat(Cg *cg, LLVMValueRef v, int lanes);
LLVMValueRef cg_const_int(Cg *cg, DType t, int64_t v);
/* A value of dtype `from` converted to `to` (same lanes), every pair of dtypes. */
LLVMValueRef cg_convert(Cg *cg, LLVMValueRef v, DType from, DType to);
/* A value of integer type widened or narrowed to i64 as a signed or unsigned number. */
LLVMValueRef cg_to_i64(Cg *cg, LLVMValueRef v, DType from);
/* A scalar integer expression (an index, a loop bound) as i64. int32 index arithmetic is done
 * in 64 bits (constants, +, -, * of loop counters), where its nsw makes that the same value,
 * so LLVM has no 32-bit induction variables to widen (indvars) nor sign extensions to fold. */
LLVMValueRef cg_index(Cg *cg, const Expr *e);

/* ---- codegen_intrin.c ---- */
LLVMValueRef cg_call(Cg *cg, const Expr *e);

/* ---- codegen_vecmath.c ---- */
/* Whether the feature list ("+64bit,+avx2,-avx512f") turns feature on; the last mention wins.
 * The list is cg->features: the host's, or -mattr's (a CPU named by -mcpu alone lists none). */
bool cg_has_feature(const char *list, const char *feature);
/* The libmvec function `name` (the double version's name: "exp", "pow") on vectors of type t,
 * nargs arguments; NULL where the target has no libmvec (then the caller goes lane by lane). */
LLVMValueRef cg_vecmath(Cg *cg, const char *name, DType t, LLVMValueRef *args, int nargs);

/* ---- codegen_llvm_call.c ---- */
/* LLVM intrinsics by name and tir.reinterpret: false when e is none of them. */
bool cg_call_llvm(Cg *cg, const Expr *e, LLVMValueRef *out);
/* Links LLVM IR text (a StringImm) into the module: the "pragma_import_llvm" attr. */
void cg_import_llvm(Cg *cg, const Expr *text);

/* ---- codegen_mem.c ---- */
LLVMValueRef cg_load(Cg *cg, const Expr *e);
/* @tir.tvm_access_ptr(@tir.type_annotation(dtype=T), data, offset, extent, mask): the address
 * of element `offset` of data seen as T's (Buffer.access_ptr). */
LLVMValueRef cg_access_ptr(Cg *cg, const Expr *e);
/* @tir.address_of(B[index]) of a scalar load: the element's address. */
LLVMValueRef cg_address_of(Cg *cg, const Expr *e);
void cg_store(Cg *cg, const Stmt *s);

/* ---- codegen_stmt.c ---- */
void cg_stmt(Cg *cg, const Stmt *s);

#endif
