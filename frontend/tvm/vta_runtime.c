/* vta_runtime.c: VTA's runtime in this process (vta_runtime.h). The functions below are what
 * the host code of a vta.build module calls (ir/pass/vta_lower_runtime.c makes the calls);
 * the JIT resolves their names to them (jit_define_host_symbols). They drive the command queue
 * of backends/vta/vta_cmdq.h, whose synchronisation runs the stream on the session's simulator
 * (jit/vta_sim.h). DRAM pointers are the host views of the simulator's DRAM that ext_dev
 * arrays hold; each is translated to its physical address, and a DMA is checked against the
 * array it starts in.
 *
 * Generated code does not check what these return: the first error (a bad argument, the
 * queue's or the simulator's) is kept, every later call does nothing, and bi_vta_leave raises
 * it when the module's function returns; the queue is then made anew. Not thread-safe: VTA
 * modules run on the interpreter's thread (their host code has no parallel loops). */
#include "frontend/tvm/vta_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vta/vta_cmdq.h"
#include "frontend/lang/interp.h"
#include "frontend/tvm/vta.h"
#include "ir/support.h"
#include "jit/sha256.h"

/* A module's micro-op kernels: each (call site, signature) gets a number, under which the
 * queue records its kernel (vta_cmdq_kernel(q, id, 0)). */
typedef struct KernelKey {
  int site, nsig, id;
  int64_t *sig;
} KernelKey;

typedef struct VtaKernels {
  KernelKey *keys;
  int n, cap;
} VtaKernels;

typedef struct Saved {
  uint8_t hash[32];
  Lowered *l;
  const LoweredFunc *f;
} Saved;

static struct {
  VtaSim *sim;
  VtaCmdQ *q;
  uint32_t uop_phys;
  bool defined; /* the functions are defined for the JIT */
  bool failed;
  char err[VTA_CMDQ_ERR];
  VtaKernels *mod;   /* the running module's kernels; NULL between runs */
  int64_t *sig;      /* VTAUopKernelSignature's values for the next VTAUopKernelBegin */
  int nsig, capsig;
  VtaUopKernel *cur; /* the kernel VTAUopKernelBegin chose, until its push */
  bool recording;    /* cur is being recorded */
  int next_id;
  Saved *saved;
  int nsaved;
} R;

static int32_t fail(const char *fmt, ...) TES_PRINTF(1, 2);
static int32_t fail(const char *fmt, ...) {
  if (R.failed) return 0;
  R.failed = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(R.err, sizeof R.err, fmt, ap);
  va_end(ap);
  return 0;
}

/* A call of the queue: its error is the runtime's. */
static int32_t queued(int rc, char *err) {
  if (rc < 0) fail("%s", err);
  return 0;
}

/* Whether a call may act: no error yet, inside a module's run, with VTA's handle. */
static bool live(const char *fn, void *cmd, bool has_cmd) {
  if (R.failed) return false;
  if (!R.mod) return fail("%s: called outside a VTA module's run", fn), false;
  if (has_cmd && cmd != (void *)&R) return fail("%s: not VTA's command handle", fn), false;
  return true;
}

/* ---- the functions generated code calls (vta_runtime.h) ---- */

void *VTATLSCommandHandle(void) { return &R; }

void *VTABufferCPUPtr(void *cmd, void *buffer) {
  (void)cmd;
  return buffer;
}

/* The physical address of an ext_dev array's pointer p, checking that the 2-D access of
 * y_size rows of x_size elements (eb bytes each), x_stride apart, from element `offset`, stays
 * in the array; 0 after recording an error. */
