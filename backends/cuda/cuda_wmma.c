/* cuda_wmma.c: TensorCores in the cuda dialect (cuda_dialect.h). A buffer of a wmma scope is an
 * array of CUDA fragments, declared with the shape and layout tir.InferFragment put on its
 * allocation (ir/wmma.h):
 *   nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> A[2];
 * its count the allocation's elements over one fragment's (m*k, k*n or m*n). The intrinsics
 * print as nvcuda::wmma's functions on fragment BUF[index]; tvm_access_ptr as a typed pointer
 * into its buffer. What CUDA cannot declare (another shape or element type, a fragment no
 * intrinsic gave a shape, a fragment read element by element) is refused before printing. */
#include <stdio.h>
#include <stdlib.h>

#include "backends/cuda/cuda_dialect.h"
#include "ir/printer.h"

/* The shape and layout attributes seen so far, by variable. */
typedef struct Scan {
  IrVisitor v;
  CudaWmma *w;
  Diag *d;
  const Var **vars;
  const char **shapes, **layouts;
  int nattrs;
  const char *access; /* the first fragment read or written element by element */
  bool access_store;
  const char *unshaped; /* the first fragment allocation without a shape */
  const char *unshaped_scope;
} Scan;

static const CudaFrag *frag_of(const CudaWmma *w, const Expr *e) {
  if (!e || e->kind != EXPR_VAR) return NULL;
  for (int i = w->nfrags - 1; i >= 0; i--)
    if (w->frags[i].var == e->u.var) return &w->frags[i];
  return NULL;
}

static bool is_frag_var(const CudaWmma *w, const Var *v) {
  for (int i = 0; i < w->nfrags; i++)
    if (w->frags[i].var == v) return true;
  return false;
}

static void note_attr(Scan *sc, const Stmt *s) {
  bool shape = strcmp(s->u.attr.key, WMMA_ATTR_SHAPE) == 0;
  if (!shape && strcmp(s->u.attr.key, WMMA_ATTR_LAYOUT) != 0) return;
  if (s->u.attr.nkind != ATTR_NODE_VAR || s->u.attr.value->kind != EXPR_STR) return;
  int i = 0;
  while (i < sc->nattrs && sc->vars[i] != s->u.attr.node) i++;
  if (i == sc->nattrs) {
    sc->nattrs++;
    sc->vars = xrealloc(sc->vars, (size_t)sc->nattrs * sizeof *sc->vars);
    sc->shapes = xrealloc(sc->shapes, (size_t)sc->nattrs * sizeof *sc->shapes);
    sc->layouts = xrealloc(sc->layouts, (size_t)sc->nattrs * sizeof *sc->layouts);
    sc->vars[i] = s->u.attr.node;
    sc->shapes[i] = sc->layouts[i] = NULL;
  }
  if (shape)
    sc->shapes[i] = s->u.attr.value->u.str;
  else
    sc->layouts[i] = s->u.attr.value->u.str;
}

/* CUDA's fragments: 16x16x16, 32x8x16 and 8x32x16 of half, int8 or uint8 inputs, accumulating
 * in float or half (half inputs) or int32 (integer inputs). */
