/* test_expr.c: unit tests of ir/expr.c (the constructors, their dtype checks, ir_seq's
 * flattening, constant tests, structural equality, the kind-name tables) and of the dtype
 * names of ir/dtype.c, which every constructor test leans on. */
#include <stdio.h>
#include <string.h>

#include "ir/expr.h"
#include "ir/tensor.h"
#include "tests/unit/check.h"

static Arena A;

static bool parses_as(const char *name, DType want) {
  DType t;
  return dt_parse(name, &t) && dt_eq(t, want);
}

static bool names_as(DType t, const char *want) {
  char buf[32];
  return strcmp(dt_name(t, buf), want) == 0;
}

static void test_dtype_names(void) {
  CHECK(parses_as("float32", DT_F32));
  CHECK(parses_as("float", DT_F32));
  CHECK(parses_as("int", DT_I32));
  CHECK(parses_as("int64", DT_I64));
  CHECK(parses_as("int8", DT_MAKE(DT_INT, 8, 1)));
  CHECK(parses_as("uint8", DT_MAKE(DT_UINT, 8, 1)));
  CHECK(parses_as("bool", DT_BOOL1));
  CHECK(parses_as("uint1", DT_BOOL1)); /* TVM's bool is uint1 */
  CHECK(parses_as("handle", DT_HANDLE64));
  CHECK(parses_as("float32x4", DT_MAKE(DT_FLOAT, 32, 4)));
  CHECK(parses_as("float16x8", DT_MAKE(DT_FLOAT, 16, 8)));
  CHECK(parses_as("int32x16", DT_MAKE(DT_INT, 32, 16)));
  const char *bad[] = {"",          "float31",         "floaty", "int65",  "int0",    "bool8",
                       "float32x",  "float32x0",       "x4",     "int32 ", "Float32", "handle32",
                       "int32x4x4", "float99999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    DType t;
    if (dt_parse(bad[i], &t)) printf("accepted bad dtype '%s'\n", bad[i]);
    CHECK(!dt_parse(bad[i], &t));
  }
  CHECK(names_as(DT_F32, "float32"));
  CHECK(names_as(DT_MAKE(DT_FLOAT, 32, 16), "float32x16"));
  CHECK(names_as(DT_MAKE(DT_UINT, 64, 1), "uint64"));
  CHECK(names_as(DT_BOOL1, "bool"));
  CHECK(names_as(DT_MAKE(DT_BOOL, 1, 4), "uint1x4")); /* as TVM writes a bool vector */
  CHECK(parses_as("uint1x4", DT_MAKE(DT_BOOL, 1, 4)));
  CHECK(names_as(DT_HANDLE64, "handle"));
}

/* The C back end's source and an exported library's header (abi) name types differently. */
static void test_dtype_c_names(void) {
  CHECK(strcmp(dt_c_name(DT_MAKE(DT_INT, 8, 1), false), "int8_t") == 0);
  CHECK(strcmp(dt_c_name(DT_MAKE(DT_UINT, 16, 1), true), "uint16_t") == 0);
  CHECK(strcmp(dt_c_name(DT_I64, true), "int64_t") == 0);
  CHECK(strcmp(dt_c_name(DT_F32, false), "float") == 0);
  CHECK(strcmp(dt_c_name(DT_F64, true), "double") == 0);
  CHECK(strcmp(dt_c_name(DT_MAKE(DT_FLOAT, 16, 1), false), "_Float16") == 0);
  CHECK(strcmp(dt_c_name(DT_MAKE(DT_FLOAT, 16, 1), true), "uint16_t") == 0);
  CHECK(strcmp(dt_c_name(DT_BOOL1, false), "bool") == 0);
  CHECK(strcmp(dt_c_name(DT_BOOL1, true), "uint8_t") == 0);
  CHECK(strcmp(dt_c_name(DT_HANDLE64, false), "void *") == 0);
  CHECK(strcmp(dt_c_name(DT_HANDLE64, true), "void") == 0);
}

static void test_expr_kind_names(void) {
  CHECK(strcmp(ir_expr_kind_names[EXPR_INT], "INT") == 0);
  CHECK(strcmp(ir_expr_kind_names[EXPR_PRODUCER_LOAD], "PRODUCER_LOAD") == 0);
  CHECK(strcmp(ir_expr_kind_names[EXPR_REDUCE], "REDUCE") == 0);
  CHECK(strcmp(ir_stmt_kind_names[STMT_FOR], "FOR") == 0);
  CHECK(strcmp(ir_stmt_kind_names[STMT_EVALUATE], "EVALUATE") == 0);
}

