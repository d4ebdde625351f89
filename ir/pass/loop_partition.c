/* loop_partition: splits a loop's range where its `likely` guards are provably true (or false)
 *   on a part of it, so that part runs without them (TVM's tir.LoopPartition).
 * Assumes: flat buffers; the split guards of schedule_ops are `@tir.likely(...)` calls.
 * Guarantees: a candidate is a loop (or a blockIdx thread_extent attr) whose range is not a
 *   constant (any range with the option partition_const_loop) and whose variable a `likely`
 *   condition below it reads, with no tvm_thread_allreduce in the same statement sequence;
 *   and, whatever its range, a loop under a pragma_loop_partition_hint attr (the schedule's
 *   pragma "loop_partition_hint"), for which every comparison below it counts as a condition,
 *   as TVM's hinted loops (TVM also wants partition_const_loop for a constant hinted loop).
 *   For a candidate, each likely condition `a CMP b` (CMP one of < <= > >=) that is linear in
 *   the loop variable with a constant coefficient gives the interval of the variable where it
 *   holds for every value of the loops inside (and of threadIdx) and the interval where it
 *   fails. The intersection of the intervals where conditions hold (else, of those where they
 *   fail) is the middle part: a loop over it with those conditions replaced by True (False),
 *   and loops before and after it for the rest, each from 0 with the variable shifted; a part
 *   of extent 1 becomes its body with the variable substituted (unless the option
 *   no_unroll_loop_with_extent_one). The parts are partitioned again when there are two or
 *   more. A bound the analyzer cannot prove in order is clamped (min/max) and that part is not
 *   partitioned further. A blockIdx scope is not split into loops: its innermost thread scopes
 *   get `if (range) { guards True } else { as before }`. Last, every `likely` is dropped (its
 *   condition stays), and every pragma_loop_partition_hint attr, as TVM's pass does.
 *   A condition reading a variable let-bound inside the candidate is not used. No part of
 *   no iterations is made. A hinted vectorized or unrolled loop whose part would not have a
 *   constant extent, or a hinted loop inside a vectorized one whose part's extent reads the
 *   vector's variable, is an error on ctx->diag (check_part). Options under
 *   "tir.LoopPartition": partition_const_loop, no_unroll_loop_with_extent_one (both default 0).
 * Why here: at the start of TVM's phase 2, before vectorization, so that the middle part of a
 *   vector loop stays a vector loop. tvm.lower(simple_mode=True) (the default here, as in the
 *   tutorials' calls) skips it; tvm.build and tvm.lower(simple_mode=False) run it, as TVM's
 *   lower does. */
#include <string.h>

#include "ir/arith/arith.h"
#include "ir/pass/pass.h"
#include "ir/printer.h"
#include "ir/schedule/sched_impl.h"
#include "ir/support.h"

/* A variable and the values it ranges over, on a stack. */
typedef struct VarSet {
  const Var *var;
  IntSet set;
} VarSet;

typedef struct VarStack {
  VarSet *items;
  int n, cap;
} VarStack;

static void push_var(Arena *a, VarStack *s, const Var *v, IntSet set) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    s->items = arena_realloc(a, s->items, (size_t)s->cap * sizeof *s->items,
                             (size_t)cap * sizeof *s->items);
    s->cap = cap;
  }
  s->items[s->n++] = (VarSet){v, set};
}

typedef struct Partitioner {
  IrMutator m;
  Analyzer *an;
  bool const_loops, keep_unit_loops;
  PtrMap candidates; /* Stmt * -> itself */
  PtrMap hinted;     /* Var * -> itself: the loops under pragma_loop_partition_hint */
  VarStack hint;     /* the enclosing loops and blockIdx scopes: fixed while partitioning */
  VarStack relax;    /* the enclosing threadIdx scopes: any value of their range */
  VarStack vector;   /* the enclosing vectorized loops */
  int redo;          /* parts before or after a middle being partitioned again, nested */
  Diag *diag;        /* a hint the loops cannot follow (check_part) */
} Partitioner;

/* How deep the parts before and after a middle are partitioned again. In exact arithmetic
 * their guards give no further middle once each guard's bound is reached, but over symbolic
 * extents the analyzer may fail to prove a re-deduced bound outside the part (a guard
 * `ko*16 + ko.i*8 + ki < n0` over a const loop ki, with partition_const_loop: each part after
 * the middle split again without end, its bounds doubling: fuzzer seed 1902). Past this
 * depth a part keeps its guards, which is what the loop was before this pass. */
