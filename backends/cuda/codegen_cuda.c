/* codegen_cuda.c: CUDA C of lowered IR (backends/cuda/codegen_cuda.h). The host part of the
 * body (sequences and attributes around the kernels) is walked to find the outermost
 * thread_extent attributes; each is a kernel, printed by the C printer (backends/c/c_printer.h)
 * with this file's dialect: thread variables as ((int)threadIdx.x), shared and local
 * allocations as arrays, tvm_storage_sync as __syncthreads(). What the dialect cannot say yet
 * (vectors, half, host loops around kernels, cross-thread reduction) is refused before any
 * text is printed, so a kernel is whole or not made. */
#include <stdlib.h>
#include <string.h>

#include "backends/c/c_printer.h"
#include "backends/cuda/codegen_cuda.h"

/* A thread variable of the kernel being printed and the tag it prints as. */
typedef struct Thread {
  const Var *var;
  const char *tag;
  const Expr *extent;
} Thread;

typedef struct Kernel {
  Thread *threads;
  int nthreads;
  int64_t block_threads; /* threads a block; 0: not a constant */
  bool synced;           /* tir.ThreadSync ran on it: shared memory has its barriers */
} Kernel;

/* NVRTC compiles without the C library's headers: the fixed-width types and the two macros
 * of <math.h> the printer uses are defined here. */
static const char prelude[] =
    "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\n"
    "typedef long long int64_t;\ntypedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "#define NAN __int_as_float(0x7fc00000)\n#define INFINITY __int_as_float(0x7f800000)\n";

/* ---- checks before printing ---- */

typedef struct Refuse {
  IrVisitor v;
  Diag *d;
} Refuse;

static bool refuse_type(Refuse *r, DType t, const char *what) {
  if (t.lanes > 1)
    return ir_error(r->d, "not supported yet: vector %s (%d lanes) on the cuda target", what,
                    t.lanes);
  if (t.code == DT_FLOAT && t.bits == 16)
    return ir_error(r->d, "not supported yet: float16 %s on the cuda target", what);
  return true;
}

static void refuse_expr(IrVisitor *v, const Expr *e) {
  Refuse *r = (Refuse *)v;
  if (diag_failed(r->d)) return;
  if (!refuse_type(r, e->dtype, "expression")) return;
  if (e->kind == EXPR_CALL && strstr(e->u.call.op, "tvm_thread_allreduce"))
    return (void)ir_error(r->d, "not supported yet: cross-thread reduction "
                                "(tvm_thread_allreduce) on the cuda target");
  ir_visit_children_expr(v, e);
}

static void refuse_stmt(IrVisitor *v, const Stmt *s) {
  Refuse *r = (Refuse *)v;
  if (diag_failed(r->d)) return;
  if (s->kind == STMT_ALLOCATE && !refuse_type(r, s->u.alloc.dtype, "allocation")) return;
  if (s->kind == STMT_FOR && s->u.for_.fkind == FOR_PARALLEL)
    return (void)ir_error(r->d, "not supported yet: parallel loop '%s' in a kernel on the cuda "
                                "target", s->u.for_.var->name);
  if (s->kind == STMT_ASSERT)
    return (void)ir_error(r->d, "not supported yet: an assert in a kernel on the cuda target");
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0 &&
      s->u.attr.nkind == ATTR_NODE_ITERVAR) {
    const IterVar *iv = s->u.attr.node;
    const char *tag = iv->thread_tag ? iv->thread_tag : "";
    if (strncmp(tag, "blockIdx.", 9) != 0 && strncmp(tag, "threadIdx.", 10) != 0)
      return (void)ir_error(r->d, "not supported yet: thread tag '%s' on the cuda target", tag);
  }
  ir_visit_children_stmt(v, s);
}

/* ---- the dialect ---- */

static const Thread *thread_of(const Kernel *k, const Var *v) {
  for (int i = 0; i < k->nthreads; i++)
    if (k->threads[i].var == v) return &k->threads[i];
  return NULL;
}

static bool cuda_var(CPrinter *p, const Var *v) {
  const Thread *t = thread_of(p->user, v);
  if (!t) return false;
  sb_printf(&p->out, "((int)%s)", t->tag);
  return true;
}

