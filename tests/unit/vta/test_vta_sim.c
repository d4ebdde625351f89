/* test_vta_sim.c: unit tests of jit/vta_isa.h (the 128-bit formats: where each field lies, round
 * trips, fields too wide) and jit/vta_sim.c (each instruction kind against hand-computed
 * results: LOAD with padding, GEMM with and without reset, ALU with an immediate and with two
 * operands, STORE narrowing to int8; the seven counters; dependence tokens and bad streams as
 * errors). */
#include <stdlib.h>

#include "jit/vta_sim.h"
#include "tests/unit/check.h"

static const VtaConfig *C = &vta_default_config;

static VtaInsnBits enc(VtaInsn in) {
  VtaInsnBits b;
  const char *bad = vta_insn_encode(C, &in, &b);
  if (bad) printf("  encode: %s does not fit\n", bad);
  return b;
}

static VtaInsn load(int mem, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
                    uint32_t stride) {
  return (VtaInsn){.opcode = VTA_OP_LOAD, .memory_type = mem, .sram_base = sram,
                   .dram_base = dram, .y_size = y, .x_size = x, .x_stride = stride};
}
static const VtaInsn finish_insn = {.opcode = VTA_OP_FINISH};

static void test_config(void) {
  CHECK(vta_depth(C, VTA_MEM_UOP) == 8192);
  CHECK(vta_depth(C, VTA_MEM_INP) == 2048);
  CHECK(vta_depth(C, VTA_MEM_WGT) == 1024);
  CHECK(vta_depth(C, VTA_MEM_ACC) == 2048);
  CHECK(vta_elem_bytes(C, VTA_MEM_INP) == 16);
  CHECK(vta_elem_bytes(C, VTA_MEM_WGT) == 256);
  CHECK(vta_elem_bytes(C, VTA_MEM_ACC) == 64);
  CHECK(vta_elem_bytes(C, VTA_MEM_OUT) == 16);
}

/* Where the fields land: as uint64_t bit-fields of VTA's hw_spec.h lay them out. */
static void test_layout(void) {
  VtaInsn m = load(VTA_MEM_WGT, 3, 5, 7, 9, 11);
  m.pop_next = true;
  m.x_pad1 = 2;
  VtaInsnBits b = enc(m);
  CHECK((b.w[0] & 7) == VTA_OP_LOAD);
  CHECK((b.w[0] >> 4 & 1) == 1);              /* pop_next */
  CHECK((b.w[0] >> 7 & 7) == VTA_MEM_WGT);     /* memory_type, 3 bits */
  CHECK((b.w[0] >> 10 & 0xffff) == 3);         /* sram_base */
  CHECK((b.w[0] >> 26 & 0xffffffff) == 5);     /* dram_base */
  CHECK((b.w[1] & 0xffff) == 7);               /* y_size starts the second word */
  CHECK((b.w[1] >> 16 & 0xffff) == 9);
  CHECK((b.w[1] >> 32 & 0xffff) == 11);
  CHECK((b.w[1] >> 60) == 2);                  /* x_pad1, the last 4 bits */

  VtaInsn g = {.opcode = VTA_OP_GEMM, .reset = true, .uop_bgn = 1, .uop_end = 8192,
               .iter_out = 3, .iter_in = 16383, .dst_factor_out = 5, .wgt_factor_in = 1023};
  b = enc(g);
  CHECK((b.w[0] >> 7 & 1) == 1);               /* reset */
  CHECK((b.w[0] >> 8 & 0x1fff) == 1);          /* uop_bgn, 13 bits */
  CHECK((b.w[0] >> 21 & 0x3fff) == 8192);      /* uop_end, 14 bits */
  CHECK((b.w[0] >> 35 & 0x3fff) == 3);
  CHECK((b.w[0] >> 49 & 0x3fff) == 16383);
  CHECK((b.w[1] & 0x7ff) == 5);                /* dst_factor_out starts the second word */
  CHECK((b.w[1] >> 54) == 1023);               /* wgt_factor_in ends it */

  VtaInsn a = {.opcode = VTA_OP_ALU, .uop_end = 1, .iter_out = 1, .iter_in = 1,
               .alu_opcode = VTA_ALU_SHR, .use_imm = true, .imm = -2};
  b = enc(a);
  CHECK((b.w[1] >> 44 & 7) == VTA_ALU_SHR);    /* after four 11-bit factors */
  CHECK((b.w[1] >> 47 & 1) == 1);
  CHECK((b.w[1] >> 48) == 0xfffe);             /* imm, 16 bits two's complement */

  VtaInsn back;
  CHECK(vta_insn_decode(C, &b, &back) == 0);
  CHECK(back.opcode == VTA_OP_ALU && back.imm == -2 && back.use_imm && back.iter_in == 1);
  b = enc(g);
  vta_insn_decode(C, &b, &back);
  CHECK(back.iter_in == 16383 && back.uop_end == 8192 && back.wgt_factor_in == 1023 &&
        back.reset);
  b = enc(m);
  vta_insn_decode(C, &b, &back);
  CHECK(back.memory_type == VTA_MEM_WGT && back.x_stride == 11 && back.x_pad1 == 2 &&
        back.pop_next && !back.pop_prev);

  /* too wide: named, not truncated */
  VtaInsn wide = load(VTA_MEM_INP, 70000, 0, 1, 1, 1);
  CHECK(strcmp(vta_insn_encode(C, &wide, &b), "sram_base") == 0);
  a.imm = 40000;
  CHECK(strcmp(vta_insn_encode(C, &a, &b), "imm") == 0);
  a.imm = -32768;
  CHECK(vta_insn_encode(C, &a, &b) == NULL);
  g.iter_out = 16384;
  CHECK(strcmp(vta_insn_encode(C, &g, &b), "iter_out") == 0);

  /* micro-ops: dst 11 bits, src 11 bits, wgt 10 bits */
  CHECK(vta_uop_encode(C, (VtaUop){1, 2, 3}) == (1u | 2u << 11 | 3u << 22));
  VtaUop u = vta_uop_decode(C, vta_uop_encode(C, (VtaUop){2047, 1000, 1023}));
  CHECK(u.dst == 2047 && u.src == 1000 && u.wgt == 1023);
}

