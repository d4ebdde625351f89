/* test_rfactor.c: rfactor (ir/schedule/rfactor.c): the two stages it leaves (B.rf with the
 * factored axis as a spatial one, B reducing B.rf over `<axis>.v`), the index and guard
 * rebuilt from the split, factor_axis, a root axis, several reduce axes, a fused one, the
 * relations of other axes carried over to B.rf, the ScheduleError of each illegal request
 * with nothing changed, and the lowered IR of TVM's reduction tutorial (row sum, k split by
 * 16, rfactor over k.inner), minus TVM's noise. */
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n;

static const char *stage_names(const Schedule *s) {
  reset();
  for (int i = 0; i < s->nstages; i++) sb_printf(&sb, "%s%s", i ? " " : "", s->stages[i]->op->name);
  return sb_cstr(&sb);
}

static const char *names(int k, IterVar *const *ivs) {
  reset();
  for (int i = 0; i < k; i++) sb_printf(&sb, "%s%s", i ? " " : "", ivs[i]->var->name);
  return sb_cstr(&sb);
}

/* B(n) = sum(A[i, k], k < m), the tutorial's row sum */
static Tensor *ta, *tb;
static IterVar *tk;

static void make_row_sum(void) {
  Expr *shape[1] = {V(n)};
  ta = placeholder("A", 2, V(n), V(m));
  tk = reduce_axis("k", V(m));
  ComputeDef d = axes(1, shape, NULL);
  tb = compute("B", d, sum(at(ta, iv_ref(d.axis[0]), iv_ref(tk)), 1, &tk));
}

static void test_rfactor_graph(void) {
  Schedule *s = schedule(1, tb);
  IterVar *ko, *ki;
  CHECK(sched_split(S(s, tb), tk, I(16), NULL, &ko, &ki));
  Tensor *bf = sched_rfactor(s, tb, ki, 0);
  CHECK(bf && strcmp(bf->name, "B.rf") == 0 && bf->ndim == 2);
  CHECK_TEXT(stage_names(s), "A B.rf B");
  Stage *rst = S(s, bf), *st = S(s, tb);
  CHECK(rst == s->stages[1] && !rst->is_output && st->is_output);
  /* B.rf: the factored axis keeps its variable and is spatial; k.outer is left to reduce */
  CHECK_TEXT(names(bf->op->naxis, bf->op->axis), "k.inner i");
  CHECK(bf->op->axis[0]->var == ki->var && bf->op->axis[0]->kind == ITER_DATA_PAR);
  CHECK(bf->op->axis[1] == axis_of(tb, 0));
  CHECK_TEXT(names(bf->op->nreduce, bf->op->reduce_axis), "k.outer");
  CHECK_TEXT(pe(bf->shape[0]), "16");
  CHECK_TEXT(pe(bf->op->reduce_axis[0]->dom.extent), "floordiv((m + 15), 16)");
  CHECK_TEXT(names(rst->nleaf, rst->leaf_iter_vars), "k.inner i k.outer");
  CHECK_TEXT(pe(bf->op->body[0]),
             "reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], "
             "identity_element=[0f32]), source=[A[i, ((k.outer*16) + k.inner)]], init=[], "
             "axis=[iter_var(k.outer, range(min=0, ext=floordiv((m + 15), 16)))], "
             "where=@tir.likely((((k.outer*16) + k.inner) < m), dtype=bool), value_index=0)");
  /* B: a fresh reduction of B.rf over k.inner.v, on fresh axes, its relations gone */
  CHECK(st->op != tb->op && st->origin_op == tb->op && strcmp(st->op->name, "B") == 0);
  CHECK(st->nrel == 0);
  CHECK_TEXT(names(st->nleaf, st->leaf_iter_vars), "ax0 k.inner.v");
  CHECK_TEXT(pe(st->op->body[0]),
             "reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], "
             "identity_element=[0f32]), source=[B.rf[k.inner.v, ax0]], init=[], "
             "axis=[iter_var(k.inner.v, range(min=0, ext=16))], where=True, value_index=0)");
}

