/* test_inject_double_buffer.c: tir.InjectDoubleBuffer (ir/pass/inject_double_buffer.c) on
 * flat loop nests built by hand, as storage flattening leaves them: the doubled allocation,
 * the prefetch, the split loop and its tail, the halves the indices pick, split_loop, and
 * the patterns it must leave single-buffered. A small evaluator runs each nest before and
 * after the pass: the results must agree and no access may leave its allocation. */
#include <math.h>
#include <stdlib.h>

#include "ir/verify.h"
#include "tests/unit/schedule/sched_test.h"

/* ---- an evaluator for the flat IR these tests build ---- */

typedef struct Env {
  int nv, nb;
  const Var *vars[64];
  double vals[64];
  const Var *bufs[16];
  double *data[16];
  int64_t size[16];
  bool bad; /* an access out of bounds, an unknown node, an unbound variable */
} Env;

static double ev(Env *env, const Expr *e);

static double *find_buf(Env *env, const Var *v, int64_t *size) {
  for (int i = env->nb - 1; i >= 0; i--)
    if (env->bufs[i] == v) return *size = env->size[i], env->data[i];
  env->bad = true;
  return NULL;
}

static double lookup(Env *env, const Var *v) {
  for (int i = env->nv - 1; i >= 0; i--)
    if (env->vars[i] == v) return env->vals[i];
  env->bad = true;
  return 0;
}

static double *at_index(Env *env, const Buffer *b, const Expr *index) {
  int64_t size = 0, k = (int64_t)ev(env, index);
  double *d = find_buf(env, b->data, &size);
  if (!d || k < 0 || k >= size) {
    env->bad = true;
    return NULL;
  }
  return &d[k];
}

static int64_t floor_div(int64_t x, int64_t y) {
  return x / y - (x % y != 0 && (x < 0) != (y < 0));
}

/* The binary kinds these tests build; any other marks the run bad. */
static double ev_binary(Env *env, const Expr *e) {
  double x = ev(env, e->u.bin.a), y = ev(env, e->u.bin.b);
  int64_t ix = (int64_t)x, iy = (int64_t)y;
  ExprKind k = e->kind;
  if (k == EXPR_ADD) return x + y;
  if (k == EXPR_SUB) return x - y;
  if (k == EXPR_MUL) return x * y;
  if (k == EXPR_FLOORDIV) return (double)floor_div(ix, iy);
  if (k == EXPR_FLOORMOD) return (double)(ix - floor_div(ix, iy) * iy);
  if (k == EXPR_LT) return x < y;
  if (k == EXPR_LE) return x <= y;
  if (k == EXPR_AND) return x && y;
  env->bad = true;
  return 0;
}

static double ev(Env *env, const Expr *e) {
  if (e->kind == EXPR_INT) return (double)e->u.ival;
  if (e->kind == EXPR_FLOAT) return e->u.fval;
  if (e->kind == EXPR_VAR) return lookup(env, e->u.var);
  if (e->kind == EXPR_LOAD) {
    double *p = at_index(env, e->u.load.buf, e->u.load.index);
    return p ? *p : 0;
  }
  if (e->kind == EXPR_CALL) return e->u.call.n ? ev(env, e->u.call.args[0]) : 0;
  if (e->kind >= EXPR_ADD && e->kind <= EXPR_OR) return ev_binary(env, e);
  env->bad = true;
  return 0;
}

static void ex(Env *env, const Stmt *s);

static void ex_bound(Env *env, const Var *v, double value, const Stmt *body) {
  if (env->nv == 64) {
    env->bad = true;
    return;
  }
  env->vars[env->nv] = v;
  env->vals[env->nv++] = value;
  ex(env, body);
  env->nv--;
}

