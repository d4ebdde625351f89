/* codegen_mem.c: loads and stores on flat buffers. A scalar index is one element; a ramp of
 * stride 1 is one vector load or store; any other vector index is a gather or scatter (LLVM
 * picks the instructions: vgather on AVX-512, lane by lane elsewhere). Predicates, and the
 * lanes of an if_then_else branch (cg->lane_mask), make the access masked, so a lane that is
 * off never touches memory; a scalar access under a lane mask runs only when some lane is on.
 * bool elements are bytes in memory and i1 in registers. */
#include "backends/llvm/codegen_llvm_impl.h"

static LLVMValueRef data_pointer(Cg *cg, const Buffer *buf) {
  LLVMValueRef p = cg_lookup(cg, buf->data);
  if (p) return p;
  ir_error(cg->diag, "buffer '%s' is used outside its allocation", buf->name);
  return LLVMConstNull(LLVMPointerTypeInContext(cg->ctx, 0));
}

static LLVMValueRef with_offset(Cg *cg, const Buffer *buf, const Expr *index, LLVMValueRef idx) {
  int64_t off;
  if (!buf->elem_offset || (ir_as_int(buf->elem_offset, &off) && off == 0)) return idx;
  LLVMValueRef o = cg_convert(cg, cg_expr(cg, buf->elem_offset), buf->elem_offset->dtype,
                              dt_with_lanes(dt_element(index->dtype), 1));
  return LLVMBuildAdd(cg->b, idx, cg_splat(cg, o, index->dtype.lanes), "");
}

/* A scalar index (or a dense ramp's base) into buf, offset included, as i64 (cg_index). */
static LLVMValueRef scalar_index(Cg *cg, const Buffer *buf, const Expr *index) {
  LLVMValueRef idx = cg_index(cg, index);
  int64_t off;
  if (!buf->elem_offset || (ir_as_int(buf->elem_offset, &off) && off == 0)) return idx;
  return LLVMBuildNSWAdd(cg->b, idx, cg_index(cg, buf->elem_offset), "");
}

/* The address of element index (a scalar, or a dense ramp's base) of buf, whose elements are
 * mt's. A constant term (x + 1024) is a GEP of its own off the address of the rest, so that
 * the accesses of an unrolled body share one address and differ by displacements. */
static LLVMValueRef element_address(Cg *cg, LLVMTypeRef mt, LLVMValueRef base, const Buffer *buf,
                                    const Expr *index) {
  int64_t c;
  if (index->kind == EXPR_ADD && ir_as_int(index->u.bin.b, &c) && index->dtype.code == DT_INT &&
      index->dtype.bits == 32) {
    LLVMValueRef p = element_address(cg, mt, base, buf, index->u.bin.a);
    LLVMValueRef k = LLVMConstInt(LLVMInt64TypeInContext(cg->ctx), (unsigned long long)c, 1);
    return LLVMBuildGEP2(cg->b, mt, p, &k, 1, "");
  }
  LLVMValueRef idx = scalar_index(cg, buf, index);
  return LLVMBuildGEP2(cg->b, mt, base, &idx, 1, "");
}

static bool is_dense(const Expr *index) {
  return index->kind == EXPR_RAMP && ir_is_const_int(index->u.ramp.stride, 1);
}

/* The mask of the lanes an access may touch: its predicate and the branch's lanes. */
static LLVMValueRef access_mask(Cg *cg, const Expr *predicate, int lanes) {
  LLVMValueRef m = predicate ? cg_expr(cg, predicate) : NULL;
  LLVMValueRef lm = cg->lane_mask;
  if (lm && LLVMGetVectorSize(LLVMTypeOf(lm)) == (unsigned)lanes)
    m = m ? LLVMBuildAnd(cg->b, m, lm, "") : lm;
  return m;
}

static unsigned elem_align(Cg *cg, DType t) {
  return (unsigned)LLVMABISizeOfType(cg->td, cg_mem_type(cg, t));
}

