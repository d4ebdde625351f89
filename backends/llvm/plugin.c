/* plugin.c: the one symbol libtes-llvm.so exports (jit/llvm_plugin.h): the table of the LLVM
 * back end's and the JIT's functions. */
#include "jit/llvm_plugin.h"

__attribute__((visibility("default"))) const TesLlvm *tes_llvm_plugin(void) {
  static const TesLlvm table = {
      .target_check = cg_llvm_target_check,
      .build = cg_llvm_build,
      .free = cg_llvm_free,
      .ir_text = cg_llvm_ir_text,
      .asm_text = cg_llvm_asm_text,
      .object = cg_llvm_object,
      .c_header = cg_llvm_c_header,
      .runs_here = cg_llvm_runs_here,
      .error_message = cg_llvm_error_message,
      .load_object = jit_load_object,
      .lookup = jit_lookup,
      .unload = jit_unload,
      .export_shared = jit_export_shared,
  };
  return &table;
}