static uint32_t dram(const char *fn, void *p, int32_t offset, int32_t x_size, int32_t y_size,
                     int32_t x_stride, int mem) {
  size_t after;
  uint32_t phys = vta_sim_phys_of(R.sim, p, &after);
  if (!phys)
    return fail("%s: the DRAM pointer is not in an ext_dev array (a VTA module takes arrays "
                "made on remote.ext_dev(0))", fn);
  if (offset < 0 || x_size < 0 || y_size < 0 || x_stride < 0)
    return fail("%s: a negative offset, size or stride (%d, %d x %d, stride %d)", fn, offset,
                y_size, x_size, x_stride);
  if (mem < VTA_MEM_UOP || mem > VTA_MEM_ACC_8BIT || x_size == 0 || y_size == 0) return phys;
  uint64_t eb = vta_elem_bytes(vta_sim_config(R.sim), mem);
  uint64_t end = ((uint64_t)offset + (uint64_t)(y_size - 1) * (uint64_t)x_stride + x_size) * eb;
  if (end > after)
    return fail("%s: %d rows of %d elements (%llu bytes each), %d apart, from element %d, "
                "reach byte %llu of an array of %zu bytes", fn, y_size, x_size,
                (unsigned long long)eb, x_stride, offset, (unsigned long long)end, after);
  return phys;
}

int32_t VTALoadBuffer2D(void *cmd, void *src, int32_t src_elem_offset, int32_t x_size,
                        int32_t y_size, int32_t x_stride, int32_t x_pad_before,
                        int32_t y_pad_before, int32_t x_pad_after, int32_t y_pad_after,
                        int32_t dst_sram_index, int32_t dst_memory_type) {
  if (!live("VTALoadBuffer2D", cmd, true)) return 0;
  uint32_t phys = dram("VTALoadBuffer2D", src, src_elem_offset, x_size, y_size, x_stride,
                       dst_memory_type);
  if (!phys) return 0;
  if (x_pad_before < 0 || y_pad_before < 0 || x_pad_after < 0 || y_pad_after < 0 ||
      dst_sram_index < 0)
    return fail("VTALoadBuffer2D: a negative pad or SRAM index");
  char err[VTA_CMDQ_ERR];
  return queued(vta_cmdq_load_2d(R.q, phys, (uint32_t)src_elem_offset, (uint32_t)x_size,
                                 (uint32_t)y_size, (uint32_t)x_stride, (uint32_t)x_pad_before,
                                 (uint32_t)y_pad_before, (uint32_t)x_pad_after,
                                 (uint32_t)y_pad_after, (uint32_t)dst_sram_index,
                                 dst_memory_type, err),
                err);
}

int32_t VTAStoreBuffer2D(void *cmd, int32_t src_sram_index, int32_t src_memory_type, void *dst,
                         int32_t dst_elem_offset, int32_t x_size, int32_t y_size,
                         int32_t x_stride) {
  if (!live("VTAStoreBuffer2D", cmd, true)) return 0;
  uint32_t phys = dram("VTAStoreBuffer2D", dst, dst_elem_offset, x_size, y_size, x_stride,
                       src_memory_type);
  if (!phys) return 0;
  if (src_sram_index < 0) return fail("VTAStoreBuffer2D: a negative SRAM index");
  char err[VTA_CMDQ_ERR];
  return queued(vta_cmdq_store_2d(R.q, (uint32_t)src_sram_index, src_memory_type, phys,
                                  (uint32_t)dst_elem_offset, (uint32_t)x_size, (uint32_t)y_size,
                                  (uint32_t)x_stride, err),
                err);
}

int32_t VTADepPush(void *cmd, int32_t from, int32_t to) {
  char err[VTA_CMDQ_ERR];
  return live("VTADepPush", cmd, true) ? queued(vta_cmdq_dep_push(R.q, from, to, err), err) : 0;
}

int32_t VTADepPop(void *cmd, int32_t from, int32_t to) {
  char err[VTA_CMDQ_ERR];
  return live("VTADepPop", cmd, true) ? queued(vta_cmdq_dep_pop(R.q, from, to, err), err) : 0;
}

int32_t VTASynchronize(void *cmd, int32_t wait_cycles) {
  (void)wait_cycles; /* the simulator runs the stream to its end */
  char err[VTA_CMDQ_ERR];
  return live("VTASynchronize", cmd, true) ? queued(vta_cmdq_synchronize(R.q, err), err) : 0;
}

