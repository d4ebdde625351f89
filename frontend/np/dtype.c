/* dtype.c: numpy's dtypes (np.float32, a.dtype, np.dtype), its type promotion, element
 * access in the three compute kinds of np/np_impl.h, and arrays made from Python values
 * (np.array's nested lists) and from the operands of an elementwise operation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/np/np_impl.h"

/* ---- names ---- */

/* Every element dtype, with numpy's one-letter codes (the array-protocol spelling, "f4"). */
static const struct {
  const char *name, *code;
  DType t;
} dtypes[] = {
    {"bool", "b1", NP_BOOL},
    {"int8", "i1", DT_MAKE(DT_INT, 8, 1)},
    {"int16", "i2", DT_MAKE(DT_INT, 16, 1)},
    {"int32", "i4", DT_MAKE(DT_INT, 32, 1)},
    {"int64", "i8", DT_MAKE(DT_INT, 64, 1)},
    {"uint8", "u1", DT_MAKE(DT_UINT, 8, 1)},
    {"uint16", "u2", DT_MAKE(DT_UINT, 16, 1)},
    {"uint32", "u4", DT_MAKE(DT_UINT, 32, 1)},
    {"uint64", "u8", DT_MAKE(DT_UINT, 64, 1)},
    {"float16", "f2", DT_MAKE(DT_FLOAT, 16, 1)},
    {"float32", "f4", DT_MAKE(DT_FLOAT, 32, 1)},
    {"float64", "f8", DT_MAKE(DT_FLOAT, 64, 1)},
};
enum { NDTYPES = sizeof dtypes / sizeof dtypes[0] };

/* numpy's other spellings of the same types. */
static const struct {
  const char *name;
  DType t;
} aliases[] = {
    {"float", NP_FLOAT},
    {"int", NP_INT},
    {"bool_", NP_BOOL},
    {"?", NP_BOOL},
    {"double", NP_FLOAT},
    {"single", DT_F32},
    {"half", DT_MAKE(DT_FLOAT, 16, 1)},
    {"int_", NP_INT},
    {"float_", NP_FLOAT},
    {"long", NP_INT},
    {"intc", DT_I32},
    {"byte", DT_MAKE(DT_INT, 8, 1)},
    {"ubyte", DT_MAKE(DT_UINT, 8, 1)},
    {"short", DT_MAKE(DT_INT, 16, 1)},
    {"ushort", DT_MAKE(DT_UINT, 16, 1)},
    {"uint", DT_MAKE(DT_UINT, 64, 1)},
};

bool bi_np_dtype_ok(DType t) {
  for (int i = 0; i < NDTYPES; i++)
    if (dt_eq(t, dtypes[i].t)) return true;
  return false;
}

const char *bi_np_dtype_name(DType t) {
  for (int i = 0; i < NDTYPES; i++)
    if (dt_eq(t, dtypes[i].t)) return dtypes[i].name;
  TES_UNREACHABLE();
}

/* A dtype by name; the byte-order prefixes of the array protocol ('<f4', '|b1') are read too
 * (little-endian or not applicable: this is the only byte order tes runs on). */
static bool parse_name(const char *s, DType *out) {
  if ((s[0] == '<' || s[0] == '|' || s[0] == '=') && s[1]) s++;
  for (int i = 0; i < NDTYPES; i++)
    if (!strcmp(s, dtypes[i].name) || !strcmp(s, dtypes[i].code)) return *out = dtypes[i].t, true;
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (!strcmp(s, aliases[i].name)) return *out = aliases[i].t, true;
  return false;
}

/* ---- the dtype values ---- */

static void *dtype_ptr(DType t) {
  return (void *)(uintptr_t)(1u | (unsigned)t.code << 8 | (unsigned)t.bits << 16);
}

static DType ptr_dtype(const void *p) {
  uintptr_t u = (uintptr_t)p;
  return DT_MAKE((uint8_t)(u >> 8), (uint8_t)(u >> 16), 1);
}

