/* target.c: targets (SPEC §9): tvm.target.Target (a class with Target.current()), create,
 * cuda, `with target:` and the target text that tvm.build reads. */
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/te_impl.h"
#include "jit/cuda_driver.h"

typedef struct Target {
  char *text; /* as given: "llvm -mcpu=skylake-avx512" */
} Target;

static Value *target_new(const char *text) {
  Target *t = xmalloc(sizeof *t);
  t->text = xstrdup(text);
  return val_obj_new(&bi_build_target_class, t);
}

Value *bi_build_target_new(const char *text) { return target_new(text); }

static void target_free(void *p) {
  Target *t = p;
  free(t->text);
  free(t);
}

/* The kind: the first word ("llvm", "cuda", "c"). */
static size_t kind_len(const char *text) { return strcspn(text, " \t"); }

bool bi_target_kind_is(const char *text, const char *kind) {
  return kind_len(text) == strlen(kind) && strncmp(text, kind, strlen(kind)) == 0;
}

/* `with target:` scopes, innermost last. Strings, not values: a session that ends inside a
 * `with` leaves nothing to free, and :reset starts with none entered. */
static struct {
  char **texts;
  int n, cap;
} entered;

static const ObjClass kind_class;

static Value *target_repr(Interp *I, Value *self) {
  return val_cstr(((Target *)self->u.obj.p)->text);
}

/* The value of option -name=... in text, or NULL. */
static char *target_option(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = text; (p = strstr(p, name)); p += n)
    if (p > text && p[-1] == '-' && (p - 1 == text || p[-2] == ' ') && p[n] == '=') {
      const char *v = p + n + 1;
      return xstrndup(v, strcspn(v, " \t"));
    }
  return NULL;
}

char *bi_target_option(const char *text, const char *name) { return target_option(text, name); }

bool bi_target_flag(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = text; (p = strstr(p, name)); p += n)
    if (p > text && p[-1] == '-' && (p - 1 == text || p[-2] == ' ' || p[-2] == '\t') &&
        (p[n] == 0 || p[n] == ' ' || p[n] == '\t'))
      return true;
  char *v = target_option(text, name);
  bool on = v && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0);
  free(v);
  return on;
}

static Value *target_attrs(const char *text) {
  Value *d = val_dict_new();
  for (const char *p = strchr(text, '-'); p; p = strchr(p + 1, ' ')) {
    while (*p == ' ') p++;
    if (*p != '-') continue;
    size_t klen = strcspn(p + 1, "= \t"), vlen = 0;
    const char *v = p + 1 + klen;
    if (*v == '=') vlen = strcspn(++v, " \t");
    char *key = xstrndup(p + 1, klen);
    Value *val = *v && vlen ? val_str(v, vlen) : val_bool(true);
    dict_set_sym(d, sym_cstr(key), val);
    val_decref(val);
    free(key);
  }
  return d;
}

static const char *target_text(Value *self) { return ((Target *)self->u.obj.p)->text; }

static Value *target_kind(Interp *I, Value *self) {
  const char *text = target_text(self);
  return val_obj_new(&kind_class, xstrndup(text, kind_len(text)));
}

static bool is_gpu(const char *text);

static Value *target_keys(Interp *I, Value *self) {
  bool gpu = is_gpu(target_text(self));
  Value *t = val_tuple_new(gpu ? 2 : 1);
  val_seq_set_take(t, 0, val_cstr(gpu ? "cuda" : "cpu"));
  if (gpu) val_seq_set_take(t, 1, val_cstr("gpu"));
  return t;
}

static Value *target_attrs_prop(Interp *I, Value *self) { return target_attrs(target_text(self)); }

/* The value of the target's -NAME option, or missing if it has none. */
static Value *target_option_value(Value *self, const char *name, const char *missing) {
  char *v = target_option(target_text(self), name);
  Value *r = val_cstr(v ? v : missing);
  free(v);
  return r;
}

static Value *target_mcpu(Interp *I, Value *self) { return target_option_value(self, "mcpu", ""); }

void bi_target_cuda_arch(const char *text, char *out, size_t size) {
  char *a = target_option(text, "arch");
  int major, minor;
  if (a) snprintf(out, size, "%s", a);
  else if (cuda_compute_capability(0, &major, &minor)) snprintf(out, size, "sm_%d%d", major, minor);
  else snprintf(out, size, "sm_80");
  free(a);
}

/* The target's -name=N option, else the device's value dev (0: no device), else dflt; *from
 * says which. */
static int64_t cuda_limit(const char *text, const char *name, int dev, int64_t dflt,
                          const char **from) {
  char *v = target_option(text, name), *end = NULL;
  long long n = v ? strtoll(v, &end, 10) : 0;
  bool given = v && end != v && *end == 0 && n > 0;
  free(v);
  if (given) return *from = "the target's option", n;
  if (dev > 0) return *from = "the device", dev;
  return *from = "the cuda target's default", dflt;
}

