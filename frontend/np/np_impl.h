/* np_impl.h: what the numpy subset's files share (SPEC §10): np/dtype.c (dtypes,
 * promotion, element access, arrays from nested lists), np/ndarray.c (the array value),
 * np/ops.c (elementwise operations with broadcasting), np/reduce.c (reductions, dot,
 * matmul), np/index.c (indexing), np/print.c (numpy's printing), np/io.c (.npy),
 * np/np.c (the module), np/random.c, np/testing.c and tvm/nd_bridge.c (tvm.nd,
 * tvm.testing). Private to those files.
 *
 * Elements are computed in one of three kinds, so that an int64 never passes through a double:
 * signed integers and bool as int64, unsigned integers as uint64, floats as double. A float32
 * or float16 result is computed in double and rounded once on the way into its array, which
 * gives the correctly rounded result for + - * / and sqrt. */
#ifndef TES_NP_IMPL_H
#define TES_NP_IMPL_H

#include "frontend/np/ndarray.h"
#include "frontend/np/np.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "ir/strbuf.h"

/* ---- dtypes (np/dtype.c) ---- */
#define NP_BOOL DT_MAKE(DT_BOOL, 8, 1) /* one byte per element, as numpy stores it */
#define NP_INT DT_I64                  /* numpy's default int on Linux */
#define NP_FLOAT DT_F64

/* np.float32 ... (callable: converts a number) and what a.dtype / np.dtype() give. Both
 * compare equal to each other and to the dtype's name. */
extern const ObjClass bi_np_dtype_class, bi_np_scalar_type_class;
Value *bi_np_dtype_value(DType t);       /* a.dtype */
Value *bi_np_shape_tuple(const NDArray *a); /* a.shape: a tuple of ints */
Value *bi_np_scalar_type_value(DType t); /* np.float32 */
/* The dtype of a numpy scalar's class (type(np.sum(a)) is float32's), false for other types. */
bool bi_np_scalar_class_dtype(const TypeObj *t, DType *out);
/* An element dtype of SPEC §6: bool, int8..int64, uint8..uint64, float16..float64. */
bool bi_np_dtype_ok(DType t);
const char *bi_np_dtype_name(DType t); /* "float32", "bool" */
/* A dtype argument: a name ("float32", "int", numpy's "f4"), a dtype or scalar type (np.int8,
 * a.dtype), or the Python types int, float, bool. NULL or None give dflt. TypeError naming fn
 * otherwise; -1 then. numpy's meaning of "float" and "int" (float64, int64). */
int bi_np_dtype_arg(Interp *I, Value *v, const char *fn, DType dflt, DType *out);
/* Adds the dtype names (np.float32, np.bool_ ...) to the numpy module. */
void bi_np_dtype_members(Value *module);
/* numpy's result_type of two dtypes. */
DType bi_np_promote(DType a, DType b);
/* The smallest float that holds t exactly (t itself for floats): what exp and / give. */
DType bi_np_float_for(DType t);

/* ---- elements ---- */
typedef enum { NK_INT, NK_UINT, NK_FLOAT } NpKind;
typedef union NpScalar {
  int64_t i;
  uint64_t u;
  double f;
} NpScalar;

static inline NpKind bi_np_kind(DType t) {
  return t.code == DT_FLOAT ? NK_FLOAT : t.code == DT_UINT ? NK_UINT : NK_INT;
}
/* Element i (flat, row-major) as kind k; and stored from kind k with numpy's casts (integers
 * wrap, floats truncate toward zero into integers, any nonzero is True). */
NpScalar bi_np_get(const NDArray *a, int64_t i, NpKind k);
void bi_np_set(NDArray *a, int64_t i, NpScalar v, NpKind k);
double bi_np_get_f(const NDArray *a, int64_t i);
/* Every element as kind k, in a new malloc'd buffer (NULL with MemoryError when there is no
 * room for it); and back. */
NpScalar *bi_np_load(Interp *I, const NDArray *a, NpKind k);
void bi_np_store(NDArray *a, const NpScalar *v, NpKind k);
/* Elements first .. first + n - 1 only: a pass over a big array in runs through a buffer on
 * the stack needs no copy of it (an int8 array as NpScalars would be 8 times its size). */
