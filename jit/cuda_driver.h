/* cuda_driver.h: the CUDA driver, loaded at run time (libcuda.so.1 comes with the NVIDIA
 * driver, not with the toolkit, so tes neither links it nor needs it to start). */
#ifndef TES_JIT_CUDA_DRIVER_H
#define TES_JIT_CUDA_DRIVER_H

#include <stdbool.h>

/* The number of CUDA devices the driver reports: 0 when there is no driver, it fails to
 * initialise, or it sees no device. The first call loads and initialises the driver (the
 * library $TES_CUDA_DRIVER names when set, else libcuda.so.1); the answer is kept for the
 * session. */
int cuda_device_count(void);

/* Why cuda_device_count() is 0, in a sentence (the loader's message, the missing entry point
 * or the driver's error code); NULL when there are devices. */
const char *cuda_driver_error(void);

/* Whether CUDA device `id` exists. */
bool cuda_device_exists(int id);

/* CU_DEVICE_ATTRIBUTE_* numbers of cuda_device_attribute's queries (cuda.h's values). */
enum {
  CUDA_ATTR_MAX_THREADS_PER_BLOCK = 1,
  CUDA_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CUDA_ATTR_WARP_SIZE = 10,
  CUDA_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* Attribute attr (a CU_DEVICE_ATTRIBUTE_* number) of device `id` into *value; false when the
 * device does not exist or the driver cannot say. */
bool cuda_device_attribute(int id, int attr, int *value);

/* Device `id`'s compute capability; false when it does not exist. */
bool cuda_compute_capability(int id, int *major, int *minor);

#endif
