/* verify_gpu.c: the GPU verifier (backends/cuda/verify_gpu.h). The host function is walked
 * statement by statement, each kernel once by a visitor that counts its threads and its shared
 * and local allocations (TensorCore fragments count as local, a warp's lanes sharing them). */
#include "backends/cuda/verify_gpu.h"

#include <string.h>

#include "ir/printer.h"
#include "ir/wmma.h"

/* ---- host code ---- */

typedef struct HostCheck {
  IrVisitor v;
  Diag *d;
} HostCheck;

static void host_expr(IrVisitor *v, const Expr *e) {
  HostCheck *h = (HostCheck *)v;
  if (diag_failed(h->d)) return;
  if (e->kind == EXPR_LOAD) {
    ir_error(h->d, "cannot build for cuda: the load of %s is in host code, outside every thread "
                   "binding, and %s lives on the device (did you forget to bind?)",
             e->u.load.buf->data->name, e->u.load.buf->data->name);
    return;
  }
  ir_visit_children_expr(v, e);
}

static void host_stmt(IrVisitor *v, const Stmt *s) {
  HostCheck *h = (HostCheck *)v;
  if (diag_failed(h->d)) return;
  if (s->kind == STMT_STORE) {
    ir_error(h->d, "cannot build for cuda: the store to %s is outside every thread binding (did "
                   "you forget to bind?)",
             s->u.store.buf->data->name);
    return;
  }
  if (s->kind == STMT_ALLOCATE && s->u.alloc.scope && strcmp(s->u.alloc.scope, "global") != 0) {
    ir_error(h->d, "cannot build for cuda: %s memory '%s' is allocated outside every kernel "
                   "(compute_at it under a blockIdx binding)",
             s->u.alloc.scope, s->u.alloc.buffer_var->name);
    return;
  }
  ir_visit_children_stmt(v, s);
}

/* ---- kernels ---- */

typedef struct Binding {
  const char *tag;
  const Expr *extent;
  const char *var; /* the thread axis's name */
} Binding;

typedef struct KernelCheck {
  IrVisitor v;
  const DeviceFunc *k;
  Diag *d;
  Binding bind[8];
  int nbind;
  int64_t shared, local; /* bytes, of allocations of constant size */
  StrBuf shared_list;    /* "A.shared 4096 + B.shared 4096" */
  const char *stored;    /* the last buffer the kernel stores to: what it computes */
} KernelCheck;

static int64_t alloc_bytes(const Stmt *s, bool *known) {
  int64_t n = (s->u.alloc.dtype.bits + 7) / 8 * s->u.alloc.dtype.lanes, ext;
  for (int i = 0; i < s->u.alloc.ndim; i++) {
    if (!ir_as_int(s->u.alloc.extents[i], &ext)) return *known = false, 0;
    n *= ext;
  }
  return *known = true, n;
}

