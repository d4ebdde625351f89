/* test_int_set.c: the arithmetic under bound inference (ir/schedule/int_set.c): index
 * expressions with constants folded and like terms cancelled, proofs, and the integer
 * sets of index expressions over ranged variables. */
#include "ir/schedule/sched_impl.h"
#include "tests/unit/schedule/sched_test.h"

static Var *m, *n, *i, *j;

static void test_int_set_build(void) {
  Expr *M = V(m), *N = V(n);
  CHECK_TEXT(pe(sched_add(&A, I(2), I(3))), "5");
  CHECK_TEXT(pe(sched_add(&A, M, I(0))), "m");
  CHECK_TEXT(pe(sched_add(&A, I(0), M)), "m");
  CHECK_TEXT(pe(sched_add(&A, sched_add(&A, M, I(2)), I(-5))), "(m - 3)");
  CHECK_TEXT(pe(sched_add(&A, sched_sub(&A, M, I(1)), I(1))), "m");
  CHECK_TEXT(pe(sched_sub(&A, M, M)), "0");
  CHECK_TEXT(pe(sched_sub(&A, add(M, N), N)), "m");
  CHECK_TEXT(pe(sched_sub(&A, add(M, I(4)), add(M, I(1)))), "3");
  CHECK_TEXT(pe(sched_sub(&A, M, I(1))), "(m - 1)");
  CHECK_TEXT(pe(sched_sub(&A, M, N)), "(m - n)");
  CHECK_TEXT(pe(sched_mul(&A, M, I(1))), "m");
  CHECK_TEXT(pe(sched_mul(&A, I(0), M)), "0");
  CHECK_TEXT(pe(sched_mul(&A, I(6), I(7))), "42");
  CHECK_TEXT(pe(sched_mul(&A, M, N)), "(m*n)");
  CHECK_TEXT(pe(sched_floordiv(&A, I(-7), I(2))), "-4");
  CHECK_TEXT(pe(sched_floormod(&A, I(-7), I(2))), "1");
  CHECK_TEXT(pe(sched_floordiv(&A, M, I(1))), "m");
  CHECK_TEXT(pe(sched_floormod(&A, M, I(1))), "0");
  CHECK_TEXT(pe(sched_floordiv(&A, M, I(0))), "floordiv(m, 0)"); /* left to run time */
  CHECK_TEXT(pe(sched_ceil_div(&A, M, I(32))), "floordiv((m + 31), 32)");
  CHECK_TEXT(pe(sched_ceil_div(&A, I(1024), I(32))), "32");
  CHECK_TEXT(pe(sched_ceil_div(&A, I(1000), I(32))), "32");
  CHECK_TEXT(pe(sched_ceil_div(&A, M, N)), "floordiv(((m + n) - 1), n)");
  CHECK_TEXT(pe(sched_min(&A, M, sched_add(&A, M, I(1)))), "m");
  CHECK_TEXT(pe(sched_max(&A, M, sched_add(&A, M, I(1)))), "(m + 1)");
  CHECK_TEXT(pe(sched_min(&A, M, N)), "min(m, n)");
  /* int32 wraps as the machine does */
  CHECK_TEXT(pe(sched_add(&A, I(2147483647), I(1))), "-2147483648");
}

static void test_int_set_prove(void) {
  Expr *M = V(m), *N = V(n);
  CHECK(sched_prove_lt(sched_sub(&A, M, I(1)), M));
  CHECK(!sched_prove_lt(M, M) && sched_prove_le(M, M) && sched_prove_eq(M, M));
  CHECK(sched_prove_eq(mul(add(M, I(1)), I(2)), add(mul(I(2), M), I(2))));
  CHECK(!sched_prove_lt(M, N) && !sched_prove_le(M, N));
  CHECK(!sched_prove_lt(M, add(M, N))); /* n may be negative */
  CHECK(sched_prove_eq(mul(M, N), add(mul(M, N), I(0))));
  CHECK(!sched_prove_eq(mul(M, N), mul(N, M))); /* not proven, which is allowed */
  CHECK(!sched_prove_lt(F(1), F(2)));           /* floats are never compared */
}

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

