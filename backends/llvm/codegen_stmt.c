/* codegen_stmt.c: statements of lowered IR. Serial loops are a header with a phi; loops marked
 * "unroll" that lowering left (a non-constant extent it could not unroll) are unrolled here
 * when their extent is a small constant; "parallel" loops are outlined into a function over a
 * closure (a struct of the variables the body reads) and run by rt_parallel_for (jit/runtime.h)
 * in chunks of the iteration space, a parallel loop inside one running serially. Allocations
 * of a small constant size are stack slots at the function's entry, the rest 64-byte aligned
 * heap buffers freed at the end of their scope, and on every early return (a failed assert,
 * Ctrl-C); a heap size that overflows, like one malloc refuses, returns CG_LLVM_ERR_NOMEM. A
 * loop polls the interrupt flag once per iteration (codegen_llvm.h) when it holds a real loop
 * (one that is not tiny, or holds a real loop) and no loop of the function around it is more
 * than tiny: the outermost loop of each nest, and those under it while they are tiny. There a
 * poll costs a load per row; a loop with no real loop inside never polls, since the poll's
 * early exit would keep LLVM from vectorizing it. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backends/llvm/codegen_llvm_impl.h"
#include "ir/pass/pass.h"

enum {
  STACK_ALLOC_MAX = 16 * 1024, /* bytes: a larger constant allocation goes to the heap */
  UNROLL_MAX = 4096,           /* statements unrolling may emit in one function */
  HEAP_ALIGN = 64,
  HUGE_PAGES_MIN = 4 << 20, /* bytes: a heap buffer this big asks for huge pages */
  PAGE_BYTES = 4096,
};

static LLVMBasicBlockRef new_block(Cg *cg, const char *name) {
  return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

/* ---- loops ---- */

/* The branch as rarely taken: LLVM lays the path out of line. */
static void unlikely(Cg *cg, LLVMValueRef br) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMMetadataRef md[3] = {LLVMMDStringInContext2(cg->ctx, "branch_weights", 14),
                           LLVMValueAsMetadata(LLVMConstInt(i32, 1, 0)),
                           LLVMValueAsMetadata(LLVMConstInt(i32, 1u << 20, 0))};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cg->ctx, "prof", 4),
                  LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, md, 3)));
}

/* Makes the loop header's way into body_bb go through a poll of the interrupt flag, which
 * returns CG_LLVM_ERR_INTERRUPTED when it is set. The load is atomic so that LLVM neither
 * hoists it out of the loop nor tears it; monotonic is the weakest order that is, and costs a
 * plain mov. Called after the body is generated, at the loop's own scope of heap buffers. */
static void poll_interrupt(Cg *cg, LLVMValueRef head_br, LLVMBasicBlockRef body_bb) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMValueRef flag = LLVMGetNamedGlobal(cg->mod, "rt_interrupt_requested");
  if (!flag) flag = LLVMAddGlobal(cg->mod, i32, "rt_interrupt_requested");
  LLVMBasicBlockRef poll = LLVMInsertBasicBlockInContext(cg->ctx, body_bb, "for.poll");
  LLVMBasicBlockRef stop = new_block(cg, "for.interrupted");
  LLVMPositionBuilderAtEnd(cg->b, poll);
  LLVMValueRef set = LLVMBuildLoad2(cg->b, i32, flag, "interrupt");
  LLVMSetOrdering(set, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(set, 4);
  unlikely(cg, LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, set, LLVMConstNull(i32), ""),
                               stop, body_bb));
  LLVMSetSuccessor(head_br, 0, poll);
  LLVMPositionBuilderAtEnd(cg->b, stop);
  cg_return_code(cg, LLVMConstInt(i32, (unsigned long long)CG_LLVM_ERR_INTERRUPTED, 1));
}

/* An int32 loop variable counts in 64 bits (its min and extent are i64 values: cg_index); the
 * body sees it as i32 too. */
static bool wide_counter(const Var *v) {
  return v->dtype.code == DT_INT && v->dtype.bits == 32 && v->dtype.lanes == 1;
}