enum { REDO_MAX = 2 };

/* ---- candidates (TVM's CandidateSelector) ---- */

typedef struct Selector {
  IrVisitor v;
  Partitioner *p;
  struct {
    const Var *var;
    bool used;
  } rec[256];
  int nrec;
  bool in_likely, no_split;
} Selector;

static bool is_thread_extent(const Stmt *s) {
  return s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR &&
         strcmp(s->u.attr.key, "thread_extent") == 0;
}

/* The variable a pragma_loop_partition_hint attr names (s.pragma(axis, "loop_partition_hint")),
 * or NULL when s is not one. */
static const Var *hint_var(const Stmt *s) {
  if (s->kind != STMT_ATTR || strcmp(s->u.attr.key, "pragma_loop_partition_hint") != 0)
    return NULL;
  if (s->u.attr.nkind == ATTR_NODE_ITERVAR) return ((const IterVar *)s->u.attr.node)->var;
  if (s->u.attr.nkind == ATTR_NODE_VAR) return s->u.attr.node;
  return NULL;
}

static bool is_block_idx(const IterVar *iv) {
  return iv->thread_tag && strncmp(iv->thread_tag, "blockIdx.", 9) == 0;
}

static void select_over(Selector *sel, const Stmt *s, const Var *var, const Stmt *body) {
  if (sel->nrec == (int)(sizeof sel->rec / sizeof sel->rec[0])) {
    ir_visit_stmt(&sel->v, body);
    return;
  }
  int i = sel->nrec++;
  sel->rec[i].var = var;
  sel->rec[i].used = false;
  ir_visit_stmt(&sel->v, body);
  if (sel->rec[i].used && !sel->no_split) ptrmap_put(&sel->p->candidates, s, (void *)s);
  sel->nrec--;
}

static void select_stmt(IrVisitor *v, const Stmt *s) {
  Selector *sel = (Selector *)v;
  const Var *hv = hint_var(s);
  if (hv) ptrmap_put(&sel->p->hinted, hv, (void *)hv);
  if (s->kind == STMT_FOR && s->u.for_.fkind != FOR_THREAD_BINDING &&
      ptrmap_get(&sel->p->hinted, s->u.for_.var)) {
    /* a hinted loop is a candidate whatever its range and conditions */
    ptrmap_put(&sel->p->candidates, s, (void *)s);
    ir_visit_children_stmt(v, s);
    return;
  }
  if (s->kind == STMT_FOR && s->u.for_.fkind != FOR_THREAD_BINDING) {
    int64_t c;
    if (!ir_as_int(s->u.for_.min, &c) || !ir_as_int(s->u.for_.extent, &c) ||
        sel->p->const_loops) {
      /* visit the range outside the record of the loop's own variable */
      ir_visit_expr(v, s->u.for_.min);
      ir_visit_expr(v, s->u.for_.extent);
      select_over(sel, s, s->u.for_.var, s->u.for_.body);
      return;
    }
  } else if (is_thread_extent(s)) {
    const IterVar *iv = s->u.attr.node;
    int64_t c;
    if (is_block_idx(iv) && (!ir_as_int(s->u.attr.value, &c) || sel->p->const_loops)) {
      ir_visit_expr(v, s->u.attr.value);
      select_over(sel, s, iv->var, s->u.attr.body);
      return;
    }
  } else if (s->kind == STMT_SEQ) {
    /* an allreduce in one statement keeps the loops around the sequence whole, not the loops
     * of the other statements */
    bool outer = sel->no_split, any = outer;
    for (int i = 0; i < s->u.seq.n; i++) {
      sel->no_split = outer;
      ir_visit_stmt(v, s->u.seq.items[i]);
      any = any || sel->no_split;
    }
    sel->no_split = any;
    return;
  }
  ir_visit_children_stmt(v, s);
}