static bool dtype_of_value(Value *v, DType *out) {
  if (v->kind == VAL_TYPE) return bi_np_scalar_class_dtype(v->u.type, out);
  if (v->kind != VAL_OBJ ||
      (v->u.obj.cls != &bi_np_dtype_class && v->u.obj.cls != &bi_np_scalar_type_class))
    return false;
  *out = ptr_dtype(v->u.obj.p);
  return true;
}

Value *bi_np_dtype_value(DType t) { return val_obj_new(&bi_np_dtype_class, dtype_ptr(t)); }
Value *bi_np_scalar_type_value(DType t) {
  return val_obj_new(&bi_np_scalar_type_class, dtype_ptr(t));
}

int bi_np_dtype_arg(Interp *I, Value *v, const char *fn, DType dflt, DType *out) {
  if (!v || v->kind == VAL_NONE) return *out = dflt, 0;
  if (dtype_of_value(v, out)) return 0;
  if (v->kind == VAL_STR) {
    if (parse_name(v->u.str.s, out)) return 0;
    if (!strncmp(v->u.str.s, "complex", 7) || !strcmp(v->u.str.s, "bfloat16") ||
        !strcmp(v->u.str.s, "object") || !strcmp(v->u.str.s, "str"))
      interp_raise(I, EXC_RuntimeError,
                   "not supported yet: dtype %s (tes arrays hold the dtypes of SPEC §6)",
                   v->u.str.s);
    else
      interp_raise(I, EXC_TypeError, "%s: data type '%s' not understood", fn, v->u.str.s);
    return -1;
  }
  if (v->kind == VAL_TYPE && v->u.type == &val_types[VAL_FLOAT]) return *out = NP_FLOAT, 0;
  if (v->kind == VAL_TYPE && v->u.type == &val_types[VAL_INT]) return *out = NP_INT, 0;
  if (v->kind == VAL_TYPE && v->u.type == &val_types[VAL_BOOL]) return *out = NP_BOOL, 0;
  interp_raise(I, EXC_TypeError, "%s: cannot interpret '%s' as a data type", fn, val_type_name(v));
  return -1;
}

static Value *dtype_repr(Interp *I, Value *self) {
  char buf[48];
  snprintf(buf, sizeof buf, "dtype('%s')", bi_np_dtype_name(ptr_dtype(self->u.obj.p)));
  return val_cstr(buf);
}

static Value *dtype_str(Interp *I, Value *self) {
  return val_cstr(bi_np_dtype_name(ptr_dtype(self->u.obj.p)));
}

static Value *scalar_type_repr(Interp *I, Value *self) {
  char buf[48];
  snprintf(buf, sizeof buf, "<class 'numpy.%s'>", bi_np_dtype_name(ptr_dtype(self->u.obj.p)));
  return val_cstr(buf);
}

/* A dtype equals another naming the same type, and the name itself: a.dtype == "float32" and
 * a.dtype == np.float32 are both true (numpy has the first two; tes adds np.float32 ==
 * "float32" so that every spelling compares alike). */
static Value *dtype_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  if (op != CMP_EQ && op != CMP_NE) return NULL;
  Value *self = right ? b : a, *other = right ? a : b;
  DType x = ptr_dtype(self->u.obj.p), y;
  bool eq;
  if (dtype_of_value(other, &y))
    eq = dt_eq(x, y);
  else if (other->kind == VAL_STR)
    eq = parse_name(other->u.str.s, &y) && dt_eq(x, y);
  else
    eq = false;
  return val_bool(eq == (op == CMP_EQ));
}

static DType self_dtype(Value *self) { return ptr_dtype(self->u.obj.p); }

static Value *dtype_name(Interp *I, Value *self) {
  return val_cstr(bi_np_dtype_name(self_dtype(self)));
}

static Value *dtype_itemsize(Interp *I, Value *self) {
  return val_int((int64_t)nd_elem_bytes(self_dtype(self)));
}

static Value *dtype_bits(Interp *I, Value *self) {
  DType t = self_dtype(self);
  return val_int(t.code == DT_BOOL ? 8 : t.bits);
}

