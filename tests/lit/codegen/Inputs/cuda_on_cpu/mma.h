/* mma.h of the CPU emulation of CUDA kernels (cuda_tensorcore_on_cpu.tes): nvcuda::wmma as
 * plain loops. A warp's fragment is spread over its 32 lanes on a GPU; here every lane holds the
 * whole tile. Loads and fills are done by every lane; the product by lane 0 only (the others'
 * accumulators are then stale) and the store by lane 0 only, so the warp writes the tile once,
 * as the GPU's collective store does. */
#ifndef TES_CUDA_ON_CPU_MMA_H
#define TES_CUDA_ON_CPU_MMA_H
#include "cuda_fp16.h"
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K> struct tile {};
template <int M, int N, int K> struct tile<matrix_a, M, N, K> {
  enum { rows = M, cols = K };
};
template <int M, int N, int K> struct tile<matrix_b, M, N, K> {
  enum { rows = K, cols = N };
};
template <int M, int N, int K> struct tile<accumulator, M, N, K> {
  enum { rows = M, cols = N };
};

template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
  enum { rows = tile<Use, M, N, K>::rows, cols = tile<Use, M, N, K>::cols };
  T x[rows * cols]; /* row-major */
};

template <class Use, int M, int N, int K, class T, class L>
void fill_fragment(fragment<Use, M, N, K, T, L> &f, T v) {
  for (int i = 0; i < f.rows * f.cols; i++) f.x[i] = v;
}

template <class Use, int M, int N, int K, class T, class L>
void load_tile(fragment<Use, M, N, K, T, L> &f, const T *p, unsigned ldm, bool col) {
  for (int r = 0; r < f.rows; r++)
    for (int c = 0; c < f.cols; c++) f.x[r * f.cols + c] = col ? p[c * ldm + r] : p[r * ldm + c];
}

template <class Use, int M, int N, int K, class T>
void load_matrix_sync(fragment<Use, M, N, K, T, row_major> &f, const T *p, unsigned ldm) {
  load_tile(f, p, ldm, false);
}
template <class Use, int M, int N, int K, class T>
void load_matrix_sync(fragment<Use, M, N, K, T, col_major> &f, const T *p, unsigned ldm) {
  load_tile(f, p, ldm, true);
}
template <int M, int N, int K, class T>
void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const T *p, unsigned ldm,
                      layout_t l) {
  load_tile(f, p, ldm, l == mem_col_major);
}

template <int M, int N, int K, class T>
void store_matrix_sync(T *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm,
                       layout_t l) {
  if (tes_lane() != 0) return;
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++) (l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = f.x[r * N + c];
}

template <int M, int N, int K, class TA, class LA, class LB, class TC>
void mma_sync(fragment<accumulator, M, N, K, TC> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
              const fragment<matrix_b, M, N, K, TA, LB> &b,
              const fragment<accumulator, M, N, K, TC> &c) {
  if (tes_lane() != 0) return;
  TC out[M * N];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = (float)c.x[i * N + j];
      for (int k = 0; k < K; k++) s += (float)a.x[i * K + k] * (float)b.x[k * N + j];
      out[i * N + j] = (TC)s;
    }
  for (int i = 0; i < M * N; i++) d.x[i] = out[i];
}
} // namespace wmma
} // namespace nvcuda
#endif