int32_t VTAUopKernelSignature(int64_t value) {
  if (!live("VTAUopKernelSignature", NULL, false)) return 0;
  if (R.nsig == R.capsig) {
    R.capsig = R.capsig ? 2 * R.capsig : 8;
    R.sig = xrealloc(R.sig, (size_t)R.capsig * sizeof *R.sig);
  }
  R.sig[R.nsig++] = value;
  return 0;
}

static int key_id(VtaKernels *t, int site) {
  for (int i = 0; i < t->n; i++) {
    KernelKey *k = &t->keys[i];
    if (k->site == site && k->nsig == R.nsig &&
        (R.nsig == 0 || memcmp(k->sig, R.sig, (size_t)R.nsig * sizeof *R.sig) == 0))
      return k->id;
  }
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 8;
    t->keys = xrealloc(t->keys, (size_t)t->cap * sizeof *t->keys);
  }
  KernelKey *k = &t->keys[t->n++];
  k->site = site, k->nsig = R.nsig, k->id = ++R.next_id;
  k->sig = R.nsig ? xmalloc((size_t)R.nsig * sizeof *k->sig) : NULL;
  if (R.nsig) memcpy(k->sig, R.sig, (size_t)R.nsig * sizeof *k->sig);
  return k->id;
}

/* 1: the kernel of (site, the signature given since the last push) is not recorded yet, and
 * the calls up to the push record it; 0: it is, and the push pushes it. */
int32_t VTAUopKernelBegin(void *cmd, int32_t site) {
  if (!live("VTAUopKernelBegin", cmd, true)) return 0;
  if (R.cur) return fail("VTAUopKernelBegin: the previous micro-op kernel was not pushed");
  int id = key_id(R.mod, site);
  R.nsig = 0;
  R.cur = vta_cmdq_kernel(R.q, id, 0);
  if (R.cur) return 0;
  R.cur = vta_cmdq_kernel_record(R.q, id, 0);
  R.recording = true;
  return 1;
}

static bool recording(const char *fn) {
  if (!live(fn, NULL, false)) return false;
  if (!R.recording) return fail("%s outside a micro-op kernel's recording", fn), false;
  return true;
}

int32_t VTAUopLoopBegin(int32_t extent, int32_t dst_factor, int32_t src_factor,
                        int32_t wgt_factor) {
  if (!recording("VTAUopLoopBegin")) return 0;
  if (extent < 0 || dst_factor < 0 || src_factor < 0 || wgt_factor < 0)
    return fail("VTAUopLoopBegin: a negative extent or factor");
  char err[VTA_CMDQ_ERR];
  return queued(vta_kernel_loop_begin(R.cur, (uint32_t)extent, (uint32_t)dst_factor,
                                      (uint32_t)src_factor, (uint32_t)wgt_factor, err),
                err);
}

int32_t VTAUopLoopEnd(void) {
  if (recording("VTAUopLoopEnd")) vta_kernel_loop_end(R.cur);
  return 0;
}

int32_t VTAUopPush(int32_t mode, int32_t reset, int32_t dst, int32_t src, int32_t wgt,
                   int32_t opcode, int32_t use_imm, int32_t imm) {
  if (!recording("VTAUopPush")) return 0;
  if (dst < 0 || src < 0 || wgt < 0) return fail("VTAUopPush: a negative index");
  if ((mode != 0 && mode != 1) || (reset != 0 && reset != 1))
    return fail("VTAUopPush: mode %d, reset %d (GEMM 0 or ALU 1; 0 or 1)", mode, reset);
  char err[VTA_CMDQ_ERR];
  return queued(vta_kernel_push(R.cur, mode, reset, (uint32_t)dst, (uint32_t)src,
                                (uint32_t)wgt, opcode, use_imm, imm, err),
                err);
}

