/* packages.c: the tensor modules of SPEC §5 (tvm and its submodules, te, topi, numpy, vta) and
 * __future__. tvm, tvm.te and tvm.tir have the tensor expressions of SPEC §6 (tvm/te*.c); what
 * arrives with later issues is `pending`, so using such a member raises "not supported yet". */
#include "frontend/tvm/build.h"
#include "frontend/np/np.h"
#include "frontend/tvm/pass.h"
#include "frontend/tvm/te.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"

#define TE_PENDING "it arrives with tensor intrinsics, SPEC §12, or later"
#define LATER_PENDING(what) what " arrive with a later issue"

#define PENDING_MODULE(var, name, doc, pending)                                                    \
  const ModuleDef var = {name, NULL, NULL, doc, pending, NULL};

/* Every submodule imports tvm first, so no te expression exists before numpy can read one. */
static int tvm_init(Interp *I, Value *tvm) {
  bi_np_set_int_hook(bi_te_int_of);
  return bi_build_tvm_init(I, tvm);
}

const ModuleDef mod_tvm = {"tvm",
                           bi_tvm_funcs,
                           tvm_init,
                           "Apache TVM's tensor expression API",
                           "this part of the tvm API arrives with a later issue",
                           NULL};
const ModuleDef mod_tvm_te = {
    "tvm.te",          bi_te_funcs,
    bi_te_module_init, "tensor expressions: placeholder, compute, schedules",
    TE_PENDING,        NULL};
const ModuleDef mod_tvm_tir = {
    "tvm.tir",  bi_tir_funcs, bi_tir_module_init, "loop-level IR: const, Select, Cast, decl_buffer",
    TE_PENDING, NULL};
/* TOPI is written in TES (stdlib/topi/): its modules are the files below topi/, found by path
 * (modules.c), each loaded on its first use; their doc lines come from the files. */
const ModuleDef mod_tvm_topi = {"tvm.topi", NULL, NULL, NULL, NULL, "topi/__init__.tes"};
const ModuleDef mod_tvm_target = {"tvm.target",
                                  bi_build_target_funcs,
                                  bi_build_target_init,
                                  "build targets: llvm, cuda, c",
                                  LATER_PENDING("the other target helpers"),
                                  NULL};
const ModuleDef mod_tvm_nd = {
    "tvm.nd", bi_tvm_nd_funcs, bi_tvm_nd_module_init, "n-d arrays on devices: array, empty", NULL,
    NULL};
const ModuleDef mod_tvm_testing = {
    "tvm.testing", bi_tvm_testing_funcs, NULL, "assert_allclose", NULL, NULL};
const ModuleDef mod_tvm_transform = {"tvm.transform",
                                     NULL,
                                     bi_pass_module_init,
                                     "PassContext: settings for lowering",
                                     LATER_PENDING("Sequential and the other pass objects"),
                                     NULL};
PENDING_MODULE(mod_tvm_contrib, "tvm.contrib", "nvcc and utils", LATER_PENDING("contrib helpers"))
PENDING_MODULE(mod_tvm_contrib_nvcc, "tvm.contrib.nvcc", "CUDA helpers: have_tensorcore",
               LATER_PENDING("CUDA helpers"))
PENDING_MODULE(mod_tvm_contrib_utils, "tvm.contrib.utils", "tempdir",
               LATER_PENDING("contrib helpers"))
PENDING_MODULE(mod_tvm_rpc, "tvm.rpc", "LocalSession for VTA", LATER_PENDING("RPC sessions"))
const ModuleDef mod_numpy = {
    "numpy", bi_np_funcs, bi_np_module_init, "the numpy subset of SPEC §10", NULL, NULL};
PENDING_MODULE(mod_vta, "vta", "the VTA accelerator and its simulator",
               LATER_PENDING("VTA features"))
PENDING_MODULE(mod_vta_testing, "vta.testing", "the VTA simulator's statistics",
               LATER_PENDING("VTA features"))
#undef PENDING_MODULE

const ModuleAlias mod_aliases[] = {
    {"te", "tvm.te"},
    {"topi", "tvm.topi"},
    {0},
};

/* Every feature name of Python's __future__ is already on, so importing one does nothing. */
static int future_init(Interp *I, Value *m) {
  static const char *const features[] = {
      "nested_scopes",  "generators",       "division",       "absolute_import", "with_statement",
      "print_function", "unicode_literals", "generator_stop", "annotations",
  };
  for (size_t i = 0; i < sizeof features / sizeof *features; i++)
    bi_set_member_take(m, features[i], val_bool(true));
  return 0;
}

const ModuleDef mod_future = {
    "__future__", NULL, future_init, "Python's future features, all already on", NULL, NULL};
