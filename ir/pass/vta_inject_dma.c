/* vta_inject_dma: VTA's DMA copies (TVM's vta.InjectDMAIntrin, on tir.InjectCopyIntrin).
 *   A copy under `attr "pragma_dma_copy"` (env.dma_copy) between DRAM and one of VTA's on-chip
 *   buffers (local.inp_buffer, local.wgt_buffer, local.acc_buffer) becomes one call of VTA's
 *   runtime: a load into the buffer `VTALoadBuffer2D(cmd, src, src_elem, x_size, y_size,
 *   x_stride, x_pad_before, y_pad_before, x_pad_after, y_pad_after, sram_index, mem_type)`,
 *   a store out of the accumulators `VTAStoreBuffer2D(cmd, sram_index, 4, dst, dst_elem,
 *   x_size, y_size, x_stride)`, each in the `coproc_scope` of its queue (1 loads inputs and
 *   weights, 2 computes and loads accumulators, 3 stores), `cmd` the thread's command handle.
 *   Sizes and offsets count the buffer's elements (BATCH x BLOCK_IN values for the inputs,
 *   BLOCK_OUT x BLOCK_IN for the weights, BATCH x BLOCK_OUT for the accumulators).
 * Assumes: flat buffers (after tir.StorageFlatten); ctx->vta set.
 * Guarantees: every pragma_dma_copy is replaced by its call. Errors on ctx->diag, naming the
 *   buffer and the limit: an on-chip buffer larger than VTA's (INP/WGT/ACC_BUFF_SIZE) or not a
 *   whole number of elements (a shape VTA's blocking does not divide); a copy into or out of
 *   an on-chip buffer without the dma_copy pragma; a copy that is not whole elements, or not
 *   2-D (rows of contiguous elements at one stride), or whose on-chip side is not compact.
 *   A padded load (its value `if_then_else(guard, load, 0)`) pads as VTA's DMA pads: the guard's
 *   bounds on the copy's loops give the pads before/after in y and x, the source skips them;
 *   a guard that is not bounds of the loops, a pad on other loops, a pad value not 0, or a
 *   padded store is an error.
 * Why here: TVM runs it in phase 1 of lowering, after flattening. */
#include <stdarg.h>
#include <stdio.h>

#include "ir/arith/arith.h"
#include "ir/pass/vta.h"
#include "ir/printer.h"
#include "ir/support.h"

enum { MEM_WGT = VTA_MEM_WGT, MEM_INP = VTA_MEM_INP, MEM_ACC = VTA_MEM_ACC, MEM_OUT = VTA_MEM_OUT };
enum { QID_LOAD = VTA_QID_LOAD, QID_COMPUTE = VTA_QID_COMPUTE, QID_STORE = VTA_QID_STORE };

typedef struct Dma {
  IrMutator m;
  PassCtx *ctx;
  Analyzer *an;
} Dma;

#define fail(d, ...) vta_fail((d)->ctx, "vta.InjectDMAIntrin", __VA_ARGS__)
#define mem_of vta_mem_of
#define lanes_of vta_lanes

/* The buffer's bytes per value and its limit's name. */
static int64_t limit_of(const VtaTarget *t, int mem, int *bits, const char **name) {
  *bits = mem == MEM_INP ? t->inp_bits : mem == MEM_WGT ? t->wgt_bits : t->acc_bits;
  *name = mem == MEM_INP ? "INP_BUFF_SIZE" : mem == MEM_WGT ? "WGT_BUFF_SIZE" : "ACC_BUFF_SIZE";
  return mem == MEM_INP ? t->inp_buff_bytes : mem == MEM_WGT ? t->wgt_buff_bytes
                                                            : t->acc_buff_bytes;
}