/* A new allocation is NaN: reading what was never written poisons the result. */
static void ex_allocate(Env *env, const Stmt *s) {
  int64_t n = (int64_t)ev(env, s->u.alloc.extents[0]);
  if (env->nb == 16 || n <= 0 || n > 1 << 20) {
    env->bad = true;
    return;
  }
  double *d = malloc((size_t)n * sizeof *d);
  for (int64_t i = 0; i < n; i++) d[i] = NAN;
  env->bufs[env->nb] = s->u.alloc.buffer_var;
  env->data[env->nb] = d;
  env->size[env->nb++] = n;
  ex(env, s->u.alloc.body);
  free(env->data[--env->nb]);
}

static void ex(Env *env, const Stmt *s) {
  if (env->bad) return;
  if (s->kind == STMT_FOR) {
    int64_t lo = (int64_t)ev(env, s->u.for_.min), n = (int64_t)ev(env, s->u.for_.extent);
    for (int64_t i = lo; i < lo + n && !env->bad; i++)
      ex_bound(env, s->u.for_.var, (double)i, s->u.for_.body);
  } else if (s->kind == STMT_SEQ) {
    for (int i = 0; i < s->u.seq.n; i++) ex(env, s->u.seq.items[i]);
  } else if (s->kind == STMT_STORE) {
    double v = ev(env, s->u.store.value);
    double *p = at_index(env, s->u.store.buf, s->u.store.index);
    if (p) *p = v;
  } else if (s->kind == STMT_ALLOCATE) {
    ex_allocate(env, s);
  } else if (s->kind == STMT_ATTR) {
    ex(env, s->u.attr.body);
  } else if (s->kind == STMT_IF) {
    if (ev(env, s->u.if_.cond))
      ex(env, s->u.if_.then);
    else if (s->u.if_.orelse)
      ex(env, s->u.if_.orelse);
  } else if (s->kind == STMT_LET) {
    ex_bound(env, s->u.let.var, ev(env, s->u.let.value), s->u.let.body);
  } else if (s->kind != STMT_EVALUATE) {
    env->bad = true;
  }
}

/* ---- the nests ---- */

enum { ROWS = 16, COLS = 32 };
static Buffer *buf_a, *buf_b;
static double data_a[ROWS * COLS], data_b[ROWS * 2];
static Var *n_sym; /* a symbolic extent, bound to ROWS when run */

/* Runs s over A (fixed values) into a fresh B; false when the run went wrong. */
static bool run(const Stmt *s, double out[ROWS * 2]) {
  Env env = {0};
  for (int i = 0; i < ROWS * COLS; i++) data_a[i] = (i % 7) * 0.5 + i / COLS;
  for (int i = 0; i < ROWS * 2; i++) data_b[i] = 0;
  env.bufs[0] = buf_a->data, env.data[0] = data_a, env.size[0] = ROWS * COLS;
  env.bufs[1] = buf_b->data, env.data[1] = data_b, env.size[1] = ROWS * 2;
  env.nb = 2;
  env.vars[0] = n_sym, env.vals[0] = ROWS, env.nv = 1;
  ex(&env, s);
  memcpy(out, data_b, sizeof data_b);
  return !env.bad;
}

/* ir_verify's view: every variable bound once, every access to a live buffer, ... */
static bool well_formed(const Stmt *s) {
  Tensor *tensors[2] = {placeholder("A", 1, I(ROWS * COLS)), placeholder("B", 1, I(ROWS * 2))};
  Buffer *bufs[2] = {buf_a, buf_b};
  PassCtx ctx = {.arena = &A, .nbinds = 2, .bind_tensors = tensors, .bind_buffers = bufs};
  Diag err = DIAG_INIT;
  bool ok = ir_verify_func(s, &ctx, true, "tir.InjectDoubleBuffer", &err);
  if (!ok) printf("%s\n", err.msg);
  return ok;
}

/* The pass keeps what the nest computes, and the nest computes without going astray. */
static bool same_results(const Stmt *before, const Stmt *after) {
  double x[ROWS * 2], y[ROWS * 2];
  if (!well_formed(before) || !well_formed(after)) return false;
  if (!run(before, x) || !run(after, y)) return false;
  for (int i = 0; i < ROWS * 2; i++)
    if (!(x[i] == y[i])) return false;
  return true;
}