typedef struct Fixture {
  VtaSim *s;
  uint32_t inp, wgt, uop, out, acc; /* DRAM buffers */
  char err[VTA_SIM_ERR];
} Fixture;

static void setup(Fixture *f) {
  f->err[0] = 0;
  f->s = vta_sim_new(C, 64u << 20, f->err);
  f->inp = vta_sim_alloc(f->s, 4096, f->err);
  f->wgt = vta_sim_alloc(f->s, 4 * 256, f->err);
  f->uop = vta_sim_alloc(f->s, 4096, f->err);
  f->out = vta_sim_alloc(f->s, 4096, f->err);
  f->acc = vta_sim_alloc(f->s, 4096, f->err);
}

static int run(Fixture *f, const VtaInsn *ins, size_t n) {
  VtaInsnBits *b = malloc(n * sizeof *b);
  for (size_t i = 0; i < n; i++) b[i] = enc(ins[i]);
  int rc = vta_sim_run(f->s, b, n, f->err);
  free(b);
  return rc;
}

static void put_uops(Fixture *f, const VtaUop *u, int n) {
  uint32_t *d = (uint32_t *)vta_sim_dram(f->s, f->uop, (size_t)n * 4);
  for (int i = 0; i < n; i++) d[i] = vta_uop_encode(C, u[i]);
}

/* A 2x3 tile of input rows from a 4-wide DRAM matrix, padded 1 above, 2 left, 1 right: the
 * SRAM holds (1+2)x(2+3+1) rows, zeros where padded. */
static void test_load_padding(void) {
  Fixture f;
  setup(&f);
  int8_t *d = (int8_t *)vta_sim_dram(f.s, f.inp, 4096);
  for (int i = 0; i < 4096; i++) d[i] = (int8_t)(i / 16 + 1); /* row r holds r + 1 */
  VtaInsn l = load(VTA_MEM_INP, 5, f.inp / 16 + 1, 2, 3, 4);
  l.y_pad0 = 1, l.x_pad0 = 2, l.x_pad1 = 1;
  VtaInsn prog[] = {l, finish_insn};
  /* the load stage's input load and the compute stage's FINISH: no order between them, and the
   * SRAM is checked after the run */
  CHECK(run(&f, prog, 2) == 0);
  const int8_t *s = vta_sim_sram(f.s, VTA_MEM_INP);
  int want[3][6] = {{0, 0, 0, 0, 0, 0}, {0, 0, 2, 3, 4, 0}, {0, 0, 6, 7, 8, 0}};
  bool ok = true;
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 6; x++)
      for (int k = 0; k < 16; k++) ok &= s[(5 + y * 6 + x) * 16 + k] == want[y][x];
  CHECK(ok);
  VtaStats st = vta_sim_stats(f.s);
  CHECK(st.inp_load_nbytes == 2 * 3 * 16); /* padding is not counted */
  CHECK(st.wgt_load_nbytes == 0 && st.uop_load_nbytes == 0);
  vta_sim_free(f.s);
}

