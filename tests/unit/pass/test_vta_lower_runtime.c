/* test_vta_lower_runtime.c: the pass vta.build runs after lowering (ir/pass/vta_lower_runtime.c):
 * the command handle, dependence tokens and the synchronisation become calls of VTA's runtime;
 * a coproc_scope is dropped; a coproc_uop_scope becomes its signature (each variable its body
 * reads from outside, as int64), the body guarded by VTAUopKernelBegin(cmd, site) with sites
 * numbered in order, and the push; an on-chip buffer's allocation is dropped; VTA's builtins the
 * runtime does not have, a uop scope naming another function, a stage VTA's passes did not
 * lower, a push on buffer pointers and the host touching an on-chip buffer are errors. */
#include "ir/pass/vta_lower_runtime.h"
#include "tests/unit/schedule/sched_test.h"

/* a call of the C function name and the command handle, as printed */
#define CMD EXT("VTATLSCommandHandle") "dtype=handle)"
#define EXT(name) "@tir.call_extern(\"" name "\", "

static IterVar *vta;

static Stmt *lowered_rt(Stmt *s, Diag *d) {
  PassCtx ctx = {.arena = &A, .diag = d};
  return pass_vta_lower_runtime(s, &ctx);
}

static Expr *intrin(const char *op, int n, Expr **args) {
  return ir_call(&A, DT_I32, op, CALL_EFFECT, n, args);
}
static Stmt *eval(Expr *e) { return ir_evaluate(&A, e); }
static Expr *cmd(void) {
  Expr *h = ir_call(&A, DT_HANDLE64, "tir.vta.command_handle", CALL_PURE, 0, NULL);
  return ir_call(&A, DT_HANDLE64, "tir.tvm_thread_context", CALL_PURE, 1, &h);
}
static Stmt *uop_scope(const char *fn, Stmt *body) {
  return ir_attr(&A, ATTR_NODE_ITERVAR, vta, "coproc_uop_scope", ir_str(&A, fn), body);
}
static Stmt *push(Expr *dst) {
  return eval(intrin("tir.vta.uop_push", 8, (Expr *[]){I(0), I(1), dst, I(0), I(0), I(0), I(0),
                                                        I(0)}));
}

static void test_builtins(void) {
  Var *c = var("c");
  Stmt *load = eval(ir_call(&A, DT_I32, "VTALoadBuffer2D", CALL_EXTERN, 2,
                            (Expr *[]){cmd(), V(c)}));
  Stmt *body = ir_seq(&A, 4, (Stmt *[]){
      eval(intrin("tir.vta.coproc_dep_pop", 2, (Expr *[]){I(2), I(1)})),
      load,
      eval(intrin("tir.vta.coproc_dep_push", 2, (Expr *[]){I(1), I(2)})),
      eval(intrin("tir.vta.coproc_sync", 0, NULL))});
  Stmt *s = ir_for(&A, c, I(0), I(2), FOR_SERIAL, NULL,
                   ir_attr(&A, ATTR_NODE_ITERVAR, vta, "coproc_scope", I(1), body));
  Diag d = DIAG_INIT;
  CHECK_TEXT(ps(lowered_rt(s, &d)),
             "for (c: int32, 0, 2) {\n"
             "  " EXT("VTADepPop") CMD ", 2, 1, dtype=int32)\n"
             "  " EXT("VTALoadBuffer2D") CMD ", c, dtype=int32)\n"
             "  " EXT("VTADepPush") CMD ", 1, 2, dtype=int32)\n"
             "  " EXT("VTASynchronize") CMD ", 2147483647, dtype=int32)\n"
             "}\n");
  CHECK(!diag_failed(&d));
}