static Value *dtype_kind(Interp *I, Value *self) {
  static const char kinds[] = {[DT_INT] = 'i', [DT_UINT] = 'u', [DT_FLOAT] = 'f', [DT_BOOL] = 'b'};
  return val_str(&kinds[self_dtype(self).code], 1);
}

static Value *dtype_type(Interp *I, Value *self) {
  return bi_np_scalar_type_value(self_dtype(self));
}

static Value *dtype_dtype(Interp *I, Value *self) { return bi_np_dtype_value(self_dtype(self)); }

/* np.dtype('float32') and np.float32 answer the same names. */
static const Property dtype_props[] = {
    {"name", dtype_name, "numpy's name of the type ('float32')"},
    {"itemsize", dtype_itemsize, "the bytes of one element"},
    {"bits", dtype_bits, "the bits of one element"},
    {"kind", dtype_kind, "numpy's kind letter: 'i', 'u', 'f' or 'b'"},
    {"type", dtype_type, "the scalar type (np.float32)"},
    {"dtype", dtype_dtype, "the dtype (np.dtype('float32'))"},
    {0},
};

/* np.float32(x): a number converted as numpy would (rounded to float32, wrapped to int8),
 * given back as a Python number; an array or list converted to an array of that dtype. */
static Value *scalar_type_call(Interp *I, Value *self, CallArgs *args) {
  DType t = ptr_dtype(self->u.obj.p);
  if (args->nkw || args->n > 1)
    return interp_raise(I, EXC_TypeError, "%s() takes at most 1 argument", bi_np_dtype_name(t));
  if (args->n == 0) {
    NDArray *z = bi_np_new(I, t, 0, NULL);
    if (!z) return NULL;
    Value *r = bi_np_item(z, 0);
    nd_free(z);
    return r;
  }
  Value *v = args->v[0];
  if (v->kind == VAL_STR) {
    char *end;
    double d = strtod(v->u.str.s, &end);
    if (end == v->u.str.s || *end)
      return interp_raise(I, EXC_ValueError, "could not convert string to %s: '%s'",
                          bi_np_dtype_name(t), v->u.str.s);
    Value *f = val_float(d), *r = scalar_type_call(I, self, &(CallArgs){1, &f, 0, NULL, NULL});
    val_decref(f);
    return r;
  }
  NDArray *a = bi_np_from_value(I, v, &t);
  if (!a) return NULL;
  if (a->ndim > 0) return bi_ndarray_wrap(a);
  Value *r = bi_np_item(a, 0);
  nd_free(a);
  return r;
}

const ObjClass bi_np_dtype_class = {
    .type = {"dtype", NULL, VAL_OBJ, NULL},
    .repr = dtype_repr,
    .str = dtype_str,
    .compare = dtype_compare,
    .props = dtype_props,
};

const ObjClass bi_np_scalar_type_class = {
    .type = {"type", NULL, VAL_OBJ, NULL},
    .repr = scalar_type_repr,
    .compare = dtype_compare,
    .call = scalar_type_call,
    .props = dtype_props,
};

void bi_np_dtype_members(Value *m) {
  static const char *const extra[] = {"bool_", "int_", "float_", "double", "single", "half",
                                      "intc",  "byte", "ubyte",  "short",  "ushort"};
  for (int i = 0; i < NDTYPES; i++)
    bi_set_member_take(m, dtypes[i].name, bi_np_scalar_type_value(dtypes[i].t));
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
    DType t;
    parse_name(extra[i], &t);
    bi_set_member_take(m, extra[i], bi_np_scalar_type_value(t));
  }
}

/* ---- promotion ---- */

/* The float width that holds every value of an integer width (int8 -> float16 ...). */
static int float_bits_for_int(int bits) { return bits <= 8 ? 16 : bits <= 16 ? 32 : 64; }

