/* cuda_driver.h: the CUDA driver, loaded at run time (libcuda.so.1 comes with the NVIDIA
 * driver, not with the toolkit, so tes neither links it nor needs it to start). The probe
 * (how many devices, why none) and, in cuda_driver.c too, what running needs: device memory,
 * copies, PTX modules, launches, synchronisation, events and the device's limits. Each device
 * is used through its primary context, retained on first use and kept for the session.
 *
 * Every call that can fail takes a Diag and records a user error naming the driver's error
 * (its name and text, "CUDA_ERROR_OUT_OF_MEMORY (out of memory)") and what was being done
 * ("allocating 4096 bytes on cuda(0)"); the frontend raises it as a RuntimeError. */
#ifndef TES_JIT_CUDA_DRIVER_H
#define TES_JIT_CUDA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/diag.h"

/* The number of CUDA devices the driver reports: 0 when there is no driver, it fails to
 * initialise, or it sees no device. The first call loads and initialises the driver (the
 * library $TES_CUDA_DRIVER names when set, else libcuda.so.1); the answer is kept for the
 * session. */
int cuda_device_count(void);

/* Why cuda_device_count() is 0, in a sentence (the loader's message, the missing entry point
 * or the driver's error code); NULL when there are devices. */
const char *cuda_driver_error(void);

/* The driver's CUDA version as cuDriverGetVersion gives it (12040 for 12.4), whether or not it
 * sees a device; 0 when no driver could be loaded (cuda_driver_error() says why). */
int cuda_driver_version(void);

/* Whether CUDA device `id` exists. */
bool cuda_device_exists(int id);

/* CU_DEVICE_ATTRIBUTE_* numbers (CUdevice_attribute, cuda.h's values) of the queries tes makes. */
enum {
  CUDA_ATTR_MAX_THREADS_PER_BLOCK = 1,
  CUDA_ATTR_MAX_BLOCK_DIM_X = 2, /* Y and Z follow */
  CUDA_ATTR_MAX_GRID_DIM_X = 5,  /* Y and Z follow */
  CUDA_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CUDA_ATTR_WARP_SIZE = 10,
  CUDA_ATTR_MULTIPROCESSOR_COUNT = 16,
  CUDA_ATTR_CC_MAJOR = 75, /* COMPUTE_CAPABILITY_MAJOR */
  CUDA_ATTR_CC_MINOR = 76,
  CUDA_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* Attribute attr (a CU_DEVICE_ATTRIBUTE_* number) of device `id` into *value; false when the
 * device does not exist or the driver cannot say. */
bool cuda_device_attribute(int id, int attr, int *value);

/* Device `id`'s compute capability; false when it does not exist. */
bool cuda_compute_capability(int id, int *major, int *minor);

/* A device's limits, as cuDeviceGetAttribute gives them. */
typedef struct CudaLimits {
  int max_threads_per_block;
  int max_shared_memory_per_block;       /* bytes a block gets without opting in */
  int max_shared_memory_per_block_optin; /* bytes a kernel may opt in to */
  int warp_size;
  int multi_processor_count;
  int cc_major, cc_minor;
  int max_block[3], max_grid[3]; /* extents of threadIdx.x/y/z and blockIdx.x/y/z */
} CudaLimits;

/* Device id's limits (queried once, then kept); false with d set when there is no such
 * device or a query fails. */
bool cuda_device_limits(int id, CudaLimits *out, Diag *d);

/* Checks that device id can be used (it exists; its context can be made current): false with
 * d set ("no CUDA device (why)", "there is no cuda(3): the driver sees 1 device"). */
bool cuda_device_ready(int id, Diag *d);

/* Device memory: a CUdeviceptr (64 bits). */
typedef uint64_t CudaPtr;
bool cuda_mem_alloc(int id, size_t bytes, CudaPtr *out, Diag *d);
/* Frees p (0 does nothing); an error is recorded on d when d is not NULL, else dropped (a
 * value being freed has nowhere to report it). */
bool cuda_mem_free(int id, CudaPtr p, Diag *d);
bool cuda_copy_to_device(int id, CudaPtr dst, const void *src, size_t bytes, Diag *d);
bool cuda_copy_to_host(int id, void *dst, CudaPtr src, size_t bytes, Diag *d);
bool cuda_copy_on_device(int id, CudaPtr dst, CudaPtr src, size_t bytes, Diag *d);

/* A loaded module (cuModuleLoadDataEx of PTX text) and a kernel of it. */
typedef struct CudaLoaded CudaLoaded;
typedef void *CudaFunction;
/* The driver's JIT log is part of the error when loading fails. */
CudaLoaded *cuda_module_load(int id, const char *ptx, Diag *d);
CudaFunction cuda_module_function(CudaLoaded *m, const char *name, Diag *d);
void cuda_module_unload(CudaLoaded *m);
int cuda_module_device(const CudaLoaded *m);

/* Launches f (named `name` in errors) on the default stream: params[i] points at argument
 * i's value, as cuLaunchKernel takes them; the launch's own result is checked, and with
 * sync, cuCtxSynchronize's too, so a fault in the kernel is reported at this launch. */
bool cuda_launch(CudaLoaded *m, CudaFunction f, const char *name, const unsigned grid[3],
                 const unsigned block[3], void **params, bool sync, Diag *d);

/* Waits for everything launched on device id (cuCtxSynchronize). */
bool cuda_sync(int id, Diag *d);

/* Events on the default stream, for timing: elapsed milliseconds between two recorded ones
 * (waits for the second). */
typedef void *CudaEvent;
CudaEvent cuda_event_new(int id, Diag *d);
bool cuda_event_record(int id, CudaEvent e, Diag *d);
bool cuda_event_elapsed_ms(int id, CudaEvent start, CudaEvent end, float *ms, Diag *d);
void cuda_event_free(int id, CudaEvent e);

#endif
