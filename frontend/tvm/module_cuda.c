/* module_cuda.c: running a Module built for "cuda" (SPEC §9). The call's arguments are
 * checked and its shape variables bound as for llvm (module_args.c); the arrays are on one
 * CUDA device, where the module's PTX is loaded on the first call and kept (one load per
 * device, unloaded with the Module). Each kernel codegen_cuda found is launched in order on
 * the default stream, its grid and block the values of its extent expressions, its arguments
 * the device addresses of its buffers then its shape variables, as its signature lists them.
 * A launch's result is checked at the launch; with TES_CUDA_SYNC=1 in the environment each
 * launch is also waited for, so that a fault inside a kernel is reported at that kernel.
 * Launches are asynchronous otherwise: copying an array back (.numpy()) or dev.sync() waits.
 *
 * The host function holds only kernel launches (codegen_cuda refuses anything else around
 * them), so there are no intermediate buffers for the host to allocate. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/codegen_cuda.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/raise.h"
#include "jit/cuda_driver.h"

typedef struct CudaLoad {
  int id;
  CudaLoaded *mod;
  CudaFunction *fns; /* per kernel */
} CudaLoad;

void bi_module_cuda_free(Built *m) {
  for (int i = 0; i < m->nloads; i++) {
    cuda_module_unload(m->loads[i].mod);
    free(m->loads[i].fns);
  }
  free(m->loads);
  m->loads = NULL;
  m->nloads = 0;
}

/* m's PTX loaded on device id and its kernels looked up, the first time; NULL with d set. */
static CudaLoad *loaded(Built *m, int id, Diag *d) {
  for (int i = 0; i < m->nloads; i++)
    if (m->loads[i].id == id) return &m->loads[i];
  CudaLoaded *mod = cuda_module_load(id, m->ptx, d);
  if (!mod) return NULL;
  const CudaModule *cm = m->kernels;
  CudaFunction *fns = xcalloc((size_t)cm->nkernels + 1, sizeof *fns);
  for (int k = 0; k < cm->nkernels; k++)
    if (!(fns[k] = cuda_module_function(mod, cm->kernels[k].name, d))) {
      free(fns);
      cuda_module_unload(mod);
      return NULL;
    }
  m->loads = xrealloc(m->loads, (size_t)(m->nloads + 1) * sizeof *m->loads);
  m->loads[m->nloads] = (CudaLoad){id, mod, fns};
  return &m->loads[m->nloads++];
}

/* One launch dimension: an extent expression's value (NULL: 1); false with d set. */
static bool extent(const Built *m, const Args *a, const CudaKernel *k, const Expr *e,
                   const char *what, unsigned *out, Diag *d) {
  int64_t v = 1;
  if (e && !bi_module_eval_shape(m, &a->bd, e, &v))
    return ir_error(d, "%s: the %s of %s depends on something other than the shape variables",
                    m->name, what, k->name);
  if (v < 0 || v > INT32_MAX)
    return ir_error(d, "%s: the %s of %s is %lld, out of range for a launch", m->name, what,
                    k->name, (long long)v);
  *out = (unsigned)v;
  return true;
}

/* Whether the launch fits the device's limits; a clear message before the driver's. */
static bool fits(const Built *m, int id, const CudaKernel *k, const unsigned grid[3],
                 const unsigned block[3], Diag *d) {
  CudaLimits l;
  if (!cuda_device_limits(id, &l, d)) return false;
  static const char *const axis = "xyz";
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  if (threads > (uint64_t)l.max_threads_per_block)
    return ir_error(d, "%s: %s has %llu threads per block; cuda(%d) allows %d", m->name, k->name,
                    (unsigned long long)threads, id, l.max_threads_per_block);
  for (int i = 0; i < 3; i++) {
    if (block[i] > (unsigned)l.max_block[i])
      return ir_error(d, "%s: %s's threadIdx.%c extent %u is over cuda(%d)'s %d", m->name, k->name,
                      axis[i], block[i], id, l.max_block[i]);
    if (grid[i] > (unsigned)l.max_grid[i])
      return ir_error(d, "%s: %s's blockIdx.%c extent %u is over cuda(%d)'s %d", m->name, k->name,
                      axis[i], grid[i], id, l.max_grid[i]);
  }
  return true;
}