DType bi_np_float_for(DType t) {
  switch ((DTypeCode)t.code) {
  case DT_FLOAT:
    return t;
  case DT_BOOL:
    return DT_MAKE(DT_FLOAT, 16, 1);
  case DT_INT:
  case DT_UINT:
    return DT_MAKE(DT_FLOAT, float_bits_for_int(t.bits), 1);
  case DT_HANDLE:
    break;
  }
  TES_UNREACHABLE();
}

static int imax(int a, int b) { return a > b ? a : b; }

DType bi_np_promote(DType a, DType b) {
  if (dt_eq(a, b) || b.code == DT_BOOL) return a;
  if (a.code == DT_BOOL) return b;
  if (a.code == DT_FLOAT || b.code == DT_FLOAT) {
    int fa = a.code == DT_FLOAT ? a.bits : float_bits_for_int(a.bits);
    int fb = b.code == DT_FLOAT ? b.bits : float_bits_for_int(b.bits);
    return DT_MAKE(DT_FLOAT, imax(fa, fb), 1);
  }
  if (a.code == b.code) return DT_MAKE(a.code, imax(a.bits, b.bits), 1);
  /* a signed and an unsigned integer: the signed type that holds both, if there is one */
  DType s = a.code == DT_INT ? a : b, u = a.code == DT_INT ? b : a;
  if (s.bits > u.bits) return s;
  if (u.bits < 64) return DT_MAKE(DT_INT, u.bits * 2, 1);
  return NP_FLOAT;
}

/* ---- elements ---- */

double bi_np_round_to(DType t, double x) {
  if (t.code != DT_FLOAT || t.bits == 64) return x;
  return t.bits == 32 ? (double)(float)x : nd_half_to_double(nd_double_to_half(x));
}

/* x86's answer for a float outside the integer range (and NaN): the most negative value. */
static int64_t f_to_i(double f) {
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)f;
}

static uint64_t f_to_u(double f) {
  if (f >= 0 && f < 18446744073709551616.0) return (uint64_t)f;
  return (uint64_t)f_to_i(f);
}

NpScalar bi_np_convert(NpScalar v, NpKind from, NpKind to) {
  NpScalar r;
  if (from == to) return v;
  switch (to) {
  case NK_INT:
    r.i = from == NK_UINT ? (int64_t)v.u : f_to_i(v.f);
    return r;
  case NK_UINT:
    r.u = from == NK_INT ? (uint64_t)v.i : f_to_u(v.f);
    return r;
  case NK_FLOAT:
    r.f = from == NK_INT ? (double)v.i : (double)v.u;
    return r;
  }
  TES_UNREACHABLE();
}

/* The loads and stores, one loop per dtype: T the C type, K the kind's field. */
#define NP_ELEM_TYPES(X)                                                                           \
  X(DT_INT, 8, int8_t, i, NK_INT)                                                                  \
  X(DT_INT, 16, int16_t, i, NK_INT)                                                                \
  X(DT_INT, 32, int32_t, i, NK_INT) X(DT_INT, 64, int64_t, i, NK_INT)                              \
      X(DT_UINT, 8, uint8_t, u, NK_UINT) X(DT_UINT, 16, uint16_t, u, NK_UINT)                      \
          X(DT_UINT, 32, uint32_t, u, NK_UINT) X(DT_UINT, 64, uint64_t, u, NK_UINT)                \
              X(DT_FLOAT, 32, float, f, NK_FLOAT) X(DT_FLOAT, 64, double, f, NK_FLOAT)

/* A dtype as one number for switching: code * 256 + bits. */
#define DT_KEY(code, bits) ((code)*256 + (bits))
static int dt_key(DType t) { return DT_KEY(t.code, t.bits); }

