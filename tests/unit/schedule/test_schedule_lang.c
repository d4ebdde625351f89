/* test_schedule_lang.c: te.create_schedule and the stage primitives (ir/schedule/
 * schedule_lang.c): what each records (leaves, relations, attach points, loop attributes), the
 * names TVM gives new axes, and the ScheduleError each illegal request gets, with nothing
 * changed by a refused one. */
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n;

/* A(m, n) -> B = A + 1 -> C = B * 2, and D = C + A read by nothing else */
static Tensor *ta, *tb, *tc, *td;

static void make_graph(void) {
  Expr *shape[2] = {V(m), V(n)};
  ta = placeholder("A", 2, V(m), V(n));
  ComputeDef db = axes(2, shape, NULL), dc = axes(2, shape, NULL), dd = axes(2, shape, NULL);
  tb = compute("B", db, add(at(ta, iv_ref(db.axis[0]), iv_ref(db.axis[1])), F(1)));
  tc = compute("C", dc, mul(at(tb, iv_ref(dc.axis[0]), iv_ref(dc.axis[1])), F(2)));
  td = compute("D", dd,
               add(at(tc, iv_ref(dd.axis[0]), iv_ref(dd.axis[1])),
                   at(ta, iv_ref(dd.axis[0]), iv_ref(dd.axis[1]))));
}

/* The stage's leaves by name, "i.outer j i.inner". */
static const char *leaves(const Stage *st) {
  reset();
  for (int i = 0; i < st->nleaf; i++)
    sb_printf(&sb, "%s%s", i ? " " : "", st->leaf_iter_vars[i]->var->name);
  return sb_cstr(&sb);
}

static void test_schedule_lang_create(void) {
  Schedule *s = schedule(1, td);
  CHECK(s->nstages == 4);
  /* producers first, inputs in the order the body reads them (TVM's post-DFS order) */
  CHECK(s->stages[0]->op == ta->op && s->stages[1]->op == tb->op);
  CHECK(s->stages[2]->op == tc->op && s->stages[3]->op == td->op);
  CHECK(S(s, td)->is_output && !S(s, tc)->is_output);
  CHECK(S(s, tc)->origin_op == tc->op && S(s, tc)->sched == s);
  CHECK(S(s, ta)->nleaf == 0 && S(s, ta)->nall == 0);
  CHECK_TEXT(leaves(S(s, tb)), "i j");
  CHECK(S(s, tb)->attach == ATTACH_ROOT && strcmp(S(s, tb)->scope, "") == 0);
  /* two outputs, one named twice */
  Schedule *s2 = schedule(3, tb, td, tb);
  CHECK(s2->noutputs == 2 && s2->nstages == 4);
  CHECK(S(s2, tb)->is_output && S(s2, td)->is_output);
  /* a foreign operation has no stage */
  CHECK(sched_stage(schedule(1, tb), tc->op) == NULL);
  /* reduce axes are root axes too, after the spatial ones */
  IterVar *k = reduce_axis("k", V(n));
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *r = compute("R", d, sum(at(ta, iv_ref(d.axis[0]), iv_ref(k)), 1, &k));
  CHECK_TEXT(leaves(S(schedule(1, r), r)), "i k");
}

static void test_schedule_lang_split(void) {
  Schedule *s = schedule(1, tc);
  Stage *st = S(s, tc);
  IterVar *xo, *xi, *xio, *xii;
  CHECK(sched_split(st, axis_of(tc, 0), I(32), NULL, &xo, &xi));
  CHECK_TEXT(leaves(st), "i.outer i.inner j");
  CHECK(st->nrel == 1 && st->relations[0].kind == REL_SPLIT);
  CHECK(st->relations[0].parent == axis_of(tc, 0) && st->relations[0].outer == xo);
  CHECK(st->relations[0].inner == xi && ir_is_const_int(st->relations[0].factor, 32));
  CHECK(st->relations[0].nparts == NULL && st->nall == 4);
  CHECK(xo->dom.min == NULL && xo->kind == ITER_DATA_PAR);
  /* names nest as TVM's do */
  CHECK(sched_split(st, xi, NULL, I(4), &xio, &xii));
  CHECK_TEXT(leaves(st), "i.outer i.inner.outer i.inner.inner j");
  CHECK(st->relations[1].nparts && !st->relations[1].factor);
  /* a factor of another integer type takes the axis's */
  IterVar *jo, *ji;
  CHECK(sched_split(st, axis_of(tc, 1), ir_int(&A, DT_I64, 8), NULL, &jo, &ji));
  CHECK(dt_eq(st->relations[2].factor->dtype, DT_I32));
  CHECK(sched_split(st, jo, V(n), NULL, &jo, &ji)); /* symbolic factors are fine */
}

