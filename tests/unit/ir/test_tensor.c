/* test_tensor.c: unit tests of ir/tensor.c: placeholders, compute axes, compute ops with one
 * and several outputs, and the reduce axes and input tensors read off a body. */
#include <stdio.h>
#include <string.h>

#include "ir/expr.h"
#include "ir/printer.h"
#include "ir/tensor.h"
#include "tests/unit/check.h"

static Arena A;

static Expr *var_n(void) { return ir_varref(&A, ir_var(&A, "n", DT_I32)); }

static Tensor *placeholder(const char *name, int ndim, Expr **shape) {
  return ir_placeholder_op(&A, name, ndim, shape, DT_F32)->outputs[0];
}

static void test_tensor_placeholder(void) {
  Expr *shape[2] = {var_n(), ir_i32(&A, 8)};
  Operation *op = ir_placeholder_op(&A, "A", 2, shape, DT_F32);
  shape[0] = NULL; /* the op keeps a copy */
  CHECK(op->kind == OP_PLACEHOLDER);
  CHECK(strcmp(op->name, "A") == 0 && strcmp(op->tag, "") == 0);
  CHECK(op->noutputs == 1 && op->outputs[0]->op == op);
  Tensor *t = op->outputs[0];
  CHECK(strcmp(t->name, "A") == 0 && t->value_index == 0);
  CHECK(dt_eq(t->dtype, DT_F32) && t->ndim == 2);
  CHECK(t->shape[0] && t->shape[0]->kind == EXPR_VAR && ir_is_const_int(t->shape[1], 8));
  CHECK(op->naxis == 0 && op->nreduce == 0 && op->ninputs == 0 && !op->body);
}

static void test_tensor_compute_axes(void) {
  Expr *shape[2] = {var_n(), ir_int(&A, DT_I64, 4)};
  const char *names[2] = {"i", "j"};
  IterVar **ax = ir_compute_axes(&A, 2, shape, names);
  CHECK(strcmp(ax[0]->var->name, "i") == 0 && strcmp(ax[1]->var->name, "j") == 0);
  CHECK(ax[0]->kind == ITER_DATA_PAR && !ax[0]->thread_tag);
  CHECK(ir_is_const_int(ax[0]->dom.min, 0) && ax[0]->dom.extent == shape[0]);
  /* an axis takes its extent's dtype */
  CHECK(dt_eq(ax[1]->var->dtype, DT_I64) && dt_eq(ax[1]->dom.min->dtype, DT_I64));
  CHECK(ax[0]->var != ax[1]->var);
}

/* C[i] = A[B_idx[i]] + A[i] * 2: inputs in TVM's post-order, no repeats. */
static void test_tensor_compute_inputs(void) {
  Expr *n = var_n();
  Tensor *a = placeholder("A", 1, &n);
  Tensor *idx = ir_placeholder_op(&A, "Idx", 1, &n, DT_I32)->outputs[0];
  const char *names[1] = {"i"};
  IterVar **ax = ir_compute_axes(&A, 1, &n, names);
  Expr *i = ir_varref(&A, ax[0]->var);
  Expr *gather = ir_pload(&A, idx, 1, &i);
  Expr *lhs = ir_pload(&A, a, 1, &gather);
  Expr *rhs = ir_binary(&A, EXPR_MUL, ir_pload(&A, a, 1, &i), ir_float(&A, DT_F32, 2));
  Expr *body = ir_binary(&A, EXPR_ADD, lhs, rhs);
  Operation *op = ir_compute_op(&A, "C", "elemwise", 1, &n, ax, 1, &body);
  CHECK(op->kind == OP_COMPUTE && strcmp(op->tag, "elemwise") == 0);
  CHECK(op->ninputs == 2 && op->inputs[0] == idx && op->inputs[1] == a);
  CHECK(op->naxis == 1 && op->axis[0] == ax[0] && op->nreduce == 0);
  CHECK(op->body[0] == body && dt_eq(op->outputs[0]->dtype, DT_F32));
  CHECK(strcmp(op->outputs[0]->name, "C") == 0 && op->outputs[0]->shape[0] == n);
}

