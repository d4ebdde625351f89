/* verify.c: the IR verifier (verify.h): one read-only walk over a body. What is in scope
 * (variables, and tensors before flattening) is counted in a PtrMap, since a Var is its
 * pointer: a binder raises the count for its body and lowers it after; parameters and thread
 * indices hold theirs for the whole walk. The walk stops at the first problem and reports it
 * with the statement it is in. */
#include "ir/verify.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/bounds.h"
#include "ir/printer.h"
#include "ir/ptrmap.h"

/* ---- what is in scope ---- */

/* A scope maps a key to how many of its binders are open, an intptr_t in a heap PtrMap. */
static intptr_t count_of(const PtrMap *sc, const void *k) { return (intptr_t)ptrmap_get(sc, k); }

static void add_count(PtrMap *sc, const void *k, intptr_t d) {
  void **c = ptrmap_slot(sc, k);
  *c = (void *)((intptr_t)*c + d);
}

static bool in_scope(const PtrMap *sc, const void *k) { return count_of(sc, k) > 0; }

/* ---- the walk and its reports ---- */

typedef struct Verifier {
  IrVisitor v;
  const PassCtx *ctx;
  bool flattened;
  const char *pass;
  Diag *diag; /* NULL: collecting unbound variables, nothing is reported */
  PtrMap scope;
  const Stmt *stmt; /* the innermost statement being checked, for the report */
  bool failed;
  /* accesses inside their allocations: what surrounds them (NULL an: not checked) */
  Analyzer *an;
  AccessNest nest;
  int dead; /* loops around here that run no iteration (constant extent <= 0) */
  bool address_taken; /* checking the element of @tir.address_of (a prefetch's) */
  int nallocs, cap_allocs;
  const Stmt **allocs; /* the ALLOCATEs open here, innermost last */
  /* ir_unbound_vars: a read of an unbound variable is collected (once: `collected` counts it)
   * rather than reported */
  bool collect;
  PtrMap collected;
  Var **unbound;
  int nunbound, cap_unbound;
} Verifier;

/* Longer nodes are cut: the report is one line of a Diag. */
enum { EXCERPT_CHARS = 160 };

/* The first line of a printed node, at most EXCERPT_CHARS of it. */
static void put_excerpt(StrBuf *out, StrBuf *text) {
  const char *s = sb_cstr(text);
  size_t n = strcspn(s, "\n");
  sb_putn(out, s, n > EXCERPT_CHARS ? EXCERPT_CHARS : n);
  if (n > EXCERPT_CHARS) sb_puts(out, "...");
}

/* "IR after PASS is malformed: WHAT: NODE", NODE the expression e (NULL: none) and then the
 * statement it is in. Returns false. */
static bool TES_PRINTF(3, 4) fail(Verifier *vf, const Expr *e, const char *fmt, ...) {
  if (vf->failed || !vf->diag) return vf->failed = true, false;
  vf->failed = true;
  StrBuf msg = STRBUF_INIT, text = STRBUF_INIT;
  va_list ap;
  sb_printf(&msg, "IR after %s is malformed: ", vf->pass);
  va_start(ap, fmt);
  sb_vprintf(&msg, fmt, ap);
  va_end(ap);
  sb_puts(&msg, ": ");
  if (e) {
    ir_print_expr(&text, e);
    put_excerpt(&msg, &text);
    sb_puts(&msg, ", in: ");
    text.len = 0;
  }
  ir_print_stmt(&text, vf->stmt, 0);
  put_excerpt(&msg, &text);
  /* the pass named in the message is where the bug is, not this file */
  ir_internal_error_at(vf->diag, NULL, 0, "%s", sb_cstr(&msg));
  sb_free(&text);
  sb_free(&msg);
  return false;
}

/* A condition or predicate (NULL: none): bool, with `lanes` lanes (0: any). */
static bool check_bool(Verifier *vf, const Expr *e, const char *what, int lanes) {
  char b[32];
  if (!e || (dt_is_bool(e->dtype) && (lanes == 0 || e->dtype.lanes == lanes))) return true;
  if (lanes > 1)
    return fail(vf, e, "%s has dtype %s, not bool of %d lanes", what, dt_name(e->dtype, b), lanes);
  return fail(vf, e, "%s has dtype %s, not bool", what, dt_name(e->dtype, b));
}