/* Binds v to the counter i: i itself, or for a wide counter i truncated, i kept for cg_index. */
static void bind_counter(Cg *cg, const Var *v, LLVMValueRef i) {
  LLVMTypeRef t = cg_type(cg, v->dtype);
  if (LLVMTypeOf(i) == t)
    cg_bind(cg, v, i);
  else
    cg_bind_wide(cg, v, LLVMBuildTrunc(cg->b, i, t, ""), i);
}

/* for (v = min; v < min + extent; v++) body, with v of type t (i64 for a wide counter). */
static void serial_loop(Cg *cg, const Var *v, LLVMValueRef min, LLVMValueRef extent,
                        const Expr *extent_expr, const Stmt *body) {
  bool is_signed = v->dtype.code == DT_INT;
  LLVMValueRef end =
      is_signed ? LLVMBuildNSWAdd(cg->b, min, extent, "") : LLVMBuildAdd(cg->b, min, extent, "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b), head = new_block(cg, "for.head");
  LLVMBasicBlockRef body_bb = new_block(cg, "for.body"), exit = new_block(cg, "for.end");
  LLVMBuildBr(cg->b, head);
  LLVMPositionBuilderAtEnd(cg->b, head);
  LLVMValueRef i = LLVMBuildPhi(cg->b, LLVMTypeOf(min), v->name);
  LLVMValueRef head_br = LLVMBuildCondBr(
      cg->b, LLVMBuildICmp(cg->b, is_signed ? LLVMIntSLT : LLVMIntULT, i, end, ""), body_bb, exit);
  LLVMPositionBuilderAtEnd(cg->b, body_bb);
  bool tiny = LLVMIsAConstantInt(extent) && LLVMConstIntGetSExtValue(extent) <= CG_TINY_LOOP_MAX;
  bool may_poll = cg->outer_big == 0;
  int inner_before = cg->nloops;
  cg->outer_big += !tiny;
  bind_counter(cg, v, i);
  cg_stmt(cg, body);
  cg_unbind(cg, 1);
  cg->outer_big -= !tiny;
  bool holds_loop = cg->nloops > inner_before;
  if (holds_loop || !tiny) cg->nloops++;
  LLVMValueRef one = LLVMConstInt(LLVMTypeOf(i), 1, 0);
  LLVMValueRef next =
      is_signed ? LLVMBuildNSWAdd(cg->b, i, one, "") : LLVMBuildAdd(cg->b, i, one, "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(cg->b);
  LLVMValueRef back = LLVMBuildBr(cg->b, head);
  bool candidate = !holds_loop && cg_vec_candidate(v, extent_expr, body);
  if (candidate || (holds_loop && tiny && cg_holds_vec_candidate(body)))
    cg_loop_hint(cg, back, candidate); /* codegen_loop_hint.c */
  LLVMValueRef vals[2] = {min, next};
  LLVMBasicBlockRef bbs[2] = {pre, latch};
  LLVMAddIncoming(i, vals, bbs, 2);
  if (may_poll && holds_loop) poll_interrupt(cg, head_br, body_bb);
  LLVMPositionBuilderAtEnd(cg->b, exit);
}

/* The body once per iteration, with the variable a constant offset from min. */
static bool unrolled_loop(Cg *cg, const Stmt *s, LLVMValueRef min) {
  int64_t n;
  if (!ir_as_int(s->u.for_.extent, &n) || n < 0 || cg->unrolled + n > UNROLL_MAX) return false;
  cg->unrolled += (int)n;
  for (int64_t k = 0; k < n; k++) {
    LLVMValueRef off = LLVMConstInt(LLVMTypeOf(min), (unsigned long long)k, 0);
    bind_counter(cg, s->u.for_.var, LLVMBuildAdd(cg->b, min, off, ""));
    cg_stmt(cg, s->u.for_.body);
    cg_unbind(cg, 1);
  }
  return true;
}

/* ---- parallel loops ---- */

typedef struct Captures {
  IrVisitor v;
  Cg *cg;
  const Var **vars;
  int n, cap;
} Captures;

static void capture(Captures *c, const Var *v) {
  if (!v || !cg_lookup(c->cg, v)) return;
  for (int i = 0; i < c->n; i++)
    if (c->vars[i] == v) return;
  VEC_GROW(NULL, c->vars, c->cap, c->n + 1);
  c->vars[c->n++] = v;
}

static void capture_buffer(Captures *c, const Buffer *b) {
  capture(c, b->data);
  if (b->elem_offset) ir_visit_expr(&c->v, b->elem_offset);
}

static void capture_expr(IrVisitor *v, const Expr *e) {
  Captures *c = (Captures *)v;
  if (e->kind == EXPR_VAR) capture(c, e->u.var);
  if (e->kind == EXPR_LOAD) capture_buffer(c, e->u.load.buf);
  ir_visit_children_expr(v, e);
}

static void capture_stmt(IrVisitor *v, const Stmt *s) {
  if (s->kind == STMT_STORE) capture_buffer((Captures *)v, s->u.store.buf);
  ir_visit_children_stmt(v, s);
}

/* What generating one function keeps; an outlined body swaps it for its own. */
typedef struct FuncState {
  LLVMValueRef fn;
  LLVMBasicBlockRef alloca_bb, block;
  CgBinding *env;
  int nenv, capenv;
  LLVMValueRef *heap;
  int nheap, capheap;
  LLVMValueRef lane_mask;
  int outer_big;
} FuncState;

static FuncState enter_function(Cg *cg, LLVMValueRef fn) {
  FuncState st = {cg->fn,        cg->alloca_bb, LLVMGetInsertBlock(cg->b),
                  cg->env,       cg->nenv,      cg->capenv,
                  cg->heap,      cg->nheap,     cg->capheap,
                  cg->lane_mask, cg->outer_big};
  cg->fn = fn;
  cg->alloca_bb = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
  cg->env = NULL, cg->nenv = cg->capenv = 0;
  cg->heap = NULL, cg->nheap = cg->capheap = 0;
  cg->lane_mask = NULL;
  cg->outer_big = 0; /* a chunk of a parallel loop polls as an entry point does */
  LLVMPositionBuilderAtEnd(cg->b, new_block(cg, "body"));
  return st;
}

static void leave_function(Cg *cg, FuncState st) {
  LLVMPositionBuilderAtEnd(cg->b, cg->alloca_bb);
  LLVMBuildBr(cg->b, LLVMGetNextBasicBlock(cg->alloca_bb));
  free(cg->env);
  free(cg->heap);
  cg->fn = st.fn, cg->alloca_bb = st.alloca_bb;
  cg->env = st.env, cg->nenv = st.nenv, cg->capenv = st.capenv;
  cg->heap = st.heap, cg->nheap = st.nheap, cg->capheap = st.capheap;
  cg->lane_mask = st.lane_mask;
  cg->outer_big = st.outer_big;
  LLVMPositionBuilderAtEnd(cg->b, st.block);
}

/* i32 NAME.parallel.K.body(i64 begin, i64 end, captured..., min): iterations [begin, end) of
 * the loop, counted from 0. Captured pointers are buffers (arguments or allocations, each its
 * own object), so they are noalias and 64-byte aligned as the entry point's are; a closure's
 * loads would lose that, and LLVM keeps it as scoped alias metadata when it inlines this. */
static LLVMValueRef outline_body(Cg *cg, const Stmt *s, Captures *c, LLVMTypeRef closure_t,
                                 const char *name) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
  int n = c->n + 3;
  LLVMTypeRef *params = xmalloc((size_t)n * sizeof *params);
  params[0] = params[1] = i64;
  for (int i = 0; i <= c->n; i++) params[2 + i] = LLVMStructGetTypeAtIndex(closure_t, (unsigned)i);
  LLVMValueRef fn = LLVMAddFunction(
      cg->mod, name, LLVMFunctionType(LLVMInt32TypeInContext(cg->ctx), params, (unsigned)n, 0));
  free(params);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  FuncState st = enter_function(cg, fn);
  bool was_parallel = cg->in_parallel;
  cg->in_parallel = true;
  for (int i = 0; i < c->n; i++) {
    LLVMValueRef p = LLVMGetParam(fn, (unsigned)(2 + i));
    if (LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind) cg_buffer_param(cg, fn, 2 + i);
    cg_bind(cg, c->vars[i], p);
  }
  LLVMValueRef min = LLVMGetParam(fn, (unsigned)(2 + c->n));
  LLVMTypeRef vt = LLVMTypeOf(min); /* the counter's: i64 for a wide one */
  LLVMValueRef lo =
      LLVMBuildAdd(cg->b, min, LLVMBuildIntCast2(cg->b, LLVMGetParam(fn, 0), vt, 1, ""), "");
  LLVMValueRef hi =
      LLVMBuildAdd(cg->b, min, LLVMBuildIntCast2(cg->b, LLVMGetParam(fn, 1), vt, 1, ""), "");
  serial_loop(cg, s->u.for_.var, lo, LLVMBuildSub(cg->b, hi, lo, ""), NULL, s->u.for_.body);
  LLVMBuildRet(cg->b, LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), 0, 0));
  cg->in_parallel = was_parallel;
  leave_function(cg, st);
  return fn;
}

