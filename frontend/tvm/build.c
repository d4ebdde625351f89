/* build.c: tvm.build and the Module class (SPEC §9). tvm.build lowers a schedule the way
 * tvm.lower does (bi_pass_lower: the current PassContext applies, and --dump-after sees it),
 * generates LLVM IR for the host (backends/llvm), optimises it and links the object into the
 * process (jit/), all at the call, so any failure is a BuildError there. A Module owns its code
 * and JIT memory and holds its lowering (Lowered, counted), and frees them with the value. Calls, sources and timing are in module_args.c,
 * module_source.c and time_eval.c; devices and targets in device.c and target.c. */
#include <stdlib.h>
#include <string.h>

#include "backends/c/codegen_c.h"
#include "backends/cuda/codegen_cuda.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/pass.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/sched.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/vta_runtime.h"
#include "jit/nvrtc.h"

const TesLlvm *bi_llvm;

static void built_free(void *p) {
  Built *m = p;
  if (m->lib) bi_llvm->unload(m->lib);
  if (m->code) bi_llvm->free(m->code);
  if (m->lowered) bi_sched_lowered_release(m->lowered);
  bi_vta_module_free(m);
  bi_module_cuda_free(m); /* before the kernels it names */
  cg_cuda_free(m->kernels);
  free(m->c_source);
  free(m->cuda_source);
  free(m->ptx);
  free(m->shape);
  free(m->name);
  free(m->target);
  free(m);
}


/* m[name] and m.get_function(name): the module's one function is the module itself. */
Value *bi_module_function_named(Interp *I, Value *self, Value *name, const char *fn) {
  Built *m = built_of(self);
  if (name->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "%s: a function name must be a str, not '%s'", fn,
                        val_type_name(name));
  if (strcmp(name->u.str.s, m->name) != 0)
    return interp_raise(I, EXC_AttributeError, "Module has no function '%s' (it has '%s')",
                        name->u.str.s, m->name);
  return val_incref(self);
}

static Value *m_get_function(Interp *I, Value *self, Value **a) {
  return bi_module_function_named(I, self, a[0], "get_function");
}

static Value *module_getitem(Interp *I, Value *self, Value *key) {
  return bi_module_function_named(I, self, key, "Module[]");
}

static Value *module_entry_name(Interp *I, Value *self) { return val_cstr(built_of(self)->name); }

static const char *module_kind(const Built *m) {
  return m->code || m->lib ? "llvm" : m->cuda ? "cuda" : "c";
}

static Value *module_type_key(Interp *I, Value *self) {
  return val_cstr(module_kind(built_of(self)));
}

static Built *new_built(Lowered *l, const char *target);

/* A cuda host module imports the module of its kernels (CUDA C and PTX), made on each call. */
static Value *module_imported_modules(Interp *I, Value *self) {
  Built *m = built_of(self);
  if (!m->cuda_source) return val_list_new(0);
  Built *dev = new_built(bi_sched_lowered_ref(m->lowered), m->target);
  dev->cuda = true;
  dev->c_source = xstrdup(m->cuda_source);
  dev->ptx = xstrdup(m->ptx);
  Value *list = val_list_new(1);
  val_list_append_take(list, val_obj_new(&bi_build_module_class, dev));
  return list;
}

static Value *module_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  Built *m = built_of(self);
  sb_printf(&b, "Module(%s, %s)", module_kind(m), m->name);
  return val_str_sb(&b);
}

/* ---- the Module class ---- */