static void kernel_stmt(IrVisitor *v, const Stmt *s) {
  KernelCheck *kc = (KernelCheck *)v;
  if (diag_failed(kc->d)) return;
  if (s->kind == STMT_STORE) kc->stored = s->u.store.buf->data->name;
  if (s->kind == STMT_ATTR && s->u.attr.nkind == ATTR_NODE_ITERVAR &&
      strcmp(s->u.attr.key, "thread_extent") == 0) {
    const IterVar *iv = s->u.attr.node;
    const char *tag = iv->thread_tag ? iv->thread_tag : "";
    bool seen = false;
    for (int i = 0; i < kc->nbind; i++) {
      if (strcmp(kc->bind[i].tag, tag) != 0) continue;
      seen = true;
      if (ir_expr_equal(kc->bind[i].extent, s->u.attr.value)) continue;
      StrBuf a = STRBUF_INIT, b = STRBUF_INIT;
      ir_print_expr(&a, kc->bind[i].extent);
      ir_print_expr(&b, s->u.attr.value);
      ir_error(kc->d, "cannot build for cuda: %s is bound twice in one kernel (%s) with different "
                      "extents, %s ('%s') and %s ('%s')",
               tag, kc->k->name, sb_cstr(&a), kc->bind[i].var, sb_cstr(&b), iv->var->name);
      sb_free(&a);
      sb_free(&b);
      return;
    }
    if (!seen && kc->nbind < 8)
      kc->bind[kc->nbind++] = (Binding){tag, s->u.attr.value, iv->var->name};
  }
  if (s->kind == STMT_ALLOCATE && s->u.alloc.scope) {
    bool known;
    int64_t bytes = alloc_bytes(s, &known);
    if (known && strcmp(s->u.alloc.scope, "shared") == 0) {
      kc->shared += bytes;
      sb_printf(&kc->shared_list, "%s%s %lld", kc->shared_list.len ? " + " : "",
                s->u.alloc.buffer_var->name, (long long)bytes);
    } else if (known && strcmp(s->u.alloc.scope, "local") == 0) {
      kc->local += bytes;
    } else if (known && wmma_scope(s->u.alloc.scope) != WMMA_NONE) {
      /* TensorCore fragments are registers like local memory, spread over a warp's 32 lanes */
      kc->local += (bytes + 31) / 32;
    }
  }
  ir_visit_children_stmt(v, s);
}

static bool check_kernel(const DeviceFunc *k, const GpuLimits *lim, Diag *d) {
  KernelCheck kc = {{NULL, kernel_stmt}, k, d, {{0}}, 0, 0, 0, STRBUF_INIT, NULL};
  ir_visit_stmt(&kc.v, k->body);
  const char *what = kc.stored ? kc.stored : "nothing";
  if (!diag_failed(d)) {
    int64_t threads = 1, ext;
    bool known = true;
    StrBuf dims = STRBUF_INIT;
    for (int i = 0; i < kc.nbind; i++) {
      if (strncmp(kc.bind[i].tag, "threadIdx.", 10) != 0) continue;
      if (!ir_as_int(kc.bind[i].extent, &ext)) {
        known = false;
        continue;
      }
      threads *= ext;
      sb_printf(&dims, "%s%s '%s' %lld", dims.len ? " x " : "", kc.bind[i].tag, kc.bind[i].var,
                (long long)ext);
    }
    if (known && threads > lim->max_threads)
      ir_error(d, "cannot build for cuda: kernel %s (computing %s) has %lld threads a block (%s), "
                  "more than the %lld of %s",
               k->name, what, (long long)threads, sb_cstr(&dims), (long long)lim->max_threads,
               lim->max_threads_from);
    sb_free(&dims);
  }
  if (!diag_failed(d) && kc.shared > lim->max_shared)
    ir_error(d, "cannot build for cuda: kernel %s (computing %s) uses %lld bytes of shared memory "
                "a block (%s), more than the %lld of %s",
             k->name, what, (long long)kc.shared, sb_cstr(&kc.shared_list),
             (long long)lim->max_shared, lim->max_shared_from);
  if (!diag_failed(d) && kc.local > lim->max_local)
    ir_error(d, "cannot build for cuda: kernel %s (computing %s) uses %lld bytes of local memory "
                "a thread, more than CUDA's %lld",
             k->name, what, (long long)kc.local, (long long)lim->max_local);
  sb_free(&kc.shared_list);
  return !diag_failed(d);
}

bool cuda_verify(const LoweredFunc *f, const GpuLimits *lim, Diag *d) {
  HostCheck h = {{host_expr, host_stmt}, d};
  ir_visit_stmt(&h.v, f->body);
  if (diag_failed(d)) return false;
  if (f->ndevice == 0)
    return ir_error(d, "cannot build for cuda: %s binds no loop to a GPU thread (did you forget "
                       "to bind?)",
                    f->name);
  for (int i = 0; i < f->ndevice; i++)
    if (!check_kernel(&f->device[i], lim, d)) return false;
  return true;
}