/* i32 NAME.parallel.K(i64 begin, i64 end, ptr closure), what rt_parallel_for calls: the body
 * with the closure's fields (the captured values, then the loop's min) as arguments. */
static LLVMValueRef outline(Cg *cg, const Stmt *s, Captures *c, LLVMTypeRef closure_t) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx), ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  StrBuf name = STRBUF_INIT;
  sb_printf(&name, "%s.parallel.%d", cg->name, cg->nparallel++);
  LLVMTypeRef params[3] = {i64, i64, ptr};
  LLVMValueRef fn = LLVMAddFunction(
      cg->mod, sb_cstr(&name), LLVMFunctionType(LLVMInt32TypeInContext(cg->ctx), params, 3, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  sb_puts(&name, ".body");
  LLVMValueRef body = outline_body(cg, s, c, closure_t, sb_cstr(&name));
  sb_free(&name);
  FuncState st = enter_function(cg, fn);
  int n = c->n + 3;
  LLVMValueRef *args = xmalloc((size_t)n * sizeof *args);
  args[0] = LLVMGetParam(fn, 0), args[1] = LLVMGetParam(fn, 1);
  for (int i = 0; i <= c->n; i++) {
    LLVMValueRef p = LLVMBuildStructGEP2(cg->b, closure_t, LLVMGetParam(fn, 2), (unsigned)i, "");
    args[2 + i] = LLVMBuildLoad2(cg->b, LLVMStructGetTypeAtIndex(closure_t, (unsigned)i), p, "");
  }
  LLVMBuildRet(cg->b,
               LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(body), body, args, (unsigned)n, ""));
  free(args);
  leave_function(cg, st);
  return fn;
}

