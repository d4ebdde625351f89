/* test_runtime.c: unit tests of jit/runtime.c, the thread pool of parallel loops: the pool's
 * size from TES_NUM_THREADS (each setting in a child, since the size is fixed when the pool
 * first starts), every iteration run once in at most one chunk per thread, chunks on several
 * threads whose signals are blocked, the caller waiting for slow chunks, the first error code,
 * nested loops and a busy pool run by the caller alone, the interrupt flag, loops whose
 * workers are still spinning from the last one or asleep, chunks of equal size, and each
 * thread running the same chunk in loops one after another. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "jit/runtime.h"
#include "tests/unit/check.h"

static int cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* rt_num_threads() in a child with TES_NUM_THREADS=value (unset when NULL) is want. */
static bool threads_with(const char *value, int want) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (value)
      setenv("TES_NUM_THREADS", value, 1);
    else
      unsetenv("TES_NUM_THREADS");
    int got = rt_num_threads();
    if (got != want) printf("  TES_NUM_THREADS=%s: %d threads, want %d\n", value, got, want);
    fflush(stdout);
    _exit(got == want ? 0 : 1);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_runtime_num_threads(void) {
  int cpus = cpu_count();
  CHECK(threads_with("5", 5));
  CHECK(threads_with("1", 1));
  CHECK(threads_with("1024", 1024));
  CHECK(threads_with(NULL, cpus));
  CHECK(threads_with("", cpus));
  CHECK(threads_with("0", cpus));
  CHECK(threads_with("-2", cpus));
  CHECK(threads_with("3x", cpus));
  CHECK(threads_with("many", cpus));
  CHECK(threads_with("1025", cpus));
}

typedef struct Visits {
  int64_t n;
  atomic_int *count;
  atomic_int calls;
  int64_t fail_at; /* the chunk holding this index returns 7; -1: none */
} Visits;

static int32_t visit(int64_t begin, int64_t end, void *closure) {
  Visits *v = closure;
  atomic_fetch_add(&v->calls, 1);
  for (int64_t i = begin; i < end; i++) atomic_fetch_add(&v->count[i], 1);
  return v->fail_at >= begin && v->fail_at < end ? 7 : 0;
}

static void test_runtime_parallel_for(void) {
  static const int64_t sizes[] = {0, 1, 2, 3, 5, 1000, 100003};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int64_t n = sizes[k];
    Visits v = {n, calloc((size_t)n + 1, sizeof(atomic_int)), 0, -1};
    CHECK(rt_parallel_for(n, visit, &v) == 0);
    int once = 0;
    for (int64_t i = 0; i < n; i++) once += atomic_load(&v.count[i]) == 1;
    CHECK(once == n);
    CHECK(atomic_load(&v.calls) <= rt_num_threads());
    free(v.count);
  }
}

static void test_runtime_parallel_error(void) {
  Visits v = {1000, calloc(1000, sizeof(atomic_int)), 0, 500};
  CHECK(rt_parallel_for(1000, visit, &v) == 7);
  int once = 0;
  for (int i = 0; i < 1000; i++) once += atomic_load(&v.count[i]) == 1;
  CHECK(once == 1000); /* the other chunks still ran */
  free(v.count);
}

/* A parallel loop inside a chunk runs on the calling thread. */
static int32_t outer(int64_t begin, int64_t end, void *closure) {
  Visits *v = closure;
  for (int64_t i = begin; i < end; i++) {
    Visits inner = {10, v->count + i * 10, 0, -1};
    int32_t rc = rt_parallel_for(10, visit, &inner);
    if (rc || atomic_load(&inner.calls) != 1) return 3;
  }
  return 0;
}

static void test_runtime_parallel_nested(void) {
  Visits v = {640, calloc(640, sizeof(atomic_int)), 0, -1};
  CHECK(rt_parallel_for(64, outer, &v) == 0);
  int once = 0;
  for (int i = 0; i < 640; i++) once += atomic_load(&v.count[i]) == 1;
  CHECK(once == 640);
  free(v.count);
}

/* Ctrl-C: with the flag set no chunk starts; chunks that stop on it (as generated code does)
 * pass RT_ERR_INTERRUPTED on, every worker still reports in, and the pool runs the next loop
 * once the flag is clear. */
static int32_t stop_at_flag(int64_t begin, int64_t end, void *closure) {
  Visits *v = closure;
  atomic_fetch_add(&v->calls, 1);
  atomic_store(rt_interrupt_flag(), 1);
  return RT_ERR_INTERRUPTED;
}