static Buffer *buffer(const char *name, int64_t size, const char *scope) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  Expr **shape = arena_alloc(&A, sizeof *shape);
  shape[0] = I(size);
  *b = (Buffer){.name = name,
                .data = ir_var(&A, name, DT_HANDLE64),
                .dtype = DT_F32,
                .ndim = 1,
                .shape = shape,
                .scope = scope};
  return b;
}

static Stmt *loop_kind(Var *v, Expr *extent, ForKind k, Stmt *body) {
  return ir_for(&A, v, I(0), extent, k, NULL, body);
}
static Stmt *loop(Var *v, Expr *extent, Stmt *body) {
  return loop_kind(v, extent, FOR_SERIAL, body);
}
static Stmt *seq2(Stmt *x, Stmt *y) {
  Stmt *items[2] = {x, y};
  return ir_seq(&A, 2, items);
}
static Stmt *store(Buffer *b, Expr *index, Expr *value) {
  return ir_store(&A, b, value, index, NULL);
}
static Expr *load(Buffer *b, Expr *index) { return ir_load(&A, b, index, NULL); }
static Stmt *mark(Buffer *b, Stmt *body) {
  return ir_attr(&A, ATTR_NODE_VAR, b->data, "double_buffer_scope", I(1), body);
}
static Stmt *allocate(Buffer *b, int64_t size, Stmt *body) {
  Expr *ext = I(size);
  return ir_allocate(&A, b->data, DT_F32, 1, &ext, b->scope, NULL, body);
}

/* cache[j] = A[i*32 + j] for one row i */
static Stmt *fetch_row(Buffer *cache, Var *i) {
  Var *j = var("j");
  return loop(j, I(COLS), store(cache, V(j), load(buf_a, add(mul(V(i), I(COLS)), V(j)))));
}

/* B[i] = sum of cache[0..32) */
static Stmt *sum_row(Buffer *cache, Var *i, int col) {
  Var *j = var("j");
  Expr *bi = add(mul(V(i), I(2)), I(col));
  Stmt *acc = loop(j, I(COLS), store(buf_b, bi, add(load(buf_b, bi), load(cache, V(j)))));
  return seq2(store(buf_b, bi, F(0)), acc);
}

/* for (i, 0, extent) { allocate cache { mark { fetch row i }; B[i] = sum(cache) } } */
static Stmt *row_sums(Expr *extent, ForKind k) {
  Buffer *cache = buffer("cache", COLS, "shared");
  Var *i = var("i");
  return loop_kind(
      i, extent, k,
      allocate(cache, COLS, seq2(mark(cache, fetch_row(cache, i)), sum_row(cache, i, 0))));
}

static Stmt *inject(Stmt *s, int64_t split) {
  PassOption opt = {"tir.InjectDoubleBuffer", "split_loop", split};
  PassCtx ctx = {.arena = &A, .noptions = split == 1 ? 0 : 1, .options = &opt};
  return pass_inject_double_buffer(s, &ctx);
}

static Stmt *simplified(Stmt *s) {
  PassCtx ctx = {.arena = &A};
  return pass_simplify(s, &ctx);
}

/* ---- tests ---- */

