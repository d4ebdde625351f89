/* lower_warp_memory: warp memory becomes registers and warp shuffles (TVM's
 *   tir.LowerWarpMemory). A buffer of scope "warp" is shared by the lanes of a warp; no GPU
 *   has such memory, so each lane keeps its own slice in registers and reads another lane's
 *   element with a shuffle.
 * Assumes: flat buffers; each kernel is an outermost "thread_extent" attribute; threadIdx.x
 *   has one constant extent in a kernel, the width, a divisor of the warp size 32, so that the
 *   lanes of a warp are groups of `width` consecutive threadIdx.x values, one group per
 *   (threadIdx.y, threadIdx.z).
 * Guarantees: each allocation of scope "warp" inside a kernel, whose stores index it as
 *   threadIdx.x*m + j (m a positive constant, the same in every store; with S elements,
 *   groups = ceil(S / (width*m))), becomes a "local" allocation of groups*m elements: element
 *   I lives in lane floormod(floordiv(I, m), width), at local index
 *   floordiv(I, width*m)*m + floormod(I, m) (floormod(I, m) alone with one group). A store
 *   must be proven to be to the storing lane's own element. A read proven to be of the reading
 *   lane's own element is a local load; any other read is
 *   `@tir.tvm_warp_shuffle(mask, local load, lane, width, 32)`, which needs the local index to
 *   be the same in every lane (no threadIdx.x, memory or side effect in it), every lane of the
 *   warp to reach it (no condition or loop bound around it that depends on a thread index or
 *   on memory, through lets too) and a mask of the warp's lanes known when building (a block
 *   of a multiple of 32 threads, or of fewer than 32). Whatever cannot be proven so is an
 *   error on ctx->diag ("not supported yet: warp memory 'B' ..."), and the input is returned;
 *   nothing else changes.
 * Why here: for GPU targets only, after tir.ThreadSync (which leaves warp memory alone), as TVM
 *   runs it in its device build; tvm.lower prints the warp allocation as the schedule made it. */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/printer.h"
#include "ir/ptrmap.h"
#include "ir/support.h"

enum { WARP_SIZE = 32 };

/* A warp allocation being rewritten. */
typedef struct Warp {
  const Var *data;
  Buffer *local;  /* what its loads and stores use after: scope local, groups*m elements */
  int64_t m;      /* consecutive elements of one lane */
  int64_t groups; /* of width*m elements */
} Warp;

typedef struct Lower {
  IrMutator m;
  PassCtx *ctx;
  Analyzer *an;
  bool in_kernel;
  /* the kernel's: threadIdx.x's extent (0: unbound, -1: not one constant), the lanes of a
   * warp as a shuffle's mask (-1: not known when building), threads a block (0: unknown) */
  int64_t width, mask, threads;
  Var **lanes; /* the kernel's threadIdx.x variables */
  int nlanes;
  /* Variables whose value may differ between the lanes of a group of `width` (threadIdx.x
   * and what is computed from it), and between the lanes of a warp (any thread index). */
  PtrMap lane_varying, warp_varying;
  Warp *warps; /* enclosing warp allocations, innermost last */
  int nwarps;
  int divergent; /* >0: not every lane of the warp may get here */
} Lower;

static bool failed(const Lower *w) { return diag_failed(w->ctx->diag); }

static const char *text_of(Lower *w, const Expr *e) {
  StrBuf sb = STRBUF_INIT;
  ir_print_expr(&sb, e);
  const char *s = arena_strndup(w->ctx->arena, sb_cstr(&sb), strlen(sb_cstr(&sb)));
  sb_free(&sb);
  return s;
}

static Warp *warp_of(Lower *w, const Var *data) {
  for (int i = w->nwarps - 1; i >= 0; i--)
    if (w->warps[i].data == data) return &w->warps[i];
  return NULL;
}

/* ---- what may differ between lanes ---- */