static void test_expr_vars(void) {
  Var *i = ir_var(&A, "i", DT_I32), *j = ir_var(&A, "i", DT_I32);
  CHECK(i != j && i->id < j->id);
  char name[] = "tmp";
  Var *t = ir_var(&A, name, DT_F32);
  name[0] = 'x'; /* names are copied */
  CHECK(strcmp(t->name, "tmp") == 0);
  Expr *r = ir_varref(&A, t);
  CHECK(r->kind == EXPR_VAR && r->u.var == t && dt_eq(r->dtype, DT_F32));
}

static void test_expr_constants(void) {
  CHECK(dt_eq(ir_i32(&A, 3)->dtype, DT_I32));
  CHECK(ir_float(&A, DT_F64, 0.5)->u.fval == 0.5);
  CHECK(ir_str(&A, "x")->dtype.code == DT_HANDLE);
  int64_t v = 0;
  CHECK(ir_as_int(ir_int(&A, DT_I64, -7), &v) && v == -7);
  CHECK(ir_as_int(ir_broadcast(&A, ir_i32(&A, 5), 4), &v) && v == 5);
  CHECK(!ir_as_int(ir_float(&A, DT_F32, 1.0), &v));
  CHECK(ir_is_const_int(ir_int(&A, DT_BOOL1, 1), 1));
  CHECK(!ir_is_const_int(ir_i32(&A, 2), 1));
  CHECK(!ir_is_const_int(ir_varref(&A, ir_var(&A, "n", DT_I32)), 0));
}

static void test_expr_binary_dtypes(void) {
  Expr *x = ir_varref(&A, ir_var(&A, "x", DT_F32)), *y = ir_float(&A, DT_F32, 2);
  CHECK(dt_eq(ir_binary(&A, EXPR_MUL, x, y)->dtype, DT_F32));
  CHECK(dt_eq(ir_binary(&A, EXPR_LT, x, y)->dtype, DT_BOOL1));
  Expr *r = ir_ramp(&A, ir_i32(&A, 0), ir_i32(&A, 1), 4);
  CHECK(dt_eq(r->dtype, DT_MAKE(DT_INT, 32, 4)));
  Expr *b = ir_broadcast(&A, ir_i32(&A, 3), 4);
  CHECK(dt_eq(b->dtype, DT_MAKE(DT_INT, 32, 4)));
  Expr *eq = ir_binary(&A, EXPR_EQ, r, b);
  CHECK(dt_eq(eq->dtype, DT_MAKE(DT_BOOL, 1, 4))); /* compares keep the lanes */
  Expr *both = ir_binary(&A, EXPR_AND, eq, eq);
  CHECK(dt_eq(both->dtype, eq->dtype));
  CHECK(dt_eq(ir_not(&A, both)->dtype, eq->dtype));
  Expr *sel = ir_select(&A, ir_binary(&A, EXPR_LT, x, y), x, y);
  CHECK(sel->kind == EXPR_SELECT && dt_eq(sel->dtype, DT_F32));
  Expr *c = ir_cast(&A, DT_I32, x);
  CHECK(c->kind == EXPR_CAST && dt_eq(c->dtype, DT_I32) && c->u.unary.a == x);
  Var *t = ir_var(&A, "t", DT_F32);
  Expr *let = ir_let(&A, t, y, ir_binary(&A, EXPR_LT, ir_varref(&A, t), x));
  CHECK(dt_eq(let->dtype, DT_BOOL1));
}

static Buffer buf_b = {.name = "B", .dtype = DT_F32, .ndim = 1};
static Expr *shape_mn[2];
static Tensor tensor_a = {.name = "A", .dtype = DT_F32, .ndim = 2, .shape = shape_mn};

static void test_expr_memory(void) {
  Expr *l = ir_load(&A, &buf_b, ir_ramp(&A, ir_i32(&A, 0), ir_i32(&A, 1), 8), NULL);
  CHECK(dt_eq(l->dtype, DT_MAKE(DT_FLOAT, 32, 8))); /* a ramp index loads a vector */
  CHECK(dt_eq(ir_load(&A, &buf_b, ir_i32(&A, 3), NULL)->dtype, DT_F32));
  Expr *idx[2] = {ir_i32(&A, 1), ir_i32(&A, 2)};
  Expr *p = ir_pload(&A, &tensor_a, 2, idx);
  idx[0] = NULL; /* indices are copied */
  CHECK(p->kind == EXPR_PRODUCER_LOAD && p->u.pload.indices[0] && dt_eq(p->dtype, DT_F32));
  Expr *args[1] = {ir_float(&A, DT_F32, 1)};
  Expr *call = ir_call(&A, DT_F32, "tir.exp", CALL_PURE, 1, args);
  args[0] = NULL;
  CHECK(call->u.call.n == 1 && call->u.call.args[0] && strcmp(call->u.call.op, "tir.exp") == 0);
}