static void test_runtime_parallel_interrupt(void) {
  CHECK(rt_interrupt_flag() == &rt_interrupt_requested);
  Visits v = {1000, calloc(1000, sizeof(atomic_int)), 0, -1};
  atomic_store(rt_interrupt_flag(), 1);
  CHECK(rt_parallel_for(1000, visit, &v) == RT_ERR_INTERRUPTED);
  CHECK(atomic_load(&v.calls) == 0);
  atomic_store(rt_interrupt_flag(), 0);
  for (int round = 0; round < 3; round++) {
    CHECK(rt_parallel_for(1000, stop_at_flag, &v) == RT_ERR_INTERRUPTED);
    CHECK(atomic_load(&v.calls) >= 1);
    atomic_store(rt_interrupt_flag(), 0);
    atomic_store(&v.calls, 0);
    CHECK(rt_parallel_for(1000, visit, &v) == 0);
    int once = 0;
    for (int i = 0; i < 1000; i++) once += atomic_exchange(&v.count[i], 0) == 1;
    CHECK(once == 1000);
    atomic_store(&v.calls, 0);
  }
  /* a host's flag replaces the runtime's own */
  atomic_int host = 1;
  rt_set_interrupt_flag(&host);
  CHECK(rt_parallel_for(1000, visit, &v) == RT_ERR_INTERRUPTED && atomic_load(&v.calls) == 0);
  rt_set_interrupt_flag(NULL);
  CHECK(rt_parallel_for(1000, visit, &v) == 0);
  free(v.count);
}

/* ---- threads ---- */

enum { MAX_SEEN = 64, RT_MAX_TEST_THREADS = 64 };

typedef struct Seen {
  pthread_mutex_t lock;
  pthread_t threads[MAX_SEEN];
  bool sigint_blocked[MAX_SEEN];
  int n;
  atomic_int entered, in_flight, finished;
} Seen;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Records its thread, then waits (5 s at most) until a second thread has entered a chunk,
 * so that the caller cannot take every chunk itself before the workers wake. */
static int32_t meet(int64_t begin, int64_t end, void *closure) {
  Seen *s = closure;
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  pthread_mutex_lock(&s->lock);
  bool known = false;
  for (int i = 0; i < s->n; i++) known |= pthread_equal(s->threads[i], pthread_self());
  if (!known && s->n < MAX_SEEN) {
    s->sigint_blocked[s->n] = sigismember(&mask, SIGINT) == 1;
    s->threads[s->n++] = pthread_self();
  }
  pthread_mutex_unlock(&s->lock);
  atomic_fetch_add(&s->entered, 1);
  for (double until = now() + 5; atomic_load(&s->entered) < 2 && now() < until;) sched_yield();
  return 0;
}

static void test_runtime_parallel_threads(void) {
  Seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
  CHECK(rt_parallel_for(12, meet, &s) == 0);
  CHECK(s.n >= 2 && s.n <= rt_num_threads());
  /* the workers block SIGINT, so that Ctrl-C reaches the caller's threads; the caller (which
   * may or may not have taken a chunk) keeps its mask */
  int callers = 0, blocked = 0;
  for (int i = 0; i < s.n; i++) {
    bool caller = pthread_equal(s.threads[i], pthread_self());
    callers += caller;
    blocked += !caller && s.sigint_blocked[i];
  }
  CHECK(callers <= 1);
  CHECK(blocked == s.n - callers);
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  CHECK(sigismember(&mask, SIGINT) == 0);
}

/* Slow chunks: the loop returns only when every one has finished. */
static int32_t slow(int64_t begin, int64_t end, void *closure) {
  Seen *s = closure;
  atomic_fetch_add(&s->in_flight, 1);
  nanosleep(&(struct timespec){0, 3 * 1000 * 1000}, NULL);
  atomic_fetch_add(&s->finished, (int)(end - begin));
  atomic_fetch_sub(&s->in_flight, 1);
  return 0;
}

static void test_runtime_parallel_waits(void) {
  for (int round = 0; round < 5; round++) {
    Seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
    CHECK(rt_parallel_for(30, slow, &s) == 0);
    CHECK(atomic_load(&s.in_flight) == 0 && atomic_load(&s.finished) == 30);
  }
}

/* While another thread's loop holds the pool, a loop runs on its caller in one chunk. */
typedef struct Holder {
  atomic_int entered, release;
  int32_t rc;
} Holder;

static int32_t hold(int64_t begin, int64_t end, void *closure) {
  Holder *h = closure;
  atomic_fetch_add(&h->entered, 1);
  for (double until = now() + 5; !atomic_load(&h->release) && now() < until;) sched_yield();
  return 0;
}

static void *hold_pool(void *arg) {
  Holder *h = arg;
  h->rc = rt_parallel_for(3, hold, h);
  return NULL;
}

