/* nd_bridge.c: tvm.nd and tvm.testing (SPEC §9). A tvm.nd array on the CPU is the same array
 * value as a numpy array: tvm.nd.array copies its argument, .numpy() copies back. On a CUDA
 * device (tvm.nd.array(x, tvm.cuda(0))) it is nd_device.c's array, in device memory. */
#include "frontend/np/np_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/packages.h"

/* The device argument (device= or its old name ctx=): cpu(0) when absent. */
static int device_arg(Interp *I, Value *dev, Value *ctx, const char *fn, NDDevice *type, int *id) {
  Value *v = dev && dev->kind != VAL_NONE ? dev : ctx;
  *type = ND_CPU, *id = 0;
  if (!v || v->kind == VAL_NONE || bi_build_device_of(v, type, id)) return 0;
  interp_raise(I, EXC_TypeError, "%s: device must be a Device (tvm.cpu(0), tvm.cuda(0)), not '%s'",
               fn, val_type_name(v));
  return -1;
}

static Value *fn_nd_array(Interp *I, Value *self, Value **a) {
  NDDevice type;
  int id;
  if (device_arg(I, a[1], a[2], "array", &type, &id) < 0) return NULL;
  NDArray *on_device = val_obj_of(a[0], &bi_nd_device_class);
  if (on_device) return bi_nd_place(I, on_device, type, id);
  NDArray *host = bi_np_from_value(I, a[0], NULL);
  if (!host || type == ND_CPU) return bi_np_wrap(host);
  Value *r = bi_nd_place(I, host, type, id);
  nd_free(host);
  return r;
}

static Value *fn_nd_empty(Interp *I, Value *self, Value **a) {
  NpShape s;
  DType t;
  NDDevice type;
  int id;
  if (bi_np_shape_arg(I, a[0], "empty", &s) < 0 ||
      bi_np_dtype_arg(I, a[1], "empty", DT_F32, &t) < 0 ||
      device_arg(I, a[2], NULL, "empty", &type, &id) < 0)
    return NULL;
  if (type == ND_CPU) return bi_np_wrap(bi_np_new(I, t, s.ndim, s.dims));
  return bi_nd_empty_on(I, t, s.ndim, s.dims, type, id);
}

const Builtin bi_tvm_nd_funcs[] = {
    {"array", fn_nd_array, 1, PARAMS("arr", "device", "ctx", "mem_scope"),
     "array(arr, device=cpu(0)) -> NDArray: a copy of arr (a numpy array or nested lists) on "
     "device (the host, or a CUDA GPU's memory)"},
    {"empty", fn_nd_empty, 1, PARAMS("shape", "dtype", "device", "mem_scope"),
     "empty(shape, dtype='float32', device=cpu(0)) -> NDArray: a new array (zero-filled on the "
     "host, undefined on a GPU)"},
    {0},
};

int bi_tvm_nd_module_init(Interp *I, Value *m) {
  bi_set_member_take(m, "NDArray", val_type(&bi_ndarray_class.type));
  return 0;
}

static Value *fn_assert_allclose(Interp *I, Value *self, Value **a) {
  return bi_np_assert_allclose(I, a[0], a[1], a[2], a[3], NULL, NULL);
}

const Builtin bi_tvm_testing_funcs[] = {
    {"assert_allclose", fn_assert_allclose, 2, PARAMS("actual", "desired", "rtol", "atol"),
     "assert_allclose(actual, desired, rtol=1e-7, atol=0): AssertionError with the mismatch "
     "count, the largest differences and the first mismatching index unless "
     "|actual - desired| <= atol + rtol * |desired|"},
    {0},
};
