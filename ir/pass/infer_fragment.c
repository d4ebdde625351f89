/* infer_fragment: the shape and layout of each TensorCore fragment (TVM's tir.InferFragment).
 *   A buffer of scope wmma.matrix_a, wmma.matrix_b or wmma.accumulator holds an array of
 *   fragments, which CUDA declares with their shape (m, n, k) and, for matrix_a and matrix_b,
 *   their layout; the intrinsics that use the buffer (ir/wmma.h) say both.
 * Assumes: flat buffers; the intrinsics' fragment arguments are the data variables of
 *   allocations in a wmma scope.
 * Guarantees: each fragment allocation that an intrinsic uses is wrapped in
 *   `attr [buf] "fragment_shape" = "M, N, K"` and, for matrix_a and matrix_b, that in
 *   `attr [buf] "fragment_layout" = "row_major"` (or "col_major"), as TVM has them. The shape
 *   comes from tvm_fill_fragment, tvm_load_matrix_sync and tvm_store_matrix_sync (their
 *   constant m, n, k), and passes through tvm_mma_sync, whose four fragments share one shape;
 *   the layout from tvm_load_matrix_sync. Uses that disagree (two shapes for one fragment, two
 *   layouts, an mma of different shapes or of fragments in the wrong scopes, a store of a
 *   matrix_a fragment, a size that is not a whole number of fragments, a non-constant shape)
 *   are an error on ctx->diag naming the fragment and the intrinsics, and the input is
 *   returned. Fragments no intrinsic uses are left alone (the cuda target refuses them).
 *   Allocations already wrapped (a function lowered before) are not wrapped again.
 * Why here: for GPU targets only, before tir.SplitHostDevice; TVM runs it in its device build,
 *   so tvm.lower's IR has no fragment attributes unless lowered for cuda. */
#include <stdarg.h>
#include <stdio.h>

#include "ir/pass/pass.h"
#include "ir/printer.h"
#include "ir/support.h"
#include "ir/wmma.h"

typedef struct Frag {
  const Stmt *alloc;
  WmmaScope scope;
  int64_t mnk[3];
  const char *shape_from; /* the intrinsic that gave the shape; NULL: not known */
  const char *layout;     /* "row_major", "col_major"; NULL: not known */
  bool annotated;         /* wrapped already */
} Frag;

typedef struct Infer {
  IrVisitor v;
  PassCtx *ctx;
  Frag *frags;
  int n, cap;
  const Expr **mmas;
  int nmma, cap_mma;
} Infer;

static const char *name_of(const Frag *f) { return f->alloc->u.alloc.buffer_var->name; }

static const char *scope_of(const Frag *f) { return f->alloc->u.alloc.scope; }

static const char *fn_of(const Expr *call) {
  const char *op = call->u.call.op;
  return strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
}

static Frag *frag_of(Infer *in, const Expr *e) {
  if (e->kind != EXPR_VAR) return NULL;
  for (int i = in->n - 1; i >= 0; i--)
    if (in->frags[i].alloc->u.alloc.buffer_var == e->u.var) return &in->frags[i];
  return NULL;
}

static bool fail(Infer *in, const char *fmt, ...) TES_PRINTF(2, 3);
static bool fail(Infer *in, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ir_verror_prefixed(in->ctx->diag, "cannot infer the TensorCore fragments", fmt, ap);
  va_end(ap);
  return false;
}

/* The fragment a call's argument i names; an error when it is not one. */
static Frag *fragment_arg(Infer *in, const Expr *call, int i) {
  Frag *f = frag_of(in, call->u.call.args[i]);
  if (f) return f;
  StrBuf b = STRBUF_INIT;
  ir_print_expr(&b, call->u.call.args[i]);
  fail(in,
       "argument %d of @tir.%s is %s, not a buffer of a wmma scope (wmma.matrix_a, "
       "wmma.matrix_b, wmma.accumulator) allocated around it",
       i, fn_of(call), sb_cstr(&b));
  sb_free(&b);
  return NULL;
}

static bool same_shape(const int64_t a[3], const int64_t b[3]) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* The fragment's shape is mnk (from intrinsic fn): set, or checked against what it was. */
static bool set_shape(Infer *in, Frag *f, const int64_t mnk[3], const char *fn) {
  if (!f->shape_from) {
    memcpy(f->mnk, mnk, sizeof f->mnk);
    f->shape_from = fn;
    return true;
  }
  if (same_shape(f->mnk, mnk)) return true;
  return fail(in, "fragment '%s' (%s) is %lldx%lldx%lld by @tir.%s and %lldx%lldx%lld by @tir.%s",
              name_of(f), scope_of(f), (long long)f->mnk[0], (long long)f->mnk[1],
              (long long)f->mnk[2], f->shape_from, (long long)mnk[0], (long long)mnk[1],
              (long long)mnk[2], fn);
}

