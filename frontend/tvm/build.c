/* build.c: tvm.build and runtime.Module (SPEC §9), devices and targets. tvm.build lowers a
 * schedule the way tvm.lower does (bi_pass_lower: the current PassContext applies, and
 * --dump-after sees it), generates LLVM IR for the host (backends/llvm), optimises it and links
 * the object into the process (jit/), all at the call, so any failure is a BuildError there.
 * Calling a Module checks every argument against its parameter (an array, on the CPU, of the
 * dtype, rank and shape declared; shape variables bound by the first dimension that has them
 * and checked against the rest) before it calls NAME_packed, and raises RuntimeError with the
 * message of a failed assert. A Module owns its code and JIT memory and frees them with the
 * value; its LoweredFunc lives in the session's IR arena, like every lowering. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/c/codegen_c.h"
#include "frontend/tvm/build.h"
#include "frontend/np/ndarray.h"
#include "frontend/tvm/pass.h"
#include "frontend/tvm/sched.h"
#include "jit/cuda_driver.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "ir/printer.h"
#include "jit/llvm_plugin.h"

static bool is(Sym *name, const char *s) { return strcmp(SYM_STR(name), s) == 0; }

static void *obj_of(Value *v, const ObjClass *cls) {
  return v && v->kind == VAL_OBJ && v->u.obj.cls == cls ? v->u.obj.p : NULL;
}

static Value *take_str(StrBuf *b) {
  Value *v = val_str(sb_cstr(b), b->len);
  sb_free(b);
  return v;
}

/* ---- devices ---- */

typedef struct Device {
  NDDevice type;
  int id;
} Device;

#define DEV_EXT ((NDDevice)12) /* DLPack's kDLExtDev, VTA's ext_dev */

static const char *device_name(NDDevice t) {
  return t == ND_CPU ? "cpu" : t == ND_CUDA ? "cuda" : "ext_dev";
}

Value *bi_build_device_new(NDDevice type, int id) {
  Device *d = xmalloc(sizeof *d);
  d->type = type;
  d->id = id;
  return val_obj_new(&bi_build_device_class, d);
}

bool bi_build_device_of(Value *v, NDDevice *type, int *id) {
  Device *d = obj_of(v, &bi_build_device_class);
  if (!d) return false;
  *type = d->type;
  *id = d->id;
  return true;
}

static Value *device_repr(Interp *I, Value *self) {
  Device *d = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s(%d)", device_name(d->type), d->id);
  return take_str(&b);
}

static Value *device_getattr(Interp *I, Value *self, Sym *name) {
  Device *d = self->u.obj.p;
  if (is(name, "exist"))
    return val_bool(d->type == ND_CPU ? d->id == 0 : d->type == ND_CUDA && cuda_device_exists(d->id));
  if (is(name, "device_type")) return val_int(d->type);
  if (is(name, "device_id")) return val_int(d->id);
  int major, minor;
  if (is(name, "compute_version") && d->type == ND_CUDA &&
      cuda_compute_capability(d->id, &major, &minor)) {
    StrBuf b = STRBUF_INIT;
    sb_printf(&b, "%d.%d", major, minor);
    return take_str(&b);
  }
  if (is(name, "compute_version"))
    return interp_raise(I, EXC_RuntimeError,
                        d->type == ND_CUDA
                            ? "no CUDA driver or device was found (%s(%d))"
                            : "%s(%d) is not a CUDA device: it has no compute version",
                        device_name(d->type), d->id);
  return NULL;
}

static Value *device_sync(Interp *I, Value *self, Value **a) { return val_none(); }

static Value *device_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  Device *x = obj_of(a, &bi_build_device_class), *y = obj_of(b, &bi_build_device_class);
  if ((op != CMP_EQ && op != CMP_NE) || !x || !y) return NULL;
  return val_bool((x->type == y->type && x->id == y->id) == (op == CMP_EQ));
}

static const Builtin device_methods[] = {
    {"sync", device_sync, 0, NOPARAMS, "sync(): wait for the device (the CPU always is done)"},
    {0},
};

const ObjClass bi_build_device_class = {
    .type = {"Device", NULL, VAL_OBJ, NULL},
    .free = free,
    .repr = device_repr,
    .getattr = device_getattr,
    .compare = device_compare,
    .methods = device_methods,
};

static int device_id_arg(Interp *I, Value *v, const char *fn, int *id) {
  int64_t n = 0;
  if (v && v->kind != VAL_NONE && val_as_int(I, v, &n) < 0) return -1;
  if (n < 0 || n > 1024) {
    interp_raise(I, EXC_ValueError, "%s: device id %lld is out of range", fn, (long long)n);
    return -1;
  }
  *id = (int)n;
  return 0;
}

static Value *fn_cpu(Interp *I, Value *self, Value **a) {
  int id;
  return device_id_arg(I, a[0], "cpu", &id) < 0 ? NULL : bi_build_device_new(ND_CPU, id);
}

static Value *fn_cuda(Interp *I, Value *self, Value **a) {
  int id;
  return device_id_arg(I, a[0], "cuda", &id) < 0 ? NULL : bi_build_device_new(ND_CUDA, id);
}

