/* build_impl.h: what the files of tvm.build share (build.c, module_args.c, module_source.c,
 * time_eval.c, device.c, target.c): the built module, the checked arguments of a call and the
 * LLVM back end's table. Private to those files; others use build.h. */
#ifndef TES_TVM_BUILD_IMPL_H
#define TES_TVM_BUILD_IMPL_H

#include "backends/cuda/verify_gpu.h"
#include "backends/llvm/codegen_llvm.h"
#include "frontend/tvm/build.h"
#include "frontend/tvm/sched.h"
#include "ir/lower.h"
#include "jit/llvm_plugin.h"

typedef struct Built {
  char *name;           /* the entry point */
  char *target;         /* as given */
  Lowered *lowered;     /* counted: holds f's arena */
  const LoweredFunc *f; /* lowered->f */
  int nshape;
  Var **shape;      /* the shape variables, in the ABI's order */
  CgLlvmCode *code; /* NULL for the c target */
  char *c_source;   /* the c target's only product; cuda: the kernels' CUDA C or, for the host
                       module, what it launches */
  bool cuda;        /* built for the cuda target */
  char *cuda_source; /* cuda host module: the kernels' CUDA C, imported_modules[0]'s source */
  char *ptx;         /* cuda: NVRTC's PTX of the kernels */
  struct CudaModule *kernels; /* cuda host module: what each kernel takes and its launch */
  struct CudaLoad *loads;     /* cuda host module: the PTX loaded, once per device used */
  int nloads;
  JitLib *lib;
  int32_t (*packed)(void **); /* NULL: built for another machine (get_source only) */
  bool vta;                   /* vta.build's: runs on ext_dev arrays, drives VTA's runtime */
  struct VtaKernels *vta_kernels; /* its micro-op kernels (frontend/tvm/vta_runtime.c) */
} Built;

/* The LLVM back end (jit/llvm_plugin.h), loaded by the first llvm build: every Built with code
 * or a lib was made after it. */
extern const TesLlvm *bi_llvm;


typedef struct Binding {
  int64_t *vals; /* per shape variable */
  bool *set;
} Binding;

/* The arguments NAME_packed takes, checked. */
typedef struct Args {
  void **slots;
  void **ptrs;
  int64_t *i64;
  int32_t *i32;
  Binding bd;
  int device_id; /* cuda: the device every array is on */
  Value **arrays; /* the call's array arguments (the caller's, borrowed), one per ptrs[i]:
                     call_packed passes a handle to one's data as that array */
  int narrays;
} Args;

/* The LLVM back end (jit/llvm_plugin.h), loaded by the first llvm build: every Built with code
 * or a lib was made after it. */
extern const TesLlvm *bi_llvm;

static inline Built *built_of(Value *self) { return self->u.obj.p; }

/* module_args.c: a call's arguments checked and bound (-1 with an exception raised), the run */
int bi_module_prepare(Interp *I, const Built *m, int n, Value **v, Args *out);
void bi_args_free(Args *a);
int bi_module_run(Interp *I, Built *m, Args *a);
int bi_module_runnable(Interp *I, const Built *m); /* -1 with RuntimeError: nothing to run */
Value *bi_module_call(Interp *I, Value *self, CallArgs *args);

/* A shape expression's value once the call's shape variables are bound; false when it has
 * anything else (module_args.c). */
bool bi_module_eval_shape(const Built *m, const Binding *bd, const Expr *e, int64_t *out);
/* Variables a cuda module's host function binds (loop and let variables, module_cuda.c),
 * innermost last. */
typedef struct HostEnv {
  const Var **vars;
  int64_t *vals;
  int n, cap;
} HostEnv;
/* bi_module_eval_shape with env's variables bound too (before the shape variables), and
 * comparisons and logic (1 true, 0 false) as well: a host condition's value. */
bool bi_module_eval(const Built *m, const Binding *bd, const HostEnv *env, const Expr *e,
                    int64_t *out);
/* The value of v bound in env (the innermost binding) or as a shape variable; false when
 * neither binds it. */
bool bi_module_var_value(const Built *m, const Binding *bd, const HostEnv *env, const Var *v,
                         int64_t *out);
/* Shape variable v's index in m->shape, or -1. */
int bi_module_shape_index(const Built *m, const Var *v);

/* module_cuda.c: running a cuda host module on the device of its arrays (-1 with
 * RuntimeError), timing its calls with CUDA events (seconds per call, -1 with an error), and
 * unloading its PTX when it is freed */
int bi_module_cuda_run(Interp *I, Built *m, Args *a);
double bi_module_cuda_time(Interp *I, Built *m, Args *a, int64_t number);
void bi_module_cuda_free(Built *m);

/* nd_device.c: an array value on the host or a device (NULL: not an array), and the device
 * array class (tvm.nd arrays on cuda) */
