/* test_mutator.c: unit tests of ir/mutator.c: an unchanged tree comes back as the same
 * pointer, a change deep down rebuilds only the path above it, substitution, hooks that drop
 * statements, the visitor reaching every child, and ir_expr_any / ir_stmt_any (asked of every
 * node until the first match). */
#include <stdio.h>
#include <string.h>

#include "ir/expr.h"
#include "ir/tensor.h"
#include "tests/unit/check.h"

static Arena A;
static Buffer buf_b = {.name = "B", .dtype = DT_F32, .ndim = 1};
static Tensor tensor_c = {.name = "C", .dtype = DT_F32, .ndim = 2};

static Expr *i32(int64_t v) { return ir_i32(&A, v); }
static Expr *ref(Var *v) { return ir_varref(&A, v); }
static Expr *bin(ExprKind k, Expr *a, Expr *b) { return ir_binary(&A, k, a, b); }

/* A tree with every statement kind and most expression kinds, over the variables i, j, n. */
static Var *vi, *vj, *vn, *vbuf;
static Expr *deep_leaf; /* the `j` deepest inside the STORE's index */

static Stmt *build_tree(void) {
  vi = ir_var(&A, "i", DT_I32);
  vj = ir_var(&A, "j", DT_I32);
  vn = ir_var(&A, "n", DT_I32);
  vbuf = ir_var(&A, "B.local", DT_HANDLE64);
  deep_leaf = ref(vj);
  Expr *index = bin(EXPR_ADD, bin(EXPR_MUL, ref(vi), i32(16)), deep_leaf);
  Expr *likely_args[1] = {bin(EXPR_LT, index, ref(vn))};
  Expr *likely = ir_call(&A, DT_BOOL1, "tir.likely", CALL_PURE, 1, likely_args);
  Expr *value = ir_select(&A, likely, ir_load(&A, &buf_b, index, NULL), ir_float(&A, DT_F32, 0));
  Stmt *store = ir_store(&A, &buf_b, value, index, NULL);
  Expr *pidx[2] = {ref(vi), bin(EXPR_FLOORMOD, ref(vj), i32(4))};
  Stmt *provide = ir_provide(&A, &tensor_c, ir_cast(&A, DT_F32, ref(vn)), 2, pidx);
  Stmt *items[3] = {store, provide, ir_evaluate(&A, i32(0))};
  Stmt *inner = ir_for(&A, vj, i32(0), i32(16), FOR_VECTORIZED, NULL, ir_seq(&A, 3, items));
  Stmt *guarded = ir_if(&A, bin(EXPR_LT, ref(vi), ref(vn)), inner, ir_evaluate(&A, i32(1)));
  Stmt *outer = ir_for(&A, vi, i32(0), ir_binary(&A, EXPR_FLOORDIV, ref(vn), i32(16)), FOR_SERIAL,
                       NULL, guarded);
  Expr *ext = bin(EXPR_MAX, ref(vn), i32(1));
  Stmt *alloc = ir_allocate(&A, vbuf, DT_F32, 1, &ext, "local", NULL, outer);
  Stmt *let = ir_let_stmt(&A, vn, i32(64), alloc);
  Stmt *chk = ir_assert(&A, bin(EXPR_GT, ref(vn), i32(0)), ir_str(&A, "n > 0"), let);
  Range r[2] = {{i32(0), ref(vn)}, {i32(0), i32(4)}};
  Stmt *realize = ir_realize(&A, &tensor_c, 2, r, NULL, "global", chk);
  return ir_attr(&A, ATTR_NODE_VAR, vi, "pragma_x", ref(vn), realize);
}

/* A hook that changes nothing: the children come back as they are. */
static Expr *identity_expr(IrMutator *m, Expr *e) { return ir_mutate_children_expr(m, e); }

static void test_mutator_unchanged_shares(void) {
  Stmt *s = build_tree();
  IrMutator plain = {&A, NULL, NULL};
  CHECK(ir_mutate_stmt(&plain, s) == s);
  IrMutator hooked = {&A, identity_expr, NULL};
  CHECK(ir_mutate_stmt(&hooked, s) == s);
  Expr *e = s->u.attr.value;
  CHECK(ir_mutate_expr(&plain, e) == e);
  CHECK(ir_mutate_expr(&plain, NULL) == NULL);
}

/* Replaces the one Expr node deep_leaf (by pointer) with the constant 5. */
static Expr *replace_leaf(IrMutator *m, Expr *e) {
  return e == deep_leaf ? i32(5) : ir_mutate_children_expr(m, e);
}

