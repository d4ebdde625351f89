/* plugin.c: the one symbol libtes-llvm.so exports (jit/plugin_api.h): the table of the LLVM
 * back end's and the JIT's functions. The plugin's composition root, as frontend/main.c is the
 * executable's: the one file of backends/ that sees jit/ (tests/tools/check_arrows.py). */
#include "backends/llvm/codegen_llvm.h"
#include "jit/jit.h"
#include "jit/plugin_api.h"
#include "jit/runtime.h"

/* Generated code returns the code that the runtime's parallel loops pass on. */
_Static_assert((int)CG_LLVM_ERR_INTERRUPTED == (int)RT_ERR_INTERRUPTED, "one code for Ctrl-C");

/* The JIT starts on the thread that loads the plugin while the caller's thread lowers, then
 * parses the target: both register LLVM's native target, and LLVM's registry is not safe to
 * fill from two threads at once (an LLJIT started meanwhile failed, now and then, with "No
 * available targets are compatible with triple"). The back end's once-only registration
 * comes first, so the JIT's own finds it done. */
static void start_jit(void) {
  cg_llvm_init();
  jit_start();
}

__attribute__((visibility("default"))) const TesLlvm *tes_llvm_plugin(void) {
  static const TesLlvm table = {
      .target_check = cg_llvm_target_check,
      .build = cg_llvm_build,
      .free = cg_llvm_free,
      .ir_text = cg_llvm_ir_text,
      .asm_text = cg_llvm_asm_text,
      .object = cg_llvm_object,
      .jit_object = cg_llvm_jit_object,
      .c_header = cg_llvm_c_header,
      .runs_here = cg_llvm_runs_here,
      .error_message = cg_llvm_error_message,
      .load_object = jit_load_object,
      .lookup = jit_lookup,
      .unload = jit_unload,
      .export_shared = jit_export_shared,
      .set_interrupt_flag = rt_set_interrupt_flag,
      .set_packed_hook = rt_set_packed_hook,
      .generate = cg_llvm_generate,
      .optimize = cg_llvm_optimize,
      .cache_input = cg_llvm_cache_input,
      .cache_save = cg_llvm_cache_save,
      .cache_load = cg_llvm_cache_load,
      .start_jit = start_jit,
      .define_host_symbols = jit_define_host_symbols,
  };
  return &table;
}
