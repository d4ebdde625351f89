/* vta_cmdq.c: VTA's command queue (vta_cmdq.h). */
#include "backends/vta/vta_cmdq.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/support.h"

enum { STAGE_NONE = 0 };

typedef struct Loop {
  uint32_t extent, dst, src, wgt;
} Loop;

struct VtaUopKernel {
  int site, key;
  VtaUop *seq;
  size_t n, cap;
  Loop loop[2];
  int nloops;
  int mode, reset, opcode, use_imm; /* -1: not set yet */
  int32_t imm;
  uint32_t sram_begin, sram_end; /* cached in the micro-op SRAM when they differ */
};

struct VtaCmdQ {
  VtaConfig cfg;
  uint32_t uop_phys;
  VtaRunFn run;
  void *ctx;
  /* the instruction queue */
  VtaInsn *insns;
  size_t n, cap;
  int pending_pop_prev[4], pending_pop_next[4];
  /* the micro-op cache: kernels in SRAM order, and the range not loaded yet */
  VtaUopKernel **cache;
  size_t ncache, capcache, cache_idx;
  uint32_t sram_begin, sram_end;
  /* every kernel recorded, owned here */
  VtaUopKernel **kernels;
  size_t nkernels, capkernels;
};

static int fail(char *err, const char *fmt, ...) TES_PRINTF(2, 3);
static int fail(char *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, VTA_CMDQ_ERR, fmt, ap);
  va_end(ap);
  return -1;
}

VtaCmdQ *vta_cmdq_new(const VtaConfig *c, uint32_t uop_phys, VtaRunFn run, void *ctx) {
  VtaCmdQ *q = xcalloc(1, sizeof *q);
  q->cfg = *c;
  q->uop_phys = uop_phys;
  q->run = run;
  q->ctx = ctx;
  return q;
}

void vta_cmdq_free(VtaCmdQ *q) {
  if (!q) return;
  for (size_t i = 0; i < q->nkernels; i++) {
    free(q->kernels[i]->seq);
    free(q->kernels[i]);
  }
  free(q->kernels);
  free(q->cache);
  free(q->insns);
  free(q);
}

const VtaInsn *vta_cmdq_insns(const VtaCmdQ *q, size_t *n) {
  *n = q->n;
  return q->insns;
}

/* ---- the instruction queue ---- */

static VtaInsn *next_insn(VtaCmdQ *q) {
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 64;
    q->insns = xrealloc(q->insns, q->cap * sizeof *q->insns);
  }
  VtaInsn *in = &q->insns[q->n++];
  *in = (VtaInsn){0};
  return in;
}

/* A new instruction of stage st carrying that stage's pending pops. */
static VtaInsn *create(VtaCmdQ *q, int st) {
  VtaInsn *in = next_insn(q);
  in->pop_prev = q->pending_pop_prev[st];
  in->pop_next = q->pending_pop_next[st];
  q->pending_pop_prev[st] = q->pending_pop_next[st] = 0;
  return in;
}

static int mem_stage(int memory_type) {
  return memory_type == VTA_MEM_ACC || memory_type == VTA_MEM_UOP ||
                 memory_type == VTA_MEM_ACC_8BIT
             ? VTA_STAGE_COMPUTE
             : VTA_STAGE_LOAD;
}

static int insn_stage(const VtaInsn *in) {
  switch (in->opcode) {
  case VTA_OP_GEMM: case VTA_OP_ALU: return VTA_STAGE_COMPUTE;
  case VTA_OP_LOAD: return in->x_size == 0 ? STAGE_NONE : mem_stage(in->memory_type);
  case VTA_OP_STORE: return VTA_STAGE_STORE;
  default: return STAGE_NONE;
  }
}

static void push_noop(VtaCmdQ *q, int st, bool push_prev, bool push_next, bool pop_prev,
                      bool pop_next) {
  VtaInsn *in = next_insn(q);
  in->opcode = st == VTA_STAGE_STORE ? VTA_OP_STORE : VTA_OP_LOAD;
  in->push_prev = push_prev, in->push_next = push_next;
  in->pop_prev = pop_prev, in->pop_next = pop_next;
  in->memory_type = st == VTA_STAGE_LOAD ? VTA_MEM_INP : VTA_MEM_UOP;
}

