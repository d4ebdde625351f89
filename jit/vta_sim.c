/* vta_sim.c: VTA's functional simulator (vta_sim.h). The stream is split into the three stages'
 * queues as VTA's fetch unit splits it (STORE to the store stage; LOAD of inputs and weights to
 * the load stage; micro-op and accumulator loads, GEMM, ALU and FINISH to the compute stage),
 * then run in program order as far as the dependence tokens let each instruction go. */
#include "jit/vta_sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ir/support.h"

#define PAGE 4096u

typedef struct Block {
  uint32_t phys, size; /* size: whole pages */
  size_t nbytes;       /* as asked */
} Block;

struct VtaSim {
  VtaConfig cfg;
  uint8_t *dram; /* dram_bytes reserved; physical address p is dram[p] */
  size_t dram_bytes;
  Block *blocks; /* allocated buffers, sorted by address */
  int nblocks, capblocks;
  uint32_t *uop;           /* encoded micro-ops */
  int8_t *inp, *wgt;       /* BATCH x BLOCK and BLOCK x BLOCK int8 elements */
  int32_t *acc;            /* BATCH x BLOCK int32 elements */
  VtaStats stats;
};

static int fail(char *err, const char *fmt, ...) TES_PRINTF(2, 3);
static int fail(char *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, VTA_SIM_ERR, fmt, ap);
  va_end(ap);
  return -1;
}

VtaSim *vta_sim_new(const VtaConfig *c, size_t dram_bytes, char err[VTA_SIM_ERR]) {
  if (c->log_inp_width != 3 || c->log_wgt_width != 3 || c->log_acc_width != 5) {
    fail(err, "not supported yet: VTA widths other than int8 inputs and weights and int32 "
              "accumulators");
    return NULL;
  }
  VtaField f[24];
  int pos[24], w[3];
  for (int op = VTA_OP_LOAD; op <= VTA_OP_ALU; op++)
    if (vta_field_positions(f, vta_insn_fields(c, op, f), pos) < 0 || vta_uop_widths(c, w) < 0) {
      fail(err, "VTA configuration: its buffers are too deep for the 128-bit instructions");
      return NULL;
    }
  if (dram_bytes > UINT32_MAX - PAGE) dram_bytes = UINT32_MAX - PAGE;
  void *mem = mmap(NULL, dram_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) {
    fail(err, "VTA simulator: cannot reserve %zu bytes of DRAM", dram_bytes);
    return NULL;
  }
  VtaSim *s = xcalloc(1, sizeof *s);
  s->cfg = *c;
  s->dram = mem;
  s->dram_bytes = dram_bytes;
  s->uop = xcalloc(vta_depth(c, VTA_MEM_UOP), sizeof *s->uop);
  s->inp = xcalloc(vta_depth(c, VTA_MEM_INP), vta_elem_bytes(c, VTA_MEM_INP));
  s->wgt = xcalloc(vta_depth(c, VTA_MEM_WGT), vta_elem_bytes(c, VTA_MEM_WGT));
  s->acc = xcalloc(vta_depth(c, VTA_MEM_ACC), vta_elem_bytes(c, VTA_MEM_ACC));
  return s;
}

void vta_sim_free(VtaSim *s) {
  if (!s) return;
  munmap(s->dram, s->dram_bytes);
  free(s->blocks);
  free(s->uop);
  free(s->inp);
  free(s->wgt);
  free(s->acc);
  free(s);
}

const VtaConfig *vta_sim_config(const VtaSim *s) { return &s->cfg; }

