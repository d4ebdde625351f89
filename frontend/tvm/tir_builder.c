/* tir_builder.c: tvm.tir.ir_builder (SPEC §12): a builder of statements by `emit` and `with`
 * scopes, as tensor intrinsics write their bodies. The builder keeps a stack of sequences, one
 * per open scope; an item is a statement, or a wrapper (allocate, attr, let) that covers
 * everything emitted after it in its scope, as TVM's callables do. Closing a scope folds its
 * sequence into one statement (TVM's _pop_seq). The nodes go to the session's IR arena; the
 * stacks are the builder's own, freed with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/tvm/te_impl.h"
#include "frontend/tvm/tir_impl.h"

typedef enum { ITEM_STMT, ITEM_ALLOCATE, ITEM_ATTR, ITEM_LET } ItemKind;

typedef struct Item {
  ItemKind kind;
  Stmt *stmt;      /* ITEM_STMT */
  Var *var;        /* ITEM_ALLOCATE (the buffer's data), ITEM_LET */
  DType dtype;     /* ITEM_ALLOCATE */
  int ndim;        /* ITEM_ALLOCATE */
  Expr **extents;  /* ITEM_ALLOCATE */
  const char *str; /* ITEM_ALLOCATE: the scope; ITEM_ATTR: the key */
  AttrNodeKind nkind;
  void *node;      /* ITEM_ATTR */
  Expr *value;     /* ITEM_ATTR, ITEM_LET */
} Item;

typedef struct Seq {
  Item *items;
  int n, cap;
} Seq;

typedef struct Builder {
  Seq *stack;
  int depth, cap;
  int nidx; /* loops named by default so far: i, j, k, then i_0, i_1 ... */
} Builder;

extern const ObjClass bi_tir_builder_class;
static const ObjClass scope_class, bufvar_class;

static Builder *builder_of(Value *v) { return v->u.obj.p; }

static void builder_free(void *p) {
  Builder *b = p;
  for (int i = 0; i < b->depth; i++) free(b->stack[i].items);
  free(b->stack);
  free(b);
}

static void push_scope(Builder *b) {
  VEC_GROW(NULL, b->stack, b->cap, b->depth + 1);
  b->stack[b->depth++] = (Seq){0};
}

static void add_item(Builder *b, Item it) {
  Seq *s = &b->stack[b->depth - 1];
  VEC_GROW(NULL, s->items, s->cap, s->n + 1);
  s->items[s->n++] = it;
}

static void emit_stmt(Builder *b, Stmt *s) { add_item(b, (Item){.kind = ITEM_STMT, .stmt = s}); }

static Stmt *wrap(Arena *a, const Item *it, Stmt *body) {
  switch (it->kind) {
  case ITEM_STMT:
    break;
  case ITEM_ALLOCATE:
    return ir_allocate(a, it->var, it->dtype, it->ndim, it->extents, it->str, NULL, body);
  case ITEM_ATTR:
    return ir_attr(a, it->nkind, it->node, it->str, it->value, body);
  case ITEM_LET:
    return ir_let_stmt(a, it->var, it->value, body);
  }
  TES_UNREACHABLE();
}

/* The innermost scope as one statement: the statements in order, each wrapper covering what
 * follows it; an empty scope, or one ending in a wrapper, ends with Evaluate(0) as in TVM. */
static Stmt *pop_seq(Arena *a, Builder *b) {
  Seq s = b->stack[--b->depth];
  Stmt **run = xmalloc((size_t)(s.n + 1) * sizeof *run);
  int nrun = 0;
  if (s.n == 0 || s.items[s.n - 1].kind != ITEM_STMT) run[nrun++] = ir_evaluate(a, ir_i32(a, 0));
  /* from the back: a wrapper takes the statements after it as its body */
  for (int i = s.n - 1; i >= 0; i--) {
    if (s.items[i].kind == ITEM_STMT) {
      run[nrun++] = s.items[i].stmt;
      continue;
    }
    for (int l = 0, r = nrun - 1; l < r; l++, r--) {
      Stmt *t = run[l];
      run[l] = run[r], run[r] = t;
    }
    Stmt *body = ir_seq(a, nrun, run);
    run[0] = wrap(a, &s.items[i], body);
    nrun = 1;
  }
  for (int l = 0, r = nrun - 1; l < r; l++, r--) {
    Stmt *t = run[l];
    run[l] = run[r], run[r] = t;
  }
  Stmt *out = ir_seq(a, nrun, run);
  free(run);
  free(s.items);
  return out;
}

