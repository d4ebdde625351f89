/* packed_func.c: TES functions that kernels call (SPEC §12): tvm.register_func,
 * tvm.get_global_func and tvm.tir.call_packed. Generated code reaches them through the
 * runtime's rt_call_packed (jit/runtime.h), whose hook is here: it runs the registered function
 * on the interpreter that called the Module, on that thread only (a parallel loop's worker
 * cannot run TES code), with the call's scalars and strs as arguments, and a handle that is the
 * data of one of the Module call's arrays as that array. An exception stays
 * pending and the kernel returns early. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/llvm/codegen_llvm.h"
#include "frontend/lang/interp_impl.h"
#include "frontend/np/ndarray.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"

/* The Module call in progress on this process: the interpreter, its thread and the call's
 * arguments (a handle argument that is one of their arrays' data is passed as that array). */
typedef struct PackedCall {
  Interp *I;
  pthread_t thread;
  Args *args;
} PackedCall;

static PackedCall cur;

void *bi_packed_enter(Interp *I, Args *a) {
  PackedCall *saved = xmalloc(sizeof *saved);
  *saved = cur;
  cur = (PackedCall){I, pthread_self(), a};
  return saved;
}

void bi_packed_leave(void *saved) {
  cur = *(PackedCall *)saved;
  free(saved);
}

/* The argument array whose data starts at p, or NULL. */
static Value *array_at(int64_t p) {
  Args *a = cur.args;
  for (int i = 0; a && i < a->narrays; i++)
    if ((intptr_t)a->ptrs[i] == p) return val_incref(a->arrays[i]);
  return NULL;
}

static Value *registry(Interp *I) {
  if (!I->packed_funcs) I->packed_funcs = val_dict_new();
  return I->packed_funcs;
}

/* A buffer the kernel passes (CG_LLVM_ARG_ARRAY): the call's array when it is one of them,
 * whole; otherwise a new array holding a copy of the buffer's elements, which *back is set to
 * copy into the buffer once the function returns (the interpreter's arrays own their data,
 * so an intermediate buffer goes in and out by copy). NULL for a buffer too large to copy. */
static Value *array_value(const int64_t *w, NDArray **back, void **back_data) {
  DType t = DT_MAKE((int)(w[CG_LLVM_ARRAY_DTYPE] & 0xff), (int)(w[CG_LLVM_ARRAY_DTYPE] >> 8 & 0xff),
                    (int)(w[CG_LLVM_ARRAY_DTYPE] >> 16 & 0xffff));
  int nd = (int)w[CG_LLVM_ARRAY_NDIM];
  if (nd < 0 || nd > ND_MAX_DIMS) return NULL;
  char *data = (char *)(intptr_t)w[CG_LLVM_ARRAY_DATA] +
               w[CG_LLVM_ARRAY_OFFSET] * (int64_t)nd_elem_bytes(t);
  const int64_t *shape = w + CG_LLVM_ARRAY_SHAPE;
  Args *a = cur.args;
  for (int i = 0; a && i < a->narrays; i++) {
    const NDArray *x = bi_ndarray_of(a->arrays[i]);
    if ((char *)a->ptrs[i] != data || !x || x->ndim != nd || !dt_eq(x->dtype, t) ||
        memcmp(x->shape, shape, (size_t)nd * sizeof *shape) != 0)
      continue;
    return val_incref(a->arrays[i]);
  }
  NDArray *copy = nd_new(t, nd, shape);
  if (!copy) return NULL;
  memcpy(copy->data, data, nd_nbytes(copy));
  *back = copy;
  *back_data = data;
  return bi_ndarray_wrap(copy);
}

static Value *arg_value(int64_t v, int32_t code) {
  switch (code) {
  case CG_LLVM_ARG_INT:
    return val_int(v);
  case CG_LLVM_ARG_FLOAT: {
    double d;
    memcpy(&d, &v, sizeof d);
    return val_float(d);
  }
  case CG_LLVM_ARG_STR:
    return val_cstr((const char *)(intptr_t)v);
  case CG_LLVM_ARG_HANDLE:
    return array_at(v);
  default:
    return NULL;
  }
}

