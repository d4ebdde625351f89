#!/usr/bin/env python3
"""cuda_emulate.py: runs the host function of tes's cuda target with its kernels on the CPU, to
check the semantics of what the cuda target generates (warp shuffles, shared memory, barriers,
kernels in sequence, host allocations) where there is no GPU.

    cuda_emulate.py DIR

DIR holds what a test script wrote: kernel.cu (the module's CUDA C), launch.txt (the host
source, `f.get_source()`: launches `NAME<<<dim3(gx, gy, gz), dim3(bx, by, bz)>>>(ARGS);`,
device memory the host allocates (`T* NAME; // device memory of N elements`), and the serial
loops and conditions around them), BUF.npy for every buffer argument (its contents before the
call; float32, float64, int8, uint8, int16, int32 or int64), BUF.expect.npy for the buffers to
check, and optionally scalars.txt (`NAME VALUE` lines: the values of the shape variables the
host source reads) and tolerance.txt (`RTOL ATOL`: a float element passes where
|got - want| <= ATOL + RTOL * |want|, NaN equal to NaN; integers compare exactly; without the
file, floats pass within 1e-4 * max(1, |want|)).

The host source runs as C++: a launch runs its blocks one after another, each CUDA thread of a
block a host thread: __syncthreads() is a barrier of the block, a warp's shuffles meet at a
barrier of its lanes (the lanes that exist: a block of 48 threads has a second warp of 16),
__activemask() is the lanes that exist, a shuffle from a lane that does not exist reads a
poison value (1e30), so a kernel that uses one shows it. A kernel with no barrier and no
shuffle runs its threads one after another on one host thread. A __shared__ array is a static
(blocks run in turn); device memory the host allocates starts as bytes 0xff (NaN, or -1), so
a read of an element no kernel wrote shows. Prints `ok NAME` for each buffer checked or the
first mismatches and exits 1. Needs g++ (C++20)."""
import os
import re
import struct
import subprocess
import sys
import tempfile

