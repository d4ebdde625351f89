/* build.h: building and running (SPEC §9), in tvm/build.c: tvm.build and the Module it makes
 * (callable on arrays, get_source, time_evaluator, save, export_library), devices (tvm.cpu,
 * tvm.cuda, tvm.device) and targets (tvm.target.Target, `with target:`). The "llvm" target goes
 * through backends/llvm and jit/; the array values are np/ndarray.h's. */
#ifndef TES_TVM_BUILD_H
#define TES_TVM_BUILD_H

#include "frontend/lang/value.h"
#include "ir/diag.h"
#include "jit/ndarray.h"

extern const ObjClass bi_build_module_class; /* runtime.Module: p is the built module */
extern const ObjClass bi_build_device_class; /* Device: tvm.cpu(0) */
extern const ObjClass bi_build_target_class; /* tvm.target.Target */

/* Adds build, cpu, cuda, gpu, device to the tvm module (tvm/packages.c's init of "tvm"). */
int bi_build_tvm_init(Interp *I, Value *tvm);
/* A Target of text as given, "ext_dev -keys=vta,cpu ..." (vta's env.target). */
Value *bi_build_target_new(const char *text);
/* tvm.target's members: Target (a class with Target.current()), create, cuda. */
extern const Builtin bi_build_target_funcs[];
int bi_build_target_init(Interp *I, Value *module);

/* The text of a built module as get_source(fmt) gives it ("ll", "asm", "c"), malloc'd; NULL
 * with d set when the module has no such form. */
char *bi_build_source(Value *module, const char *fmt, Diag *d);
/* Whether a built module was built for the cuda target (its source is CUDA C and PTX). */
bool bi_build_is_cuda(Value *module);

/* A new Device value; and a value's device, false (nothing raised) when v is not a Device. */
Value *bi_build_device_new(NDDevice type, int id);
bool bi_build_device_of(Value *v, NDDevice *type, int *id);

#endif