/* GEMM: acc[0] = inp[0] . wgt[0]^T twice over (no reset), then reset acc[1] only; ALU; STORE. */
static void test_gemm_alu_store(void) {
  Fixture f;
  setup(&f);
  int8_t *inp = (int8_t *)vta_sim_dram(f.s, f.inp, 32);
  int8_t *wgt = (int8_t *)vta_sim_dram(f.s, f.wgt, 512);
  for (int k = 0; k < 16; k++) inp[k] = (int8_t)(k - 8), inp[16 + k] = 127;
  for (int j = 0; j < 16; j++)
    for (int k = 0; k < 16; k++) wgt[j * 16 + k] = (int8_t)(j == k ? 2 : (j == 0 ? -128 : 0));
  for (int j = 0; j < 256; j++) wgt[256 + j] = 127;
  /* uops: 0 GEMM acc0 = inp0 x wgt0; 1 GEMM acc1 = inp1 x wgt1; 2 reset acc1;
   * 3 ALU acc0 op imm; 4 ALU acc0 += acc1 */
  VtaUop u[] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 0}, {0, 0, 0}, {0, 1, 0}};
  put_uops(&f, u, 5);
  VtaInsn ldu = load(VTA_MEM_UOP, 0, f.uop / 4, 1, 5, 5);
  VtaInsn ldi = load(VTA_MEM_INP, 0, f.inp / 16, 1, 2, 2);
  ldi.push_next = true;
  VtaInsn ldw = load(VTA_MEM_WGT, 0, f.wgt / 256, 1, 2, 2);
  ldw.push_next = true;
  VtaInsn gemm = {.opcode = VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 2, .iter_out = 2,
                  .iter_in = 1, .pop_prev = true};
  VtaInsn gemm2 = {.opcode = VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 1, .iter_out = 1,
                   .iter_in = 1, .pop_prev = true};
  VtaInsn reset = {.opcode = VTA_OP_GEMM, .reset = true, .uop_bgn = 2, .uop_end = 3,
                   .iter_out = 1, .iter_in = 1};
  VtaInsn store = {.opcode = VTA_OP_STORE, .memory_type = VTA_MEM_OUT, .sram_base = 0,
                   .dram_base = f.out / 16, .y_size = 1, .x_size = 2, .x_stride = 2,
                   .pop_prev = true};
  VtaInsn before_store = {.opcode = VTA_OP_LOAD, .memory_type = VTA_MEM_UOP, .push_next = true};
  VtaInsn prog[] = {ldu, ldi, ldw, gemm, gemm2, reset, before_store, store, finish_insn};
  CHECK(run(&f, prog, 9) == 0);
  if (f.err[0]) printf("  %s\n", f.err);
  const int32_t *acc = vta_sim_sram(f.s, VTA_MEM_ACC);
  /* acc0[j] = 3 * sum_k inp0[k] * wgt0[j][k]: j=0: 3 * (2*(-8) + -128*(sum of k-8 over k!=0)) */
  int32_t sum_rest = 0;
  for (int k = 1; k < 16; k++) sum_rest += k - 8;
  int32_t want0 = 3 * (2 * -8 + -128 * sum_rest);
  CHECK(acc[0] == want0);
  bool ok = true;
  for (int j = 1; j < 16; j++) ok &= acc[j] == 3 * 2 * (j - 8);
  CHECK(ok);
  ok = true;
  for (int j = 0; j < 16; j++) ok &= acc[16 + j] == 0; /* reset */
  CHECK(ok);
  /* the store truncates each int32 to its low 8 bits */
  const int8_t *out = (const int8_t *)vta_sim_dram(f.s, f.out, 32);
  CHECK(out[0] == (int8_t)(uint8_t)(uint32_t)want0);
  CHECK(out[1] == (int8_t)(3 * 2 * -7));
  VtaStats st = vta_sim_stats(f.s);
  CHECK(st.gemm_counter == 2 * 1 * 2 + 1); /* the reset counts nothing */
  CHECK(st.inp_load_nbytes == 32 && st.wgt_load_nbytes == 512 && st.uop_load_nbytes == 20);
  CHECK(st.out_store_nbytes == 2 * 16 && st.acc_load_nbytes == 0 && st.alu_counter == 0);

  /* ALU on acc0 (uop 3): shr 8, max 0, min 127, add -3 by immediate; then acc0 += acc1 (uop 4)
   * after loading acc1 from DRAM */
  int32_t *accd = (int32_t *)vta_sim_dram(f.s, f.acc, 64);
  for (int j = 0; j < 16; j++) accd[j] = 1000 * j - 7000;
  int32_t *acc_mut = (int32_t *)vta_sim_sram(f.s, VTA_MEM_ACC);
  for (int j = 0; j < 16; j++) acc_mut[j] = (j - 8) * 1000 + (j == 3 ? 100000 : 0);
  VtaInsn alu = {.opcode = VTA_OP_ALU, .uop_bgn = 3, .uop_end = 4, .iter_out = 1, .iter_in = 1,
                 .use_imm = true};
  VtaInsn ops[8];
  int n = 0;
  ops[n++] = load(VTA_MEM_ACC, 1, f.acc / 64, 1, 1, 1);
  alu.alu_opcode = VTA_ALU_SHR, alu.imm = 8, ops[n++] = alu;
  alu.alu_opcode = VTA_ALU_MAX, alu.imm = 0, ops[n++] = alu;
  alu.alu_opcode = VTA_ALU_MIN, alu.imm = 127, ops[n++] = alu;
  alu.alu_opcode = VTA_ALU_ADD, alu.imm = -3, ops[n++] = alu;
  VtaInsn add2 = {.opcode = VTA_OP_ALU, .uop_bgn = 4, .uop_end = 5, .iter_out = 1,
                  .iter_in = 1, .alu_opcode = VTA_ALU_ADD};
  ops[n++] = add2;
  ops[n++] = finish_insn;
  vta_sim_clear_stats(f.s);
  CHECK(run(&f, ops, (size_t)n) == 0);
  ok = true;
  for (int j = 0; j < 16; j++) {
    int32_t v = ((j - 8) * 1000 + (j == 3 ? 100000 : 0)) >> 8;
    v = v < 0 ? 0 : v;
    v = v > 127 ? 127 : v;
    v = v - 3 + (1000 * j - 7000);
    ok &= acc[j] == v;
  }
  CHECK(ok);
  st = vta_sim_stats(f.s);
  CHECK(st.alu_counter == 5 && st.acc_load_nbytes == 64 && st.gemm_counter == 0);
  vta_sim_free(f.s);
}