static bool varies_expr(const Expr *e, const void *vars) {
  return (e->kind == EXPR_VAR && ptrmap_get(vars, e->u.var)) || e->kind == EXPR_LOAD ||
         (e->kind == EXPR_CALL && e->u.call.ckind != CALL_PURE);
}

/* Whether e may differ between lanes: it reads one of vars, memory (another thread may have
 * written it), or calls something with effects. NULL does not. */
static bool varies(const PtrMap *vars, const Expr *e) { return ir_expr_any(e, varies_expr, vars); }

/* v is computed from value (a let) or ranges over bounds that are: it varies as they do. */
static void derive(Lower *w, const Var *v, const Expr *a, const Expr *b) {
  if (varies(&w->lane_varying, a) || varies(&w->lane_varying, b))
    ptrmap_put(&w->lane_varying, v, (void *)1);
  if (varies(&w->warp_varying, a) || varies(&w->warp_varying, b))
    ptrmap_put(&w->warp_varying, v, (void *)1);
}

/* ---- the kernel's threads ---- */

typedef struct Scan {
  IrVisitor v;
  Lower *w;
  int64_t ext[3]; /* threadIdx.x, y, z: 0 unbound, -1 not one constant */
} Scan;

static bool is_thread_extent(const Stmt *s) {
  return s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0 &&
         s->u.attr.nkind == ATTR_NODE_ITERVAR;
}

static void scan_stmt(IrVisitor *v, const Stmt *s) {
  Scan *sc = (Scan *)v;
  const IterVar *iv = is_thread_extent(s) ? s->u.attr.node : NULL;
  const char *tag = iv && iv->thread_tag ? iv->thread_tag : "";
  if (strncmp(tag, "threadIdx.", 10) == 0 && tag[10] >= 'x' && tag[10] <= 'z' && !tag[11]) {
    Lower *w = sc->w;
    int d = tag[10] - 'x';
    int64_t n;
    if (!ir_as_int(s->u.attr.value, &n) || n <= 0 || (sc->ext[d] && sc->ext[d] != n)) n = -1;
    sc->ext[d] = n;
    ptrmap_put(&w->warp_varying, iv->var, (void *)1);
    bool known = false; /* one IterVar may bind several loops, and serve several kernels */
    for (int i = 0; i < w->nlanes; i++) known = known || w->lanes[i] == iv->var;
    if (d == 0 && !known) {
      ptrmap_put(&w->lane_varying, iv->var, (void *)1);
      Var **grown = arena_alloc(w->ctx->arena, (size_t)(w->nlanes + 1) * sizeof *grown);
      if (w->nlanes) memcpy(grown, w->lanes, (size_t)w->nlanes * sizeof *grown);
      grown[w->nlanes++] = iv->var;
      w->lanes = grown;
    }
  }
  ir_visit_children_stmt(v, s);
}

/* What a kernel's threads are: its width, its blocks' size and the warp's mask. */
static void scan_kernel(Lower *w, const Stmt *kernel) {
  Scan sc = {{NULL, scan_stmt}, w, {0, 0, 0}};
  w->nlanes = 0;
  ir_visit_stmt(&sc.v, kernel);
  w->width = sc.ext[0];
  w->threads = 1;
  for (int d = 0; d < 3; d++)
    if (sc.ext[d] < 0) w->threads = 0;
    else if (sc.ext[d] > 0) w->threads *= sc.ext[d];
  /* __shfl_sync's mask names the lanes that reach it, all the block has in the warp */
  w->mask = w->threads == 0                 ? -1
            : w->threads % WARP_SIZE == 0   ? (int64_t)UINT32_MAX
            : w->threads < WARP_SIZE        ? (INT64_C(1) << w->threads) - 1
                                            : -1;
}

/* ---- an allocation's layout ---- */

typedef struct Coeff {
  IrVisitor v;
  Lower *w;
  const Var *data;
  const Buffer *buf; /* the first store's */
  int64_t m;
} Coeff;