static Stmt *find_store(Stmt *root) {
  Stmt *alloc = root->u.attr.body->u.realize.body->u.assert_.body->u.let.body;
  Stmt *inner = alloc->u.alloc.body->u.for_.body->u.if_.then;
  return inner->u.for_.body->u.seq.items[0];
}

static void test_mutator_rebuilds_path(void) {
  Stmt *s = build_tree();
  IrMutator m = {&A, replace_leaf, NULL};
  Stmt *t = ir_mutate_stmt(&m, s);
  CHECK(t != s && t->kind == STMT_ATTR);
  CHECK(t->u.attr.value == s->u.attr.value); /* off the path: shared */
  Stmt *rs = s->u.attr.body, *rt = t->u.attr.body;
  CHECK(rt != rs && rt->u.realize.bounds == rs->u.realize.bounds);
  Stmt *as = rs->u.realize.body->u.assert_.body->u.let.body;
  Stmt *at = rt->u.realize.body->u.assert_.body->u.let.body;
  CHECK(at != as && at->u.alloc.extents == as->u.alloc.extents); /* arrays copied only on change */
  Stmt *fs = as->u.alloc.body, *ft = at->u.alloc.body;
  CHECK(ft != fs && ft->u.for_.extent == fs->u.for_.extent && ft->u.for_.var == fs->u.for_.var);
  CHECK(ft->u.for_.body->u.if_.cond == fs->u.for_.body->u.if_.cond);
  CHECK(ft->u.for_.body->u.if_.orelse == fs->u.for_.body->u.if_.orelse);
  Stmt *seq_s = fs->u.for_.body->u.if_.then->u.for_.body;
  Stmt *seq_t = ft->u.for_.body->u.if_.then->u.for_.body;
  CHECK(seq_t != seq_s && seq_t->u.seq.items != seq_s->u.seq.items);
  CHECK(seq_t->u.seq.items[1] == seq_s->u.seq.items[1]); /* the provide does not use deep_leaf */
  CHECK(seq_t->u.seq.items[2] == seq_s->u.seq.items[2]);
  Stmt *st = find_store(t), *ss = find_store(s);
  CHECK(st != ss && ir_is_const_int(st->u.store.index->u.bin.b, 5));
  CHECK(st->u.store.index->u.bin.a == ss->u.store.index->u.bin.a); /* (i*16) is shared */
  /* the original is untouched */
  CHECK(ss->u.store.index->u.bin.b == deep_leaf);
}

static void test_mutator_substitute(void) {
  Stmt *s = build_tree();
  Var *k = ir_var(&A, "k", DT_I32);
  VarMap map[1] = {{vj, bin(EXPR_ADD, ref(k), i32(1))}};
  Stmt *t = ir_substitute_stmt(&A, s, 1, map);
  Stmt *st = find_store(t);
  Expr *want = bin(EXPR_ADD, bin(EXPR_MUL, ref(vi), i32(16)), bin(EXPR_ADD, ref(k), i32(1)));
  CHECK(ir_expr_equal(st->u.store.index, want));
  CHECK(ir_expr_equal(st->u.store.value->u.select.t->u.load.index, want));
  /* the loop keeps its variable: substitution replaces uses, not bindings */
  Stmt *alloc_t = t->u.attr.body->u.realize.body->u.assert_.body->u.let.body;
  CHECK(alloc_t->u.alloc.body->u.for_.body->u.if_.then->u.for_.var == vj);
  /* a map that matches nothing, or no map at all, changes nothing */
  VarMap none[1] = {{k, i32(0)}};
  CHECK(ir_substitute_stmt(&A, s, 1, none) == s);
  CHECK(ir_substitute_stmt(&A, s, 0, NULL) == s);
  Expr *e = bin(EXPR_MUL, ref(vi), ref(vn));
  VarMap two[2] = {{vi, i32(2)}, {vn, i32(3)}};
  CHECK(ir_expr_equal(ir_substitute_expr(&A, e, 2, two), bin(EXPR_MUL, i32(2), i32(3))));
}

static void test_mutator_reduce_axis(void) {
  Var *x = ir_var(&A, "x", DT_F32), *y = ir_var(&A, "y", DT_F32);
  Expr *sum = bin(EXPR_ADD, ref(x), ref(y)), *zero = ir_float(&A, DT_F32, 0);
  CommReducer c = {"sum", 1, &x, &y, &sum, &zero};
  Var *m = ir_var(&A, "m", DT_I32);
  IterVar *k = ir_itervar(&A, ir_var(&A, "k", DT_I32), (Range){i32(0), ref(m)}, ITER_REDUCE, NULL);
  Expr *src = ir_cast(&A, DT_F32, ref(k->var));
  Expr *r = ir_reduce(&A, &c, 1, &src, 1, &k, NULL, 0);
  VarMap map[1] = {{m, i32(10)}};
  Expr *t = ir_substitute_expr(&A, r, 1, map);
  CHECK(t != r && t->u.reduce.source == r->u.reduce.source);
  CHECK(t->u.reduce.axis[0] != k && t->u.reduce.axis[0]->var == k->var);
  CHECK(ir_is_const_int(t->u.reduce.axis[0]->dom.extent, 10));
}