enum { NP_RUN = 256 };
void bi_np_load_run(const NDArray *a, int64_t first, int64_t n, NpKind k, NpScalar *out);
void bi_np_store_run(NDArray *a, int64_t first, int64_t n, const NpScalar *v, NpKind k);
/* A scalar converted between kinds, as a numpy cast between those dtypes would. */
NpScalar bi_np_convert(NpScalar v, NpKind from, NpKind to);
/* Element i as a Python int, float or bool (what indexing to one element gives). */
Value *bi_np_item(const NDArray *a, int64_t i);
/* A float32/float16 value as that type rounds it (nearest even). */
double bi_np_round_to(DType t, double x);

/* ---- arrays ---- */
/* nd_new raising MemoryError when the size overflows or memory runs out. */
NDArray *bi_np_new(Interp *I, DType t, int ndim, const int64_t *shape);
NDArray *bi_np_copy(Interp *I, const NDArray *a);
/* a converted to dtype t (a copy even when t is a's dtype). */
NDArray *bi_np_astype(Interp *I, const NDArray *a, DType t);
/* An array from a value: an array (copied, or converted to *dt), a number, or nested lists
 * and tuples of those. dt NULL: numpy's inference (bool, then int64, then float64). */
NDArray *bi_np_from_value(Interp *I, Value *v, const DType *dt);
/* Wraps a; NULL when a is NULL (the error already raised). */
Value *bi_np_wrap(NDArray *a);

/* An operand of an elementwise operation: arrays are borrowed; Python numbers become 0-d
 * arrays that are "weak" as in numpy 2 (NEP 50): they take the other operand's dtype. */
typedef enum { NP_STRONG, NP_WEAK_BOOL, NP_WEAK_INT, NP_WEAK_FLOAT } NpWeak;
typedef struct NpOperand {
  NDArray *a;
  bool owned;
  NpWeak weak;
  Value *src; /* the Python number of a weak operand (borrowed), for range errors */
} NpOperand;
/* false (nothing raised) when v is neither an array, a number nor a list or tuple. */
bool bi_np_is_arraylike(Value *v);
int bi_np_operand(Interp *I, Value *v, NpOperand *out);
void bi_np_operand_done(NpOperand *o);
/* The dtype a weak operand takes next to a strong dtype t (and its range check: numpy 2's
 * OverflowError for a Python int that does not fit); -1 with the error raised. */
int bi_np_weak_dtype(Interp *I, const NpOperand *weak, DType t, DType *out);
/* The result dtype of several operands, weak ones included. */
int bi_np_result_dtype(Interp *I, int n, const NpOperand *ops, DType *out);

/* ---- shapes and broadcasting (np/ops.c) ---- */
typedef struct NpShape {
  int ndim;
  int64_t dims[ND_MAX_DIMS];
} NpShape;

enum { NP_ITER_MAX = 4 };
/* Walks every element of a shape, keeping the element offset of up to NP_ITER_MAX operands
 * whose element strides are given (0 on broadcast axes). */
typedef struct NpIter {
  int ndim, n;
  int64_t dims[ND_MAX_DIMS], idx[ND_MAX_DIMS];
  int64_t strides[NP_ITER_MAX][ND_MAX_DIMS];
  int64_t off[NP_ITER_MAX];
} NpIter;
void bi_np_iter_init(NpIter *it, const NpShape *s, int n);
void bi_np_iter_next(NpIter *it); /* to the next element in row-major order */
/* Row-major element strides of a shape. */
void bi_np_strides(int ndim, const int64_t *dims, int64_t *strides);
/* Strides of contiguous array a read as broadcast to s (right-aligned, 0 where a has 1). */
void bi_np_bcast_strides(const NDArray *a, const NpShape *s, int64_t *strides);
/* numpy's broadcast of the shapes of n arrays: ValueError "operands could not be broadcast
 * together with shapes (2,3) (4,)" otherwise. */
int bi_np_broadcast(Interp *I, int n, NDArray *const *arrs, NpShape *out);
/* a broadcast to shape s as a new contiguous array of dtype t. */
NDArray *bi_np_broadcast_to(Interp *I, const NDArray *a, const NpShape *s, DType t);
void bi_np_shape_of(const NDArray *a, NpShape *s);
/* "(2, 3)" as Python prints a shape tuple. */
void bi_np_shape_str(StrBuf *b, int ndim, const int64_t *dims);