/* TVM's reduction tutorial prints this, with symbolic strides and `_1` suffixes. */
static void test_rfactor_lower(void) {
  Schedule *s = schedule(1, tb);
  IterVar *ko, *ki;
  CHECK(sched_split(S(s, tb), tk, I(16), NULL, &ko, &ki));
  CHECK(sched_rfactor(s, tb, ki, 0));
  CHECK_TEXT(lowered(s, 2, ta, tb),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [n])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [(n*16)]), storage_scope = "
             "global {\n"
             "    for (k.inner: int32, 0, 16) {\n"
             "      for (i: int32, 0, n) {\n"
             "        B.rf[((k.inner*n) + i)] = 0f32\n"
             "        for (k.outer: int32, 0, floordiv((m + 15), 16)) {\n"
             "          if @tir.likely((((k.outer*16) + k.inner) < m), dtype=bool) {\n"
             "            B.rf[((k.inner*n) + i)] = (B.rf[((k.inner*n) + i)] + A[(((k.outer*16) "
             "+ (i*m)) + k.inner)])\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, n) {\n"
             "      B[ax0] = 0f32\n"
             "      for (k.inner.v: int32, 0, 16) {\n"
             "        B[ax0] = (B[ax0] + B.rf[((k.inner.v*n) + ax0)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

static void test_rfactor_factor_axis(void) {
  Schedule *s = schedule(1, tb);
  IterVar *ko, *ki;
  CHECK(sched_split(S(s, tb), tk, I(16), NULL, &ko, &ki));
  Tensor *bf = sched_rfactor(s, tb, ko, -1);
  CHECK(bf && bf->op->axis[1]->var == ko->var);
  CHECK_TEXT(names(bf->op->naxis, bf->op->axis), "i k.outer");
  CHECK_TEXT(names(bf->op->nreduce, bf->op->reduce_axis), "k.inner");
  CHECK_TEXT(pe(S(s, tb)->op->body[0]),
             "reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], "
             "identity_element=[0f32]), source=[B.rf[ax0, k.outer.v]], init=[], "
             "axis=[iter_var(k.outer.v, range(min=0, ext=floordiv((m + 15), 16)))], where=True, "
             "value_index=0)");
  CHECK_TEXT(lowered(s, 2, ta, tb),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [n])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [(n*floordiv((m + 15), 16))]), "
             "storage_scope = global {\n"
             "    for (i: int32, 0, n) {\n"
             "      for (k.outer: int32, 0, floordiv((m + 15), 16)) {\n"
             "        B.rf[((i*floordiv((m + 15), 16)) + k.outer)] = 0f32\n"
             "        for (k.inner: int32, 0, 16) {\n"
             "          if @tir.likely((((k.outer*16) + k.inner) < m), dtype=bool) {\n"
             "            B.rf[((i*floordiv((m + 15), 16)) + k.outer)] = (B.rf[((i*floordiv((m + "
             "15), 16)) + k.outer)] + A[(((k.outer*16) + (i*m)) + k.inner)])\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, n) {\n"
             "      B[ax0] = 0f32\n"
             "      for (k.outer.v: int32, 0, floordiv((m + 15), 16)) {\n"
             "        B[ax0] = (B[ax0] + B.rf[((ax0*floordiv((m + 15), 16)) + k.outer.v)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* A root reduce axis: B.rf reduces over nothing, so its body is the source itself. */
static void test_rfactor_root_axis(void) {
  Schedule *s = schedule(1, tb);
  Tensor *bf = sched_rfactor(s, tb, tk, 1);
  CHECK(bf && bf->op->nreduce == 0);
  CHECK_TEXT(names(bf->op->naxis, bf->op->axis), "i k");
  CHECK_TEXT(pe(bf->op->body[0]), "A[i, k]");
  CHECK_TEXT(lowered(s, 2, ta, tb),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [n])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [(n*m)]), storage_scope = "
             "global {\n"
             "    for (i: int32, 0, n) {\n"
             "      for (k: int32, 0, m) {\n"
             "        B.rf[((i*m) + k)] = A[((i*m) + k)]\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, n) {\n"
             "      B[ax0] = 0f32\n"
             "      for (k.v: int32, 0, m) {\n"
             "        B[ax0] = (B[ax0] + B.rf[((ax0*m) + k.v)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* A split that divides needs no guard; the other reduce axis stays as it was in B.rf. */