static bool check_scalar_int(Verifier *vf, const Expr *e, const char *what) {
  char b[32];
  if (dt_is_int(e->dtype) && e->dtype.lanes == 1) return true;
  return fail(vf, e, "%s has dtype %s, not a scalar integer", what, dt_name(e->dtype, b));
}

static bool check_dtype(Verifier *vf, const Expr *e, DType want, const char *what) {
  char b[32], c[32];
  if (dt_eq(e->dtype, want)) return true;
  return fail(vf, e, "%s has dtype %s, not %s", what, dt_name(e->dtype, b), dt_name(want, c));
}

/* ---- binders ---- */

static bool bind(Verifier *vf, const Var *var) {
  if (in_scope(&vf->scope, var))
    return fail(vf, NULL, "variable %s is bound again inside its own scope", var->name);
  add_count(&vf->scope, var, 1);
  return true;
}

static void unbind(Verifier *vf, const void *k) { add_count(&vf->scope, k, -1); }

/* For the whole walk: marks what the function has before its body runs. */
static void declare(Verifier *vf, const void *k) { ptrmap_put(&vf->scope, k, (void *)1); }

typedef struct Declarer {
  IrVisitor v;
  Verifier *vf;
} Declarer;

static void declare_vars_in(IrVisitor *v, const Expr *e) {
  if (e->kind == EXPR_VAR) declare(((Declarer *)v)->vf, e->u.var);
  ir_visit_children_expr(v, e);
}

static void declare_params(Verifier *vf) {
  Declarer d = {{declare_vars_in, NULL}, vf};
  for (int i = 0; i < vf->ctx->nbinds; i++) {
    const Buffer *b = vf->ctx->bind_buffers[i];
    declare(vf, b->data);
    declare(vf, vf->ctx->bind_tensors[i]);
    for (int k = 0; k < b->ndim; k++) {
      ir_visit_expr(&d.v, b->shape[k]);
      if (b->strides) ir_visit_expr(&d.v, b->strides[k]);
    }
    ir_visit_expr(&d.v, b->elem_offset);
  }
  for (int i = 0; i < vf->ctx->nfree; i++) declare(vf, vf->ctx->free_vars[i]);
}

static bool is_thread_launch(const Stmt *s) {
  return s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR &&
         strcmp(s->u.attr.key, "thread_extent") == 0;
}

static void skip_expr(IrVisitor *v, const Expr *e) { (void)v, (void)e; }

static void declare_thread(IrVisitor *v, const Stmt *s) {
  if (is_thread_launch(s)) declare(((Declarer *)v)->vf, ((const IterVar *)s->u.attr.node)->var);
  ir_visit_children_stmt(v, s);
}

static void declare_threads(Verifier *vf, const Stmt *body) {
  Declarer d = {{skip_expr, declare_thread}, vf};
  ir_visit_stmt(&d.v, body);
}

/* ---- expressions ---- */

static void collect_unbound(Verifier *vf, Var *v) {
  if (count_of(&vf->collected, v)) return;
  add_count(&vf->collected, v, 1);
  VEC_GROW(NULL, vf->unbound, vf->cap_unbound, vf->nunbound + 1);
  vf->unbound[vf->nunbound++] = v;
}

static bool check_var(Verifier *vf, const Expr *e) {
  if (!in_scope(&vf->scope, e->u.var)) {
    if (!vf->collect) return fail(vf, NULL, "variable %s is not bound", e->u.var->name);
    collect_unbound(vf, e->u.var);
  }
  return check_dtype(vf, e, e->u.var->dtype, "a variable reference");
}

static bool is_compare(ExprKind k) { return k >= EXPR_EQ && k <= EXPR_GE; }

static bool check_binary(Verifier *vf, const Expr *e) {
  char a[32], b[32];
  DType ta = e->u.bin.a->dtype, tb = e->u.bin.b->dtype;
  if (!dt_eq(ta, tb))
    return fail(vf, e, "the operands of %s differ in dtype (%s and %s)",
                ir_expr_kind_names[e->kind], dt_name(ta, a), dt_name(tb, b));
  if ((e->kind == EXPR_AND || e->kind == EXPR_OR) && !dt_is_bool(ta))
    return fail(vf, e, "%s of %s operands", ir_expr_kind_names[e->kind], dt_name(ta, a));
  DType want = is_compare(e->kind) ? dt_with_lanes(DT_BOOL1, ta.lanes) : ta;
  return check_dtype(vf, e, want, ir_expr_kind_names[e->kind]);
}