/* An allocation in an on-chip buffer: fits the buffer and holds whole elements. */
static void check_alloc(Dma *d, const Stmt *s) {
  int mem = mem_of(s->u.alloc.scope);
  if (mem < 0) return;
  const char *name = s->u.alloc.buffer_var->name;
  int64_t n = 1;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    int64_t e;
    if (!ir_as_int(s->u.alloc.extents[i], &e)) {
      fail(d, "buffer %s in %s has a size that is not constant", name, s->u.alloc.scope);
      return;
    }
    n *= e;
  }
  int bits;
  const char *limit;
  int64_t cap = limit_of(d->ctx->vta, mem, &bits, &limit);
  int64_t lanes = lanes_of(d->ctx->vta, mem);
  if (n % lanes != 0)
    fail(d, "buffer %s in %s holds %lld values, not a whole number of VTA's elements of %lld "
            "(the shape must divide by VTA's blocking)",
         name, s->u.alloc.scope, (long long)n, (long long)lanes);
  else if (n * bits / 8 > cap)
    fail(d, "buffer %s in %s needs %lld bytes, more than VTA's %s of %lld bytes", name,
         s->u.alloc.scope, (long long)(n * bits / 8), limit, (long long)cap);
}

/* The loops of a copy nest, outermost first, and its store. */
typedef struct Nest {
  int n;
  Var *vars[16];
  int64_t ext[16];
  const Stmt *store;
} Nest;

static bool nest_of(Dma *d, const Stmt *s, Nest *nest) {
  nest->n = 0;
  while (s->kind == STMT_FOR) {
    int64_t e;
    if (nest->n == 16 || !ir_as_int(s->u.for_.extent, &e))
      return fail(d, "a dma_copy loop over %s has an extent that is not constant",
                  s->u.for_.var->name);
    nest->vars[nest->n] = s->u.for_.var;
    nest->ext[nest->n++] = e;
    s = s->u.for_.body;
  }
  if (s->kind != STMT_STORE) return fail(d, "a dma_copy pragma over a statement that is not a copy loop nest");
  nest->store = s;
  return true;
}

/* index = base + sum(coef[k] * var[k]); false when it is not linear in the loop variables. */
static bool linear(Dma *d, const Nest *nest, Expr *index, Expr **base, int64_t *coef) {
  Arena *a = d->ctx->arena;
  VarMap zero[16];
  for (int k = 0; k < nest->n; k++)
    zero[k] = (VarMap){nest->vars[k], ir_int(a, nest->vars[k]->dtype, 0)};
  *base = arith_simplify(d->an, ir_substitute_expr(a, index, nest->n, zero));
  Expr *sum = *base;
  for (int k = 0; k < nest->n; k++) {
    VarMap one[16];
    memcpy(one, zero, sizeof one);
    one[k].to = ir_int(a, nest->vars[k]->dtype, 1);
    Expr *at1 = ir_substitute_expr(a, index, nest->n, one);
    Expr *c = arith_simplify(d->an, ir_binary(a, EXPR_SUB, at1, *base));
    if (!ir_as_int(c, &coef[k])) return false;
    sum = ir_binary(a, EXPR_ADD, sum,
                    ir_binary(a, EXPR_MUL, ir_int(a, index->dtype, coef[k]),
                              ir_varref(a, nest->vars[k])));
  }
  return arith_can_prove_equal(d->an, sum, index);
}

/* The 2-D pattern of a DRAM side: x_size elements in a row, y_size rows x_stride elements
 * apart; false when the copy is not that. */
typedef struct Pattern {
  int64_t x_size, y_size, x_stride;
} Pattern;

static bool pattern_of(const Nest *nest, const int64_t *coef, int64_t lanes, Pattern *p) {
  /* dims innermost first, extent-1 loops dropped, contiguous ones merged */
  int64_t ext[16], str[16];
  int n = 0;
  for (int k = nest->n - 1; k >= 0; k--) {
    if (nest->ext[k] == 1) continue;
    if (n > 0 && coef[k] == str[n - 1] * ext[n - 1]) {
      ext[n - 1] *= nest->ext[k];
      continue;
    }
    ext[n] = nest->ext[k], str[n] = coef[k], n++;
  }
  if (n == 0) ext[0] = 1, str[0] = 1, n = 1;
  if (str[0] != 1 || ext[0] % lanes != 0) return false;
  p->x_size = ext[0] / lanes;
  p->y_size = 1;
  p->x_stride = p->x_size;
  if (n == 1) return true;
  if (n > 2 || str[1] % lanes != 0) return false;
  p->y_size = ext[1];
  p->x_stride = str[1] / lanes;
  return true;
}

