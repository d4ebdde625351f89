/* jit.h: running generated CPU code in this process through LLVM's ORC LLJIT. One JIT session
 * serves the whole process; each loaded object gets a JITDylib of its own, so two modules may
 * define the same names (a REPL rebuilding "default_function" while the old module is still
 * held), and unloading one frees its code and recycles its JITDylib. An object's undefined
 * symbols resolve to the runtime (jit/runtime.h) and to the libraries of the process (libc,
 * libm). Nothing here includes LLVM in its interface. */
#ifndef TES_JIT_JIT_H
#define TES_JIT_JIT_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/diag.h"

typedef struct JitLib JitLib;

/* Links an ELF object file for the host (backends/llvm's cg_llvm_object), or each object of
 * a bundle of them (cg_llvm_jit_object; jit/plugin_api.h), into the process. NULL with a user error on d (LLVM's own words) when the JIT cannot start or the object is
 * bad. */
JitLib *jit_load_object(const void *obj, size_t len, Diag *d);
/* The address of a symbol the object defines; the object is linked on the first lookup, so an
 * unresolved symbol shows here: NULL with d set. */
void *jit_lookup(JitLib *lib, const char *name, Diag *d);
/* Starts the JIT session now (the first load does otherwise): a build's front end runs this
 * on a thread of its own while it lowers. Any thread, any number of times. */
void jit_start(void);
/* Functions of the host that generated code calls by name (VTA's runtime,
 * frontend/tvm/vta_runtime.c): every object loaded after this call resolves names[i] to
 * addrs[i] before the process's own symbols. The names are kept, not copied (static strings);
 * a name defined again gets the new address. Any thread. */
void jit_define_host_symbols(int n, const char *const *names, void *const *addrs);
/* Frees the object's code; addresses looked up in it are dead after. NULL is fine. */
void jit_unload(JitLib *lib);

/* A shared object at path from an object file: the system C compiler ($CC, else cc) links it
 * with the runtime's source (jit/runtime.h), so its parallel loops run on a thread pool of
 * their own. false with d set (the compiler's own words) on failure. */
bool jit_export_shared(const char *path, const void *obj, size_t len, Diag *d);

#endif
