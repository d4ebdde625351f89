/* test_vta_passes.c: VTA's lowering passes on hand-built IR (ir/pass/vta_*.c,
 * lift_attr_scope.c, lower_device_storage_access_info.c): tir.LiftAttrScope's merging and its
 * stops, vta.InjectCoProcSync's dependences around a loop, vta.InjectALUIntrin's micro-op,
 * tir.LowerDeviceStorageAccessInfo's element indices and vta.FoldUopLoop's micro-op loops. */
#include "ir/pass/vta.h"
#include "tests/unit/schedule/sched_test.h"

static const VtaTarget target = {.batch = 1, .block_in = 16, .block_out = 16, .inp_bits = 8,
                                 .wgt_bits = 8, .acc_bits = 32, .inp_buff_bytes = 32768,
                                 .wgt_buff_bytes = 262144, .acc_buff_bytes = 131072,
                                 .uop_buff_bytes = 32768};
static IterVar *axis;
static Var *ko, *co, *i5;
static Buffer *acc;
static Diag diag;

static PassCtx ctx(void) {
  diag = (Diag)DIAG_INIT;
  return (PassCtx){.arena = &A, .vta = &target, .vta_axis = axis, .diag = &diag};
}

static Stmt *scope(const char *key, Expr *value, Stmt *body) {
  return ir_attr(&A, ATTR_NODE_ITERVAR, axis, key, value, body);
}
static Stmt *call(const char *name) {
  return ir_evaluate(&A, ir_call(&A, DT_I32, name, CALL_EXTERN, 0, NULL));
}
static Stmt *seq2(Stmt *a, Stmt *b) {
  Stmt *items[2] = {a, b};
  return ir_seq(&A, 2, items);
}
static Stmt *loop(Var *v, int64_t n, Stmt *body) {
  return ir_for(&A, v, I(0), I(n), FOR_SERIAL, NULL, body);
}
static Expr *ptr(Expr *offset, int mask) {
  return vta_access_ptr(&A, acc->data, DT_I32, offset, I(16), mask);
}

/* neighbours with the same scope merge; another value, or none, splits them */
static void test_vta_lift_attr_scope(void) {
  PassCtx c = ctx();
  Stmt *s = seq2(seq2(scope("coproc_scope", I(1), call("a")), scope("coproc_scope", I(1), call("b"))),
                 loop(ko, 2, scope("coproc_scope", I(2), call("c"))));
  CHECK_TEXT(ps(pass_lift_attr_scope_coproc(s, &c)),
             "attr [IterVar(vta: int32, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_scope\" = 1 {\n"
             "  @tir.call_extern(\"a\", dtype=int32)\n"
             "  @tir.call_extern(\"b\", dtype=int32)\n"
             "}\n"
             "attr [IterVar(vta, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_scope\" = 2;\n"
             "for (ko: int32, 0, 2) {\n"
             "  @tir.call_extern(\"c\", dtype=int32)\n"
             "}\n");
  /* all alike: one scope over the whole body; an allocation keeps it inside */
  Stmt *t = ir_allocate(&A, acc->data, DT_I32, 1, (Expr *[]){I(16)}, "local.acc_buffer", NULL,
                        loop(ko, 2, scope("coproc_scope", I(2), call("c"))));
  CHECK_TEXT(ps(pass_lift_attr_scope_coproc(t, &c)),
             "allocate(acc: Pointer(local.acc_buffer int32), int32, [16]), storage_scope = local.acc_buffer;\n"
             "attr [IterVar(vta: int32, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_scope\" = 2;\n"
             "for (ko: int32, 0, 2) {\n"
             "  @tir.call_extern(\"c\", dtype=int32)\n"
             "}\n");
}

/* a load (queue 1) then a compute (queue 2) in a loop: each waits for the other, the loop's
 * first load for nothing (a push before the loop), its last compute's push popped after */