/* tir.tvm_warp_shuffle(mask, value, lane, width, warp_size), made by tir.LowerWarpMemory: the
 * value `value` has in lane `lane` of the caller's group of `width` lanes. */
static bool warp_shuffle(CPrinter *p, const Expr *e) {
  Expr *const *a = e->u.call.args;
  if (!ir_is_const_int(a[4], 32))
    return ir_error(p->diag, "not supported yet: a warp shuffle for a warp size other than 32 on "
                             "the cuda target"), true;
  for (int i = 0; i < 4; i++) {
    cp_put(p, i ? ", " : "__shfl_sync(");
    cp_expr(p, a[i]);
  }
  cp_put(p, ")");
  return true;
}

static bool cuda_call(CPrinter *p, const Expr *e) {
  const char *op = e->u.call.op, *fn = strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
  if (strcmp(fn, "tvm_warp_shuffle") == 0 && e->u.call.n == 5) return warp_shuffle(p, e);
  if (strcmp(fn, "tvm_storage_sync") == 0) {
    cp_put(p, "__syncthreads()");
    return true;
  }
  if (strcmp(fn, "popcount") == 0 && e->u.call.n == 1) {
    cp_put(p, "__popcll(");
    cp_expr(p, e->u.call.args[0]);
    cp_put(p, ")");
    return true;
  }
  return false;
}

static bool cuda_allocate(CPrinter *p, const Stmt *s) {
  const char *scope = s->u.alloc.scope ? s->u.alloc.scope : "global";
  int64_t n = 1, ext;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    if (!ir_as_int(s->u.alloc.extents[i], &ext))
      return ir_error(p->diag, "not supported yet: allocation '%s' of a size known only at run "
                               "time in a kernel on the cuda target",
                      s->u.alloc.buffer_var->name),
             true;
    n *= ext;
  }
  const char *qual = strcmp(scope, "shared") == 0 ? "__shared__ "
                     : strcmp(scope, "local") == 0 ? ""
                                                    : NULL;
  const Kernel *k = p->user;
  /* Without tir.ThreadSync, threads reading what others wrote to shared memory would race. */
  if (qual && *qual && k->block_threads != 1 && !k->synced)
    return ir_error(p->diag, "not supported yet: shared memory '%s' used by several threads of "
                             "a block needs barriers (tir.ThreadSync), which did not run "
                             "(disabled_pass)",
                    s->u.alloc.buffer_var->name),
           true;
  if (!qual)
    return ir_error(p->diag, "not supported yet: allocation '%s' in %s memory inside a kernel "
                             "on the cuda target",
                    s->u.alloc.buffer_var->name, scope),
           true;
  cp_line(p, "%s%s %s[%lld];\n", qual, cp_c_type(s->u.alloc.dtype),
          cp_name_of(p, s->u.alloc.buffer_var), (long long)n);
  cp_stmt(p, s->u.alloc.body);
  return true;
}

static bool cuda_stmt(CPrinter *p, const Stmt *s) {
  if (s->kind == STMT_ALLOCATE) return cuda_allocate(p, s);
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0) {
    cp_stmt(p, s->u.attr.body);
    return true;
  }
  return false;
}

static const CDialect cuda_dialect = {"cuda", "#pragma unroll", cuda_var, cuda_call, cuda_stmt};

/* ---- the kernels ---- */

typedef struct Uses {
  IrVisitor v;
  const Var **bufs; /* data variables read or written */
  int n;
} Uses;

static void add_use(Uses *u, const Var *data) {
  for (int i = 0; i < u->n; i++)
    if (u->bufs[i] == data) return;
  u->bufs = xrealloc(u->bufs, (size_t)(u->n + 1) * sizeof *u->bufs);
  u->bufs[u->n++] = data;
}

static void uses_expr(IrVisitor *v, const Expr *e) {
  if (e->kind == EXPR_LOAD) add_use((Uses *)v, e->u.load.buf->data);
  ir_visit_children_expr(v, e);
}

static void uses_stmt(IrVisitor *v, const Stmt *s) {
  if (s->kind == STMT_STORE) add_use((Uses *)v, s->u.store.buf->data);
  ir_visit_children_stmt(v, s);
}

typedef struct Threads {
  IrVisitor v;
  Kernel *k;
  CudaKernel *out;
  Diag *d;
} Threads;

