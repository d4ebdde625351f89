/* codegen_cuda.h: CUDA C of a lowered function whose body binds GPU threads, for the "cuda"
 * target (SPEC §9: imported_modules[0].get_source()). The host/device split is tir.SplitHostDevice's
 * (ir/pass/split_host_device.c; f->device): each of its kernels becomes `extern "C" __global__
 * void __launch_bounds__(N) NAME_kernelK(...)`, taking the buffers it reads or writes as
 * __restrict__ pointers and then the scalars it reads from host code (DeviceFunc's order).
 * backends/cuda/verify_gpu.h checks the function first. Nothing here compiles the text
 * (jit/nvrtc.h does); the text includes cuda_fp16.h, the toolkit's, when it computes with
 * float16. */
#ifndef TES_BACKENDS_CUDA_CODEGEN_CUDA_H
#define TES_BACKENDS_CUDA_CODEGEN_CUDA_H

#include "ir/diag.h"
#include "ir/func.h"

/* A kernel and what launching it needs. The expressions point into the lowering's arena.
 * Its arguments, in order: the parameters' buffers bufs (the device pointers of the arrays
 * passed for f->params[bufs[i]]), then the host allocations allocs (the device memory of
 * CudaModule.allocs[allocs[i]]), then the scalars: each the value of its variable where the
 * host launches the kernel (a shape variable: from the arrays' shapes as for the llvm target;
 * a variable of a host loop or let around the launch: its value in host_body's iteration). */
typedef struct CudaKernel {
  char *name;                      /* NAME_kernelK */
  const Expr *grid[3], *block[3];  /* blockIdx.x/y/z and threadIdx.x/y/z extents; NULL: 1 */
  int nbufs;
  int *bufs; /* indices into f->params */
  int nallocs;
  int *allocs; /* indices into CudaModule.allocs */
  int nscalars;
  const Var **scalars; /* after the buffers */
} CudaKernel;

/* A global buffer the host code allocates (an intermediate between kernels): the runtime
 * allocates the product of the extents, in elements of dtype, on the device where host_body
 * allocates it (before the kernels that use it run) and frees it after. The extents are
 * expressions of the shape variables (and of host variables around the allocation). */
typedef struct CudaAlloc {
  const Var *var; /* the buffer's data variable, as host_body and the kernels name it */
  DType dtype;
  int ndim;
  Expr *const *extents;
} CudaAlloc;

typedef struct CudaModule {
  char *source; /* the CUDA C of every kernel */
  /* What the host function does, as C text: device allocations, host loops and CUDA's
   * NAME<<<dim3(grid), dim3(block)>>>(args) launches. */
  char *host;
  int nkernels;
  CudaKernel *kernels;
  int nallocs;
  CudaAlloc *allocs;
  /* The host function itself (f->body after tir.SplitHostDevice), for a runtime to walk:
   * sequences, serial loops, lets, conditions and allocations (allocs, in walk order) around
   * launches, each `@tir.tvm_call_packed("NAME_kernelK", ...)` (EVALUATE) of kernels[K]. */
  const Stmt *host_body;
} CudaModule;

/* What the target's options change in the text. */
typedef struct CudaOptions {
  bool fast_math; /* "cuda -fast-math": __expf, __logf, ... for float32 instead of expf */
} CudaOptions;

/* The module (free with cg_cuda_free) of f, lowered for a GPU (tir.SplitHostDevice ran) and
 * verified (verify_gpu.h), or NULL with a user error on d (a BuildError): something the cuda
 * target cannot say yet ("not supported yet: ... on the cuda target"). opt NULL: the defaults. */
CudaModule *cg_cuda_build(const LoweredFunc *f, const CudaOptions *opt, Diag *d);
void cg_cuda_free(CudaModule *m);

#endif