/* Loads n elements from data[first..] as their natural kind; returns that kind. */
static NpKind load_raw(DType t, const void *data, int64_t first, int64_t n, NpScalar *out) {
  switch (dt_key(t)) {
#define LOAD_CASE(code, bits, T, f, k)                                                             \
  case DT_KEY(code, bits): {                                                                       \
    const T *p = (const T *)data + first;                                                          \
    for (int64_t i = 0; i < n; i++) out[i].f = p[i];                                               \
    return k;                                                                                      \
  }
    NP_ELEM_TYPES(LOAD_CASE)
#undef LOAD_CASE
  case DT_KEY(DT_FLOAT, 16): {
    const uint16_t *p = (const uint16_t *)data + first;
    for (int64_t i = 0; i < n; i++) out[i].f = nd_half_to_double(p[i]);
    return NK_FLOAT;
  }
  case DT_KEY(DT_BOOL, 8): {
    const uint8_t *p = (const uint8_t *)data + first;
    for (int64_t i = 0; i < n; i++) out[i].i = p[i] != 0;
    return NK_INT;
  }
  }
  TES_UNREACHABLE();
}

static bool nonzero(NpScalar v, NpKind k) {
  return k == NK_FLOAT ? v.f != 0.0 : k == NK_INT ? v.i != 0 : v.u != 0;
}

/* Stores n values of kind k (converted first) into data[first..]. */
static void store_raw(DType t, void *data, int64_t first, int64_t n, const NpScalar *in, NpKind k) {
  switch (dt_key(t)) {
#define STORE_CASE(code, bits, T, f, kk)                                                           \
  case DT_KEY(code, bits): {                                                                       \
    T *p = (T *)data + first;                                                                      \
    for (int64_t i = 0; i < n; i++) p[i] = (T)bi_np_convert(in[i], k, kk).f;                       \
    return;                                                                                        \
  }
    NP_ELEM_TYPES(STORE_CASE)
#undef STORE_CASE
  case DT_KEY(DT_FLOAT, 16): {
    uint16_t *p = (uint16_t *)data + first;
    for (int64_t i = 0; i < n; i++) p[i] = nd_double_to_half(bi_np_convert(in[i], k, NK_FLOAT).f);
    return;
  }
  case DT_KEY(DT_BOOL, 8): {
    uint8_t *p = (uint8_t *)data + first;
    for (int64_t i = 0; i < n; i++) p[i] = nonzero(in[i], k);
    return;
  }
  }
  TES_UNREACHABLE();
}

NpScalar bi_np_get(const NDArray *a, int64_t i, NpKind k) {
  NpScalar v;
  NpKind from = load_raw(a->dtype, a->data, i, 1, &v);
  return bi_np_convert(v, from, k);
}

void bi_np_set(NDArray *a, int64_t i, NpScalar v, NpKind k) {
  store_raw(a->dtype, a->data, i, 1, &v, k);
}

double bi_np_get_f(const NDArray *a, int64_t i) { return bi_np_get(a, i, NK_FLOAT).f; }

void bi_np_load_run(const NDArray *a, int64_t first, int64_t n, NpKind k, NpScalar *out) {
  NpKind from = load_raw(a->dtype, a->data, first, n, out);
  if (from != k)
    for (int64_t i = 0; i < n; i++) out[i] = bi_np_convert(out[i], from, k);
}

void bi_np_store_run(NDArray *a, int64_t first, int64_t n, const NpScalar *v, NpKind k) {
  store_raw(a->dtype, a->data, first, n, v, k);
}

NpScalar *bi_np_load(Interp *I, const NDArray *a, NpKind k) {
  NpScalar *out = val_alloc(I, a->size, sizeof *out);
  if (out) bi_np_load_run(a, 0, a->size, k, out);
  return out;
}

void bi_np_store(NDArray *a, const NpScalar *v, NpKind k) {
  store_raw(a->dtype, a->data, 0, a->size, v, k);
}

Value *bi_np_item(const NDArray *a, int64_t i) {
  NpKind k = bi_np_kind(a->dtype);
  NpScalar v = bi_np_get(a, i, k);
  if (a->dtype.code == DT_BOOL) return val_bool(v.i != 0);
  switch (k) {
  case NK_INT:
    return val_int(v.i);
  case NK_UINT: /* a uint64 above INT64_MAX has no Python int here: it becomes a float */
    return v.u > INT64_MAX ? val_float((double)v.u) : val_int((int64_t)v.u);
  case NK_FLOAT:
    return val_float(v.f);
  }
  TES_UNREACHABLE();
}