static CommReducer *sum_reducer(void) {
  CommReducer *c = arena_alloc(&A, sizeof *c);
  Var *x = ir_var(&A, "x", DT_F32), *y = ir_var(&A, "y", DT_F32);
  c->name = "sum";
  c->n = 1;
  c->lhs = arena_alloc(&A, sizeof(Var *));
  c->rhs = arena_alloc(&A, sizeof(Var *));
  c->result = arena_alloc(&A, sizeof(Expr *));
  c->identity = arena_alloc(&A, sizeof(Expr *));
  c->lhs[0] = x;
  c->rhs[0] = y;
  c->result[0] = ir_binary(&A, EXPR_ADD, ir_varref(&A, x), ir_varref(&A, y));
  c->identity[0] = ir_float(&A, DT_F32, 0);
  return c;
}

/* B[i] = sum(A[i, k], k): the reduce axis is found in the body. */
static void test_tensor_compute_reduce(void) {
  Expr *shape[2] = {var_n(), ir_i32(&A, 16)};
  Tensor *a = placeholder("A", 2, shape);
  const char *names[1] = {"i"};
  IterVar **ax = ir_compute_axes(&A, 1, shape, names);
  IterVar *k = ir_itervar(&A, ir_var(&A, "k", DT_I32), (Range){ir_i32(&A, 0), shape[1]},
                          ITER_REDUCE, NULL);
  Expr *idx[2] = {ir_varref(&A, ax[0]->var), ir_varref(&A, k->var)};
  Expr *src = ir_pload(&A, a, 2, idx);
  Expr *body = ir_reduce(&A, sum_reducer(), 1, &src, 1, &k, NULL, 0);
  Operation *op = ir_compute_op(&A, "B", "", 1, shape, ax, 1, &body);
  CHECK(op->nreduce == 1 && op->reduce_axis[0] == k);
  CHECK(op->ninputs == 1 && op->inputs[0] == a);
  CHECK(strcmp(op->tag, "") == 0);
}

/* Two outputs: tensors named C.v0 and C.v1, each with its body's dtype. */
static void test_tensor_compute_multi_output(void) {
  Expr *n = var_n();
  const char *names[1] = {"i"};
  IterVar **ax = ir_compute_axes(&A, 1, &n, names);
  Expr *i = ir_varref(&A, ax[0]->var);
  Expr *bodies[2] = {i, ir_cast(&A, DT_F32, i)};
  Operation *op = ir_compute_op(&A, "C", NULL, 1, &n, ax, 2, bodies);
  CHECK(op->noutputs == 2 && strcmp(op->tag, "") == 0);
  CHECK(strcmp(op->outputs[0]->name, "C.v0") == 0 && strcmp(op->outputs[1]->name, "C.v1") == 0);
  CHECK(op->outputs[1]->value_index == 1 && op->outputs[1]->op == op);
  CHECK(dt_eq(op->outputs[0]->dtype, DT_I32) && dt_eq(op->outputs[1]->dtype, DT_F32));
  CHECK(op->outputs[0]->shape == op->outputs[1]->shape);
}

/* Many inputs: the scan's arrays grow past their first allocation. */
static void test_tensor_compute_many_inputs(void) {
  Expr *n = var_n();
  const char *names[1] = {"i"};
  IterVar **ax = ir_compute_axes(&A, 1, &n, names);
  Expr *i = ir_varref(&A, ax[0]->var);
  Tensor *ins[20];
  Expr *body = NULL;
  for (int t = 0; t < 20; t++) {
    char name[8];
    snprintf(name, sizeof name, "P%d", t);
    ins[t] = placeholder(name, 1, &n);
    Expr *ld = ir_pload(&A, ins[t], 1, &i);
    body = body ? ir_binary(&A, EXPR_ADD, body, ld) : ld;
  }
  Operation *op = ir_compute_op(&A, "S", "", 1, &n, ax, 1, &body);
  bool in_order = op->ninputs == 20;
  for (int t = 0; in_order && t < 20; t++) in_order = op->inputs[t] == ins[t];
  CHECK(in_order);
}