/* ---- scopes: what `with` enters and leaves ---- */

typedef enum { WITH_FOR, WITH_IF, WITH_ELSE, WITH_NEW } WithKind;

typedef struct Scope {
  Value *builder; /* counted */
  WithKind kind;
  int depth;      /* the stack depth inside the scope: leaving checks it is innermost */
  bool entered, left;
  Var *var;       /* WITH_FOR */
  Expr *begin, *extent;
  ForKind fkind;
  Expr *cond;     /* WITH_IF, WITH_ELSE */
  Stmt *then;     /* WITH_ELSE */
} Scope;

static void scope_free(void *p) {
  Scope *s = p;
  val_decref(s->builder);
  free(s);
}

static Value *new_scope(Value *self, WithKind k) {
  Builder *b = builder_of(self);
  push_scope(b);
  Scope *s = xcalloc(1, sizeof *s);
  s->builder = val_incref(self);
  s->kind = k;
  s->depth = b->depth;
  return val_obj_new(&scope_class, s);
}

static Value *scope_enter(Interp *I, Value *self, Value **a) {
  Scope *s = self->u.obj.p;
  if (s->entered) return interp_raise(I, EXC_RuntimeError, "ir_builder: a scope is entered once");
  s->entered = true;
  return s->kind == WITH_FOR ? bi_te_wrap_expr(ir_varref(arena(I), s->var)) : val_none();
}

static Value *scope_exit(Interp *I, Value *self, Value **a) {
  Scope *s = self->u.obj.p;
  Builder *b = builder_of(s->builder);
  if (s->left || b->depth != s->depth)
    return interp_raise(I, EXC_RuntimeError, "ir_builder: scopes must be left innermost first");
  s->left = true;
  Stmt *body = pop_seq(arena(I), b);
  switch (s->kind) {
  case WITH_FOR:
    emit_stmt(b, ir_for(arena(I), s->var, s->begin, s->extent, s->fkind, NULL, body));
    break;
  case WITH_IF:
    emit_stmt(b, ir_if(arena(I), s->cond, body, NULL));
    break;
  case WITH_ELSE:
    emit_stmt(b, ir_if(arena(I), s->cond, s->then, body));
    break;
  case WITH_NEW:
    emit_stmt(b, body);
    break;
  }
  return val_none();
}

static const Builtin scope_methods[] = {
    {"__enter__", scope_enter, 0, NOPARAMS,
     "__enter__() -> the loop variable of a for_range, else None (`with` calls it)"},
    {"__exit__", scope_exit, 0, PARAMS("ptype", "value", "trace"),
     "__exit__(ptype, value, trace): close the scope, emitting its statement"},
    {0},
};

static const ObjClass scope_class = {
    .type = {"WithScope", NULL, VAL_OBJ, NULL},
    .free = scope_free,
    .methods = scope_methods,
};

/* ---- BufferVar: a pointer indexed like an array, A[i] a load, A[i] = v a store ---- */

typedef struct BufVar {
  Value *builder; /* counted */
  Buffer *buf;    /* flat: data, element dtype; shape for multi-dimensional indices */
  DType content;  /* the element type as given: "float32", "int8x4" */
} BufVar;

static void bufvar_free(void *p) {
  BufVar *bv = p;
  val_decref(bv->builder);
  free(bv);
}

