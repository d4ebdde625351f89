/* vta_cmdq.h: VTA's command queue, which turns the runtime calls that lowered VTA code makes
 * (VTA's VTALoadBuffer2D, VTAStoreBuffer2D, VTADepPush/VTADepPop, VTAPushGEMMOp/VTAPushALUOp
 * with the micro-op kernels recorded by VTAUopLoopBegin/VTAUopPush/VTAUopLoopEnd, and
 * VTASynchronize) into the instruction stream of jit/vta_isa.h, as VTA's runtime builds it:
 *
 * - a dependence pop is held pending and lands on the next instruction of the stage that pops
 *   (or on a no-op of that stage when it has none before the next push); a push sets the flag
 *   of the pushing stage's last instruction when that is its stage's, else adds a no-op;
 * - micro-op kernels are recorded once per (call site, signature) and cached in the micro-op
 *   SRAM: a kernel not cached is placed after the last one (from index 0 again, evicting what
 *   it overlaps, when it does not fit) and loaded by a LOAD UOP instruction before its GEMM or
 *   ALU; at a synchronisation every kernel's micro-ops are copied to the micro-op DRAM buffer
 *   in cache order and the cache is forgotten;
 * - synchronising pushes store->compute and load->compute tokens, pops them in the compute
 *   stage, ends the stream with FINISH and hands it to the device.
 *
 * DRAM addresses are physical byte addresses of the device's DRAM (the simulator's). */
#ifndef TES_BACKENDS_VTA_CMDQ_H
#define TES_BACKENDS_VTA_CMDQ_H

#include <stddef.h>
#include <stdint.h>

#include "jit/vta_isa.h"

#define VTA_MAX_XFER (1u << 25) /* bytes of one contiguous DMA buffer: the stream, the uops */
#define VTA_CMDQ_ERR 256

typedef struct VtaCmdQ VtaCmdQ;
typedef struct VtaUopKernel VtaUopKernel;

/* The device: runs n instructions after the nuops encoded micro-ops have been written to the
 * micro-op DRAM buffer. 0, or -1 with err set. */
typedef int (*VtaRunFn)(void *ctx, const VtaInsnBits *insns, size_t n, const uint32_t *uops,
                        size_t nuops, char err[VTA_CMDQ_ERR]);

/* A queue for configuration c whose micro-op DRAM buffer (VTA_MAX_XFER bytes) is at physical
 * address uop_phys, synchronising through run(ctx, ...). */
VtaCmdQ *vta_cmdq_new(const VtaConfig *c, uint32_t uop_phys, VtaRunFn run, void *ctx);
void vta_cmdq_free(VtaCmdQ *q);

/* Each returns 0, or -1 with err set (a field that does not fit its bits, a bad stage). */
int vta_cmdq_load_2d(VtaCmdQ *q, uint32_t src_phys, uint32_t src_elem_offset, uint32_t x_size,
                     uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, int dst_memory_type, char err[VTA_CMDQ_ERR]);
int vta_cmdq_store_2d(VtaCmdQ *q, uint32_t src_sram_index, int src_memory_type,
                      uint32_t dst_phys, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride, char err[VTA_CMDQ_ERR]);
/* Stages are VTA_STAGE_LOAD/COMPUTE/STORE; tokens flow between neighbours only. */
int vta_cmdq_dep_push(VtaCmdQ *q, int from, int to, char err[VTA_CMDQ_ERR]);
int vta_cmdq_dep_pop(VtaCmdQ *q, int from, int to, char err[VTA_CMDQ_ERR]);

/* The kernel recorded at call site `site` under signature `key` (VTAPushGEMMOp's uop_handle
 * and signature), or NULL: then vta_cmdq_kernel_record starts recording it. */
VtaUopKernel *vta_cmdq_kernel(VtaCmdQ *q, int site, int key);
VtaUopKernel *vta_cmdq_kernel_record(VtaCmdQ *q, int site, int key);
/* VTAUopLoopBegin (at most two loops, before the first micro-op), VTAUopLoopEnd, VTAUopPush
 * (mode 0 GEMM, 1 ALU; every micro-op of a kernel with the same mode, reset, ALU opcode and
 * immediate; no destination written twice in three successive micro-ops). */
int vta_kernel_loop_begin(VtaUopKernel *k, uint32_t extent, uint32_t dst_factor,
                          uint32_t src_factor, uint32_t wgt_factor, char err[VTA_CMDQ_ERR]);
void vta_kernel_loop_end(VtaUopKernel *k);
int vta_kernel_push(VtaUopKernel *k, int mode, int reset, uint32_t dst, uint32_t src,
                    uint32_t wgt, int alu_opcode, int use_imm, int32_t imm,
                    char err[VTA_CMDQ_ERR]);
size_t vta_kernel_size(const VtaUopKernel *k);

/* VTAPushGEMMOp / VTAPushALUOp with a recorded kernel. */
int vta_cmdq_push_gemm(VtaCmdQ *q, VtaUopKernel *k, char err[VTA_CMDQ_ERR]);
int vta_cmdq_push_alu(VtaCmdQ *q, VtaUopKernel *k, char err[VTA_CMDQ_ERR]);

/* VTASynchronize: finishes the stream and runs it. */
int vta_cmdq_synchronize(VtaCmdQ *q, char err[VTA_CMDQ_ERR]);

/* The stream so far (decoded), for tests and dumps. */
const VtaInsn *vta_cmdq_insns(const VtaCmdQ *q, size_t *n);

#endif
