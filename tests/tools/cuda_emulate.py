#!/usr/bin/env python3
"""cuda_emulate.py: runs a kernel of tes's CUDA C on the CPU, to check the semantics of what
the cuda target generates (warp shuffles, shared memory, barriers) where there is no GPU.

    cuda_emulate.py DIR

DIR holds what a test script wrote: kernel.cu (the module's CUDA C, one kernel), launch.txt
(the host source: `NAME<<<dim3(gx, gy, gz), dim3(bx, by, bz)>>>(BUF, ...);`), BUF.npy for
every buffer (float32 or int32, its contents before the launch) and BUF.expect.npy for the
buffers to check. Each CUDA thread of a block is a host thread: __syncthreads() is a barrier
of the block, a warp's shuffles meet at a barrier of its lanes (the lanes that exist: a block
of 48 threads has a second warp of 16), __activemask() is the lanes that exist, a shuffle
from a lane that does not exist reads a poison value (1e30), so a kernel that uses one shows
it. Blocks run one after another, so a __shared__ array is a static. Prints `ok NAME` or the
first mismatches and exits 1. Needs g++ (C++20)."""
import os
import re
import struct
import subprocess
import sys
import tempfile

HARNESS = r'''
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

struct Dim { unsigned x = 1, y = 1, z = 1; };
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim, gridDim;
static std::barrier<> *block_barrier;
struct Warp { std::barrier<> *bar; unsigned long long slot[32]; unsigned mask; };
static std::vector<Warp> warps;
static thread_local int lane_id, warp_id;

static void __syncthreads() { block_barrier->arrive_and_wait(); }
static unsigned __activemask() { return warps[warp_id].mask; }
static float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }

template <class T> static T exchange(unsigned mask, T v, int src) {
  Warp &w = warps[warp_id];
  memcpy(&w.slot[lane_id], &v, sizeof v);
  w.bar->arrive_and_wait();
  T r = (T)1e30;
  if (src >= 0 && src < 32 && (w.mask >> src & 1) && (mask >> src & 1))
    memcpy(&r, &w.slot[src], sizeof r);
  w.bar->arrive_and_wait();
  return r;
}
template <class T> static T __shfl_down_sync(unsigned mask, T v, int off, int width) {
  int seg = lane_id - lane_id % width;
  return lane_id + off < seg + width ? exchange(mask, v, lane_id + off) : exchange(mask, v, lane_id);
}
template <class T> static T __shfl_sync(unsigned mask, T v, int src, int width) {
  int seg = lane_id - lane_id % width;
  return exchange(mask, v, seg + src % width);
}

#define __global__
#define __device__
#define __shared__ static
#define __launch_bounds__(n)
#define __restrict__
namespace kern {
#include "kernel.cu"
}
#undef __shared__

static void *load(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(*n + 1);
  if (fread(p, 1, *n, f) != *n) abort();
  fclose(f);
  return p;
}

int main(int argc, char **argv) {
  gridDim = {GX, GY, GZ};
  blockDim = {BX, BY, BZ};
  size_t sizes[NBUF];
  void *bufs[NBUF];
  for (int i = 0; i < NBUF; i++) bufs[i] = load(argv[1 + i], &sizes[i]);
  int nthreads = BX * BY * BZ, nwarps = (nthreads + 31) / 32;
  for (unsigned bz = 0; bz < GZ; bz++)
    for (unsigned by = 0; by < GY; by++)
      for (unsigned bx = 0; bx < GX; bx++) {
        std::barrier<> bar(nthreads);
        block_barrier = &bar;
        warps.assign(nwarps, Warp{});
        for (int w = 0; w < nwarps; w++) {
          int lanes = nthreads - 32 * w < 32 ? nthreads - 32 * w : 32;
          warps[w].bar = new std::barrier<>(lanes);
          warps[w].mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        }
        std::vector<std::thread> ts;
        for (int t = 0; t < nthreads; t++)
          ts.emplace_back([&, t] {
            threadIdx = {(unsigned)(t % BX), (unsigned)(t / BX % BY), (unsigned)(t / (BX * BY))};
            blockIdx = {bx, by, bz};
            lane_id = t % 32;
            warp_id = t / 32;
            kern::KERNEL(ARGS);
          });
        for (auto &th : ts) th.join();
        for (int w = 0; w < nwarps; w++) delete warps[w].bar;
      }
  for (int i = 0; i < NBUF; i++) {
    FILE *f = fopen(argv[1 + i], "wb");
    fwrite(bufs[i], 1, sizes[i], f);
    fclose(f);
  }
  return 0;
}
'''


