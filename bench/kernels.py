"""bench/kernels.py: the kernel benchmarks of bench/run: GEMM and conv2d against OpenBLAS,
Halide and gcc -O3 C loops, all measured in the same run, each figure also a fraction of the
machine's FMA peak (bench/peers/fma_peak.c); the int8 GEMM with AVX-512 VNNI against both; then
TOPI's operators with TOPI's CPU schedules (bench/kernels/topi.tes) against C loops, numpy and
OpenBLAS, on one thread.

Each peer runs at its best and its rows name it with its version:
- OpenBLAS runs once with OPENBLAS_CORETYPE unset and once for each of SkylakeX, Haswell, Zen
  and Cooperlake that the library accepts on this CPU (asked with OPENBLAS_VERBOSE=2; a kernel
  set it does not know, or one the CPU cannot run, is left out); the fastest is reported with
  the kernel set it was. (Unset, Debian's 0.3.21 picks its kernels from the CPU model: on CPUs
  newer than it knows that is its generic SSE3 "Prescott" set, several times slower.)
- numpy (softmax, row sum) and Halide (GEMM) run under the distribution's /usr/bin/python3
  with Debian's packages: apt-get install python3-numpy python3-halide. A peer that is not
  installed is skipped with the reason printed in its row.
- The FMA peak is measured with 256-bit and, where the CPU has AVX-512, 512-bit FMAs, and is
  the faster: some CPUs split a 512-bit FMA into two 256-bit halves.
The C peers are built here with the system's cc (-O3 -march=native). tes's own rows come from
bench/kernels/*.tes, which build with tvm.build and time with time_evaluator.
"""
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, 'bench', 'peers')
PYTHON = '/usr/bin/python3'  # the distribution's, with its numpy and Halide packages
CORETYPES = [None, 'SkylakeX', 'Haswell', 'Zen', 'Cooperlake']  # None: OPENBLAS_CORETYPE unset
OUT = os.path.join(ROOT, 'build', 'bench')
GEMM = (1024, 1024, 1024)
GEMM_SIZES = [256, 512, 1024, 2048, 4096]  # the sweep: square float32 GEMM, 1 and 2 threads
GEMM_SWEEP = 'gemm_sizes.tes'  # tes's kernel for the sweep, run by gemm_sweep() alone
GEMM_GOAL = 1.05  # the sweep's goal: tes / OpenBLAS at every size and thread count
CONV = (256, 14, 14, 256, 3, 1)  # C H W F KH PAD: ResNet-18 layer 9
STAGES = ['baseline', 'blocking', 'vectorize', 'permute', 'packing', 'cache', 'parallel',
          'regtile']
THREADED = ('parallel', 'regtile')  # stages measured on 1 and 2 threads
# TOPI operators with TOPI's CPU schedules (bench/kernels/topi.tes), 1 thread, against
# single-threaded peers: (tes row, peer command, target speed-up or None for a bound, workload)
# (a row per peer; a numpy peer is ['numpy', op, M, N])
TOPI = [('topi_softmax', ['softmax_c', '512', '512'], 1.0, 'softmax 512x512, axis 1'),
        ('topi_softmax', ['numpy', 'softmax', '512', '512'], 3.0, 'softmax 512x512, axis 1'),
        ('topi_row_sum', ['row_sum_c', '4096', '4096'], 1.0, 'sum 4096x4096, axis 1'),
        ('topi_row_sum', ['numpy', 'row_sum', '4096', '4096'], 1.0, 'sum 4096x4096, axis 1'),
        ('topi_conv2d', ['blas_conv2d'] + [str(x) for x in CONV], 0.8,
         'conv2d_nchw ResNet-18 layer 9 vs OpenBLAS im2col+sgemm'),
        ('topi_depthwise', ['depthwise_c', 'pad', '256', '96', '96', '3', '1'], 2.5,
         'depthwise_conv2d_nchw [1,256,96,96]x[256,1,3,3], peer pads first (np.pad)'),
        ('topi_depthwise', ['depthwise_c', 'direct', '256', '96', '96', '3', '1'], 1.0,
         'the same, peer reads its input directly'),
        ('topi_depthwise', ['stream_copy_c', str(256 * 96 * 96)], None,
         'bound: one pass over the input and the output'),
        ('topi_dense', ['blas_sgemm', '1024', '1024', '1024', 'nt'], 1.0,
         'dense_pack 1024x1024 x [1024,1024]^T vs sgemm CblasTrans')]


