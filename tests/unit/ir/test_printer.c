/* test_printer.c: golden strings for ir/printer.c, every form of SPEC §8. Where a seed shows a
 * form, the expected text is copied from the seed (file named in the comment) with TVM's
 * noise taken out as SPEC §8 says: no `_1`/`_2` name suffixes, no inline `name: Buffer(...)`
 * declarations, no `(float32*)` casts on loads. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/tensor.h"
#include "tests/unit/check.h"

static Arena A;
static StrBuf sb;

/* Empties sb for the next print. */
static void reset(void) {
  sb.len = 0;
  if (sb.s) sb.s[0] = 0;
}

static const char *pe(const Expr *e) {
  reset();
  ir_print_expr(&sb, e);
  return sb_cstr(&sb);
}

static const char *ps(const Stmt *s, int indent) {
  reset();
  ir_print_stmt(&sb, s, indent);
  return sb_cstr(&sb);
}

/* ---- building blocks ---- */
static Var *var(const char *name) { return ir_var(&A, name, DT_I32); }
static Expr *V(Var *v) { return ir_varref(&A, v); }
static Expr *I(int64_t v) { return ir_i32(&A, v); }
static Expr *F(double v) { return ir_float(&A, DT_F32, v); }
static Expr *add(Expr *a, Expr *b) { return ir_binary(&A, EXPR_ADD, a, b); }
static Expr *sub(Expr *a, Expr *b) { return ir_binary(&A, EXPR_SUB, a, b); }
static Expr *mul(Expr *a, Expr *b) { return ir_binary(&A, EXPR_MUL, a, b); }
static Expr *lt(Expr *a, Expr *b) { return ir_binary(&A, EXPR_LT, a, b); }
static Expr *le(Expr *a, Expr *b) { return ir_binary(&A, EXPR_LE, a, b); }
static Expr *and_(Expr *a, Expr *b) { return ir_binary(&A, EXPR_AND, a, b); }
static Expr *ramp(Expr *base, int lanes) { return ir_ramp(&A, base, I(1), lanes); }

static Expr *call(DType t, const char *op, int n, ...) {
  Expr *args[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) args[i] = va_arg(ap, Expr *);
  va_end(ap);
  return ir_call(&A, t, op, CALL_PURE, n, args);
}

static Expr *likely(Expr *c) { return call(DT_BOOL1, "tir.likely", 1, c); }

static Buffer *buffer(const char *name, DType t) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  b->name = name;
  b->data = ir_var(&A, name, DT_HANDLE64);
  b->dtype = t;
  return b;
}

static Expr *load(Buffer *b, Expr *i) { return ir_load(&A, b, i, NULL); }
static Stmt *store(Buffer *b, Expr *i, Expr *v) { return ir_store(&A, b, v, i, NULL); }
static Stmt *loop(Var *v, Expr *extent, Stmt *body) {
  return ir_for(&A, v, I(0), extent, FOR_SERIAL, NULL, body);
}
static Stmt *seq2(Stmt *a, Stmt *b) {
  Stmt *items[2] = {a, b};
  return ir_seq(&A, 2, items);
}
static Stmt *alloc(Buffer *b, int64_t n, const char *scope, Stmt *body) {
  Expr *ext = I(n);
  return ir_allocate(&A, b->data, b->dtype, 1, &ext, scope, NULL, body);
}

static IterVar *thread(const char *tag, Expr *extent) {
  Range dom = {extent ? I(0) : NULL, extent};
  return ir_itervar(&A, var(tag), dom, ITER_THREAD, tag);
}
static Stmt *launch(IterVar *iv, int64_t n, Stmt *body) {
  return ir_attr(&A, ATTR_NODE_ITERVAR, iv, "thread_extent", I(n), body);
}

/* ---- literals ---- */

