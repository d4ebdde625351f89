/* module_cuda.c: running a Module built for "cuda" (SPEC §9). The call's arguments are
 * checked and its shape variables bound as for llvm (module_args.c); the arrays are on one
 * CUDA device, where the module's PTX is loaded on the first call and kept (one load per
 * device, unloaded with the Module). A call walks the host function (CudaModule.host_body,
 * what tir.SplitHostDevice left around the kernels) as a small interpreter: sequences, serial
 * loops and lets bind integer variables, conditions and asserts are evaluated, an allocation
 * of a global intermediate buffer is device memory for its scope (freed after it, also on an
 * error), and each `@tir.tvm_call_packed("NAME_kernelK", ...)` launches that kernel on the
 * default stream, its grid and block the values of its extent expressions there, its
 * arguments as its signature lists them (codegen_cuda.h): its parameters' buffers, the host
 * allocations it uses, then its scalars (shape variables, host loop and let variables) as
 * int32 or int64. Anything else in the host function is a "not supported yet" error.
 * A launch's result is checked at the launch; with TES_CUDA_SYNC=1 in the environment each
 * launch is also waited for, so that a fault inside a kernel is reported at that kernel.
 * Launches are asynchronous otherwise: copying an array back (.numpy()) or dev.sync() waits. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/codegen_cuda.h"
#include "frontend/lang/interp.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/raise.h"
#include "ir/printer.h"
#include "jit/cuda_driver.h"

typedef struct CudaLoad {
  int id;
  CudaLoaded *mod;
  CudaFunction *fns; /* per kernel */
} CudaLoad;

void bi_module_cuda_free(Built *m) {
  for (int i = 0; i < m->nloads; i++) {
    cuda_module_unload(m->loads[i].mod);
    free(m->loads[i].fns);
  }
  free(m->loads);
  m->loads = NULL;
  m->nloads = 0;
}

/* m's PTX loaded on device id and its kernels looked up, the first time; NULL with d set. */
static CudaLoad *loaded(Built *m, int id, Diag *d) {
  for (int i = 0; i < m->nloads; i++)
    if (m->loads[i].id == id) return &m->loads[i];
  CudaLoaded *mod = cuda_module_load(id, m->ptx, d);
  if (!mod) return NULL;
  const CudaModule *cm = m->kernels;
  CudaFunction *fns = xcalloc((size_t)cm->nkernels + 1, sizeof *fns);
  for (int k = 0; k < cm->nkernels; k++)
    if (!(fns[k] = cuda_module_function(mod, cm->kernels[k].name, d))) {
      free(fns);
      cuda_module_unload(mod);
      return NULL;
    }
  m->loads = xrealloc(m->loads, (size_t)(m->nloads + 1) * sizeof *m->loads);
  m->loads[m->nloads] = (CudaLoad){id, mod, fns};
  return &m->loads[m->nloads++];
}

/* One call's walk of the host function: the variables its loops and lets bind, and the
 * device memory of each CudaModule.allocs entry while its ALLOCATE is in scope (else 0). */
typedef struct Host {
  const Built *m;
  const Args *a;
  CudaLoad *ld;
  bool sync;
  HostEnv env;
  CudaPtr *mem;
  Diag *d;
} Host;

static void env_push(HostEnv *env, const Var *v, int64_t val) {
  if (env->n == env->cap) {
    env->cap = env->cap ? 2 * env->cap : 8;
    env->vars = xrealloc(env->vars, (size_t)env->cap * sizeof *env->vars);
    env->vals = xrealloc(env->vals, (size_t)env->cap * sizeof *env->vals);
  }
  env->vars[env->n] = v;
  env->vals[env->n++] = val;
}

/* "not supported yet: WHAT EXPR in the host code of a cuda module" (e may be NULL). */
static bool unsupported(const Host *h, const char *what, const Expr *e) {
  StrBuf b = STRBUF_INIT;
  if (e) ir_print_expr(&b, e);
  bool r = ir_error(h->d, "%s: not supported yet: %s%s%s in the host code of a cuda module",
                    h->m->name, what, e ? " " : "", e ? sb_cstr(&b) : "");
  sb_free(&b);
  return r;
}

/* An integer (or boolean) expression of the host code in the current environment. */
static bool host_value(const Host *h, const Expr *e, const char *what, int64_t *out) {
  return bi_module_eval(h->m, &h->a->bd, &h->env, e, out) || unsupported(h, what, e);
}