static void commit_pending_pop(VtaCmdQ *q, int st) {
  if (q->pending_pop_prev[st] || q->pending_pop_next[st]) {
    push_noop(q, st, false, false, q->pending_pop_prev[st], q->pending_pop_next[st]);
    q->pending_pop_prev[st] = q->pending_pop_next[st] = 0;
  }
}

static int check_stages(int from, int to, const char *what, char *err) {
  if (from < VTA_STAGE_LOAD || from > VTA_STAGE_STORE || to < VTA_STAGE_LOAD ||
      to > VTA_STAGE_STORE || (from - to != 1 && to - from != 1))
    return fail(err, "%s(%d, %d): tokens flow between neighbouring stages only (load 1, "
                     "compute 2, store 3)", what, from, to);
  return 0;
}

int vta_cmdq_dep_pop(VtaCmdQ *q, int from, int to, char err[VTA_CMDQ_ERR]) {
  if (check_stages(from, to, "VTADepPop", err) < 0) return -1;
  int *pending = from < to ? q->pending_pop_prev : q->pending_pop_next;
  if (pending[to]) commit_pending_pop(q, to);
  pending[to] = 1;
  return 0;
}

int vta_cmdq_dep_push(VtaCmdQ *q, int from, int to, char err[VTA_CMDQ_ERR]) {
  if (check_stages(from, to, "VTADepPush", err) < 0) return -1;
  commit_pending_pop(q, from);
  if (q->n > 0) {
    VtaInsn *last = &q->insns[q->n - 1];
    if (insn_stage(last) == from) {
      if (from < to && !last->push_next) {
        last->push_next = true;
        return 0;
      }
      if (from > to && !last->push_prev) {
        last->push_prev = true;
        return 0;
      }
    }
  }
  if (from < to)
    push_noop(q, from, false, true, false, false);
  else
    push_noop(q, from, true, false, false, false);
  return 0;
}

/* A field too wide for its bits is an error here, not a silently truncated instruction. */
static int check_fits(VtaCmdQ *q, const VtaInsn *in, const char *what, char *err) {
  VtaInsnBits bits;
  const char *field = vta_insn_encode(&q->cfg, in, &bits);
  if (field) {
    q->n--;
    return fail(err, "%s: %s does not fit its bits in the instruction", what, field);
  }
  return 0;
}

static int check_memory_type(int mem, bool load, char *err) {
  if (load ? (mem < VTA_MEM_UOP || mem > VTA_MEM_ACC_8BIT || mem == VTA_MEM_OUT)
           : mem != VTA_MEM_OUT)
    return fail(err, "%s: memory type %d (%s)", load ? "VTALoadBuffer2D" : "VTAStoreBuffer2D",
                mem, load ? "uop 0, wgt 1, inp 2, acc 3, acc_8bit 5" : "only out, 4, is stored");
  return 0;
}

int vta_cmdq_load_2d(VtaCmdQ *q, uint32_t src_phys, uint32_t src_elem_offset, uint32_t x_size,
                     uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, int dst_memory_type, char err[VTA_CMDQ_ERR]) {
  if (check_memory_type(dst_memory_type, true, err) < 0) return -1;
  uint32_t eb = vta_elem_bytes(&q->cfg, dst_memory_type);
  if (src_phys % eb)
    return fail(err, "VTALoadBuffer2D: DRAM address 0x%x is not a multiple of the %u-byte "
                     "element", src_phys, eb);
  VtaInsn *in = create(q, mem_stage(dst_memory_type));
  in->opcode = VTA_OP_LOAD;
  in->memory_type = dst_memory_type;
  in->sram_base = dst_sram_index;
  in->dram_base = src_phys / eb + src_elem_offset;
  in->y_size = y_size, in->x_size = x_size, in->x_stride = x_stride;
  in->y_pad0 = y_pad_before, in->y_pad1 = y_pad_after;
  in->x_pad0 = x_pad_before, in->x_pad1 = x_pad_after;
  return check_fits(q, in, "VTALoadBuffer2D", err);
}