/* A power of two that e (an index) is always a multiple of, up to 64; 0 for the constant 0. */
static uint64_t known_multiple(const Expr *e) {
  int64_t c;
  if (ir_as_int(e, &c)) {
    uint64_t u = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
    return u ? (u & (~u + 1)) : 0;
  }
  if (e->kind != EXPR_ADD && e->kind != EXPR_SUB && e->kind != EXPR_MUL) return 1;
  uint64_t a = known_multiple(e->u.bin.a), b = known_multiple(e->u.bin.b);
  if (e->kind == EXPR_MUL) return !a || !b ? 0 : a * b > 64 ? 64 : a * b;
  return !a ? b : !b ? a : a < b ? a : b;
}

/* The alignment of a dense vector access at index base: buffers start 64-byte aligned (the
 * ABI's arguments, and allocations), so an index that is a multiple of 16 floats is too. */
static unsigned dense_align(Cg *cg, const Buffer *buf, const Expr *base, DType t) {
  uint64_t elem = elem_align(cg, t), m = known_multiple(base);
  if (buf->elem_offset) {
    uint64_t o = known_multiple(buf->elem_offset);
    m = !m ? o : !o ? m : m < o ? m : o;
  }
  uint64_t bytes = m ? m * elem : 64;
  return (unsigned)(bytes > 64 ? 64 : bytes < elem ? elem : bytes);
}

static LLVMValueRef align_arg(Cg *cg, unsigned align) {
  return LLVMConstInt(LLVMInt32TypeInContext(cg->ctx), align, 0);
}

static LLVMValueRef all_true(Cg *cg, int lanes) {
  return cg_splat(cg, LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0), lanes);
}

/* Memory form <-> register form of bool. */
static LLVMValueRef from_memory(Cg *cg, DType t, LLVMValueRef v) {
  if (t.code != DT_BOOL) return v;
  return LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

static LLVMValueRef to_memory(Cg *cg, DType t, LLVMValueRef v) {
  if (t.code != DT_BOOL) return v;
  LLVMTypeRef i8 = LLVMInt8TypeInContext(cg->ctx);
  return LLVMBuildZExt(cg->b, v, t.lanes > 1 ? LLVMVectorType(i8, t.lanes) : i8, "");
}

/* ---- guarded scalar accesses ---- */

typedef struct Guard {
  LLVMBasicBlockRef from, body, end;
} Guard;

/* Whether any lane of a vector of i1 is set. */
static LLVMValueRef any_lane(Cg *cg, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v), fty;
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return v;
  LLVMValueRef f = cg_intrinsic(cg, "llvm.vector.reduce.or", &t, 1, &fty);
  return LLVMBuildCall2(cg->b, fty, f, &v, 1, "");
}

/* Starts a block that runs only when cond (i1) holds. */
static Guard guard_begin(Cg *cg, LLVMValueRef cond) {
  Guard g = {LLVMGetInsertBlock(cg->b),
             LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "guard.body"),
             LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "guard.end")};
  LLVMBuildCondBr(cg->b, cond, g.body, g.end);
  LLVMPositionBuilderAtEnd(cg->b, g.body);
  return g;
}

/* Ends the guarded block; with v, the value it made (poison where it did not run). */
static LLVMValueRef guard_end(Cg *cg, Guard g, LLVMValueRef v) {
  LLVMBasicBlockRef body_end = LLVMGetInsertBlock(cg->b);
  LLVMBuildBr(cg->b, g.end);
  LLVMPositionBuilderAtEnd(cg->b, g.end);
  if (!v) return NULL;
  LLVMValueRef phi = LLVMBuildPhi(cg->b, LLVMTypeOf(v), "");
  LLVMValueRef vals[2] = {v, LLVMGetPoison(LLVMTypeOf(v))};
  LLVMBasicBlockRef bbs[2] = {body_end, g.from};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

/* ---- addresses ---- */

LLVMValueRef cg_access_ptr(Cg *cg, const Expr *e) {
  const Expr *const *a = (const Expr *const *)e->u.call.args;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cg->ctx, 0);
  if (e->u.call.n != 5 || a[0]->kind != EXPR_CALL || a[1]->kind != EXPR_VAR ||
      !dt_is_int(a[2]->dtype)) {
    ir_error(cg->diag, "@tir.tvm_access_ptr takes (type_annotation, data, offset, extent, mask)");
    return LLVMConstNull(ptr);
  }
  LLVMValueRef base = cg_lookup(cg, a[1]->u.var);
  if (!base) {
    ir_error(cg->diag, "@tir.tvm_access_ptr: '%s' is used outside its allocation",
             a[1]->u.var->name);
    return LLVMConstNull(ptr);
  }
  DType t = a[0]->dtype;
  LLVMTypeRef mt = cg_mem_type(cg, dt_with_lanes(t, 1));
  if (t.lanes > 1) mt = LLVMVectorType(mt, t.lanes);
  LLVMValueRef off = cg_expr(cg, a[2]);
  return LLVMBuildGEP2(cg->b, mt, base, &off, 1, "");
}