static void test_printer_literals(void) {
  CHECK_TEXT(pe(I(3)), "3");
  CHECK_TEXT(pe(I(-450)), "-450");
  CHECK_TEXT(pe(ir_int(&A, DT_I64, 3)), "3i64");
  CHECK_TEXT(pe(ir_int(&A, DT_MAKE(DT_INT, 8, 1), 0)), "0i8");     /* 001_* */
  CHECK_TEXT(pe(ir_int(&A, DT_MAKE(DT_UINT, 64, 1), 0)), "0u64");  /* 000_* */
  CHECK_TEXT(pe(ir_int(&A, DT_MAKE(DT_UINT, 32, 1), 1)), "1u32");  /* 000_* */
  CHECK_TEXT(pe(ir_int(&A, DT_MAKE(DT_UINT, 8, 1), -1)), "255u8"); /* stored as its bits */
  CHECK_TEXT(pe(ir_int(&A, DT_BOOL1, 1)), "True");
  CHECK_TEXT(pe(ir_int(&A, DT_BOOL1, 0)), "False");
  CHECK_TEXT(pe(F(2)), "2f32");                                      /* 004_* */
  CHECK_TEXT(pe(F(0)), "0f32");                                      /* 000_* */
  CHECK_TEXT(pe(F(0.5)), "0.5f32");                                  /* 000_* */
  CHECK_TEXT(pe(F(-3.4028234663852886e+38)), "-3.40282e+38f32");     /* 000_*: min_value */
  CHECK_TEXT(pe(ir_float(&A, DT_MAKE(DT_FLOAT, 16, 1), 0)), "0f16"); /* 003_* */
  CHECK_TEXT(pe(ir_float(&A, DT_F64, 0.5)), "0.5f64");
  CHECK_TEXT(pe(F(0.1)), "0.1f32");
  CHECK_TEXT(pe(F(1e-5)), "1e-05f32");
  CHECK_TEXT(pe(F(1.0 / 3)), "0.333333f32"); /* TVM's six digits */
  CHECK_TEXT(pe(ir_str(&A, "a \"b\"\n")), "\"a \\\"b\\\"\\n\"");
  reset();
  ir_print_const(&sb, ir_int(&A, DT_I64, -2));
  CHECK_TEXT(sb_cstr(&sb), "-2i64");
}

/* ---- expressions ---- */

static void test_printer_operators(void) {
  Var *a = var("a"), *b = var("b");
  Expr *x = V(a), *y = V(b);
  CHECK_TEXT(pe(add(x, y)), "(a + b)");
  CHECK_TEXT(pe(sub(x, y)), "(a - b)");
  CHECK_TEXT(pe(mul(x, y)), "(a*b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_DIV, x, y)), "(a / b)"); /* 000_*: softmax */
  CHECK_TEXT(pe(ir_binary(&A, EXPR_MOD, x, y)), "(a % b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_FLOORDIV, x, y)), "floordiv(a, b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_FLOORMOD, x, y)), "floormod(a, b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_MIN, x, y)), "min(a, b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_MAX, x, y)), "max(a, b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_EQ, x, y)), "(a == b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_NE, x, y)), "(a != b)");
  CHECK_TEXT(pe(lt(x, y)), "(a < b)");
  CHECK_TEXT(pe(le(x, y)), "(a <= b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_GT, x, y)), "(a > b)");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_GE, x, y)), "(a >= b)");
  CHECK_TEXT(pe(and_(lt(x, y), le(y, x))), "((a < b) && (b <= a))");
  CHECK_TEXT(pe(ir_binary(&A, EXPR_OR, lt(x, y), le(y, x))), "((a < b) || (b <= a))");
  CHECK_TEXT(pe(ir_not(&A, lt(x, y))), "!(a < b)");
  CHECK_TEXT(pe(ir_select(&A, lt(x, y), x, y)), "select((a < b), a, b)");
  CHECK_TEXT(pe(ir_cast(&A, DT_F32, x)), "cast(float32, a)");
  Var *t = var("t");
  CHECK_TEXT(pe(ir_let(&A, t, x, mul(V(t), V(t)))), "(let t = a in (t*t))");
  /* 004_*: the split's guard */
  Var *io = var("i.outer"), *ii = var("i.inner"), *m = var("m");
  CHECK_TEXT(pe(likely(lt(add(mul(V(io), I(32)), V(ii)), V(m)))),
             "@tir.likely((((i.outer*32) + i.inner) < m), dtype=bool)");
  /* 001_*: VTA's padding and requantisation */
  Var *i2 = var("i2");
  CHECK_TEXT(
      pe(call(DT_MAKE(DT_INT, 8, 1), "tir.if_then_else", 3, and_(le(I(1), V(i2)), lt(V(i2), I(15))),
              I(7), ir_int(&A, DT_MAKE(DT_INT, 8, 1), 0))),
      "@tir.if_then_else(((1 <= i2) && (i2 < 15)), 7, 0i8, dtype=int8)");
  Buffer *res = buffer("res_conv", DT_I32);
  CHECK_TEXT(pe(call(DT_I32, "tir.shift_right", 2, load(res, V(i2)), I(8))),
             "@tir.shift_right(res_conv[i2], 8, dtype=int32)");
  Expr *ext = ir_call(&A, DT_F32, "expf", CALL_EXTERN, 1, (Expr *[]){F(1)});
  CHECK_TEXT(pe(ext), "@tir.call_extern(\"expf\", 1f32, dtype=float32)");
  CHECK_TEXT(pe(ir_call(&A, DT_I32, "tir.tvm_warp_activemask", CALL_EFFECT, 0, NULL)),
             "@tir.tvm_warp_activemask(dtype=int32)");
}

