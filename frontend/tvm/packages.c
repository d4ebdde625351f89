/* packages.c: the tensor modules of SPEC §5 (tvm and its submodules, te, topi, vta), registered
 * with the language's import together with the numpy subset's (tvm_register_modules). tvm,
 * tvm.te and tvm.tir have the tensor expressions of SPEC §6 (tvm/te*.c); what arrives with later
 * issues is `pending`, so using such a member raises "not supported yet". */
#include "frontend/tvm/packages.h"
#include "frontend/tvm/build.h"
#include "frontend/np/np.h"
#include "frontend/tvm/pass.h"
#include "frontend/tvm/te.h"
#include "frontend/tvm/tir_impl.h"
#include "frontend/tvm/vta.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"

#define TE_PENDING "it arrives with tensor intrinsics, SPEC §12, or later"
#define LATER_PENDING(what) what " arrive with a later issue"

#define PENDING_MODULE(var, name, doc, pending)                                                    \
  static const ModuleDef var = {name, NULL, NULL, doc, pending, NULL};

/* Every submodule imports tvm first, so no te expression exists before numpy can read one. */
static int tvm_init(Interp *I, Value *tvm) {
  bi_np_set_int_hook(bi_te_int_of);
  return bi_build_tvm_init(I, tvm);
}

static const ModuleDef mod_tvm = {"tvm",
                           bi_tvm_funcs,
                           tvm_init,
                           "Apache TVM's tensor expression API",
                           "this part of the tvm API arrives with a later issue",
                           NULL};
static const ModuleDef mod_tvm_te = {
    "tvm.te",          bi_te_funcs,
    bi_te_module_init, "tensor expressions: placeholder, compute, schedules",
    TE_PENDING,        NULL};
static const ModuleDef mod_tvm_tir = {
    "tvm.tir",  bi_tir_funcs, bi_tir_module_init, "loop-level IR: const, Select, Cast, decl_buffer",
    TE_PENDING, NULL};
static const ModuleDef mod_tvm_tir_ir_builder = {
    "tvm.tir.ir_builder", bi_tir_builder_funcs, NULL,
    "a builder of statements for tensor intrinsics: create", NULL, NULL};
static const ModuleDef mod_tvm_contrib_clang = {
    "tvm.contrib.clang", bi_contrib_clang_funcs, NULL,
    "clang helpers: create_llvm (C++ to LLVM IR text for pragma import_llvm)", NULL, NULL};
/* TOPI is written in TES (stdlib/topi/): its modules are the files below topi/, found by path
 * (modules.c), each loaded on its first use; their doc lines come from the files. */
static const ModuleDef mod_tvm_topi = {"tvm.topi", NULL, NULL, NULL, NULL, "topi/__init__.tes"};
static const ModuleDef mod_tvm_target = {"tvm.target",
                                  bi_build_target_funcs,
                                  bi_build_target_init,
                                  "build targets: llvm, cuda, c",
                                  LATER_PENDING("the other target helpers"),
                                  NULL};
static const ModuleDef mod_tvm_nd = {
    "tvm.nd", bi_tvm_nd_funcs, bi_tvm_nd_module_init, "n-d arrays on devices: array, empty", NULL,
    NULL};
static const ModuleDef mod_tvm_testing = {
    "tvm.testing", bi_tvm_testing_funcs, NULL, "assert_allclose", NULL, NULL};
static const ModuleDef mod_tvm_transform = {"tvm.transform",
                                     NULL,
                                     bi_pass_module_init,
                                     "PassContext: settings for lowering",
                                     LATER_PENDING("Sequential and the other pass objects"),
                                     NULL};
PENDING_MODULE(mod_tvm_contrib, "tvm.contrib", "nvcc and utils", LATER_PENDING("contrib helpers"))
static const ModuleDef mod_tvm_contrib_nvcc = {
    "tvm.contrib.nvcc", bi_nvcc_funcs, NULL,
    "CUDA helpers: have_tensorcore, have_fp16, have_int8, parse_compute_version",
    LATER_PENDING("the other CUDA helpers (compile_cuda)"), NULL};
static const ModuleDef mod_tvm_ir = {
    "tvm.ir", bi_ir_funcs, bi_ir_module_init,
    "operators and their attributes: register_intrin_lowering, register_op_attr, Op",
    LATER_PENDING("the other IR classes (IRModule, Range, ...)"), NULL};
static const ModuleDef mod_tvm_arith = {"tvm.arith", bi_arith_funcs, NULL,
                                        "arithmetic analysis: Analyzer", NULL, NULL};
static const ModuleDef mod_tvm_contrib_utils = {
    "tvm.contrib.utils", bi_contrib_utils_funcs, NULL,
    "file helpers: tempdir (a directory removed at exit)", NULL, NULL};
#undef PENDING_MODULE
#define VTA_PENDING "VTA's TOPI schedules (vta.top) and the FPGA helpers are not part of tes"
static const ModuleDef mod_vta = {"vta",       bi_vta_funcs, bi_vta_init,
                                  "the VTA accelerator: get_env, Environment, lower, build", VTA_PENDING,
                                  NULL};
static const ModuleDef mod_vta_testing = {
    "vta.testing", NULL, NULL, "VTA's test helpers: simulator", VTA_PENDING, NULL};
static const ModuleDef mod_tvm_rpc = {"tvm.rpc", bi_vta_rpc_funcs, NULL,
                                      "RPC sessions: LocalSession, in this process",
                                      LATER_PENDING("remote RPC sessions"), NULL};
static const ModuleDef mod_vta_intrin = {"vta.intrin", NULL, NULL, NULL, NULL, "vta/intrin.tes"};
static const ModuleDef mod_vta_simulator = {"vta.testing.simulator", bi_vta_simulator_funcs,
                                            NULL, "the VTA simulator's counters", NULL, NULL};

static const ModuleDef *const tvm_defs[] = {
    &mod_tvm,         &mod_tvm_te,           &mod_tvm_tir,           &mod_tvm_tir_ir_builder,
    &mod_tvm_topi,
    &mod_tvm_target,  &mod_tvm_nd,           &mod_tvm_testing,       &mod_tvm_transform,
    &mod_tvm_contrib, &mod_tvm_contrib_clang, &mod_tvm_contrib_nvcc, &mod_tvm_contrib_utils, &mod_tvm_arith, &mod_tvm_ir, &mod_tvm_rpc,
    &mod_vta,         &mod_vta_testing,      &mod_vta_simulator,     &mod_vta_intrin,
    NULL,
};
static const ModuleAlias tvm_aliases[] = {
    {"te", "tvm.te"},
    {"topi", "tvm.topi"},
    {0},
};
/* SPEC §5: a script starts with these bound */
static const ModuleAlias tvm_prebound[] = {
    {"tvm", "tvm"},
    {"te", "tvm.te"},
    {"topi", "tvm.topi"},
    {0},
};
static const ModuleSet tvm_set = {tvm_defs, tvm_aliases, tvm_prebound};

void tvm_register_modules(void) {
  mod_register(&tvm_set);
  np_register_modules();
}
