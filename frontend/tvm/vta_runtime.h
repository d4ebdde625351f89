/* vta_runtime.h: VTA's runtime in this process (vta_runtime.c, SPEC §13): the C functions a
 * module of vta.build calls, over the command queue of backends/vta and the session's
 * simulator (jit/vta_sim.h); ext_dev arrays in the simulator's DRAM; a VTA module's run; the
 * object files Module.save wrote, for LocalSession.load_module. */
#ifndef TES_TVM_VTA_RUNTIME_H
#define TES_TVM_VTA_RUNTIME_H

#include "frontend/tvm/build_impl.h"

/* What generated code calls (ir/pass/vta_lower_runtime.c makes the calls), named as VTA's
 * runtime names them; TVM's VTAPushGEMMOp/VTAPushALUOp take the kernel's recording function,
 * these push the kernel VTAUopKernelBegin chose, its body having run when that returned 1.
 * Integers are int32 as the IR's; each returns 0 (errors wait for bi_vta_leave). */
void *VTATLSCommandHandle(void);
int32_t VTALoadBuffer2D(void *cmd, void *src, int32_t src_elem_offset, int32_t x_size,
                        int32_t y_size, int32_t x_stride, int32_t x_pad_before,
                        int32_t y_pad_before, int32_t x_pad_after, int32_t y_pad_after,
                        int32_t dst_sram_index, int32_t dst_memory_type);
int32_t VTAStoreBuffer2D(void *cmd, int32_t src_sram_index, int32_t src_memory_type, void *dst,
                         int32_t dst_elem_offset, int32_t x_size, int32_t y_size,
                         int32_t x_stride);
int32_t VTADepPush(void *cmd, int32_t from, int32_t to);
int32_t VTADepPop(void *cmd, int32_t from, int32_t to);
int32_t VTASynchronize(void *cmd, int32_t wait_cycles);
/* The host's address of a buffer the CPU reads or writes in a VTA function (vta.CPUAccessRewrite):
 * in the simulator an ext_dev array is a host view of its DRAM, so the buffer's own pointer. */
void *VTABufferCPUPtr(void *cmd, void *buffer);
/* One value of the next kernel's signature (the uop scope's free variables, in order). */
int32_t VTAUopKernelSignature(int64_t value);
/* 1: the kernel of (site, signature) is not recorded yet, and what runs up to the push
 * records it; 0: it is, and the push pushes it. */
int32_t VTAUopKernelBegin(void *cmd, int32_t site);
int32_t VTAUopLoopBegin(int32_t extent, int32_t dst_factor, int32_t src_factor,
                        int32_t wgt_factor);
int32_t VTAUopLoopEnd(void);
int32_t VTAUopPush(int32_t mode, int32_t reset, int32_t dst, int32_t src, int32_t wgt,
                   int32_t opcode, int32_t use_imm, int32_t imm);
int32_t VTAPushGEMMOp(void *cmd);
int32_t VTAPushALUOp(void *cmd);

/* The session's simulator and command queue, and the runtime's functions defined for the JIT
 * (bi_llvm must be loaded): before a VTA module is linked or run. false with RuntimeError. */
bool bi_vta_runtime_ready(Interp *I);

/* A zero-filled array of VTA's DRAM on ext_dev(id); NULL with an error raised. */
NDArray *bi_vta_nd_new(Interp *I, DType t, int ndim, const int64_t *shape, int id);

/* Around a VTA module's NAME_packed: enter makes m's micro-op kernels the current ones; leave,
 * when the function returned 0 (ok), raises the first error the runtime's functions met
 * (RuntimeError, with the queue's or the simulator's message) and refuses instructions left
 * without a VTASynchronize; else (an assert failed, Ctrl-C: the caller raises that) it drops
 * what the run left in the queue. -1 raised. */
int bi_vta_enter(Interp *I, Built *m);
int bi_vta_leave(Interp *I, Built *m, bool ok);
/* The micro-op kernels recorded for m, freed with it. */
void bi_vta_module_free(Built *m);

/* Module.save of a VTA module's object file: remembers what was saved (by its SHA-256) with
 * m's lowering, so that load_module can give the loaded module its signature. */
void bi_vta_saved(const Built *m, const void *obj, size_t len);
/* The lowering and function of an object bi_vta_saved saw (a new reference to *l), or false. */
bool bi_vta_saved_find(const void *obj, size_t len, Lowered **l, const LoweredFunc **f);

#endif