/* The coefficient of threadIdx.x in a store's index: the index with threadIdx.x + 1 for
 * threadIdx.x, less the index, when that is a constant. */
static void coeff_stmt(IrVisitor *v, const Stmt *s) {
  Coeff *c = (Coeff *)v;
  Lower *w = c->w;
  if (failed(w)) return;
  if (s->kind != STMT_STORE || s->u.store.buf->data != c->data) {
    ir_visit_children_stmt(v, s);
    return;
  }
  Arena *a = w->ctx->arena;
  Expr *index = s->u.store.index;
  if (index->kind == EXPR_RAMP) index = index->u.ramp.base;
  if (!c->buf) c->buf = s->u.store.buf;
  VarMap *map = arena_alloc(a, (size_t)(w->nlanes + 1) * sizeof *map);
  for (int i = 0; i < w->nlanes; i++)
    map[i] = (VarMap){w->lanes[i], arith_binary(a, EXPR_ADD, ir_varref(a, w->lanes[i]),
                                                arith_const(a, w->lanes[i]->dtype, 1))};
  Expr *next = ir_substitute_expr(a, index, w->nlanes, map);
  Expr *diff = arith_simplify_binary(w->an, EXPR_SUB, next, index);
  int64_t m;
  const char *name = c->data->name;
  if (index->dtype.lanes != 1 || !ir_as_int(diff, &m) || m <= 0)
    ir_error(w->ctx->diag,
             "not supported yet: warp memory '%s': the store index %s is not threadIdx.x*m + j "
             "with a constant m > 0 (each lane stores its own m elements)",
             name, text_of(w, s->u.store.index));
  else if (c->m && c->m != m)
    ir_error(w->ctx->diag,
             "not supported yet: warp memory '%s': its stores index it as threadIdx.x*%lld + j "
             "and as threadIdx.x*%lld + j",
             name, (long long)c->m, (long long)m);
  c->m = m;
}

static bool alloc_size(const Stmt *s, int64_t *n) {
  *n = 1;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    int64_t e;
    if (!ir_as_int(s->u.alloc.extents[i], &e) || e < 0 || (e && *n > INT32_MAX / e)) return false;
    *n *= e;
  }
  return true;
}

/* The Warp of allocation s, or false with the error recorded. */
static bool layout(Lower *w, const Stmt *s, Warp *out) {
  const char *name = s->u.alloc.buffer_var->name;
  Diag *d = w->ctx->diag;
  int64_t size;
  if (!w->in_kernel)
    return ir_error(d, "not supported yet: warp memory '%s' outside a kernel (compute it at an "
                       "axis bound to blockIdx or inside)", name);
  if (w->width == 0)
    return ir_error(d, "not supported yet: warp memory '%s' in a kernel that binds no "
                       "threadIdx.x (the lanes of the warp)", name);
  if (w->width < 0)
    return ir_error(d, "not supported yet: warp memory '%s' needs threadIdx.x's extent to be "
                       "one constant in its kernel", name);
  if (WARP_SIZE % w->width != 0)
    return ir_error(d, "not supported yet: warp memory '%s' needs threadIdx.x's extent (%lld) to "
                       "divide the warp size %d", name, (long long)w->width, WARP_SIZE);
  if (s->u.alloc.dtype.lanes != 1)
    return ir_error(d, "not supported yet: warp memory '%s' of a vector type", name);
  if (!alloc_size(s, &size))
    return ir_error(d, "not supported yet: warp memory '%s' of a size known only at run time",
                    name);
  Coeff c = {{NULL, coeff_stmt}, w, s->u.alloc.buffer_var, NULL, 0};
  ir_visit_stmt(&c.v, s->u.alloc.body);
  if (failed(w)) return false;
  if (!c.buf) return ir_error(d, "not supported yet: warp memory '%s' that is never stored", name);
  int64_t per_group = w->width * c.m;
  if (c.m > INT32_MAX / w->width)
    return ir_error(d, "not supported yet: warp memory '%s' of %lld elements a lane", name,
                    (long long)c.m);
  *out = (Warp){.data = s->u.alloc.buffer_var, .m = c.m,
                .groups = size / per_group + (size % per_group != 0)};
  Arena *a = w->ctx->arena;
  Buffer *b = arena_alloc(a, sizeof *b);
  *b = *c.buf;
  b->dtype = s->u.alloc.dtype;
  b->ndim = 1;
  b->shape = arena_alloc(a, sizeof *b->shape);
  b->shape[0] = ir_i32(a, out->groups * c.m);
  b->strides = NULL;
  b->scope = "local";
  out->local = b;
  return true;
}

