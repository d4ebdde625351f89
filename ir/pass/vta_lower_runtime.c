/* vta_lower_runtime: VTA's builtins in lowered IR become calls of VTA's runtime, for the host's
 * code generator (what TVM's codegen_cpu does with them, as plain calls).
 *   @tir.tvm_thread_context(x)            -> x
 *   @tir.vta.command_handle()             -> VTATLSCommandHandle()
 *   @tir.vta.coproc_dep_push(from, to)    -> VTADepPush(cmd, from, to)   (pop: VTADepPop)
 *   @tir.vta.coproc_sync()                -> VTASynchronize(cmd, 2^31 - 1)
 *   @tir.vta.uop_push(mode, reset, dst, src, wgt, opcode, use_imm, imm)
 *                                         -> VTAUopPush(the same)
 *   attr "coproc_scope" = q { body }      -> body (the queue is each call's own)
 *   allocate(B: Pointer(local.inp_buffer ...)) { body }  -> body (VTA's SRAM, named by index;
 *                                            also local.wgt_buffer, acc_buffer, uop_buffer)
 *   attr "coproc_uop_scope" = "VTAPushGEMMOp" { body }   (or "VTAPushALUOp")
 *     -> VTAUopKernelSignature(v) for each variable body reads that is bound outside it,
 *        if (VTAUopKernelBegin(cmd, site) != 0) { body }
 *        VTAPushGEMMOp(cmd)
 *   so that the body, which records one micro-op kernel (VTAUopLoopBegin/VTAUopPush/
 *   VTAUopLoopEnd), runs once per call site and values of those variables: TVM's static
 *   initialiser of the scope (CreateStaticInit), keyed as VTA's runtime keys its kernels.
 *   `site` numbers the scopes of the function from 0; the runtime keeps the kernels per module.
 * Assumes: the IR vta.lower gives (VTA's passes have run), or the same written by hand.
 * Guarantees: no tir.vta.* call and no coproc attr is left. Errors on ctx->diag: an unknown
 *   tir.vta builtin, a uop scope naming another function, a scope's free variable that is not
 *   an integer; "not supported yet" for what VTA's passes should have lowered (a pragma_alu or
 *   pragma_dma_copy stage, a micro-op push on buffer pointers, the host reading or writing an
 *   on-chip buffer).
 * Why here: run by vta.build after lowering, before the llvm back end; not part of lower_run,
 *   so vta.lower prints what TVM's vta.lower prints. */
#include "ir/pass/vta_lower_runtime.h"

#include <stdarg.h>

#include "ir/support.h"
#include "ir/verify.h"

typedef struct Lower {
  IrMutator m;
  PassCtx *ctx;
  int nsites;
} Lower;

static bool fail(Lower *l, const char *fmt, ...) TES_PRINTF(2, 3);
static bool fail(Lower *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ir_verror_prefixed(l->ctx->diag, "vta.build", fmt, ap);
  va_end(ap);
  return false;
}

static Expr *call(Arena *a, DType t, const char *name, int n, Expr **args) {
  return ir_call(a, t, name, CALL_EXTERN, n, args);
}

static Expr *cmd(Arena *a) { return call(a, DT_HANDLE64, "VTATLSCommandHandle", 0, NULL); }

static Expr *as_i32(Arena *a, Expr *e) {
  return e->dtype.code == DT_INT && e->dtype.bits == 32 ? e : ir_cast(a, DT_I32, e);
}

static bool is_int(DType t) {
  return (t.code == DT_INT || t.code == DT_UINT || t.code == DT_BOOL) && t.lanes == 1;
}

static Expr *lower_expr(IrMutator *m, Expr *e) {
  Lower *l = (Lower *)m;
  Arena *a = l->ctx->arena;
  if (e->kind != EXPR_CALL) return ir_mutate_children_expr(m, e);
  const char *op = e->u.call.op;
  if (strcmp(op, "tir.tvm_thread_context") == 0 && e->u.call.n == 1)
    return ir_mutate_expr(m, e->u.call.args[0]);
  if (strncmp(op, "tir.vta.", 8) != 0) return ir_mutate_children_expr(m, e);
  const char *what = op + 8;
  int n = e->u.call.n;
  Expr *args[9];
  if (strcmp(what, "command_handle") == 0 && n == 0) return cmd(a);
  if ((strcmp(what, "coproc_dep_push") == 0 || strcmp(what, "coproc_dep_pop") == 0) && n == 2) {
    args[0] = cmd(a);
    for (int i = 0; i < 2; i++) args[1 + i] = as_i32(a, ir_mutate_expr(m, e->u.call.args[i]));
    return call(a, DT_I32, strcmp(what, "coproc_dep_push") == 0 ? "VTADepPush" : "VTADepPop", 3, args);
  }
  if (strcmp(what, "coproc_sync") == 0 && n == 0) {
    args[0] = cmd(a);
    args[1] = ir_i32(a, 0x7fffffff); /* the wait's cycles: the simulator never waits */
    return call(a, DT_I32, "VTASynchronize", 2, args);
  }
  if (strcmp(what, "uop_push") == 0 && n == 8) {
    for (int i = 2; i < 5; i++)
      if (e->u.call.args[i]->kind == EXPR_CALL &&
          strcmp(e->u.call.args[i]->u.call.op, "tir.tvm_access_ptr") == 0) {
        fail(l, "not supported yet: a micro-op push whose operands are buffer pointers "
                "(@tir.tvm_access_ptr), not the SRAM indices VTA's lowering makes of them");
        return e;
      }
    for (int i = 0; i < 8; i++) args[i] = as_i32(a, ir_mutate_expr(m, e->u.call.args[i]));
    return call(a, DT_I32, "VTAUopPush", 8, args);
  }
  fail(l, "not supported yet: @%s with %d argument%s in a VTA module's host code", op, n,
       n == 1 ? "" : "s");
  return e;
}