static void test_expr_reduce(void) {
  Var *x = ir_var(&A, "x", DT_F32), *y = ir_var(&A, "y", DT_F32);
  Expr *sum = ir_binary(&A, EXPR_ADD, ir_varref(&A, x), ir_varref(&A, y));
  Expr *zero = ir_float(&A, DT_F32, 0);
  CommReducer c = {"sum", 1, &x, &y, &sum, &zero};
  IterVar *k = ir_itervar(&A, ir_var(&A, "k", DT_I32), (Range){ir_i32(&A, 0), ir_i32(&A, 10)},
                          ITER_REDUCE, NULL);
  Expr *src = ir_float(&A, DT_F32, 1);
  Expr *r = ir_reduce(&A, &c, 1, &src, 1, &k, NULL, 0);
  CHECK(r->kind == EXPR_REDUCE && dt_eq(r->dtype, DT_F32) && r->u.reduce.axis[0] == k);
}

static Stmt *store_at(int i) {
  return ir_store(&A, &buf_b, ir_float(&A, DT_F32, i), ir_i32(&A, i), NULL);
}

static void test_expr_seq_flattens(void) {
  Stmt *s1 = store_at(1), *s2 = store_at(2), *s3 = store_at(3);
  CHECK(ir_seq(&A, 1, &s1) == s1);
  Stmt *inner[2] = {s1, s2};
  Stmt *outer[3] = {ir_seq(&A, 2, inner), NULL, s3}; /* NULL items are dropped */
  Stmt *s = ir_seq(&A, 3, outer);
  CHECK(s->kind == STMT_SEQ && s->u.seq.n == 3);
  CHECK(s->u.seq.items[0] == s1 && s->u.seq.items[1] == s2 && s->u.seq.items[2] == s3);
  Stmt *one[2] = {NULL, ir_seq(&A, 1, &s2)};
  CHECK(ir_seq(&A, 2, one) == s2);
  CHECK(ir_seq(&A, 0, NULL)->u.seq.n == 0);
  /* an empty SEQ before the one statement (a loop unrolled away, an `if` proved false) */
  Stmt *empty_first[2] = {ir_seq(&A, 0, NULL), s3};
  CHECK(ir_seq(&A, 2, empty_first) == s3);
}

static void test_expr_stmts(void) {
  Var *i = ir_var(&A, "i", DT_I32);
  Stmt *body = store_at(0);
  Stmt *f = ir_for(&A, i, ir_i32(&A, 0), ir_i32(&A, 4), FOR_PARALLEL, NULL, body);
  CHECK(f->kind == STMT_FOR && f->u.for_.fkind == FOR_PARALLEL && f->u.for_.body == body);
  Expr *ext = ir_i32(&A, 4);
  Var *bv = ir_var(&A, "B.local", DT_HANDLE64);
  Stmt *al = ir_allocate(&A, bv, DT_F32, 1, &ext, "local", NULL, f);
  CHECK(al->u.alloc.ndim == 1 && al->u.alloc.extents[0] == ext &&
        strcmp(al->u.alloc.scope, "local") == 0);
  Stmt *at = ir_attr(&A, ATTR_NODE_VAR, i, "pragma_unroll", ir_i32(&A, 1), f);
  CHECK(at->kind == STMT_ATTR && strcmp(at->u.attr.key, "pragma_unroll") == 0);
  Expr *idx[2] = {ir_varref(&A, i), ir_i32(&A, 0)};
  Stmt *pv = ir_provide(&A, &tensor_a, ir_float(&A, DT_F32, 1), 2, idx);
  Range bounds[2] = {{ir_i32(&A, 0), ir_i32(&A, 4)}, {ir_i32(&A, 0), ir_i32(&A, 1)}};
  Stmt *rz = ir_realize(&A, &tensor_a, 2, bounds, NULL, "global", pv);
  CHECK(rz->u.realize.bounds != bounds && rz->u.realize.bounds[0].extent == bounds[0].extent);
  Expr *cond = ir_binary(&A, EXPR_LT, ir_varref(&A, i), ir_i32(&A, 3));
  CHECK(ir_if(&A, cond, body, NULL)->u.if_.orelse == NULL);
  CHECK(ir_assert(&A, cond, ir_str(&A, "oops"), body)->kind == STMT_ASSERT);
  CHECK(ir_let_stmt(&A, ir_var(&A, "v", DT_I32), ir_i32(&A, 1), body)->kind == STMT_LET);
  CHECK(ir_evaluate(&A, ir_i32(&A, 0))->kind == STMT_EVALUATE);
}

