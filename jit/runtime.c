/* runtime.c: the thread pool of parallel loops (SPEC §9: sized to the machine, TES_NUM_THREADS
 * overrides). Workers start with the first parallel loop and then sleep on a condition
 * variable between loops, after spinning for a short while (spin_budget_ns) on the job count so
 * that back-to-back loops (a GEMM's packing loop and its compute loop, a timed kernel called
 * again and again) start without a wake-up; the caller spins the same way before it sleeps
 * waiting for the workers. A loop is split into at most one chunk per thread, chunks handed out
 * through an atomic counter so that a thread that is late to wake leaves its share to the
 * others; the caller works too, then waits until every worker has finished with the job, since
 * the closure lives on the caller's stack. A chunk starts only while the interrupt flag is
 * clear, so Ctrl-C skips the rest of a loop, and the job still ends the usual way (every worker
 * reports in), which leaves the pool ready for the next. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "jit/runtime.h"

typedef struct Job {
  RtParallelBody body;
  void *closure;
  int64_t n, chunk;
  int nchunks;
  atomic_int next; /* the next chunk to hand out */
  atomic_int rc;   /* the first nonzero code */
} Job;

/* How long a worker waits for the next job, and the caller for the workers, spinning before
 * it sleeps: at most long enough to bridge the gap between two loops of one kernel and between
 * calls of a kernel in a loop (microseconds), so that an idle pool costs nothing. The budget
 * adapts: a spin that ends in sleep halves it (down to RT_SPIN_MIN_NS), one that sees its event
 * grows it back. On a machine with more runnable threads than cores a spinning thread holds
 * the core its peer needs, and every spin would run out: there the pool soon sleeps at once,
 * as it would without spinning. */
enum { RT_SPIN_MAX_NS = 100000, RT_SPIN_MIN_NS = 1000 };
static atomic_int spin_budget_ns = RT_SPIN_MAX_NS;

static struct {
  pthread_once_t once;
  pthread_mutex_t lock; /* taken to sleep on, and to change, generation and done */
  pthread_cond_t wake, finished;
  pthread_mutex_t busy;          /* held by the thread running a job */
  int nthreads, nworkers;        /* workers are the threads besides the caller */
  _Atomic uint64_t generation;   /* bumped (under lock) for every job, after its fields */
  atomic_int done;               /* workers that finished the current job */
  Job job;
} pool = {.once = PTHREAD_ONCE_INIT,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .finished = PTHREAD_COND_INITIALIZER,
          .busy = PTHREAD_MUTEX_INITIALIZER};

/* Set on pool threads and while the caller runs chunks: a parallel loop inside runs serially.
 * A pthread key, not _Thread_local: in a dlopen'ed plugin that would be dynamic TLS, which
 * LeakSanitizer's thread scan at exit cannot walk (it crashes). */
static pthread_key_t in_chunk_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void make_key(void) { pthread_key_create(&in_chunk_key, NULL); }

static int in_chunk(void) {
  pthread_once(&key_once, make_key);
  return pthread_getspecific(in_chunk_key) != NULL;
}

static void set_in_chunk(int on) {
  pthread_once(&key_once, make_key);
  pthread_setspecific(in_chunk_key, on ? &in_chunk_key : NULL);
}

atomic_int rt_interrupt_requested;
static _Atomic(atomic_int *) interrupt_flag = &rt_interrupt_requested;

void rt_set_interrupt_flag(atomic_int *flag) {
  atomic_store(&interrupt_flag, flag ? flag : &rt_interrupt_requested);
}

atomic_int *rt_interrupt_flag(void) { return atomic_load(&interrupt_flag); }

static bool interrupted(void) {
  return atomic_load_explicit(rt_interrupt_flag(), memory_order_relaxed) != 0;
}

static int cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int configured_threads(void) {
  const char *env = getenv("TES_NUM_THREADS");
  if (env && *env) {
    char *end;
    long n = strtol(env, &end, 10);
    if (!*end && n > 0 && n <= 1024) return (int)n;
  }
  return cpu_count();
}

