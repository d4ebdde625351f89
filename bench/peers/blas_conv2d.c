/* blas_conv2d.c: 2-D convolution, NCHW, stride 1, as im2col followed by OpenBLAS's
 * cblas_sgemm: the peer of tes's conv2d schedules. ResNet-18 layer 9 by default: batch 1, 256
 * channels of 14 x 14, 256 filters of 3 x 3, padding 1. The timing covers im2col and the GEMM.
 *
 *   blas_conv2d C H W F KH PAD REPEAT  ->  prints "seconds=MEDIAN check=X version=V core=CORE"
 */
#include <cblas.h>
#include <stdio.h>

#include "blas_info.h"
#include "peer.h"

int main(int argc, char **argv) {
  if (argc != 8) return fprintf(stderr, "usage: blas_conv2d C H W F KH PAD REPEAT\n"), 2;
  int c = atoi(argv[1]), h = atoi(argv[2]), w = atoi(argv[3]), f = atoi(argv[4]);
  int kh = atoi(argv[5]), pad = atoi(argv[6]), rep = atoi(argv[7]), kw = kh;
  int oh = h + 2 * pad - kh + 1, ow = w + 2 * pad - kw + 1, ck = c * kh * kw;
  float *in = peer_random((long)c * h * w, 1), *wt = peer_random((long)f * ck, 2);
  float *col = peer_alloc((long)ck * oh * ow), *out = peer_alloc((long)f * oh * ow);
  double *t = malloc((size_t)rep * sizeof *t);
  for (int r = 0; r < rep; r++) {
    double t0 = peer_now();
    for (int ci = 0; ci < c; ci++)
      for (int ky = 0; ky < kh; ky++)
        for (int kx = 0; kx < kw; kx++) {
          float *row = col + (long)((ci * kh + ky) * kw + kx) * oh * ow;
          for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
              int iy = y + ky - pad, ix = x + kx - pad;
              row[y * ow + x] =
                  iy >= 0 && iy < h && ix >= 0 && ix < w ? in[(ci * h + iy) * w + ix] : 0.0f;
            }
        }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, f, oh * ow, ck, 1.0f, wt, ck, col,
                oh * ow, 0.0f, out, oh * ow);
    t[r] = peer_now() - t0;
  }
  printf("seconds=%.9f check=%.6g", peer_median(t, rep), (double)out[f * oh * ow / 2 + 3]);
  blas_info_print();
  return 0;
}
