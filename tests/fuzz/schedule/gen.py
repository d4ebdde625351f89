"""Random programs for the differential schedule fuzzer.

A case is a small tensor compute (a DAG of te.compute stages over placeholders) and a list of
schedule steps, each legal in TVM's semantics. The case renders as a TES function that builds
the compute twice, once under the default schedule (the reference) and once under the steps,
runs both on the same seeded random inputs and compares the outputs.

Everything is drawn from one random.Random(seed), so a seed names its case. Steps are kept as
data (with the names each defines and uses) so that the minimiser can drop them.
"""

import random

# ---------------------------------------------------------------------------------------------
# The compute: tensors with shapes whose dimensions are (TES expression, value at run time).


class Dim:
    def __init__(self, expr, val):
        self.expr, self.val = expr, val

    def const(self):
        """The extent as an int when it is a constant in the program, else None."""
        return self.val if self.expr.isdigit() else None

    def plus(self, k):
        if k == 0:
            return self
        if self.const() is not None:
            return Dim(str(self.val + k), self.val + k)
        return Dim("(%s %s %d)" % (self.expr, "+" if k > 0 else "-", abs(k)), self.val + k)


class Tensor:
    def __init__(self, name, shape, src, reads, reduce_axes=0, inlinable=True, dtype="float32",
                 bound=1.0, exact=True):
        self.name, self.shape, self.src, self.reads = name, shape, src, reads
        self.reduce_axes = reduce_axes  # number of reduction axes (0: injective)
        self.inlinable = inlinable and reduce_axes == 0
        self.placeholder = src is None
        self.dtype = dtype
        self.bound = bound  # no element's magnitude exceeds it
        # exact: every element is computed the same way under any schedule (no reduction of
        # floats, whose order a schedule may change, and no libm call), so that a step
        # function of it (a floor, a cast to an integer, an argmax) is safe to compare
        self.exact = exact
        self.multi = False  # the first output of a two-output op (the argmax)
        self.lhs = name  # what the compute assigns to


IDX = "ijlm"
FLOATS = ("float16", "float32", "float64")
# The largest magnitude a stage of each dtype may reach: integers stay clear of overflow
# (undefined for signed types, as in TVM) and float16 clear of its range and its coarse steps.
LIMIT = {"int8": 100, "int16": 20000, "int32": 10 ** 8, "int64": 10 ** 15, "uint8": 200,
         "float16": 300.0, "float32": 1e6, "float64": 1e9}
# Integers exactly representable by each float type (casts from an integer stay exact).
FLOAT_EXACT = {"float16": 2048, "float32": 1 << 24, "float64": 1 << 53}
DTYPES = ["float32"] * 9 + ["int32"] * 3 + ["float64"] * 2 + ["int8", "uint8", "int16",
                                                             "int64", "float16", "float16"]


def _lam(rank):
    return "lambda %s:" % ", ".join(IDX[:rank])


def _at(t, idx):
    return "%s[%s]" % (t.name, ", ".join(idx))


def _const(v, dt):
    return "tvm.tir.const(%s, %r)" % (v, dt)


def _is_float(dt):
    return dt in FLOATS


def _wider_int(dt, bound):
    """A wider integer dtype that holds a sum of bound magnitude, or None."""
    for w in ("int32", "int64"):
        if LIMIT[w] > LIMIT[dt] and bound <= LIMIT[w]:
            return w
    return None


