/* gemm_ref.h: the plain-loop reference of the requantised GEMM the VTA unit tests run: out
 * (4 x 16 int8) is x (4 x 16) times w (16 x 16, rows are outputs) summed in int32, shifted right
 * by 2 and clipped to [0, 127]. True when every output matches. */
#ifndef TES_TEST_VTA_GEMM_REF_H
#define TES_TEST_VTA_GEMM_REF_H

#include <stdbool.h>
#include <stdint.h>

static bool gemm_shr_clip_matches(const int8_t *x, const int8_t *w, const int8_t *out) {
  bool ok = true;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) {
      int32_t s = 0;
      for (int k = 0; k < 16; k++) s += x[i * 16 + k] * w[j * 16 + k];
      s >>= 2;
      s = s < 0 ? 0 : s > 127 ? 127 : s;
      ok &= out[i * 16 + j] == s;
    }
  return ok;
}

#endif
