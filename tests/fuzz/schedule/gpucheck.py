"""The fuzzer's GPU check: a case with GPU steps (gpu.py) builds them for "cuda" (NVRTC
compiles the CUDA C) and writes the kernels, the host source, its inputs and the reference
outputs to a folder; check() runs tests/tools/cuda_emulate.py on it, which runs the host
function and its kernels on the CPU and compares the outputs as the case does (integers
exactly, floats with its tolerance).

Without NVRTC (the cuda target cannot build) or g++ (the emulator cannot compile) the GPU
steps are not drawn into the program, and run.py says so once.
"""

import glob
import os
import shutil
import subprocess
import sys

import gen

HERE = os.path.dirname(os.path.abspath(__file__))
EMULATE = os.path.join(HERE, "..", "..", "tools", "cuda_emulate.py")


def missing():
    """Why GPU cases cannot run here, or None."""
    if shutil.which("g++") is None:
        return "no g++ for the CUDA emulator"
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    if not glob.glob(os.path.join(home, "lib64", "libnvrtc.so.1[23]*")):
        return "no NVRTC (libnvrtc.so.12 or 13 under %s)" % home
    return None


def host_source(out, seed):
    lines, inside = [], False
    for line in out.splitlines():
        if line == "ghost %d begin" % seed:
            inside, lines = True, []
        elif line == "ghost %d end" % seed:
            inside = False
        elif inside:
            lines.append(line)
    return "\n".join(lines) if lines else None


def check(case, out, gdir, timeout):
    """(kind, message) of the GPU build of one case: ok, wrong, error, crash or timeout."""
    host = host_source(out, case.seed)
    if host is None or not os.path.exists(os.path.join(gdir, "kernel.cu")):
        return ("error", "gpu: no kernels or host source written")
    with open(os.path.join(gdir, "launch.txt"), "w") as f:
        f.write(host + "\n")
    with open(os.path.join(gdir, "scalars.txt"), "w") as f:
        f.write("".join("%s %d\n" % v for v in case.comp.vars))
    tol = max(gen.TOLERANCE.get(t.dtype, 0) for t in gen._reachable(case.outs))
    with open(os.path.join(gdir, "tolerance.txt"), "w") as f:
        f.write("%r %r\n" % (tol, tol))
    try:
        p = subprocess.run([sys.executable, EMULATE, gdir], capture_output=True, text=True,
                           errors="replace", timeout=timeout * 3)
    except subprocess.TimeoutExpired:
        return ("timeout", "gpu: the emulator")
    if p.returncode == 0:
        return ("ok", "")
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.strip()]
    wrong = [l for l in p.stdout.splitlines() if "expected" in l]
    if p.returncode == 1 and wrong:
        return ("wrong", "gpu: " + wrong[0])
    if "CalledProcessError" in p.stderr and "g++" in p.stderr:
        err = [l for l in p.stderr.splitlines() if "error" in l]
        return ("error", "gpu: g++: " + (err[0] if err else ""))
    return ("crash", "gpu: " + (lines[-1][:200] if lines else "exit %d" % p.returncode))
