/* vta_isa.h: VTA's hardware configuration and its 128-bit instruction and 32-bit micro-op
 * formats, the one description that both the command-queue builder (backends/vta) and the
 * functional simulator (jit/vta_sim.c) read. Types and bit plumbing only (ARCHITECTURE.md: a
 * table both rooms must see is a header of types).
 *
 * The field widths follow the configuration (a micro-op's indices are as wide as the buffers
 * are deep), and the fields are laid out as a C compiler lays out uint64_t bit-fields: in
 * order from bit 0, a field that would cross a 64-bit word starting the next word. So the
 * default configuration's stream has the bits VTA's runtime gives it. */
#ifndef TES_JIT_VTA_ISA_H
#define TES_JIT_VTA_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* vta_config.json: every size a log2 (widths in bits, buffer sizes in bytes). */
typedef struct VtaConfig {
  int log_inp_width, log_wgt_width, log_acc_width;
  int log_batch, log_block;
  int log_uop_buff_size, log_inp_buff_size, log_wgt_buff_size, log_acc_buff_size;
} VtaConfig;

/* The default configuration (TARGET "sim", HW_VER 0.0.2): 1x16 int8 GEMM into int32, a 32 KiB
 * micro-op buffer, 32 KiB of inputs, 256 KiB of weights and 128 KiB of accumulators. */
static const VtaConfig vta_default_config = {3, 3, 5, 0, 4, 15, 15, 18, 17};

enum { VTA_OP_LOAD = 0, VTA_OP_STORE = 1, VTA_OP_GEMM = 2, VTA_OP_FINISH = 3, VTA_OP_ALU = 4 };
enum { VTA_ALU_MIN = 0, VTA_ALU_MAX = 1, VTA_ALU_ADD = 2, VTA_ALU_SHR = 3, VTA_ALU_MUL = 4 };
/* memory_type of LOAD/STORE; ACC_8BIT loads int8 values from DRAM into the accumulators */
enum { VTA_MEM_UOP = 0, VTA_MEM_WGT = 1, VTA_MEM_INP = 2, VTA_MEM_ACC = 3, VTA_MEM_OUT = 4,
       VTA_MEM_ACC_8BIT = 5 };
/* The pipeline stages that dependence tokens flow between (VTADepPush/VTADepPop's qids). */
enum { VTA_STAGE_LOAD = 1, VTA_STAGE_COMPUTE = 2, VTA_STAGE_STORE = 3 };

#define VTA_INSN_BYTES 16
#define VTA_UOP_BYTES 4
#define VTA_LOOP_ITER_WIDTH 14
#define VTA_ALU_IMM_WIDTH 16

/* The derived sizes, as VTA's hw_spec_const.h derives them. */
static inline int vta_batch(const VtaConfig *c) { return 1 << c->log_batch; }
static inline int vta_block(const VtaConfig *c) { return 1 << c->log_block; }
static inline int vta_log_out_width(const VtaConfig *c) { return c->log_inp_width; }
/* Bytes of one element of each buffer (an input row, a weight block, ...). */
static inline uint32_t vta_elem_bytes(const VtaConfig *c, int mem) {
  int b = vta_batch(c), k = vta_block(c);
  switch (mem) {
  case VTA_MEM_UOP: return VTA_UOP_BYTES;
  case VTA_MEM_WGT: return (uint32_t)(k * k << c->log_wgt_width) / 8;
  case VTA_MEM_INP: return (uint32_t)(b * k << c->log_inp_width) / 8;
  case VTA_MEM_ACC: case VTA_MEM_ACC_8BIT: return (uint32_t)(b * k << c->log_acc_width) / 8;
  case VTA_MEM_OUT: return (uint32_t)(b * k << vta_log_out_width(c)) / 8;
  default: return 0;
  }
}
static inline int vta_log_depth(const VtaConfig *c, int mem) {
  switch (mem) {
  case VTA_MEM_UOP: return c->log_uop_buff_size - 2;
  case VTA_MEM_WGT: return c->log_wgt_buff_size - 2 * c->log_block - c->log_wgt_width + 3;
  case VTA_MEM_INP: return c->log_inp_buff_size - c->log_batch - c->log_block - c->log_inp_width + 3;
  case VTA_MEM_ACC: case VTA_MEM_OUT: case VTA_MEM_ACC_8BIT:
    return c->log_acc_buff_size - c->log_batch - c->log_block - c->log_acc_width + 3;
  default: return 0;
  }
}
/* Elements each buffer holds. */
static inline uint32_t vta_depth(const VtaConfig *c, int mem) {
  return (uint32_t)1 << vta_log_depth(c, mem);
}