/* ---- arrays ---- */

/* The bytes an array of this shape needs (a double: it may be past any integer type). */
static double array_bytes(DType t, int ndim, const int64_t *shape) {
  double n = (double)nd_elem_bytes(t);
  for (int i = 0; i < ndim; i++) n *= (double)shape[i];
  return n;
}

/* An array larger than the machine's memory is refused up front: with overcommit, allocating
 * it would succeed and filling it would get the process killed. numpy's message, as a
 * MemoryError (numpy's _ArrayMemoryError is one). */
NDArray *bi_np_new(Interp *I, DType t, int ndim, const int64_t *shape) {
  double bytes = array_bytes(t, ndim, shape);
  NDArray *a = bytes <= val_mem_physical() ? nd_new(t, ndim, shape) : NULL;
  if (!a) {
    StrBuf b = STRBUF_INIT;
    char size[32];
    val_mem_format(size, bytes);
    bi_np_shape_str(&b, ndim, shape);
    interp_raise(I, EXC_MemoryError,
                 "unable to allocate %s for an array with shape %s and data type %s", size,
                 sb_cstr(&b), bi_np_dtype_name(t));
    sb_free(&b);
  }
  return a;
}

NDArray *bi_np_copy(Interp *I, const NDArray *a) {
  NDArray *c = bi_np_new(I, a->dtype, a->ndim, a->shape);
  if (c) memcpy(c->data, a->data, nd_nbytes(a));
  return c;
}

enum { CHUNK = 256 }; /* elements converted at a time, through a buffer on the stack */

NDArray *bi_np_astype(Interp *I, const NDArray *a, DType t) {
  if (dt_eq(a->dtype, t)) return bi_np_copy(I, a);
  NDArray *c = bi_np_new(I, t, a->ndim, a->shape);
  if (!c) return NULL;
  NpScalar buf[CHUNK];
  for (int64_t i = 0; i < a->size; i += CHUNK) {
    int64_t n = a->size - i < CHUNK ? a->size - i : CHUNK;
    NpKind k = load_raw(a->dtype, a->data, i, n, buf);
    store_raw(t, c->data, i, n, buf, k);
  }
  return c;
}

Value *bi_np_wrap(NDArray *a) { return a ? bi_ndarray_wrap(a) : NULL; }

/* ---- arrays from nested lists ---- */

/* Whether a Python int fits in an integer dtype. */
static bool int_fits(int64_t x, DType t) {
  if (t.code == DT_UINT) return x >= 0 && (t.bits == 64 || (uint64_t)x < (UINT64_C(1) << t.bits));
  if (t.bits == 64) return true;
  int64_t lim = INT64_C(1) << (t.bits - 1);
  return x >= -lim && x < lim;
}

typedef struct Nested {
  Interp *I;
  int ndim;
  int64_t shape[ND_MAX_DIMS];
  bool has_float, has_int, has_bool, has_array;
  DType array_dt;  /* promotion of the arrays inside */
  const DType *dt; /* the dtype asked for, or NULL */
  NDArray *out;
  int64_t next; /* the flat index filled next */
} Nested;

static bool is_seq(Value *v) { return v->kind == VAL_LIST || v->kind == VAL_TUPLE; }

/* The shape, from the first item at every level. */
static int nested_shape(Nested *n, Value *v) {
  for (;;) {
    NDArray *a = bi_ndarray_of(v);
    if (a) {
      if (n->ndim + a->ndim > ND_MAX_DIMS) break;
      for (int i = 0; i < a->ndim; i++) n->shape[n->ndim++] = a->shape[i];
      return 0;
    }
    if (!is_seq(v)) return 0;
    if (n->ndim == ND_MAX_DIMS) break;
    n->shape[n->ndim++] = VAL_SEQ_N(v);
    if (VAL_SEQ_N(v) == 0) return 0;
    v = VAL_SEQ_ITEM(v, 0);
  }
  interp_raise(n->I, EXC_ValueError, "maximum supported dimension for an ndarray is %d",
               ND_MAX_DIMS);
  return -1;
}

