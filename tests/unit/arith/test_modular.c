/* test_modular.c: unit tests of ir/arith/modular.c: the coeff*k + base facts of sums,
 * products, divisions and unions, the facts bindings and constraints bring, and the
 * intersection of two facts (the Chinese remainder theorem). */
#include "arith_test.h"
#include "ir/arith/arith_impl.h" /* arith_modular_intersect */

static int mod_is(const char *text, int64_t coeff, int64_t base) {
  ModularSet m = arith_modular_set(AN, P(text));
  if (m.coeff == coeff && m.base == base) return 1;
  printf("    modular set of %s is %lld*k + %lld\n", text, (long long)m.coeff, (long long)m.base);
  return 0;
}

#define CHECK_MOD(text, coeff, base) CHECK(mod_is(text, coeff, base))

static void test_modular_arith(void) {
  world_reset();
  bind("i", 0, 16);
  bind("j", 0, 32);
  CHECK_MOD("5", 0, 5);
  CHECK_MOD("-5", 0, -5);
  CHECK_MOD("i", 1, 0);
  CHECK_MOD("(i*32)", 32, 0);
  CHECK_MOD("((i*32) + 4)", 32, 4);
  CHECK_MOD("((i*32) - 4)", 32, 28);
  CHECK_MOD("((i*32) + j)", 1, 0); /* i*32 + j with j in [0, 32): nothing modular */
  CHECK_MOD("((i*32) + (j*8))", 8, 0);
  CHECK_MOD("(((i*6) + 3)*4)", 24, 12);
  CHECK_MOD("((i*4) + 2)*((j*6) + 3)", 12, 6);
  CHECK_MOD("(i*j)", 1, 0);
  CHECK_MOD("((i*4)*(j*6))", 24, 0);
  CHECK_MOD("((i*6) - (j*4))", 2, 0);
}

static void test_modular_division(void) {
  world_reset();
  bind("i", 0, 16);
  bind("k", -8, 16);
  CHECK_MOD("floordiv((i*32), 8)", 4, 0);
  CHECK_MOD("floordiv(((i*32) + 9), 8)", 4, 1);
  CHECK_MOD("floordiv(((k*32) + 9), 8)", 4, 1); /* floor division rounds the same for any sign */
  CHECK_MOD("(((i*32) + 9) / 8)", 4, 1);         /* i*32 + 9 >= 0: truncation is floor */
  CHECK_MOD("(((k*32) + 9) / 8)", 1, 0);         /* a negative dividend truncates up */
  CHECK_MOD("floordiv((i*32), 64)", 1, 0);
  CHECK_MOD("floordiv(-9, 8)", 0, -2);
  CHECK_MOD("(-9 / 8)", 0, -1);
  CHECK_MOD("floormod(((i*32) + 9), 8)", 0, 1);
  CHECK_MOD("floormod(((i*6) + 1), 4)", 2, 1);
  CHECK_MOD("(((k*6) + 1) % 4)", 2, 1);
  CHECK_MOD("floormod(-9, 8)", 0, 7);
  CHECK_MOD("(-9 % 8)", 0, -1);
  CHECK_MOD("floormod(i, 0)", 1, 0);
}

static void test_modular_union(void) {
  world_reset();
  bind("i", 0, 16);
  bind("j", 0, 16);
  CHECK_MOD("min((i*8), ((j*4) + 4))", 4, 0);
  CHECK_MOD("max(((i*8) + 1), ((j*12) + 5))", 4, 1);
  CHECK_MOD("select((i < j), ((i*6) + 1), ((j*9) + 4))", 3, 1);
  CHECK_MOD("select((i < j), 3, 3)", 0, 3);
  CHECK_MOD("select((i < j), 3, 7)", 4, 3);
  CHECK_MOD("if_then_else((i < j), 6, 10)", 4, 2);
  CHECK_MOD("(i < j)", 1, 0);
}

static void test_modular_bind(void) {
  world_reset();
  Var *x = var("x");
  arith_bind_value(AN, x, P("((y*16) + 4)"));
  CHECK_MOD("x", 16, 4);
  CHECK_MOD("((x*2) + 1)", 32, 9);
  arith_bind(AN, var("z"), (Range){P("(y*8)"), ir_i32(&A, 1)});
  CHECK_MOD("z", 8, 0);
  Expr *let = ir_let(&A, var("t"), P("(y*6)"), P("(t + 3)"));
  ModularSet m = arith_modular_set(AN, let);
  CHECK(m.coeff == 6 && m.base == 3);
  CHECK_MOD("t", 1, 0);
  CHECK_MOD("cast(int64, x)", 16, 4);
  CHECK_MOD("cast(int8, x)", 1, 0);
}

static void test_modular_constraint(void) {
  world_reset();
  bind("i", 0, 64);
  arith_push_constraint(AN, P("(floormod(i, 4) == 1)"));
  CHECK_MOD("i", 4, 1);
  CHECK_MOD("(i*2)", 8, 2);
  arith_push_constraint(AN, P("(floormod(i, 6) == 3)"));
  CHECK_MOD("i", 12, 9); /* i = 1 (mod 4) and 3 (mod 6) */
  arith_pop_constraint(AN);
  CHECK_MOD("i", 4, 1);
  arith_pop_constraint(AN);
  CHECK_MOD("i", 1, 0);
  arith_push_constraint(AN, P("(i == 12)"));
  CHECK_MOD("i", 0, 12);
  arith_pop_constraint(AN);
  arith_push_constraint(AN, P("((i % 8) == 3)"));
  CHECK_MOD("i", 8, 3);
  arith_pop_constraint(AN);
}

static void test_modular_intersect(void) {
  ModularSet r = arith_modular_intersect((ModularSet){4, 1}, (ModularSet){6, 3});
  CHECK(r.coeff == 12 && r.base == 9);
  r = arith_modular_intersect((ModularSet){3, 2}, (ModularSet){5, 3});
  CHECK(r.coeff == 15 && r.base == 8);
  r = arith_modular_intersect((ModularSet){1, 0}, (ModularSet){7, 5});
  CHECK(r.coeff == 7 && r.base == 5);
  r = arith_modular_intersect((ModularSet){0, 9}, (ModularSet){4, 1});
  CHECK(r.coeff == 0 && r.base == 9);
  r = arith_modular_intersect((ModularSet){4, 1}, (ModularSet){0, 13});
  CHECK(r.coeff == 0 && r.base == 13);
  r = arith_modular_intersect((ModularSet){8, 3}, (ModularSet){4, 3});
  CHECK(r.coeff == 8 && r.base == 3);
  /* contradictory facts leave the first */
  r = arith_modular_intersect((ModularSet){2, 0}, (ModularSet){2, 1});
  CHECK(r.coeff == 2 && r.base == 0);
}

static void test_modular_overflow(void) {
  world_reset();
  Var *b = var_t("big", DT_I64);
  arith_bind_value(AN, b, ir_binary(&A, EXPR_MUL, ir_varref(&A, var_t("w", DT_I64)),
                                    ir_int(&A, DT_I64, INT64_C(1) << 40)));
  ModularSet m = arith_modular_set(AN, ir_binary(&A, EXPR_MUL, ir_varref(&A, b), ir_varref(&A, b)));
  CHECK(m.coeff == 1 && m.base == 0); /* 2^80 does not fit: nothing is known */
}

int main(void) {
  test_modular_arith();
  test_modular_division();
  test_modular_union();
  test_modular_bind();
  test_modular_constraint();
  test_modular_intersect();
  test_modular_overflow();
  arith_free(AN);
  arena_free(&A);
  return finish();
}
