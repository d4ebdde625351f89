/* tir_buffer.c: tvm.tir.decl_buffer and the Buffer value (SPEC §12): a flat view of memory
 * with a data pointer, a shape, strides and an element offset, as tensor intrinsics declare
 * the operands they bind (te.decl_tensor_intrin) and read through access_ptr and vload. The
 * value points at an ir Buffer of the session's arena and owns nothing. */
#include <stdio.h>
#include <string.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir.h"
#include "ir/arith/arith.h"

extern const ObjClass bi_tir_buffer_class;

Value *bi_tir_wrap_buffer(Buffer *b) { return val_obj_new(&bi_tir_buffer_class, b); }
Buffer *bi_tir_buffer_of(Value *v) { return val_obj_of(v, &bi_tir_buffer_class); }

static Buffer *buf_at(Value *self) { return self->u.obj.p; }

/* ---- decl_buffer ---- */

static char *joined(Arena *a, const char *x, const char *y) {
  size_t n = strlen(x) + strlen(y) + 1;
  char *s = arena_alloc(a, n);
  snprintf(s, n, "%s%s", x, y);
  return s;
}

static int int_arg(Interp *I, Value *v, const char *arg, int dflt, int *out) {
  if (!v || v->kind == VAL_NONE) return *out = dflt, 0;
  if (v->kind != VAL_INT) {
    interp_raise(I, EXC_TypeError, "decl_buffer: %s must be an int, not '%s'", arg,
                 val_type_name(v));
    return -1;
  }
  *out = (int)v->u.i;
  return 0;
}

/* decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None,
 * elem_offset=None, scope="", data_alignment=-1, offset_factor=0): as TVM's, an offset_factor
 * without an elem_offset makes the offset a variable NAME_elem_offset, to be bound where the
 * buffer is (tensorize); data_alignment <= 0 is the allocator's 64 bytes, offset_factor 0 is 1. */
static Value *fn_decl_buffer(Interp *I, Value *self, Value **a) {
  Arena *ar = arena(I);
  Buffer *b = arena_alloc(ar, sizeof *b);
  int nstrides = 0, align, factor;
  Expr **strides = NULL;
  DType t;
  const char *name = bi_te_str_arg(I, a[2], "decl_buffer", "name", "buffer");
  const char *scope = name ? bi_te_str_arg(I, a[6], "decl_buffer", "scope", "") : NULL;
  if (!scope || bi_te_shape_arg(I, a[0], "decl_buffer", &b->ndim, &b->shape) < 0 ||
      bi_te_dtype_arg(I, a[1], "decl_buffer", "dtype", DT_F32, &t) < 0 ||
      int_arg(I, a[7], "data_alignment", -1, &align) < 0 ||
      int_arg(I, a[8], "offset_factor", 0, &factor) < 0)
    return NULL;
  if (factor < 0)
    return interp_raise(I, EXC_ValueError, "decl_buffer: offset_factor must not be negative (%d)",
                        factor);
  if (a[4] && a[4]->kind != VAL_NONE) {
    if (bi_te_shape_arg(I, a[4], "decl_buffer", &nstrides, &strides) < 0) return NULL;
    if (nstrides != b->ndim)
      return interp_raise(I, EXC_ValueError,
                          "decl_buffer: %d strides for a buffer of %d dimensions", nstrides,
                          b->ndim);
  }
  b->name = arena_strndup(ar, name, strlen(name));
  b->dtype = t;
  b->strides = nstrides ? strides : NULL;
  b->scope = *scope ? arena_strndup(ar, scope, strlen(scope)) : "global";
  b->data_alignment = align > 0 ? align : 64;
  b->offset_factor = factor ? factor : 1;
  if (a[3] && a[3]->kind != VAL_NONE) {
    Expr *d = bi_te_expr_of(a[3]);
    if (!d || d->kind != EXPR_VAR || d->dtype.code != DT_HANDLE)
      return interp_raise(I, EXC_TypeError, "decl_buffer: data must be a handle Var, not '%s'",
                          val_type_name(a[3]));
    b->data = d->u.var;
  } else {
    b->data = ir_var(ar, b->name, DT_HANDLE64);
  }
  if (a[5] && a[5]->kind != VAL_NONE) {
    Expr *e = bi_te_to_expr(I, a[5], "decl_buffer: elem_offset");
    if (!e) return NULL;
    if (!dt_is_int(e->dtype) || e->dtype.lanes != 1)
      return interp_raise(I, EXC_TypeError, "decl_buffer: elem_offset must be an integer");
    b->elem_offset = ir_is_const_int(e, 0) ? NULL : e;
  } else if (factor != 0) {
    DType it = b->ndim ? b->shape[0]->dtype : DT_I32;
    b->elem_offset = ir_varref(ar, ir_var(ar, joined(ar, b->name, "_elem_offset"), it));
  }
  return bi_tir_wrap_buffer(b);
}