static void test_vta_coproc_sync(void) {
  PassCtx c = ctx();
  Stmt *s = loop(ko, 4, seq2(scope("coproc_scope", I(1), call("load")),
                             scope("coproc_scope", I(2), call("gemm"))));
  CHECK_TEXT(ps(pass_vta_inject_coproc_sync(s, &c)),
             "@tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
             "for (ko: int32, 0, 4) {\n"
             "  attr [IterVar(vta: int32, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_scope\" = 1 {\n"
             "    @tir.vta.coproc_dep_pop(2, 1, dtype=int32)\n"
             "    @tir.call_extern(\"load\", dtype=int32)\n"
             "    @tir.vta.coproc_dep_push(1, 2, dtype=int32)\n"
             "  }\n"
             "  attr [IterVar(vta, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_scope\" = 2 {\n"
             "    @tir.vta.coproc_dep_pop(1, 2, dtype=int32)\n"
             "    @tir.call_extern(\"gemm\", dtype=int32)\n"
             "    @tir.vta.coproc_dep_push(2, 1, dtype=int32)\n"
             "  }\n"
             "}\n"
             "@tir.vta.coproc_dep_pop(2, 1, dtype=int32)\n"
             "@tir.vta.coproc_sync(, dtype=int32)\n");
  /* no coprocessor: nothing to do */
  Stmt *cpu = call("f");
  CHECK(pass_vta_inject_coproc_sync(cpu, &c) == cpu);
}

/* acc[co*16 + i5] = max(acc[co*16 + i5], 0) over 4 elements: one micro-op loop of 4 */
static void test_vta_alu(void) {
  PassCtx c = ctx();
  Expr *idx = add(mul(V(co), I(16)), V(i5));
  Stmt *st = ir_store(&A, acc, ir_binary(&A, EXPR_MAX, ir_load(&A, acc, idx, NULL), I(0)), idx, NULL);
  Stmt *s = ir_attr(&A, ATTR_NODE_NONE, NULL, "pragma_alu", I(1), loop(co, 4, loop(i5, 16, st)));
  CHECK_TEXT(ps(pass_vta_inject_alu(s, &c)),
             "@tir.call_extern(\"VTAUopLoopBegin\", 4, 1, 1, 0, dtype=int32)\n"
             "@tir.vta.uop_push(1, 0, 0, 0, 0, 1, 1, 0, dtype=int32)\n"
             "@tir.call_extern(\"VTAUopLoopEnd\", dtype=int32)\n");
  /* a row that is not one element */
  Stmt *bad = ir_attr(&A, ATTR_NODE_NONE, NULL, "pragma_alu", I(1), loop(co, 4, loop(i5, 8, st)));
  pass_vta_inject_alu(bad, &c);
  CHECK(diag_failed(&diag) && strstr(diag.msg, "does not walk whole elements of 16 values"));
}

/* the pointer becomes an element index; the GEMM kernel's loop a micro-op loop */
static void test_vta_lower_and_fold(void) {
  PassCtx c = ctx();
  Expr *args[8] = {I(0), I(0), ptr(mul(V(co), I(16)), 3), I(0), I(0), I(0), I(0), I(0)};
  Stmt *push = ir_evaluate(&A, ir_call(&A, DT_I32, "tir.vta.uop_push", CALL_EFFECT, 8, args));
  Stmt *k = scope("coproc_uop_scope", ir_str(&A, "VTAPushGEMMOp"), loop(co, 4, push));
  Stmt *s = ir_allocate(&A, acc->data, DT_I32, 1, (Expr *[]){I(64)}, "local.acc_buffer", NULL, k);
  Stmt *low = pass_lower_device_storage_access_info(s, &c);
  CHECK_TEXT(ps(low), "attr [IterVar(vta: int32, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_uop_scope\" = \"VTAPushGEMMOp\";\n"
                      "for (co: int32, 0, 4) {\n"
                      "  @tir.vta.uop_push(0, 0, co, 0, 0, 0, 0, 0, dtype=int32)\n"
                      "}\n");
  CHECK_TEXT(ps(pass_vta_fold_uop_loop(low, &c)),
             "attr [IterVar(vta: int32, (nullptr), \"ThreadIndex\", \"vta\")] \"coproc_uop_scope\" = \"VTAPushGEMMOp\" {\n"
             "  @tir.call_extern(\"VTAUopLoopBegin\", 4, 1, 0, 0, dtype=int32)\n"
             "  @tir.vta.uop_push(0, 0, 0, 0, 0, 0, 0, 0, dtype=int32)\n"
             "  @tir.call_extern(\"VTAUopLoopEnd\", dtype=int32)\n"
             "}\n");
}

int main(void) {
  arena_init(&A);
  axis = ir_itervar(&A, var("vta"), (Range){NULL, NULL}, ITER_THREAD, "vta");
  ko = var("ko");
  co = var("co");
  i5 = var("i5");
  acc = arena_alloc(&A, sizeof *acc);
  *acc = (Buffer){.name = "acc", .data = ir_var(&A, "acc", DT_HANDLE64), .dtype = DT_I32,
                  .scope = "local.acc_buffer"};
  test_vta_lift_attr_scope();
  test_vta_coproc_sync();
  test_vta_alu();
  test_vta_lower_and_fold();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
