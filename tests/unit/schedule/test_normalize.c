/* test_normalize.c: unit tests of ir/schedule/normalize.c, the view of a schedule lowering
 * works on: root axes still leaves get rebased copies (not thread-bound ones, not split ones),
 * the Schedule itself is left as it was, inlined producers are substituted into the bodies
 * with their reads listed once, and each stage gets the loops around its attach point,
 * innermost first, through every stage it nests in. */
#include "tests/unit/schedule/sched_view.h"

static Var *m;

/* name[i] = in[i + offset] + 1 over extent */
static Tensor *plus_one(const char *name, Tensor *in, Expr *extent, int offset) {
  Expr *shape[1] = {extent};
  ComputeDef d = axes(1, shape, NULL);
  Expr *i = iv_ref(d.axis[0]);
  return compute(name, d, add(at(in, offset ? add(i, I(offset)) : i), F(1)));
}

/* A over m, then B, C, D each one more than the last: t[0..3]. */
static void chain(Tensor *t[4]) {
  t[0] = placeholder("A", 1, V(m));
  for (int i = 1; i < 4; i++)
    t[i] = plus_one((const char *[]){"B", "C", "D"}[i - 1], t[i - 1], V(m), 0);
}

static void test_normalize_rebase(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Tensor *b = plus_one("B", a, V(m), 0);
  Schedule *s = schedule(1, b);
  CHECK(sched_unroll(S(s, b), axis_of(b, 0)));
  SchedBounds *v = normalized(s);
  CHECK(v != NULL);
  if (!v) return;
  LStage *lb = view_of(v, b);
  IterVar *root = axis_of(b, 0);
  CHECK(lb->st == S(s, b) && lb->index == 1 && view_of(v, a)->index == 0);
  CHECK(lb->nleaf == 1 && lb->leaf[0] != root);
  CHECK(strcmp(lb->leaf[0]->var->name, "i") == 0 && lb->leaf[0]->var != root->var);
  CHECK(lb->nrel == 1 && lb->rel[0].kind == REL_REBASE);
  CHECK(lb->rel[0].parent == root && lb->rel[0].fused == lb->leaf[0]);
  /* the copy has its root axis's attributes */
  const IterVarAttr *at = sched_leaf_attr(lb, lb->leaf[0]);
  CHECK(at && at->for_kind == FOR_UNROLLED);
  /* the schedule is not touched */
  CHECK(S(s, b)->nleaf == 1 && S(s, b)->leaf_iter_vars[0] == root && S(s, b)->nrel == 0);
  /* a placeholder's view has no leaves and no body */
  CHECK(view_of(v, a)->nleaf == 0 && view_of(v, a)->body == NULL);
}

static void test_normalize_split_and_bound(void) {
  Tensor *a = placeholder("A", 2, V(m), I(16));
  Expr *shape[2] = {V(m), I(16)};
  ComputeDef d = axes(2, shape, NULL);
  Tensor *b = compute("B", d, at(a, iv_ref(d.axis[0]), iv_ref(d.axis[1])));
  Schedule *s = schedule(1, b);
  IterVar *jo, *ji;
  CHECK(sched_split(S(s, b), axis_of(b, 1), I(4), NULL, &jo, &ji));
  SchedBounds *v = normalized(s);
  CHECK(v != NULL);
  if (!v) return;
  LStage *lb = view_of(v, b);
  /* j is split, so only i is rebased: the split, then one rebase */
  CHECK(lb->nleaf == 3 && lb->leaf[1] == jo && lb->leaf[2] == ji);
  CHECK(lb->nrel == 2 && lb->rel[0].kind == REL_SPLIT && lb->rel[1].kind == REL_REBASE);
  CHECK(lb->rel[1].parent == axis_of(b, 0) && lb->leaf[0] == lb->rel[1].fused);

  /* a thread index starts at 0: a bound root axis stays itself, and bind records it */
  Schedule *s2 = schedule(1, b);
  IterVar *tx = thread_axis("threadIdx.x");
  CHECK(sched_bind(S(s2, b), axis_of(b, 0), tx));
  v = normalized(s2);
  CHECK(v != NULL);
  if (!v) return;
  lb = view_of(v, b);
  CHECK(lb->leaf[0] == axis_of(b, 0) && lb->leaf[1] != axis_of(b, 1));
  CHECK(lb->nrel == 1 && lb->rel[0].parent == axis_of(b, 1));
  CHECK(ptrmap_get(&v->bind, axis_of(b, 0)) == tx);
  CHECK(ptrmap_get(&v->bind, axis_of(b, 1)) == NULL);
  CHECK(sched_leaf_attr(lb, lb->leaf[1]) == NULL); /* no attributes on j */
}

