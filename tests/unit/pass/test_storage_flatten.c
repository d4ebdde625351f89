/* test_storage_flatten.c: tir.StorageFlatten (ir/pass/storage_flatten.c) on loop nests built
 * by hand: arguments indexed row-major over their shape, realizes turned into allocations of
 * the region (offset by its minimum) in the right scope, and untouched subtrees shared. */
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n, *i, *j;
static Tensor *ta, *tb;
static Buffer *buf_a, *buf_b;

static Buffer *buffer(Tensor *t) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = t->name,
                .data = ir_var(&A, t->name, DT_HANDLE64),
                .dtype = t->dtype,
                .ndim = t->ndim,
                .shape = t->shape,
                .scope = "global"};
  return b;
}

static Stmt *flatten(Stmt *s) {
  Tensor *tensors[2] = {ta, tb};
  Buffer *bufs[2] = {buf_a, buf_b};
  PassCtx ctx = {.arena = &A, .nbinds = 2, .bind_tensors = tensors, .bind_buffers = bufs};
  return pass_storage_flatten(s, &ctx);
}

static Stmt *loop(Var *v, Expr *extent, Stmt *body) {
  return ir_for(&A, v, I(0), extent, FOR_SERIAL, NULL, body);
}

static Stmt *provide(Tensor *t, Expr *value, Expr *x, Expr *y) {
  Expr *idx[2] = {x, y};
  return ir_provide(&A, t, value, t->ndim, idx);
}

static Stmt *realize(Tensor *t, Range *r, const char *scope, Stmt *body) {
  return ir_realize(&A, t, t->ndim, r, NULL, scope, body);
}

static IterVar *thread(const char *tag) {
  return ir_itervar(&A, var(tag), (Range){NULL, NULL}, ITER_THREAD, tag);
}

static void test_storage_flatten_arguments(void) {
  Stmt *s = loop(i, V(m), loop(j, V(n), provide(tb, at(ta, V(i), V(j)), V(i), V(j))));
  Range whole[2] = {{I(0), V(m)}, {I(0), V(n)}};
  CHECK_TEXT(ps(flatten(realize(tb, whole, "", s))), "for (i: int32, 0, m) {\n"
                                                     "  for (j: int32, 0, n) {\n"
                                                     "    B[((i*n) + j)] = A[((i*n) + j)]\n"
                                                     "  }\n"
                                                     "}\n");
  /* nothing to flatten: the statement itself comes back */
  Stmt *plain = loop(i, V(m), ir_evaluate(&A, V(i)));
  CHECK(flatten(plain) == plain);
}

static void test_storage_flatten_realize(void) {
  Expr *shape[2] = {V(m), V(n)};
  ComputeDef d = axes(2, shape, NULL);
  Tensor *tc = compute("C", d, F(0));
  /* C realized over one row: allocate n elements, rows counted from i */
  Range row[2] = {{V(i), I(1)}, {I(0), V(n)}};
  Stmt *body = loop(j, V(n), provide(tc, at(ta, V(i), V(j)), V(i), V(j)));
  Var *j2 = var("j");
  Stmt *use = loop(j2, V(n), provide(tb, at(tc, V(i), V(j2)), V(i), V(j2)));
  Stmt *items[2] = {body, use};
  Stmt *s = loop(i, V(m), realize(tc, row, "", ir_seq(&A, 2, items)));
  CHECK_TEXT(ps(flatten(s)),
             "for (i: int32, 0, m) {\n"
             "  allocate(C: Pointer(global float32), float32, [n]), storage_scope = global {\n"
             "    for (j: int32, 0, n) {\n"
             "      C[(((i - i)*n) + j)] = A[((i*n) + j)]\n"
             "    }\n"
             "    for (j: int32, 0, n) {\n"
             "      B[((i*n) + j)] = C[(((i - i)*n) + j)]\n"
             "    }\n"
             "  }\n"
             "}\n");
  /* constant regions allocate their element count */
  Range tile[2] = {{I(0), I(4)}, {I(2), I(8)}};
  Stmt *t = realize(tc, tile, "local", provide(tc, F(1), I(3), I(5)));
  CHECK_TEXT(ps(flatten(t)),
             "allocate(C: Pointer(local float32), float32, [32]), storage_scope = local;\n"
             "C[27] = 1f32\n");
}

/* Without a scope: shared under blockIdx, local under threadIdx (TVM's StorageFlatten). */
static void test_storage_flatten_scope(void) {
  Expr *shape[1] = {V(m)};
  ComputeDef d = axes(1, shape, NULL);
  Tensor *tc = compute("C", d, F(0));
  Range r[1] = {{I(0), I(16)}};
  Expr *zero[1] = {I(0)};
  Stmt *inner = realize(tc, r, "", ir_provide(&A, tc, F(1), 1, zero));
  IterVar *bx = thread("blockIdx.x"), *tx = thread("threadIdx.x");
  Stmt *shared = ir_attr(&A, ATTR_NODE_ITERVAR, bx, "thread_extent", I(8), inner);
  CHECK_TEXT(ps(flatten(shared)),
             "attr [IterVar(blockIdx.x: int32, (nullptr), \"ThreadIndex\", \"blockIdx.x\")] "
             "\"thread_extent\" = 8;\n"
             "allocate(C: Pointer(shared float32), float32, [16]), storage_scope = shared;\n"
             "C[0] = 1f32\n");
  Stmt *local = ir_attr(&A, ATTR_NODE_ITERVAR, bx, "thread_extent", I(8),
                        ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(32), inner));
  CHECK(strstr(ps(flatten(local)), "storage_scope = local;") != NULL);
  Stmt *given = ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(32),
                        realize(tc, r, "shared", ir_provide(&A, tc, F(1), 1, zero)));
  CHECK(strstr(ps(flatten(given)), "storage_scope = shared;") != NULL);
  CHECK(strstr(ps(flatten(inner)), "storage_scope = global;") != NULL);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  i = var("i");
  j = var("j");
  ta = placeholder("A", 2, V(m), V(n));
  tb = placeholder("B", 2, V(m), V(n));
  buf_a = buffer(ta);
  buf_b = buffer(tb);
  test_storage_flatten_arguments();
  test_storage_flatten_realize();
  test_storage_flatten_scope();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
