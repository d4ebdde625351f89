/* module_args.c: calling a built Module. Every argument is checked against its parameter (an
 * array, on the CPU, or for a cuda module all on one CUDA device, of the dtype, rank and shape
 * declared; shape variables bound by the first dimension that has them and checked against
 * the rest) before NAME_packed runs (or the kernels launch, module_cuda.c); a failed assert in
 * the kernel is a RuntimeError with its message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "jit/cuda_driver.h"
#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"
#include "frontend/tvm/vta_runtime.h"
#include "frontend/np/ndarray.h"

int bi_module_shape_index(const Built *m, const Var *v) {
  for (int i = 0; i < m->nshape; i++)
    if (m->shape[i] == v) return i;
  return -1;
}

bool bi_module_var_value(const Built *m, const Binding *bd, const HostEnv *env, const Var *v,
                   int64_t *out) {
  for (int i = env ? env->n - 1 : -1; i >= 0; i--)
    if (env->vars[i] == v) return *out = env->vals[i], true;
  int k = bi_module_shape_index(m, v);
  return k >= 0 && bd->set[k] ? (*out = bd->vals[k], true) : false;
}

/* An integer or boolean expression's value once its variables are bound; false when it has
 * something else. */
bool bi_module_eval(const Built *m, const Binding *bd, const HostEnv *env, const Expr *e,
                    int64_t *out) {
  int64_t a, b;
  if (e->kind == EXPR_INT) return *out = e->u.ival, true;
  if (e->kind == EXPR_VAR) return bi_module_var_value(m, bd, env, e->u.var, out);
  if (e->kind == EXPR_CAST)
    return dt_is_int(e->dtype) && bi_module_eval(m, bd, env, e->u.unary.a, out);
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.likely") == 0 && e->u.call.n == 1)
    return bi_module_eval(m, bd, env, e->u.call.args[0], out);
  if (e->kind == EXPR_NOT)
    return bi_module_eval(m, bd, env, e->u.unary.a, &a) && (*out = !a, true);
  if (e->kind < EXPR_ADD || e->kind > EXPR_OR) return false;
  if (!bi_module_eval(m, bd, env, e->u.bin.a, &a) || !bi_module_eval(m, bd, env, e->u.bin.b, &b))
    return false;
  switch (e->kind) {
  case EXPR_ADD: return !__builtin_add_overflow(a, b, out);
  case EXPR_SUB: return !__builtin_sub_overflow(a, b, out);
  case EXPR_MUL: return !__builtin_mul_overflow(a, b, out);
  case EXPR_MIN: return *out = a < b ? a : b, true;
  case EXPR_MAX: return *out = a > b ? a : b, true;
  case EXPR_EQ: return *out = a == b, true;
  case EXPR_NE: return *out = a != b, true;
  case EXPR_LT: return *out = a < b, true;
  case EXPR_LE: return *out = a <= b, true;
  case EXPR_GT: return *out = a > b, true;
  case EXPR_GE: return *out = a >= b, true;
  case EXPR_AND: return *out = a && b, true;
  case EXPR_OR: return *out = a || b, true;
  default: break;
  }
  if (b == 0 || (a == INT64_MIN && b == -1)) return false;
  if (e->kind == EXPR_DIV) return *out = a / b, true;
  if (e->kind == EXPR_MOD) return *out = a % b, true;
  int64_t q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  return *out = e->kind == EXPR_FLOORDIV ? q : a - q * b, true;
}

