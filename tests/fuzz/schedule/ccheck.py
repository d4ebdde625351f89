"""The fuzzer's second back end: the C source the "c" target gives for a case, compiled with
gcc and run on the inputs the case printed, against the reference outputs it printed.

A case whose settings hold ("c", ...) prints, after its llvm comparison passed, a line
`cdata SEED NAME DTYPE VALUES...` for each input and each reference output, and saves the
scheduled program's C as DIR/case_SEED.c. check() writes a driver that includes that source,
fills the arguments, calls `cfun`, and compares as the case does (integers exactly, floats
with its tolerance).
"""

import os
import re
import shutil
import subprocess

import gen

CTYPE = {"float32": "float", "float64": "double", "int8": "int8_t", "uint8": "uint8_t",
         "int16": "int16_t", "int32": "int32_t", "int64": "int64_t"}


_said = {"no gcc": False}


def cdata(out, seed):
    """[(name, dtype, [value text])] of the cdata lines of one case, in order."""
    rows = []
    for line in out.splitlines():
        parts = line.split(" ")
        if len(parts) >= 4 and parts[0] == "cdata" and parts[1] == str(seed):
            rows.append((parts[2], parts[3], parts[4:]))
    return rows


def _driver(case, rows, params, tol):
    """The C of main(): the arrays, the call, the comparison."""
    nin = len(rows) - len(case.outs)
    lines = ['#include <stdio.h>', '#include "case_%d.c"' % case.seed, "",
             "int main(void) {"]
    ptrs = []
    for k, (name, dt, vals) in enumerate(rows):
        ct = CTYPE[dt]
        lit = [{"inf": "INFINITY", "-inf": "-INFINITY", "nan": "NAN"}.get(v, v) for v in vals]
        lines.append("  static %s a%d[%d] = {%s};" % (ct, k, max(len(vals), 1),
                                                     ", ".join(lit) or "0"))
        if k >= nin:  # an output: the buffer the kernel writes, starting from 5 as in the case
            lines.append("  static %s g%d[%d];" % (ct, k, max(len(vals), 1)))
            lines.append("  for (int q = 0; q < %d; q++) g%d[q] = 5;" % (len(vals), k))
            ptrs.append("g%d" % k)
        else:
            ptrs.append("a%d" % k)
    vals = dict(case.comp.vars)
    args, p = [], 0
    for prm in params:
        if "*" in prm:
            args.append(ptrs[p])
            p += 1
        else:
            args.append(str(vals[prm.split()[-1]]))
    lines.append("  int32_t rc = cfun(%s);" % ", ".join(args))
    lines.append('  if (rc != 0) { printf("error: cfun returned %d\\n", (int)rc); return 0; }')
    for k in range(nin, len(rows)):
        n = len(rows[k][2])
        if rows[k][1].startswith("float"):
            bad = "!(fabs((double)g%d[q] - (double)a%d[q]) <= %r + %r * fabs((double)a%d[q]))" % (
                k, k, tol, tol, k)
        else:
            bad = "g%d[q] != a%d[q]" % (k, k)
        lines.append("  for (int q = 0; q < %d; q++)" % n)
        lines.append('    if (%s) { printf("wrong: %s[%%d] is %%g, not %%g\\n", q, '
                     '(double)g%d[q], (double)a%d[q]); return 0; }' % (bad, rows[k][0], k, k))
    lines += ['  printf("ok\\n");', "  return 0;", "}", ""]
    return "\n".join(lines)


def check(case, out, cdir, timeout):
    """(kind, message) of the C of one case: ok, wrong, or error."""
    tol = max(gen.TOLERANCE.get(t.dtype, 0) for t in gen._reachable(case.outs))
    if shutil.which("gcc") is None:
        if not _said["no gcc"]:
            print("schedule fuzzer: no gcc: the c target's C is not checked, llvm only")
            _said["no gcc"] = True
        return ("ok", "")
    src = os.path.join(cdir, "case_%d.c" % case.seed)
    rows = cdata(out, case.seed)
    if not os.path.exists(src) or len(rows) < len(case.outs):
        return ("error", "CTarget: no C source or data for the case")
    with open(src) as f:
        m = re.search(r"int32_t cfun\((.*)\) \{", f.read())
    if m is None:
        return ("error", "CTarget: no cfun in the C source")
    params = m.group(1).split(", ")
    drv = os.path.join(cdir, "drv_%d.c" % case.seed)
    exe = os.path.join(cdir, "drv_%d" % case.seed)
    with open(drv, "w") as f:
        f.write(_driver(case, rows, params, tol))
    # gcc -O1 took 37 minutes over the 400 KB of C of a heavily unrolled case (seed 3827 of an
    # earlier generator): a large source is compiled without optimisation, and never for long
    opt = "-O1" if os.path.getsize(src) < 65536 else "-O0"
    try:
        p = subprocess.run(["gcc", "-std=gnu11", opt, "-fopenmp", "-w", drv, "-o", exe, "-lm"],
                           capture_output=True, text=True, errors="replace", timeout=timeout * 3)
    except subprocess.TimeoutExpired:
        return ("timeout", "c target: gcc")
    if p.returncode != 0:
        err = [l for l in p.stderr.splitlines() if "error" in l]
        return ("error", "CTarget: gcc: " + (err[0] if err else p.stderr[:200]))
    try:
        p = subprocess.run([exe], capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, OMP_NUM_THREADS="2"))
    except subprocess.TimeoutExpired:
        return ("timeout", "c target")
    res = p.stdout.strip()
    if p.returncode != 0:
        return ("crash", "c target: exit status %d" % p.returncode)
    if res == "ok":
        return ("ok", "")
    if res.startswith("wrong"):
        return ("wrong", "c target: " + res)
    return ("error", "CTarget: " + res)