/* ---- accesses ---- */

/* index = ((y*width + lane)*m + x) with 0 <= x < m, 0 <= lane < width: the local index
 * y*m + x and the lane. A vector index must be ramp(base, 1, lanes) within one lane's m. */
static bool split_index(Lower *w, const Warp *wp, const Buffer *b, Expr *index, Expr **local,
                        Expr **lane) {
  Arena *a = w->ctx->arena;
  const char *name = wp->data->name;
  int lanes = index->dtype.lanes;
  /* a view of other elements (float32x4 over float32) counts indices in its own units */
  char dt[32];
  if (!dt_eq(b->dtype, wp->local->dtype))
    return ir_error(w->ctx->diag, "not supported yet: warp memory '%s' accessed as %s elements",
                    name, dt_name(b->dtype, dt));
  Expr *base = index;
  if (lanes > 1) {
    if (index->kind != EXPR_RAMP || !ir_is_const_int(index->u.ramp.stride, 1))
      return ir_error(w->ctx->diag, "not supported yet: warp memory '%s' at the vector index %s "
                                    "(only ramp(base, 1, lanes))", name, text_of(w, index));
    base = index->u.ramp.base;
  }
  DType t = base->dtype;
  Expr *m = arith_const(a, t, wp->m);
  Expr *x = arith_simplify_binary(w->an, EXPR_FLOORMOD, base, m);
  Expr *z = arith_binary(a, EXPR_FLOORDIV, base, m);
  *lane = arith_simplify_binary(w->an, EXPR_FLOORMOD, z, arith_const(a, t, w->width));
  Expr *loc = x;
  if (wp->groups > 1) {
    Expr *y = arith_binary(a, EXPR_FLOORDIV, base, arith_const(a, t, wp->m * w->width));
    loc = arith_simplify(w->an, arith_binary(a, EXPR_ADD, arith_binary(a, EXPR_MUL, y, m), x));
  }
  if (lanes > 1 && arith_const_bound(w->an, x).max > wp->m - lanes)
    return ir_error(w->ctx->diag, "not supported yet: warp memory '%s' at the vector index %s, "
                                  "which may span two lanes' elements", name, text_of(w, index));
  *local = lanes > 1 ? ir_ramp(a, loc, arith_const(a, t, 1), lanes) : loc;
  return true;
}

/* Whether lane is proven to be this thread's own threadIdx.x. */
static bool own_lane(Lower *w, Expr *lane) {
  for (int i = 0; i < w->nlanes; i++)
    if (ir_expr_uses_var(lane, w->lanes[i]) &&
        arith_can_prove_equal(w->an, lane, ir_varref(w->ctx->arena, w->lanes[i])))
      return true;
  return false;
}

