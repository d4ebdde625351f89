/* ndarray.c: the array value (frontend/np/ndarray.h) that numpy arrays and tvm.nd arrays
 * share: its attributes (shape, dtype, T ...), its methods (astype, reshape, sum ...), and the
 * hooks that route operators, indexing, printing, iteration and conversion to numbers to
 * bi_np_*.c; and numpy's scalars, 0-d arrays of classes of their own. */
#include <string.h>

#include "frontend/np/np_impl.h"

static NDArray *arr(Value *self) { return self->u.obj.p; }

Value *bi_ndarray_wrap(NDArray *a) { return val_obj_new(&bi_ndarray_class, a); }

/* Every class whose object owns an NDArray (the array's and the scalars') frees it with this,
 * which is how bi_ndarray_of knows them. */
static void free_array(void *p) { nd_free(p); }

NDArray *bi_ndarray_of(Value *v) {
  return v->kind == VAL_OBJ && v->u.obj.cls->free == free_array ? v->u.obj.p : NULL;
}

static bool is_scalar(Value *v) { return v->u.obj.cls != &bi_ndarray_class; }

Value *bi_np_shape_tuple(const NDArray *a) {
  Value *t = val_tuple_new(a->ndim);
  for (int i = 0; i < a->ndim; i++) val_seq_set_take(t, i, val_int(a->shape[i]));
  return t;
}

/* What a.device gives: tvm.cpu(0) when the tvm module has it (the build binding defines it),
 * else the string "cpu(0)", which prints the same. */
static Value *device_value(Interp *I, const NDArray *a) {
  Value *tvm = dict_get_sym(interp_modules(I), sym_cstr("tvm"));
  Value *cpu = tvm ? dict_get_sym(tvm->u.mod->dict, sym_cstr("cpu")) : NULL;
  if (cpu) {
    Value *id = val_int(a->device_id), *r = interp_callv(I, cpu, 1, &id);
    val_decref(id);
    return r;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "cpu(%d)", a->device_id);
  return val_cstr(buf);
}

static Value *array_shape(Interp *I, Value *self) { return bi_np_shape_tuple(arr(self)); }
static Value *array_dtype(Interp *I, Value *self) { return bi_np_dtype_value(arr(self)->dtype); }
static Value *array_ndim(Interp *I, Value *self) { return val_int(arr(self)->ndim); }
static Value *array_size(Interp *I, Value *self) { return val_int(arr(self)->size); }
static Value *array_itemsize(Interp *I, Value *self) {
  return val_int((int64_t)nd_elem_bytes(arr(self)->dtype));
}
static Value *array_nbytes(Interp *I, Value *self) {
  return val_int((int64_t)nd_nbytes(arr(self)));
}
static Value *array_T(Interp *I, Value *self) {
  return bi_np_wrap(bi_np_transpose(I, arr(self), NULL));
}
static Value *array_device(Interp *I, Value *self) { return device_value(I, arr(self)); }

static const Property array_props[] = {
    {"shape", array_shape, "the extent of each dimension, a tuple of int"},
    {"dtype", array_dtype, "the element type, a dtype"},
    {"ndim", array_ndim, "the number of dimensions"},
    {"size", array_size, "the number of elements"},
    {"itemsize", array_itemsize, "the bytes of one element"},
    {"nbytes", array_nbytes, "the bytes of all elements"},
    {"T", array_T, "the array with its axes reversed (a copy)"},
    {"device", array_device, "the device that holds the data, cpu(0)"},
    {0},
};

/* ---- methods ---- */

static Value *m_astype(Interp *I, Value *self, Value **a) {
  DType t;
  if (bi_np_dtype_arg(I, a[0], "astype", NP_FLOAT, &t) < 0) return NULL;
  NDArray *r = bi_np_astype(I, arr(self), t);
  return is_scalar(self) ? bi_ndarray_scalar_wrap(r) : bi_np_wrap(r);
}

static Value *m_copy(Interp *I, Value *self, Value **a) {
  return bi_np_wrap(bi_np_copy(I, arr(self)));
}

static Value *m_flatten(Interp *I, Value *self, Value **a) {
  NDArray *c = bi_np_copy(I, arr(self));
  if (!c) return NULL;
  c->ndim = 1;
  c->shape[0] = c->size;
  return bi_ndarray_wrap(c);
}

/* The ints of a *args tuple, or of the one tuple or list given alone (reshape((2, 3)) and
 * reshape(2, 3) alike). */
