/* llvm_plugin.h: the LLVM back end and the ORC JIT as a plugin. backends/llvm and jit/jit.c
 * link libLLVM, and loading it (relocations, page faults, LLVM's static initialisers) costs
 * about 15 ms, ten times tes's own start. So they are built into a shared object of their own,
 * libtes-llvm.so (beside tes in the build tree, in <libdir>/tes once installed), loaded on the
 * first tvm.build: a script that builds nothing starts without LLVM. The plugin exports one
 * function, tes_llvm_plugin, returning the table of jit/plugin_api.h. */
#ifndef TES_JIT_LLVM_PLUGIN_H
#define TES_JIT_LLVM_PLUGIN_H

#include "jit/plugin_api.h"

/* The plugin's table, loading it on the first call: from $TES_LLVM_PLUGIN when set, else the
 * first found of: beside the running binary, one folder up (the tests' binaries live in
 * build/tests/), the installed plugin folder reached from the binary's, that folder as
 * configured. NULL with a user error on d saying what could not be loaded (every place
 * tried); a later call tries again. */
const TesLlvm *tes_llvm(Diag *d);

#endif
