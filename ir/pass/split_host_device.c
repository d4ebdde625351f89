/* split_host_device: the host function and its kernels (TVM's tir.SplitHostDevice).
 * Assumes: flat buffers; a kernel is an outermost "thread_extent" attribute (one that no other
 *   encloses); what encloses kernels (sequences, serial loops, lets, conditions, allocations
 *   of global intermediate buffers) is host code.
 * Guarantees: each kernel becomes a DeviceFunc appended to ctx->device (ir/func.h: its name,
 *   its buffers, its scalars and its launch extents), and its place in the body becomes its
 *   launch, `@tir.tvm_call_packed("NAME_kernelK", bufs..., scalars..., extents...)`, the
 *   extents being those of the tags the kernel binds in the order blockIdx.x/y/z,
 *   threadIdx.x/y/z. A kernel inside a host loop is launched once an iteration, the loop
 *   variable among its scalars. A tag bound twice with different extents keeps its first
 *   extent here; the GPU verifier (backends/cuda/verify_gpu.h) reports it. What host code
 *   does besides launching (a store left unbound) stays in the body for the verifier too.
 *   Host code that reads a variable a kernel binds (a stage left at the root whose bounds
 *   depend on the kernel's blockIdx) is an error on ctx->diag, and the input is returned.
 *   A body without kernels is returned as it is.
 * Why here: last, after tir.ThreadSync, and only for GPU targets, as TVM splits the mixed
 *   function before device code generation. */
#include <stdio.h>
#include <string.h>

#include "ir/pass/pass.h"
#include "ir/support.h"

/* A variable list in first-use order, without repeats. */
typedef struct VarList {
  Var **items;
  int n, cap;
} VarList;

static bool has_var(const VarList *l, const Var *v) {
  for (int i = 0; i < l->n; i++)
    if (l->items[i] == v) return true;
  return false;
}

static void add_var(Arena *a, VarList *l, Var *v) {
  if (has_var(l, v)) return;
  VEC_GROW(a, l->items, l->cap, l->n + 1);
  l->items[l->n++] = v;
}

/* What a kernel defines (loop, let, allocation and thread variables) and what it reads or
 * writes (variables, and the data variables of the buffers it loads and stores). */
typedef struct Scan {
  IrVisitor v;
  Arena *a;
  VarList defs, uses;
  const Buffer **accessed; /* the buffer of each data variable in uses, for its dtype */
  int naccessed, cap_accessed;
} Scan;

static void scan_access(Scan *sc, const Buffer *b) {
  add_var(sc->a, &sc->uses, b->data);
  VEC_GROW(sc->a, sc->accessed, sc->cap_accessed, sc->naccessed + 1);
  sc->accessed[sc->naccessed++] = b;
}

static void scan_expr(IrVisitor *v, const Expr *e) {
  Scan *sc = (Scan *)v;
  if (e->kind == EXPR_VAR) add_var(sc->a, &sc->uses, e->u.var);
  if (e->kind == EXPR_LET) add_var(sc->a, &sc->defs, e->u.let.var);
  if (e->kind == EXPR_LOAD) scan_access(sc, e->u.load.buf);
  ir_visit_children_expr(v, e);
}

static void scan_stmt(IrVisitor *v, const Stmt *s) {
  Scan *sc = (Scan *)v;
  switch (s->kind) {
  case STMT_FOR:
    add_var(sc->a, &sc->defs, s->u.for_.var);
    break;
  case STMT_LET:
    add_var(sc->a, &sc->defs, s->u.let.var);
    break;
  case STMT_ALLOCATE:
    add_var(sc->a, &sc->defs, s->u.alloc.buffer_var);
    break;
  case STMT_STORE:
    scan_access(sc, s->u.store.buf);
    break;
  case STMT_ATTR:
    if (s->u.attr.nkind == ATTR_NODE_ITERVAR)
      add_var(sc->a, &sc->defs, ((IterVar *)s->u.attr.node)->var);
    break;
  default:
    break;
  }
  ir_visit_children_stmt(v, s);
}

/* The pass's state: the host allocations around the kernel being taken out. */
typedef struct Split {
  IrMutator m;
  PassCtx *ctx;
  const Stmt **allocs; /* host ALLOCATE statements enclosing the current point */
  int nallocs, cap_allocs;
} Split;

