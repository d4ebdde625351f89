/* storage_flatten: turns multi-dimensional tensor storage into 1-D row-major buffers.
 * Assumes: the loop nest of schedule_ops: tensors are written by PROVIDE and read by
 *   PRODUCER_LOAD inside a REALIZE of their region, except the function's arguments, whose
 *   buffers ctx binds; a placeholder is always an argument.
 * Guarantees: no REALIZE, PROVIDE or PRODUCER_LOAD remains. An argument's realize is dropped
 *   (its storage is the parameter); any other becomes an ALLOCATE of the region's element
 *   count, in the realize's scope or, without one, global / shared under blockIdx / local
 *   under threadIdx. Accesses become STORE/LOAD at ((i0 - min0)*extent1 + (i1 - min1))...,
 *   with only zero terms and unit factors folded; subtrees without tensor accesses are
 *   returned as they are. A `buffer_dim_align` attr on a tensor (storage_align) is consumed:
 *   its dimension's stride is padded so that stride % factor == offset, the allocation is
 *   strides[0]*extent0 and accesses sum index*stride. A tensor's `double_buffer_scope` attr
 *   becomes the same attr on its buffer's data variable, for tir.InjectDoubleBuffer.
 * Why here: it is the first pass; virtual threads, unrolling and vectorization need flat
 *   indices, and the simplifier after them folds what the row-major arithmetic leaves. */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/bounds.h"
#include "ir/printer.h"
#include "ir/ptrmap.h"
#include "ir/strbuf.h"
#include "ir/pass/pass.h"
#include "ir/support.h"

typedef struct Binding {
  const Tensor *tensor;
  Buffer *buf;
  Range *bounds; /* the realized region; NULL for an argument (it starts at 0) */
} Binding;

typedef struct DimAlign {
  const Tensor *tensor;
  int dim, factor, offset;
} DimAlign;

/* A tensor intrinsic's buffer bound to a region (buffer_bind_scope): accesses through a buffer
 * on its data become accesses of the tensor's storage, with the offsets the binding gives. */
typedef struct Alias {
  const Var *data;  /* the intrinsic buffer's data */
  const Buffer *to; /* the bound tensor's buffer */
  int nmap;
  VarMap *map; /* the intrinsic buffer's variables -> the region's */
  PtrMap views; /* Buffer * -> its view over `to` */
} Alias;

typedef struct Flatten {
  IrMutator m;
  PassCtx *ctx;
  int n, cap;
  Binding *binds;  /* the arguments, then the realizes around the current node, innermost last */
  int thread_rank; /* -1 outside threads, 0 under blockIdx, 1 under threadIdx */
  int nalign, cap_align;
  DimAlign *aligns; /* every buffer_dim_align seen; the attrs sit outside their realize */
  int nalias, cap_alias;
  Alias *aliases; /* the buffer_bind_scopes around the current node */
} Flatten;

static bool is_const(const Expr *e, int64_t *v) {
  if (e->kind != EXPR_INT) return false;
  *v = e->u.ival;
  return true;
}

static Expr *int_const(Arena *a, DType t, int64_t v) {
  if (t.bits < 64) v = (int64_t)((uint64_t)v << (64 - t.bits)) >> (64 - t.bits);
  return ir_int(a, t, v);
}

/* TVM builds indices with operators that fold these; the simplifier does the rest. */
static Expr *fold(Arena *a, ExprKind k, Expr *x, Expr *y) {
  int64_t cx, cy;
  bool kx = is_const(x, &cx), ky = is_const(y, &cy);
  if (kx && ky) { /* unsigned, to wrap as the machine does */
    uint64_t ux = (uint64_t)cx, uy = (uint64_t)cy;
    return int_const(a, x->dtype,
                     (int64_t)(k == EXPR_MUL   ? ux * uy
                               : k == EXPR_ADD ? ux + uy
                                               : ux - uy));
  }
  if (k == EXPR_MUL) {
    if ((kx && cx == 0) || (ky && cy == 0)) return int_const(a, x->dtype, 0);
    if (ky && cy == 1) return x;
    if (kx && cx == 1) return y;
  } else {
    if (ky && cy == 0) return x;
    if (k == EXPR_ADD && kx && cx == 0) return y;
  }
  return ir_binary(a, k, x, y);
}

static Expr *as_dtype(Arena *a, Expr *e, DType t) {
  return dt_eq(e->dtype, t) ? e : ir_cast(a, t, e);
}

static void push_binding(Flatten *f, Binding b) {
  VEC_GROW(f->m.arena, f->binds, f->cap, f->n + 1);
  f->binds[f->n++] = b;
}

