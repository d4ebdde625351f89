/* test_vectorize_loop.c: tir.VectorizeLoop (ir/pass/vectorize_loop.c): ramps, broadcasts and
 * vector dtypes as TVM builds them, the statements that fall back to a loop over the lanes,
 * the loops it leaves serial, per-lane allocations, and a randomized check that vectorizing
 * and then simplifying computes what the scalar loop computes. */
#include "tests/unit/pass/ir_eval.h"
#include "tests/unit/schedule/sched_test.h"

static Var *x, *o, *n;
static Buffer *buf_a, *buf_b, *buf_c;
static PassOption disable = {"tir.VectorizeLoop", "disable", 1};

static Buffer *buffer(const char *name, DType t) {
  Buffer *b = arena_alloc(&A, sizeof *b);
  *b = (Buffer){.name = name, .data = ir_var(&A, name, DT_HANDLE64), .dtype = t, .ndim = 1};
  return b;
}

static Stmt *vectorize_with(Stmt *s, int nopt, const PassOption *opt) {
  PassCtx ctx = {.arena = &A, .noptions = nopt, .options = opt};
  return pass_vectorize_loop(s, &ctx);
}
static Stmt *vectorize(Stmt *s) { return vectorize_with(s, 0, NULL); }

static Stmt *vloop(Var *v, Expr *min, Expr *ext, Stmt *body) {
  return ir_for(&A, v, min, ext, FOR_VECTORIZED, NULL, body);
}
static Stmt *loop(Var *v, Expr *ext, Stmt *body) {
  return ir_for(&A, v, I(0), ext, FOR_SERIAL, NULL, body);
}
static Expr *load(Buffer *b, Expr *idx) { return ir_load(&A, b, idx, NULL); }
static Stmt *store(Buffer *b, Expr *idx, Expr *v) { return ir_store(&A, b, v, idx, NULL); }
static Expr *lt(Expr *a, Expr *b) { return ir_binary(&A, EXPR_LT, a, b); }
static Expr *likely(Expr *c) { return ir_call(&A, DT_BOOL1, "tir.likely", CALL_PURE, 1, &c); }
static Expr *call1(const char *op, DType t, Expr *a) {
  return ir_call(&A, t, op, CALL_PURE, 1, &a);
}
/* o*4 + x */
static Expr *ox(void) { return add(mul(V(o), I(4)), V(x)); }

static void test_vectorize_loop_unchanged(void) {
  Stmt *s = loop(o, I(8), store(buf_b, V(o), load(buf_a, V(o))));
  CHECK(vectorize(s) == s);
  /* a vectorized loop whose body ignores x: the body once */
  Stmt *t = vloop(x, I(0), I(4), store(buf_b, I(0), F(1)));
  CHECK_TEXT(ps(vectorize(t)), "B[0] = 1f32\n");
}

/* the vector add of TVM's tutorials */
static void test_vectorize_loop_add(void) {
  Stmt *s = loop(o, I(8), vloop(x, I(0), I(4), store(buf_b, ox(), add(load(buf_a, ox()), F(2)))));
  CHECK_TEXT(ps(vectorize(s)),
             "for (o: int32, 0, 8) {\n"
             "  B[ramp((o*4), 1, 4)] = (A[ramp((o*4), 1, 4)] + broadcast(2f32, 4))\n"
             "}\n");
  CHECK(vectorize(s)->u.for_.body->u.store.value->dtype.lanes == 4);
}

/* c - ramp, ramp*c (c > 0), ramp*c with c not provably positive, casts, a min x */
static void test_vectorize_loop_ramps(void) {
  Stmt *s =
      vloop(x, I(0), I(4), store(buf_c, sub(I(10), mul(V(x), I(3))), ir_cast(&A, DT_I32, V(x))));
  CHECK_TEXT(ps(vectorize(s)), "C[ramp(10, -3, 4)] = cast(int32x4, ramp(0, 1, 4))\n");
  Stmt *t = vloop(x, I(2), I(4), store(buf_c, mul(V(x), V(n)), V(x)));
  CHECK_TEXT(ps(vectorize(t)), "C[(ramp(2, 1, 4)*broadcast(n, 4))] = ramp(2, 1, 4)\n");
  Stmt *u = vloop(x, I(0), I(8), store(buf_b, V(x), call1("tir.exp", DT_F32, load(buf_a, V(x)))));
  CHECK_TEXT(ps(vectorize(u)), "B[ramp(0, 1, 8)] = @tir.exp(A[ramp(0, 1, 8)], dtype=float32x8)\n");
}