static Value *fn_ext_dev(Interp *I, Value *self, Value **a) {
  int id;
  return device_id_arg(I, a[0], "ext_dev", &id) < 0 ? NULL : bi_build_device_new(DEV_EXT, id);
}

/* tvm.device("llvm" | "cpu" | "c" | "cuda" | "gpu" | "ext_dev" | 1 | 2 | 12, id) */
static Value *fn_device(Interp *I, Value *self, Value **a) {
  static const struct {
    const char *name;
    NDDevice type;
  } kinds[] = {{"cpu", ND_CPU},   {"llvm", ND_CPU}, {"c", ND_CPU},      {"stackvm", ND_CPU},
               {"cuda", ND_CUDA}, {"gpu", ND_CUDA}, {"nvptx", ND_CUDA}, {"ext_dev", DEV_EXT}};
  int id;
  if (device_id_arg(I, a[1], "device", &id) < 0) return NULL;
  if (val_is_int(a[0])) {
    int64_t t = a[0]->u.i;
    if (t == ND_CPU || t == ND_CUDA || t == DEV_EXT) return bi_build_device_new((NDDevice)t, id);
    return interp_raise(I, EXC_ValueError, "device: unknown device type %lld", (long long)t);
  }
  if (a[0]->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError,
                        "device: the device type must be a str or an int, not '%s'",
                        val_type_name(a[0]));
  char kind[32];
  snprintf(kind, sizeof kind, "%.*s", (int)strcspn(a[0]->u.str.s, " "), a[0]->u.str.s);
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (strcmp(kind, kinds[i].name) == 0) return bi_build_device_new(kinds[i].type, id);
  return interp_raise(I, EXC_ValueError, "device: unknown device '%s' (cpu, llvm, cuda, ext_dev)",
                      a[0]->u.str.s);
}

/* ---- targets ---- */

typedef struct Target {
  char *text; /* as given: "llvm -mcpu=skylake-avx512" */
} Target;

static Value *target_new(const char *text) {
  Target *t = xmalloc(sizeof *t);
  t->text = xstrdup(text);
  return val_obj_new(&bi_build_target_class, t);
}

static void target_free(void *p) {
  Target *t = p;
  free(t->text);
  free(t);
}

/* The kind: the first word ("llvm", "cuda", "c"). */
static size_t kind_len(const char *text) { return strcspn(text, " \t"); }

static bool kind_is(const char *text, const char *kind) {
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

static Value *target_getattr(Interp *I, Value *self, Sym *name) {
  const char *text = ((Target *)self->u.obj.p)->text;
  if (is(name, "kind")) return val_obj_new(&kind_class, xstrndup(text, kind_len(text)));
  if (is(name, "keys")) {
    bool gpu = kind_is(text, "cuda") || kind_is(text, "nvptx") || kind_is(text, "rocm");
    Value *t = val_tuple_new(gpu ? 2 : 1);
    val_seq_set_take(t, 0, val_cstr(gpu ? "cuda" : "cpu"));
    if (gpu) val_seq_set_take(t, 1, val_cstr("gpu"));
    return t;
  }
  if (is(name, "attrs")) return target_attrs(text);
  if (is(name, "mcpu") || is(name, "arch") || is(name, "model")) {
    char *v = target_option(text, SYM_STR(name));
    Value *r = val_cstr(v ? v : is(name, "model") ? "unknown" : "");
    free(v);
    return r;
  }
  return NULL;
}

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
    .getattr = target_getattr,
    .methods = target_methods,
};

/* What target.kind gives: TVM's TargetKind, of which scripts read the name. */
static Value *kind_repr(Interp *I, Value *self) { return val_cstr(self->u.obj.p); }

static Value *kind_getattr(Interp *I, Value *self, Sym *name) {
  return is(name, "name") ? val_cstr(self->u.obj.p) : NULL;
}

static const ObjClass kind_class = {
    .type = {"TargetKind", NULL, VAL_OBJ, NULL},
    .free = free,
    .repr = kind_repr,
    .getattr = kind_getattr,
};

/* A target argument: a str or a Target; NULL (and None) give the current target, else "llvm".
 * Returns a borrowed string, or NULL with TypeError raised. */
static const char *target_text(Interp *I, Value *v, const char *fn) {
  if (!v || v->kind == VAL_NONE) return entered.n ? entered.texts[entered.n - 1] : "llvm";
  if (v->kind == VAL_STR) return v->u.str.s;
  Target *t = obj_of(v, &bi_build_target_class);
  if (t) return t->text;
  interp_raise(I, EXC_TypeError, "%s: a target must be a str or a Target, not '%s'", fn,
               val_type_name(v));
  return NULL;
}

static const char *const known_kinds[] = {"llvm",    "c",       "cuda",   "nvptx",
                                          "rocm",    "opencl",  "vulkan", "metal",
                                          "ext_dev", "stackvm", "hybrid"};