static int32_t push_op(void *cmd, bool alu) {
  const char *fn = alu ? "VTAPushALUOp" : "VTAPushGEMMOp";
  if (!live(fn, cmd, true)) return 0;
  if (!R.cur) return fail("%s without VTAUopKernelBegin", fn);
  VtaUopKernel *k = R.cur;
  R.cur = NULL;
  R.recording = false;
  char err[VTA_CMDQ_ERR];
  return queued(alu ? vta_cmdq_push_alu(R.q, k, err) : vta_cmdq_push_gemm(R.q, k, err), err);
}

int32_t VTAPushGEMMOp(void *cmd) { return push_op(cmd, false); }
int32_t VTAPushALUOp(void *cmd) { return push_op(cmd, true); }

/* ---- the session's queue and the JIT's names ---- */

/* The device of the queue: the micro-ops into their DRAM buffer, then the simulator. */
static int sim_run(void *ctx, const VtaInsnBits *insns, size_t n, const uint32_t *uops,
                   size_t nuops, char err[VTA_CMDQ_ERR]) {
  (void)ctx;
  if (nuops) memcpy(vta_sim_dram(R.sim, R.uop_phys, nuops * 4), uops, nuops * 4);
  return vta_sim_run(R.sim, insns, n, err);
}

static void runtime_free(void) {
  vta_cmdq_free(R.q);
  R.q = NULL;
  R.sim = NULL; /* not the runtime's: vta.c's exit handler frees it */
  free(R.sig);
  R.sig = NULL;
  for (int i = 0; i < R.nsaved; i++) bi_sched_lowered_release(R.saved[i].l);
  free(R.saved);
  R.saved = NULL;
  R.nsaved = 0;
}

static void free_at_exit(void) {
  static bool registered;
  if (!registered) atexit(runtime_free);
  registered = true;
}

static void ext_release(int id, void *data) {
  (void)id;
  size_t after;
  uint32_t phys = R.sim ? vta_sim_phys_of(R.sim, data, &after) : 0;
  if (phys) vta_sim_release(R.sim, phys);
}

static bool session(Interp *I) {
  if (R.sim) return true;
  VtaSim *s = bi_vta_sim(I);
  if (!s) return false;
  char err[VTA_SIM_ERR];
  uint32_t uop = vta_sim_alloc(s, VTA_MAX_XFER, err);
  if (!uop) return interp_raise(I, EXC_RuntimeError, "%s", err), false;
  R.sim = s;
  R.uop_phys = uop;
  R.q = vta_cmdq_new(vta_sim_config(s), uop, sim_run, NULL);
  nd_set_ext_free(ext_release);
  free_at_exit();
  return true;
}

bool bi_vta_runtime_ready(Interp *I) {
  if (!session(I)) return false;
  if (R.defined) return true;
  static const char *const names[] = {
      "VTATLSCommandHandle", "VTALoadBuffer2D", "VTAStoreBuffer2D", "VTADepPush",
      "VTADepPop", "VTASynchronize", "VTAUopKernelSignature", "VTAUopKernelBegin",
      "VTAUopLoopBegin", "VTAUopLoopEnd", "VTAUopPush", "VTAPushGEMMOp", "VTAPushALUOp",
      "VTABufferCPUPtr"};
  void *const addrs[] = {
      (void *)VTATLSCommandHandle, (void *)VTALoadBuffer2D, (void *)VTAStoreBuffer2D,
      (void *)VTADepPush, (void *)VTADepPop, (void *)VTASynchronize,
      (void *)VTAUopKernelSignature, (void *)VTAUopKernelBegin, (void *)VTAUopLoopBegin,
      (void *)VTAUopLoopEnd, (void *)VTAUopPush, (void *)VTAPushGEMMOp, (void *)VTAPushALUOp,
      (void *)VTABufferCPUPtr};
  _Static_assert(sizeof names / sizeof *names == sizeof addrs / sizeof *addrs, "one each");
  bi_llvm->define_host_symbols((int)(sizeof names / sizeof *names), names, addrs);
  R.defined = true;
  return true;
}

