/* plugin_api.h: the table libtes-llvm.so hands the host (jit/llvm_plugin.h loads it): the LLVM
 * back end's functions (backends/llvm/codegen_llvm.h) and the JIT's (jit/jit.h, jit/runtime.h),
 * see there for what each does. Types only, with the code and the library opaque, so that the
 * back end, the JIT and the host all see the table without seeing each other; one file fills
 * it, backends/llvm/plugin.c. */
#ifndef TES_JIT_PLUGIN_API_H
#define TES_JIT_PLUGIN_API_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LoweredFunc LoweredFunc; /* ir/func.h */
typedef struct CgLlvmCode CgLlvmCode;   /* backends/llvm/codegen_llvm.h */
typedef struct JitLib JitLib;           /* jit/jit.h */
typedef struct Diag Diag;               /* ir/diag.h: how a call says why it failed */

/* What jit_object gives when the back end made the code as several objects (on two threads,
 * backends/llvm/codegen_split.c), and load_object takes besides one ELF object: this magic,
 * the number of objects, then each one's length and bytes (numbers as 8 bytes, least
 * significant first). Only the JIT and the compile cache see it; object() is always one ELF
 * object (save, export_library). */
#define TES_OBJECT_BUNDLE_MAGIC "tesobjs\n"
#define TES_OBJECT_BUNDLE_MAGIC_LEN 8

typedef struct TesLlvm {
  bool (*target_check)(const char *target, Diag *d);
  CgLlvmCode *(*build)(const LoweredFunc *f, const char *target, Diag *d);
  void (*free)(CgLlvmCode *c);
  const char *(*ir_text)(CgLlvmCode *c);
  char *(*asm_text)(CgLlvmCode *c, Diag *d);
  bool (*object)(CgLlvmCode *c, void **data, size_t *len, Diag *d);
  bool (*jit_object)(CgLlvmCode *c, void **data, size_t *len, Diag *d); /* for load_object */
  char *(*c_header)(const CgLlvmCode *c, const LoweredFunc *f, Diag *d);
  bool (*runs_here)(const CgLlvmCode *c);
  const char *(*error_message)(const CgLlvmCode *c, int32_t code, char buf[64]);
  JitLib *(*load_object)(const void *obj, size_t len, Diag *d);
  void *(*lookup)(JitLib *lib, const char *name, Diag *d);
  void (*unload)(JitLib *lib);
  bool (*export_shared)(const char *path, const void *obj, size_t len, Diag *d);
  void (*set_interrupt_flag)(atomic_int *flag); /* jit/runtime.h: before the first build */
  /* jit/runtime.h's rt_set_packed_hook: what call_packed in generated code calls */
  void (*set_packed_hook)(int32_t (*hook)(const char *name, const int64_t *values,
                                          const int32_t *codes, int32_t n, int64_t *ret));
  /* build in two steps around the compile cache, and the cache's key and entries */
  CgLlvmCode *(*generate)(const LoweredFunc *f, const char *target, Diag *d);
  bool (*optimize)(CgLlvmCode *c, Diag *d);
  char *(*cache_input)(CgLlvmCode *c, size_t *len);
  bool (*cache_save)(CgLlvmCode *c, void **data, size_t *len, Diag *d);
  bool (*cache_load)(CgLlvmCode *c, const void *data, size_t len);
  void (*start_jit)(void); /* jit/jit.h: jit_start, after cg_llvm_init (plugin.c) */
  /* jit/jit.h: jit_define_host_symbols */
  void (*define_host_symbols)(int n, const char *const *names, void *const *addrs);
} TesLlvm;

/* What the plugin exports. */
typedef const TesLlvm *(*TesLlvmPluginFn)(void);
#define TES_LLVM_PLUGIN_SYMBOL "tes_llvm_plugin"
#define TES_LLVM_PLUGIN_FILE "libtes-llvm.so"

#endif