int vta_cmdq_store_2d(VtaCmdQ *q, uint32_t src_sram_index, int src_memory_type,
                      uint32_t dst_phys, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride, char err[VTA_CMDQ_ERR]) {
  if (check_memory_type(src_memory_type, false, err) < 0) return -1;
  uint32_t eb = vta_elem_bytes(&q->cfg, src_memory_type);
  if (dst_phys % eb)
    return fail(err, "VTAStoreBuffer2D: DRAM address 0x%x is not a multiple of the %u-byte "
                     "element", dst_phys, eb);
  VtaInsn *in = create(q, VTA_STAGE_STORE);
  in->opcode = VTA_OP_STORE;
  in->memory_type = src_memory_type;
  in->sram_base = src_sram_index;
  in->dram_base = dst_phys / eb + dst_elem_offset;
  in->y_size = y_size, in->x_size = x_size, in->x_stride = x_stride;
  return check_fits(q, in, "VTAStoreBuffer2D", err);
}

/* ---- micro-op kernels ---- */

VtaUopKernel *vta_cmdq_kernel(VtaCmdQ *q, int site, int key) {
  for (size_t i = 0; i < q->nkernels; i++)
    if (q->kernels[i]->site == site && q->kernels[i]->key == key) return q->kernels[i];
  return NULL;
}

VtaUopKernel *vta_cmdq_kernel_record(VtaCmdQ *q, int site, int key) {
  VtaUopKernel *k = xcalloc(1, sizeof *k);
  k->site = site, k->key = key;
  k->mode = k->reset = k->opcode = k->use_imm = -1;
  if (q->nkernels == q->capkernels) {
    q->capkernels = q->capkernels ? 2 * q->capkernels : 8;
    q->kernels = xrealloc(q->kernels, q->capkernels * sizeof *q->kernels);
  }
  q->kernels[q->nkernels++] = k;
  return k;
}

size_t vta_kernel_size(const VtaUopKernel *k) { return k->n; }

int vta_kernel_loop_begin(VtaUopKernel *k, uint32_t extent, uint32_t dst_factor,
                          uint32_t src_factor, uint32_t wgt_factor, char err[VTA_CMDQ_ERR]) {
  if (k->n > 0) return fail(err, "VTAUopLoopBegin after the kernel's first micro-op");
  if (k->nloops == 2) return fail(err, "VTAUopLoopBegin: a micro-op kernel has at most 2 loops");
  k->loop[k->nloops++] = (Loop){extent, dst_factor, src_factor, wgt_factor};
  return 0;
}

void vta_kernel_loop_end(VtaUopKernel *k) { (void)k; }

/* A kernel-wide setting: the first micro-op sets it, the others must agree. */
static int same(int *field, int v, const char *what, char *err) {
  if (*field == -1) *field = v;
  if (*field != v)
    return fail(err, "VTAUopPush: %s %d differs from the kernel's %d", what, v, *field);
  return 0;
}

int vta_kernel_push(VtaUopKernel *k, int mode, int reset, uint32_t dst, uint32_t src,
                    uint32_t wgt, int alu_opcode, int use_imm, int32_t imm,
                    char err[VTA_CMDQ_ERR]) {
  /* the accumulator is not written twice within three cycles */
  for (size_t i = k->n >= 2 ? k->n - 2 : 0; i < k->n; i++)
    if (k->seq[i].dst == dst)
      return fail(err, "VTAUopPush: accumulator %u written by two micro-ops in a row", dst);
  if (same(&k->mode, mode, "mode", err) < 0 || same(&k->reset, reset, "reset", err) < 0)
    return -1;
  if (mode == 1) {
    bool first = k->opcode == -1;
    if (same(&k->opcode, alu_opcode, "ALU opcode", err) < 0 ||
        same(&k->use_imm, use_imm, "use_imm", err) < 0)
      return -1;
    if (first) k->imm = imm;
    if (k->imm != imm)
      return fail(err, "VTAUopPush: immediate %d differs from the kernel's %d", imm, k->imm);
  }
  if (k->n == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 16;
    k->seq = xrealloc(k->seq, k->cap * sizeof *k->seq);
  }
  k->seq[k->n++] = (VtaUop){dst, src, wgt};
  return 0;
}

static bool cached(const VtaUopKernel *k) { return k->sram_begin != k->sram_end; }