static void test_printer_vectors(void) {
  /* 000_*: softmax, vectorised by 4 */
  Var *tx = var("threadIdx.x"), *c = var("cse_var_1");
  Buffer *tarray = buffer("tarray", DT_F32), *red = buffer("reduce_temp0", DT_F32);
  Expr *idx = ramp(add(mul(V(tx), I(16)), V(c)), 4);
  CHECK_TEXT(pe(idx), "ramp(((threadIdx.x*16) + cse_var_1), 1, 4)");
  Expr *e = call(DT_MAKE(DT_FLOAT, 32, 4), "tir.exp", 1,
                 ir_binary(&A, EXPR_SUB, load(tarray, idx), ir_broadcast(&A, load(red, I(0)), 4)));
  CHECK_TEXT(pe(e), "@tir.exp((tarray[ramp(((threadIdx.x*16) + cse_var_1), 1, 4)] - "
                    "broadcast(reduce_temp0[0], 4)), dtype=float32x4)");
  CHECK(dt_eq(e->dtype, DT_MAKE(DT_FLOAT, 32, 4)));
  Buffer *pb = buffer("P", DT_F32);
  Expr *pred = ir_broadcast(&A, ir_int(&A, DT_BOOL1, 1), 4);
  CHECK_TEXT(pe(ir_load(&A, pb, idx, pred)),
             "P[ramp(((threadIdx.x*16) + cse_var_1), 1, 4)] if broadcast(True, 4)");
}

static Tensor *tensor(const char *name, int ndim) {
  Tensor *t = arena_alloc(&A, sizeof *t);
  t->name = name;
  t->dtype = DT_F32;
  t->ndim = ndim;
  return t;
}