/* The on-chip side must be compact: coefficients row-major over the loops. */
static bool compact(const Nest *nest, const int64_t *coef) {
  int64_t want = 1;
  for (int k = nest->n - 1; k >= 0; k--) {
    if (nest->ext[k] == 1) continue;
    if (coef[k] != want) return false;
    want *= nest->ext[k];
  }
  return true;
}

/* offset / lanes, proven exact */
static Expr *in_elements(Dma *d, Expr *base, int64_t lanes, const char *buf) {
  Arena *a = d->ctx->arena;
  Expr *q = arith_simplify(d->an, ir_binary(a, EXPR_FLOORDIV, base, ir_int(a, base->dtype, lanes)));
  Expr *back = ir_binary(a, EXPR_MUL, q, ir_int(a, base->dtype, lanes));
  if (arith_can_prove_equal(d->an, back, base)) return q;
  StrBuf b = STRBUF_INIT;
  ir_print_expr(&b, base);
  fail(d, "the copy of %s starts at %s, not at a whole element of %lld values", buf, sb_cstr(&b),
       (long long)lanes);
  sb_free(&b);
  return NULL;
}

static Stmt *in_queue(Dma *d, int qid, Expr *call) {
  Arena *a = d->ctx->arena;
  return vta_scope(d->ctx, "coproc_scope", ir_i32(a, qid), ir_evaluate(a, call));
}

/* The on-chip side of a copy as VTA's runtime call takes it: a pointer to its values, which
 * tir.InjectVirtualThread offsets per thread and tir.LowerDeviceStorageAccessInfo turns into
 * an element index (TVM passes `buf.access_ptr("r", "int32")`). */
static Expr *sram_ptr(Dma *d, const Buffer *sram, Expr *base, const Nest *nest) {
  int64_t n = 1;
  for (int k = 0; k < nest->n; k++) n *= nest->ext[k];
  Arena *a = d->ctx->arena;
  return vta_access_ptr(a, sram->data, sram->dtype, base, ir_int(a, base->dtype, n), 1);
}

static const char *buf_text(const Buffer *b) { return b->data ? b->data->name : b->name; }

/* The pad of a guarded load (TVM's clip bounds): each conjunct of the guard bounds one loop
 * variable, v >= lo or v <= hi (linear in it with coefficient +-1); a loop's pad before is
 * max(lo, 0), after max(extent - 1 - hi, 0). False when a conjunct is not such a bound. */
static bool clip_pads(Dma *d, const Nest *nest, Expr *cond, Expr **before, Expr **after) {
  Arena *a = d->ctx->arena;
  if (cond->kind == EXPR_AND)
    return clip_pads(d, nest, cond->u.bin.a, before, after) &&
           clip_pads(d, nest, cond->u.bin.b, before, after);
  Expr *x = cond->u.bin.a, *y = cond->u.bin.b, *e; /* the bound as e <= 0 */
  switch (cond->kind) {
  case EXPR_LE: e = ir_binary(a, EXPR_SUB, x, y); break;
  case EXPR_GE: e = ir_binary(a, EXPR_SUB, y, x); break;
  case EXPR_LT: e = ir_binary(a, EXPR_ADD, ir_binary(a, EXPR_SUB, x, y), ir_int(a, x->dtype, 1)); break;
  case EXPR_GT: e = ir_binary(a, EXPR_ADD, ir_binary(a, EXPR_SUB, y, x), ir_int(a, x->dtype, 1)); break;
  default: return false;
  }
  int k = -1;
  for (int i = 0; i < nest->n; i++)
    if (ir_expr_uses_var(e, nest->vars[i])) {
      if (k >= 0) return false;
      k = i;
    }
  if (k < 0) return false;
  Var *v = nest->vars[k];
  VarMap m0 = {v, ir_int(a, v->dtype, 0)}, m1 = {v, ir_int(a, v->dtype, 1)};
  Expr *rest = arith_simplify(d->an, ir_substitute_expr(a, e, 1, &m0));
  int64_t c;
  Expr *cv = arith_simplify(d->an, ir_binary(a, EXPR_SUB, ir_substitute_expr(a, e, 1, &m1), rest));
  if (!ir_as_int(cv, &c) || (c != 1 && c != -1)) return false;
  Expr *back = ir_binary(a, EXPR_ADD, ir_binary(a, EXPR_MUL, ir_int(a, v->dtype, c), ir_varref(a, v)), rest);
  if (!arith_can_prove_equal(d->an, back, e)) return false;
  Expr *zero = ir_int(a, v->dtype, 0);
  if (c == -1) { /* v >= rest */
    Expr *pb = ir_binary(a, EXPR_MAX, rest, zero);
    before[k] = arith_simplify(d->an, before[k] ? ir_binary(a, EXPR_MAX, before[k], pb) : pb);
  } else { /* v <= -rest: the pad after is extent - 1 + rest */
    Expr *pa = ir_binary(a, EXPR_MAX, ir_binary(a, EXPR_ADD, ir_int(a, v->dtype, nest->ext[k] - 1), rest), zero);
    after[k] = arith_simplify(d->an, after[k] ? ir_binary(a, EXPR_MAX, after[k], pa) : pa);
  }
  return true;
}

