/* codegen_pipeline.c: the optimisation pipeline (LLVM's new pass manager) run on a module.
 * TES_LLVM_PASSES, when set, replaces it at levels 1 to 3 (a pipeline text as `opt -passes`
 * takes, e.g. "default<O3>"), to compare pipelines; it is part of the compile cache's key. */
#include <stdlib.h>

#include "backends/llvm/codegen_llvm_impl.h"

const char *cg_pipeline(int opt_level) {
  static const char *const levels[] = {"default<O0>", "default<O1>", "default<O2>", "default<O3>"};
  const char *env = getenv("TES_LLVM_PASSES");
  if (env && *env && opt_level > 0) return env;
  return levels[opt_level];
}