static void test_printer_tensors(void) {
  Var *i = var("i"), *j = var("j"), *m = var("m"), *n = var("n");
  Tensor *ta = tensor("A", 2), *tb = tensor("B", 2);
  Expr *ij[2] = {V(i), V(j)};
  Expr *a_ij = ir_pload(&A, ta, 2, ij);
  CHECK_TEXT(pe(a_ij), "A[i, j]");
  Stmt *pv = ir_provide(&A, tb, mul(a_ij, F(2)), 2, ij);
  CHECK_TEXT(ps(pv, 0), "B[i, j] = (A[i, j]*2f32)\n");
  Range bounds[2] = {{I(0), V(m)}, {I(0), V(n)}};
  Stmt *rz = ir_realize(&A, tb, 2, bounds, NULL, NULL, loop(i, V(m), loop(j, V(n), pv)));
  CHECK_TEXT(ps(rz, 0), "realize B([0, m], [0, n]) {\n"
                        "  for (i: int32, 0, m) {\n"
                        "    for (j: int32, 0, n) {\n"
                        "      B[i, j] = (A[i, j]*2f32)\n"
                        "    }\n"
                        "  }\n"
                        "}\n");
  /* the te printer's reduce, as in 000_*'s stage list (with our True for an absent where=) */
  Var *x = ir_var(&A, "x", DT_F32), *y = ir_var(&A, "y", DT_F32);
  Expr *sum = add(V(x), V(y)), *zero = F(0);
  CommReducer cr = {"sum", 1, &x, &y, &sum, &zero};
  IterVar *k = ir_itervar(&A, var("k"), (Range){I(0), I(10)}, ITER_REDUCE, NULL);
  Tensor *t1 = tensor("T", 1);
  Expr *kk[1] = {V(k->var)};
  Expr *src = ir_pload(&A, t1, 1, kk);
  CHECK_TEXT(pe(ir_reduce(&A, &cr, 1, &src, 1, &k, NULL, 0)),
             "reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], "
             "identity_element=[0f32]), source=[T[k]], init=[], "
             "axis=[iter_var(k, range(min=0, ext=10))], where=True, value_index=0)");
}

/* ---- statements ---- */

/* 004_*: split by 32 with a guard; SPEC §8's example body. */
static void test_printer_split(void) {
  Var *io = var("i.outer"), *ii = var("i.inner"), *m = var("m");
  Buffer *a = buffer("A", DT_F32), *b = buffer("B", DT_F32);
  Expr *idx = add(mul(V(io), I(32)), V(ii));
  Stmt *body = ir_if(&A, likely(lt(idx, V(m))), store(b, idx, mul(load(a, idx), F(2))), NULL);
  Expr *outer_ext = ir_binary(&A, EXPR_FLOORDIV, add(V(m), I(31)), I(32));
  Stmt *s = loop(io, outer_ext, loop(ii, I(32), body));
  CHECK_TEXT(ps(s, 1), "  for (i.outer: int32, 0, floordiv((m + 31), 32)) {\n"
                       "    for (i.inner: int32, 0, 32) {\n"
                       "      if @tir.likely((((i.outer*32) + i.inner) < m), dtype=bool) {\n"
                       "        B[((i.outer*32) + i.inner)] = (A[((i.outer*32) + i.inner)]*2f32)\n"
                       "      }\n"
                       "    }\n"
                       "  }\n");
}

/* 001_*: a run of allocates, each covering the next; the last covers a sequence. */
static void test_printer_allocate(void) {
  Buffer *data = buffer("data_buf", DT_MAKE(DT_INT, 8, 1));
  Buffer *kern = buffer("kernel_buf", DT_MAKE(DT_INT, 8, 1));
  Buffer *res = buffer("res_conv", DT_I32);
  Var *co = var("co"), *i = var("i");
  Expr *idx = add(mul(V(co), I(3136)), mul(V(i), I(224)));
  Stmt *clip = store(res, idx, ir_binary(&A, EXPR_MAX, load(res, idx), I(0)));
  Stmt *low = store(res, idx, ir_binary(&A, EXPR_MIN, load(res, idx), I(127)));
  Stmt *body = seq2(loop(co, I(16), loop(i, I(14), clip)), store(res, I(0), I(0)));
  body = seq2(body, low);
  Stmt *s = alloc(data, 65536, "global",
                  alloc(kern, 589824, "global", alloc(res, 50176, "global", body)));
  CHECK_TEXT(
      ps(s, 1),
      "  allocate(data_buf: Pointer(global int8), int8, [65536]), storage_scope = global;\n"
      "  allocate(kernel_buf: Pointer(global int8), int8, [589824]), storage_scope = global;\n"
      "  allocate(res_conv: Pointer(global int32), int32, [50176]), storage_scope = global {\n"
      "    for (co: int32, 0, 16) {\n"
      "      for (i: int32, 0, 14) {\n"
      "        res_conv[((co*3136) + (i*224))] = max(res_conv[((co*3136) + (i*224))], 0)\n"
      "      }\n"
      "    }\n"
      "    res_conv[0] = 0\n"
      "    res_conv[((co*3136) + (i*224))] = min(res_conv[((co*3136) + (i*224))], 127)\n"
      "  }\n");
  /* the brief's local cache, with a condition */
  Buffer *bl = buffer("B.local", DT_F32);
  Expr *ext = I(4);
  Stmt *c =
      ir_allocate(&A, bl->data, DT_F32, 1, &ext, "local", lt(I(0), I(1)), store(bl, I(0), F(0)));
  CHECK_TEXT(ps(c, 0),
             "allocate(B.local: Pointer(local float32), float32, [4]), storage_scope = local"
             " if (0 < 1);\n"
             "B.local[0] = 0f32\n");
}