static Expr *shuffle(Lower *w, const Warp *wp, Expr *load, Expr *index, Expr *local, Expr *lane) {
  Arena *a = w->ctx->arena;
  const char *name = wp->data->name, *at = text_of(w, index);
  Diag *d = w->ctx->diag;
  if (index->dtype.lanes > 1)
    return ir_error(d, "not supported yet: warp memory '%s': a vector read of another lane's "
                       "elements (index %s)", name, at), load;
  if (load->u.load.predicate)
    return ir_error(d, "not supported yet: warp memory '%s': a predicated read of another "
                       "lane's element (index %s)", name, at), load;
  if (w->divergent)
    return ir_error(d, "not supported yet: warp memory '%s': a read of another lane's element "
                       "(index %s) under a condition or loop bound that depends on the thread "
                       "index or on memory (a warp shuffle needs every lane)", name, at), load;
  if (varies(&w->lane_varying, local))
    return ir_error(d, "not supported yet: warp memory '%s': the read at index %s needs local "
                       "element %s, which differs between lanes (the index must be lane*%lld + "
                       "j with j the same in every lane)", name, at, text_of(w, local),
                    (long long)wp->m), load;
  if (w->mask < 0 && w->threads == 0)
    return ir_error(d, "not supported yet: warp memory '%s': a read of another lane's element "
                       "in a block whose size is not one constant", name), load;
  if (w->mask < 0)
    return ir_error(d, "not supported yet: warp memory '%s': a read of another lane's element "
                       "in a block of %lld threads (a warp shuffle needs a multiple of %d, or "
                       "fewer, so that the warp's lanes are known)",
                    name, (long long)w->threads, WARP_SIZE), load;
  Expr *args[5] = {ir_int(a, DT_MAKE(DT_UINT, 32, 1), w->mask), ir_load(a, wp->local, local, NULL), lane,
                   ir_i32(a, w->width), ir_i32(a, WARP_SIZE)};
  return ir_call(a, load->dtype, "tir.tvm_warp_shuffle", CALL_EFFECT, 5, args);
}

static Expr *lower_load(Lower *w, Expr *e) {
  Expr *index = ir_mutate_expr(&w->m, e->u.load.index);
  Expr *pred = e->u.load.predicate ? ir_mutate_expr(&w->m, e->u.load.predicate) : NULL;
  Warp *wp = warp_of(w, e->u.load.buf->data);
  if (!wp) {
    if (index == e->u.load.index && pred == e->u.load.predicate) return e;
    return ir_load(w->m.arena, e->u.load.buf, index, pred);
  }
  Expr *local, *lane;
  if (failed(w) || !split_index(w, wp, e->u.load.buf, index, &local, &lane)) return e;
  if (own_lane(w, lane)) return ir_load(w->m.arena, wp->local, local, pred);
  return shuffle(w, wp, e, index, local, lane);
}

/* e, evaluated only on some lanes when `some` (a branch of a condition that may differ). */
static Expr *lower_under(Lower *w, bool some, Expr *e) {
  w->divergent += some;
  Expr *r = ir_mutate_expr(&w->m, e);
  w->divergent -= some;
  return r;
}

static bool is_if_then_else(const Expr *e) {
  return e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.if_then_else") == 0 &&
         e->u.call.n == 3;
}

/* The conditional forms the printers evaluate lazily: select and if_then_else (one branch),
 * && and || (the second operand). */
static Expr *lower_lazy(Lower *w, Expr *e) {
  Arena *a = w->m.arena;
  if (e->kind == EXPR_AND || e->kind == EXPR_OR) {
    Expr *x = ir_mutate_expr(&w->m, e->u.bin.a);
    Expr *y = lower_under(w, varies(&w->warp_varying, x), e->u.bin.b);
    return x == e->u.bin.a && y == e->u.bin.b ? e : ir_binary(a, e->kind, x, y);
  }
  bool sel = e->kind == EXPR_SELECT;
  Expr *c0 = sel ? e->u.select.cond : e->u.call.args[0];
  Expr *t0 = sel ? e->u.select.t : e->u.call.args[1], *f0 = sel ? e->u.select.f : e->u.call.args[2];
  Expr *c = ir_mutate_expr(&w->m, c0);
  bool some = varies(&w->warp_varying, c);
  Expr *t = lower_under(w, some, t0), *f = lower_under(w, some, f0);
  if (c == c0 && t == t0 && f == f0) return e;
  if (sel) return ir_select(a, c, t, f);
  return ir_call(a, e->dtype, e->u.call.op, e->u.call.ckind, 3, (Expr *[]){c, t, f});
}