static bool is_zero(Expr *e) {
  int64_t c;
  return !e || (ir_as_int(e, &c) && c == 0);
}

/* A padded load (VTA's DMA pads in y and x only, without folding loops): the nest is
 * [y, x, lanes] or [.., y, x, ..] as VTA reads it (3 or 4 loops: y, x first; 5: the 2nd and
 * 3rd), the innermost loop one element, x contiguous elements; NULL with the diag set. */
static Stmt *inject_padded(Dma *d, const Nest *nest, const Buffer *dst, const Expr *sel,
                           int mem) {
  Arena *a = d->ctx->arena;
  const Expr *ld = sel->u.call.args[1];
  if (ld->kind == EXPR_CAST) ld = ld->u.unary.a;
  if (ld->kind != EXPR_LOAD || mem_of(ld->u.load.buf->scope) >= 0)
    return fail(d, "the padded DMA copy into %s does not load from DRAM", buf_text(dst)), NULL;
  const Buffer *src = ld->u.load.buf;
  Expr *before[16] = {0}, *after[16] = {0};
  if (!clip_pads(d, nest, sel->u.call.args[0], before, after)) {
    StrBuf b = STRBUF_INIT;
    ir_print_expr(&b, sel->u.call.args[0]);
    fail(d, "the padding of the DMA copy into %s has a guard (%s) that is not bounds of its "
            "loops (v >= lo, v <= hi), which VTA's DMA cannot express", buf_text(dst), sb_cstr(&b));
    sb_free(&b);
    return NULL;
  }
  int n = nest->n, y = n == 5 ? 1 : 0, x = y + 1;
  int64_t lanes = lanes_of(d->ctx->vta, mem);
  for (int k = 0; k < n; k++)
    if (k != y && k != x && !(is_zero(before[k]) && is_zero(after[k])))
      return fail(d, "the DMA copy into %s pads loop %s: VTA's DMA pads only in y and x (the "
                     "copy's loops %s)", buf_text(dst), nest->vars[k]->name,
                  n == 5 ? "2 and 3 of 5" : "1 and 2 of 3 or 4"), NULL;
  Expr *sbase, *dbase;
  int64_t scoef[16], dcoef[16];
  bool ok = n >= 3 && n <= 5 && linear(d, nest, nest->store->u.store.index, &sbase, scoef) &&
            compact(nest, scoef) && linear(d, nest, ld->u.load.index, &dbase, dcoef);
  int64_t want = 1; /* the loops inside x: one element, contiguous */
  for (int k = n - 1; ok && k > x; k--) {
    ok = nest->ext[k] == 1 || dcoef[k] == want;
    want *= nest->ext[k];
  }
  for (int k = 0; k < y; k++) ok = ok && nest->ext[k] == 1;
  if (!ok || want != lanes || dcoef[x] != lanes || dcoef[y] % lanes != 0)
    return fail(d, "the padded DMA copy from %s into %s is not rows of whole elements of %lld "
                   "values at one stride, its loops y, x, then one element (VTA's 2-D DMA)",
                buf_text(src), buf_text(dst), (long long)lanes), NULL;
  if (!is_zero(sel->u.call.args[2]))
    return fail(d, "the padded DMA copy into %s pads with a value that is not 0 (VTA's DMA pads "
                   "with zeros)", buf_text(dst)), NULL;
  Expr *z = ir_i32(a, 0);
  Expr *pb[2] = {before[y] ? before[y] : z, before[x] ? before[x] : z};
  Expr *pa[2] = {after[y] ? after[y] : z, after[x] ? after[x] : z};
  Expr *off = ir_binary(a, EXPR_ADD, dbase,
                        ir_binary(a, EXPR_ADD, ir_binary(a, EXPR_MUL, pb[0], ir_i32(a, dcoef[y])),
                                  ir_binary(a, EXPR_MUL, pb[1], ir_i32(a, dcoef[x]))));
  Expr *x_size = arith_simplify(d->an, ir_binary(a, EXPR_SUB, ir_binary(a, EXPR_SUB,
                                ir_i32(a, nest->ext[x]), pb[1]), pa[1]));
  Expr *y_size = arith_simplify(d->an, ir_binary(a, EXPR_SUB, ir_binary(a, EXPR_SUB,
                                ir_i32(a, nest->ext[y]), pb[0]), pa[0]));
  Expr *sram_idx = in_elements(d, sbase, lanes, buf_text(dst));
  Expr *dram_off = sram_idx ? in_elements(d, arith_simplify(d->an, off), lanes, buf_text(src)) : NULL;
  if (!dram_off) return NULL;
  Expr *args[12] = {vta_command_handle(a), ir_varref(a, src->data), dram_off, x_size, y_size,
                    ir_i32(a, dcoef[y] / lanes), pb[1], pb[0], pa[1], pa[0],
                    sram_ptr(d, dst, sbase, nest),
                    ir_i32(a, mem)};
  return in_queue(d, mem == MEM_ACC ? QID_COMPUTE : QID_LOAD,
                  ir_call(a, DT_I32, "VTALoadBuffer2D", CALL_EXTERN, 12, args));
}

