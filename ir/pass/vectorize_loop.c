/* vectorize_loop: turns "vectorized" loops into vector code (TVM's tir.VectorizeLoop, after
 *   Halide's loop vectorizer).
 * Assumes: flat buffers of scalar elements; loops are plain after unrolling; allocations made
 *   per iteration of a vectorized loop are still inside it (tir.StorageRewrite leaves them).
 * Guarantees: a "vectorized" loop over x of constant extent L > 1 becomes its body with x
 *   replaced by ramp(min, 1, L): what depends on x widens to L lanes (float32x4 loads, stores,
 *   arithmetic, casts, selects and the math intrinsics), a scalar meeting a vector becomes
 *   broadcast(v, L), and ramp(b, s, L) + c, ramp(b, s, L) - c and ramp(b, s, L)*c (c > 0
 *   provably) fold into one ramp, as TVM builds them. An allocation inside the loop whose
 *   size is the same in every lane gets one copy per lane, as in TVM: its last extent times L,
 *   its accesses at index*L + (x - min). Vector code runs each statement for every lane before
 *   the next, so the loop is vectorized only when no lane touches an element another lane
 *   writes (lanes_independent: proved for every buffer stored to other than those copies, or
 *   that buffer is touched by one store statement only, which then runs lane by lane); when
 *   that is not proved, or the body calls something with side effects, the loop stays a serial
 *   loop (its inner vectorized loops are then vectorized on their own). A statement that cannot
 *   be vector code, because its condition, loop bounds or allocation size differ across lanes,
 *   or a call that is not elementwise, a ramp or broadcast of a vector, a vector-typed buffer
 *   or a tensor access gets a lane index is, as in TVM, run as `for (x.s, 0, L)` over its
 *   scalar form (with the lets it reads bound again inside); but an if_then_else whose
 *   condition differs across lanes, with branches safe to compute in any lane (maskable), stays
 *   vector code: the code generators evaluate each branch in its own lanes only. So is a store whose value varies
 *   across lanes but whose address does not: TVM would store a vector to broadcast(address),
 *   which loses all but one lane's update. A vectorized loop of extent 1 is its body at
 *   x = min; one of a non-constant extent, one nested in another, and every one when PassCtx
 *   sets "tir.VectorizeLoop" "disable" (tir.disable_vectorize) become serial loops. What holds
 *   no vectorized loop is returned as it is.
 * Why here: after unrolling, so that each unrolled copy is vectorized, and before the
 *   simplifier, which folds the ramps and broadcasts it leaves (ramp(0, 1, 4) + ...). */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/support.h"

/* A let inside the loop: what its variable now stands for, and its original value, which a
 * scalarized statement binds again when the variable became a vector. */
typedef struct LetBind {
  Var *var;
  Expr *to;
  Expr *value;
} LetBind;

typedef struct Vectorizer {
  IrMutator m;
  Analyzer *an;
  Var *x;
  int lanes;
  Expr *ramp;
  bool scalarize; /* an expression just visited cannot be vector code */
  int nlet, cap;
  LetBind *lets;
  int nforced, capforced;
  const Stmt **forced; /* stores that must run lane by lane (see lanes_independent) */
} Vectorizer;

static Expr *vec(Vectorizer *v, Expr *e);

static int lanes_of(const Expr *e) { return e ? e->dtype.lanes : 1; }
static int max_lanes(int a, int b) { return a > b ? a : b; }

/* e widened to n lanes, or NULL when it has some other number of lanes. */
static Expr *widen(Vectorizer *v, Expr *e, int n) {
  if (!e || lanes_of(e) == n) return e;
  if (e->kind == EXPR_BROADCAST && n % e->u.bcast.lanes == 0)
    return ir_broadcast(v->m.arena, e->u.bcast.value, n);
  return lanes_of(e) == 1 ? ir_broadcast(v->m.arena, e, n) : NULL;
}

/* Widens xs[0..n) in place to the most lanes among them; false (and scalarize) when one has
 * a lane count that does not fit. */
static bool widen_all(Vectorizer *v, int n, Expr **xs, int *lanes) {
  int l = 1;
  for (int i = 0; i < n; i++) l = max_lanes(l, lanes_of(xs[i]));
  for (int i = 0; i < n; i++) {
    Expr *w = widen(v, xs[i], l);
    if (xs[i] && !w) {
      v->scalarize = true;
      return false;
    }
    xs[i] = w;
  }
  *lanes = l;
  return true;
}

/* ---- expressions ---- */

static Expr *vec_binary(Vectorizer *v, Expr *e) {
  Expr *xs[2] = {vec(v, e->u.bin.a), vec(v, e->u.bin.b)};
  int l;
  if (xs[0] == e->u.bin.a && xs[1] == e->u.bin.b) return e;
  if (!widen_all(v, 2, xs, &l)) return e;
  return ir_binary(v->m.arena, e->kind, xs[0], xs[1]);
}

/* x + ramp(b, s) = ramp(x + b, s), ramp(b, s) - x = ramp(b - x, s), ... */
static Expr *vec_add_sub(Vectorizer *v, Expr *e) {
  Arena *a = v->m.arena;
  Expr *x = vec(v, e->u.bin.a), *y = vec(v, e->u.bin.b);
  if (x == e->u.bin.a && y == e->u.bin.b) return e;
  ExprKind k = e->kind;
  if (lanes_of(x) == 1 && y->kind == EXPR_RAMP)
    return ir_ramp(a, arith_binary(a, k, x, y->u.ramp.base),
                   arith_binary(a, k, arith_const(a, x->dtype, 0), y->u.ramp.stride),
                   y->u.ramp.lanes);
  if (lanes_of(y) == 1 && x->kind == EXPR_RAMP)
    return ir_ramp(a, arith_binary(a, k, x->u.ramp.base, y), x->u.ramp.stride, x->u.ramp.lanes);
  Expr *xs[2] = {x, y};
  int l;
  if (!widen_all(v, 2, xs, &l)) return e;
  return ir_binary(a, k, xs[0], xs[1]);
}