static void run_chunks(Job *job) {
  int k;
  while ((k = atomic_fetch_add(&job->next, 1)) < job->nchunks) {
    int64_t begin = (int64_t)k * job->chunk;
    int64_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
    int32_t rc = interrupted() ? RT_ERR_INTERRUPTED : job->body(begin, end, job->closure);
    int zero = 0;
    if (rc) atomic_compare_exchange_strong(&job->rc, &zero, rc);
  }
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* Spins for up to the budget until done(arg) holds; whether it did. The clock is read every 64
 * turns (a pause is tens of cycles), so the spin costs no system calls. */
static bool spin_until(bool (*done)(const void *), const void *arg) {
  int budget = atomic_load_explicit(&spin_budget_ns, memory_order_relaxed);
  int64_t start = 0;
  for (unsigned i = 0;; i++) {
    if (done(arg)) {
      if (budget < RT_SPIN_MAX_NS) {
        int grown = budget + budget / 4 + RT_SPIN_MIN_NS;
        atomic_store_explicit(&spin_budget_ns, grown < RT_SPIN_MAX_NS ? grown : RT_SPIN_MAX_NS,
                              memory_order_relaxed);
      }
      return true;
    }
    if ((i & 63) == 63) {
      int64_t t = now_ns();
      if (!start) {
        start = t;
      } else if (t - start > budget) {
        int halved = budget / 2;
        atomic_store_explicit(&spin_budget_ns, halved > RT_SPIN_MIN_NS ? halved : RT_SPIN_MIN_NS,
                              memory_order_relaxed);
        return false;
      }
    }
    cpu_relax();
  }
}

static bool new_job(const void *seen) {
  return atomic_load_explicit(&pool.generation, memory_order_acquire) != *(const uint64_t *)seen;
}

static bool workers_done(const void *arg) {
  (void)arg;
  return atomic_load_explicit(&pool.done, memory_order_acquire) == pool.nworkers;
}

static void *worker(void *arg) {
  (void)arg;
  set_in_chunk(1);
  uint64_t seen = 0;
  for (;;) {
    if (!spin_until(new_job, &seen)) {
      pthread_mutex_lock(&pool.lock);
      while (!new_job(&seen)) pthread_cond_wait(&pool.wake, &pool.lock);
      pthread_mutex_unlock(&pool.lock);
    }
    seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
    run_chunks(&pool.job);
    /* The last to finish wakes the caller if it sleeps; it checks done under the lock. */
    if (atomic_fetch_add_explicit(&pool.done, 1, memory_order_acq_rel) + 1 == pool.nworkers) {
      pthread_mutex_lock(&pool.lock);
      pthread_cond_signal(&pool.finished);
      pthread_mutex_unlock(&pool.lock);
    }
  }
  return NULL;
}

/* Workers block every signal they can, so that the process's handlers (SIGINT: Ctrl-C) run
 * on its own threads, where a signal also wakes a blocking read. */
static void start_pool(void) {
  pool.nthreads = configured_threads();
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  for (int i = 1; i < pool.nthreads; i++) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, worker, NULL) == 0) pool.nworkers++;
    pthread_attr_destroy(&attr);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int rt_num_threads(void) {
  pthread_once(&pool.once, start_pool);
  return pool.nthreads;
}

int32_t rt_parallel_for(int64_t n, RtParallelBody body, void *closure) {
  if (n <= 0) return 0;
  if (interrupted()) return RT_ERR_INTERRUPTED;
  pthread_once(&pool.once, start_pool);
  if (in_chunk() || pool.nworkers == 0 || n == 1 || pthread_mutex_trylock(&pool.busy) != 0)
    return body(0, n, closure);
  int nchunks = n < pool.nworkers + 1 ? (int)n : pool.nworkers + 1;
  pthread_mutex_lock(&pool.lock);
  pool.job.body = body;
  pool.job.closure = closure;
  pool.job.n = n;
  pool.job.chunk = (n + nchunks - 1) / nchunks;
  pool.job.nchunks = (int)((n + pool.job.chunk - 1) / pool.job.chunk);
  atomic_store(&pool.job.next, 0);
  atomic_store(&pool.job.rc, 0);
  atomic_store(&pool.done, 0);
  atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  set_in_chunk(1);
  run_chunks(&pool.job);
  set_in_chunk(0);
  if (!spin_until(workers_done, NULL)) {
    pthread_mutex_lock(&pool.lock);
    while (!workers_done(NULL)) pthread_cond_wait(&pool.finished, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
  }
  int32_t rc = atomic_load(&pool.job.rc);
  pthread_mutex_unlock(&pool.busy);
  return rc;
}

/* ---- call_packed ---- */

static _Atomic(RtPackedHook) packed_hook;

void rt_set_packed_hook(RtPackedHook hook) { atomic_store(&packed_hook, hook); }

int32_t rt_call_packed(const char *name, const int64_t *values, const int32_t *codes, int32_t n,
                       int64_t *ret) {
  RtPackedHook hook = atomic_load(&packed_hook);
  *ret = 0;
  return hook ? hook(name, values, codes, n, ret) : RT_ERR_PACKED;
}
