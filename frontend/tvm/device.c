/* device.c: devices (SPEC §9): tvm.cpu, tvm.cuda (tvm.gpu), tvm.ext_dev and tvm.device, and
 * the Device value they give, which arrays and time_evaluator are placed on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/te_impl.h"
#include "jit/cuda_driver.h"

typedef struct Device {
  NDDevice type;
  int id;
} Device;

#define DEV_EXT ((NDDevice)12) /* DLPack's kDLExtDev, VTA's ext_dev */

const char *bi_device_name(NDDevice t) {
  return t == ND_CPU ? "cpu" : t == ND_CUDA ? "cuda" : "ext_dev";
}

Value *bi_build_device_new(NDDevice type, int id) {
  Device *d = xmalloc(sizeof *d);
  d->type = type;
  d->id = id;
  return val_obj_new(&bi_build_device_class, d);
}

bool bi_build_device_of(Value *v, NDDevice *type, int *id) {
  Device *d = val_obj_of(v, &bi_build_device_class);
  if (!d) return false;
  *type = d->type;
  *id = d->id;
  return true;
}

static Value *device_repr(Interp *I, Value *self) {
  Device *d = self->u.obj.p;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%s(%d)", bi_device_name(d->type), d->id);
  return val_str_sb(&b);
}

static Value *device_exist(Interp *I, Value *self) {
  const Device *d = self->u.obj.p;
  return val_bool(d->type == ND_CPU ? d->id == 0 : d->type == ND_CUDA && cuda_device_exists(d->id));
}

static Value *device_type(Interp *I, Value *self) {
  return val_int(((Device *)self->u.obj.p)->type);
}

static Value *device_id(Interp *I, Value *self) { return val_int(((Device *)self->u.obj.p)->id); }

/* A CUDA device's limits; NULL with RuntimeError ("no CUDA device (why)") otherwise. */
static const CudaLimits *limits_of(Interp *I, Value *self, const char *what, CudaLimits *l) {
  const Device *d = self->u.obj.p;
  if (d->type != ND_CUDA)
    return interp_raise(I, EXC_RuntimeError, "%s(%d) is not a CUDA device: it has no %s",
                        bi_device_name(d->type), d->id, what),
           NULL;
  Diag dg = DIAG_INIT;
  if (cuda_device_limits(d->id, l, &dg)) return l;
  return bi_raise_diag(I, EXC_RuntimeError, &dg), NULL;
}

static Value *device_compute_version(Interp *I, Value *self) {
  CudaLimits l;
  if (!limits_of(I, self, "compute version", &l)) return NULL;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "%d.%d", l.cc_major, l.cc_minor);
  return val_str_sb(&b);
}

#define LIMIT_PROP(field, what)                                                                    \
  static Value *device_##field(Interp *I, Value *self) {                                           \
    CudaLimits l;                                                                                  \
    return limits_of(I, self, what, &l) ? val_int(l.field) : NULL;                                 \
  }
LIMIT_PROP(max_threads_per_block, "max_threads_per_block")
LIMIT_PROP(max_shared_memory_per_block, "max_shared_memory_per_block")
LIMIT_PROP(warp_size, "warp_size")
LIMIT_PROP(multi_processor_count, "multi_processor_count")
#undef LIMIT_PROP

static const Property device_props[] = {
    {"exist", device_exist, "whether the device is there (cpu(0), or a CUDA device found)"},
    {"device_type", device_type, "TVM's device type number (1 cpu, 2 cuda)"},
    {"device_id", device_id, "which device of its type"},
    {"compute_version", device_compute_version, "a CUDA device's compute capability ('8.0')"},
    {"max_threads_per_block", device_max_threads_per_block,
     "a CUDA device's most threads in one block"},
    {"max_shared_memory_per_block", device_max_shared_memory_per_block,
     "a CUDA device's shared memory per block in bytes, without opting in"},
    {"warp_size", device_warp_size, "a CUDA device's threads per warp"},
    {"multi_processor_count", device_multi_processor_count,
     "a CUDA device's number of streaming multiprocessors"},
    {0},
};

/* Waits for what was launched on a CUDA device; the CPU's work is always done. */
static Value *device_sync(Interp *I, Value *self, Value **a) {
  const Device *d = self->u.obj.p;
  Diag dg = DIAG_INIT;
  if (d->type == ND_CUDA && !cuda_sync(d->id, &dg)) return bi_raise_diag(I, EXC_RuntimeError, &dg);
  return val_none();
}

static Value *device_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  Device *x = val_obj_of(a, &bi_build_device_class), *y = val_obj_of(b, &bi_build_device_class);
  if ((op != CMP_EQ && op != CMP_NE) || !x || !y) return NULL;
  return val_bool((x->type == y->type && x->id == y->id) == (op == CMP_EQ));
}

static const Builtin device_methods[] = {
    {"sync", device_sync, 0, NOPARAMS,
     "sync(): wait for the kernels launched on a CUDA device (the CPU is always done)"},
    {0},
};

const ObjClass bi_build_device_class = {
    .type = {"Device", NULL, VAL_OBJ, NULL},
    .free = free,
    .repr = device_repr,
    .compare = device_compare,
    .methods = device_methods,
    .props = device_props,
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

const Builtin bi_device_funcs[] = {
    {"cpu", fn_cpu, 0, PARAMS("dev_id"), "cpu(dev_id=0) -> Device: the host CPU"},
    {"cuda", fn_cuda, 0, PARAMS("dev_id"), "cuda(dev_id=0) -> Device: a CUDA GPU"},
    {"gpu", fn_cuda, 0, PARAMS("dev_id"), "gpu(dev_id=0) -> Device: cuda(dev_id), the older name"},
    {"ext_dev", fn_ext_dev, 0, PARAMS("dev_id"), "ext_dev(dev_id=0) -> Device: VTA's device"},
    {"device", fn_device, 1, PARAMS("dev_type", "dev_id"),
     "device(dev_type, dev_id=0) -> Device: by name ('cpu', 'llvm', 'cuda') or number"},
    {0},
};