static void test_expr_equal(void) {
  Var *i = ir_var(&A, "i", DT_I32), *i2 = ir_var(&A, "i", DT_I32);
  Expr *a = ir_binary(&A, EXPR_ADD, ir_varref(&A, i), ir_i32(&A, 1));
  Expr *b = ir_binary(&A, EXPR_ADD, ir_varref(&A, i), ir_i32(&A, 1));
  Expr *c = ir_binary(&A, EXPR_ADD, ir_varref(&A, i2), ir_i32(&A, 1)); /* same name, other Var */
  Expr *d = ir_binary(&A, EXPR_SUB, ir_varref(&A, i), ir_i32(&A, 1));
  CHECK(a != b && ir_expr_equal(a, b));
  CHECK(!ir_expr_equal(a, c));
  CHECK(!ir_expr_equal(a, d));
  CHECK(!ir_expr_equal(ir_i32(&A, 1), ir_int(&A, DT_I64, 1))); /* dtypes differ */
  CHECK(!ir_expr_equal(ir_float(&A, DT_F32, 0.0), ir_float(&A, DT_F32, -0.0)));
  CHECK(ir_expr_equal(ir_str(&A, "s"), ir_str(&A, "s")));
  Expr *x[1] = {a}, *y[1] = {b}, *z[1] = {c};
  CHECK(ir_expr_equal(ir_call(&A, DT_I32, "tir.f", CALL_PURE, 1, x),
                      ir_call(&A, DT_I32, "tir.f", CALL_PURE, 1, y)));
  CHECK(!ir_expr_equal(ir_call(&A, DT_I32, "tir.f", CALL_PURE, 1, x),
                       ir_call(&A, DT_I32, "tir.g", CALL_PURE, 1, y)));
  CHECK(!ir_expr_equal(ir_call(&A, DT_I32, "tir.f", CALL_PURE, 1, x),
                       ir_call(&A, DT_I32, "tir.f", CALL_PURE, 1, z)));
  CHECK(ir_expr_equal(ir_load(&A, &buf_b, a, NULL), ir_load(&A, &buf_b, b, NULL)));
  CHECK(!ir_expr_equal(ir_load(&A, &buf_b, a, NULL), ir_load(&A, &buf_b, c, NULL)));
}

/* ---- the dtype checks: each of these is an internal error ---- */
static void add_mixed(void) { ir_binary(&A, EXPR_ADD, ir_i32(&A, 1), ir_int(&A, DT_I64, 1)); }
static void and_ints(void) { ir_binary(&A, EXPR_AND, ir_i32(&A, 1), ir_i32(&A, 1)); }
static void not_int(void) { ir_not(&A, ir_i32(&A, 1)); }
static void select_mixed(void) {
  ir_select(&A, ir_int(&A, DT_BOOL1, 1), ir_i32(&A, 1), ir_float(&A, DT_F32, 1));
}
static void ramp_float(void) { ir_ramp(&A, ir_float(&A, DT_F32, 0), ir_float(&A, DT_F32, 1), 4); }
static void ramp_mixed(void) { ir_ramp(&A, ir_i32(&A, 0), ir_int(&A, DT_I64, 1), 4); }
static void broadcast_vector(void) { ir_broadcast(&A, ir_broadcast(&A, ir_i32(&A, 0), 4), 4); }
static void float_int(void) { ir_float(&A, DT_I32, 1); }
static void cast_lanes(void) { ir_cast(&A, DT_F32, ir_broadcast(&A, ir_i32(&A, 0), 4)); }
static void pload_arity(void) {
  Expr *i = ir_i32(&A, 0);
  ir_pload(&A, &tensor_a, 1, &i);
}
static void for_mixed(void) {
  ir_for(&A, ir_var(&A, "i", DT_I32), ir_i32(&A, 0), ir_int(&A, DT_I64, 4), FOR_SERIAL, NULL,
         store_at(0));
}

static void test_expr_checks(void) {
  CHECK(dies(add_mixed));
  CHECK(dies(and_ints));
  CHECK(dies(not_int));
  CHECK(dies(select_mixed));
  CHECK(dies(ramp_float));
  CHECK(dies(ramp_mixed));
  CHECK(dies(broadcast_vector));
  CHECK(dies(float_int));
  CHECK(dies(cast_lanes));
  CHECK(dies(pload_arity));
  CHECK(dies(for_mixed));
}

int main(void) {
  arena_init(&A);
  shape_mn[0] = ir_i32(&A, 4);
  shape_mn[1] = ir_i32(&A, 4);
  test_dtype_names();
  test_dtype_c_names();
  test_expr_kind_names();
  test_expr_vars();
  test_expr_constants();
  test_expr_binary_dtypes();
  test_expr_memory();
  test_expr_reduce();
  test_expr_seq_flattens();
  test_expr_stmts();
  test_expr_equal();
  test_expr_checks();
  arena_free(&A);
  return finish();
}