static Value *new_bufvar(Value *builder, Buffer *buf, DType content) {
  BufVar *bv = xcalloc(1, sizeof *bv);
  bv->builder = val_incref(builder);
  bv->buf = buf;
  bv->content = content;
  return val_obj_new(&bufvar_class, bv);
}

/* a*b and a+b folding constants as TVM's operators do (x*1 is x, 0 + x is x). */
static Expr *fold(Interp *I, TeOp op, Expr *a, Expr *b) {
  int64_t x, y;
  bool ca = a->kind == EXPR_INT && ir_as_int(a, &x), cb = b->kind == EXPR_INT && ir_as_int(b, &y);
  if (ca && cb && dt_eq(a->dtype, b->dtype))
    return ir_int(arena(I), a->dtype, op == TE_MUL ? x * y : x + y);
  int64_t unit = op == TE_MUL ? 1 : 0;
  if (ca && x == unit) return b;
  if (cb && y == unit) return a;
  return bi_te_binary_exprs(I, op, a, b);
}

static Expr *index_arg(Interp *I, const Buffer *b, Value *v) {
  char dn[32];
  Expr *x = bi_te_to_expr(I, v, "ir_builder: an index");
  if (x && (!dt_is_int(x->dtype) || x->dtype.lanes != 1))
    return BI_TE_RAISE(I, EXC_TypeError, "%s: an index must be an integer, not %s", b->name,
                       dt_name(x->dtype, dn));
  return x;
}

/* The flat index of key: one index, or a tuple of one per dimension, row-major (summed from
 * the last dimension, as TVM's BufferVar does); a vector content type reads lanes consecutive
 * elements from index * lanes. */
static Expr *flat_index(Interp *I, BufVar *bv, Value *key) {
  Buffer *b = bv->buf;
  Expr *idx;
  if (key->kind == VAL_TUPLE && b->ndim > 0) {
    int64_t n = VAL_SEQ_N(key);
    if (n != b->ndim)
      return BI_TE_RAISE(I, EXC_IndexError, "%s: %lld indices for %d dimensions", b->name,
                         (long long)n, b->ndim);
    idx = ir_i32(arena(I), 0);
    Expr *size = ir_i32(arena(I), 1);
    for (int64_t i = n - 1; i >= 0 && idx; i--) {
      Expr *x = index_arg(I, b, VAL_SEQ_ITEM(key, i));
      if (!x || !(x = fold(I, TE_MUL, x, size)) || !(idx = fold(I, TE_ADD, idx, x))) return NULL;
      if (i > 0 && !(size = fold(I, TE_MUL, size, b->shape[i]))) return NULL;
    }
  } else {
    idx = index_arg(I, b, key);
  }
  if (!idx) return NULL;
  int lanes = bv->content.lanes;
  if (lanes == 1) return idx;
  Expr *base = fold(I, TE_MUL, idx, ir_int(arena(I), idx->dtype, lanes));
  return base ? ir_ramp(arena(I), base, ir_int(arena(I), idx->dtype, 1), lanes) : NULL;
}

static Value *bufvar_getitem(Interp *I, Value *self, Value *key) {
  BufVar *bv = self->u.obj.p;
  Expr *idx = flat_index(I, bv, key);
  return idx ? bi_te_wrap_expr(ir_load(arena(I), bv->buf, idx, NULL)) : NULL;
}

static int bufvar_setitem(Interp *I, Value *self, Value *key, Value *v) {
  BufVar *bv = self->u.obj.p;
  char x[32], y[32];
  Expr *value = bi_te_to_expr_as(I, v, bv->content, "ir_builder: a stored value");
  if (!value) return -1;
  if (!dt_eq(value->dtype, bv->content)) {
    interp_raise(I, EXC_ValueError, "data type does not match content type %s vs %s",
                 dt_name(value->dtype, x), dt_name(bv->content, y));
    return -1;
  }
  Expr *idx = flat_index(I, bv, key);
  if (!idx) return -1;
  emit_stmt(builder_of(bv->builder), ir_store(arena(I), bv->buf, value, idx, NULL));
  return 0;
}