/* Places k in the micro-op SRAM unless it is there (VTA's UopQueue::Push). */
static int uop_push(VtaCmdQ *q, VtaUopKernel *k, char *err) {
  if (cached(k)) return 0;
  uint32_t depth = vta_depth(&q->cfg, VTA_MEM_UOP);
  if (k->n > depth)
    return fail(err, "a micro-op kernel of %zu micro-ops is larger than the micro-op buffer's %u",
                k->n, depth);
  uint32_t begin = 0;
  if (q->sram_end + k->n > depth) { /* evict from the start */
    q->cache_idx = 0;
    q->sram_begin = 0;
    q->sram_end = (uint32_t)k->n;
  } else {
    begin = q->sram_end;
    q->sram_end += (uint32_t)k->n;
  }
  size_t evict_begin = q->cache_idx;
  for (; q->cache_idx < q->ncache; q->cache_idx++) {
    VtaUopKernel *c = q->cache[q->cache_idx];
    if (c->sram_begin >= q->sram_end) break;
    c->sram_begin = c->sram_end = 0;
  }
  k->sram_begin = begin;
  k->sram_end = q->sram_end;
  /* insert k at cache_idx, then drop the evicted [evict_begin, cache_idx) */
  if (q->ncache == q->capcache) {
    q->capcache = q->capcache ? 2 * q->capcache : 8;
    q->cache = xrealloc(q->cache, q->capcache * sizeof *q->cache);
  }
  memmove(q->cache + q->cache_idx + 1, q->cache + q->cache_idx,
          (q->ncache - q->cache_idx) * sizeof *q->cache);
  q->cache[q->cache_idx] = k;
  q->ncache++;
  size_t nevict = q->cache_idx - evict_begin;
  memmove(q->cache + evict_begin, q->cache + q->cache_idx,
          (q->ncache - q->cache_idx) * sizeof *q->cache);
  q->ncache -= nevict;
  q->cache_idx = evict_begin + 1;
  return 0;
}

/* The LOAD UOP of what uop_push placed and did not load yet (UopQueue::FlushUopLoad). */
static int uop_flush(VtaCmdQ *q, char *err) {
  if (q->sram_begin == q->sram_end) return 0;
  uint64_t offset = 0;
  for (size_t i = 0; i + 1 < q->cache_idx; i++) offset += q->cache[i]->n * VTA_UOP_BYTES;
  VtaInsn *in = create(q, VTA_STAGE_COMPUTE);
  in->opcode = VTA_OP_LOAD;
  in->memory_type = VTA_MEM_UOP;
  in->sram_base = q->sram_begin;
  in->dram_base = (uint32_t)((q->uop_phys + offset) / VTA_UOP_BYTES);
  in->y_size = 1;
  in->x_size = in->x_stride = q->sram_end - q->sram_begin;
  q->sram_begin = q->sram_end;
  return check_fits(q, in, "the micro-op load", err);
}

static int push_kernel(VtaCmdQ *q, VtaUopKernel *k, int mode, char *err) {
  const char *what = mode ? "VTAPushALUOp" : "VTAPushGEMMOp";
  if (k->n == 0) return fail(err, "%s: a micro-op kernel without micro-ops", what);
  if (k->mode != mode)
    return fail(err, "%s: the kernel's micro-ops are %s micro-ops", what,
                k->mode ? "ALU" : "GEMM");
  int w[3];
  vta_uop_widths(&q->cfg, w);
  for (size_t i = 0; i < k->n; i++)
    if (k->seq[i].dst >> w[0] || k->seq[i].src >> w[1] || (uint64_t)k->seq[i].wgt >> w[2])
      return fail(err, "%s: micro-op %zu's indices (%u, %u, %u) do not fit its %d, %d and %d bits",
                  what, i, k->seq[i].dst, k->seq[i].src, k->seq[i].wgt, w[0], w[1], w[2]);
  if (uop_push(q, k, err) < 0 || uop_flush(q, err) < 0) return -1;
  VtaInsn *in = create(q, VTA_STAGE_COMPUTE);
  in->opcode = mode ? VTA_OP_ALU : VTA_OP_GEMM;
  in->reset = k->reset == 1;
  in->uop_bgn = k->sram_begin;
  in->uop_end = k->sram_end;
  in->iter_out = in->iter_in = 1;
  /* GEMM: loop 0 outer, loop 1 inner; ALU: a single loop is the inner one */
  const Loop *outer = NULL, *inner = NULL;
  if (k->nloops == 2)
    outer = &k->loop[0], inner = &k->loop[1];
  else if (k->nloops == 1)
    (mode ? (inner = &k->loop[0]) : (outer = &k->loop[0]));
  if (outer) {
    in->iter_out = outer->extent;
    in->dst_factor_out = outer->dst, in->src_factor_out = outer->src;
    if (!mode) in->wgt_factor_out = outer->wgt;
  }
  if (inner) {
    in->iter_in = inner->extent;
    in->dst_factor_in = inner->dst, in->src_factor_in = inner->src;
    if (!mode) in->wgt_factor_in = inner->wgt;
  }
  if (mode) {
    in->alu_opcode = k->opcode;
    in->use_imm = k->use_imm == 1;
    in->imm = k->imm;
  }
  if (check_fits(q, in, what, err) < 0) return -1;
  /* an API call commits at most a pending store, a pending load and a micro-op load */
  if ((q->n + 4) * VTA_INSN_BYTES >= VTA_MAX_XFER) return vta_cmdq_synchronize(q, err);
  return 0;
}

