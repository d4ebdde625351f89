/* codegen_cuda.c: CUDA C of lowered IR (backends/cuda/codegen_cuda.h). Each kernel of
 * tir.SplitHostDevice (f->device) is printed by the C printer (backends/c/c_printer.h) with this
 * file's dialect: thread variables as ((int)threadIdx.x), shared and local allocations as
 * arrays, tvm_storage_sync as __syncthreads(), vector statements lane by lane with
 * float4-style loads and stores (cuda_vector.c), float16 as cuda_fp16.h's half and the math
 * functions in CUDA's spelling (cuda_math.c). The host function (f->body) is printed as C
 * with CUDA's launches. What the dialect cannot say yet is refused before any text is
 * printed, so a kernel is whole or not made. */
#include <stdlib.h>
#include <string.h>

#include "backends/c/c_printer.h"
#include "backends/cuda/codegen_cuda.h"
#include "backends/cuda/cuda_dialect.h"

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
  bool fast_math;        /* "cuda -fast-math": __expf and the other fast intrinsics */
  CudaVec vec;
  CudaWmma wmma;         /* its TensorCore fragments (cuda_wmma.c) */
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
  return true;
}

static void refuse_expr(IrVisitor *v, const Expr *e) {
  Refuse *r = (Refuse *)v;
  if (diag_failed(r->d)) return;
  if (e->kind == EXPR_LOAD && !refuse_type(r, e->u.load.buf->dtype, "buffer")) return;
  if (e->kind == EXPR_CALL && strstr(e->u.call.op, "tvm_thread_allreduce"))
    return (void)ir_error(r->d, "not supported yet: a cross-thread reduction "
                                "(tvm_thread_allreduce) that tir.LowerThreadAllreduce did not "
                                "lower (the pass is disabled)");
  ir_visit_children_expr(v, e);
}