static bool check_select(Verifier *vf, const Expr *e) {
  const Expr *c = e->u.select.cond;
  return check_bool(vf, c, "a select's condition", c->dtype.lanes == 1 ? 1 : e->dtype.lanes) &&
         check_dtype(vf, e->u.select.t, e->dtype, "a select's true value") &&
         check_dtype(vf, e->u.select.f, e->dtype, "a select's false value");
}

static bool check_ramp(Verifier *vf, const Expr *e) {
  const Expr *base = e->u.ramp.base;
  if (!check_scalar_int(vf, base, "a ramp's base") ||
      !check_dtype(vf, e->u.ramp.stride, base->dtype, "a ramp's stride"))
    return false;
  if (e->u.ramp.lanes < 2) return fail(vf, e, "a ramp of %d lanes", e->u.ramp.lanes);
  return check_dtype(vf, e, dt_with_lanes(base->dtype, e->u.ramp.lanes), "a ramp");
}

static bool check_broadcast(Verifier *vf, const Expr *e) {
  const Expr *v = e->u.bcast.value;
  if (v->dtype.lanes != 1) return fail(vf, e, "a broadcast of a vector");
  if (e->u.bcast.lanes < 2) return fail(vf, e, "a broadcast to %d lanes", e->u.bcast.lanes);
  return check_dtype(vf, e, dt_with_lanes(v->dtype, e->u.bcast.lanes), "a broadcast");
}

/* The calls whose arguments the printer's forms give a meaning: likely and if_then_else. */
static bool check_call(Verifier *vf, const Expr *e) {
  const char *op = e->u.call.op;
  Expr *const *args = e->u.call.args;
  if (strcmp(op, "tir.likely") == 0)
    return e->u.call.n == 1 ? check_bool(vf, args[0], "likely's argument", e->dtype.lanes)
                            : fail(vf, e, "likely of %d arguments", e->u.call.n);
  if (strcmp(op, "tir.if_then_else") != 0) return true;
  if (e->u.call.n != 3) return fail(vf, e, "if_then_else of %d arguments", e->u.call.n);
  return check_bool(vf, args[0], "if_then_else's condition", 0) &&
         check_dtype(vf, args[1], e->dtype, "if_then_else's true value") &&
         check_dtype(vf, args[2], e->dtype, "if_then_else's false value");
}

/* ---- accesses inside their allocations ---- */

static const Stmt *allocation_of(const Verifier *vf, const Var *data) {
  for (int i = vf->nallocs - 1; i >= 0; i--)
    if (vf->allocs[i]->u.alloc.buffer_var == data) return vf->allocs[i];
  return NULL;
}

/* One scalar index of buffer b against count: wrong when it certainly leaves it. */
static bool check_index_in(Verifier *vf, const Expr *node, const Buffer *b, Expr *index,
                           Expr *count) {
  ConstBound r;
  char rb[64];
  if (ir_index_verdict(vf->an, vf->ctx->arena, &vf->nest, index, count, &r) != IDX_OUTSIDE)
    return true;
  StrBuf size = STRBUF_INIT;
  ir_print_expr(&size, count);
  fail(vf, node, "buffer %s, allocated with %s elements, is accessed at indices %s", b->name,
       sb_cstr(&size), ir_range_text(r, rb));
  sb_free(&size);
  return false;
}

/* An access to an allocation (parameters are the user's: tes.CheckBounds and the bound
 * checkers look at them) is inside it wherever the analyzer can tell: an allocation of
 * constant size 0 is used by nothing that runs, and no index certainly leaves it (bounds.h).
 * A ramp is checked at its two ends, a broadcast at its value. An element whose address is
 * taken (a prefetch's) is not checked. */
