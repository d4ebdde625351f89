/* lower_device_storage_access_info: pointers into a device's own memories become indices
 *   (TVM's tir.LowerDeviceStorageAccessInfo, as VTA's lowering runs it in phase 3).
 *   VTA's on-chip buffers (local.inp_buffer, local.wgt_buffer, local.acc_buffer) are not
 *   memory the host addresses: their allocations go, and each
 *   `tvm_access_ptr(type_annotation(T), buf, offset, extent, mask)` into one becomes the index
 *   of the buffer's element where offset points, offset / (element bits / bits of T), cast to
 *   the call's type (VTA's runtime calls and micro-ops take element indices).
 * Assumes: flat IR; ctx->vta set (the memories are VTA's).
 * Guarantees: no allocation in a VTA scope and no access_ptr into one remains; other
 *   access_ptrs are left to the code generator. Error: an access whose type does not divide
 *   the element, or an offset that is not a whole element.
 * Why here: last but two, after tir.Simplify: the offsets tir.InjectVirtualThread gave each
 *   thread are in, and vta.FoldUopLoop then reads the indices' linear forms. */
#include "ir/arith/arith.h"
#include "ir/pass/vta.h"
#include "ir/printer.h"
#include "ir/ptrmap.h"
#include "ir/support.h"

#define PASS "tir.LowerDeviceStorageAccessInfo"

typedef struct Lower {
  IrMutator m;
  PassCtx *ctx;
  Analyzer *an;
  PtrMap unit; /* buffer var -> bits of one element, as intptr_t */
} Lower;

static int64_t elem_bits(const VtaTarget *t, int mem) {
  int bits = mem == VTA_MEM_INP ? t->inp_bits : mem == VTA_MEM_WGT ? t->wgt_bits : t->acc_bits;
  return vta_lanes(t, mem) * bits;
}

/* e / k term by term, keeping e's order of terms, when every term is a multiple of k; NULL
 * otherwise. */
static Expr *div_terms(Arena *a, Expr *e, int64_t k) {
  int64_t c;
  if (ir_as_int(e, &c)) return c % k == 0 ? ir_int(a, e->dtype, c / k) : NULL;
  if (e->kind == EXPR_ADD || e->kind == EXPR_SUB) {
    Expr *x = div_terms(a, e->u.bin.a, k), *y = x ? div_terms(a, e->u.bin.b, k) : NULL;
    return y ? arith_binary(a, e->kind, x, y) : NULL;
  }
  if (e->kind == EXPR_MUL && ir_as_int(e->u.bin.b, &c) && c % k == 0)
    return arith_binary(a, EXPR_MUL, e->u.bin.a, ir_int(a, e->dtype, c / k));
  return NULL;
}

static Expr *lower_expr(IrMutator *m, Expr *e) {
  Lower *lw = (Lower *)m;
  Expr *r = ir_mutate_children_expr(m, e);
  if (!vta_is_call(r, "tir.tvm_access_ptr") || r->u.call.n != 5 ||
      r->u.call.args[1]->kind != EXPR_VAR)
    return r;
  const Var *buf = r->u.call.args[1]->u.var;
  int64_t unit = (intptr_t)ptrmap_get(&lw->unit, buf);
  if (!unit) return r;
  Arena *a = m->arena;
  DType t = r->u.call.args[0]->dtype;
  int64_t bits = (int64_t)t.bits * t.lanes;
  if (bits <= 0 || unit % bits != 0) {
    vta_fail(lw->ctx, PASS, "an access to %s counts values of %lld bits, which do not divide its "
                            "elements of %lld bits", buf->name, (long long)bits, (long long)unit);
    return r;
  }
  Expr *off = r->u.call.args[2];
  Expr *per = ir_int(a, off->dtype, unit / bits);
  Expr *rem = arith_simplify(lw->an, ir_binary(a, EXPR_FLOORMOD, off, per));
  if (!ir_is_const_int(rem, 0)) {
    StrBuf sb = STRBUF_INIT;
    ir_print_expr(&sb, off);
    vta_fail(lw->ctx, PASS, "an access to %s starts at value %s, not at a whole element of %lld "
                            "values", buf->name, sb_cstr(&sb), (long long)(unit / bits));
    sb_free(&sb);
    return r;
  }
  Expr *idx = div_terms(a, off, unit / bits);
  if (!idx) idx = arith_simplify(lw->an, ir_binary(a, EXPR_FLOORDIV, off, per));
  return arith_cast(a, r->dtype, idx);
}

static Stmt *lower_stmt(IrMutator *m, Stmt *s) {
  Lower *lw = (Lower *)m;
  if (s->kind == STMT_FOR && ir_is_const_int(s->u.for_.min, 0))
    arith_bind(lw->an, s->u.for_.var, (Range){s->u.for_.min, s->u.for_.extent});
  if (s->kind == STMT_ALLOCATE) {
    int mem = vta_mem_of(s->u.alloc.scope);
    if (mem >= 0) {
      ptrmap_put(&lw->unit, s->u.alloc.buffer_var, (void *)(intptr_t)elem_bits(lw->ctx->vta, mem));
      return ir_mutate_stmt(m, s->u.alloc.body);
    }
  }
  return ir_mutate_children_stmt(m, s);
}

Stmt *pass_lower_device_storage_access_info(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  Lower lw = {.m = {.arena = ctx->arena, .expr = lower_expr, .stmt = lower_stmt}, .ctx = ctx,
              .an = arith_new(ctx->arena)};
  ptrmap_init(&lw.unit, ctx->arena);
  Stmt *r = ir_mutate_stmt(&lw.m, s);
  arith_free(lw.an);
  return diag_failed(ctx->diag) ? s : r;
}