uint32_t vta_sim_alloc(VtaSim *s, size_t nbytes, char err[VTA_SIM_ERR]) {
  uint64_t size = ((uint64_t)(nbytes ? nbytes : 1) + PAGE - 1) / PAGE * PAGE;
  uint64_t at = PAGE; /* address 0 stays invalid */
  int i = 0;
  for (; i < s->nblocks; i++) {
    if (at + size <= s->blocks[i].phys) break;
    at = (uint64_t)s->blocks[i].phys + s->blocks[i].size;
  }
  if (at + size > s->dram_bytes) {
    fail(err, "VTA simulator: DRAM full (%zu bytes asked, %zu in all)", nbytes, s->dram_bytes);
    return 0;
  }
  if (s->nblocks == s->capblocks) {
    s->capblocks = s->capblocks ? 2 * s->capblocks : 16;
    s->blocks = xrealloc(s->blocks, (size_t)s->capblocks * sizeof *s->blocks);
  }
  memmove(s->blocks + i + 1, s->blocks + i, (size_t)(s->nblocks - i) * sizeof *s->blocks);
  s->blocks[i] = (Block){(uint32_t)at, (uint32_t)size, nbytes};
  s->nblocks++;
  memset(s->dram + at, 0, size);
  return (uint32_t)at;
}

void vta_sim_release(VtaSim *s, uint32_t phys) {
  for (int i = 0; i < s->nblocks; i++)
    if (s->blocks[i].phys == phys) {
      memmove(s->blocks + i, s->blocks + i + 1, (size_t)(s->nblocks - i - 1) * sizeof *s->blocks);
      s->nblocks--;
      return;
    }
}

uint8_t *vta_sim_dram(VtaSim *s, uint32_t phys, size_t nbytes) {
  for (int i = 0; i < s->nblocks; i++) {
    const Block *b = &s->blocks[i];
    if (phys >= b->phys && (uint64_t)phys + nbytes <= (uint64_t)b->phys + b->size)
      return s->dram + phys;
  }
  return NULL;
}

uint32_t vta_sim_phys_of(const VtaSim *s, const void *host, size_t *nbytes_after) {
  const uint8_t *p = host;
  if (p < s->dram || p >= s->dram + s->dram_bytes) return 0;
  uint32_t phys = (uint32_t)(p - s->dram);
  for (int i = 0; i < s->nblocks; i++) {
    const Block *b = &s->blocks[i];
    if (phys >= b->phys && phys < b->phys + b->nbytes) {
      *nbytes_after = b->nbytes - (phys - b->phys);
      return phys;
    }
  }
  return 0;
}

const void *vta_sim_sram(const VtaSim *s, int mem) {
  switch (mem) {
  case VTA_MEM_UOP: return s->uop;
  case VTA_MEM_INP: return s->inp;
  case VTA_MEM_WGT: return s->wgt;
  default: return s->acc;
  }
}

VtaStats vta_sim_stats(const VtaSim *s) { return s->stats; }
void vta_sim_clear_stats(VtaSim *s) { memset(&s->stats, 0, sizeof s->stats); }

/* ---- executing one instruction ---- */

static const char *const mem_names[] = {"UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT"};

static const char *insn_name(const VtaInsn *in) {
  switch (in->opcode) {
  case VTA_OP_LOAD: return "LOAD";
  case VTA_OP_STORE: return "STORE";
  case VTA_OP_GEMM: return "GEMM";
  case VTA_OP_FINISH: return "FINISH";
  case VTA_OP_ALU: return "ALU";
  default: return "unknown opcode";
  }
}

/* The DRAM bytes a 2D access reads or writes: rows of x_size elements, x_stride apart. */
static uint8_t *dram_2d(VtaSim *s, const VtaInsn *in, uint64_t base, uint32_t eb) {
  uint64_t span = ((uint64_t)(in->y_size - 1) * in->x_stride + in->x_size) * eb;
  if (base > UINT32_MAX || base + span > (uint64_t)UINT32_MAX + 1) return NULL;
  return vta_sim_dram(s, (uint32_t)base, (size_t)span);
}

