/* test_int_set.c: the integer sets of bound inference (ir/schedule/int_set.c): bounds written
 * and compared by an analyzer that knows no variable, and the sets of index expressions over
 * ranged variables. */
#include "ir/schedule/sched_impl.h"
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n, *i, *j;

static IntSet *set(Expr *lo, Expr *hi) {
  IntSet *s = arena_alloc(&A, sizeof *s);
  *s = (IntSet){lo, hi};
  return s;
}

static const char *ps_set(IntSet s) {
  reset();
  sb_putc(&sb, '[');
  if (s.min)
    ir_print_expr(&sb, s.min);
  else
    sb_puts(&sb, "-inf");
  sb_puts(&sb, ", ");
  if (s.max)
    ir_print_expr(&sb, s.max);
  else
    sb_puts(&sb, "+inf");
  sb_putc(&sb, ']');
  return sb_cstr(&sb);
}

static Analyzer *an;

/* Bounds are written by the analyzer: constants fold (wrapping to the dtype), offsets merge,
 * like terms cancel, and a min or max the analyzer can decide is gone. */
static void test_int_set_fold(void) {
  Expr *M = V(m), *N = V(n);
  CHECK_TEXT(ps_set(sched_set_range(an, (Range){add(M, I(2)), I(4)})), "[(m + 2), (m + 5)]");
  CHECK_TEXT(ps_set(sched_set_range(an, (Range){I(0), sub(M, I(1))})), "[0, (m - 2)]");
  CHECK_TEXT(ps_set(sched_set_range(an, (Range){mul(M, I(4)), I(4)})), "[(m*4), ((m*4) + 3)]");
  CHECK_TEXT(ps_set(sched_set_range(an, (Range){I(2147483647), I(2)})),
             "[2147483647, -2147483648]"); /* int32 wraps as the machine does */
  Range c = sched_set_cover(an, (IntSet){add(M, N), add(add(N, I(3)), M)}, (Range){I(0), I(1)});
  CHECK_TEXT(pe(c.extent), "4");
  IntSet u = sched_set_union(an, (IntSet){M, add(M, I(3))}, (IntSet){add(M, I(1)), add(M, I(7))});
  CHECK_TEXT(ps_set(u), "[m, (m + 7)]");
  u = sched_set_union(an, (IntSet){M, M}, (IntSet){N, N});
  CHECK_TEXT(ps_set(u), "[min(m, n), max(m, n)]");
}

/* Whether a set is a range is the analyzer's proof: forms that differ only in order or in
 * how a constant is written match; what may differ for some values does not. */
static void test_int_set_prove(void) {
  Expr *M = V(m), *N = V(n);
  Range r = {mul(M, N), add(M, I(1))};
  CHECK(sched_set_matches(an, (IntSet){mul(N, M), add(mul(M, N), M)}, r));
  CHECK(sched_set_matches(an, (IntSet){mul(M, N), sub(add(add(mul(M, N), I(1)), M), I(1))}, r));
  CHECK(!sched_set_matches(an, (IntSet){mul(M, N), add(mul(M, N), N)}, r));
  CHECK(!sched_set_matches(an, (IntSet){NULL, add(mul(M, N), M)}, r));
  /* floor division by a constant has bounds the analyzer knows */
  Expr *q = ir_binary(&A, EXPR_FLOORMOD, M, I(8));
  CHECK(sched_set_matches(an, (IntSet){I(0), q}, (Range){I(0), add(q, I(1))}));
}

