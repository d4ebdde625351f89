/* tensorize.c: a stage's loops from its tensorized axis inwards replaced by a tensor
 * intrinsic's statements (TVM's tensorize.cc, MakeTensorize). Three steps:
 *  - the region: the part of each output and input the loops under the axis cover, by bound
 *    inference over those loops with the outer ones fixed;
 *  - the match: the stage's body, with its axes rewritten as the intrinsic's axes plus the
 *    region's start and its inputs as the intrinsic's inputs, must be the intrinsic's body
 *    (after simplification), over equal extents and the same reduction; a mismatch is a user
 *    error naming what differs, the two expressions one above the other;
 *  - the emission: each intrinsic buffer bound to its tensor's region (attr
 *    "buffer_bind_scope", which storage flattening turns into a view), the intrinsic's body in
 *    place of the inner loops; a reduction whose outer reduce loops stay outside is split into
 *    reduce_init (before the reduce loops, under `.init` loops) and reduce_update, or without
 *    reduce_init into `if (first iteration) body else update`. */
#include <string.h>

#include "ir/printer.h"
#include "ir/schedule/sched_impl.h"
#include "ir/strbuf.h"

int sched_tensorize_loc(const LStage *ls) {
  for (int i = 0; i < ls->nleaf; i++) {
    const IterVarAttr *at = sched_leaf_attr(ls, ls->leaf[i]);
    if (at && at->tensor_intrin) return i;
  }
  return -1;
}

typedef struct Tz {
  SchedBounds *b;
  Arena *a;
  const LStage *ls;
  const Operation *op;
  const TensorIntrin *in;
  const Operation *iop;
  int tloc;
  PtrMap var_sets;   /* root Var * -> IntSet *: what the loops under the axis cover */
  Range *out_region; /* per axis of op, then per reduce axis */
  Range **in_region; /* per read tensor of the stage (ls->reads), ndim ranges */
} Tz;

static bool fail(Tz *t, const char *fmt, ...) TES_PRINTF(2, 3);
static bool fail(Tz *t, const char *fmt, ...) {
  StrBuf m = STRBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&m, fmt, ap);
  va_end(ap);
  ir_error(t->b->diag, "cannot tensorize stage %s at axis %s with intrinsic %s: %s",
           t->op->name, t->ls->leaf[t->tloc]->var->name, t->in->name, sb_cstr(&m));
  sb_free(&m);
  return false;
}

static const char *show(Tz *t, const Expr *e) {
  StrBuf s = STRBUF_INIT;
  ir_print_expr(&s, e);
  const char *r = arena_strndup(t->a, sb_cstr(&s), s.len);
  sb_free(&s);
  return r;
}

static IntSet *new_set(Arena *a, IntSet s) {
  IntSet *p = arena_alloc(a, sizeof *p);
  *p = s;
  return p;
}

/* ---- the region ---- */

/* The sets of the root axes: leaves outside the axis are points (their variables), the rest
 * range over their bounds (TVM's InferTensorizeRegion). */
static bool infer_region(Tz *t) {
  SchedBounds *b = t->b;
  Arena *a = t->a;
  const LStage *ls = t->ls;
  PtrMap up;
  ptrmap_init(&up, a);
  for (int i = ls->nleaf - 1; i >= 0; i--) {
    IterVar *iv = ls->leaf[i];
    Range r = sched_dom(b, iv);
    const IterVarAttr *at = sched_leaf_attr(ls, iv);
    if (i >= t->tloc && ((at && at->bind_thread) || iv->thread_tag))
      return fail(t, "axis %s inside the tensorized loops is bound to a thread", iv->var->name);
    IntSet s = ir_is_const_int(r.extent, 1) ? sched_set_point(r.min)
               : i < t->tloc                ? sched_set_point(ir_varref(a, iv->var))
                                            : sched_set_range(b->fold, r);
    ptrmap_put(&up, iv, new_set(a, s));
  }
  sched_pass_up_domain(b, ls, &up);
  int n;
  IterVar **roots = sched_root_ivs(a, t->op, &n);
  t->out_region = arena_alloc(a, (size_t)(n + 1) * sizeof *t->out_region);
  ptrmap_init(&t->var_sets, a);
  for (int i = 0; i < n; i++) {
    IntSet *s = ptrmap_get(&up, roots[i]);
    Range dom = sched_dom(b, roots[i]);
    t->out_region[i] = s ? sched_set_cover(b->fold, *s, dom) : dom;
    ptrmap_put(&t->var_sets, roots[i]->var, new_set(a, sched_set_range(b->fold, t->out_region[i])));
  }
  return true;
}

