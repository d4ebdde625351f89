/* test_bound.c: bound inference (ir/schedule/bound.c, with normalize.c's view and
 * message_passing.c's relations): the range of every itervar for outputs, splits, fuses,
 * compute_at regions (fixed outer loops, ranging inner ones; at the parts of a fused axis),
 * the tightening of split parts, thread-shared storage, inlined producers and several
 * consumers, and the schedules it refuses. */
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n;

/* "[min, extent]" of iv, or "none" */
static const char *range_of(Schedule *s, const IterVar *iv) {
  Diag d = DIAG_INIT;
  SchedBounds *b = sched_infer_bound(s, &A, &d);
  Range r;
  if (b && sched_bound(b, iv, &r)) return pr(r);
  reset();
  if (!b)
    sb_printf(&sb, "error: %s", d.msg);
  else
    sb_puts(&sb, "none");
  return sb_cstr(&sb);
}

static Tensor *elementwise(const char *name, Tensor *in, Expr *extent, Expr *offset) {
  Expr *shape[1] = {extent};
  ComputeDef d = axes(1, shape, NULL);
  Expr *i = iv_ref(d.axis[0]);
  return compute(name, d, add(at(in, offset ? add(i, offset) : i), F(1)));
}

static IterVar *thread(const char *tag) {
  return ir_itervar(&A, var(tag), (Range){NULL, NULL}, ITER_THREAD, tag);
}

static void test_bound_output(void) {
  Tensor *a = placeholder("A", 2, V(m), V(n));
  Expr *shape[2] = {V(m), V(n)};
  ComputeDef d = axes(2, shape, NULL);
  Tensor *b = compute("B", d, at(a, iv_ref(d.axis[0]), iv_ref(d.axis[1])));
  Schedule *s = schedule(1, b);
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[0, m]");
  IterVar *xo, *xi, *yo, *yi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(32), NULL, &xo, &xi));
  CHECK(sched_split(S(s, b), axis_of(b, 1), NULL, I(4), &yo, &yi));
  CHECK_TEXT(range_of(s, xo), "[0, floordiv((m + 31), 32)]");
  CHECK_TEXT(range_of(s, xi), "[0, 32]");
  CHECK_TEXT(range_of(s, yo), "[0, 4]");
  CHECK_TEXT(range_of(s, yi), "[0, floordiv((n + 3), 4)]");
  IterVar *pair[2] = {xi, yo};
  IterVar *order[2] = {xi, yo};
  CHECK(sched_reorder(S(s, b), 2, order));
  IterVar *f = sched_fuse(S(s, b), 2, pair);
  CHECK_TEXT(range_of(s, f), "[0, 128]");
  IterVar *both[2] = {xo, f};
  CHECK_TEXT(range_of(s, sched_fuse(S(s, b), 2, both)), "[0, (floordiv((m + 31), 32)*128)]");
  /* the placeholder has no itervars; a reduce axis keeps its declared range */
  IterVar *k = reduce_axis("k", V(n));
  Expr *rs[1] = {V(m)};
  ComputeDef dr = axes(1, rs, NULL);
  Tensor *r = compute("R", dr, sum(at(a, iv_ref(dr.axis[0]), iv_ref(k)), 1, &k));
  CHECK_TEXT(range_of(schedule(1, r), k), "[0, n]");
  CHECK_TEXT(range_of(schedule(1, r), axis_of(b, 0)), "none");
}

static void test_bound_compute_at(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Tensor *b = elementwise("B", a, V(m), NULL);
  Tensor *c = elementwise("C", b, sub(V(m), I(1)), NULL);
  Tensor *c2 = elementwise("C", b, sub(V(m), I(1)), I(1));
  Schedule *s = schedule(1, c);
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[0, (m - 1)]"); /* what C reads of B */
  CHECK(sched_compute_at(S(s, b), S(s, c), axis_of(c, 0)));
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[i, 1]"); /* C's loop variable, fixed */
  /* a stencil: C2 reads B[i] and, through the offset, nothing else */
  Schedule *s2 = schedule(1, c2);
  CHECK_TEXT(range_of(s2, axis_of(b, 0)), "[1, (m - 1)]");
  CHECK(sched_compute_at(S(s2, b), S(s2, c2), axis_of(c2, 0)));
  CHECK_TEXT(range_of(s2, axis_of(b, 0)), "[(i + 1), 1]");
  /* at the outer loop of a split: the inner loop ranges fully */
  IterVar *xo, *xi;
  CHECK(sched_split(S(s2, c2), axis_of(c2, 0), I(8), NULL, &xo, &xi));
  CHECK(sched_compute_at(S(s2, b), S(s2, c2), xo));
  CHECK_TEXT(range_of(s2, axis_of(b, 0)), "[((i.outer*8) + 1), 8]");
}