static void test_normalize_inline(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Tensor *b = plus_one("B", a, V(m), 0);
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Expr *i = iv_ref(d.axis[0]);
  /* C[i] = B[i + 1]*B[i] */
  Tensor *c = compute("C", d, mul(at(b, add(i, I(1))), at(b, i)));
  Schedule *s = schedule(1, c);
  SchedBounds *v = normalized(s);
  CHECK(v != NULL);
  if (!v) return;
  CHECK_TEXT(pe(view_of(v, c)->body[0]), "(B[(i + 1)]*B[i])");
  CHECK(view_of(v, c)->nreads == 1 && view_of(v, c)->reads[0] == b);
  CHECK(sched_compute_inline(S(s, b)));
  v = normalized(s);
  CHECK(v != NULL);
  if (!v) return;
  LStage *lc = view_of(v, c);
  CHECK_TEXT(pe(lc->body[0]), "((A[(i + 1)] + 1f32)*(A[i] + 1f32))");
  CHECK(lc->nreads == 1 && lc->reads[0] == a);
  /* the op's own body is unchanged, and an inlined stage has no loops of its own */
  CHECK_TEXT(pe(c->op->body[0]), "(B[(i + 1)]*B[i])");
  CHECK(view_of(v, b)->nrel == 0 && view_of(v, b)->npath == 0);
}

static void test_normalize_attach_path(void) {
  Tensor *t[4];
  chain(t);
  Tensor *b = t[1], *c = t[2], *d = t[3];
  /* at a split's inner loop: that loop, then the outer one */
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(8), NULL, &xo, &xi));
  CHECK(sched_compute_at(S(s, b), S(s, c), xi));
  SchedBounds *v = normalized(s);
  CHECK(v != NULL);
  if (!v) return;
  LStage *lb = view_of(v, b);
  CHECK(lb->attach_ivar == xi && lb->npath == 2);
  CHECK(lb->attach_path[0] == xi && lb->attach_path[1] == xo);
  CHECK(view_of(v, c)->npath == 0);
  /* at a root axis: its rebased copy; nested, through every host */
  Schedule *s2 = schedule(1, d);
  CHECK(sched_compute_at(S(s2, b), S(s2, c), axis_of(c, 0)));
  CHECK(sched_compute_at(S(s2, c), S(s2, d), axis_of(d, 0)));
  v = normalized(s2);
  CHECK(v != NULL);
  if (!v) return;
  LStage *lc = view_of(v, c), *ld = view_of(v, d);
  lb = view_of(v, b);
  CHECK(lb->attach_ivar == lc->leaf[0] && lb->attach_ivar != axis_of(c, 0));
  CHECK(lb->npath == 2 && lb->attach_path[0] == lc->leaf[0] && lb->attach_path[1] == ld->leaf[0]);
  CHECK(lc->npath == 1 && lc->attach_path[0] == ld->leaf[0]);
}

static void test_normalize_refuses(void) {
  Tensor *t[4];
  chain(t);
  Tensor *b = t[1], *c = t[2], *d = t[3];
  Schedule *s = schedule(1, d);
  CHECK(sched_compute_at(S(s, b), S(s, c), axis_of(c, 0)));
  CHECK(sched_compute_inline(S(s, c)));
  CHECK(normalized(s) == NULL);
  CHECK_TEXT(view_diag.msg, "cannot compute_at: stage B is computed at C, which is inlined");
  Schedule *s2 = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_compute_at(S(s2, b), S(s2, c), axis_of(c, 0)));
  CHECK(sched_split(S(s2, c), axis_of(c, 0), I(2), NULL, &xo, &xi));
  CHECK(normalized(s2) == NULL);
  CHECK(strstr(view_diag.msg, "is no longer a loop of C") != NULL);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  test_normalize_rebase();
  test_normalize_split_and_bound();
  test_normalize_inline();
  test_normalize_attach_path();
  test_normalize_refuses();
  arena_free(&A);
  sb_free(&sb);
  return finish();
}
