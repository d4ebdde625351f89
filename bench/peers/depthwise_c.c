/* depthwise_c.c: depthwise 2-D convolution, NCHW, channel multiplier 1, stride 1, zero
 * padding, as plain C loops built with gcc -O3 -march=native: the peer of tes's
 * topi.nn.depthwise_conv2d_nchw with topi's CPU schedule. Two ways to write it:
 * - pad: as numpy would, the input is first padded into a buffer (np.pad), then each output is
 *   the 3 x 3 windowed sum; both inside the timing, as TOPI's pad stage would be.
 * - direct (padding 1 only): each output row reads the three input rows around it, a row of
 *   zeros standing in above the first and below the last, and the first and last columns are
 *   written apart so that the loop over the columns between has no conditions: the loop a C
 *   programmer tuning this would write, moving only the bytes the convolution must.
 * The window size is a constant and the pointers restrict, so that gcc unrolls the window and
 * vectorizes the loop over output columns. Single-threaded. Workload of bench/kernels.py:
 * [1,256,96,96] x [256,1,3,3], padding 1.
 *
 *   depthwise_c pad|direct C H W 3 PAD REPEAT  ->  prints "seconds=MEDIAN check=..."
 */
#include <stdio.h>

#include "peer.h"

enum { K = 3 }; /* the window: 3 x 3 */

static void depthwise(const float *restrict in, const float *restrict flt, float *restrict pad,
                      float *restrict out, int c, int h, int w, int p) {
  int ph = h + 2 * p, pw = w + 2 * p, oh = ph - K + 1, ow = pw - K + 1;
  for (int ch = 0; ch < c; ch++)
    for (int y = 0; y < ph; y++)
      for (int x = 0; x < pw; x++) {
        int iy = y - p, ix = x - p;
        pad[((long)ch * ph + y) * pw + x] =
            iy >= 0 && iy < h && ix >= 0 && ix < w ? in[((long)ch * h + iy) * w + ix] : 0.0f;
      }
  for (int ch = 0; ch < c; ch++) {
    const float *f = flt + ch * K * K;
    for (int y = 0; y < oh; y++) {
      const float *src = pad + ((long)ch * ph + y) * pw;
      float *dst = out + ((long)ch * oh + y) * ow;
      for (int x = 0; x < ow; x++) {
        float acc = 0.0f;
        for (int dy = 0; dy < K; dy++)
          for (int dx = 0; dx < K; dx++) acc += src[dy * pw + x + dx] * f[dy * K + dx];
        dst[x] = acc;
      }
    }
  }
}

/* Padding 1, output h x w: out[y][x] sums in[y + dy - 1][x + dx - 1] over the window, zero
 * outside the input, read from a static row of zeros (the fastest of the variants tried:
 * a zeroed buffer passed in, or the pointers without restrict, ran slower). */
enum { DIRECT_MAX_W = 4096 };
static const float zero_row[DIRECT_MAX_W];

static void depthwise_direct(const float *restrict in, const float *restrict flt,
                             float *restrict out, int c, int h, int w) {
  for (int ch = 0; ch < c; ch++) {
    const float *src = in + (long)ch * h * w, *f = flt + ch * K * K;
    for (int y = 0; y < h; y++) {
      const float *a = y > 0 ? src + (long)(y - 1) * w : zero_row, *b = src + (long)y * w;
      const float *d = y + 1 < h ? src + (long)(y + 1) * w : zero_row;
      float *o = out + ((long)ch * h + y) * w;
      o[0] = a[0] * f[1] + a[1] * f[2] + b[0] * f[4] + b[1] * f[5] + d[0] * f[7] + d[1] * f[8];
      for (int x = 1; x < w - 1; x++)
        o[x] = a[x - 1] * f[0] + a[x] * f[1] + a[x + 1] * f[2] + b[x - 1] * f[3] + b[x] * f[4] +
               b[x + 1] * f[5] + d[x - 1] * f[6] + d[x] * f[7] + d[x + 1] * f[8];
      o[w - 1] = a[w - 2] * f[0] + a[w - 1] * f[1] + b[w - 2] * f[3] + b[w - 1] * f[4] +
                 d[w - 2] * f[6] + d[w - 1] * f[7];
    }
  }
}

int main(int argc, char **argv) {
  int direct = argc == 8 && !strcmp(argv[1], "direct");
  if (argc != 8 || (!direct && strcmp(argv[1], "pad")) || atoi(argv[5]) != K ||
      (direct && (atoi(argv[6]) != 1 || atoi(argv[4]) < 2 || atoi(argv[4]) > DIRECT_MAX_W)))
    return fprintf(stderr, "usage: depthwise_c pad|direct C H W 3 PAD REPEAT (direct: PAD 1, W <= 4096)\n"), 2;
  int c = atoi(argv[2]), h = atoi(argv[3]), w = atoi(argv[4]), p = atoi(argv[6]);
  int rep = atoi(argv[7]), ph = h + 2 * p, pw = w + 2 * p, oh = ph - K + 1, ow = pw - K + 1;
  float *in = peer_random((long)c * h * w, 1), *flt = peer_random((long)c * K * K, 2);
  float *pad = direct ? NULL : peer_alloc((long)c * ph * pw);
  float *out = peer_alloc((long)c * oh * ow);
  double *t = malloc((size_t)rep * sizeof *t);
  for (int r = 0; r < rep; r++) {
    double t0 = peer_now();
    if (direct)
      depthwise_direct(in, flt, out, c, h, w);
    else
      depthwise(in, flt, pad, out, c, h, w, p);
    t[r] = peer_now() - t0;
  }
  printf("seconds=%.9f check=%.6g\n", peer_median(t, rep), (double)out[(long)c * oh * ow / 2 + 3]);
  return 0;
}