static void parallel_loop(Cg *cg, const Stmt *s, LLVMValueRef min, LLVMValueRef extent) {
  Captures c = {{capture_expr, capture_stmt}, cg, NULL, 0, 0};
  ir_visit_stmt(&c.v, s->u.for_.body);
  LLVMTypeRef *fields = xmalloc((size_t)(c.n + 1) * sizeof *fields);
  for (int i = 0; i < c.n; i++) fields[i] = LLVMTypeOf(cg_lookup(cg, c.vars[i]));
  fields[c.n] = LLVMTypeOf(min);
  LLVMTypeRef closure_t = LLVMStructTypeInContext(cg->ctx, fields, (unsigned)c.n + 1, 0);
  LLVMValueRef closure = cg_entry_alloca(cg, closure_t, 1, 8);
  for (int i = 0; i <= c.n; i++) {
    LLVMValueRef v = i < c.n ? cg_lookup(cg, c.vars[i]) : min;
    LLVMBuildStore(cg->b, v, LLVMBuildStructGEP2(cg->b, closure_t, closure, (unsigned)i, ""));
  }
  LLVMValueRef fn = outline(cg, s, &c, closure_t);
  free(fields);
  free(c.vars);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx), i64 = LLVMInt64TypeInContext(cg->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMTypeRef params[3] = {i64, ptr, ptr};
  LLVMValueRef args[3] = {cg_to_i64(cg, extent, s->u.for_.var->dtype), fn, closure};
  LLVMValueRef rc =
      cg_call_named(cg, "rt_parallel_for", LLVMFunctionType(i32, params, 3, 0), args, 3);
  LLVMBasicBlockRef fail = new_block(cg, "parallel.fail"), ok = new_block(cg, "parallel.ok");
  LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, rc, LLVMConstNull(i32), ""), fail, ok);
  LLVMPositionBuilderAtEnd(cg->b, fail);
  cg_return_code(cg, rc);
  LLVMPositionBuilderAtEnd(cg->b, ok);
}

