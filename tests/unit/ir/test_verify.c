/* test_verify.c: the IR verifier (ir/verify.c) on bodies built by hand, each breaking one rule
 * (a node the constructors would refuse is patched after it is built), and on the IR of every
 * lowering step; the depth of expressions (ir/expr.c) and IR_MAX_DEPTH, with a lowering of an
 * expression at that depth through every pass and the printer (under ./check --sanitize too),
 * and the lowering's refusal of what inlining makes deeper. */
#include <stdlib.h>

#include "ir/verify.h"
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n;
static Tensor *ta, *tb;
static Buffer *ba, *bb;
static Tensor *params_t[2];
static Buffer *params_b[2];
static Diag err;

/* A parameter's buffer, as lower_run makes one. */
static Buffer *buffer_of(Tensor *t) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = t->name,
                .data = ir_var(&A, t->name, DT_HANDLE64),
                .dtype = t->dtype,
                .ndim = t->ndim,
                .shape = t->shape,
                .scope = "global",
                .data_alignment = 64,
                .offset_factor = 1};
  return b;
}

/* A: [m], B: [n*2] */
static void setup(void) {
  m = var("m");
  n = var("n");
  ta = placeholder("A", 1, V(m));
  tb = placeholder("B", 1, mul(V(n), I(2)));
  ba = buffer_of(ta);
  bb = buffer_of(tb);
  params_t[0] = ta, params_t[1] = tb;
  params_b[0] = ba, params_b[1] = bb;
}

/* "ok", or the verifier's message, for body as the body of f(A, B). */
static const char *verify(const Stmt *body, bool flattened) {
  PassCtx ctx = {.arena = &A, .nbinds = 2, .bind_tensors = params_t, .bind_buffers = params_b};
  diag_clear(&err);
  if (ir_verify_func(body, &ctx, flattened, "test", &err)) return "ok";
  CHECK(err.kind == DIAG_INTERNAL);
  return err.msg;
}

static Expr *load(Buffer *b, Expr *index) { return ir_load(&A, b, index, NULL); }
static Stmt *store(Buffer *b, Expr *value, Expr *index) {
  return ir_store(&A, b, value, index, NULL);
}
static Stmt *loop(Var *v, Expr *extent, Stmt *body) {
  return ir_for(&A, v, I(0), extent, FOR_SERIAL, NULL, body);
}
static Stmt *seq2(Stmt *x, Stmt *y) {
  Stmt *items[2] = {x, y};
  return ir_seq(&A, 2, items);
}
/* B[i] = A[i] + 1f32 */
static Stmt *copy_at(Var *i) { return store(bb, add(load(ba, V(i)), F(1)), V(i)); }

/* ---- what is bound ---- */

static void test_verify_well_formed(void) {
  Var *i = var("i");
  CHECK_TEXT(verify(loop(i, V(m), copy_at(i)), true), "ok");
  /* n is a free variable of B's shape; sibling loops may share a variable */
  Stmt *two = seq2(loop(i, mul(V(n), I(2)), copy_at(i)), loop(i, V(m), copy_at(i)));
  CHECK_TEXT(verify(two, true), "ok");
  /* let statements and let expressions bind for their bodies */
  Var *x = var("x"), *y = var("y");
  Expr *let_e = ir_let(&A, y, V(x), add(V(y), I(1)));
  CHECK_TEXT(verify(loop(i, V(m), ir_let_stmt(&A, x, V(i), copy_at(x))), true), "ok");
  CHECK_TEXT(verify(loop(i, V(m), ir_let_stmt(&A, x, V(i), store(bb, F(0), let_e))), true), "ok");
}

static void test_verify_unbound(void) {
  Var *i = var("i"), *x = var("x");
  CHECK_TEXT(verify(copy_at(i), true),
             "IR after test is malformed: variable i is not bound: B[i] = (A[i] + 1f32)");
  /* a let's variable is bound in its body only */
  Stmt *s = seq2(ir_let_stmt(&A, x, V(i), copy_at(x)), copy_at(x));
  CHECK_TEXT(verify(loop(i, V(m), s), true),
             "IR after test is malformed: variable x is not bound: B[x] = (A[x] + 1f32)");
  /* a loop's variable is not bound in its own extent */
  CHECK_TEXT(verify(loop(i, V(i), copy_at(i)), true),
             "IR after test is malformed: variable i is not bound: for (i: int32, 0, i) {");
}