static int inhomogeneous(Nested *n, int depth) {
  StrBuf b = STRBUF_INIT;
  bi_np_shape_str(&b, depth, n->shape);
  interp_raise(n->I, EXC_ValueError,
               "setting an array element with a sequence. The requested array has an "
               "inhomogeneous shape after %d dimensions. The detected shape was %s + "
               "inhomogeneous part.",
               depth, sb_cstr(&b));
  sb_free(&b);
  return -1;
}

/* Checks that v has the shape from depth on; notes the kinds of its leaves. */
static int nested_check(Nested *n, Value *v, int depth) {
  NDArray *a = bi_ndarray_of(v);
  if (a) {
    if (a->ndim != n->ndim - depth) return inhomogeneous(n, depth);
    for (int i = 0; i < a->ndim; i++)
      if (a->shape[i] != n->shape[depth + i]) return inhomogeneous(n, depth + i);
    n->array_dt = n->has_array ? bi_np_promote(n->array_dt, a->dtype) : a->dtype;
    n->has_array = true;
    return 0;
  }
  if (is_seq(v)) {
    if (depth == n->ndim || VAL_SEQ_N(v) != n->shape[depth]) return inhomogeneous(n, depth);
    for (int64_t i = 0; i < VAL_SEQ_N(v); i++)
      if (nested_check(n, VAL_SEQ_ITEM(v, i), depth + 1) < 0) return -1;
    return 0;
  }
  if (depth != n->ndim) return inhomogeneous(n, depth);
  if (v->kind == VAL_FLOAT)
    n->has_float = true;
  else if (v->kind == VAL_INT && n->dt && dt_is_int(*n->dt) && !int_fits(v->u.i, *n->dt)) {
    /* numpy 2 refuses a Python int that the dtype asked for cannot hold */
    interp_raise(n->I, EXC_OverflowError, "Python integer %lld out of bounds for %s",
                 (long long)v->u.i, bi_np_dtype_name(*n->dt));
    return -1;
  } else if (v->kind == VAL_INT)
    n->has_int = true;
  else if (v->kind == VAL_BOOL)
    n->has_bool = true;
  else {
    if (!bi_np_refused(n->I, v))
      interp_raise(n->I, EXC_RuntimeError,
                   "not supported yet: arrays of '%s' (tes arrays hold numbers and bools)",
                   val_type_name(v));
    return -1;
  }
  return 0;
}

static NpScalar number_scalar(Value *v, NpKind *k) {
  NpScalar s;
  if (v->kind == VAL_FLOAT)
    *k = NK_FLOAT, s.f = v->u.f;
  else
    *k = NK_INT, s.i = v->u.i;
  return s;
}

static void nested_fill(Nested *n, Value *v) {
  NDArray *a = bi_ndarray_of(v);
  if (a) {
    NpScalar buf[CHUNK];
    for (int64_t i = 0; i < a->size; i += CHUNK) {
      int64_t m = a->size - i < CHUNK ? a->size - i : CHUNK;
      NpKind k = load_raw(a->dtype, a->data, i, m, buf);
      store_raw(n->out->dtype, n->out->data, n->next + i, m, buf, k);
    }
    n->next += a->size;
  } else if (is_seq(v)) {
    for (int64_t i = 0; i < VAL_SEQ_N(v); i++) nested_fill(n, VAL_SEQ_ITEM(v, i));
  } else {
    NpKind k;
    NpScalar s = number_scalar(v, &k);
    store_raw(n->out->dtype, n->out->data, n->next++, 1, &s, k);
  }
}

static DType nested_dtype(const Nested *n) {
  /* an empty list is float64, as numpy makes it */
  DType t = n->has_float ? NP_FLOAT : n->has_int ? NP_INT : n->has_bool ? NP_BOOL : NP_FLOAT;
  if (!n->has_array) return t;
  /* Python numbers next to arrays in one list are strong here, as numpy makes them */
  return n->has_float || n->has_int || n->has_bool ? bi_np_promote(n->array_dt, t) : n->array_dt;
}