static void threads_stmt(IrVisitor *v, const Stmt *s) {
  Threads *t = (Threads *)v;
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0 &&
      s->u.attr.nkind == ATTR_NODE_ITERVAR) {
    const IterVar *iv = s->u.attr.node;
    const char *tag = iv->thread_tag;
    Kernel *k = t->k;
    for (int i = 0; i < k->nthreads; i++)
      if (strcmp(k->threads[i].tag, tag) == 0 &&
          !ir_expr_equal(k->threads[i].extent, s->u.attr.value))
        ir_error(t->d, "cannot build for cuda: %s is bound twice in one kernel with different "
                       "extents", tag);
    k->threads = xrealloc(k->threads, (size_t)(k->nthreads + 1) * sizeof *k->threads);
    k->threads[k->nthreads++] = (Thread){iv->var, tag, s->u.attr.value};
    const Expr **slot = tag[0] == 'b' ? t->out->grid : t->out->block;
    slot[tag[strlen(tag) - 1] - 'x'] = s->u.attr.value;
  }
  ir_visit_children_stmt(v, s);
}

/* Prints kernel `body` (a thread_extent attribute) as kernels[idx] of m. */
static void kernel(const LoweredFunc *f, const Stmt *body, CudaModule *m, StrBuf *src, Diag *d) {
  Refuse r = {{refuse_expr, refuse_stmt}, d};
  ir_visit_stmt(&r.v, body);
  if (diag_failed(d)) return;
  m->kernels = xrealloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *m->kernels);
  CudaKernel *ck = &m->kernels[m->nkernels];
  *ck = (CudaKernel){0};
  StrBuf name = STRBUF_INIT;
  sb_printf(&name, "%s_kernel%d", f->name, m->nkernels++);
  ck->name = sb_take(&name, NULL);
  Kernel k = {0};
  Threads th = {{NULL, threads_stmt}, &k, ck, d};
  ir_visit_stmt(&th.v, body);
  Uses u = {{uses_expr, uses_stmt}, NULL, 0};
  ir_visit_stmt(&u.v, body);
  int nshape = ir_func_shape_vars(f, NULL, 0);
  Var **shape = xmalloc((size_t)(nshape + 1) * sizeof *shape);
  ir_func_shape_vars(f, shape, nshape);

  CPrinter p = cp_init(&cuda_dialect, &k, d);
  int64_t threads = 1, ext;
  bool known = true;
  for (int i = 0; i < 3; i++)
    if (ck->block[i]) known = known && ir_as_int(ck->block[i], &ext) && (threads *= ext, true);
  sb_puts(&p.out, "extern \"C\" __global__ void ");
  if (known) sb_printf(&p.out, "__launch_bounds__(%lld) ", (long long)threads);
  sb_printf(&p.out, "%s(", ck->name);
  ck->bufs = xmalloc((size_t)(f->nparams + 1) * sizeof *ck->bufs);
  for (int i = 0; i < f->nparams; i++) {
    bool used = false;
    for (int j = 0; j < u.n && !used; j++) used = u.bufs[j] == f->params[i]->data;
    if (!used) continue;
    sb_printf(&p.out, "%s%s* __restrict__ %s", ck->nbufs ? ", " : "",
              cp_c_type(f->params[i]->dtype), cp_name_of(&p, f->params[i]->data));
    ck->bufs[ck->nbufs++] = i;
  }
  ck->scalars = xmalloc((size_t)(nshape + 1) * sizeof *ck->scalars);
  for (int i = 0; i < nshape; i++) {
    if (!ir_stmt_uses_var(body, shape[i])) continue;
    sb_printf(&p.out, "%s%s %s", ck->nbufs + ck->nscalars ? ", " : "", cp_c_type(shape[i]->dtype),
              cp_name_of(&p, shape[i]));
    ck->scalars[ck->nscalars++] = shape[i];
  }
  cp_put(&p, ") {\n");
  k.block_threads = known ? threads : 0;
  k.synced = f->thread_synced;
  cp_block(&p, body);
  cp_put(&p, "}\n\n");
  sb_puts(src, sb_cstr(&p.out));
  sb_free(&p.out);
  cp_free(&p);
  free(k.threads);
  free(u.bufs);
  free(shape);
}