static void refuse_stmt(IrVisitor *v, const Stmt *s) {
  Refuse *r = (Refuse *)v;
  if (diag_failed(r->d)) return;
  if (s->kind == STMT_ALLOCATE && !refuse_type(r, s->u.alloc.dtype, "allocation")) return;
  if (s->kind == STMT_STORE && !refuse_type(r, s->u.store.buf->dtype, "buffer")) return;
  if (s->kind == STMT_EVALUATE && !refuse_type(r, s->u.eval.value->dtype, "call")) return;
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

/* The warp intrinsics of tir.LowerThreadAllreduce and tir.LowerWarpMemory, in TVM's forms:
 * tvm_warp_activemask() as __activemask(); tvm_warp_shuffle_down(mask, v, offset, width,
 * warp_size) as __shfl_down_sync and tvm_warp_shuffle(mask, v, lane, width, warp_size) as
 * __shfl_sync, the first four arguments in order (CUDA's warps are 32 lanes). */
static bool cuda_warp_call(CPrinter *p, const char *fn, const Expr *e) {
  if (strcmp(fn, "tvm_warp_activemask") == 0) {
    cp_put(p, "__activemask()");
    return true;
  }
  const char *cu = strcmp(fn, "tvm_warp_shuffle_down") == 0 ? "__shfl_down_sync"
                   : strcmp(fn, "tvm_warp_shuffle") == 0    ? "__shfl_sync"
                                                            : NULL;
  if (!cu) return false;
  Expr *const *a = e->u.call.args;
  if (e->u.call.n != 5 || !ir_is_const_int(a[4], 32))
    return ir_error(p->diag, "not supported yet: %s other than (mask, value, lane, width, 32) on "
                             "the cuda target", fn), true;
  cp_put(p, cu);
  for (int i = 0; i < 4; i++) {
    cp_put(p, i ? ", " : "(");
    cp_expr(p, a[i]);
  }
  cp_put(p, ")");
  return true;
}

static bool cuda_call(CPrinter *p, const Expr *e) {
  const char *op = e->u.call.op, *fn = strncmp(op, "tir.", 4) == 0 ? op + 4 : op;
  if (cuda_warp_call(p, fn, e)) return true;
  if (cuda_wmma_call(p, &((Kernel *)p->user)->wmma, e)) return true;
  if (strcmp(fn, "tvm_storage_sync") == 0) {
    cp_put(p, "__syncthreads()");
    return true;
  }
  /* tir.InjectPrefetch's hint: PTX's prefetch into L1, on a generic address (on shared
   * memory it does nothing) */
  if (strcmp(fn, "prefetch") == 0 && e->u.call.n == 4) {
    cp_put(p, "asm volatile(\"prefetch.L1 [%0];\" :: \"l\"(");
    cp_expr(p, e->u.call.args[0]);
    cp_put(p, "))");
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
  Kernel *k = p->user;
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
  cp_line(p, "%s%s%s %s[%lld];\n", qual, cuda_vec_align(&k->vec, s), cp_type(p, s->u.alloc.dtype),
          cp_name_of(p, s->u.alloc.buffer_var), (long long)n);
  cp_stmt(p, s->u.alloc.body);
  return true;
}

static bool cuda_stmt(CPrinter *p, const Stmt *s) {
  Kernel *k = p->user;
  if (s->kind == STMT_LET) cuda_vec_note_let(&k->vec, s);
  if (cuda_vec_stmt(p, &k->vec, s)) return true;
  if (cuda_wmma_stmt(p, &k->wmma, s)) return true;
  if (s->kind == STMT_ALLOCATE) return cuda_allocate(p, s);
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0) {
    cp_stmt(p, s->u.attr.body);
    return true;
  }
  return false;
}

static bool cuda_expr(CPrinter *p, const Expr *e, bool lane) {
  Kernel *k = p->user;
  return cuda_vec_expr(p, &k->vec, e, lane) || cuda_let_expr(p, e, lane) ||
         cuda_math(p, e, lane, k->fast_math);
}

static const CDialect cuda_dialect = {"cuda",    "#pragma unroll", cuda_var, cuda_call,
                                      cuda_stmt, cuda_expr,        "half"};

/* ---- the kernels ---- */

typedef struct Threads {
  IrVisitor v;
  Kernel *k;
} Threads;

static void threads_stmt(IrVisitor *v, const Stmt *s) {
  Threads *t = (Threads *)v;
  if (s->kind == STMT_ATTR && strcmp(s->u.attr.key, "thread_extent") == 0 &&
      s->u.attr.nkind == ATTR_NODE_ITERVAR) {
    const IterVar *iv = s->u.attr.node;
    Kernel *k = t->k;
    k->threads = xrealloc(k->threads, (size_t)(k->nthreads + 1) * sizeof *k->threads);
    k->threads[k->nthreads++] = (Thread){iv->var, iv->thread_tag, s->u.attr.value};
  }
  ir_visit_children_stmt(v, s);
}

/* The index of data variable v in f->params, or -1. */
static int param_of(const LoweredFunc *f, const Var *v) {
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i]->data == v) return i;
  return -1;
}

static int alloc_of(const CudaModule *m, const Var *v) {
  for (int i = 0; i < m->nallocs; i++)
    if (m->allocs[i].var == v) return i;
  return -1;
}