typedef struct Reads {
  IrVisitor v;
  Tz *t;
  const Tensor *tensor;
  IntSet *dims;
  bool seen;
} Reads;

static void collect_read(IrVisitor *v, const Expr *e) {
  Reads *r = (Reads *)v;
  ir_visit_children_expr(v, e);
  if (e->kind != EXPR_PRODUCER_LOAD || e->u.pload.tensor != r->tensor) return;
  for (int d = 0; d < r->tensor->ndim; d++) {
    IntSet s = sched_eval_set(r->t->b->fold, e->u.pload.indices[d], &r->t->var_sets);
    r->dims[d] = r->seen ? sched_set_union(r->t->b->fold, r->dims[d], s) : s;
  }
  r->seen = true;
}

static bool input_regions(Tz *t) {
  const LStage *ls = t->ls;
  t->in_region = arena_alloc(t->a, (size_t)(ls->nreads + 1) * sizeof *t->in_region);
  for (int i = 0; i < ls->nreads; i++) {
    const Tensor *x = ls->reads[i];
    Reads r = {{collect_read, NULL}, t, x, arena_alloc(t->a, (size_t)(x->ndim + 1) * sizeof(IntSet)),
               false};
    for (int k = 0; k < t->op->noutputs; k++) ir_visit_expr(&r.v, ls->body[k]);
    t->in_region[i] = arena_alloc(t->a, (size_t)(x->ndim + 1) * sizeof(Range));
    for (int d = 0; d < x->ndim; d++) {
      Range full = {arith_const(t->a, x->shape[d]->dtype, 0), x->shape[d]};
      t->in_region[i][d] = sched_set_cover(t->b->fold, r.dims[d], full);
    }
  }
  return true;
}

/* ---- the match ---- */

typedef struct Remap {
  IrMutator m;
  Tz *t;
  int nmap;
  VarMap *map;
  int *start; /* per read tensor: its leading dimensions the intrinsic's input has not */
} Remap;

static Expr *remap_expr(IrMutator *m, Expr *e) {
  Remap *r = (Remap *)m;
  Tz *t = r->t;
  if (e->kind == EXPR_VAR) {
    for (int i = 0; i < r->nmap; i++)
      if (r->map[i].from == e->u.var) return r->map[i].to;
    return e;
  }
  if (e->kind != EXPR_PRODUCER_LOAD) return ir_mutate_children_expr(m, e);
  for (int i = 0; i < t->ls->nreads; i++) {
    if (t->ls->reads[i] != e->u.pload.tensor) continue;
    Tensor *it = t->iop->inputs[i];
    Expr **idx = arena_alloc(t->a, (size_t)(it->ndim + 1) * sizeof *idx);
    for (int d = 0; d < it->ndim; d++) {
      int sd = d + r->start[i];
      Expr *x = ir_mutate_expr(m, e->u.pload.indices[sd]);
      idx[d] = arith_binary(t->a, EXPR_SUB, x, arith_cast(t->a, x->dtype, t->in_region[i][sd].min));
    }
    return ir_pload(t->a, it, it->ndim, idx);
  }
  return ir_mutate_children_expr(m, e);
}

static bool same_extent(Tz *t, Expr *x, Expr *y) {
  return arith_can_prove_equal(t->b->fold, x, arith_cast(t->a, x->dtype, y));
}

/* The stage's axes [first, first + n) against the intrinsic's n axes, the leading `lead` of
 * the stage's (which the intrinsic has not) covered by one iteration. */
static bool map_axes(Tz *t, Remap *r, IterVar **axes, int n, int region0, IterVar **iaxes, int ni,
                     const char *what) {
  int lead = n - ni;
  if (lead < 0)
    return fail(t, "the stage has %d %s axes, the intrinsic's compute has %d", n, what, ni);
  for (int i = 0; i < n; i++) {
    Range reg = t->out_region[region0 + i];
    Var *v = axes[i]->var;
    if (i < lead) {
      if (!ir_is_const_int(reg.extent, 1))
        return fail(t, "%s axis %s covers %s iterations under the axis, but the intrinsic has no "
                       "axis for it",
                    what, v->name, show(t, reg.extent));
      r->map[r->nmap++] = (VarMap){v, reg.min};
      continue;
    }
    IterVar *iv = iaxes[i - lead];
    if (!same_extent(t, reg.extent, iv->dom.extent))
      return fail(t, "%s axis %s covers %s iterations under the axis, the intrinsic's axis %s has %s",
                  what, v->name, show(t, reg.extent), iv->var->name, show(t, iv->dom.extent));
    if (!ir_is_const_int(iv->dom.min, 0))
      return fail(t, "the intrinsic's axis %s does not start at 0", iv->var->name);
    Expr *to = arith_binary(t->a, EXPR_ADD, ir_varref(t->a, iv->var),
                            arith_cast(t->a, iv->var->dtype, reg.min));
    r->map[r->nmap++] = (VarMap){v, arith_cast(t->a, v->dtype, to)};
  }
  return true;
}

