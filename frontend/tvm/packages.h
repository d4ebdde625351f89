/* packages.h: the tvm room's modules as the language's import finds them (tvm/packages.c). */
#ifndef TES_TVM_PACKAGES_H
#define TES_TVM_PACKAGES_H

#include "frontend/lang/value.h"

/* Registers tvm and its submodules, te, topi, vta and numpy (np_register_modules) with the
 * language's import (mod_register), and SPEC §5's prebound names. Every program that makes an
 * Interp calls it once at its start, before the first interp_new: main.c, the C tests, the
 * fuzzer. Calling it again does nothing. */
void tvm_register_modules(void);

/* tvm.nd's and tvm.testing's {0}-terminated member tables and tvm.nd's init (tvm/nd_bridge.c). */
extern const Builtin bi_tvm_nd_funcs[], bi_tvm_testing_funcs[];
int bi_tvm_nd_module_init(Interp *I, Value *module);

/* tvm.contrib.nvcc's members (tvm/contrib_nvcc.c). */
extern const Builtin bi_nvcc_funcs[];
/* tvm.contrib.utils: tempdir (contrib_utils.c) */
extern const Builtin bi_contrib_utils_funcs[];

#endif