static Value *bufvar_dtype(Interp *I, Value *self) {
  return bi_te_dtype_str(((BufVar *)self->u.obj.p)->content);
}

static Value *bufvar_data(Interp *I, Value *self) {
  return bi_te_wrap_expr(ir_varref(arena(I), ((BufVar *)self->u.obj.p)->buf->data));
}

static const Property bufvar_props[] = {
    {"dtype", bufvar_dtype, "the content type, a str"},
    {"data", bufvar_data, "the pointer variable (dtype handle)"},
    {0},
};

static Value *bufvar_repr(Interp *I, Value *self) {
  return val_cstr(((BufVar *)self->u.obj.p)->buf->data->name);
}

static const ObjClass bufvar_class = {
    .type = {"BufferVar", NULL, VAL_OBJ, NULL},
    .free = bufvar_free,
    .repr = bufvar_repr,
    .getitem = bufvar_getitem,
    .setitem = bufvar_setitem,
    .props = bufvar_props,
};

/* ---- the builder's methods ---- */

static Value *ib_emit(Interp *I, Value *self, Value **a) {
  Stmt *s = bi_tir_to_stmt(I, a[0], "emit: stmt");
  if (!s) return NULL;
  emit_stmt(builder_of(self), s);
  return val_none();
}

static Value *ib_get(Interp *I, Value *self, Value **a) {
  Builder *b = builder_of(self);
  if (b->depth != 1)
    return interp_raise(I, EXC_RuntimeError, "cannot call get inside construction scope");
  Stmt *s = pop_seq(arena(I), b);
  push_scope(b); /* the builder stays usable, empty */
  return bi_tir_wrap_stmt(s);
}