static void test_verify_bound_twice(void) {
  Var *i = var("i");
  CHECK_TEXT(verify(loop(i, V(m), loop(i, I(4), copy_at(i))), true),
             "IR after test is malformed: variable i is bound again inside its own scope: "
             "for (i: int32, 0, 4) {");
  /* a loop over a shape variable rebinds it */
  CHECK_TEXT(verify(loop(m, I(4), copy_at(m)), true),
             "IR after test is malformed: variable m is bound again inside its own scope: "
             "for (m: int32, 0, 4) {");
}

/* A kernel has every thread index from its launch: bound inference for local storage reads
 * threadIdx.x before the attr that binds it (tests/lit/schedule/bi_sched_threads.tes). A
 * virtual thread binds only inside its attr. */
static void test_verify_threads(void) {
  Var *tx = var("threadIdx.x"), *vx = var("vthread");
  IterVar *itx = ir_itervar(&A, tx, (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  IterVar *ivx = ir_itervar(&A, vx, (Range){NULL, NULL}, ITER_VTHREAD, "vthread");
  Stmt *launch = ir_attr(&A, ATTR_NODE_ITERVAR, itx, "thread_extent", I(64), copy_at(tx));
  CHECK_TEXT(verify(seq2(copy_at(tx), launch), true), "ok");
  Stmt *virt = ir_attr(&A, ATTR_NODE_ITERVAR, ivx, "virtual_thread", I(2), copy_at(vx));
  CHECK_TEXT(verify(virt, false), "ok");
  CHECK_TEXT(verify(seq2(virt, copy_at(vx)), false),
             "IR after test is malformed: variable vthread is not bound: "
             "B[vthread] = (A[vthread] + 1f32)");
}

static void test_verify_buffers(void) {
  Var *i = var("i"), *c = ir_var(&A, "C", DT_HANDLE64);
  Buffer *bc = arena_alloc(&A, sizeof *bc);
  *bc = *ba;
  bc->name = "C", bc->data = c, bc->shape = NULL, bc->ndim = 0;
  Expr *ext = I(16);
  Stmt *fill = loop(i, I(16), store(bc, load(ba, V(i)), V(i)));
  Stmt *use = loop(i, I(16), store(bb, load(bc, V(i)), V(i)));
  Stmt *alloc = ir_allocate(&A, c, DT_F32, 1, &ext, "global", NULL, seq2(fill, use));
  CHECK_TEXT(verify(alloc, true), "ok");
  CHECK_TEXT(verify(seq2(alloc, use), true),
             "IR after test is malformed: buffer C is neither a parameter nor allocated here: "
             "C[i], in: B[i] = C[i]");
}

/* An allocation C of `ext` elements around body. */
static Stmt *alloc_c(Buffer **bc, Expr *ext, Stmt *(*body)(Buffer *)) {
  Var *c = ir_var(&A, "C", DT_HANDLE64);
  *bc = arena_alloc(&A, sizeof **bc);
  **bc = *ba;
  (*bc)->name = "C", (*bc)->data = c, (*bc)->shape = NULL, (*bc)->ndim = 0;
  return ir_allocate(&A, c, DT_F32, 1, &ext, "global", NULL, body(*bc));
}

static Var *li, *lj;

/* C[i + 4] = A[i] for i in [0, 16) */
static Stmt *shifted_fill(Buffer *bc) {
  return loop(li, I(16), store(bc, load(ba, V(li)), add(V(li), I(4))));
}
/* for i in [0, m): C[i] = A[i] (storage planning that gave a symbolic size 0) */
static Stmt *symbolic_fill(Buffer *bc) { return loop(li, V(m), store(bc, load(ba, V(li)), V(li))); }
/* for i in [0, 4), j in [0, 0): C[i] = A[i], which never runs */
static Stmt *dead_fill(Buffer *bc) {
  return loop(li, I(4), loop(lj, I(0), store(bc, load(ba, V(li)), V(li))));
}
/* if i < 12: C[i + 4] = A[i] */
static Stmt *guarded_fill(Buffer *bc) {
  Stmt *st = store(bc, load(ba, V(li)), add(V(li), I(4)));
  return loop(li, I(16), ir_if(&A, ir_binary(&A, EXPR_LT, V(li), I(12)), st, NULL));
}
/* C[ramp(i*4, 1, 4)] = broadcast(1f32, 4) for i in [0, 5) */
static Stmt *vector_fill(Buffer *bc) {
  Expr *idx = ir_ramp(&A, mul(V(li), I(4)), I(1), 4);
  return loop(li, I(5), store(bc, ir_broadcast(&A, F(1), 4), idx));
}

/* Every allocation of a constant size is positive where anything that runs uses it, and no
 * access certainly leaves its allocation (issue 10): what used to be a heap overwrite or a
 * crash inside LLVM is an internal error naming the pass. */
static void test_verify_inside_allocations(void) {
  Buffer *bc;
  li = var("i"), lj = var("j");
  CHECK_TEXT(verify(alloc_c(&bc, I(20), shifted_fill), true), "ok");
  CHECK_TEXT(verify(alloc_c(&bc, I(16), shifted_fill), true),
             "IR after test is malformed: buffer C, allocated with 16 elements, is accessed at "
             "indices [4, 19]: C[(i + 4)] = A[i]");
  CHECK_TEXT(verify(alloc_c(&bc, I(0), symbolic_fill), true),
             "IR after test is malformed: buffer C is used but allocated with 0 elements: "
             "C[i] = A[i]");
  /* a zero-sized tensor's loops run no iteration: nothing to report */
  CHECK_TEXT(verify(alloc_c(&bc, I(0), dead_fill), true), "ok");
  /* guarded: not provable either way, so not reported (tes.CheckBounds warns on tensors) */
  CHECK_TEXT(verify(alloc_c(&bc, I(16), guarded_fill), true), "ok");
  /* a symbolic size is not compared with the upper end */
  CHECK_TEXT(verify(alloc_c(&bc, V(m), shifted_fill), true), "ok");
  /* a ramp is checked at both ends: 4 lanes from 16 end at 19 */
  CHECK_TEXT(verify(alloc_c(&bc, I(20), vector_fill), true), "ok");
  CHECK_TEXT(verify(alloc_c(&bc, I(19), vector_fill), true),
             "IR after test is malformed: buffer C, allocated with 19 elements, is accessed at "
             "indices [3, 19]: C[ramp((i*4), 1, 4)] = broadcast(1f32, 4)");
  CHECK_TEXT(verify(alloc_c(&bc, I(-4), shifted_fill), true),
             "IR after test is malformed: allocation C has extent -4: "
             "allocate(C: Pointer(global float32), float32, [-4]), storage_scope = global;");
}

/* A te.var in a body that no shape has is a free variable of the function, as in TVM: lowering
 * finds it once and the verifier takes it from then on. */
static void test_verify_free_vars(void) {
  Var *i = var("i"), *x = var("x");
  Stmt *s = loop(i, V(m), store(bb, F(0), add(V(x), add(V(i), V(x)))));
  Var **free;
  PassCtx ctx = {.arena = &A, .nbinds = 2, .bind_tensors = params_t, .bind_buffers = params_b};
  CHECK(ir_unbound_vars(&A, loop(i, V(m), copy_at(i)), &ctx, &free) == 0 && free[0] == NULL);
  CHECK(ir_unbound_vars(&A, seq2(copy_at(i), s), &ctx, &free) == 2);
  CHECK(free[0] == i && free[1] == x && free[2] == NULL);
  CHECK_TEXT(verify(s, true),
             "IR after test is malformed: variable x is not bound: B[(x + (i + x))] = 0f32");
  ctx.nfree = 1, ctx.free_vars = &x;
  CHECK(ir_verify_func(s, &ctx, true, "test", &err));
  /* lowered: B = A + x */
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *b = compute("B", d, add(at(ta, iv_ref(d.axis[0])), ir_cast(&A, DT_F32, V(x))));
  CHECK_TEXT(lowered(schedule(1, b), 2, ta, b),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    B[i] = (A[i] + cast(float32, x))\n"
             "  }\n"
             "}\n");
}

/* ---- dtypes ---- */

static void test_verify_dtypes(void) {
  Var *i = var("i");
  Expr *sum = add(V(i), I(1));
  Stmt *s = loop(i, V(m), store(bb, load(ba, sum), V(i)));
  sum->u.bin.b = ir_int(&A, DT_I64, 1);
  CHECK_TEXT(verify(s, true),
             "IR after test is malformed: the operands of ADD differ in dtype (int32 and int64): "
             "(i + 1i64), in: B[i] = A[(i + 1i64)]");
  /* a condition that is not bool */
  Stmt *branch = ir_if(&A, ir_binary(&A, EXPR_LT, V(i), V(m)), copy_at(i), NULL);
  branch->u.if_.cond = V(i);
  CHECK_TEXT(verify(loop(i, V(m), branch), true),
             "IR after test is malformed: an if's condition has dtype int32, not bool: i, in: "
             "if i {");
  /* a store of an int32 into a float32 buffer: the constructor checks only the lanes */
  CHECK_TEXT(verify(loop(i, V(m), store(bb, V(i), V(i))), true),
             "IR after test is malformed: buffer B holds float32 but is accessed as int32 at a "
             "1-lane index: B[i] = i");
  /* a loop whose extent is not of its variable's dtype */
  Stmt *l = loop(i, V(m), copy_at(i));
  l->u.for_.extent = ir_int(&A, DT_I64, 4);
  CHECK_TEXT(verify(l, true),
             "IR after test is malformed: a loop's extent has dtype int64, not int32: 4i64, in: "
             "for (i: int32, 0, 4i64) {");
}

static void test_verify_vectors(void) {
  Var *i = var("i");
  Expr *idx = ir_ramp(&A, mul(V(i), I(4)), I(1), 4);
  Expr *val = ir_broadcast(&A, F(1), 4);
  Stmt *s = loop(i, I(4), store(bb, val, idx));
  CHECK_TEXT(verify(s, true), "ok");
  idx->u.ramp.lanes = 8;
  CHECK_TEXT(verify(s, true), "IR after test is malformed: a ramp has dtype int32x4, not int32x8: "
                              "ramp((i*4), 1, 8), in: B[ramp((i*4), 1, 8)] = broadcast(1f32, 4)");
  idx->u.ramp.lanes = 4;
  val->u.bcast.lanes = 2;
  CHECK_TEXT(verify(s, true),
             "IR after test is malformed: a broadcast has dtype float32x4, not float32x2: "
             "broadcast(1f32, 2), in: B[ramp((i*4), 1, 4)] = broadcast(1f32, 2)");
}

/* ---- tensors: before and after storage flattening ---- */

static void test_verify_tensors(void) {
  Var *i = var("i");
  Expr *ix = V(i);
  Stmt *prov = loop(i, V(m), ir_provide(&A, tb, add(at(ta, V(i)), F(1)), 1, &ix));
  CHECK_TEXT(verify(prov, false), "ok");
  CHECK_TEXT(verify(prov, true),
             "IR after test is malformed: tensor B is accessed after storage flattening: "
             "B[i] = (A[i] + 1f32)");
  /* an intermediate tensor is written and read under its realize only */
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *tt = compute("T", d, add(at(ta, iv_ref(d.axis[0])), F(1)));
  Range r = {I(0), V(m)};
  Stmt *write = loop(i, V(m), ir_provide(&A, tt, at(ta, V(i)), 1, &ix));
  Stmt *realize = ir_realize(&A, tt, 1, &r, NULL, "global", write);
  CHECK_TEXT(verify(realize, false), "ok");
  CHECK_TEXT(verify(write, false),
             "IR after test is malformed: tensor T is neither a parameter nor realized here: "
             "T[i] = A[i]");
  CHECK_TEXT(verify(realize, true),
             "IR after test is malformed: tensor T is realized after storage flattening: "
             "realize T([0, m]) {");
}

/* A reduction left in a body; the report cuts a long node. */
static void test_verify_reduce_left(void) {
  Var *i = var("i");
  IterVar *k = reduce_axis("k", V(m));
  Expr *ix = V(i);
  Stmt *s = loop(i, I(4), ir_provide(&A, tb, sum(at(ta, iv_ref(k)), 1, &k), 1, &ix));
  const char *msg = verify(s, false);
  const char *want = "IR after test is malformed: a reduction is left after loop-nest "
                     "construction: reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], ";
  CHECK(strncmp(msg, want, strlen(want)) == 0);
  CHECK(strstr(msg, "..., in: B[i] = reduce(") != NULL);
  if (strncmp(msg, want, strlen(want)) != 0) printf("got: %s\n", msg);
}

/* ---- every lowering step ---- */

enum { MAX_STEPS = 16 };

typedef struct Steps {
  int n;
  const char *pass[MAX_STEPS];
  const Stmt *body[MAX_STEPS];
} Steps;

static void record_step(void *user, const char *pass, const Stmt *body, bool changed,
                  int ndevice, const DeviceFunc *device) {
  (void)ndevice, (void)device;
  Steps *st = user;
  if (st->n == MAX_STEPS) return;
  st->pass[st->n] = pass;
  st->body[st->n++] = body;
}

/* B = A + 1 computed at C's outer loop, C split: the IR after every step verifies against the
 * lowered function's parameters (with or without TES_VERIFY_IR, under which lower_run checks
 * it too). */
static void test_verify_lowering_steps(void) {
  Expr *shape[1] = {V(m)};
  ComputeDef db = axes(1, shape, NULL), dc = axes(1, shape, NULL);
  Tensor *b = compute("B", db, add(at(ta, iv_ref(db.axis[0])), F(1)));
  Tensor *c = compute("C", dc, mul(at(b, iv_ref(dc.axis[0])), F(2)));
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(64), NULL, &xo, &xi));
  CHECK(sched_compute_at(S(s, b), S(s, c), xo));
  Steps st = {0};
  LowerOptions opt = {.dump = record_step, .dump_user = &st};
  Tensor *args[2] = {ta, c};
  diag_clear(&err);
  LoweredFunc *f = lower_run(&A, s, 2, args, &opt, &err);
  CHECK(f && st.n >= 4);
  if (!f) return;
  PassCtx ctx = {
      .arena = &A, .nbinds = 2, .bind_tensors = f->param_tensors, .bind_buffers = f->params};
  bool flattened = false;
  for (int i = 0; i < st.n; i++) {
    flattened = flattened || strcmp(st.pass[i], "tir.StorageFlatten") == 0;
    diag_clear(&err);
    bool ok = ir_verify_func(st.body[i], &ctx, flattened, st.pass[i], &err);
    CHECK(ok);
    if (!ok) printf("%s\n", err.msg);
  }
  /* before flattening, the body's tensor accesses fail the flattened check */
  CHECK(!ir_verify_func(st.body[0], &ctx, true, st.pass[0], &err));
}

