/* nd_cuda.c: see nd_cuda.h. */
#include "jit/nd_cuda.h"

#include <stdlib.h>
#include <string.h>

NDArray *nd_cuda_new(DType t, int ndim, const int64_t *shape, int id, Diag *d) {
  NDArray *a = nd_new_nodata(t, ndim, shape);
  if (!a) return ir_error(d, "cannot make an array of that shape on cuda(%d): too large", id), NULL;
  CudaPtr p;
  if (!cuda_mem_alloc(id, nd_nbytes(a), &p, d)) return free(a), NULL;
  a->data = (void *)(uintptr_t)p;
  a->device = ND_CUDA;
  a->device_id = id;
  return a;
}

CudaPtr nd_cuda_ptr(const NDArray *a) { return (CudaPtr)(uintptr_t)a->data; }

bool nd_cuda_copy(NDArray *dst, const NDArray *src, Diag *d) {
  size_t n = nd_nbytes(src);
  if (src->device == ND_CPU && dst->device == ND_CPU) return memcpy(dst->data, src->data, n), true;
  if (src->device == ND_CPU)
    return cuda_copy_to_device(dst->device_id, nd_cuda_ptr(dst), src->data, n, d);
  if (dst->device == ND_CPU)
    return cuda_copy_to_host(src->device_id, dst->data, nd_cuda_ptr(src), n, d);
  if (src->device_id == dst->device_id)
    return cuda_copy_on_device(src->device_id, nd_cuda_ptr(dst), nd_cuda_ptr(src), n, d);
  /* between two devices, through the host (no peer access is set up) */
  void *host = malloc(n ? n : 1);
  if (!host) return ir_error(d, "out of memory copying %zu bytes between devices", n);
  bool ok = cuda_copy_to_host(src->device_id, host, nd_cuda_ptr(src), n, d) &&
            cuda_copy_to_device(dst->device_id, nd_cuda_ptr(dst), host, n, d);
  free(host);
  return ok;
}