static const Binding *binding(const Flatten *f, const Tensor *t) {
  for (int i = f->n - 1; i >= 0; i--)
    if (f->binds[i].tensor == t) return &f->binds[i];
  return NULL;
}

/* The offset of indices (already flattened themselves) in b's buffer: row-major, or
 * sum(index*stride) when the buffer has strides (TVM's Buffer::ElemOffset). */
static Expr *flat_index(Flatten *f, const Binding *b, int n, Expr **indices) {
  Arena *a = f->m.arena;
  Expr **strides = b->buf->strides;
  Expr *idx = NULL;
  for (int d = 0; d < n; d++) {
    Expr *i = ir_mutate_expr(&f->m, indices[d]);
    if (b->bounds) i = fold(a, EXPR_SUB, i, as_dtype(a, b->bounds[d].min, i->dtype));
    if (strides) i = fold(a, EXPR_MUL, i, as_dtype(a, strides[d], i->dtype));
    if (!idx)
      idx = i;
    else if (strides)
      idx = fold(a, EXPR_ADD, idx, as_dtype(a, i, idx->dtype));
    else
      idx = fold(a, EXPR_ADD, fold(a, EXPR_MUL, idx, as_dtype(a, b->buf->shape[d], idx->dtype)),
                 as_dtype(a, i, idx->dtype));
  }
  return idx ? idx : ir_i32(a, 0);
}

static const Binding *must_bind(const Flatten *f, const Tensor *t) {
  const Binding *b = binding(f, t);
  TES_ASSERT(b, "tensor %s is accessed outside its realize and is not an argument", t->name);
  return b;
}

/* The buffer to access instead of b where a buffer_bind_scope bound b's data to a tensor's
 * storage (b itself elsewhere), and in *off what to add to b's indices: b's elem_offset with
 * the binding's variables substituted, or NULL. As in TVM, the printed index then shows where
 * the region starts. */
static Buffer *aliased(Flatten *f, Buffer *b, Expr **off) {
  Arena *a = f->m.arena;
  *off = NULL;
  for (int i = f->nalias - 1; i >= 0; i--) {
    Alias *al = &f->aliases[i];
    if (al->data != b->data) continue;
    if (b->elem_offset) *off = ir_substitute_expr(a, b->elem_offset, al->nmap, al->map);
    if (dt_eq(b->dtype, al->to->dtype) && !al->to->elem_offset) return (Buffer *)al->to;
    Buffer *v = ptrmap_get(&al->views, b);
    if (v) return v;
    v = arena_alloc(a, sizeof *v);
    *v = *al->to;
    v->dtype = b->dtype;      /* the same storage read as another element type */
    v->elem_offset = NULL;    /* the bound offset counts from data, the tensor's own included */
    ptrmap_put(&al->views, b, v);
    return v;
  }
  return b;
}

static Expr *offset_index(Arena *a, Expr *index, Expr *off) {
  if (!off) return index;
  if (index->dtype.lanes == 1) return fold(a, EXPR_ADD, as_dtype(a, off, index->dtype), index);
  if (index->kind == EXPR_RAMP)
    return ir_ramp(a, fold(a, EXPR_ADD, as_dtype(a, off, index->u.ramp.base->dtype), index->u.ramp.base),
                   index->u.ramp.stride, index->u.ramp.lanes);
  DType t = index->dtype;
  t.lanes = 1;
  return ir_binary(a, EXPR_ADD, ir_broadcast(a, as_dtype(a, off, t), index->dtype.lanes), index);
}

static Expr *flatten_expr(IrMutator *m, Expr *e) {
  Flatten *f = (Flatten *)m;
  if (e->kind == EXPR_LOAD && f->nalias) {
    Expr *r = ir_mutate_children_expr(m, e), *off;
    Buffer *b = aliased(f, r->u.load.buf, &off);
    if (b == r->u.load.buf) return r;
    return ir_load(m->arena, b, offset_index(m->arena, r->u.load.index, off), r->u.load.predicate);
  }
  if (e->kind != EXPR_PRODUCER_LOAD) return ir_mutate_children_expr(m, e);
  const Binding *b = must_bind(f, e->u.pload.tensor);
  return ir_load(m->arena, b->buf, flat_index(f, b, e->u.pload.n, e->u.pload.indices), NULL);
}

static const char *default_scope(const Flatten *f) {
  return f->thread_rank < 0 ? "global" : f->thread_rank == 0 ? "shared" : "local";
}

static int64_t floor_mod(int64_t x, int64_t y) { return ((x % y) + y) % y; }

