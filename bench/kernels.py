"""bench/kernels.py: the kernel benchmarks of bench/run: GEMM and conv2d against OpenBLAS and
gcc -O3 C loops, all measured in the same run, each figure also a fraction of the machine's
FMA peak (bench/peers/fma_peak.c); the int8 GEMM with AVX-512 VNNI against both; then TOPI's
operators with TOPI's CPU schedules
(bench/kernels/topi.tes) against C loops and OpenBLAS, on one thread.

The peers are built here with the system's cc (-O3 -march=native). OpenBLAS runs with
OPENBLAS_CORETYPE=SkylakeX: Debian's 0.3.21 does not recognise this CPU and would otherwise use
its SSE3 kernels, a fifth of its real speed. tes's own rows come from bench/kernels/*.tes,
which build with tvm.build and time with time_evaluator; while tvm.build is not there the
rows say so instead of a figure.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, 'bench', 'peers')
OUT = os.path.join(ROOT, 'build', 'bench')
GEMM = (1024, 1024, 1024)
CONV = (256, 14, 14, 256, 3, 1)  # C H W F KH PAD: ResNet-18 layer 9
STAGES = ['baseline', 'blocking', 'vectorize', 'permute', 'packing', 'cache', 'parallel',
          'regtile']
THREADED = ('parallel', 'regtile')  # stages measured on 1 and 2 threads
# TOPI operators with TOPI's CPU schedules (bench/kernels/topi.tes), 1 thread, against
# single-threaded peers: (tes row, peer command, target speed-up, workload)
TOPI = [('topi_softmax', ['softmax_c', '512', '512'], 1.0, 'softmax 512x512, axis 1'),
        ('topi_row_sum', ['row_sum_c', '4096', '4096'], 1.0, 'sum 4096x4096, axis 1'),
        ('topi_conv2d', ['blas_conv2d'] + [str(x) for x in CONV], 0.8,
         'conv2d_nchw ResNet-18 layer 9 vs OpenBLAS im2col+sgemm'),
        ('topi_depthwise', ['depthwise_c', '256', '96', '96', '3', '1'], 1.0,
         'depthwise_conv2d_nchw [1,256,96,96]x[256,1,3,3]')]


def build_peers():
    os.makedirs(OUT, exist_ok=True)
    flags = ['-O3', '-march=native', '-Wall', '-Wextra', '-I', PEERS]
    jobs = [('fma_peak', ['-pthread']), ('gemm_c', ['-fopenmp']),
            ('blas_sgemm', ['-lopenblas']), ('blas_conv2d', ['-lopenblas']),
            ('softmax_c', ['-lm']), ('row_sum_c', []), ('depthwise_c', [])]
    for name, extra in jobs:
        src = os.path.join(PEERS, name + '.c')
        exe = os.path.join(OUT, name)
        if os.path.exists(exe) and os.path.getmtime(exe) > max(
                os.path.getmtime(src), os.path.getmtime(os.path.join(PEERS, 'peer.h'))):
            continue
        cmd = ['cc'] + flags + ['-o', exe, src] + extra
        p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit('bench: building %s failed:\n%s' % (name, p.stderr))


def run(cmd, threads):
    env = dict(os.environ, OPENBLAS_CORETYPE='SkylakeX', OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads), TES_NUM_THREADS=str(threads))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'failed'
    fields = dict(re.findall(r'(\w+)=(\S+)', p.stdout))
    return fields, None


def gflops(flops, seconds):
    return flops / seconds * 1e-9


def tes_rows(tes, threads):
    """{name: (gflops or None, reason)} from the tes kernel scripts, for `threads` threads."""
    rows = {}
    kdir = os.path.join(ROOT, 'bench', 'kernels')
    for name in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
        if not name.endswith('.tes'):
            continue
        env = dict(os.environ, TES_NUM_THREADS=str(threads))
        p = subprocess.run([tes, os.path.join(kdir, name)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
        if p.returncode:
            err = [l for l in p.stderr.splitlines() if 'error' in l]
            reason = err[0].split('error: ', 1)[-1] if err else 'failed'
            rows[name[:-4]] = (None, reason)
            continue
        for key, secs in re.findall(r'(\S+) seconds=(\S+)', p.stdout):
            rows[key] = (float(secs), None)
        if not p.stdout.strip():
            rows[name[:-4]] = (None, 'printed nothing')
    return rows


def main(tes, repeat):
    build_peers()
    m, n, k = GEMM
    gemm_flops = 2.0 * m * n * k
    c, h, w, f, kh, pad = CONV
    oh, ow = h + 2 * pad - kh + 1, w + 2 * pad - kh + 1
    conv_flops = 2.0 * f * oh * ow * c * kh * kh
    table = []  # (kernel, threads, gflops or None, note, peer gflops for the ratio)
    peak = {}
    for t in (1, 2):
        res, err = run([os.path.join(OUT, 'fma_peak'), str(t)], t)
        peak[t] = float(res['gflops']) if res else None
        table.append(('FMA peak (%s-bit)' % (int(res['lanes']) * 32 if res else '?'), t,
                      peak[t], err or '', None))
    blas = {}
    for t in (1, 2):
        res, err = run([os.path.join(OUT, 'blas_sgemm'), str(m), str(n), str(k), str(repeat)], t)
        blas[t] = gflops(gemm_flops, float(res['seconds'])) if res else None
        table.append(('OpenBLAS sgemm %dx%dx%d' % GEMM, t, blas[t], err or 'SkylakeX kernels',
                      None))
    tes1 = tes_rows(tes, 1) if tes else {}
    tes2 = tes_rows(tes, 2) if tes else {}
    for stage in STAGES:
        threads = (1, 2) if stage in THREADED else (1,)
        for t in threads:
            res, err = run([os.path.join(OUT, 'gemm_c'), stage, str(repeat)], t)
            g = gflops(gemm_flops, float(res['seconds'])) if res else None
            table.append(('gcc -O3 opt_gemm %s' % stage, t, g, err or '', blas[t]))
            trows = tes1 if t == 1 else tes2
            secs, reason = trows.get('opt_gemm_' + stage, (None, 'no tes kernel script'))
            if 'opt_gemm' in trows and not secs:
                secs, reason = trows['opt_gemm']
            table.append(('tes opt_gemm %s' % stage, t,
                          gflops(gemm_flops, secs) if secs else None, reason or '', blas[t]))
    cblas = {}
    for t in (1, 2):
        res, err = run([os.path.join(OUT, 'blas_conv2d')] + [str(x) for x in CONV] +
                       [str(repeat)], t)
        cblas[t] = gflops(conv_flops, float(res['seconds'])) if res else None
        table.append(('OpenBLAS im2col+sgemm conv2d', t, cblas[t], err or 'ResNet-18 layer 9',
                      None))
        trows = tes1 if t == 1 else tes2
        secs, reason = trows.get('conv2d', (None, 'no tes kernel script'))
        table.append(('tes conv2d NCHW', t, gflops(conv_flops, secs) if secs else None,
                      reason or 'pad + kernel pack + conv + unpack', cblas[t]))
    print_table(table, peak)
    int8_table(tes, tes1, blas[1])
    topi_table(tes1, max(repeat, 20))
    secs, reason = tes1.get('jit_latency', (None, 'no tes kernel script'))
    print('\ntes JIT latency, tvm.build to callable, opt_gemm final schedule: %s (target < 50 ms)'
          % ('%.1f ms' % (secs * 1e3) if secs else reason))


def int8_table(tes, tes1, blas1):
    """The int8 GEMM tensorized with AVX-512 VNNI (examples/int8_gemm_vnni.tes), 1 thread,
    against tes's own float32 GEMM (opt_gemm regtile) and OpenBLAS sgemm: the same 2*M*N*K
    operations, so the speed-up is the ratio of the times (target: >= 2 over tes float32)."""
    m, n, k = GEMM
    ops = 2.0 * m * n * k
    secs, reason = None, 'no tes binary'
    if tes:
        env = dict(os.environ, TES_NUM_THREADS='1')
        p = subprocess.run([tes, os.path.join(ROOT, 'examples', 'int8_gemm_vnni.tes'), str(m),
                            str(n), str(k)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
        found = re.findall(r'int8_gemm_vnni seconds=(\S+)', p.stdout)
        if found:
            secs, reason = float(found[0]), None
        else:
            err = [l for l in p.stderr.splitlines() if 'error' in l]
            reason = err[0].split('error: ', 1)[-1] if err else 'failed'
    f32, _ = tes1.get('opt_gemm_regtile', (None, None))
    print('\nint8 GEMM %dx%dx%d (uint8 x int8 -> int32, AVX-512 VNNI), 1 thread:' % GEMM)
    if not secs:
        print('  tes int8 VNNI: %s' % reason)
        return
    print('  %-34s %9.1f GOP/s' % ('tes int8 VNNI', gflops(ops, secs)))
    if f32:
        print('  %-34s %9.1f GFLOP/s  int8 speed-up %.2f (target >= 2)' % (
            'tes float32 (opt_gemm regtile)', gflops(ops, f32), f32 / secs))
    if blas1:
        print('  %-34s %9.1f GFLOP/s  int8 speed-up %.2f' % ('OpenBLAS sgemm', blas1,
                                                             gflops(ops, secs) / blas1))


def topi_table(tes1, repeat):
    """TOPI's operators against their peers, 1 thread; speed-up = peer time / tes time."""
    print('\n%-16s %12s %-12s %12s %9s %7s  %s' % ('TOPI kernel', 'tes median', 'peer',
                                                   'peer median', 'speed-up', 'target',
                                                   'workload'))
    for name, cmd, target, what in TOPI:
        res, err = run([os.path.join(OUT, cmd[0])] + cmd[1:] + [str(repeat)], 1)
        peer = float(res['seconds']) if res else None
        secs, reason = tes1.get(name, (None, 'no tes kernel script'))
        ratio = '%9.2f' % (peer / secs) if peer and secs else '%9s' % '-'
        print('%-16s %12s %-12s %12s %s %7s  %s' % (
            name, '%.3f ms' % (secs * 1e3) if secs else '-', cmd[0],
            '%.3f ms' % (peer * 1e3) if peer else '-', ratio, '>= %.1f' % target,
            what if secs and peer else (reason or err)))


def print_table(table, peak):
    print('%-36s %7s %9s %9s %12s  %s' % ('kernel', 'threads', 'GFLOP/s', '% peak',
                                          'vs OpenBLAS', 'note'))
    for name, t, g, note, peer in table:
        gs = '%9.1f' % g if g else '%9s' % '-'
        pk = '%8.0f%%' % (100 * g / peak[t]) if g and peak.get(t) else '%9s' % ''
        ratio = '%12.2f' % (g / peer) if g and peer else '%12s' % ''
        print('%-36s %7d %s %s %s  %s' % (name, t, gs, pk, ratio, note))