static int run_load(VtaSim *s, const VtaInsn *in, char *err) {
  const VtaConfig *c = &s->cfg;
  int mem = in->memory_type;
  if (in->x_size == 0) return 0; /* a no-op carrying dependence tokens */
  if (mem == VTA_MEM_OUT || mem > VTA_MEM_ACC_8BIT)
    return fail(err, "a LOAD into memory type %d, which is no SRAM to load", mem);
  uint32_t eb = vta_elem_bytes(c, mem);
  uint64_t xtotal = (uint64_t)in->x_size + in->x_pad0 + in->x_pad1;
  uint64_t ytotal = (uint64_t)in->y_size + in->y_pad0 + in->y_pad1;
  if (in->sram_base + xtotal * ytotal > vta_depth(c, mem))
    return fail(err, "a LOAD of %llu %s elements from SRAM index %u overflows the buffer's %u",
                (unsigned long long)(xtotal * ytotal), mem_names[mem], in->sram_base,
                vta_depth(c, mem));
  if (in->y_size > 1 && in->x_stride < in->x_size)
    return fail(err, "a LOAD whose x_stride %u is less than its x_size %u", in->x_stride,
                in->x_size);
  /* an ACC_8BIT element is read as int8 values, a quarter of the accumulator's bytes */
  bool narrow = mem == VTA_MEM_ACC_8BIT;
  uint32_t deb = narrow ? eb / 4 : eb;
  const uint8_t *src = dram_2d(s, in, (uint64_t)in->dram_base * deb, deb);
  if (!src)
    return fail(err, "a LOAD reads DRAM [0x%llx, +%llu elements) outside any buffer",
                (unsigned long long)in->dram_base * deb,
                (unsigned long long)in->y_size * in->x_stride);
  uint64_t *counter = mem == VTA_MEM_INP   ? &s->stats.inp_load_nbytes
                      : mem == VTA_MEM_WGT ? &s->stats.wgt_load_nbytes
                      : mem == VTA_MEM_UOP ? &s->stats.uop_load_nbytes
                                           : &s->stats.acc_load_nbytes;
  *counter += (uint64_t)in->x_size * in->y_size * eb;
  uint8_t *sram = mem == VTA_MEM_UOP   ? (uint8_t *)s->uop
                  : mem == VTA_MEM_WGT ? (uint8_t *)s->wgt
                  : mem == VTA_MEM_INP ? (uint8_t *)s->inp
                                       : (uint8_t *)s->acc;
  uint8_t *p = sram + (uint64_t)in->sram_base * eb;
  memset(p, 0, xtotal * in->y_pad0 * eb);
  p += xtotal * in->y_pad0 * eb;
  for (uint32_t y = 0; y < in->y_size; y++) {
    memset(p, 0, (size_t)in->x_pad0 * eb);
    p += (size_t)in->x_pad0 * eb;
    const uint8_t *row = src + (uint64_t)y * in->x_stride * deb;
    if (narrow) {
      for (uint32_t k = 0; k < in->x_size * deb; k++) {
        int32_t v = (int8_t)row[k];
        memcpy(p + (size_t)k * 4, &v, 4);
      }
    } else {
      memcpy(p, row, (size_t)in->x_size * eb);
    }
    p += (size_t)in->x_size * eb;
    memset(p, 0, (size_t)in->x_pad1 * eb);
    p += (size_t)in->x_pad1 * eb;
  }
  memset(p, 0, xtotal * in->y_pad1 * eb);
  return 0;
}