/* 2-D elementwise: name[i, j] = in[i, j] + 1 */
static Tensor *elementwise2(const char *name, Tensor *in, Expr *rows, Expr *cols) {
  Expr *shape[2] = {rows, cols};
  ComputeDef d = axes(2, shape, NULL);
  return compute(name, d, add(at(in, iv_ref(d.axis[0]), iv_ref(d.axis[1])), F(1)));
}

/* At the outer part of a fused axis split by a factor of a row, a part stays in one row: the
 * producer covers that part of it (TVM's tight box); by a factor that is not, whole rows. A
 * stage attached inside that producer, whose loop over rows is one point, is one point. */
static void test_bound_fused(void) {
  Tensor *a = placeholder("A", 2, I(8), I(8));
  Tensor *q = elementwise2("Q", a, I(8), I(8));
  Tensor *c = elementwise2("C", q, I(8), I(8));
  Tensor *d = elementwise2("D", c, I(8), I(8));
  Schedule *s = schedule(1, d);
  IterVar *pair[2] = {axis_of(d, 0), axis_of(d, 1)}, *fo, *fi;
  IterVar *f = sched_fuse(S(s, d), 2, pair);
  CHECK(f && sched_split(S(s, d), f, I(4), NULL, &fo, &fi));
  CHECK(sched_compute_at(S(s, c), S(s, d), fo));
  CHECK(sched_compute_at(S(s, q), S(s, c), axis_of(c, 1)));
  CHECK_TEXT(range_of(s, axis_of(c, 0)), "[floordiv(i.j.fused.outer, 2), 1]");
  CHECK_TEXT(range_of(s, axis_of(c, 1)), "[(floormod(i.j.fused.outer, 2)*4), 4]");
  /* C's row loop is one point, so Q's row is C's, not C's (loop-less) row variable */
  CHECK_TEXT(range_of(s, axis_of(q, 0)), "[floordiv(i.j.fused.outer, 2), 1]");
  CHECK_TEXT(range_of(s, axis_of(q, 1)), "[((floormod(i.j.fused.outer, 2)*4) + j), 1]");
  Schedule *s2 = schedule(1, d);
  f = sched_fuse(S(s2, d), 2, pair);
  CHECK(f && sched_split(S(s2, d), f, I(6), NULL, &fo, &fi));
  CHECK(sched_compute_at(S(s2, c), S(s2, d), fo));
  CHECK_TEXT(range_of(s2, axis_of(c, 0)),
             "[floordiv((i.j.fused.outer*6), 8), (floordiv((floormod((i.j.fused.outer*6), 8) + "
             "5), 8) + 1)]");
  CHECK_TEXT(range_of(s2, axis_of(c, 1)), "[0, 8]");
}

/* A split's part is no longer than its parent where that is provable, unless a thread is
 * bound under it. */
static void test_bound_split_tight(void) {
  Tensor *a = placeholder("A", 2, I(3), I(10));
  Tensor *b = elementwise2("B", a, I(3), I(10));
  Schedule *s = schedule(1, b);
  IterVar *io, *ii, *jo, *ji;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(8), NULL, &io, &ii));
  CHECK(sched_split(S(s, b), axis_of(b, 1), NULL, I(16), &jo, &ji));
  CHECK_TEXT(range_of(s, ii), "[0, 3]");
  CHECK_TEXT(range_of(s, io), "[0, 1]");
  CHECK_TEXT(range_of(s, jo), "[0, 10]");
  CHECK_TEXT(range_of(s, ji), "[0, 1]");
  CHECK(sched_bind(S(s, b), ii, thread("threadIdx.x")));
  CHECK_TEXT(range_of(s, ii), "[0, 8]");
  /* a symbolic parent: nothing to prove */
  Tensor *a2 = placeholder("A", 1, V(n));
  Tensor *b2 = elementwise("B", a2, V(n), NULL);
  Schedule *s2 = schedule(1, b2);
  CHECK(sched_split(S(s2, b2), axis_of(b2, 0), I(8), NULL, &io, &ii));
  CHECK_TEXT(range_of(s2, ii), "[0, 8]");
}

/* two consumers: the union of their reads */
static void test_bound_union(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Tensor *b = elementwise("B", a, V(m), NULL);
  Tensor *c = elementwise("C", b, V(m), NULL);
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Expr *i = iv_ref(d.axis[0]);
  Tensor *e = compute("E", d, add(at(b, add(i, I(2))), at(c, i)));
  Schedule *s = schedule(1, e);
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[0, (m + 2)]");
  CHECK_TEXT(range_of(s, axis_of(c, 0)), "[0, m]");
}