static void test_uop_scope(void) {
  Var *ct = var("ct"), *j = var("j");
  Stmt *rec = ir_for(&A, j, I(0), I(14), FOR_SERIAL, NULL, push(add(mul(V(ct), I(784)), V(j))));
  Stmt *gemm = uop_scope("VTAPushGEMMOp", rec);
  Stmt *alu = uop_scope("VTAPushALUOp", push(I(0)));
  Stmt *s = ir_for(&A, ct, I(0), I(2), FOR_SERIAL, NULL, ir_seq(&A, 2, (Stmt *[]){gemm, alu}));
  Diag d = DIAG_INIT;
  CHECK_TEXT(ps(lowered_rt(s, &d)),
             "for (ct: int32, 0, 2) {\n"
             "  " EXT("VTAUopKernelSignature") "cast(int64, ct), dtype=int32)\n"
             "  if (" EXT("VTAUopKernelBegin") CMD ", 0, dtype=int32) != 0) {\n"
             "    for (j: int32, 0, 14) {\n"
             "      " EXT("VTAUopPush") "0, 1, ((ct*784) + j), 0, 0, 0, 0, 0, dtype=int32)\n"
             "    }\n"
             "  }\n"
             "  " EXT("VTAPushGEMMOp") CMD ", dtype=int32)\n"
             "  if (" EXT("VTAUopKernelBegin") CMD ", 1, dtype=int32) != 0) {\n"
             "    " EXT("VTAUopPush") "0, 1, 0, 0, 0, 0, 0, 0, dtype=int32)\n"
             "  }\n"
             "  " EXT("VTAPushALUOp") CMD ", dtype=int32)\n"
             "}\n");
  CHECK(!diag_failed(&d));
}

static void expect_error(Stmt *s, const char *want) {
  Diag d = DIAG_INIT;
  lowered_rt(s, &d);
  CHECK(diag_failed(&d) && strstr(d.msg, want) != NULL);
  if (!diag_failed(&d) || !strstr(d.msg, want)) printf("  got: %s\n", d.msg);
}

static void test_errors(void) {
  expect_error(eval(intrin("tir.vta.uop_pop", 0, NULL)),
               "vta.build: not supported yet: @tir.vta.uop_pop with 0 arguments");
  expect_error(uop_scope("VTAPushOp", push(I(0))),
               "a coproc_uop_scope names VTAPushGEMMOp or VTAPushALUOp");
  expect_error(ir_attr(&A, ATTR_NODE_NONE, NULL, "pragma_alu", I(1), push(I(0))),
               "not supported yet: a stage under attr \"pragma_alu\" that VTA's lowering did "
               "not turn into ALU micro-ops");
  Var *f = ir_var(&A, "f", DT_F32);
  expect_error(uop_scope("VTAPushALUOp", push(ir_cast(&A, DT_I32, V(f)))),
               "not supported yet: a micro-op kernel reading f (float32), not an integer");
  Expr *ptr = ir_call(&A, DT_HANDLE64, "tir.tvm_access_ptr", CALL_PURE, 0, NULL);
  expect_error(uop_scope("VTAPushGEMMOp", push(ptr)), "buffer pointers (@tir.tvm_access_ptr)");
  Var *buf = ir_var(&A, "inp", DT_HANDLE64);
  Expr *ext = I(16);
  Stmt *use = eval(ir_call(&A, DT_I32, "f", CALL_EXTERN, 1, (Expr *[]){V(buf)}));
  expect_error(ir_allocate(&A, buf, DT_MAKE(DT_INT, 8, 1), 1, &ext, "local.inp_buffer", NULL,
                           use),
               "not supported yet: the host code reads or writes inp, a buffer in "
               "local.inp_buffer");
}

/* an on-chip buffer's allocation is dropped: VTA's calls name its places by index */
static void test_on_chip_alloc(void) {
  Var *buf = ir_var(&A, "acc", DT_HANDLE64);
  Expr *ext = I(16);
  Stmt *s = ir_allocate(&A, buf, DT_I32, 1, &ext, "local.acc_buffer", NULL,
                        eval(intrin("tir.vta.coproc_sync", 0, NULL)));
  Diag d = DIAG_INIT;
  CHECK_TEXT(ps(lowered_rt(s, &d)), EXT("VTASynchronize") CMD ", 2147483647, dtype=int32)\n");
  CHECK(!diag_failed(&d));
}

int main(void) {
  arena_init(&A);
  vta = arena_alloc(&A, sizeof *vta);
  *vta = (IterVar){.var = var("vta"), .kind = ITER_THREAD, .thread_tag = "vta"};
  test_builtins();
  test_uop_scope();
  test_errors();
  test_on_chip_alloc();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