/* The result as the kernel reads it: an int's value, a float's bits; None is 0. */
static int result_bits(Interp *I, const char *name, Value *r, int64_t *ret) {
  if (r->kind == VAL_NONE) return 0;
  if (r->kind == VAL_INT || r->kind == VAL_BOOL) return *ret = r->u.i, 0;
  if (r->kind == VAL_FLOAT) return memcpy(ret, &r->u.f, sizeof *ret), 0;
  interp_raise(I, EXC_TypeError, "call_packed: '%s' returned '%s', not a number or None", name,
               val_type_name(r));
  return -1;
}

int32_t bi_packed_hook(const char *name, const int64_t *values, const int32_t *codes, int32_t n,
                       int64_t *ret) {
  Interp *I = cur.I;
  if (!I || !pthread_equal(cur.thread, pthread_self())) return CG_LLVM_ERR_PACKED;
  Value *fn = I->packed_funcs ? dict_get_sym(I->packed_funcs, sym_cstr(name)) : NULL;
  if (!fn) {
    interp_raise(I, EXC_RuntimeError, "call_packed: no function registered as '%s' "
                                      "(tvm.register_func)", name);
    return CG_LLVM_ERR_PACKED;
  }
  Value **args = xcalloc((size_t)n + 1, sizeof *args);
  NDArray **back = xcalloc((size_t)n + 1, sizeof *back);
  void **back_data = xcalloc((size_t)n + 1, sizeof *back_data);
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++)
    if (codes[i] == CG_LLVM_ARG_ARRAY) {
      if (!(args[i] = array_value((const int64_t *)(intptr_t)values[i], &back[i], &back_data[i]))) {
        interp_raise(I, EXC_RuntimeError, "call_packed('%s'): no memory for a copy of buffer "
                                         "argument %d", name, i + 1);
        rc = -1;
      }
    } else if (!(args[i] = arg_value(values[i], codes[i]))) {
      interp_raise(I, EXC_RuntimeError, "not supported yet: call_packed('%s') with a handle "
                                        "that is not the start of one of the call's arrays "
                                        "(argument %d)", name, i + 1);
      rc = -1;
    }
  Value *r = rc == 0 ? interp_callv(I, fn, n, args) : NULL;
  for (int i = 0; i < n; i++)
    if (r && back[i]) memcpy(back_data[i], back[i]->data, nd_nbytes(back[i]));
  for (int i = 0; i < n; i++) val_xdecref(args[i]);
  free(args);
  free(back);
  free(back_data);
  if (!r || result_bits(I, name, r, ret) < 0) rc = -1;
  val_xdecref(r);
  return rc ? CG_LLVM_ERR_PACKED : 0;
}

/* ---- tvm.register_func, tvm.get_global_func ---- */

static Value *register_as(Interp *I, const char *name, Value *f, bool over) {
  if (!val_is_callable(f))
    return interp_raise(I, EXC_TypeError, "register_func: f must be callable, not '%s'",
                        val_type_name(f));
  Sym *key = sym_cstr(name);
  if (!over && dict_get_sym(registry(I), key))
    return interp_raise(I, EXC_RuntimeError, "Global PackedFunc %s is already registered", name);
  dict_set_sym(registry(I), key, f);
  return val_incref(f);
}

/* What @tvm.register_func("name") applies to the function below it: registers it under the
 * name it holds and gives it back. */
typedef struct Registrar {
  char *name;
  bool over;
} Registrar;

static void registrar_free(void *p) {
  free(((Registrar *)p)->name);
  free(p);
}

static Value *registrar_call(Interp *I, Value *self, CallArgs *args) {
  const Registrar *r = self->u.obj.p;
  if (args->n != 1 || args->nkw)
    return interp_raise(I, EXC_TypeError, "register_func(\"%s\") takes the function to register",
                        r->name);
  return register_as(I, r->name, args->v[0], r->over);
}

static const ObjClass registrar_class = {
    .type = {"register_func", NULL, VAL_OBJ, NULL},
    .free = registrar_free,
    .call = registrar_call,
};

/* register_func(func_name, f=None, override=False), as TVM's: with f, registers it; without,
 * returns a decorator that does; a callable func_name is f, registered under its __name__. */