/* ---- depth ---- */

static void test_depth_constructors(void) {
  Var *i = var("i");
  CHECK(V(i)->depth == 1 && I(3)->depth == 1 && F(1)->depth == 1);
  Expr *e = add(V(i), mul(V(i), I(2)));
  CHECK(e->depth == 3);
  CHECK(ir_cast(&A, DT_I64, e)->depth == 4);
  CHECK(ir_select(&A, ir_binary(&A, EXPR_LT, e, I(0)), I(0), I(1))->depth == 5);
  CHECK(ir_ramp(&A, e, I(1), 4)->depth == 4 && ir_broadcast(&A, e, 4)->depth == 4);
  CHECK(ir_let(&A, var("x"), e, I(0))->depth == 4);
  Expr *args[2] = {I(0), e};
  CHECK(ir_call(&A, DT_I32, "tir.shift_left", CALL_PURE, 2, args)->depth == 4);
  CHECK(load(ba, e)->depth == 4 && at(ta, e)->depth == 4);
  /* a reduce is as deep as its source, its condition and its axes' extents */
  IterVar *k = reduce_axis("k", e);
  CHECK(sum(F(1), 1, &k)->depth == 4);
  /* rebuilding keeps depths right: substituting i := e in e */
  VarMap map = {i, e};
  CHECK(ir_substitute_expr(&A, e, 1, &map)->depth == 5);
}

