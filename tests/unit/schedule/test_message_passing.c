/* test_message_passing.c: unit tests of ir/schedule/message_passing.c, on the view
 * normalize.c makes with root ranges set by hand: ranges passed down a split (by factor and by
 * nparts, tightened only with an analyzer), a fuse and a rebase; a thread given two extents;
 * values and sets passed back up to the root axes (a part of a fused range inside one row or
 * across rows); masks passed down; and the guards of a split that does not divide. */
#include "tests/unit/schedule/sched_view.h"

static Var *m;

/* name[i, ...] = A[i, ...] + 1 over shape */
static Tensor *copy_of(const char *name, Tensor *in, int ndim, Expr **shape) {
  ComputeDef d = axes(ndim, shape, NULL);
  Expr *idx[2];
  for (int i = 0; i < ndim; i++) idx[i] = iv_ref(d.axis[i]);
  Expr *load = ir_pload(&A, in, ndim, idx);
  return compute(name, d, add(load, F(1)));
}

/* The view of s with every root axis over its declared range, as bound inference gives an
 * output stage. */
static SchedBounds *with_roots(Schedule *s) {
  SchedBounds *b = normalized(s);
  if (!b) return NULL;
  for (int i = 0; i < s->nstages; i++) {
    int n;
    IterVar **roots = sched_root_ivs(&A, s->stages[i]->op, &n);
    for (int j = 0; j < n; j++) sched_set_dom(b, roots[j], roots[j]->dom);
  }
  return b;
}

static const char *dom(SchedBounds *b, const IterVar *iv) { return pr(sched_dom(b, iv)); }

/* "[min, max]" of iv's set in sets */
static const char *set_text(const PtrMap *sets, const IterVar *iv) {
  IntSet *p = ptrmap_get(sets, iv);
  reset();
  if (!p) return "none";
  sb_putc(&sb, '[');
  if (p->min)
    ir_print_expr(&sb, p->min);
  else
    sb_puts(&sb, "-inf");
  sb_puts(&sb, ", ");
  if (p->max)
    ir_print_expr(&sb, p->max);
  else
    sb_puts(&sb, "+inf");
  sb_putc(&sb, ']');
  return sb_cstr(&sb);
}

/* B over (m, 16) with i split by factor and i.inner fused with j: the schedule, xo, xi, f. */
static Schedule *split_fused(int factor, Tensor **b, IterVar **xo, IterVar **xi, IterVar **f) {
  Tensor *a = placeholder("A", 2, V(m), I(16));
  Expr *shape[2] = {V(m), I(16)};
  *b = copy_of("B", a, 2, shape);
  Schedule *s = schedule(1, *b);
  CHECK(sched_split(S(s, *b), axis_of(*b, 0), I(factor), NULL, xo, xi));
  IterVar *pair[2] = {*xi, axis_of(*b, 1)};
  *f = sched_fuse(S(s, *b), 2, pair);
  return s;
}

static IntSet *set_ptr(IntSet s) {
  IntSet *p = arena_alloc(&A, sizeof *p);
  *p = s;
  return p;
}

static void test_message_passing_down_split(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Expr *shape[1] = {V(m)};
  Tensor *b = copy_of("B", a, 1, shape);
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(32), NULL, &xo, &xi));
  SchedBounds *v = with_roots(s);
  CHECK(v && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v) return;
  CHECK_TEXT(dom(v, xo), "[0, floordiv((m + 31), 32)]");
  CHECK_TEXT(dom(v, xi), "[0, 32]");
  /* by nparts: the outer part is the count asked, the inner one what covers the rest */
  Schedule *s2 = schedule(1, b);
  CHECK(sched_split(S(s2, b), axis_of(b, 0), NULL, I(4), &xo, &xi));
  v = with_roots(s2);
  CHECK(v && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v) return;
  CHECK_TEXT(dom(v, xo), "[0, 4]");
  CHECK_TEXT(dom(v, xi), "[0, floordiv((m + 3), 4)]");
}

/* An axis of 3 split by 8 loops 3 times where an analyzer proves 3 < 8; without one, 8. */
static void test_message_passing_down_tight(void) {
  Tensor *a = placeholder("A", 1, I(3));
  Expr *shape[1] = {I(3)};
  Tensor *b = copy_of("B", a, 1, shape);
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(8), NULL, &xo, &xi));
  SchedBounds *v = with_roots(s);
  CHECK(v && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v) return;
  CHECK_TEXT(dom(v, xi), "[0, 8]");
  CHECK_TEXT(dom(v, xo), "[0, 1]");
  Analyzer *an = arith_new(&A);
  CHECK(sched_pass_down_domain(v, view_of(v, b), an));
  CHECK_TEXT(dom(v, xi), "[0, 3]");
  arith_free(an);
}

