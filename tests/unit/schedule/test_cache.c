/* test_cache.c: cache_read and cache_write (ir/schedule/cache.c): the graph each leaves (the
 * new stage, its place, name, axes and scope; the readers' new operations with their
 * origin_op kept; consumers downstream following), the ScheduleError of each illegal request
 * with nothing changed, and the lowered IR, which names the original tensors again so that
 * tvm.lower's arguments bind. */
#include "tests/unit/schedule/sched_test.h"

static Var *m;

/* A(m) -> B = A * 2 -> C = B + A */
static Tensor *ta, *tb, *tc;

static void make_chain(void) {
  Expr *shape[1] = {V(m)};
  ta = placeholder("A", 1, V(m));
  ComputeDef db = axes(1, shape, NULL), dc = axes(1, shape, NULL);
  tb = compute("B", db, mul(at(ta, iv_ref(db.axis[0])), F(2)));
  tc = compute("C", dc, add(at(tb, iv_ref(dc.axis[0])), at(ta, iv_ref(dc.axis[0]))));
}

/* C(64, 64) = sum(A[i, k] * B[k, j], k) */
static Tensor *ma, *mb, *mc;
static IterVar *mk;

static void make_matmul(void) {
  Expr *shape[2] = {I(64), I(64)};
  ma = placeholder("A", 2, I(64), I(64));
  mb = placeholder("B", 2, I(64), I(64));
  mk = reduce_axis("k", I(64));
  ComputeDef d = axes(2, shape, NULL);
  Expr *prod = mul(at(ma, iv_ref(d.axis[0]), iv_ref(mk)), at(mb, iv_ref(mk), iv_ref(d.axis[1])));
  mc = compute("C", d, sum(prod, 1, &mk));
}

/* The stages by name, "A A.shared B C". */
static const char *stage_names(const Schedule *s) {
  reset();
  for (int i = 0; i < s->nstages; i++) sb_printf(&sb, "%s%s", i ? " " : "", s->stages[i]->op->name);
  return sb_cstr(&sb);
}

static const char *leaves(const Stage *st) {
  reset();
  for (int i = 0; i < st->nleaf; i++)
    sb_printf(&sb, "%s%s", i ? " " : "", st->leaf_iter_vars[i]->var->name);
  return sb_cstr(&sb);
}

static bool reads(const Operation *op, const Tensor *t) {
  for (int i = 0; i < op->ninputs; i++)
    if (op->inputs[i] == t) return true;
  return false;
}

/* ---- cache_read ---- */

static void test_cache_read_graph(void) {
  Schedule *s = schedule(1, tc);
  Operation *readers[1] = {tb->op};
  Tensor *aa = sched_cache_read(s, ta, "shared", 1, readers);
  CHECK(aa && strcmp(aa->name, "A.shared") == 0);
  CHECK_TEXT(stage_names(s), "A A.shared B C");
  Stage *cst = s->stages[1];
  CHECK(cst->op == aa->op && cst->origin_op == aa->op && sched_stage(s, aa->op) == cst);
  CHECK(strcmp(cst->scope, "shared") == 0 && strcmp(aa->op->tag, "") == 0);
  CHECK_TEXT(leaves(cst), "ax0");
  CHECK_TEXT(pe(aa->op->body[0]), "A[ax0]");
  /* the reader computes the same thing from the cache; its stage keeps the op it was made for */
  Stage *bst = S(s, tb);
  CHECK(bst->op != tb->op && bst->origin_op == tb->op);
  CHECK(strcmp(bst->op->name, "B") == 0 && bst->op->axis[0] == tb->op->axis[0]);
  CHECK_TEXT(pe(bst->op->body[0]), "(A.shared[i]*2f32)");
  CHECK_TEXT(leaves(bst), "i");
  /* C was not a reader: it reads A still, and the new B through the dataflow replacement */
  Stage *cs = S(s, tc);
  CHECK(cs->op != tc->op && cs->origin_op == tc->op);
  CHECK(reads(cs->op, bst->op->outputs[0]) && reads(cs->op, ta) && !reads(cs->op, aa));
  CHECK(cs->is_output && !bst->is_output && !cst->is_output);
}