static bool check_inside(Verifier *vf, const Expr *node, const Buffer *b, Expr *index) {
  const Stmt *al = allocation_of(vf, b->data);
  if (!vf->an || vf->address_taken || !al || !dt_eq(al->u.alloc.dtype, b->dtype)) return true;
  Expr *count = ir_count_of(vf->ctx->arena, al->u.alloc.ndim, al->u.alloc.extents);
  int64_t n;
  if (!count) return true;
  if (ir_as_int(count, &n) && n <= 0 && vf->dead == 0)
    return fail(vf, node, "buffer %s is used but allocated with %lld elements", b->name,
                (long long)n);
  if (index->kind == EXPR_BROADCAST)
    return check_index_in(vf, node, b, index->u.bcast.value, count);
  if (index->kind != EXPR_RAMP)
    return index->dtype.lanes != 1 || check_index_in(vf, node, b, index, count);
  Arena *a = vf->ctx->arena;
  Expr *base = index->u.ramp.base, *stride = index->u.ramp.stride;
  Expr *last = arith_binary(
      a, EXPR_ADD, base,
      arith_binary(a, EXPR_MUL, stride, arith_const(a, stride->dtype, index->u.ramp.lanes - 1)));
  return check_index_in(vf, node, b, base, count) && check_index_in(vf, node, b, last, count);
}

/* A Load or Store of `t` (lanes included) at index: the buffer must be a parameter's or an
 * enclosing allocation's, and a vector index or a vector buffer multiplies the lanes. */
static bool check_access(Verifier *vf, const Expr *node, const Buffer *b, const Expr *index,
                         const Expr *pred, DType t) {
  char x[32], y[32];
  if (!in_scope(&vf->scope, b->data))
    return fail(vf, node, "buffer %s is neither a parameter nor allocated here", b->name);
  if (!dt_is_int(index->dtype))
    return fail(vf, index, "%s is indexed by a %s", b->name, dt_name(index->dtype, x));
  if (t.code != b->dtype.code || t.bits != b->dtype.bits ||
      t.lanes != b->dtype.lanes * index->dtype.lanes)
    return fail(vf, node, "buffer %s holds %s but is accessed as %s at a %d-lane index", b->name,
                dt_name(b->dtype, y), dt_name(t, x), index->dtype.lanes);
  return check_bool(vf, pred, "an access predicate", index->dtype.lanes) &&
         check_inside(vf, node, b, (Expr *)index);
}

/* A PRODUCER_LOAD or PROVIDE of t. */
static bool check_tensor(Verifier *vf, const Expr *node, const Tensor *t) {
  if (vf->flattened)
    return fail(vf, node, "tensor %s is accessed after storage flattening", t->name);
  if (!in_scope(&vf->scope, t))
    return fail(vf, node, "tensor %s is neither a parameter nor realized here", t->name);
  return true;
}

