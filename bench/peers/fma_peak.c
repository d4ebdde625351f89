/* fma_peak.c: the machine's single-precision FMA peak, the ceiling every kernel figure in
 * bench/ is a fraction of. Each thread runs independent chains of fused multiply-adds on the
 * widest vector registers the compiler targets (-march=native: 512-bit with AVX-512), or on
 * 256-bit ones when built with -DFMA_WIDTH=256, enough chains to cover the FMA latency on
 * every port, so the loop is bound by FMA throughput alone. A CPU may execute 512-bit FMAs as
 * two 256-bit halves, or have more 256-bit FMA ports than 512-bit ones: bench/kernels.py runs
 * both widths and takes the faster as the peak.
 *
 *   fma_peak THREADS  ->  prints "gflops=X" (all threads together)
 *
 * The best of several short runs is the peak: on a shared machine a run can only lose time to
 * other work, never gain it. */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__) && !(defined(FMA_WIDTH) && FMA_WIDTH == 256)
typedef __m512 vec;
enum { LANES = 16 };
#define vfma _mm512_fmadd_ps
#define vset _mm512_set1_ps
#define vadd _mm512_add_ps
#define vsum _mm512_reduce_add_ps
#elif defined(__AVX2__) && defined(__FMA__)
typedef __m256 vec;
enum { LANES = 8 };
#define vfma _mm256_fmadd_ps
#define vset _mm256_set1_ps
#define vadd _mm256_add_ps
static float vsum(vec v) {
  float f[8];
  _mm256_storeu_ps(f, v);
  return f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
}
#else
#error "fma_peak needs AVX2+FMA or AVX-512 (build with -march=native on such a CPU)"
#endif

enum { CHAINS = 16, ITERS = 4 * 1000 * 1000, RUNS = 7 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile float sink;

static void *run(void *arg) {
  (void)arg;
  vec acc[CHAINS];
  vec a = vset(0.999999f), b = vset(1e-7f);
  for (int c = 0; c < CHAINS; c++) acc[c] = vset((float)c);
  for (long i = 0; i < ITERS; i++)
    for (int c = 0; c < CHAINS; c++) acc[c] = vfma(acc[c], a, b);
  vec s = acc[0];
  for (int c = 1; c < CHAINS; c++) s = vadd(s, acc[c]);
  sink = vsum(s); /* keeps the chains alive */
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  if (threads < 1 || threads > 256) return fprintf(stderr, "fma_peak: bad thread count\n"), 2;
  pthread_t tid[256];
  double secs = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = now();
    for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, run, NULL);
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    double dt = now() - t0;
    if (r == 0 || dt < secs) secs = dt;
  }
  double flops = 2.0 * LANES * CHAINS * (double)ITERS * threads;
  printf("gflops=%.1f lanes=%d\n", flops / secs * 1e-9, LANES);
  return 0;
}