def cc_version():
    p = subprocess.run(['cc', '-dumpfullversion'], stdout=subprocess.PIPE, text=True)
    return 'gcc ' + p.stdout.strip() if p.returncode == 0 else 'cc'


def build_peers():
    os.makedirs(OUT, exist_ok=True)
    flags = ['-O3', '-march=native', '-Wall', '-Wextra', '-I', PEERS]
    jobs = [('fma_peak', ['-pthread']), ('fma_peak_256', ['-pthread', '-DFMA_WIDTH=256']),
            ('gemm_c', ['-fopenmp']), ('blas_sgemm', ['-lopenblas']),
            ('blas_conv2d', ['-lopenblas']), ('softmax_c', ['-lm']), ('row_sum_c', []),
            ('depthwise_c', []), ('stream_copy_c', [])]
    for name, extra in jobs:
        src = os.path.join(PEERS, name.replace('_256', '') + '.c')
        exe = os.path.join(OUT, name)
        if os.path.exists(exe) and os.path.getmtime(exe) > max(
                os.path.getmtime(src), os.path.getmtime(os.path.join(PEERS, 'peer.h')),
                os.path.getmtime(os.path.join(PEERS, 'blas_info.h')), os.path.getmtime(__file__)):
            continue
        cmd = ['cc'] + flags + ['-o', exe, src] + extra
        p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit('bench: building %s failed:\n%s' % (name, p.stderr))


def run(cmd, threads, coretype=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               TES_NUM_THREADS=str(threads), HL_NUM_THREADS=str(threads))
    env.pop('OPENBLAS_CORETYPE', None)
    if coretype:
        env['OPENBLAS_CORETYPE'] = coretype
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else 'failed'
    fields = dict(re.findall(r'(\w+)=(\S+)', p.stdout))
    return fields, None