/* 000_*: softmax on CUDA, lines 135-166 of the seed: thread attrs, a let, vector stores, a
 * buffer of float32x4, and a second attr on one thread variable (printed without its type).
 * The seed's `attr [meta[tir.CommReducer][0]] "reduce_scope"` lines are left out: they print
 * a node that ir/ has no kind for. */
static Stmt *allreduce(Buffer *from, Buffer *to, Expr *tx) {
  Expr *args[5] = {ir_int(&A, DT_MAKE(DT_UINT, 32, 1), 1), load(from, I(0)),
                   ir_int(&A, DT_BOOL1, 1), load(to, I(0)), tx};
  return ir_evaluate(&A,
                     ir_call(&A, DT_HANDLE64, "tir.tvm_thread_allreduce", CALL_EFFECT, 5, args));
}

static void test_printer_softmax(void) {
  Buffer *norm = buffer("T_softmax_norm", DT_MAKE(DT_FLOAT, 32, 4));
  Buffer *nrt = buffer("normal_reduce_temp0", DT_F32), *rt = buffer("reduce_temp0", DT_F32);
  Buffer *nrt1 = buffer("normal_reduce_temp0", DT_F32), *rt1 = buffer("reduce_temp0", DT_F32);
  Buffer *exp_ = buffer("T_softmax_exp", DT_F32), *tarray = buffer("tarray", DT_F32);
  IterVar *bx = thread("blockIdx.x", NULL), *tx = thread("threadIdx.x", I(32));
  Var *k = var("k.inner"), *io = var("i1.inner.outer"), *cse = var("cse_var_1");
  Var *k1 = var("k.inner"), *io1 = var("i1.inner.outer");
  Expr *bxv = V(bx->var), *txv = V(tx->var);
  /* the max reduction and the exp */
  Expr *tidx = add(add(mul(bxv, I(512)), mul(txv, I(16))), V(k));
  Stmt *mx = store(nrt, I(0), ir_binary(&A, EXPR_MAX, load(nrt, I(0)), load(tarray, tidx)));
  Expr *eidx = ramp(add(mul(txv, I(16)), V(cse)), 4);
  Expr *aidx = ramp(add(add(mul(bxv, I(512)), mul(txv, I(16))), V(cse)), 4);
  Expr *ex = call(DT_MAKE(DT_FLOAT, 32, 4), "tir.exp", 1,
                  sub(load(tarray, aidx), ir_broadcast(&A, load(rt, I(0)), 4)));
  Stmt *let = ir_let_stmt(&A, cse, mul(V(io), I(4)), store(exp_, eidx, ex));
  Stmt *items1[4] = {store(nrt, I(0), F(-3.4028234663852886e+38)), loop(k, I(16), mx),
                     allreduce(nrt, rt, txv), loop(io, I(4), let)};
  Stmt *first = launch(tx, 32, ir_seq(&A, 4, items1));
  /* the sum and the division */
  Expr *sidx = add(mul(txv, I(16)), V(k1));
  Stmt *sum = store(nrt1, I(0), add(load(nrt1, I(0)), load(exp_, sidx)));
  Expr *nidx = add(add(mul(bxv, I(128)), mul(txv, I(4))), V(io1));
  Expr *quot = ir_binary(&A, EXPR_DIV, load(exp_, ramp(add(mul(txv, I(16)), mul(V(io1), I(4))), 4)),
                         ir_broadcast(&A, load(rt1, I(0)), 4));
  Stmt *items2[4] = {store(nrt1, I(0), F(0)), loop(k1, I(16), sum), allreduce(nrt1, rt1, txv),
                     loop(io1, I(4), store(norm, nidx, quot))};
  Stmt *second = launch(tx, 32, ir_seq(&A, 4, items2));
  Stmt *s = alloc(rt1, 1, "local", seq2(first, second));
  s = alloc(nrt1, 1, "local", s);
  s = alloc(exp_, 512, "warp", s);
  s = alloc(rt, 1, "local", s);
  s = alloc(nrt, 1, "local", s);
  s = alloc(norm, 65536, "global", launch(bx, 512, s));
  /* clang-format off: one line per line of the seed */
  CHECK_TEXT(
      ps(s, 1),
      "  allocate(T_softmax_norm: Pointer(global float32x4), float32x4, [65536]), storage_scope = "
      "global;\n"
      "  attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", \"blockIdx.x\")] "
      "\"thread_extent\" = 512;\n"
      "  allocate(normal_reduce_temp0: Pointer(local float32), float32, [1]), storage_scope = "
      "local;\n"
      "  allocate(reduce_temp0: Pointer(local float32), float32, [1]), storage_scope = local;\n"
      "  allocate(T_softmax_exp: Pointer(warp float32), float32, [512]), storage_scope = warp;\n"
      "  allocate(normal_reduce_temp0: Pointer(local float32), float32, [1]), storage_scope = "
      "local;\n"
      "  allocate(reduce_temp0: Pointer(local float32), float32, [1]), storage_scope = local {\n"
      "    attr [IterVar(threadIdx.x: int32, [0:32], \"ThreadIndex\", \"threadIdx.x\")] "
      "\"thread_extent\" = 32 {\n"
      "      normal_reduce_temp0[0] = -3.40282e+38f32\n"
      "      for (k.inner: int32, 0, 16) {\n"
      "        normal_reduce_temp0[0] = max(normal_reduce_temp0[0], tarray[(((blockIdx.x*512) + "
      "(threadIdx.x*16)) + k.inner)])\n"
      "      }\n"
      "      @tir.tvm_thread_allreduce(1u32, normal_reduce_temp0[0], True, reduce_temp0[0], "
      "threadIdx.x, dtype=handle)\n"
      "      for (i1.inner.outer: int32, 0, 4) {\n"
      "        let cse_var_1: int32 = (i1.inner.outer*4)\n"
      "        T_softmax_exp[ramp(((threadIdx.x*16) + cse_var_1), 1, 4)] = "
      "@tir.exp((tarray[ramp((((blockIdx.x*512) + (threadIdx.x*16)) + cse_var_1), 1, 4)] - "
      "broadcast(reduce_temp0[0], 4)), dtype=float32x4)\n"
      "      }\n"
      "    }\n"
      "    attr [IterVar(threadIdx.x, [0:32], \"ThreadIndex\", \"threadIdx.x\")] \"thread_extent\" "
      "= 32 {\n"
      "      normal_reduce_temp0[0] = 0f32\n"
      "      for (k.inner: int32, 0, 16) {\n"
      "        normal_reduce_temp0[0] = (normal_reduce_temp0[0] + T_softmax_exp[((threadIdx.x*16) "
      "+ k.inner)])\n"
      "      }\n"
      "      @tir.tvm_thread_allreduce(1u32, normal_reduce_temp0[0], True, reduce_temp0[0], "
      "threadIdx.x, dtype=handle)\n"
      "      for (i1.inner.outer: int32, 0, 4) {\n"
      "        T_softmax_norm[(((blockIdx.x*128) + (threadIdx.x*4)) + i1.inner.outer)] = "
      "(T_softmax_exp[ramp(((threadIdx.x*16) + (i1.inner.outer*4)), 1, 4)] / "
      "broadcast(reduce_temp0[0], 4))\n"
      "      }\n"
      "    }\n"
      "  }\n");
  /* clang-format on */
}