/* B[i] = A[i] + 1f32 + 1f32 + ..., `depth` deep */
static Tensor *chain(const char *name, Tensor *in, int depth) {
  Expr *shape[1] = {I(64)};
  ComputeDef d = axes(1, shape, NULL);
  Expr *e = at(in, iv_ref(d.axis[0]));
  while ((int)e->depth < depth) e = add(e, F(1));
  return compute(name, d, e);
}

/* The deepest body lowering accepts goes through every pass and the printer on the test's stack
 * (8 MB by default; ./check --sanitize runs this under ASan): B at the script limit inlined
 * into C, split and vectorized. */
static void test_depth_lowering_at_limit(void) {
  Tensor *a = placeholder("A", 1, I(64));
  Tensor *b = chain("B", a, IR_MAX_DEPTH);
  Tensor *c = chain("C", b, IR_MAX_LOWERED_DEPTH - IR_MAX_DEPTH - 10);
  CHECK(b->op->body[0]->depth == IR_MAX_DEPTH);
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_compute_inline(S(s, b)));
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(4), NULL, &xo, &xi));
  CHECK(sched_vectorize(S(s, c), xi));
  Steps st = {0};
  LowerOptions opt = {.dump = record_step, .dump_user = &st};
  Tensor *args[2] = {a, c};
  diag_clear(&err);
  LoweredFunc *f = lower_run(&A, s, 2, args, &opt, &err);
  CHECK(f != NULL);
  if (!f) {
    printf("%s\n", err.msg);
    return;
  }
  /* near the limit after schedule_ops, vectorized at the end */
  CHECK(ir_find_deep_stmt(st.body[0], IR_MAX_LOWERED_DEPTH - 20) != NULL);
  reset();
  lower_print_func(&sb, f);
  CHECK(strncmp(sb_cstr(&sb), "@main = primfn(A: Buffer(float32, [64]), C: Buffer(float32, [64]))",
                66) == 0);
  CHECK(strstr(sb_cstr(&sb), "ramp(") != NULL);
}