NDArray *bi_nd_any_of(Value *v);
extern const ObjClass bi_nd_device_class;
/* Device array values and the np hooks that refuse them (tvm's package init sets those). */
Value *bi_nd_device_wrap(NDArray *a);
/* A copy of src on (type, id), host or CUDA; a new array there, contents undefined on a
 * device (zero on the host); NULL with an error raised ("no CUDA device (why)"). */
Value *bi_nd_place(Interp *I, const NDArray *src, NDDevice type, int id);
Value *bi_nd_empty_on(Interp *I, DType t, int ndim, const int64_t *shape, NDDevice type, int id);
void bi_nd_set_np_hooks(void);

/* build_cache.c: an llvm build's code and object file (malloc'd into *obj, *len bytes), from
 * the compile cache (jit/objcache.h) when it holds them, else built and stored there; NULL
 * with d set. And the build's phase times for TES_TIME_BUILD=1: a build starts, each phase
 * adds its name and the milliseconds since `since` (none when negative), the end prints the
 * line to stderr. */
CgLlvmCode *bi_build_llvm_code(const LoweredFunc *f, const char *target, void **obj, size_t *len,
                               Diag *d);
double bi_build_clock(void); /* milliseconds */
/* The first llvm build loads the back end (jit/llvm_plugin.h) and starts the JIT session on a
 * thread while it lowers: start, then wait for the plugin (its table, or NULL with d set: why
 * it could not be loaded), and finish (joins the thread; NULL is fine) before the build
 * returns, whatever happened. */
typedef struct BiPreload BiPreload;
BiPreload *bi_preload_start(void);
const TesLlvm *bi_preload_wait(BiPreload *p, Diag *d);
void bi_preload_finish(BiPreload *p);
void bi_build_time_start(void);
void bi_build_time(const char *phase, double since);
void bi_build_time_end(const char *name);

/* module_source.c: the Module's methods that give text and files */
Value *bi_module_get_source(Interp *I, Value *self, Value **a);
Value *bi_module_save(Interp *I, Value *self, Value **a);
Value *bi_module_export_library(Interp *I, Value *self, Value **a);

/* build.c, for vta.build and load_module (frontend/tvm/vta*.c): an llvm build of f (l's
 * function, or one made from it in l's arena), taking over the reference l, with m->vta set
 * for vta; and a module of an object file's code (obj), its signature f; NULL with BuildError
 * (RuntimeError for a load) raised. bi_llvm must be loaded. */
Value *bi_build_llvm_func(Interp *I, Lowered *l, const LoweredFunc *f, const char *target,
                          bool vta);
Value *bi_build_load_object(Interp *I, Lowered *l, const LoweredFunc *f, const char *target,
                            const void *obj, size_t len, bool vta);
/* Loads the llvm back end if no build has yet; false with BuildError raised. */
bool bi_build_llvm_loaded(Interp *I);

/* intrin_lowering.c: f with the session's intrinsic lowering rules (tvm.ir.
 * register_intrin_lowering) for target applied: f itself when there are none, else a copy in
 * a; NULL with the rule's error raised. */
const LoweredFunc *bi_ir_lower_intrin(Interp *I, Arena *a, const LoweredFunc *f,
                                      const char *target);

/* build.c: m[name], m.get_function(name): the module itself when name is its function */
Value *bi_module_function_named(Interp *I, Value *self, Value *name, const char *fn);

/* time_eval.c */
Value *bi_module_time_evaluator(Interp *I, Value *self, Value **a);

/* device.c: cpu, cuda, gpu, ext_dev, device ({0}-terminated) */
extern const Builtin bi_device_funcs[];
const char *bi_device_name(NDDevice t); /* "cpu", "cuda", "ext_dev" */

/* target.c: a target argument's text (a str or a Target; NULL or None give the current one,
 * else "llvm"), borrowed, or NULL with TypeError raised; its kind; the kinds TVM names */
const char *bi_target_text(Interp *I, Value *v, const char *fn);
bool bi_target_kind_is(const char *text, const char *kind);
/* Whether the target text sets option -name: bare ("cuda -fast-math"), =1 or =true. */
bool bi_target_flag(const char *text, const char *name);
/* The value of the target text's -name=VALUE option, malloc'd, or NULL. */
char *bi_target_option(const char *text, const char *name);
extern const char *const bi_target_known_kinds[];
extern const size_t bi_target_n_known_kinds;
/* target.c: a cuda target's architecture, "sm_XX": its -arch option, else the first device's,
 * else sm_80 (SPEC §9); and the limits its kernels are verified against (verify_gpu.h): the
 * target's -max_num_threads and -max_shared_memory_per_block options, else the first
 * device's, else 1024 threads and 48 KiB. */
void bi_target_cuda_arch(const char *text, char *out, size_t size);
void bi_target_cuda_limits(const char *text, GpuLimits *lim);

#endif