static void test_schedule_lang_split_errors(void) {
  Schedule *s = schedule(1, tc);
  Stage *st = S(s, tc);
  IterVar *xo, *xi;
  CHECK(!sched_split(st, axis_of(tc, 0), I(0), NULL, &xo, &xi));
  CHECK_TEXT(s->diag.msg, "cannot split axis i of stage C: factor must be positive, not 0");
  CHECK(!sched_split(st, axis_of(tc, 0), NULL, I(-2), &xo, &xi));
  CHECK_TEXT(s->diag.msg, "cannot split axis i of stage C: nparts must be positive, not -2");
  CHECK(!sched_split(st, axis_of(tc, 0), I(2), I(2), &xo, &xi));
  CHECK_TEXT(s->diag.msg, "cannot split axis i of stage C: give exactly one of factor and nparts");
  CHECK(!sched_split(st, axis_of(tc, 0), F(2), NULL, &xo, &xi));
  CHECK_TEXT(s->diag.msg, "cannot split axis i of stage C: factor must be an integer");
  CHECK(!sched_split(st, axis_of(tb, 0), I(2), NULL, &xo, &xi));
  CHECK_TEXT(s->diag.msg, "cannot split: i is not an axis of stage C");
  CHECK(sched_split(st, axis_of(tc, 0), I(2), NULL, &xo, &xi));
  CHECK(!sched_split(st, axis_of(tc, 0), I(2), NULL, &xo, &xi));
  CHECK_TEXT(s->diag.msg, "cannot split: axis i of stage C is not a leaf (it was split or fused)");
  CHECK_TEXT(leaves(st), "i.outer i.inner j");
  CHECK(st->nrel == 1);
}

static void test_schedule_lang_tile_fuse_reorder(void) {
  Schedule *s = schedule(1, tc);
  Stage *st = S(s, tc);
  IterVar *t[4];
  CHECK(sched_tile(st, axis_of(tc, 0), axis_of(tc, 1), I(10), I(5), t));
  CHECK_TEXT(leaves(st), "i.outer j.outer i.inner j.inner");
  CHECK(t[0] == st->leaf_iter_vars[0] && t[3] == st->leaf_iter_vars[3]);
  IterVar *pair[2] = {t[2], t[3]};
  IterVar *f = sched_fuse(st, 2, pair);
  CHECK_TEXT(leaves(st), "i.outer j.outer i.inner.j.inner.fused");
  CHECK(st->relations[2].kind == REL_FUSE && st->relations[2].outer == t[2]);
  CHECK(st->relations[2].inner == t[3] && st->relations[2].fused == f);
  IterVar *order[3] = {f, t[0], t[1]};
  CHECK(sched_reorder(st, 3, order));
  CHECK_TEXT(leaves(st), "i.inner.j.inner.fused i.outer j.outer");
  /* a partial reorder keeps the other axes in place */
  IterVar *two[2] = {t[1], f};
  CHECK(sched_reorder(st, 2, two));
  CHECK_TEXT(leaves(st), "j.outer i.outer i.inner.j.inner.fused");
  /* fusing three axes folds left to right */
  Schedule *s2 = schedule(1, tc);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s2, tc), axis_of(tc, 0), I(4), NULL, &xo, &xi));
  IterVar *three[3] = {xo, xi, axis_of(tc, 1)};
  f = sched_fuse(S(s2, tc), 3, three);
  CHECK(f && strcmp(f->var->name, "i.outer.i.inner.fused.j.fused") == 0);
  CHECK_TEXT(leaves(S(s2, tc)), "i.outer.i.inner.fused.j.fused");
  CHECK(sched_fuse(S(s2, tc), 1, &f) == f);
  /* a fused reduce axis stays a reduce axis */
  IterVar *k = reduce_axis("k", V(n));
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *r = compute("R", d, sum(at(ta, iv_ref(d.axis[0]), iv_ref(k)), 1, &k));
  Schedule *s3 = schedule(1, r);
  IterVar *ik[2] = {axis_of(r, 0), k};
  CHECK(sched_fuse(S(s3, r), 2, ik)->kind == ITER_REDUCE);
}