/* A GEMM's two loops: acc[i*4 + j] for i < 2, j < 4 from inp (i + j) and wgt i. */
static void test_gemm_loops(void) {
  Fixture f;
  setup(&f);
  int8_t *inp = (int8_t *)vta_sim_dram(f.s, f.inp, 8 * 16);
  int8_t *wgt = (int8_t *)vta_sim_dram(f.s, f.wgt, 2 * 256);
  for (int r = 0; r < 8; r++)
    for (int k = 0; k < 16; k++) inp[r * 16 + k] = (int8_t)(r + 1);
  for (int w = 0; w < 2; w++)
    for (int j = 0; j < 16; j++)
      for (int k = 0; k < 16; k++) wgt[w * 256 + j * 16 + k] = (int8_t)(k == 0 ? w + 1 : 0);
  VtaUop u = {0, 0, 0};
  put_uops(&f, &u, 1);
  VtaInsn prog[] = {
      load(VTA_MEM_UOP, 0, f.uop / 4, 1, 1, 1),
      load(VTA_MEM_INP, 0, f.inp / 16, 1, 8, 8),
      load(VTA_MEM_WGT, 0, f.wgt / 256, 1, 2, 2),
      {.opcode = VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 1, .iter_out = 2, .iter_in = 4,
       .dst_factor_out = 4, .dst_factor_in = 1, .src_factor_out = 1, .src_factor_in = 1,
       .wgt_factor_out = 1, .wgt_factor_in = 0, .pop_prev = true},
      finish_insn};
  prog[2].push_next = true;
  CHECK(run(&f, prog, 5) == 0);
  const int32_t *acc = vta_sim_sram(f.s, VTA_MEM_ACC);
  bool ok = true;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) ok &= acc[(i * 4 + j) * 16 + 5] == (i + j + 1) * (i + 1);
  CHECK(ok);
  CHECK(vta_sim_stats(f.s).gemm_counter == 8);
  vta_sim_free(f.s);
}