/* A loop tir.VectorizeLoop ran lane by lane because its split guard varies across the lanes
 * (the tail of a split that does not divide): vector code with masked loads and stores
 * instead, where the target has them (AVX2, AVX-512); the printed IR keeps the loop. */
static bool masked_vector_loop(Cg *cg, const Stmt *s) {
  const char *f = cg->features ? cg->features : "";
  if (cg->lane_mask || (!cg_has_feature(f, "avx2") && !cg_has_feature(f, "avx512f"))) return false;
  Arena a;
  arena_init(&a);
  Stmt *v = vectorize_guarded_loop(&a, s);
  if (v) cg_stmt(cg, v);
  arena_free(&a);
  return v != NULL;
}

static void for_loop(Cg *cg, const Stmt *s) {
  if (s->u.for_.fkind == FOR_SERIAL && masked_vector_loop(cg, s)) return;
  bool wide = wide_counter(s->u.for_.var);
  LLVMValueRef min = wide ? cg_index(cg, s->u.for_.min) : cg_expr(cg, s->u.for_.min);
  LLVMValueRef extent = wide ? cg_index(cg, s->u.for_.extent) : cg_expr(cg, s->u.for_.extent);
  switch (s->u.for_.fkind) {
  case FOR_SERIAL:
  case FOR_VECTORIZED: /* one that tir.VectorizeLoop left (no constant extent) runs serially */
    serial_loop(cg, s->u.for_.var, min, extent, s->u.for_.extent, s->u.for_.body);
    return;
  case FOR_UNROLLED:
    if (!unrolled_loop(cg, s, min))
      serial_loop(cg, s->u.for_.var, min, extent, s->u.for_.extent, s->u.for_.body);
    return;
  case FOR_PARALLEL:
    if (cg->in_parallel)
      serial_loop(cg, s->u.for_.var, min, extent, s->u.for_.extent, s->u.for_.body);
    else
      parallel_loop(cg, s, min, extent);
    return;
  case FOR_THREAD_BINDING:
    ir_error(cg->diag,
             "not supported yet: loop '%s' is bound to %s, which needs a GPU target (cuda)",
             s->u.for_.var->name, s->u.for_.thread_tag ? s->u.for_.thread_tag : "a thread");
    return;
  }
  TES_UNREACHABLE();
}

/* ---- other statements ---- */

static void if_stmt(Cg *cg, const Stmt *s) {
  if (s->u.if_.cond->dtype.lanes != 1) {
    ir_error(cg->diag, "not supported yet: an if statement on a vector condition");
    return;
  }
  LLVMValueRef cond = cg_expr(cg, s->u.if_.cond);
  LLVMBasicBlockRef then_bb = new_block(cg, "if.then"), end = new_block(cg, "if.end");
  LLVMBasicBlockRef else_bb = s->u.if_.orelse ? new_block(cg, "if.else") : end;
  LLVMBuildCondBr(cg->b, cond, then_bb, else_bb);
  LLVMPositionBuilderAtEnd(cg->b, then_bb);
  cg_stmt(cg, s->u.if_.then);
  LLVMBuildBr(cg->b, end);
  if (s->u.if_.orelse) {
    LLVMPositionBuilderAtEnd(cg->b, else_bb);
    cg_stmt(cg, s->u.if_.orelse);
    LLVMBuildBr(cg->b, end);
  }
  LLVMPositionBuilderAtEnd(cg->b, end);
}

static bool cpu_scope(const char *scope) {
  return !scope || !*scope || strcmp(scope, "global") == 0 || strcmp(scope, "shared") == 0 ||
         strcmp(scope, "local") == 0 || strcmp(scope, "warp") == 0;
}