static void test_runtime_parallel_busy(void) {
  Holder h = {0};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, hold_pool, &h) == 0);
  for (double until = now() + 5; !atomic_load(&h.entered) && now() < until;) sched_yield();
  CHECK(atomic_load(&h.entered) >= 1);
  Visits v = {100, calloc(100, sizeof(atomic_int)), 0, -1};
  CHECK(rt_parallel_for(100, visit, &v) == 0);
  CHECK(atomic_load(&v.calls) == 1);
  int once = 0;
  for (int i = 0; i < 100; i++) once += atomic_load(&v.count[i]) == 1;
  CHECK(once == 100);
  atomic_store(&h.release, 1);
  pthread_join(t, NULL);
  CHECK(h.rc == 0);
  /* and the pool is free again: the next loop spreads over threads */
  Seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
  CHECK(rt_parallel_for(12, meet, &s) == 0 && s.n >= 2);
  free(v.count);
}

/* Loops back to back (the workers still spinning since the last one) and loops after a pause
 * longer than any spin (the workers asleep): each runs every iteration once, on at least two
 * threads (meet waits for a second one). */
static void test_runtime_parallel_spin_and_sleep(void) {
  int wrong = 0, alone = 0;
  for (int round = 0; round < 300; round++) {
    if (round % 30 == 29) nanosleep(&(struct timespec){0, 2 * 1000 * 1000}, NULL);
    Visits v = {1000, calloc(1000, sizeof(atomic_int)), 0, -1};
    wrong += rt_parallel_for(1000, visit, &v) != 0;
    for (int i = 0; i < 1000; i++) wrong += atomic_load(&v.count[i]) != 1;
    free(v.count);
    if (round % 10 == 0) {
      Seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
      wrong += rt_parallel_for(12, meet, &s) != 0;
      alone += s.n < 2;
    }
  }
  CHECK(wrong == 0);
  CHECK(alone == 0);
}

/* Chunk sizes differ by one iteration at most (7 on 3 threads: 3 2 2, not 3 3 1). */
typedef struct Sizes {
  atomic_int calls;
  atomic_llong smallest, largest;
} Sizes;

static int32_t measure(int64_t begin, int64_t end, void *closure) {
  Sizes *s = closure;
  atomic_fetch_add(&s->calls, 1);
  long long size = end - begin, seen;
  while ((seen = atomic_load(&s->smallest)) > size &&
         !atomic_compare_exchange_weak(&s->smallest, &seen, size)) {
  }
  while ((seen = atomic_load(&s->largest)) < size &&
         !atomic_compare_exchange_weak(&s->largest, &seen, size)) {
  }
  return 0;
}

static void test_runtime_parallel_equal_chunks(void) {
  static const int64_t sizes[] = {4, 7, 8, 11, 1000, 100003};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    Sizes s = {0, INT64_MAX, 0};
    CHECK(rt_parallel_for(sizes[k], measure, &s) == 0);
    CHECK(atomic_load(&s.calls) == rt_num_threads());
    CHECK(atomic_load(&s.largest) - atomic_load(&s.smallest) <= 1);
  }
}

/* Thread t runs chunk t when every thread is there to take its own: each chunk waits (5 s at
 * most) until all of the pool's threads have entered one, so that no thread finishes its
 * chunk and takes another's first. Loops one after another then give each thread the same
 * chunk, the caller chunk 0. */
typedef struct Owners {
  int nthreads;
  atomic_int entered;
  pthread_t owner[RT_MAX_TEST_THREADS];
} Owners;

static int32_t own(int64_t begin, int64_t end, void *closure) {
  Owners *o = closure;
  (void)end;
  o->owner[begin] = pthread_self();
  atomic_fetch_add(&o->entered, 1);
  for (double until = now() + 5; atomic_load(&o->entered) < o->nthreads && now() < until;)
    sched_yield();
  return 0;
}

static void test_runtime_parallel_owners(void) {
  int n = rt_num_threads(), moved = 0, caller = 0;
  CHECK(n <= RT_MAX_TEST_THREADS);
  Owners first = {.nthreads = n};
  CHECK(rt_parallel_for(n, own, &first) == 0);
  for (int round = 0; round < 20; round++) {
    Owners o = {.nthreads = n};
    CHECK(rt_parallel_for(n, own, &o) == 0);
    for (int i = 0; i < n; i++) moved += !pthread_equal(o.owner[i], first.owner[i]);
    caller += !pthread_equal(o.owner[0], pthread_self());
  }
  CHECK(moved == 0);
  CHECK(caller == 0);
}

int main(void) {
  test_runtime_num_threads(); /* before this process's pool starts */
  setenv("TES_NUM_THREADS", "3", 1);
  CHECK(rt_num_threads() == 3);
  setenv("TES_NUM_THREADS", "7", 1);
  CHECK(rt_num_threads() == 3); /* fixed once started */
  test_runtime_parallel_for();
  test_runtime_parallel_error();
  test_runtime_parallel_nested();
  test_runtime_parallel_interrupt();
  test_runtime_parallel_threads();
  test_runtime_parallel_waits();
  test_runtime_parallel_busy();
  test_runtime_parallel_spin_and_sleep();
  test_runtime_parallel_equal_chunks();
  test_runtime_parallel_owners();
  return finish();
}
