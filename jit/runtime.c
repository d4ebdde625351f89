/* runtime.c: the thread pool of parallel loops (SPEC §9: sized to the machine, TES_NUM_THREADS
 * overrides). Workers start with the first parallel loop and then sleep on a condition
 * variable between loops, after spinning for a short while (job_spin_ns) on the job count so
 * that back-to-back loops (a GEMM's packing loop and its compute loop, a timed kernel called
 * again and again) start without a wake-up; the caller spins the same way (join_spin_ns) before
 * it sleeps waiting for the workers. A loop is split into at most one chunk per thread, of
 * equal size give or take an iteration; thread t (the caller is 0, the workers 1, 2, ...) runs
 * chunk t first, so that loops over the same range (a packing loop and the loop that reads what
 * it packed) give each thread the same part in each, and then any chunk still unclaimed, so
 * that a thread that is late to wake leaves its share to the others; the caller works too,
 * then waits until every worker has finished with the job, since the closure lives on the
 * caller's stack. A chunk starts only while the interrupt flag is
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

enum { RT_MAX_THREADS = 1024 };

typedef struct Job {
  RtParallelBody body;
  void *closure;
  int64_t n;
  int nchunks;
  atomic_int rc;                       /* the first nonzero code */
  atomic_bool claimed[RT_MAX_THREADS]; /* chunk k has been taken by a thread */
} Job;

/* How long a worker waits for the next job, and the caller for the workers, spinning before
 * it sleeps: at most long enough to bridge the gap between two loops of one kernel and between
 * calls of a kernel in a loop (microseconds), so that an idle pool costs nothing. Each of the
 * two waits has its own budget, which adapts to the waits it sees: a spin that runs out ends
 * in sleep, and when the event then came within RT_SPIN_MAX_NS of the start of the wait (a
 * longer spin would have seen it, and the wake-up cost more than the wait), the budget
 * doubles; when it came after more than RT_LONG_WAIT_NS (a spin of RT_SPIN_MAX_NS would waste
 * a tenth of the wait or more), it halves, down to RT_SPIN_MIN_NS; between the two it stays
 * (an uneven pair of chunks, noise). So a pool whose loops come microseconds apart soon spins
 * through every gap again after serial work has worn its budget down, and one whose loops
 * come seldom spins little. On a machine with more runnable threads than cores a spinning
 * thread holds the core its peer needs, the waits grow long (time slices are milliseconds)
 * and the budget shrinks: there the pool soon sleeps at once, as it would without spinning. */
enum { RT_SPIN_MAX_NS = 100000, RT_SPIN_MIN_NS = 1000, RT_LONG_WAIT_NS = 1000000 };
static atomic_int job_spin_ns = RT_SPIN_MAX_NS, join_spin_ns = RT_SPIN_MAX_NS;

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
    if (!*end && n > 0 && n <= RT_MAX_THREADS) return (int)n;
  }
  int n = cpu_count();
  return n < RT_MAX_THREADS ? n : RT_MAX_THREADS;
}

/* Chunk k of a job: [k q + min(k, r), ...) where n = q nchunks + r, so that the first r
 * chunks have one iteration more than the rest. */
static int64_t chunk_begin(const Job *job, int k) {
  int64_t q = job->n / job->nchunks, r = job->n % job->nchunks;
  return k * q + (k < r ? k : r);
}

/* Runs chunk self first (when the job has one), then every chunk no thread has claimed yet. */
static void run_chunks(Job *job, int self) {
  for (int i = 0; i < job->nchunks; i++) {
    int k = (self + i) % job->nchunks;
    if (atomic_exchange_explicit(&job->claimed[k], true, memory_order_relaxed)) continue;
    int64_t begin = chunk_begin(job, k), end = chunk_begin(job, k + 1);
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

/* Waits until done(arg) holds: spins for up to *budget ns (the clock read every 64 turns, a
 * pause being tens of cycles, so the spin costs no system calls), then sleeps on cond under
 * pool.lock, and adapts *budget to how long the wait was (see RT_SPIN_MAX_NS). */
static void wait_until(bool (*done)(const void *), const void *arg, atomic_int *budget,
                       pthread_cond_t *cond) {
  int spin = atomic_load_explicit(budget, memory_order_relaxed);
  int64_t start = now_ns();
  for (unsigned i = 0; !done(arg); i++) {
    if ((i & 63) == 63 && now_ns() - start > spin) {
      pthread_mutex_lock(&pool.lock);
      while (!done(arg)) pthread_cond_wait(cond, &pool.lock);
      pthread_mutex_unlock(&pool.lock);
      int64_t waited = now_ns() - start;
      int next = waited <= RT_SPIN_MAX_NS ? spin * 2 : waited > RT_LONG_WAIT_NS ? spin / 2 : spin;
      next = next < RT_SPIN_MIN_NS ? RT_SPIN_MIN_NS : next > RT_SPIN_MAX_NS ? RT_SPIN_MAX_NS : next;
      atomic_store_explicit(budget, next, memory_order_relaxed);
      return;
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
  int self = (int)(intptr_t)arg;
  set_in_chunk(1);
  uint64_t seen = 0;
  for (;;) {
    wait_until(new_job, &seen, &job_spin_ns, &pool.wake);
    seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
    run_chunks(&pool.job, self);
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
    if (pthread_create(&t, &attr, worker, (void *)(intptr_t)(pool.nworkers + 1)) == 0)
      pool.nworkers++;
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
  pool.job.nchunks = nchunks;
  for (int k = 0; k < nchunks; k++)
    atomic_store_explicit(&pool.job.claimed[k], false, memory_order_relaxed);
  atomic_store(&pool.job.rc, 0);
  atomic_store(&pool.done, 0);
  atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  set_in_chunk(1);
  run_chunks(&pool.job, 0);
  set_in_chunk(0);
  wait_until(workers_done, NULL, &join_spin_ns, &pool.finished);
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