/* Launches kernel k; false with d set. */
static bool launch(const Built *m, const Args *a, CudaLoad *ld, int k, bool sync, Diag *d) {
  const CudaKernel *ck = &m->kernels->kernels[k];
  unsigned grid[3], block[3];
  static const char *const names[6] = {"blockIdx.x extent",  "blockIdx.y extent",
                                       "blockIdx.z extent",  "threadIdx.x extent",
                                       "threadIdx.y extent", "threadIdx.z extent"};
  for (int i = 0; i < 3; i++)
    if (!extent(m, a, ck, ck->grid[i], names[i], &grid[i], d) ||
        !extent(m, a, ck, ck->block[i], names[3 + i], &block[i], d))
      return false;
  /* an extent of 0 (a shape variable bound to 0): no thread has anything to do */
  if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2]) return true;
  if (!fits(m, ld->id, ck, grid, block, d)) return false;
  int n = ck->nbufs + ck->nscalars;
  CudaPtr *ptrs = xcalloc((size_t)ck->nbufs + 1, sizeof *ptrs);
  void **params = xcalloc((size_t)n + 1, sizeof *params);
  /* cuLaunchKernel reads each argument's value through params[i]: a buffer's device
   * address (a T* in the kernel), then the shape variables as int32 or int64 */
  for (int j = 0; j < ck->nbufs; j++) {
    ptrs[j] = (CudaPtr)(uintptr_t)a->ptrs[ck->bufs[j]];
    params[j] = &ptrs[j];
  }
  for (int j = 0; j < ck->nscalars; j++) {
    int s = bi_module_shape_index(m, ck->scalars[j]);
    params[ck->nbufs + j] =
        ck->scalars[j]->dtype.bits == 64 ? (void *)&a->i64[s] : (void *)&a->i32[s];
  }
  bool ok = cuda_launch(ld->mod, ld->fns[k], ck->name, grid, block, params, sync, d);
  free(params);
  free(ptrs);
  return ok;
}

static bool sync_each_launch(void) {
  const char *s = getenv("TES_CUDA_SYNC");
  return s && *s && strcmp(s, "0") != 0;
}

static bool run(Built *m, Args *a, Diag *d) {
  CudaLoad *ld = loaded(m, a->device_id, d);
  if (!ld) return false;
  bool sync = sync_each_launch();
  for (int k = 0; k < m->kernels->nkernels; k++)
    if (!launch(m, a, ld, k, sync, d)) return false;
  return true;
}

int bi_module_cuda_run(Interp *I, Built *m, Args *a) {
  Diag d = DIAG_INIT;
  if (run(m, a, &d)) return 0;
  bi_raise_diag(I, EXC_RuntimeError, &d);
  return -1;
}

/* As TVM's GPU timer: the device drained, an event before and one after `number` calls. */
double bi_module_cuda_time(Interp *I, Built *m, Args *a, int64_t number) {
  Diag d = DIAG_INIT;
  int id = a->device_id;
  CudaEvent start = NULL, end = NULL;
  float ms = 0;
  bool ok = cuda_sync(id, &d) && (start = cuda_event_new(id, &d)) &&
            (end = cuda_event_new(id, &d)) && cuda_event_record(id, start, &d);
  for (int64_t i = 0; ok && i < number; i++) {
    ok = run(m, a, &d);
    if (ok && bi_check_interrupt(I) < 0) {
      cuda_event_free(id, start);
      cuda_event_free(id, end);
      return -1;
    }
  }
  ok = ok && cuda_event_record(id, end, &d) && cuda_event_elapsed_ms(id, start, end, &ms, &d);
  cuda_event_free(id, start);
  cuda_event_free(id, end);
  if (!ok) return bi_raise_diag(I, EXC_RuntimeError, &d), -1;
  return (double)ms * 1e-3 / (double)number;
}
