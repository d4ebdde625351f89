/* blas_sgemm.c: OpenBLAS's cblas_sgemm on M x K times K x N float32 (row-major), the peer of
 * tes's GEMM schedules. Threads come from OPENBLAS_NUM_THREADS, the kernel set from
 * OPENBLAS_CORETYPE (bench/kernels.py tries each one the library accepts).
 *
 *   blas_sgemm M N K REPEAT  ->  prints "seconds=MEDIAN check=X version=V core=CORE"
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas_info.h"
#include "peer.h"

int main(int argc, char **argv) {
  if (argc != 5) return fprintf(stderr, "usage: blas_sgemm M N K REPEAT\n"), 2;
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), rep = atoi(argv[4]);
  float *a = peer_random(m * k, 1), *b = peer_random(k * n, 2), *c = peer_alloc(m * n);
  double *t = malloc((size_t)rep * sizeof *t);
  for (int r = 0; r < rep; r++) {
    double t0 = peer_now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c,
                n);
    t[r] = peer_now() - t0;
  }
  printf("seconds=%.9f check=%.6g", peer_median(t, rep), (double)c[m * n / 2 + 7]);
  blas_info_print();
  return 0;
}
