/* export_main.c: a C program against the library export_library.tes makes: calls scale_add
 * (C = A * B + 1 over n rows of 64, its rows parallel) and scale_add_packed, and checks both
 * against a plain loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libscale.h"

static float *aligned_floats(size_t n) {
  float *p = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  memset(p, 0, n * sizeof(float));
  return p;
}

int main(void) {
  int32_t n = 37;
  float *a = aligned_floats((size_t)n * 64), *b = aligned_floats(64),
        *c = aligned_floats((size_t)n * 64);
  unsigned seed = 12345;
  for (int i = 0; i < n * 64; i++)
    a[i] = (float)((seed = seed * 1103515245u + 12345u) >> 16 & 1023) / 512.0f - 1.0f;
  for (int j = 0; j < 64; j++) b[j] = (float)j / 16.0f - 2.0f;
  int bad = 0;
  int32_t rc = scale_add(a, b, c, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 64; j++) bad += c[i * 64 + j] != a[i * 64 + j] * b[j] + 1.0f;
  memset(c, 0, (size_t)n * 64 * sizeof(float));
  void *args[4] = {&a, &b, &c, &n};
  int32_t rc2 = scale_add_packed(args);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 64; j++) bad += c[i * 64 + j] != a[i * 64 + j] * b[j] + 1.0f;
  printf("rc %d %d, %d wrong of %d\n", rc, rc2, bad, 2 * n * 64);
  free(a), free(b), free(c);
  return bad != 0;
}
