/* test_cuda_driver.c: unit tests of jit/cuda_driver.c, the run-time probe of the CUDA driver.
 * Holds on any machine: with no driver (or no GPU) there are no devices and no compute
 * capability; with one, devices 0..count-1 exist, each with a plausible compute capability,
 * and none past them. The answer is stable across calls. */
#include <stdio.h>

#include "jit/cuda_driver.h"
#include "tests/unit/check.h"

int main(void) {
  int n = cuda_device_count(), major = -1, minor = -1;
  CHECK(n >= 0);
  CHECK(cuda_device_count() == n);
  CHECK(!cuda_device_exists(-1));
  CHECK(!cuda_device_exists(n));
  CHECK(!cuda_compute_capability(n, &major, &minor));
  for (int i = 0; i < n; i++) {
    CHECK(cuda_device_exists(i));
    CHECK(cuda_compute_capability(i, &major, &minor));
    CHECK(major >= 3 && major < 100 && minor >= 0 && minor < 10);
  }
  printf("%d CUDA device(s)\n", n);
  return finish();
}