/* A statement hook that drops every EVALUATE inside a SEQ and rebuilds the rest. */
static Stmt *drop_evaluate(IrMutator *m, Stmt *s) {
  if (s->kind == STMT_SEQ) {
    Stmt *items[8];
    int n = 0;
    for (int i = 0; i < s->u.seq.n; i++)
      if (s->u.seq.items[i]->kind != STMT_EVALUATE)
        items[n++] = ir_mutate_stmt(m, s->u.seq.items[i]);
    return n == s->u.seq.n ? ir_mutate_children_stmt(m, s) : ir_seq(m->arena, n, items);
  }
  return ir_mutate_children_stmt(m, s);
}

static void test_mutator_stmt_hook(void) {
  Stmt *s = build_tree();
  IrMutator m = {&A, NULL, drop_evaluate};
  Stmt *t = ir_mutate_stmt(&m, s);
  CHECK(t != s);
  Stmt *alloc_t = t->u.attr.body->u.realize.body->u.assert_.body->u.let.body;
  Stmt *body = alloc_t->u.alloc.body->u.for_.body->u.if_.then->u.for_.body;
  CHECK(body->kind == STMT_SEQ && body->u.seq.n == 2 &&
        body->u.seq.items[0] == find_store(s)); /* kept, shared */
}

/* Counts VAR references and statements of each kind. */
typedef struct CountCtx {
  IrVisitor v;
  int vars, stmts[STMT_KIND_COUNT];
} CountCtx;

static void count_expr(IrVisitor *v, const Expr *e) {
  if (e->kind == EXPR_VAR) ((CountCtx *)v)->vars++;
  ir_visit_children_expr(v, e);
}

static void count_stmt(IrVisitor *v, const Stmt *s) {
  ((CountCtx *)v)->stmts[s->kind]++;
  ir_visit_children_stmt(v, s);
}

static void test_mutator_visitor(void) {
  Stmt *s = build_tree();
  CountCtx cx = {{count_expr, count_stmt}, 0, {0}};
  ir_visit_stmt(&cx.v, s);
  for (int k = 0; k < STMT_KIND_COUNT; k++) {
    if (cx.stmts[k] == 0) printf("never visited %s\n", ir_stmt_kind_names[k]);
    CHECK(cx.stmts[k] > 0);
  }
  CHECK(cx.stmts[STMT_FOR] == 2 && cx.stmts[STMT_EVALUATE] == 2);
  /* attr value n; realize extent n; assert n; let -; alloc extent n; outer extent n;
   * if cond i, n; store index i, j (in the likely, the load and the store: the index node is
   * shared, so 3 visits) plus the likely's n; provide i, j, n */
  CHECK(cx.vars == 1 + 1 + 1 + 1 + 1 + 2 + 3 * 2 + 1 + 3);
  IrVisitor plain = {NULL, NULL};
  ir_visit_stmt(&plain, s); /* the NULL hooks walk everything without crashing */
  ir_visit_expr(&plain, NULL);
}

/* ---- ir_expr_any / ir_stmt_any ---- */

/* What a predicate was asked: how many expressions and statements, and whether it saw j. The
 * predicates get it as their const context; the tests own it, so writing it is fine. */
typedef struct Probe {
  int exprs, stmts;
  bool saw_j;
  ExprKind expr_kind; /* the kinds that match; EXPR_KIND_COUNT, STMT_KIND_COUNT: none */
  StmtKind stmt_kind;
  const Var *var; /* a VAR of it matches too (NULL: none) */
} Probe;

static bool probe_expr(const Expr *e, const void *ctx) {
  Probe *p = (Probe *)ctx;
  p->exprs++;
  if (e->kind == EXPR_VAR && e->u.var == vj) p->saw_j = true;
  return e->kind == p->expr_kind || (e->kind == EXPR_VAR && e->u.var == p->var);
}

static bool probe_stmt(const Stmt *s, const void *ctx) {
  Probe *p = (Probe *)ctx;
  p->stmts++;
  return s->kind == p->stmt_kind;
}