static int run_store(VtaSim *s, const VtaInsn *in, char *err) {
  const VtaConfig *c = &s->cfg;
  if (in->x_size == 0) return 0; /* a no-op carrying dependence tokens */
  if (in->memory_type != VTA_MEM_OUT)
    return fail(err, "a STORE from memory type %d; only OUT (%d) is stored", in->memory_type,
                VTA_MEM_OUT);
  if (in->x_pad0 || in->x_pad1 || in->y_pad0 || in->y_pad1)
    return fail(err, "a STORE with padding (only LOAD pads)");
  if (in->sram_base + (uint64_t)in->x_size * in->y_size > vta_depth(c, VTA_MEM_OUT))
    return fail(err, "a STORE of %llu elements from SRAM index %u overflows the buffer's %u",
                (unsigned long long)in->x_size * in->y_size, in->sram_base,
                vta_depth(c, VTA_MEM_OUT));
  if (in->y_size > 1 && in->x_stride < in->x_size)
    return fail(err, "a STORE whose x_stride %u is less than its x_size %u", in->x_stride,
                in->x_size);
  uint32_t eb = vta_elem_bytes(c, VTA_MEM_OUT), lanes = (uint32_t)(vta_batch(c) * vta_block(c));
  int8_t *dst = (int8_t *)dram_2d(s, in, (uint64_t)in->dram_base * eb, eb);
  if (!dst)
    return fail(err, "a STORE writes DRAM [0x%llx, +%llu elements) outside any buffer",
                (unsigned long long)in->dram_base * eb,
                (unsigned long long)in->y_size * in->x_stride);
  s->stats.out_store_nbytes += (uint64_t)in->x_size * in->y_size * eb;
  for (uint32_t y = 0; y < in->y_size; y++)
    for (uint32_t x = 0; x < in->x_size; x++) {
      const int32_t *a = s->acc + ((uint64_t)in->sram_base + (uint64_t)y * in->x_size + x) * lanes;
      int8_t *o = dst + ((uint64_t)y * in->x_stride + x) * lanes;
      for (uint32_t i = 0; i < lanes; i++) o[i] = (int8_t)(uint8_t)(uint32_t)a[i];
    }
  return 0;
}

/* The micro-op loop of GEMM and ALU: checks the ranges, then calls body on each index triple. */
typedef struct LoopIdx {
  uint32_t acc, src, wgt;
} LoopIdx;

static int check_uops(VtaSim *s, const VtaInsn *in, char *err) {
  if (in->uop_end < in->uop_bgn)
    return fail(err, "uop_end %u before uop_bgn %u", in->uop_end, in->uop_bgn);
  if (in->uop_end > vta_depth(&s->cfg, VTA_MEM_UOP))
    return fail(err, "uop_end %u past the micro-op buffer's %u", in->uop_end,
                vta_depth(&s->cfg, VTA_MEM_UOP));
  return 0;
}

static int uop_index(VtaSim *s, const VtaInsn *in, uint32_t y, uint32_t x, uint32_t k,
                     bool gemm, LoopIdx *out, char *err) {
  const VtaConfig *c = &s->cfg;
  VtaUop u = vta_uop_decode(c, s->uop[k]);
  uint64_t acc = u.dst + (uint64_t)y * in->dst_factor_out + (uint64_t)x * in->dst_factor_in;
  uint64_t src = u.src + (uint64_t)y * in->src_factor_out + (uint64_t)x * in->src_factor_in;
  uint64_t wgt = u.wgt + (uint64_t)y * in->wgt_factor_out + (uint64_t)x * in->wgt_factor_in;
  int src_mem = gemm ? VTA_MEM_INP : VTA_MEM_ACC;
  if (acc >= vta_depth(c, VTA_MEM_ACC))
    return fail(err, "micro-op %u at (%u, %u) indexes accumulator %llu of %u", k, y, x,
                (unsigned long long)acc, vta_depth(c, VTA_MEM_ACC));
  if (src >= vta_depth(c, src_mem))
    return fail(err, "micro-op %u at (%u, %u) indexes %s %llu of %u", k, y, x,
                gemm ? "input" : "accumulator", (unsigned long long)src, vta_depth(c, src_mem));
  if (gemm && wgt >= vta_depth(c, VTA_MEM_WGT))
    return fail(err, "micro-op %u at (%u, %u) indexes weight %llu of %u", k, y, x,
                (unsigned long long)wgt, vta_depth(c, VTA_MEM_WGT));
  *out = (LoopIdx){(uint32_t)acc, (uint32_t)src, (uint32_t)wgt};
  return 0;
}