/* 000_*: the fused conv2d's thread attrs and guarded copy, and the reduce's final if. */
static void test_printer_guards(void) {
  IterVar *bz = thread("blockIdx.z", NULL), *tx = thread("threadIdx.x", NULL);
  Buffer *ps_ = buffer("placeholder.shared", DT_F32), *ph = buffer("placeholder", DT_F32);
  Var *rc = var("rc.outer");
  Expr *txv = V(tx->var);
  Stmt *copy =
      ir_if(&A, likely(lt(txv, I(2))), store(ps_, txv, load(ph, add(mul(V(rc), I(4)), txv))), NULL);
  Stmt *s = launch(bz, 5, launch(tx, 16, copy));
  /* clang-format off */
  CHECK_TEXT(ps(s, 4),
    "        attr [IterVar(blockIdx.z: int32, (nullptr), \"ThreadIndex\", \"blockIdx.z\")] \"thread_extent\" = 5;\n"
    "        attr [IterVar(threadIdx.x: int32, (nullptr), \"ThreadIndex\", \"threadIdx.x\")] \"thread_extent\" = 16;\n"
    "        if @tir.likely((threadIdx.x < 2), dtype=bool) {\n"
    "          placeholder.shared[threadIdx.x] = placeholder[((rc.outer*4) + threadIdx.x)]\n"
    "        }\n");
  /* clang-format on */
  Buffer *red = buffer("T_divide_red", DT_F32), *tmp = buffer("reduce_temp0", DT_F32);
  Stmt *fin = ir_if(&A, ir_binary(&A, EXPR_EQ, txv, I(0)), store(red, I(0), load(tmp, I(0))),
                    store(red, I(0), F(0.5)));
  CHECK_TEXT(ps(fin, 2), "    if (threadIdx.x == 0) {\n"
                         "      T_divide_red[0] = reduce_temp0[0]\n"
                         "    } else {\n"
                         "      T_divide_red[0] = 0.5f32\n"
                         "    }\n");
}

