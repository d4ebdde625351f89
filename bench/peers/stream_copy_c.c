/* stream_copy_c.c: the memory floor of a kernel that reads N floats and writes N others once
 * each, as plain C built with gcc -O3 -march=native: out[i] = 2 * in[i], vectorized, ordinary
 * stores, single-threaded. No kernel that must read and write those bytes once (a depthwise
 * convolution: its input and its output) can take less time on one core, whatever it computes
 * in between; bench/kernels.py prints it as a TOPI row's bound, not as a goal.
 *
 *   stream_copy_c N REPEAT  ->  prints "seconds=MEDIAN check=..."
 */
#include <stdio.h>

#include "peer.h"

static void copy_twice(const float *restrict in, float *restrict out, long n) {
  for (long i = 0; i < n; i++) out[i] = 2.0f * in[i];
}

int main(int argc, char **argv) {
  if (argc != 3 || atol(argv[1]) < 1)
    return fprintf(stderr, "usage: stream_copy_c N REPEAT\n"), 2;
  long n = atol(argv[1]);
  int rep = atoi(argv[2]);
  float *in = peer_random(n, 1), *out = peer_alloc(n);
  double *t = malloc((size_t)rep * sizeof *t);
  for (int r = 0; r < rep; r++) {
    double t0 = peer_now();
    copy_twice(in, out, n);
    t[r] = peer_now() - t0;
  }
  printf("seconds=%.9f check=%.6g\n", peer_median(t, rep), (double)out[n / 2 + 3]);
  return 0;
}