def blas_coretypes():
    """[(OPENBLAS_CORETYPE or None, the kernel set OpenBLAS runs)] for each of CORETYPES the
    library accepts here, one per kernel set, and a line saying what was tried."""
    found, seen, said = [], set(), []
    for ct in CORETYPES:
        env = dict(os.environ, OPENBLAS_VERBOSE='2', OPENBLAS_NUM_THREADS='1')
        env.pop('OPENBLAS_CORETYPE', None)
        if ct:
            env['OPENBLAS_CORETYPE'] = ct
        p = subprocess.run([os.path.join(OUT, 'blas_sgemm'), '64', '64', '64', '1'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        core = re.search(r'Core: (\S+)', p.stderr)
        name = ct or 'unset'
        # 0.3.21 prints "Core not found: Cooperlake" and then runs Cooperlake's kernels: what
        # counts is the kernel set it reports.
        if p.returncode or not core or ('Core not found' in p.stderr and core.group(1) != ct):
            said.append('%s: not accepted' % name)
            continue
        core = core.group(1)
        said.append('%s: %s' % (name, core) if ct != core else name)
        if core in seen:
            continue
        seen.add(core)
        found.append((ct, core))
    return found, 'OPENBLAS_CORETYPE tried: ' + ', '.join(said)


def blas_best(cmd, threads, coretypes):
    """The fastest run of an OpenBLAS peer over the accepted kernel sets: (fields, None) with
    fields['core'] the kernel set and fields['tried'] how many, or (None, error)."""
    best, err = None, 'no OPENBLAS_CORETYPE accepted'
    for ct, _ in coretypes:
        res, err1 = run(cmd, threads, ct)
        if res is None:
            err = err1
            continue
        if best is None or float(res['seconds']) < float(best['seconds']):
            best = res
    if best:
        best['tried'] = str(len(coretypes))
        return best, None
    return None, err


def python_peer(module):
    """None when /usr/bin/python3 imports module, else why the peer is skipped."""
    if not os.path.exists(PYTHON):
        return 'skipped: no %s' % PYTHON
    p = subprocess.run([PYTHON, '-c', 'import ' + module], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if p.returncode:
        return 'skipped: %s has no %s (apt-get install python3-%s)' % (PYTHON, module, module)
    return None


def blas_note(res, what):
    return 'OpenBLAS %s, fastest %s of %s kernel sets%s' % (
        res['version'], res['core'], res['tried'], what)


def gflops(flops, seconds):
    return flops / seconds * 1e-9


def tes_rows(tes, threads):
    """{name: (gflops or None, reason)} from the tes kernel scripts, for `threads` threads."""
    rows = {}
    kdir = os.path.join(ROOT, 'bench', 'kernels')
    for name in sorted(os.listdir(kdir)) if os.path.isdir(kdir) else []:
        if not name.endswith('.tes') or name == GEMM_SWEEP:
            continue
        # no compile cache: jit_latency.tes times real builds
        env = dict(os.environ, TES_NUM_THREADS=str(threads), TES_CACHE='0')
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


def fma_peaks():
    """The FMA peak on 1 and 2 threads: (table rows, {threads: GFLOP/s or None})."""
    table, peak = [], {}
    for t in (1, 2):
        best = {}  # register width in bits: GFLOP/s (without AVX-512 both builds are 256-bit)
        for exe in ('fma_peak_256', 'fma_peak'):
            res, err = run([os.path.join(OUT, exe), str(t)], t)
            if res:
                w = int(res['lanes']) * 32
                best[w] = max(best.get(w, 0.0), float(res['gflops']))
        widths = sorted(((g, w) for w, g in best.items()), reverse=True)
        peak[t] = widths[0][0] if widths else None
        table.append(('FMA peak (%s-bit)' % (widths[0][1] if widths else '?'), t, peak[t],
                      err if not widths else 'fastest of ' + ', '.join(
                          '%d-bit %.1f' % (w, g) for g, w in widths), None))
    return table, peak


def main(tes, repeat, gemm_sizes=None, gemm_rounds=3):
    build_peers()
    m, n, k = GEMM
    gemm_flops = 2.0 * m * n * k
    c, h, w, f, kh, pad = CONV
    oh, ow = h + 2 * pad - kh + 1, w + 2 * pad - kh + 1
    conv_flops = 2.0 * f * oh * ow * c * kh * kh
    table, peak = fma_peaks()  # (kernel, threads, gflops or None, note, peer gflops)
    coretypes, tried = blas_coretypes()
    print(tried)
    blas = {}
    for t in (1, 2):
        res, err = blas_best([os.path.join(OUT, 'blas_sgemm'), str(m), str(n), str(k),
                              str(repeat)], t, coretypes)
        blas[t] = gflops(gemm_flops, float(res['seconds'])) if res else None
        table.append(('OpenBLAS sgemm %dx%dx%d' % GEMM, t, blas[t],
                      err or blas_note(res, ''), None))
    skip = python_peer('halide')
    for t in (1, 2):
        res, err = (None, skip) if skip else run(
            [PYTHON, os.path.join(PEERS, 'halide_gemm.py'), str(m), str(n), str(k),
             str(repeat)], t)
        table.append(('Halide sgemm %dx%dx%d' % GEMM, t,
                      gflops(gemm_flops, float(res['seconds'])) if res else None,
                      err or 'Halide %s (python3-halide), JIT, register-tiled' % res['version'],
                      blas[t]))
    tes1 = tes_rows(tes, 1) if tes else {}
    tes2 = tes_rows(tes, 2) if tes else {}
    for stage in STAGES:
        threads = (1, 2) if stage in THREADED else (1,)
        for t in threads:
            res, err = run([os.path.join(OUT, 'gemm_c'), stage, str(repeat)], t)
            g = gflops(gemm_flops, float(res['seconds'])) if res else None
            table.append(('%s -O3 opt_gemm %s' % (cc_version(), stage), t, g, err or '',
                          blas[t]))
            trows = tes1 if t == 1 else tes2
            secs, reason = trows.get('opt_gemm_' + stage, (None, 'no tes kernel script'))
            if 'opt_gemm' in trows and not secs:
                secs, reason = trows['opt_gemm']
            table.append(('tes opt_gemm %s' % stage, t,
                          gflops(gemm_flops, secs) if secs else None, reason or '', blas[t]))
    cblas = {}
    for t in (1, 2):
        res, err = blas_best([os.path.join(OUT, 'blas_conv2d')] + [str(x) for x in CONV] +
                             [str(repeat)], t, coretypes)
        cblas[t] = gflops(conv_flops, float(res['seconds'])) if res else None
        table.append(('OpenBLAS im2col+sgemm conv2d', t, cblas[t],
                      err or blas_note(res, ', ResNet-18 layer 9'), None))
        trows = tes1 if t == 1 else tes2
        secs, reason = trows.get('conv2d', (None, 'no tes kernel script'))
        table.append(('tes conv2d NCHW', t, gflops(conv_flops, secs) if secs else None,
                      reason or 'pad + kernel pack + conv + unpack', cblas[t]))
    print_table(table, peak)
    gemm_sweep(tes, gemm_sizes or GEMM_SIZES, gemm_rounds, peak, coretypes)
    int8_table(tes, tes1, blas[1])
    topi_table(tes1, max(repeat, 20), coretypes)
    secs, reason = tes1.get('jit_latency', (None, 'no tes kernel script'))
    print('\ntes JIT latency, tvm.build to callable, opt_gemm final schedule: %s (target < 50 ms)'
          % ('%.1f ms' % (secs * 1e3) if secs else reason))


def gemm_sweep(tes, sizes, rounds, peak=None, coretypes=None):
    """Square float32 GEMM at each of sizes, 1 and 2 threads: tes (bench/kernels/gemm_sizes.tes)
    against OpenBLAS at the kernel set that is fastest at that size and thread count (found
    with short runs of each), the two run in turn `rounds` times; each figure is the median
    over the rounds of each run's own median. A tes run that fails (its result is checked
    against numpy before it is timed) stops the bench."""
    build_peers()
    if peak is None:
        _, peak = fma_peaks()
    if coretypes is None:
        coretypes, tried = blas_coretypes()
        print(tried)
    script = os.path.join(ROOT, 'bench', 'kernels', GEMM_SWEEP)
    load = os.getloadavg()[0]
    print('\nGEMM sweep, float32 N x N x N: tes (bench/kernels/%s) against OpenBLAS at its '
          'fastest kernel set, medians of %d interleaved rounds; goal tes / OpenBLAS >= %.2f'
          % (GEMM_SWEEP, rounds, GEMM_GOAL))
    print('%6s %7s %9s %7s %9s %7s %-10s %8s  %s' % (
        'N', 'threads', 'tes', '% peak', 'OpenBLAS', '% peak', 'kernels', 'ratio', 'goal'))
    version = '?'
    for n in sizes:
        flops = 2.0 * n ** 3
        rep = 5 if n < 4096 else 3
        blas_cmd = lambda r: [os.path.join(OUT, 'blas_sgemm')] + [str(n)] * 3 + [str(r)]
        for t in (1, 2):
            best = None  # (seconds, OPENBLAS_CORETYPE, kernel set)
            for ct, core in coretypes:
                res, _ = run(blas_cmd(1 if n >= 2048 else 3), t, ct)
                if res and (best is None or float(res['seconds']) < best[0]):
                    best = (float(res['seconds']), ct, core)
                    version = res['version']
            tes_s, blas_s = [], []
            for _ in range(rounds):
                if tes:
                    env = dict(os.environ, TES_NUM_THREADS=str(t))
                    p = subprocess.run([tes, script, str(n)], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, env=env)
                    found = re.findall(r'gemm_%d seconds=(\S+)' % n, p.stdout)
                    if p.returncode or not found:
                        sys.exit('bench: %s %d (%d threads) failed:\n%s' % (
                            script, n, t, p.stderr))
                    tes_s.append(float(found[0]))
                if best:
                    res, _ = run(blas_cmd(rep), t, best[1])
                    if res:
                        blas_s.append(float(res['seconds']))
            g_tes = gflops(flops, statistics.median(tes_s)) if tes_s else None
            g_blas = gflops(flops, statistics.median(blas_s)) if blas_s else None
            pct = lambda g: '%6.0f%%' % (100 * g / peak[t]) if g and peak.get(t) else '%7s' % ''
            ratio = g_tes / g_blas if g_tes and g_blas else None
            print('%6d %7d %9s %s %9s %s %-10s %8s  %s' % (
                n, t, '%.1f' % g_tes if g_tes else '-', pct(g_tes),
                '%.1f' % g_blas if g_blas else '-', pct(g_blas), best[2] if best else '-',
                '%.2f' % ratio if ratio else '-',
                ('ok' if ratio >= GEMM_GOAL else 'MISSED') if ratio else ''))
    print('GFLOP/s; %% peak of the FMA peak measured in this run; OpenBLAS %s; load average '
          '%.1f before, %.1f after' % (version, load, os.getloadavg()[0]))


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


def topi_table(tes1, repeat, coretypes):
    """TOPI's operators against their peers, 1 thread; speed-up = peer time / tes time."""
    print('\n%-16s %12s %-29s %12s %9s %7s  %s' % ('TOPI kernel', 'tes median', 'peer',
                                                   'peer median', 'speed-up', 'target',
                                                   'workload'))
    numpy_skip = python_peer('numpy')
    for name, cmd, target, what in TOPI:
        peer_name = cmd[0]
        if cmd[0] == 'numpy':
            res, err = (None, numpy_skip) if numpy_skip else run(
                [PYTHON, os.path.join(PEERS, 'numpy_peer.py')] + cmd[1:] + [str(repeat)], 1)
            if res:
                peer_name = 'numpy %s %s' % (res['version'], res['variant'])
        elif cmd[0].startswith('blas_'):
            res, err = blas_best([os.path.join(OUT, cmd[0])] + cmd[1:] + [str(repeat)], 1,
                                 coretypes)
            if res:
                peer_name = 'OpenBLAS %s %s' % (res['version'], res['core'])
        else:
            res, err = run([os.path.join(OUT, cmd[0])] + cmd[1:] + [str(repeat)], 1)
            if res:
                variant = cmd[1] if cmd[1].isalpha() else ''
                peer_name = ('%s %s %s' % (cc_version(), cmd[0], variant)).strip()
        peer = float(res['seconds']) if res else None
        secs, reason = tes1.get(name, (None, 'no tes kernel script'))
        ratio = '%9.2f' % (peer / secs) if peer and secs else '%9s' % '-'
        print('%-16s %12s %-29s %12s %s %7s  %s' % (
            name, '%.3f ms' % (secs * 1e3) if secs else '-', peer_name,
            '%.3f ms' % (peer * 1e3) if peer else '-', ratio,
            '>= %.1f' % target if target else 'bound',
            what if secs and peer else (err or reason)))


def print_table(table, peak):
    print('%-36s %7s %9s %9s %12s  %s' % ('kernel', 'threads', 'GFLOP/s', '% peak',
                                          'vs OpenBLAS', 'note'))
    for name, t, g, note, peer in table:
        gs = '%9.1f' % g if g else '%9s' % '-'
        pk = '%8.0f%%' % (100 * g / peak[t]) if g and peak.get(t) else '%9s' % ''
        ratio = '%12.2f' % (g / peer) if g and peer else '%12s' % ''
        print('%-36s %7d %s %s %s  %s' % (name, t, gs, pk, ratio, note))
