/* test_vta_runtime.c: VTA's runtime functions (frontend/tvm/vta_runtime.c) called as a
 * vta.build module's host code calls them, on ext_dev arrays a script made: a blocked GEMM with
 * the ALU's shift and clip and the store, against hand-computed results and the simulator's
 * counters; a micro-op kernel recorded once per call site and signature (VTAUopKernelBegin
 * gives 1 the first time only); the same run twice; and the errors, each raised by
 * bi_vta_leave as a RuntimeError naming the module, after which the next run works: a host
 * pointer where DRAM is expected, a DMA past its array's end, a micro-op outside a recording,
 * tokens between stages that are not neighbours, a stream left without VTASynchronize, and a
 * pop nobody pushes (the simulator's error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/packages.h"
#include "frontend/tvm/vta_runtime.h"
#include "tests/unit/check.h"
#include "tests/unit/vta/gemm_ref.h"
#include "tests/unit/exc_text.h"

static Interp *I;
static NDArray *x, *w, *out, *host;
static Built m = {.name = "unit", .vta = true};

static int run(const char *src) { return interp_run_text(I, "<test>", src, strlen(src), false); }

static NDArray *global(const char *name) {
  return bi_nd_any_of(dict_get_sym(interp_globals(I), sym_cstr(name)));
}

enum { ALU_MIN = 0, ALU_MAX = 1, ALU_SHR = 3 };

/* An ALU kernel at site over the 4 rows: op with immediate imm. */
static void alu(void *cmd, int site, int op, int imm) {
  if (VTAUopKernelBegin(cmd, site)) {
    VTAUopLoopBegin(4, 1, 1, 0);
    VTAUopPush(1, 0, 0, 0, 0, op, 1, imm);
    VTAUopLoopEnd();
  }
  VTAPushALUOp(cmd);
}

static void gemm_run(int *recorded) {
  void *cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, x->data, 0, 4, 1, 4, 0, 0, 0, 0, 0, 2);
  VTALoadBuffer2D(cmd, w->data, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1);
  VTADepPush(cmd, 1, 2);
  VTADepPop(cmd, 1, 2);
  /* resets of rows 0-1 and 2-3: one site, two signatures; the first again is cached */
  for (int i = 0; i < 3; i++) {
    int ct = i % 2;
    VTAUopKernelSignature(ct);
    if (VTAUopKernelBegin(cmd, 0)) {
      recorded[i] = 1;
      VTAUopLoopBegin(2, 1, 0, 0);
      VTAUopPush(0, 1, (int32_t)(2 * ct), 0, 0, 0, 0, 0);
      VTAUopLoopEnd();
    }
    VTAPushGEMMOp(cmd);
  }
  if (VTAUopKernelBegin(cmd, 1)) {
    recorded[3] = 1;
    VTAUopLoopBegin(4, 1, 1, 0);
    VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
    VTAUopLoopEnd();
  }
  VTAPushGEMMOp(cmd);
  alu(cmd, 2, ALU_SHR, 2);
  alu(cmd, 3, ALU_MAX, 0);
  alu(cmd, 4, ALU_MIN, 127);
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, 4, out->data, 0, 4, 1, 4);
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  VTASynchronize(cmd, 1 << 30);
}

static void test_gemm(void) {
  const int8_t *xd = x->data, *wd = w->data;
  for (int run_no = 0; run_no < 2; run_no++) {
    CHECK(run("simulator.clear_stats()\nout.copyfrom(np.zeros((4, 16), 'int8'))\n") == 0);
    int recorded[4] = {0};
    CHECK(bi_vta_enter(I, &m) == 0);
    gemm_run(recorded);
    CHECK(bi_vta_leave(I, &m, true) == 0);
    if (interp_error_pending(I)) printf("  %s\n", exc_text(I));
    /* recorded on the first run only, the third reset's kernel never */
    CHECK(recorded[0] == !run_no && recorded[1] == !run_no && recorded[2] == 0 &&
          recorded[3] == !run_no);
    const int8_t *od = out->data;
    CHECK(gemm_shr_clip_matches(xd, wd, od));
    CHECK(run("st = simulator.stats()\n"
              "assert st['inp_load_nbytes'] == 64 and st['wgt_load_nbytes'] == 256\n"
              "assert st['uop_load_nbytes'] == 6 * 4 and st['acc_load_nbytes'] == 0\n"
              "assert st['gemm_counter'] == 4 and st['alu_counter'] == 3 * 4\n"
              "assert st['out_store_nbytes'] == 64\n") == 0);
    if (interp_error_pending(I)) printf("  %s\n", exc_text(I));
  }
}