static bool positive(Vectorizer *v, Expr *c) {
  Arena *a = v->m.arena;
  return arith_can_prove(v->an, ir_binary(a, EXPR_GT, c, arith_const(a, c->dtype, 0)));
}

/* ramp(b, s)*c = ramp(b*c, s*c) for c > 0 (TVM keeps a ramp's stride positive this way). */
static Expr *vec_mul(Vectorizer *v, Expr *e) {
  Arena *a = v->m.arena;
  Expr *x = vec(v, e->u.bin.a), *y = vec(v, e->u.bin.b);
  if (x == e->u.bin.a && y == e->u.bin.b) return e;
  Expr *r = x->kind == EXPR_RAMP && lanes_of(y) == 1   ? x
            : y->kind == EXPR_RAMP && lanes_of(x) == 1 ? y
                                                       : NULL;
  Expr *c = r == x ? y : x;
  if (r && positive(v, c))
    return ir_ramp(a, arith_binary(a, EXPR_MUL, r->u.ramp.base, c),
                   arith_binary(a, EXPR_MUL, r->u.ramp.stride, c), r->u.ramp.lanes);
  Expr *xs[2] = {x, y};
  int l;
  if (!widen_all(v, 2, xs, &l)) return e;
  return ir_binary(a, EXPR_MUL, xs[0], xs[1]);
}

static Expr *vec_select(Vectorizer *v, Expr *e) {
  Expr *xs[3] = {vec(v, e->u.select.cond), vec(v, e->u.select.t), vec(v, e->u.select.f)};
  int l;
  if (xs[0] == e->u.select.cond && xs[1] == e->u.select.t && xs[2] == e->u.select.f) return e;
  if (!widen_all(v, 3, xs, &l)) return e;
  return ir_select(v->m.arena, xs[0], xs[1], xs[2]);
}

/* ramp and broadcast of what became a vector would need shuffles, which tes lacks. */
static Expr *vec_ramp(Vectorizer *v, Expr *e) {
  Expr *base = vec(v, e->u.ramp.base), *stride = vec(v, e->u.ramp.stride);
  if (base == e->u.ramp.base && stride == e->u.ramp.stride) return e;
  if (lanes_of(base) > 1 || lanes_of(stride) > 1) {
    v->scalarize = true;
    return e;
  }
  return ir_ramp(v->m.arena, base, stride, e->u.ramp.lanes);
}

static Expr *vec_broadcast(Vectorizer *v, Expr *e) {
  Expr *x = vec(v, e->u.bcast.value);
  if (x == e->u.bcast.value) return e;
  if (lanes_of(x) > 1) {
    v->scalarize = true;
    return e;
  }
  return ir_broadcast(v->m.arena, x, e->u.bcast.lanes);
}

static Expr *vec_cast(Vectorizer *v, Expr *e) {
  Expr *x = vec(v, e->u.unary.a);
  if (x == e->u.unary.a) return e;
  return ir_cast(v->m.arena, dt_with_lanes(e->dtype, lanes_of(x)), x);
}

/* The intrinsics that act lane by lane (TVM's TVectorizable ones). */
static bool elementwise(const char *op) {
  static const char *const ops[] = {
      "exp",        "exp2",       "exp10",       "erf",        "tanh",        "sigmoid",
      "sqrt",       "rsqrt",      "log",         "log2",       "log1p",       "log10",
      "tan",        "cos",        "cosh",        "sin",        "sinh",        "asin",
      "acos",       "atan",       "acosh",       "asinh",      "atanh",       "atan2",
      "hypot",      "copysign",   "nextafter",   "ldexp",      "pow",         "popcount",
      "fabs",       "floor",      "ceil",        "round",      "nearbyint",   "trunc",
      "likely",     "fma",        "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
      "shift_left", "shift_right"};
  if (strncmp(op, "tir.", 4) != 0) return false;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(op + 4, ops[i]) == 0) return true;
  return false;
}

/* Whether an expression may be evaluated in lanes its if_then_else does not take, its loads
 * masked off there: no integer division or modulo but by a constant other than 0 (a lane's
 * divisor may be 0 there) and no call other than the elementwise intrinsics and
 * if_then_else. */
static bool unmaskable(const Expr *e, const void *ctx) {
  (void)ctx;
  int64_t d;
  bool int_div = (e->kind == EXPR_DIV || e->kind == EXPR_MOD || e->kind == EXPR_FLOORDIV ||
                  e->kind == EXPR_FLOORMOD) && !dt_is_float(e->dtype) &&
                 !(ir_as_int(e->u.bin.b, &d) && d != 0);
  bool call = e->kind == EXPR_CALL && !(strncmp(e->u.call.op, "tir.", 4) == 0 &&
                                        (elementwise(e->u.call.op) ||
                                         strcmp(e->u.call.op, "tir.if_then_else") == 0));
  return int_div || call || e->kind == EXPR_PRODUCER_LOAD || e->kind == EXPR_REDUCE;
}

static bool maskable(const Expr *e) { return !ir_expr_any(e, unmaskable, NULL); }

/* if_then_else(c, t, f) with c the same in every lane: t and f widen. A c that differs across
 * lanes widens too when t and f are maskable (the code generators evaluate each branch only
 * in its own lanes: masked loads, or lane by lane); else the statement runs lane by lane. */
