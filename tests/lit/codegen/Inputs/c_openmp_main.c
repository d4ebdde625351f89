/* c_openmp_main.c: calls target_c_openmp.tes's par_checks (the c target's C, compiled with
 * OpenMP) in bounds and out of bounds, and prints what it returns and computes. */
#include <stdint.h>
#include <stdio.h>

int32_t par_checks(float *restrict A, float *restrict B, int32_t n);

int main(void) {
  float a[10], b[16];
  for (int i = 0; i < 10; i++) a[i] = (float)(i * 7 % 10) - 4.5f;
  int32_t status = par_checks(a, b, 7);
  int bad = 0;
  for (int i = 0; i < 7; i++) bad += b[i] != (a[i] + 1.0f) * 2.0f;
  printf("n = 7: status %d, %d wrong\n", (int)status, bad);
  printf("n = 16: status %d\n", (int)par_checks(a, b, 16));
  return 0;
}