static void select_expr(IrVisitor *v, const Expr *e) {
  Selector *sel = (Selector *)v;
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.likely") == 0) {
    bool was = sel->in_likely;
    sel->in_likely = true;
    ir_visit_children_expr(v, e);
    sel->in_likely = was;
    return;
  }
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.tvm_thread_allreduce") == 0) {
    sel->no_split = true;
    return;
  }
  if (e->kind == EXPR_VAR && sel->in_likely)
    for (int i = 0; i < sel->nrec; i++)
      if (sel->rec[i].var == e->u.var) sel->rec[i].used = true;
  ir_visit_children_expr(v, e);
}

static void select_candidates(Partitioner *p, const Stmt *s) {
  Selector sel = {.v = {select_expr, select_stmt}, .p = p};
  ir_visit_stmt(&sel.v, s);
}

/* ---- bounds of a condition (TVM's DeduceBound, for the linear case) ---- */

static Expr *bin(Partitioner *p, ExprKind k, Expr *x, Expr *y) {
  return arith_simplify_binary(p->an, k, x, y);
}

static Expr *cst(Partitioner *p, DType t, int64_t v) { return arith_const(p->m.arena, t, v); }

/* The values of var for which cond holds whatever values the variables of relax take, as an
 * interval (a NULL end: unbounded); false when it cannot be deduced. */
static bool deduce(Partitioner *p, const Var *var, const Expr *cond, const PtrMap *relax,
                   IntSet *out) {
  ExprKind k = cond->kind;
  if (k != EXPR_LT && k != EXPR_LE && k != EXPR_GT && k != EXPR_GE) return false;
  Expr *a = cond->u.bin.a, *b = cond->u.bin.b;
  DType t = a->dtype;
  /* (a comparison of another integer type than var's, e.g. of int64 data a where= reads: the
   * linear form below would mix the two types; fuzzer seed 446) */
  if (!dt_is_int(t) || t.lanes != 1 || t.code != DT_INT || !dt_eq(t, var->dtype)) return false;
  Arena *ar = p->m.arena;
  Expr *e = bin(p, EXPR_SUB, a, b);
  VarMap at0 = {var, cst(p, t, 0)}, at1 = {var, cst(p, t, 1)};
  Expr *rest = arith_simplify(p->an, ir_substitute_expr(ar, e, 1, &at0));
  Expr *ce = bin(p, EXPR_SUB, arith_simplify(p->an, ir_substitute_expr(ar, e, 1, &at1)), rest);
  int64_t c;
  if (ce->kind != EXPR_INT || !ir_as_int(ce, &c) || c == 0 || c > (1 << 30) || c < -(1 << 30))
    return false;
  Expr *vref = ir_varref(ar, (Var *)var);
  Expr *linear = bin(p, EXPR_ADD, bin(p, EXPR_MUL, vref, cst(p, t, c)), rest);
  if (!arith_can_prove_equal(p->an, e, linear)) return false;
  IntSet r = sched_relax_set(p->an, rest, relax); /* a loop bounded by an outer one: both relax */
  bool upper = k == EXPR_LT || k == EXPR_LE; /* c*var + rest <= K, else >= K */
  int64_t K = k == EXPR_LT ? -1 : k == EXPR_GT ? 1 : 0;
  Expr *rb = upper ? r.max : r.min;
  if (!rb) return false;
  Expr *lim = bin(p, EXPR_SUB, cst(p, t, K), rb); /* c*var <= lim, else >= lim */
  int64_t d = c > 0 ? c : -c;
  Expr *dv = cst(p, t, d);
  *out = (IntSet){NULL, NULL};
  if (upper == (c > 0)) {
    /* var <= floor(lim / c) for c > 0 (<=), or var <= floor(-lim / d) for c < 0 (>=) */
    Expr *num = c > 0 ? lim : bin(p, EXPR_SUB, cst(p, t, 0), lim);
    out->max = bin(p, EXPR_FLOORDIV, num, dv);
  } else {
    /* var >= ceil(lim / c) for c > 0 (>=), or var >= ceil(-lim / d) for c < 0 (<=) */
    Expr *num = c > 0 ? lim : bin(p, EXPR_SUB, cst(p, t, 0), lim);
    out->min = bin(p, EXPR_FLOORDIV, bin(p, EXPR_ADD, num, cst(p, t, d - 1)), dv);
  }
  return true;
}