/* ---- properties ---- */

static Value *buf_data(Interp *I, Value *self) {
  return bi_te_wrap_expr(ir_varref(arena(I), buf_at(self)->data));
}

static Expr *elem_offset(Interp *I, const Buffer *b) {
  return b->elem_offset ? b->elem_offset : ir_i32(arena(I), 0);
}

static Value *buf_elem_offset(Interp *I, Value *self) {
  return bi_te_wrap_expr(elem_offset(I, buf_at(self)));
}

static Value *buf_shape(Interp *I, Value *self) {
  return bi_te_expr_list(buf_at(self)->ndim, buf_at(self)->shape);
}

static Value *buf_strides(Interp *I, Value *self) {
  const Buffer *b = buf_at(self);
  return b->strides ? bi_te_expr_list(b->ndim, b->strides) : val_list_new(0);
}

static Value *buf_dtype(Interp *I, Value *self) { return bi_te_dtype_str(buf_at(self)->dtype); }
static Value *buf_name(Interp *I, Value *self) { return val_cstr(buf_at(self)->name); }
static Value *buf_scope(Interp *I, Value *self) { return val_cstr(buf_at(self)->scope); }
static Value *buf_offset_factor(Interp *I, Value *self) {
  return val_int(buf_at(self)->offset_factor);
}
static Value *buf_data_alignment(Interp *I, Value *self) {
  return val_int(buf_at(self)->data_alignment);
}

static const Property buffer_props[] = {
    {"data", buf_data, "the pointer to the first element, a handle Var"},
    {"elem_offset", buf_elem_offset, "where the buffer starts in data, in elements"},
    {"shape", buf_shape, "the extent of each dimension, a list of PrimExpr"},
    {"strides", buf_strides, "the stride of each dimension ([]: compact row-major)"},
    {"dtype", buf_dtype, "the element type, a str"},
    {"name", buf_name, "the buffer's name"},
    {"scope", buf_scope, "the storage scope: global, shared, local, wmma.matrix_a ..."},
    {"offset_factor", buf_offset_factor, "elem_offset is a multiple of it"},
    {"data_alignment", buf_data_alignment, "the alignment of data, in bytes"},
    {0},
};

/* ---- methods ---- */

/* Index arithmetic as TVM's operators build it, constants folded (16*16 is 256). */
static Expr *arith(Interp *I, ExprKind k, Expr *x, Expr *y) {
  Expr *e = bi_te_binary_exprs(I, k == EXPR_ADD ? TE_ADD : k == EXPR_MUL ? TE_MUL : TE_FLOORDIV,
                               x, y);
  return e && e->kind == k ? arith_binary(arena(I), k, e->u.bin.a, e->u.bin.b) : e;
}
static Expr *add(Interp *I, Expr *x, Expr *y) { return arith(I, EXPR_ADD, x, y); }
static Expr *mul(Interp *I, Expr *x, Expr *y) { return arith(I, EXPR_MUL, x, y); }

/* The element count the buffer spans: strides[0]*shape[0], or the product of the shape. */
static Expr *extent_of(Interp *I, const Buffer *b) {
  if (!b->ndim) return ir_i32(arena(I), 1);
  if (b->strides) return mul(I, b->strides[0], b->shape[0]);
  Expr *n = b->shape[0];
  for (int d = 1; n && d < b->ndim; d++) n = mul(I, n, b->shape[d]);
  return n;
}

static int mask_arg(Interp *I, Value *v, int64_t *out) {
  if (v->kind == VAL_INT && v->u.i >= 1 && v->u.i <= 3) return *out = v->u.i, 0;
  if (v->kind == VAL_STR) {
    const char *s = v->u.str.s;
    *out = 0;
    for (; *s; s++) {
      if (*s == 'r') *out |= 1;
      else if (*s == 'w') *out |= 2;
      else break;
    }
    if (!*s && *out) return 0;
  }
  interp_raise(I, EXC_ValueError,
               "access_ptr: access_mask must be \"r\", \"w\", \"rw\" or 1, 2, 3, not %s",
               val_type_name(v));
  return -1;
}