/* The first CUDA device's limits; all 0 where there is none (or the driver cannot say). */
static CudaLimits device0_limits(void) {
  CudaLimits l = {0};
  Diag d = DIAG_INIT;
  if (cuda_device_count() > 0 && !cuda_device_limits(0, &l, &d)) l = (CudaLimits){0};
  return l;
}

void bi_target_cuda_limits(const char *text, GpuLimits *lim) {
  CudaLimits dev = device0_limits();
  /* Kernels declare shared memory statically (__shared__ arrays), for which CUDA's limit is the
   * device's 48 KiB whatever its opt-in maximum (that one is for dynamic shared memory). */
  lim->max_threads = cuda_limit(text, "max_num_threads", dev.max_threads_per_block, 1024,
                                &lim->max_threads_from);
  lim->max_shared = cuda_limit(text, "max_shared_memory_per_block",
                               dev.max_shared_memory_per_block, 48 * 1024, &lim->max_shared_from);
  lim->max_local = CUDA_MAX_LOCAL_BYTES;
}

static bool is_gpu(const char *text) {
  return bi_target_kind_is(text, "cuda") || bi_target_kind_is(text, "nvptx") ||
         bi_target_kind_is(text, "rocm");
}

/* The -arch option; of a cuda target without one, the architecture NVRTC compiles for. */
static Value *target_arch(Interp *I, Value *self) {
  if (!bi_target_kind_is(target_text(self), "cuda")) return target_option_value(self, "arch", "");
  char arch[32];
  bi_target_cuda_arch(target_text(self), arch, sizeof arch);
  return val_cstr(arch);
}

/* A GPU target's limit; AttributeError for other kinds, which have none (as in TVM). */
static Value *gpu_limit(Interp *I, Value *self, const char *name, int dev, int64_t dflt) {
  const char *text = target_text(self);
  if (!is_gpu(text))
    return interp_raise(I, EXC_AttributeError, "target '%s' has no attribute '%s' (only GPU "
                        "targets do)", text, name);
  const char *from;
  return val_int(cuda_limit(text, name, dev, dflt, &from));
}

static Value *target_max_num_threads(Interp *I, Value *self) {
  return gpu_limit(I, self, "max_num_threads", device0_limits().max_threads_per_block, 1024);
}
static Value *target_thread_warp_size(Interp *I, Value *self) {
  return gpu_limit(I, self, "thread_warp_size", device0_limits().warp_size, 32);
}
static Value *target_max_shared(Interp *I, Value *self) {
  return gpu_limit(I, self, "max_shared_memory_per_block",
                   device0_limits().max_shared_memory_per_block, 48 * 1024);
}
static Value *target_model(Interp *I, Value *self) {
  return target_option_value(self, "model", "unknown");
}

static const Property target_props[] = {
    {"kind", target_kind, "the TargetKind; its name is the target's first word ('llvm')"},
    {"keys", target_keys, "the target's families, a tuple: ('cpu',) or ('cuda', 'gpu')"},
    {"attrs", target_attrs_prop, "the -key=value options, a dict (a bare -key is True)"},
    {"mcpu", target_mcpu, "the -mcpu option, or ''"},
    {"arch", target_arch,
     "the -arch option, or ''; of cuda, else the device's 'sm_XX', else 'sm_80' (NVRTC's)"},
    {"max_num_threads", target_max_num_threads,
     "a GPU target's threads a block: -max_num_threads, else the device's, else 1024"},
    {"thread_warp_size", target_thread_warp_size,
     "a GPU target's warp size: -thread_warp_size, else the device's, else 32"},
    {"max_shared_memory_per_block", target_max_shared,
     "a GPU target's shared memory a block in bytes: the option, else the device's, else 49152"},
    {"model", target_model, "the -model option, or 'unknown'"},
    {0},
};

static Value *target_enter(Interp *I, Value *self, Value **a) {
  if (entered.n == entered.cap) {
    entered.cap = entered.cap ? 2 * entered.cap : 4;
    entered.texts = xrealloc(entered.texts, (size_t)entered.cap * sizeof *entered.texts);
  }
  entered.texts[entered.n++] = xstrdup(((Target *)self->u.obj.p)->text);
  return val_incref(self);
}

static Value *target_exit(Interp *I, Value *self, Value **a) {
  if (entered.n > 0) free(entered.texts[--entered.n]);
  return val_none();
}

static const Builtin target_methods[] = {
    {"__enter__", target_enter, 0, NOPARAMS,
     "__enter__() -> Target: make this the current target (`with` calls it)"},
    {"__exit__", target_exit, 0, PARAMS("ptype", "value", "trace"),
     "__exit__(ptype, value, trace): restore the target entered before"},
    {0},
};

const ObjClass bi_build_target_class = {
    .type = {"Target", NULL, VAL_OBJ, NULL},
    .free = target_free,
    .repr = target_repr,
    .methods = target_methods,
    .props = target_props,
};

