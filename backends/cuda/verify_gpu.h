/* verify_gpu.h: what the cuda target checks of a function lowered for a GPU before it prints
 * a kernel (TVM's VerifyMemory and VerifyGPUCode): memory access from host code, threads and
 * shared and local memory per block against the device's limits, thread tags bound twice. */
#ifndef TES_BACKENDS_CUDA_VERIFY_GPU_H
#define TES_BACKENDS_CUDA_VERIFY_GPU_H

#include <stdint.h>

#include "ir/diag.h"
#include "ir/func.h"

/* A device's limits and where each comes from, for the messages ("the device's", "the
 * target's max_num_threads"). */
typedef struct GpuLimits {
  int64_t max_threads; /* threads a block */
  const char *max_threads_from;
  int64_t max_shared; /* bytes of shared memory a block */
  const char *max_shared_from;
  int64_t max_local; /* bytes of local memory a thread */
} GpuLimits;

/* CUDA's limit of local memory a thread (512 KiB on every architecture since sm_20). */
enum { CUDA_MAX_LOCAL_BYTES = 512 * 1024 };

/* True when f (after tir.SplitHostDevice) may be printed for the cuda target; else false with
 * a user error on d (a BuildError) naming the tensor, kernel or thread tag:
 * - a function that binds no loop to a GPU thread, or host code (outside every kernel) that
 *   stores to or loads from memory, which lives on the device ("did you forget to bind?"),
 *   or allocates shared or local memory;
 * - a kernel with more threads a block than lim->max_threads, more shared memory (in constant
 *   allocations) than lim->max_shared, more local memory a thread than lim->max_local;
 * - a thread tag bound twice in one kernel with different extents. */
bool cuda_verify(const LoweredFunc *f, const GpuLimits *lim, Diag *d);

#endif