/* The element count when every extent is a constant, else -1. */
static int64_t constant_count(const Stmt *s) {
  int64_t n = s->u.alloc.dtype.lanes, e;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    if (!ir_as_int(s->u.alloc.extents[i], &e) || e < 0 || (e && n > INT64_MAX / e)) return -1;
    n *= e;
  }
  return n;
}

/* A size in bytes being multiplied up (i64), and whether it is too big to allocate (i1). */
typedef struct AllocSize {
  LLVMValueRef v, bad;
} AllocSize;

static void size_times(Cg *cg, AllocSize *sz, LLVMValueRef x) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx), fty;
  LLVMValueRef f = cg_intrinsic(cg, "llvm.umul.with.overflow", &i64, 1, &fty);
  LLVMValueRef args[2] = {sz->v, x};
  LLVMValueRef r = LLVMBuildCall2(cg->b, fty, f, args, 2, "");
  sz->v = LLVMBuildExtractValue(cg->b, r, 0, "");
  sz->bad = LLVMBuildOr(cg->b, sz->bad, LLVMBuildExtractValue(cg->b, r, 1, ""), "");
}

/* Multiplies in the factors of a product, each from its own value; a negative one (a
 * degenerate shape, whose loops do not run) counts as 0. */
static void size_factors(Cg *cg, AllocSize *sz, const Expr *e) {
  if (e->kind == EXPR_MUL) {
    size_factors(cg, sz, e->u.bin.a);
    size_factors(cg, sz, e->u.bin.b);
    return;
  }
  LLVMValueRef x = cg_to_i64(cg, cg_expr(cg, e), e->dtype);
  if (e->dtype.code == DT_INT) {
    LLVMValueRef zero = LLVMConstInt(LLVMInt64TypeInContext(cg->ctx), 0, 0);
    x = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, x, zero, ""), zero, x, "");
  }
  size_times(cg, sz, x);
}

/* The largest value of an integer type, as an unsigned 64-bit number. */
static uint64_t int_max(DType t) {
  unsigned bits = t.code == DT_INT ? t.bits - 1u : t.bits;
  return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* The bytes of an allocation. Storage flattening makes an extent the product of the tensor's
 * dimensions (n*m), computed in the index type, where a big shape wraps round (65536^4 is 0
 * in int64) to a small buffer the kernel would then write past. So the factors are multiplied
 * again here, in 64 bits with overflow checks, and the size is too big when a product
 * overflows, when an extent exceeds its type (the kernel's indices into it would wrap too), or
 * when the bytes come near 2^63, where rounding up to the alignment would overflow. */
static AllocSize alloc_bytes(Cg *cg, const Stmt *s, uint64_t elem_bytes) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx);
  AllocSize total = {LLVMConstInt(i64, elem_bytes * (uint64_t)s->u.alloc.dtype.lanes, 0),
                     LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 0, 0)};
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    const Expr *x = s->u.alloc.extents[i];
    AllocSize one = {LLVMConstInt(i64, 1, 0), total.bad};
    size_factors(cg, &one, x);
    LLVMValueRef max = LLVMConstInt(i64, int_max(x->dtype), 0);
    total.bad = LLVMBuildOr(cg->b, one.bad, LLVMBuildICmp(cg->b, LLVMIntUGT, one.v, max, ""), "");
    size_times(cg, &total, one.v);
  }
  LLVMValueRef limit = LLVMConstInt(i64, (uint64_t)INT64_MAX - HEAP_ALIGN, 0);
  LLVMValueRef past = LLVMBuildICmp(cg->b, LLVMIntUGT, total.v, limit, "");
  total.bad = LLVMBuildOr(cg->b, total.bad, past, "");
  return total;
}

/* A heap buffer of HUGE_PAGES_MIN bytes or more asks for transparent huge pages on Linux
 * (madvise MADV_HUGEPAGE on the whole pages inside it, as numpy does for its arrays): a
 * packed GEMM operand of 16 MiB or more is then mapped in 2 MiB pages, not 4 KiB ones, so the
 * first touch of each call costs 8 page faults a 16 MiB, not 4096, and the rows a kernel
 * streams miss the TLB far less (a trial with every allocation on huge pages gave about 10 %
 * on a 2048^3 GEMM). A refusal changes nothing. */
