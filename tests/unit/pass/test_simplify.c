/* test_simplify.c: tir.Simplify (ir/pass/simplify.c): expressions simplified under what the
 * loops, thread extents, lets and conditions around them tell, folded branches, lets and
 * empty loops dropped, and statements nothing changed in shared. */
#include "tests/unit/schedule/sched_test.h"

static Var *m, *i, *j;
static Buffer *buf_a, *buf_b;

static Buffer *buffer(const char *name) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){
      .name = name, .data = ir_var(&A, name, DT_HANDLE64), .dtype = DT_F32, .scope = "global"};
  return b;
}

static Stmt *simplify(Stmt *s) {
  PassCtx ctx = {.arena = &A};
  return pass_simplify(s, &ctx);
}

static Stmt *loop(Var *v, Expr *extent, Stmt *body) {
  return ir_for(&A, v, I(0), extent, FOR_SERIAL, NULL, body);
}

static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }
static Expr *lt(Expr *x, Expr *y) { return ir_binary(&A, EXPR_LT, x, y); }
static Expr *likely(Expr *c) { return ir_call(&A, DT_BOOL1, "tir.likely", CALL_PURE, 1, &c); }

static void test_simplify_indices(void) {
  /* what storage_flatten leaves of a one-row realize */
  Expr *idx = add(mul(sub(V(i), V(i)), V(m)), V(j));
  CHECK_TEXT(ps(simplify(store(buf_b, idx, load(buf_a, add(V(j), I(0)))))), "B[j] = A[j]\n");
  Stmt *same = loop(i, V(m), store(buf_b, V(i), load(buf_a, V(i))));
  CHECK(simplify(same) == same);
}

static void test_simplify_conditions(void) {
  /* the loop proves its own bound */
  Stmt *guarded =
      loop(i, I(10), ir_if(&A, likely(lt(V(i), I(10))), store(buf_b, V(i), F(1)), NULL));
  CHECK_TEXT(ps(simplify(guarded)), "for (i: int32, 0, 10) {\n  B[i] = 1f32\n}\n");
  /* ... but not a bound it does not know */
  Stmt *open = loop(i, V(m), ir_if(&A, likely(lt(V(i), I(10))), store(buf_b, V(i), F(1)), NULL));
  CHECK(simplify(open) == open);
  /* a condition holds in its branch */
  Stmt *inner = ir_if(&A, lt(V(i), V(m)), store(buf_b, V(i), F(2)), NULL);
  Stmt *outer = ir_if(&A, likely(lt(V(i), V(m))), inner, store(buf_b, V(i), F(3)));
  CHECK_TEXT(ps(simplify(outer)), "if @tir.likely((i < m), dtype=bool) {\n"
                                  "  B[i] = 2f32\n"
                                  "} else {\n"
                                  "  B[i] = 3f32\n"
                                  "}\n");
  /* constant conditions pick their branch */
  Stmt *no = ir_if(&A, lt(I(3), I(2)), store(buf_b, V(i), F(2)), store(buf_b, V(i), F(3)));
  CHECK_TEXT(ps(simplify(no)), "B[i] = 3f32\n");
  Stmt *none = ir_if(&A, lt(I(3), I(2)), store(buf_b, V(i), F(2)), NULL);
  CHECK_TEXT(ps(simplify(none)), "");
  /* a thread's extent bounds its index */
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  Stmt *t = ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(64),
                    ir_if(&A, likely(lt(V(tx->var), I(64))), store(buf_b, V(tx->var), F(1)), NULL));
  CHECK_TEXT(ps(simplify(t)),
             "attr [IterVar(threadIdx.x: int32, (nullptr), \"ThreadIndex\", \"threadIdx.x\")] "
             "\"thread_extent\" = 64;\n"
             "B[threadIdx.x] = 1f32\n");
}

static void test_simplify_lets_and_stores(void) {
  Var *x = var("x"), *y = var("y");
  Stmt *let = ir_let_stmt(&A, x, add(I(1), I(2)), store(buf_b, add(V(x), V(i)), F(1)));
  CHECK_TEXT(ps(simplify(let)), "B[(i + 3)] = 1f32\n");
  Stmt *kept = ir_let_stmt(&A, y, mul(V(i), V(m)), store(buf_b, add(V(y), I(0)), F(1)));
  CHECK_TEXT(ps(simplify(kept)), "let y: int32 = (i*m)\nB[y] = 1f32\n");
  /* A[i] = A[i] does nothing, nor does a loop of it */
  CHECK_TEXT(
      ps(simplify(loop(i, V(m), store(buf_a, sub(add(V(i), I(1)), I(1)), load(buf_a, V(i)))))),
      "");
}

/* The parts tir.LoopPartition may leave: a loop of no iterations, a loop whose body folded to
 * nothing; the statements around them stay. */
static void test_simplify_empty_loops(void) {
  Stmt *keep = store(buf_b, V(j), F(1));
  Stmt *none = loop(i, sub(V(m), V(m)), store(buf_b, V(i), F(2)));
  Stmt *items[2] = {keep, none};
  CHECK_TEXT(ps(simplify(ir_seq(&A, 2, items))), "B[j] = 1f32\n");
  CHECK_TEXT(ps(simplify(loop(i, I(-3), store(buf_b, V(i), F(2))))), "");
  Stmt *dead = loop(i, I(10), ir_if(&A, lt(V(i), I(0)), store(buf_b, V(i), F(2)), NULL));
  CHECK_TEXT(ps(simplify(loop(j, V(m), dead))), "");
  Stmt *some = loop(i, I(10), ir_if(&A, lt(V(i), I(1)), store(buf_b, V(i), F(2)), NULL));
  CHECK_TEXT(ps(simplify(some)), "for (i: int32, 0, 10) {\n  if (i < 1) {\n    B[i] = 2f32\n  }\n}\n");
  Stmt *call = loop(i, I(4), ir_evaluate(&A, I(0)));
  CHECK_TEXT(ps(simplify(call)), "");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  i = var("i");
  j = var("j");
  buf_a = buffer("A");
  buf_b = buffer("B");
  test_simplify_indices();
  test_simplify_conditions();
  test_simplify_lets_and_stores();
  test_simplify_empty_loops();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
