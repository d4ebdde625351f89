"""GPU schedules for the differential schedule fuzzer: for a case's compute, a schedule legal
for the "cuda" target in TVM's rules, as schedule steps (gen.Step).

Every stage that is not inlined gets its own kernel: its spatial axes fused and split over
blockIdx.x and threadIdx.x (or the leading axes over blockIdx.y/threadIdx.y and the last over
blockIdx.x/threadIdx.x), at most 256 threads a block, sometimes with a vthread axis between
the block and the thread axes or a serial, unrolled loop inside the thread axis. A reduction
is one of: serial in each thread; a cross-thread allreduce (its axes fused, split, the inner
part bound to threadIdx.x, or the whole axis bound where it is short); rfactor of a part of a
split axis, the rfactor stage computed in a kernel of its own; or rfactor computed at the
remaining reduction axis bound to threadIdx.x (TOPI's schedule_reduce). A stage may have a
cache_write "local" computed at its thread axis, and an input read through a cache_read
"shared" computed at its block axis, fetched cooperatively by the block's threads. Injective
stages that are not outputs may be inlined. The host keeps no loop around a launch: every
axis outside the thread axes is bound to a block axis.

The grid of each kernel is kept small (the emulator runs one host thread a CUDA thread where a
kernel synchronises), and the shared cache of a tensor only where the whole tensor fits in
48 KB.
"""

import gen

THREADS = [1, 2, 8, 16, 24, 32, 33, 48, 64, 100, 128, 256]
SIZE = {"float32": 4, "float64": 8, "int8": 1, "uint8": 1, "int16": 2, "int32": 4,
        "int64": 8, "float16": 2}
# the most CUDA threads (grid times block) of a kernel that synchronises its threads
MAX_SYNC_THREADS = 12000


def fits(case):
    """Whether the case's compute can be drawn in GPU mode: no float16 (the emulator has no
    half type)."""
    return all(t.dtype != "float16" for t in gen._reachable(case.outs))


class StageInfo:
    def __init__(self, name, tensor, spatial, reduce, reads):
        self.name = name
        self.tensor = tensor
        self.spatial = spatial  # [(extent value at run time, constant extent or None)]
        self.reduce = reduce  # [(value, constant or None, lo)]
        self.reads = reads  # tensor names
        self.direct = list(reads)  # the tensors its op reads (cache_read names them)
        self.inlined = False
        self.kind = None


