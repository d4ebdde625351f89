/* vta_sim.h: a functional simulator of VTA (SPEC §13): a DRAM, the micro-op, input, weight and
 * accumulator SRAMs of a configuration, and the LOAD/STORE/GEMM/ALU/FINISH instruction stream
 * of jit/vta_isa.h executed over them bit-exactly (int8 x int8 summed into int32, ALU ops on the
 * int32 accumulators, STORE narrowing them to int8 by truncation). The three pipeline stages'
 * instruction queues and the four dependence-token queues between them are kept as the
 * hardware keeps them: an instruction waits for the tokens it pops, and a stream that waits for
 * a token no instruction pushes is an error, not a hang. The counters are those of VTA's own
 * functional simulator, counted when it counts them. */
#ifndef TES_JIT_VTA_SIM_H
#define TES_JIT_VTA_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "jit/vta_isa.h"

typedef struct VtaSim VtaSim;

/* What `vta.testing.simulator.stats()` gives, in its order. */
typedef struct VtaStats {
  uint64_t inp_load_nbytes; /* x_size * y_size input elements' bytes of each non-empty LOAD */
  uint64_t wgt_load_nbytes;
  uint64_t acc_load_nbytes; /* ACC and ACC_8BIT loads, in accumulator elements' bytes */
  uint64_t uop_load_nbytes; /* 4 bytes a micro-op */
  uint64_t out_store_nbytes;
  uint64_t gemm_counter;    /* iter_out * iter_in * (uop_end - uop_bgn) of each non-reset GEMM */
  uint64_t alu_counter;     /* the same of each ALU instruction */
} VtaStats;
#define VTA_STATS_FIELDS(X)                                                                    \
  X(inp_load_nbytes) X(wgt_load_nbytes) X(acc_load_nbytes) X(uop_load_nbytes)                  \
  X(out_store_nbytes) X(gemm_counter) X(alu_counter)

#define VTA_SIM_ERR 256 /* bytes of an error message */

/* A simulator of configuration c with dram_bytes of DRAM (reserved, not committed). NULL with
 * err set when the configuration's formats do not fit or the memory cannot be reserved. */
VtaSim *vta_sim_new(const VtaConfig *c, size_t dram_bytes, char err[VTA_SIM_ERR]);
void vta_sim_free(VtaSim *s);
const VtaConfig *vta_sim_config(const VtaSim *s);

/* DRAM: a buffer of nbytes, aligned to a 4 KiB page, at a physical address that is never 0.
 * 0 with err set when the DRAM is full. */
uint32_t vta_sim_alloc(VtaSim *s, size_t nbytes, char err[VTA_SIM_ERR]);
void vta_sim_release(VtaSim *s, uint32_t phys); /* a buffer vta_sim_alloc gave */
/* The host view of physical address phys (which must lie in an allocated buffer), else NULL. */
uint8_t *vta_sim_dram(VtaSim *s, uint32_t phys, size_t nbytes);

/* The physical address of host (a pointer into a buffer vta_sim_alloc gave, within the bytes
 * asked for), with *nbytes_after the buffer's bytes from there to its end; 0 when host is not
 * in one. */
uint32_t vta_sim_phys_of(const VtaSim *s, const void *host, size_t *nbytes_after);

/* Runs n instructions (the stream must end with FINISH). 0, or -1 with err naming the
 * instruction (its index and kind) and what is wrong with it; the SRAMs and DRAM then hold
 * whatever ran before it. */
int vta_sim_run(VtaSim *s, const VtaInsnBits *insns, size_t n, char err[VTA_SIM_ERR]);

/* The SRAM of memory type mem (VTA_MEM_UOP: the encoded micro-ops; INP, WGT: int8 elements;
 * ACC and OUT: the int32 accumulators), for tests and dumps. */
const void *vta_sim_sram(const VtaSim *s, int mem);

VtaStats vta_sim_stats(const VtaSim *s);
void vta_sim_clear_stats(VtaSim *s);

#endif
