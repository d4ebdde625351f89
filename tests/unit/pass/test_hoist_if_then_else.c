/* test_hoist_if_then_else.c: tir.HoistIfThenElse (ir/pass/hoist_if_then_else.c): guards move
 * out of the loops they do not depend on and stop at the loop they do, at a statement
 * sequence, at thread indices and at conditions without variables or reading memory. */
#include "tests/unit/schedule/sched_test.h"

static Var *m, *io, *jo, *ii, *ji;
static Buffer *buf_b;

static Stmt *hoist(Stmt *s) {
  PassCtx ctx = {.arena = &A};
  return pass_hoist_if_then_else(s, &ctx);
}

static Stmt *loop(Var *v, Stmt *body) { return ir_for(&A, v, I(0), I(4), FOR_SERIAL, NULL, body); }
static Expr *lt(Expr *x, Expr *y) { return ir_binary(&A, EXPR_LT, x, y); }
static Expr *likely(Expr *c) { return ir_call(&A, DT_BOOL1, "tir.likely", CALL_PURE, 1, &c); }
static Stmt *when(Expr *c, Stmt *then) { return ir_if(&A, c, then, NULL); }
static Stmt *store(Expr *v) { return ir_store(&A, buf_b, v, I(0), NULL); }

/* the tile of seeds/004_*.txt: the row guard goes above the column loop */
static void test_hoist_if_then_else_tile(void) {
  Expr *row = likely(lt(add(mul(V(io), I(10)), V(ii)), V(m)));
  Expr *col = likely(lt(add(mul(V(jo), I(5)), V(ji)), V(m)));
  Stmt *s = loop(io, loop(jo, loop(ii, loop(ji, when(row, when(col, store(F(1))))))));
  CHECK_TEXT(ps(hoist(s)), "for (io: int32, 0, 4) {\n"
                           "  for (jo: int32, 0, 4) {\n"
                           "    for (ii: int32, 0, 4) {\n"
                           "      if @tir.likely((((io*10) + ii) < m), dtype=bool) {\n"
                           "        for (ji: int32, 0, 4) {\n"
                           "          if @tir.likely((((jo*5) + ji) < m), dtype=bool) {\n"
                           "            B[0] = 1f32\n"
                           "          }\n"
                           "        }\n"
                           "      }\n"
                           "    }\n"
                           "  }\n"
                           "}\n");
  /* a guard on the outermost loop alone goes right inside it */
  Stmt *t = loop(io, loop(jo, when(lt(V(io), V(m)), store(F(1)))));
  CHECK_TEXT(ps(hoist(t)), "for (io: int32, 0, 4) {\n"
                           "  if (io < m) {\n"
                           "    for (jo: int32, 0, 4) {\n"
                           "      B[0] = 1f32\n"
                           "    }\n"
                           "  }\n"
                           "}\n");
}

static void test_hoist_if_then_else_else(void) {
  Stmt *s = loop(ii, ir_if(&A, lt(V(m), I(3)), store(F(1)), store(F(2))));
  CHECK_TEXT(ps(hoist(s)), "if (m < 3) {\n"
                           "  for (ii: int32, 0, 4) {\n"
                           "    B[0] = 1f32\n"
                           "  }\n"
                           "} else {\n"
                           "  for (ii, 0, 4) {\n"
                           "    B[0] = 2f32\n"
                           "  }\n"
                           "}\n");
}

static void test_hoist_if_then_else_stays(void) {
  /* depends on its loop */
  Stmt *own = loop(ii, when(lt(V(ii), V(m)), store(F(1))));
  CHECK(hoist(own) == own);
  /* no variables */
  Stmt *none = loop(ii, when(lt(I(1), I(2)), store(F(1))));
  CHECK(hoist(none) == none);
  /* a sequence in between */
  Stmt *items[2] = {store(F(0)), when(lt(V(m), I(3)), store(F(1)))};
  Stmt *seq = loop(ii, ir_seq(&A, 2, items));
  CHECK(hoist(seq) == seq);
  /* a thread index */
  IterVar *tx = ir_itervar(&A, var("threadIdx.x"), (Range){NULL, NULL}, ITER_THREAD, "threadIdx.x");
  Stmt *thr = ir_attr(&A, ATTR_NODE_ITERVAR, tx, "thread_extent", I(32),
                      loop(ii, when(lt(V(tx->var), V(m)), store(F(1)))));
  CHECK(hoist(thr) == thr);
  /* memory */
  Expr *read = ir_load(&A, buf_b, I(0), NULL);
  Stmt *mem = loop(ii, when(ir_binary(&A, EXPR_LT, read, ir_float(&A, DT_F32, 1)), store(F(1))));
  CHECK(hoist(mem) == mem);
}

int main(void) {
  arena_init(&A);
  m = var("m");
  io = var("io");
  jo = var("jo");
  ii = var("ii");
  ji = var("ji");
  buf_b = arena_alloc(&A, sizeof *buf_b);
  *buf_b = (Buffer){.name = "B", .data = ir_var(&A, "B", DT_HANDLE64), .dtype = DT_F32};
  test_hoist_if_then_else_tile();
  test_hoist_if_then_else_else();
  test_hoist_if_then_else_stays();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