static Value *make_target(Interp *I, Value *v, const char *fn) {
  if (!v || v->kind != VAL_STR) {
    const char *text = target_text(I, v, fn);
    return text ? target_new(text) : NULL;
  }
  const char *text = v->u.str.s;
  for (size_t i = 0; i < sizeof known_kinds / sizeof *known_kinds; i++)
    if (kind_is(text, known_kinds[i])) return target_new(text);
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

/* ---- built modules ---- */

typedef struct Built {
  char *name;           /* the entry point */
  char *target;         /* as given */
  const LoweredFunc *f; /* in the session's IR arena */
  int nshape;
  Var **shape;      /* the shape variables, in the ABI's order */
  CgLlvmCode *code; /* NULL for the c target */
  char *c_source;   /* the c target's only product */
  JitLib *lib;
  int32_t (*packed)(void **); /* NULL: built for another machine (get_source only) */
} Built;

/* The LLVM back end (jit/llvm_plugin.h), loaded by the first llvm build: every Built with code
 * or a lib was made after it. */
static const TesLlvm *llvm;

static void built_free(void *p) {
  Built *m = p;
  if (m->lib) llvm->unload(m->lib);
  if (m->code) llvm->free(m->code);
  free(m->c_source);
  free(m->shape);
  free(m->name);
  free(m->target);
  free(m);
}

static Built *built_of(Value *self) { return self->u.obj.p; }

/* ---- argument checks ---- */

typedef struct Binding {
  int64_t *vals; /* per shape variable */
  bool *set;
} Binding;

static int shape_index(const Built *m, const Var *v) {
  for (int i = 0; i < m->nshape; i++)
    if (m->shape[i] == v) return i;
  return -1;
}

/* A shape expression's value once its variables are bound; false when it has something else. */
static bool eval_shape(const Built *m, const Binding *bd, const Expr *e, int64_t *out) {
  int64_t a, b;
  if (e->kind == EXPR_INT) return *out = e->u.ival, true;
  if (e->kind == EXPR_VAR) {
    int k = shape_index(m, e->u.var);
    return k >= 0 && bd->set[k] ? (*out = bd->vals[k], true) : false;
  }
  if (e->kind == EXPR_CAST) return dt_is_int(e->dtype) && eval_shape(m, bd, e->u.unary.a, out);
  if (e->kind < EXPR_ADD || e->kind > EXPR_MAX) return false;
  if (!eval_shape(m, bd, e->u.bin.a, &a) || !eval_shape(m, bd, e->u.bin.b, &b)) return false;
  if (e->kind == EXPR_ADD) return !__builtin_add_overflow(a, b, out);
  if (e->kind == EXPR_SUB) return !__builtin_sub_overflow(a, b, out);
  if (e->kind == EXPR_MUL) return !__builtin_mul_overflow(a, b, out);
  if (e->kind == EXPR_MIN) return *out = a < b ? a : b, true;
  if (e->kind == EXPR_MAX) return *out = a > b ? a : b, true;
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  if (e->kind == EXPR_DIV) return *out = a / b, true;
  if (e->kind == EXPR_MOD) return *out = a % b, true;
  int64_t q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  return *out = e->kind == EXPR_FLOORDIV ? q : a - q * b, true;
}

static void print_shape(StrBuf *b, int n, Expr *const *shape, const int64_t *dims) {
  sb_putc(b, '(');
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(b, ", ");
    if (shape)
      ir_print_expr(b, shape[i]);
    else
      sb_printf(b, "%lld", (long long)dims[i]);
  }
  sb_puts(b, n == 1 ? ",)" : ")");
}

static Value *arg_error(Interp *I, const Built *m, int i, const char *what) {
  return interp_raise(I, EXC_TypeError, "%s: argument %d (%s): %s", m->name, i + 1,
                      m->f->params[i]->name, what);
}

static bool same_dtype(DType param, DType array) {
  if (param.code == DT_BOOL || array.code == DT_BOOL) return param.code == array.code;
  return dt_eq(dt_element(param), dt_element(array));
}

static NDArray *check_array(Interp *I, const Built *m, int i, Value *v) {
  NDArray *a = bi_ndarray_of(v);
  const Buffer *p = m->f->params[i];
  char want[32], got[32];
  StrBuf b = STRBUF_INIT;
  if (!a)
    sb_printf(&b, "expected an array, not '%s'", val_type_name(v));
  else if (a->device != ND_CPU)
    sb_printf(&b, "the array is on %s(%d), and this function runs on cpu(0)",
              device_name(a->device), a->device_id);
  else if ((uintptr_t)a->data % 64 != 0)
    sb_puts(&b, "the array's data is not 64-byte aligned, as compiled code assumes");
  else if (!same_dtype(p->dtype, a->dtype))
    sb_printf(&b, "expected dtype %s, got %s", dt_name(dt_element(p->dtype), want),
              dt_name(a->dtype, got));
  else if (a->ndim != p->ndim)
    sb_printf(&b, "expected %d dimension%s, got %d", p->ndim, p->ndim == 1 ? "" : "s", a->ndim);
  if (b.len) {
    arg_error(I, m, i, sb_cstr(&b));
    sb_free(&b);
    return NULL;
  }
  return a;
}

/* Binds the shape variables that stand alone as a dimension, first come first bound. */
static void bind_dims(const Built *m, NDArray **arrays, Binding *bd) {
  for (int i = 0; i < m->f->nparams; i++)
    for (int d = 0; d < arrays[i]->ndim; d++) {
      const Expr *e = m->f->params[i]->shape[d];
      int k = e->kind == EXPR_VAR ? shape_index(m, e->u.var) : -1;
      if (k >= 0 && !bd->set[k]) bd->vals[k] = arrays[i]->shape[d], bd->set[k] = true;
    }
}