static bool map_inputs(Tz *t, Remap *r) {
  const LStage *ls = t->ls;
  if (ls->nreads != t->iop->ninputs)
    return fail(t, "the stage reads %d tensor%s, the intrinsic's compute %d", ls->nreads,
                ls->nreads == 1 ? "" : "s",
                t->iop->ninputs);
  r->start = arena_alloc(t->a, (size_t)(ls->nreads + 1) * sizeof *r->start);
  for (int i = 0; i < ls->nreads; i++) {
    const Tensor *x = ls->reads[i], *ix = t->iop->inputs[i];
    int lead = x->ndim - ix->ndim;
    if (lead < 0)
      return fail(t, "input %s has %d dimensions, the intrinsic's input %s has %d", x->name, x->ndim,
                  ix->name, ix->ndim);
    if (x->dtype.code != ix->dtype.code || x->dtype.bits != ix->dtype.bits) {
      char p[32], q[32];
      return fail(t, "input %s is %s, the intrinsic's input %s is %s", x->name, dt_name(x->dtype, p),
                  ix->name, dt_name(ix->dtype, q));
    }
    for (int d = 0; d < x->ndim; d++) {
      Range reg = t->in_region[i][d];
      Expr *want = d < lead ? ir_i32(t->a, 1) : ix->shape[d - lead];
      if (!same_extent(t, reg.extent, want))
        return fail(t, "the loops under the axis read %s of dimension %d of input %s, the "
                       "intrinsic's input %s has %s",
                    show(t, reg.extent), d, x->name, ix->name,
                    d < lead ? "no such dimension" : show(t, want));
    }
    r->start[i] = lead;
  }
  return true;
}

static Expr *simplified(Analyzer *an, Expr *e) { return e ? arith_simplify(an, e) : NULL; }

static bool equal_or_both_null(const Expr *x, const Expr *y) {
  return (!x && !y) || (x && y && ir_expr_equal(x, y));
}

/* The intrinsic's expression and the stage's, one above the other. */
static bool differ(Tz *t, const char *what, const Expr *ie, const Expr *se) {
  return fail(t, "%s differs\n  intrinsic: %s\n  stage:     %s", what, ie ? show(t, ie) : "(none)",
              se ? show(t, se) : "(none)");
}

/* The stage's body k (remapped) against the intrinsic's. */
static bool match_body(Tz *t, Remap *r, Analyzer *an, int k) {
  Expr *se = t->ls->body[k], *ie = t->iop->body[k];
  if ((se->kind == EXPR_REDUCE) != (ie->kind == EXPR_REDUCE))
    return differ(t, "the reduction structure", ie, se);
  if (se->kind != EXPR_REDUCE) {
    Expr *x = simplified(an, ir_mutate_expr(&r->m, se)), *y = simplified(an, ie);
    if (!dt_eq(x->dtype, y->dtype)) return differ(t, "the dtype of the compute", y, x);
    return ir_expr_equal(x, y) ? true : differ(t, "the compute", y, x);
  }
  const CommReducer *sc = se->u.reduce.combiner, *ic = ie->u.reduce.combiner;
  if (sc->n != ic->n || se->u.reduce.value_index != ie->u.reduce.value_index)
    return differ(t, "the reduction's combiner", ie, se);
  VarMap *cm = arena_alloc(t->a, (size_t)(2 * ic->n) * sizeof *cm);
  for (int i = 0; i < ic->n; i++) {
    cm[2 * i] = (VarMap){ic->lhs[i], ir_varref(t->a, sc->lhs[i])};
    cm[2 * i + 1] = (VarMap){ic->rhs[i], ir_varref(t->a, sc->rhs[i])};
  }
  for (int i = 0; i < ic->n; i++)
    if (!ir_expr_equal(ir_substitute_expr(t->a, ic->result[i], 2 * ic->n, cm), sc->result[i]) ||
        !ir_expr_equal(ic->identity[i], sc->identity[i]))
      return differ(t, "the reduction's combiner", ic->result[i], sc->result[i]);
  for (int i = 0; i < ic->n; i++) {
    Expr *x = simplified(an, ir_mutate_expr(&r->m, se->u.reduce.source[i]));
    Expr *y = simplified(an, ie->u.reduce.source[i]);
    if (!dt_eq(x->dtype, y->dtype)) return differ(t, "the dtype of the reduction's source", y, x);
    if (!ir_expr_equal(x, y)) return differ(t, "the compute", y, x);
  }
  Expr *sw = se->u.reduce.condition, *iw = ie->u.reduce.condition;
  sw = sw ? simplified(an, ir_mutate_expr(&r->m, sw)) : NULL;
  iw = simplified(an, iw);
  if (sw && ir_is_const_int(sw, 1)) sw = NULL;
  if (iw && ir_is_const_int(iw, 1)) iw = NULL;
  return equal_or_both_null(sw, iw) ? true : differ(t, "the reduction's condition", iw, sw);
}