/* TVM's test_tir_transform_inject_double_buffer, with the mark around the producer only. */
static void test_inject_double_buffer_rows(void) {
  Stmt *s = row_sums(I(ROWS), FOR_SERIAL);
  Stmt *t = inject(s, 1);
  CHECK(same_results(s, t));
  CHECK_TEXT(ps(simplified(t)),
             "allocate(cache: Pointer(shared float32), float32, [64]), storage_scope = shared {\n"
             "  for (j: int32, 0, 32) {\n"
             "    cache[j] = A[j]\n"
             "  }\n"
             "  for (i.outer: int32, 0, 15) {\n"
             "    attr [cache] \"double_buffer_write\" = 1;\n"
             "    for (j: int32, 0, 32) {\n"
             "      cache[((floormod((i.outer + 1), 2)*32) + j)] = A[(((i.outer*32) + j) + 32)]\n"
             "    }\n"
             "    B[(i.outer*2)] = 0f32\n"
             "    for (j: int32, 0, 32) {\n"
             "      B[(i.outer*2)] = (B[(i.outer*2)] + cache[((floormod(i.outer, 2)*32) + j)])\n"
             "    }\n"
             "  }\n"
             "  B[30] = 0f32\n"
             "  for (j: int32, 0, 32) {\n"
             "    B[30] = (B[30] + cache[(j + 32)])\n"
             "  }\n"
             "}\n");
  /* before simplification: the guard on the prefetch, and fresh variables in the copies */
  const char *raw = ps(t);
  CHECK(strstr(raw, "if ((i.outer + 1) < 16) {\n") != NULL);
  CHECK(strstr(raw, "if ((15 + 1) < 16) {\n") != NULL);
  CHECK(strstr(raw, "for (j, ") == NULL); /* every loop its own variable: all annotated */
}

/* split_loop K: K copies per step, the iterations left over after the loop. */
static void test_inject_double_buffer_split_loop(void) {
  Stmt *s = row_sums(I(ROWS), FOR_SERIAL);
  Stmt *two = inject(s, 2);
  CHECK(same_results(s, two));
  const char *p = ps(simplified(two));
  CHECK(strstr(p, "for (i.outer: int32, 0, 7) {\n") != NULL);
  CHECK(strstr(p, "B[((i.outer*4) + 2)] = 0f32\n") != NULL); /* the second copy: i = 2*o + 1 */
  CHECK(strstr(p, "B[28] = 0f32\n") != NULL && strstr(p, "B[30] = 0f32\n") != NULL);
  /* 5 iterations: two steps of two, then one left */
  Stmt *odd = row_sums(I(5), FOR_SERIAL);
  Stmt *odd2 = inject(odd, 2);
  CHECK(same_results(odd, odd2));
  p = ps(simplified(odd2));
  CHECK(strstr(p, "for (i.outer: int32, 0, 2) {\n") != NULL);
  CHECK(strstr(p, "B[8] = 0f32\n") != NULL);
  /* a factor past the extent: no loop, every iteration unrolled */
  Stmt *big = inject(odd, 8);
  CHECK(same_results(odd, big));
  CHECK(strstr(ps(big), "i.outer") == NULL);
  /* 0: the loop is kept whole behind the prefetch */
  Stmt *whole = inject(s, 0);
  CHECK(same_results(s, whole));
  p = ps(simplified(whole));
  CHECK(strstr(p, "for (i: int32, 0, 16) {\n") != NULL);
  CHECK(strstr(p, "if (i < 15) {\n") != NULL);
  /* one iteration: prefetch and the body, no loop */
  Stmt *one = row_sums(I(1), FOR_SERIAL);
  CHECK(same_results(one, inject(one, 1)));
  CHECK(strstr(ps(inject(one, 1)), "for (i") == NULL);
}

/* A producer that accumulates in its own buffer: moved to i + 1, its loads follow it to the
 * half it fills. */
static void test_inject_double_buffer_accumulate(void) {
  Buffer *cache = buffer("cache", COLS, "shared");
  Var *i = var("i"), *j = var("j"), *j2 = var("j");
  Expr *src = load(buf_a, add(mul(V(i), I(COLS)), V(j2)));
  Stmt *twice = loop(j2, I(COLS), store(cache, V(j2), add(load(cache, V(j2)), src)));
  Stmt *fetch = seq2(loop(j, I(COLS), store(cache, V(j), F(1))), twice);
  Stmt *s = loop(i, I(ROWS), allocate(cache, COLS, seq2(mark(cache, fetch), sum_row(cache, i, 0))));
  Stmt *t = inject(s, 1);
  CHECK(same_results(s, t));
  CHECK(strstr(ps(simplified(t)), "cache[((floormod((i.outer + 1), 2)*32) + j)] = "
                                  "(cache[((floormod((i.outer + 1), 2)*32) + j)] + ") != NULL);
}

