/* fake_cuda.c: a stand-in for libcuda.so.1 for test_cuda_driver.c, exporting the driver entry
 * points jit/cuda_driver.c resolves, with answers the test knows: device ordinal i is handle
 * 100 + i, device 0 has compute capability 8.6 and 1024 threads a block, the others 7.0 and
 * 512. The environment picks the
 * failures: FAKE_CUDA_INIT (cuInit's result), FAKE_CUDA_DEVICES (how many, default 2),
 * FAKE_CUDA_COUNT_ERROR (cuDeviceGetCount's result). Built once whole and once without each
 * of two entry points (FAKE_CUDA_NO_INIT, FAKE_CUDA_NO_ATTRIBUTE, see tests/meson.build). */
#include <stdlib.h>

enum { CUDA_ERROR_INVALID_VALUE = 1, CUDA_ERROR_INVALID_DEVICE = 101 };

/* How often cuInit ran: the probe must run once however often it is asked. */
int fake_cuda_init_calls;

static int env_int(const char *name, int otherwise) {
  const char *s = getenv(name);
  return s && *s ? atoi(s) : otherwise;
}

static int devices(void) { return env_int("FAKE_CUDA_DEVICES", 2); }

#ifndef FAKE_CUDA_NO_INIT
int cuInit(unsigned flags) {
  fake_cuda_init_calls++;
  return flags != 0 ? CUDA_ERROR_INVALID_VALUE : env_int("FAKE_CUDA_INIT", 0);
}
#endif

int cuDeviceGetCount(int *count) {
  int err = env_int("FAKE_CUDA_COUNT_ERROR", 0);
  if (!err) *count = devices();
  return err;
}

int cuDeviceGet(int *dev, int ordinal) {
  if (ordinal < 0 || ordinal >= devices()) return CUDA_ERROR_INVALID_DEVICE;
  *dev = 100 + ordinal;
  return 0;
}

#ifndef FAKE_CUDA_NO_ATTRIBUTE
int cuDeviceGetAttribute(int *value, int attr, int dev) {
  if (dev < 100 || dev >= 100 + devices()) return CUDA_ERROR_INVALID_DEVICE;
  if (attr == 75)
    *value = dev == 100 ? 8 : 7; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
  else if (attr == 76)
    *value = dev == 100 ? 6 : 0; /* ..._MINOR */
  else if (attr == 1)
    *value = dev == 100 ? 1024 : 512; /* CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
  else
    return CUDA_ERROR_INVALID_VALUE;
  return 0;
}
#endif
