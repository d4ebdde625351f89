/* vta_phase3: the last of VTA's passes (vta.build_config's phase 3, after
 *   tir.LowerDeviceStorageAccessInfo):
 *   vta.FoldUopLoop: in a GEMM's micro-op kernel (`coproc_uop_scope` "VTAPushGEMMOp"), up to
 *     two outermost loops whose micro-ops' three indices (accumulator, input, weight) are each
 *     linear in the loop variable, with the same factor at every micro-op, become VTA's
 *     micro-op loops: `VTAUopLoopBegin(extent, dst_factor, src_factor, wgt_factor)` before the
 *     rest of the kernel, the loop variable gone from the indices, `VTAUopLoopEnd()` after.
 *     A loop that does not fold stays a loop of the kernel (its micro-ops recorded one by
 *     one). Error: a call in the kernel other than micro-ops and the command handle.
 *   vta.CPUAccessRewrite: a load or store the CPU does (what is left of them after VTA's
 *     passes) goes through `BUF_ptr = VTABufferCPUPtr(cmd, BUF)`, VTA's runtime giving the
 *     host's address of a buffer in VTA's memory: let-bound inside the buffer's allocation, or
 *     at the top of the function for an argument.
 * Assumes: flat IR; the access pointers into VTA's buffers lowered to element indices.
 * Why here: TVM's phase 3, the end of VTA's lowering: the form vta.build generates code from. */
#include <stdio.h>

#include "ir/pass/vta.h"
#include "ir/ptrmap.h"
#include "ir/support.h"

/* ---- FoldUopLoop ---- */

typedef struct Fold {
  IrMutator m;
  PassCtx *ctx;
  const Var *var;
  Expr *factor[3]; /* NULL until a micro-op gives it */
  bool fail;
} Fold;

static Expr *fold_expr(IrMutator *m, Expr *e) {
  Fold *f = (Fold *)m;
  Expr *r = ir_mutate_children_expr(m, e);
  if (r->kind != EXPR_CALL || f->fail) return r;
  if (vta_is_call(r, "tir.vta.uop_push") && r->u.call.n == 8) {
    Expr *args[8];
    memcpy(args, r->u.call.args, sizeof args);
    for (int i = 0; i < 3; i++) {
      Expr *c[2];
      Var *v = (Var *)f->var;
      if (!vta_linear(m->arena, args[2 + i], 1, &v, c)) return f->fail = true, r;
      if (f->factor[i] && !ir_expr_equal(f->factor[i], c[0])) return f->fail = true, r;
      f->factor[i] = c[0];
      args[2 + i] = c[1];
    }
    return ir_call(m->arena, r->dtype, r->u.call.op, r->u.call.ckind, 8, args);
  }
  if (vta_is_call(r, "tir.vta.command_handle") || vta_is_call(r, "tir.tvm_thread_context"))
    return r;
  vta_fail(f->ctx, "vta.FoldUopLoop", "a GEMM micro-op kernel calls %s, which is not a micro-op",
           r->u.call.op);
  f->fail = true;
  return r;
}

/* Folds body's outermost loop into *begin / *end: its body, or NULL when it does not fold. */
static Stmt *fold_outermost(PassCtx *ctx, Stmt *body, Stmt **begin, Stmt **end) {
  if (body->kind != STMT_FOR) return NULL;
  Arena *a = ctx->arena;
  Fold f = {.m = {.arena = a, .expr = fold_expr}, .ctx = ctx, .var = body->u.for_.var};
  Stmt *r = ir_mutate_stmt(&f.m, body->u.for_.body);
  if (f.fail || !f.factor[0] || !f.factor[1] || !f.factor[2] || ir_stmt_uses_var(r, f.var))
    return NULL;
  Expr *args[4] = {body->u.for_.extent, f.factor[0], f.factor[1], f.factor[2]};
  *begin = ir_evaluate(a, ir_call(a, DT_I32, "VTAUopLoopBegin", CALL_EXTERN, 4, args));
  *end = ir_evaluate(a, ir_call(a, DT_I32, "VTAUopLoopEnd", CALL_EXTERN, 0, NULL));
  return r;
}

typedef struct FoldPass {
  IrMutator m;
  PassCtx *ctx;
} FoldPass;

static bool is_gemm_kernel(const Stmt *s) {
  return s->kind == STMT_ATTR && strcmp(s->u.attr.key, "coproc_uop_scope") == 0 &&
         s->u.attr.value->kind == EXPR_STR && strcmp(s->u.attr.value->u.str, "VTAPushGEMMOp") == 0;
}