static bool match(Tz *t) {
  const Operation *op = t->op, *iop = t->iop;
  if (op->noutputs != iop->noutputs)
    return fail(t, "the stage has %d outputs, the intrinsic's compute has %d", op->noutputs,
                iop->noutputs);
  for (int k = 0; k < op->noutputs; k++)
    if ((op->body[k]->kind == EXPR_REDUCE) != (iop->body[k]->kind == EXPR_REDUCE))
      return fail(t, "the stage's compute %s a reduction, the intrinsic's %s",
                  op->body[k]->kind == EXPR_REDUCE ? "is" : "is not",
                  iop->body[k]->kind == EXPR_REDUCE ? "is" : "is not");
  Remap r = {{t->a, remap_expr, NULL}, t, 0, NULL, NULL};
  r.map = arena_alloc(t->a, (size_t)(op->naxis + op->nreduce + 1) * sizeof *r.map);
  if (!map_axes(t, &r, op->axis, op->naxis, 0, iop->axis, iop->naxis, "spatial") ||
      !map_axes(t, &r, op->reduce_axis, op->nreduce, op->naxis, iop->reduce_axis, iop->nreduce,
                "reduction") ||
      !map_inputs(t, &r))
    return false;
  Analyzer *an = arith_new(t->a);
  for (int i = 0; i < t->ls->nleaf; i++)
    arith_bind(an, t->ls->leaf[i]->var, sched_dom(t->b, t->ls->leaf[i]));
  for (int i = 0; i < iop->naxis; i++) arith_bind(an, iop->axis[i]->var, iop->axis[i]->dom);
  for (int i = 0; i < iop->nreduce; i++)
    arith_bind(an, iop->reduce_axis[i]->var, iop->reduce_axis[i]->dom);
  bool ok = true;
  for (int k = 0; ok && k < op->noutputs; k++) ok = match_body(t, &r, an, k);
  arith_free(an);
  return ok;
}

/* ---- the emission ---- */

static Stmt *bind(Tz *t, Buffer *buf, Tensor *x, const Range *region, Stmt *body) {
  Expr **tuple = arena_alloc(t->a, (size_t)(2 * x->ndim + 1) * sizeof *tuple);
  for (int d = 0; d < x->ndim; d++) {
    tuple[2 * d] = region[d].min;
    tuple[2 * d + 1] = region[d].extent;
  }
  BufferBind *bb = arena_alloc(t->a, sizeof *bb);
  *bb = (BufferBind){buf, x};
  Expr *v = ir_call(t->a, DT_HANDLE64, "tir.tvm_tuple", CALL_PURE, 2 * x->ndim, tuple);
  return ir_attr(t->a, ATTR_NODE_BUFFER_BIND, bb, "buffer_bind_scope", v, body);
}

/* body inside the bindings of the outputs, and of the inputs when `inputs`. */
static Stmt *bound(Tz *t, Stmt *body, bool inputs) {
  int nin = t->iop->ninputs;
  for (int k = t->op->noutputs - 1; k >= 0; k--)
    body = bind(t, t->in->buffers[nin + k], t->op->outputs[k], t->out_region, body);
  for (int i = nin - 1; inputs && i >= 0; i--)
    body = bind(t, t->in->buffers[i], t->ls->reads[i], t->in_region[i], body);
  return body;
}

/* Whether e reads a variable defined inside the tensorized loops. */
static bool uses_inner(Tz *t, const Nest *n, const Expr *e) {
  for (int i = t->tloc; i < t->ls->nleaf; i++)
    if (ir_expr_uses_var(e, t->ls->leaf[i]->var)) return true;
  for (int i = 0; i < n->n; i++)
    if (n->w[i].level > t->tloc && n->w[i].level <= t->ls->nleaf && n->w[i].var &&
        ir_expr_uses_var(e, n->w[i].var))
      return true;
  return false;
}