static int tag_slot(const char *tag) {
  int axis = tag[strlen(tag) - 1] - 'x';
  if (axis < 0 || axis > 2) return -1;
  if (strncmp(tag, "blockIdx.", 9) == 0) return axis;
  if (strncmp(tag, "threadIdx.", 10) == 0) return 3 + axis;
  return -1;
}

typedef struct Extents {
  IrVisitor v;
  Expr *slot[6];
} Extents;

static void extents_stmt(IrVisitor *v, const Stmt *s) {
  Extents *x = (Extents *)v;
  if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR &&
      strcmp(s->u.attr.key, "thread_extent") == 0) {
    const IterVar *iv = s->u.attr.node;
    int k = iv->thread_tag ? tag_slot(iv->thread_tag) : -1;
    if (k >= 0 && !x->slot[k]) x->slot[k] = s->u.attr.value;
  }
  ir_visit_children_stmt(v, s);
}

/* The element type of buffer data variable v: from an access in the kernel, a parameter or a
 * host allocation. */
static DType buf_dtype(const Split *sp, const Scan *sc, const Var *v) {
  for (int i = 0; i < sc->naccessed; i++)
    if (sc->accessed[i]->data == v) return sc->accessed[i]->dtype;
  for (int i = 0; i < sp->ctx->nbinds; i++)
    if (sp->ctx->bind_buffers[i]->data == v) return sp->ctx->bind_buffers[i]->dtype;
  for (int i = 0; i < sp->nallocs; i++)
    if (sp->allocs[i]->u.alloc.buffer_var == v) return sp->allocs[i]->u.alloc.dtype;
  return v->dtype;
}

static void shape_vars(IrVisitor *v, const Expr *e) {
  Scan *sc = (Scan *)v;
  if (e->kind == EXPR_VAR) add_var(sc->a, &sc->defs, e->u.var);
  ir_visit_children_expr(v, e);
}

/* Kernel s out of the body into ctx->device; its launch in its place. */
static Stmt *take_kernel(Split *sp, Stmt *s) {
  PassCtx *ctx = sp->ctx;
  Arena *a = ctx->arena;
  Scan sc = {{scan_expr, scan_stmt}, a, {0}, {0}, NULL, 0, 0};
  ir_visit_stmt(&sc.v, s);
  VarList bufs = {0}, scalars = {0};
  for (int i = 0; i < ctx->nbinds; i++) { /* parameters first, in their order */
    Var *data = ctx->bind_buffers[i]->data;
    if (has_var(&sc.uses, data) && !has_var(&sc.defs, data)) add_var(a, &bufs, data);
  }
  Scan shapes = {{shape_vars, NULL}, a, {0}, {0}, NULL, 0, 0}; /* shape variables, in order */
  for (int i = 0; i < ctx->nbinds; i++)
    for (int d = 0; d < ctx->bind_buffers[i]->ndim; d++)
      ir_visit_expr(&shapes.v, ctx->bind_buffers[i]->shape[d]);
  for (int i = 0; i < shapes.defs.n; i++)
    if (has_var(&sc.uses, shapes.defs.items[i])) add_var(a, &scalars, shapes.defs.items[i]);
  for (int i = 0; i < sc.uses.n; i++) {
    Var *v = sc.uses.items[i];
    if (has_var(&sc.defs, v)) continue;
    add_var(a, v->dtype.code == DT_HANDLE ? &bufs : &scalars, v);
  }
  DeviceFunc *grown = arena_alloc(a, (size_t)(ctx->ndevice + 1) * sizeof *grown);
  if (ctx->ndevice) memcpy(grown, ctx->device, (size_t)ctx->ndevice * sizeof *grown);
  ctx->device = grown;
  DeviceFunc *k = &ctx->device[ctx->ndevice++];
  char name[256];
  snprintf(name, sizeof name, "%s_kernel%d", ctx->func_name ? ctx->func_name : "main",
           ctx->ndevice - 1);
  *k = (DeviceFunc){.name = arena_strndup(a, name, strlen(name)),
                    .nbufs = bufs.n,
                    .bufs = bufs.items,
                    .buf_dtypes = arena_alloc(a, (size_t)(bufs.n + 1) * sizeof(DType)),
                    .nscalars = scalars.n,
                    .scalars = scalars.items,
                    .body = s};
  for (int i = 0; i < bufs.n; i++) k->buf_dtypes[i] = buf_dtype(sp, &sc, bufs.items[i]);
  Extents x = {{NULL, extents_stmt}, {0}};
  ir_visit_stmt(&x.v, s);
  for (int i = 0; i < 3; i++) k->grid[i] = x.slot[i], k->block[i] = x.slot[3 + i];
  int nargs = 1 + bufs.n + scalars.n, n = 0;
  Expr **args = arena_alloc(a, (size_t)(nargs + 6) * sizeof *args);
  args[n++] = ir_str(a, k->name);
  for (int i = 0; i < bufs.n; i++) args[n++] = ir_varref(a, bufs.items[i]);
  for (int i = 0; i < scalars.n; i++) args[n++] = ir_varref(a, scalars.items[i]);
  for (int i = 0; i < 6; i++)
    if (x.slot[i]) args[n++] = x.slot[i];
  return ir_evaluate(a, ir_call(a, DT_I32, "tir.tvm_call_packed", CALL_EFFECT, n, args));
}