/* what cannot be vector code runs lane by lane over x.s */
static void test_vectorize_loop_scalarize(void) {
  Stmt *guard = ir_if(&A, likely(lt(ox(), V(n))), store(buf_b, ox(), F(1)), NULL);
  CHECK_TEXT(ps(vectorize(loop(o, I(8), vloop(x, I(0), I(4), guard)))),
             "for (o: int32, 0, 8) {\n"
             "  for (x.s: int32, 0, 4) {\n"
             "    if @tir.likely((((o*4) + x.s) < n), dtype=bool) {\n"
             "      B[((o*4) + x.s)] = 1f32\n"
             "    }\n"
             "  }\n"
             "}\n");
  /* a pure call that is not elementwise; only its own statement falls back */
  Expr *pure = ir_call(&A, DT_F32, "tir.myfunc", CALL_PURE, 1, (Expr *[]){V(x)});
  Stmt *items[2] = {store(buf_b, V(x), pure), store(buf_a, V(x), F(0))};
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), ir_seq(&A, 2, items)))),
             "for (x.s: int32, 0, 4) {\n"
             "  B[x.s] = @tir.myfunc(x.s, dtype=float32)\n"
             "}\n"
             "A[ramp(0, 1, 4)] = broadcast(0f32, 4)\n");
  /* if_then_else whose condition differs across lanes: vector code when its branches may be
   * computed in every lane (the back ends mask the loads of the lanes that do not take a
   * branch), lane by lane when one divides integers or calls something not elementwise; one
   * whose condition does not differ widens */
  Expr *args[3] = {lt(V(x), I(2)), load(buf_a, V(x)), F(2)};
  Expr *ite = ir_call(&A, DT_F32, "tir.if_then_else", CALL_PURE, 3, args);
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), store(buf_b, V(x), ite)))),
             "B[ramp(0, 1, 4)] = @tir.if_then_else((ramp(0, 1, 4) < broadcast(2, 4)), "
             "A[ramp(0, 1, 4)], broadcast(2f32, 4), dtype=float32x4)\n");
  Expr *q = ir_binary(&A, EXPR_FLOORDIV, I(12), add(V(x), I(1)));
  Expr *args_div[3] = {lt(V(x), I(2)), q, I(0)};
  Expr *ite_div = ir_call(&A, DT_I32, "tir.if_then_else", CALL_PURE, 3, args_div);
  CHECK(strstr(ps(vectorize(vloop(x, I(0), I(4), store(buf_c, V(x), ite_div)))),
               "for (x.s: int32, 0, 4) {\n") != NULL);
  Expr *args_call[3] = {lt(V(x), I(2)), pure, F(2)};
  Expr *ite_call = ir_call(&A, DT_F32, "tir.if_then_else", CALL_PURE, 3, args_call);
  CHECK(strstr(ps(vectorize(vloop(x, I(0), I(4), store(buf_b, V(x), ite_call)))),
               "for (x.s: int32, 0, 4) {\n") != NULL);
  Expr *args2[3] = {lt(V(n), I(2)), load(buf_a, V(x)), F(2)};
  Expr *ite2 = ir_call(&A, DT_F32, "tir.if_then_else", CALL_PURE, 3, args2);
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), store(buf_b, V(x), ite2)))),
             "B[ramp(0, 1, 4)] = @tir.if_then_else((n < 2), A[ramp(0, 1, 4)], broadcast(2f32, 4), "
             "dtype=float32x4)\n");
  /* every lane writing one address (a reduction over x) keeps the loop's order */
  Stmt *red = store(buf_b, I(0), add(load(buf_b, I(0)), load(buf_a, V(x))));
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), red))), "for (x.s: int32, 0, 4) {\n"
                                                       "  B[0] = (B[0] + A[x.s])\n"
                                                       "}\n");
  /* a loop whose extent depends on x; a min != 0 is added back */
  Stmt *inner = loop(o, V(x), store(buf_b, add(mul(V(x), I(8)), V(o)), F(0)));
  CHECK_TEXT(ps(vectorize(vloop(x, I(1), I(4), inner))), "for (x.s: int32, 0, 4) {\n"
                                                         "  for (o: int32, 0, (1 + x.s)) {\n"
                                                         "    B[(((1 + x.s)*8) + o)] = 0f32\n"
                                                         "  }\n"
                                                         "}\n");
}

