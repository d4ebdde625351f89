/* llvm_plugin.h: the LLVM back end and the ORC JIT as a plugin. backends/llvm and jit/jit.c
 * link libLLVM, and loading it (relocations, page faults, LLVM's static initialisers) costs
 * about 15 ms, ten times tes's own start. So they are built into a shared object of their own,
 * libtes-llvm.so (beside tes in the build tree, in <libdir>/tes once installed), loaded on the
 * first tvm.build: a script that builds nothing starts without LLVM. The plugin exports one
 * function, tes_llvm_plugin, returning this table of the functions of
 * backends/llvm/codegen_llvm.h, jit/jit.h and jit/runtime.h (see there for what each does);
 * cg_llvm_shape_vars needs no LLVM and is linked into both (abi.c). */
#ifndef TES_JIT_LLVM_PLUGIN_H
#define TES_JIT_LLVM_PLUGIN_H

#include <stdatomic.h>

#include "backends/llvm/codegen_llvm.h"
#include "jit/jit.h"

typedef struct TesLlvm {
  bool (*target_check)(const char *target, Diag *d);
  CgLlvmCode *(*build)(const LoweredFunc *f, const char *target, Diag *d);
  void (*free)(CgLlvmCode *c);
  const char *(*ir_text)(CgLlvmCode *c);
  char *(*asm_text)(CgLlvmCode *c, Diag *d);
  bool (*object)(CgLlvmCode *c, void **data, size_t *len, Diag *d);
  char *(*c_header)(const CgLlvmCode *c, const LoweredFunc *f, Diag *d);
  bool (*runs_here)(const CgLlvmCode *c);
  const char *(*error_message)(const CgLlvmCode *c, int32_t code, char buf[64]);
  JitLib *(*load_object)(const void *obj, size_t len, Diag *d);
  void *(*lookup)(JitLib *lib, const char *name, Diag *d);
  void (*unload)(JitLib *lib);
  bool (*export_shared)(const char *path, const void *obj, size_t len, Diag *d);
  void (*set_interrupt_flag)(atomic_int *flag); /* jit/runtime.h: before the first build */
} TesLlvm;

/* What the plugin exports (backends/llvm/plugin.c). */
typedef const TesLlvm *(*TesLlvmPluginFn)(void);
#define TES_LLVM_PLUGIN_SYMBOL "tes_llvm_plugin"
#define TES_LLVM_PLUGIN_FILE "libtes-llvm.so"

/* The plugin's table, loading it on the first call: from $TES_LLVM_PLUGIN when set, else the
 * first found of: beside the running binary, one folder up (the tests' binaries live in
 * build/tests/), the installed plugin folder reached from the binary's, that folder as
 * configured. NULL with a user error on d saying what could not be loaded (every place
 * tried); a later call tries again. */
const TesLlvm *tes_llvm(Diag *d);

#endif
