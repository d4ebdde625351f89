/* codegen_loop_hint.c: loop metadata that keeps a scalar loop whole for LLVM's loop vectorizer.
 *
 * The pipeline (codegen_pipeline.c) fully unrolls small constant loops before the loop
 * vectorizer runs, and the SLP vectorizer, which would put the unrolled copies back into
 * vectors, is off (codegen_target.c). So a loop the schedule left scalar, say the 32 columns
 * of a block of C in TVM's opt_gemm "blocking" stage, became 32 scalar FMAs where gcc -O3
 * makes two vector ones; and when a short loop around it was unrolled instead, instcombine's
 * reassociation of the unrolled copies' indices lost what showed the accesses consecutive, and
 * the vectorizer gathered them. Such a loop (a vectorizer candidate: innermost, a constant
 * extent above the tiny-loop limit and up to CG_VEC_CANDIDATE_MAX, a body of scalar loads,
 * stores and arithmetic whose every store moves with the loop) gets llvm.loop.unroll.disable,
 * with a followup for the loops the vectorizer makes from it that has none (so those are
 * unrolled after it, as before), and the loops around one get llvm.loop.unroll.disable. A
 * candidate the vectorizer turns down stays a loop. */
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "backends/llvm/codegen_llvm_impl.h"
#include "ir/pass/pass.h"

enum { CG_VEC_CANDIDATE_MAX = 256 };

/* What keeps a body from being a candidate's; var is the loop's variable. */
static bool not_plain_expr(const Expr *e, const void *var) {
  (void)var;
  if (e->dtype.lanes != 1) return true;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_VAR:
  case EXPR_CAST:
  case EXPR_NOT:
  case EXPR_SELECT:
  case EXPR_LET:
  IR_CASE_BINARY:
    return false;
  case EXPR_LOAD:
    return e->u.load.predicate != NULL;
  default: /* calls, vectors, anything else: left to LLVM as before */
    return true;
  }
}

static bool not_plain_stmt(const Stmt *s, const void *var) {
  switch (s->kind) {
  case STMT_SEQ:
  case STMT_LET:
    return false;
  case STMT_STORE:
    /* a store to the same element on every iteration is a reduction the vectorizer cannot
     * reorder (floats, no fast-math) */
    return s->u.store.predicate || !ir_expr_uses_var(s->u.store.index, var);
  default: /* loops, branches, allocations, calls */
    return true;
  }
}

bool cg_vec_candidate(const Var *var, const Expr *extent, const Stmt *body) {
  int64_t n;
  if (!extent || !ir_as_int(extent, &n) || n <= CG_TINY_LOOP_MAX || n > CG_VEC_CANDIDATE_MAX) return false;
  return !ir_stmt_any(body, not_plain_expr, not_plain_stmt, var);
}

static bool candidate_loop(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind == STMT_FOR && s->u.for_.fkind == FOR_SERIAL &&
         cg_vec_candidate(s->u.for_.var, s->u.for_.extent, s->u.for_.body);
}

bool cg_holds_vec_candidate(const Stmt *body) {
  return ir_stmt_any(body, NULL, candidate_loop, NULL);
}

static LLVMMetadataRef md_str(Cg *cg, const char *s) {
  return LLVMMDStringInContext2(cg->ctx, s, strlen(s));
}

void cg_loop_hint(Cg *cg, LLVMValueRef latch_br, bool candidate) {
  LLVMMetadataRef disable = md_str(cg, "llvm.loop.unroll.disable");
  LLVMMetadataRef attrs[3];
  int n = 1;
  attrs[n++] = LLVMMDNodeInContext2(cg->ctx, &disable, 1);
  if (candidate) {
    LLVMMetadataRef vectorized[2] = {
        md_str(cg, "llvm.loop.isvectorized"),
        LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), 1, 0))};
    LLVMMetadataRef followup[2] = {md_str(cg, "llvm.loop.vectorize.followup_all"),
                                   LLVMMDNodeInContext2(cg->ctx, vectorized, 2)};
    attrs[n++] = LLVMMDNodeInContext2(cg->ctx, followup, 2);
  }
  /* the loop's ID refers to itself: a temporary first operand, replaced by the node */
  LLVMMetadataRef tmp = LLVMTemporaryMDNode(cg->ctx, NULL, 0);
  attrs[0] = tmp;
  LLVMMetadataRef id = LLVMMDNodeInContext2(cg->ctx, attrs, (size_t)n);
  LLVMMetadataReplaceAllUsesWith(tmp, id);
  LLVMSetMetadata(latch_br, LLVMGetMDKindIDInContext(cg->ctx, "llvm.loop", 9),
                  LLVMMetadataAsValue(cg->ctx, id));
}
