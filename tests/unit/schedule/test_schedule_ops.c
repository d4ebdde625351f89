/* test_schedule_ops.c: loop-nest construction (ir/schedule/schedule_ops.c), held against the
 * seed tutorials through the whole of tvm.lower. The split, compute_at, compute_root and
 * compute_inline goldens are seeds/004_*.txt's printed IR (SPEC §8 for the split) with TVM's
 * noise taken out as SPEC §8 says: no handle parameters or buffer maps, no `_1` suffixes, no
 * symbolic strides (contiguous buffers index by the shape), no `(float32*)` casts. The seed
 * prints no IR for tile, fuse and reorder; their goldens keep the loop structure TVM 0.8-0.10
 * give those schedules (guards hoisted by tir.HoistIfThenElse), with indices in the canonical
 * form of tir.Simplify (terms by descending scale, as TVM's canonical simplifier orders them). */
#include "tests/unit/schedule/sched_test.h"

/* A = placeholder((m,)), B = compute((m,), lambda i: A[i] * 2) */
static Var *m, *n;

static Tensor *vector_times_two(Tensor **a) {
  *a = placeholder("A", 1, V(m));
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  return compute("B", d, mul(at(*a, iv_ref(d.axis[0])), F(2)));
}

/* A = placeholder((m, n)), B = compute((m, n), lambda i, j: A[i, j]) */
static Tensor *matrix_copy(Tensor **a) {
  *a = placeholder("A", 2, V(m), V(n));
  Expr *shape[2] = {V(m), V(n)};
  ComputeDef d = axes(2, shape, NULL);
  return compute("B", d, at(*a, iv_ref(d.axis[0]), iv_ref(d.axis[1])));
}

/* A, B = A + 1, C = B * 2, all over (m,) */
static void chain(Tensor **a, Tensor **b, Tensor **c) {
  Expr *shape[1] = {V(m)};
  *a = placeholder("A", 1, V(m));
  ComputeDef db = axes(1, shape, NULL), dc = axes(1, shape, NULL);
  *b = compute("B", db, add(at(*a, iv_ref(db.axis[0])), F(1)));
  *c = compute("C", dc, mul(at(*b, iv_ref(dc.axis[0])), F(2)));
}

static void test_schedule_ops_default(void) {
  Tensor *a, *b = vector_times_two(&a);
  CHECK_TEXT(lowered(schedule(1, b), 2, a, b),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    B[i] = (A[i]*2f32)\n"
             "  }\n"
             "}\n");
}

/* SPEC §8, seeds/004_*.txt */
static void test_schedule_ops_split(void) {
  Tensor *a, *b = vector_times_two(&a);
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(32), NULL, &xo, &xi));
  CHECK_TEXT(lowered(s, 2, a, b),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m])) {\n"
             "  for (i.outer: int32, 0, floordiv((m + 31), 32)) {\n"
             "    for (i.inner: int32, 0, 32) {\n"
             "      if @tir.likely((((i.outer*32) + i.inner) < m), dtype=bool) {\n"
             "        B[((i.outer*32) + i.inner)] = (A[((i.outer*32) + i.inner)]*2f32)\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* "nparts=32 splits the other way" (seeds/004_*.txt's comment) */
static void test_schedule_ops_split_nparts(void) {
  Tensor *a, *b = vector_times_two(&a);
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), NULL, I(32), &xo, &xi));
  CHECK_TEXT(
      lowered(s, 2, a, b),
      "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m])) {\n"
      "  for (i.outer: int32, 0, 32) {\n"
      "    for (i.inner: int32, 0, floordiv((m + 31), 32)) {\n"
      "      if @tir.likely((((i.outer*floordiv((m + 31), 32)) + i.inner) < m), dtype=bool) {\n"
      "        B[((i.outer*floordiv((m + 31), 32)) + i.inner)] = "
      "(A[((i.outer*floordiv((m + 31), 32)) + i.inner)]*2f32)\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
}