static int run_gemm(VtaSim *s, const VtaInsn *in, char *err) {
  const VtaConfig *c = &s->cfg;
  int nb = vta_batch(c), nk = vta_block(c);
  if (check_uops(s, in, err) < 0) return -1;
  if (!in->reset)
    s->stats.gemm_counter += (uint64_t)in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
  for (uint32_t y = 0; y < in->iter_out; y++)
    for (uint32_t x = 0; x < in->iter_in; x++)
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        LoopIdx ix;
        if (uop_index(s, in, y, x, k, !in->reset, &ix, err) < 0) return -1;
        int32_t *acc = s->acc + (size_t)ix.acc * nb * nk;
        if (in->reset) {
          memset(acc, 0, (size_t)nb * nk * sizeof *acc);
          continue;
        }
        const int8_t *inp = s->inp + (size_t)ix.src * nb * nk;
        const int8_t *wgt = s->wgt + (size_t)ix.wgt * nk * nk;
        for (int i = 0; i < nb; i++)
          for (int j = 0; j < nk; j++) {
            uint32_t sum = (uint32_t)acc[i * nk + j];
            for (int q = 0; q < nk; q++)
              sum += (uint32_t)((int32_t)inp[i * nk + q] * (int32_t)wgt[j * nk + q]);
            acc[i * nk + j] = (int32_t)sum;
          }
      }
  return 0;
}

static int32_t alu_apply(int op, int32_t a, int32_t b) {
  switch (op) {
  case VTA_ALU_MIN: return a < b ? a : b;
  case VTA_ALU_MAX: return a > b ? a : b;
  case VTA_ALU_ADD: return (int32_t)((uint32_t)a + (uint32_t)b);
  case VTA_ALU_MUL: return (int32_t)(uint32_t)((int64_t)a * b);
  default: /* SHR: right by b, left by -b */
    if (b >= 0) return b > 31 ? (a < 0 ? -1 : 0) : a >> b;
    return b < -31 ? 0 : (int32_t)((uint32_t)a << -b);
  }
}

static int run_alu(VtaSim *s, const VtaInsn *in, char *err) {
  const VtaConfig *c = &s->cfg;
  int lanes = vta_batch(c) * vta_block(c);
  if (in->alu_opcode > VTA_ALU_MUL) return fail(err, "unknown ALU opcode %d", in->alu_opcode);
  if (check_uops(s, in, err) < 0) return -1;
  s->stats.alu_counter += (uint64_t)in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
  for (uint32_t y = 0; y < in->iter_out; y++)
    for (uint32_t x = 0; x < in->iter_in; x++)
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        LoopIdx ix;
        if (uop_index(s, in, y, x, k, false, &ix, err) < 0) return -1;
        int32_t *dst = s->acc + (size_t)ix.acc * lanes;
        const int32_t *src = s->acc + (size_t)ix.src * lanes;
        for (int i = 0; i < lanes; i++)
          dst[i] = alu_apply(in->alu_opcode, dst[i], in->use_imm ? in->imm : src[i]);
      }
  return 0;
}

/* ---- the stages and their dependence tokens ---- */

enum { L2G, G2L, S2G, G2S, NQUEUES };
static const char *const queue_names[] = {"load to compute", "compute to load",
                                          "store to compute", "compute to store"};

static int stage_of(const VtaInsn *in) {
  if (in->opcode == VTA_OP_STORE) return VTA_STAGE_STORE;
  if (in->opcode == VTA_OP_LOAD &&
      (in->memory_type == VTA_MEM_INP || in->memory_type == VTA_MEM_WGT))
    return VTA_STAGE_LOAD;
  return VTA_STAGE_COMPUTE;
}

/* The token queue each of pop_prev, pop_next, push_prev, push_next names in stage st, -1 where
 * the stage has no such neighbour. */
static void dep_queues(int st, int q[4]) {
  if (st == VTA_STAGE_LOAD) {
    q[0] = -1, q[1] = G2L, q[2] = -1, q[3] = L2G;
  } else if (st == VTA_STAGE_COMPUTE) {
    q[0] = L2G, q[1] = S2G, q[2] = G2L, q[3] = G2S;
  } else {
    q[0] = G2S, q[1] = -1, q[2] = S2G, q[3] = -1;
  }
}

