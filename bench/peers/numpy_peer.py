"""numpy_peer.py: numpy's softmax and row sum, the numpy peers of tes's topi.nn.softmax and
topi.sum rows in bench/kernels.py, run by the distribution's /usr/bin/python3 with Debian's
python3-numpy (apt-get install python3-numpy). Single-threaded (numpy's elementwise and
reduction loops are). Each is written at numpy's best: whole-array operations, the softmax's
temporaries preallocated and updated in place (out=); the row sum is the faster of np.sum and
np.einsum('ij->i'), named in variant=.

    numpy_peer.py softmax M N REPEAT  ->  prints "seconds=MEDIAN check=X version=V"
    numpy_peer.py row_sum M N REPEAT
"""
import statistics
import sys
import time

import numpy as np


def main():
    op, m, n, rep = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    x = np.random.default_rng(1).uniform(-1, 1, size=(m, n)).astype(np.float32)
    if op == 'softmax':
        e = np.empty_like(x)
        mx = np.empty((m, 1), np.float32)
        s = np.empty((m, 1), np.float32)

        def kernel():
            np.max(x, axis=1, keepdims=True, out=mx)
            np.subtract(x, mx, out=e)
            np.exp(e, out=e)
            np.sum(e, axis=1, keepdims=True, out=s)
            np.divide(e, s, out=e)
            return e
        variants = {'in-place': kernel}
    elif op == 'row_sum':
        out = np.empty(m, np.float32)
        variants = {'sum': lambda: np.sum(x, axis=1, out=out),
                    'einsum': lambda: np.einsum('ij->i', x, out=out)}
    else:
        sys.exit('numpy_peer: unknown op %r (softmax, row_sum)' % op)
    best = None
    for name, kernel in variants.items():
        kernel()  # warm-up
        times = []
        for _ in range(rep):
            t0 = time.perf_counter()
            r = kernel()
            times.append(time.perf_counter() - t0)
        t = statistics.median(times)
        if best is None or t < best[0]:
            best = (t, name, float(r.flat[r.size // 2]))
    print('seconds=%.9f check=%.6g version=%s variant=%s' % (best[0], best[2], np.__version__,
                                                            best[1]))


if __name__ == '__main__':
    main()
