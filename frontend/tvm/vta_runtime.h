/* vta_runtime.h: VTA's runtime in this process (vta_runtime.c, SPEC §13): the C functions a
 * module of vta.build calls, over the command queue of backends/vta and the session's
 * simulator (jit/vta_sim.h); ext_dev arrays in the simulator's DRAM; a VTA module's run; the
 * object files Module.save wrote, for LocalSession.load_module. */
#ifndef TES_TVM_VTA_RUNTIME_H
#define TES_TVM_VTA_RUNTIME_H

#include "frontend/tvm/build_impl.h"

/* The session's simulator and command queue, and the runtime's functions defined for the JIT
 * (bi_llvm must be loaded): before a VTA module is linked or run. false with RuntimeError. */
bool bi_vta_runtime_ready(Interp *I);

/* A zero-filled array of VTA's DRAM on ext_dev(id); NULL with an error raised. */
NDArray *bi_vta_nd_new(Interp *I, DType t, int ndim, const int64_t *shape, int id);

/* Around a VTA module's NAME_packed: enter makes m's micro-op kernels the current ones; leave
 * raises the first error the runtime's functions met (RuntimeError, with the queue's or the
 * simulator's message) and refuses instructions left without a VTASynchronize. -1 raised. */
int bi_vta_enter(Interp *I, Built *m);
int bi_vta_leave(Interp *I, Built *m);
/* The micro-op kernels recorded for m, freed with it. */
void bi_vta_module_free(Built *m);

/* Module.save of a VTA module's object file: remembers what was saved (by its SHA-256) with
 * m's lowering, so that load_module can give the loaded module its signature. */
void bi_vta_saved(const Built *m, const void *obj, size_t len);
/* The lowering and function of an object bi_vta_saved saw (a new reference to *l), or false. */
bool bi_vta_saved_find(const void *obj, size_t len, Lowered **l, const LoweredFunc **f);

#endif