static Expr *vec_if_then_else(Vectorizer *v, Expr *e) {
  Expr *c = vec(v, e->u.call.args[0]);
  if (lanes_of(c) > 1) {
    if (!maskable(e->u.call.args[1]) || !maskable(e->u.call.args[2])) {
      v->scalarize = true;
      return e;
    }
    Expr *xs[3] = {c, vec(v, e->u.call.args[1]), vec(v, e->u.call.args[2])};
    int l;
    if (!widen_all(v, 3, xs, &l)) return e;
    return ir_call(v->m.arena, dt_with_lanes(e->dtype, l), e->u.call.op, e->u.call.ckind, 3, xs);
  }
  Expr *xs[3] = {c, vec(v, e->u.call.args[1]), vec(v, e->u.call.args[2])};
  int l;
  if (xs[0] == e->u.call.args[0] && xs[1] == e->u.call.args[1] && xs[2] == e->u.call.args[2])
    return e;
  if (!widen_all(v, 2, xs + 1, &l)) return e;
  return ir_call(v->m.arena, dt_with_lanes(e->dtype, l), e->u.call.op, e->u.call.ckind, 3, xs);
}

static Expr *vec_call(Vectorizer *v, Expr *e) {
  int n = e->u.call.n;
  if (strcmp(e->u.call.op, "tir.if_then_else") == 0 && n == 3) return vec_if_then_else(v, e);
  Expr **xs = arena_alloc(v->m.arena, (size_t)(n + 1) * sizeof *xs);
  bool changed = false, vector = false;
  for (int i = 0; i < n; i++) {
    xs[i] = vec(v, e->u.call.args[i]);
    changed |= xs[i] != e->u.call.args[i];
    vector |= lanes_of(xs[i]) > 1;
  }
  if (!changed) return e;
  int l = 1;
  if (vector && (!elementwise(e->u.call.op) || !widen_all(v, n, xs, &l))) {
    v->scalarize = true;
    return e;
  }
  return ir_call(v->m.arena, dt_with_lanes(e->dtype, l), e->u.call.op, e->u.call.ckind, n, xs);
}

static Expr *vec_load(Vectorizer *v, Expr *e) {
  Expr *xs[2] = {vec(v, e->u.load.index), vec(v, e->u.load.predicate)};
  int l;
  if (xs[0] == e->u.load.index && xs[1] == e->u.load.predicate) return e;
  if (e->u.load.buf->dtype.lanes > 1) {
    v->scalarize = true;
    return e;
  }
  if (!widen_all(v, 2, xs, &l)) return e;
  return ir_load(v->m.arena, e->u.load.buf, xs[0], xs[1]);
}

static void push_let(Vectorizer *v, Var *var, Expr *to, Expr *value) {
  VEC_GROW(v->m.arena, v->lets, v->cap, v->nlet + 1);
  v->lets[v->nlet++] = (LetBind){var, to, value};
}

/* A let whose value became a vector binds a new variable of the vector type. */
static Var *let_var(Vectorizer *v, Var *var, Expr *old, Expr *value) {
  if (lanes_of(value) == lanes_of(old)) return var;
  return ir_var(v->m.arena, var->name, value->dtype);
}

static Expr *vec_let(Vectorizer *v, Expr *e) {
  Expr *value = vec(v, e->u.let.value);
  Var *var = let_var(v, e->u.let.var, e->u.let.value, value);
  push_let(v, e->u.let.var, ir_varref(v->m.arena, var), e->u.let.value);
  Expr *body = vec(v, e->u.let.body);
  v->nlet--;
  if (var == e->u.let.var && value == e->u.let.value && body == e->u.let.body) return e;
  return ir_let(v->m.arena, var, value, body);
}

static Expr *vec_var(Vectorizer *v, Expr *e) {
  if (e->u.var == v->x) return v->ramp;
  for (int i = v->nlet - 1; i >= 0; i--)
    if (v->lets[i].var == e->u.var) return v->lets[i].to->u.var == e->u.var ? e : v->lets[i].to;
  return e;
}

/* A tensor access or a reduction (none remain after flattening) cannot take a lane index. */
static Expr *vec_opaque(Vectorizer *v, Expr *e) {
  if (ir_mutate_children_expr(&v->m, e) != e) v->scalarize = true;
  return e;
}