static bool check_expr(Verifier *vf, const Expr *e) {
  char a[32], b[32];
  switch (e->kind) {
  case EXPR_INT:
  case EXPR_FLOAT:
  case EXPR_STR:
    return true;
  case EXPR_VAR:
    return check_var(vf, e);
  case EXPR_CAST:
    if (e->dtype.lanes == e->u.unary.a->dtype.lanes) return true;
    return fail(vf, e, "a cast from %s to %s", dt_name(e->u.unary.a->dtype, a),
                dt_name(e->dtype, b));
  IR_CASE_BINARY:
    return check_binary(vf, e);
  case EXPR_NOT:
    return check_bool(vf, e->u.unary.a, "the operand of NOT", e->dtype.lanes) &&
           check_dtype(vf, e, e->u.unary.a->dtype, "NOT");
  case EXPR_SELECT:
    return check_select(vf, e);
  case EXPR_RAMP:
    return check_ramp(vf, e);
  case EXPR_BROADCAST:
    return check_broadcast(vf, e);
  case EXPR_LET:
    return check_dtype(vf, e->u.let.value, e->u.let.var->dtype, "a let's value") &&
           check_dtype(vf, e, e->u.let.body->dtype, "a let");
  case EXPR_CALL:
    return check_call(vf, e);
  case EXPR_LOAD:
    return check_access(vf, e, e->u.load.buf, e->u.load.index, e->u.load.predicate, e->dtype);
  case EXPR_PRODUCER_LOAD:
    return check_tensor(vf, e, e->u.pload.tensor) &&
           check_dtype(vf, e, e->u.pload.tensor->dtype, "a tensor read");
  case EXPR_REDUCE:
    return fail(vf, e, "a reduction is left after loop-nest construction");
  case EXPR_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static bool is_if_then_else(const Expr *e) {
  return e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.if_then_else") == 0 && e->u.call.n == 3;
}

/* The values of a select are read unguarded, those of if_then_else under its condition. */
static void visit_branches(Verifier *vf, const Expr *e) {
  bool sel = e->kind == EXPR_SELECT;
  ir_visit_expr(&vf->v, sel ? e->u.select.cond : e->u.call.args[0]);
  int *counter = sel ? &vf->nest.selects : &vf->nest.guards;
  (*counter)++;
  ir_visit_expr(&vf->v, sel ? e->u.select.t : e->u.call.args[1]);
  ir_visit_expr(&vf->v, sel ? e->u.select.f : e->u.call.args[2]);
  (*counter)--;
}

static void verify_expr(IrVisitor *v, const Expr *e) {
  Verifier *vf = (Verifier *)v;
  if (vf->failed || !check_expr(vf, e)) return;
  if (e->kind == EXPR_SELECT || is_if_then_else(e)) {
    visit_branches(vf, e);
    return;
  }
  /* the element whose address is taken is not read there: a prefetch's may lie past the end */
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.address_of") == 0 && e->u.call.n == 1 &&
      e->u.call.args[0]->kind == EXPR_LOAD) {
    vf->address_taken = true;
    bool ok = check_expr(vf, e->u.call.args[0]);
    vf->address_taken = false;
    if (ok) ir_visit_children_expr(v, e->u.call.args[0]);
    return;
  }
  if (e->kind != EXPR_LET) {
    ir_visit_children_expr(v, e);
    return;
  }
  ir_visit_expr(v, e->u.let.value);
  if (vf->failed || !bind(vf, e->u.let.var)) return;
  ir_visit_expr(v, e->u.let.body);
  unbind(vf, e->u.let.var);
}

/* ---- statements ---- */

/* The body of a loop, let, allocate or virtual thread, with its variable bound (a binder's own
 * expressions are checked outside it, before). */
static void visit_bound_body(Verifier *vf, const Var *var, const Stmt *body) {
  if (vf->failed || !bind(vf, var)) return;
  ir_visit_stmt(&vf->v, body);
  unbind(vf, var);
}

/* A loop's body (a thread's: over [0, extent)), the loop entered for the access checks. */
static void visit_loop_body(Verifier *vf, Var *var, Expr *min, Expr *extent, const Stmt *body,
                            bool binds) {
  int64_t n;
  bool dead = ir_as_int(extent, &n) && n <= 0;
  vf->dead += dead;
  if (vf->an) ir_nest_enter_loop(&vf->nest, vf->an, vf->ctx->arena, var, min, extent);
  if (binds)
    visit_bound_body(vf, var, body);
  else
    ir_visit_stmt(&vf->v, body);
  if (vf->an) ir_nest_leave_loop(&vf->nest, vf->an);
  vf->dead -= dead;
}

static void verify_for(Verifier *vf, const Stmt *s) {
  const Var *var = s->u.for_.var;
  if (vf->failed) return;
  DType t = var->dtype;
  if (!dt_is_int(t) || t.lanes != 1) {
    char b[32];
    fail(vf, NULL, "loop variable %s has dtype %s", var->name, dt_name(t, b));
    return;
  }
  if (!check_dtype(vf, s->u.for_.min, t, "a loop's min") ||
      !check_dtype(vf, s->u.for_.extent, t, "a loop's extent"))
    return;
  ir_visit_expr(&vf->v, s->u.for_.min);
  ir_visit_expr(&vf->v, s->u.for_.extent);
  visit_loop_body(vf, s->u.for_.var, s->u.for_.min, s->u.for_.extent, s->u.for_.body, true);
}

static void verify_store(Verifier *vf, const Stmt *s) {
  const Expr *value = s->u.store.value;
  if (check_access(vf, NULL, s->u.store.buf, s->u.store.index, s->u.store.predicate, value->dtype))
    ir_visit_children_stmt(&vf->v, s);
}

static void verify_provide(Verifier *vf, const Stmt *s) {
  const Tensor *t = s->u.provide.tensor;
  if (check_tensor(vf, NULL, t) &&
      check_dtype(vf, s->u.provide.value, t->dtype, "a provided value"))
    ir_visit_children_stmt(&vf->v, s);
}

static void verify_realize(Verifier *vf, const Stmt *s) {
  const Tensor *t = s->u.realize.tensor;
  if (vf->flattened) {
    fail(vf, NULL, "tensor %s is realized after storage flattening", t->name);
    return;
  }
  for (int i = 0; i < s->u.realize.ndim; i++) {
    ir_visit_expr(&vf->v, s->u.realize.bounds[i].min);
    ir_visit_expr(&vf->v, s->u.realize.bounds[i].extent);
  }
  if (vf->failed || !check_bool(vf, s->u.realize.condition, "a realize's condition", 1)) return;
  ir_visit_expr(&vf->v, s->u.realize.condition);
  add_count(&vf->scope, t, 1);
  ir_visit_stmt(&vf->v, s->u.realize.body);
  unbind(vf, t);
}

static void verify_allocate(Verifier *vf, const Stmt *s) {
  const Var *buf = s->u.alloc.buffer_var;
  if (buf->dtype.code != DT_HANDLE) {
    fail(vf, NULL, "allocation %s is not a handle variable", buf->name);
    return;
  }
  int64_t n;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    if (!check_scalar_int(vf, s->u.alloc.extents[i], "an allocation's extent")) return;
    if (ir_as_int(s->u.alloc.extents[i], &n) && n < 0) {
      fail(vf, NULL, "allocation %s has extent %lld", buf->name, (long long)n);
      return;
    }
  }
  if (!check_bool(vf, s->u.alloc.condition, "an allocation's condition", 1)) return;
  for (int i = 0; i < s->u.alloc.ndim; i++) ir_visit_expr(&vf->v, s->u.alloc.extents[i]);
  ir_visit_expr(&vf->v, s->u.alloc.condition);
  VEC_GROW(NULL, vf->allocs, vf->cap_allocs, vf->nallocs + 1);
  vf->allocs[vf->nallocs++] = s;
  visit_bound_body(vf, buf, s->u.alloc.body);
  vf->nallocs--;
}