Value *bi_packed_register_func(Interp *I, Value *self, Value **a) {
  int over = a[2] ? val_truthy(I, a[2]) : 0;
  if (over < 0) return NULL;
  if (a[0]->kind == VAL_FUNC) {
    if (a[1] && a[1]->kind != VAL_NONE)
      return interp_raise(I, EXC_TypeError, "register_func: a function as func_name takes no f");
    return register_as(I, SYM_STR(a[0]->u.func->def->name), a[0], over);
  }
  const char *name = bi_te_str_arg(I, a[0], "register_func", "func_name", NULL);
  if (!name) return NULL;
  if (a[1] && a[1]->kind != VAL_NONE) return register_as(I, name, a[1], over);
  Registrar *r = xmalloc(sizeof *r);
  r->name = xstrdup(name);
  r->over = over;
  return val_obj_new(&registrar_class, r);
}

Value *bi_packed_get_global_func(Interp *I, Value *self, Value **a) {
  const char *name = bi_te_str_arg(I, a[0], "get_global_func", "name", NULL);
  if (!name) return NULL;
  Value *fn = I->packed_funcs ? dict_get_sym(I->packed_funcs, sym_cstr(name)) : NULL;
  if (fn) return val_incref(fn);
  int missing_ok = a[1] ? val_truthy(I, a[1]) : 0;
  if (missing_ok < 0) return NULL;
  if (missing_ok) return val_none();
  return interp_raise(I, EXC_ValueError, "Cannot find global function %s", name);
}

/* A Buffer as TVM's call_packed passes one (python/tvm/tir/op.py's _pack_buffer):
 * @tir.tvm_stack_make_array(data, @tir.tvm_stack_make_shape(shape...), strides or 0, ndim,
 * 0 of its dtype, elem_offset). */
static Expr *pack_buffer(Interp *I, const Buffer *b) {
  Arena *ar = arena(I);
  Expr *shape = ir_call(ar, DT_HANDLE64, "tir.tvm_stack_make_shape", CALL_PURE, b->ndim, b->shape);
  Expr *strides = b->strides ? ir_call(ar, DT_HANDLE64, "tir.tvm_stack_make_shape", CALL_PURE,
                                       b->ndim, b->strides)
                             : ir_i32(ar, 0);
  DType et = b->dtype;
  Expr *zero = dt_is_float(et) ? ir_float(ar, et, 0) : ir_int(ar, et, 0);
  Expr *args[6] = {ir_varref(ar, b->data), shape, strides, ir_i32(ar, b->ndim), zero,
                   b->elem_offset ? b->elem_offset : ir_i32(ar, 0)};
  return ir_call(ar, DT_HANDLE64, "tir.tvm_stack_make_array", CALL_PURE, 6, args);
}

/* tvm.tir.call_packed("name", *args): @tir.tvm_call_packed("name", args, dtype=int32). */
Value *bi_tir_call_packed(Interp *I, Value *self, Value **a) {
  Value *t = a[0];
  if (VAL_SEQ_N(t) < 1 || VAL_SEQ_ITEM(t, 0)->kind != VAL_STR)
    return interp_raise(I, EXC_TypeError, "call_packed: the first argument must be the "
                                          "function's name, a str");
  int n = (int)VAL_SEQ_N(t);
  Expr **args = arena_alloc(arena(I), (size_t)n * sizeof *args);
  for (int i = 0; i < n; i++) {
    char what[48];
    snprintf(what, sizeof what, "call_packed: argument %d", i + 1);
    const Buffer *buf = bi_tir_buffer_of(VAL_SEQ_ITEM(t, i));
    if (buf) {
      args[i] = pack_buffer(I, buf);
      continue;
    }
    if (!(args[i] = bi_tir_call_arg(I, VAL_SEQ_ITEM(t, i), what))) return NULL;
    if (args[i]->dtype.lanes > 1)
      return interp_raise(I, EXC_TypeError, "call_packed: argument %d is a vector", i + 1);
  }
  Expr *e = bi_te_shallow(I, ir_call(arena(I), DT_I32, "tir.tvm_call_packed", CALL_EFFECT, n,
                                     args));
  return e ? bi_te_wrap_expr(e) : NULL;
}
