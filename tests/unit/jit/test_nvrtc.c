/* test_nvrtc.c: unit tests of jit/nvrtc.c. Where NVRTC cannot be loaded the reason must say what
 * to install, and the compile checks are skipped with it printed. Where it can: a small kernel
 * compiles for sm_80 into PTX with its entry, and a kernel with a mistake gives NVRTC's log with
 * the generated line it names. */
#include <stdlib.h>

#include "jit/nvrtc.h"
#include "tests/unit/check.h"

static const char good[] =
    "extern \"C\" __global__ void __launch_bounds__(64) add_kernel0(float* __restrict__ A,\n"
    "    float* __restrict__ B) {\n"
    "  B[((int)blockIdx.x) * 64 + ((int)threadIdx.x)] =\n"
    "      expf(A[((int)blockIdx.x) * 64 + ((int)threadIdx.x)]) + 1.0f;\n"
    "}\n";

static const char bad[] = "extern \"C\" __global__ void broken_kernel0(float* A) {\n"
                          "  A[0] = undefined_name;\n"
                          "}\n";

int main(void) {
  Diag d = DIAG_INIT;
  if (!nvrtc_available(&d)) {
    CHECK(d.kind == DIAG_USER);
    CHECK(strstr(d.msg, "install") != NULL);
    printf("skipped: %s\n", d.msg);
    return finish();
  }
  char *ptx = nvrtc_compile(good, "sm_80", &d);
  CHECK(ptx != NULL);
  CHECK(!diag_failed(&d));
  if (ptx) {
    CHECK(strstr(ptx, ".entry add_kernel0") != NULL);
    CHECK(strstr(ptx, ".target sm_80") != NULL);
  }
  free(ptx);

  Diag e = DIAG_INIT;
  CHECK(nvrtc_compile(bad, "sm_80", &e) == NULL);
  CHECK(e.kind == DIAG_USER);
  CHECK(strstr(e.msg, "undefined_name") != NULL);
  CHECK(strstr(e.msg, "generated line 2:   A[0] = undefined_name;") != NULL);

  Diag f = DIAG_INIT;
  CHECK(nvrtc_compile(good, "sm_1", &f) == NULL); /* an architecture NVRTC does not know */
  CHECK(f.kind == DIAG_USER);
  return finish();
}
