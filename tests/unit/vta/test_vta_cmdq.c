/* test_vta_cmdq.c: unit tests of backends/vta/vta_cmdq.c, VTA's command queue, run on the
 * simulator of jit/vta_sim.c: where dependence flags land (on the stage's last instruction, or
 * a no-op), pending pops, the micro-op kernel cache (a kernel loaded once, its LOAD UOP counted
 * in uop_load_nbytes once; eviction when the buffer is full), a blocked GEMM + ALU + STORE
 * against hand-computed results and counters, and bad calls as errors. */
#include <stdlib.h>

#include "backends/vta/vta_cmdq.h"
#include "jit/vta_sim.h"
#include "tests/unit/check.h"
#include "tests/unit/vta/gemm_ref.h"

static const VtaConfig *C = &vta_default_config;

typedef struct Dev {
  VtaSim *sim;
  uint32_t uop_phys;
  int runs;
  size_t last_n, last_nuops;
} Dev;

static int dev_run(void *ctx, const VtaInsnBits *insns, size_t n, const uint32_t *uops,
                   size_t nuops, char *err) {
  Dev *d = ctx;
  d->runs++;
  d->last_n = n, d->last_nuops = nuops;
  uint8_t *dst = vta_sim_dram(d->sim, d->uop_phys, nuops * 4);
  if (nuops) memcpy(dst, uops, nuops * 4);
  return vta_sim_run(d->sim, insns, n, err);
}

static VtaCmdQ *dev_new(Dev *d) {
  char err[VTA_SIM_ERR];
  *d = (Dev){0};
  d->sim = vta_sim_new(C, 256u << 20, err);
  d->uop_phys = vta_sim_alloc(d->sim, VTA_MAX_XFER, err);
  return vta_cmdq_new(C, d->uop_phys, dev_run, d);
}

static void test_deps(void) {
  Dev d;
  VtaCmdQ *q = dev_new(&d);
  char err[VTA_CMDQ_ERR];
  uint32_t buf = vta_sim_alloc(d.sim, 4096, err);
  /* a push after the stage's own instruction sets its flag */
  CHECK(vta_cmdq_load_2d(q, buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_INP, err) == 0);
  CHECK(vta_cmdq_dep_push(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err) == 0);
  size_t n;
  const VtaInsn *in = vta_cmdq_insns(q, &n);
  CHECK(n == 1 && in[0].push_next && !in[0].push_prev);
  /* a second push of the same direction needs a no-op */
  CHECK(vta_cmdq_dep_push(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err) == 0);
  in = vta_cmdq_insns(q, &n);
  CHECK(n == 2 && in[1].opcode == VTA_OP_LOAD && in[1].x_size == 0 && in[1].push_next &&
        in[1].memory_type == VTA_MEM_INP);
  /* a pop waits for the next compute instruction */
  CHECK(vta_cmdq_dep_pop(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err) == 0);
  in = vta_cmdq_insns(q, &n);
  CHECK(n == 2);
  CHECK(vta_cmdq_load_2d(q, buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_ACC, err) == 0);
  in = vta_cmdq_insns(q, &n);
  CHECK(n == 3 && in[2].pop_prev && !in[2].pop_next && in[2].memory_type == VTA_MEM_ACC);
  /* two pops of one direction: the first lands on a no-op */
  CHECK(vta_cmdq_dep_pop(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err) == 0);
  CHECK(vta_cmdq_dep_pop(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err) == 0);
  in = vta_cmdq_insns(q, &n);
  CHECK(n == 4 && in[3].pop_prev && in[3].memory_type == VTA_MEM_UOP && in[3].x_size == 0);
  /* this stream pops a token more than it pushes: the simulator says so */
  CHECK(vta_cmdq_synchronize(q, err) == -1);
  CHECK(strstr(err, "waits for a token on the load to compute queue") != NULL);
  CHECK(d.runs == 1);
  /* bad stages */
  CHECK(vta_cmdq_dep_push(q, VTA_STAGE_LOAD, VTA_STAGE_STORE, err) == -1);
  CHECK(strstr(err, "VTADepPush(1, 3): tokens flow between neighbouring stages only") != NULL);
  CHECK(vta_cmdq_dep_pop(q, 0, 1, err) == -1);
  vta_cmdq_free(q);
  vta_sim_free(d.sim);
}

/* The synchronisation's tail: store->compute and load->compute tokens, popped before FINISH. */
static void test_sync_tail(void) {
  Dev d;
  VtaCmdQ *q = dev_new(&d);
  char err[VTA_CMDQ_ERR];
  CHECK(vta_cmdq_synchronize(q, err) == 0);
  CHECK(d.last_n == 4); /* a store no-op pushing, a load no-op pushing, a pop no-op, FINISH */
  vta_cmdq_free(q);
  vta_sim_free(d.sim);
}

/* out[i][j] = clip((sum_k x[i][k] w[j][k]) >> 2, 0, 127) for 4 input rows and one 16x16
 * weight block, with the kernels of a blocked schedule: reset, GEMM over a loop, three ALU ops,
 * a store. Run twice: the second run loads the kernels again (the SRAM is not trusted across
 * runs); within a run each kernel is loaded once. */