static const Builtin module_methods[] = {
    {"get_source", bi_module_get_source, 0, PARAMS("fmt"),
     "get_source(fmt='') -> str: the optimised LLVM IR ('ll', the default) or assembly ('asm'); "
     "of a cuda module, its CUDA C ('cuda') or PTX ('ptx')"},
    {"get_function", m_get_function, 1, PARAMS("name", "query_imports"),
     "get_function(name) -> Module: the function called name (the module's entry point)"},
    {"time_evaluator", bi_module_time_evaluator, 1,
     PARAMS("func_name", "dev", "number", "repeat", "min_repeat_ms", "f_preproc"),
     "time_evaluator(func_name, dev, number=10, repeat=1, min_repeat_ms=0) -> callable: "
     "timing runs, giving a BenchmarkResult in seconds"},
    {"save", bi_module_save, 1, PARAMS("file_name", "fmt"),
     "save(file_name, fmt='') -> None: writes LLVM IR (.ll), assembly (.s) or an object (.o)"},
    {"export_library", bi_module_export_library, 1, PARAMS("file_name", "fcompile", "options"),
     "export_library(file_name) -> None: a shared object and a C header of the entry points"},
    {0},
};

static const Property module_props[] = {
    {"entry_name", module_entry_name, "the name of the module's function"},
    {"type_key", module_type_key,
     "what the module holds: 'llvm' (compiled), 'c' (source) or 'cuda' (kernels or their launches)"},
    {"imported_modules", module_imported_modules,
     "the modules it imports: a cuda module's kernels, else none"},
    {0},
};

const ObjClass bi_build_module_class = {
    .type = {"Module", NULL, VAL_OBJ, NULL},
    .free = built_free,
    .repr = module_repr,
    .call = bi_module_call,
    .getitem = module_getitem,
    .methods = module_methods,
    .props = module_props,
};

/* ---- tvm.build ---- */

/* The function to build, a new reference: a lowering of a schedule, or an IRModule / PrimFunc
 * as it is. */
static Lowered *build_input(Interp *I, Value **a, const char *name, bool gpu) {
  Lowered *l = bi_sched_lowered_of(a[0]);
  if (l) return bi_sched_lowered_ref(l);
  Schedule *s = val_obj_of(a[0], &bi_sched_schedule_class);
  if (!s)
    return interp_raise(I, EXC_TypeError, "build: expected a Schedule or an IRModule, not '%s'",
                        val_type_name(a[0])),
           NULL;
  if (!a[1] || a[1]->kind == VAL_NONE)
    return interp_raise(I, EXC_ValueError, "build: args must be given to build a schedule"), NULL;
  Value *nm = val_cstr(name);
  Value *largs[5] = {a[0], a[1], nm, a[5], val_bool(false)}; /* TVM's build: simple_mode off */
  Value *lowered = bi_sched_lower_for(I, largs, gpu);
  val_decref(nm);
  if (!lowered) return NULL;
  l = bi_sched_lowered_ref(bi_sched_lowered_of(lowered));
  val_decref(lowered);
  return l;
}

/* Takes over the reference l. */
static Built *new_built(Lowered *l, const char *target) {
  const LoweredFunc *f = l->f;
  Built *m = xcalloc(1, sizeof *m);
  m->name = xstrdup(f->name);
  m->target = xstrdup(target);
  m->lowered = l;
  m->f = f;
  m->nshape = ir_func_shape_vars(f, NULL, 0);
  m->shape = xmalloc((size_t)(m->nshape + 1) * sizeof *m->shape);
  ir_func_shape_vars(f, m->shape, m->nshape);
  return m;
}

/* The c target: C source to read, nothing to run. Takes over the reference l. */
static Value *build_c(Interp *I, Lowered *l, const char *target) {
  const LoweredFunc *f = bi_ir_lower_intrin(I, &l->arena, l->f, target);
  if (!f) return bi_sched_lowered_release(l), NULL;
  Diag d = DIAG_INIT;
  char *src = cg_c_source(f, &d);
  if (!src) return bi_sched_lowered_release(l), bi_raise_diag(I, EXC_BuildError, &d);
  Built *m = new_built(l, target);
  m->f = f;
  m->c_source = src;
  return val_obj_new(&bi_build_module_class, m);
}

/* Codegen, optimisation and JIT linking; a Module, or NULL with BuildError raised. Takes over
 * the reference l. */