HARNESS = r'''
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Dim { unsigned x = 1, y = 1, z = 1; };
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim, gridDim;
static pthread_barrier_t block_barrier;
struct Warp { pthread_barrier_t bar; unsigned long long slot[32]; unsigned mask; };
static Warp warps[32];
static thread_local int lane_id, warp_id;

static void __syncthreads() { pthread_barrier_wait(&block_barrier); }
static unsigned __activemask() { return warps[warp_id].mask; }
static float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }

template <class T> static T exchange(unsigned mask, T v, int src) {
  Warp &w = warps[warp_id];
  memcpy(&w.slot[lane_id], &v, sizeof v);
  pthread_barrier_wait(&w.bar);
  T r = (T)1e30;
  if (src >= 0 && src < 32 && (w.mask >> src & 1) && (mask >> src & 1))
    memcpy(&r, &w.slot[src], sizeof r);
  pthread_barrier_wait(&w.bar);
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

static Dim dim3(long long x, long long y, long long z) {
  if (x < 1 || y < 1 || z < 1) {
    fprintf(stderr, "cuda_emulate: a launch of %lld x %lld x %lld\n", x, y, z);
    exit(2);
  }
  return Dim{(unsigned)x, (unsigned)y, (unsigned)z};
}

template <class F> struct Thread {
  F *kernel;
  Dim block, bidx;
  unsigned t;
  static void *run(void *p) {
    Thread *th = (Thread *)p;
    unsigned t = th->t;
    threadIdx = {t % th->block.x, t / th->block.x % th->block.y, t / (th->block.x * th->block.y)};
    blockIdx = th->bidx;
    lane_id = t % 32;
    warp_id = t / 32;
    (*th->kernel)();
    return NULL;
  }
};

/* (pthreads, not <thread> and <barrier>, whose headers took most of a compile) */
template <class F> static void launch(Dim grid, Dim block, bool sequential, F kernel) {
  gridDim = grid;
  blockDim = block;
  unsigned nthreads = block.x * block.y * block.z, nwarps = (nthreads + 31) / 32;
  if (nthreads > 1024) {
    fprintf(stderr, "cuda_emulate: a block of %u threads\n", nthreads);
    exit(2);
  }
  static Thread<F> ths[1024];
  static pthread_t ids[1024];
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        for (unsigned t = 0; t < nthreads; t++) ths[t] = Thread<F>{&kernel, block, {bx, by, bz}, t};
        if (sequential) {
          for (unsigned t = 0; t < nthreads; t++) Thread<F>::run(&ths[t]);
          continue;
        }
        pthread_barrier_init(&block_barrier, NULL, nthreads);
        for (unsigned w = 0; w < nwarps; w++) {
          unsigned lanes = nthreads - 32 * w < 32 ? nthreads - 32 * w : 32;
          pthread_barrier_init(&warps[w].bar, NULL, lanes);
          warps[w].mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        }
        for (unsigned t = 0; t < nthreads; t++)
          if (pthread_create(&ids[t], NULL, Thread<F>::run, &ths[t]) != 0) {
            fprintf(stderr, "cuda_emulate: no thread\n");
            exit(2);
          }
        for (unsigned t = 0; t < nthreads; t++) pthread_join(ids[t], NULL);
        for (unsigned w = 0; w < nwarps; w++) pthread_barrier_destroy(&warps[w].bar);
        pthread_barrier_destroy(&block_barrier);
      }
}

static void *device_alloc(long long bytes) {
  void *p = malloc(bytes > 0 ? (size_t)bytes : 1);
  memset(p, 0xff, bytes > 0 ? (size_t)bytes : 1);
  return p;
}

#define __global__
#define __device__
#define __shared__ static
#define __launch_bounds__(n)
#define __restrict__
namespace kern {
#include "kernel.cu"
#undef __shared__
void host(void **bufs) {
BUFFERS
HOST
}
}

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
  size_t sizes[NBUF + 1];
  void *bufs[NBUF + 1];
  for (int i = 0; i < NBUF; i++) bufs[i] = load(argv[1 + i], &sizes[i]);
  kern::host(bufs);
  for (int i = 0; i < NBUF; i++) {
    FILE *f = fopen(argv[1 + i], "wb");
    fwrite(bufs[i], 1, sizes[i], f);
    fclose(f);
  }
  return 0;
}
'''

# npy descr: (struct format, C type of the kernel's prelude)
DTYPES = {'<f4': ('f', 'float'), '<f8': ('d', 'double'), '|i1': ('b', 'int8_t'),
          '|u1': ('B', 'uint8_t'), '<i2': ('h', 'int16_t'), '<i4': ('i', 'int32_t'),
          '<i8': ('q', 'int64_t'), '|b1': ('?', 'bool')}