def read_npy(path):
    data = open(path, 'rb').read()
    assert data[:6] == b'\x93NUMPY', path
    hlen = struct.unpack('<H', data[8:10])[0]
    header = data[10:10 + hlen].decode()
    kind = re.search(r"'descr': '([^']+)'", header).group(1)
    fmt = {'<f4': 'f', '<i4': 'i'}[kind]
    body = data[10 + hlen:]
    return fmt, list(struct.unpack('<%d%s' % (len(body) // 4, fmt), body))


def main():
    d = sys.argv[1]
    launch = open(os.path.join(d, 'launch.txt')).read()
    m = re.search(r'(\w+)<<<dim3\(([^)]*)\), dim3\(([^)]*)\)>>>\(([^)]*)\);', launch)
    if not m:
        sys.exit('cuda_emulate: no launch line in launch.txt')
    kernel, grid, block, names = m.group(1), m.group(2), m.group(3), m.group(4)
    names = [n.strip() for n in names.split(',') if n.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        binfiles, kinds = [], []
        args = []
        for i, n in enumerate(names):
            fmt, vals = read_npy(os.path.join(d, n + '.npy'))
            path = os.path.join(tmp, n + '.bin')
            open(path, 'wb').write(struct.pack('<%d%s' % (len(vals), fmt), *vals))
            binfiles.append(path)
            kinds.append(fmt)
            args.append('(%s *)bufs[%d]' % ('float' if fmt == 'f' else 'int', i))
        g = [x.strip() for x in grid.split(',')]
        b = [x.strip() for x in block.split(',')]
        src = HARNESS
        for k, v in (('GX', g[0]), ('GY', g[1]), ('GZ', g[2]), ('BX', b[0]), ('BY', b[1]),
                     ('BZ', b[2]), ('NBUF', str(len(names))), ('KERNEL', kernel),
                     ('ARGS', ', '.join(args))):
            src = re.sub(r'\b%s\b' % k, v, src)
        open(os.path.join(tmp, 'kernel.cu'), 'w').write(open(os.path.join(d, 'kernel.cu')).read())
        open(os.path.join(tmp, 'main.cc'), 'w').write(src)
        exe = os.path.join(tmp, 'main')
        subprocess.run(['g++', '-std=c++20', '-O1', '-pthread', '-w', '-o', exe,
                        os.path.join(tmp, 'main.cc')], check=True)
        subprocess.run([exe] + binfiles, check=True)
        bad = 0
        for i, n in enumerate(names):
            expect = os.path.join(d, n + '.expect.npy')
            if not os.path.exists(expect):
                continue
            fmt, want = read_npy(expect)
            raw = open(binfiles[i], 'rb').read()
            got = struct.unpack('<%d%s' % (len(raw) // 4, kinds[i]), raw)
            errs = [(j, g_, w) for j, (g_, w) in enumerate(zip(got, want))
                    if not abs(g_ - w) <= 1e-4 * max(1.0, abs(w))]
            if errs:
                bad += 1
                for j, g_, w in errs[:5]:
                    print('%s[%d] = %r, expected %r' % (n, j, g_, w))
            else:
                print('ok', n)
        sys.exit(1 if bad else 0)


main()