/* A run of body that fails: its error, raised by bi_vta_leave. */
static const char *failing(void (*body)(void *cmd)) {
  CHECK(bi_vta_enter(I, &m) == 0);
  body(VTATLSCommandHandle());
  CHECK(bi_vta_leave(I, &m, true) < 0 && interp_error_matches(I, EXC_RuntimeError));
  return exc_text(I);
}

static void host_pointer(void *cmd) {
  VTALoadBuffer2D(cmd, host->data, 0, 4, 1, 4, 0, 0, 0, 0, 0, 2);
  VTASynchronize(cmd, 0);
}
static void past_end(void *cmd) {
  VTALoadBuffer2D(cmd, x->data, 1, 4, 1, 4, 0, 0, 0, 0, 0, 2);
  VTASynchronize(cmd, 0);
}
static void stray_uop(void *cmd) {
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTASynchronize(cmd, 0);
}
static void far_stages(void *cmd) {
  VTADepPush(cmd, 1, 3);
  VTASynchronize(cmd, 0);
}
static void no_sync(void *cmd) { VTALoadBuffer2D(cmd, x->data, 0, 4, 1, 4, 0, 0, 0, 0, 0, 2); }
static void unpushed_pop(void *cmd) {
  VTADepPop(cmd, 1, 2);
  if (VTAUopKernelBegin(cmd, 9)) VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  VTAPushGEMMOp(cmd);
  VTASynchronize(cmd, 0);
}

static void test_errors(void) {
  CHECK(strcmp(failing(host_pointer), "unit: VTALoadBuffer2D: the DRAM pointer is not in an "
                                      "ext_dev array (a VTA module takes arrays made on "
                                      "remote.ext_dev(0))") == 0);
  CHECK(strcmp(failing(past_end), "unit: VTALoadBuffer2D: 1 rows of 4 elements (16 bytes "
                                  "each), 4 apart, from element 1, reach byte 80 of an array "
                                  "of 64 bytes") == 0);
  CHECK(strcmp(failing(stray_uop), "unit: VTAUopPush outside a micro-op kernel's recording") ==
        0);
  const char *far = failing(far_stages);
  CHECK(strstr(far, "unit: VTADepPush(1, 3): tokens flow between neighbouring stages only") ==
        far);
  CHECK(strcmp(failing(no_sync), "unit: VTA instructions left without a VTASynchronize "
                                 "(vta.coproc_sync)") == 0);
  const char *t = failing(unpushed_pop);
  CHECK(strncmp(t, "unit: ", 6) == 0 && strstr(t, "token") != NULL);
  printf("  the simulator's error: %s\n", t);
  /* outside a run: nothing happens, and the next run does not see it */
  VTADepPush(VTATLSCommandHandle(), 1, 2);
  test_gemm();
}

int main(void) {
  tvm_register_modules();
  I = interp_new();
  CHECK(run("import numpy as np\nimport tvm\nfrom tvm import rpc\n"
            "from vta.testing import simulator\n"
            "ctx = rpc.LocalSession().ext_dev(0)\n"
            "np.random.seed(3)\n"
            "x = tvm.nd.array(np.random.randint(-128, 128, size=(4, 16)).astype('int8'), ctx)\n"
            "w = tvm.nd.array(np.random.randint(-128, 128, size=(16, 16)).astype('int8'), ctx)\n"
            "out = tvm.nd.empty((4, 16), 'int8', ctx)\n"
            "host = np.zeros((4, 16), 'int8')\n") == 0);
  x = global("x"), w = global("w"), out = global("out"), host = global("host");
  CHECK(x && w && out && host && x->device == ND_EXT_DEV && host->device == ND_CPU);
  test_gemm();
  test_errors();
  bi_vta_module_free(&m);
  interp_free(I);
  return finish();
}