class ComputeGen:
    """Draws a DAG of stages; the last one is the output."""

    def __init__(self, rng, symbolic, dtype):
        self.rng = rng
        self.dtype = dtype  # of the placeholders; stages may cast to others
        self.tensors = []
        self.vars = []  # (name, value) of te.var sizes
        self.symbolic = symbolic
        self.nstage = 0

    def dim(self):
        r = self.rng
        if self.symbolic and r.random() < 0.5:
            if not self.vars or (len(self.vars) < 2 and r.random() < 0.3):
                name = "n%d" % len(self.vars)
                self.vars.append((name, r.choice([1, 3, 5, 7, 8, 9, 12, 16, 17])))
            name, val = r.choice(self.vars)
            return Dim(name, val)
        if r.random() < 0.08:
            v = r.choice([31, 33, 48, 64, 70])
        else:
            v = r.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 24])
        return Dim(str(v), v)

    def placeholder(self, shape, dtype=None):
        dt = dtype or self.dtype
        t = Tensor("P%d" % len([x for x in self.tensors if x.placeholder]), shape, None, [],
                   dtype=dt, bound=1.0 if _is_float(dt) else 4)
        self.tensors.append(t)
        return t

    def new_name(self):
        self.nstage += 1
        return "T%d" % self.nstage

    def pick(self, pred=lambda t: True):
        c = [t for t in self.tensors if pred(t) and not t.multi]
        # Prefer recent tensors, so that chains form.
        return c[-1] if c and self.rng.random() < 0.6 else (self.rng.choice(c) if c else None)

    def unary(self, x, t):
        """An expression of x (an element of tensor t): (text, bound, exact)."""
        r, dt, b = self.rng, t.dtype, t.bound
        if _is_float(dt):
            ops = [("%s * 1.5 + 0.25", b * 1.5 + 0.25, 1), ("te.max(%s, 0.0)", b, 1),
                   ("%s * %s", b * b, 1), ("te.min(%s, 0.5) - 0.125", max(b, 0.5) + 0.125, 1),
                   ("%s - 2.0", b + 2, 1), ("te.exp(%s * 0.5)", 2.8 ** min(b, 60), 0),
                   ("te.if_then_else(%s > 0.0, %s, %s * 0.25)", b, 1),
                   ("tvm.tir.Select(%s > 0.5, %s, 1.0 - %s)", b + 1, 1),
                   ("te.sqrt(te.abs(%s) + 1.0)", (b + 1) ** 0.5, 0),
                   ("te.sigmoid(%s)", 1.0, 0), ("te.tanh(%s)", 1.0, 0),
                   ("te.log(te.abs(%s) + 1.0)", b, 0)]
            if t.exact:  # step functions: safe on values every schedule computes alike
                ops += [("te.floor(%s * 4.0) * 0.25", b + 1, 1),
                        ("te.if_then_else(tvm.tir.any(%s < -0.5, %s > 0.25), %s, 0.0)", b, 1)]
        else:
            signed = not dt.startswith("u")
            ops = [("%s * 3 + 1", b * 3 + 1, 1), ("te.max(%s, 1)", b, 1), ("%s // 3", b, 1),
                   ("te.min(%s, 2) + 1", max(b, 2) + 1, 1), ("%s %% 4", 3, 1),
                   ("%s + 2", b + 2, 1), ("te.floordiv(%s, 2)", b, 1),
                   ("te.floormod(%s, 5)", 4, 1), ("tvm.tir.truncdiv(%s, 3)", b, 1),
                   ("tvm.tir.truncmod(%s, 3)", 2, 1), ("te.abs(%s)", b, 1),
                   ("te.if_then_else(%s > 2, %s, %s + 1)", b + 1, 1),
                   ("tvm.tir.Select(tvm.tir.all(%s > 0, %s < 3), %s * 2, %s)", b * 2, 1),
                   ("(%s > 1).astype(%r) + %s" % ("%s", dt, "%s"), b + 1, 1)]
            if signed:
                ops += [("%s %% 4 - 2", 2, 1), ("%s - 2", b + 2, 1),
                        ("te.if_then_else(%s > 0, %s, 1 - %s)", b + 1, 1),
                        ("te.floordiv(%s, -3)", b, 1), ("te.floormod(%s, -3)", 2, 1),
                        ("tvm.tir.truncdiv(%s, -2)", b, 1), ("tvm.tir.truncmod(%s, -4)", 3, 1),
                        ("tvm.tir.Select(tvm.tir.Not(%s == 0), 0 - %s, %s)", b, 1),
                        ("te.if_then_else(tvm.tir.any(%s < -1, %s > 2), %s * 2, %s)",
                         b * 2, 1)]
            if dt in ("int32", "int64"):  # a te.var divisor (int32; int64 promotes it)
                # of t's shape, which an argument binds (seed 17589: one no argument bound)
                for v, val in [x for x in self.vars if any(d.expr == x[0] for d in t.shape)]:
                    ops += [("te.floordiv(%s, " + v + ")", b, 1),
                            ("te.floormod(%s, " + v + ")", val, 1),
                            ("tvm.tir.truncdiv(%s, " + v + ")", b, 1),
                            ("tvm.tir.truncmod(%s, " + v + ")", val, 1)]
        ok = [o for o in ops if o[1] <= LIMIT[dt]]
        text, bound, exact = r.choice(ok)
        text = text.replace("%%", "\x00")
        text = text.replace("%s", x).replace("\x00", "%")
        return text, bound, bool(exact) and t.exact

    def add(self, name, shape, src, reads, nred=0, dtype=None, bound=1.0, exact=True):
        dt = dtype or reads[0].dtype
        # float16 arithmetic may round differently where a schedule fuses it (inlining)
        exact = exact and (dt != "float16" or reads[0].dtype != "float16")
        t = Tensor(name, shape, src, reads, nred, dtype=dt, bound=bound, exact=exact)
        self.tensors.append(t)
        return t

    def _shape(self, shape):
        return ", ".join(d.expr for d in shape)

    # Stage kinds --------------------------------------------------------------------------
    def elementwise(self):
        x = self.pick(lambda t: True)
        n = self.new_name()
        idx = IDX[:len(x.shape)]
        body, b, ex = self.unary(_at(x, idx), x)
        src = "te.compute((%s,), %s %s, name=%r)" % (self._shape(x.shape), _lam(len(x.shape)),
                                                      body, n)
        return self.add(n, x.shape, src, [x], bound=b, exact=ex)

    def cast(self):
        """x.astype(dt) or tvm.tir.Cast(dt, x) to a dtype that holds x's values exactly
        (from a float to an integer: of a step function of an exact tensor)."""
        x = self.pick(lambda t: True)
        r, b = self.rng, x.bound
        e = _at(x, IDX[:len(x.shape)])
        if _is_float(x.dtype):
            dts = [d for d in LIMIT if not _is_float(d) and LIMIT[d] >= b * 4 + 1]
            fdts = [d for d in FLOATS if d != x.dtype and LIMIT[d] >= b]
            if not dts and not fdts:
                return None
            if dts and x.exact and (r.random() < 0.5 or not fdts):
                dt = r.choice(dts)
                e = "te.floor(%s%s * 4.0%s)" % ("te.abs(" if dt.startswith("u") else "", e,
                                               ")" if dt.startswith("u") else "")
                b = b * 4 + 1
            else:
                dt = r.choice(fdts)
        else:
            dts = [d for d in LIMIT if d != x.dtype and LIMIT[d] >= b and
                   (not _is_float(d) or FLOAT_EXACT[d] >= b)]
            dt = r.choice(dts)
            if dt.startswith("u"):
                e = "te.abs(%s)" % e
        body = "%s.astype(%r)" % (e, dt) if r.random() < 0.6 else "tvm.tir.Cast(%r, %s)" % (
            dt, e)
        n = self.new_name()
        src = "te.compute((%s,), %s %s, name=%r)" % (self._shape(x.shape), _lam(len(x.shape)),
                                                      body, n)
        return self.add(n, x.shape, src, [x], dtype=dt, bound=b, exact=x.exact)

    def binary(self):
        x = self.pick()
        r = len(x.shape)
        idx = list(IDX[:r])
        # The other operand: a tensor of the same shape and dtype, or a new placeholder
        # broadcast along the leading axes (its shape is a suffix of x's).
        same = [t for t in self.tensors if t is not x and _same_shape(t.shape, x.shape)
                and t.dtype == x.dtype]
        if same and self.rng.random() < 0.6:
            y, yidx = self.rng.choice(same), idx
        else:
            k = self.rng.randint(1, r)
            if not all(_plain(d) for d in x.shape[r - k:]):
                return None
            y = self.placeholder(x.shape[r - k:], x.dtype)
            yidx = idx[r - k:]
        a, c = _at(x, idx), _at(y, yidx)
        bx, by = x.bound, y.bound
        ops = [("%s + %s" % (a, c), bx + by), ("%s * %s" % (a, c), bx * by),
               ("te.max(%s, %s)" % (a, c), max(bx, by)), ("te.min(%s, %s)" % (a, c),
                                                          max(bx, by))]
        if not x.dtype.startswith("u"):
            ops.append(("%s - %s" % (a, c), bx + by))
        if not _is_float(x.dtype):  # a divisor that is a tensor's element
            ops += [("te.floordiv(%s, te.abs(%s) + 1)" % (a, c), bx),
                    ("tvm.tir.truncmod(%s, te.abs(%s) + 1)" % (a, c), by),
                    ("te.floormod(%s, te.abs(%s) + 1)" % (a, c), by),
                    ("tvm.tir.truncdiv(%s, te.abs(%s) + 2)" % (a, c), bx)]
        elif x.exact and y.exact:
            ops.append(("tvm.tir.Select(%s > %s, %s, %s * 0.5)" % (a, c, a, c), max(bx, by)))
        ops = [o for o in ops if o[1] <= LIMIT[x.dtype]]
        if not ops:
            return None
        body, b = self.rng.choice(ops)
        n = self.new_name()
        src = "te.compute((%s,), %s %s, name=%r)" % (self._shape(x.shape), _lam(r), body, n)
        return self.add(n, x.shape, src, [x, y], bound=b, exact=x.exact and y.exact)

    def transpose(self):
        x = self.pick(lambda t: len(t.shape) == 2)
        if x is None:
            return None
        n = self.new_name()
        src = "te.compute((%s, %s), lambda i, j: %s[j, i], name=%r)" % (
            x.shape[1].expr, x.shape[0].expr, x.name, n)
        return self.add(n, [x.shape[1], x.shape[0]], src, [x], bound=x.bound, exact=x.exact)

    def _acc(self, dt, bound, terms):
        """(element cast, accumulator dtype) for a sum of terms of magnitude bound: float16
        sums in float32; integers widen to an int type that holds the sum; None if none."""
        if dt == "float16":
            return ".astype('float32')", "float32"
        if _is_float(dt):
            return "", dt
        if bound * terms <= LIMIT[dt]:
            return "", dt
        w = _wider_int(dt, bound * terms)
        return (None, None) if w is None else (".astype(%r)" % w, w)

    def _reduce_acc(self, x, red, terms):
        """(element cast, accumulator dtype, bound of the result) of reducing terms elements of
        x with red, or None when no int type holds the sum."""
        if red != "te.sum":
            return "", x.dtype, x.bound
        cast, dt = self._acc(x.dtype, x.bound, terms)
        return None if cast is None else (cast, dt, x.bound * terms)

    def _where(self, x, xe, k, red, lead, lo=0):
        """A where= condition for a reduction over k (from lo), or ''. A max or min keeps
        k == lo (so no output is the identity alone)."""
        r = self.rng
        if r.random() < 0.7:
            return ""
        zero = "0.0" if _is_float(x.dtype) else "0"
        if red == "te.sum":
            c = r.choice(["%s > %s" % (xe, zero), "%s %% 2 == 0" % k,
                          "%s < %s + 2" % (k, lead) if lead else "%s > 0" % k,
                          "tvm.tir.all(%s >= 1, %s != %s)" % (k, xe, zero)])
        else:
            lo_s = " + %d" % lo if lo else ""
            c = r.choice(["tvm.tir.any(%s == %d, %s > %s)" % (k, lo, xe, zero),
                          "%s <= %s%s" % (k, lead, lo_s) if lead else "%s < %d" % (k, lo + 2)])
        return ", where=%s" % c

    def row_reduce(self):
        x = self.pick(lambda t: len(t.shape) >= 2)
        if x is None:
            return None
        n = self.new_name()
        r = len(x.shape)
        k = "k%s" % n
        red = self.rng.choice(["te.sum", "te.sum", "te.max", "te.min"])
        # sometimes over a part of the row that starts past 0
        ext = x.shape[-1].const()
        lo = self.rng.choice([1, 2]) if ext and ext >= 3 and self.rng.random() < 0.25 else 0
        decl = "%s = te.reduce_axis((%d, %s), name=%r)" % (k, lo, x.shape[-1].expr, k)
        idx = list(IDX[:r - 1]) + [k]
        xe = _at(x, idx)
        acc = self._reduce_acc(x, red, x.shape[-1].val)
        if acc is None:
            return None
        cast, dt, bound = acc
        where = self._where(x, xe, k, red, IDX[0] if r > 1 else None, lo)
        src = "te.compute((%s,), %s %s(%s%s, axis=%s%s), name=%r)" % (
            self._shape(x.shape[:-1]), _lam(r - 1), red, xe, cast, k, where, n)
        exact = x.exact and (red != "te.sum" or not _is_float(dt))
        return self.add(n, x.shape[:-1], (decl, src), [x], 1, dtype=dt, bound=bound,
                        exact=exact)

    def reduce2(self):
        """A reduction over the last two axes (of a 2-D tensor: to shape (1,))."""
        x = self.pick(lambda t: len(t.shape) >= 2)
        if x is None:
            return None
        n = self.new_name()
        r = len(x.shape)
        k0, k1 = "k%sa" % n, "k%sb" % n
        red = self.rng.choice(["te.sum", "te.max", "te.min"])
        decl = "%s = te.reduce_axis((0, %s), name=%r)\n%s = te.reduce_axis((0, %s), name=%r)" % (
            k0, x.shape[-2].expr, k0, k1, x.shape[-1].expr, k1)
        xe = _at(x, list(IDX[:r - 2]) + [k0, k1])
        acc = self._reduce_acc(x, red, x.shape[-2].val * x.shape[-1].val)
        if acc is None:
            return None
        cast, dt, bound = acc
        where = self._where(x, xe, k1, red, k0)
        oshape = x.shape[:-2] or [Dim("1", 1)]
        src = "te.compute((%s,), %s %s(%s%s, axis=[%s, %s]%s), name=%r)" % (
            self._shape(oshape), _lam(len(oshape)), red, xe, cast, k0, k1, where, n)
        exact = x.exact and (red != "te.sum" or not _is_float(dt))
        return self.add(n, oshape, (decl, src), [x], 2, dtype=dt, bound=bound, exact=exact)

    def argmax(self):
        """A two-output te.comm_reducer (the index of the largest element of a row, ties to
        the lowest index, and that element) and a stage combining both outputs."""
        x = self.pick(lambda t: len(t.shape) >= 2 and t.exact)
        if x is None:
            return None
        n = self.new_name()
        r = len(x.shape)
        k = "k%s" % n
        decl = "%s = te.reduce_axis((0, %s), name=%r)" % (k, x.shape[-1].expr, k)
        src = "te.compute((%s,), %s _argmax((%s.var, %s), axis=%s), name=%r)" % (
            self._shape(x.shape[:-1]), _lam(r - 1), k, _at(x, list(IDX[:r - 1]) + [k]), k, n)
        b = x.bound + x.shape[-1].val
        if b > LIMIT[x.dtype]:
            return None
        t = self.add(n, x.shape[:-1], (decl, src), [x], 1, bound=x.bound)
        t.multi = True
        t.lhs = "%s, %s_v" % (n, n)
        c = self.new_name()
        idx = ", ".join(IDX[:r - 1])
        src = "te.compute((%s,), %s %s_v[%s] + %s[%s].astype(%r), name=%r)" % (
            self._shape(x.shape[:-1]), _lam(r - 1), n, idx, n, idx, x.dtype, c)
        return self.add(c, x.shape[:-1], src, [t], bound=b, exact=x.exact)

    def tuple_compute(self):
        """A two-output te.compute (the lambda returns a tuple of two expressions of one
        tensor) and a stage combining both outputs; the op is inlined nowhere (TVM inlines
        one-output ops only)."""
        x = self.pick()
        r = len(x.shape)
        e = _at(x, IDX[:r])
        (b0, bd0, ex0), (b1, bd1, ex1) = self.unary(e, x), self.unary(e, x)
        if bd0 + bd1 > LIMIT[x.dtype]:
            return None
        n = self.new_name()
        src = "te.compute((%s,), %s (%s, %s), name=%r)" % (self._shape(x.shape), _lam(r), b0,
                                                            b1, n)
        t = self.add(n, x.shape, src, [x], bound=max(bd0, bd1), exact=ex0 and ex1)
        t.multi = True
        t.inlinable = False
        t.lhs = "%s, %s_v" % (n, n)
        c = self.new_name()
        idx = ", ".join(IDX[:r])
        op = "-" if not x.dtype.startswith("u") and self.rng.random() < 0.5 else "+"
        src = "te.compute((%s,), %s %s[%s] %s %s_v[%s], name=%r)" % (
            self._shape(x.shape), _lam(r), n, idx, op, n, idx, c)
        return self.add(c, x.shape, src, [t], bound=bd0 + bd1, exact=ex0 and ex1)

    def flip(self):
        """A read of the last axis backwards (a negative stride where it is vectorized)."""
        x = self.pick()
        r = len(x.shape)
        idx = list(IDX[:r])
        idx[-1] = "%s - 1 - %s" % (x.shape[-1].expr, idx[-1])
        n = self.new_name()
        src = "te.compute((%s,), %s %s, name=%r)" % (self._shape(x.shape), _lam(r),
                                                      _at(x, idx), n)
        return self.add(n, x.shape, src, [x], bound=x.bound, exact=x.exact)

    def matmul(self):
        x = self.pick(lambda t: len(t.shape) == 2)
        if x is None or not _plain(x.shape[1]):
            return None
        cast, dt = self._acc(x.dtype, x.bound * 4, x.shape[1].val)
        if cast is None:
            return None
        n = self.new_name()
        w = self.placeholder([x.shape[1], self.dim()], x.dtype)
        k = "k%s" % n
        decl = "%s = te.reduce_axis((0, %s), name=%r)" % (k, x.shape[1].expr, k)
        src = "te.compute((%s, %s), lambda i, j: te.sum(%s[i, %s]%s * %s[%s, j]%s, axis=%s), " \
              "name=%r)" % (x.shape[0].expr, w.shape[1].expr, x.name, k, cast, w.name, k, cast,
                            k, n)
        return self.add(n, [x.shape[0], w.shape[1]], (decl, src), [x, w], 1, dtype=dt,
                        bound=x.bound * w.bound * x.shape[1].val,
                        exact=not _is_float(dt))

    def conv(self):
        """A zero-padded 2-D input and an r x r window sum: the padding stage is inlinable."""
        x = self.pick(lambda t: len(t.shape) == 2)
        if x is None:
            return None
        p = self.rng.choice([0, 1, 1, 2])
        rsz = self.rng.choice([1, 2, 3])
        h, w = x.shape
        if (h.val + 2 * p - rsz + 1) < 1 or (w.val + 2 * p - rsz + 1) < 1:
            return None
        if h.const() is None or w.const() is None:
            if p * 2 - rsz + 1 < 0:  # keep symbolic output extents non-negative for any n
                return None
        cast, dt = self._acc(x.dtype, x.bound * 4, rsz * rsz)
        if cast is None:
            return None
        src_x = x
        if p:
            pn = self.new_name()
            cond = "te.all(i >= %d, i < %s, j >= %d, j < %s)" % (p, h.plus(p).expr, p,
                                                                 w.plus(p).expr)
            src = "te.compute((%s, %s), lambda i, j: te.if_then_else(%s, %s[i - %d, j - %d], " \
                  "%s), name=%r)" % (h.plus(2 * p).expr, w.plus(2 * p).expr, cond, x.name, p,
                                     p, _const(0, x.dtype), pn)
            src_x = self.add(pn, [h.plus(2 * p), w.plus(2 * p)], src, [x], bound=x.bound,
                             exact=x.exact)
        kw = self.placeholder([Dim(str(rsz), rsz), Dim(str(rsz), rsz)], x.dtype)
        n = self.new_name()
        ry, rx = "ry%s" % n, "rx%s" % n
        decl = "%s = te.reduce_axis((0, %d), name=%r)\n%s = te.reduce_axis((0, %d), name=%r)" % (
            ry, rsz, ry, rx, rsz, rx)
        oh, ow = src_x.shape[0].plus(1 - rsz), src_x.shape[1].plus(1 - rsz)
        src = "te.compute((%s, %s), lambda i, j: te.sum(%s[i + %s, j + %s]%s * %s[%s, %s]%s, " \
              "axis=[%s, %s]), name=%r)" % (oh.expr, ow.expr, src_x.name, ry, rx, cast, kw.name,
                                            ry, rx, cast, ry, rx, n)
        return self.add(n, [oh, ow], (decl, src), [src_x, kw], 2, dtype=dt,
                        bound=x.bound * kw.bound * rsz * rsz, exact=not _is_float(dt))

    def generate(self):
        r = self.rng
        rank = r.choice([1, 2, 2, 2, 3])
        self.placeholder([self.dim() for _ in range(rank)])
        kinds = [self.elementwise, self.binary, self.transpose, self.row_reduce, self.matmul,
                 self.conv, self.cast, self.reduce2, self.argmax, self.tuple_compute,
                 self.flip]
        weights = [3, 3, 1, 3, 2, 2, 1.5, 1, 0.7, 0.7, 0.7]
        want = r.randint(1, 4)
        tries = 0
        while self.nstage < want and tries < 50:
            tries += 1
            r.choices(kinds, weights)[0]()
        if self.nstage == 0:
            self.elementwise()
        out = self.tensors[-1]
        if out.placeholder:  # the last draw added a placeholder only
            out = [t for t in self.tensors if not t.placeholder][-1]
        return out


