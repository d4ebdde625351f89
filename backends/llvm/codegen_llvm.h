/* codegen_llvm.h: LLVM IR from a lowered function (SPEC §9, target "llvm"), through the LLVM C
 * API, optimised with LLVM's new pass manager (a pipeline sized to lowered loops,
 * codegen_pipeline.c) for the host CPU (or the -mcpu/-mattr a
 * target string names), and emitted as text, assembly or an object file. No LLVM type shows
 * in this header, so the front end can hold the result without including LLVM.
 *
 * The ABI. A LoweredFunc named NAME becomes two external C functions:
 *
 *   int32_t NAME(T0 *restrict p0, ..., Tk *restrict pk, int32_t n0, ..., int32_t nm);
 *   int32_t NAME_packed(void **args);
 *
 * NAME takes one pointer per buffer parameter, in the LoweredFunc's order (each noalias and
 * 64-byte aligned, pointing at a compact row-major array of that parameter's element type;
 * bool elements are one byte), then one integer per shape variable: each variable that appears
 * in the parameters' shapes, in order of first appearance (ir_func_shape_vars), typed as the
 * variable is (int32_t, or int64_t for an int64 variable). NAME_packed is the same call with
 * every argument behind a pointer: args[i] points at the i-th pointer or integer, in NAME's
 * order. Both return 0 on success, and otherwise a code that cg_llvm_error_message explains:
 * k >= 1 is the k-th assertion of the function failing, CG_LLVM_ERR_NOMEM a heap allocation
 * failing, CG_LLVM_ERR_INTERRUPTED Ctrl-C. Parallel loops call rt_parallel_for (jit/runtime.h)
 * and heap buffers use the C library's aligned_alloc and free; nothing else outside libc and
 * libm is called. For Ctrl-C, every iteration of the outermost loop of each loop nest (in NAME
 * and in each chunk of a parallel loop), and of the loops under it while those have at most 16
 * iterations, loads the int rt_interrupt_requested (a relaxed atomic load through the GOT, on
 * a branch weighted as not taken) and returns CG_LLVM_ERR_INTERRUPTED when it is nonzero; a
 * loop polls only if it holds another loop (of more than 16 iterations or an unknown extent,
 * or itself holding one), so inner loops vectorize as before and a lone loop never polls. */
#ifndef TES_BACKENDS_LLVM_CODEGEN_LLVM_H
#define TES_BACKENDS_LLVM_CODEGEN_LLVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/diag.h"
#include "ir/func.h"

enum { CG_LLVM_ERR_NOMEM = -1, CG_LLVM_ERR_INTERRUPTED = -2, CG_LLVM_ERR_PACKED = -3 };

/* @tir.tvm_call_packed("name", args...) calls the runtime's
 *   int32_t rt_call_packed(const char *name, const int64_t *values, const int32_t *codes,
 *                          int32_t n, int64_t *ret);
 * (jit/runtime.h, which mirrors these codes): values[i] holds argument i as an int64, a
 * double's bits, a pointer or a C string's address, codes[i] says which; *ret is the result
 * (an int64, or a double's bits for a float call). A nonzero return (CG_LLVM_ERR_PACKED)
 * makes the function return it. */
enum { CG_LLVM_ARG_INT = 0, CG_LLVM_ARG_FLOAT = 1, CG_LLVM_ARG_HANDLE = 2, CG_LLVM_ARG_STR = 3,
       CG_LLVM_ARG_ARRAY = 4 };
/* CG_LLVM_ARG_ARRAY (a Buffer argument, @tir.tvm_stack_make_array of a compact buffer): the
 * address of int64 words {data, ndim, dtype (code | bits << 8 | lanes << 16), elem_offset,
 * shape[0], ..., shape[ndim - 1]}. */
enum { CG_LLVM_ARRAY_DATA, CG_LLVM_ARRAY_NDIM, CG_LLVM_ARRAY_DTYPE, CG_LLVM_ARRAY_OFFSET,
       CG_LLVM_ARRAY_SHAPE };