static Expr *inverse(Arena *a, const Expr *cond) {
  static const ExprKind inv[][2] = {
      {EXPR_LT, EXPR_GE}, {EXPR_GT, EXPR_LE}, {EXPR_LE, EXPR_GT}, {EXPR_GE, EXPR_LT}};
  for (size_t i = 0; i < sizeof inv / sizeof inv[0]; i++)
    if (cond->kind == inv[i][0]) return ir_binary(a, inv[i][1], cond->u.bin.a, cond->u.bin.b);
  return NULL;
}

/* ---- the partitions of one variable (TVM's PartitionFinder) ---- */

typedef struct Part {
  const Expr *cond;
  bool value;
  IntSet set;
} Part;

typedef struct Finder {
  IrVisitor v;
  Partitioner *p;
  const Var *var;
  bool every_cond; /* a hinted loop: every comparison is a condition, not only likely ones */
  VarStack out;   /* variables fixed outside the candidate, and its own */
  VarStack relax; /* what a bound holds over */
  VarStack lets;  /* variables let-bound inside the candidate: a bound may not name them */
  Part *parts;
  int nparts, cap;
} Finder;

static bool uses_out(const Finder *f, const Expr *e) {
  for (int i = 0; i < f->out.n; i++)
    if (ir_expr_uses_var(e, f->out.items[i].var)) return true;
  return false;
}

static void add_part(Finder *f, const Expr *cond, bool value, IntSet set) {
  for (int i = 0; i < f->nparts; i++)
    if (f->parts[i].cond == cond && f->parts[i].value == value) {
      f->parts[i].set = set;
      return;
    }
  if (f->nparts == f->cap) {
    int cap = f->cap ? 2 * f->cap : 8;
    f->parts = arena_realloc(f->p->m.arena, f->parts, (size_t)f->cap * sizeof *f->parts,
                             (size_t)cap * sizeof *f->parts);
    f->cap = cap;
  }
  f->parts[f->nparts++] = (Part){cond, value, set};
}

static void deduce_condition(Finder *f, const Expr *cond) {
  if (!ir_expr_uses_var(cond, f->var)) return;
  for (int i = 0; i < f->lets.n; i++)
    if (ir_expr_uses_var(cond, f->lets.items[i].var)) return;
  Partitioner *p = f->p;
  PtrMap relax;
  ptrmap_init(&relax, p->m.arena);
  for (int i = 0; i < f->relax.n; i++) ptrmap_put(&relax, f->relax.items[i].var, &f->relax.items[i].set);
  IntSet set;
  if (deduce(p, f->var, cond, &relax, &set)) add_part(f, cond, true, set);
  Expr *inv = inverse(p->m.arena, cond);
  if (inv && deduce(p, f->var, inv, &relax, &set)) add_part(f, cond, false, set);
}

static void find_stmt(IrVisitor *v, const Stmt *s) {
  Finder *f = (Finder *)v;
  if (s->kind == STMT_FOR) {
    if (uses_out(f, s->u.for_.min) || uses_out(f, s->u.for_.extent)) return;
    push_var(f->p->m.arena, &f->relax, s->u.for_.var,
             sched_set_range(f->p->an, (Range){s->u.for_.min, s->u.for_.extent}));
    ir_visit_children_stmt(v, s);
    f->relax.n--;
    return;
  }
  if (is_thread_extent(s)) {
    const IterVar *iv = s->u.attr.node;
    Expr *value = s->u.attr.value;
    push_var(f->p->m.arena, &f->relax, iv->var,
             sched_set_range(f->p->an, (Range){cst(f->p, value->dtype, 0), value}));
    ir_visit_children_stmt(v, s);
    f->relax.n--;
    return;
  }
  if (s->kind == STMT_LET) {
    ir_visit_expr(v, s->u.let.value);
    push_var(f->p->m.arena, &f->lets, s->u.let.var, (IntSet){NULL, NULL});
    ir_visit_stmt(v, s->u.let.body);
    f->lets.n--;
    return;
  }
  ir_visit_children_stmt(v, s);
}

