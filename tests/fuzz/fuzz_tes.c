/* fuzz_tes.c: libFuzzer target: every input is a whole TES program, run in a fresh session with
 * its output thrown away and a step limit, so that only crashes, sanitizer reports and leaks
 * count as findings (an infinite loop is a RuntimeError, not a timeout). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/packages.h"

enum { STEP_LIMIT = 100000 };

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  tvm_register_modules();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) devnull = fopen("/dev/null", "w");
  if (!devnull) return 0;
  Interp *I = interp_new();
  interp_set_stdout(I, devnull);
  interp_set_step_limit(I, STEP_LIMIT);
  if (interp_run_text(I, "<fuzz>", (const char *)data, size, false) < 0) interp_error_clear(I);
  interp_free(I);
  return 0;
}