/* Whether v's dtype (int32 or int64) holds val; false with d set. */
static bool fits_var(const Host *h, const Var *v, int64_t val) {
  if (!dt_is_int(v->dtype) || (v->dtype.bits != 32 && v->dtype.bits != 64)) {
    char t[32];
    StrBuf b = STRBUF_INIT;
    sb_printf(&b, "a host variable %s of dtype %s", v->name, dt_name(v->dtype, t));
    bool r = unsupported(h, sb_cstr(&b), NULL);
    sb_free(&b);
    return r;
  }
  if (v->dtype.bits == 32 && (val < INT32_MIN || val > INT32_MAX))
    return ir_error(h->d, "%s: host variable %s = %lld does not fit int32", h->m->name, v->name,
                    (long long)val);
  return true;
}

/* One launch dimension: an extent expression's value (NULL: 1); false with d set. */
static bool extent(const Host *h, const CudaKernel *k, const Expr *e, const char *what,
                   unsigned *out) {
  int64_t v = 1;
  if (e && !bi_module_eval(h->m, &h->a->bd, &h->env, e, &v))
    return ir_error(h->d,
                    "%s: the %s of %s depends on something other than the shape variables and "
                    "the host code's variables",
                    h->m->name, what, k->name);
  if (v < 0 || v > INT32_MAX)
    return ir_error(h->d, "%s: the %s of %s is %lld, out of range for a launch", h->m->name, what,
                    k->name, (long long)v);
  *out = (unsigned)v;
  return true;
}
/* Whether the launch fits the device's limits; a clear message before the driver's. */
static bool fits(const Built *m, int id, const CudaKernel *k, const unsigned grid[3],
                 const unsigned block[3], Diag *d) {
  CudaLimits l;
  if (!cuda_device_limits(id, &l, d)) return false;
  static const char *const axis = "xyz";
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  if (threads > (uint64_t)l.max_threads_per_block)
    return ir_error(d, "%s: %s has %llu threads per block; cuda(%d) allows %d", m->name, k->name,
                    (unsigned long long)threads, id, l.max_threads_per_block);
  for (int i = 0; i < 3; i++) {
    if (block[i] > (unsigned)l.max_block[i])
      return ir_error(d, "%s: %s's threadIdx.%c extent %u is over cuda(%d)'s %d", m->name, k->name,
                      axis[i], block[i], id, l.max_block[i]);
    if (grid[i] > (unsigned)l.max_grid[i])
      return ir_error(d, "%s: %s's blockIdx.%c extent %u is over cuda(%d)'s %d", m->name, k->name,
                      axis[i], grid[i], id, l.max_grid[i]);
  }
  return true;
}

/* Launches kernel k where the host code reaches it; false with d set. Its arguments, as its
 * signature lists them: the device addresses of its parameters' buffers, then of the host
 * allocations it uses, then its scalars' values in the environment, as int32 or int64. */
static bool launch(Host *h, int k) {
  const Built *m = h->m;
  const CudaKernel *ck = &m->kernels->kernels[k];
  unsigned grid[3], block[3];
  static const char *const names[6] = {"blockIdx.x extent",  "blockIdx.y extent",
                                       "blockIdx.z extent",  "threadIdx.x extent",
                                       "threadIdx.y extent", "threadIdx.z extent"};
  for (int i = 0; i < 3; i++)
    if (!extent(h, ck, ck->grid[i], names[i], &grid[i]) ||
        !extent(h, ck, ck->block[i], names[3 + i], &block[i]))
      return false;
  /* an extent of 0 (a shape variable bound to 0): no thread has anything to do */
  if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2]) return true;
  if (!fits(m, h->ld->id, ck, grid, block, h->d)) return false;
  int nptrs = ck->nbufs + ck->nallocs, n = nptrs + ck->nscalars;
  CudaPtr *ptrs = xcalloc((size_t)nptrs + 1, sizeof *ptrs);
  union { int64_t i64; int32_t i32; } *vals = xcalloc((size_t)ck->nscalars + 1, sizeof *vals);
  void **params = xcalloc((size_t)n + 1, sizeof *params);
  /* cuLaunchKernel reads each argument's value through params[i] */
  for (int j = 0; j < ck->nbufs; j++) ptrs[j] = (CudaPtr)(uintptr_t)h->a->ptrs[ck->bufs[j]];
  for (int j = 0; j < ck->nallocs; j++) ptrs[ck->nbufs + j] = h->mem[ck->allocs[j]];
  for (int j = 0; j < nptrs; j++) params[j] = &ptrs[j];
  bool ok = true;
  for (int j = 0; ok && j < ck->nallocs; j++)
    if (!ptrs[ck->nbufs + j])
      ok = ir_error(h->d, "%s: %s uses %s, which the host has not allocated where it launches it",
                    m->name, ck->name, m->kernels->allocs[ck->allocs[j]].var->name);
  for (int j = 0; ok && j < ck->nscalars; j++) {
    const Var *v = ck->scalars[j];
    int64_t x = 0;
    if (!bi_module_var_value(m, &h->a->bd, &h->env, v, &x))
      ok = ir_error(h->d, "%s: %s's argument %s is not bound where the host launches it",
                    m->name, ck->name, v->name);
    ok = ok && fits_var(h, v, x);
    if (v->dtype.bits == 64) vals[j].i64 = x, params[nptrs + j] = &vals[j].i64;
    else vals[j].i32 = (int32_t)x, params[nptrs + j] = &vals[j].i32;
  }
  ok = ok && cuda_launch(h->ld->mod, h->ld->fns[k], ck->name, grid, block, params, h->sync, h->d);
  free(params);
  free(vals);
  free(ptrs);
  return ok;
}