/* Inlining two producers into C makes C's body deeper than lowering accepts: a clear error,
 * not a stack overflow in the passes. */
static void test_depth_after_inlining(void) {
  Tensor *a = placeholder("A", 1, I(64));
  Tensor *b = chain("B", a, IR_MAX_DEPTH);
  Tensor *c = chain("C", b, IR_MAX_DEPTH);
  Tensor *d = chain("D", c, IR_MAX_DEPTH);
  Schedule *s = schedule(1, d);
  CHECK(sched_compute_inline(S(s, b)) && sched_compute_inline(S(s, c)));
  char want[200];
  snprintf(want, sizeof want,
           "error: cannot lower: an expression of D is more than %d nested operations deep "
           "after inlining (inline fewer stages)",
           IR_MAX_LOWERED_DEPTH);
  CHECK_TEXT(lowered(s, 2, a, d), want);
  /* the finder names the statement */
  Var *i = var("i");
  Stmt *deep = store(bb, chain("E", a, 50)->op->body[0], V(i));
  CHECK(ir_find_deep_stmt(loop(i, I(4), deep), 49) == deep);
  CHECK(ir_find_deep_stmt(loop(i, I(4), deep), 50) == NULL);
}

/* TES_VERIFY_IR asks for the checks after every pass (./check and lit set it); unset, empty or
 * "0" leaves the one check after the last pass; debug >= 1 asks for them too. */