static Stmt *fold_stmt(IrMutator *m, Stmt *s) {
  FoldPass *fp = (FoldPass *)m;
  if (!is_gemm_kernel(s)) return ir_mutate_children_stmt(m, s);
  Stmt *begins[2], *ends[2], *body = s->u.attr.body;
  int n = 0;
  for (; n < 2; n++) {
    Stmt *next = fold_outermost(fp->ctx, body, &begins[n], &ends[n]);
    if (!next) break;
    body = next;
  }
  if (n == 0) return s;
  Stmt *items[5];
  int k = 0;
  for (int i = 0; i < n; i++) items[k++] = begins[i];
  items[k++] = body;
  for (int i = n - 1; i >= 0; i--) items[k++] = ends[i];
  return ir_attr(m->arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, s->u.attr.value,
                 ir_seq(m->arena, k, items));
}

Stmt *pass_vta_fold_uop_loop(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  FoldPass fp = {.m = {.arena = ctx->arena, .stmt = fold_stmt}, .ctx = ctx};
  Stmt *r = ir_mutate_stmt(&fp.m, s);
  return diag_failed(ctx->diag) ? s : r;
}

/* ---- CPUAccessRewrite ---- */

typedef struct Cpu {
  IrMutator m;
  PtrMap ptr_of; /* buffer var -> its _ptr var, while pending */
  PtrMap buf_of; /* Buffer -> the same over the _ptr var */
  int n, cap;
  Var **order; /* buffer vars in the order they were first met */
} Cpu;

static Var *ptr_var(Cpu *c, Var *data) {
  Var *p = ptrmap_get(&c->ptr_of, data);
  if (p) return p;
  char name[256];
  snprintf(name, sizeof name, "%s_ptr", data->name);
  p = ir_var(c->m.arena, name, DT_HANDLE64);
  ptrmap_put(&c->ptr_of, data, p);
  VEC_GROW(c->m.arena, c->order, c->cap, c->n + 1);
  c->order[c->n++] = data;
  return p;
}

static Buffer *cpu_buffer(Cpu *c, Buffer *b) {
  Buffer *nb = ptrmap_get(&c->buf_of, b);
  Var *p = ptr_var(c, b->data);
  if (nb && nb->data == p) return nb;
  nb = arena_alloc(c->m.arena, sizeof *nb);
  *nb = *b;
  nb->data = p;
  nb->name = p->name;
  ptrmap_put(&c->buf_of, b, nb);
  return nb;
}

static Stmt *cpu_let(Cpu *c, Var *data, Var *p, Stmt *body) {
  Arena *a = c->m.arena;
  Expr *args[2] = {vta_command_handle(a), ir_varref(a, data)};
  return ir_let_stmt(a, p, ir_call(a, DT_HANDLE64, "VTABufferCPUPtr", CALL_EXTERN, 2, args), body);
}

static Expr *cpu_expr(IrMutator *m, Expr *e) {
  Expr *r = ir_mutate_children_expr(m, e);
  if (r->kind != EXPR_LOAD) return r;
  return ir_load(m->arena, cpu_buffer((Cpu *)m, r->u.load.buf), r->u.load.index,
                 r->u.load.predicate);
}

static Stmt *cpu_stmt(IrMutator *m, Stmt *s) {
  Cpu *c = (Cpu *)m;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (r->kind == STMT_STORE)
    return ir_store(m->arena, cpu_buffer(c, r->u.store.buf), r->u.store.value, r->u.store.index,
                    r->u.store.predicate);
  if (r->kind != STMT_ALLOCATE) return r;
  Var *data = r->u.alloc.buffer_var, *p = ptrmap_get(&c->ptr_of, data);
  if (!p) return r;
  ptrmap_put(&c->ptr_of, data, NULL);
  return ir_allocate(m->arena, data, r->u.alloc.dtype, r->u.alloc.ndim, r->u.alloc.extents,
                     r->u.alloc.scope, r->u.alloc.condition, cpu_let(c, data, p, r->u.alloc.body));
}

Stmt *pass_vta_cpu_access_rewrite(Stmt *s, PassCtx *ctx) {
  if (!ctx->vta) return s;
  Cpu c = {.m = {.arena = ctx->arena, .expr = cpu_expr, .stmt = cpu_stmt}};
  ptrmap_init(&c.ptr_of, ctx->arena);
  ptrmap_init(&c.buf_of, ctx->arena);
  Stmt *r = ir_mutate_stmt(&c.m, s);
  for (int i = 0; i < c.n; i++) {
    Var *p = ptrmap_get(&c.ptr_of, c.order[i]);
    if (p) r = cpu_let(&c, c.order[i], p, r);
  }
  return r;
}