/* stride + floormod(factor + offset - floormod(stride, factor), factor): the least stride
 * not below the given one that is offset modulo factor (TVM's padding rule). */
static Expr *aligned_stride(Arena *a, Expr *stride, int factor, int offset) {
  DType t = stride->dtype;
  int64_t c;
  if (is_const(stride, &c)) return int_const(a, t, c + floor_mod(factor + offset - c, factor));
  Expr *k = int_const(a, t, factor);
  Expr *lead = ir_binary(a, EXPR_SUB, int_const(a, t, (int64_t)factor + offset),
                         ir_binary(a, EXPR_FLOORMOD, stride, k));
  return ir_binary(a, EXPR_ADD, stride, ir_binary(a, EXPR_FLOORMOD, lead, k));
}

static const DimAlign *dim_align(const Flatten *f, const Tensor *t, int dim) {
  for (int i = f->nalign - 1; i >= 0; i--)
    if (f->aligns[i].tensor == t && f->aligns[i].dim == dim) return &f->aligns[i];
  return NULL;
}

/* The strides of t's buffer, innermost 1, each dimension storage_align asked for padded;
 * NULL (row-major) when it asked for none. */
static Expr **aligned_strides(Flatten *f, const Tensor *t, int nd, Expr **shape) {
  Arena *a = f->m.arena;
  bool any = false;
  for (int d = 0; d < nd; d++) any |= dim_align(f, t, d) != NULL;
  if (!any) return NULL;
  Expr **strides = arena_alloc(a, (size_t)nd * sizeof *strides);
  Expr *stride = int_const(a, shape[0]->dtype, 1);
  for (int d = nd - 1; d >= 0; d--) {
    const DimAlign *al = dim_align(f, t, d);
    if (al) stride = aligned_stride(a, stride, al->factor, al->offset);
    strides[d] = stride;
    stride = fold(a, EXPR_MUL, stride, as_dtype(a, shape[d], stride->dtype));
  }
  return strides;
}

static Stmt *flatten_realize(Flatten *f, Stmt *s) {
  Arena *a = f->m.arena;
  Tensor *t = s->u.realize.tensor;
  if (binding(f, t) && !binding(f, t)->bounds) return ir_mutate_stmt(&f->m, s->u.realize.body);
  int nd = s->u.realize.ndim;
  const char *scope =
      s->u.realize.scope && *s->u.realize.scope ? s->u.realize.scope : default_scope(f);
  Buffer *buf = arena_alloc(a, sizeof *buf);
  *buf = (Buffer){.name = t->name,
                  .data = ir_var(a, t->name, DT_HANDLE64),
                  .dtype = t->dtype,
                  .ndim = nd,
                  .shape = arena_alloc(a, (size_t)(nd + 1) * sizeof(Expr *)),
                  .scope = scope,
                  .offset_factor = 1};
  Expr *count = NULL;
  for (int d = 0; d < nd; d++) {
    buf->shape[d] = s->u.realize.bounds[d].extent;
    count =
        count ? fold(a, EXPR_MUL, count, as_dtype(a, buf->shape[d], count->dtype)) : buf->shape[d];
  }
  /* a constant size past int32 (2**24 x 2**24 elements) is an int64, never a wrapped 0 */
  Expr *exact = nd ? ir_count_of(a, nd, buf->shape) : NULL;
  if (exact && exact->kind == EXPR_INT && exact->dtype.bits == 64) count = exact;
  buf->strides = nd ? aligned_strides(f, t, nd, buf->shape) : NULL;
  if (buf->strides)
    count = fold(a, EXPR_MUL, buf->strides[0], as_dtype(a, buf->shape[0], buf->strides[0]->dtype));
  push_binding(f, (Binding){t, buf, s->u.realize.bounds});
  Stmt *body = ir_mutate_stmt(&f->m, s->u.realize.body);
  f->n--;
  if (!count) count = ir_i32(a, 1);
  return ir_allocate(a, buf->data, t->dtype, 1, &count, scope, NULL, body);
}

static int thread_rank(const Stmt *s) {
  if (s->u.attr.nkind != ATTR_NODE_ITERVAR || strcmp(s->u.attr.key, "thread_extent") != 0)
    return -1;
  const char *tag = ((const IterVar *)s->u.attr.node)->thread_tag;
  return tag && strncmp(tag, "blockIdx.", 9) == 0 ? 0 : 1;
}

/* buffer_dim_align: remembered for the realize inside (int constants, as schedule_ops
 * builds them). double_buffer_scope: moved onto the buffer, which the realize around made. */