static void test_blocked_gemm(void) {
  Dev d;
  VtaCmdQ *q = dev_new(&d);
  char err[VTA_CMDQ_ERR];
  uint32_t x = vta_sim_alloc(d.sim, 4 * 16, err), w = vta_sim_alloc(d.sim, 256, err);
  uint32_t out = vta_sim_alloc(d.sim, 4 * 16, err);
  int8_t *xd = (int8_t *)vta_sim_dram(d.sim, x, 64), *wd = (int8_t *)vta_sim_dram(d.sim, w, 256);
  srand(7);
  for (int i = 0; i < 64; i++) xd[i] = (int8_t)(rand() % 256 - 128);
  for (int i = 0; i < 256; i++) wd[i] = (int8_t)(rand() % 256 - 128);
  for (int run = 0; run < 2; run++) {
    vta_sim_clear_stats(d.sim);
    int rc = 0;
    rc |= vta_cmdq_load_2d(q, x, 0, 4, 1, 4, 0, 0, 0, 0, 0, VTA_MEM_INP, err);
    rc |= vta_cmdq_load_2d(q, w, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_WGT, err);
    rc |= vta_cmdq_dep_push(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err);
    rc |= vta_cmdq_dep_pop(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, err);
    /* reset: one loop over the 4 rows */
    VtaUopKernel *k = vta_cmdq_kernel(q, 0, 0);
    if (!k) {
      k = vta_cmdq_kernel_record(q, 0, 0);
      rc |= vta_kernel_loop_begin(k, 4, 1, 0, 0, err);
      rc |= vta_kernel_push(k, 0, 1, 0, 0, 0, 0, 0, 0, err);
      vta_kernel_loop_end(k);
    }
    rc |= vta_cmdq_push_gemm(q, k, err);
    k = vta_cmdq_kernel(q, 1, 0);
    if (!k) {
      k = vta_cmdq_kernel_record(q, 1, 0);
      rc |= vta_kernel_loop_begin(k, 4, 1, 1, 0, err);
      rc |= vta_kernel_push(k, 0, 0, 0, 0, 0, 0, 0, 0, err);
      vta_kernel_loop_end(k);
    }
    rc |= vta_cmdq_push_gemm(q, k, err);
    static const int ops[3][2] = {{VTA_ALU_SHR, 2}, {VTA_ALU_MAX, 0}, {VTA_ALU_MIN, 127}};
    for (int o = 0; o < 3; o++) {
      k = vta_cmdq_kernel(q, 2 + o, 0);
      if (!k) {
        k = vta_cmdq_kernel_record(q, 2 + o, 0);
        for (int r = 0; r < 4; r++)
          rc |= vta_kernel_push(k, 1, 0, (uint32_t)r, (uint32_t)r, 0, ops[o][0], 1, ops[o][1],
                                err);
      }
      rc |= vta_cmdq_push_alu(q, k, err);
    }
    /* the same shift kernel again: cached, no second micro-op load */
    size_t before;
    vta_cmdq_insns(q, &before);
    rc |= vta_cmdq_push_alu(q, vta_cmdq_kernel(q, 3, 0), err); /* max 0 again: no change */
    size_t after;
    const VtaInsn *in = vta_cmdq_insns(q, &after);
    CHECK(after == before + 1 && in[after - 1].opcode == VTA_OP_ALU);
    rc |= vta_cmdq_dep_push(q, VTA_STAGE_COMPUTE, VTA_STAGE_STORE, err);
    rc |= vta_cmdq_dep_pop(q, VTA_STAGE_COMPUTE, VTA_STAGE_STORE, err);
    rc |= vta_cmdq_store_2d(q, 0, VTA_MEM_OUT, out, 0, 4, 1, 4, err);
    rc |= vta_cmdq_dep_push(q, VTA_STAGE_STORE, VTA_STAGE_COMPUTE, err);
    rc |= vta_cmdq_dep_pop(q, VTA_STAGE_STORE, VTA_STAGE_COMPUTE, err);
    rc |= vta_cmdq_synchronize(q, err);
    CHECK(rc == 0);
    if (rc) printf("  %s\n", err);
    const int8_t *od = (const int8_t *)vta_sim_dram(d.sim, out, 64);
    CHECK(gemm_shr_clip_matches(xd, wd, od));
    VtaStats st = vta_sim_stats(d.sim);
    CHECK(st.inp_load_nbytes == 64 && st.wgt_load_nbytes == 256);
    CHECK(st.uop_load_nbytes == (1 + 1 + 4 * 3) * 4); /* each kernel once */
    CHECK(st.gemm_counter == 4 && st.alu_counter == 4 * 4);
    CHECK(st.out_store_nbytes == 64 && st.acc_load_nbytes == 0);
    CHECK(d.last_nuops == 14);
  }
  CHECK(d.runs == 2);
  vta_cmdq_free(q);
  vta_sim_free(d.sim);
}

/* Kernels that do not fit after the last one start over at index 0, evicting what they
 * overlap; an evicted kernel is loaded again. */