static void expect_error(Fixture *f, const VtaInsn *p, size_t n, const char *want) {
  f->err[0] = 0;
  int rc = run(f, p, n);
  CHECK(rc == -1);
  CHECK(strstr(f->err, want) != NULL);
  if (!strstr(f->err, want)) printf("  got: %s\n  want: %s\n", f->err, want);
}

static void test_errors(void) {
  Fixture f;
  setup(&f);
  VtaInsn gemm = {.opcode = VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 1, .iter_out = 1,
                  .iter_in = 1};
  /* a pop no instruction pushes */
  VtaInsn g = gemm;
  g.pop_prev = true;
  VtaInsn p1[] = {g, finish_insn};
  expect_error(&f, p1, 2, "VTA instruction 0 (GEMM) waits for a token on the load to compute "
                          "queue that no instruction pushes");
  /* the load stage has no previous stage */
  VtaInsn l = load(VTA_MEM_INP, 0, f.inp / 16, 1, 1, 1);
  l.pop_prev = true;
  VtaInsn p2[] = {l, finish_insn};
  expect_error(&f, p2, 2, "VTA instruction 0 (LOAD): pop_prev, but the load stage has no "
                          "previous stage");
  VtaInsn st = {.opcode = VTA_OP_STORE, .memory_type = VTA_MEM_OUT, .push_next = true};
  VtaInsn p3[] = {st, finish_insn};
  expect_error(&f, p3, 2, "push_next, but the store stage has no next stage");
  /* FINISH */
  VtaInsn p4[] = {gemm};
  expect_error(&f, p4, 1, "the stream does not end with FINISH");
  VtaInsn p5[] = {finish_insn, gemm, finish_insn};
  expect_error(&f, p5, 3, "VTA instruction 0: FINISH before the end");
  CHECK(vta_sim_run(f.s, NULL, 0, f.err) == -1);
  /* opcodes and memory types */
  VtaInsnBits bad[2] = {{{7, 0}}, enc(finish_insn)};
  CHECK(vta_sim_run(f.s, bad, 2, f.err) == -1 && strstr(f.err, "unknown opcode 7"));
  VtaInsn a = gemm;
  a.opcode = VTA_OP_ALU, a.alu_opcode = 6;
  VtaInsn p6[] = {a, finish_insn};
  expect_error(&f, p6, 2, "VTA instruction 0 (ALU): unknown ALU opcode 6");
  VtaInsn so = {.opcode = VTA_OP_STORE, .memory_type = VTA_MEM_ACC, .x_size = 1, .y_size = 1};
  VtaInsn p7[] = {so, finish_insn};
  expect_error(&f, p7, 2, "a STORE from memory type 3; only OUT (4) is stored");
  /* ranges */
  VtaInsn big = load(VTA_MEM_WGT, 1000, f.wgt / 256, 5, 5, 5);
  VtaInsn p8[] = {big, finish_insn};
  expect_error(&f, p8, 2, "a LOAD of 25 WGT elements from SRAM index 1000 overflows the "
                          "buffer's 1024");
  VtaInsn far = load(VTA_MEM_INP, 0, f.inp / 16, 1, 300, 300);
  VtaInsn p9[] = {far, finish_insn};
  expect_error(&f, p9, 2, "outside any buffer");
  VtaInsn unmapped = load(VTA_MEM_INP, 0, 0, 1, 1, 1);
  VtaInsn p10[] = {unmapped, finish_insn};
  expect_error(&f, p10, 2, "outside any buffer");
  VtaUop u = {2047, 0, 0};
  put_uops(&f, &u, 1);
  VtaInsn g2 = gemm;
  g2.iter_out = 2, g2.dst_factor_out = 1;
  VtaInsn p11[] = {load(VTA_MEM_UOP, 0, f.uop / 4, 1, 1, 1), g2, finish_insn};
  expect_error(&f, p11, 3, "VTA instruction 1 (GEMM): micro-op 0 at (1, 0) indexes "
                           "accumulator 2048 of 2048");
  VtaInsn g3 = gemm;
  g3.uop_bgn = 3, g3.uop_end = 2;
  VtaInsn p12[] = {g3, finish_insn};
  expect_error(&f, p12, 2, "uop_end 2 before uop_bgn 3");
  /* padding on a store */
  VtaInsn sp = {.opcode = VTA_OP_STORE, .memory_type = VTA_MEM_OUT, .x_size = 1, .y_size = 1,
                .x_stride = 1, .dram_base = f.out / 16, .x_pad0 = 1};
  VtaInsn p13[] = {sp, finish_insn};
  expect_error(&f, p13, 2, "a STORE with padding");
  vta_sim_free(f.s);

  /* DRAM */
  char err[VTA_SIM_ERR];
  VtaSim *s = vta_sim_new(C, 1u << 16, err);
  CHECK(vta_sim_alloc(s, 40000, err) == 4096);
  CHECK(vta_sim_alloc(s, 40000, err) == 0 && strstr(err, "DRAM full"));
  uint32_t b = vta_sim_alloc(s, 100, err);
  CHECK(b == 4096 + 40960);
  vta_sim_release(s, 4096);
  CHECK(vta_sim_alloc(s, 8192, err) == 4096); /* the freed gap is used again */
  CHECK(vta_sim_dram(s, b, 4096) != NULL && vta_sim_dram(s, b, 4097) == NULL);
  vta_sim_free(s);
  VtaConfig wide = *C;
  wide.log_acc_width = 4;
  CHECK(vta_sim_new(&wide, 1u << 16, err) == NULL && strstr(err, "not supported yet"));
  wide = *C;
  wide.log_acc_buff_size = 25;
  CHECK(vta_sim_new(&wide, 1u << 16, err) == NULL && strstr(err, "too deep"));
}