/* The call for one pragma_dma_copy's body; NULL with the diag set. */
static Stmt *inject(Dma *d, const Stmt *body) {
  Arena *a = d->ctx->arena;
  Nest nest;
  if (!nest_of(d, body, &nest)) return NULL;
  const Stmt *st = nest.store;
  const Buffer *dst = st->u.store.buf;
  const Expr *v = st->u.store.value;
  if (v->kind == EXPR_CAST) v = v->u.unary.a;
  if (v->kind == EXPR_CALL && strcmp(v->u.call.op, "tir.if_then_else") == 0) {
    if (mem_of(dst->scope) < 0)
      return fail(d, "the padded copy into %s (%s) is not a load into one of VTA's buffers "
                     "(VTA's DMA pads loads only)", buf_text(dst), dst->scope), NULL;
    return inject_padded(d, &nest, dst, v, mem_of(dst->scope));
  }
  if (v->kind != EXPR_LOAD)
    return fail(d, "the dma_copy pragma is on a computation of %s, not a copy", buf_text(dst)),
           NULL;
  const Buffer *src = v->u.load.buf;
  int dmem = mem_of(dst->scope), smem = mem_of(src->scope);
  if ((dmem < 0) == (smem < 0) || (smem >= 0 && smem != MEM_ACC))
    return fail(d, "the DMA copy from %s (%s) into %s (%s) is not between DRAM and one of "
                   "VTA's buffers as VTA copies (a load into local.inp_buffer, local.wgt_buffer "
                   "or local.acc_buffer, a store out of local.acc_buffer)",
                buf_text(src), src->scope, buf_text(dst), dst->scope), NULL;
  bool load = dmem >= 0;
  const Buffer *sram = load ? dst : src, *dram = load ? src : dst;
  int mem = load ? dmem : smem;
  int64_t lanes = lanes_of(d->ctx->vta, mem);
  Expr *sbase, *dbase;
  int64_t scoef[16], dcoef[16];
  Expr *sidx = load ? st->u.store.index : v->u.load.index;
  Expr *didx = load ? v->u.load.index : st->u.store.index;
  if (!linear(d, &nest, sidx, &sbase, scoef) || !compact(&nest, scoef))
    return fail(d, "the DMA copy's side in %s (%s) is not compact in its loops", buf_text(sram),
                sram->scope), NULL;
  Pattern p;
  if (!linear(d, &nest, didx, &dbase, dcoef) || !pattern_of(&nest, dcoef, lanes, &p))
    return fail(d, "the DMA copy %s %s is not rows of whole elements of %lld values at one "
                   "stride (VTA's 2-D DMA)",
                load ? "from" : "into", buf_text(dram), (long long)lanes), NULL;
  Expr *sram_idx = in_elements(d, sbase, lanes, buf_text(sram));
  Expr *dram_off = sram_idx ? in_elements(d, dbase, lanes, buf_text(dram)) : NULL;
  if (!dram_off) return NULL;
  Expr *cmd = vta_command_handle(a);
  Expr *ptr = sram_ptr(d, sram, sbase, &nest);
  Expr *data = ir_varref(a, dram->data);
  if (load) {
    Expr *args[12] = {cmd, data, dram_off, ir_i32(a, p.x_size), ir_i32(a, p.y_size),
                      ir_i32(a, p.x_stride), ir_i32(a, 0), ir_i32(a, 0), ir_i32(a, 0),
                      ir_i32(a, 0), ptr, ir_i32(a, mem)};
    return in_queue(d, mem == MEM_ACC ? QID_COMPUTE : QID_LOAD,
                    ir_call(a, DT_I32, "VTALoadBuffer2D", CALL_EXTERN, 12, args));
  }
  Expr *args[8] = {cmd, ptr, ir_i32(a, MEM_OUT), data, dram_off, ir_i32(a, p.x_size),
                   ir_i32(a, p.y_size), ir_i32(a, p.x_stride)};
  return in_queue(d, QID_STORE, ir_call(a, DT_I32, "VTAStoreBuffer2D", CALL_EXTERN, 8, args));
}