static void enter_let(Lower *w, Var *v, Expr *value) {
  if (dt_is_int(v->dtype) && v->dtype.lanes == 1) {
    if (value->kind == EXPR_INT || value->kind == EXPR_VAR)
      arith_bind_value(w->an, v, value);
    else
      arith_bind_bound(w->an, v, arith_const_bound(w->an, value));
  }
  derive(w, v, value, NULL);
}

static Expr *lower_expr(IrMutator *m, Expr *e) {
  Lower *w = (Lower *)m;
  if (e->kind == EXPR_LOAD) return lower_load(w, e);
  if (e->kind == EXPR_VAR && warp_of(w, e->u.var))
    return ir_error(w->ctx->diag, "not supported yet: warp memory '%s' used by address (only "
                                  "loads and stores)", e->u.var->name), e;
  if (e->kind == EXPR_AND || e->kind == EXPR_OR || e->kind == EXPR_SELECT || is_if_then_else(e))
    return lower_lazy(w, e);
  if (e->kind == EXPR_LET) {
    Expr *value = ir_mutate_expr(m, e->u.let.value);
    enter_let(w, e->u.let.var, value);
    Expr *body = ir_mutate_expr(m, e->u.let.body);
    if (value == e->u.let.value && body == e->u.let.body) return e;
    return ir_let(m->arena, e->u.let.var, value, body);
  }
  return ir_mutate_children_expr(m, e);
}

/* ---- statements ---- */

static Stmt *lower_store(Lower *w, Stmt *s) {
  Expr *pred = s->u.store.predicate ? ir_mutate_expr(&w->m, s->u.store.predicate) : NULL;
  bool some = varies(&w->warp_varying, pred);
  Expr *value = lower_under(w, some, s->u.store.value);
  Expr *index = lower_under(w, some, s->u.store.index);
  Warp *wp = warp_of(w, s->u.store.buf->data);
  if (!wp) {
    if (pred == s->u.store.predicate && value == s->u.store.value && index == s->u.store.index)
      return s;
    return ir_store(w->m.arena, s->u.store.buf, value, index, pred);
  }
  Expr *local, *lane;
  if (failed(w) || !split_index(w, wp, s->u.store.buf, index, &local, &lane)) return s;
  if (!own_lane(w, lane))
    return ir_error(w->ctx->diag, "not supported yet: warp memory '%s': the store at index %s "
                                  "is to lane %s, not provably the storing lane threadIdx.x",
                    wp->data->name, text_of(w, s->u.store.index), text_of(w, lane)),
           s;
  return ir_store(w->m.arena, wp->local, value, local, pred);
}

static Stmt *lower_allocate(Lower *w, Stmt *s) {
  if (!s->u.alloc.scope || strcmp(s->u.alloc.scope, "warp") != 0)
    return ir_mutate_children_stmt(&w->m, s);
  Warp wp;
  if (!layout(w, s, &wp)) return s;
  Warp *grown = arena_alloc(w->ctx->arena, (size_t)(w->nwarps + 1) * sizeof *grown);
  if (w->nwarps) memcpy(grown, w->warps, (size_t)w->nwarps * sizeof *grown);
  grown[w->nwarps++] = wp;
  w->warps = grown;
  Stmt *body = ir_mutate_stmt(&w->m, s->u.alloc.body);
  w->nwarps--;
  Expr *ext = wp.local->shape[0];
  return ir_allocate(w->m.arena, s->u.alloc.buffer_var, s->u.alloc.dtype, 1, &ext, "local",
                     s->u.alloc.condition, body);
}