/* ---- elementwise operations (np/ops.c) ---- */
#define NP_BINOPS(X)                                                                               \
  X(ADD, "add")                                                                                    \
  X(SUB, "subtract") X(MUL, "multiply") X(DIV, "divide") X(FLOORDIV, "floor_divide")               \
      X(MOD, "remainder") X(POW, "power") X(AND, "bitwise_and") X(OR, "bitwise_or")                \
          X(XOR, "bitwise_xor") X(SHL, "left_shift") X(SHR, "right_shift") X(MAX, "maximum")       \
              X(MIN, "minimum") X(EQ, "equal") X(NE, "not_equal") X(LT, "less")                    \
                  X(LE, "less_equal") X(GT, "greater") X(GE, "greater_equal")
typedef enum {
#define NP_BINOP_ENUM(k, name) NPB_##k,
  NP_BINOPS(NP_BINOP_ENUM)
#undef NP_BINOP_ENUM
      NPB_COUNT
} NpBinOp;
extern const char *const bi_np_binop_names[NPB_COUNT];

#define NP_UNOPS(X)                                                                                \
  X(NEG, "negative")                                                                               \
  X(POS, "positive") X(ABS, "absolute") X(INVERT, "invert") X(EXP, "exp") X(LOG, "log")            \
      X(LOG2, "log2") X(LOG10, "log10") X(SQRT, "sqrt") X(TANH, "tanh") X(SIN, "sin")              \
          X(COS, "cos") X(FLOOR, "floor") X(CEIL, "ceil") X(RINT, "rint") X(TRUNC, "trunc")        \
              X(SIGN, "sign") X(SQUARE, "square") X(ISNAN, "isnan") X(ISINF, "isinf")              \
                  X(ISFINITE, "isfinite") X(NOT, "logical_not")
typedef enum {
#define NP_UNOP_ENUM(k, name) NPU_##k,
  NP_UNOPS(NP_UNOP_ENUM)
#undef NP_UNOP_ENUM
      NPU_COUNT
} NpUnOp;
extern const char *const bi_np_unop_names[NPU_COUNT];

/* a OP b on array-likes, with broadcasting and numpy's promotion: an array; a 0-d result is
 * a numpy scalar when an operand is an array (a scalar or 0-d array), else a Python number. */
Value *bi_np_binary(Interp *I, NpBinOp op, Value *a, Value *b);
NDArray *bi_np_binary_arr(Interp *I, NpBinOp op, Value *a, Value *b);
Value *bi_np_unary(Interp *I, NpUnOp op, Value *a);
/* np.where(cond, x, y). */
NDArray *bi_np_where3(Interp *I, Value *cond, Value *x, Value *y);
/* np.where(cond) and np.nonzero: a tuple of index arrays, one per axis (np/index.c). */
Value *bi_np_nonzero(Interp *I, Value *cond);

/* ---- reductions and products (np/reduce.c) ---- */
#define NP_REDUCES(X)                                                                              \
  X(SUM, "sum")                                                                                    \
  X(PROD, "prod") X(MAX, "max") X(MIN, "min") X(MEAN, "mean") X(ARGMAX, "argmax")                  \
      X(ARGMIN, "argmin") X(ALL, "all") X(ANY, "any")
typedef enum {
#define NP_RED_ENUM(k, name) NPR_##k,
  NP_REDUCES(NP_RED_ENUM)
#undef NP_RED_ENUM
      NPR_COUNT
} NpReduce;
/* a.sum(axis=None, keepdims=False) ...: a numpy scalar (bi_ndarray_scalar_wrap) for a full
 * reduction without keepdims, else an array. axis: None, an int or a tuple of ints; dtype NULL/None: numpy's. */
Value *bi_np_reduce(Interp *I, NpReduce r, Value *a, Value *axis, Value *keepdims, Value *dtype);
Value *bi_np_dot(Interp *I, Value *a, Value *b);
Value *bi_np_matmul(Interp *I, Value *a, Value *b);