/* @tir.address_of(B[index]): the address of a scalar element (what tir.InjectPrefetch
 * prefetches). */
LLVMValueRef cg_address_of(Cg *cg, const Expr *e) {
  const Expr *x = e->u.call.n == 1 ? e->u.call.args[0] : NULL;
  if (!x || x->kind != EXPR_LOAD || x->dtype.lanes != 1) {
    ir_error(cg->diag, "not supported yet: @tir.address_of other than of one scalar element");
    return LLVMConstNull(LLVMPointerTypeInContext(cg->ctx, 0));
  }
  LLVMTypeRef mt = cg_mem_type(cg, x->dtype);
  return element_address(cg, mt, data_pointer(cg, x->u.load.buf), x->u.load.buf,
                         x->u.load.index);
}

/* ---- odd widths ---- */

/* A dense access of a lane count that is not a power of two (14 floats: what
 * tir.LoopPartition leaves of a vector loop's tail) is one masked access of the next power of
 * two, up to 512 bits of elements of 32 or 64 bits, where the target masks (AVX-512: one
 * k-masked access; AVX2: 256-bit halves, a plain one where the half is whole and vmaskmov for
 * the rest), rather than the pieces LLVM splits it into (ymm + xmm + inserts). That width, or
 * 0. */
static int masked_width(Cg *cg, DType t) {
  int lanes = t.lanes, w = 1;
  if (lanes < 3 || (lanes & (lanes - 1)) == 0 || t.code == DT_BOOL || (t.bits != 32 && t.bits != 64))
    return 0;
  while (w < lanes) w <<= 1;
  const char *f = cg->features ? cg->features : "";
  int maxbits = cg_has_feature(f, "avx512f") || cg_has_feature(f, "avx2") ? 512 : 0;
  return w * t.bits <= maxbits ? w : 0;
}

/* The masked width of a dense access to base, or 0 where the access stays plain: an unmasked
 * access to a stack allocation (a register tile's accumulators) is the plain odd-width vector
 * op, which SROA turns into registers (a masked intrinsic keeps them in memory, each
 * accumulation a load and a masked store), and which cannot run past an allocation the
 * program's own indices stay within. */
static int access_width(Cg *cg, DType t, LLVMValueRef base, LLVMValueRef mask) {
  if (!mask && LLVMIsAAllocaInst(base)) return 0;
  return masked_width(cg, t);
}

/* Lanes [0, n) of v, widened to w lanes: the others poison, or (fill) lane 0 of fill. */
static LLVMValueRef resize(Cg *cg, LLVMValueRef v, int n, int w, LLVMValueRef fill) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->ctx);
  LLVMValueRef idx[64];
  for (int i = 0; i < w; i++)
    idx[i] = i < n ? LLVMConstInt(i32, (unsigned)i, 0)
             : fill ? LLVMConstInt(i32, (unsigned)LLVMGetVectorSize(LLVMTypeOf(v)), 0)
                    : LLVMGetUndef(i32);
  LLVMValueRef other = fill ? fill : LLVMGetPoison(LLVMTypeOf(v));
  return LLVMBuildShuffleVector(cg->b, v, other, LLVMConstVector(idx, (unsigned)w), "");
}

/* The mask of a widened access: mask's lanes (all on for NULL), then lanes that are off. */
static LLVMValueRef widen_mask(Cg *cg, LLVMValueRef mask, int lanes, int w) {
  LLVMTypeRef i1 = LLVMInt1TypeInContext(cg->ctx);
  if (!mask) {
    LLVMValueRef bits[64];
    for (int i = 0; i < w; i++) bits[i] = LLVMConstInt(i1, i < lanes, 0);
    return LLVMConstVector(bits, (unsigned)w);
  }
  return resize(cg, mask, lanes, w, LLVMConstNull(LLVMTypeOf(mask)));
}