static Stmt *tensor_attr(Flatten *f, Stmt *s) {
  const Tensor *t = s->u.attr.node;
  const Expr *v = s->u.attr.value;
  if (strcmp(s->u.attr.key, "buffer_dim_align") == 0) {
    int64_t x[3];
    TES_ASSERT(v->kind == EXPR_CALL && v->u.call.n == 3 && ir_as_int(v->u.call.args[0], &x[0]) &&
                   ir_as_int(v->u.call.args[1], &x[1]) && ir_as_int(v->u.call.args[2], &x[2]),
               "buffer_dim_align of %s is not a tvm_tuple of three constants", t->name);
    VEC_GROW(f->m.arena, f->aligns, f->cap_align, f->nalign + 1);
    f->aligns[f->nalign++] = (DimAlign){t, (int)x[0], (int)x[1], (int)x[2]};
    return ir_mutate_stmt(&f->m, s->u.attr.body);
  }
  if (strcmp(s->u.attr.key, "double_buffer_scope") != 0) return NULL;
  const Binding *b = binding(f, t);
  Stmt *body = ir_mutate_stmt(&f->m, s->u.attr.body);
  if (!b || !b->bounds) return body; /* an argument's storage is not ours to double */
  return ir_attr(f->m.arena, ATTR_NODE_VAR, b->buf->data, s->u.attr.key, s->u.attr.value, body);
}

static bool bind_error(Flatten *f, const Buffer *b, const Tensor *t, const char *fmt,
                       const Expr *e) {
  StrBuf text = STRBUF_INIT;
  if (e) ir_print_expr(&text, e);
  ir_error(f->ctx->diag, "cannot bind buffer %s of a tensor intrinsic to tensor %s: %s%s", b->name,
           t->name, fmt, e ? sb_cstr(&text) : "");
  sb_free(&text);
  return false;
}

/* x is y, or x is a variable standing for y (added to al's map). */
static bool bind_value(Flatten *f, Alias *al, Expr *x, Expr *y) {
  if (x->kind == EXPR_VAR) {
    for (int i = 0; i < al->nmap; i++)
      if (al->map[i].from == x->u.var) return ir_expr_equal(al->map[i].to, y);
    al->map[al->nmap++] = (VarMap){x->u.var, as_dtype(f->m.arena, y, x->dtype)};
    return true;
  }
  int64_t cx, cy;
  if (ir_as_int(x, &cx) && ir_as_int(y, &cy)) return cx == cy;
  return ir_expr_equal(x, y);
}

/* attr [[buffer(B), T]] "buffer_bind_scope" = tvm_tuple(min0, extent0, ...): B becomes a view
 * of T's storage at the region (TVM's ArgBinder::BindBuffer, by fuzzy match: B's dimensions are
 * T's last ones, the others of extent 1): its data is T's, its elem_offset the region's start,
 * its strides T's, its shape the extents; variables among them are substituted in the body. */