static void find_expr(IrVisitor *v, const Expr *e) {
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.likely") == 0 && e->u.call.n == 1) {
    deduce_condition((Finder *)v, e->u.call.args[0]);
    return;
  }
  Finder *f = (Finder *)v;
  if (e->kind == EXPR_LET) {
    ir_visit_expr(v, e->u.let.value);
    push_var(f->p->m.arena, &f->lets, e->u.let.var, (IntSet){NULL, NULL});
    ir_visit_expr(v, e->u.let.body);
    f->lets.n--;
    return;
  }
  if (f->every_cond && (e->kind == EXPR_LT || e->kind == EXPR_LE ||
                                    e->kind == EXPR_GT || e->kind == EXPR_GE)) {
    deduce_condition(f, e);
    return;
  }
  ir_visit_children_expr(v, e);
}

/* ---- rewriting ---- */

typedef struct Eliminator {
  IrMutator m;
  const Part *parts;
  int nparts;
  bool value;
} Eliminator;

static Expr *eliminate_expr(IrMutator *m, Expr *e) {
  Eliminator *el = (Eliminator *)m;
  for (int i = 0; i < el->nparts; i++)
    if (el->parts[i].cond == e)
      return ir_int(m->arena, DT_BOOL1, el->value);
  return ir_mutate_children_expr(m, e);
}

/* body with the conditions of parts replaced by value. */
static Stmt *eliminate(Partitioner *p, Stmt *body, const Part *parts, int n, bool value) {
  Eliminator el = {{p->m.arena, eliminate_expr, NULL}, parts, n, value};
  return ir_mutate_stmt(&el.m, body);
}

static Stmt *subst(Partitioner *p, Stmt *body, const Var *v, Expr *to) {
  VarMap m = {v, to};
  return ir_substitute_stmt(p->m.arena, body, 1, &m);
}

/* A hinted loop's parts must stay what the schedule made of the loop: a vectorized or unrolled
 * loop of a constant extent (TVM's vectorizer and unroller fail on any other), and a loop inside
 * a vectorized one of the same extent in every lane (else the vector loop runs lane by lane).
 * A part that is not is a LowerError naming the loop and the part's extent; TVM's own failure
 * came later, in the pass that could not vectorize or unroll the part. */
static void check_part(Partitioner *p, const Stmt *loop, Expr *extent) {
  const Var *v = loop->u.for_.var;
  if (!p->diag || diag_failed(p->diag) || !ptrmap_get(&p->hinted, v)) return;
  ForKind k = loop->u.for_.fkind;
  Expr *e = arith_simplify(p->an, extent);
  const Var *lane = NULL;
  for (int i = 0; i < p->vector.n && !lane; i++)
    if (ir_expr_uses_var(e, p->vector.items[i].var)) lane = p->vector.items[i].var;
  int64_t c;
  bool fixed = k != FOR_VECTORIZED && k != FOR_UNROLLED;
  if ((fixed || ir_as_int(e, &c)) && !lane) return;
  StrBuf ext = STRBUF_INIT;
  ir_print_expr(&ext, e);
  if (lane)
    ir_error(p->diag,
             "pragma loop_partition_hint on loop %s inside vectorized loop %s: a part of it "
             "would run %s times, a count that differs from lane to lane; put the hint on a "
             "loop outside %s",
             v->name, lane->name, sb_cstr(&ext), lane->name);
  else
    ir_error(p->diag,
             "pragma loop_partition_hint on %s loop %s: a part of it would run %s times, not a "
             "constant, as such a loop must; put the hint on a loop outside it",
             k == FOR_VECTORIZED ? "vectorized" : "unrolled", v->name, sb_cstr(&ext));
  sb_free(&ext);
}

/* A copy of loop over [0, extent) with body; its body alone, the variable 0, at extent 1;
 * NULL, no part at all, when the extent is never positive (a guard `i >= c` past the end of
 * the loop leaves nothing after the middle). */
static Stmt *make_for(Partitioner *p, const Stmt *loop, Expr *extent, Stmt *body) {
  Var *v = loop->u.for_.var;
  if (arith_can_prove(p->an, bin(p, EXPR_LE, extent, cst(p, extent->dtype, 0)))) return NULL;
  check_part(p, loop, extent);
  if (!p->keep_unit_loops && arith_can_prove_equal(p->an, extent, cst(p, extent->dtype, 1)))
    return subst(p, body, v, cst(p, v->dtype, 0));
  return ir_for(p->m.arena, v, cst(p, v->dtype, 0), extent, loop->u.for_.fkind, NULL, body);
}