static void test_int_set_eval(void) {
  PtrMap sets;
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, i, set(I(0), sub(V(m), I(1)))); /* i in [0, m - 1] */
  ptrmap_put(&sets, j, set(V(n), V(n)));            /* j is n */
  Expr *I_ = V(i), *J = V(j);
  CHECK_TEXT(ps_set(sched_eval_set(an, I_, &sets)), "[0, (m - 1)]");
  CHECK_TEXT(ps_set(sched_eval_set(an, J, &sets)), "[n, n]");
  CHECK_TEXT(ps_set(sched_eval_set(an, V(m), &sets)), "[m, m]");
  CHECK_TEXT(ps_set(sched_eval_set(an, add(I_, I(1)), &sets)), "[1, m]");
  CHECK_TEXT(ps_set(sched_eval_set(an, sub(I(10), I_), &sets)), "[(11 - m), 10]");
  CHECK_TEXT(ps_set(sched_eval_set(an, mul(I_, I(-2)), &sets)), "[(2 - (m*2)), 0]");
  CHECK_TEXT(ps_set(sched_eval_set(an, add(mul(I_, I(4)), J), &sets)), "[n, (((m*4) + n) - 4)]");
  CHECK_TEXT(ps_set(sched_eval_set(an, ir_binary(&A, EXPR_FLOORDIV, I_, I(8)), &sets)),
             "[0, floordiv((m - 1), 8)]");
  CHECK_TEXT(ps_set(sched_eval_set(an, ir_binary(&A, EXPR_FLOORMOD, I_, I(8)), &sets)), "[0, 7]");
  CHECK_TEXT(ps_set(sched_eval_set(an, ir_binary(&A, EXPR_DIV, I_, I(8)), &sets)),
             "[0, floordiv((m - 1), 8)]");
  CHECK_TEXT(ps_set(sched_eval_set(an, ir_binary(&A, EXPR_MIN, I_, I(3)), &sets)),
             "[0, min((m - 1), 3)]");
  /* a product of two varying values, or anything not arithmetic, is unbounded */
  CHECK_TEXT(ps_set(sched_eval_set(an, mul(I_, I_), &sets)), "[-inf, +inf]");
  CHECK_TEXT(ps_set(sched_eval_set(an, mul(I_, V(n)), &sets)), "[-inf, +inf]");
  CHECK_TEXT(ps_set(sched_eval_set(an, ir_select(&A, ir_binary(&A, EXPR_LT, I_, I(2)), I(0), I(1)),
                                   &sets)),
             "[-inf, +inf]");
  /* ... unless every variable in it is fixed: then it is a point, with the points put in */
  Tensor *t = placeholder("T", 1, V(m));
  CHECK_TEXT(ps_set(sched_eval_set(an, ir_cast(&A, DT_I32, at(t, add(J, I(1)))), &sets)),
             "[cast(int32, T[(n + 1)]), cast(int32, T[(n + 1)])]");
  Expr *fixed = mul(J, V(m));
  IntSet pt = sched_eval_set(an, fixed, &sets);
  CHECK(sched_set_is_point(pt) && pt.min == pt.max);

  Range r = {I(0), V(m)};
  CHECK(sched_set_matches(an, sched_eval_set(an, I_, &sets), r));
  CHECK(!sched_set_matches(an, sched_eval_set(an, add(I_, I(1)), &sets), r));
  Range c = sched_set_cover(an, sched_eval_set(an, add(I_, I(1)), &sets), r);
  CHECK_TEXT(pe(c.min), "1");
  CHECK_TEXT(pe(c.extent), "m");
  c = sched_set_cover(an, (IntSet){NULL, V(m)}, r);
  CHECK(c.min == r.min && c.extent == r.extent);
  c = sched_set_cover(an, sched_set_point(J), r);
  CHECK_TEXT(pe(c.extent), "1");
  IntSet u = sched_set_union(an, sched_set_point(J), sched_set_point(add(J, I(2))));
  CHECK_TEXT(ps_set(u), "[j, (j + 2)]");
  CHECK_TEXT(ps_set(sched_set_range(an, (Range){V(i), I(3)})), "[i, (i + 2)]");
  CHECK(sched_set_is_point(sched_set_range(an, (Range){V(i), I(1)})));
}

/* Relaxing: a variable whose set mentions another variable of the map (a loop whose extent
 * depends on an outer loop) is relaxed through it, where sched_eval_set keeps it symbolic. */
static void test_int_set_relax(void) {
  PtrMap sets;
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, i, set(I(0), sub(I(4), V(j)))); /* i in [0, 4 - j] */
  ptrmap_put(&sets, j, set(I(0), I(3)));            /* j in [0, 3] */
  CHECK_TEXT(ps_set(sched_eval_set(an, add(V(i), V(j)), &sets)), "[0, (7 - j)]");
  CHECK_TEXT(ps_set(sched_relax_set(an, add(V(i), V(j)), &sets)), "[0, 7]");
  CHECK_TEXT(ps_set(sched_relax_set(an, V(i), &sets)), "[0, 4]");
  /* a point that is another relaxed variable, and a point that is the variable itself */
  PtrMap pts;
  ptrmap_init(&pts, &A);
  ptrmap_put(&pts, i, set(add(V(j), I(1)), add(V(j), I(1))));
  ptrmap_put(&pts, j, set(V(m), sub(V(m), I(1))));
  ptrmap_put(&pts, m, set(V(m), V(m)));
  CHECK_TEXT(ps_set(sched_relax_set(an, mul(V(i), I(2)), &pts)), "[((m*2) + 2), (m*2)]");
  CHECK_TEXT(ps_set(sched_relax_set(an, V(m), &pts)), "[m, m]");
  /* a cycle, which no schedule makes, ends unbounded */
  PtrMap cyc;
  ptrmap_init(&cyc, &A);
  ptrmap_put(&cyc, i, set(V(j), V(j)));
  ptrmap_put(&cyc, j, set(V(i), add(V(i), I(1))));
  CHECK_TEXT(ps_set(sched_relax_set(an, V(i), &cyc)), "[-inf, +inf]");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  i = var("i");
  j = var("j");
  an = arith_new(&A);
  test_int_set_fold();
  test_int_set_prove();
  test_int_set_eval();
  test_int_set_relax();
  arith_free(an);
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