/* @tir.tvm_access_ptr(@tir.type_annotation(, dtype=T), data, elem_offset + offset, extent,
 * mask): TVM's Buffer.access_ptr; content_lanes > 1 counts in vectors of that many lanes. */
static Value *buf_access_ptr(Interp *I, Value *self, Value **a) {
  Arena *ar = arena(I);
  Buffer *b = buf_at(self);
  int64_t mask, lanes = 1;
  DType ptr_type = DT_HANDLE64; /* the call's own dtype: VTA's intrinsics take "int32" */
  if (mask_arg(I, a[0], &mask) < 0) return NULL;
  if (a[1] && a[1]->kind != VAL_NONE &&
      (a[1]->kind != VAL_STR ||
       (strcmp(a[1]->u.str.s, "handle") != 0 && !dt_parse(a[1]->u.str.s, &ptr_type))))
    return interp_raise(I, EXC_ValueError, "access_ptr: ptr_type must be \"handle\" or a dtype");
  if (a[2] && a[2]->kind != VAL_NONE) {
    if (a[2]->kind != VAL_INT || a[2]->u.i < 1 || a[2]->u.i > 64)
      return interp_raise(I, EXC_ValueError,
                          "access_ptr: content_lanes must be an int from 1 to 64");
    lanes = a[2]->u.i;
  }
  Expr *extent = extent_of(I, b);
  Expr *off = elem_offset(I, b);
  DType et = b->dtype;
  if (extent && lanes > 1) {
    et.lanes = (uint16_t)lanes;
    extent = arith(I, EXPR_FLOORDIV, extent, ir_int(ar, extent->dtype, lanes));
    off = off ? arith(I, EXPR_FLOORDIV, off, ir_int(ar, off->dtype, lanes)) : NULL;
  }
  if (a[3] && a[3]->kind != VAL_NONE) {
    Expr *o = bi_te_to_expr(I, a[3], "access_ptr: offset");
    off = o && off ? add(I, off, o) : NULL;
  }
  if (!extent || !off) return NULL;
  Expr *anno = ir_call(ar, et, "tir.type_annotation", CALL_PURE, 0, NULL);
  Expr *args[5] = {anno, ir_varref(ar, b->data), off, extent, ir_i32(ar, mask)};
  return bi_te_wrap_expr(ir_call(ar, ptr_type, "tir.tvm_access_ptr", CALL_PURE, 5, args));
}

/* The flat index of begin (relative to elem_offset, which a load or store of the buffer
 * adds itself): sum(begin[i]*strides[i]), or row-major over the shape. */
static Expr *flat_index(Interp *I, const Buffer *b, Value *begin, const char *fn) {
  Value **items = &begin;
  int64_t n = 1;
  if (begin->kind == VAL_TUPLE || begin->kind == VAL_LIST) items = begin->u.list->items,
                                                           n = VAL_SEQ_N(begin);
  if (n != b->ndim)
    return BI_TE_RAISE(I, EXC_ValueError, "%s: %lld indices for buffer %s of %d dimensions", fn,
                        (long long)n, b->name, b->ndim);
  char what[48];
  snprintf(what, sizeof what, "%s: an index", fn);
  Expr *idx = NULL;
  for (int d = 0; d < n; d++) {
    Expr *i = bi_te_to_expr(I, items[d], what);
    if (!i) return NULL;
    if (b->strides) {
      i = mul(I, i, b->strides[d]);
      idx = idx ? add(I, idx, i) : i;
    } else {
      idx = idx ? add(I, mul(I, idx, b->shape[d]), i) : i;
    }
    if (!idx) return NULL;
  }
  return idx ? idx : ir_i32(arena(I), 0);
}

static int load_dtype(Interp *I, const Buffer *b, Value *v, DType *out) {
  *out = b->dtype;
  if (!v || v->kind == VAL_NONE) return 0;
  if (v->kind != VAL_STR || !dt_parse(v->u.str.s, out) || out->code != b->dtype.code ||
      out->bits != b->dtype.bits) {
    interp_raise(I, EXC_ValueError, "vload: dtype must be buffer %s's element type or a vector "
                                    "of it", b->name);
    return -1;
  }
  return 0;
}