static void test_vectorize_loop_serial(void) {
  Stmt *body = store(buf_b, V(x), F(1));
  /* a non-constant extent */
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), V(n), body))), "for (x: int32, 0, n) {\n"
                                                        "  B[x] = 1f32\n"
                                                        "}\n");
  /* tir.disable_vectorize */
  CHECK_TEXT(ps(vectorize_with(vloop(x, I(0), I(4), body), 1, &disable)), "for (x: int32, 0, 4) {\n"
                                                                          "  B[x] = 1f32\n"
                                                                          "}\n");
  /* extent 1: the body at the minimum */
  CHECK_TEXT(ps(vectorize(vloop(x, I(3), I(1), body))), "B[3] = 1f32\n");
  /* a vectorized loop inside another runs as a plain loop, its body vectorized by the outer */
  Stmt *nested = vloop(x, I(0), I(4), vloop(o, I(0), I(2), store(buf_b, ox(), F(1))));
  CHECK_TEXT(ps(vectorize(nested)), "for (o: int32, 0, 2) {\n"
                                    "  B[ramp((o*4), 1, 4)] = broadcast(1f32, 4)\n"
                                    "}\n");
}

/* an allocation inside the loop: one copy per lane */
static void test_vectorize_loop_allocate(void) {
  Buffer *t = buffer("T", DT_F32);
  Stmt *items[2] = {store(t, I(0), load(buf_a, V(x))), store(buf_b, V(x), load(t, I(0)))};
  Stmt *s = vloop(
      x, I(0), I(4),
      ir_allocate(&A, t->data, DT_F32, 1, (Expr *[]){I(1)}, "local", NULL, ir_seq(&A, 2, items)));
  CHECK_TEXT(ps(vectorize(s)),
             "allocate(T: Pointer(local float32), float32, [4]), storage_scope = local {\n"
             "  T[ramp(0, 1, 4)] = A[ramp(0, 1, 4)]\n"
             "  B[ramp(0, 1, 4)] = T[ramp(0, 1, 4)]\n"
             "}\n");
}

/* the producer of a compute_at at the vectorized axis, with its own loop: T[j] per lane is
 * T[j*4 + x]; an allocation of no extents gets one per lane too */
static void test_vectorize_loop_allocate_loop(void) {
  Buffer *t = buffer("T", DT_F32), *u = buffer("U", DT_F32);
  Var *j = var("j");
  Expr *sum = add(add(load(t, I(0)), load(t, I(1))), load(u, I(0)));
  Stmt *items[3] = {loop(j, I(3), store(t, V(j), load(buf_a, add(ox(), V(j))))),
                    store(u, I(0), load(buf_c, ox())), store(buf_b, ox(), sum)};
  Stmt *body = ir_allocate(&A, u->data, DT_F32, 0, NULL, "local", NULL, ir_seq(&A, 3, items));
  body = ir_allocate(&A, t->data, DT_F32, 1, (Expr *[]){I(3)}, "global", NULL, body);
  Stmt *r =
      pass_simplify(vectorize(loop(o, I(2), vloop(x, I(0), I(4), body))), &(PassCtx){.arena = &A});
  CHECK_TEXT(ps(r), "for (o: int32, 0, 2) {\n"
                    "  allocate(T: Pointer(global float32), float32, [12]), storage_scope = "
                    "global;\n"
                    "  allocate(U: Pointer(local float32), float32, [4]), storage_scope = local "
                    "{\n"
                    "    for (j: int32, 0, 3) {\n"
                    "      T[ramp((j*4), 1, 4)] = A[ramp(((o*4) + j), 1, 4)]\n"
                    "    }\n"
                    "    U[ramp(0, 1, 4)] = C[ramp((o*4), 1, 4)]\n"
                    "    B[ramp((o*4), 1, 4)] = ((T[ramp(0, 1, 4)] + T[ramp(4, 1, 4)]) + "
                    "U[ramp(0, 1, 4)])\n"
                    "  }\n"
                    "}\n");
  /* an extent that differs across lanes: each lane allocates its own, one after another */
  Stmt *own = ir_allocate(&A, t->data, DT_F32, 1, (Expr *[]){add(V(x), I(1))}, "global", NULL,
                          store(t, V(x), F(1)));
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), own))),
             "for (x.s: int32, 0, 4) {\n"
             "  allocate(T: Pointer(global float32), float32, [(x.s + 1)]), storage_scope = "
             "global;\n"
             "  T[x.s] = 1f32\n"
             "}\n");
}