static Value *build_llvm(Interp *I, Lowered *l, const char *target) {
  const LoweredFunc *f = bi_ir_lower_intrin(I, &l->arena, l->f, target);
  if (!f) return bi_sched_lowered_release(l), NULL;
  return bi_build_llvm_func(I, l, f, target, false);
}

Value *bi_build_llvm_func(Interp *I, Lowered *l, const LoweredFunc *f, const char *target,
                          bool vta) {
  Diag d = DIAG_INIT;
  void *obj;
  size_t len;
  CgLlvmCode *code = bi_build_llvm_code(f, target, &obj, &len, &d);
  if (!code) return bi_sched_lowered_release(l), bi_raise_diag(I, EXC_BuildError, &d);
  Built *m = new_built(l, target);
  m->f = f;
  free(m->name);
  m->name = xstrdup(f->name);
  m->vta = vta;
  m->code = code;
  Value *mod = val_obj_new(&bi_build_module_class, m);
  if (!bi_llvm->runs_here(code)) return free(obj), mod;
  double t = bi_build_clock();
  m->lib = bi_llvm->load_object(obj, len, &d);
  free(obj);
  if (!m->lib) goto fail;
  StrBuf sym = STRBUF_INIT;
  sb_printf(&sym, "%s_packed", f->name);
  m->packed = (int32_t(*)(void **))bi_llvm->lookup(m->lib, sb_cstr(&sym), &d);
  sb_free(&sym);
  bi_build_time("jit-link", t);
  if (m->packed) return mod;
fail:
  val_decref(mod);
  return bi_raise_diag(I, EXC_BuildError, &d);
}

/* The cuda target: the GPU verifier, then CUDA C of the kernels, compiled by NVRTC now so its
 * errors are the call's.
 * Takes over the reference l. */
static Value *build_cuda(Interp *I, Lowered *l, const char *target) {
  /* an IRModule of tvm.lower has not been through the GPU passes (no kernel split out) */
  const LoweredFunc *f = l->f->ndevice || l->f->thread_synced
                             ? l->f
                             : bi_pass_gpu_passes(I, &l->arena, l->f);
  if (f) f = bi_ir_lower_intrin(I, &l->arena, f, target);
  if (!f) return bi_sched_lowered_release(l), NULL;
  Diag d = DIAG_INIT;
  GpuLimits lim;
  bi_target_cuda_limits(target, &lim);
  CudaOptions opt = {.fast_math = bi_target_flag(target, "fast-math")};
  CudaModule *cm = cuda_verify(f, &lim, &d) ? cg_cuda_build(f, &opt, &d) : NULL;
  char arch[32];
  bi_target_cuda_arch(target, arch, sizeof arch);
  char *ptx = cm ? nvrtc_compile(cm->source, arch, &d) : NULL;
  if (!ptx) {
    cg_cuda_free(cm);
    bi_sched_lowered_release(l);
    return bi_raise_diag(I, EXC_BuildError, &d);
  }
  Built *m = new_built(l, target);
  m->f = f;
  m->cuda = true;
  m->c_source = cm->host;
  m->cuda_source = cm->source;
  m->ptx = ptx;
  cm->host = cm->source = NULL;
  m->kernels = cm; /* what module_cuda.c launches */
  return val_obj_new(&bi_build_module_class, m);
}

static Value *build_module(Interp *I, Value **a);

/* tvm.build: the module, shown to --emit's hook */
static Value *fn_build(Interp *I, Value *self, Value **a) {
  Value *mod = build_module(I, a);
  BiLowerHooks *h = bi_pass_hooks(I);
  if (mod && h->built) h->built(h->built_user, I, mod);
  return mod;
}

