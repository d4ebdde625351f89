/* codegen_cuda.h: CUDA C of a lowered function whose body binds GPU threads, for the "cuda"
 * target (SPEC §9: imported_modules[0].get_source()). The host/device split is made at the
 * outermost thread_extent attributes: each becomes one kernel, `extern "C" __global__ void
 * __launch_bounds__(N) NAME_kernelK(...)`, taking the buffers it reads or writes as
 * __restrict__ pointers and the shape variables it uses, in the function's parameter order.
 * Nothing here compiles the text (jit/nvrtc.h does); the text includes cuda_fp16.h, the
 * toolkit's, when it computes with float16. */
#ifndef TES_BACKENDS_CUDA_CODEGEN_CUDA_H
#define TES_BACKENDS_CUDA_CODEGEN_CUDA_H

#include "ir/diag.h"
#include "ir/func.h"

/* A kernel and what launching it needs. The expressions point into the lowering's arena. */
typedef struct CudaKernel {
  char *name;                      /* NAME_kernelK */
  const Expr *grid[3], *block[3];  /* blockIdx.x/y/z and threadIdx.x/y/z extents; NULL: 1 */
  int nbufs;
  int *bufs; /* indices into f->params */
  int nscalars;
  const Var **scalars; /* shape variables, after the buffers */
} CudaKernel;

typedef struct CudaModule {
  char *source; /* the CUDA C of every kernel */
  char *host;   /* what the host function launches, as CUDA's <<<grid, block>>> lines */
  int nkernels;
  CudaKernel *kernels;
} CudaModule;

/* What the target's options change in the text. */
typedef struct CudaOptions {
  bool fast_math; /* "cuda -fast-math": __expf, __logf, ... for float32 instead of expf */
} CudaOptions;

/* The module (free with cg_cuda_free), or NULL with a user error on d (a BuildError): a store
 * outside every thread binding ("did you forget to bind?"), a thread tag bound with two
 * extents, or something the cuda target cannot say yet ("not supported yet: ... on the cuda
 * target"). opt NULL: the defaults. */
CudaModule *cg_cuda_build(const LoweredFunc *f, const CudaOptions *opt, Diag *d);
void cg_cuda_free(CudaModule *m);

#endif