/* Prints device function dk as kernels[m->nkernels] of m. */
static void kernel(const LoweredFunc *f, const DeviceFunc *dk, const CudaOptions *opt,
                   CudaModule *m, StrBuf *src, Diag *d) {
  Refuse r = {{refuse_expr, refuse_stmt}, d};
  ir_visit_stmt(&r.v, dk->body);
  if (diag_failed(d)) return;
  m->kernels = xrealloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *m->kernels);
  CudaKernel *ck = &m->kernels[m->nkernels++];
  *ck = (CudaKernel){.name = xstrdup(dk->name)};
  for (int i = 0; i < 3; i++) ck->grid[i] = dk->grid[i], ck->block[i] = dk->block[i];
  Kernel k = {.fast_math = opt->fast_math};
  if (!cuda_wmma_scan(&k.wmma, dk->body, d)) return cuda_wmma_free(&k.wmma);
  cuda_vec_init(&k.vec, f);
  Stmt *body = cuda_trunc_div(dk->body, &k.vec.arena);
  Threads th = {{NULL, threads_stmt}, &k};
  ir_visit_stmt(&th.v, body);

  CPrinter p = cp_init(&cuda_dialect, &k, d);
  cuda_reserve_names(&p, &k.vec.arena);
  int64_t threads = 1, ext;
  bool known = true;
  for (int i = 0; i < 3; i++)
    if (ck->block[i]) known = known && ir_as_int(ck->block[i], &ext) && (threads *= ext, true);
  sb_puts(&p.out, "extern \"C\" __global__ void ");
  if (known) sb_printf(&p.out, "__launch_bounds__(%lld) ", (long long)threads);
  sb_printf(&p.out, "%s(", ck->name);
  ck->bufs = xmalloc((size_t)(dk->nbufs + 1) * sizeof *ck->bufs);
  ck->allocs = xmalloc((size_t)(dk->nbufs + 1) * sizeof *ck->allocs);
  for (int i = 0; i < dk->nbufs; i++) {
    int pi = param_of(f, dk->bufs[i]), ai = pi < 0 ? alloc_of(m, dk->bufs[i]) : -1;
    if (pi < 0 && ai < 0) {
      ir_error(d, "not supported yet: buffer '%s' of kernel %s is neither an argument nor "
                  "allocated by the host on the cuda target",
               dk->bufs[i]->name, dk->name);
      break;
    }
    if (pi >= 0) ck->bufs[ck->nbufs++] = pi;
    else ck->allocs[ck->nallocs++] = ai;
    sb_printf(&p.out, "%s%s* __restrict__ %s", i ? ", " : "", cp_type(&p, dk->buf_dtypes[i]),
              cp_name_of(&p, dk->bufs[i]));
  }
  ck->scalars = xmalloc((size_t)(dk->nscalars + 1) * sizeof *ck->scalars);
  for (int i = 0; i < dk->nscalars; i++) {
    sb_printf(&p.out, "%s%s %s", dk->nbufs + i ? ", " : "", cp_c_type(dk->scalars[i]->dtype),
              cp_name_of(&p, dk->scalars[i]));
    ck->scalars[ck->nscalars++] = dk->scalars[i];
  }
  cp_put(&p, ") {\n");
  k.block_threads = known ? threads : 0;
  k.synced = f->thread_synced;
  if (!diag_failed(d)) cp_block(&p, body);
  cp_put(&p, "}\n\n");
  sb_puts(src, sb_cstr(&p.out));
  sb_free(&p.out);
  cp_free(&p);
  free(k.threads);
  cuda_vec_free(&k.vec);
  cuda_wmma_free(&k.wmma);
}

/* ---- the host function ---- */

/* Records the host allocations of s in walk order (the order host_body's walk meets them). */
static void host_allocs(const Stmt *s, CudaModule *m) {
  if (!s) return;
  switch (s->kind) {
  case STMT_ALLOCATE: {
    m->allocs = xrealloc(m->allocs, (size_t)(m->nallocs + 1) * sizeof *m->allocs);
    m->allocs[m->nallocs++] =
        (CudaAlloc){s->u.alloc.buffer_var, s->u.alloc.dtype, s->u.alloc.ndim, s->u.alloc.extents};
    return host_allocs(s->u.alloc.body, m);
  }
  case STMT_FOR:
    return host_allocs(s->u.for_.body, m);
  case STMT_IF:
    host_allocs(s->u.if_.then, m);
    return host_allocs(s->u.if_.orelse, m);
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++) host_allocs(s->u.seq.items[i], m);
    return;
  case STMT_ATTR:
    return host_allocs(s->u.attr.body, m);
  case STMT_LET:
    return host_allocs(s->u.let.body, m);
  case STMT_ASSERT:
    return host_allocs(s->u.assert_.body, m);
  default:
    return;
  }
}

typedef struct Host {
  const CudaModule *m;
  const LoweredFunc *f;
} Host;

static const CudaKernel *launched(const CudaModule *m, const Stmt *s) {
  if (s->kind != STMT_EVALUATE || s->u.eval.value->kind != EXPR_CALL) return NULL;
  const Expr *c = s->u.eval.value;
  if (strcmp(c->u.call.op, "tir.tvm_call_packed") != 0 || c->u.call.n < 1 ||
      c->u.call.args[0]->kind != EXPR_STR)
    return NULL;
  for (int i = 0; i < m->nkernels; i++)
    if (strcmp(m->kernels[i].name, c->u.call.args[0]->u.str) == 0) return &m->kernels[i];
  return NULL;
}