static void test_message_passing_down_fuse_rebase(void) {
  Tensor *a = placeholder("A", 2, V(m), I(16));
  Expr *shape[2] = {V(m), I(16)};
  Tensor *b = copy_of("B", a, 2, shape);
  Schedule *s = schedule(1, b);
  IterVar *pair[2] = {axis_of(b, 0), axis_of(b, 1)};
  IterVar *f = sched_fuse(S(s, b), 2, pair);
  CHECK(f != NULL);
  SchedBounds *v = with_roots(s);
  CHECK(v && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v || !f) return;
  CHECK_TEXT(dom(v, f), "[0, (m*16)]");
  /* a rebased copy runs over [0, extent) whatever its root's minimum */
  Schedule *s2 = schedule(1, b);
  v = normalized(s2);
  CHECK(v != NULL);
  if (!v) return;
  sched_set_dom(v, axis_of(b, 0), (Range){I(2), V(m)});
  sched_set_dom(v, axis_of(b, 1), (Range){I(5), I(7)});
  LStage *lb = view_of(v, b);
  CHECK(sched_pass_down_domain(v, lb, NULL));
  CHECK_TEXT(dom(v, lb->leaf[0]), "[0, m]");
  CHECK_TEXT(dom(v, lb->leaf[1]), "[0, 7]");
  /* and its value back up is the copy's plus that minimum */
  PtrMap values;
  ptrmap_init(&values, &A);
  for (int i = 0; i < 2; i++) ptrmap_put(&values, lb->leaf[i], V(lb->leaf[i]->var));
  sched_pass_up_index(v, lb, &values);
  CHECK_TEXT(pe(ptrmap_get(&values, axis_of(b, 0))), "(i + 2)");
  CHECK_TEXT(pe(ptrmap_get(&values, axis_of(b, 1))), "(j + 5)");
}

/* A thread bound in two stages must have one extent. */
static void test_message_passing_thread_extent(void) {
  Tensor *a = placeholder("A", 1, I(64));
  Expr *shape[1] = {I(64)};
  Tensor *b = copy_of("B", a, 1, shape);
  Tensor *c = copy_of("C", b, 1, shape);
  Schedule *s = schedule(1, c);
  IterVar *tx = thread_axis("threadIdx.x"), *bo, *bi, *co, *ci;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(32), NULL, &bo, &bi));
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(16), NULL, &co, &ci));
  CHECK(sched_bind(S(s, b), bi, tx) && sched_bind(S(s, c), ci, tx));
  SchedBounds *v = with_roots(s);
  CHECK(v && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v) return;
  CHECK_TEXT(dom(v, tx), "[0, 32]");
  CHECK(!sched_pass_down_domain(v, view_of(v, c), NULL));
  CHECK_TEXT(view_diag.msg,
             "cannot bind: thread threadIdx.x has extent 32 in stage B but 16 in stage C");
}

static void test_message_passing_up_index(void) {
  Tensor *b;
  IterVar *xo, *xi, *f;
  Schedule *s = split_fused(32, &b, &xo, &xi, &f);
  SchedBounds *v = with_roots(s);
  CHECK(v && f && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v || !f) return;
  PtrMap values;
  ptrmap_init(&values, &A);
  ptrmap_put(&values, xo, V(xo->var));
  ptrmap_put(&values, f, V(f->var));
  sched_pass_up_index(v, view_of(v, b), &values);
  CHECK_TEXT(pe(ptrmap_get(&values, xi)), "floordiv(i.inner.j.fused, 16)");
  CHECK_TEXT(pe(ptrmap_get(&values, axis_of(b, 1))), "floormod(i.inner.j.fused, 16)");
  CHECK_TEXT(pe(ptrmap_get(&values, axis_of(b, 0))),
             "((i.outer*32) + floordiv(i.inner.j.fused, 16))");
  /* a leaf without a value leaves its root without one */
  PtrMap some;
  ptrmap_init(&some, &A);
  ptrmap_put(&some, f, V(f->var));
  sched_pass_up_index(v, view_of(v, b), &some);
  CHECK(ptrmap_get(&some, axis_of(b, 0)) == NULL && ptrmap_get(&some, xi) != NULL);
}