static bool is_kernel(const Stmt *s) {
  return s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0;
}

static Stmt *split_stmt(IrMutator *m, Stmt *s) {
  Split *sp = (Split *)m;
  if (is_kernel(s)) return take_kernel(sp, s);
  if (s->kind != STMT_ALLOCATE) return ir_mutate_children_stmt(m, s);
  VEC_GROW(m->arena, sp->allocs, sp->cap_allocs, sp->nallocs + 1);
  sp->allocs[sp->nallocs++] = s;
  Stmt *r = ir_mutate_children_stmt(m, s);
  sp->nallocs--;
  return r;
}

static Expr *keep_expr(IrMutator *m, Expr *e) { return (void)m, e; }

/* Host code that reads a thread variable, which only its kernel binds: a stage left at the
 * root, outside the kernel, whose bounds depend on the kernel's blockIdx. */
typedef struct HostThreads {
  IrVisitor v;
  const VarList *threads;
  Diag *d;
} HostThreads;

static void host_threads_stmt(IrVisitor *v, const Stmt *s) {
  HostThreads *h = (HostThreads *)v;
  if (diag_failed(h->d)) return;
  if (s->kind == STMT_STORE)
    for (int i = 0; i < h->threads->n; i++)
      if (ir_stmt_uses_var(s, h->threads->items[i])) {
        ir_error(h->d, "cannot build for cuda: the store to %s is in host code, outside the "
                       "kernel that binds %s, and depends on it (compute_at %s under the "
                       "binding)",
                 s->u.store.buf->data->name, h->threads->items[i]->name,
                 s->u.store.buf->data->name);
        return;
      }
  ir_visit_children_stmt(v, s);
}

Stmt *pass_split_host_device(Stmt *s, PassCtx *ctx) {
  Split sp = {{ctx->arena, keep_expr, split_stmt}, ctx, NULL, 0, 0};
  int first = ctx->ndevice;
  Stmt *host = ir_mutate_stmt(&sp.m, s);
  VarList threads = {0};
  for (int k = first; k < ctx->ndevice; k++) {
    Scan sc = {{scan_expr, scan_stmt}, ctx->arena, {0}, {0}, NULL, 0, 0};
    ir_visit_stmt(&sc.v, ctx->device[k].body);
    for (int i = 0; i < sc.defs.n; i++)
      if (ir_stmt_uses_var(host, sc.defs.items[i])) add_var(ctx->arena, &threads, sc.defs.items[i]);
  }
  if (threads.n) {
    HostThreads h = {{NULL, host_threads_stmt}, &threads, ctx->diag};
    ir_visit_stmt(&h.v, host);
    if (!diag_failed(ctx->diag))
      ir_error(ctx->diag, "cannot build for cuda: host code uses %s outside the kernel that "
                          "binds it", threads.items[0]->name);
    return s;
  }
  return host;
}
