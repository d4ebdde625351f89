/* vta_alu: VTA's ALU micro-ops (TVM's vta.InjectALUIntrin).
 *   The loop nest under `pragma_alu` (in its coproc_uop_scope "VTAPushALUOp", from
 *   vta.AnnotateALUCoProcScope) is one elementwise stage on the accumulators, in place:
 *   `acc[d] = op(acc[s], acc[d])` or `acc[d] = op(acc[s], imm)`, op one of VTA's ALU opcodes:
 *   min (0), max (1), + (2), shift_right (3; shift_left by n is a right shift by -n), * (4);
 *   a plain copy is a shift by 0. Its innermost loop walks one element (BATCH x BLOCK_OUT
 *   values; with BATCH > 1 the two innermost loops); the loops outside become micro-op loops,
 *   neighbours that stride alike merged into one, and the stage becomes
 *   `VTAUopLoopBegin(extent, dst_factor, src_factor, 0)` per loop, then
 *   `@tir.vta.uop_push(1, 0, dst, src, 0, opcode, use_imm, imm)` and a `VTAUopLoopEnd()` per
 *   loop, factors and indices counted in elements.
 * Assumes: flat IR after tir.InjectVirtualThread (the indices carry each thread's offset) and
 *   tir.StorageRewrite (the stages in place).
 * Guarantees: no pragma_alu remains. Errors (LowerError, naming the buffer and the limit): an
 *   operation VTA's ALU lacks, a stage that is not in place, an index that is not linear in
 *   the loops or does not walk whole elements, and a stage that needs more than the two
 *   micro-op loops VTA nests.
 * Why here: TVM's phase 2, after the loops are unrolled; before tir.Simplify. */
#include "ir/arith/arith.h"
#include "ir/pass/vta.h"
#include "ir/printer.h"
#include "ir/support.h"

#define PASS "vta.InjectALUIntrin"

enum { ALU_MIN = 0, ALU_MAX = 1, ALU_ADD = 2, ALU_SHR = 3, ALU_MUL = 4 };
enum { MAX_LOOPS = 16, MAX_UOP_LOOPS = 2 };

typedef struct Alu {
  IrMutator m;
  PassCtx *ctx;
  Analyzer *an;
} Alu;

static const char *buf_name(const Buffer *b) { return b->data ? b->data->name : b->name; }

/* The opcode of value, its operands in *lhs, *rhs; -1 with the diag set for one VTA lacks. */
static int opcode_of(Alu *al, const Buffer *dst, Expr *v, Expr **lhs, Expr **rhs) {
  Arena *a = al->ctx->arena;
  switch (v->kind) {
  case EXPR_ADD: *lhs = v->u.bin.a, *rhs = v->u.bin.b; return ALU_ADD;
  case EXPR_MUL: *lhs = v->u.bin.a, *rhs = v->u.bin.b; return ALU_MUL;
  case EXPR_MIN: *lhs = v->u.bin.a, *rhs = v->u.bin.b; return ALU_MIN;
  case EXPR_MAX: *lhs = v->u.bin.a, *rhs = v->u.bin.b; return ALU_MAX;
  case EXPR_LOAD: *lhs = v, *rhs = ir_i32(a, 0); return ALU_SHR;
  case EXPR_CALL:
    if (strcmp(v->u.call.op, "tir.shift_right") == 0 && v->u.call.n == 2) {
      *lhs = v->u.call.args[0], *rhs = v->u.call.args[1];
      return ALU_SHR;
    }
    if (strcmp(v->u.call.op, "tir.shift_left") == 0 && v->u.call.n == 2) {
      *lhs = v->u.call.args[0];
      Expr *n = v->u.call.args[1];
      *rhs = arith_simplify(al->an, ir_binary(a, EXPR_SUB, ir_int(a, n->dtype, 0), n));
      return ALU_SHR;
    }
    break;
  default:
    break;
  }
  StrBuf b = STRBUF_INIT;
  ir_print_expr(&b, v);
  vta_fail(al->ctx, PASS, "the ALU stage of %s computes %s, which VTA's ALU cannot (its "
                          "operations: min, max, +, *, shift_right, shift_left)",
           buf_name(dst), sb_cstr(&b));
  sb_free(&b);
  return -1;
}

typedef struct Loops {
  int n;
  Var *vars[MAX_LOOPS];
  int64_t ext[MAX_LOOPS];
} Loops;