def read_npy(path):
    data = open(path, 'rb').read()
    assert data[:6] == b'\x93NUMPY', path
    if data[6] == 1:
        hlen, start = struct.unpack('<H', data[8:10])[0], 10
    else:
        hlen, start = struct.unpack('<I', data[8:12])[0], 12
    header = data[start:start + hlen].decode()
    kind = re.search(r"'descr': '([^']+)'", header).group(1)
    fmt = DTYPES[kind][0]
    body = data[start + hlen:]
    size = struct.calcsize(fmt)
    return kind, list(struct.unpack('<%d%s' % (len(body) // size, fmt), body))


LAUNCH = re.compile(r'^(\s*)(\w+)<<<(.*)>>>\((.*)\);\s*$')
ALLOC = re.compile(r'^(\s*)([\w ]+)\* (\w+); // device memory of (.*) elements \(allocs\[\d+\]\)$')


def host_body(launch, syncing):
    """The host source as C++: launches through launch() (the kernels in syncing run a host
    thread a CUDA thread, the others one thread after another), allocations through
    device_alloc()."""
    out = []
    for line in launch.splitlines():
        m = LAUNCH.match(line)
        if m:
            out.append('%slaunch(%s, %s, [&] { %s(%s); });' % (
                m.group(1), m.group(3), 'false' if m.group(2) in syncing else 'true',
                m.group(2), m.group(4)))
            continue
        m = ALLOC.match(line)
        if m:
            ind, t, name, n = m.groups()
            out.append('%s%s *%s = (%s *)device_alloc((long long)(%s) * (long long)sizeof(%s));'
                       % (ind, t, name, t, n, t))
            continue
        out.append(line)
    return '\n'.join(out)


def close(g, w, tol, is_float):
    if not is_float:
        return g == w
    if w != w or g != g:
        return w != w and g != g
    if tol is None:
        return abs(g - w) <= 1e-4 * max(1.0, abs(w))
    if abs(w) == float('inf') or abs(g) == float('inf'):
        return g == w
    return abs(g - w) <= tol[1] + tol[0] * abs(w)


def main():
    d = sys.argv[1]
    launch = open(os.path.join(d, 'launch.txt')).read()
    if '<<<' not in launch:
        sys.exit('cuda_emulate: no launch in launch.txt')
    kernel_src = open(os.path.join(d, 'kernel.cu')).read()
    # a kernel's text runs from its name to the next kernel
    syncing = set()
    parts = re.split(r'__global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', kernel_src)
    for name, text in zip(parts[1::2], parts[2::2]):
        if re.search(r'__syncthreads|__shfl|__activemask', text):
            syncing.add(name)
    body = host_body(launch, syncing)
    words = set(re.findall(r'\b[A-Za-z_]\w*\b', body))
    names = sorted(n for n in words if os.path.exists(os.path.join(d, n + '.npy'))
                   and not n.endswith('.expect'))
    scalars = []
    sp = os.path.join(d, 'scalars.txt')
    if os.path.exists(sp):
        scalars = [l.split() for l in open(sp).read().splitlines() if l.strip()]
    tol = None
    tp = os.path.join(d, 'tolerance.txt')
    if os.path.exists(tp):
        tol = tuple(float(x) for x in open(tp).read().split())
    with tempfile.TemporaryDirectory() as tmp:
        binfiles, kinds, decls = [], [], []
        for i, n in enumerate(names):
            kind, vals = read_npy(os.path.join(d, n + '.npy'))
            fmt, ctype = DTYPES[kind]
            path = os.path.join(tmp, n + '.bin')
            open(path, 'wb').write(struct.pack('<%d%s' % (len(vals), fmt), *vals))
            binfiles.append(path)
            kinds.append(kind)
            decls.append('  %s *%s = (%s *)bufs[%d];' % (ctype, n, ctype, i))
        for n, v in scalars:
            decls.append('  int32_t %s = %s;' % (n, v))
        src = HARNESS.replace('BUFFERS', '\n'.join(decls)).replace('HOST', body)
        src = src.replace('NBUF', str(len(names)))
        open(os.path.join(tmp, 'kernel.cu'), 'w').write(kernel_src)
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
            _, want = read_npy(expect)
            fmt = DTYPES[kinds[i]][0]
            raw = open(binfiles[i], 'rb').read()
            got = struct.unpack('<%d%s' % (len(raw) // struct.calcsize(fmt), fmt), raw)
            errs = [(j, g_, w) for j, (g_, w) in enumerate(zip(got, want))
                    if not close(g_, w, tol, fmt in 'fd')]
            if len(got) != len(want):
                errs.append((len(got), len(got), len(want)))
            if errs:
                bad += 1
                for j, g_, w in errs[:5]:
                    print('%s[%d] = %r, expected %r' % (n, j, g_, w))
            else:
                print('ok', n)
        sys.exit(1 if bad else 0)


main()
