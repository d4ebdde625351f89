/* nd_bridge.c: tvm.nd and tvm.testing (SPEC §9). A tvm.nd array is the same array value as a
 * numpy array: tvm.nd.array copies its argument, .numpy() copies back. Arrays live in host
 * memory; the device argument is accepted and, until the build binding's devices reach
 * arrays, ignored (docs/numpy.md). */
#include "frontend/np/np_impl.h"
#include "frontend/tvm/packages.h"

static Value *fn_nd_array(Interp *I, Value *self, Value **a) {
  return bi_np_wrap(bi_np_from_value(I, a[0], NULL));
}

static Value *fn_nd_empty(Interp *I, Value *self, Value **a) {
  NpShape s;
  DType t;
  if (bi_np_shape_arg(I, a[0], "empty", &s) < 0 ||
      bi_np_dtype_arg(I, a[1], "empty", DT_F32, &t) < 0)
    return NULL;
  return bi_np_wrap(bi_np_new(I, t, s.ndim, s.dims));
}

const Builtin bi_tvm_nd_funcs[] = {
    {"array", fn_nd_array, 1, PARAMS("arr", "device", "ctx", "mem_scope"),
     "array(arr, device=cpu(0)) -> NDArray: a copy of arr (a numpy array or nested lists)"},
    {"empty", fn_nd_empty, 1, PARAMS("shape", "dtype", "device", "mem_scope"),
     "empty(shape, dtype='float32', device=cpu(0)) -> NDArray: a new zero-filled array"},
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