static bool check_type(Scan *sc, const Stmt *s, const CudaFrag *f) {
  DType t = s->u.alloc.dtype;
  bool half = t.code == DT_FLOAT && t.bits == 16, i8 = dt_is_int(t) && t.bits == 8;
  bool ok = f->scope == WMMA_ACCUMULATOR ? (t.code == DT_FLOAT && (t.bits == 32 || t.bits == 16)) ||
                                               (t.code == DT_INT && t.bits == 32)
                                         : half || i8;
  char tn[32];
  if (!ok || t.lanes != 1)
    return ir_error(sc->d,
                    "not supported yet: fragment '%s' of %s in %s on the cuda target "
                    "(TensorCore inputs are float16, int8 or uint8, accumulators float32, "
                    "float16 or int32)",
                    f->var->name, dt_name(t, tn), s->u.alloc.scope);
  static const int64_t shapes[][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    if (f->m == shapes[i][0] && f->n == shapes[i][1] && f->k == shapes[i][2]) return true;
  return ir_error(sc->d,
                  "not supported yet: fragment '%s' of shape %lldx%lldx%lld on the cuda "
                  "target (TensorCores take 16x16x16, 32x8x16 and 8x32x16)",
                  f->var->name, (long long)f->m, (long long)f->n, (long long)f->k);
}

static void note_alloc(Scan *sc, const Stmt *s) {
  WmmaScope scope = wmma_scope(s->u.alloc.scope);
  if (scope == WMMA_NONE) return;
  const Var *v = s->u.alloc.buffer_var;
  int i = 0;
  while (i < sc->nattrs && sc->vars[i] != v) i++;
  const char *shape = i < sc->nattrs ? sc->shapes[i] : NULL;
  const char *layout = i < sc->nattrs ? sc->layouts[i] : NULL;
  CudaFrag f = {.var = v, .scope = scope, .layout = layout};
  long long m, n, k;
  if (!shape || sscanf(shape, "%lld, %lld, %lld", &m, &n, &k) != 3 ||
      (scope != WMMA_ACCUMULATOR && !layout)) {
    if (!sc->unshaped) sc->unshaped = v->name, sc->unshaped_scope = s->u.alloc.scope;
  } else {
    f.m = m, f.n = n, f.k = k;
    if (!check_type(sc, s, &f)) return;
  }
  CudaWmma *w = sc->w;
  w->frags = xrealloc(w->frags, (size_t)(w->nfrags + 1) * sizeof *w->frags);
  w->frags[w->nfrags++] = f;
}

static void scan_expr(IrVisitor *v, const Expr *e) {
  Scan *sc = (Scan *)v;
  if (e->kind == EXPR_LOAD && !sc->access && is_frag_var(sc->w, e->u.load.buf->data))
    sc->access = e->u.load.buf->data->name, sc->access_store = false;
  ir_visit_children_expr(v, e);
}

static void scan_stmt(IrVisitor *v, const Stmt *s) {
  Scan *sc = (Scan *)v;
  if (diag_failed(sc->d)) return;
  if (s->kind == STMT_ATTR) note_attr(sc, s);
  if (s->kind == STMT_ALLOCATE) note_alloc(sc, s);
  if (s->kind == STMT_STORE && !sc->access && is_frag_var(sc->w, s->u.store.buf->data))
    sc->access = s->u.store.buf->data->name, sc->access_store = true;
  ir_visit_children_stmt(v, s);
}

bool cuda_wmma_scan(CudaWmma *w, const Stmt *body, Diag *d) {
  Scan sc = {{scan_expr, scan_stmt}, w, d, NULL, NULL, NULL, 0, NULL, false, NULL, NULL};
  ir_visit_stmt(&sc.v, body);
  free(sc.vars);
  free(sc.shapes);
  free(sc.layouts);
  if (diag_failed(d)) return false;
  if (sc.access)
    return ir_error(d,
                    "not supported yet: TensorCore fragment '%s' is %s element by element on "
                    "the cuda target: a wmma scope is reached only through "
                    "tvm_fill_fragment, tvm_load_matrix_sync, tvm_mma_sync and "
                    "tvm_store_matrix_sync (tensorize the stages that read and write it)",
                    sc.access, sc.access_store ? "written" : "read");
  if (sc.unshaped)
    return ir_error(d,
                    "not supported yet: TensorCore fragment '%s' (%s) has no shape or layout "
                    "on the cuda target: tir.InferFragment found no TensorCore intrinsic that "
                    "gives it one (or did not run)",
                    sc.unshaped, sc.unshaped_scope);
  return true;
}

void cuda_wmma_free(CudaWmma *w) {
  free(w->frags);
  *w = (CudaWmma){0};
}

/* ---- printing ---- */

/* The C type of a fragment's array, without the name. */
static void frag_type(CPrinter *p, const CudaFrag *f, DType t) {
  static const char *const kind[] = {"", "matrix_a", "matrix_b", "accumulator"};
  sb_printf(&p->out, "nvcuda::wmma::fragment<nvcuda::wmma::%s, %lld, %lld, %lld, %s",
            kind[f->scope], (long long)f->m, (long long)f->n, (long long)f->k, cp_type(p, t));
  if (f->scope != WMMA_ACCUMULATOR) sb_printf(&p->out, ", nvcuda::wmma::%s", f->layout);
  cp_put(p, ">");
}

bool cuda_wmma_stmt(CPrinter *p, const CudaWmma *w, const Stmt *s) {
  if (s->kind == STMT_ATTR && (strcmp(s->u.attr.key, WMMA_ATTR_SHAPE) == 0 ||
                               strcmp(s->u.attr.key, WMMA_ATTR_LAYOUT) == 0)) {
    cp_stmt(p, s->u.attr.body);
    return true;
  }
  if (s->kind != STMT_ALLOCATE || wmma_scope(s->u.alloc.scope) == WMMA_NONE) return false;
  const CudaFrag *f = NULL;
  for (int i = 0; i < w->nfrags && !f; i++)
    if (w->frags[i].var == s->u.alloc.buffer_var) f = &w->frags[i];
  TES_ASSERT(f, "fragment %s printed without cuda_wmma_scan", s->u.alloc.buffer_var->name);
  int64_t n = 1, ext;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    if (!ir_as_int(s->u.alloc.extents[i], &ext))
      return ir_error(p->diag,
                      "not supported yet: TensorCore fragment '%s' of a size known only "
                      "at run time on the cuda target",
                      s->u.alloc.buffer_var->name),
             true;
    n *= ext;
  }
  int64_t per = f->scope == WMMA_MATRIX_A   ? f->m * f->k
                : f->scope == WMMA_MATRIX_B ? f->k * f->n
                                            : f->m * f->n;
  if (n % per != 0)
    return ir_error(p->diag,
                    "TensorCore fragment '%s' has %lld elements, not a whole number of "
                    "fragments of %lld",
                    f->var->name, (long long)n, (long long)per),
           true;
  cp_line(p, "%s", "");
  frag_type(p, f, s->u.alloc.dtype);
  sb_printf(&p->out, " %s[%lld];\n", cp_name_of(p, s->u.alloc.buffer_var), (long long)(n / per));
  cp_stmt(p, s->u.alloc.body);
  return true;
}