static bool host_stmt(CPrinter *p, const Stmt *s) {
  const Host *h = p->user;
  if (s->kind == STMT_ALLOCATE) {
    int i = alloc_of(h->m, s->u.alloc.buffer_var);
    cp_line(p, "%s* %s; // device memory of ", cp_c_type(s->u.alloc.dtype),
            cp_name_of(p, s->u.alloc.buffer_var));
    for (int j = 0; j < s->u.alloc.ndim; j++) {
      if (j) cp_put(p, " * ");
      cp_expr(p, s->u.alloc.extents[j]);
    }
    sb_printf(&p->out, " elements (allocs[%d])\n", i);
    cp_stmt(p, s->u.alloc.body);
    return true;
  }
  const CudaKernel *k = launched(h->m, s);
  if (!k) return false;
  cp_line(p, "%s<<<", k->name);
  for (int j = 0; j < 6; j++) {
    const Expr *e = j < 3 ? k->grid[j] : k->block[j - 3];
    cp_put(p, j == 0 ? "dim3(" : j == 3 ? "), dim3(" : ", ");
    if (e) cp_expr(p, e);
    else cp_put(p, "1");
  }
  cp_put(p, ")>>>(");
  int n = 0;
  for (int j = 0; j < k->nbufs; j++)
    sb_printf(&p->out, "%s%s", n++ ? ", " : "", cp_name_of(p, h->f->params[k->bufs[j]]->data));
  for (int j = 0; j < k->nallocs; j++)
    sb_printf(&p->out, "%s%s", n++ ? ", " : "", cp_name_of(p, h->m->allocs[k->allocs[j]].var));
  for (int j = 0; j < k->nscalars; j++)
    sb_printf(&p->out, "%s%s", n++ ? ", " : "", cp_name_of(p, k->scalars[j]));
  cp_put(p, ");\n");
  return true;
}

static char *host_text(const LoweredFunc *f, const CudaModule *m, Diag *d) {
  static const CDialect host_dialect = {"cuda", "", NULL, NULL, host_stmt, NULL, "half"};
  Host h = {m, f};
  CPrinter p = cp_init(&host_dialect, &h, d);
  sb_printf(&p.out, "// host function %s: %d kernel launch%s\n", f->name, m->nkernels,
            m->nkernels == 1 ? "" : "es");
  /* the parameters and shape variables first, so that a host variable named like one is
   * renamed, as in the kernels */
  for (int i = 0; i < f->nparams; i++) cp_name_of(&p, f->params[i]->data);
  p.indent = 0;
  cp_stmt(&p, f->body);
  cp_free(&p);
  return sb_take(&p.out, NULL);
}

CudaModule *cg_cuda_build(const LoweredFunc *f, const CudaOptions *opt, Diag *d) {
  static const CudaOptions defaults = {0};
  CudaModule *m = xcalloc(1, sizeof *m);
  StrBuf src = STRBUF_INIT;
  if (cuda_uses_half(f)) sb_puts(&src, "#include <cuda_fp16.h>\n");
  if (cuda_wmma_used(f)) sb_puts(&src, "#include <mma.h>\n");
  sb_puts(&src, prelude);
  cp_helpers(&src, "__device__ inline");
  host_allocs(f->body, m);
  m->host_body = f->body;
  for (int i = 0; i < f->ndevice && !diag_failed(d); i++)
    kernel(f, &f->device[i], opt ? opt : &defaults, m, &src, d);
  m->source = sb_take(&src, NULL);
  if (!diag_failed(d)) m->host = host_text(f, m, d);
  if (diag_failed(d)) return cg_cuda_free(m), NULL;
  return m;
}

void cg_cuda_free(CudaModule *m) {
  if (!m) return;
  for (int i = 0; i < m->nkernels; i++) {
    free(m->kernels[i].name);
    free(m->kernels[i].bufs);
    free(m->kernels[i].allocs);
    free(m->kernels[i].scalars);
  }
  free(m->kernels);
  free(m->allocs);
  free(m->source);
  free(m->host);
  free(m);
}