static void test_verify_each_pass_env(void) {
  const char *was = getenv("TES_VERIFY_IR");
  char *saved = was ? strdup(was) : NULL;
  LowerOptions plain = {0}, debug = {.debug = 1};
  unsetenv("TES_VERIFY_IR");
  CHECK(!lower_verifies_each_pass(&plain) && !lower_verifies_each_pass(NULL));
  CHECK(lower_verifies_each_pass(&debug));
  setenv("TES_VERIFY_IR", "", 1);
  CHECK(!lower_verifies_each_pass(&plain));
  setenv("TES_VERIFY_IR", "0", 1);
  CHECK(!lower_verifies_each_pass(&plain));
  setenv("TES_VERIFY_IR", "1", 1);
  CHECK(lower_verifies_each_pass(&plain) && lower_verifies_each_pass(NULL));
  if (saved)
    setenv("TES_VERIFY_IR", saved, 1);
  else
    unsetenv("TES_VERIFY_IR");
  free(saved);
}

int main(void) {
  setup();
  test_verify_each_pass_env();
  test_verify_well_formed();
  test_verify_unbound();
  test_verify_bound_twice();
  test_verify_threads();
  test_verify_buffers();
  test_verify_inside_allocations();
  test_verify_free_vars();
  test_verify_dtypes();
  test_verify_vectors();
  test_verify_tensors();
  test_verify_reduce_left();
  test_verify_lowering_steps();
  test_depth_constructors();
  test_depth_lowering_at_limit();
  test_depth_after_inlining();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