/* ---- indexing and shape changes (np/index.c) ---- */
Value *bi_np_getitem(Interp *I, Value *self, Value *key);
int bi_np_setitem(Interp *I, Value *self, Value *key, Value *v);
/* Sets every element of a to v (a number or an array that broadcasts), as a[...] = v. */
int bi_np_fill(Interp *I, NDArray *a, Value *v);
/* a reshaped: ints with at most one -1. */
NDArray *bi_np_reshape(Interp *I, const NDArray *a, int n, const int64_t *dims);
/* a with its axes permuted (perm NULL: reversed). */
NDArray *bi_np_transpose(Interp *I, const NDArray *a, const int *perm);

/* np.pad(array, pad_width, mode='constant', constant_values=0) and np.concatenate. */
Value *bi_np_fn_pad(Interp *I, Value *self, Value **a);
Value *bi_np_fn_concatenate(Interp *I, Value *self, Value **a);

/* ---- picking and reordering along an axis (np/arrange.c) ---- */
/* The elements of a at the integer indices idx (any shape, negative counting from the end)
 * along axis ax: IndexError for one out of range. */
NDArray *bi_np_take(Interp *I, const NDArray *a, const NDArray *idx, int ax);
/* np.take(a, indices, axis=None), np.stack(arrays, axis=0), np.sort(a, axis=-1, kind=None),
 * np.argsort(a, axis=-1, kind=None). */
Value *bi_np_fn_take(Interp *I, Value *self, Value **a);
Value *bi_np_fn_stack(Interp *I, Value *self, Value **a);
Value *bi_np_fn_sort(Interp *I, Value *self, Value **a);
Value *bi_np_fn_argsort(Interp *I, Value *self, Value **a);

/* ---- .npy files (np/io.c) ---- */
Value *bi_np_fn_load(Interp *I, Value *self, Value **a);
Value *bi_np_fn_save(Interp *I, Value *self, Value **a);

/* ---- printing (np/print.c) ---- */
Value *bi_np_repr(Interp *I, const NDArray *a);
/* The repr with at most `precision` digits after the point (numpy's precision option). */
Value *bi_np_repr_precision(Interp *I, const NDArray *a, int precision);
Value *bi_np_str(Interp *I, const NDArray *a);
/* A numpy scalar's repr, numpy 2's: np.float32(0.1), np.int64(6), np.True_. */
Value *bi_np_scalar_repr(Interp *I, const NDArray *a);
/* A 0-d value as numpy's array2string prints it (assert_allclose's differences). */
void bi_np_format_value(StrBuf *b, DType t, NpScalar v);

/* ---- arguments (np/np.c) ---- */
/* An int, a 0-d integer array (numpy's int64 scalar), or what the int hook (np.h) takes: an
 * integer constant of te (a tensor's shape holds those). */
bool bi_np_int_of(Value *v, int64_t *out);
/* A shape: an int or a sequence of ints (int constant expressions of te too). */
int bi_np_shape_arg(Interp *I, Value *v, const char *fn, NpShape *out);
/* An axis number for an array of ndim dims, negative counting from the end; ValueError
 * "axis 2 is out of bounds for array of dimension 2" otherwise. */
int bi_np_axis(Interp *I, Value *v, int ndim, int *out);
/* The array of v, or v converted (*owned then true); NULL with TypeError naming fn. */
NDArray *bi_np_array_arg(Interp *I, Value *v, const char *fn, bool *owned);
/* np.h's device hooks: whether v is an array numpy may not read (the error then raised), and
 * host.copyto(target) for a target that is not a host array. */
bool bi_np_refused(Interp *I, Value *v);
Value *bi_np_copyto_elsewhere(Interp *I, Value *self, Value *target);
/* bool argument (NULL: dflt). */
int bi_np_bool_arg(Interp *I, Value *v, bool dflt, bool *out);

/* ---- the submodules (np/random.c, np/testing.c) ---- */
Value *bi_np_random_module(Interp *I);
Value *bi_np_testing_module(Interp *I);
/* np.allclose, np.isclose, np.array_equal. */
Value *bi_np_fn_allclose(Interp *I, Value *self, Value **a);
Value *bi_np_fn_isclose(Interp *I, Value *self, Value **a);
Value *bi_np_fn_array_equal(Interp *I, Value *self, Value **a);
/* numpy.testing.assert_allclose, shared with tvm.testing (default atol differs). */
Value *bi_np_assert_allclose(Interp *I, Value *actual, Value *desired, Value *rtol, Value *atol,
                             Value *equal_nan, Value *err_msg);

#endif