/* One instruction, decoded: the fields of every format (each format reads its own). */
typedef struct VtaInsn {
  int opcode;
  bool pop_prev, pop_next, push_prev, push_next;
  /* LOAD, STORE */
  int memory_type;
  uint32_t sram_base, dram_base, y_size, x_size, x_stride, y_pad0, y_pad1, x_pad0, x_pad1;
  /* GEMM, ALU */
  bool reset;
  uint32_t uop_bgn, uop_end, iter_out, iter_in;
  uint32_t dst_factor_out, dst_factor_in, src_factor_out, src_factor_in;
  uint32_t wgt_factor_out, wgt_factor_in; /* GEMM */
  int alu_opcode;                         /* ALU */
  bool use_imm;
  int32_t imm;
} VtaInsn;

typedef struct VtaInsnBits {
  uint64_t w[2];
} VtaInsnBits;

typedef struct VtaUop {
  uint32_t dst, src, wgt; /* acc index; input (GEMM) or acc (ALU) index; weight index */
} VtaUop;

/* ---- the bit layout ---- */

/* Fields in layout order: a pointer into VtaInsn (or VtaUop) and a width. */
typedef enum { VF_INT, VF_BOOL, VF_U32, VF_I32 } VtaFieldKind;
typedef struct VtaField {
  const char *name;
  VtaFieldKind kind;
  unsigned offset; /* of the member in VtaInsn / VtaUop */
  int width;
} VtaField;

/* The fields of format `opcode` (LOAD and STORE share one) under c, in order; returns their
 * count (at most 24). */
static inline int vta_insn_fields(const VtaConfig *c, int opcode, VtaField *f) {
  int n = 0;
#define VTA_F(name, kind, w) f[n++] = (VtaField){#name, kind, (unsigned)offsetof(VtaInsn, name), w}
  VTA_F(opcode, VF_INT, 3);
  VTA_F(pop_prev, VF_BOOL, 1);
  VTA_F(pop_next, VF_BOOL, 1);
  VTA_F(push_prev, VF_BOOL, 1);
  VTA_F(push_next, VF_BOOL, 1);
  int uop = vta_log_depth(c, VTA_MEM_UOP), acc = vta_log_depth(c, VTA_MEM_ACC);
  int inp = vta_log_depth(c, VTA_MEM_INP), wgt = vta_log_depth(c, VTA_MEM_WGT);
  if (opcode == VTA_OP_GEMM || opcode == VTA_OP_ALU || opcode == VTA_OP_FINISH) {
    VTA_F(reset, VF_BOOL, 1);
    VTA_F(uop_bgn, VF_U32, uop);
    VTA_F(uop_end, VF_U32, uop + 1);
    VTA_F(iter_out, VF_U32, VTA_LOOP_ITER_WIDTH);
    VTA_F(iter_in, VF_U32, VTA_LOOP_ITER_WIDTH);
    VTA_F(dst_factor_out, VF_U32, acc);
    VTA_F(dst_factor_in, VF_U32, acc);
    if (opcode == VTA_OP_ALU) {
      VTA_F(src_factor_out, VF_U32, acc);
      VTA_F(src_factor_in, VF_U32, acc);
      VTA_F(alu_opcode, VF_INT, 3);
      VTA_F(use_imm, VF_BOOL, 1);
      VTA_F(imm, VF_I32, VTA_ALU_IMM_WIDTH);
    } else {
      VTA_F(src_factor_out, VF_U32, inp);
      VTA_F(src_factor_in, VF_U32, inp);
      VTA_F(wgt_factor_out, VF_U32, wgt);
      VTA_F(wgt_factor_in, VF_U32, wgt);
    }
  } else {
    VTA_F(memory_type, VF_INT, 3);
    VTA_F(sram_base, VF_U32, 16);
    VTA_F(dram_base, VF_U32, 32);
    VTA_F(y_size, VF_U32, 16);
    VTA_F(x_size, VF_U32, 16);
    VTA_F(x_stride, VF_U32, 16);
    VTA_F(y_pad0, VF_U32, 4);
    VTA_F(y_pad1, VF_U32, 4);
    VTA_F(x_pad0, VF_U32, 4);
    VTA_F(x_pad1, VF_U32, 4);
  }
#undef VTA_F
  return n;
}

/* Where each field starts: in order, the next word when it would cross one. -1 when the
 * fields do not fit in 128 bits (a configuration too large for the format). */