class GpuGen:
    def __init__(self, rng, comp, outs):
        self.rng = rng
        self.comp = comp
        self.outs = outs
        self.vals = dict(comp.vars)
        self.steps = []
        self.n = 0
        reach = gen._reachable(outs)
        self.tensors = [t for t in comp.tensors if t in reach]
        self.stages = {}
        for t in self.tensors:
            if t.placeholder:
                continue
            red = []
            if t.reduce_axes:
                for line in t.src[0].split("\n"):
                    lo, e = line.split("((")[1].split(")")[0].split(", ")
                    v = self.value(e)
                    red.append((v - int(lo), int(e) - int(lo) if e.isdigit() else None,
                                int(lo)))
            self.stages[t.name] = StageInfo(t.name, t, [(d.val, d.const()) for d in t.shape],
                                            red, [x.name for x in t.reads])

    def value(self, expr):
        return int(eval(expr, {}, dict(self.vals)))

    def fresh(self, base="g"):
        self.n += 1
        return "%s%d" % (base, self.n)

    def step(self, src, defines=(), uses=()):
        self.steps.append(gen.Step(src, defines, uses))

    def consumers(self, name):
        return [s for s in self.stages.values() if name in s.reads]

    # ---------------------------------------------------------------------------------------
    def generate(self):
        r = self.rng
        order = list(self.stages.values())
        # Inline some injective stages that are not outputs (consumers first, as gen does).
        for st in reversed(order):
            t = st.tensor
            if (t.inlinable and t not in self.outs and not st.reduce and t.lhs == t.name
                    and r.random() < 0.4):
                self.step("s[%s].compute_inline()" % st.name, [], [st.name])
                st.inlined = True
                for c in self.consumers(st.name):
                    c.reads = [x for x in c.reads if x != st.name] + \
                              [x for x in st.reads if x not in c.reads]
        for st in order:
            if st.inlined:
                continue
            if st.reduce:
                st.kind = r.choice(["serial", "serial", "allreduce", "allreduce", "rfactor",
                                    "rfactor_tx"])
            else:
                st.kind = "plain"
            if st.kind in ("allreduce", "rfactor_tx") and not self.sync_ok(st):
                st.kind = "serial"
            getattr(self, "sched_" + st.kind.split("_")[0] + (
                "_tx" if st.kind == "rfactor_tx" else ""))(st)
        return self.steps

    def sync_ok(self, st):
        """A reduction across threads: the grid (one block an output element) small enough."""
        return gen._prod(v for v, _ in st.spatial) * 64 <= MAX_SYNC_THREADS

    def roots(self, name, st_spatial, nred, expr="s[%s]"):
        """Names the root axes of a stage: (spatial names, reduce names)."""
        sp = [self.fresh("ax") for _ in range(st_spatial)]
        rd = [self.fresh("rk") for _ in range(nred)]
        lines = ["%s = (%s).op.axis[%d]" % (a, expr % name, i) for i, a in enumerate(sp)]
        lines += ["%s = (%s).op.reduce_axis[%d]" % (a, expr % name, i) for i, a in enumerate(rd)]
        if lines:
            self.step("\n".join(lines), sp + rd, [name])
        return sp, rd

    def bind(self, name, axis, tag):
        self.step("s[%s].bind(%s, te.thread_axis(%r))" % (name, axis, tag), [], [name, axis])

    def split(self, name, axis, arg):
        o, i = self.fresh("o"), self.fresh("i")
        self.step("%s, %s = s[%s].split(%s, %s)" % (o, i, name, axis, arg), [o, i],
                  [name, axis])
        return o, i

    def fuse(self, name, axes):
        if len(axes) == 1:
            return axes[0]
        f = self.fresh("f")
        self.step("%s = s[%s].fuse(%s)" % (f, name, ", ".join(axes)), [f], [name] + axes)
        return f

    def threads(self, cap=256):
        return self.rng.choice([t for t in THREADS if t <= cap])

    def two_d(self, nsp):
        """Whether a stage of nsp spatial axes binds them in two dimensions."""
        return nsp >= 2 and self.rng.random() < 0.35

    def spatial_bind(self, name, sp, vals, two_d=False, per_thread=True):
        """Binds the spatial axes sp (values vals) of a stage; returns (block axis, thread
        axis, [thread extents (x, y)]) for compute_at and cooperative fetches. per_thread: a
        serial loop inside the thread axis may be drawn."""
        r = self.rng
        total = gen._prod(vals)
        if two_d:
            y = self.fuse(name, sp[:-1])
            ntx = self.threads(64)
            nty = self.threads(max(1, 256 // ntx))
            by, ty = self.split(name, y, "factor=%d" % nty)
            bx, tx = self.split(name, sp[-1], "factor=%d" % ntx)
            self.step("s[%s].reorder(%s, %s, %s, %s)" % (name, by, bx, ty, tx), [],
                      [name, by, bx, ty, tx])
            self.bind(name, by, "blockIdx.y")
            self.bind(name, bx, "blockIdx.x")
            self.bind(name, ty, "threadIdx.y")
            self.bind(name, tx, "threadIdx.x")
            return bx, tx, (ntx, nty)
        f = self.fuse(name, sp)
        nt = self.threads()
        c = r.random()
        if c < 0.15 and per_thread:  # each thread computes u elements, an unrolled loop
            u = r.choice([2, 3, 4])
            o, ii = self.split(name, f, "factor=%d" % u)
            bx, tx = self.split(name, o, "factor=%d" % nt)
            self.step("s[%s].unroll(%s)" % (name, ii), [], [name, ii])
        elif c < 0.3 and total >= 4:  # virtual threads between the block and thread axes
            v = r.choice([2, 3, 4])
            bx, rest = self.split(name, f, "factor=%d" % (nt * v))
            vx, tx = self.split(name, rest, "factor=%d" % nt)
            self.bind(name, vx, "vthread")
        else:
            bx, tx = self.split(name, f, "factor=%d" % nt)
        self.bind(name, bx, "blockIdx.x")
        self.bind(name, tx, "threadIdx.x")
        return bx, tx, (nt, 1)

    # ---------------------------------------------------------------------------------------
    def caches(self, st, two_d):
        """Maybe a cache_write "local" of st; maybe a cache_read "shared" of an input.
        Returns (local cache name or None, [(shared cache name)]). Only where no spatial
        axes are fused: the region of a fused axis split across blocks or threads has an
        extent known only at run time (rows it may span), an allocation neither TVM nor tes
        sizes."""
        r = self.rng
        local = None
        if len(st.spatial) > (2 if two_d else 1):
            return None, []
        if not st.tensor.multi and r.random() < 0.2:
            local = self.fresh(st.name + "_l")
            self.step("%s = s.cache_write(%s, 'local')" % (local, st.name), [local], [st.name])
        shared = []
        for x in st.direct:
            t = next((t for t in self.tensors if t.name == x), None)
            if t is None or (not t.placeholder and self.stages[x].inlined) or t.multi:
                continue
            # (a shared allocation has a constant size, in TVM as in tes)
            if any(d.const() is None for d in t.shape) or any(c is None for _, c in st.spatial):
                continue
            if gen._prod(d.val for d in t.shape) * SIZE[t.dtype] > 48 * 1024 or \
                    gen._prod(v for v, _ in st.spatial) > MAX_SYNC_THREADS // 2:
                continue
            if r.random() < 0.25:
                c = self.fresh(x + "_s")
                self.step("%s = s.cache_read(%s, 'shared', [%s])" % (
                    c, x, local or st.name), [c], [x, local or st.name])
                shared.append((c, len(t.shape)))
        return local, shared

    def attach_caches(self, name, local, shared, bx, tx, nts):
        if local is not None:
            self.step("s[%s].compute_at(s[%s], %s)" % (local, name, tx), [],
                      [local, name, tx])
        for c, rank in shared:
            self.step("s[%s].compute_at(s[%s], %s)" % (c, name, bx), [], [c, name, bx])
            sp, _ = self.roots(c, rank, 0)
            f = self.fuse(c, sp)
            o, i = self.split(c, f, "factor=%d" % nts[0])
            if nts[1] > 1:
                _, iy = self.split(c, o, "factor=%d" % nts[1])
                self.bind(c, iy, "threadIdx.y")
            self.bind(c, i, "threadIdx.x")

    def sched_plain(self, st):
        two_d = self.two_d(len(st.spatial))
        local, shared = self.caches(st, two_d)
        sp, _ = self.roots(st.name, len(st.spatial), 0)
        bx, tx, nts = self.spatial_bind(st.name, sp, [v for v, _ in st.spatial], two_d,
                                        local is None)
        self.attach_caches(st.name, local, shared, bx, tx, nts)

    def sched_serial(self, st):
        two_d = self.two_d(len(st.spatial))
        local, shared = self.caches(st, two_d)
        sp, rd = self.roots(st.name, len(st.spatial), len(st.reduce) if not local else 0)
        if rd and st.reduce[-1][1] is not None and st.reduce[-1][1] <= 16 and \
                self.rng.random() < 0.3:
            self.step("s[%s].unroll(%s)" % (st.name, rd[-1]), [], [st.name, rd[-1]])
        bx, tx, nts = self.spatial_bind(st.name, sp, [v for v, _ in st.spatial], two_d,
                                        local is None)
        self.attach_caches(st.name, local, shared, bx, tx, nts)

    def sched_allreduce(self, st):
        r = self.rng
        sp, rd = self.roots(st.name, len(st.spatial), len(st.reduce))
        k = self.fuse(st.name, rd)
        ext = gen._prod(c for _, c, _ in st.reduce) if all(
            c is not None for _, c, _ in st.reduce) else None
        if ext is not None and ext <= 256 and r.random() < 0.3:
            kt, ntx = k, ext
        else:
            ntx = r.choice([8, 16, 32, 48, 64, 128])
            _, kt = self.split(st.name, k, "factor=%d" % ntx)
        f = self.fuse(st.name, sp)
        nty = r.choice([t for t in (1, 1, 2, 4) if t * ntx <= 256])
        if nty > 1:
            by, ty = self.split(st.name, f, "factor=%d" % nty)
            self.bind(st.name, by, "blockIdx.x")
            self.bind(st.name, ty, "threadIdx.y")
        else:
            self.bind(st.name, f, "blockIdx.x")
        self.bind(st.name, kt, "threadIdx.x")

    def rfactor_split(self, st):
        """Splits a reduction axis and rfactors a part: (rf tensor name, factored extent,
        which part)."""
        r = self.rng
        sp, rd = self.roots(st.name, len(st.spatial), len(st.reduce))
        j = r.randrange(len(rd))
        f = r.choice([2, 4, 8, 16])
        ko, ki = self.split(st.name, rd[j], "factor=%d" % f)
        # (the outer part over threads only where it is short and of a constant extent: an
        # allreduce's thread extents are constants, in TVM as in tes)
        part = r.choice(["inner", "outer"]) if -(-st.reduce[j][0] // f) <= 256 and \
            st.reduce[j][1] is not None else "inner"
        rf = self.fresh(st.name + "_rf")
        self.step("%s = s.rfactor(%s, %s)%s" % (rf, st.name, ki if part == "inner" else ko,
                                                "[0]" if st.tensor.multi else ""),
                  [rf], [st.name, ki, ko])
        v, c, _ = st.reduce[j]
        fext = (f if part == "inner" else -(-v // f))
        return rf, fext, j

    def sched_rfactor(self, st):
        """rfactor; the rf stage and the stage each a kernel of their own."""
        rf, fext, j = self.rfactor_split(st)
        rest = [x for i, x in enumerate(st.reduce) if i != j]
        nrest = len(rest) + 1  # the other part of the split stays a reduction of rf
        sp, _ = self.roots(rf, len(st.spatial) + 1, nrest)
        self.spatial_bind(rf, sp, [fext] + [v for v, _ in st.spatial], self.two_d(len(sp)))
        sp2, _ = self.roots(st.name, len(st.spatial), 1)
        self.spatial_bind(st.name, sp2, [v for v, _ in st.spatial],
                          self.two_d(len(st.spatial)))

    def sched_rfactor_tx(self, st):
        """rfactor; the stage's remaining reduction (the factored axis) bound to threadIdx.x,
        the rf stage computed at it (TOPI's schedule_reduce)."""
        rf, fext, j = self.rfactor_split(st)
        sp, rd = self.roots(st.name, len(st.spatial), 1)
        f = self.fuse(st.name, sp)
        self.bind(st.name, f, "blockIdx.x")
        self.bind(st.name, rd[0], "threadIdx.x")
        self.step("s[%s].compute_at(s[%s], %s)" % (rf, st.name, rd[0]), [], [rf, st.name,
                                                                            rd[0]])