static Value *shape_error(Interp *I, const Built *m, int i, const NDArray *a, const char *why) {
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "expected shape ");
  print_shape(&b, a->ndim, m->f->params[i]->shape, NULL);
  sb_puts(&b, ", got ");
  print_shape(&b, a->ndim, NULL, a->shape);
  if (why) sb_printf(&b, " (%s)", why);
  arg_error(I, m, i, sb_cstr(&b));
  sb_free(&b);
  return NULL;
}

static int check_shapes(Interp *I, const Built *m, NDArray **arrays, Binding *bd) {
  bind_dims(m, arrays, bd);
  for (int i = 0; i < m->f->nparams; i++)
    for (int d = 0; d < arrays[i]->ndim; d++) {
      int64_t want;
      if (!eval_shape(m, bd, m->f->params[i]->shape[d], &want)) {
        shape_error(I, m, i, arrays[i], "a dimension no other argument determines");
        return -1;
      }
      if (want != arrays[i]->shape[d]) {
        shape_error(I, m, i, arrays[i], NULL);
        return -1;
      }
    }
  for (int k = 0; k < m->nshape; k++) {
    DType t = m->shape[k]->dtype;
    int64_t v = bd->vals[k];
    if (t.bits == 32 && (v < INT32_MIN || v > INT32_MAX)) {
      interp_raise(I, EXC_ValueError, "%s: shape variable %s = %lld does not fit int32", m->name,
                   m->shape[k]->name, (long long)v);
      return -1;
    }
  }
  return 0;
}

/* The arguments NAME_packed takes, checked. */
typedef struct Args {
  void **slots;
  void **ptrs;
  int64_t *i64;
  int32_t *i32;
  Binding bd;
} Args;

static void args_free(Args *a) {
  free(a->slots);
  free(a->ptrs);
  free(a->i64);
  free(a->i32);
  free(a->bd.vals);
  free(a->bd.set);
}

static int prepare(Interp *I, const Built *m, int n, Value **v, Args *out) {
  int np = m->f->nparams, ns = m->nshape;
  if (n != np) {
    interp_raise(I, EXC_TypeError, "%s: expected %d argument%s, got %d", m->name, np,
                 np == 1 ? "" : "s", n);
    return -1;
  }
  *out = (Args){xcalloc((size_t)(np + ns + 1), sizeof(void *)),
                xcalloc((size_t)np + 1, sizeof(void *)),
                xcalloc((size_t)ns + 1, 8),
                xcalloc((size_t)ns + 1, 4),
                {xcalloc((size_t)ns + 1, 8), xcalloc((size_t)ns + 1, 1)}};
  NDArray **arrays = xcalloc((size_t)np + 1, sizeof *arrays);
  int rc = 0;
  for (int i = 0; i < np && rc == 0; i++)
    if (!(arrays[i] = check_array(I, m, i, v[i]))) rc = -1;
  if (rc == 0) rc = check_shapes(I, m, arrays, &out->bd);
  for (int i = 0; rc == 0 && i < np; i++) {
    out->ptrs[i] = arrays[i]->data;
    out->slots[i] = &out->ptrs[i];
  }
  for (int k = 0; rc == 0 && k < ns; k++) {
    out->i64[k] = out->bd.vals[k];
    out->i32[k] = (int32_t)out->bd.vals[k];
    out->slots[np + k] =
        m->shape[k]->dtype.bits == 64 ? (void *)&out->i64[k] : (void *)&out->i32[k];
  }
  free(arrays);
  if (rc) args_free(out);
  return rc;
}

static int run(Interp *I, const Built *m, Args *a) {
  int32_t rc = m->packed(a->slots);
  if (rc == 0) return 0;
  if (rc == CG_LLVM_ERR_INTERRUPTED) { /* Ctrl-C stopped it; the flag is still set */
    tes_interrupted = 0;
    interp_raise(I, EXC_KeyboardInterrupt, "interrupted");
    return -1;
  }
  char buf[64];
  interp_raise(I, rc == CG_LLVM_ERR_NOMEM ? EXC_MemoryError : EXC_RuntimeError, "%s: %s", m->name,
               llvm->error_message(m->code, rc, buf));
  return -1;
}

static int runnable(Interp *I, const Built *m) {
  if (m->packed) return 0;
  if (!m->code) {
    interp_raise(I, EXC_RuntimeError,
                 "%s: a module built for the 'c' target is C source to read (get_source); build "
                 "for 'llvm' to run it",
                 m->name);
    return -1;
  }
  interp_raise(I, EXC_RuntimeError,
               "%s: built for target '%s', which this machine cannot run (get_source works)",
               m->name, m->target);
  return -1;
}

static Value *module_call(Interp *I, Value *self, CallArgs *args) {
  Built *m = built_of(self);
  if (args->nkw) return interp_raise(I, EXC_TypeError, "%s: takes no keyword arguments", m->name);
  Args a;
  if (runnable(I, m) < 0 || prepare(I, m, args->n, args->v, &a) < 0) return NULL;
  int rc = run(I, m, &a);
  args_free(&a);
  return rc < 0 ? NULL : val_none();
}

/* ---- sources and files ---- */

