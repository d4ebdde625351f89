/* nd_cuda.h: n-d arrays in CUDA device memory (tvm.nd.array(x, tvm.cuda(0))). Such an array
 * is an NDArray with device ND_CUDA whose `data` is the device address (a CUdeviceptr held in
 * a pointer), which the host must never read or write: only these copies move its bytes.
 * nd_free frees it too (jit/ndarray.c). */
#ifndef TES_JIT_ND_CUDA_H
#define TES_JIT_ND_CUDA_H

#include "ir/diag.h"
#include "jit/cuda_driver.h"
#include "jit/ndarray.h"

/* A new array on cuda(id), its contents undefined (as TVM's empty); NULL with d set. */
NDArray *nd_cuda_new(DType t, int ndim, const int64_t *shape, int id, Diag *d);
/* The device address of a's data. */
CudaPtr nd_cuda_ptr(const NDArray *a);
/* Copies all of src's bytes into dst, either of them on the host or on a device; the two
 * hold the same number of bytes (the caller checks shapes and dtypes). */
bool nd_cuda_copy(NDArray *dst, const NDArray *src, Diag *d);

#endif