/* ---- loads ---- */

static LLVMValueRef load_scalar(Cg *cg, DType t, LLVMValueRef base, const Buffer *buf,
                                const Expr *index) {
  LLVMTypeRef mt = cg_mem_type(cg, t);
  LLVMValueRef p = element_address(cg, mt, base, buf, index);
  LLVMValueRef v = LLVMBuildLoad2(cg->b, mt, p, "");
  LLVMSetAlignment(v, elem_align(cg, t));
  return from_memory(cg, t, v);
}

static LLVMValueRef load_vector(Cg *cg, const Expr *e, LLVMValueRef base, LLVMValueRef mask) {
  DType t = e->dtype;
  const Expr *index = e->u.load.index;
  LLVMTypeRef mt = cg_mem_type(cg, t), vt = LLVMVectorType(mt, t.lanes), fty;
  unsigned align = elem_align(cg, t);
  LLVMValueRef v;
  if (is_dense(index)) {
    LLVMValueRef p = element_address(cg, mt, base, e->u.load.buf, index->u.ramp.base);
    align = dense_align(cg, e->u.load.buf, index->u.ramp.base, t);
    int w = access_width(cg, t, base, mask);
    if (w) {
      LLVMTypeRef wt = LLVMVectorType(mt, (unsigned)w);
      LLVMTypeRef types[2] = {wt, LLVMTypeOf(p)};
      LLVMValueRef f = cg_intrinsic(cg, "llvm.masked.load", types, 2, &fty);
      LLVMValueRef args[4] = {p, align_arg(cg, align), widen_mask(cg, mask, t.lanes, w),
                              LLVMGetPoison(wt)};
      LLVMValueRef wide = LLVMBuildCall2(cg->b, fty, f, args, 4, "");
      return from_memory(cg, t, resize(cg, wide, t.lanes, t.lanes, NULL));
    }
    if (!mask) {
      v = LLVMBuildLoad2(cg->b, vt, p, "");
      LLVMSetAlignment(v, align);
      return from_memory(cg, t, v);
    }
    LLVMTypeRef types[2] = {vt, LLVMTypeOf(p)};
    LLVMValueRef f = cg_intrinsic(cg, "llvm.masked.load", types, 2, &fty);
    LLVMValueRef args[4] = {p, align_arg(cg, align), mask, LLVMGetPoison(vt)};
    return from_memory(cg, t, LLVMBuildCall2(cg->b, fty, f, args, 4, ""));
  }
  LLVMValueRef idx = with_offset(cg, e->u.load.buf, index, cg_expr(cg, index));
  LLVMValueRef ptrs = LLVMBuildGEP2(cg->b, mt, base, &idx, 1, "");
  LLVMTypeRef types[2] = {vt, LLVMTypeOf(ptrs)};
  LLVMValueRef f = cg_intrinsic(cg, "llvm.masked.gather", types, 2, &fty);
  LLVMValueRef args[4] = {ptrs, align_arg(cg, align), mask ? mask : all_true(cg, t.lanes),
                          LLVMGetPoison(vt)};
  return from_memory(cg, t, LLVMBuildCall2(cg->b, fty, f, args, 4, ""));
}