def _plain(d):
    """A constant or a lone te.var: an argument of that extent binds the var."""
    return d.const() is not None or d.expr.isidentifier()


def _same_shape(a, b):
    return len(a) == len(b) and all(x.expr == y.expr for x, y in zip(a, b))


# ---------------------------------------------------------------------------------------------
# Schedule steps. A step is TES source lines with the names it defines and uses; the model
# below only draws steps that TVM accepts.


class Step:
    def __init__(self, src, defines=(), uses=()):
        self.src, self.defines, self.uses = src, set(defines), set(uses)


class Axis:
    def __init__(self, name, reduce, extent):
        self.name, self.reduce, self.extent = name, reduce, extent  # extent: int or None
        self.annot = None
        self.lo = 0  # where a reduce axis of the compute starts


class StageModel:
    def __init__(self, name, tensor, axes, reads, output=False):
        self.name = name  # TES expression naming the tensor (a variable)
        self.tensor = tensor
        self.leaves = axes
        self.reads = reads  # stage names this stage reads
        self.output = output
        self.attached = None  # (stage, axis) of compute_at
        self.inlined = False
        self.hosts = 0  # stages attached under this one
        self.scheduled = False
        self.reduce = any(a.reduce for a in axes)
        self.roots = list(axes)


class ScheduleGen:
    def __init__(self, rng, comp, outs):
        self.rng = rng
        self.steps = []
        self.naxis = 0
        self.stages = {}
        reachable = _reachable(outs)
        self.reach, self.outs = reachable, outs
        for t in comp.tensors:
            if t.placeholder or t not in reachable:
                continue
            axes = [Axis(None, False, d.const()) for d in t.shape]
            # reduce axes' extents: constant for conv windows; otherwise from the shape read
            axes += [Axis(None, True, None) for _ in range(t.reduce_axes)]
            self.stages[t.name] = StageModel(t.name, t, axes, [x.name for x in t.reads],
                                             t in outs)
        self._reduce_extents(comp)

    def _reduce_extents(self, comp):
        for t in comp.tensors:
            st = self.stages.get(t.name)
            if st is None or not t.reduce_axes:
                continue
            decl = t.src[0]
            red = [a for a in st.leaves if a.reduce]
            for a, line in zip(red, decl.split("\n")):
                lo, e = line.split("((")[1].split(")")[0].split(", ")
                a.extent = int(e) - int(lo) if e.isdigit() else None
                a.lo = int(lo)

    # Naming axes -------------------------------------------------------------------------------
    def fresh(self):
        self.naxis += 1
        return "x%d" % self.naxis

    def name_roots(self, st):
        """Binds a variable to every unnamed root axis of a stage (one step)."""
        lines, defs = [], []
        si = ri = 0
        for a in st.leaves:
            if a.name is None:
                a.name = self.fresh()
                if a.reduce:
                    lines.append("%s = s[%s].op.reduce_axis[%d]" % (a.name, st.name, ri))
                else:
                    lines.append("%s = s[%s].op.axis[%d]" % (a.name, st.name, si))
                defs.append(a.name)
            ri += a.reduce
            si += not a.reduce
        if lines:
            self.steps.append(Step("\n".join(lines), defs, [st.name]))

    def consumers(self, name):
        return [s for s in self.stages.values() if name in s.reads and not s.inlined]

    # Phase 1: dataflow rewrites ---------------------------------------------------------------
    def cache_write(self, st):
        cname = st.name + "_c"
        scope = self.rng.choice(["local", "global"])
        # of a two-output op, a list of both outputs (and a list of their caches back)
        what, first = (st.name, "") if not st.tensor.multi else (
            "[%s]" % st.tensor.lhs, "[0]")
        self.steps.append(Step("%s = s.cache_write(%s, %r)%s" % (cname, what, scope, first),
                               [cname], [st.name]))
        # The cache stage computes (keeps the reduction); st becomes a copy of it.
        cache = StageModel(cname, st.tensor, st.leaves, st.reads)
        st.leaves = [Axis(None, False, a.extent) for a in st.leaves if not a.reduce]
        st.roots = list(st.leaves)
        st.reads = [cname]
        st.reduce = False
        self.stages[cname] = cache
        return cache

    def cache_read(self, tname, readers):
        cname = "%s_r%d" % (tname, len(self.steps))
        scope = self.rng.choice(["local", "global"])
        self.steps.append(Step("%s = s.cache_read(%s, %r, [%s])" % (
            cname, tname, scope, ", ".join(r.name for r in readers)),
            [cname], [tname] + [r.name for r in readers]))
        src_t = self.tensor_shape(tname)
        st = StageModel(cname, None, [Axis(None, False, e) for e in src_t],
                        [tname] if tname in self.stages else [])
        for r in readers:
            r.reads = [cname if x == tname else x for x in r.reads]
        self.stages[cname] = st
        return st

    def tensor_shape(self, tname):
        for t in self.all_tensors:
            if t.name == tname:
                return [d.const() for d in t.shape]
        st = self.stages[tname]
        return [a.extent for a in st.leaves if not a.reduce]

    def rfactor(self, st):
        red = [a for a in st.leaves if a.reduce]
        self.name_roots(st)
        k = self.rng.choice(red)
        uses = [st.name, k.name]
        target = k
        # (TVM factors a domain from 0 only: that of a split's parts)
        split = self.rng.random() < 0.7 or k.lo
        if split:
            f = self.rng.choice([2, 3, 4, 8])
            o, i = self.fresh(), self.fresh()
            self.steps.append(Step("%s, %s = s[%s].split(%s, factor=%d)" % (o, i, st.name,
                                                                          k.name, f),
                                   [o, i], [st.name, k.name]))
            ko = Axis(o, True, _ceil(k.extent, f))
            ki = Axis(i, True, f)
            target = self.rng.choice([ko, ki])
            uses = [st.name, target.name]
        else:
            ko = ki = None
        fname = st.name + "_rf"
        fa = self.rng.choice([0, 0, 1]) if sum(not a.reduce for a in st.leaves) else 0
        # of a two-output reduction (the argmax), rfactor returns a list: one tensor an output
        self.steps.append(Step("%s = s.rfactor(%s, %s, factor_axis=%d)%s" % (
            fname, st.name, target.name, fa, "[0]" if st.tensor.multi else ""), [fname], uses))
        spatial = [a for a in st.leaves if not a.reduce]
        rest = [a for a in red if a is not k]
        if ko is not None:
            rest.append(ko if target is ki else ki)
        # The rf stage: the factored axis becomes spatial at position fa of op.axis.
        rf_sp = [Axis(None, False, a.extent) for a in spatial]
        rf_sp.insert(fa, Axis(None, False, target.extent))
        rf = StageModel(fname, None, rf_sp + [Axis(None, True, a.extent) for a in rest],
                        st.reads)
        self.stages[fname] = rf
        # st now reduces over the factored axis alone.
        st.leaves = [Axis(None, False, a.extent) for a in spatial] + \
                    [Axis(None, True, target.extent)]
        st.roots = list(st.leaves)
        st.reads = [fname]
        st.scheduled = False
        self.steps.append(Step("assert len(s[%s].leaf_iter_vars) == %d" % (
            fname, len(rf.leaves)), [], [fname]))
        return rf

    # Phase 2: loop structure ------------------------------------------------------------------
    def split(self, st):
        a = self.rng.choice(st.leaves)
        pos = st.leaves.index(a)
        o, i = self.fresh(), self.fresh()
        if self.vars and self.rng.random() < 0.1:
            # by a te.var: factor or nparts known at call time only
            arg = "%s=%s" % (self.rng.choice(["factor", "nparts"]), self.rng.choice(self.vars)[0])
            oe = ie = None
        elif self.rng.random() < 0.8:
            f = self.rng.choice([1, 2, 3, 4, 4, 5, 8, 8, 16, 32])
            arg = "factor=%d" % f
            oe, ie = _ceil(a.extent, f), f
        else:
            p = self.rng.choice([1, 2, 3, 4])
            arg = "nparts=%d" % p
            oe, ie = p, _ceil(a.extent, p)
        self.steps.append(Step("%s, %s = s[%s].split(%s, %s)" % (o, i, st.name, a.name, arg),
                               [o, i], [st.name, a.name]))
        st.leaves[pos:pos + 1] = [Axis(o, a.reduce, oe), Axis(i, a.reduce, ie)]

    def fuse(self, st):
        pairs = [p for p in range(len(st.leaves) - 1)
                 if st.leaves[p].reduce == st.leaves[p + 1].reduce]
        if not pairs:
            return
        p = self.rng.choice(pairs)
        a, b = st.leaves[p], st.leaves[p + 1]
        f = self.fresh()
        self.steps.append(Step("%s = s[%s].fuse(%s, %s)" % (f, st.name, a.name, b.name), [f],
                               [st.name, a.name, b.name]))
        ext = a.extent * b.extent if a.extent is not None and b.extent is not None else None
        st.leaves[p:p + 2] = [Axis(f, a.reduce, ext)]

    def reorder(self, st):
        if len(st.leaves) < 2:
            return
        k = self.rng.randint(2, len(st.leaves))
        chosen = self.rng.sample(range(len(st.leaves)), k)
        pos = sorted(chosen)
        names = [st.leaves[c] for c in chosen]
        self.steps.append(Step("s[%s].reorder(%s)" % (st.name, ", ".join(a.name for a in names)),
                               [], [st.name] + [a.name for a in names]))
        for p, a in zip(pos, names):
            st.leaves[p] = a

    def tile(self, st):
        if len(st.leaves) < 2:
            return
        p = self.rng.randrange(len(st.leaves) - 1)
        x, y = st.leaves[p], st.leaves[p + 1]
        fx, fy = self.rng.choice([2, 3, 4, 8]), self.rng.choice([2, 4, 5, 8, 16])
        n = [self.fresh() for _ in range(4)]
        self.steps.append(Step("%s, %s, %s, %s = s[%s].tile(%s, %s, x_factor=%d, y_factor=%d)" % (
            n[0], n[1], n[2], n[3], st.name, x.name, y.name, fx, fy), n,
            [st.name, x.name, y.name]))
        st.leaves[p:p + 2] = [Axis(n[0], x.reduce, _ceil(x.extent, fx)),
                              Axis(n[1], y.reduce, _ceil(y.extent, fy)),
                              Axis(n[2], x.reduce, fx), Axis(n[3], y.reduce, fy)]

    # Phase 3: attachment ----------------------------------------------------------------------
    def attach(self, st):
        """compute_inline, or compute_at a stage Z's axis such that every consumer is Z or
        is attached at Z at that axis or inside it (so it is computed before it is read)."""
        if st.output or st.hosts:
            return
        cons = self.consumers(st.name)
        r = self.rng.random()
        if (st.tensor is not None and st.tensor.inlinable and st.tensor.src is not None
                and not st.reduce and r < 0.35 and not st.scheduled
                and st.tensor.name == st.name):
            self.steps.append(Step("s[%s].compute_inline()" % st.name, [], [st.name]))
            st.inlined = True
            self.retarget_inlined(st)
            return
        hosts = []
        for z in self.stages.values():
            if z.inlined or z is st or not cons:
                continue
            bound = len(z.leaves) - 1
            for y in cons:
                if y is z:
                    continue
                if y.attached is None or y.attached[0] is not z:
                    break
                bound = min(bound, z.leaves.index(y.attached[1]))
            else:
                hosts.append((z, bound))
        if not hosts or self.rng.random() < 0.15:
            # compute_root: where the default schedule computes it; sometimes after a
            # compute_at that it undoes
            if hosts and self.rng.random() < 0.5:
                z, bound = self.rng.choice(hosts)
                ax = self.rng.choice(z.leaves[:bound + 1])
                self.steps.append(Step("s[%s].compute_at(s[%s], %s)" % (st.name, z.name,
                                                                        ax.name), [],
                                       [st.name, z.name, ax.name]))
            self.steps.append(Step("s[%s].compute_root()" % st.name, [], [st.name]))
            return
        z, bound = self.rng.choice(hosts)
        ax = self.rng.choice(z.leaves[:bound + 1])
        self.steps.append(Step("s[%s].compute_at(s[%s], %s)" % (st.name, z.name, ax.name), [],
                               [st.name, z.name, ax.name]))
        st.attached = (z, ax)
        z.hosts += 1

    def retarget_inlined(self, st):
        for o in self.stages.values():
            if st.name in o.reads:
                o.reads = [x for x in o.reads if x != st.name] + \
                          [x for x in st.reads if x not in o.reads]

    # Phase 4: annotations ---------------------------------------------------------------------
    def annotate(self, st):
        cand = [a for a in st.leaves if a.annot is None]
        if not cand:
            return
        a = self.rng.choice(cand)
        kind = self.rng.choice(["vectorize", "unroll", "parallel"])
        pos = st.leaves.index(a)
        if kind == "vectorize":
            # TVM vectorizes constant extents only; a reduction axis is not vectorized, nor
            # a loop holding a parallel one.
            if a.reduce or a.extent is None or a.extent > 64 or \
                    any(x.annot == "parallel" for x in st.leaves[pos:]):
                return
        elif kind == "unroll":
            if a.extent is None or a.extent > 32:
                return
            # copies of loops of symbolic extent, each of which LLVM unrolls and vectorizes
            # again, take LLVM seconds: a few only
            inner = st.leaves[pos + 1:]
            if any(x.extent is None for x in inner) and \
                    a.extent * _prod(x.extent for x in inner if x.extent) > 64:
                return
        else:
            # Parallel: spatial, at most one among the stages computed at one another (a stage
            # attached under a serial loop may run one), never outside a vectorized loop.
            root = self._attach_root(st)
            if a.reduce or any(x.annot == "parallel" for s in self.stages.values()
                               if not s.inlined and self._attach_root(s) is root
                               for x in s.leaves) or \
                    any(x.annot == "vectorize" for x in st.leaves[:pos]):
                return
        a.annot = kind
        self.steps.append(Step("s[%s].%s(%s)" % (st.name, kind, a.name), [], [st.name, a.name]))

    def _attach_root(self, st):
        while st.attached is not None:
            st = st.attached[0]
        return st

    def pragma(self, st):
        """An unrolling pragma on a loop (what tir.UnrollLoop reads), or loop_partition_hint
        (tir.LoopPartition splits that loop on every comparison below it)."""
        a = self.rng.choice(st.leaves)
        if self.rng.random() < 0.5:
            key, val = "auto_unroll_max_step", self.rng.choice([0, 4, 16, 512])
            if val == 0:
                # a step limit of 0 unrolls nothing: that draw tests the partition hint instead
                # (no draw added, so every seed's other steps stay what they were)
                key, val = "loop_partition_hint", 1
                if self._hint_refused(st, a):
                    # tes refuses a hint whose parts could not stay vector or unrolled code (a
                    # LowerError): the step is a pragma without effect instead, no draw added
                    key, val = "unroll_explicit", True
        else:
            key, val = "unroll_explicit", self.rng.choice([True, False])
        self.steps.append(Step("s[%s].pragma(%s, %r, %r)" % (st.name, a.name, key, val), [],
                               [st.name, a.name]))

    def _hint_refused(self, st, a):
        """Whether loop a of st is vectorized or unrolled, or lies inside a vectorized loop
        (its own stage's, or one of a stage it is computed at): a hint there may be refused."""
        pos = st.leaves.index(a)
        if a.annot in ("vectorize", "unroll") or \
                any(x.annot == "vectorize" for x in st.leaves[:pos]):
            return True
        while st.attached is not None:
            host, axis = st.attached
            upto = host.leaves.index(axis) + 1 if axis in host.leaves else len(host.leaves)
            if any(x.annot == "vectorize" for x in host.leaves[:upto]):
                return True
            st = host
        return False

    def _topo(self, stages):
        """Stages with every producer before its consumers."""
        order, seen = [], set()

        def visit(st):
            if st.name in seen:
                return
            seen.add(st.name)
            for x in st.reads:
                if x in self.stages:
                    visit(self.stages[x])
            order.append(st)
        for st in stages:
            visit(st)
        return order

    def storage_align(self, st):
        """Pads the stride of a root dimension other than the last of a realized stage."""
        roots = [a for a in st.roots if not a.reduce]
        if st.output or st.inlined or len(roots) < 2:
            return
        a = self.rng.choice(roots[:-1])
        f = self.rng.choice([2, 4, 8, 16])
        off = self.rng.randrange(f)
        self.steps.append(Step("s[%s].storage_align(%s, %d, %d)" % (st.name, a.name, f, off),
                               [], [st.name, a.name]))

    def prefetch(self, st):
        """Sometimes a prefetch of a tensor st's op reads (not one it reads only through an
        inlined producer) at a leaf that keeps its loop (TVM stops on one without): of a stage
        not attached (compute_at may leave an axis one long), extent not 1. Drawn from a
        generator of its own, so that the other steps stay those drawn without it."""
        rng = random.Random(hash(self.rng.getstate()[1]) ^ len(self.steps))  # ints: stable
        inlined = {x for s in self.stages.values() if s.inlined for x in s.reads}
        reads = [x for x in st.reads if x not in inlined]
        axes = [a for a in st.leaves if a.extent is None or a.extent > 1]
        if rng.random() >= 0.1 or st.attached is not None or not reads or not axes:
            return
        a, t = rng.choice(axes), rng.choice(reads)
        self.steps.append(Step("s[%s].prefetch(%s, %s, %d)" % (
            st.name, t, a.name, rng.choice([0, 1, 2, 5])), [], [st.name, a.name, t]))

    def generate(self, comp):
        r = self.rng
        self.all_tensors = comp.tensors
        # the te.vars an argument binds (a split by one of them)
        self.vars = [v for v in comp.vars if any(
            d.expr == v[0] for t in self.reach if t.placeholder or t in self.outs
            for d in t.shape)]
        comp_stages = list(self.stages.values())
        # Phase 1
        for st in comp_stages:
            if st.reduce and r.random() < 0.2:
                self.rfactor(st)
            elif r.random() < 0.15:
                self.cache_write(st)
        for t in comp.tensors:
            if t.multi:
                continue
            rd = [s for s in self.stages.values() if t.name in s.reads]
            if rd and r.random() < 0.15:
                self.cache_read(t.name, r.sample(rd, r.randint(1, len(rd))))
        stages = list(self.stages.values())
        # Phase 2
        for st in stages:
            self.name_roots(st)
            for _ in range(r.choice([0, 0, 1, 1, 2, 3])):
                r.choices([self.split, self.fuse, self.reorder, self.tile], [5, 2, 2, 1])[0](st)
                st.scheduled = True
        # Phase 3: consumers before producers, so that where a consumer is computed is known
        for st in reversed(self._topo(stages)):
            if r.random() < 0.5:
                self.attach(st)
        # Phase 4
        for st in stages:
            if st.inlined:
                continue
            for _ in range(r.choice([0, 1, 1, 2])):
                self.annotate(st)
            if r.random() < 0.1:
                self.storage_align(st)
            if st.attached is not None and r.random() < 0.2:
                self.steps.append(Step("s[%s].double_buffer()" % st.name, [], [st.name]))
            if r.random() < 0.08:
                self.pragma(st)
            self.prefetch(st)
        return self.steps