/* The micro-op kernel of one coproc_uop_scope: recorded once per site and signature. */
static Stmt *uop_scope(Lower *l, Stmt *s) {
  Arena *a = l->ctx->arena;
  const Expr *v = s->u.attr.value;
  if (v->kind != EXPR_STR ||
      (strcmp(v->u.str, "VTAPushGEMMOp") != 0 && strcmp(v->u.str, "VTAPushALUOp") != 0)) {
    fail(l, "a coproc_uop_scope names VTAPushGEMMOp or VTAPushALUOp, not this");
    return s;
  }
  PassCtx free_ctx = {.arena = a};
  Var **vars;
  int nvars = ir_unbound_vars(a, s->u.attr.body, &free_ctx, &vars);
  Stmt *body = ir_mutate_stmt(&l->m, s->u.attr.body);
  Stmt **items = arena_alloc(a, (size_t)(nvars + 2) * sizeof *items);
  for (int i = 0; i < nvars; i++) {
    if (!is_int(vars[i]->dtype)) {
      char t[32];
      fail(l, "not supported yet: a micro-op kernel reading %s (%s), not an integer",
           vars[i]->name, dt_name(vars[i]->dtype, t));
      return s;
    }
    Expr *x = ir_cast(a, DT_I64, ir_varref(a, vars[i]));
    items[i] = ir_evaluate(a, call(a, DT_I32, "VTAUopKernelSignature", 1, &x));
  }
  Expr *begin_args[2] = {cmd(a), ir_i32(a, l->nsites++)};
  Expr *record = ir_binary(a, EXPR_NE, call(a, DT_I32, "VTAUopKernelBegin", 2, begin_args),
                           ir_i32(a, 0));
  items[nvars] = ir_if(a, record, body, NULL);
  Expr *c = cmd(a);
  items[nvars + 1] = ir_evaluate(a, call(a, DT_I32, v->u.str, 1, &c));
  return ir_seq(a, nvars + 2, items);
}

static bool on_chip(const char *scope) {
  return scope && (strcmp(scope, "local.inp_buffer") == 0 ||
                   strcmp(scope, "local.wgt_buffer") == 0 ||
                   strcmp(scope, "local.acc_buffer") == 0 || strcmp(scope, "local.uop_buffer") == 0);
}

static Stmt *lower_stmt(IrMutator *m, Stmt *s) {
  Lower *l = (Lower *)m;
  if (s->kind == STMT_ATTR && (strcmp(s->u.attr.key, "pragma_alu") == 0 ||
                               strcmp(s->u.attr.key, "pragma_dma_copy") == 0)) {
    fail(l, "not supported yet: a stage under attr \"%s\" that VTA's lowering did not turn "
            "into %s", s->u.attr.key, s->u.attr.key[7] == 'a' ? "ALU micro-ops" : "DMA calls");
    return s;
  }
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "coproc_scope") == 0)
    return ir_mutate_stmt(m, s->u.attr.body);
  if (s->kind == STMT_ALLOCATE && on_chip(s->u.alloc.scope)) {
    /* VTA's SRAM: its calls name places in it by index; the host has nothing to allocate */
    if (ir_stmt_uses_var(s->u.alloc.body, s->u.alloc.buffer_var)) {
      fail(l, "not supported yet: the host code reads or writes %s, a buffer in %s",
           s->u.alloc.buffer_var->name, s->u.alloc.scope);
      return s;
    }
    return ir_mutate_stmt(m, s->u.alloc.body);
  }
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "coproc_uop_scope") == 0)
    return uop_scope(l, s);
  return ir_mutate_children_stmt(m, s);
}

Stmt *pass_vta_lower_runtime(Stmt *s, PassCtx *ctx) {
  Lower l = {{ctx->arena, lower_expr, lower_stmt}, ctx, 0};
  return ir_mutate_stmt(&l.m, s);
}