static void huge_pages(Cg *cg, LLVMValueRef p, LLVMValueRef bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx), i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  LLVMBasicBlockRef advise = new_block(cg, "alloc.huge"), done = new_block(cg, "alloc.done");
  LLVMBuildCondBr(cg->b,
                  LLVMBuildICmp(cg->b, LLVMIntUGE, bytes, LLVMConstInt(i64, HUGE_PAGES_MIN, 0), ""),
                  advise, done);
  LLVMPositionBuilderAtEnd(cg->b, advise);
  LLVMValueRef page = LLVMConstInt(i64, PAGE_BYTES - 1, 0);
  LLVMValueRef at = LLVMBuildPtrToInt(cg->b, p, i64, "");
  LLVMValueRef start = LLVMBuildAnd(cg->b, LLVMBuildAdd(cg->b, at, page, ""),
                                    LLVMBuildNot(cg->b, page, ""), "");
  LLVMValueRef end = LLVMBuildAnd(cg->b, LLVMBuildAdd(cg->b, at, bytes, ""),
                                  LLVMBuildNot(cg->b, page, ""), "");
  LLVMTypeRef params[3] = {ptr, i64, i32};
  LLVMValueRef args[3] = {LLVMBuildIntToPtr(cg->b, start, ptr, ""),
                          LLVMBuildSub(cg->b, end, start, ""),
                          LLVMConstInt(i32, MADV_HUGEPAGE, 0)};
  cg_call_named(cg, "madvise", LLVMFunctionType(i32, params, 3, 0), args, 3);
  LLVMBuildBr(cg->b, done);
  LLVMPositionBuilderAtEnd(cg->b, done);
#else
  (void)cg, (void)p, (void)bytes;
#endif
}

/* A buffer too big to describe, or one malloc refuses, returns CG_LLVM_ERR_NOMEM (a
 * MemoryError at the call). */
static LLVMValueRef heap_alloc(Cg *cg, const Stmt *s, uint64_t elem_bytes) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cg->ctx), ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  AllocSize sz = alloc_bytes(cg, s, elem_bytes);
  LLVMBasicBlockRef fail = new_block(cg, "alloc.fail"), call = new_block(cg, "alloc.call");
  LLVMBasicBlockRef ok = new_block(cg, "alloc.ok");
  unlikely(cg, LLVMBuildCondBr(cg->b, sz.bad, fail, call));
  LLVMPositionBuilderAtEnd(cg->b, call);
  /* aligned_alloc wants a multiple of the alignment, and never 0 */
  LLVMValueRef mask = LLVMConstInt(i64, HEAP_ALIGN - 1, 0);
  LLVMValueRef bytes =
      LLVMBuildAnd(cg->b, LLVMBuildAdd(cg->b, sz.v, LLVMConstInt(i64, HEAP_ALIGN, 0), ""),
                   LLVMBuildNot(cg->b, mask, ""), "");
  LLVMTypeRef params[2] = {i64, i64};
  LLVMValueRef args[2] = {LLVMConstInt(i64, HEAP_ALIGN, 0), bytes};
  LLVMValueRef p = cg_call_named(cg, "aligned_alloc", LLVMFunctionType(ptr, params, 2, 0), args, 2);
  unlikely(cg, LLVMBuildCondBr(cg->b, LLVMBuildIsNull(cg->b, p, ""), fail, ok));
  LLVMPositionBuilderAtEnd(cg->b, fail);
  cg_return_code(
      cg, LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), (unsigned long long)CG_LLVM_ERR_NOMEM, 1));
  LLVMPositionBuilderAtEnd(cg->b, ok);
  huge_pages(cg, p, bytes);
  return p;
}

static void heap_free(Cg *cg, LLVMValueRef p) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  cg_call_named(cg, "free", LLVMFunctionType(LLVMVoidTypeInContext(cg->ctx), &ptr, 1, 0), &p, 1);
}