static void test_schedule_lang_tile_fuse_reorder_errors(void) {
  Schedule *s = schedule(1, tc);
  Stage *st = S(s, tc);
  IterVar *xo, *xi, *t[4];
  CHECK(sched_split(st, axis_of(tc, 0), I(4), NULL, &xo, &xi));
  IterVar *apart[2] = {xo, axis_of(tc, 1)};
  CHECK(sched_fuse(st, 2, apart) == NULL);
  CHECK_TEXT(s->diag.msg,
             "cannot fuse: axes i.outer and j of stage C are not adjacent in its loop order");
  IterVar *backwards[2] = {xi, xo};
  CHECK(sched_fuse(st, 2, backwards) == NULL);
  CHECK_TEXT(s->diag.msg,
             "cannot fuse: axes i.inner and i.outer of stage C are not adjacent in its loop order");
  CHECK(sched_fuse(st, 0, NULL) == NULL);
  CHECK_TEXT(s->diag.msg, "cannot fuse: no axes of stage C given");
  IterVar *twice[2] = {xo, xo};
  CHECK(!sched_reorder(st, 2, twice));
  CHECK_TEXT(s->diag.msg, "cannot reorder: axis i.outer of stage C given twice");
  IterVar *gone[2] = {axis_of(tc, 0), xo};
  CHECK(!sched_reorder(st, 2, gone));
  CHECK_TEXT(s->diag.msg,
             "cannot reorder: axis i of stage C is not a leaf (it was split or fused)");
  CHECK(!sched_tile(st, xo, xo, I(2), I(2), t));
  CHECK_TEXT(s->diag.msg, "cannot tile: axis i.outer of stage C given twice");
  CHECK(!sched_tile(st, xo, axis_of(tc, 1), I(2), I(0), t));
  CHECK_TEXT(s->diag.msg, "cannot split axis j of stage C: factor must be positive, not 0");
  CHECK_TEXT(leaves(st), "i.outer i.inner j"); /* nothing changed */
  CHECK(st->nrel == 1);
}

static void test_schedule_lang_attach(void) {
  Schedule *s = schedule(1, td);
  CHECK(sched_compute_at(S(s, tb), S(s, td), axis_of(td, 1))); /* through C */
  CHECK(S(s, tb)->attach == ATTACH_SCOPE && S(s, tb)->attach_stage == S(s, td));
  CHECK(S(s, tb)->attach_ivar == axis_of(td, 1));
  CHECK(sched_compute_inline(S(s, tc)));
  CHECK(S(s, tc)->attach == ATTACH_INLINE);
  CHECK(sched_compute_root(S(s, tb)) && sched_compute_root(S(s, tc)));
  CHECK(S(s, tb)->attach == ATTACH_ROOT && S(s, tc)->attach == ATTACH_ROOT);
  CHECK(S(s, tb)->attach_stage == NULL);

  CHECK(!sched_compute_at(S(s, tc), S(s, tb), axis_of(tb, 0)));
  CHECK_TEXT(s->diag.msg, "cannot compute_at: stage C is not a producer of B");
  CHECK(!sched_compute_at(S(s, tc), S(s, tc), axis_of(tc, 0)));
  CHECK_TEXT(s->diag.msg, "cannot compute_at: stage C is not a producer of C");
  CHECK(!sched_compute_at(S(s, tc), S(s, td), axis_of(tc, 0)));
  CHECK_TEXT(s->diag.msg, "cannot compute_at: i is not an axis of stage D");
  CHECK(!sched_compute_at(S(s, ta), S(s, td), axis_of(td, 0)));
  CHECK_TEXT(s->diag.msg, "cannot compute_at: stage A is a placeholder");
  CHECK(!sched_compute_at(S(s, tc), S(schedule(1, td), td), axis_of(td, 0)));
  CHECK_TEXT(s->diag.msg, "cannot compute_at: the target stage of C is not in its schedule");
  CHECK(!sched_compute_inline(S(s, td)));
  CHECK_TEXT(s->diag.msg, "cannot compute_inline: stage D is an output of the schedule");
  CHECK(!sched_compute_inline(S(s, ta)));
  CHECK_TEXT(s->diag.msg, "cannot compute_inline: stage A is a placeholder");
  CHECK(!sched_compute_root(S(s, ta)));
  CHECK_TEXT(s->diag.msg, "cannot compute_root: stage A is a placeholder");
  IterVar *k = reduce_axis("k", V(n));
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *r = compute("R", d, sum(at(ta, iv_ref(d.axis[0]), iv_ref(k)), 1, &k));
  ComputeDef d2 = axes(1, shape, NULL);
  Tensor *r2 = compute("R2", d2, at(r, iv_ref(d2.axis[0])));
  Schedule *s2 = schedule(1, r2);
  CHECK(!sched_compute_inline(S(s2, r)));
  CHECK_TEXT(s2->diag.msg, "cannot compute_inline: stage R is a reduction");
  CHECK(S(s, tc)->attach == ATTACH_ROOT && S(s2, r)->attach == ATTACH_ROOT);
}