static bool layout_arg(Infer *in, const Expr *call, const char **out) {
  const Expr *l = call->u.call.args[7];
  if (l->kind == EXPR_STR &&
      (strcmp(l->u.str, "row_major") == 0 || strcmp(l->u.str, "col_major") == 0))
    return *out = l->u.str, true;
  StrBuf b = STRBUF_INIT;
  ir_print_expr(&b, l);
  fail(in, "the layout of @tir.%s is %s, not \"row_major\" or \"col_major\"", fn_of(call),
       sb_cstr(&b));
  sb_free(&b);
  return false;
}

/* fill, load and store: a fragment, its constant shape, and a load's layout. */
static void fragment_call(Infer *in, const Expr *e, WmmaCall c) {
  const char *fn = fn_of(e);
  Frag *f = fragment_arg(in, e, 0);
  if (!f) return;
  int64_t mnk[3];
  for (int i = 0; i < 3; i++)
    if (!ir_as_int(e->u.call.args[1 + i], &mnk[i]) || mnk[i] <= 0) {
      StrBuf b = STRBUF_INIT;
      ir_print_expr(&b, e->u.call.args[1 + i]);
      fail(in, "the %c of fragment '%s' in @tir.%s is %s, not a positive constant", "mnk"[i],
           name_of(f), fn, sb_cstr(&b));
      sb_free(&b);
      return;
    }
  if (c == WMMA_STORE && f->scope != WMMA_ACCUMULATOR) {
    fail(in,
         "@tir.tvm_store_matrix_sync stores fragment '%s' of %s: only a wmma.accumulator "
         "fragment can be stored",
         name_of(f), scope_of(f));
    return;
  }
  if (!set_shape(in, f, mnk, fn)) return;
  const char *layout;
  if (c == WMMA_FILL || !layout_arg(in, e, &layout)) return;
  if (c != WMMA_LOAD || f->scope == WMMA_ACCUMULATOR) return;
  if (f->layout && strcmp(f->layout, layout) != 0) {
    fail(in, "fragment '%s' (%s) is loaded both %s and %s", name_of(f), scope_of(f), f->layout,
         layout);
    return;
  }
  f->layout = layout;
}

static void infer_expr(IrVisitor *v, const Expr *e) {
  Infer *in = (Infer *)v;
  if (diag_failed(in->ctx->diag)) return;
  WmmaCall c = wmma_call(e);
  if (c != WMMA_CALL_NONE && e->u.call.n != wmma_call_arity(c)) {
    fail(in, "@tir.%s takes %d arguments, not %d", fn_of(e), wmma_call_arity(c), e->u.call.n);
    return;
  }
  if (c == WMMA_MMA) {
    VEC_GROW(in->ctx->arena, in->mmas, in->cap_mma, in->nmma + 1);
    in->mmas[in->nmma++] = e;
  } else if (c != WMMA_CALL_NONE) {
    fragment_call(in, e, c);
  }
  ir_visit_children_expr(v, e);
}

static void infer_stmt(IrVisitor *v, const Stmt *s) {
  Infer *in = (Infer *)v;
  if (diag_failed(in->ctx->diag)) return;
  if (s->kind == STMT_ALLOCATE && wmma_scope(s->u.alloc.scope) != WMMA_NONE) {
    VEC_GROW(in->ctx->arena, in->frags, in->cap, in->n + 1);
    in->frags[in->n++] = (Frag){.alloc = s, .scope = wmma_scope(s->u.alloc.scope)};
  }
  ir_visit_children_stmt(v, s);
}

/* tvm_mma_sync(d, di, a, ai, b, bi, c, ci): d and c accumulators, a matrix_a, b matrix_b, all
 * of one shape. A fragment without a shape of its own takes the others'; *changed says so. */
static bool check_mma(Infer *in, const Expr *e, bool *changed) {
  static const WmmaScope want[4] = {WMMA_ACCUMULATOR, WMMA_MATRIX_A, WMMA_MATRIX_B,
                                    WMMA_ACCUMULATOR};
  static const char *const want_name[4] = {"wmma.accumulator", "wmma.matrix_a", "wmma.matrix_b",
                                           "wmma.accumulator"};
  Frag *f[4];
  const Frag *shaped = NULL;
  for (int i = 0; i < 4; i++) {
    if (!(f[i] = fragment_arg(in, e, 2 * i))) return false;
    if (f[i]->scope != want[i])
      return fail(in,
                  "argument %d of @tir.tvm_mma_sync is fragment '%s' of %s, where %s is "
                  "wanted",
                  2 * i, name_of(f[i]), scope_of(f[i]), want_name[i]);
    if (!shaped && f[i]->shape_from) shaped = f[i];
  }
  if (!shaped) return true;
  for (int i = 0; i < 4; i++) {
    if (!f[i]->shape_from) {
      memcpy(f[i]->mnk, shaped->mnk, sizeof f[i]->mnk);
      f[i]->shape_from = "tvm_mma_sync";
      *changed = true;
    } else if (!same_shape(f[i]->mnk, shaped->mnk)) {
      return fail(in,
                  "@tir.tvm_mma_sync multiplies fragments of different shapes: '%s' is "
                  "%lldx%lldx%lld (by @tir.%s) and '%s' is %lldx%lldx%lld (by @tir.%s)",
                  name_of(shaped), (long long)shaped->mnk[0], (long long)shaped->mnk[1],
                  (long long)shaped->mnk[2], shaped->shape_from, name_of(f[i]),
                  (long long)f[i]->mnk[0], (long long)f[i]->mnk[1], (long long)f[i]->mnk[2],
                  f[i]->shape_from);
    }
  }
  return true;
}