/* A virtual thread binds its variable for its body only: InjectVirtualThread rewrites reads
 * there and nowhere else. Thread launches were declared for the whole walk. */
/* The variables of a tensor intrinsic's buffer (its data, and the elem_offset, strides and
 * shape that are variables) stand for the bound region inside a buffer_bind_scope, until
 * storage flattening substitutes them; d is +1 entering, -1 leaving. */
static void count_bound_buffer(Verifier *vf, const Buffer *b, intptr_t d) {
  add_count(&vf->scope, b->data, d);
  if (b->elem_offset && b->elem_offset->kind == EXPR_VAR)
    add_count(&vf->scope, b->elem_offset->u.var, d);
  for (int k = 0; k < b->ndim; k++) {
    if (b->strides && b->strides[k]->kind == EXPR_VAR)
      add_count(&vf->scope, b->strides[k]->u.var, d);
    if (b->shape[k]->kind == EXPR_VAR) add_count(&vf->scope, b->shape[k]->u.var, d);
  }
}

static void verify_attr(Verifier *vf, const Stmt *s) {
  ir_visit_expr(&vf->v, s->u.attr.value);
  if (s->u.attr.nkind == ATTR_NODE_BUFFER_BIND) {
    const Buffer *b = ((const BufferBind *)s->u.attr.node)->buffer;
    count_bound_buffer(vf, b, 1);
    ir_visit_stmt(&vf->v, s->u.attr.body);
    count_bound_buffer(vf, b, -1);
    return;
  }
  bool vthread =
      s->u.attr.nkind == ATTR_NODE_ITERVAR && strcmp(s->u.attr.key, "virtual_thread") == 0;
  if (!vthread && !is_thread_launch(s)) {
    ir_visit_stmt(&vf->v, s->u.attr.body);
    return;
  }
  Var *var = ((const IterVar *)s->u.attr.node)->var;
  Expr *value = s->u.attr.value;
  if (!dt_is_int(value->dtype) || !dt_eq(value->dtype, var->dtype)) {
    if (vthread)
      visit_bound_body(vf, var, s->u.attr.body);
    else
      ir_visit_stmt(&vf->v, s->u.attr.body);
    return;
  }
  visit_loop_body(vf, var, arith_const(vf->ctx->arena, var->dtype, 0), value, s->u.attr.body,
                  vthread);
}