static IterVar *thread(const char *tag) {
  return ir_itervar(&A, var(tag), (Range){NULL, NULL}, ITER_THREAD, tag);
}

static void test_schedule_lang_annotate(void) {
  Schedule *s = schedule(1, tc);
  Stage *st = S(s, tc);
  IterVar *xo, *xi;
  CHECK(sched_split(st, axis_of(tc, 0), I(32), NULL, &xo, &xi));
  CHECK(sched_parallel(st, xo) && sched_vectorize(st, axis_of(tc, 1)) && sched_unroll(st, xi));
  CHECK(sched_iter_attr(st, xo)->for_kind == FOR_PARALLEL);
  CHECK(sched_iter_attr(st, xi)->for_kind == FOR_UNROLLED);
  CHECK(sched_iter_attr(st, axis_of(tc, 1))->for_kind == FOR_VECTORIZED);
  CHECK(sched_vectorize(st, xo) && sched_iter_attr(st, xo)->for_kind == FOR_VECTORIZED);
  CHECK(sched_pragma(st, xo, "auto_unroll_max_step", I(16)) &&
        sched_pragma(st, xo, "unroll", NULL));
  const IterVarAttr *at = sched_iter_attr(st, xo);
  CHECK(at->npragma == 2 && strcmp(at->pragma_keys[1], "unroll") == 0 && !at->pragma_values[1]);
  CHECK(ir_is_const_int(at->pragma_values[0], 16));
  CHECK(!sched_parallel(st, axis_of(tc, 0)));
  CHECK_TEXT(s->diag.msg,
             "cannot parallel: axis i of stage C is not a leaf (it was split or fused)");
  CHECK(!sched_pragma(st, xi, "", NULL));
  CHECK_TEXT(s->diag.msg, "cannot pragma axis i.inner of stage C: empty pragma name");

  IterVar *bx = thread("blockIdx.x"), *tx = thread("threadIdx.x");
  CHECK(sched_bind(st, xo, bx) && sched_bind(st, xi, tx));
  CHECK(sched_iter_attr(st, xo)->bind_thread == bx);
  CHECK(!sched_bind(st, axis_of(tc, 1), tx));
  CHECK_TEXT(s->diag.msg, "cannot bind axis j of stage C: threadIdx.x is already bound to i.inner");
  CHECK(!sched_bind(st, axis_of(tc, 1), xo));
  CHECK_TEXT(s->diag.msg, "cannot bind axis j of stage C: i.outer is not a thread axis");
  CHECK(!sched_bind(st, axis_of(tc, 0), bx));
  CHECK_TEXT(s->diag.msg, "cannot bind: axis i of stage C is not a leaf (it was split or fused)");
  CHECK(sched_bind(st, xi, tx)); /* binding again to the same thread is fine */
  CHECK(sched_iter_attr(st, axis_of(tc, 1))->bind_thread == NULL);

  CHECK(sched_set_scope(st, "shared") && strcmp(st->scope, "shared") == 0);
  CHECK(sched_set_scope(st, "local.inp_buffer") && sched_set_scope(st, "wmma.accumulator"));
  CHECK(!sched_set_scope(st, "texture"));
  CHECK_TEXT(s->diag.msg, "cannot set_scope: unknown storage scope 'texture' for stage C");
  CHECK(!sched_set_scope(S(s, ta), "shared"));
  CHECK_TEXT(s->diag.msg, "cannot set_scope: stage A is a placeholder");
  CHECK(sched_set_scope(st, "") && strcmp(st->scope, "wmma.accumulator") != 0);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  make_graph();
  test_schedule_lang_create();
  test_schedule_lang_split();
  test_schedule_lang_split_errors();
  test_schedule_lang_tile_fuse_reorder();
  test_schedule_lang_tile_fuse_reorder_errors();
  test_schedule_lang_attach();
  test_schedule_lang_annotate();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