bool bi_module_eval_shape(const Built *m, const Binding *bd, const Expr *e, int64_t *out) {
  return bi_module_eval(m, bd, NULL, e, out);
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

/* Where the function runs: cpu(0), or for a cuda module the device of its first array. */
static void run_device(const Built *m, NDArray *first, NDDevice *type, int *id) {
  *type = m->cuda ? ND_CUDA : m->vta ? ND_EXT_DEV : ND_CPU;
  *id = m->cuda && first && first->device == ND_CUDA ? first->device_id : 0;
}

static NDArray *check_array(Interp *I, const Built *m, int i, Value *v, NDArray *first) {
  NDArray *a = bi_nd_any_of(v);
  const Buffer *p = m->f->params[i];
  char want[32], got[32];
  StrBuf b = STRBUF_INIT;
  NDDevice type;
  int id;
  run_device(m, first ? first : a, &type, &id);
  if (!a)
    sb_printf(&b, "expected an array, not '%s'", val_type_name(v));
  else if (a->device != type || a->device_id != id)
    sb_printf(&b, "the array is on %s(%d), and this function runs on %s(%d)%s",
              bi_device_name(a->device), a->device_id, bi_device_name(type), id,
              (m->cuda || m->vta) && a->device == ND_CPU
                  ? " (copy it there with tvm.nd.array(x, dev))"
                  : "");
  else if (a->device == ND_CPU && (uintptr_t)a->data % 64 != 0)
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
static void bind_var(const Built *m, Binding *bd, const Expr *e, int64_t v) {
  int k = e && e->kind == EXPR_VAR ? bi_module_shape_index(m, e->u.var) : -1;
  if (k >= 0 && !bd->set[k]) bd->vals[k] = v, bd->set[k] = true;
}

/* The stride of dimension d of a compact array (arrays are always compact here). */
static int64_t compact_stride(const NDArray *a, int d) {
  int64_t s = 1;
  for (int j = a->ndim - 1; j > d; j--) s *= a->shape[j];
  return s;
}

static void bind_dims(const Built *m, NDArray **arrays, Binding *bd) {
  for (int i = 0; i < m->f->nparams; i++) {
    const Buffer *p = m->f->params[i];
    for (int d = 0; d < arrays[i]->ndim; d++) bind_var(m, bd, p->shape[d], arrays[i]->shape[d]);
    /* a bound buffer's (tvm.build's binds) variable strides and offset: the array's */
    for (int d = 0; p->strides && d < arrays[i]->ndim; d++)
      bind_var(m, bd, p->strides[d], compact_stride(arrays[i], d));
    bind_var(m, bd, p->elem_offset, 0);
  }
}

/* A bound buffer's strides, offset and alignment must be the array's. */
static int check_layout(Interp *I, const Built *m, int i, const NDArray *a, Binding *bd) {
  const Buffer *p = m->f->params[i];
  StrBuf b = STRBUF_INIT;
  int64_t v;
  for (int d = 0; p->strides && d < a->ndim && !b.len; d++)
    if (!bi_module_eval_shape(m, bd, p->strides[d], &v) || v != compact_stride(a, d))
      sb_printf(&b, "the buffer's stride %d is not the array's (%lld: arrays are compact)", d,
                (long long)compact_stride(a, d));
  if (!b.len && p->elem_offset && (!bi_module_eval_shape(m, bd, p->elem_offset, &v) || v != 0))
    sb_puts(&b, "the buffer's elem_offset is not 0, where the array starts");
  if (!b.len && a->device == ND_CPU && p->data_alignment > 0 &&
      (uintptr_t)a->data % (uintptr_t)p->data_alignment != 0)
    sb_printf(&b, "the array's data is not %d-byte aligned, as the buffer declares",
              p->data_alignment);
  if (!b.len) return 0;
  arg_error(I, m, i, sb_cstr(&b));
  sb_free(&b);
  return -1;
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
      if (!bi_module_eval_shape(m, bd, m->f->params[i]->shape[d], &want)) {
        shape_error(I, m, i, arrays[i], "a dimension no other argument determines");
        return -1;
      }
      if (want != arrays[i]->shape[d]) {
        shape_error(I, m, i, arrays[i], NULL);
        return -1;
      }
    }
  for (int i = 0; i < m->f->nparams; i++)
    if (check_layout(I, m, i, arrays[i], bd) < 0) return -1;
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



void bi_args_free(Args *a) {
  free(a->slots);
  free(a->ptrs);
  free(a->i64);
  free(a->i32);
  free(a->bd.vals);
  free(a->bd.set);
}

int bi_module_prepare(Interp *I, const Built *m, int n, Value **v, Args *out) {
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
                {xcalloc((size_t)ns + 1, 8), xcalloc((size_t)ns + 1, 1)},
                0,
                v,
                np};
  NDArray **arrays = xcalloc((size_t)np + 1, sizeof *arrays);
  int rc = 0;
  for (int i = 0; i < np && rc == 0; i++)
    if (!(arrays[i] = check_array(I, m, i, v[i], i ? arrays[0] : NULL))) rc = -1;
  out->device_id = rc == 0 && np ? arrays[0]->device_id : 0;
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
  if (rc) bi_args_free(out);
  return rc;
}

int bi_module_run(Interp *I, Built *m, Args *a) {
  if (m->cuda) return bi_module_cuda_run(I, m, a);
  if (m->vta && bi_vta_enter(I, m) < 0) return -1;
  void *saved = bi_packed_enter(I, a);
  int32_t rc = m->packed(a->slots);
  bi_packed_leave(saved);
  if (m->vta && bi_vta_leave(I, m, rc == 0) < 0) return -1;
  if (rc == 0) return 0;
  /* a function call_packed ran raised: its exception is the error */
  if (rc == CG_LLVM_ERR_PACKED && interp_error_pending(I)) return -1;
  if (rc == CG_LLVM_ERR_INTERRUPTED) { /* Ctrl-C stopped it; the flag is still set */
    tes_interrupted = 0;
    interp_raise(I, EXC_KeyboardInterrupt, "interrupted");
    return -1;
  }
  char buf[64];
  interp_raise(I, rc == CG_LLVM_ERR_NOMEM ? EXC_MemoryError : EXC_RuntimeError, "%s: %s", m->name,
               m->code ? bi_llvm->error_message(m->code, rc, buf)
                       : (snprintf(buf, sizeof buf, "error code %d", (int)rc), buf));
  return -1;
}

int bi_module_runnable(Interp *I, const Built *m) {
  if (m->packed) return 0;
  if (m->cuda && !m->kernels) {
    interp_raise(I, EXC_RuntimeError,
                 "%s: this is the module of the kernels (imported_modules[0]); call the module "
                 "tvm.build gave, which launches them",
                 m->name);
    return -1;
  }
  if (m->cuda) {
    if (cuda_device_count() > 0) return 0;
    interp_raise(I, EXC_RuntimeError, "%s: no CUDA device (%s)", m->name, cuda_driver_error());
    return -1;
  }
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

Value *bi_module_call(Interp *I, Value *self, CallArgs *args) {
  Built *m = built_of(self);
  if (args->nkw) return interp_raise(I, EXC_TypeError, "%s: takes no keyword arguments", m->name);
  Args a;
  if (bi_module_runnable(I, m) < 0 || bi_module_prepare(I, m, args->n, args->v, &a) < 0) return NULL;
  int rc = bi_module_run(I, m, &a);
  bi_args_free(&a);
  return rc < 0 ? NULL : val_none();
}