static void allocate(Cg *cg, const Stmt *s) {
  if (!cpu_scope(s->u.alloc.scope)) {
    ir_error(cg->diag, "not supported yet: buffer '%s' in scope '%s' on the llvm target",
             s->u.alloc.buffer_var->name, s->u.alloc.scope);
    return;
  }
  LLVMTypeRef elem = cg_mem_type(cg, s->u.alloc.dtype);
  uint64_t elem_bytes = LLVMABISizeOfType(cg->td, elem);
  int64_t count = constant_count(s);
  LLVMValueRef p;
  bool on_heap = count < 0 || count == 0 || (uint64_t)count > STACK_ALLOC_MAX / elem_bytes;
  if (!on_heap) {
    p = cg_entry_alloca(cg, elem, (unsigned)count, HEAP_ALIGN);
  } else {
    p = heap_alloc(cg, s, elem_bytes);
    VEC_GROW(NULL, cg->heap, cg->capheap, cg->nheap + 1);
    cg->heap[cg->nheap++] = p;
  }
  cg_bind(cg, s->u.alloc.buffer_var, p);
  cg_stmt(cg, s->u.alloc.body);
  cg_unbind(cg, 1);
  if (on_heap) {
    cg->nheap--;
    heap_free(cg, p);
  }
}

static void attr(Cg *cg, const Stmt *s) {
  const char *key = s->u.attr.key;
  if (strcmp(key, "thread_extent") == 0 || strcmp(key, "virtual_thread") == 0 ||
      strncmp(key, "coproc", 6) == 0) {
    const char *what = "";
    if (s->u.attr.nkind == ATTR_NODE_ITERVAR) {
      const IterVar *iv = s->u.attr.node;
      what = iv->thread_tag ? iv->thread_tag : iv->var->name;
    }
    ir_error(cg->diag,
             "not supported yet: attr \"%s\"%s%s on the llvm target (a GPU or VTA schedule)", key,
             *what ? " of " : "", what);
    return;
  }
  if (strcmp(key, "pragma_import_llvm") == 0) cg_import_llvm(cg, s->u.attr.value);
  cg_stmt(cg, s->u.attr.body); /* other pragmas, storage and double-buffer marks: nothing to do */
}

static void assert_stmt(Cg *cg, const Stmt *s) {
  const Expr *msg = s->u.assert_.msg;
  const char *text = msg && msg->kind == EXPR_STR ? msg->u.str : "assertion failed";
  cg->messages = xrealloc(cg->messages, (size_t)(cg->nmessages + 1) * sizeof *cg->messages);
  cg->messages[cg->nmessages++] = xstrdup(text);
  LLVMValueRef cond = cg_expr(cg, s->u.assert_.cond);
  LLVMBasicBlockRef fail = new_block(cg, "assert.fail"), ok = new_block(cg, "assert.ok");
  LLVMBuildCondBr(cg->b, cond, ok, fail);
  LLVMPositionBuilderAtEnd(cg->b, fail);
  cg_return_code(
      cg, LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), (unsigned long long)cg->nmessages, 0));
  LLVMPositionBuilderAtEnd(cg->b, ok);
  cg_stmt(cg, s->u.assert_.body);
}

static void unflattened(Cg *cg, const Stmt *s) {
  ir_error(cg->diag, "not supported yet: %s statement left by lowering on the llvm target",
           ir_stmt_kind_names[s->kind]);
}

void cg_stmt(Cg *cg, const Stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case STMT_FOR:
    for_loop(cg, s);
    return;
  case STMT_IF:
    if_stmt(cg, s);
    return;
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) cg_stmt(cg, s->u.seq.items[i]);
    return;
  case STMT_STORE:
    cg_store(cg, s);
    return;
  case STMT_PROVIDE:
  case STMT_REALIZE:
    unflattened(cg, s);
    return;
  case STMT_ALLOCATE:
    allocate(cg, s);
    return;
  case STMT_ATTR:
    attr(cg, s);
    return;
  case STMT_LET:
    cg_bind(cg, s->u.let.var, cg_expr(cg, s->u.let.value));
    cg_stmt(cg, s->u.let.body);
    cg_unbind(cg, 1);
    return;
  case STMT_ASSERT:
    assert_stmt(cg, s);
    return;
  case STMT_EVALUATE:
    cg_expr(cg, s->u.eval.value);
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}