/* Every loop and let variable s binds replaced by a new one of the same name, as TVM's
 * ConvertSSA leaves the second copy of a partitioned loop: its definitions print with their
 * types again. */
static Stmt *rename_stmt(IrMutator *m, Stmt *s) {
  if (s->kind != STMT_FOR && s->kind != STMT_LET) return ir_mutate_children_stmt(m, s);
  Var *old = s->kind == STMT_FOR ? s->u.for_.var : s->u.let.var;
  Var *v = ir_var(m->arena, old->name, old->dtype);
  VarMap map = {old, ir_varref(m->arena, v)};
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (r->kind == STMT_FOR)
    return ir_for(m->arena, v, r->u.for_.min, r->u.for_.extent, r->u.for_.fkind,
                  r->u.for_.thread_tag, ir_substitute_stmt(m->arena, r->u.for_.body, 1, &map));
  return ir_let_stmt(m->arena, v, r->u.let.value,
                     ir_substitute_stmt(m->arena, r->u.let.body, 1, &map));
}

static Stmt *renamed(Arena *a, Stmt *s) {
  IrMutator m = {a, NULL, rename_stmt};
  return ir_mutate_stmt(&m, s);
}

static Stmt *visit_and_mutate(Partitioner *p, Stmt *s) {
  select_candidates(p, s);
  return ir_mutate_stmt(&p->m, s);
}

typedef struct ThreadInserter {
  IrMutator m;
  Partitioner *p;
  const Part *parts;
  int nparts;
  bool value;
  Expr *cond;
  bool innermost;
} ThreadInserter;

static Stmt *insert_stmt(IrMutator *m, Stmt *s) {
  ThreadInserter *ti = (ThreadInserter *)m;
  if (!is_thread_extent(s)) return ir_mutate_children_stmt(m, s);
  ti->innermost = true;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (ti->innermost) {
    Stmt *fast = eliminate(ti->p, s->u.attr.body, ti->parts, ti->nparts, ti->value);
    Stmt *body = ir_if(m->arena, ti->cond, fast, renamed(m->arena, s->u.attr.body));
    r = ir_attr(m->arena, s->u.attr.nkind, s->u.attr.node, s->u.attr.key, s->u.attr.value, body);
  }
  ti->innermost = false;
  return r;
}

/* The interval where every part of value `value` that meets [min, max] holds: their
 * intersection; false when there is none. Those parts are moved to the front of parts. */
static bool middle_of(Partitioner *p, Part *parts, int n, Expr *min, Expr *max, bool value,
                      IntSet *mid, int *nused) {
  int used = 0;
  IntSet r = {NULL, NULL};
  for (int i = 0; i < n; i++) {
    if (parts[i].value != value) continue;
    IntSet s = parts[i].set;
    if ((s.max && arith_can_prove(p->an, bin(p, EXPR_LT, s.max, min))) ||
        (s.min && arith_can_prove(p->an, bin(p, EXPR_GT, s.min, max))))
      continue;
    r.min = !s.min ? r.min : r.min ? bin(p, EXPR_MAX, r.min, s.min) : s.min;
    r.max = !s.max ? r.max : r.max ? bin(p, EXPR_MIN, r.max, s.max) : s.max;
    Part tmp = parts[used];
    parts[used++] = parts[i];
    parts[i] = tmp;
  }
  *mid = r;
  *nused = used;
  return used > 0;
}

/* TVM's TryPartition: stmt is the loop (or the blockIdx attr, thread) of var over [min, max]
 * with body; NULL when no condition gives a part. */
