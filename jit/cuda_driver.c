/* cuda_driver.c: see cuda_driver.h. Only the driver entry points a device probe needs are
 * looked up; their C ABI is stable and takes plain ints (a CUdevice is an int, CUresult an
 * enum whose success is 0), so no CUDA header is needed. */
#include "jit/cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 }; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_* */

static int device_count;
static int (*get_device)(int *dev, int ordinal);
static int (*get_attribute)(int *value, int attr, int dev);
static char why[512]; /* why device_count is 0; empty when it is not */
static pthread_once_t probed = PTHREAD_ONCE_INIT;

static void *entry(void *lib, const char *path, const char *name) {
  void *f = dlsym(lib, name);
  if (!f && !why[0]) snprintf(why, sizeof why, "%s has no entry point %s", path, name);
  return f;
}

static void probe(void) {
  const char *path = getenv("TES_CUDA_DRIVER");
  if (!path || !*path) path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load the CUDA driver: %s", e ? e : path);
    return;
  }
  /* The library stays loaded: the driver does not support being unloaded once initialised. */
  int (*init)(unsigned) = (int (*)(unsigned))entry(lib, path, "cuInit");
  int (*count)(int *) = (int (*)(int *))entry(lib, path, "cuDeviceGetCount");
  get_device = (int (*)(int *, int))entry(lib, path, "cuDeviceGet");
  get_attribute = (int (*)(int *, int, int))entry(lib, path, "cuDeviceGetAttribute");
  if (!init || !count) return;
  int n = 0, r = init(0);
  if (r != 0) {
    snprintf(why, sizeof why, "cuInit failed with CUDA error %d", r);
  } else if ((r = count(&n)) != 0) {
    snprintf(why, sizeof why, "cuDeviceGetCount failed with CUDA error %d", r);
  } else if (n <= 0) {
    snprintf(why, sizeof why, "the CUDA driver sees no device");
  } else {
    device_count = n;
    why[0] = 0; /* a missing attribute query only costs the compute capability */
  }
}

int cuda_device_count(void) {
  pthread_once(&probed, probe);
  return device_count;
}

const char *cuda_driver_error(void) { return cuda_device_count() ? NULL : why; }

bool cuda_device_exists(int id) { return id >= 0 && id < cuda_device_count(); }

bool cuda_device_attribute(int id, int attr, int *value) {
  int dev;
  return cuda_device_exists(id) && get_device && get_attribute && get_device(&dev, id) == 0 &&
         get_attribute(value, attr, dev) == 0;
}

bool cuda_compute_capability(int id, int *major, int *minor) {
  return cuda_device_attribute(id, ATTR_CC_MAJOR, major) &&
         cuda_device_attribute(id, ATTR_CC_MINOR, minor);
}