def _prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def _ceil(e, f):
    return None if e is None else -(-e // f)


def _reachable(outs):
    seen, todo = set(), list(outs)
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo.extend(t.reads)
    return seen


# ---------------------------------------------------------------------------------------------
# A case and its TES text.


class Case:
    def __init__(self, seed):
        self.seed = seed
        rng = random.Random(seed)
        self.comp = ComputeGen(rng, symbolic=rng.random() < 0.3, dtype=rng.choice(DTYPES))
        self.outs = [self.comp.generate()]
        # Sometimes an intermediate stage is an output too (its consumers read the output).
        inner = [t for t in _reachable(self.outs) if not t.placeholder and t is not self.outs[0]
                 and not t.multi]
        if inner and rng.random() < 0.15:
            self.outs.append(rng.choice(sorted(inner, key=lambda t: t.name)))
        self.sched = ScheduleGen(rng, self.comp, self.outs)
        self.steps = self.sched.generate(self.comp)
        self.settings = build_settings(rng)
        # the "c" target too: its source compiled with gcc (run.py) on the same inputs must
        # give what the reference gave (float16, which C has no portable type for, left out)
        if rng.random() < 0.04 and all(t.dtype != "float16" for t in _reachable(self.outs)):
            self.settings.append(("c", "gcc"))
        # a GPU schedule too (gpu.py), built for "cuda" and run by the CUDA emulator
        # (gpucheck.py), drawn from a generator of its own
        self.gpu = []
        if rng.random() < GPU_SHARE:
            import gpu
            if gpu.fits(self):
                self.gpu = gpu.GpuGen(random.Random(seed * 7919 + 1), self.comp,
                                      self.outs).generate()

    def args(self):
        reach = _reachable(self.outs)
        return [t for t in self.comp.tensors if t.placeholder and t in reach] + self.outs

    def compute_src(self):
        lines = ["%s = te.var(%r)" % (n, n) for n, _ in self.comp.vars]
        reach = _reachable(self.outs)
        for t in self.comp.tensors:
            if t not in reach:
                continue
            if t.placeholder:
                lines.append("%s = te.placeholder((%s,), name=%r%s)" % (
                    t.name, ", ".join(d.expr for d in t.shape), t.name,
                    "" if t.dtype == "float32" else ", dtype=%r" % t.dtype))
            elif isinstance(t.src, tuple):
                lines.extend(t.src[0].split("\n"))
                lines.append("%s = %s" % (t.lhs, t.src[1]))
            else:
                lines.append("%s = %s" % (t.lhs, t.src))
        return lines

    def render(self, steps=None, settings=None, cdir=None, gsteps=None, gdir=None):
        """The case as a TES function `case_<seed>()`: raises on a mismatch. Where the
        settings hold the "c" target and cdir is given, it also saves the scheduled program's
        C source as cdir/case_<seed>.c and prints its inputs and the reference outputs as
        `cdata SEED NAME DTYPE VALUES...` lines for run.py to check the C against. Where the
        case has GPU steps (gsteps) and gdir is given, it builds them for "cuda" and writes
        what tests/tools/cuda_emulate.py reads to gdir (gpucheck.py)."""
        steps = self.steps if steps is None else steps
        gsteps = self.gpu if gsteps is None else gsteps
        settings = self.settings if settings is None else settings
        args = self.args()
        an = ", ".join(t.name for t in args)
        body = self.compute_src()
        ops = "[%s]" % ", ".join(o.name + ".op" for o in self.outs)
        body.append("ref = tvm.build(te.create_schedule(%s), [%s], 'llvm')" % (ops, an))
        body.append("s = te.create_schedule(%s)" % ops)
        for st in steps:
            body.extend(st.src.split("\n"))
        body.extend(render_build("f = tvm.build(s, [%s], %%r)" % an, settings))
        body.append("np.random.seed(%d)" % (self.seed % 100000))
        ins = []
        for t in args[:-len(self.outs)]:
            shape = ", ".join(str(d.val) for d in t.shape)
            dt = t.dtype
            draw = "uniform(-1, 1" if _is_float(dt) else (
                "randint(0, 5" if dt.startswith("u") else "randint(-4, 5")
            body.append("%s_np = np.random.%s, size=(%s,)).astype(%r)" % (
                t.name, draw, shape, dt))
            ins.append(t.name + "_np")
        wants, gots = [], []
        for k, o in enumerate(self.outs):
            oshape = ", ".join(str(d.val) for d in o.shape)
            dt = o.dtype
            # the output's dtype as te gives it (a Python constant may widen an int16 one)
            body.append("want%d = np.full((%s,), %d, dtype=%s.dtype)" % (
                k, oshape, 7 if dt.startswith("u") else -3, o.name))
            body.append("got%d = np.full((%s,), 5, dtype=%s.dtype)" % (k, oshape, o.name))
            wants.append("want%d" % k)
            gots.append("got%d" % k)
        body.append("ref(%s)" % ", ".join(ins + wants))
        body.append("f(%s)" % ", ".join(ins + gots))
        # a float output is as precise as the least precise float type it is computed from
        tol_f = max(TOLERANCE.get(t.dtype, 0) for t in _reachable(self.outs))
        for w, g, o in zip(wants, gots, self.outs):
            tol = tol_f if _is_float(o.dtype) else 0
            body.append("tvm.testing.assert_allclose(%s, %s, rtol=%g, atol=%g)" % (
                g, w, tol, tol))
        if cdir is not None and any(k == "c" for k, _ in settings):
            cset = [x for x in settings if x[0] not in ("target", "via")] + [("target", "c")]
            body.extend(render_build("fc = tvm.build(s, [%s], %%r, name='cfun')" % an, cset))
            body.append("fc.save(%r)" % ("%s/case_%d.c" % (cdir, self.seed)))
            for name, arr in zip([t.name for t in args[:-len(self.outs)]] +
                                 [o.name for o in self.outs], ins + wants):
                body.append("print('cdata %d %s', %s.dtype, ' '.join(repr(v) for v in "
                            "%s.flatten().tolist()))" % (self.seed, name, arr, arr))
        if gdir is not None and gsteps:
            body.append("s = te.create_schedule(%s)" % ops)
            for st in gsteps:
                body.extend(st.src.split("\n"))
            body.append("fg = tvm.build(s, [%s], 'cuda', name='gfun')" % an)
            body.append("fg.imported_modules[0].save(%r)" % (gdir + "/kernel.cu"))
            body.append("print('ghost %d begin')" % self.seed)
            body.append("print(fg.get_source())")
            body.append("print('ghost %d end')" % self.seed)
            for t, arr in zip(args[:-len(self.outs)], ins):
                body.append("np.save(%r, %s)" % ("%s/%s.npy" % (gdir, t.name), arr))
            for o, w, g in zip(self.outs, wants, gots):
                body.append("np.save(%r, np.full(%s.shape, 5, dtype=%s.dtype))" % (
                    "%s/%s.npy" % (gdir, o.name), w, w))
                body.append("np.save(%r, %s)" % ("%s/%s.expect.npy" % (gdir, o.name), w))
        return "def case_%d():\n%s\n" % (self.seed, "\n".join("    " + l for l in body))


# The share of cases that draw a GPU schedule too (run.py --gpu: every case)
GPU_SHARE = 0.04

# Float outputs compare with a tolerance (a schedule may reorder a sum); integers exactly.
TOLERANCE = {"float16": 2e-2, "float32": 1e-4, "float64": 1e-6}


def build_settings(rng):
    """How the scheduled program is built: a target (with options), and a PassContext's
    opt_level and config keys; a list of ("target" | "opt_level" | "config", text)."""
    out = []
    r = rng.random()
    if r < 0.2:
        out.append(("target", "llvm -mcpu=x86-64"))
    elif r < 0.3:
        out.append(("target", "llvm -opt-level=0"))
    elif r < 0.35:
        out.append(("target", "llvm -mcpu=core-avx2"))
    if rng.random() < 0.15:
        out.append(("opt_level", str(rng.choice([0, 1, 2, 3]))))
    for key, val, p in (("tir.LoopPartition", "{'partition_const_loop': True}", 0.2),
                        ("tir.UnrollLoop", "{'auto_max_step': %d, 'explicit_unroll': %s}" % (
                            rng.choice([4, 8, 16]), rng.choice(["True", "False"])), 0.1),
                        ("tir.disable_vectorize", "True", 0.05),
                        ("tir.instrument_bound_checkers", "True", 0.05)):
        if rng.random() < p:
            out.append(("config", "%r: %s" % (key, val)))
    if rng.random() < 0.1:
        out.append(("via", "tvm.lower"))  # tvm.build of the IRModule tvm.lower gives
    return out


def render_build(line, settings):
    """The build line (with %r for the target) under a PassContext where settings ask."""
    target = "llvm"
    ctx = []
    cfg = []
    for kind, text in settings:
        if kind == "target":
            target = text
        elif kind == "opt_level":
            ctx.append("opt_level=%s" % text)
        elif kind == "c":  # (run.py's check, not a build setting)
            continue
        elif kind == "via":
            line = line.replace("tvm.build(s, [", "tvm.build(tvm.lower(s, [").replace(
                "], %r)", "]), target=%r)")
        else:
            cfg.append(text)
    if cfg:
        ctx.append("config={%s}" % ", ".join(cfg))
    if not ctx:
        return [line % target]
    return ["with tvm.transform.PassContext(%s):" % ", ".join(ctx), "    " + line % target]


HEADER = """import numpy as np
import tvm
from tvm import te


def _argmax_combine(x, y):
    # the larger value, ties to the lower index: commutative and associative
    take = tvm.tir.any(x[1] > y[1], tvm.tir.all(x[1] == y[1], x[0] < y[0]))
    return tvm.tir.Select(take, x[0], y[0]), tvm.tir.Select(take, x[1], y[1])


def _argmax_identity(t0, t1):
    return tvm.tir.const(-1, t0), te.min_value(t1)


_argmax = te.comm_reducer(_argmax_combine, _argmax_identity, name="argmax")
"""


def render_batch(cases, cdir=None):
    """A TES program running each case and printing `case SEED ok|KIND: message`. A GPU
    case writes its files to cdir/gpu_SEED (a folder run.py makes)."""
    out = [HEADER]
    for c in cases:
        out.append(c.render(cdir=cdir, gdir=None if cdir is None else
                            "%s/gpu_%d" % (cdir, c.seed)))
    for c in cases:
        out.append("try:\n    case_%d()\n    print('case %d ok')\n"
                   "except AssertionError as e:\n    print('case %d wrong')\n"
                   "except Exception as e:\n    print('case %d error ' + type(e).__name__ + "
                   "': ' + str(e).split('\\n')[0])\n" % (c.seed, c.seed, c.seed, c.seed))
    return "\n".join(out)