/* The element-sized index coefficients of idx over the loops: the outer loops' factors and the
 * offset, each divided by the element's values; false with the diag set. */
static bool element_coeffs(Alu *al, const Buffer *b, Expr *idx, const Loops *l, int inner,
                           Expr **out) {
  Arena *a = al->ctx->arena;
  const VtaTarget *t = al->ctx->vta;
  int64_t lanes = (int64_t)t->batch * t->block_out;
  Expr *coef[MAX_LOOPS + 1];
  if (!vta_linear(a, idx, l->n, l->vars, coef))
    return vta_fail(al->ctx, PASS, "the ALU stage's index into %s is not linear in its loops",
                    buf_name(b));
  int64_t c;
  /* the element's own loops: the values in a row, then (BATCH > 1) the rows */
  if (!ir_as_int(coef[l->n - 1], &c) || c != 1 || l->ext[l->n - 1] != t->block_out ||
      (inner == 2 && (!ir_as_int(coef[l->n - 2], &c) || c != t->block_out ||
                      l->ext[l->n - 2] != t->batch)))
    return vta_fail(al->ctx, PASS, "the ALU stage over %s does not walk whole elements of %lld "
                                   "values in its innermost loop%s (VTA's ALU works on elements)",
                    buf_name(b), (long long)lanes, inner == 2 ? "s" : "");
  int n = l->n - inner;
  coef[n] = coef[l->n];
  for (int k = 0; k <= n; k++) {
    Expr *rem = arith_simplify(al->an, ir_binary(a, EXPR_FLOORMOD, coef[k], ir_int(a, coef[k]->dtype, lanes)));
    if (!ir_is_const_int(rem, 0)) {
      StrBuf s = STRBUF_INIT;
      ir_print_expr(&s, coef[k]);
      vta_fail(al->ctx, PASS, "the ALU stage over %s %s %s values, not a whole number of VTA's "
                              "elements of %lld", buf_name(b),
               k < n ? "steps by" : "starts at", sb_cstr(&s), (long long)lanes);
      sb_free(&s);
      return false;
    }
    out[k] = arith_simplify(al->an, ir_binary(a, EXPR_FLOORDIV, coef[k], ir_int(a, coef[k]->dtype, lanes)));
  }
  return true;
}

static bool same_coeffs(Alu *al, Expr **x, Expr **y, int n) {
  for (int k = 0; k <= n; k++)
    if (!arith_can_prove_equal(al->an, x[k], y[k])) return false;
  return true;
}

static bool is_acc_load(const Expr *e, const Buffer *dst) {
  return e->kind == EXPR_LOAD && e->u.load.buf->data == dst->data;
}