/* Elements of one fragment: m*k of matrix_a, k*n of matrix_b, m*n of an accumulator. */
static int64_t frag_elems(const Frag *f) {
  return f->scope == WMMA_MATRIX_A   ? f->mnk[0] * f->mnk[2]
         : f->scope == WMMA_MATRIX_B ? f->mnk[2] * f->mnk[1]
                                     : f->mnk[0] * f->mnk[1];
}

static bool check_frag(Infer *in, const Frag *f) {
  if (!f->shape_from) return true;
  if (f->scope != WMMA_ACCUMULATOR && !f->layout)
    return fail(in, "fragment '%s' (%s) has no layout: no @tir.tvm_load_matrix_sync loads it",
                name_of(f), scope_of(f));
  int64_t n = 1, ext;
  for (int i = 0; i < f->alloc->u.alloc.ndim; i++) {
    if (!ir_as_int(f->alloc->u.alloc.extents[i], &ext)) return true; /* the target refuses it */
    n *= ext;
  }
  if (n % frag_elems(f) != 0)
    return fail(in,
                "fragment '%s' (%s) has %lld elements, not a whole number of %lldx%lldx%lld "
                "fragments of %lld",
                name_of(f), scope_of(f), (long long)n, (long long)f->mnk[0], (long long)f->mnk[1],
                (long long)f->mnk[2], (long long)frag_elems(f));
  return true;
}

typedef struct Wrap {
  IrMutator m;
  Infer *in;
} Wrap;

static Frag *frag_of_alloc(Infer *in, const Stmt *s) {
  for (int i = 0; i < in->n; i++)
    if (in->frags[i].alloc == s) return &in->frags[i];
  return NULL;
}

static Frag *frag_of_var(Infer *in, const Var *v) {
  for (int i = 0; i < in->n; i++)
    if (in->frags[i].alloc->u.alloc.buffer_var == v) return &in->frags[i];
  return NULL;
}

static Stmt *wrap_stmt(IrMutator *m, Stmt *s) {
  Infer *in = ((Wrap *)m)->in;
  if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_VAR &&
      strcmp(s->u.attr.key, WMMA_ATTR_SHAPE) == 0) {
    Frag *f = frag_of_var(in, s->u.attr.node);
    if (f) f->annotated = true;
  }
  Frag *f = s->kind == STMT_ALLOCATE ? frag_of_alloc(in, s) : NULL;
  Stmt *r = ir_mutate_children_stmt(m, s);
  if (!f || !f->shape_from || f->annotated) return r;
  Arena *a = m->arena;
  Var *var = s->u.alloc.buffer_var;
  char shape[96];
  snprintf(shape, sizeof shape, "%lld, %lld, %lld", (long long)f->mnk[0], (long long)f->mnk[1],
           (long long)f->mnk[2]);
  r = ir_attr(a, ATTR_NODE_VAR, var, WMMA_ATTR_SHAPE, ir_str(a, shape), r);
  /* TVM's order: the layout outside the shape */
  if (f->scope != WMMA_ACCUMULATOR)
    r = ir_attr(a, ATTR_NODE_VAR, var, WMMA_ATTR_LAYOUT, ir_str(a, f->layout), r);
  return r;
}

Stmt *pass_infer_fragment(Stmt *s, PassCtx *ctx) {
  Infer in = {{infer_expr, infer_stmt}, ctx, NULL, 0, 0, NULL, 0, 0};
  ir_visit_stmt(&in.v, s);
  if (diag_failed(ctx->diag) || in.n == 0) return s;
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < in.nmma; i++)
      if (!check_mma(&in, in.mmas[i], &changed)) return s;
  }
  for (int i = 0; i < in.n; i++)
    if (!check_frag(&in, &in.frags[i])) return s;
  Wrap w = {{ctx->arena, NULL, wrap_stmt}, &in};
  return ir_mutate_stmt(&w.m, s);
}