static bool printed(void (*print)(StrBuf *, const void *), const void *x, const char *want) {
  StrBuf b = STRBUF_INIT;
  print(&b, x);
  bool ok = strcmp(sb_cstr(&b), want) == 0;
  if (!ok) printf("printed: %s\nwanted:  %s\n", sb_cstr(&b), want);
  sb_free(&b);
  return ok;
}
static void put_itervar(StrBuf *b, const void *x) { ir_print_itervar(b, x); }
static void put_op(StrBuf *b, const void *x) { ir_print_op(b, x); }
static void put_reducer(StrBuf *b, const void *x) { ir_print_comm_reducer(b, x); }

/* B[i] = sum(A[i, k]) prints as TVM's stage list does (seeds/000_*.txt). */
static void test_tensor_print(void) {
  Expr *shape[2] = {var_n(), ir_i32(&A, 16)};
  Tensor *a = placeholder("A", 2, shape);
  const char *names[1] = {"i"};
  IterVar **ax = ir_compute_axes(&A, 1, shape, names);
  IterVar *k = ir_itervar(&A, ir_var(&A, "k", DT_I32), (Range){ir_i32(&A, 0), shape[1]},
                          ITER_REDUCE, NULL);
  Expr *idx[2] = {ir_varref(&A, ax[0]->var), ir_varref(&A, k->var)};
  Expr *src = ir_pload(&A, a, 2, idx);
  CommReducer *sum = sum_reducer();
  Expr *body = ir_reduce(&A, sum, 1, &src, 1, &k, NULL, 0);
  Operation *op = ir_compute_op(&A, "B", "", 1, shape, ax, 1, &body);
  CHECK(printed(put_itervar, ax[0], "iter_var(i, range(min=0, ext=n))"));
  CHECK(printed(put_reducer, sum,
                "comm_reducer(result=[(x + y)], lhs=[x], rhs=[y], identity_element=[0f32])"));
  CHECK(printed(put_op, op,
                "compute(B, body=[reduce(combiner=comm_reducer(result=[(x + y)], lhs=[x], "
                "rhs=[y], identity_element=[0f32]), source=[A[i, k]], init=[], "
                "axis=[iter_var(k, range(min=0, ext=16))], where=True, value_index=0)], "
                "axis=[iter_var(i, range(min=0, ext=n))], "
                "reduce_axis=[iter_var(k, range(min=0, ext=16))], tag=, attrs={})"));
  StrBuf b = STRBUF_INIT;
  ir_print_op(&b, a->op);
  CHECK(strncmp(sb_cstr(&b), "placeholder(A, 0x", 17) == 0);
  sb_free(&b);
  IterVar *tx = ir_itervar(&A, ir_var(&A, "threadIdx.x", DT_I32), (Range){0}, ITER_THREAD,
                           "threadIdx.x");
  CHECK(printed(put_itervar, tx, "iter_var(threadIdx.x, , threadIdx.x)"));
}

static void compute_without_body(void) {
  Expr *n = ir_i32(&A, 4);
  const char *names[1] = {"i"};
  ir_compute_op(&A, "C", "", 1, &n, ir_compute_axes(&A, 1, &n, names), 0, NULL);
}

static void float_shape(void) {
  Expr *n = ir_float(&A, DT_F32, 4);
  ir_placeholder_op(&A, "A", 1, &n, DT_F32);
}

static void test_tensor_checks(void) {
  CHECK(dies(compute_without_body));
  CHECK(dies(float_shape));
}

int main(void) {
  arena_init(&A);
  test_tensor_placeholder();
  test_tensor_compute_axes();
  test_tensor_compute_inputs();
  test_tensor_compute_reduce();
  test_tensor_compute_multi_output();
  test_tensor_compute_many_inputs();
  test_tensor_print();
  test_tensor_checks();
  arena_free(&A);
  return finish();
}