static int execute(VtaSim *s, const VtaInsn *in, char *err) {
  switch (in->opcode) {
  case VTA_OP_LOAD: return run_load(s, in, err);
  case VTA_OP_STORE: return run_store(s, in, err);
  case VTA_OP_GEMM: return run_gemm(s, in, err);
  case VTA_OP_ALU: return run_alu(s, in, err);
  default: return 0; /* FINISH */
  }
}

int vta_sim_run(VtaSim *s, const VtaInsnBits *insns, size_t n, char err[VTA_SIM_ERR]) {
  static const char *const stage_names[] = {"", "load", "compute", "store"};
  char why[VTA_SIM_ERR];
  if (n == 0) return fail(err, "VTA: an empty instruction stream (it must end with FINISH)");
  VtaInsn *dec = xmalloc(n * sizeof *dec);
  size_t *queue[4] = {NULL, xmalloc(n * sizeof(size_t)), xmalloc(n * sizeof(size_t)),
                      xmalloc(n * sizeof(size_t))};
  size_t len[4] = {0}, head[4] = {0};
  int rc = -1;
  for (size_t i = 0; i < n; i++) {
    vta_insn_decode(&s->cfg, &insns[i], &dec[i]);
    const VtaInsn *in = &dec[i];
    if (in->opcode > VTA_OP_ALU) {
      fail(err, "VTA instruction %zu: unknown opcode %d", i, in->opcode);
      goto out;
    }
    if ((in->opcode == VTA_OP_FINISH) != (i == n - 1)) {
      if (i == n - 1)
        fail(err, "VTA instruction %zu (%s): the stream does not end with FINISH", i,
             insn_name(in));
      else
        fail(err, "VTA instruction %zu: FINISH before the end of the stream", i);
      goto out;
    }
    int st = stage_of(in), q[4];
    dep_queues(st, q);
    const bool flags[4] = {in->pop_prev, in->pop_next, in->push_prev, in->push_next};
    static const char *const flag_names[] = {"pop_prev", "pop_next", "push_prev", "push_next"};
    for (int f = 0; f < 4; f++)
      if (flags[f] && q[f] < 0) {
        fail(err, "VTA instruction %zu (%s): %s, but the %s stage has no %s stage", i,
             insn_name(in), flag_names[f], stage_names[st], f % 2 ? "next" : "previous");
        goto out;
      }
    queue[st][len[st]++] = i;
  }
  int tokens[NQUEUES] = {0};
  for (size_t done = 0; done < n; done++) {
    /* the earliest instruction at a queue's head whose tokens are there */
    size_t pick = n, blocked = n;
    int blocked_q = 0;
    for (int st = 1; st <= 3; st++) {
      if (head[st] == len[st]) continue;
      size_t i = queue[st][head[st]];
      int q[4];
      dep_queues(st, q);
      int need = -1;
      if (dec[i].pop_prev && tokens[q[0]] == 0)
        need = q[0];
      else if (dec[i].pop_next && tokens[q[1]] == 0)
        need = q[1];
      if (need < 0 && i < pick) pick = i;
      if (need >= 0 && i < blocked) blocked = i, blocked_q = need;
    }
    if (pick == n) {
      fail(err, "VTA instruction %zu (%s) waits for a token on the %s queue that no instruction "
                "pushes: the stream deadlocks",
           blocked, insn_name(&dec[blocked]), queue_names[blocked_q]);
      goto out;
    }
    const VtaInsn *in = &dec[pick];
    int st = stage_of(in), q[4];
    dep_queues(st, q);
    head[st]++;
    if (in->pop_prev) tokens[q[0]]--;
    if (in->pop_next) tokens[q[1]]--;
    if (execute(s, in, why) < 0) {
      fail(err, "VTA instruction %zu (%s): %s", pick, insn_name(in), why);
      goto out;
    }
    if (in->push_prev) tokens[q[2]]++;
    if (in->push_next) tokens[q[3]]++;
  }
  rc = 0;
out:
  free(dec);
  for (int st = 1; st <= 3; st++) free(queue[st]);
  return rc;
}
