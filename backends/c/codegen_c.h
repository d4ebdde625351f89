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

#endif