/* BUF[index] */
static void fragment(CPrinter *p, const Expr *buf, const Expr *index) {
  cp_expr(p, buf);
  cp_put(p, "[");
  cp_expr(p, index);
  cp_put(p, "]");
}

/* tvm_access_ptr(type_annotation(dtype), data, offset, extent, rw_mask): ((T*)data + offset),
 * the offset in elements of T. */
static bool access_ptr(CPrinter *p, const Expr *e) {
  Expr *const *a = e->u.call.args;
  if (e->u.call.n != 5 || a[1]->kind != EXPR_VAR)
    return ir_error(p->diag, "not supported yet: @tir.tvm_access_ptr other than (type, buffer, "
                             "offset, extent, mask) on the cuda target"),
           true;
  sb_printf(&p->out, "((%s*)", cp_type(p, dt_element(a[0]->dtype)));
  cp_expr(p, a[1]);
  cp_put(p, " + ");
  cp_expr(p, a[2]);
  cp_put(p, ")");
  return true;
}

static const char *layout_of(CPrinter *p, const Expr *e, const char *fn) {
  if (e->kind == EXPR_STR &&
      (strcmp(e->u.str, "row_major") == 0 || strcmp(e->u.str, "col_major") == 0))
    return e->u.str;
  ir_error(p->diag, "the layout of @tir.%s is not \"row_major\" or \"col_major\"", fn);
  return "row_major";
}

bool cuda_wmma_call(CPrinter *p, const CudaWmma *w, const Expr *e) {
  const char *op = e->u.call.op, *fn = strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
  if (strcmp(fn, "tvm_access_ptr") == 0) return access_ptr(p, e);
  WmmaCall c = wmma_call(e);
  if (c == WMMA_CALL_NONE) return false;
  Expr *const *a = e->u.call.args;
  if (e->u.call.n != wmma_call_arity(c))
    return ir_error(p->diag, "@tir.%s takes %d arguments, not %d", fn, wmma_call_arity(c),
                    e->u.call.n),
           true;
  for (int i = 0; i < (c == WMMA_MMA ? 4 : 1); i++)
    if (!frag_of(w, a[2 * i]))
      return ir_error(p->diag, "argument %d of @tir.%s is not a TensorCore fragment of the kernel",
                      2 * i, fn),
             true;
  switch (c) {
  case WMMA_FILL:
    cp_put(p, "nvcuda::wmma::fill_fragment(");
    fragment(p, a[0], a[4]);
    cp_put(p, ", ");
    cp_expr(p, a[5]);
    break;
  case WMMA_LOAD:
    cp_put(p, "nvcuda::wmma::load_matrix_sync(");
    fragment(p, a[0], a[4]);
    cp_put(p, ", ");
    cp_expr(p, a[5]);
    cp_put(p, ", ");
    cp_expr(p, a[6]);
    /* an accumulator's layout is the load's, not its type's */
    if (frag_of(w, a[0])->scope == WMMA_ACCUMULATOR)
      sb_printf(&p->out, ", nvcuda::wmma::mem_%s", layout_of(p, a[7], fn));
    break;
  case WMMA_STORE:
    cp_put(p, "nvcuda::wmma::store_matrix_sync(");
    cp_expr(p, a[5]);
    cp_put(p, ", ");
    fragment(p, a[0], a[4]);
    cp_put(p, ", ");
    cp_expr(p, a[6]);
    sb_printf(&p->out, ", nvcuda::wmma::mem_%s", layout_of(p, a[7], fn));
    break;
  case WMMA_MMA:
    cp_put(p, "nvcuda::wmma::mma_sync(");
    for (int i = 0; i < 4; i++) {
      if (i) cp_put(p, ", ");
      fragment(p, a[2 * i], a[2 * i + 1]);
    }
    break;
  case WMMA_CALL_NONE:
    break;
  }
  cp_put(p, ")");
  return true;
}

/* ---- whether a function uses TensorCores ---- */

static bool uses_expr(const Expr *e, const void *ctx) {
  (void)ctx;
  return wmma_call(e) != WMMA_CALL_NONE;
}

static bool uses_stmt(const Stmt *s, const void *ctx) {
  (void)ctx;
  return s->kind == STMT_ALLOCATE && wmma_scope(s->u.alloc.scope) != WMMA_NONE;
}

bool cuda_wmma_used(const LoweredFunc *f) {
  for (int i = 0; i < f->ndevice; i++)
    if (ir_stmt_any(f->device[i].body, uses_expr, uses_stmt, NULL)) return true;
  return false;
}