static Stmt *lower_for(Lower *w, Stmt *s) {
  Expr *min = ir_mutate_expr(&w->m, s->u.for_.min), *ext = ir_mutate_expr(&w->m, s->u.for_.extent);
  arith_bind(w->an, s->u.for_.var, (Range){min, ext});
  derive(w, s->u.for_.var, min, ext);
  bool some = varies(&w->warp_varying, min) || varies(&w->warp_varying, ext);
  w->divergent += some;
  Stmt *body = ir_mutate_stmt(&w->m, s->u.for_.body);
  w->divergent -= some;
  if (min == s->u.for_.min && ext == s->u.for_.extent && body == s->u.for_.body) return s;
  return ir_for(w->m.arena, s->u.for_.var, min, ext, s->u.for_.fkind, s->u.for_.thread_tag, body);
}

static Stmt *lower_if(Lower *w, Stmt *s) {
  Expr *c = ir_mutate_expr(&w->m, s->u.if_.cond);
  bool some = varies(&w->warp_varying, c);
  w->divergent += some;
  Stmt *then = ir_mutate_stmt(&w->m, s->u.if_.then);
  Stmt *orelse = s->u.if_.orelse ? ir_mutate_stmt(&w->m, s->u.if_.orelse) : NULL;
  w->divergent -= some;
  if (c == s->u.if_.cond && then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
  return ir_if(w->m.arena, c, then, orelse);
}

static Stmt *lower_let(Lower *w, Stmt *s) {
  Expr *value = ir_mutate_expr(&w->m, s->u.let.value);
  enter_let(w, s->u.let.var, value);
  Stmt *body = ir_mutate_stmt(&w->m, s->u.let.body);
  if (value == s->u.let.value && body == s->u.let.body) return s;
  return ir_let_stmt(w->m.arena, s->u.let.var, value, body);
}

static Stmt *lower_attr(Lower *w, Stmt *s) {
  bool kernel = is_thread_extent(s) && !w->in_kernel;
  if (kernel) {
    scan_kernel(w, s);
    w->in_kernel = true;
  }
  if (s->u.attr.nkind == ATTR_NODE_ITERVAR && (strcmp(s->u.attr.key, "thread_extent") == 0 ||
                                               strcmp(s->u.attr.key, "virtual_thread") == 0)) {
    Var *v = ((IterVar *)s->u.attr.node)->var;
    arith_bind(w->an, v, (Range){arith_const(w->m.arena, v->dtype, 0), s->u.attr.value});
  }
  Stmt *r = ir_mutate_children_stmt(&w->m, s);
  if (kernel) w->in_kernel = false;
  return r;
}

static Stmt *lower_stmt(IrMutator *m, Stmt *s) {
  Lower *w = (Lower *)m;
  if (failed(w)) return s;
  switch (s->kind) {
  case STMT_ATTR:
    return lower_attr(w, s);
  case STMT_ALLOCATE:
    return lower_allocate(w, s);
  case STMT_STORE:
    return lower_store(w, s);
  case STMT_FOR:
    return lower_for(w, s);
  case STMT_IF:
    return lower_if(w, s);
  case STMT_LET:
    return lower_let(w, s);
  case STMT_SEQ:
  case STMT_PROVIDE:
  case STMT_REALIZE:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    return ir_mutate_children_stmt(m, s);
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* ---- the pass ---- */

static bool warp_alloc(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind == STMT_ALLOCATE && s->u.alloc.scope && strcmp(s->u.alloc.scope, "warp") == 0;
}

Stmt *pass_lower_warp_memory(Stmt *s, PassCtx *ctx) {
  if (!ir_stmt_any(s, NULL, warp_alloc, NULL)) return s;
  Lower w = {.m = {ctx->arena, lower_expr, lower_stmt}, .ctx = ctx, .an = arith_new(ctx->arena)};
  ptrmap_init(&w.lane_varying, ctx->arena);
  ptrmap_init(&w.warp_varying, ctx->arena);
  Stmt *r = ir_mutate_stmt(&w.m, s);
  arith_free(w.an);
  return diag_failed(ctx->diag) ? s : r;
}