LLVMValueRef cg_load(Cg *cg, const Expr *e) {
  const Expr *index = e->u.load.index;
  int lanes = e->dtype.lanes;
  LLVMValueRef base = data_pointer(cg, e->u.load.buf);
  if (index->dtype.lanes != lanes) {
    ir_error(cg->diag, "a load of %d lanes from '%s' has an index of %d", lanes,
             e->u.load.buf->name, index->dtype.lanes);
    return LLVMGetPoison(cg_type(cg, e->dtype));
  }
  LLVMValueRef lm = cg->lane_mask;
  bool lanes_fit = lm && LLVMGetVectorSize(LLVMTypeOf(lm)) == (unsigned)lanes;
  if (lanes > 1 && (!lm || lanes_fit))
    return load_vector(cg, e, base, access_mask(cg, e->u.load.predicate, lanes));
  /* A scalar access with a predicate, or an access under a branch's lanes that it cannot be
   * masked by: branch around it. */
  LLVMValueRef pred = e->u.load.predicate ? cg_expr(cg, e->u.load.predicate) : NULL;
  LLVMValueRef guard = lanes == 1 ? pred : NULL;
  if (lm) guard = guard ? LLVMBuildAnd(cg->b, guard, any_lane(cg, lm), "") : any_lane(cg, lm);
  Guard g = {0};
  if (guard) g = guard_begin(cg, guard);
  LLVMValueRef v;
  if (lanes > 1) {
    LLVMValueRef saved = cg->lane_mask;
    cg->lane_mask = NULL;
    v = load_vector(cg, e, base, pred);
    cg->lane_mask = saved;
  } else {
    v = load_scalar(cg, e->dtype, base, e->u.load.buf, index);
  }
  return guard ? guard_end(cg, g, v) : v;
}

/* ---- stores ---- */

static void store_vector(Cg *cg, const Stmt *s, LLVMValueRef base, LLVMValueRef value,
                         LLVMValueRef mask) {
  DType t = s->u.store.value->dtype;
  const Expr *index = s->u.store.index;
  LLVMTypeRef mt = cg_mem_type(cg, t), fty;
  unsigned align = elem_align(cg, t);
  value = to_memory(cg, t, value);
  if (is_dense(index)) {
    LLVMValueRef p = element_address(cg, mt, base, s->u.store.buf, index->u.ramp.base);
    align = dense_align(cg, s->u.store.buf, index->u.ramp.base, t);
    int w = access_width(cg, t, base, mask);
    if (w) {
      mask = widen_mask(cg, mask, t.lanes, w);
      value = resize(cg, value, t.lanes, w, NULL);
    }
    if (!mask) {
      LLVMSetAlignment(LLVMBuildStore(cg->b, value, p), align);
      return;
    }
    LLVMTypeRef types[2] = {LLVMTypeOf(value), LLVMTypeOf(p)};
    LLVMValueRef f = cg_intrinsic(cg, "llvm.masked.store", types, 2, &fty);
    LLVMValueRef args[4] = {value, p, align_arg(cg, align), mask};
    LLVMBuildCall2(cg->b, fty, f, args, 4, "");
    return;
  }
  LLVMValueRef idx = with_offset(cg, s->u.store.buf, index, cg_expr(cg, index));
  LLVMValueRef ptrs = LLVMBuildGEP2(cg->b, mt, base, &idx, 1, "");
  LLVMTypeRef types[2] = {LLVMTypeOf(value), LLVMTypeOf(ptrs)};
  LLVMValueRef f = cg_intrinsic(cg, "llvm.masked.scatter", types, 2, &fty);
  LLVMValueRef args[4] = {value, ptrs, align_arg(cg, align), mask ? mask : all_true(cg, t.lanes)};
  LLVMBuildCall2(cg->b, fty, f, args, 4, "");
}

void cg_store(Cg *cg, const Stmt *s) {
  DType t = s->u.store.value->dtype;
  const Expr *index = s->u.store.index;
  LLVMValueRef base = data_pointer(cg, s->u.store.buf);
  if (index->dtype.lanes != t.lanes) {
    ir_error(cg->diag, "a store of %d lanes to '%s' has an index of %d", t.lanes,
             s->u.store.buf->name, index->dtype.lanes);
    return;
  }
  LLVMValueRef value = cg_expr(cg, s->u.store.value);
  if (t.lanes > 1) {
    LLVMValueRef mask = s->u.store.predicate ? cg_expr(cg, s->u.store.predicate) : NULL;
    store_vector(cg, s, base, value, mask);
    return;
  }
  Guard g = {0};
  if (s->u.store.predicate) g = guard_begin(cg, cg_expr(cg, s->u.store.predicate));
  LLVMTypeRef mt = cg_mem_type(cg, t);
  LLVMValueRef p = element_address(cg, mt, base, s->u.store.buf, index);
  LLVMSetAlignment(LLVMBuildStore(cg->b, to_memory(cg, t, value), p), elem_align(cg, t));
  if (s->u.store.predicate) guard_end(cg, g, NULL);
}