int vta_cmdq_push_gemm(VtaCmdQ *q, VtaUopKernel *k, char err[VTA_CMDQ_ERR]) {
  return push_kernel(q, k, 0, err);
}
int vta_cmdq_push_alu(VtaCmdQ *q, VtaUopKernel *k, char err[VTA_CMDQ_ERR]) {
  return push_kernel(q, k, 1, err);
}

int vta_cmdq_synchronize(VtaCmdQ *q, char err[VTA_CMDQ_ERR]) {
  char *e = err;
  /* FINISH after the last store and the last load */
  vta_cmdq_dep_push(q, VTA_STAGE_STORE, VTA_STAGE_COMPUTE, e);
  vta_cmdq_dep_push(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, e);
  vta_cmdq_dep_pop(q, VTA_STAGE_STORE, VTA_STAGE_COMPUTE, e);
  vta_cmdq_dep_pop(q, VTA_STAGE_LOAD, VTA_STAGE_COMPUTE, e);
  commit_pending_pop(q, VTA_STAGE_COMPUTE);
  VtaInsn *fin = create(q, VTA_STAGE_COMPUTE);
  fin->opcode = VTA_OP_FINISH;
  for (int st = VTA_STAGE_LOAD; st <= VTA_STAGE_STORE; st++)
    if (q->pending_pop_prev[st] || q->pending_pop_next[st])
      return fail(err, "VTASynchronize: a dependence pop of the %s stage no instruction takes",
                  st == VTA_STAGE_LOAD ? "load" : "store");
  /* the micro-ops, in cache order, as the DRAM buffer holds them */
  size_t nuops = 0;
  for (size_t i = 0; i < q->ncache; i++) nuops += q->cache[i]->n;
  int rc = 0;
  if (nuops * VTA_UOP_BYTES > VTA_MAX_XFER) {
    rc = fail(err, "VTASynchronize: %zu micro-ops exceed the micro-op DRAM buffer", nuops);
  } else {
    uint32_t *uops = xmalloc((nuops ? nuops : 1) * sizeof *uops);
    size_t at = 0;
    for (size_t i = 0; i < q->ncache; i++)
      for (size_t j = 0; j < q->cache[i]->n; j++)
        uops[at++] = vta_uop_encode(&q->cfg, q->cache[i]->seq[j]);
    VtaInsnBits *bits = xmalloc(q->n * sizeof *bits);
    for (size_t i = 0; i < q->n; i++) vta_insn_encode(&q->cfg, &q->insns[i], &bits[i]);
    rc = q->run(q->ctx, bits, q->n, uops, nuops, err);
    free(bits);
    free(uops);
  }
  /* the SRAM is not assumed to keep anything across runs */
  for (size_t i = 0; i < q->ncache; i++) q->cache[i]->sram_begin = q->cache[i]->sram_end = 0;
  q->ncache = q->cache_idx = 0;
  q->sram_begin = q->sram_end = 0;
  q->n = 0;
  return rc;
}