static Stmt *try_partition(Partitioner *p, Stmt *stmt, const Var *var, Expr *min, Expr *max,
                           Stmt *body, bool thread) {
  Arena *a = p->m.arena;
  Finder f = {.v = {find_expr, find_stmt}, .p = p, .var = var,
              .every_cond = ptrmap_get(&p->hinted, var) != NULL};
  for (int i = 0; i < p->hint.n; i++) push_var(a, &f.out, p->hint.items[i].var, p->hint.items[i].set);
  for (int i = 0; i < p->relax.n; i++) {
    push_var(a, &f.out, p->relax.items[i].var, p->relax.items[i].set);
    push_var(a, &f.relax, p->relax.items[i].var, p->relax.items[i].set);
  }
  push_var(a, &f.out, var, (IntSet){min, max});
  ir_visit_stmt(&f.v, body);
  if (f.nparts == 0) return NULL;

  IntSet mid;
  int nused;
  bool value = true;
  if (!middle_of(p, f.parts, f.nparts, min, max, true, &mid, &nused)) {
    if (!middle_of(p, f.parts, f.nparts, min, max, false, &mid, &nused)) return NULL;
    value = false;
  }
  DType t = var->dtype;
  Expr *one = cst(p, t, 1), *end = bin(p, EXPR_ADD, max, one);
  Expr *vref = ir_varref(a, (Var *)var);

  /* before the middle: [min, body_begin) */
  Expr *body_begin = min;
  Stmt *pre = NULL;
  bool pre_recurse = true;
  if (mid.min) {
    body_begin = arith_simplify(p->an, mid.min);
    if (!arith_can_prove_equal(p->an, body_begin, min)) {
      if (!arith_can_prove(p->an, bin(p, EXPR_GE, bin(p, EXPR_SUB, body_begin, min), cst(p, t, 0)))) {
        body_begin = bin(p, EXPR_MAX, body_begin, min);
        pre_recurse = false;
      }
      /* TVM leaves this out; a middle part that starts past the loop's end (a guard `i >= c`
       * in a loop shorter than c) would make the part before it longer than the loop */
      if (!arith_can_prove(p->an, bin(p, EXPR_LE, body_begin, end)))
        body_begin = bin(p, EXPR_MIN, body_begin, end);
      if (!thread)
        pre = make_for(p, stmt, bin(p, EXPR_SUB, body_begin, min),
                       subst(p, body, var, bin(p, EXPR_ADD, vref, min)));
    }
  }
  /* after it: [post_begin, max] */
  Expr *post_begin = end;
  Stmt *post = NULL;
  bool post_recurse = true;
  if (mid.max) {
    post_begin = bin(p, EXPR_ADD, mid.max, one);
    if (!arith_can_prove_equal(p->an, mid.max, max)) {
      if (!arith_can_prove(p->an, bin(p, EXPR_GE, bin(p, EXPR_SUB, end, post_begin), cst(p, t, 0)))) {
        post_begin = bin(p, EXPR_MIN, post_begin, end);
        post_recurse = false;
      }
      /* nor may it end before the loop's start (TVM leaves this out too) */
      if (!arith_can_prove(p->an, bin(p, EXPR_GE, post_begin, body_begin)))
        post_begin = bin(p, EXPR_MAX, post_begin, body_begin);
      if (!thread)
        post = make_for(p, stmt, bin(p, EXPR_SUB, end, post_begin),
                        subst(p, body, var, bin(p, EXPR_ADD, vref, post_begin)));
    }
  }

  if (thread) {
    Expr *cond = NULL;
    if (!arith_can_prove_equal(p->an, body_begin, min))
      cond = ir_binary(a, EXPR_GE, vref, body_begin);
    if (!arith_can_prove_equal(p->an, post_begin, end)) {
      Expr *c = ir_binary(a, EXPR_LT, vref, post_begin);
      cond = cond ? ir_binary(a, EXPR_AND, cond, c) : c;
    }
    ThreadInserter ti = {{a, NULL, insert_stmt}, p, f.parts, nused, value,
                         cond ? cond : ir_int(a, DT_BOOL1, 1), false};
    return ir_mutate_stmt(&ti.m, stmt);
  }

  Stmt *middle = NULL;
  if (!arith_can_prove(p->an, bin(p, EXPR_GE, body_begin, post_begin))) {
    Stmt *simple = eliminate(p, body, f.parts, nused, value);
    middle = make_for(p, stmt, bin(p, EXPR_SUB, post_begin, body_begin),
                      subst(p, simple, var, bin(p, EXPR_ADD, vref, body_begin)));
    if (middle && (pre || post)) {
      middle = visit_and_mutate(p, middle);
      if (p->redo < REDO_MAX) {
        p->redo++;
        if (pre && pre_recurse) pre = visit_and_mutate(p, pre);
        if (post && post_recurse) post = visit_and_mutate(p, post);
        p->redo--;
      }
    }
  }
  Stmt *items[3];
  int n = 0;
  if (pre) items[n++] = pre;
  if (middle) {
    items[n] = n ? renamed(a, middle) : middle;
    n++;
  }
  if (post) {
    items[n] = n ? renamed(a, post) : post;
    n++;
  }
  return ir_seq(a, n, items);
}