/* The guards of n (level nleaf + 1) around body; a guard on a loop inside the tensorized
 * ones (a split that does not divide) cannot be kept. */
static Stmt *guards(Tz *t, const Nest *n, Stmt *body) {
  int g = t->ls->nleaf + 1;
  for (int i = 0; i < n->n; i++)
    if (n->w[i].level == g && uses_inner(t, n, n->w[i].value))
      return fail(t, "the guard %s depends on a loop inside the tensorized ones (a split there "
                     "does not divide its axis)",
                  show(t, n->w[i].value)),
             NULL;
  return body ? sched_merge_nest(n, g, g + 1, body) : NULL;
}

static Stmt *need(Tz *t, Stmt *s, const char *what) {
  if (!s) fail(t, "%s", what);
  return s;
}

Stmt *sched_make_tensorize(SchedBounds *b, const LStage *ls, int tloc) {
  Arena *a = b->arena;
  const TensorIntrin *in = sched_leaf_attr(ls, ls->leaf[tloc])->tensor_intrin;
  Tz t = {b, a, ls, ls->st->op, in, in->op, tloc, {0}, NULL, NULL};
  if (!infer_region(&t) || !input_regions(&t) || !match(&t)) return NULL;
  PtrMap values, state;
  ptrmap_init(&values, a);
  ptrmap_init(&state, a);
  Nest main = {a, 0, 0, NULL};
  sched_make_loop_nest(b, ls, 0, false, NULL, &values, &main);
  sched_add_guards(b, ls, &values, false, NULL, &main);
  int begin = t.op->nreduce ? sched_first_reduce_loop(ls, &state) : ls->nleaf;
  Stmt *s;
  if (tloc <= begin) {
    s = need(&t, in->body, "the intrinsic has no body (intrin_func returned None for it)");
    s = s ? guards(&t, &main, bound(&t, s, true)) : NULL;
    s = s ? sched_merge_nest(&main, 0, tloc + 1, s) : NULL;
    return s ? sched_substitute_values(a, s, &values) : NULL;
  }
  /* reduce loops outside the axis: the reduction is split (TVM's reset and update) */
  Stmt *update = need(&t, in->reduce_update,
                      "the stage's reduction loops outside the axis need the intrinsic's "
                      "reduce_update (intrin_func returns (body, reduce_init, reduce_update))");
  if (!update) return NULL;
  update = guards(&t, &main, bound(&t, update, true));
  if (!update) return NULL;
  if (!in->reduce_init) {
    /* the body on the first iteration of the outer reduce loops, the update after it */
    Stmt *first = need(&t, in->body, "the intrinsic has neither a reduce_init nor a body to "
                                     "start the reduction with");
    if (!first) return NULL;
    Expr *cond = NULL;
    for (int i = begin; i < tloc; i++) {
      IterVar *iv = ls->leaf[i];
      if (!((intptr_t)ptrmap_get(&state, iv) & 2)) continue;
      Expr *c = ir_binary(a, EXPR_EQ, ir_varref(a, iv->var), sched_dom(b, iv).min);
      cond = cond ? ir_binary(a, EXPR_AND, cond, c) : c;
    }
    first = guards(&t, &main, bound(&t, first, true));
    update = cond ? ir_if(a, cond, first, update) : first;
    update = sched_merge_nest(&main, begin + 1, tloc + 1, update);
    return sched_substitute_values(a, sched_merge_nest(&main, 0, begin + 1, update), &values);
  }
  update = sched_merge_nest(&main, begin + 1, tloc + 1, update);
  PtrMap skip, init_values;
  ptrmap_init(&skip, a);
  ptrmap_init(&init_values, a);
  for (size_t i = 0; i < state.cap; i++)
    if (state.keys[i] && (intptr_t)state.vals[i] & 2) ptrmap_put(&skip, state.keys[i], (void *)1);
  for (int i = 0; i < begin; i++)
    ptrmap_put(&init_values, ls->leaf[i], ptrmap_get(&values, ls->leaf[i]));
  Nest init_nest = {a, 0, 0, NULL};
  sched_make_loop_nest(b, ls, begin, true, &skip, &init_values, &init_nest);
  sched_add_guards(b, ls, &init_values, true, &skip, &init_nest);
  Stmt *init = guards(&t, &init_nest, bound(&t, in->reduce_init, false));
  if (!init) return NULL;
  init = sched_substitute_values(a, sched_merge_nest(&init_nest, 0, tloc + 1, init), &init_values);
  Stmt *both[2] = {init, update};
  return sched_substitute_values(a, sched_merge_nest(&main, 0, begin + 1, ir_seq(a, 2, both)),
                                 &values);
}