/* Token order: the store waits for compute's token although it comes first in its queue. */
static void test_tokens(void) {
  Fixture f;
  setup(&f);
  int8_t *inp = (int8_t *)vta_sim_dram(f.s, f.inp, 16);
  for (int k = 0; k < 16; k++) inp[k] = 1;
  int8_t *wgt = (int8_t *)vta_sim_dram(f.s, f.wgt, 256);
  for (int k = 0; k < 256; k++) wgt[k] = 1;
  VtaUop u = {0, 0, 0};
  put_uops(&f, &u, 1);
  VtaInsn ldi = load(VTA_MEM_INP, 0, f.inp / 16, 1, 1, 1);
  VtaInsn ldw = load(VTA_MEM_WGT, 0, f.wgt / 256, 1, 1, 1);
  ldw.push_next = true;
  VtaInsn ldu = load(VTA_MEM_UOP, 0, f.uop / 4, 1, 1, 1);
  VtaInsn gemm = {.opcode = VTA_OP_GEMM, .uop_bgn = 0, .uop_end = 1, .iter_out = 1,
                  .iter_in = 1, .pop_prev = true, .push_next = true};
  VtaInsn st = {.opcode = VTA_OP_STORE, .memory_type = VTA_MEM_OUT, .dram_base = f.out / 16,
                .x_size = 1, .y_size = 1, .x_stride = 1, .pop_prev = true};
  /* the store is written first: it must still run after the GEMM */
  VtaInsn prog[] = {st, ldi, ldw, ldu, gemm, finish_insn};
  CHECK(run(&f, prog, 6) == 0);
  const int8_t *out = (const int8_t *)vta_sim_dram(f.s, f.out, 16);
  CHECK(out[0] == 16 && out[15] == 16);
  vta_sim_free(f.s);
}

/* A host pointer into an allocated buffer gives its physical address and the bytes left in the
 * buffer as asked for (not its whole pages); one outside every buffer gives 0. */
static void test_phys_of(void) {
  char err[VTA_SIM_ERR];
  VtaSim *s = vta_sim_new(&vta_default_config, 1u << 20, err);
  uint32_t a = vta_sim_alloc(s, 100, err), b = vta_sim_alloc(s, 5000, err);
  uint8_t *ha = vta_sim_dram(s, a, 100), *hb = vta_sim_dram(s, b, 5000);
  size_t after = 0;
  CHECK(vta_sim_phys_of(s, ha, &after) == a && after == 100);
  CHECK(vta_sim_phys_of(s, hb + 4096, &after) == b + 4096 && after == 5000 - 4096);
  CHECK(vta_sim_phys_of(s, ha + 100, &after) == 0); /* the page's slack is not the buffer's */
  CHECK(vta_sim_phys_of(s, &after, &after) == 0);   /* not the DRAM at all */
  vta_sim_release(s, a);
  CHECK(vta_sim_phys_of(s, ha, &after) == 0);
  vta_sim_free(s);
}

int main(void) {
  test_config();
  test_phys_of();
  test_layout();
  test_load_padding();
  test_gemm_alu_store();
  test_gemm_loops();
  test_errors();
  test_tokens();
  return finish();
}
