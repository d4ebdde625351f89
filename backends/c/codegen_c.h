/* codegen_c.h: C source of a lowered function, for the "c" target (SPEC §9: get_source()
 * shows it). The function has the llvm target's ABI (backends/llvm/codegen_llvm.h): one
 * restrict pointer per buffer argument, then the shape variables, returning 0 or the number
 * of a failed assert. Vector expressions are written lane by lane in a loop over the lanes;
 * parallel loops carry `#pragma omp parallel for`. It is C11 that gcc compiles, meant to be
 * read; nothing in tes compiles it. */
#ifndef TES_BACKENDS_C_CODEGEN_C_H
#define TES_BACKENDS_C_CODEGEN_C_H

#include "ir/diag.h"
#include "ir/func.h"

/* The source (malloc'd), or NULL with a user error on d (a BuildError) when f holds something
 * C cannot say here ("not supported yet: ..."). */
char *cg_c_source(const LoweredFunc *f, Diag *d);

/* C's name for an element type: as the C source writes it (`_Float16`, `bool`, `void *`), or,
 * abi true, as an exported library's header declares it, where float16 travels as its bits
 * (`uint16_t`), bool as a byte (`uint8_t`) and a handle is the pointee `void`. */
const char *cg_c_type_name(DType t, bool abi);

#endif
