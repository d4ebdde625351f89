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
    def __init__(self, name, shape, src, reads, reduce_axes=0, inlinable=True):
        self.name, self.shape, self.src, self.reads = name, shape, src, reads
        self.reduce_axes = reduce_axes  # number of reduction axes (0: injective)
        self.inlinable = inlinable and reduce_axes == 0
        self.placeholder = src is None


IDX = "ijlm"


def _lam(rank):
    return "lambda %s:" % ", ".join(IDX[:rank])


def _at(t, idx):
    return "%s[%s]" % (t.name, ", ".join(idx))


class ComputeGen:
    """Draws a DAG of stages; the last one is the output."""

    def __init__(self, rng, symbolic, dtype):
        self.rng = rng
        self.dtype = dtype
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

    def placeholder(self, shape):
        t = Tensor("P%d" % len([x for x in self.tensors if x.placeholder]), shape, None, [])
        self.tensors.append(t)
        return t

    def new_name(self):
        self.nstage += 1
        return "T%d" % self.nstage

    def pick(self, pred=lambda t: True):
        c = [t for t in self.tensors if pred(t)]
        # Prefer recent tensors, so that chains form.
        return c[-1] if c and self.rng.random() < 0.6 else (self.rng.choice(c) if c else None)

    def unary(self, x):
        r = self.rng
        if self.dtype == "int32":  # small values: no overflow in a chain of four
            return r.choice(["%s * 3 + 1" % x, "te.max(%s, 0)" % x, "%s // 3" % x,
                             "te.min(%s, 2) - 1" % x, "%s %% 4 - 2" % x, "%s - 2" % x,
                             "te.if_then_else(%s > 0, %s, 1 - %s)" % (x, x, x)])
        return r.choice(["%s * 1.5 + 0.25" % x, "te.max(%s, 0.0)" % x, "%s * %s" % (x, x),
                         "te.min(%s, 0.5) - 0.125" % x, "%s - 2.0" % x, "te.exp(%s * 0.5)" % x,
                         "te.if_then_else(%s > 0.0, %s, %s * 0.25)" % (x, x, x),
                         "te.sqrt(te.abs(%s) + 1.0)" % x])

    def add(self, name, shape, src, reads, nred=0):
        t = Tensor(name, shape, src, reads, nred)
        self.tensors.append(t)
        return t

    # Stage kinds --------------------------------------------------------------------------
    def elementwise(self):
        x = self.pick(lambda t: True)
        n = self.new_name()
        idx = IDX[:len(x.shape)]
        body = self.unary(_at(x, idx))
        src = "te.compute((%s,), %s %s, name=%r)" % (", ".join(d.expr for d in x.shape),
                                                      _lam(len(x.shape)), body, n)
        return self.add(n, x.shape, src, [x])

    def binary(self):
        x = self.pick()
        r = len(x.shape)
        idx = list(IDX[:r])
        # The other operand: a tensor of the same shape, or a new placeholder broadcast along
        # the leading axes (its shape is a suffix of x's).
        same = [t for t in self.tensors if t is not x and _same_shape(t.shape, x.shape)]
        if same and self.rng.random() < 0.6:
            y, yidx = self.rng.choice(same), idx
        else:
            k = self.rng.randint(1, r)
            if not all(_plain(d) for d in x.shape[r - k:]):
                return None
            y = self.placeholder(x.shape[r - k:])
            yidx = idx[r - k:]
        op = self.rng.choice(["+", "-", "*"])
        n = self.new_name()
        src = "te.compute((%s,), %s %s %s %s, name=%r)" % (
            ", ".join(d.expr for d in x.shape), _lam(r), _at(x, idx), op, _at(y, yidx), n)
        return self.add(n, x.shape, src, [x, y])

    def transpose(self):
        x = self.pick(lambda t: len(t.shape) == 2)
        if x is None:
            return None
        n = self.new_name()
        src = "te.compute((%s, %s), lambda i, j: %s[j, i], name=%r)" % (
            x.shape[1].expr, x.shape[0].expr, x.name, n)
        return self.add(n, [x.shape[1], x.shape[0]], src, [x])

    def row_reduce(self):
        x = self.pick(lambda t: len(t.shape) >= 2)
        if x is None:
            return None
        n = self.new_name()
        r = len(x.shape)
        k = "k%s" % n
        red = self.rng.choice(["te.sum", "te.sum", "te.max", "te.min"])
        decl = "%s = te.reduce_axis((0, %s), name=%r)" % (k, x.shape[-1].expr, k)
        idx = list(IDX[:r - 1]) + [k]
        src = "te.compute((%s,), %s %s(%s, axis=%s), name=%r)" % (
            ", ".join(d.expr for d in x.shape[:-1]), _lam(r - 1), red, _at(x, idx), k, n)
        return self.add(n, x.shape[:-1], (decl, src), [x], 1)

    def matmul(self):
        x = self.pick(lambda t: len(t.shape) == 2)
        if x is None or not _plain(x.shape[1]):
            return None
        n = self.new_name()
        w = self.placeholder([x.shape[1], self.dim()])
        k = "k%s" % n
        decl = "%s = te.reduce_axis((0, %s), name=%r)" % (k, x.shape[1].expr, k)
        src = "te.compute((%s, %s), lambda i, j: te.sum(%s[i, %s] * %s[%s, j], axis=%s), " \
              "name=%r)" % (x.shape[0].expr, w.shape[1].expr, x.name, k, w.name, k, k, n)
        return self.add(n, [x.shape[0], w.shape[1]], (decl, src), [x, w], 1)

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
        src_x = x
        if p:
            pn = self.new_name()
            cond = "te.all(i >= %d, i < %s, j >= %d, j < %s)" % (p, h.plus(p).expr, p,
                                                                 w.plus(p).expr)
            src = "te.compute((%s, %s), lambda i, j: te.if_then_else(%s, %s[i - %d, j - %d], " \
                  "%s), name=%r)" % (h.plus(2 * p).expr, w.plus(2 * p).expr, cond, x.name, p,
                                     p, "0" if self.dtype == "int32" else "0.0", pn)
            src_x = self.add(pn, [h.plus(2 * p), w.plus(2 * p)], src, [x])
        kw = self.placeholder([Dim(str(rsz), rsz), Dim(str(rsz), rsz)])
        n = self.new_name()
        ry, rx = "ry%s" % n, "rx%s" % n
        decl = "%s = te.reduce_axis((0, %d), name=%r)\n%s = te.reduce_axis((0, %d), name=%r)" % (
            ry, rsz, ry, rx, rsz, rx)
        oh, ow = src_x.shape[0].plus(1 - rsz), src_x.shape[1].plus(1 - rsz)
        src = "te.compute((%s, %s), lambda i, j: te.sum(%s[i + %s, j + %s] * %s[%s, %s], " \
              "axis=[%s, %s]), name=%r)" % (oh.expr, ow.expr, src_x.name, ry, rx, kw.name, ry,
                                            rx, ry, rx, n)
        return self.add(n, [oh, ow], (decl, src), [src_x, kw], 2)

    def generate(self):
        r = self.rng
        rank = r.choice([1, 2, 2, 2, 3])
        self.placeholder([self.dim() for _ in range(rank)])
        kinds = [self.elementwise, self.binary, self.transpose, self.row_reduce, self.matmul,
                 self.conv]
        weights = [3, 3, 1, 3, 2, 2]
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
                e = line.split("(0, ")[1].split(")")[0]
                a.extent = int(e) if e.isdigit() else None

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
        self.steps.append(Step("%s = s.cache_write(%s, %r)" % (cname, st.name, scope),
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
        if self.rng.random() < 0.7:
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
        self.steps.append(Step("%s = s.rfactor(%s, %s, factor_axis=%d)" % (
            fname, st.name, target.name, fa), [fname], uses))
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
        if self.rng.random() < 0.8:
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
        if not hosts:
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
        else:
            # Parallel: spatial, at most one per stage, never nested in another parallel loop.
            if a.reduce or st.attached is not None or \
                    any(x.annot == "parallel" for x in st.leaves) or \
                    any(x.annot == "vectorize" for x in st.leaves[:pos]):
                return
        a.annot = kind
        self.steps.append(Step("s[%s].%s(%s)" % (st.name, kind, a.name), [], [st.name, a.name]))

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

    def generate(self, comp):
        r = self.rng
        self.all_tensors = comp.tensors
        comp_stages = list(self.stages.values())
        # Phase 1
        for st in comp_stages:
            if st.reduce and r.random() < 0.2:
                self.rfactor(st)
            elif r.random() < 0.15:
                self.cache_write(st)
        for t in comp.tensors:
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
        return self.steps


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
        self.comp = ComputeGen(rng, symbolic=rng.random() < 0.3,
                               dtype="int32" if rng.random() < 0.15 else "float32")
        self.outs = [self.comp.generate()]
        # Sometimes an intermediate stage is an output too (its consumers read the output).
        inner = [t for t in _reachable(self.outs) if not t.placeholder and t is not self.outs[0]]
        if inner and rng.random() < 0.15:
            self.outs.append(rng.choice(sorted(inner, key=lambda t: t.name)))
        self.sched = ScheduleGen(rng, self.comp, self.outs)
        self.steps = self.sched.generate(self.comp)

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
                    ", dtype='int32'" if self.comp.dtype == "int32" else ""))
            elif isinstance(t.src, tuple):
                lines.extend(t.src[0].split("\n"))
                lines.append("%s = %s" % (t.name, t.src[1]))
            else:
                lines.append("%s = %s" % (t.name, t.src))
        return lines

    def render(self, steps=None):
        """The case as a TES function `case_<seed>()`: raises on a mismatch."""
        steps = self.steps if steps is None else steps
        args = self.args()
        an = ", ".join(t.name for t in args)
        body = self.compute_src()
        ops = "[%s]" % ", ".join(o.name + ".op" for o in self.outs)
        body.append("ref = tvm.build(te.create_schedule(%s), [%s], 'llvm')" % (ops, an))
        body.append("s = te.create_schedule(%s)" % ops)
        for st in steps:
            body.extend(st.src.split("\n"))
        body.append("f = tvm.build(s, [%s], 'llvm')" % an)
        body.append("np.random.seed(%d)" % (self.seed % 100000))
        ins = []
        dt = self.comp.dtype
        for t in args[:-len(self.outs)]:
            shape = ", ".join(str(d.val) for d in t.shape)
            draw = "randint(-4, 5" if dt == "int32" else "uniform(-1, 1"
            body.append("%s_np = np.random.%s, size=(%s,)).astype(%r)" % (
                t.name, draw, shape, dt))
            ins.append(t.name + "_np")
        wants, gots = [], []
        for k, o in enumerate(self.outs):
            oshape = ", ".join(str(d.val) for d in o.shape)
            body.append("want%d = np.full((%s,), -3, dtype=%r)" % (k, oshape, dt))
            body.append("got%d = np.full((%s,), 5, dtype=%r)" % (k, oshape, dt))
            wants.append("want%d" % k)
            gots.append("got%d" % k)
        body.append("ref(%s)" % ", ".join(ins + wants))
        body.append("f(%s)" % ", ".join(ins + gots))
        for w, g in zip(wants, gots):
            body.append("tvm.testing.assert_allclose(%s, %s, rtol=1e-4, atol=1e-4)" % (g, w))
        return "def case_%d():\n%s\n" % (self.seed, "\n".join("    " + l for l in body))


HEADER = "import numpy as np\nimport tvm\nfrom tvm import te\n"


def render_batch(cases):
    """A TES program running each case and printing `case SEED ok|KIND: message`."""
    out = [HEADER]
    for c in cases:
        out.append(c.render())
    for c in cases:
        out.append("try:\n    case_%d()\n    print('case %d ok')\n"
                   "except AssertionError as e:\n    print('case %d wrong')\n"
                   "except Exception as e:\n    print('case %d error ' + type(e).__name__ + "
                   "': ' + str(e).split('\\n')[0])\n" % (c.seed, c.seed, c.seed, c.seed))
    return "\n".join(out)