static void test_int_set_eval(void) {
  PtrMap sets;
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, i, set(I(0), sub(V(m), I(1)))); /* i in [0, m - 1] */
  ptrmap_put(&sets, j, set(V(n), V(n)));            /* j is n */
  Expr *I_ = V(i), *J = V(j);
  CHECK_TEXT(ps_set(sched_eval_set(&A, I_, &sets)), "[0, (m - 1)]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, J, &sets)), "[n, n]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, V(m), &sets)), "[m, m]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, add(I_, I(1)), &sets)), "[1, m]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, sub(I(10), I_), &sets)), "[(11 - m), 10]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, mul(I_, I(-2)), &sets)), "[((m - 1)*-2), 0]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, add(mul(I_, I(4)), J), &sets)), "[n, (((m - 1)*4) + n)]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, ir_binary(&A, EXPR_FLOORDIV, I_, I(8)), &sets)),
             "[0, floordiv((m - 1), 8)]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, ir_binary(&A, EXPR_FLOORMOD, I_, I(8)), &sets)), "[0, 7]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, ir_binary(&A, EXPR_DIV, I_, I(8)), &sets)),
             "[0, floordiv((m - 1), 8)]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, ir_binary(&A, EXPR_MIN, I_, I(3)), &sets)),
             "[0, min((m - 1), 3)]");
  /* a product of two varying values, or anything not arithmetic, is unbounded */
  CHECK_TEXT(ps_set(sched_eval_set(&A, mul(I_, I_), &sets)), "[-inf, +inf]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, mul(I_, V(n)), &sets)), "[-inf, +inf]");
  CHECK_TEXT(ps_set(sched_eval_set(&A, ir_select(&A, ir_binary(&A, EXPR_LT, I_, I(2)), I(0), I(1)),
                                   &sets)),
             "[-inf, +inf]");
  /* ... unless every variable in it is fixed: then it is a point, with the points put in */
  Tensor *t = placeholder("T", 1, V(m));
  CHECK_TEXT(ps_set(sched_eval_set(&A, ir_cast(&A, DT_I32, at(t, add(J, I(1)))), &sets)),
             "[cast(int32, T[(n + 1)]), cast(int32, T[(n + 1)])]");
  Expr *fixed = mul(J, V(m));
  IntSet pt = sched_eval_set(&A, fixed, &sets);
  CHECK(sched_set_is_point(pt) && pt.min == pt.max);

  Range r = {I(0), V(m)};
  CHECK(sched_set_matches(sched_eval_set(&A, I_, &sets), r));
  CHECK(!sched_set_matches(sched_eval_set(&A, add(I_, I(1)), &sets), r));
  Range c = sched_set_cover(&A, sched_eval_set(&A, add(I_, I(1)), &sets), r);
  CHECK_TEXT(pe(c.min), "1");
  CHECK_TEXT(pe(c.extent), "m");
  c = sched_set_cover(&A, (IntSet){NULL, V(m)}, r);
  CHECK(c.min == r.min && c.extent == r.extent);
  c = sched_set_cover(&A, sched_set_point(J), r);
  CHECK_TEXT(pe(c.extent), "1");
  IntSet u = sched_set_union(&A, sched_set_point(J), sched_set_point(add(J, I(2))));
  CHECK_TEXT(ps_set(u), "[j, (j + 2)]");
  CHECK_TEXT(ps_set(sched_set_range(&A, (Range){V(i), I(3)})), "[i, (i + 2)]");
  CHECK(sched_set_is_point(sched_set_range(&A, (Range){V(i), I(1)})));
}

/* Relaxing: a variable whose set mentions another variable of the map (a loop whose extent
 * depends on an outer loop) is relaxed through it, where sched_eval_set keeps it symbolic. */
static void test_int_set_relax(void) {
  PtrMap sets;
  ptrmap_init(&sets, &A);
  ptrmap_put(&sets, i, set(I(0), sub(I(4), V(j)))); /* i in [0, 4 - j] */
  ptrmap_put(&sets, j, set(I(0), I(3)));            /* j in [0, 3] */
  CHECK_TEXT(ps_set(sched_eval_set(&A, add(V(i), V(j)), &sets)), "[0, ((4 - j) + 3)]");
  CHECK_TEXT(ps_set(sched_relax_set(&A, add(V(i), V(j)), &sets)), "[0, 7]");
  CHECK_TEXT(ps_set(sched_relax_set(&A, V(i), &sets)), "[0, 4]");
  /* a point that is another relaxed variable, and a point that is the variable itself */
  PtrMap pts;
  ptrmap_init(&pts, &A);
  ptrmap_put(&pts, i, set(add(V(j), I(1)), add(V(j), I(1))));
  ptrmap_put(&pts, j, set(V(m), sub(V(m), I(1))));
  ptrmap_put(&pts, m, set(V(m), V(m)));
  CHECK_TEXT(ps_set(sched_relax_set(&A, mul(V(i), I(2)), &pts)), "[((m + 1)*2), (m*2)]");
  CHECK_TEXT(ps_set(sched_relax_set(&A, V(m), &pts)), "[m, m]");
  /* a cycle, which no schedule makes, ends unbounded */
  PtrMap cyc;
  ptrmap_init(&cyc, &A);
  ptrmap_put(&cyc, i, set(V(j), V(j)));
  ptrmap_put(&cyc, j, set(V(i), add(V(i), I(1))));
  CHECK_TEXT(ps_set(sched_relax_set(&A, V(i), &cyc)), "[-inf, +inf]");
}

int main(void) {
  arena_init(&A);
  m = var("m");
  n = var("n");
  i = var("i");
  j = var("j");
  test_int_set_build();
  test_int_set_prove();
  test_int_set_eval();
  test_int_set_relax();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