/* ---- ext_dev arrays ---- */

NDArray *bi_vta_nd_new(Interp *I, DType t, int ndim, const int64_t *shape, int id) {
  if (id != 0)
    return interp_raise(I, EXC_RuntimeError, "ext_dev(%d): the simulator is VTA's only device, "
                        "ext_dev(0)", id),
           NULL;
  if (!session(I)) return NULL;
  NDArray *a = nd_new_nodata(t, ndim, shape);
  if (!a) return interp_raise(I, EXC_MemoryError, "ext_dev array: size overflows"), NULL;
  size_t nbytes = nd_nbytes(a);
  char err[VTA_SIM_ERR];
  uint32_t phys = nbytes <= UINT32_MAX ? vta_sim_alloc(R.sim, nbytes ? nbytes : 1, err) : 0;
  if (!phys) {
    if (nbytes > UINT32_MAX) snprintf(err, sizeof err, "%zu bytes exceed VTA's DRAM", nbytes);
    free(a);
    return interp_raise(I, EXC_MemoryError, "ext_dev array: %s", err), NULL;
  }
  a->data = vta_sim_dram(R.sim, phys, nbytes ? nbytes : 1);
  a->device = ND_EXT_DEV;
  a->device_id = id;
  return a;
}

/* ---- a module's run ---- */

int bi_vta_enter(Interp *I, Built *m) {
  if (!session(I)) return -1;
  if (!m->vta_kernels) m->vta_kernels = xcalloc(1, sizeof *m->vta_kernels);
  R.mod = m->vta_kernels;
  R.failed = false;
  R.nsig = 0;
  R.cur = NULL;
  R.recording = false;
  return 0;
}

int bi_vta_leave(Interp *I, Built *m, bool ok) {
  R.mod = NULL;
  size_t left = 0;
  if (!R.failed) vta_cmdq_insns(R.q, &left);
  if (!R.failed && !left && !R.cur) return 0;
  if (!R.failed)
    fail(R.cur ? "a micro-op kernel begun and not pushed"
               : "VTA instructions left without a VTASynchronize (vta.coproc_sync)");
  /* a fresh queue: the old one holds part of a stream; kernels are recorded again */
  vta_cmdq_free(R.q);
  R.q = vta_cmdq_new(vta_sim_config(R.sim), R.uop_phys, sim_run, NULL);
  R.cur = NULL;
  R.recording = false;
  R.failed = false;
  if (!ok) return 0; /* the caller raises why the function stopped */
  interp_raise(I, EXC_RuntimeError, "%s: %s", m->name, R.err);
  return -1;
}

void bi_vta_module_free(Built *m) {
  VtaKernels *t = m->vta_kernels;
  if (!t) return;
  for (int i = 0; i < t->n; i++) free(t->keys[i].sig);
  free(t->keys);
  free(t);
}

/* ---- saved object files ---- */

void bi_vta_saved(const Built *m, const void *obj, size_t len) {
  uint8_t h[32];
  sha256(obj, len, h);
  for (int i = 0; i < R.nsaved; i++)
    if (memcmp(R.saved[i].hash, h, 32) == 0) return;
  free_at_exit();
  R.saved = xrealloc(R.saved, (size_t)(R.nsaved + 1) * sizeof *R.saved);
  Saved *s = &R.saved[R.nsaved++];
  memcpy(s->hash, h, 32);
  s->l = bi_sched_lowered_ref(m->lowered);
  s->f = m->f;
}

bool bi_vta_saved_find(const void *obj, size_t len, Lowered **l, const LoweredFunc **f) {
  uint8_t h[32];
  sha256(obj, len, h);
  for (int i = 0; i < R.nsaved; i++)
    if (memcmp(R.saved[i].hash, h, 32) == 0) {
      *l = bi_sched_lowered_ref(R.saved[i].l);
      *f = R.saved[i].f;
      return true;
    }
  return false;
}
