/* export_mvec_main.c: a C program against the library export_library_mvec.tes makes: runs vexp
 * (B = exp(A), vectorized through libmvec) on random inputs in [-20, 20] and counts results
 * more than 4 ulp (libmvec's bound) from libm's expf. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvexp.h"

static float *aligned_floats(size_t n) {
  float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  memset(p, 0, n * sizeof(float));
  return p;
}

int main(void) {
  enum { N = 1024 };
  float *a = aligned_floats(N), *b = aligned_floats(N);
  unsigned seed = 2024;
  for (int i = 0; i < N; i++)
    a[i] = (float)((seed = seed * 1103515245u + 12345u) >> 8 & 0xffff) / 65535.0f * 40.0f - 20.0f;
  int32_t rc = vexp(a, b);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    float want = expf(a[i]);
    bad += !(fabsf(b[i] - want) <= 4.0f * (nextafterf(want, INFINITY) - want));
  }
  printf("rc %d, %d off by more than 4 ulp of %d\n", rc, bad, N);
  free(a), free(b);
  return bad != 0;
}