static void verify_let(Verifier *vf, const Stmt *s) {
  if (!check_dtype(vf, s->u.let.value, s->u.let.var->dtype, "a let's value")) return;
  ir_visit_expr(&vf->v, s->u.let.value);
  visit_bound_body(vf, s->u.let.var, s->u.let.body);
}

static void check_stmt(Verifier *vf, const Stmt *s) {
  switch (s->kind) {
  case STMT_FOR:
    verify_for(vf, s);
    return;
  case STMT_IF:
    if (!check_bool(vf, s->u.if_.cond, "an if's condition", 1)) return;
    ir_visit_expr(&vf->v, s->u.if_.cond);
    vf->nest.guards++;
    ir_visit_stmt(&vf->v, s->u.if_.then);
    if (s->u.if_.orelse) ir_visit_stmt(&vf->v, s->u.if_.orelse);
    vf->nest.guards--;
    return;
  case STMT_SEQ:
  case STMT_EVALUATE:
    ir_visit_children_stmt(&vf->v, s);
    return;
  case STMT_STORE:
    verify_store(vf, s);
    return;
  case STMT_PROVIDE:
    verify_provide(vf, s);
    return;
  case STMT_REALIZE:
    verify_realize(vf, s);
    return;
  case STMT_ALLOCATE:
    verify_allocate(vf, s);
    return;
  case STMT_ATTR:
    verify_attr(vf, s);
    return;
  case STMT_LET:
    verify_let(vf, s);
    return;
  case STMT_ASSERT:
    if (check_bool(vf, s->u.assert_.cond, "an assert's condition", 1))
      ir_visit_children_stmt(&vf->v, s);
    return;
  case STMT_KIND_COUNT:
    break;
  }
  TES_UNREACHABLE();
}

static void verify_stmt(IrVisitor *v, const Stmt *s) {
  Verifier *vf = (Verifier *)v;
  if (vf->failed) return;
  const Stmt *outer = vf->stmt;
  vf->stmt = s;
  check_stmt(vf, s);
  vf->stmt = outer;
}

/* ---- depth ---- */

typedef struct DepthFinder {
  IrVisitor v;
  uint32_t limit;
  const Stmt *stmt, *found;
} DepthFinder;

static void deep_expr(IrVisitor *v, const Expr *e) {
  DepthFinder *d = (DepthFinder *)v;
  if (!d->found && e->depth > d->limit) d->found = d->stmt;
}

static void deep_stmt(IrVisitor *v, const Stmt *s) {
  DepthFinder *d = (DepthFinder *)v;
  if (d->found) return;
  const Stmt *outer = d->stmt;
  d->stmt = s;
  ir_visit_children_stmt(v, s);
  d->stmt = outer;
}

const Stmt *ir_find_deep_stmt(const Stmt *body, uint32_t limit) {
  DepthFinder d = {{deep_expr, deep_stmt}, limit, body, NULL};
  ir_visit_stmt(&d.v, body);
  return d.found;
}

/* ---- the verifier ---- */

static void walk(Verifier *vf, const Stmt *body) {
  declare_params(vf);
  declare_threads(vf, body);
  if (!vf->collect && vf->ctx->arena) vf->an = arith_new(vf->ctx->arena);
  ir_visit_stmt(&vf->v, body);
  if (vf->an) arith_free(vf->an);
  ir_nest_free(&vf->nest);
  free(vf->allocs);
  ptrmap_free(&vf->scope);
}

bool ir_verify_func(const Stmt *body, const PassCtx *ctx, bool flattened, const char *pass,
                    Diag *d) {
  Verifier vf = {{verify_expr, verify_stmt}, ctx, flattened, pass, d, .stmt = body};
  walk(&vf, body);
  return !vf.failed;
}

int ir_unbound_vars(Arena *a, const Stmt *body, const PassCtx *ctx, Var ***out) {
  /* a malformed body is ir_verify_func's to report */
  Verifier vf = {{verify_expr, verify_stmt}, ctx, false, "", NULL, .stmt = body, .collect = true};
  walk(&vf, body);
  *out = arena_alloc(a, (size_t)(vf.nunbound + 1) * sizeof **out);
  if (vf.nunbound) memcpy(*out, vf.unbound, (size_t)vf.nunbound * sizeof **out);
  free(vf.unbound);
  ptrmap_free(&vf.collected);
  return vf.nunbound;
}
