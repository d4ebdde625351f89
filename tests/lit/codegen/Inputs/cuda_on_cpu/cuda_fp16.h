/* cuda_fp16.h of the CPU emulation of CUDA kernels (cuda_tensorcore_on_cpu.tes): the built-ins
 * the generated CUDA C uses, for the host's C++ compiler. Each CUDA thread of a block is a host
 * thread (driver.cc); __shared__ arrays are static, which the threads of a block share since
 * blocks run one after another; __syncthreads is a barrier of the block's threads. No system
 * header is included: the kernel's prelude defines int8_t ... itself. */
#ifndef TES_CUDA_ON_CPU_FP16_H
#define TES_CUDA_ON_CPU_FP16_H
#define __global__
#define __device__
#define __launch_bounds__(n)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static
struct tes_dim3 {
  unsigned x, y, z;
};
extern thread_local tes_dim3 threadIdx, blockIdx;
extern tes_dim3 blockDim;
extern "C" void tes_syncthreads(void);
#define __syncthreads() tes_syncthreads()
static inline float __int_as_float(int i) {
  float f;
  __builtin_memcpy(&f, &i, 4);
  return f;
}
extern "C" double floor(double);
typedef _Float16 half; /* cuda_fp16.h's arithmetic, the host's own */
#define TES_VEC2(T, N)                                                                             \
  struct N##2 {                                                                                    \
    T x, y;                                                                                        \
  };
#define TES_VEC4(T, N)                                                                             \
  struct N##4 {                                                                                    \
    T x, y, z, w;                                                                                  \
  };
TES_VEC2(half, half) TES_VEC2(float, float) TES_VEC4(float, float) TES_VEC4(unsigned, uint)
TES_VEC2(unsigned, uint)
/* the thread's lane in its warp: its linear index in the block, modulo 32 */
static inline unsigned tes_lane(void) {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
}
#endif
