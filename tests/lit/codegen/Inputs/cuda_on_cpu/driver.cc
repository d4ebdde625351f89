// driver.cc of the CPU emulation of CUDA kernels (cuda_tensorcore_on_cpu.tes): runs kernel
// KERNEL(half *, half *, float *) (the generated CUDA C, compiled with this folder's
// cuda_fp16.h and mma.h) over its grid, block after block, each thread of a block a host
// thread, and compares its output with the expected one (.npy files written by tes).
//
//   driver A.npy B.npy EXPECTED.npy GX GY GZ BX BY BZ
//
// Prints "ok: N elements" when every element is within 1e-3 + 1e-3 * |expected|, else the
// first mismatch; unwritten elements stay NaN, so they mismatch.
#include <pthread.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

struct tes_dim3 {
  unsigned x, y, z;
};
thread_local tes_dim3 threadIdx, blockIdx;
tes_dim3 blockDim;
static pthread_barrier_t barrier;

extern "C" void tes_syncthreads(void) { pthread_barrier_wait(&barrier); }
extern "C" void KERNEL(_Float16 *, _Float16 *, float *);

// The data of a little-endian .npy file (version 1 or 2), or exits.
static std::vector<char> load_npy(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) perror(path), exit(2);
  std::vector<char> all;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) all.insert(all.end(), buf, buf + n);
  fclose(f);
  if (all.size() < 12 || memcmp(all.data(), "\x93NUMPY", 6) != 0)
    fprintf(stderr, "%s: not a .npy file\n", path), exit(2);
  size_t header = all[6] == 1 ? 10 + (unsigned char)all[8] + 256 * (unsigned char)all[9]
                              : 12 + (unsigned char)all[8] + 256 * (unsigned char)all[9];
  return std::vector<char>(all.begin() + header, all.end());
}

int main(int argc, char **argv) {
  if (argc != 10) return fprintf(stderr, "usage: driver A B EXPECTED GX GY GZ BX BY BZ\n"), 2;
  std::vector<char> a = load_npy(argv[1]), b = load_npy(argv[2]), e = load_npy(argv[3]);
  unsigned g[3], d[3];
  for (int i = 0; i < 3; i++) g[i] = atoi(argv[4 + i]), d[i] = atoi(argv[7 + i]);
  blockDim = {d[0], d[1], d[2]};
  size_t n = e.size() / sizeof(float);
  const float *want = (const float *)e.data();
  std::vector<float> out(n, NAN);
  unsigned threads = d[0] * d[1] * d[2];
  for (unsigned bz = 0; bz < g[2]; bz++)
    for (unsigned by = 0; by < g[1]; by++)
      for (unsigned bx = 0; bx < g[0]; bx++) {
        pthread_barrier_init(&barrier, nullptr, threads);
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < threads; t++)
          ts.emplace_back([&, t] {
            blockIdx = {bx, by, bz};
            threadIdx = {t % d[0], t / d[0] % d[1], t / d[0] / d[1]};
            KERNEL((_Float16 *)a.data(), (_Float16 *)b.data(), out.data());
          });
        for (auto &th : ts) th.join();
        pthread_barrier_destroy(&barrier);
      }
  for (size_t i = 0; i < n; i++)
    if (!(std::fabs(out[i] - want[i]) <= 1e-3f + 1e-3f * std::fabs(want[i])))
      return printf("MISMATCH at %zu: got %g, want %g\n", i, out[i], want[i]), 1;
  printf("ok: %zu elements\n", n);
  return 0;
}