/* The micro-ops of one pragma_alu body; NULL with the diag set. */
static Stmt *inject(Alu *al, Stmt *body) {
  Arena *a = al->ctx->arena;
  const VtaTarget *t = al->ctx->vta;
  Loops l = {0};
  Stmt *s = body;
  for (; s->kind == STMT_FOR; s = s->u.for_.body) {
    if (l.n == MAX_LOOPS || !ir_as_int(s->u.for_.extent, &l.ext[l.n]) ||
        !ir_is_const_int(s->u.for_.min, 0))
      return vta_fail(al->ctx, PASS, "the ALU loop over %s does not run from 0 to a constant",
                      s->u.for_.var->name), NULL;
    l.vars[l.n++] = s->u.for_.var;
  }
  if (s->kind != STMT_STORE)
    return vta_fail(al->ctx, PASS, "an alu pragma over a statement that is not a loop nest of "
                                   "one store"), NULL;
  const Buffer *dst = s->u.store.buf;
  Expr *v = s->u.store.value, *lhs, *rhs;
  int op = opcode_of(al, dst, v, &lhs, &rhs);
  if (op < 0) return NULL;
  int inner = t->batch > 1 ? 2 : 1;
  if (l.n < inner)
    return vta_fail(al->ctx, PASS, "the ALU stage of %s has %d loops, fewer than an element's "
                                   "%d", buf_name(dst), l.n, inner), NULL;
  int n = l.n - inner;
  Expr *dc[MAX_LOOPS + 1], *sc[MAX_LOOPS + 1], *imm = NULL;
  if (!element_coeffs(al, dst, s->u.store.index, &l, inner, dc)) return NULL;
  if (rhs->kind == EXPR_INT && is_acc_load(lhs, dst)) {
    imm = rhs;
    if (!element_coeffs(al, dst, lhs->u.load.index, &l, inner, sc)) return NULL;
  } else if (lhs->kind == EXPR_INT && is_acc_load(rhs, dst)) {
    imm = lhs;
    if (!element_coeffs(al, dst, rhs->u.load.index, &l, inner, sc)) return NULL;
  } else if (is_acc_load(lhs, dst) && is_acc_load(rhs, dst)) {
    Expr *lc[MAX_LOOPS + 1], *rc[MAX_LOOPS + 1];
    if (!element_coeffs(al, dst, lhs->u.load.index, &l, inner, lc) ||
        !element_coeffs(al, dst, rhs->u.load.index, &l, inner, rc))
      return NULL;
    bool lsame = same_coeffs(al, dc, lc, n), rsame = same_coeffs(al, dc, rc, n);
    if (!lsame && !rsame)
      return vta_fail(al->ctx, PASS, "the ALU stage of %s is not in place: neither operand is "
                                     "the element it writes (VTA's ALU computes dst = op(dst, src))",
                      buf_name(dst)), NULL;
    memcpy(sc, lsame ? rc : lc, sizeof sc);
  } else {
    return vta_fail(al->ctx, PASS, "the ALU stage of %s reads something other than %s itself "
                                   "and a constant (VTA's ALU works in the accumulator buffer, "
                                   "in place)", buf_name(dst), buf_name(dst)), NULL;
  }
  /* merge neighbouring loops that stride alike (TVM's _flatten_loop), innermost first */
  Expr *ext[MAX_LOOPS], *mdst[MAX_LOOPS], *msrc[MAX_LOOPS];
  int m = 0;
  for (int k = n - 1; k >= 0; k--) {
    Expr *e = ir_int(a, DT_I32, l.ext[k]);
    if (m > 0 &&
        arith_can_prove_equal(al->an, sc[k], ir_binary(a, EXPR_MUL, msrc[m - 1], ext[m - 1])) &&
        arith_can_prove_equal(al->an, dc[k], ir_binary(a, EXPR_MUL, mdst[m - 1], ext[m - 1]))) {
      ext[m - 1] = arith_simplify(al->an, ir_binary(a, EXPR_MUL, ext[m - 1], e));
      continue;
    }
    ext[m] = e, mdst[m] = dc[k], msrc[m] = sc[k], m++;
  }
  if (m > MAX_UOP_LOOPS)
    return vta_fail(al->ctx, PASS, "the ALU stage of %s needs %d micro-op loops, more than the "
                                   "%d VTA nests", buf_name(dst), m, MAX_UOP_LOOPS), NULL;
  Stmt **items = arena_alloc(a, (size_t)(2 * m + 1) * sizeof *items);
  int k = 0;
  for (int i = m - 1; i >= 0; i--) {
    Expr *args[4] = {ext[i], mdst[i], msrc[i], ir_i32(a, 0)};
    items[k++] = ir_evaluate(a, ir_call(a, DT_I32, "VTAUopLoopBegin", CALL_EXTERN, 4, args));
  }
  Expr *args[8] = {ir_i32(a, 1), ir_i32(a, 0), dc[n], sc[n], ir_i32(a, 0), ir_i32(a, op),
                   ir_i32(a, imm ? 1 : 0), imm ? imm : ir_i32(a, 0)};
  items[k++] = ir_evaluate(a, ir_call(a, DT_I32, "tir.vta.uop_push", CALL_EFFECT, 8, args));
  for (int i = 0; i < m; i++)
    items[k++] = ir_evaluate(a, ir_call(a, DT_I32, "VTAUopLoopEnd", CALL_EXTERN, 0, NULL));
  return ir_seq(a, k, items);
}

static Stmt *alu_stmt(IrMutator *m, Stmt *s) {
  Alu *al = (Alu *)m;
  if (diag_failed(al->ctx->diag)) return s;
  if (vta_is_pragma(s, "alu")) {
    Stmt *r = inject(al, s->u.attr.body);
    return r ? r : s;
  }
  return ir_mutate_children_stmt(m, s);
}

Stmt *pass_vta_inject_alu(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  Alu al = {.m = {.arena = ctx->arena, .stmt = alu_stmt}, .ctx = ctx, .an = arith_new(ctx->arena)};
  Stmt *r = ir_mutate_stmt(&al.m, s);
  arith_free(al.an);
  return diag_failed(ctx->diag) ? s : r;
}