/* e with x a ramp; e itself when it does not read x (or when v->scalarize is set). */
static Expr *vec(Vectorizer *v, Expr *e) {
  if (!e) return NULL;
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STR:
    return e;
  case EXPR_VAR:
    return vec_var(v, e);
  case EXPR_CAST:
    return vec_cast(v, e);
  case EXPR_ADD:
  case EXPR_SUB:
    return vec_add_sub(v, e);
  case EXPR_MUL:
    return vec_mul(v, e);
  case EXPR_DIV:
  case EXPR_MOD:
  case EXPR_FLOORDIV:
  case EXPR_FLOORMOD:
  case EXPR_MIN:
  case EXPR_MAX:
  case EXPR_EQ:
  case EXPR_NE:
  case EXPR_LT:
  case EXPR_LE:
  case EXPR_GT:
  case EXPR_GE:
  case EXPR_AND:
  case EXPR_OR:
    return vec_binary(v, e);
  case EXPR_NOT: {
    Expr *x = vec(v, e->u.unary.a);
    return x == e->u.unary.a ? e : ir_not(v->m.arena, x);
  }
  case EXPR_SELECT:
    return vec_select(v, e);
  case EXPR_RAMP:
    return vec_ramp(v, e);
  case EXPR_BROADCAST:
    return vec_broadcast(v, e);
  case EXPR_LET:
    return vec_let(v, e);
  case EXPR_CALL:
    return vec_call(v, e);
  case EXPR_LOAD:
    return vec_load(v, e);
  case EXPR_PRODUCER_LOAD:
  case EXPR_REDUCE:
    return vec_opaque(v, e);
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* The mutator's hook, for vec_opaque's walk over children. */
static Expr *vec_hook(IrMutator *m, Expr *e) { return vec((Vectorizer *)m, e); }

/* ---- statements ---- */

/* Wraps s in the lets it reads (directly or through other lets) whose variables became
 * vectors, with their original values, innermost nearest to s. */
static Stmt *rebind_lets(Vectorizer *v, Stmt *s) {
  for (int i = v->nlet - 1; i >= 0; i--) {
    const LetBind *b = &v->lets[i];
    if (b->to->u.var != b->var && ir_stmt_uses_var(s, b->var))
      s = ir_let_stmt(v->m.arena, b->var, b->value, s);
  }
  return s;
}

/* `for (x.s, 0, L)` around s (as it was) with x replaced by x.s. */
static Stmt *scalarize(Vectorizer *v, Stmt *s) {
  Arena *a = v->m.arena;
  size_t n = strlen(v->x->name);
  char *name = arena_alloc(a, n + 3);
  memcpy(name, v->x->name, n);
  memcpy(name + n, ".s", 3);
  Var *idx = ir_var(a, name, v->x->dtype);
  VarMap map = {v->x, ir_binary(a, EXPR_ADD, v->ramp->u.ramp.base, ir_varref(a, idx))};
  if (ir_is_const_int(v->ramp->u.ramp.base, 0)) map.to = ir_varref(a, idx);
  Stmt *body = ir_substitute_stmt(a, rebind_lets(v, s), 1, &map);
  return ir_for(a, idx, ir_int(a, idx->dtype, 0), ir_int(a, idx->dtype, v->lanes), FOR_SERIAL, NULL,
                body);
}

static bool forced_scalar(const Vectorizer *v, const Stmt *s) {
  for (int i = 0; i < v->nforced; i++)
    if (v->forced[i] == s) return true;
  return false;
}

static Stmt *vec_store(Vectorizer *v, Stmt *s) {
  if (forced_scalar(v, s)) {
    v->scalarize = true;
    return s;
  }
  Expr *xs[3] = {vec(v, s->u.store.value), vec(v, s->u.store.index), vec(v, s->u.store.predicate)};
  int l;
  if (xs[0] == s->u.store.value && xs[1] == s->u.store.index && xs[2] == s->u.store.predicate)
    return s;
  if (s->u.store.buf->dtype.lanes > 1) {
    v->scalarize = true;
    return s;
  }
  /* every lane would write the one address: only the loop gets the order right */
  if (lanes_of(xs[1]) == 1 || !widen_all(v, 3, xs, &l)) {
    v->scalarize = true;
    return s;
  }
  return ir_store(v->m.arena, s->u.store.buf, xs[0], xs[1], xs[2]);
}

/* Loop bounds, `if` conditions, attr values and allocation sizes stay scalar. */
static bool scalar(Vectorizer *v, Expr *e) {
  if (lanes_of(e) > 1) v->scalarize = true;
  return !v->scalarize;
}

static Stmt *vec_for(Vectorizer *v, Stmt *s) {
  Expr *min = vec(v, s->u.for_.min), *ext = vec(v, s->u.for_.extent);
  if (!scalar(v, min) || !scalar(v, ext)) return s;
  Stmt *body = ir_mutate_stmt(&v->m, s->u.for_.body);
  /* TVM leaves a vectorized loop inside another one alone; it runs as a plain loop */
  ForKind k = s->u.for_.fkind == FOR_VECTORIZED ? FOR_SERIAL : s->u.for_.fkind;
  if (min == s->u.for_.min && ext == s->u.for_.extent && body == s->u.for_.body &&
      k == s->u.for_.fkind)
    return s;
  return ir_for(v->m.arena, s->u.for_.var, min, ext, k, s->u.for_.thread_tag, body);
}

static Stmt *vec_if(Vectorizer *v, Stmt *s) {
  Expr *cond = vec(v, s->u.if_.cond);
  if (!scalar(v, cond)) return s;
  Stmt *then = ir_mutate_stmt(&v->m, s->u.if_.then);
  Stmt *orelse = ir_mutate_stmt(&v->m, s->u.if_.orelse);
  if (cond == s->u.if_.cond && then == s->u.if_.then && orelse == s->u.if_.orelse) return s;
  return ir_if(v->m.arena, cond, then, orelse);
}

static Stmt *vec_let_stmt(Vectorizer *v, Stmt *s) {
  Expr *value = vec(v, s->u.let.value);
  if (v->scalarize) return s;
  Var *var = let_var(v, s->u.let.var, s->u.let.value, value);
  push_let(v, s->u.let.var, ir_varref(v->m.arena, var), s->u.let.value);
  Stmt *body = ir_mutate_stmt(&v->m, s->u.let.body);
  v->nlet--;
  if (var == s->u.let.var && value == s->u.let.value && body == s->u.let.body) return s;
  return ir_let_stmt(v->m.arena, var, value, body);
}

static Stmt *vec_attr(Vectorizer *v, Stmt *s) {
  Expr *value = vec(v, s->u.attr.value);
  if (!scalar(v, value)) return s;
  Stmt *body = ir_mutate_stmt(&v->m, s->u.attr.body);
  if (value == s->u.attr.value && body == s->u.attr.body) return s;
  return ir_attr(v->m.arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, value, body);
}

static Stmt *vec_assert(Vectorizer *v, Stmt *s) {
  Expr *cond = vec(v, s->u.assert_.cond), *msg = vec(v, s->u.assert_.msg);
  if (!scalar(v, cond) || !scalar(v, msg)) return s;
  Stmt *body = ir_mutate_stmt(&v->m, s->u.assert_.body);
  if (cond == s->u.assert_.cond && msg == s->u.assert_.msg && body == s->u.assert_.body) return s;
  return ir_assert(v->m.arena, cond, msg, body);
}

/* Extents and conditions stay scalar; vectorize_body widened what it could already. */
static Stmt *vec_allocate(Vectorizer *v, Stmt *s) {
  if (!scalar(v, vec(v, s->u.alloc.condition))) return s;
  for (int i = 0; i < s->u.alloc.ndim; i++)
    if (!scalar(v, vec(v, s->u.alloc.extents[i]))) return s;
  return ir_mutate_children_stmt(&v->m, s);
}

static Stmt *vec_kind(Vectorizer *v, Stmt *s) {
  switch (s->kind) {
  case STMT_STORE:
    return vec_store(v, s);
  case STMT_FOR:
    return vec_for(v, s);
  case STMT_IF:
    return vec_if(v, s);
  case STMT_LET:
    return vec_let_stmt(v, s);
  case STMT_ATTR:
    return vec_attr(v, s);
  case STMT_ASSERT:
    return vec_assert(v, s);
  case STMT_ALLOCATE:
    return vec_allocate(v, s);
  case STMT_EVALUATE: {
    Expr *x = vec(v, s->u.eval.value);
    return x == s->u.eval.value || v->scalarize ? s : ir_evaluate(v->m.arena, x);
  }
  case STMT_SEQ:
    return ir_mutate_children_stmt(&v->m, s);
  case STMT_PROVIDE:
  case STMT_REALIZE: /* none remain after flattening; they cannot take a lane index */
    if (ir_mutate_children_stmt(&v->m, s) != s) v->scalarize = true;
    return s;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

/* A statement an expression of which cannot be vector code runs lane by lane. */
static Stmt *vec_stmt(IrMutator *m, Stmt *s) {
  Vectorizer *v = (Vectorizer *)m;
  Stmt *r = vec_kind(v, s);
  if (!v->scalarize) return r;
  v->scalarize = false;
  return scalarize(v, s);
}

/* ---- one copy of each buffer allocated inside the loop per lane ---- */

static bool holds_var(int n, const Var *const *vars, const Var *v) {
  for (int i = 0; i < n; i++)
    if (vars[i] == v) return true;
  return false;
}

/* Whether an expression reads one of a list of variables. */
typedef struct VarList {
  int n;
  const Var *const *vars;
} VarList;

static bool listed_var(const Expr *e, const void *list) {
  const VarList *l = list;
  return e->kind == EXPR_VAR && holds_var(l->n, l->vars, e->u.var);
}

static bool reads_any(const Expr *e, int n, const Var *const *vars) {
  VarList l = {n, vars};
  return ir_expr_any(e, listed_var, &l);
}

/* a[i] becomes a[i*L + lane], lane = x - min, for the buffer a. */
typedef struct LaneAccess {
  IrMutator m;
  const Var *buf;
  Expr *lane;
  int lanes;
} LaneAccess;

static Expr *lane_index(LaneAccess *la, Expr *index) {
  Arena *a = la->m.arena;
  DType t = index->dtype;
  Expr *lane = arith_cast(a, dt_element(t), la->lane);
  if (t.lanes > 1) lane = ir_broadcast(a, lane, t.lanes);
  return arith_binary(a, EXPR_ADD, arith_binary(a, EXPR_MUL, index, arith_const(a, t, la->lanes)),
                      lane);
}

static Expr *lane_expr(IrMutator *m, Expr *e) {
  LaneAccess *la = (LaneAccess *)m;
  Expr *r = ir_mutate_children_expr(m, e);
  if (r->kind != EXPR_LOAD || r->u.load.buf->data != la->buf) return r;
  return ir_load(m->arena, r->u.load.buf, lane_index(la, r->u.load.index), r->u.load.predicate);
}

static Stmt *lane_stmt(IrMutator *m, Stmt *s) {
  LaneAccess *la = (LaneAccess *)m;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (r->kind != STMT_STORE || r->u.store.buf->data != la->buf) return r;
  return ir_store(m->arena, r->u.store.buf, r->u.store.value, lane_index(la, r->u.store.index),
                  r->u.store.predicate);
}

/* Walks the loop body widening allocations whose extents and condition read nothing bound
 * inside the loop (x, inner loop variables, lets); the others stay as they are (an extent
 * that differs across lanes makes its statement run lane by lane) and are not private. */
typedef struct Privatizer {
  IrMutator m;
  const Stmt *loop;
  int lanes;
  int nbound, capbound;
  const Var **bound; /* x, then what the body binds around the statement visited */
  int nown, capown;
  const Var **own; /* the buffers widened: each lane has its own */
} Privatizer;

static void bind_inner(Privatizer *p, const Var *v) {
  VEC_GROW(p->m.arena, p->bound, p->capbound, p->nbound + 1);
  p->bound[p->nbound++] = v;
}

static Stmt *widen_allocate(Privatizer *p, Stmt *s) {
  Arena *a = p->m.arena;
  int nd = s->u.alloc.ndim;
  bool fixed = !reads_any(s->u.alloc.condition, p->nbound, p->bound);
  for (int i = 0; i < nd; i++) fixed &= !reads_any(s->u.alloc.extents[i], p->nbound, p->bound);
  if (!fixed) return ir_mutate_children_stmt(&p->m, s);
  Expr **ext = arena_alloc(a, (size_t)(nd + 1) * sizeof *ext);
  for (int i = 0; i < nd; i++) ext[i] = s->u.alloc.extents[i];
  Expr *last = nd ? ext[nd - 1] : NULL;
  ext[nd ? nd - 1 : 0] =
      last ? arith_binary(a, EXPR_MUL, last, arith_const(a, last->dtype, p->lanes))
           : ir_i32(a, p->lanes);
  const Stmt *l = p->loop;
  Expr *lane = arith_binary(a, EXPR_SUB, ir_varref(a, l->u.for_.var), l->u.for_.min);
  LaneAccess la = {{a, lane_expr, lane_stmt}, s->u.alloc.buffer_var, lane, p->lanes};
  VEC_GROW(a, p->own, p->capown, p->nown + 1);
  p->own[p->nown++] = s->u.alloc.buffer_var;
  Stmt *body = ir_mutate_stmt(&p->m, ir_mutate_stmt(&la.m, s->u.alloc.body));
  return ir_allocate(a, s->u.alloc.buffer_var, s->u.alloc.dtype, nd ? nd : 1, ext, s->u.alloc.scope,
                     s->u.alloc.condition, body);
}

static Stmt *privatize_stmt(IrMutator *m, Stmt *s) {
  Privatizer *p = (Privatizer *)m;
  int nbound = p->nbound;
  if (s->kind == STMT_ALLOCATE) return widen_allocate(p, s);
  if (s->kind == STMT_FOR) bind_inner(p, s->u.for_.var);
  if (s->kind == STMT_LET) bind_inner(p, s->u.let.var);
  Stmt *r = ir_mutate_children_stmt(m, s);
  p->nbound = nbound;
  return r;
}

/* ---- whether the lanes may run in any order ----
 * The loop ran each iteration to the end before the next; vector code runs each statement
 * for every lane before the next statement (and an inner loop's iteration for every lane
 * before the next iteration). The two agree when no lane touches an element another lane
 * writes. Each lane has its own copy of the buffers widened above; every other buffer the
 * body stores to is checked here on the scalar body, access by access: an access at index
 * c*x + g(inner loop variables), with c the same constant for all accesses to the buffer,
 * keeps lanes apart when no difference of two g's is c times a lane distance 1..L-1 (by
 * bounds and modular facts). A buffer touched only by one store statement outside inner
 * loops (a reduction over x, a store at an index the analysis cannot read) is fine too when
 * that statement runs lane by lane. Anything else, and calls with side effects, leave the
 * loop serial. */

typedef struct InnerLoop {
  Var *var;
  Expr *min, *extent; /* lets inlined */
} InnerLoop;

typedef struct Access {
  const Stmt *stmt; /* the statement the access belongs to */
  const Buffer *buf;
  Expr *index; /* lets inlined, elem_offset added */
  bool store;
  int nloops;
  InnerLoop *loops; /* the loops inside the vector loop around it, outermost first */
} Access;

typedef struct LaneUses {
  IrVisitor v;
  Arena *a;
  const Stmt *stmt;
  int nlet, caplet;
  VarMap *lets;
  int nloop, caploop;
  InnerLoop *loops;
  int nacc, capacc;
  Access *acc;
  int nref, capref;
  const Var **refs; /* variables read as values */
  bool effect;      /* a call with side effects, or a statement the analysis cannot read */
} LaneUses;

static Expr *inline_lets(LaneUses *u, Expr *e) {
  return u->nlet ? ir_substitute_expr(u->a, e, u->nlet, u->lets) : e;
}

static void add_access(LaneUses *u, const Buffer *b, Expr *index, bool store) {
  Arena *a = u->a;
  Expr *i = inline_lets(u, index);
  if (b->elem_offset) i = arith_binary(a, EXPR_ADD, i, arith_cast(a, i->dtype, b->elem_offset));
  InnerLoop *loops = arena_alloc(a, (size_t)(u->nloop + 1) * sizeof *loops);
  if (u->nloop) memcpy(loops, u->loops, (size_t)u->nloop * sizeof *loops);
  VEC_GROW(a, u->acc, u->capacc, u->nacc + 1);
  u->acc[u->nacc++] = (Access){u->stmt, b, i, store, u->nloop, loops};
}

static void lane_uses_expr(IrVisitor *iv, const Expr *e) {
  LaneUses *u = (LaneUses *)iv;
  if (e->kind == EXPR_LOAD) add_access(u, e->u.load.buf, e->u.load.index, false);
  if (e->kind == EXPR_CALL && e->u.call.ckind != CALL_PURE) u->effect = true;
  if (e->kind == EXPR_VAR && !holds_var(u->nref, u->refs, e->u.var)) {
    VEC_GROW(u->a, u->refs, u->capref, u->nref + 1);
    u->refs[u->nref++] = e->u.var;
  }
  ir_visit_children_expr(iv, e);
}

static void uses_for(LaneUses *u, const Stmt *s) {
  ir_visit_expr(&u->v, s->u.for_.min);
  ir_visit_expr(&u->v, s->u.for_.extent);
  VEC_GROW(u->a, u->loops, u->caploop, u->nloop + 1);
  u->loops[u->nloop++] =
      (InnerLoop){s->u.for_.var, inline_lets(u, s->u.for_.min), inline_lets(u, s->u.for_.extent)};
  ir_visit_stmt(&u->v, s->u.for_.body);
  u->nloop--;
}

static void uses_let(LaneUses *u, const Stmt *s) {
  ir_visit_expr(&u->v, s->u.let.value);
  VEC_GROW(u->a, u->lets, u->caplet, u->nlet + 1);
  u->lets[u->nlet] = (VarMap){s->u.let.var, inline_lets(u, s->u.let.value)};
  u->nlet++;
  ir_visit_stmt(&u->v, s->u.let.body);
  u->nlet--;
}

static void lane_uses_stmt(IrVisitor *iv, const Stmt *s) {
  LaneUses *u = (LaneUses *)iv;
  const Stmt *outer = u->stmt;
  u->stmt = s;
  switch (s->kind) {
  case STMT_FOR:
    uses_for(u, s);
    break;
  case STMT_LET:
    uses_let(u, s);
    break;
  case STMT_STORE:
    add_access(u, s->u.store.buf, s->u.store.index, true);
    ir_visit_children_stmt(iv, s);
    break;
  case STMT_PROVIDE:
  case STMT_REALIZE: /* none remain after flattening */
    u->effect = true;
    break;
  case STMT_IF:
  case STMT_SEQ:
  case STMT_ALLOCATE:
  case STMT_ATTR:
  case STMT_ASSERT:
  case STMT_EVALUATE:
    ir_visit_children_stmt(iv, s);
    break;
  case STMT_KIND_COUNT:
    TES_UNREACHABLE();
  }
  u->stmt = outer;
}

typedef struct Lanes {
  Arena *a;
  const Stmt *loop;
  int lanes;
} Lanes;

static Expr *at_x(const Lanes *l, Expr *e, Expr *to) {
  VarMap map = {l->loop->u.for_.var, to};
  return ir_substitute_expr(l->a, e, 1, &map);
}

/* c with e = c*x + (what does not depend on x), when c is a constant. */
static bool lane_stride(const Lanes *l, Analyzer *an, Expr *e, int64_t *c) {
  Arena *a = l->a;
  Expr *x = ir_varref(a, l->loop->u.for_.var);
  Expr *next = at_x(l, e, ir_binary(a, EXPR_ADD, x, ir_int(a, x->dtype, 1)));
  Expr *d = arith_simplify(an, ir_binary(a, EXPR_SUB, next, e));
  return d->kind == EXPR_INT && ir_as_int(d, c);
}

/* Whether diff (the distance between the two accesses' elements at lane 0) is never c times
 * a lane distance 1..L-1. */
static bool lanes_apart(Analyzer *an, Expr *diff, int64_t c, int lanes) {
  ConstBound b = arith_const_bound(an, diff);
  ModularSet m = arith_modular_set(an, diff);
  for (int64_t d = 1 - lanes; d < lanes; d++) {
    int64_t v;
    if (d == 0) continue;
    if (__builtin_mul_overflow(c, d, &v)) return false;
    if (v < b.min || v > b.max) continue;
    if (m.coeff == 0 ? v != m.base : ((v - m.base) % m.coeff + m.coeff) % m.coeff != 0) continue;
    return false;
  }
  return true;
}

static void bind_loops(Analyzer *an, int n, const InnerLoop *loops) {
  for (int i = 0; i < n; i++) arith_bind(an, loops[i].var, (Range){loops[i].min, loops[i].extent});
}

/* p's inner loop variables renamed, so that p and q stand for two lanes at any iterations. */
static Expr *renamed(const Lanes *l, Analyzer *an, const Access *p) {
  Arena *a = l->a;
  VarMap *map = arena_alloc(a, (size_t)(p->nloops + 1) * sizeof *map);
  for (int i = 0; i < p->nloops; i++) {
    const InnerLoop *in = &p->loops[i];
    Var *v = ir_var(a, in->var->name, in->var->dtype);
    Range r = {ir_substitute_expr(a, in->min, i, map), ir_substitute_expr(a, in->extent, i, map)};
    arith_bind(an, v, r);
    map[i] = (VarMap){in->var, ir_varref(a, v)};
  }
  return ir_substitute_expr(a, p->index, p->nloops, map);
}

static bool pair_apart(const Lanes *l, const Access *p, const Access *q) {
  Arena *a = l->a;
  if (!dt_eq(p->buf->dtype, q->buf->dtype) || !dt_eq(p->index->dtype, q->index->dtype))
    return false;
  Analyzer *an = arith_new(a);
  const Stmt *loop = l->loop;
  arith_bind(an, loop->u.for_.var, (Range){loop->u.for_.min, ir_i32(a, l->lanes)});
  bind_loops(an, q->nloops, q->loops);
  Expr *pi = renamed(l, an, p);
  int64_t cp, cq;
  bool ok = lane_stride(l, an, pi, &cp) && lane_stride(l, an, q->index, &cq) && cp == cq;
  if (ok) {
    Expr *min = loop->u.for_.min;
    Expr *diff = ir_binary(a, EXPR_SUB, at_x(l, pi, min), at_x(l, q->index, min));
    ok = lanes_apart(an, arith_simplify(an, diff), cp, l->lanes);
  }
  arith_free(an);
  return ok;
}

/* Checks the pairs of accesses to one buffer (at most 32: more leave the loop serial). */
static bool accesses_apart(const Lanes *l, int n, const Access *const *acc) {
  if (n > 32) return false;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      if ((acc[i]->store || acc[j]->store) && !pair_apart(l, acc[i], acc[j])) return false;
  return true;
}

/* Whether every access is in one store statement outside inner loops. Its vector form keeps
 * the lanes' order when it only stores (a scatter stores lane after lane, and a value and
 * address the same in all lanes are stored once, as often as needed); when it also loads
 * from the buffer it must run lane by lane, and *lane_by_lane says so. */
static bool sole_store(int n, const Access *const *acc, bool *lane_by_lane) {
  const Stmt *s = acc[0]->stmt;
  *lane_by_lane = false;
  for (int i = 0; i < n; i++) {
    if (acc[i]->stmt != s || acc[i]->nloops > 0) return false;
    *lane_by_lane |= !acc[i]->store;
  }
  return s->kind == STMT_STORE;
}

/* Whether the lanes can run as vector code; adds to v->forced the stores that must run lane
 * by lane. */
static bool lanes_independent(Vectorizer *v, const Stmt *loop, Stmt *body, int nown,
                              const Var *const *own) {
  Arena *a = v->m.arena;
  LaneUses u = {.v = {lane_uses_expr, lane_uses_stmt}, .a = a};
  ir_visit_stmt(&u.v, body);
  if (u.effect) return false;
  Lanes l = {a, loop, v->lanes};
  const Access **same = arena_alloc(a, (size_t)(u.nacc + 1) * sizeof *same);
  for (int i = 0; i < u.nacc; i++) {
    const Var *data = u.acc[i].buf->data;
    if (!u.acc[i].store || holds_var(nown, own, data)) continue;
    int n = 0;
    bool first = true;
    for (int j = 0; j < u.nacc; j++) {
      if (u.acc[j].buf->data != data) continue;
      if (j < i && u.acc[j].store) first = false; /* checked with that store */
      same[n++] = &u.acc[j];
    }
    if (!first) continue;
    if (holds_var(u.nref, u.refs, data)) return false; /* its address escapes */
    if (accesses_apart(&l, n, same)) continue;
    bool lane_by_lane;
    if (!sole_store(n, same, &lane_by_lane)) return false;
    if (!lane_by_lane) continue;
    VEC_GROW(a, v->forced, v->capforced, v->nforced + 1);
    v->forced[v->nforced++] = same[0]->stmt;
  }
  return true;
}

/* ---- the loops ---- */

typedef struct LoopVectorizer {
  IrMutator m;
  Analyzer *an;
  bool disable;
} LoopVectorizer;

static Stmt *serial(Arena *a, const Stmt *s, Stmt *body) {
  return ir_for(a, s->u.for_.var, s->u.for_.min, s->u.for_.extent, FOR_SERIAL, s->u.for_.thread_tag,
                body);
}

static Stmt *vectorize(LoopVectorizer *lv, Stmt *s, int64_t lanes) {
  Arena *a = lv->m.arena;
  if (lanes == 1) {
    VarMap map = {s->u.for_.var, s->u.for_.min};
    return ir_mutate_stmt(&lv->m, ir_substitute_stmt(a, s->u.for_.body, 1, &map));
  }
  Expr *stride = ir_int(a, s->u.for_.var->dtype, 1);
  Vectorizer v = {.m = {a, vec_hook, vec_stmt},
                  .an = lv->an,
                  .x = s->u.for_.var,
                  .lanes = (int)lanes,
                  .ramp = ir_ramp(a, s->u.for_.min, stride, (int)lanes)};
  Privatizer p = {.m = {a, NULL, privatize_stmt}, .loop = s, .lanes = (int)lanes};
  bind_inner(&p, s->u.for_.var);
  Stmt *body = ir_mutate_stmt(&p.m, s->u.for_.body);
  if (!lanes_independent(&v, s, body, p.nown, p.own))
    return serial(a, s, ir_mutate_stmt(&lv->m, s->u.for_.body));
  return ir_mutate_stmt(&v.m, body);
}

static Stmt *loop_stmt(IrMutator *m, Stmt *s) {
  LoopVectorizer *lv = (LoopVectorizer *)m;
  if (s->kind != STMT_FOR || s->u.for_.fkind != FOR_VECTORIZED)
    return ir_mutate_children_stmt(m, s);
  int64_t lanes;
  Expr *ext = arith_simplify(lv->an, s->u.for_.extent);
  bool known = ext->kind == EXPR_INT && ir_as_int(ext, &lanes) && lanes >= 1 && lanes <= 65535 &&
               s->u.for_.min->dtype.lanes == 1;
  if (lv->disable || !known) return serial(m->arena, s, ir_mutate_stmt(m, s->u.for_.body));
  return vectorize(lv, s, lanes);
}

/* Outside vectorized loops expressions stay as they are. */
static Expr *keep_expr(IrMutator *m, Expr *e) { return e; }

Stmt *pass_vectorize_loop(Stmt *s, PassCtx *ctx) {
  LoopVectorizer lv = {{ctx->arena, keep_expr, loop_stmt},
                       arith_new(ctx->arena),
                       pass_option(ctx, "tir.VectorizeLoop", "disable", 0) != 0};
  Stmt *r = ir_mutate_stmt(&lv.m, s);
  arith_free(lv.an);
  return r;
}

/* ---- guarded loops, for the LLVM back end ---- */

/* Every load and store of s predicated by cond as well; false when s is more than stores and
 * lets of scalars (a loop, a branch, an allocation, a call statement, vector code stay). */
typedef struct Predicator {
  IrMutator m;
  Expr *cond;
  bool ok;
} Predicator;

static Expr *and_cond(Predicator *p, Expr *pred) {
  return pred ? ir_binary(p->m.arena, EXPR_AND, pred, p->cond) : p->cond;
}

static Expr *predicate_expr(IrMutator *m, Expr *e) {
  Predicator *p = (Predicator *)m;
  Expr *r = ir_mutate_children_expr(m, e);
  /* a body that is vector code already (an inner vectorized loop) is left as it is */
  if ((r->kind == EXPR_CALL && r->u.call.ckind != CALL_PURE) || r->dtype.lanes > 1) p->ok = false;
  if (r->kind != EXPR_LOAD || !p->ok) return r;
  return ir_load(m->arena, r->u.load.buf, r->u.load.index, and_cond(p, r->u.load.predicate));
}

static Stmt *predicate_stmt(IrMutator *m, Stmt *s) {
  Predicator *p = (Predicator *)m;
  if (s->kind != STMT_STORE && s->kind != STMT_SEQ && s->kind != STMT_LET) {
    p->ok = false;
    return s;
  }
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (r->kind != STMT_STORE || !p->ok) return r;
  return ir_store(m->arena, r->u.store.buf, r->u.store.value, r->u.store.index,
                  and_cond(p, r->u.store.predicate));
}

static bool not_straight(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind != STMT_STORE && s->kind != STMT_SEQ && s->kind != STMT_LET;
}

Stmt *vectorize_guarded_loop(Arena *a, const Stmt *loop) {
  int64_t lanes;
  if (loop->kind != STMT_FOR || loop->u.for_.fkind != FOR_SERIAL ||
      !ir_as_int(loop->u.for_.extent, &lanes) || lanes < 2 || lanes > 64 ||
      loop->u.for_.min->dtype.lanes != 1)
    return NULL;
  const Stmt *s = loop->u.for_.body;
  if (s->kind != STMT_IF || s->u.if_.orelse || s->u.if_.cond->dtype.lanes != 1 ||
      !ir_expr_uses_var(s->u.if_.cond, loop->u.for_.var))
    return NULL;
  Predicator p = {{a, predicate_expr, predicate_stmt}, s->u.if_.cond, true};
  Stmt *body = ir_mutate_stmt(&p.m, s->u.if_.then);
  if (!p.ok) return NULL;
  Stmt *vloop = ir_for(a, loop->u.for_.var, loop->u.for_.min, loop->u.for_.extent, FOR_VECTORIZED,
                       NULL, body);
  LoopVectorizer lv = {{a, keep_expr, loop_stmt}, arith_new(a), false};
  Stmt *r = vectorize(&lv, vloop, lanes);
  arith_free(lv.an);
  /* a statement the vectorizer had to run lane by lane (a loop of it, or the serial loop)
   * gains nothing over the loop as it was */
  return ir_stmt_any(r, NULL, not_straight, NULL) ? NULL : r;
}
