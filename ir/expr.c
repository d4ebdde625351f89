/* expr.c: the constructors of the loop IR, with the dtype checks that keep every node
 * well-typed, plus constant tests and structural equality. */
#include "ir/expr.h"

#include <string.h>

#include "ir/support.h"
#include "ir/tensor.h"

const char *const ir_expr_kind_names[EXPR_KIND_COUNT] = {
#define IR_EXPR_NAME(k) #k,
    IR_EXPR_KINDS(IR_EXPR_NAME)
#undef IR_EXPR_NAME
};

const char *const ir_stmt_kind_names[STMT_KIND_COUNT] = {
#define IR_STMT_NAME(k) #k,
    IR_STMT_KINDS(IR_STMT_NAME)
#undef IR_STMT_NAME
};

/* Var ids only order Vars (creation order, for canonical forms); the interpreter is
 * single-threaded, so a plain counter will do. It stays process-wide rather than moving into the
 * Arena or the frontend's state (frontend/lang/state.h): it holds no memory, so there is nothing
 * for interp_free to release, and Vars of different arenas meet (a session's tensors in a
 * lowering's statements), so a per-arena counter would give two of them one id. */
static uint32_t next_var_id;

static const char *copy_str(Arena *a, const char *s) {
  return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

/* Arrays are copied so that callers may pass stack arrays and nodes stay immutable. */
static void *copy_array(Arena *a, const void *p, int n, size_t size) {
  if (n == 0) return NULL;
  void *q = arena_alloc(a, (size_t)n * size);
  memcpy(q, p, (size_t)n * size);
  return q;
}

static Expr *new_expr(Arena *a, ExprKind k, DType t) {
  Expr *e = arena_alloc(a, sizeof *e);
  e->kind = k;
  e->dtype = t;
  e->depth = 1;
  return e;
}

/* Makes e at least one level above child (NULL: none), so that the front end can refuse an
 * expression deeper than IR_MAX_DEPTH without walking it. */
static void above(Expr *e, const Expr *child) {
  if (child && child->depth >= e->depth) e->depth = child->depth + 1;
}

static void above_all(Expr *e, int n, Expr *const *children) {
  for (int i = 0; i < n; i++) above(e, children[i]);
}

static Stmt *new_stmt(Arena *a, StmtKind k) {
  Stmt *s = arena_alloc(a, sizeof *s);
  s->kind = k;
  return s;
}

static bool is_scalar_int(const Expr *e) { return dt_is_int(e->dtype) && e->dtype.lanes == 1; }
static bool is_bool(const Expr *e) { return dt_is_bool(e->dtype); }

Var *ir_var(Arena *a, const char *name, DType t) {
  Var *v = arena_alloc(a, sizeof *v);
  v->name = copy_str(a, name);
  v->dtype = t;
  v->id = next_var_id++;
  return v;
}

IterVar *ir_itervar(Arena *a, Var *v, Range dom, IterVarKind kind, const char *thread_tag) {
  TES_ASSERT(v, "itervar without a var");
  IterVar *iv = arena_alloc(a, sizeof *iv);
  iv->var = v;
  iv->dom = dom;
  iv->kind = kind;
  iv->thread_tag = copy_str(a, thread_tag);
  return iv;
}

/* ---- expressions ---- */

Expr *ir_int(Arena *a, DType t, int64_t v) {
  TES_ASSERT(t.lanes == 1 && (dt_is_int(t) || dt_is_bool(t)), "ir_int of a non-integer dtype");
  TES_ASSERT(!dt_is_bool(t) || v == 0 || v == 1, "bool constant %lld", (long long)v);
  Expr *e = new_expr(a, EXPR_INT, t);
  e->u.ival = v;
  return e;
}

Expr *ir_i32(Arena *a, int64_t v) { return ir_int(a, DT_I32, v); }

Expr *ir_float(Arena *a, DType t, double v) {
  TES_ASSERT(t.lanes == 1 && dt_is_float(t), "ir_float of a non-float dtype");
  Expr *e = new_expr(a, EXPR_FLOAT, t);
  e->u.fval = v;
  return e;
}

/* TVM gives StringImm the handle dtype: a string is passed by pointer. */
Expr *ir_str(Arena *a, const char *s) {
  Expr *e = new_expr(a, EXPR_STR, DT_HANDLE64);
  e->u.str = copy_str(a, s);
  return e;
}

Expr *ir_varref(Arena *a, Var *v) {
  Expr *e = new_expr(a, EXPR_VAR, v->dtype);
  e->u.var = v;
  return e;
}

Expr *ir_cast(Arena *a, DType t, Expr *x) {
  TES_ASSERT(t.lanes == x->dtype.lanes, "cast changes the lane count");
  Expr *e = new_expr(a, EXPR_CAST, t);
  e->u.unary.a = x;
  above(e, x);
  return e;
}

Expr *ir_binary(Arena *a, ExprKind k, Expr *x, Expr *y) {
  TES_ASSERT(k >= EXPR_ADD && k <= EXPR_OR, "ir_binary of %s", ir_expr_kind_names[k]);
  TES_ASSERT(dt_eq(x->dtype, y->dtype), "%s of two dtypes", ir_expr_kind_names[k]);
  DType t = x->dtype;
  if (k == EXPR_AND || k == EXPR_OR)
    TES_ASSERT(is_bool(x), "%s of non-bool operands", ir_expr_kind_names[k]);
  else if (k >= EXPR_EQ && k <= EXPR_GE)
    t = dt_with_lanes(DT_BOOL1, x->dtype.lanes);
  Expr *e = new_expr(a, k, t);
  e->u.bin.a = x;
  e->u.bin.b = y;
  above(e, x);
  above(e, y);
  return e;
}

Expr *ir_not(Arena *a, Expr *x) {
  TES_ASSERT(is_bool(x), "NOT of a non-bool operand");
  Expr *e = new_expr(a, EXPR_NOT, x->dtype);
  e->u.unary.a = x;
  above(e, x);
  return e;
}

Expr *ir_select(Arena *a, Expr *c, Expr *t, Expr *f) {
  TES_ASSERT(is_bool(c), "select on a non-bool condition");
  TES_ASSERT(dt_eq(t->dtype, f->dtype), "select's branches differ in dtype");
  TES_ASSERT(c->dtype.lanes == 1 || c->dtype.lanes == t->dtype.lanes, "select's lanes differ");
  Expr *e = new_expr(a, EXPR_SELECT, t->dtype);
  e->u.select.cond = c;
  e->u.select.t = t;
  e->u.select.f = f;
  above(e, c);
  above(e, t);
  above(e, f);
  return e;
}

Expr *ir_ramp(Arena *a, Expr *base, Expr *stride, int lanes) {
  TES_ASSERT(is_scalar_int(base) && dt_eq(base->dtype, stride->dtype),
             "ramp needs scalar integer base and stride of one dtype");
  TES_ASSERT(lanes > 1, "ramp of %d lanes", lanes);
  Expr *e = new_expr(a, EXPR_RAMP, dt_with_lanes(base->dtype, lanes));
  e->u.ramp.base = base;
  e->u.ramp.stride = stride;
  e->u.ramp.lanes = lanes;
  above(e, base);
  above(e, stride);
  return e;
}

Expr *ir_broadcast(Arena *a, Expr *v, int lanes) {
  TES_ASSERT(v->dtype.lanes == 1, "broadcast of a vector");
  TES_ASSERT(lanes > 1, "broadcast to %d lanes", lanes);
  Expr *e = new_expr(a, EXPR_BROADCAST, dt_with_lanes(v->dtype, lanes));
  e->u.bcast.value = v;
  e->u.bcast.lanes = lanes;
  above(e, v);
  return e;
}

Expr *ir_let(Arena *a, Var *v, Expr *value, Expr *body) {
  TES_ASSERT(dt_eq(v->dtype, value->dtype), "let %s binds a value of another dtype", v->name);
  Expr *e = new_expr(a, EXPR_LET, body->dtype);
  e->u.let.var = v;
  e->u.let.value = value;
  e->u.let.body = body;
  above(e, value);
  above(e, body);
  return e;
}

Expr *ir_call(Arena *a, DType t, const char *op, CallKind k, int n, Expr **args) {
  TES_ASSERT(op && n >= 0, "bad call");
  Expr *e = new_expr(a, EXPR_CALL, t);
  e->u.call.op = copy_str(a, op);
  e->u.call.ckind = k;
  e->u.call.n = n;
  e->u.call.args = copy_array(a, args, n, sizeof *args);
  above_all(e, n, args);
  return e;
}

/* A ramp index loads a vector, and so does a buffer of vectors (seeds/000_*.txt's softmax has
 * a float32x4 buffer): the lanes multiply. */
static DType access_dtype(const Buffer *b, const Expr *index) {
  return dt_with_lanes(b->dtype, b->dtype.lanes * index->dtype.lanes);
}

Expr *ir_load(Arena *a, Buffer *b, Expr *index, Expr *predicate) {
  TES_ASSERT(dt_is_int(index->dtype), "load of %s at a non-integer index", b->name);
  TES_ASSERT(!predicate || (is_bool(predicate) && predicate->dtype.lanes == index->dtype.lanes),
             "load predicate must be bool with the index's lanes");
  Expr *e = new_expr(a, EXPR_LOAD, access_dtype(b, index));
  e->u.load.buf = b;
  e->u.load.index = index;
  e->u.load.predicate = predicate;
  above(e, index);
  above(e, predicate);
  return e;
}

static void check_indices(const Tensor *t, int n, Expr **indices) {
  TES_ASSERT(n == t->ndim, "%s has %d dimensions, indexed with %d", t->name, t->ndim, n);
  for (int i = 0; i < n; i++)
    TES_ASSERT(dt_is_int(indices[i]->dtype), "%s indexed with a non-integer", t->name);
}

Expr *ir_pload(Arena *a, Tensor *t, int n, Expr **indices) {
  check_indices(t, n, indices);
  Expr *e = new_expr(a, EXPR_PRODUCER_LOAD, t->dtype);
  e->u.pload.tensor = t;
  e->u.pload.n = n;
  e->u.pload.indices = copy_array(a, indices, n, sizeof *indices);
  above_all(e, n, indices);
  return e;
}

Expr *ir_reduce(Arena *a, CommReducer *c, int nsrc, Expr **src, int naxis, IterVar **axis,
                Expr *cond, int value_index) {
  TES_ASSERT(nsrc == c->n && value_index >= 0 && value_index < nsrc, "bad reduce");
  TES_ASSERT(!cond || is_bool(cond), "reduce condition is not bool");
  Expr *e = new_expr(a, EXPR_REDUCE, src[value_index]->dtype);
  e->u.reduce.combiner = c;
  e->u.reduce.nsrc = nsrc;
  e->u.reduce.source = copy_array(a, src, nsrc, sizeof *src);
  e->u.reduce.naxis = naxis;
  e->u.reduce.axis = copy_array(a, axis, naxis, sizeof *axis);
  e->u.reduce.condition = cond;
  e->u.reduce.value_index = value_index;
  above_all(e, nsrc, src);
  above(e, cond);
  for (int i = 0; i < naxis; i++) {
    above(e, axis[i]->dom.min);
    above(e, axis[i]->dom.extent);
  }
  return e;
}

/* ---- statements ---- */

Stmt *ir_for(Arena *a, Var *v, Expr *min, Expr *extent, ForKind k, const char *tag, Stmt *body) {
  TES_ASSERT(dt_is_int(v->dtype) && v->dtype.lanes == 1, "loop %s is not a scalar int", v->name);
  TES_ASSERT(dt_eq(min->dtype, v->dtype) && dt_eq(extent->dtype, v->dtype),
             "loop %s: min and extent must have the loop variable's dtype", v->name);
  TES_ASSERT(body, "loop %s without a body", v->name);
  Stmt *s = new_stmt(a, STMT_FOR);
  s->u.for_.var = v;
  s->u.for_.min = min;
  s->u.for_.extent = extent;
  s->u.for_.fkind = k;
  s->u.for_.thread_tag = copy_str(a, tag);
  s->u.for_.body = body;
  return s;
}

Stmt *ir_if(Arena *a, Expr *cond, Stmt *then, Stmt *orelse) {
  TES_ASSERT(is_bool(cond) && cond->dtype.lanes == 1, "if on a non-bool condition");
  TES_ASSERT(then, "if without a then branch");
  Stmt *s = new_stmt(a, STMT_IF);
  s->u.if_.cond = cond;
  s->u.if_.then = then;
  s->u.if_.orelse = orelse;
  return s;
}

static int seq_count(int n, Stmt **items) {
  int count = 0;
  for (int i = 0; i < n; i++)
    if (items[i]) count += items[i]->kind == STMT_SEQ ? items[i]->u.seq.n : 1;
  return count;
}

/* NULL items are skipped, so that a pass may drop a statement by returning NULL for it; so
 * are empty SEQs (what a pass leaves of a loop of extent 0 or an `if` it proved false). */
Stmt *ir_seq(Arena *a, int n, Stmt **items) {
  int count = seq_count(n, items);
  if (count == 1)
    for (int i = 0; i < n; i++) {
      if (!items[i] || (items[i]->kind == STMT_SEQ && items[i]->u.seq.n == 0)) continue;
      return items[i]->kind == STMT_SEQ ? items[i]->u.seq.items[0] : items[i];
    }
  Stmt *s = new_stmt(a, STMT_SEQ);
  s->u.seq.n = count;
  s->u.seq.items = count ? arena_alloc(a, (size_t)count * sizeof(Stmt *)) : NULL;
  int j = 0;
  for (int i = 0; i < n; i++) {
    if (!items[i]) continue;
    if (items[i]->kind == STMT_SEQ)
      for (int k = 0; k < items[i]->u.seq.n; k++) s->u.seq.items[j++] = items[i]->u.seq.items[k];
    else
      s->u.seq.items[j++] = items[i];
  }
  return s;
}

Stmt *ir_store(Arena *a, Buffer *b, Expr *value, Expr *index, Expr *predicate) {
  TES_ASSERT(dt_is_int(index->dtype), "store to %s at a non-integer index", b->name);
  TES_ASSERT(value->dtype.lanes == access_dtype(b, index).lanes,
             "store to %s: value and index lanes differ", b->name);
  TES_ASSERT(!predicate || (is_bool(predicate) && predicate->dtype.lanes == index->dtype.lanes),
             "store predicate must be bool with the index's lanes");
  Stmt *s = new_stmt(a, STMT_STORE);
  s->u.store.buf = b;
  s->u.store.value = value;
  s->u.store.index = index;
  s->u.store.predicate = predicate;
  return s;
}

Stmt *ir_provide(Arena *a, Tensor *t, Expr *value, int n, Expr **indices) {
  check_indices(t, n, indices);
  TES_ASSERT(dt_eq(value->dtype, t->dtype), "provide to %s of another dtype", t->name);
  Stmt *s = new_stmt(a, STMT_PROVIDE);
  s->u.provide.tensor = t;
  s->u.provide.value = value;
  s->u.provide.n = n;
  s->u.provide.indices = copy_array(a, indices, n, sizeof *indices);
  return s;
}

Stmt *ir_realize(Arena *a, Tensor *t, int ndim, Range *bounds, Expr *cond, const char *scope,
                 Stmt *body) {
  TES_ASSERT(body && (!cond || is_bool(cond)), "bad realize of %s", t->name);
  Stmt *s = new_stmt(a, STMT_REALIZE);
  s->u.realize.tensor = t;
  s->u.realize.ndim = ndim;
  s->u.realize.bounds = copy_array(a, bounds, ndim, sizeof *bounds);
  s->u.realize.condition = cond;
  s->u.realize.scope = copy_str(a, scope);
  s->u.realize.body = body;
  return s;
}

Stmt *ir_allocate(Arena *a, Var *buf, DType t, int ndim, Expr **extents, const char *scope,
                  Expr *cond, Stmt *body) {
  TES_ASSERT(buf->dtype.code == DT_HANDLE, "allocate of %s: not a handle variable", buf->name);
  TES_ASSERT(body && (!cond || is_bool(cond)), "bad allocate of %s", buf->name);
  for (int i = 0; i < ndim; i++)
    TES_ASSERT(is_scalar_int(extents[i]), "allocate of %s: non-integer extent", buf->name);
  Stmt *s = new_stmt(a, STMT_ALLOCATE);
  s->u.alloc.buffer_var = buf;
  s->u.alloc.dtype = t;
  s->u.alloc.ndim = ndim;
  s->u.alloc.extents = copy_array(a, extents, ndim, sizeof *extents);
  s->u.alloc.scope = copy_str(a, scope);
  s->u.alloc.condition = cond;
  s->u.alloc.body = body;
  return s;
}

Stmt *ir_attr(Arena *a, AttrNodeKind nk, void *node, const char *key, Expr *value, Stmt *body) {
  TES_ASSERT(key && value && body, "incomplete attr");
  Stmt *s = new_stmt(a, STMT_ATTR);
  s->u.attr.nkind = nk;
  s->u.attr.node = node;
  s->u.attr.key = copy_str(a, key);
  s->u.attr.value = value;
  s->u.attr.body = body;
  return s;
}

Stmt *ir_let_stmt(Arena *a, Var *v, Expr *value, Stmt *body) {
  TES_ASSERT(dt_eq(v->dtype, value->dtype), "let %s binds a value of another dtype", v->name);
  TES_ASSERT(body, "let %s without a body", v->name);
  Stmt *s = new_stmt(a, STMT_LET);
  s->u.let.var = v;
  s->u.let.value = value;
  s->u.let.body = body;
  return s;
}

Stmt *ir_assert(Arena *a, Expr *cond, Expr *msg, Stmt *body) {
  TES_ASSERT(is_bool(cond) && msg && body, "bad assert");
  Stmt *s = new_stmt(a, STMT_ASSERT);
  s->u.assert_.cond = cond;
  s->u.assert_.msg = msg;
  s->u.assert_.body = body;
  return s;
}

Stmt *ir_evaluate(Arena *a, Expr *value) {
  TES_ASSERT(value, "evaluate of nothing");
  Stmt *s = new_stmt(a, STMT_EVALUATE);
  s->u.eval.value = value;
  return s;
}

/* ---- constants and equality ---- */

bool ir_as_int(const Expr *e, int64_t *out) {
  if (e->kind == EXPR_BROADCAST) e = e->u.bcast.value;
  if (e->kind != EXPR_INT) return false;
  *out = e->u.ival;
  return true;
}

bool ir_is_const_int(const Expr *e, int64_t v) {
  int64_t x;
  return ir_as_int(e, &x) && x == v;
}

static bool opt_equal(const Expr *a, const Expr *b) {
  return a == b || (a && b && ir_expr_equal(a, b));
}

static bool all_equal(int n, Expr *const *a, Expr *const *b) {
  for (int i = 0; i < n; i++)
    if (!ir_expr_equal(a[i], b[i])) return false;
  return true;
}

static bool reduce_equal(const Expr *a, const Expr *b) {
  if (a->u.reduce.combiner != b->u.reduce.combiner || a->u.reduce.nsrc != b->u.reduce.nsrc ||
      a->u.reduce.naxis != b->u.reduce.naxis || a->u.reduce.value_index != b->u.reduce.value_index)
    return false;
  for (int i = 0; i < a->u.reduce.naxis; i++)
    if (a->u.reduce.axis[i] != b->u.reduce.axis[i]) return false;
  return all_equal(a->u.reduce.nsrc, a->u.reduce.source, b->u.reduce.source) &&
         opt_equal(a->u.reduce.condition, b->u.reduce.condition);
}

bool ir_expr_equal(const Expr *a, const Expr *b) {
  if (a == b) return true;
  if (a->kind != b->kind || !dt_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case EXPR_INT:
    return a->u.ival == b->u.ival;
  /* bitwise, so that 0.0 and -0.0 differ and a NaN equals itself */
  case EXPR_FLOAT:
    return memcmp(&a->u.fval, &b->u.fval, sizeof(double)) == 0;
  case EXPR_STR:
    return strcmp(a->u.str, b->u.str) == 0;
  case EXPR_VAR:
    return a->u.var == b->u.var;
  case EXPR_CAST:
  case EXPR_NOT:
    return ir_expr_equal(a->u.unary.a, b->u.unary.a);
  IR_CASE_BINARY:
    return ir_expr_equal(a->u.bin.a, b->u.bin.a) && ir_expr_equal(a->u.bin.b, b->u.bin.b);
  case EXPR_SELECT:
    return ir_expr_equal(a->u.select.cond, b->u.select.cond) &&
           ir_expr_equal(a->u.select.t, b->u.select.t) &&
           ir_expr_equal(a->u.select.f, b->u.select.f);
  case EXPR_RAMP:
    return ir_expr_equal(a->u.ramp.base, b->u.ramp.base) &&
           ir_expr_equal(a->u.ramp.stride, b->u.ramp.stride);
  case EXPR_BROADCAST:
    return ir_expr_equal(a->u.bcast.value, b->u.bcast.value);
  case EXPR_LET:
    return a->u.let.var == b->u.let.var && ir_expr_equal(a->u.let.value, b->u.let.value) &&
           ir_expr_equal(a->u.let.body, b->u.let.body);
  case EXPR_CALL:
    return strcmp(a->u.call.op, b->u.call.op) == 0 && a->u.call.ckind == b->u.call.ckind &&
           a->u.call.n == b->u.call.n && all_equal(a->u.call.n, a->u.call.args, b->u.call.args);
  case EXPR_LOAD:
    return a->u.load.buf == b->u.load.buf && ir_expr_equal(a->u.load.index, b->u.load.index) &&
           opt_equal(a->u.load.predicate, b->u.load.predicate);
  case EXPR_PRODUCER_LOAD:
    return a->u.pload.tensor == b->u.pload.tensor && a->u.pload.n == b->u.pload.n &&
           all_equal(a->u.pload.n, a->u.pload.indices, b->u.pload.indices);
  case EXPR_REDUCE:
    return reduce_equal(a, b);
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}