/* Both readers at once, then a cache of the cache; readers given as tensors' ops. */
static void test_cache_read_chain(void) {
  Schedule *s = schedule(1, tc);
  Operation *readers[2] = {tc->op, tb->op};
  Tensor *aa = sched_cache_read(s, ta, "shared", 2, readers);
  CHECK(aa && reads(S(s, tb)->op, aa) && reads(S(s, tc)->op, aa) && !reads(S(s, tc)->op, ta));
  CHECK(reads(S(s, tc)->op, S(s, tb)->op->outputs[0]));
  Operation *only_b[1] = {tb->op};
  Tensor *al = sched_cache_read(s, aa, "local", 1, only_b);
  CHECK(al && strcmp(al->name, "A.shared.local") == 0);
  CHECK_TEXT(stage_names(s), "A A.shared A.shared.local B C");
  CHECK(reads(S(s, tb)->op, al) && reads(S(s, tc)->op, aa));
  CHECK(reads(S(s, tc)->op, S(s, tb)->op->outputs[0]));
}

static void test_cache_read_errors(void) {
  Schedule *s = schedule(1, tb);
  Operation *readers[2] = {tb->op, tb->op};
  Operation *foreign[1] = {tc->op};
  CHECK(!sched_cache_read(s, tc, "shared", 1, readers));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: tensor C is not in the schedule");
  CHECK(!sched_cache_read(s, ta, "shared", 1, foreign));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: reader C is not in the schedule");
  CHECK(!sched_cache_read(s, tb, "shared", 1, readers));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: stage B does not read B");
  CHECK(!sched_cache_read(s, ta, "shared", 2, readers));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: reader B given twice");
  CHECK(!sched_cache_read(s, ta, "shared", 0, readers));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: no readers of A given");
  CHECK(!sched_cache_read(s, ta, "texture", 1, readers));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: unknown storage scope 'texture'");
  CHECK(!sched_cache_read(s, ta, "", 1, readers));
  CHECK_TEXT(s->diag.msg, "cannot cache_read: unknown storage scope ''");
  /* nothing changed */
  CHECK(s->nstages == 2 && S(s, tb)->op == tb->op);
}