/* a buffer shared by the lanes: vector code only where no lane touches what another writes */
static void test_vectorize_loop_shared(void) {
  Buffer *t = buffer("T", DT_F32);
  /* a compute_at producer whose allocation memory planning moved out of the loop */
  Stmt *items[2] = {store(t, I(0), load(buf_a, ox())), store(buf_b, ox(), load(t, I(0)))};
  Stmt *hoisted = ir_allocate(&A, t->data, DT_F32, 1, (Expr *[]){I(1)}, "global", NULL,
                              loop(o, I(2), vloop(x, I(0), I(4), ir_seq(&A, 2, items))));
  CHECK_TEXT(ps(vectorize(hoisted)),
             "allocate(T: Pointer(global float32), float32, [1]), storage_scope = global;\n"
             "for (o: int32, 0, 2) {\n"
             "  for (x: int32, 0, 4) {\n"
             "    T[0] = A[((o*4) + x)]\n"
             "    B[((o*4) + x)] = T[0]\n"
             "  }\n"
             "}\n");
  /* B[x] read back at B[x + 1]: another lane's element */
  Stmt *next[2] = {store(buf_b, V(x), load(buf_a, V(x))),
                   store(buf_c, V(x), load(buf_b, add(V(x), I(1))))};
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), ir_seq(&A, 2, next)))), "for (x: int32, 0, 4) {\n"
                                                                       "  B[x] = A[x]\n"
                                                                       "  C[x] = B[(x + 1)]\n"
                                                                       "}\n");
  /* B[2x] and B[2x + 1] never meet; a lane reading its own element is fine */
  Stmt *apart[3] = {store(buf_b, mul(V(x), I(2)), load(buf_a, V(x))),
                    store(buf_b, add(mul(V(x), I(2)), I(1)), F(0)),
                    store(buf_c, V(x), load(buf_b, mul(V(x), I(2))))};
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), ir_seq(&A, 3, apart)))),
             "B[ramp(0, 2, 4)] = A[ramp(0, 1, 4)]\n"
             "B[ramp(1, 2, 4)] = broadcast(0f32, 4)\n"
             "C[ramp(0, 1, 4)] = B[ramp(0, 2, 4)]\n");
  /* an inner loop over a row per lane: rows 8 apart, 3 long */
  Var *j = var("j");
  Stmt *rows = loop(j, I(3), store(buf_b, add(mul(V(x), I(8)), V(j)), load(buf_a, V(j))));
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), rows))), "for (j: int32, 0, 3) {\n"
                                                        "  B[ramp(j, 8, 4)] = broadcast(A[j], 4)\n"
                                                        "}\n");
  /* rows of 9 overlap the next lane's */
  Stmt *overlap = loop(j, I(9), store(buf_b, add(mul(V(x), I(8)), V(j)), load(buf_a, V(j))));
  CHECK(vectorize(vloop(x, I(0), I(4), overlap))->u.for_.var == x);
  /* a call with side effects keeps the loop's order */
  Expr *ext = ir_call(&A, DT_F32, "myfunc", CALL_EXTERN, 1, (Expr *[]){V(x)});
  Stmt *calls[2] = {store(buf_b, V(x), ext), store(buf_a, V(x), F(0))};
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), ir_seq(&A, 2, calls)))),
             "for (x: int32, 0, 4) {\n"
             "  B[x] = @tir.call_extern(\"myfunc\", x, dtype=float32)\n"
             "  A[x] = 0f32\n"
             "}\n");
  /* one statement storing one address from every lane: the last lane's value stays */
  CHECK_TEXT(ps(vectorize(vloop(x, I(0), I(4), store(buf_b, I(0), load(buf_a, V(x)))))),
             "for (x.s: int32, 0, 4) {\n"
             "  B[0] = A[x.s]\n"
             "}\n");
}

/* a let of a vector value binds a vector variable; a statement that falls back binds the
 * original again inside its loop */
