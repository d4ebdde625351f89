/* build_cache.c: an llvm build through the compile cache (jit/objcache.h), the back end loaded
 * on a thread while the first build lowers, and the times of a build's phases that
 * TES_TIME_BUILD=1 prints (docs/build.md).
 *
 * The key of a module is the SHA-256 of: tes's version, the build of the LLVM plugin (its GNU
 * build ID: a plugin built from other code makes other keys), the target string, and what the
 * back end says its output depends on (cg_llvm_cache_input: LLVM's version, the target
 * machine's CPU and features, the pipeline, the assertion messages and the unoptimised
 * module's bitcode, which holds everything the lowered function says, LLVM IR imported by a
 * pragma included). So a hit costs lowering and the making of the unoptimised module (a small
 * part of a build), and no optimisation or code generation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/lang/interp.h"
#include "frontend/tvm/build_impl.h"
#include "frontend/tvm/tir_impl.h"
#include "ir/strbuf.h"
#include "jit/objcache.h"
#include "jit/sha256.h"

/* ---- phase times ---- */

static struct {
  int on;   /* 0 unknown, 1 on, -1 off */
  bool cpu; /* TES_TIME_BUILD=cpu: CPU time, not wall time */
  StrBuf line;
  double start;
} T;

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* In CPU time, a phase is its own thread's time and the total the process's, the thread
 * that loads the plugin included: on a busy machine wall time says more of the neighbours. */
double bi_build_clock(void) { return clock_ms(T.cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC); }

static double total_clock(void) {
  return T.cpu ? clock_ms(CLOCK_PROCESS_CPUTIME_ID) : bi_build_clock();
}

static bool timing(void) {
  if (!T.on) {
    const char *s = getenv("TES_TIME_BUILD");
    T.on = s && *s && strcmp(s, "0") != 0 ? 1 : -1;
    T.cpu = T.on > 0 && strcmp(s, "cpu") == 0;
  }
  return T.on > 0;
}

void bi_build_time_start(void) {
  if (!timing()) return;
  sb_free(&T.line);
  T.start = total_clock();
}

void bi_build_time(const char *phase, double since) {
  if (!timing()) return;
  sb_printf(&T.line, "%s%s", T.line.len ? ", " : "", phase);
  if (since >= 0) sb_printf(&T.line, " %.2f ms", bi_build_clock() - since);
}

void bi_build_time_end(const char *name) {
  if (!timing() || !T.line.len) return;
  fprintf(stderr, "tes: build %s%s: %s; total %.2f ms\n", name, T.cpu ? " (cpu time)" : "",
          sb_cstr(&T.line), total_clock() - T.start);
  sb_free(&T.line);
}

/* ---- the back end loaded while the first build lowers ---- */

struct BiPreload {
  pthread_t thread;
  bool threaded;
  pthread_mutex_t lock;
  pthread_cond_t loaded_cv;
  bool loaded;
  const TesLlvm *llvm;
  Diag d;
  double ms; /* the loading's own time */
};

/* Loads the plugin, says so, then starts the JIT session. */
static void *preload(void *arg) {
  BiPreload *p = arg;
  double t = bi_build_clock();
  const TesLlvm *llvm = tes_llvm(&p->d);
  if (llvm) {
    llvm->set_interrupt_flag(&tes_interrupted); /* its kernels stop on Ctrl-C */
    llvm->set_packed_hook(bi_packed_hook);      /* call_packed runs TES functions */
  }
  pthread_mutex_lock(&p->lock);
  p->llvm = llvm;
  p->ms = bi_build_clock() - t;
  p->loaded = true;
  pthread_cond_signal(&p->loaded_cv);
  pthread_mutex_unlock(&p->lock);
  if (llvm) llvm->start_jit();
  return NULL;
}

BiPreload *bi_preload_start(void) {
  BiPreload *p = xcalloc(1, sizeof *p);
  p->d = (Diag)DIAG_INIT;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->loaded_cv, NULL);
  p->threaded = pthread_create(&p->thread, NULL, preload, p) == 0;
  if (!p->threaded) preload(p);
  return p;
}

const TesLlvm *bi_preload_wait(BiPreload *p, Diag *d) {
  double t = bi_build_clock();
  pthread_mutex_lock(&p->lock);
  while (!p->loaded) pthread_cond_wait(&p->loaded_cv, &p->lock);
  pthread_mutex_unlock(&p->lock);
  if (timing()) {
    char what[64];
    if (T.cpu) /* waiting takes no CPU time */
      snprintf(what, sizeof what, "plugin %.2f ms", p->ms);
    else
      snprintf(what, sizeof what, "plugin %.2f ms (waited %.2f ms)", p->ms, bi_build_clock() - t);
    bi_build_time(what, -1);
  }
  if (!p->llvm) *d = p->d;
  return p->llvm;
}

void bi_preload_finish(BiPreload *p) {
  if (!p) return;
  if (p->threaded) pthread_join(p->thread, NULL);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->loaded_cv);
  free(p);
}

/* ---- the cache ---- */

/* The key of code (not yet optimised) for target; false when nothing of this build may be
 * cached (the plugin's build is unknown). */
static bool cache_key(CgLlvmCode *code, const char *target, uint8_t key[32]) {
  char *id = objcache_code_id((const void *)bi_llvm->generate);
  if (!id) return false;
  size_t len;
  char *input = bi_llvm->cache_input(code, &len);
  Sha256 h;
  sha256_init(&h);
  StrBuf head = STRBUF_INIT;
  sb_printf(&head, "tes %s\nplugin %s\ntarget %s\n", TES_VERSION, id, target);
  sha256_update(&h, sb_cstr(&head), head.len);
  sha256_update(&h, input, len);
  sha256_final(&h, key);
  sb_free(&head);
  free(input);
  free(id);
  return true;
}

CgLlvmCode *bi_build_llvm_code(const LoweredFunc *f, const char *target, void **obj, size_t *len,
                               Diag *d) {
  double t = bi_build_clock();
  CgLlvmCode *code = bi_llvm->generate(f, target, d);
  if (!code) return NULL;
  bi_build_time("llvm-ir", t);
  char *dir = objcache_dir();
  uint8_t key[32];
  bool cached = false;
  if (dir) {
    t = bi_build_clock();
    cached = cache_key(code, target, key);
    void *entry;
    size_t n;
    if (cached && objcache_get(key, &entry, &n)) {
      bool ok = bi_llvm->cache_load(code, entry, n);
      free(entry);
      if (ok && bi_llvm->jit_object(code, obj, len, d)) {
        bi_build_time("cache hit", t);
        free(dir);
        return code;
      }
    }
    bi_build_time(cached ? "cache miss" : "not cacheable", t);
  }
  free(dir);
  t = bi_build_clock();
  if (!bi_llvm->optimize(code, d)) goto fail;
  bi_build_time("optimise", t);
  t = bi_build_clock();
  if (!bi_llvm->jit_object(code, obj, len, d)) goto fail;
  bi_build_time("codegen", t);
  if (cached) {
    t = bi_build_clock();
    void *entry;
    size_t n;
    if (bi_llvm->cache_save(code, &entry, &n, d)) {
      objcache_put(key, entry, n);
      free(entry);
      bi_build_time("store", t);
    } else {
      free(*obj);
      goto fail;
    }
  }
  return code;
fail:
  bi_llvm->free(code);
  return NULL;
}