/* What cg_llvm_build made: an optimised LLVM module (or, from a cache entry, its text and
 * object file) and the target machine it was made for. */
typedef struct CgLlvmCode CgLlvmCode;

/* Checks a target string: "llvm" followed by options (-mcpu=NAME, -mattr=+a,-b,
 * -mtriple=TRIPLE, -opt-level=0..3, and TVM's -keys=, -device=, -model=, -libs=, -tag=, which
 * do nothing here). false with a user error on d naming what is wrong. */
bool cg_llvm_target_check(const char *target, Diag *d);

/* Generates, verifies and optimises f for target (NULL: "llvm", the host CPU with every
 * feature it has). NULL with d set when f holds something this backend cannot generate ("not
 * supported yet: ...", a BuildError), LLVM reports an error, or the module we generated is
 * invalid (an internal error). */
CgLlvmCode *cg_llvm_build(const LoweredFunc *f, const char *target, Diag *d);
void cg_llvm_free(CgLlvmCode *c);
/* cg_llvm_build in two steps, with the compile cache between them: generate makes and
 * verifies the module, optimize runs the pipeline on it (once; true after). */
CgLlvmCode *cg_llvm_generate(const LoweredFunc *f, const char *target, Diag *d);
bool cg_llvm_optimize(CgLlvmCode *c, Diag *d);
/* What a compile cache's key hashes, of a code not yet optimised: LLVM's version, the target
 * machine's triple, CPU, features and level, the pipeline, the assertion messages and the
 * module's bitcode. malloc'd, *len bytes. */
char *cg_llvm_cache_input(CgLlvmCode *c, size_t *len);
/* A cache entry of an optimised code: its messages, its IR text and what the JIT loads
 * (cg_llvm_jit_object, generated now if not yet). false with d set on an LLVM error. */
bool cg_llvm_cache_save(CgLlvmCode *c, void **data, size_t *len, Diag *d);
/* Makes a code not yet optimised what the entry says it becomes: its module is dropped, the
 * IR text and object are the entry's (assembly is made from that text when asked for). false,
 * and c unchanged, when the entry is not one cg_llvm_cache_save wrote. */
bool cg_llvm_cache_load(CgLlvmCode *c, const void *data, size_t len);

const char *cg_llvm_name(const CgLlvmCode *c); /* NAME */
/* The text of the optimised module (get_source("ll")); owned by c. */
const char *cg_llvm_ir_text(CgLlvmCode *c);
/* The host assembly (get_source("asm")), malloc'd; NULL with d set on an LLVM error. */
char *cg_llvm_asm_text(CgLlvmCode *c, Diag *d);
/* The ELF object file, malloc'd into *data (*len bytes); false with d set on an LLVM error. */
bool cg_llvm_object(CgLlvmCode *c, void **data, size_t *len, Diag *d);
/* What the JIT loads (jit_load_object): the ELF object file, or, for a module whose functions
 * were generated on two threads (codegen_split.c), a bundle of two (jit/plugin_api.h's
 * TES_OBJECT_BUNDLE_MAGIC); malloc'd into *data. false with d set on an LLVM error. */
bool cg_llvm_jit_object(CgLlvmCode *c, void **data, size_t *len, Diag *d);
/* The C header of NAME and NAME_packed for a shared object made of this code (export_library):
 * malloc'd; NULL with d set when a name is no C identifier. f is what c was built from. */
char *cg_llvm_c_header(const CgLlvmCode *c, const LoweredFunc *f, Diag *d);
/* Whether the module was built for the machine it runs on (same triple), so a JIT can run it. */
bool cg_llvm_runs_here(const CgLlvmCode *c);
/* What a nonzero return code of NAME means: the failed assertion's message, "out of memory",
 * "interrupted", or "unknown error code N" into buf. */
const char *cg_llvm_error_message(const CgLlvmCode *c, int32_t code, char buf[64]);
/* Registers LLVM's native target with LLVM's target registry, once per process. The registry is
 * not safe to fill from two threads at once: whatever else registers targets (the JIT's start)
 * calls this first. */
void cg_llvm_init(void);

#endif