static Value *build_module(Interp *I, Value **a) {
  const char *name = bi_te_str_arg(I, a[4], "build", "name", "default_function");
  const char *target = name ? bi_target_text(I, a[2], "build") : NULL;
  if (!target) return NULL;
  if (bi_target_kind_is(target, "c")) {
    Lowered *l = build_input(I, a, name, false);
    return l ? build_c(I, l, target) : NULL;
  }
  if (bi_target_kind_is(target, "cuda")) {
    Lowered *l = build_input(I, a, name, true);
    return l ? build_cuda(I, l, target) : NULL;
  }
  if (!bi_target_kind_is(target, "llvm")) {
    for (size_t i = 0; i < bi_target_n_known_kinds; i++)
      if (bi_target_kind_is(target, bi_target_known_kinds[i]))
        return interp_raise(I, EXC_BuildError, "not supported yet: the '%s' target",
                            bi_target_known_kinds[i]);
    return interp_raise(I, EXC_BuildError, "unknown target '%s' (llvm, c, cuda, ext_dev)", target);
  }
  Diag d = DIAG_INIT;
  bi_build_time_start();
  BiPreload *pre = bi_llvm ? NULL : bi_preload_start();
  double t = bi_build_clock();
  Lowered *l = build_input(I, a, name, false);
  bi_build_time("lower", t);
  if (pre) bi_llvm = bi_preload_wait(pre, &d);
  /* the plugin's and the target's errors come first, as if checked before lowering */
  if (!bi_llvm || !bi_llvm->target_check(target, &d)) {
    if (l)
      bi_sched_lowered_release(l);
    else
      interp_error_clear(I);
    bi_preload_finish(pre);
    return bi_raise_diag(I, EXC_BuildError, &d);
  }
  Value *mod = l ? build_llvm(I, l, target) : NULL;
  bi_preload_finish(pre);
  bi_build_time_end(name);
  return mod;
}

Value *bi_build_load_object(Interp *I, Lowered *l, const LoweredFunc *f, const char *target,
                            const void *obj, size_t len, bool vta) {
  Diag d = DIAG_INIT;
  Built *m = new_built(l, target);
  m->f = f;
  free(m->name);
  m->name = xstrdup(f->name);
  m->vta = vta;
  Value *mod = val_obj_new(&bi_build_module_class, m);
  m->lib = bi_llvm->load_object(obj, len, &d);
  StrBuf sym = STRBUF_INIT;
  sb_printf(&sym, "%s_packed", f->name);
  m->packed = m->lib ? (int32_t(*)(void **))bi_llvm->lookup(m->lib, sb_cstr(&sym), &d) : NULL;
  sb_free(&sym);
  if (m->packed) return mod;
  val_decref(mod);
  return bi_raise_diag(I, EXC_RuntimeError, &d);
}

bool bi_build_llvm_loaded(Interp *I) {
  if (bi_llvm) return true;
  Diag d = DIAG_INIT;
  BiPreload *pre = bi_preload_start();
  bi_llvm = bi_preload_wait(pre, &d);
  bi_preload_finish(pre);
  if (!bi_llvm) bi_raise_diag(I, EXC_BuildError, &d);
  return bi_llvm != NULL;
}

static const Builtin tvm_rows[] = {
    {"build", fn_build, 1, PARAMS("inputs", "args", "target", "target_host", "name", "binds"),
     "build(inputs, args=None, target='llvm', target_host=None, name='default_function') -> "
     "Module: compiles a schedule (or a lowered IRModule) for the target"},
    {0},
};

int bi_build_tvm_init(Interp *I, Value *tvm) {
  bi_nd_set_np_hooks(); /* numpy refuses device arrays with a reason */
  for (const Builtin *b = tvm_rows; b->name; b++)
    bi_set_member_take(tvm, b->name, val_builtin(b, NULL));
  for (const Builtin *b = bi_device_funcs; b->name; b++)
    bi_set_member_take(tvm, b->name, val_builtin(b, NULL));
  bi_set_member_take(tvm, "Device", val_type(&bi_build_device_class.type));
  return 0;
}