/* What target.kind gives: TVM's TargetKind, of which scripts read the name. */
static Value *kind_repr(Interp *I, Value *self) { return val_cstr(self->u.obj.p); }

static Value *kind_name(Interp *I, Value *self) { return val_cstr(self->u.obj.p); }

static const Property kind_props[] = {
    {"name", kind_name, "the kind's name ('llvm', 'cuda', 'c')"},
    {0},
};

static const ObjClass kind_class = {
    .type = {"TargetKind", NULL, VAL_OBJ, NULL},
    .free = free,
    .repr = kind_repr,
    .props = kind_props,
};

/* A target argument: a str or a Target; NULL (and None) give the current target, else "llvm".
 * Returns a borrowed string, or NULL with TypeError raised. */
const char *bi_target_text(Interp *I, Value *v, const char *fn) {
  if (!v || v->kind == VAL_NONE) return entered.n ? entered.texts[entered.n - 1] : "llvm";
  if (v->kind == VAL_STR) return v->u.str.s;
  Target *t = val_obj_of(v, &bi_build_target_class);
  if (t) return t->text;
  interp_raise(I, EXC_TypeError, "%s: a target must be a str or a Target, not '%s'", fn,
               val_type_name(v));
  return NULL;
}

const char *const bi_target_known_kinds[] = {"llvm",    "c",       "cuda",   "nvptx",
                                          "rocm",    "opencl",  "vulkan", "metal",
                                          "ext_dev", "stackvm", "hybrid"};

static Value *make_target(Interp *I, Value *v, const char *fn) {
  if (!v || v->kind != VAL_STR) {
    const char *text = bi_target_text(I, v, fn);
    return text ? target_new(text) : NULL;
  }
  const char *text = v->u.str.s;
  for (size_t i = 0; i < sizeof bi_target_known_kinds / sizeof *bi_target_known_kinds; i++)
    if (bi_target_kind_is(text, bi_target_known_kinds[i])) return target_new(text);
  return interp_raise(I, EXC_ValueError, "%s: unknown target kind '%.*s' (llvm, c, cuda, ext_dev)",
                      fn, (int)kind_len(text), text);
}

static const Builtin target_ctor = {
    "Target", NULL, 1, PARAMS("target", "host"),
    "Target(target, host=None) -> Target: a build target such as 'llvm -mcpu=skylake-avx512'"};

static Value *target_class_call(Interp *I, Value *self, CallArgs *args) {
  Value *slots[2];
  if (interp_bind_builtin(I, &target_ctor, args, slots) < 0) return NULL;
  return make_target(I, slots[0], "Target");
}

static Value *target_class_repr(Interp *I, Value *self) {
  return val_cstr("<class 'tvm.target.Target'>");
}

static Value *target_current(Interp *I, Value *self, Value **a) {
  if (entered.n) return target_new(entered.texts[entered.n - 1]);
  int allow_none = a[0] ? val_truthy(I, a[0]) : 1;
  if (allow_none < 0) return NULL;
  if (!allow_none) return interp_raise(I, EXC_ValueError, "Target.current: no target is entered");
  return val_none();
}

static const Builtin target_class_methods[] = {
    {"current", target_current, 0, PARAMS("allow_none"),
     "current(allow_none=True) -> Target: the target of the innermost `with`, else None"},
    {0},
};

static const ObjClass target_class_class = {
    .type = {"type", NULL, VAL_OBJ, NULL},
    .repr = target_class_repr,
    .call = target_class_call,
    .methods = target_class_methods,
};

static Value *fn_target_create(Interp *I, Value *self, Value **a) {
  return make_target(I, a[0], "create");
}

/* tvm.target.cuda(model='unknown', arch=None, options=None) */
static Value *fn_target_cuda(Interp *I, Value *self, Value **a) {
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "cuda");
  if (a[0] && a[0]->kind == VAL_STR) sb_printf(&b, " -model=%s", a[0]->u.str.s);
  if (a[1] && a[1]->kind == VAL_STR) sb_printf(&b, " -arch=%s", a[1]->u.str.s);
  if (a[2] && a[2]->kind == VAL_STR) sb_printf(&b, " %s", a[2]->u.str.s);
  Value *t = target_new(sb_cstr(&b));
  sb_free(&b);
  return t;
}

const Builtin bi_build_target_funcs[] = {
    {"create", fn_target_create, 1, PARAMS("target"),
     "create(target) -> Target: Target(target), the older spelling"},
    {"cuda", fn_target_cuda, 0, PARAMS("model", "arch", "options"),
     "cuda(model='unknown', arch=None, options=None) -> Target: a CUDA target"},
    {0},
};

int bi_build_target_init(Interp *I, Value *module) {
  bi_set_member_take(module, "Target", val_obj_new(&target_class_class, NULL));
  return 0;
}

const size_t bi_target_n_known_kinds = sizeof bi_target_known_kinds / sizeof *bi_target_known_kinds;
