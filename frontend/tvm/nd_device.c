/* nd_device.c: tvm.nd arrays in CUDA device memory (SPEC §9): tvm.nd.array(x, tvm.cuda(0)),
 * tvm.nd.empty(shape, dtype, dev), .numpy(), copyfrom, copyto, .device. Such an array is a
 * jit/nd_cuda.h NDArray (device ND_CUDA, data a device address) in a class of its own, so
 * numpy, whose bi_ndarray_of knows host arrays only, never reads it; what numpy or an
 * operator would do with it raises "array is on cuda(0): call .numpy() first" instead
 * (bi_nd_refuse, numpy's device hook). Copies are synchronous: reading an array back waits
 * for the kernels that write it. */
#include "frontend/np/np_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/vta_runtime.h"
#include "jit/nd_cuda.h"

static NDArray *dev_arr(Value *self) { return self->u.obj.p; }

NDArray *bi_nd_any_of(Value *v) {
  NDArray *a = bi_ndarray_of(v);
  return a ? a : val_obj_of(v, &bi_nd_device_class);
}

Value *bi_nd_device_wrap(NDArray *a) { return a ? val_obj_new(&bi_nd_device_class, a) : NULL; }

static Value *refuse(Interp *I, const NDArray *a) {
  return interp_raise(I, EXC_TypeError,
                      "array is on %s(%d): call .numpy() first (the host cannot read device "
                      "memory)",
                      bi_device_name(a->device), a->device_id);
}

static bool refuse_hook(Interp *I, Value *v) {
  NDArray *a = val_obj_of(v, &bi_nd_device_class);
  return a && (refuse(I, a), true);
}

/* A new array like src (shape and dtype) on device (type, id); NULL with an error raised. */
static NDArray *new_on(Interp *I, const NDArray *src, NDDevice type, int id) {
  if (type == ND_CPU) return bi_np_new(I, src->dtype, src->ndim, src->shape);
  if (type == ND_EXT_DEV) return bi_vta_nd_new(I, src->dtype, src->ndim, src->shape, id);
  if (type != ND_CUDA)
    return interp_raise(I, EXC_RuntimeError, "not supported yet: arrays on %s(%d)",
                        bi_device_name(type), id),
           NULL;
  Diag d = DIAG_INIT;
  NDArray *a = nd_cuda_new(src->dtype, src->ndim, src->shape, id, &d);
  if (!a) bi_raise_diag(I, EXC_RuntimeError, &d);
  return a;
}

static bool copy(Interp *I, NDArray *dst, const NDArray *src) {
  Diag d = DIAG_INIT;
  if (dst->device == ND_EXT_DEV || src->device == ND_EXT_DEV) {
    /* VTA's DRAM is the simulator's, which the host reads and writes */
    if (dst->device == ND_CUDA || src->device == ND_CUDA)
      return interp_raise(I, EXC_RuntimeError, "not supported yet: copies between ext_dev and "
                          "cuda arrays (copy through the host with .numpy())"),
             false;
    memcpy(dst->data, src->data, nd_nbytes(src));
    return true;
  }
  if (nd_cuda_copy(dst, src, &d)) return true;
  bi_raise_diag(I, EXC_RuntimeError, &d);
  return false;
}

static Value *wrap(NDArray *a) {
  if (!a) return NULL;
  return a->device == ND_CPU ? bi_ndarray_wrap(a) : bi_nd_device_wrap(a);
}

/* A copy of src on (type, id), host or device; NULL with an error raised. */
static Value *copy_to(Interp *I, const NDArray *src, NDDevice type, int id) {
  NDArray *a = new_on(I, src, type, id);
  if (a && !copy(I, a, src)) nd_free(a), a = NULL;
  return wrap(a);
}

Value *bi_nd_place(Interp *I, const NDArray *src, NDDevice type, int id) {
  return copy_to(I, src, type, id);
}

Value *bi_nd_empty_on(Interp *I, DType t, int ndim, const int64_t *shape, NDDevice type, int id) {
  NDArray like = {.dtype = t, .ndim = ndim};
  for (int i = 0; i < ndim; i++) like.shape[i] = shape[i];
  return wrap(new_on(I, &like, type, id));
}

static bool same_layout(Interp *I, const NDArray *dst, const NDArray *src, const char *fn) {
  if (dst->ndim == src->ndim && memcmp(dst->shape, src->shape, sizeof(int64_t) * dst->ndim) == 0 &&
      dt_eq(dst->dtype, src->dtype))
    return true;
  StrBuf b = STRBUF_INIT, c = STRBUF_INIT;
  bi_np_shape_str(&b, src->ndim, src->shape);
  bi_np_shape_str(&c, dst->ndim, dst->shape);
  interp_raise(I, EXC_ValueError, "%s: array of shape %s and dtype %s does not match %s and %s", fn,
               sb_cstr(&b), bi_np_dtype_name(src->dtype), sb_cstr(&c),
               bi_np_dtype_name(dst->dtype));
  sb_free(&b), sb_free(&c);
  return false;
}

/* dst.copyfrom(source) for a device dst: a device array as it is, anything else converted
 * on the host to dst's dtype first, as TVM does. */
static Value *m_copyfrom(Interp *I, Value *self, Value **a) {
  NDArray *dst = dev_arr(self), *src = val_obj_of(a[0], &bi_nd_device_class);
  if (src)
    return same_layout(I, dst, src, "copyfrom") && copy(I, dst, src) ? val_incref(self) : NULL;
  NDArray *host = bi_np_from_value(I, a[0], &dst->dtype);
  bool ok = host && same_layout(I, dst, host, "copyfrom") && copy(I, dst, host);
  nd_free(host);
  return ok ? val_incref(self) : NULL;
}