static Stmt *mutate_stmt(IrMutator *m, Stmt *s) {
  Dma *d = (Dma *)m;
  if (diag_failed(d->ctx->diag)) return s;
  if (s->kind == STMT_ALLOCATE) check_alloc(d, s);
  if (vta_is_pragma(s, "skip_dma_copy")) return s; /* vta.InjectSkipCopy drops it */
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "pragma_dma_copy") == 0) {
    Stmt *r = inject(d, s->u.attr.body);
    return r ? r : s;
  }
  if (s->kind == STMT_FOR) {
    int64_t e;
    if (ir_as_int(s->u.for_.extent, &e) && ir_as_int(s->u.for_.min, &(int64_t){0}))
      arith_bind(d->an, s->u.for_.var, (Range){s->u.for_.min, s->u.for_.extent});
  }
  if (s->kind == STMT_STORE) {
    const Expr *v = s->u.store.value;
    if (v->kind == EXPR_CAST) v = v->u.unary.a;
    const Buffer *dst = s->u.store.buf;
    int dmem = mem_of(dst->scope);
    bool from_acc = v->kind == EXPR_LOAD && mem_of(v->u.load.buf->scope) == MEM_ACC && dmem < 0;
    if (dmem == MEM_INP || dmem == MEM_WGT || from_acc) {
      const Buffer *b = from_acc ? v->u.load.buf : dst;
      fail(d, "the copy %s %s (%s) has no dma_copy pragma: VTA moves its buffers by DMA "
              "(s[%s].pragma(axis, env.dma_copy))",
           from_acc ? "out of" : "into", buf_text(b), b->scope,
           from_acc ? buf_text(dst) : buf_text(b));
      return s;
    }
  }
  return ir_mutate_children_stmt(m, s);
}

Stmt *pass_vta_inject_dma(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  vta_axis(ctx, s);
  Dma d = {.m = {.arena = ctx->arena, .stmt = mutate_stmt}, .ctx = ctx, .an = arith_new(ctx->arena)};
  Stmt *r = ir_mutate_stmt(&d.m, s);
  arith_free(d.an);
  return diag_failed(ctx->diag) ? s : r;
}
