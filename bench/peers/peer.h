/* peer.h: what the peer programs of bench/ share: a clock, aligned random data from a fixed
 * seed (the same generator in every peer, never zeros) and the median of repeated timings. */
#ifndef TES_BENCH_PEER_H
#define TES_BENCH_PEER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static inline double peer_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Buffers of 4 MiB or more ask for transparent huge pages before they are touched, as tes's
 * arrays and numpy's do, so that no peer loses to tes on TLB misses alone. */
static inline float *peer_alloc(long n) {
  size_t bytes = (size_t)((n * 4 + 63) / 64 * 64);
  float *p = aligned_alloc(64, bytes);
  if (!p) abort();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= (4u << 20)) {
    uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
  }
#endif
  memset(p, 0, (size_t)n * 4);
  return p;
}

/* Uniform in [-1, 1), xorshift64* from seed. */
static inline float *peer_random(long n, uint64_t seed) {
  float *p = peer_alloc(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (long i = 0; i < n; i++) {
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    p[i] = (float)((double)((x * 0x2545F4914F6CDD1Dull) >> 40) / (double)(1 << 24)) * 2 - 1;
  }
  return p;
}

static int peer_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static inline double peer_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, peer_cmp);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

#endif