static void test_printer_loop_kinds(void) {
  Buffer *b = buffer("B", DT_F32);
  Var *v = var("i.outer");
  ForKind kinds[4] = {FOR_PARALLEL, FOR_VECTORIZED, FOR_UNROLLED, FOR_THREAD_BINDING};
  const char *want[4] = {
      "for (i.outer: int32, 0, 32) \"parallel\" {\n  B[i.outer] = 0f32\n}\n",
      "for (i.outer: int32, 0, 32) \"vectorized\" {\n  B[i.outer] = 0f32\n}\n",
      "for (i.outer: int32, 0, 32) \"unroll\" {\n  B[i.outer] = 0f32\n}\n",
      "for (i.outer: int32, 0, 32) \"thread_binding\" {\n  B[i.outer] = 0f32\n}\n",
  };
  for (int k = 0; k < 4; k++) {
    Stmt *s = ir_for(&A, v, I(0), I(32), kinds[k], NULL, store(b, V(v), F(0)));
    CHECK_TEXT(ps(s, 0), want[k]);
  }
  Var *w = ir_var(&A, "w", DT_I64);
  Stmt *wide = ir_for(&A, w, ir_int(&A, DT_I64, 0), ir_int(&A, DT_I64, 8), FOR_SERIAL, NULL,
                      ir_evaluate(&A, I(0)));
  CHECK_TEXT(ps(wide, 0), "for (w: int64, 0i64, 8i64) {\n  0\n}\n");
}

