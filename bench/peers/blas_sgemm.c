/* blas_sgemm.c: OpenBLAS's cblas_sgemm on M x K times K x N float32 (row-major), the peer of
 * tes's GEMM schedules. Threads come from OPENBLAS_NUM_THREADS, the kernel set from
 * OPENBLAS_CORETYPE (bench/kernels.py tries each one the library accepts). With "nt" the
 * second operand is N x K and used transposed (CblasTrans): dense's weight, the peer of
 * topi.x86.dense_pack.
 *
 *   blas_sgemm M N K [nt] REPEAT  ->  prints "seconds=MEDIAN check=X version=V core=CORE"
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_info.h"
#include "peer.h"

int main(int argc, char **argv) {
  int nt = argc == 6 && strcmp(argv[4], "nt") == 0;
  if (argc != 5 && !nt) return fprintf(stderr, "usage: blas_sgemm M N K [nt] REPEAT\n"), 2;
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), rep = atoi(argv[argc - 1]);
  float *a = peer_random(m * k, 1), *b = peer_random(k * n, 2), *c = peer_alloc(m * n);
  double *t = malloc((size_t)rep * sizeof *t);
  for (int r = 0; r < rep; r++) {
    double t0 = peer_now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, nt ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a,
                k, b, nt ? k : n, 0.0f, c, n);
    t[r] = peer_now() - t0;
  }
  printf("seconds=%.9f check=%.6g", peer_median(t, rep), (double)c[m * n / 2 + 7]);
  blas_info_print();
  return 0;
}