/* An index for `lanes` consecutive elements from idx. */
static Expr *lanes_index(Interp *I, Expr *idx, int lanes) {
  if (lanes == 1) return idx;
  return ir_ramp(arena(I), idx, ir_int(arena(I), idx->dtype, 1), lanes);
}

static Value *buf_vload(Interp *I, Value *self, Value **a) {
  Buffer *b = buf_at(self);
  DType t;
  Expr *idx = flat_index(I, b, a[0], "vload");
  if (!idx || load_dtype(I, b, a[1], &t) < 0) return NULL;
  return bi_te_wrap_expr(ir_load(arena(I), b, lanes_index(I, idx, t.lanes), NULL));
}

static Value *buf_vstore(Interp *I, Value *self, Value **a) {
  Buffer *b = buf_at(self);
  Expr *idx = flat_index(I, b, a[0], "vstore");
  Expr *v = idx ? bi_te_to_expr_as(I, a[1], b->dtype, "vstore: value") : NULL;
  if (!v) return NULL;
  if (v->dtype.code != b->dtype.code || v->dtype.bits != b->dtype.bits) {
    char x[32], y[32];
    return interp_raise(I, EXC_TypeError, "vstore: a %s value into buffer %s of %s",
                        dt_name(v->dtype, x), b->name, dt_name(b->dtype, y));
  }
  Stmt *s = ir_store(arena(I), b, v, lanes_index(I, idx, v->dtype.lanes), NULL);
  return bi_tir_wrap_stmt(s);
}

static const Builtin buffer_methods[] = {
    {"access_ptr", buf_access_ptr, 1,
     PARAMS("access_mask", "ptr_type", "content_lanes", "offset"),
     "access_ptr(access_mask, ptr_type='handle', content_lanes=1, offset=0) -> PrimExpr: "
     "@tir.tvm_access_ptr to the buffer's elements, mask \"r\", \"w\" or \"rw\""},
    {"vload", buf_vload, 1, PARAMS("begin", "dtype"),
     "vload(begin, dtype=None) -> PrimExpr: the element at indices begin (a vector dtype "
     "loads that many from there)"},
    {"vstore", buf_vstore, 2, PARAMS("begin", "value"),
     "vstore(begin, value) -> Stmt: stores value at indices begin"},
    {0},
};

static Value *buffer_repr(Interp *I, Value *self) {
  const Buffer *b = buf_at(self);
  StrBuf s = STRBUF_INIT;
  char dt[32];
  sb_printf(&s, "buffer(%s, %s, [", b->name, dt_name(b->dtype, dt));
  for (int d = 0; d < b->ndim; d++) {
    if (d) sb_puts(&s, ", ");
    ir_print_expr(&s, b->shape[d]);
  }
  sb_puts(&s, "])");
  return val_str_sb(&s);
}

static Value *buffer_compare(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  if ((op != CMP_EQ && op != CMP_NE) || a->kind != VAL_OBJ || b->kind != VAL_OBJ ||
      a->u.obj.cls != b->u.obj.cls)
    return NULL;
  return val_bool((a->u.obj.p == b->u.obj.p) == (op == CMP_EQ));
}

const ObjClass bi_tir_buffer_class = {
    .type = {"Buffer", NULL, VAL_OBJ, NULL},
    .repr = buffer_repr,
    .compare = buffer_compare,
    .methods = buffer_methods,
    .props = buffer_props,
};

const Builtin bi_tir_buffer_funcs[] = {
    {"decl_buffer", fn_decl_buffer, 1,
     PARAMS("shape", "dtype", "name", "data", "strides", "elem_offset", "scope",
            "data_alignment", "offset_factor"),
     "decl_buffer(shape, dtype='float32', name='buffer', data=None, strides=None, "
     "elem_offset=None, scope='', data_alignment=-1, offset_factor=0) -> Buffer"},
    {0},
};

int bi_tir_buffer_init(Interp *I, Value *m) {
  for (const Builtin *f = bi_tir_buffer_funcs; f->name; f++)
    bi_set_member_take(m, f->name, val_builtin(f, NULL));
  bi_set_member_take(m, bi_tir_buffer_class.type.name, val_type(&bi_tir_buffer_class.type));
  return 0;
}