static Value *llvm_error(Interp *I, ExcKind kind, char *err) {
  interp_raise(I, kind, "%s", err);
  free(err);
  return NULL;
}

char *bi_build_source(Value *module, const char *fmt, char **err) {
  Built *m = built_of(module);
  if (!m->code) {
    if (!*fmt || strcmp(fmt, "c") == 0) return xstrdup(m->c_source);
  } else if (!*fmt || strcmp(fmt, "ll") == 0 || strcmp(fmt, "llvm") == 0) {
    return xstrdup(llvm->ir_text(m->code));
  } else if (strcmp(fmt, "asm") == 0 || strcmp(fmt, "s") == 0) {
    return llvm->asm_text(m->code, err);
  }
  *err = xstrdup(m->code ? "no such source (ll, asm)" : "a c module has only 'c' source");
  return NULL;
}

/* fmt: "" or "ll" (LLVM IR, TVM's default for llvm modules), "asm" or "s" (assembly). */
static Value *m_get_source(Interp *I, Value *self, Value **a) {
  Built *m = built_of(self);
  const char *fmt = bi_te_str_arg(I, a[0], "get_source", "fmt", "");
  if (!fmt) return NULL;
  if (!m->code) {
    if (!*fmt || strcmp(fmt, "c") == 0) return val_cstr(m->c_source);
    return interp_raise(I, EXC_ValueError, "get_source: a c module has only 'c' source, not '%s'",
                        fmt);
  }
  if (!*fmt || strcmp(fmt, "ll") == 0 || strcmp(fmt, "llvm") == 0)
    return val_cstr(llvm->ir_text(m->code));
  if (strcmp(fmt, "asm") == 0 || strcmp(fmt, "s") == 0) {
    char *err = NULL, *text = llvm->asm_text(m->code, &err);
    return text ? val_str_take(text, strlen(text)) : llvm_error(I, EXC_RuntimeError, err);
  }
  return interp_raise(I, EXC_ValueError, "get_source: unknown format '%s' (ll, asm)", fmt);
}

static int write_file(Interp *I, const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    int e = errno;
    if (f) fclose(f);
    interp_raise(I, EXC_RuntimeError, "cannot write '%s': %s", path, strerror(e));
    return -1;
  }
  return 0;
}

