#!/usr/bin/env python3
"""Differential schedule fuzzer: random computes under random legal schedules, built by tes for
llvm and compared with the same compute under the default schedule.

    run.py --tes build/tes --seeds 500              seeds 0..499
    run.py --tes build/tes --seeds 100 --start 7000
    run.py --tes build/tes --show SEED              print one case as a TES program
    run.py --tes build/tes --minimize SEED          cut a failing case down to the steps that
                                                    matter and print it

Cases run in batches, one tes process a batch; a batch that dies (a crash, a hang) is rerun a
case a process to find which. Each failure is one of: wrong (the outputs differ), error (tes
raised on a legal schedule), crash (killed by a signal or a non-zero exit without a case line),
timeout. The last line is "N passed, M failed".
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ccheck  # noqa: E402
import gen  # noqa: E402
import gpucheck  # noqa: E402


def run_program(tes, text, timeout):
    """Runs a TES program; returns (exit status or 'timeout', stdout, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".tes", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.run([tes, path], capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    finally:
        os.unlink(path)


def parse(out):
    res = {}
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) >= 3 and parts[0] == "case" and parts[1].isdigit():
            res[int(parts[1])] = (parts[2], parts[3] if len(parts) > 3 else "")
    return res


def death(status, err):
    if status == "timeout":
        return ("timeout", "")
    tail = [l for l in err.splitlines() if l.strip()]
    return ("crash", "exit status %s: %s" % (status, tail[-1][:200] if tail else ""))


def wants_c(settings):
    return any(kind == "c" for kind, _ in settings)


def gpu_dir(cdir, seed):
    return os.path.join(cdir, "gpu_%d" % seed)


def run_cases(tes, cases, timeout):
    """Runs cases in one process; reruns them one by one if it dies. {seed: (kind, msg)}.
    A case that passed and asks for the "c" target has its C checked too (ccheck.py), and
    one with GPU steps its kernels, on the CUDA emulator (gpucheck.py)."""
    with tempfile.TemporaryDirectory(prefix="tes-fuzz-c-") as cdir:
        for c in cases:
            if c.gpu:
                os.mkdir(gpu_dir(cdir, c.seed))
        status, out, err = run_program(tes, gen.render_batch(cases, cdir), timeout * len(cases))
        res = parse(out)
        for c in cases:
            if res.get(c.seed, ("",))[0] == "ok" and wants_c(c.settings):
                res[c.seed] = ccheck.check(c, out, cdir, timeout)
            if res.get(c.seed, ("",))[0] == "ok" and c.gpu:
                res[c.seed] = gpucheck.check(c, out, gpu_dir(cdir, c.seed), timeout)
    if len(res) == len(cases):
        return res
    if len(cases) == 1:
        return {cases[0].seed: death(status, err)}
    # A case that corrupted memory may have printed its line before another one died.
    res = {}
    for c in cases:
        res.update(run_cases(tes, [c], timeout))
    return res


def signature(kind, msg):
    """What a minimised case must keep failing with."""
    if kind == "error":  # the exception and the start of its message
        return (kind, ":".join(msg.split(":")[:2]))
    return (kind, "")


def minimize(tes, case, timeout):
    """Drops steps (with the steps that use what they define), then build settings, then GPU
    steps, while the failure stays. Returns (steps, settings, gsteps, result) or
    (None, None, None, result)."""
    res = run_cases(tes, [case], timeout)[case.seed]
    if res[0] == "ok":
        return None, None, None, res
    want = signature(*res)

    def fails(steps, settings, gsteps):
        with tempfile.TemporaryDirectory(prefix="tes-fuzz-c-") as cdir:
            gdir = gpu_dir(cdir, case.seed) if gsteps else None
            if gdir:
                os.mkdir(gdir)
            text = gen.HEADER + case.render(steps, settings, cdir, gsteps, gdir) + \
                "case_%d()\nprint('case %d ok')\n" % (case.seed, case.seed)
            status, out, err = run_program(tes, text, timeout)
            got = ("ok", "") if status == 0 and "ok" in out else _classify(status, err)
            if got[0] == "ok" and wants_c(settings):
                got = ccheck.check(case, out, cdir, timeout)
            if got[0] == "ok" and gsteps:
                got = gpucheck.check(case, out, gdir, timeout)
        return signature(*got) == want

    def drop_steps(steps, trial_of):
        changed = True
        while changed:
            changed = False
            for i in range(len(steps) - 1, -1, -1):
                if i >= len(steps):
                    continue
                drop = {i}
                names = set(steps[i].defines)
                for j in range(i + 1, len(steps)):
                    if steps[j].uses & names:
                        drop.add(j)
                        names |= steps[j].defines
                trial = [s for k, s in enumerate(steps) if k not in drop]
                if trial_of(trial):
                    steps = trial
                    changed = True
        return steps

    settings = list(case.settings)
    gsteps = list(case.gpu)
    steps = drop_steps(list(case.steps), lambda t: fails(t, settings, gsteps))
    for i in range(len(settings) - 1, -1, -1):
        trial = settings[:i] + settings[i + 1:]
        if fails(steps, trial, gsteps):
            settings = trial
    if gsteps:
        gsteps = drop_steps(gsteps, lambda t: bool(t) and fails(steps, settings, t))
    return steps, settings, gsteps, res


def _classify(status, err):
    if status == "timeout" or (isinstance(status, int) and status < 0):
        return death(status, err)
    if "AssertionError" in err:
        return ("wrong", "")
    for line in err.splitlines():
        if ": error: " in line:
            return ("error", line.split(": error: ", 1)[1])
    return death(status, err)


def primitives(steps):
    """The schedule primitives a list of steps calls, in order, without repeats."""
    seen = []
    for st in steps:
        for word in ("cache_read", "cache_write", "rfactor", "split", "fuse", "reorder",
                     "tile", "compute_at", "compute_inline", "vectorize", "unroll",
                     "parallel", "storage_align", "double_buffer", "compute_root",
                     "pragma", "bind"):
            if "." + word + "(" in st.src and word not in seen:
                seen.append(word)
    return seen


def triage(a, seeds):
    """Minimises each failing seed; prints one group a line: failure, primitives, seeds."""
    def one(seed):
        c = gen.Case(seed)
        steps, settings, gsteps, res = minimize(a.tes, c, a.timeout)
        return seed, res, None if steps is None else steps + gsteps

    groups = {}
    with ThreadPoolExecutor(a.jobs) as ex:
        for seed, res, steps in ex.map(one, seeds):
            if steps is None:
                continue
            key = (res[0], signature(*res)[1], ",".join(primitives(steps)) or "-")
            groups.setdefault(key, []).append(seed)
    print("triage (failure, primitives kept by the minimiser: seeds):")
    for (kind, msg, prims), sds in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print("  %s %s [%s]: %d: %s" % (kind, msg, prims, len(sds),
                                        " ".join(map(str, sds[:12]))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tes", required=True)
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds a case")
    ap.add_argument("--show", type=int, metavar="SEED")
    ap.add_argument("--minimize", type=int, metavar="SEED")
    ap.add_argument("--triage", action="store_true",
                    help="minimise every failure and group them by the steps kept")
    ap.add_argument("--gpu", action="store_true",
                    help="every case draws a GPU schedule too (else gen.GPU_SHARE of them)")
    a = ap.parse_args()
    if a.gpu:
        gen.GPU_SHARE = 1.0
    why = gpucheck.missing()
    if why is not None:
        gen.GPU_SHARE = 0.0
        print("schedule fuzzer: %s: GPU schedules are not drawn" % why)

    if a.show is not None:
        c = gen.Case(a.show)
        print(gen.HEADER + c.render(gdir="gpu_%d" % c.seed if c.gpu else None) +
              "case_%d()" % c.seed)
        return 0
    if a.minimize is not None:
        c = gen.Case(a.minimize)
        steps, settings, gsteps, res = minimize(a.tes, c, a.timeout)
        if steps is None:
            print("# seed %d passes" % c.seed)
            return 0
        print("# seed %d: %s %s; %d of %d steps kept, %d of %d GPU steps" % (
            c.seed, res[0], res[1], len(steps), len(c.steps), len(gsteps), len(c.gpu)))
        # (with the "c" target: saves ./case_SEED.c and prints the data ccheck.py reads; with
        # GPU steps: writes what cuda_emulate.py reads to ./gpu_SEED, which must exist)
        print(gen.HEADER + c.render(steps, settings, "." if wants_c(settings) else None,
                                    gsteps, "gpu_%d" % c.seed if gsteps else None) +
              "case_%d()" % c.seed)
        return 1

    t0 = time.time()
    seeds = list(range(a.start, a.start + a.seeds))
    batches = [seeds[i:i + a.batch] for i in range(0, len(seeds), a.batch)]
    results = {}

    def work(batch):
        return run_cases(a.tes, [gen.Case(s) for s in batch], a.timeout)

    with ThreadPoolExecutor(a.jobs) as ex:
        for res in ex.map(work, batches):
            for seed, (kind, msg) in sorted(res.items()):
                results[seed] = (kind, msg)
                if kind != "ok":
                    print("seed %d: %s %s" % (seed, kind, msg), flush=True)
    counts = {}
    for kind, _ in results.values():
        counts[kind] = counts.get(kind, 0) + 1
    failed = len(seeds) - counts.get("ok", 0)
    print("schedule fuzzer: seeds %d..%d, %.1f s: %s" % (
        a.start, a.start + a.seeds - 1, time.time() - t0,
        ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    if failed and a.triage:
        triage(a, [sd for sd, (k, _) in sorted(results.items()) if k != "ok"])
    elif failed:
        print("reproduce one: %s --tes %s --minimize SEED" % (sys.argv[0], a.tes))
    print("%d passed, %d failed" % (counts.get("ok", 0), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