static void test_rfactor_two_axes(void) {
  Expr *shape[1] = {I(8)};
  Tensor *a = placeholder("A", 3, I(8), I(4), I(64));
  IterVar *kr[2] = {reduce_axis("r", I(4)), reduce_axis("k", I(64))};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *b = compute("B", d, sum(at(a, iv_ref(d.axis[0]), iv_ref(kr[0]), iv_ref(kr[1])), 2, kr));
  Schedule *s = schedule(1, b);
  IterVar *ko, *ki;
  CHECK(sched_split(S(s, b), kr[1], I(16), NULL, &ko, &ki));
  Tensor *bf = sched_rfactor(s, b, ki, 0);
  CHECK(bf && bf->op->reduce_axis[0] == kr[0]);
  CHECK_TEXT(names(bf->op->nreduce, bf->op->reduce_axis), "r k.outer");
  CHECK(bf->op->body[0]->u.reduce.condition == NULL);
  CHECK_TEXT(lowered(s, 2, a, b),
             "@main = primfn(A: Buffer(float32, [8, 4, 64]), B: Buffer(float32, [8])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [128]), storage_scope = global {\n"
             "    for (k.inner: int32, 0, 16) {\n"
             "      for (i: int32, 0, 8) {\n"
             "        B.rf[((k.inner*8) + i)] = 0f32\n"
             "        for (r: int32, 0, 4) {\n"
             "          for (k.outer: int32, 0, 4) {\n"
             "            B.rf[((k.inner*8) + i)] = (B.rf[((k.inner*8) + i)] + A[((((i*256) + "
             "(r*64)) + (k.outer*16)) + k.inner)])\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, 8) {\n"
             "      B[ax0] = 0f32\n"
             "      for (k.inner.v: int32, 0, 16) {\n"
             "        B[ax0] = (B[ax0] + B.rf[((k.inner.v*8) + ax0)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* Two reduce axes fused, then factored: the roots come back by floordiv and floormod. */
static void test_rfactor_fused(void) {
  Expr *shape[1] = {I(8)};
  Tensor *a = placeholder("A", 3, I(8), I(4), I(16));
  IterVar *kr[2] = {reduce_axis("r", I(4)), reduce_axis("k", I(16))};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *b = compute("B", d, sum(at(a, iv_ref(d.axis[0]), iv_ref(kr[0]), iv_ref(kr[1])), 2, kr));
  Schedule *s = schedule(1, b);
  IterVar *f = sched_fuse(S(s, b), 2, kr), *fo = NULL, *fi = NULL;
  CHECK(f && sched_split(S(s, b), f, I(8), NULL, &fo, &fi));
  Tensor *bf = sched_rfactor(s, b, fi, 0);
  CHECK(bf);
  CHECK_TEXT(names(bf->op->naxis, bf->op->axis), "r.k.fused.inner i");
  CHECK_TEXT(names(bf->op->nreduce, bf->op->reduce_axis), "r.k.fused.outer");
  CHECK_TEXT(lowered(s, 2, a, b),
             "@main = primfn(A: Buffer(float32, [8, 4, 16]), B: Buffer(float32, [8])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [64]), storage_scope = global {\n"
             "    for (r.k.fused.inner: int32, 0, 8) {\n"
             "      for (i: int32, 0, 8) {\n"
             "        B.rf[((r.k.fused.inner*8) + i)] = 0f32\n"
             "        for (r.k.fused.outer: int32, 0, 8) {\n"
             "          B.rf[((r.k.fused.inner*8) + i)] = (B.rf[((r.k.fused.inner*8) + i)] + "
             "A[(((i*64) + (r.k.fused.outer*8)) + r.k.fused.inner)])\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, 8) {\n"
             "      B[ax0] = 0f32\n"
             "      for (r.k.fused.inner.v: int32, 0, 8) {\n"
             "        B[ax0] = (B[ax0] + B.rf[((r.k.fused.inner.v*8) + ax0)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* A consumer of B reads the new B, and the IR names B for it too. */
static void test_rfactor_consumer(void) {
  Expr *shape[1] = {V(n)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *c = compute("C", d, mul(at(tb, iv_ref(d.axis[0])), F(2)));
  Schedule *s = schedule(1, c);
  IterVar *ko, *ki;
  CHECK(sched_split(S(s, tb), tk, I(16), NULL, &ko, &ki));
  CHECK(sched_rfactor(s, tb, ki, 0));
  Operation *cop = S(s, c)->op;
  CHECK(cop != c->op && cop->inputs[0] == S(s, tb)->op->outputs[0]);
  CHECK_TEXT(lowered(s, 3, ta, tb, c),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [n]), C: "
             "Buffer(float32, [n])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [(n*16)]), storage_scope = "
             "global {\n"
             "    for (k.inner: int32, 0, 16) {\n"
             "      for (i: int32, 0, n) {\n"
             "        B.rf[((k.inner*n) + i)] = 0f32\n"
             "        for (k.outer: int32, 0, floordiv((m + 15), 16)) {\n"
             "          if @tir.likely((((k.outer*16) + k.inner) < m), dtype=bool) {\n"
             "            B.rf[((k.inner*n) + i)] = (B.rf[((k.inner*n) + i)] + A[(((k.outer*16) "
             "+ (i*m)) + k.inner)])\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    for (ax0: int32, 0, n) {\n"
             "      B[ax0] = 0f32\n"
             "      for (k.inner.v: int32, 0, 16) {\n"
             "        B[ax0] = (B[ax0] + B.rf[((k.inner.v*n) + ax0)])\n"
             "      }\n"
             "    }\n"
             "    for (i: int32, 0, n) {\n"
             "      C[i] = (B[i]*2f32)\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* The spatial axis split before rfactor: B.rf keeps that split (its loops i.outer, i.inner
 * where its axis i is), B's stage starts afresh. Computed at B's axis, B.rf's i is one point,
 * so the split's parts are one iteration each: no loops are left of them. */
static void test_rfactor_keeps_spatial_split(void) {
  Schedule *s = schedule(1, tb);
  Stage *st = S(s, tb);
  IterVar *io, *ii, *ko, *ki;
  CHECK(sched_split(st, axis_of(tb, 0), I(4), NULL, &io, &ii));
  CHECK(sched_split(st, tk, I(16), NULL, &ko, &ki));
  Tensor *bf = sched_rfactor(s, tb, ki, 0);
  CHECK(bf);
  Stage *rst = S(s, bf);
  CHECK(rst->nrel == 1 && rst->relations[0].parent == axis_of(tb, 0) &&
        rst->relations[0].outer == io && rst->relations[0].inner == ii);
  CHECK_TEXT(names(rst->nleaf, rst->leaf_iter_vars), "k.inner i.outer i.inner k.outer");
  CHECK_TEXT(names(rst->nall, rst->all_iter_vars), "k.inner i k.outer i.outer i.inner");
  CHECK(S(s, tb)->nrel == 0);
  CHECK_TEXT(names(S(s, tb)->nleaf, S(s, tb)->leaf_iter_vars), "ax0 k.inner.v");
  /* the carried split schedules on: B.rf computed at B's axis, i.inner in parallel */
  CHECK(sched_parallel(rst, ii));
  CHECK(sched_compute_at(rst, S(s, tb), S(s, tb)->leaf_iter_vars[0]));
  CHECK_TEXT(lowered(s, 2, ta, tb),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [n])) {\n"
             "  allocate(B.rf: Pointer(global float32), float32, [16]), storage_scope = global;\n"
             "  for (ax0: int32, 0, n) {\n"
             "    for (k.inner: int32, 0, 16) {\n"
             "      B.rf[k.inner] = 0f32\n"
             "      for (k.outer: int32, 0, floordiv((m + 15), 16)) {\n"
             "        if @tir.likely((((k.outer*16) + k.inner) < m), dtype=bool) {\n"
             "          B.rf[k.inner] = (B.rf[k.inner] + A[(((k.outer*16) + (ax0*m)) + "
             "k.inner)])\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "    B[ax0] = 0f32\n"
             "    for (k.inner.v: int32, 0, 16) {\n"
             "      B[ax0] = (B[ax0] + B.rf[k.inner.v])\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* A reduce axis split apart from the factored one stays split in B.rf; one fused with a part
 * of the factored axis is tied to it and reduced through the fused loop alone. */
static void test_rfactor_other_reduce_axes(void) {
  Expr *shape[1] = {I(8)};
  Tensor *a = placeholder("A", 3, I(8), I(4), I(16));
  IterVar *kr[2] = {reduce_axis("r", I(4)), reduce_axis("k", I(16))};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *b = compute("B", d, sum(at(a, iv_ref(d.axis[0]), iv_ref(kr[0]), iv_ref(kr[1])), 2, kr));
  Schedule *s = schedule(1, b);
  IterVar *ro, *ri, *ko, *ki;
  CHECK(sched_split(S(s, b), kr[0], I(3), NULL, &ro, &ri));
  CHECK(sched_split(S(s, b), kr[1], I(4), NULL, &ko, &ki));
  Tensor *bf = sched_rfactor(s, b, ki, 1);
  CHECK(bf);
  CHECK_TEXT(names(bf->op->nreduce, bf->op->reduce_axis), "r k.outer");
  CHECK_TEXT(names(S(s, bf)->nleaf, S(s, bf)->leaf_iter_vars), "i k.inner r.outer r.inner k.outer");
  /* fused: r with k.outer, then factored over k.inner */
  Schedule *s2 = schedule(1, b);
  Stage *st = S(s2, b);
  IterVar *order[4] = {axis_of(b, 0), NULL, NULL, NULL};
  CHECK(sched_split(st, kr[1], I(4), NULL, &ko, &ki));
  order[1] = ko, order[2] = kr[0], order[3] = ki;
  CHECK(sched_reorder(st, 4, order));
  IterVar *pair[2] = {ko, kr[0]};
  IterVar *f = sched_fuse(st, 2, pair);
  CHECK(f);
  bf = sched_rfactor(s2, b, ki, 0);
  CHECK(bf && S(s2, bf)->nrel == 0);
  CHECK_TEXT(names(bf->op->nreduce, bf->op->reduce_axis), "k.outer.r.fused");
  CHECK_TEXT(pe(bf->op->body[0]),
             "reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], "
             "identity_element=[0f32]), source=[A[i, floormod(k.outer.r.fused, 4), "
             "((floordiv(k.outer.r.fused, 4)*4) + k.inner)]], init=[], "
             "axis=[iter_var(k.outer.r.fused, range(min=0, ext=16))], where=True, value_index=0)");
}

/* A stage computed at B's loops before rfactor follows them into B.rf, which reads it now: at
 * a carried loop it keeps the itervar, at the factored axis it gets B.rf's axis made of it. */
static void test_rfactor_moves_attached(void) {
  Expr *shape[2] = {V(n), V(m)};
  ComputeDef dx = axes(2, shape, NULL);
  Tensor *x = compute("X", dx, mul(at(ta, iv_ref(dx.axis[0]), iv_ref(dx.axis[1])), F(2)));
  Expr *bs[1] = {V(n)};
  ComputeDef d = axes(1, bs, NULL);
  IterVar *k = reduce_axis("k", V(m));
  Tensor *b = compute("B", d, sum(at(x, iv_ref(d.axis[0]), iv_ref(k)), 1, &k));
  Schedule *s = schedule(1, b);
  IterVar *io, *ii, *ko, *ki;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(2), NULL, &io, &ii));
  CHECK(sched_split(S(s, b), k, I(4), NULL, &ko, &ki));
  CHECK(sched_compute_at(S(s, x), S(s, b), io));
  Tensor *bf = sched_rfactor(s, b, ki, 0);
  CHECK(bf && S(s, x)->attach_stage == S(s, bf) && S(s, x)->attach_ivar == io);
  CHECK(strncmp(lowered(s, 2, ta, b), "@main", 5) == 0);
  Schedule *s2 = schedule(1, b);
  CHECK(sched_split(S(s2, b), k, I(4), NULL, &ko, &ki));
  CHECK(sched_compute_at(S(s2, x), S(s2, b), ki));
  bf = sched_rfactor(s2, b, ki, 0);
  CHECK(bf && S(s2, x)->attach_stage == S(s2, bf) && S(s2, x)->attach_ivar == bf->op->axis[0]);
  CHECK(strncmp(lowered(s2, 2, ta, b), "@main", 5) == 0);
}

static void test_rfactor_errors(void) {
  Expr *shape[1] = {V(n)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *c = compute("C", d, mul(at(tb, iv_ref(d.axis[0])), F(2)));
  Schedule *s = schedule(1, c);
  Stage *st = S(s, tb);
  CHECK(!sched_rfactor(s, c, axis_of(c, 0), 0));
  CHECK_TEXT(s->diag.msg, "cannot rfactor: stage C is not a reduction");
  CHECK(!sched_rfactor(s, ta, tk, 0));
  CHECK_TEXT(s->diag.msg, "cannot rfactor: stage A is not a reduction");
  CHECK(!sched_rfactor(s, tb, axis_of(c, 0), 0));
  CHECK_TEXT(s->diag.msg, "cannot rfactor: i is not an axis of stage B");
  CHECK(!sched_rfactor(s, tb, axis_of(tb, 0), 0));
  CHECK_TEXT(s->diag.msg, "cannot rfactor: axis i of stage B is not a reduce axis");
  CHECK(!sched_rfactor(s, tb, tk, 2));
  CHECK_TEXT(s->diag.msg, "cannot rfactor: factor_axis 2 of stage B is not in [-2, 1]");
  CHECK(!sched_rfactor(s, tb, tk, -3));
  IterVar *ko, *ki;
  CHECK(sched_split(st, tk, I(16), NULL, &ko, &ki));
  CHECK(!sched_rfactor(s, tb, tk, 0));
  CHECK_TEXT(s->diag.msg,
             "cannot rfactor: axis k of stage B is not a leaf (it was split or fused)");
  Schedule *s2 = schedule(1, tb);
  IterVar *pair[2] = {axis_of(tb, 0), tk};
  IterVar *f = sched_fuse(S(s2, tb), 2, pair);
  CHECK(f && !sched_rfactor(s2, tb, f, 0));
  CHECK_TEXT(s2->diag.msg,
             "cannot rfactor: axis i.k.fused of stage B is fused with spatial axis i");
  Schedule *s3 = schedule(1, tb);
  CHECK(!sched_rfactor(s3, c, axis_of(c, 0), 0));
  CHECK_TEXT(s3->diag.msg, "cannot rfactor: tensor C is not in the schedule");
  /* a reduction not starting at 0 */
  IterVar *k1 = ir_itervar(&A, var("k"), (Range){I(1), V(m)}, ITER_REDUCE, NULL);
  Tensor *b1 = compute("B1", axes(1, shape, NULL), sum(at(ta, I(0), iv_ref(k1)), 1, &k1));
  Schedule *s4 = schedule(1, b1);
  CHECK(!sched_rfactor(s4, b1, k1, 0));
  CHECK_TEXT(s4->diag.msg, "cannot rfactor: axis k of stage B1 does not start at 0");
  /* nothing changed */
  CHECK(s->nstages == 3 && st->op == tb->op && s2->nstages == 2 && s4->nstages == 2);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  make_row_sum();
  test_rfactor_graph();
  test_rfactor_lower();
  test_rfactor_factor_axis();
  test_rfactor_root_axis();
  test_rfactor_two_axes();
  test_rfactor_fused();
  test_rfactor_consumer();
  test_rfactor_keeps_spatial_split();
  test_rfactor_other_reduce_axes();
  test_rfactor_moves_attached();
  test_rfactor_errors();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