/* The kernel s launches (`@tir.tvm_call_packed("NAME_kernelK", ...)`), or -1. */
static int launched(const CudaModule *cm, const Stmt *s) {
  const Expr *c = s->u.eval.value;
  if (c->kind != EXPR_CALL || strcmp(c->u.call.op, "tir.tvm_call_packed") != 0 ||
      c->u.call.n < 1 || c->u.call.args[0]->kind != EXPR_STR)
    return -1;
  for (int k = 0; k < cm->nkernels; k++)
    if (strcmp(cm->kernels[k].name, c->u.call.args[0]->u.str) == 0) return k;
  return -1;
}

static bool host_stmt(Host *h, const Stmt *s);

/* ALLOCATE: CudaModule.allocs' entry in device memory for the body's walk, waited for (the
 * kernels launched may still use it) and freed after it, also when the body fails. */
static bool host_alloc(Host *h, const Stmt *s) {
  const CudaModule *cm = h->m->kernels;
  int i = 0;
  while (i < cm->nallocs && cm->allocs[i].var != s->u.alloc.buffer_var) i++;
  const char *scope = s->u.alloc.scope;
  if (i == cm->nallocs || (scope && *scope && strcmp(scope, "global") != 0))
    return unsupported(h, "an allocation that is not in global memory", NULL);
  int64_t cond = 1, ext;
  if (s->u.alloc.condition && !host_value(h, s->u.alloc.condition, "the allocation condition",
                                          &cond))
    return false;
  if (!cond) return unsupported(h, "an allocation whose condition is false:",
                                s->u.alloc.condition);
  DType t = cm->allocs[i].dtype;
  uint64_t bytes = ((uint64_t)t.bits * (t.lanes ? t.lanes : 1) + 7) / 8;
  for (int j = 0; j < cm->allocs[i].ndim; j++) {
    if (!host_value(h, cm->allocs[i].extents[j], "the allocation extent", &ext)) return false;
    if (ext < 0 || __builtin_mul_overflow(bytes, (uint64_t)ext, &bytes) || bytes > SIZE_MAX)
      return ir_error(h->d, "%s: the host allocation of %s has extent %lld, too large or negative",
                      h->m->name, cm->allocs[i].var->name, (long long)ext);
  }
  CudaPtr outer = h->mem[i], p;
  if (!cuda_mem_alloc(h->ld->id, (size_t)bytes, &p, h->d)) return false;
  h->mem[i] = p;
  bool ok = host_stmt(h, s->u.alloc.body);
  Diag scratch = DIAG_INIT; /* after an error, the first one is the one to report */
  ok = cuda_sync(h->ld->id, ok ? h->d : &scratch) && ok;
  ok = cuda_mem_free(h->ld->id, p, ok ? h->d : &scratch) && ok;
  diag_clear(&scratch);
  h->mem[i] = outer;
  return ok;
}