static Stmt *partition_stmt(IrMutator *m, Stmt *s) {
  Partitioner *p = (Partitioner *)m;
  Arena *a = m->arena;
  if (s->kind == STMT_FOR && s->u.for_.fkind != FOR_THREAD_BINDING) {
    Expr *max = bin(p, EXPR_SUB, bin(p, EXPR_ADD, s->u.for_.min, s->u.for_.extent),
                    cst(p, s->u.for_.extent->dtype, 1));
    if (ptrmap_get(&p->candidates, s)) {
      Stmt *r = try_partition(p, s, s->u.for_.var, s->u.for_.min, max, s->u.for_.body, false);
      if (r) return r;
    }
    /* Inside a loop the schedule unrolls, nothing is partitioned: tir.UnrollLoop copies the
     * body once per iteration, so every part made here would be multiplied by the extent (a
     * compute_at under an unrolled fused loop grew past UnrollLoop's limit: fuzzer seed 710).
     * The guards stay, which is what the loop was before this pass. */
    if (s->u.for_.fkind == FOR_UNROLLED) return s;
    bool vector = s->u.for_.fkind == FOR_VECTORIZED;
    push_var(a, &p->hint, s->u.for_.var, (IntSet){s->u.for_.min, max});
    if (vector) push_var(a, &p->vector, s->u.for_.var, (IntSet){s->u.for_.min, max});
    Stmt *r = ir_mutate_children_stmt(m, s);
    p->hint.n--;
    if (vector) p->vector.n--;
    return r;
  }
  if (is_thread_extent(s)) {
    const IterVar *iv = s->u.attr.node;
    Expr *value = s->u.attr.value;
    Expr *max = bin(p, EXPR_SUB, value, cst(p, value->dtype, 1));
    if (ptrmap_get(&p->candidates, s)) {
      Stmt *r = try_partition(p, s, iv->var, cst(p, value->dtype, 0), max, s->u.attr.body, true);
      if (r) return r;
    }
    bool thread_idx = iv->thread_tag && strncmp(iv->thread_tag, "threadIdx.", 10) == 0;
    VarStack *st = thread_idx ? &p->relax : &p->hint;
    push_var(a, st, iv->var, (IntSet){cst(p, value->dtype, 0), max});
    Stmt *r = ir_mutate_children_stmt(m, s);
    st->n--;
    return r;
  }
  return ir_mutate_children_stmt(m, s);
}

static Expr *drop_likely(IrMutator *m, Expr *e) {
  if (e->kind == EXPR_CALL && strcmp(e->u.call.op, "tir.likely") == 0 && e->u.call.n == 1)
    return ir_mutate_expr(m, e->u.call.args[0]);
  return ir_mutate_children_expr(m, e);
}

static Stmt *drop_hint(IrMutator *m, Stmt *s) {
  if (hint_var(s)) return ir_mutate_stmt(m, s->u.attr.body);
  return ir_mutate_children_stmt(m, s);
}

Stmt *pass_loop_partition(Stmt *s, PassCtx *ctx) {
  Partitioner p = {
      .m = {ctx->arena, NULL, partition_stmt}, .an = arith_new(ctx->arena), .diag = ctx->diag};
  p.const_loops = pass_option(ctx, "tir.LoopPartition", "partition_const_loop", 0) != 0;
  p.keep_unit_loops =
      pass_option(ctx, "tir.LoopPartition", "no_unroll_loop_with_extent_one", 0) != 0;
  ptrmap_init(&p.candidates, ctx->arena);
  ptrmap_init(&p.hinted, ctx->arena);
  /* an argument's shape variable is a size: what the bounds of the parts may assume */
  for (int i = 0; i < ctx->nbinds; i++) {
    const Buffer *b = ctx->bind_buffers[i];
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d]->kind == EXPR_VAR)
        arith_bind_bound(p.an, b->shape[d]->u.var, (ConstBound){0, ARITH_POS_INF});
  }
  Stmt *r = visit_and_mutate(&p, s);
  arith_free(p.an);
  IrMutator drop = {ctx->arena, drop_likely, drop_hint};
  return ir_mutate_stmt(&drop, r);
}