static int ints_arg(Interp *I, Value *tuple, const char *fn, int64_t *out, int *n) {
  Value *seq = tuple;
  if (VAL_SEQ_N(tuple) == 1 &&
      (VAL_SEQ_ITEM(tuple, 0)->kind == VAL_TUPLE || VAL_SEQ_ITEM(tuple, 0)->kind == VAL_LIST))
    seq = VAL_SEQ_ITEM(tuple, 0);
  if (VAL_SEQ_N(seq) > ND_MAX_DIMS) {
    interp_raise(I, EXC_ValueError, "%s: at most %d dimensions", fn, ND_MAX_DIMS);
    return -1;
  }
  *n = (int)VAL_SEQ_N(seq);
  for (int i = 0; i < *n; i++)
    if (!bi_np_int_of(VAL_SEQ_ITEM(seq, i), &out[i])) {
      interp_raise(I, EXC_TypeError, "%s: '%s' object cannot be interpreted as an integer", fn,
                   val_type_name(VAL_SEQ_ITEM(seq, i)));
      return -1;
    }
  return 0;
}

static Value *m_reshape(Interp *I, Value *self, Value **a) {
  int64_t dims[ND_MAX_DIMS];
  int n;
  if (ints_arg(I, a[0], "reshape", dims, &n) < 0) return NULL;
  return bi_np_wrap(bi_np_reshape(I, arr(self), n, dims));
}

static Value *m_transpose(Interp *I, Value *self, Value **a) {
  NDArray *x = arr(self);
  int64_t axes[ND_MAX_DIMS];
  int n, perm[ND_MAX_DIMS];
  if (ints_arg(I, a[0], "transpose", axes, &n) < 0) return NULL;
  if (n == 0) return bi_np_wrap(bi_np_transpose(I, x, NULL));
  if (n != x->ndim) return interp_raise(I, EXC_ValueError, "axes don't match array");
  for (int i = 0; i < n; i++) {
    Value *ax = val_int(axes[i]);
    int r = bi_np_axis(I, ax, x->ndim, &perm[i]);
    val_decref(ax);
    if (r < 0) return NULL;
  }
  return bi_np_wrap(bi_np_transpose(I, x, perm));
}

/* numpy's out= (an array to write the result into): results are always new arrays here. */
static int no_out(Interp *I, Value *out, const char *fn) {
  if (!out || out->kind == VAL_NONE) return 0;
  interp_raise(I, EXC_RuntimeError, "not supported yet: %s(out=...) (results are new arrays)", fn);
  return -1;
}