/* Two buffers filled in one loop: both doubled, both prefetched before it. */
static void test_inject_double_buffer_two(void) {
  Buffer *c0 = buffer("c0", COLS, "shared"), *c1 = buffer("c1", COLS, "shared");
  Var *i = var("i");
  Stmt *inner = allocate(
      c1, COLS, seq2(mark(c1, fetch_row(c1, i)), seq2(sum_row(c0, i, 0), sum_row(c1, i, 1))));
  Stmt *s = loop(i, I(ROWS), allocate(c0, COLS, seq2(mark(c0, fetch_row(c0, i)), inner)));
  Stmt *t = inject(s, 1);
  CHECK(same_results(s, t));
  const char *p = ps(t);
  const char *head =
      "allocate(c0: Pointer(shared float32), float32, [64]), storage_scope = shared;\n"
      "allocate(c1: Pointer(shared float32), float32, [64]), storage_scope = shared {\n";
  CHECK(strncmp(p, head, strlen(head)) == 0);
  CHECK(strstr(p, "attr [c0] \"double_buffer_write\"") != NULL);
  CHECK(strstr(p, "attr [c1] \"double_buffer_write\"") != NULL);
}

/* Double buffering an inner loop under an outer one: only the inner loop changes. */
static void test_inject_double_buffer_inner_loop(void) {
  Buffer *cache = buffer("cache", 4, "local");
  Var *i = var("i"), *k = var("k"), *j = var("j"), *j2 = var("j");
  Expr *src = add(add(mul(V(i), I(COLS)), mul(V(k), I(4))), V(j));
  Stmt *fetch = loop(j, I(4), store(cache, V(j), load(buf_a, src)));
  Expr *bi = mul(V(i), I(2));
  Stmt *use = loop(j2, I(4), store(buf_b, bi, add(load(buf_b, bi), load(cache, V(j2)))));
  Stmt *body = loop(k, I(8), allocate(cache, 4, seq2(mark(cache, fetch), use)));
  Stmt *s = loop(i, I(ROWS), seq2(store(buf_b, bi, F(0)), body));
  Stmt *t = inject(s, 1);
  CHECK(same_results(s, t));
  const char *p = ps(simplified(t));
  CHECK(strstr(p, "for (i: int32, 0, 16) {\n") != NULL);
  CHECK(
      strstr(p,
             "allocate(cache: Pointer(local float32), float32, [8]), storage_scope = local {\n") !=
      NULL);
  CHECK(strstr(p, "for (k.outer: int32, 0, 7) {\n") != NULL);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* A doubled buffer inside the loop of another: the outer loop's last iteration, outside
 * its loop, keeps the inner buffer's write marks (only the outer buffer's go). */
static void test_inject_double_buffer_nested(void) {
  Buffer *c0 = buffer("c0", COLS, "shared"), *c1 = buffer("c1", 4, "local");
  Var *i = var("i"), *k = var("k"), *j = var("j"), *j2 = var("j");
  Stmt *fetch = loop(j, I(4), store(c1, V(j), load(c0, add(mul(V(k), I(4)), V(j)))));
  Expr *bi = mul(V(i), I(2));
  Stmt *use = loop(j2, I(4), store(buf_b, bi, add(load(buf_b, bi), load(c1, V(j2)))));
  Stmt *inner = loop(k, I(8), allocate(c1, 4, seq2(mark(c1, fetch), use)));
  Stmt *body = seq2(mark(c0, fetch_row(c0, i)), seq2(store(buf_b, bi, F(0)), inner));
  Stmt *s = loop(i, I(ROWS), allocate(c0, COLS, body));
  Stmt *t = inject(s, 1);
  CHECK(same_results(s, t));
  const char *p = ps(t);
  CHECK(count(p, "attr [c0] \"double_buffer_write\"") == 1);
  CHECK(count(p, "attr [c1] \"double_buffer_write\"") == 2);
  /* the copy's allocation has a variable of its own, annotated where it is first printed */
  CHECK(count(p, "allocate(c1: Pointer(local float32), float32, [8])") == 2);
}

