"""halide_gemm.py: Halide's GEMM, the Halide peer of tes's GEMM rows in bench/kernels.py, run by
the distribution's /usr/bin/python3 with Debian's python3-halide (apt-get install
python3-halide; Debian 12 has Halide 14). C = A x B on float32, row-major M x K times K x N,
JIT-compiled for the host (its natural vector width) with the register-tiled schedule of
Halide's own matrix-multiply performance test: output tiles over fused parallel blocks, a
2-vector x 8-row accumulator block per inner tile, the reduction innermost but one. Threads
come from HL_NUM_THREADS.

    halide_gemm.py M N K REPEAT  ->  prints "seconds=MEDIAN check=X version=V"
"""
import statistics
import subprocess
import sys
import time

import halide as hl


def version():
    p = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'python3-halide'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return p.stdout.split('-')[0] if p.returncode == 0 and p.stdout else '?'


def main():
    m, n, k, rep = (int(a) for a in sys.argv[1:5])
    target = hl.get_jit_target_from_environment()
    vec = target.natural_vector_size(hl.Float(32))
    x, y = hl.Var('x'), hl.Var('y')
    # Halide's first dimension is the innermost: A(kk, i), B(j, kk), C(j, i) are row-major
    fill = hl.Func('fill')
    fill[x, y] = hl.sin(hl.f32(x * 7 + y * 13))
    a_buf = fill.realize([k, m])
    b_buf = fill.realize([n, k])
    a = hl.ImageParam(hl.Float(32), 2, 'A')
    b = hl.ImageParam(hl.Float(32), 2, 'B')
    r = hl.RDom([(0, k)])
    prod, out = hl.Func('prod'), hl.Func('out')
    prod[x, y] = hl.f32(0)
    prod[x, y] += a[r.x, y] * b[x, r.x]
    out[x, y] = prod[x, y]
    xo, yo, xi, yi, yii, xy = (hl.Var(s) for s in ('xo', 'yo', 'xi', 'yi', 'yii', 'xy'))
    out.tile(x, y, xo, yo, xi, yi, 2 * vec, 32).fuse(xo, yo, xy).parallel(xy) \
        .split(yi, yi, yii, 8).vectorize(xi, vec).unroll(xi).unroll(yii)
    prod.compute_at(out, yi).vectorize(x, vec).unroll(x).unroll(y)
    prod.update().reorder(x, y, r.x).vectorize(x, vec).unroll(x).unroll(y)
    out.compile_jit(target)
    a.set(a_buf)
    b.set(b_buf)
    c = hl.Buffer(hl.Float(32), [n, m])
    out.realize(c)  # warm-up
    times = []
    for _ in range(rep):
        t0 = time.perf_counter()
        out.realize(c)
        times.append(time.perf_counter() - t0)
    print('seconds=%.9f check=%.6g version=%s' % (statistics.median(times),
                                                 c[n // 2, m // 2], version()))


if __name__ == '__main__':
    main()