/* compute_at through an inlined stage: X -> B (inlined) -> C */
static void test_bound_inline(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Tensor *x = elementwise("X", a, V(m), NULL);
  Tensor *b = elementwise("B", x, V(m), I(-1));
  Tensor *c = elementwise("C", b, V(m), I(3));
  Schedule *s = schedule(1, c);
  CHECK_TEXT(range_of(s, axis_of(x, 0)), "[2, m]");
  CHECK(sched_compute_inline(S(s, b)));
  CHECK_TEXT(range_of(s, axis_of(x, 0)), "[2, m]");
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "none");
  CHECK(sched_compute_at(S(s, x), S(s, c), axis_of(c, 0)));
  CHECK_TEXT(range_of(s, axis_of(x, 0)), "[(i + 2), 1]");
}

/* storage shared by a block's threads covers them all; local storage covers one thread */
static void test_bound_threads(void) {
  Tensor *a = placeholder("A", 1, V(n));
  Tensor *b = elementwise("B", a, V(n), NULL);
  Tensor *c = elementwise("C", b, V(n), NULL);
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi, *bx = thread("blockIdx.x"), *tx = thread("threadIdx.x");
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(64), NULL, &xo, &xi));
  CHECK(sched_bind(S(s, c), xo, bx) && sched_bind(S(s, c), xi, tx));
  CHECK_TEXT(range_of(s, tx), "[0, 64]");
  CHECK_TEXT(range_of(s, bx), "[0, floordiv((n + 63), 64)]");
  CHECK(sched_compute_at(S(s, b), S(s, c), xo));
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[(blockIdx.x*64), 64]");
  CHECK(sched_compute_at(S(s, b), S(s, c), xi));
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[((blockIdx.x*64) + threadIdx.x), 1]");
  /* a scope of its own: shared covers the block's threads, global every block too */
  CHECK(sched_set_scope(S(s, b), "shared"));
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[(blockIdx.x*64), 64]");
  CHECK(sched_set_scope(S(s, b), "global"));
  CHECK_TEXT(range_of(s, axis_of(b, 0)), "[0, n]");
}

static void test_bound_errors(void) {
  Tensor *a = placeholder("A", 1, V(n));
  Tensor *b = elementwise("B", a, V(n), NULL);
  Tensor *c = elementwise("C", b, V(n), NULL);
  Tensor *d = elementwise("D", b, V(n), NULL);
  Expr *shape[1] = {V(n)};
  ComputeDef de = axes(1, shape, NULL);
  Tensor *e = compute("E", de, add(at(c, iv_ref(de.axis[0])), at(d, iv_ref(de.axis[0]))));
  /* one thread, two extents */
  Schedule *s = schedule(1, e);
  IterVar *o1, *i1, *o2, *i2, *tx = thread("threadIdx.x");
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(64), NULL, &o1, &i1));
  CHECK(sched_split(S(s, d), axis_of(d, 0), I(32), NULL, &o2, &i2));
  CHECK(sched_bind(S(s, c), i1, tx) && sched_bind(S(s, d), i2, tx));
  CHECK_TEXT(range_of(s, tx), "error: cannot bind: thread threadIdx.x has extent 32 in stage D but "
                              "64 in stage C");
  /* B computed inside C's loop, but D reads it too */
  Schedule *s2 = schedule(1, e);
  CHECK(sched_compute_at(S(s2, b), S(s2, c), axis_of(c, 0)));
  CHECK_TEXT(range_of(s2, axis_of(b, 0)),
             "error: cannot compute_at: stage B is computed at axis i of C, but D reads it outside "
             "that loop");
  /* ... which is fine once D is inside that loop too */
  CHECK(sched_compute_at(S(s2, c), S(s2, e), axis_of(e, 0)));
  CHECK(sched_compute_at(S(s2, b), S(s2, e), axis_of(e, 0)));
  CHECK(sched_compute_at(S(s2, d), S(s2, e), axis_of(e, 0)));
  CHECK_TEXT(range_of(s2, axis_of(b, 0)), "[i, 1]");
  /* the attach axis split after compute_at */
  Schedule *s3 = schedule(1, c);
  CHECK(sched_compute_at(S(s3, b), S(s3, c), axis_of(c, 0)));
  CHECK(sched_split(S(s3, c), axis_of(c, 0), I(4), NULL, &o1, &i1));
  CHECK_TEXT(range_of(s3, axis_of(b, 0)),
             "error: cannot compute_at: axis i of stage C, where B is computed, is no longer a "
             "loop of C (it was split or fused)");
  /* computed at a stage that is inlined */
  Tensor *f = elementwise("F", c, V(n), NULL);
  Schedule *s4 = schedule(1, f);
  CHECK(sched_compute_at(S(s4, b), S(s4, c), axis_of(c, 0)));
  CHECK(sched_compute_inline(S(s4, c)));
  CHECK_TEXT(range_of(s4, axis_of(b, 0)),
             "error: cannot compute_at: stage B is computed at C, which is inlined");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  test_bound_output();
  test_bound_compute_at();
  test_bound_fused();
  test_bound_split_tight();
  test_bound_union();
  test_bound_inline();
  test_bound_threads();
  test_bound_errors();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