static const char *extension(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* save(path, fmt=''): LLVM IR (.ll), assembly (.s) or an object file (.o), by fmt or else
 * the path's extension. */
static Value *m_save(Interp *I, Value *self, Value **a) {
  Built *m = built_of(self);
  const char *path = bi_te_str_arg(I, a[0], "save", "file_name", NULL);
  const char *fmt = path ? bi_te_str_arg(I, a[1], "save", "fmt", "") : NULL;
  if (!path || !fmt) return NULL;
  if (!*fmt) fmt = extension(path);
  char *err = NULL, *data = NULL;
  size_t len = 0;
  int rc;
  if (!m->code) {
    if (strcmp(fmt, "c") != 0)
      return interp_raise(I, EXC_ValueError, "save: a c module saves as c, not '%s'", fmt);
    rc = write_file(I, path, m->c_source, strlen(m->c_source));
  } else if (strcmp(fmt, "ll") == 0) {
    rc = write_file(I, path, llvm->ir_text(m->code), strlen(llvm->ir_text(m->code)));
  } else if (strcmp(fmt, "s") == 0 || strcmp(fmt, "asm") == 0) {
    if (!(data = llvm->asm_text(m->code, &err))) return llvm_error(I, EXC_RuntimeError, err);
    rc = write_file(I, path, data, strlen(data));
  } else if (strcmp(fmt, "o") == 0 || strcmp(fmt, "obj") == 0) {
    if (!llvm->object(m->code, (void **)&data, &len, &err))
      return llvm_error(I, EXC_RuntimeError, err);
    rc = write_file(I, path, data, len);
  } else {
    return interp_raise(I, EXC_ValueError, "save: unknown format '%s' (ll, s, o)", fmt);
  }
  free(data);
  return rc < 0 ? NULL : val_none();
}

/* PATH's header: the same path ending in .h instead of its extension. */
static char *header_path(const char *path) {
  const char *ext = extension(path);
  size_t stem = *ext ? (size_t)(ext - 1 - path) : strlen(path);
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%.*s.h", (int)stem, path);
  return sb_take(&b, NULL);
}

/* export_library(file_name): a shared object of the compiled code linked with the system C
 * compiler, and beside it a C header declaring the entry points (docs/build.md). */
static Value *m_export_library(Interp *I, Value *self, Value **a) {
  Built *m = built_of(self);
  const char *path = bi_te_str_arg(I, a[0], "export_library", "file_name", NULL);
  if (!path) return NULL;
  if (!m->code)
    return interp_raise(I, EXC_RuntimeError, "not supported yet: export_library of a c module");
  if ((a[1] && a[1]->kind != VAL_NONE) || (a[2] && a[2]->kind != VAL_NONE))
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: export_library with fcompile or options");
  char *err = NULL, *header = llvm->c_header(m->code, m->f, &err);
  if (!header) return llvm_error(I, EXC_RuntimeError, err);
  void *obj = NULL;
  size_t len;
  char *hpath = header_path(path);
  int rc = -1;
  if (!llvm->object(m->code, &obj, &len, &err) || !llvm->export_shared(path, obj, len, &err))
    llvm_error(I, EXC_RuntimeError, err);
  else
    rc = write_file(I, hpath, header, strlen(header));
  free(obj);
  free(header);
  free(hpath);
  return rc < 0 ? NULL : val_none();
}

/* m[name] and m.get_function(name): the module's one function is the module itself. */
static Value *function_named(Interp *I, Value *self, Value *name, const char *fn) {
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
  return function_named(I, self, a[0], "get_function");
}

static Value *module_getitem(Interp *I, Value *self, Value *key) {
  return function_named(I, self, key, "Module[]");
}

static Value *module_getattr(Interp *I, Value *self, Sym *name) {
  Built *m = built_of(self);
  if (is(name, "entry_name")) return val_cstr(m->name);
  if (is(name, "type_key")) return val_cstr(m->code ? "llvm" : "c");
  if (is(name, "imported_modules")) return val_list_new(0);
  return NULL;
}

static Value *module_repr(Interp *I, Value *self) {
  StrBuf b = STRBUF_INIT;
  Built *m = built_of(self);
  sb_printf(&b, "Module(%s, %s)", m->code ? "llvm" : "c", m->name);
  return take_str(&b);
}

/* ---- time_evaluator ---- */

typedef struct Timer {
  Value *module; /* counted */
  int64_t number, repeat, min_repeat_ms;
} Timer;

static void timer_free(void *p) {
  Timer *t = p;
  val_decref(t->module);
  free(t);
}

static void timer_visit(void *p, void (*fn)(Value *, void *), void *arg) {
  fn(((Timer *)p)->module, arg);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per call over `number` calls; -1 with an exception raised. */
static double time_calls(Interp *I, const Built *m, Args *a, int64_t number) {
  double start = now();
  for (int64_t i = 0; i < number; i++) {
    if (run(I, m, a) < 0 || bi_check_interrupt(I) < 0) return -1;
  }
  return (now() - start) / (double)number;
}

static Value *make_result(int n, const double *secs); /* a BenchmarkResult */

/* As TVM's: one call to warm up, then `repeat` measurements of `number` calls each; a
 * measurement shorter than min_repeat_ms is taken again with more calls. */
static Value *timer_call(Interp *I, Value *self, CallArgs *args) {
  Timer *t = self->u.obj.p;
  Built *m = built_of(t->module);
  Args a;
  if (runnable(I, m) < 0 || prepare(I, m, args->n, args->v, &a) < 0) return NULL;
  double *secs = xcalloc((size_t)t->repeat + 1, sizeof *secs);
  Value *result = NULL;
  if (run(I, m, &a) < 0) goto done;
  for (int64_t r = 0; r < t->repeat; r++) {
    int64_t number = t->number;
    for (;;) {
      double per = time_calls(I, m, &a, number);
      if (per < 0) goto done;
      secs[r] = per;
      double ms = per * (double)number * 1e3;
      if (ms >= (double)t->min_repeat_ms || number >= INT64_MAX / 2) break;
      int64_t more = per > 0 ? (int64_t)((double)t->min_repeat_ms / (per * 1e3)) + 1 : number * 2;
      number =
          more > (int64_t)((double)number * 1.618) ? more : (int64_t)((double)number * 1.618) + 1;
    }
  }
  result = make_result((int)t->repeat, secs);
done:
  free(secs);
  args_free(&a);
  return result;
}

static Value *timer_repr(Interp *I, Value *self) { return val_cstr("<time_evaluator>"); }

static const ObjClass timer_class = {
    .type = {"TimeEvaluator", NULL, VAL_OBJ, NULL},
    .free = timer_free,
    .visit = timer_visit,
    .repr = timer_repr,
    .call = timer_call,
};

static int positive_arg(Interp *I, Value *v, const char *name, int64_t dflt, int64_t min,
                        int64_t *out) {
  *out = dflt;
  if (!v || v->kind == VAL_NONE) return 0;
  if (val_as_int(I, v, out) < 0) return -1;
  if (*out < min) {
    interp_raise(I, EXC_ValueError, "time_evaluator: %s must be >= %lld, not %lld", name,
                 (long long)min, (long long)*out);
    return -1;
  }
  return 0;
}

static Value *m_time_evaluator(Interp *I, Value *self, Value **a) {
  Value *fn = function_named(I, self, a[0], "time_evaluator");
  if (!fn) return NULL;
  val_decref(fn);
  NDDevice type;
  int id;
  if (a[1] && a[1]->kind != VAL_NONE && (!bi_build_device_of(a[1], &type, &id) || type != ND_CPU))
    return interp_raise(I, EXC_TypeError,
                        "time_evaluator: dev must be a cpu Device for an llvm "
                        "module");
  Timer t = {self, 0, 0, 0};
  if (positive_arg(I, a[2], "number", 10, 1, &t.number) < 0 ||
      positive_arg(I, a[3], "repeat", 1, 1, &t.repeat) < 0 ||
      positive_arg(I, a[4], "min_repeat_ms", 0, 0, &t.min_repeat_ms) < 0)
    return NULL;
  if (t.repeat > 1000000)
    return interp_raise(I, EXC_ValueError, "time_evaluator: repeat %lld is too large",
                        (long long)t.repeat);
  Timer *p = xmalloc(sizeof *p);
  *p = t;
  val_incref(self);
  return val_obj_new(&timer_class, p);
}

/* ---- BenchmarkResult ---- */

static const ObjClass result_class;

typedef struct Result {
  int n;
  double *secs; /* as measured */
  double mean, median, min, max, std;
} Result;

static void result_free(void *p) {
  Result *r = p;
  free(r->secs);
  free(r);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static Value *make_result(int n, const double *secs) {
  Result *r = xcalloc(1, sizeof *r);
  r->n = n;
  r->secs = xmalloc((size_t)n * sizeof *secs);
  memcpy(r->secs, secs, (size_t)n * sizeof *secs);
  double *sorted = xmalloc((size_t)n * sizeof *sorted), sum = 0, sq = 0;
  memcpy(sorted, secs, (size_t)n * sizeof *secs);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
  for (int i = 0; i < n; i++) sum += secs[i];
  r->mean = sum / n;
  for (int i = 0; i < n; i++) sq += (secs[i] - r->mean) * (secs[i] - r->mean);
  r->std = sqrt(sq / n);
  r->min = sorted[0];
  r->max = sorted[n - 1];
  r->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  free(sorted);
  return val_obj_new(&result_class, r);
}

static Value *seconds_tuple(const Result *r) {
  Value *t = val_tuple_new(r->n);
  for (int i = 0; i < r->n; i++) val_seq_set_take(t, i, val_float(r->secs[i]));
  return t;
}

static Value *result_getattr(Interp *I, Value *self, Sym *name) {
  Result *r = self->u.obj.p;
  if (is(name, "mean")) return val_float(r->mean);
  if (is(name, "median")) return val_float(r->median);
  if (is(name, "min")) return val_float(r->min);
  if (is(name, "max")) return val_float(r->max);
  if (is(name, "std")) return val_float(r->std);
  if (is(name, "results")) return seconds_tuple(r);
  return NULL;
}

/* TVM's BenchmarkResult repr, seconds with Python's float repr. */
static Value *result_repr(Interp *I, Value *self) {
  Result *r = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  const char *names[] = {"min", "mean", "median", "max", "std"};
  double vals[] = {r->min, r->mean, r->median, r->max, r->std};
  sb_puts(&b, "BenchmarkResult(");
  for (int i = 0; i < 5; i++) {
    Value *f = val_float(vals[i]), *s = val_repr(I, f);
    sb_printf(&b, "%s=%s, ", names[i], s ? s->u.str.s : "?");
    val_decref(f);
    val_xdecref(s);
  }
  Value *t = seconds_tuple(r), *s = val_repr(I, t);
  sb_printf(&b, "results=%s)", s ? s->u.str.s : "?");
  val_decref(t);
  val_xdecref(s);
  return take_str(&b);
}

static const ObjClass result_class = {
    .type = {"BenchmarkResult", NULL, VAL_OBJ, NULL},
    .free = result_free,
    .repr = result_repr,
    .getattr = result_getattr,
};

/* ---- the Module class ---- */

static const Builtin module_methods[] = {
    {"get_source", m_get_source, 0, PARAMS("fmt"),
     "get_source(fmt='') -> str: the optimised LLVM IR ('ll', the default) or assembly ('asm')"},
    {"get_function", m_get_function, 1, PARAMS("name", "query_imports"),
     "get_function(name) -> Module: the function called name (the module's entry point)"},
    {"time_evaluator", m_time_evaluator, 1,
     PARAMS("func_name", "dev", "number", "repeat", "min_repeat_ms", "f_preproc"),
     "time_evaluator(func_name, dev, number=10, repeat=1, min_repeat_ms=0) -> callable: "
     "timing runs, giving a BenchmarkResult in seconds"},
    {"save", m_save, 1, PARAMS("file_name", "fmt"),
     "save(file_name, fmt='') -> None: writes LLVM IR (.ll), assembly (.s) or an object (.o)"},
    {"export_library", m_export_library, 1, PARAMS("file_name", "fcompile", "options"),
     "export_library(file_name) -> None: a shared object and a C header of the entry points"},
    {0},
};

const ObjClass bi_build_module_class = {
    .type = {"Module", NULL, VAL_OBJ, NULL},
    .free = built_free,
    .repr = module_repr,
    .getattr = module_getattr,
    .call = module_call,
    .getitem = module_getitem,
    .methods = module_methods,
};

/* ---- tvm.build ---- */

/* The function to build: a lowering of a schedule, or an IRModule / PrimFunc as it is. */
static const LoweredFunc *build_input(Interp *I, Value **a, const char *name) {
  const LoweredFunc *f = obj_of(a[0], &bi_sched_module_class);
  if (!f) f = obj_of(a[0], &bi_sched_primfunc_class);
  if (f) return f;
  Schedule *s = obj_of(a[0], &bi_sched_schedule_class);
  if (!s)
    return interp_raise(I, EXC_TypeError, "build: expected a Schedule or an IRModule, not '%s'",
                        val_type_name(a[0])),
           NULL;
  if (!a[1] || a[1]->kind == VAL_NONE)
    return interp_raise(I, EXC_ValueError, "build: args must be given to build a schedule"), NULL;
  Value *lowered = NULL;
  Value *largs[5] = {a[0], a[1], NULL, NULL, NULL};
  Value *nm = val_cstr(name);
  largs[2] = nm;
  lowered = bi_sched_lower(I, NULL, largs);
  val_decref(nm);
  if (!lowered) return NULL;
  f = lowered->u.obj.p; /* in the session's arena: outlives the value */
  val_decref(lowered);
  return f;
}

static Value *build_error(Interp *I, char *err) { return llvm_error(I, EXC_BuildError, err); }

static Built *new_built(const LoweredFunc *f, const char *target) {
  Built *m = xcalloc(1, sizeof *m);
  m->name = xstrdup(f->name);
  m->target = xstrdup(target);
  m->f = f;
  m->nshape = cg_llvm_shape_vars(f, NULL, 0);
  m->shape = xmalloc((size_t)(m->nshape + 1) * sizeof *m->shape);
  cg_llvm_shape_vars(f, m->shape, m->nshape);
  return m;
}

/* The c target: C source to read, nothing to run. */
static Value *build_c(Interp *I, const LoweredFunc *f, const char *target) {
  char *err = NULL, *src = cg_c_source(f, &err);
  if (!src) return build_error(I, err);
  Built *m = new_built(f, target);
  m->c_source = src;
  return val_obj_new(&bi_build_module_class, m);
}

/* Codegen, optimisation and JIT linking; a Module, or NULL with BuildError raised. */
static Value *build_llvm(Interp *I, const LoweredFunc *f, const char *target) {
  char *err = NULL;
  CgLlvmCode *code = llvm->build(f, target, &err);
  if (!code) return build_error(I, err);
  Built *m = new_built(f, target);
  m->code = code;
  Value *mod = val_obj_new(&bi_build_module_class, m);
  if (!llvm->runs_here(code)) return mod;
  void *obj;
  size_t len;
  if (!llvm->object(code, &obj, &len, &err)) goto fail;
  m->lib = llvm->load_object(obj, len, &err);
  free(obj);
  if (!m->lib) goto fail;
  StrBuf sym = STRBUF_INIT;
  sb_printf(&sym, "%s_packed", f->name);
  m->packed = (int32_t(*)(void **))llvm->lookup(m->lib, sb_cstr(&sym), &err);
  sb_free(&sym);
  if (m->packed) return mod;
fail:
  val_decref(mod);
  return build_error(I, err);
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
  const char *target = name ? target_text(I, a[2], "build") : NULL;
  if (!target) return NULL;
  if (a[5] && a[5]->kind != VAL_NONE && !(a[5]->kind == VAL_DICT && dict_len(a[5]) == 0))
    return interp_raise(I, EXC_BuildError, "not supported yet: build(binds=...)");
  if (kind_is(target, "c")) {
    const LoweredFunc *f = build_input(I, a, name);
    return f ? build_c(I, f, target) : NULL;
  }
  if (!kind_is(target, "llvm")) {
    for (size_t i = 0; i < sizeof known_kinds / sizeof *known_kinds; i++)
      if (kind_is(target, known_kinds[i]))
        return interp_raise(I, EXC_BuildError, "not supported yet: the '%s' target",
                            known_kinds[i]);
    return interp_raise(I, EXC_BuildError, "unknown target '%s' (llvm, c, cuda, ext_dev)", target);
  }
  char *err = NULL;
  if (!llvm && (llvm = tes_llvm(&err)))
    llvm->set_interrupt_flag(&tes_interrupted); /* its kernels stop on Ctrl-C */
  if (!llvm) return build_error(I, err);
  if (!llvm->target_check(target, &err)) return build_error(I, err);
  const LoweredFunc *f = build_input(I, a, name);
  return f ? build_llvm(I, f, target) : NULL;
}

static const Builtin tvm_rows[] = {
    {"build", fn_build, 1, PARAMS("inputs", "args", "target", "target_host", "name", "binds"),
     "build(inputs, args=None, target='llvm', target_host=None, name='default_function') -> "
     "Module: compiles a schedule (or a lowered IRModule) for the target"},
    {"cpu", fn_cpu, 0, PARAMS("dev_id"), "cpu(dev_id=0) -> Device: the host CPU"},
    {"cuda", fn_cuda, 0, PARAMS("dev_id"), "cuda(dev_id=0) -> Device: a CUDA GPU"},
    {"gpu", fn_cuda, 0, PARAMS("dev_id"), "gpu(dev_id=0) -> Device: cuda(dev_id), the older name"},
    {"ext_dev", fn_ext_dev, 0, PARAMS("dev_id"), "ext_dev(dev_id=0) -> Device: VTA's device"},
    {"device", fn_device, 1, PARAMS("dev_type", "dev_id"),
     "device(dev_type, dev_id=0) -> Device: by name ('cpu', 'llvm', 'cuda') or number"},
    {0},
};

int bi_build_tvm_init(Interp *I, Value *tvm) {
  for (const Builtin *b = tvm_rows; b->name; b++)
    bi_set_member_take(tvm, b->name, val_builtin(b, NULL));
  bi_set_member_take(tvm, "Device", val_type(&bi_build_device_class.type));
  return 0;
}