/* What does not fit stays single, the mark dropped, and computes the same. */
static void check_single(const Stmt *s) {
  Stmt *t = inject((Stmt *)s, 1);
  const char *p = ps(t);
  CHECK(strstr(p, "double_buffer") == NULL);
  CHECK(strstr(p, "[64]") == NULL);
  CHECK(same_results(s, t));
}

static void test_inject_double_buffer_single(void) {
  /* no loop around the mark */
  Buffer *cache = buffer("cache", COLS, "shared");
  Var *i = var("i");
  Stmt *top = allocate(cache, COLS, seq2(mark(cache, fetch_row(cache, i)), sum_row(cache, i, 0)));
  Stmt *bound = ir_let_stmt(&A, i, I(3), top);
  check_single(bound);
  /* a symbolic extent (it might be 0, and the prefetch would read anyway) */
  check_single(ir_let_stmt(&A, n_sym, I(ROWS), row_sums(V(n_sym), FOR_SERIAL)));
  /* a parallel loop: iterations do not run in order */
  check_single(row_sums(I(ROWS), FOR_PARALLEL));
  /* a loop between the allocation and the mark */
  Var *r = var("r"), *i2 = var("i");
  Stmt *between =
      allocate(cache, COLS,
               loop(i2, I(ROWS), seq2(mark(cache, fetch_row(cache, i2)), sum_row(cache, i2, 0))));
  check_single(between);
  /* the producer reads what the rest of the loop writes (B[0], written by row 0) */
  Var *i3 = var("i"), *j = var("j");
  Expr *carried = add(load(buf_a, add(mul(V(i3), I(COLS)), V(j))), load(buf_b, I(0)));
  Stmt *fetch = loop(j, I(COLS), store(cache, V(j), carried));
  check_single(
      loop(i3, I(ROWS), allocate(cache, COLS, seq2(mark(cache, fetch), sum_row(cache, i3, 0)))));
  /* the buffer's variable used as a value (a pointer handed to a call) */
  Var *i4 = var("i");
  Expr *ptr = ir_varref(&A, cache->data);
  Stmt *call = ir_evaluate(&A, ir_call(&A, DT_I32, "tir.noop", CALL_EFFECT, 1, &ptr));
  Stmt *used = seq2(mark(cache, fetch_row(cache, i4)), seq2(call, sum_row(cache, i4, 0)));
  check_single(loop(i4, I(ROWS), allocate(cache, COLS, used)));
  /* a store to the buffer outside the mark */
  Var *i5 = var("i");
  Stmt *outside = seq2(mark(cache, fetch_row(cache, i5)),
                       seq2(store(cache, I(0), F(1)), sum_row(cache, i5, 0)));
  check_single(loop(i5, I(ROWS), allocate(cache, COLS, outside)));
  /* a mark that stores to a second buffer (a multi-output stage) */
  Var *i6 = var("i");
  Buffer *other = buffer("other", COLS, "shared");
  Stmt *both = seq2(fetch_row(cache, i6), fetch_row(other, i6));
  Stmt *two_out = allocate(other, COLS, seq2(mark(cache, both), sum_row(cache, i6, 0)));
  check_single(loop(i6, I(ROWS), allocate(cache, COLS, two_out)));
  (void)r;
}

static void test_inject_double_buffer_unchanged(void) {
  Var *i = var("i");
  Stmt *s = loop(i, I(4), store(buf_b, V(i), F(1)));
  CHECK(inject(s, 1) == s);
}

int main(void) {
  arena_init(&A);
  buf_a = buffer("A", ROWS * COLS, "global");
  buf_b = buffer("B", ROWS * 2, "global");
  n_sym = var("n");
  test_inject_double_buffer_rows();
  test_inject_double_buffer_split_loop();
  test_inject_double_buffer_accumulate();
  test_inject_double_buffer_two();
  test_inject_double_buffer_inner_loop();
  test_inject_double_buffer_nested();
  test_inject_double_buffer_single();
  test_inject_double_buffer_unchanged();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