/* A factor that divides a constant extent needs no guard. */
static void test_schedule_ops_split_divides(void) {
  Tensor *a = placeholder("A", 1, I(1024));
  Expr *shape[1] = {I(1024)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *b = compute("B", d, mul(at(a, iv_ref(d.axis[0])), F(2)));
  Schedule *s = schedule(1, b);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(32), NULL, &xo, &xi));
  CHECK_TEXT(lowered(s, 2, a, b),
             "@main = primfn(A: Buffer(float32, [1024]), B: Buffer(float32, [1024])) {\n"
             "  for (i.outer: int32, 0, 32) {\n"
             "    for (i.inner: int32, 0, 32) {\n"
             "      B[((i.outer*32) + i.inner)] = (A[((i.outer*32) + i.inner)]*2f32)\n"
             "    }\n"
             "  }\n"
             "}\n");
}

static void test_schedule_ops_tile(void) {
  Tensor *a, *b = matrix_copy(&a);
  Schedule *s = schedule(1, b);
  IterVar *t[4];
  CHECK(sched_tile(S(s, b), axis_of(b, 0), axis_of(b, 1), I(10), I(5), t));
  CHECK_TEXT(lowered(s, 2, a, b),
             "@main = primfn(A: Buffer(float32, [m, n]), B: Buffer(float32, [m, n])) {\n"
             "  for (i.outer: int32, 0, floordiv((m + 9), 10)) {\n"
             "    for (j.outer: int32, 0, floordiv((n + 4), 5)) {\n"
             "      for (i.inner: int32, 0, 10) {\n"
             "        if @tir.likely((((i.outer*10) + i.inner) < m), dtype=bool) {\n"
             "          for (j.inner: int32, 0, 5) {\n"
             "            if @tir.likely((((j.outer*5) + j.inner) < n), dtype=bool) {\n"
             "              B[(((j.outer*5) + (((i.outer*10) + i.inner)*n)) + j.inner)] = "
             "A[(((j.outer*5) + (((i.outer*10) + i.inner)*n)) + j.inner)]\n"
             "            }\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

static void test_schedule_ops_fuse(void) {
  Tensor *a, *b = matrix_copy(&a);
  Schedule *s = schedule(1, b);
  IterVar *t[4];
  CHECK(sched_tile(S(s, b), axis_of(b, 0), axis_of(b, 1), I(10), I(5), t));
  IterVar *inner[2] = {t[2], t[3]};
  IterVar *f = sched_fuse(S(s, b), 2, inner);
  CHECK(f && strcmp(f->var->name, "i.inner.j.inner.fused") == 0);
  CHECK_TEXT(
      lowered(s, 2, a, b),
      "@main = primfn(A: Buffer(float32, [m, n]), B: Buffer(float32, [m, n])) {\n"
      "  for (i.outer: int32, 0, floordiv((m + 9), 10)) {\n"
      "    for (j.outer: int32, 0, floordiv((n + 4), 5)) {\n"
      "      for (i.inner.j.inner.fused: int32, 0, 50) {\n"
      "        if @tir.likely((((i.outer*10) + floordiv(i.inner.j.inner.fused, 5)) < m), "
      "dtype=bool) {\n"
      "          if @tir.likely((((j.outer*5) + floormod(i.inner.j.inner.fused, 5)) < n), "
      "dtype=bool) {\n"
      "            B[(((j.outer*5) + (((i.outer*10) + floordiv(i.inner.j.inner.fused, 5))*n)) + "
      "floormod(i.inner.j.inner.fused, 5))] = "
      "A[(((j.outer*5) + (((i.outer*10) + floordiv(i.inner.j.inner.fused, 5))*n)) + "
      "floormod(i.inner.j.inner.fused, 5))]\n"
      "          }\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
}

static void test_schedule_ops_reorder(void) {
  Tensor *a, *b = matrix_copy(&a);
  Schedule *s = schedule(1, b);
  IterVar *t[4];
  CHECK(sched_tile(S(s, b), axis_of(b, 0), axis_of(b, 1), I(10), I(5), t));
  IterVar *order[4] = {t[2], t[1], t[0], t[3]}; /* xi, yo, xo, yi */
  CHECK(sched_reorder(S(s, b), 4, order));
  CHECK_TEXT(lowered(s, 2, a, b),
             "@main = primfn(A: Buffer(float32, [m, n]), B: Buffer(float32, [m, n])) {\n"
             "  for (i.inner: int32, 0, 10) {\n"
             "    for (j.outer: int32, 0, floordiv((n + 4), 5)) {\n"
             "      for (i.outer: int32, 0, floordiv((m + 9), 10)) {\n"
             "        if @tir.likely((((i.outer*10) + i.inner) < m), dtype=bool) {\n"
             "          for (j.inner: int32, 0, 5) {\n"
             "            if @tir.likely((((j.outer*5) + j.inner) < n), dtype=bool) {\n"
             "              B[(((j.outer*5) + (((i.outer*10) + i.inner)*n)) + j.inner)] = "
             "A[(((j.outer*5) + (((i.outer*10) + i.inner)*n)) + j.inner)]\n"
             "            }\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* seeds/004_*.txt: TVM prints the second loop variable as i_1 */
static void test_schedule_ops_compute_root(void) {
  Tensor *a, *b, *c;
  chain(&a, &b, &c);
  Schedule *s = schedule(1, c);
  CHECK_TEXT(lowered(s, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m]), "
             "C: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    B[i] = (A[i] + 1f32)\n"
             "  }\n"
             "  for (i: int32, 0, m) {\n"
             "    C[i] = (B[i]*2f32)\n"
             "  }\n"
             "}\n");
  /* compute_at, then compute_root moves it back (seeds/004_*.txt) */
  CHECK(sched_compute_at(S(s, b), S(s, c), axis_of(c, 0)));
  CHECK(sched_compute_root(S(s, b)));
  CHECK_TEXT(lowered(s, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m]), "
             "C: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    B[i] = (A[i] + 1f32)\n"
             "  }\n"
             "  for (i: int32, 0, m) {\n"
             "    C[i] = (B[i]*2f32)\n"
             "  }\n"
             "}\n");
}

static void test_schedule_ops_compute_at(void) {
  Tensor *a, *b, *c;
  chain(&a, &b, &c);
  Schedule *s = schedule(1, c);
  CHECK(sched_compute_at(S(s, b), S(s, c), axis_of(c, 0)));
  CHECK_TEXT(lowered(s, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m]), "
             "C: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    B[i] = (A[i] + 1f32)\n"
             "    C[i] = (B[i]*2f32)\n"
             "  }\n"
             "}\n");
}

static void test_schedule_ops_compute_inline(void) {
  Tensor *a, *b, *c;
  chain(&a, &b, &c);
  Schedule *s = schedule(1, c);
  CHECK(sched_compute_inline(S(s, b)));
  CHECK_TEXT(lowered(s, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m]), "
             "C: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    C[i] = ((A[i] + 1f32)*2f32)\n"
             "  }\n"
             "}\n");
}

/* seeds/000_*.txt: the row sum, B not an argument */
static void test_schedule_ops_reduction(void) {
  Tensor *a = placeholder("A", 2, V(n), V(m));
  Expr *shape[1] = {V(n)};
  ComputeDef d = axes(1, shape, NULL);
  IterVar *k = reduce_axis("k", V(m));
  Tensor *b = compute("B", d, sum(at(a, iv_ref(d.axis[0]), iv_ref(k)), 1, &k));
  CHECK_TEXT(lowered(schedule(1, b), 1, a),
             "@main = primfn(A: Buffer(float32, [n, m])) {\n"
             "  allocate(B: Pointer(global float32), float32, [n]), storage_scope = global;\n"
             "  for (i: int32, 0, n) {\n"
             "    B[i] = 0f32\n"
             "    for (k: int32, 0, m) {\n"
             "      B[i] = (B[i] + A[((i*m) + k)])\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* B is no argument: it gets an allocation of one element inside C's loop */
static void test_schedule_ops_compute_at_allocate(void) {
  Tensor *a, *b, *c;
  chain(&a, &b, &c);
  Schedule *s = schedule(1, c);
  CHECK(sched_compute_at(S(s, b), S(s, c), axis_of(c, 0)));
  CHECK_TEXT(lowered(s, 2, a, c),
             "@main = primfn(A: Buffer(float32, [m]), C: Buffer(float32, [m])) {\n"
             "  allocate(B: Pointer(global float32), float32, [1]), storage_scope = global;\n"
             "  for (i: int32, 0, m) {\n"
             "    B[0] = (A[i] + 1f32)\n"
             "    C[i] = (B[0]*2f32)\n"
             "  }\n"
             "}\n");
}

/* C[i] = B[i] + B[i + 1]: computed at the outer loop of a split, B covers 8 + 1 elements,
 * guarded where they pass B's own end */
static void test_schedule_ops_compute_at_stencil(void) {
  Tensor *a = placeholder("A", 1, V(m));
  Expr *sb_[1] = {V(m)}, *sc[1] = {sub(V(m), I(1))};
  ComputeDef db = axes(1, sb_, NULL), dc = axes(1, sc, NULL);
  Tensor *b = compute("B", db, add(at(a, iv_ref(db.axis[0])), F(1)));
  Expr *i = iv_ref(dc.axis[0]);
  Tensor *c = compute("C", dc, add(at(b, i), at(b, add(i, I(1)))));
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi;
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(8), NULL, &xo, &xi));
  CHECK(sched_compute_at(S(s, b), S(s, c), xo));
  CHECK_TEXT(lowered(s, 2, a, c),
             "@main = primfn(A: Buffer(float32, [m]), C: Buffer(float32, [(m - 1)])) {\n"
             "  allocate(B: Pointer(global float32), float32, [9]), storage_scope = global;\n"
             "  for (i.outer: int32, 0, floordiv((m + 6), 8)) {\n"
             "    for (i: int32, 0, 9) {\n"
             "      if @tir.likely((((i.outer*8) + i) < m), dtype=bool) {\n"
             "        B[i] = (A[((i.outer*8) + i)] + 1f32)\n"
             "      }\n"
             "    }\n"
             "    for (i.inner: int32, 0, 8) {\n"
             "      if @tir.likely((((i.outer*8) + i.inner) < (m - 1)), dtype=bool) {\n"
             "        C[((i.outer*8) + i.inner)] = (B[i.inner] + B[(i.inner + 1)])\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* matmul with the reduction outermost: the init statement gets loops of its own */
static Tensor *matmul(Tensor **a, Tensor **b, IterVar **k) {
  *a = placeholder("A", 2, V(n), V(m));
  *b = placeholder("B", 2, V(m), V(n));
  Expr *shape[2] = {V(n), V(n)};
  ComputeDef d = axes(2, shape, NULL);
  *k = reduce_axis("k", V(m));
  Expr *prod = mul(at(*a, iv_ref(d.axis[0]), iv_ref(*k)), at(*b, iv_ref(*k), iv_ref(d.axis[1])));
  return compute("C", d, sum(prod, 1, k));
}

static void test_schedule_ops_reduction_init(void) {
  Tensor *a, *b;
  IterVar *k;
  Tensor *c = matmul(&a, &b, &k);
  Schedule *s = schedule(1, c);
  IterVar *order[3] = {k, axis_of(c, 0), axis_of(c, 1)};
  CHECK(sched_reorder(S(s, c), 3, order));
  CHECK_TEXT(lowered(s, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [m, n]), "
             "C: Buffer(float32, [n, n])) {\n"
             "  for (i.init: int32, 0, n) {\n"
             "    for (j.init: int32, 0, n) {\n"
             "      C[((i.init*n) + j.init)] = 0f32\n"
             "    }\n"
             "  }\n"
             "  for (k: int32, 0, m) {\n"
             "    for (i: int32, 0, n) {\n"
             "      for (j: int32, 0, n) {\n"
             "        C[((i*n) + j)] = (C[((i*n) + j)] + (A[((i*m) + k)]*B[((k*n) + j)]))\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

/* loop kinds and pragmas; the init loops get the kinds too (TVM's MakeLoopNest) */
static void test_schedule_ops_annotations(void) {
  Tensor *a, *b;
  IterVar *k;
  Tensor *c = matmul(&a, &b, &k);
  Schedule *s = schedule(1, c);
  Stage *st = S(s, c);
  IterVar *ko, *ki, *jo, *ji;
  CHECK(sched_split(st, axis_of(c, 1), I(8), NULL, &jo, &ji));
  CHECK(sched_split(st, k, I(4), NULL, &ko, &ki));
  IterVar *order[5] = {axis_of(c, 0), jo, ko, ki, ji};
  CHECK(sched_reorder(st, 5, order));
  CHECK(sched_parallel(st, axis_of(c, 0)) && sched_vectorize(st, ji) && sched_unroll(st, ki));
  CHECK(sched_pragma(st, jo, "auto_unroll_max_step", I(16)));
  CHECK_TEXT(lowered_nest(s, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [n, m]), B: Buffer(float32, [m, n]), "
             "C: Buffer(float32, [n, n])) {\n"
             "  for (i: int32, 0, n) \"parallel\" {\n"
             "    attr [IterVar(j.outer: int32, (nullptr), \"DataPar\", \"\")] "
             "\"pragma_auto_unroll_max_step\" = 16;\n"
             "    for (j.outer, 0, floordiv((n + 7), 8)) {\n"
             "      for (j.inner.init: int32, 0, 8) \"vectorized\" {\n"
             "        if @tir.likely((((j.outer*8) + j.inner.init) < n), dtype=bool) {\n"
             "          C[(((j.outer*8) + (i*n)) + j.inner.init)] = 0f32\n"
             "        }\n"
             "      }\n"
             "      for (k.outer: int32, 0, floordiv((m + 3), 4)) {\n"
             "        for (k.inner: int32, 0, 4) \"unroll\" {\n"
             "          for (j.inner: int32, 0, 8) \"vectorized\" {\n"
             "            if @tir.likely((((j.outer*8) + j.inner) < n), dtype=bool) {\n"
             "              if @tir.likely((((k.outer*4) + k.inner) < m), dtype=bool) {\n"
             "                C[(((j.outer*8) + (i*n)) + j.inner)] = (C[(((j.outer*8) + (i*n)) + "
             "j.inner)] + (A[(((k.outer*4) + (i*m)) + k.inner)]*B[(((j.outer*8) + (((k.outer*4) + "
             "k.inner)*n)) + j.inner)]))\n"
             "              }\n"
             "            }\n"
             "          }\n"
             "        }\n"
             "      }\n"
             "    }\n"
             "  }\n"
             "}\n");
}

static IterVar *thread(const char *tag) {
  IterVarKind k = strncmp(tag, "vthread", 7) == 0 ? ITER_VTHREAD : ITER_THREAD;
  return ir_itervar(&A, var(tag), (Range){NULL, NULL}, k, tag);
}

/* B computed per block in shared memory, C one element per thread */
static void test_schedule_ops_threads(void) {
  Tensor *a, *b, *c;
  chain(&a, &b, &c);
  Schedule *s = schedule(1, c);
  IterVar *xo, *xi, *bx = thread("blockIdx.x"), *tx = thread("threadIdx.x");
  CHECK(sched_split(S(s, c), axis_of(c, 0), I(64), NULL, &xo, &xi));
  CHECK(sched_bind(S(s, c), xo, bx) && sched_bind(S(s, c), xi, tx));
  CHECK(sched_compute_at(S(s, b), S(s, c), xo));
  CHECK_TEXT(lowered(s, 2, a, c),
             "@main = primfn(A: Buffer(float32, [m]), C: Buffer(float32, [m])) {\n"
             "  attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", \"blockIdx.x\")] "
             "\"thread_extent\" = floordiv((m + 63), 64);\n"
             "  allocate(B: Pointer(shared float32), float32, [64]), storage_scope = shared {\n"
             "    for (i: int32, 0, 64) {\n"
             "      if @tir.likely((((blockIdx.x*64) + i) < m), dtype=bool) {\n"
             "        B[i] = (A[((blockIdx.x*64) + i)] + 1f32)\n"
             "      }\n"
             "    }\n"
             "    attr [IterVar(threadIdx.x: int32, (nullptr), \"ThreadIndex\", \"threadIdx.x\")] "
             "\"thread_extent\" = 64;\n"
             "    if @tir.likely((((blockIdx.x*64) + threadIdx.x) < m), dtype=bool) {\n"
             "      C[((blockIdx.x*64) + threadIdx.x)] = (B[threadIdx.x]*2f32)\n"
             "    }\n"
             "  }\n"
             "}\n");
  /* B inside C's thread, its own loop bound to that thread too: local storage, and the
   * repeated thread_extent attr dropped (TVM's SchedulePostProc) */
  IterVar *bo, *bi;
  CHECK(sched_split(S(s, b), axis_of(b, 0), I(64), NULL, &bo, &bi));
  CHECK(sched_bind(S(s, b), bi, tx));
  CHECK(sched_compute_at(S(s, b), S(s, c), xi));
  CHECK_TEXT(lowered(s, 2, a, c),
             "@main = primfn(A: Buffer(float32, [m]), C: Buffer(float32, [m])) {\n"
             "  attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", \"blockIdx.x\")] \"thread_extent\" = floordiv((m + 63), 64);\n"
             "  allocate(B: Pointer(local float32), float32, [1]), storage_scope = local;\n"
             "  attr [IterVar(threadIdx.x: int32, (nullptr), \"ThreadIndex\", \"threadIdx.x\")] \"thread_extent\" = 64 {\n"
             "    if @tir.likely((threadIdx.x < 1), dtype=bool) {\n"
             "      if @tir.likely((((blockIdx.x*64) + (threadIdx.x*2)) < m), dtype=bool) {\n"
             "        B[threadIdx.x] = (A[((blockIdx.x*64) + (threadIdx.x*2))] + 1f32)\n"
             "      }\n"
             "    }\n"
             "    if @tir.likely((((blockIdx.x*64) + threadIdx.x) < m), dtype=bool) {\n"
             "      C[((blockIdx.x*64) + threadIdx.x)] = (B[0]*2f32)\n"
             "    }\n"
             "  }\n"
             "}\n");
  /* a virtual thread */
  Schedule *s2 = schedule(1, c);
  CHECK(sched_split(S(s2, c), axis_of(c, 0), NULL, I(2), &xo, &xi));
  CHECK(sched_bind(S(s2, c), xo, thread("vthread")));
  CHECK_TEXT(lowered_nest(s2, 3, a, b, c),
             "@main = primfn(A: Buffer(float32, [m]), B: Buffer(float32, [m]), "
             "C: Buffer(float32, [m])) {\n"
             "  for (i: int32, 0, m) {\n"
             "    B[i] = (A[i] + 1f32)\n"
             "  }\n"
             "  attr [IterVar(vthread: int32, (nullptr), \"ThreadIndex\", \"vthread\")] "
             "\"virtual_thread\" = 2;\n"
             "  for (i.inner: int32, 0, floordiv((m + 1), 2)) {\n"
             "    if @tir.likely((((vthread*floordiv((m + 1), 2)) + i.inner) < m), dtype=bool) {\n"
             "      C[((vthread*floordiv((m + 1), 2)) + i.inner)] = "
             "(B[((vthread*floordiv((m + 1), 2)) + i.inner)]*2f32)\n"
             "    }\n"
             "  }\n"
             "}\n");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  test_schedule_ops_default();
  test_schedule_ops_split();
  test_schedule_ops_split_nparts();
  test_schedule_ops_split_divides();
  test_schedule_ops_tile();
  test_schedule_ops_fuse();
  test_schedule_ops_reorder();
  test_schedule_ops_compute_root();
  test_schedule_ops_compute_at();
  test_schedule_ops_compute_inline();
  test_schedule_ops_reduction();
  test_schedule_ops_compute_at_allocate();
  test_schedule_ops_compute_at_stencil();
  test_schedule_ops_reduction_init();
  test_schedule_ops_annotations();
  test_schedule_ops_threads();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