static Stmt *bind_buffer(Flatten *f, Stmt *s) {
  Arena *a = f->m.arena;
  const BufferBind *bb = s->u.attr.node;
  Buffer *B = bb->buffer;
  const Tensor *T = bb->tensor;
  const Binding *tb = must_bind(f, T);
  const Expr *tuple = s->u.attr.value;
  int nd = tuple->u.call.n / 2, lead = nd - B->ndim;
  if (lead < 0) return bind_error(f, B, T, "it has more dimensions than the tensor", NULL), s;
  Expr **strides = arena_alloc(a, (size_t)(nd + 1) * sizeof *strides);
  Expr *stride = NULL;
  for (int d = nd - 1; d >= 0; d--) {
    if (tb->buf->strides) {
      strides[d] = tb->buf->strides[d];
      continue;
    }
    strides[d] = stride ? stride : ir_i32(a, 1);
    stride = fold(a, EXPR_MUL, strides[d], as_dtype(a, tb->buf->shape[d], strides[d]->dtype));
  }
  Expr *off = NULL;
  for (int d = 0; d < nd; d++) {
    Expr *min = tuple->u.call.args[2 * d];
    if (tb->bounds) min = fold(a, EXPR_SUB, min, as_dtype(a, tb->bounds[d].min, min->dtype));
    Expr *term = fold(a, EXPR_MUL, min, as_dtype(a, strides[d], min->dtype));
    off = off ? fold(a, EXPR_ADD, off, as_dtype(a, term, off->dtype)) : term;
  }
  if (!off) off = ir_i32(a, 0);
  if (tb->buf->elem_offset)
    off = fold(a, EXPR_ADD, as_dtype(a, tb->buf->elem_offset, off->dtype), off);
  Alias al = {B->data, tb->buf, 0, arena_alloc(a, (size_t)(2 * nd + 3) * sizeof(VarMap)), {0}};
  ptrmap_init(&al.views, a);
  al.map[al.nmap++] = (VarMap){B->data, ir_varref(a, tb->buf->data)};
  int64_t c;
  if (B->offset_factor > 1) {
    Analyzer *an = arith_new(a);
    ModularSet ms = arith_modular_set(an, off);
    arith_free(an);
    if (ms.coeff % B->offset_factor != 0 || ms.base % B->offset_factor != 0)
      return bind_error(f, B, T, "the region's start is not provably a multiple of the buffer's "
                                 "offset_factor: ", off), s;
  }
  if (B->elem_offset && B->elem_offset->kind == EXPR_VAR) {
    al.map[al.nmap++] = (VarMap){B->elem_offset->u.var, as_dtype(a, off, B->elem_offset->dtype)};
  } else if (!(ir_as_int(off, &c) && c == (B->elem_offset ? B->elem_offset->u.ival : 0))) {
    return bind_error(f, B, T, "the buffer has no elem_offset variable (declare it with "
                               "offset_factor) but the region starts at ", off), s;
  }
  for (int d = 0; d < lead; d++)
    if (!ir_is_const_int(tuple->u.call.args[2 * d + 1], 1))
      return bind_error(f, B, T, "a leading dimension of the region has extent ",
                        tuple->u.call.args[2 * d + 1]), s;
  Expr *compact = NULL;
  for (int j = B->ndim - 1; j >= 0; j--) {
    int d = j + lead;
    Expr *ext = tuple->u.call.args[2 * d + 1];
    if (!bind_value(f, &al, B->shape[j], ext))
      return bind_error(f, B, T, "its shape differs from the region's extent ", ext), s;
    if (B->strides) {
      if (!bind_value(f, &al, B->strides[j], strides[d]))
        return bind_error(f, B, T, "its stride differs from the tensor's stride ", strides[d]), s;
    } else if (compact && !bind_value(f, &al, compact, strides[d])) {
      return bind_error(f, B, T, "it is compact but the region is not (declare it with strides); "
                                 "the tensor's stride there is ", strides[d]), s;
    }
    Expr *e = compact ? compact : ir_i32(a, 1);
    compact = fold(a, EXPR_MUL, e, as_dtype(a, ext, e->dtype));
  }
  Stmt *body = ir_substitute_stmt(a, s->u.attr.body, al.nmap, al.map);
  VEC_GROW(a, f->aliases, f->cap_alias, f->nalias + 1);
  f->aliases[f->nalias++] = al;
  body = ir_mutate_stmt(&f->m, body);
  f->nalias--;
  return body;
}

static Stmt *flatten_stmt(IrMutator *m, Stmt *s) {
  Flatten *f = (Flatten *)m;
  if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_BUFFER_BIND) return bind_buffer(f, s);
  if (s->kind == STMT_STORE && f->nalias) {
    Stmt *r = ir_mutate_children_stmt(m, s);
    Expr *off;
    Buffer *b = aliased(f, r->u.store.buf, &off);
    if (b == r->u.store.buf) return r;
    return ir_store(m->arena, b, r->u.store.value,
                    offset_index(m->arena, r->u.store.index, off), r->u.store.predicate);
  }
  if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_TENSOR) {
    Stmt *r = tensor_attr(f, s);
    if (r) return r;
  }
  if (s->kind == STMT_REALIZE) return flatten_realize(f, s);
  if (s->kind == STMT_PROVIDE) {
    const Binding *b = must_bind(f, s->u.provide.tensor);
    Expr *idx = flat_index(f, b, s->u.provide.n, s->u.provide.indices);
    return ir_store(m->arena, b->buf, ir_mutate_expr(m, s->u.provide.value), idx, NULL);
  }
  if (s->kind != STMT_ATTR || thread_rank(s) <= f->thread_rank)
    return ir_mutate_children_stmt(m, s);
  int saved = f->thread_rank;
  f->thread_rank = thread_rank(s);
  Stmt *r = ir_mutate_children_stmt(m, s);
  f->thread_rank = saved;
  return r;
}

Stmt *pass_storage_flatten(Stmt *s, PassCtx *ctx) {
  Flatten f = {{ctx->arena, flatten_expr, flatten_stmt}, ctx, 0, 0, NULL, -1, 0, 0, NULL,
               0, 0, NULL};
  for (int i = 0; i < ctx->nbinds; i++)
    push_binding(&f, (Binding){ctx->bind_tensors[i], ctx->bind_buffers[i], NULL});
  return ir_mutate_stmt(&f.m, s);
}