/* The first store under s, for the message of a stage left unbound. */
static const Stmt *first_store(const Stmt *s) {
  if (!s) return NULL;
  switch (s->kind) {
  case STMT_STORE:
    return s;
  case STMT_FOR:
    return first_store(s->u.for_.body);
  case STMT_IF: {
    const Stmt *t = first_store(s->u.if_.then);
    return t ? t : first_store(s->u.if_.orelse);
  }
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) {
      const Stmt *t = first_store(s->u.seq.items[i]);
      if (t) return t;
    }
    return NULL;
  case STMT_ALLOCATE:
    return first_store(s->u.alloc.body);
  case STMT_ATTR:
    return first_store(s->u.attr.body);
  case STMT_LET:
    return first_store(s->u.let.body);
  case STMT_ASSERT:
    return first_store(s->u.assert_.body);
  default:
    return NULL;
  }
}

static bool is_kernel(const Stmt *s) {
  return s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0;
}

/* The host part: sequences and attributes around kernels. */
static void host(const LoweredFunc *f, const Stmt *s, CudaModule *m, StrBuf *src, Diag *d) {
  if (!s || diag_failed(d)) return;
  if (is_kernel(s)) return kernel(f, s, m, src, d);
  if (s->kind == STMT_SEQ) {
    for (int i = 0; i < s->u.seq.n; i++) host(f, s->u.seq.items[i], m, src, d);
    return;
  }
  if (s->kind == STMT_ATTR) return host(f, s->u.attr.body, m, src, d);
  const Stmt *st = first_store(s);
  if (st)
    ir_error(d, "cannot build for cuda: the store to %s is outside every thread binding (did "
                "you forget to bind?)", st->u.store.buf->data->name);
  else
    ir_error(d, "not supported yet: %s statement around a kernel on the cuda target",
             ir_stmt_kind_names[s->kind]);
}

static char *host_text(const LoweredFunc *f, const CudaModule *m) {
  static const CDialect host_dialect = {"cuda", "", NULL, NULL, NULL};
  Diag d = DIAG_INIT;
  CPrinter p = cp_init(&host_dialect, NULL, &d);
  sb_printf(&p.out, "// host function %s: %d kernel launch%s\n", f->name, m->nkernels,
            m->nkernels == 1 ? "" : "es");
  for (int i = 0; i < m->nkernels; i++) {
    const CudaKernel *k = &m->kernels[i];
    sb_printf(&p.out, "%s<<<", k->name);
    for (int j = 0; j < 6; j++) {
      const Expr *e = j < 3 ? k->grid[j] : k->block[j - 3];
      cp_put(&p, j == 0 ? "dim3(" : j == 3 ? "), dim3(" : ", ");
      if (e)
        cp_expr(&p, e);
      else
        cp_put(&p, "1");
    }
    cp_put(&p, ")>>>(");
    for (int j = 0; j < k->nbufs; j++)
      sb_printf(&p.out, "%s%s", j ? ", " : "", cp_name_of(&p, f->params[k->bufs[j]]->data));
    for (int j = 0; j < k->nscalars; j++)
      sb_printf(&p.out, "%s%s", k->nbufs + j ? ", " : "", cp_name_of(&p, k->scalars[j]));
    cp_put(&p, ");\n");
  }
  cp_free(&p);
  return sb_take(&p.out, NULL);
}

CudaModule *cg_cuda_build(const LoweredFunc *f, Diag *d) {
  CudaModule *m = xcalloc(1, sizeof *m);
  StrBuf src = STRBUF_INIT;
  sb_puts(&src, prelude);
  cp_helpers(&src, "__device__ inline");
  host(f, f->body, m, &src, d);
  if (!diag_failed(d) && m->nkernels == 0)
    ir_error(d, "cannot build for cuda: %s binds no loop to a GPU thread (did you forget to "
                "bind?)", f->name);
  m->source = sb_take(&src, NULL);
  if (diag_failed(d)) return cg_cuda_free(m), NULL;
  m->host = host_text(f, m);
  return m;
}

void cg_cuda_free(CudaModule *m) {
  if (!m) return;
  for (int i = 0; i < m->nkernels; i++) {
    free(m->kernels[i].name);
    free(m->kernels[i].bufs);
    free(m->kernels[i].scalars);
  }
  free(m->kernels);
  free(m->source);
  free(m->host);
  free(m);
}