static int for_kind_arg(Interp *I, Value *v, ForKind *out) {
  const char *k = bi_te_str_arg(I, v, "for_range", "kind", "serial");
  if (!k) return -1;
  static const struct { const char *name; ForKind kind; } kinds[] = {
      {"serial", FOR_SERIAL}, {"parallel", FOR_PARALLEL}, {"vectorize", FOR_VECTORIZED},
      {"unroll", FOR_UNROLLED}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (strcmp(k, kinds[i].name) == 0) return *out = kinds[i].kind, 0;
  interp_raise(I, EXC_ValueError, "for_range: unknown kind '%s' (serial, parallel, vectorize "
                                  "or unroll)", k);
  return -1;
}

/* for_range(begin, end, name="i", dtype="int32", kind="serial"): the loop variable named i, j,
 * k, i_0 ... by default, as TVM names them. */
static Value *ib_for_range(Interp *I, Value *self, Value **a) {
  Builder *b = builder_of(self);
  Expr *begin, *end;
  DType t;
  ForKind fk;
  char name[32], dn[32];
  const char *nm = bi_te_str_arg(I, a[2], "for_range", "name", "i");
  if (!nm || bi_te_dtype_arg(I, a[3], "for_range", "dtype", DT_I32, &t) < 0 ||
      for_kind_arg(I, a[4], &fk) < 0 || bi_te_operands(I, a[0], a[1], "for_range", &begin, &end) < 0)
    return NULL;
  if (!dt_is_int(t) || !dt_is_int(begin->dtype) || begin->dtype.lanes != 1)
    return interp_raise(I, EXC_TypeError, "for_range: begin and end must be integers, not %s",
                        dt_name(begin->dtype, dn));
  begin = bi_te_cast(I, t, begin);
  end = bi_te_cast(I, t, end);
  if (!begin || !end) return NULL;
  int64_t lo, hi;
  Expr *extent = ir_is_const_int(begin, 0) ? end
                 /* Python's numbers subtract before TVM sees them */
                 : begin->kind == EXPR_INT && end->kind == EXPR_INT && ir_as_int(begin, &lo) &&
                           ir_as_int(end, &hi)
                     ? ir_int(arena(I), t, hi - lo)
                     : bi_te_binary_exprs(I, TE_SUB, end, begin);
  if (!extent) return NULL;
  if (strcmp(nm, "i") == 0) {
    if (b->nidx < 3) snprintf(name, sizeof name, "%c", 'i' + b->nidx);
    else snprintf(name, sizeof name, "i_%d", b->nidx - 3);
    b->nidx++;
    nm = name;
  }
  Value *v = new_scope(self, WITH_FOR);
  Scope *s = v->u.obj.p;
  s->var = ir_var(arena(I), nm, t);
  s->begin = begin;
  s->extent = extent;
  s->fkind = fk;
  return v;
}

static Value *ib_if_scope(Interp *I, Value *self, Value **a) {
  Expr *c = bi_te_cond_arg(I, a[0], "if_scope", "cond");
  if (!c) return NULL;
  Value *v = new_scope(self, WITH_IF);
  ((Scope *)v->u.obj.p)->cond = c;
  return v;
}

static Value *ib_else_scope(Interp *I, Value *self, Value **a) {
  Builder *b = builder_of(self);
  Seq *s = &b->stack[b->depth - 1];
  Item *prev = s->n ? &s->items[s->n - 1] : NULL;
  if (!prev || prev->kind != ITEM_STMT || prev->stmt->kind != STMT_IF || prev->stmt->u.if_.orelse)
    return interp_raise(I, EXC_RuntimeError, "else_scope can only follow an if_scope");
  Stmt *if_ = prev->stmt;
  s->n--;
  Value *v = new_scope(self, WITH_ELSE);
  ((Scope *)v->u.obj.p)->cond = if_->u.if_.cond;
  ((Scope *)v->u.obj.p)->then = if_->u.if_.then;
  return v;
}

static Value *ib_new_scope(Interp *I, Value *self, Value **a) { return new_scope(self, WITH_NEW); }

/* A flat buffer over data for a BufferVar: its shape for multi-dimensional indices. */
static Buffer *flat_buffer(Interp *I, Var *data, DType elem, int ndim, Expr **shape) {
  Buffer *buf = arena_alloc(arena(I), sizeof *buf);
  buf->name = data->name;
  buf->data = data;
  buf->dtype = elem;
  buf->ndim = ndim;
  buf->shape = shape;
  buf->scope = "global";
  return buf;
}

/* allocate(dtype, shape, name="buf", scope=""): an Allocate covering what follows in the
 * scope; the handle indexes it. */
static Value *ib_allocate(Interp *I, Value *self, Value **a) {
  DType t;
  char dn[32];
  const char *name = bi_te_str_arg(I, a[2], "allocate", "name", "buf");
  const char *scope = bi_te_str_arg(I, a[3], "allocate", "scope", "");
  if (!name || !scope) return NULL;
  if (!a[0] || a[0]->kind != VAL_STR || !dt_parse(a[0]->u.str.s, &t) || t.code == DT_HANDLE)
    return interp_raise(I, EXC_TypeError, "allocate: dtype must name an element type such as "
                                          "\"float32\"");
  Value *shp = a[1];
  bool seq = shp->kind == VAL_TUPLE || shp->kind == VAL_LIST;
  int64_t n = seq ? VAL_SEQ_N(shp) : 1;
  if (n < 1 || n > 64) return interp_raise(I, EXC_ValueError, "allocate: a shape of %lld "
                                                              "dimensions", (long long)n);
  Expr **ext = arena_alloc(arena(I), (size_t)n * sizeof *ext);
  for (int64_t i = 0; i < n; i++) {
    ext[i] = bi_te_to_expr(I, seq ? VAL_SEQ_ITEM(shp, i) : shp, "allocate: an extent");
    if (!ext[i]) return NULL;
    if (!dt_is_int(ext[i]->dtype) || ext[i]->dtype.lanes != 1)
      return interp_raise(I, EXC_TypeError, "allocate: extents must be integers, not %s",
                          dt_name(ext[i]->dtype, dn));
  }
  Var *data = ir_var(arena(I), name, DT_HANDLE64);
  add_item(builder_of(self), (Item){.kind = ITEM_ALLOCATE, .var = data, .dtype = t, .ndim = (int)n,
                                    .extents = ext, .str = scope});
  return new_bufvar(self, flat_buffer(I, data, dt_element(t), (int)n, ext), t);
}

/* pointer(content_type, name="ptr"): a handle variable indexed like allocate's. */
static Value *ib_pointer(Interp *I, Value *self, Value **a) {
  DType t;
  const char *name = bi_te_str_arg(I, a[1], "pointer", "name", "ptr");
  if (!name) return NULL;
  if (!a[0] || a[0]->kind != VAL_STR || !dt_parse(a[0]->u.str.s, &t) || t.code == DT_HANDLE)
    return interp_raise(I, EXC_TypeError, "pointer: content_type must name an element type");
  Var *data = ir_var(arena(I), name, DT_HANDLE64);
  return new_bufvar(self, flat_buffer(I, data, dt_element(t), 0, NULL), t);
}

/* buffer_ptr(buf, shape=None): a handle over a decl_buffer Buffer's data, indexed row-major
 * by its shape (or the shape given), as TVM's: the raw pointer, without the buffer's
 * elem_offset or strides. */
static Value *ib_buffer_ptr(Interp *I, Value *self, Value **a) {
  Buffer *b = bi_tir_buffer_of(a[0]);
  if (!b)
    return interp_raise(I, EXC_TypeError, "buffer_ptr: buf must be a Buffer (tvm.tir.decl_buffer), "
                                          "not '%s'", val_type_name(a[0]));
  int ndim = b->ndim;
  Expr **shape = b->shape;
  Value *shp = a[1];
  if (shp && shp->kind != VAL_NONE) {
    if (shp->kind != VAL_TUPLE && shp->kind != VAL_LIST)
      return interp_raise(I, EXC_TypeError, "buffer_ptr: shape must be a tuple or list");
    ndim = (int)VAL_SEQ_N(shp);
    shape = arena_alloc(arena(I), (size_t)(ndim + 1) * sizeof *shape);
    for (int i = 0; i < ndim; i++)
      if (!(shape[i] = bi_te_to_expr(I, VAL_SEQ_ITEM(shp, i), "buffer_ptr: an extent")))
        return NULL;
  }
  return new_bufvar(self, flat_buffer(I, b->data, dt_element(b->dtype), ndim, shape), b->dtype);
}

/* scope_attr(node, attr_key, value): an AttrStmt covering what follows in the scope. */
static Value *ib_scope_attr(Interp *I, Value *self, Value **a) {
  const char *key = bi_te_str_arg(I, a[1], "scope_attr", "attr_key", NULL);
  if (!key) return NULL;
  AttrNodeKind nk;
  void *node;
  IterVar *iv = bi_te_itervar_of(a[0]);
  Expr *e = iv ? NULL : bi_te_expr_of(a[0]);
  if (iv) {
    nk = ATTR_NODE_ITERVAR, node = iv;
  } else if (e && e->kind == EXPR_VAR) {
    nk = ATTR_NODE_VAR, node = e->u.var;
  } else if (bi_tir_buffer_of(a[0])) {
    nk = ATTR_NODE_BUFFER, node = bi_tir_buffer_of(a[0]);
  } else if (bi_te_tensor_of(a[0])) {
    nk = ATTR_NODE_TENSOR, node = bi_te_tensor_of(a[0]);
  } else if (a[0]->u.obj.cls == &bufvar_class && a[0]->kind == VAL_OBJ) {
    nk = ATTR_NODE_VAR, node = ((BufVar *)a[0]->u.obj.p)->buf->data;
  } else {
    return interp_raise(I, EXC_TypeError, "scope_attr: node must be an IterVar, a Var, a "
                                          "Buffer or a Tensor, not '%s'", val_type_name(a[0]));
  }
  Expr *value = bi_tir_call_arg(I, a[2], "scope_attr: value");
  if (!value) return NULL;
  if (strcmp(key, "thread_extent") == 0 && value->kind != EXPR_INT) {
    /* a thread extent may be zero in dynamic workloads: TVM takes max(1, value) */
    value = bi_te_binary_exprs(I, TE_MAX, ir_int(arena(I), value->dtype, 1), value);
    if (!value) return NULL;
  }
  add_item(builder_of(self),
           (Item){.kind = ITEM_ATTR, .nkind = nk, .node = node, .str = key, .value = value});
  return val_none();
}

/* let(var_name, value) -> Var: a LetStmt covering what follows in the scope. */
static Value *ib_let(Interp *I, Value *self, Value **a) {
  const char *name = bi_te_str_arg(I, a[0], "let", "var_name", NULL);
  Expr *value = name ? bi_te_to_expr(I, a[1], "let: value") : NULL;
  if (!value) return NULL;
  Var *v = ir_var(arena(I), name, value->dtype);
  add_item(builder_of(self), (Item){.kind = ITEM_LET, .var = v, .value = value});
  return bi_te_wrap_expr(ir_varref(arena(I), v));
}

static Value *ib_likely(Interp *I, Value *self, Value **a) {
  Expr *e = bi_te_to_expr(I, a[0], "likely: expr");
  return e ? bi_te_wrap_expr(bi_te_intrin(I, e->dtype, "tir.likely", 1, &e)) : NULL;
}

static const Builtin builder_methods[] = {
    {"emit", ib_emit, 1, PARAMS("stmt"),
     "emit(stmt) -> None: append a Stmt (or a call, as Evaluate) to the current scope"},
    {"get", ib_get, 0, NOPARAMS, "get() -> Stmt: the statement built (outside every scope)"},
    {"for_range", ib_for_range, 2, PARAMS("begin", "end", "name", "dtype", "kind"),
     "for_range(begin, end, name='i', dtype='int32', kind='serial') -> scope: `with ... as i:` "
     "a loop"},
    {"if_scope", ib_if_scope, 1, PARAMS("cond"), "if_scope(cond) -> scope: `with` an if"},
    {"else_scope", ib_else_scope, 0, NOPARAMS,
     "else_scope() -> scope: `with` the else of the if_scope just closed"},
    {"new_scope", ib_new_scope, 0, NOPARAMS,
     "new_scope() -> scope: a scope bounding allocate and scope_attr"},
    {"allocate", ib_allocate, 2, PARAMS("dtype", "shape", "name", "scope"),
     "allocate(dtype, shape, name='buf', scope='') -> BufferVar: memory for the rest of the "
     "scope"},
    {"pointer", ib_pointer, 1, PARAMS("content_type", "name", "scope"),
     "pointer(content_type, name='ptr') -> BufferVar: a handle variable"},
    {"buffer_ptr", ib_buffer_ptr, 1, PARAMS("buf", "shape"),
     "buffer_ptr(buf, shape=None) -> BufferVar: a Buffer's data, indexed by its shape"},
    {"scope_attr", ib_scope_attr, 3, PARAMS("node", "attr_key", "value"),
     "scope_attr(node, attr_key, value) -> None: an attr over the rest of the scope"},
    {"let", ib_let, 2, PARAMS("var_name", "value"),
     "let(var_name, value) -> Var: a let over the rest of the scope"},
    {"likely", ib_likely, 1, PARAMS("expr"), "likely(expr) -> PrimExpr: @tir.likely(expr)"},
    {0},
};

const ObjClass bi_tir_builder_class = {
    .type = {"IRBuilder", NULL, VAL_OBJ, NULL},
    .free = builder_free,
    .methods = builder_methods,
};

static Value *fn_create(Interp *I, Value *self, Value **a) {
  Builder *b = xcalloc(1, sizeof *b);
  push_scope(b);
  return val_obj_new(&bi_tir_builder_class, b);
}

const Builtin bi_tir_builder_funcs[] = {
    {"create", fn_create, 0, NOPARAMS, "create() -> IRBuilder: a new builder of statements"},
    {0},
};