/* A local copy per block of 32, computed at the outer loop (TVM gives it extent 32). */
static void test_cache_read_lower(void) {
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *b = compute("B", d, mul(at(ta, iv_ref(d.axis[0])), F(2)));
  Schedule *s = schedule(1, b);
  Operation *readers[1] = {b->op};
  Tensor *aa = sched_cache_read(s, ta, "local", 1, readers);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(32), NULL, &xo, &xi));
  CHECK(sched_compute_at(S(s, aa), S(s, b), xo));
  CHECK_TEXT(lowered(s, 2, ta, b),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m])) {\n"
             "  allocate(A.local: Pointer(local float32), float32, [32]), storage_scope = local;\n"
             "  for (i.outer: int32, 0, floordiv((m + 31), 32)) {\n"
             "    for (ax0: int32, 0, 32) {\n"
             "      if @tir.likely((((i.outer*32) + ax0) < m), dtype=bool) {\n"
             "        A.local[ax0] = A[((i.outer*32) + ax0)]\n"
             "      }\n"
             "    }\n"
             "    for (i.inner: int32, 0, 32) {\n"
             "      if @tir.likely((((i.outer*32) + i.inner) < m), dtype=bool) {\n"
             "        B[((i.outer*32) + i.inner)] = (A.local[i.inner]*2f32)\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* ---- cache_write ---- */

static void test_cache_write_graph(void) {
  Schedule *s = schedule(1, mc);
  Tensor *cc = sched_cache_write(s, mc, "local");
  CHECK(cc && strcmp(cc->name, "C.local") == 0);
  CHECK_TEXT(stage_names(s), "A B C.local C");
  Stage *cst = S(s, cc), *st = S(s, mc);
  CHECK(cst == s->stages[2] && strcmp(cst->scope, "local") == 0 && !cst->is_output);
  CHECK_TEXT(leaves(cst), "i.c j.c k");
  CHECK(cc->op->reduce_axis[0] == mk && cc->op->axis[0]->dom.extent == axis_of(mc, 0)->dom.extent);
  CHECK_TEXT(pe(cc->op->body[0]),
             "reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], "
             "identity_element=[0f32]), source=[(A[i.c, k]*B[k, j.c])], init=[], "
             "axis=[iter_var(k, range(min=0, ext=64))], where=True, value_index=0)");
  /* C's stage copies out of the cache, over the same itervars, with no reduce axis left */
  CHECK(st->op != mc->op && st->origin_op == mc->op && st->is_output);
  CHECK(st->op->axis[0] == axis_of(mc, 0) && st->op->axis[1] == axis_of(mc, 1));
  CHECK(st->op->nreduce == 0 && st->nall == 2);
  CHECK_TEXT(leaves(st), "i j");
  CHECK_TEXT(pe(st->op->body[0]), "C.local[i, j]");
  /* those itervars still schedule C */
  IterVar *t[4];
  CHECK(sched_tile(st, axis_of(mc, 0), axis_of(mc, 1), I(8), I(8), t));
}

static void test_cache_write_errors(void) {
  Schedule *s = schedule(1, mc);
  CHECK(!sched_cache_write(s, ma, "local"));
  CHECK_TEXT(s->diag.msg, "cannot cache_write: stage A is a placeholder");
  CHECK(!sched_cache_write(s, tb, "local"));
  CHECK_TEXT(s->diag.msg, "cannot cache_write: tensor B is not in the schedule");
  CHECK(!sched_cache_write(s, mc, "registers"));
  CHECK_TEXT(s->diag.msg, "cannot cache_write: unknown storage scope 'registers'");
  IterVar *order[3] = {mk, axis_of(mc, 1), axis_of(mc, 0)};
  CHECK(sched_reorder(S(s, mc), 3, order));
  CHECK(!sched_cache_write(s, mc, "local"));
  CHECK_TEXT(s->diag.msg, "cannot cache_write: stage C was already split, fused or reordered; call "
                          "cache_write before scheduling stage C");
  Schedule *s2 = schedule(1, mc);
  IterVar *ko, *ki;
  CHECK(sched_split(S(s2, mc), mk, I(4), NULL, &ko, &ki));
  CHECK(!sched_cache_write(s2, mc, "local"));
  CHECK(s->nstages == 3 && S(s, mc)->op == mc->op && s2->nstages == 3);
}

/* TVM's GEMM schedule shape: C tiled, its local accumulator computed per tile. */
static void test_cache_write_lower(void) {
  Schedule *s = schedule(1, mc);
  Tensor *cc = sched_cache_write(s, mc, "local");
  IterVar *t[4], *ko, *ki;
  CHECK(sched_tile(S(s, mc), axis_of(mc, 0), axis_of(mc, 1), I(8), I(8), t));
  CHECK(sched_compute_at(S(s, cc), S(s, mc), t[1]));
  CHECK(sched_split(S(s, cc), mk, I(4), NULL, &ko, &ki));
  CHECK_TEXT(lowered(s, 3, ma, mb, mc),
             "@main = primfn(A: Buffer(float32, [64, 64]), B: Buffer(float32, [64, 64]), C: "
             "Buffer(float32, [64, 64])) {\n"
             "  allocate(C.local: Pointer(local float32), float32, [64]), storage_scope = local;\n"
             "  for (i.outer: int32, 0, 8) {\n"
             "    for (j.outer: int32, 0, 8) {\n"
             "      for (i.c: int32, 0, 8) {\n"
             "        for (j.c: int32, 0, 8) {\n"
             "          C.local[((i.c*8) + j.c)] = 0f32\n"
             "          for (k.outer: int32, 0, 16) {\n"
             "            for (k.inner: int32, 0, 4) {\n"
             "              C.local[((i.c*8) + j.c)] = (C.local[((i.c*8) + j.c)] + "
             "(A[((((i.outer*512) + (i.c*64)) + (k.outer*4)) + k.inner)]*B[((((k.outer*256) + "
             "(k.inner*64)) + (j.outer*8)) + j.c)]))\n"
             "            }\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "      for (i.inner: int32, 0, 8) {\n"
             "        for (j.inner: int32, 0, 8) {\n"
             "          C[((((i.outer*512) + (i.inner*64)) + (j.outer*8)) + j.inner)] = "
             "C.local[((i.inner*8) + j.inner)]\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* Both outputs of a two-output op move together. */
static void test_cache_write_multi_output(void) {
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Expr *body[2] = {add(at(ta, iv_ref(d.axis[0])), F(1)), mul(at(ta, iv_ref(d.axis[0])), F(3))};
  Operation *op = ir_compute_op(&A, "T", "", 1, d.shape, d.axis, 2, body);
  Schedule *s = sched_create(&A, 1, &op);
  Tensor *c1 = sched_cache_write(s, op->outputs[1], "local");
  CHECK(c1 && c1->value_index == 1 && strcmp(c1->name, "T.local.v1") == 0);
  CHECK(c1->op->noutputs == 2 && S(s, op->outputs[0])->op->noutputs == 2);
  CHECK_TEXT(pe(sched_stage(s, op)->op->body[1]), "T.local.v1[i]");
  CHECK_TEXT(lowered(s, 3, ta, op->outputs[0], op->outputs[1]),
             "@main = primfn(A: Buffer(float32, [m]), T.v0: Buffer(float32, [m]), T.v1: "
             "Buffer(float32, [m])) {\n"
             "  allocate(T.local.v0: Pointer(local float32), float32, [m]), storage_scope = "
             "local;\n"
             "  allocate(T.local.v1: Pointer(local float32), float32, [m]), storage_scope = "
             "local {\n"
             "    for (i.c: int32, 0, m) {\n"
             "      T.local.v0[i.c] = (A[i.c] + 1f32)\n"
             "      T.local.v1[i.c] = (A[i.c]*3f32)\n"
             "    }\n"
             "    for (i: int32, 0, m) {\n"
             "      T.v0[i] = T.local.v0[i]\n"
             "      T.v1[i] = T.local.v1[i]\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* A cache_read after a cache_write reads the stage's new output. */
static void test_cache_write_then_read(void) {
  Expr *shape[2] = {I(64), I(64)};
  ComputeDef d = axes(2, shape, NULL);
  Tensor *e = compute("E", d, add(at(mc, iv_ref(d.axis[0]), iv_ref(d.axis[1])), F(1)));
  Schedule *s = schedule(1, e);
  Tensor *cc = sched_cache_write(s, mc, "local");
  CHECK(cc && reads(S(s, e)->op, S(s, mc)->op->outputs[0]));
  Operation *readers[1] = {e->op};
  Tensor *cs = sched_cache_read(s, mc, "shared", 1, readers);
  CHECK(cs && reads(cs->op, S(s, mc)->op->outputs[0]) && reads(S(s, e)->op, cs));
  CHECK_TEXT(stage_names(s), "A B C.local C C.shared E");
  CHECK_TEXT(lowered(s, 3, ma, mb, e),
             "@main = primfn(A: Buffer(float32, [64, 64]), B: Buffer(float32, [64, 64]), E: "
             "Buffer(float32, [64, 64])) {\n"
             "  allocate(C.local: Pointer(local float32), float32, [4096]), storage_scope = "
             "local;\n"
             "  allocate(C: Pointer(global float32), float32, [4096]), storage_scope = global;\n"
             "  allocate(C.shared: Pointer(shared float32), float32, [4096]), storage_scope = "
             "shared {\n"
             "    for (i.c: int32, 0, 64) {\n"
             "      for (j.c: int32, 0, 64) {\n"
             "        C.local[((i.c*64) + j.c)] = 0f32\n"
             "        for (k: int32, 0, 64) {\n"
             "          C.local[((i.c*64) + j.c)] = (C.local[((i.c*64) + j.c)] + (A[((i.c*64) + "
             "k)]*B[((k*64) + j.c)]))\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    for (i: int32, 0, 64) {\n"
             "      for (j: int32, 0, 64) {\n"
             "        C[((i*64) + j)] = C.local[((i*64) + j)]\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, 64) {\n"
             "      for (ax1: int32, 0, 64) {\n"
             "        C.shared[((ax0*64) + ax1)] = C[((ax0*64) + ax1)]\n"
             "      }\n"
             "    }\n"
             "    for (i: int32, 0, 64) {\n"
             "      for (j: int32, 0, 64) {\n"
             "        E[((i*64) + j)] = (C.shared[((i*64) + j)] + 1f32)\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  make_chain();
  make_matmul();
  test_cache_read_graph();
  test_cache_read_chain();
  test_cache_read_errors();
  test_cache_read_lower();
  test_cache_write_graph();
  test_cache_write_errors();
  test_cache_write_lower();
  test_cache_write_multi_output();
  test_cache_write_then_read();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