#define REDUCE_METHOD(name, R)                                                                     \
  static Value *m_##name(Interp *I, Value *self, Value **a) {                                      \
    if (no_out(I, a[2], #name) < 0) return NULL;                                                   \
    return bi_np_reduce(I, R, self, a[0], a[3], a[1]);                                             \
  }
/* sum, prod and mean take (axis, dtype, out, keepdims); the others (axis, out, keepdims). */
REDUCE_METHOD(sum, NPR_SUM)
REDUCE_METHOD(prod, NPR_PROD)
REDUCE_METHOD(mean, NPR_MEAN)
#undef REDUCE_METHOD
#define REDUCE_METHOD(name, R)                                                                     \
  static Value *m_##name(Interp *I, Value *self, Value **a) {                                      \
    if (no_out(I, a[1], #name) < 0) return NULL;                                                   \
    return bi_np_reduce(I, R, self, a[0], a[2], NULL);                                             \
  }
REDUCE_METHOD(max, NPR_MAX)
REDUCE_METHOD(min, NPR_MIN)
REDUCE_METHOD(argmax, NPR_ARGMAX)
REDUCE_METHOD(argmin, NPR_ARGMIN)
REDUCE_METHOD(all, NPR_ALL)
REDUCE_METHOD(any, NPR_ANY)
#undef REDUCE_METHOD

/* a.tolist(): nested lists of Python numbers. */
static Value *tolist_from(Interp *I, const NDArray *a, int dim, int64_t *flat) {
  if (dim == a->ndim) return bi_np_item(a, (*flat)++);
  Value *l = val_list_alloc(I, a->shape[dim]);
  for (int64_t i = 0; l && i < a->shape[dim]; i++) {
    Value *item = tolist_from(I, a, dim + 1, flat);
    if (!item) return val_decref(l), NULL;
    val_list_append_take(l, item);
  }
  return l;
}

static Value *m_tolist(Interp *I, Value *self, Value **a) {
  int64_t flat = 0;
  /* every element becomes a value of its own, besides its slot in a list: ask for them all
   * up front rather than run out half way */
  if (val_mem_check(I, (double)arr(self)->size * (double)(sizeof(Value *) + sizeof(Value))) < 0)
    return NULL;
  return tolist_from(I, arr(self), 0, &flat);
}

static Value *m_item(Interp *I, Value *self, Value **a) {
  NDArray *x = arr(self);
  if (VAL_SEQ_N(a[0]) == 0) {
    if (x->size != 1)
      return interp_raise(I, EXC_ValueError,
                          "can only convert an array of size 1 to a Python scalar");
    return bi_np_item(x, 0);
  }
  Value *key = VAL_SEQ_N(a[0]) == 1 ? VAL_SEQ_ITEM(a[0], 0) : a[0];
  if (VAL_SEQ_N(a[0]) == 1 && val_is_int(key)) { /* a flat index */
    int64_t i = key->u.i < 0 ? key->u.i + x->size : key->u.i;
    if (i < 0 || i >= x->size)
      return interp_raise(I, EXC_IndexError, "index %lld is out of bounds for size %lld",
                          (long long)key->u.i, (long long)x->size);
    return bi_np_item(x, i);
  }
  return bi_np_getitem(I, self, key);
}

static Value *m_fill(Interp *I, Value *self, Value **a) {
  return bi_np_fill(I, arr(self), a[0]) < 0 ? NULL : val_none();
}

static Value *m_take(Interp *I, Value *self, Value **a) {
  Value *args[] = {self, a[0], a[1]};
  return bi_np_fn_take(I, NULL, args);
}

static Value *m_argsort(Interp *I, Value *self, Value **a) {
  Value *args[] = {self, a[0], a[1]};
  return bi_np_fn_argsort(I, NULL, args);
}

/* a.sort(): in place, along one axis (numpy's method takes no None). */
static Value *m_sort(Interp *I, Value *self, Value **a) {
  if (a[0] && a[0]->kind == VAL_NONE)
    return interp_raise(I, EXC_TypeError, "'NoneType' object cannot be interpreted as an integer");
  Value *args[] = {self, a[0], a[1]}, *r = bi_np_fn_sort(I, NULL, args);
  if (!r) return NULL;
  memcpy(arr(self)->data, arr(r)->data, nd_nbytes(arr(self)));
  val_decref(r);
  return val_none();
}

static Value *m_clip(Interp *I, Value *self, Value **a) {
  Value *lo = a[0] ? a[0] : VAL_NONE_P, *hi = a[1] ? a[1] : VAL_NONE_P;
  Value *r = lo->kind == VAL_NONE ? val_incref(self) : bi_np_binary(I, NPB_MAX, self, lo);
  if (!r || hi->kind == VAL_NONE) return r;
  Value *c = bi_np_binary(I, NPB_MIN, r, hi);
  val_decref(r);
  return c;
}

static Value *m_dot(Interp *I, Value *self, Value **a) { return bi_np_dot(I, self, a[0]); }

static Value *m_abs(Interp *I, Value *self, Value **a) { return bi_np_unary(I, NPU_ABS, self); }

/* tvm.nd's a.copyfrom(src): src's values converted to a's dtype; the shapes must match. */
static Value *m_copyfrom(Interp *I, Value *self, Value **a) {
  NDArray *x = arr(self), *src = bi_np_from_value(I, a[0], &x->dtype);
  if (!src) return NULL;
  bool same = src->ndim == x->ndim;
  for (int i = 0; same && i < x->ndim; i++) same = src->shape[i] == x->shape[i];
  if (!same) {
    StrBuf b = STRBUF_INIT, c = STRBUF_INIT;
    bi_np_shape_str(&b, src->ndim, src->shape);
    bi_np_shape_str(&c, x->ndim, x->shape);
    interp_raise(I, EXC_ValueError, "array shape do not match the shape of NDArray %s vs %s",
                 sb_cstr(&b), sb_cstr(&c));
    sb_free(&b), sb_free(&c);
    nd_free(src);
    return NULL;
  }
  memcpy(x->data, src->data, nd_nbytes(x));
  nd_free(src);
  return val_incref(self);
}

static Value *m_copyto(Interp *I, Value *self, Value **a) {
  NDArray *dst = bi_ndarray_of(a[0]);
  if (!dst) return bi_np_copyto_elsewhere(I, self, a[0]); /* a Device, a device array */
  Value *args[1] = {self};
  Value *r = m_copyfrom(I, a[0], args);
  return r;
}

#define REDUCE_ROW(name, doc)                                                                      \
  { #name, m_##name, 0, PARAMS("axis", "out", "keepdims"), doc }
static const Builtin array_methods[] = {
    {"astype", m_astype, 1, PARAMS("dtype"), "astype(dtype) -> ndarray: a copy converted to dtype"},
    {"copy", m_copy, 0, NOPARAMS, "copy() -> ndarray: a copy"},
    {"flatten", m_flatten, 0, NOPARAMS, "flatten() -> ndarray: a 1-d copy"},
    {"ravel", m_flatten, 0, NOPARAMS, "ravel() -> ndarray: a 1-d copy (tes never makes views)"},
    {"reshape", m_reshape, 0, PARAMS("*shape"),
     "reshape(*shape) -> ndarray: the elements in a new shape (a tuple or ints; one may be -1)"},
    {"transpose", m_transpose, 0, PARAMS("*axes"),
     "transpose(*axes) -> ndarray: the axes permuted (reversed when none are given)"},
    {"sum", m_sum, 0, PARAMS("axis", "dtype", "out", "keepdims"),
     "sum(axis=None, dtype=None, keepdims=False): the sum over axis (all when None)"},
    {"prod", m_prod, 0, PARAMS("axis", "dtype", "out", "keepdims"),
     "prod(axis=None, dtype=None, keepdims=False): the product over axis"},
    {"mean", m_mean, 0, PARAMS("axis", "dtype", "out", "keepdims"),
     "mean(axis=None, dtype=None, keepdims=False): the mean over axis"},
    REDUCE_ROW(max, "max(axis=None, keepdims=False): the largest value over axis"),
    REDUCE_ROW(min, "min(axis=None, keepdims=False): the smallest value over axis"),
    REDUCE_ROW(argmax, "argmax(axis=None, keepdims=False): the index of the largest value"),
    REDUCE_ROW(argmin, "argmin(axis=None, keepdims=False): the index of the smallest value"),
    REDUCE_ROW(all, "all(axis=None, keepdims=False): whether every value is true"),
    REDUCE_ROW(any, "any(axis=None, keepdims=False): whether some value is true"),
    {"tolist", m_tolist, 0, NOPARAMS, "tolist() -> list: nested lists of Python numbers"},
    {"item", m_item, 0, PARAMS("*args"), "item(*index) -> number: one element as a Python number"},
    {"fill", m_fill, 1, PARAMS("value"), "fill(value): sets every element to value"},
    {"clip", m_clip, 0, PARAMS("min", "max"),
     "clip(min=None, max=None) -> ndarray: values limited"},
    {"dot", m_dot, 1, PARAMS("b"), "dot(b) -> ndarray: np.dot(self, b)"},
    {"take", m_take, 1, PARAMS("indices", "axis"),
     "take(indices, axis=None) -> ndarray: np.take(self, indices, axis)"},
    {"argsort", m_argsort, 0, PARAMS("axis", "kind"),
     "argsort(axis=-1, kind=None) -> ndarray: np.argsort(self, axis) (stable)"},
    {"sort", m_sort, 0, PARAMS("axis", "kind"),
     "sort(axis=-1, kind=None): sorts in place along axis (stable, NaN last)"},
    {"__abs__", m_abs, 0, NOPARAMS, "__abs__() -> ndarray: abs(self), elementwise"},
    {"numpy", m_copy, 0, NOPARAMS, "numpy() -> ndarray: a copy as a numpy array (tvm.nd)"},
    {"asnumpy", m_copy, 0, NOPARAMS, "asnumpy() -> ndarray: numpy()'s old name (tvm.nd)"},
    {"copyfrom", m_copyfrom, 1, PARAMS("source_array"),
     "copyfrom(source) -> self: copies source's values in, converted to this dtype (tvm.nd)"},
    {"copyto", m_copyto, 1, PARAMS("target"),
     "copyto(target) -> target: copies into target (tvm.nd)"},
    {0},
};
#undef REDUCE_ROW

/* ---- hooks ---- */

static Value *array_repr(Interp *I, Value *self) { return bi_np_repr(I, arr(self)); }
static Value *array_str(Interp *I, Value *self) { return bi_np_str(I, arr(self)); }

static const NpBinOp binops[BIN_OP_COUNT] = {
    [BIN_ADD] = NPB_ADD,           [BIN_SUB] = NPB_SUB, [BIN_MUL] = NPB_MUL, [BIN_DIV] = NPB_DIV,
    [BIN_FLOORDIV] = NPB_FLOORDIV, [BIN_MOD] = NPB_MOD, [BIN_POW] = NPB_POW, [BIN_LSHIFT] = NPB_SHL,
    [BIN_RSHIFT] = NPB_SHR,        [BIN_AND] = NPB_AND, [BIN_OR] = NPB_OR,   [BIN_XOR] = NPB_XOR,
};

/* Operands numpy would not take (a te Tensor, a str) are left to the other side. */
static Value *array_binop(Interp *I, BinOp op, Value *a, Value *b, bool right) {
  if (!bi_np_is_arraylike(right ? a : b)) return NULL;
  if (op == BIN_MATMUL) return bi_np_matmul(I, a, b);
  return bi_np_binary(I, binops[op], a, b);
}

static Value *array_unop(Interp *I, UnOp op, Value *self) {
  switch (op) {
  case UN_NEG:
    return bi_np_unary(I, NPU_NEG, self);
  case UN_POS:
    return bi_np_unary(I, NPU_POS, self);
  case UN_INVERT:
    return bi_np_unary(I, NPU_INVERT, self);
  case UN_NOT:
    return NULL;
  }
  TES_UNREACHABLE();
}

static Value *array_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  static const NpBinOp cmps[] = {[CMP_LT] = NPB_LT, [CMP_LE] = NPB_LE, [CMP_GT] = NPB_GT,
                                 [CMP_GE] = NPB_GE, [CMP_EQ] = NPB_EQ, [CMP_NE] = NPB_NE};
  if (op > CMP_NE || !bi_np_is_arraylike(right ? a : b)) return NULL;
  return bi_np_binary(I, cmps[op], a, b);
}

static Value *array_to_list(Interp *I, Value *self) {
  NDArray *a = arr(self);
  if (a->ndim == 0) return interp_raise(I, EXC_TypeError, "iteration over a 0-d array");
  Value *l = val_list_alloc(I, a->shape[0]);
  for (int64_t i = 0; l && i < a->shape[0]; i++) {
    Value *k = val_int(i), *item = bi_np_getitem(I, self, k);
    val_decref(k);
    if (!item) return val_decref(l), NULL;
    val_list_append_take(l, item);
  }
  return l;
}

static int64_t array_len(Interp *I, Value *self) {
  NDArray *a = arr(self);
  if (a->ndim == 0) return interp_raise(I, EXC_TypeError, "len() of unsized object"), -1;
  return a->shape[0];
}

static int array_truthy(Interp *I, Value *self) {
  NDArray *a = arr(self);
  if (a->size != 1) {
    interp_raise(I, EXC_ValueError,
                 a->size ? "The truth value of an array with more than one element is "
                           "ambiguous. Use a.any() or a.all()"
                         : "The truth value of an empty array is ambiguous. Use a.size > 0 "
                           "to check that an array is not empty.");
    return -1;
  }
  NpScalar v = bi_np_get(a, 0, NK_FLOAT);
  return v.f != 0.0;
}

/* int(a), float(a), `%f` % a, f"{a:.3f}", lst[a]: numpy 2.4 converts a 0-d array (a scalar)
 * to a Python number, and only an integer one to an index; a 1-element array of more
 * dimensions is an error since 2.4 (a deprecation warning before). */
static Value *array_number(Interp *I, Value *self, NumWant want) {
  NDArray *a = arr(self);
  switch (want) {
  case NUM_INDEX:
    if (a->ndim == 0 && dt_is_int(a->dtype)) return bi_np_item(a, 0);
    if (is_scalar(self)) return NULL; /* np.float32 has no __index__: the caller's TypeError */
    return interp_raise(I, EXC_TypeError,
                        "only integer scalar arrays can be converted to a scalar index");
  case NUM_SCALAR:
    return a->ndim == 0 ? bi_np_item(a, 0) : NULL;
  case NUM_REAL:
    if (a->ndim == 0) return bi_np_item(a, 0);
    return interp_raise(I, EXC_TypeError,
                        "only 0-dimensional arrays can be converted to Python scalars");
  }
  TES_UNREACHABLE();
}

const ObjClass bi_ndarray_class = {
    .type = {"ndarray", NULL, VAL_OBJ, NULL},
    .free = free_array,
    .repr = array_repr,
    .str = array_str,
    .getitem = bi_np_getitem,
    .setitem = bi_np_setitem,
    .binop = array_binop,
    .unop = array_unop,
    .compare = array_compare,
    .to_list = array_to_list,
    .len = array_len,
    .truthy = array_truthy,
    .methods = array_methods,
    .number = array_number,
    .props = array_props,
};

/* ---- numpy's scalars ----
 * What a reduction over every axis gives (np.sum(a), a.max(), np.argmax(a)): a 0-d array
 * with the array's attributes, methods and operators, but numpy 2's repr (np.float32(0.1)),
 * a hash equal to its number's (a dict key as the int it holds), no item assignment, no
 * len() or iteration, and isinstance(x, np.ndarray) false. One class per dtype, so that
 * type(x).__name__ is numpy's ("float32"). */

static Value *scalar_repr(Interp *I, Value *self) { return bi_np_scalar_repr(I, arr(self)); }

static int scalar_hash(Interp *I, Value *self, uint64_t *out) {
  Value *n = bi_np_item(arr(self), 0);
  int r = val_hash(I, n, out);
  val_decref(n);
  return r;
}

#define SCALAR_CLASS(name)                                                                         \
  {                                                                                                \
    .type = {name, NULL, VAL_OBJ, NULL}, .free = free_array, .repr = scalar_repr,                  \
    .str = array_str, .getitem = bi_np_getitem, .binop = array_binop, .unop = array_unop,          \
    .compare = array_compare, .truthy = array_truthy, .methods = array_methods,                    \
    .number = array_number, .hash = scalar_hash, .props = array_props,                             \
  }
/* bool, then int8 ... int64, uint8 ... uint64, float16 ... float64 (scalar_class's order) */
static const ObjClass scalar_classes[] = {
    SCALAR_CLASS("bool"),    SCALAR_CLASS("int8"),    SCALAR_CLASS("int16"),
    SCALAR_CLASS("int32"),   SCALAR_CLASS("int64"),   SCALAR_CLASS("uint8"),
    SCALAR_CLASS("uint16"),  SCALAR_CLASS("uint32"),  SCALAR_CLASS("uint64"),
    SCALAR_CLASS("float16"), SCALAR_CLASS("float32"), SCALAR_CLASS("float64"),
};
#undef SCALAR_CLASS

static const ObjClass *scalar_class(DType t) {
  int log = __builtin_ctz((unsigned)t.bits); /* 8 .. 64 bits: 3 .. 6 */
  if (t.code == DT_BOOL) return &scalar_classes[0];
  if (t.code == DT_INT) return &scalar_classes[1 + log - 3];
  if (t.code == DT_UINT) return &scalar_classes[5 + log - 3];
  return &scalar_classes[9 + log - 4];
}

bool bi_np_scalar_class_dtype(const TypeObj *t, DType *out) {
  for (size_t i = 0; i < sizeof scalar_classes / sizeof scalar_classes[0]; i++)
    if (t == &scalar_classes[i].type) {
      static const DType order[] = {
          DT_MAKE(DT_BOOL, 8, 1),   DT_MAKE(DT_INT, 8, 1),    DT_MAKE(DT_INT, 16, 1),
          DT_MAKE(DT_INT, 32, 1),   DT_MAKE(DT_INT, 64, 1),   DT_MAKE(DT_UINT, 8, 1),
          DT_MAKE(DT_UINT, 16, 1),  DT_MAKE(DT_UINT, 32, 1),  DT_MAKE(DT_UINT, 64, 1),
          DT_MAKE(DT_FLOAT, 16, 1), DT_MAKE(DT_FLOAT, 32, 1), DT_MAKE(DT_FLOAT, 64, 1)};
      *out = order[i];
      return true;
    }
  return false;
}

Value *bi_ndarray_scalar_wrap(NDArray *a) {
  if (!a) return NULL;
  TES_ASSERT(a->ndim == 0 && bi_np_dtype_ok(a->dtype), "a scalar is a 0-d array of SPEC §6");
  return val_obj_new(scalar_class(a->dtype), a);
}