static Probe probe(ExprKind ek, StmtKind sk, const Var *var) {
  return (Probe){0, 0, false, ek, sk, var};
}

static void test_mutator_any_stops_early(void) {
  Var *a = ir_var(&A, "a", DT_I32), *b = ir_var(&A, "b", DT_I32), *c = ir_var(&A, "c", DT_I32);
  Expr *e = bin(EXPR_MUL, bin(EXPR_ADD, ref(a), ref(b)), ref(c));
  Probe p = probe(EXPR_KIND_COUNT, STMT_KIND_COUNT, a);
  CHECK(ir_expr_any(e, probe_expr, &p));
  CHECK(p.exprs == 3); /* the MUL, the ADD, a: b and c are never asked */
  p = probe(EXPR_MUL, STMT_KIND_COUNT, NULL);
  CHECK(ir_expr_any(e, probe_expr, &p) && p.exprs == 1); /* the root matches */
  /* a statement that matches is not entered: j lives only inside the outer loop */
  Stmt *s = build_tree();
  p = probe(EXPR_KIND_COUNT, STMT_FOR, NULL);
  CHECK(ir_stmt_any(s, probe_expr, probe_stmt, &p));
  CHECK(p.stmts == 6 && !p.saw_j); /* attr, realize, assert, let, allocate, the outer for */
  p = probe(EXPR_KIND_COUNT, STMT_FOR, NULL);
  CHECK(ir_stmt_any(s, NULL, probe_stmt, &p) && p.stmts == 6 && p.exprs == 0);
}

static void test_mutator_any_in_stmts(void) {
  Stmt *s = build_tree();
  /* the FLOORMOD is only in the Provide's index, three loops and a branch down */
  Probe p = probe(EXPR_FLOORMOD, STMT_KIND_COUNT, NULL);
  CHECK(ir_stmt_any(s, probe_expr, NULL, &p) && p.saw_j && p.stmts == 0);
  p = probe(EXPR_KIND_COUNT, STMT_PROVIDE, NULL);
  CHECK(ir_stmt_any(s, NULL, probe_stmt, &p) && p.exprs == 0);
  p = probe(EXPR_KIND_COUNT, STMT_KIND_COUNT, vj);
  CHECK(ir_stmt_any(s, probe_expr, NULL, &p));
  CHECK(ir_stmt_uses_var(s, vj) && ir_stmt_uses_var(s, vn));
  CHECK(!ir_stmt_uses_var(s, vbuf)); /* an allocation's variable is no expression of it */
}

static void test_mutator_any_no_match(void) {
  Stmt *s = build_tree();
  CountCtx all = {{count_expr, count_stmt}, 0, {0}};
  ir_visit_stmt(&all.v, s);
  int nstmts = 0;
  for (int k = 0; k < STMT_KIND_COUNT; k++) nstmts += all.stmts[k];
  Probe p = probe(EXPR_KIND_COUNT, STMT_KIND_COUNT, NULL);
  CHECK(!ir_stmt_any(s, probe_expr, probe_stmt, &p));
  CHECK(p.stmts == nstmts && p.saw_j); /* every statement asked, as the visitor walks them */
  int exprs = p.exprs;
  p = probe(EXPR_KIND_COUNT, STMT_KIND_COUNT, NULL);
  CHECK(!ir_stmt_any(s, probe_expr, NULL, &p) && p.exprs == exprs && p.stmts == 0);
  Expr *e = bin(EXPR_ADD, ref(vi), i32(1));
  p = probe(EXPR_KIND_COUNT, STMT_KIND_COUNT, NULL);
  CHECK(!ir_expr_any(e, probe_expr, &p) && p.exprs == 3);
  CHECK(!ir_expr_any(NULL, probe_expr, &p) && !ir_stmt_any(NULL, probe_expr, probe_stmt, &p));
  CHECK(p.exprs == 3 && p.stmts == 0); /* nothing asked of nothing */
  CHECK(!ir_expr_reads_memory(e) && !ir_expr_uses_var(e, vj) && ir_expr_uses_var(e, vi));
}

int main(void) {
  arena_init(&A);
  Expr *shape[2] = {ir_i32(&A, 4), ir_i32(&A, 4)};
  tensor_c.shape = shape;
  test_mutator_unchanged_shares();
  test_mutator_rebuilds_path();
  test_mutator_substitute();
  test_mutator_reduce_axis();
  test_mutator_stmt_hook();
  test_mutator_visitor();
  test_mutator_any_stops_early();
  test_mutator_any_in_stmts();
  test_mutator_any_no_match();
  arena_free(&A);
  return finish();
}