static inline int vta_field_positions(const VtaField *f, int n, int *pos) {
  int at = 0;
  for (int i = 0; i < n; i++) {
    if (at / 64 != (at + f[i].width - 1) / 64) at = (at / 64 + 1) * 64;
    pos[i] = at;
    at += f[i].width;
  }
  return at <= 128 ? 0 : -1;
}

static inline uint64_t vta_bits_get(const uint64_t *w, int pos, int width) {
  uint64_t v = w[pos / 64] >> (pos % 64);
  return width == 64 ? v : v & ((UINT64_C(1) << width) - 1);
}
static inline void vta_bits_set(uint64_t *w, int pos, int width, uint64_t v) {
  uint64_t mask = (width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1) << (pos % 64);
  w[pos / 64] = (w[pos / 64] & ~mask) | ((v << (pos % 64)) & mask);
}

/* Packs in into bits under c. Returns NULL, or the name of the first field whose value does not
 * fit its width (a signed immediate must fit as a signed number). */
static inline const char *vta_insn_encode(const VtaConfig *c, const VtaInsn *in, VtaInsnBits *out) {
  VtaField f[24];
  int pos[24];
  int n = vta_insn_fields(c, in->opcode, f);
  out->w[0] = out->w[1] = 0;
  if (vta_field_positions(f, n, pos) < 0) return "configuration";
  for (int i = 0; i < n; i++) {
    const char *m = (const char *)in + f[i].offset;
    int64_t v = f[i].kind == VF_BOOL ? *(const bool *)m
                : f[i].kind == VF_U32 ? (int64_t) * (const uint32_t *)m
                : f[i].kind == VF_I32 ? *(const int32_t *)m : *(const int *)m;
    int64_t lo = f[i].kind == VF_I32 ? -(INT64_C(1) << (f[i].width - 1)) : 0;
    int64_t hi = f[i].kind == VF_I32 ? (INT64_C(1) << (f[i].width - 1)) - 1
                                     : (INT64_C(1) << f[i].width) - 1;
    if (v < lo || v > hi) return f[i].name;
    vta_bits_set(out->w, pos[i], f[i].width, (uint64_t)v);
  }
  return NULL;
}

/* Unpacks bits under c (fields of other formats zero). -1 when the configuration's fields do
 * not fit 128 bits. */
static inline int vta_insn_decode(const VtaConfig *c, const VtaInsnBits *bits, VtaInsn *out) {
  VtaField f[24];
  int pos[24];
  *out = (VtaInsn){0};
  int n = vta_insn_fields(c, (int)(bits->w[0] & 7), f);
  if (vta_field_positions(f, n, pos) < 0) return -1;
  for (int i = 0; i < n; i++) {
    char *m = (char *)out + f[i].offset;
    uint64_t v = vta_bits_get(bits->w, pos[i], f[i].width);
    switch (f[i].kind) {
    case VF_BOOL: *(bool *)m = v != 0; break;
    case VF_U32: *(uint32_t *)m = (uint32_t)v; break;
    case VF_INT: *(int *)m = (int)v; break;
    case VF_I32: /* sign-extend */
      *(int32_t *)m = (int32_t)((int64_t)(v << (64 - f[i].width)) >> (64 - f[i].width));
      break;
    }
  }
  return 0;
}

/* A micro-op's 32 bits: dst, src as wide as the accumulator buffer is deep, then wgt. */
static inline int vta_uop_widths(const VtaConfig *c, int w[3]) {
  w[0] = w[1] = vta_log_depth(c, VTA_MEM_ACC);
  w[2] = vta_log_depth(c, VTA_MEM_WGT);
  return w[0] + w[1] + w[2] <= 32 ? 0 : -1;
}
static inline uint32_t vta_uop_encode(const VtaConfig *c, VtaUop u) {
  int w[3];
  vta_uop_widths(c, w);
  return u.dst | u.src << w[0] | (uint32_t)((uint64_t)u.wgt << (w[0] + w[1]));
}
static inline VtaUop vta_uop_decode(const VtaConfig *c, uint32_t bits) {
  int w[3];
  vta_uop_widths(c, w);
  uint64_t b = bits;
  return (VtaUop){(uint32_t)(b & ((1u << w[0]) - 1)), (uint32_t)(b >> w[0] & ((1u << w[1]) - 1)),
                  (uint32_t)(b >> (w[0] + w[1]) & ((UINT64_C(1) << w[2]) - 1))};
}

#endif