NDArray *bi_np_from_value(Interp *I, Value *v, const DType *dt) {
  NDArray *a = bi_ndarray_of(v);
  if (a) return dt ? bi_np_astype(I, a, *dt) : bi_np_copy(I, a);
  if (!is_seq(v) && !val_is_number(v)) {
    if (bi_np_refused(I, v)) return NULL;
    interp_raise(I, EXC_TypeError, "cannot make an array from '%s'", val_type_name(v));
    return NULL;
  }
  Nested n = {.I = I, .dt = dt};
  if (nested_shape(&n, v) < 0 || nested_check(&n, v, 0) < 0) return NULL;
  n.out = bi_np_new(I, dt ? *dt : nested_dtype(&n), n.ndim, n.shape);
  if (n.out) nested_fill(&n, v);
  return n.out;
}

/* ---- operands ---- */

bool bi_np_is_arraylike(Value *v) { return bi_ndarray_of(v) || val_is_number(v) || is_seq(v); }

int bi_np_operand(Interp *I, Value *v, NpOperand *o) {
  *o = (NpOperand){.a = bi_ndarray_of(v), .weak = NP_STRONG, .src = v};
  if (o->a) return 0;
  if (!bi_np_is_arraylike(v)) {
    if (bi_np_refused(I, v)) return -1;
    interp_raise(I, EXC_TypeError, "unsupported operand type for numpy: '%s'", val_type_name(v));
    return -1;
  }
  if (val_is_number(v))
    o->weak = v->kind == VAL_BOOL ? NP_WEAK_BOOL : v->kind == VAL_INT ? NP_WEAK_INT : NP_WEAK_FLOAT;
  o->a = bi_np_from_value(I, v, NULL);
  o->owned = true;
  return o->a ? 0 : -1;
}

void bi_np_operand_done(NpOperand *o) {
  if (o->owned) nd_free(o->a);
  o->a = NULL;
  o->owned = false;
}

int bi_np_weak_dtype(Interp *I, const NpOperand *w, DType t, DType *out) {
  switch (w->weak) {
  case NP_STRONG:
    *out = bi_np_promote(w->a->dtype, t);
    return 0;
  case NP_WEAK_BOOL:
    *out = t;
    return 0;
  case NP_WEAK_INT:
    if (t.code == DT_BOOL) return *out = NP_INT, 0;
    if (dt_is_int(t) && !int_fits(w->src->u.i, t)) {
      interp_raise(I, EXC_OverflowError, "Python integer %lld out of bounds for %s",
                   (long long)w->src->u.i, bi_np_dtype_name(t));
      return -1;
    }
    *out = t;
    return 0;
  case NP_WEAK_FLOAT:
    *out = t.code == DT_FLOAT ? t : NP_FLOAT;
    return 0;
  }
  TES_UNREACHABLE();
}

/* The kind order of weak operands when no array is strong: numpy's defaults for them. */
static DType weak_default(NpWeak w) {
  return w == NP_WEAK_FLOAT ? NP_FLOAT : w == NP_WEAK_INT ? NP_INT : NP_BOOL;
}

int bi_np_result_dtype(Interp *I, int n, const NpOperand *ops, DType *out) {
  bool any_strong = false;
  DType t = NP_BOOL;
  for (int i = 0; i < n; i++)
    if (ops[i].weak == NP_STRONG) {
      t = any_strong ? bi_np_promote(t, ops[i].a->dtype) : ops[i].a->dtype;
      any_strong = true;
    }
  if (!any_strong) { /* only Python numbers: numpy's default types, promoted */
    for (int i = 0; i < n; i++) t = bi_np_promote(t, weak_default(ops[i].weak));
    return *out = t, 0;
  }
  for (int i = 0; i < n; i++)
    if (ops[i].weak != NP_STRONG && bi_np_weak_dtype(I, &ops[i], t, &t) < 0) return -1;
  return *out = t, 0;
}