static void test_printer_other_stmts(void) {
  Var *n = var("n"), *x = var("x");
  Stmt *body = ir_evaluate(&A, call(DT_I32, "tir.tvm_storage_sync", 1, ir_str(&A, "shared")));
  Stmt *as = ir_assert(&A, lt(I(0), V(n)), ir_str(&A, "n must be positive"), body);
  CHECK_TEXT(ps(as, 0), "assert((0 < n), \"n must be positive\");\n"
                        "@tir.tvm_storage_sync(\"shared\", dtype=int32)\n");
  Stmt *let = ir_let_stmt(&A, x, add(V(n), I(1)), ir_let_stmt(&A, x, V(x), body));
  CHECK_TEXT(ps(let, 1), "  let x: int32 = (n + 1)\n"
                         "  let x = x\n"
                         "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n");
  Buffer *b = buffer("A", DT_F32);
  Stmt *at = ir_attr(&A, ATTR_NODE_BUFFER, b, "storage_scope", ir_str(&A, "shared"), body);
  CHECK_TEXT(ps(at, 0), "attr [A] \"storage_scope\" = \"shared\";\n"
                        "@tir.tvm_storage_sync(\"shared\", dtype=int32)\n");
  Var *v = var("i");
  IterVar *vt =
      ir_itervar(&A, ir_var(&A, "vthread", DT_I32), (Range){NULL, NULL}, ITER_VTHREAD, "vthread");
  Stmt *vth = ir_attr(&A, ATTR_NODE_ITERVAR, vt, "virtual_thread", I(2), body);
  CHECK_TEXT(ps(vth, 0), "attr [IterVar(vthread: int32, (nullptr), \"ThreadIndex\", \"vthread\")] "
                         "\"virtual_thread\" = 2;\n"
                         "@tir.tvm_storage_sync(\"shared\", dtype=int32)\n");
  Stmt *pr = ir_attr(&A, ATTR_NODE_VAR, v, "pragma_auto_unroll_max_step", I(16), seq2(body, body));
  CHECK_TEXT(ps(pr, 0), "attr [i] \"pragma_auto_unroll_max_step\" = 16 {\n"
                        "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
                        "  @tir.tvm_storage_sync(\"shared\", dtype=int32)\n"
                        "}\n");
  IterVar *r = ir_itervar(&A, var("j"), (Range){I(2), I(4)}, ITER_DATA_PAR, NULL);
  Stmt *rng = ir_attr(&A, ATTR_NODE_ITERVAR, r, "k", I(0), body);
  CHECK_TEXT(ps(rng, 0), "attr [IterVar(j: int32, [2:6], \"DataPar\", \"\")] \"k\" = 0;\n"
                         "@tir.tvm_storage_sync(\"shared\", dtype=int32)\n");
  Buffer *pb = buffer("P", DT_F32);
  Expr *idx = ramp(I(0), 4), *mask = ir_binary(&A, EXPR_LT, idx, ir_broadcast(&A, V(n), 4));
  Stmt *st = ir_store(&A, pb, ir_broadcast(&A, F(1), 4), idx, mask);
  CHECK_TEXT(ps(st, 0),
             "P[ramp(0, 1, 4)] = broadcast(1f32, 4) if (ramp(0, 1, 4) < broadcast(n, 4))\n");
  CHECK_TEXT(ps(ir_seq(&A, 0, NULL), 3), "");
}

int main(void) {
  arena_init(&A);
  test_printer_literals();
  test_printer_operators();
  test_printer_vectors();
  test_printer_tensors();
  test_printer_split();
  test_printer_allocate();
  test_printer_softmax();
  test_printer_guards();
  test_printer_loop_kinds();
  test_printer_other_stmts();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