static void test_vectorize_loop_lets(void) {
  Var *t = var("t");
  Stmt *items[2] = {store(buf_b, V(t), F(1)),
                    ir_if(&A, lt(V(t), V(n)), store(buf_c, V(t), F(2)), NULL)};
  Stmt *s = vloop(x, I(0), I(4), ir_let_stmt(&A, t, mul(V(x), I(2)), ir_seq(&A, 2, items)));
  Stmt *r = vectorize(s);
  CHECK_TEXT(ps(r), "let t: int32x4 = ramp(0, 2, 4)\n"
                    "B[t] = broadcast(1f32, 4)\n"
                    "for (x.s: int32, 0, 4) {\n"
                    "  let t: int32 = (x.s*2)\n"
                    "  if (t < n) {\n"
                    "    C[t] = 2f32\n"
                    "  }\n"
                    "}\n");
  CHECK(r->kind == STMT_LET && r->u.let.var != t && r->u.let.var->dtype.lanes == 4);
}

/* ---- randomized: vectorize + simplify compute what the scalar loop computes ---- */

enum { NA = 64, LANES = 8, NOUT = 4 };
static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void) { /* xorshift64: the same programs on every run */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static int64_t rnd_in(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}
static bool is_div(ExprKind k) {
  return k == EXPR_DIV || k == EXPR_MOD || k == EXPR_FLOORDIV || k == EXPR_FLOORMOD;
}
static Buffer *ia, *ib, *ic;
static int vectorized, total;

static Expr *gen_val(int depth);

static Expr *gen_cond(int depth) {
  static const ExprKind cmps[] = {EXPR_LT, EXPR_LE, EXPR_GT, EXPR_GE, EXPR_EQ, EXPR_NE};
  Expr *c = ir_binary(&A, cmps[rnd() % 6], gen_val(depth - 1), gen_val(depth - 1));
  if (rnd() % 4 == 0)
    c = ir_binary(&A, rnd() % 2 ? EXPR_AND : EXPR_OR, c,
                  ir_binary(&A, EXPR_LT, V(x), I(rnd_in(0, LANES))));
  return c;
}

static Expr *gen_leaf(void) {
  switch (rnd() % 6) {
  case 0:
  case 1:
    return V(x);
  case 2:
    return V(o);
  case 3:
    return I(rnd_in(-9, 9));
  default:
    return load(ia, ir_binary(&A, EXPR_FLOORMOD,
                              add(mul(V(x), I(rnd_in(1, 5))), mul(V(o), I(rnd_in(0, 9)))), I(NA)));
  }
}

static Expr *gen_val(int depth) {
  if (depth <= 0 || rnd() % 4 == 0) return gen_leaf();
  static const ExprKind ops[] = {EXPR_ADD, EXPR_SUB, EXPR_MUL, EXPR_FLOORDIV, EXPR_FLOORMOD,
                                 EXPR_MIN, EXPR_MAX, EXPR_DIV, EXPR_MOD};
  unsigned r = (unsigned)(rnd() % 12);
  if (r < 9) {
    ExprKind k = ops[r];
    Expr *b = k == EXPR_MUL ? gen_leaf()
              : is_div(k)   ? I(rnd_in(1, 7) * (rnd() % 3 ? 1 : -1))
                            : gen_val(depth - 1);
    return ir_binary(&A, k, gen_val(depth - 1), b);
  }
  Expr *c = gen_cond(depth), *t = gen_val(depth - 1), *f = gen_val(depth - 1);
  if (r == 9) return ir_select(&A, c, t, f);
  if (r == 10) {
    Expr *args[3] = {c, t, f};
    return ir_call(&A, DT_I32, "tir.if_then_else", CALL_PURE, 3, args);
  }
  Var *t2 = ir_var(&A, "lv", DT_I32);
  return ir_let(&A, t2, t, add(V(t2), f));
}

/* B[o*L + x] (or reversed) = a value, sometimes guarded, sometimes through a let */
static Stmt *gen_body(void) {
  Expr *idx = rnd() % 2 ? add(mul(V(o), I(LANES)), V(x))
                        : add(mul(V(o), I(LANES)), sub(I(LANES - 1), V(x)));
  Stmt *s = store(ib, idx, gen_val(3));
  unsigned r = (unsigned)(rnd() % 6);
  if (r == 0) s = ir_if(&A, gen_cond(2), s, store(ib, idx, I(-1)));
  if (r == 1) {
    Var *t = ir_var(&A, "t", DT_I32);
    Stmt *items[2] = {store(ic, add(mul(V(o), I(LANES)), V(x)), add(V(t), I(1))), s};
    s = ir_let_stmt(&A, t, gen_val(2), ir_seq(&A, 2, items));
  }
  return loop(o, I(NOUT), vloop(x, I(0), I(LANES), s));
}

static bool run(const Stmt *s, int32_t *b, int32_t *c) {
  static int32_t a[NA];
  for (int i = 0; i < NA; i++) a[i] = (int32_t)(i * 7 % 23) - 11;
  for (int i = 0; i < NOUT * LANES; i++) b[i] = c[i] = 12345;
  Buffer *bufs[3] = {ia, ib, ic};
  int32_t *data[3] = {a, b, c};
  int64_t sizes[3] = {NA, NOUT * LANES, NOUT * LANES};
  return eval_run(s, 3, bufs, data, sizes);
}

static bool has_ramp;
static Expr *find_ramp(IrMutator *m, Expr *e) {
  if (e->kind == EXPR_RAMP) has_ramp = true;
  return ir_mutate_children_expr(m, e);
}

static void check_random(Stmt *s) {
  int32_t b0[NOUT * LANES], c0[NOUT * LANES], b1[NOUT * LANES], c1[NOUT * LANES];
  if (!run(s, b0, c0)) return; /* the scalar program itself fails: no claim */
  PassCtx ctx = {.arena = &A};
  Stmt *v = pass_vectorize_loop(s, &ctx);
  Stmt *simple = pass_simplify(v, &ctx);
  total++;
  has_ramp = false;
  IrMutator m = {&A, find_ramp, NULL};
  ir_mutate_stmt(&m, simple);
  vectorized += has_ramp;
  const Stmt *both[2] = {v, simple};
  for (int k = 0; k < 2; k++) {
    bool ok = run(both[k], b1, c1);
    bool same = ok && memcmp(b0, b1, sizeof b0) == 0 && memcmp(c0, c1, sizeof c0) == 0;
    CHECK(same);
    if (!same && failed < 10) printf("scalar:\n%s", ps(s)), printf("after:\n%s", ps(both[k]));
  }
}

static void test_vectorize_loop_random(void) {
  for (int i = 0; i < 3000; i++) check_random(gen_body());
  /* the harness is not vacuous: most bodies do become vector code */
  CHECK(total > 2500 && vectorized * 2 > total);
}

/* ---- randomized: buffers the lanes share or own, inner loops, reductions ----
 * A temporary T (allocated inside the vector loop, outside the outer loop, or a parameter)
 * is written and read at indices that are or are not lane-dependent, in inner loops or not;
 * whatever the pass makes of it must compute what the scalar loops compute. */

enum { NT = 40, NJ = 3 };
static Buffer *it;
static Var *j;
static Expr *mx_min; /* the vector loop's min */

static Expr *lane_x(void) { return sub(V(x), mx_min); }

static Expr *gen_tidx(bool in_loop) {
  Expr *jj = in_loop ? V(j) : I(rnd_in(0, NJ - 1));
  switch (rnd() % 10) {
  case 0:
    return I(rnd_in(0, 3));
  case 1:
    return lane_x();
  case 2:
    return add(mul(jj, I(LANES)), lane_x());
  case 3:
    return add(mul(lane_x(), I(NJ)), jj);
  case 4:
    return jj;
  case 5:
    return ir_binary(&A, EXPR_FLOORDIV, lane_x(), I(2));
  case 6:
    return sub(I(LANES - 1), lane_x());
  case 7:
    return add(lane_x(), I(1));
  case 8:
    return add(mul(lane_x(), I(2)), I(rnd_in(0, 1)));
  default:
    return ir_binary(&A, EXPR_FLOORMOD, add(lane_x(), jj), I(LANES));
  }
}

static Expr *gen_tval(bool in_loop) {
  Expr *v = rnd() % 3 ? load(it, gen_tidx(in_loop)) : gen_val(1);
  return rnd() % 2 ? add(v, gen_leaf()) : v;
}

static Expr *out_idx(void) { return add(mul(V(o), I(LANES)), lane_x()); }

static Stmt *gen_tstmt(void) {
  switch (rnd() % 6) {
  case 0:
    return store(it, gen_tidx(false), gen_tval(false));
  case 1:
    return loop(j, I(NJ), store(it, gen_tidx(true), gen_tval(true)));
  case 2:
    return store(ib, out_idx(), gen_tval(false));
  case 3:
    return loop(j, I(NJ), store(ib, out_idx(), add(load(ib, out_idx()), gen_tval(true))));
  case 4: {
    Expr *i = gen_tidx(false);
    return store(it, i, add(load(it, i), gen_leaf()));
  }
  default:
    return ir_if(&A, gen_cond(1), store(ib, out_idx(), gen_tval(false)), NULL);
  }
}

static Stmt *t_alloc(Stmt *body) {
  return ir_allocate(&A, it->data, DT_I32, 1, (Expr *[]){I(NT)}, "global", NULL, body);
}

static Stmt *gen_mem_body(void) {
  mx_min = I(rnd() % 3 ? 0 : 2);
  int n = (int)rnd_in(2, 4);
  Stmt *items[4];
  for (int i = 0; i < n; i++) items[i] = gen_tstmt();
  Stmt *body = ir_seq(&A, n, items);
  unsigned where = (unsigned)(rnd() % 3);
  if (where == 0) body = t_alloc(body);
  Stmt *s = loop(o, I(NOUT), vloop(x, mx_min, I(LANES), body));
  return where == 1 ? t_alloc(s) : s;
}

static bool run_mem(const Stmt *s, int32_t *b, int32_t *t) {
  static int32_t a[NA], c[NOUT * LANES];
  for (int i = 0; i < NA; i++) a[i] = (int32_t)(i * 7 % 23) - 11;
  for (int i = 0; i < NOUT * LANES; i++) b[i] = i % 5;
  for (int i = 0; i < NT; i++) t[i] = i % 3;
  Buffer *bufs[4] = {ia, ib, ic, it};
  int32_t *data[4] = {a, b, c, t};
  int64_t sizes[4] = {NA, NOUT * LANES, NOUT * LANES, NT};
  return eval_run(s, 4, bufs, data, sizes);
}

static int mem_total, mem_vector;

static void check_random_mem(Stmt *s) {
  int32_t b0[NOUT * LANES], t0[NT], b1[NOUT * LANES], t1[NT];
  if (!run_mem(s, b0, t0)) return;
  PassCtx ctx = {.arena = &A};
  Stmt *v = pass_simplify(pass_vectorize_loop(s, &ctx), &ctx);
  mem_total++;
  has_ramp = false;
  IrMutator m = {&A, find_ramp, NULL};
  ir_mutate_stmt(&m, v);
  mem_vector += has_ramp;
  bool ok = run_mem(v, b1, t1);
  bool same = ok && memcmp(b0, b1, sizeof b0) == 0 && memcmp(t0, t1, sizeof t0) == 0;
  CHECK(same);
  if (!same && failed < 10) printf("scalar:\n%s", ps(s)), printf("after:\n%s", ps(v));
}

static void test_vectorize_loop_random_memory(void) {
  it = buffer("T", DT_I32);
  j = var("j");
  for (int i = 0; i < 4000; i++) check_random_mem(gen_mem_body());
  CHECK(mem_total > 3000 && mem_vector * 4 > mem_total);
  printf("random memory bodies: %d run, %d vectorized\n", mem_total, mem_vector);
}

int main(void) {
  arena_init(&A);
  x = var("x");
  o = var("o");
  n = var("n");
  buf_a = buffer("A", DT_F32);
  buf_b = buffer("B", DT_F32);
  buf_c = buffer("C", DT_F32);
  ia = buffer("A", DT_I32);
  ib = buffer("B", DT_I32);
  ic = buffer("C", DT_I32);
  test_vectorize_loop_unchanged();
  test_vectorize_loop_add();
  test_vectorize_loop_ramps();
  test_vectorize_loop_scalarize();
  test_vectorize_loop_serial();
  test_vectorize_loop_allocate();
  test_vectorize_loop_allocate_loop();
  test_vectorize_loop_shared();
  test_vectorize_loop_lets();
  test_vectorize_loop_random();
  test_vectorize_loop_random_memory();
  sb_free(&sb);
  arena_free(&A);
  return finish();
}