/* x.copyto(target), x on the host or a device: a Device gives a new array there; an array
 * of the same shape and dtype is written. */
static Value *copy_into(Interp *I, const NDArray *src, Value *target) {
  NDDevice type;
  int id;
  if (bi_build_device_of(target, &type, &id)) return copy_to(I, src, type, id);
  NDArray *dst = bi_nd_any_of(target);
  if (!dst)
    return interp_raise(I, EXC_TypeError,
                        "copyto: the target must be a Device or an array, not '%s'",
                        val_type_name(target));
  return same_layout(I, dst, src, "copyto") && copy(I, dst, src) ? val_incref(target) : NULL;
}

static Value *m_copyto(Interp *I, Value *self, Value **a) {
  return copy_into(I, dev_arr(self), a[0]);
}

static Value *host_copyto(Interp *I, Value *self, Value *target) {
  return copy_into(I, bi_ndarray_of(self), target);
}

static Value *m_numpy(Interp *I, Value *self, Value **a) {
  return copy_to(I, dev_arr(self), ND_CPU, 0);
}

static const NpDeviceHooks np_hooks = {refuse_hook, host_copyto};

void bi_nd_set_np_hooks(void) { bi_np_set_device_hooks(&np_hooks); }

/* ---- the class ---- */

static Value *p_shape(Interp *I, Value *self) { return bi_np_shape_tuple(dev_arr(self)); }
static Value *p_dtype(Interp *I, Value *self) { return bi_np_dtype_value(dev_arr(self)->dtype); }
static Value *p_ndim(Interp *I, Value *self) { return val_int(dev_arr(self)->ndim); }
static Value *p_size(Interp *I, Value *self) { return val_int(dev_arr(self)->size); }
static Value *p_itemsize(Interp *I, Value *self) {
  return val_int((int64_t)nd_elem_bytes(dev_arr(self)->dtype));
}
static Value *p_nbytes(Interp *I, Value *self) {
  return val_int((int64_t)nd_nbytes(dev_arr(self)));
}
static Value *p_device(Interp *I, Value *self) {
  return bi_build_device_new(dev_arr(self)->device, dev_arr(self)->device_id);
}

static const Property dev_props[] = {
    {"shape", p_shape, "the extent of each dimension, a tuple of int"},
    {"dtype", p_dtype, "the element type, a dtype"},
    {"ndim", p_ndim, "the number of dimensions"},
    {"size", p_size, "the number of elements"},
    {"itemsize", p_itemsize, "the bytes of one element"},
    {"nbytes", p_nbytes, "the bytes of all elements"},
    {"device", p_device, "the device that holds the data, cuda(0)"},
    {0},
};

static const Builtin dev_methods[] = {
    {"numpy", m_numpy, 0, NOPARAMS, "numpy() -> ndarray: a copy on the host"},
    {"asnumpy", m_numpy, 0, NOPARAMS, "asnumpy() -> ndarray: numpy()'s old name"},
    {"copyfrom", m_copyfrom, 1, PARAMS("source_array"),
     "copyfrom(source) -> self: copies source in (an array of the same shape, converted to this "
     "dtype on the host first)"},
    {"copyto", m_copyto, 1, PARAMS("target"),
     "copyto(target) -> array: a copy on target (a Device), or written into target (an array)"},
    {0},
};

/* TVM's: "<tvm.nd.NDArray shape=(4,), cuda(0)>" and the values, copied back to print. */
static Value *dev_repr(Interp *I, Value *self) {
  const NDArray *a = dev_arr(self);
  Value *host = copy_to(I, a, ND_CPU, 0);
  Value *r = host ? val_repr(I, host) : NULL;
  val_xdecref(host);
  if (!r) return NULL;
  StrBuf b = STRBUF_INIT;
  sb_puts(&b, "<tvm.nd.NDArray shape=");
  bi_np_shape_str(&b, a->ndim, a->shape);
  sb_printf(&b, ", %s(%d)>\n%s", bi_device_name(a->device), a->device_id, r->u.str.s);
  val_decref(r);
  return val_str_sb(&b);
}

static Value *refuse_item(Interp *I, Value *self, Value *key) { return refuse(I, dev_arr(self)); }
static int refuse_setitem(Interp *I, Value *self, Value *key, Value *v) {
  refuse(I, dev_arr(self));
  return -1;
}
static Value *refuse_binop(Interp *I, BinOp op, Value *a, Value *b, bool right) {
  return refuse(I, dev_arr(right ? b : a));
}
static Value *refuse_unop(Interp *I, UnOp op, Value *self) { return refuse(I, dev_arr(self)); }
static Value *refuse_list(Interp *I, Value *self) { return refuse(I, dev_arr(self)); }
static Value *refuse_number(Interp *I, Value *self, NumWant want) {
  return refuse(I, dev_arr(self));
}
static int refuse_truthy(Interp *I, Value *self) {
  refuse(I, dev_arr(self));
  return -1;
}
static int64_t dev_len(Interp *I, Value *self) {
  const NDArray *a = dev_arr(self);
  if (a->ndim == 0) return interp_raise(I, EXC_TypeError, "len() of unsized object"), -1;
  return a->shape[0];
}

static void dev_free(void *p) { nd_free(p); }

const ObjClass bi_nd_device_class = {
    .type = {"NDArray", NULL, VAL_OBJ, NULL},
    .free = dev_free,
    .repr = dev_repr,
    .getitem = refuse_item,
    .setitem = refuse_setitem,
    .binop = refuse_binop,
    .unop = refuse_unop,
    .to_list = refuse_list,
    .len = dev_len,
    .number = refuse_number,
    .truthy = refuse_truthy,
    .methods = dev_methods,
    .props = dev_props,
};