static void test_eviction(void) {
  Dev d;
  VtaCmdQ *q = dev_new(&d);
  char err[VTA_CMDQ_ERR];
  VtaUopKernel *k[3];
  for (int i = 0; i < 3; i++) {
    k[i] = vta_cmdq_kernel_record(q, i, 0);
    for (uint32_t u = 0; u < 3000; u++) vta_kernel_push(k[i], 0, 1, u % 2048, 0, 0, 0, 0, 0, err);
    CHECK(vta_kernel_size(k[i]) == 3000);
  }
  int rc = 0;
  for (int i = 0; i < 3; i++) rc |= vta_cmdq_push_gemm(q, k[i], err);
  rc |= vta_cmdq_push_gemm(q, k[0], err); /* evicted by k[2]: loaded again */
  size_t n;
  const VtaInsn *in = vta_cmdq_insns(q, &n);
  CHECK(rc == 0 && n == 8);
  CHECK(in[0].memory_type == VTA_MEM_UOP && in[0].sram_base == 0 && in[0].x_size == 3000);
  CHECK(in[2].sram_base == 3000);
  CHECK(in[4].sram_base == 0 && in[5].uop_bgn == 0 && in[5].uop_end == 3000);
  CHECK(in[6].sram_base == 3000 && in[7].uop_bgn == 3000);
  CHECK(vta_cmdq_synchronize(q, err) == 0);
  CHECK(vta_sim_stats(d.sim).uop_load_nbytes == 4 * 3000 * 4);
  vta_cmdq_free(q);
  vta_sim_free(d.sim);
}

static void test_errors(void) {
  Dev d;
  VtaCmdQ *q = dev_new(&d);
  char err[VTA_CMDQ_ERR];
  uint32_t buf = vta_sim_alloc(d.sim, 4096, err);
  CHECK(vta_cmdq_load_2d(q, buf, 0, 70000, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_INP, err) == -1);
  CHECK(strstr(err, "VTALoadBuffer2D: x_size does not fit") != NULL);
  size_t n;
  vta_cmdq_insns(q, &n);
  CHECK(n == 0); /* nothing half-made stays */
  CHECK(vta_cmdq_load_2d(q, buf + 16, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_WGT, err) == -1);
  CHECK(strstr(err, "is not a multiple of the 256-byte element") != NULL);
  CHECK(vta_cmdq_load_2d(q, buf, 0, 1, 1, 1, 0, 0, 0, 0, 0, VTA_MEM_OUT, err) == -1);
  CHECK(vta_cmdq_store_2d(q, 0, VTA_MEM_ACC, buf, 0, 1, 1, 1, err) == -1);
  CHECK(strstr(err, "only out, 4, is stored") != NULL);
  VtaUopKernel *k = vta_cmdq_kernel_record(q, 9, 1);
  CHECK(vta_cmdq_kernel(q, 9, 1) == k && vta_cmdq_kernel(q, 9, 2) == NULL);
  CHECK(vta_cmdq_push_gemm(q, k, err) == -1 && strstr(err, "without micro-ops"));
  CHECK(vta_kernel_push(k, 1, 0, 0, 0, 0, VTA_ALU_ADD, 1, 5, err) == 0);
  CHECK(vta_kernel_push(k, 1, 0, 1, 0, 0, VTA_ALU_ADD, 1, 6, err) == -1);
  CHECK(strstr(err, "immediate 6 differs from the kernel's 5") != NULL);
  CHECK(vta_kernel_push(k, 0, 0, 1, 0, 0, 0, 0, 0, err) == -1 && strstr(err, "mode 0"));
  CHECK(vta_kernel_push(k, 1, 0, 0, 0, 0, VTA_ALU_ADD, 1, 5, err) == -1);
  CHECK(strstr(err, "accumulator 0 written by two micro-ops in a row") != NULL);
  CHECK(vta_kernel_loop_begin(k, 2, 0, 0, 0, err) == -1 && strstr(err, "after the kernel's"));
  CHECK(vta_cmdq_push_gemm(q, k, err) == -1 && strstr(err, "are ALU micro-ops"));
  VtaUopKernel *big = vta_cmdq_kernel_record(q, 10, 0);
  CHECK(vta_kernel_push(big, 0, 0, 5000, 0, 0, 0, 0, 0, err) == 0);
  CHECK(vta_cmdq_push_gemm(q, big, err) == -1);
  CHECK(strstr(err, "micro-op 0's indices (5000, 0, 0) do not fit") != NULL);
  VtaUopKernel *loops = vta_cmdq_kernel_record(q, 11, 0);
  for (int i = 0; i < 2; i++) CHECK(vta_kernel_loop_begin(loops, 2, 1, 1, 1, err) == 0);
  CHECK(vta_kernel_loop_begin(loops, 2, 1, 1, 1, err) == -1 && strstr(err, "at most 2 loops"));
  vta_cmdq_free(q);
  vta_sim_free(d.sim);
}

int main(void) {
  test_deps();
  test_sync_tail();
  test_blocked_gemm();
  test_eviction();
  test_errors();
  return finish();
}