/* Runs host statement s (NULL: nothing); false with d set. */
static bool host_stmt(Host *h, const Stmt *s) {
  if (!s) return true;
  int64_t x, lo, n;
  switch (s->kind) {
  case STMT_SEQ:
    for (int i = 0; i < s->u.seq.n; i++)
      if (!host_stmt(h, s->u.seq.items[i])) return false;
    return true;
  case STMT_FOR: {
    const Var *v = s->u.for_.var;
    if (s->u.for_.fkind != FOR_SERIAL && s->u.for_.fkind != FOR_UNROLLED)
      return unsupported(h, "a loop that is not serial, over", s->u.for_.extent);
    if (!host_value(h, s->u.for_.min, "the loop start", &lo) ||
        !host_value(h, s->u.for_.extent, "the loop extent", &n))
      return false;
    int64_t last;
    if (n > 0 && __builtin_add_overflow(lo, n - 1, &last))
      return ir_error(h->d, "%s: the loop over %s overflows", h->m->name, v->name);
    if (n > 0 && (!fits_var(h, v, lo) || !fits_var(h, v, last))) return false;
    env_push(&h->env, v, lo);
    bool ok = true;
    for (int64_t i = 0; ok && i < n; i++) {
      h->env.vals[h->env.n - 1] = lo + i;
      ok = host_stmt(h, s->u.for_.body);
    }
    h->env.n--;
    return ok;
  }
  case STMT_LET: {
    if (!host_value(h, s->u.let.value, "the let value", &x) || !fits_var(h, s->u.let.var, x))
      return false;
    env_push(&h->env, s->u.let.var, x);
    bool ok = host_stmt(h, s->u.let.body);
    h->env.n--;
    return ok;
  }
  case STMT_IF:
    if (!host_value(h, s->u.if_.cond, "the condition", &x)) return false;
    return host_stmt(h, x ? s->u.if_.then : s->u.if_.orelse);
  case STMT_ASSERT:
    if (!host_value(h, s->u.assert_.cond, "the assertion", &x)) return false;
    if (!x)
      return ir_error(h->d, "%s: %s", h->m->name,
                      s->u.assert_.msg && s->u.assert_.msg->kind == EXPR_STR
                          ? s->u.assert_.msg->u.str
                          : "assertion failed in the host code");
    return host_stmt(h, s->u.assert_.body);
  case STMT_ATTR:
    return host_stmt(h, s->u.attr.body);
  case STMT_ALLOCATE:
    return host_alloc(h, s);
  case STMT_EVALUATE: {
    int k = launched(h->m->kernels, s);
    return k >= 0 ? launch(h, k) : unsupported(h, "the evaluation of", s->u.eval.value);
  }
  default: {
    char what[64];
    snprintf(what, sizeof what, "a %s statement", ir_stmt_kind_names[s->kind]);
    return unsupported(h, what, NULL);
  }
  }
}

static bool sync_each_launch(void) {
  const char *s = getenv("TES_CUDA_SYNC");
  return s && *s && strcmp(s, "0") != 0;
}

/* One call: the host function walked with the call's arguments. */
static bool run(Built *m, Args *a, Diag *d) {
  CudaLoad *ld = loaded(m, a->device_id, d);
  if (!ld) return false;
  Host h = {m, a, ld, sync_each_launch(), {0}, NULL, d};
  h.mem = xcalloc((size_t)m->kernels->nallocs + 1, sizeof *h.mem);
  bool ok = host_stmt(&h, m->kernels->host_body);
  free(h.mem);
  free(h.env.vars);
  free(h.env.vals);
  return ok;
}

int bi_module_cuda_run(Interp *I, Built *m, Args *a) {
  Diag d = DIAG_INIT;
  if (run(m, a, &d)) return 0;
  bi_raise_diag(I, EXC_RuntimeError, &d);
  return -1;
}

/* As TVM's GPU timer: the device drained, an event before and one after `number` calls. */
double bi_module_cuda_time(Interp *I, Built *m, Args *a, int64_t number) {
  Diag d = DIAG_INIT;
  int id = a->device_id;
  CudaEvent start = NULL, end = NULL;
  float ms = 0;
  bool ok = cuda_sync(id, &d) && (start = cuda_event_new(id, &d)) &&
            (end = cuda_event_new(id, &d)) && cuda_event_record(id, start, &d);
  for (int64_t i = 0; ok && i < number; i++) {
    ok = run(m, a, &d);
    if (ok && bi_check_interrupt(I) < 0) {
      cuda_event_free(id, start);
      cuda_event_free(id, end);
      return -1;
    }
  }
  ok = ok && cuda_event_record(id, end, &d) && cuda_event_elapsed_ms(id, start, end, &ms, &d);
  cuda_event_free(id, start);
  cuda_event_free(id, end);
  if (!ok) return bi_raise_diag(I, EXC_RuntimeError, &d), -1;
  return (double)ms * 1e-3 / (double)number;
}
