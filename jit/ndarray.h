/* ndarray.h: the one n-d array of tes (SPEC §9, §10). numpy arrays (`np.array`, ...) and
 * tvm.nd arrays are the same object, so a script passes either to a built function.
 *
 * Host memory, or a CUDA device's (device ND_CUDA: data is then a device address the host
 * must never dereference; jit/nd_cuda.h makes and copies those). Host data
 * is 64-byte aligned, so generated code may assume that alignment, and always contiguous and
 * row-major. numpy's views are copies in tes: slicing, transposing and reshaping make new
 * arrays (docs/numpy.md says so). An array is owned by exactly one holder; the frontend's
 * Value wraps it (frontend/np/ndarray.h) and frees it with the Value. jit/ may use this
 * header; it includes only ir/dtype.h. */
#ifndef TES_JIT_NDARRAY_H
#define TES_JIT_NDARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "ir/dtype.h"

enum { ND_MAX_DIMS = 32 }; /* numpy's limit */

typedef enum { ND_CPU = 1, ND_CUDA = 2, ND_EXT_DEV = 12 } NDDevice; /* DLPack's numbering */

typedef struct NDArray {
  DType dtype; /* lanes 1; bool is {DT_BOOL, 8, 1} in memory: one byte per element */
  int ndim;    /* 0 for a scalar array */
  int64_t shape[ND_MAX_DIMS];
  int64_t size; /* the product of shape (1 for ndim 0) */
  void *data;   /* size * nd_elem_bytes(dtype) bytes, 64-byte aligned; never NULL */
  NDDevice device;
  int device_id;
} NDArray;

/* Bytes per element: bits/8, and 1 for bool. */
size_t nd_elem_bytes(DType t);
/* A new zero-filled array on the CPU; NULL when the size overflows or memory runs out. */
NDArray *nd_new(DType t, int ndim, const int64_t *shape);
/* The array nd_new would make, with data NULL: the shape checked, for memory of elsewhere
 * (jit/nd_cuda.c). */
NDArray *nd_new_nodata(DType t, int ndim, const int64_t *shape);
/* A copy on the CPU of a host array; NULL for a device array (jit/nd_cuda.h copies those). */
NDArray *nd_copy(const NDArray *a);
/* Frees a and its data, host or device memory. */
void nd_free(NDArray *a);
/* How nd_free releases the data of an ND_EXT_DEV array (VTA's DRAM, whose owner sets it before
 * making one; frontend/tvm/vta_runtime.c). Its data is host-addressable: the simulator's. */
void nd_set_ext_free(void (*release)(int device_id, void *data));
/* size * nd_elem_bytes(dtype): the bytes of data in use. */
size_t nd_nbytes(const NDArray *a);

/* IEEE binary16 (float16 elements) to and from double; to half rounds to nearest even, and
 * out-of-range values become infinities. */
double nd_half_to_double(uint16_t h);
uint16_t nd_double_to_half(double d);
/* The compiler-runtime conversions that LLVM's code calls for half where the target has no
 * conversion instructions (x86-64 without F16C): __extendhfsf2, __truncsfhf2, __truncdfhf2,
 * with the half in a vector register as _Float16 is passed. The JIT resolves those names to
 * these (jit/llvm_plugin.c); n is 0 where the C compiler has no _Float16. */
int nd_half_libcalls(const char *const **names, void *const **addrs);

#endif