static void test_message_passing_up_domain(void) {
  Tensor *a = placeholder("A", 2, I(4), I(16));
  Expr *shape[2] = {I(4), I(16)};
  Tensor *b = copy_of("B", a, 2, shape);
  Schedule *s = schedule(1, b);
  IterVar *pair[2] = {axis_of(b, 0), axis_of(b, 1)};
  IterVar *f = sched_fuse(S(s, b), 2, pair);
  SchedBounds *v = with_roots(s);
  CHECK(v && f && sched_pass_down_domain(v, view_of(v, b), NULL));
  if (!v || !f) return;
  LStage *lb = view_of(v, b);
  PtrMap sets;
  /* the second row exactly: one outer value, the whole inner range */
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, f, set_ptr((IntSet){I(16), I(31)}));
  sched_pass_up_domain(v, lb, &sets);
  CHECK_TEXT(set_text(&sets, axis_of(b, 0)), "[1, 1]");
  CHECK_TEXT(set_text(&sets, axis_of(b, 1)), "[0, 15]");
  /* half a row: inside it */
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, f, set_ptr((IntSet){I(24), I(31)}));
  sched_pass_up_domain(v, lb, &sets);
  CHECK_TEXT(set_text(&sets, axis_of(b, 0)), "[1, 1]");
  CHECK_TEXT(set_text(&sets, axis_of(b, 1)), "[8, 15]");
  /* across two rows: whole rows */
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, f, set_ptr((IntSet){I(8), I(23)}));
  sched_pass_up_domain(v, lb, &sets);
  CHECK_TEXT(set_text(&sets, axis_of(b, 0)), "[0, 1]");
  CHECK_TEXT(set_text(&sets, axis_of(b, 1)), "[0, 15]");
  /* one point */
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, f, set_ptr(sched_set_point(I(37))));
  sched_pass_up_domain(v, lb, &sets);
  CHECK_TEXT(set_text(&sets, axis_of(b, 0)), "[2, 2]");
  CHECK_TEXT(set_text(&sets, axis_of(b, 1)), "[5, 5]");

  /* a split: a fixed outer value and the whole inner range cover one tile of the parent */
  Tensor *p = placeholder("P", 1, I(8));
  Tensor *c = copy_of("C", p, 1, (Expr *[]){I(8)});
  Schedule *s2 = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s2, c), axis_of(c, 0), I(2), NULL, &xo, &xi));
  v = with_roots(s2);
  CHECK(v && sched_pass_down_domain(v, view_of(v, c), NULL));
  if (!v) return;
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, xo, set_ptr(sched_set_point(V(xo->var))));
  ptrmap_put(&sets, xi, set_ptr(sched_set_range(v->fold, sched_dom(v, xi))));
  sched_pass_up_domain(v, view_of(v, c), &sets);
  CHECK_TEXT(set_text(&sets, axis_of(c, 0)), "[(i.outer*2), ((i.outer*2) + 1)]");
}

static void test_message_passing_down_mask(void) {
  Tensor *b;
  IterVar *xo, *xi, *f;
  Schedule *s = split_fused(4, &b, &xo, &xi, &f);
  SchedBounds *v = normalized(s);
  CHECK(v && f);
  if (!v || !f) return;
  PtrMap state;
  ptrmap_init(&state, &A);
  ptrmap_put(&state, axis_of(b, 0), (void *)1);
  ptrmap_put(&state, axis_of(b, 1), (void *)2);
  sched_pass_down_mask(view_of(v, b), &state);
  CHECK((intptr_t)ptrmap_get(&state, xo) == 1);
  CHECK((intptr_t)ptrmap_get(&state, xi) == 1);
  CHECK((intptr_t)ptrmap_get(&state, f) == 3);
}

/* The guards of a split: the value of its parent under the parent's extent, unless proven. */
static const char *guards(int extent, int factor, bool skip_parent) {
  Tensor *a = placeholder("A", 1, I(extent));
  Expr *shape[1] = {I(extent)};
  Tensor *b = copy_of("B", a, 1, shape);
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  if (!sched_split(S(s, b), axis_of(b, 0), I(factor), NULL, &xo, &xi)) return "split failed";
  SchedBounds *v = with_roots(s);
  if (!v || !sched_pass_down_domain(v, view_of(v, b), NULL)) return "no view";
  PtrMap values, skip;
  ptrmap_init(&values, &A);
  ptrmap_init(&skip, &A);
  ptrmap_put(&values, xo, V(xo->var));
  ptrmap_put(&values, xi, V(xi->var));
  sched_pass_up_index(v, view_of(v, b), &values);
  if (skip_parent) ptrmap_put(&skip, axis_of(b, 0), (void *)1);
  Expr **out;
  int n = sched_make_bound_check(v, view_of(v, b), &values, false, &skip, &out);
  static char text[256];
  text[0] = 0;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "%s%s", i ? "; " : "", pe(out[i]));
  }
  return n ? text : "none";
}

static void test_message_passing_bound_check(void) {
  CHECK_TEXT(guards(64, 32, false), "none");
  CHECK_TEXT(guards(60, 32, false), "(((i.outer*32) + i.inner) < 60)");
  CHECK_TEXT(guards(60, 32, true), "none");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  test_message_passing_down_split();
  test_message_passing_down_tight();
  test_message_passing_down_fuse_rebase();
  test_message_passing_thread_extent();
  test_message_passing_up_index();
  test_message_passing_up_domain();
  test_message_passing_down_mask();
  test_message_passing_bound_check();
  arena_free(&A);
  sb_free(&sb);
  return finish();
}
