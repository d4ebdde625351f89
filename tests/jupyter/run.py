#!/usr/bin/env python3
"""tests/jupyter/run.py BUILD_DIR [NAME...]: the tes Jupyter kernel tested as Jupyter uses it.

1. A virtual environment BUILD_DIR/jupyter-venv (made once, then reused) gets jupyter-client,
   ipykernel and nbconvert from PyPI. If that fails (no network, no venv module) the tests
   are SKIPPED with the reason printed; nothing passes.
2. The package itself (`pip install ./jupyter`) and its kernelspec
   (`python3 -m tes_kernel install --prefix VENV`) go into it; failing here is a failure.
3. test_kernel.py drives the kernel with jupyter_client (execute, errors, interrupt, restart,
   completion, inspection, rich output).
4. Every example notebook the build generated (BUILD_DIR/jupyter/*.ipynb, from examples/*.tes)
   runs with `jupyter nbconvert --to notebook --execute` through the kernel, and its printed
   output is checked with the program's own `# CHECK:` lines (FileCheck), so a notebook shows
   what the program prints. Examples whose `# REQUIRES:` this machine lacks are unsupported,
   as in tests/examples, with the reason printed.
5. tests/jupyter/tvm_tutorial_topi.ipynb, a TVM tutorial notebook as published (kernelspec
   python3, `%matplotlib inline` first), runs unchanged through the kernel.

NAME... limits the run to those notebooks / kernel tests. Prints PASS/FAILED/UNSUPPORTED per
test and "N passed, M failed" last; exits non-zero when one failed.
"""

import concurrent.futures
import ctypes.util
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# setuptools and wheel build ./jupyter without a build environment of its own (no download each run)
PACKAGES = ["jupyter-client", "ipykernel", "nbconvert", "setuptools>=61", "wheel"]
FILECHECK = "/usr/lib/llvm-19/bin/FileCheck"
NOTEBOOK_TIMEOUT = 900


def log(msg):
    print(msg, flush=True)


def sh(cmd, env=None, timeout=None, cwd=None):
    """(status, output) of a command."""
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") + "\n(timed out after %s s)" % timeout
    except OSError as e:
        return 127, str(e)
    return p.returncode, p.stdout


def tail(text, n=15):
    return "\n".join(text.rstrip().split("\n")[-n:])


def make_venv(build):
    """The environment's folder, or (None, reason) when it cannot be had."""
    venv = os.path.join(build, "jupyter-venv")
    marker = os.path.join(venv, ".tes-packages")
    py = os.path.join(venv, "bin", "python")
    want = " ".join(PACKAGES)
    if os.path.isfile(marker) and os.path.isfile(py) and open(marker).read() == want:
        return venv, None
    shutil.rmtree(venv, ignore_errors=True)
    status, out = sh([sys.executable, "-m", "venv", venv])
    if status != 0:
        return None, "python3 -m venv failed (Debian: apt-get install python3-venv):\n" + tail(out)
    # pip keeps its downloads in the user's cache even under ./check (which points
    # XDG_CACHE_HOME at a scratch folder), so a second run downloads nothing.
    env = dict(os.environ)
    env.setdefault("PIP_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "pip"))
    t0 = time.time()
    status, out = sh([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
                     + PACKAGES, env=env, timeout=1200)
    if status != 0:
        shutil.rmtree(venv, ignore_errors=True)
        return None, "pip could not install %s:\n%s" % (want, tail(out))
    with open(marker, "w") as f:
        f.write(want)
    log("jupyter: made %s (%s) in %.0f s" % (venv, want, time.time() - t0))
    return venv, None


def features():
    """The lit features the examples REQUIRE, decided as tests/lit/lit.cfg.py decides them."""
    have = set()
    cuda = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    if any(os.path.exists(os.path.join(cuda, "lib64", "libnvrtc.so." + v)) for v in ("13", "12")):
        have.add("nvrtc")
    if shutil.which("ptxas") or os.path.isfile(os.path.join(cuda, "bin", "ptxas")):
        have.add("ptxas")
    if any(shutil.which(c) for c in ("clang-19", "clang", "/usr/lib/llvm-19/bin/clang")):
        have.add("clang")
    if shutil.which(os.environ.get("CXX") or "c++"):
        have.add("cxx")
    try:
        flags = open("/proc/cpuinfo").read().split()
    except OSError:
        flags = []
    for f in ("avx512_vnni", "avx2"):
        if f in flags:
            have.add(f.replace("_", ""))
    if platform.machine() == "x86_64" and ctypes.util.find_library("mvec"):
        have.add("libmvec")
    return have


def directives(path, name):
    """The values of a lit directive (`# REQUIRES: a, b`) in a program, as one list."""
    out = []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\s*#\s*%s:(.*)" % name, line)
        if m:
            out += [x.strip() for x in m.group(1).split(",") if x.strip()]
    return out


def executed(nb_path, outdir, env, kernel_name=None):
    """Runs a copy of a notebook in outdir with nbconvert; (status, output, the executed
    notebook or None). The kernel runs in the notebook's folder (what it writes lands there)
    and talks over Unix sockets (ipc), made in the working folder: outdir for both."""
    result = os.path.join(outdir, os.path.basename(nb_path))
    shutil.copyfile(nb_path, result)
    cmd = [os.path.join(env["VIRTUAL_ENV"], "bin", "jupyter"), "nbconvert", "--to", "notebook",
           "--execute", "--inplace", "--KernelManager.transport=ipc",
           "--ExecutePreprocessor.timeout=%d" % NOTEBOOK_TIMEOUT]
    if kernel_name:
        cmd.append("--ExecutePreprocessor.kernel_name=" + kernel_name)
    status, out = sh(cmd + [os.path.basename(result)], env=env, timeout=NOTEBOOK_TIMEOUT + 120,
                     cwd=outdir)
    nb = json.load(open(result, encoding="utf-8")) if status == 0 and os.path.isfile(result) \
        else None
    return status, out, nb


def cell_outputs(nb, kind, name=None):
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            if o["output_type"] == kind and (name is None or o.get("name") == name):
                yield cell, o


def text_of(o):
    t = o.get("text", "")
    return "".join(t) if isinstance(t, list) else t


class Run:
    def __init__(self):
        self.passed = self.failed = 0

    def ok(self, what, secs=None):
        self.passed += 1
        log("PASS: %s%s" % (what, "" if secs is None else " (%.1f s)" % secs))

    def bad(self, what, why):
        self.failed += 1
        log("FAILED: %s: %s" % (what, why))


def check_notebook_list(run, build):
    """The build made a notebook of every example, made it as the generator does now, and
    installs it under <prefix>/share/tes/notebooks."""
    sys.path.insert(0, os.path.join(ROOT, "jupyter"))
    from tes_kernel.notebooks import notebook
    status, out = sh(["meson", "introspect", build, "--installed"])
    installed = json.loads(out) if status == 0 else {}
    for prog in sorted(glob.glob(os.path.join(ROOT, "examples", "*.tes"))):
        stem = os.path.splitext(os.path.basename(prog))[0]
        built = os.path.join(build, "jupyter", stem + ".ipynb")
        dest = installed.get(built, "")
        if not dest.endswith("/share/tes/notebooks/%s.ipynb" % stem):
            run.bad("notebook of examples/%s.tes" % stem,
                    "meson does not install %s as <prefix>/share/tes/notebooks/%s.ipynb (%r)"
                    % (built, stem, dest))
        elif not os.path.isfile(built):
            run.bad("notebook of examples/%s.tes" % stem,
                    "the build made no %s (jupyter/meson.build lists the examples)" % built)
        elif json.load(open(built, encoding="utf-8")) != notebook(prog):
            run.bad("notebook of examples/%s.tes" % stem, "%s is stale" % built)
        else:
            run.ok("notebook of examples/%s.tes generated and installed" % stem)


GENERATOR_INPUT = """\
# RUN: %tes %s | FileCheck %s
# The title, and its prose
# over two lines.
import tvm
x = 1

######################################################################
# A section
def f(a):
    # a comment in the body stays
    return a + 1
    # and so does one under the body

print(f(x))
# CHECK: 2
y = [1,
# a comment inside brackets stays
     2]
"""
GENERATOR_CELLS = [
    ("markdown", ["The title, and its prose", "over two lines."]),
    ("code", ["import tvm", "x = 1"]),
    ("markdown", ["A section"]),
    # the CHECK line between print and y is dropped, so they share a cell
    ("code", ["def f(a):", "    # a comment in the body stays", "    return a + 1",
              "    # and so does one under the body", "", "print(f(x))",
              "y = [1,", "# a comment inside brackets stays", "     2]"]),
]


def check_generator(run):
    """Cells from a program: prose between statements, test lines dropped."""
    sys.path.insert(0, os.path.join(ROOT, "jupyter"))
    from tes_kernel.notebooks import cells_of
    got = cells_of(GENERATOR_INPUT, "gen.tes")
    if got == GENERATOR_CELLS:
        run.ok("notebook generator: cells of a program")
    else:
        run.bad("notebook generator: cells of a program", "got %r" % got)


def run_example(prog, nb_path, env, have, scratch):
    """(verdict, what, detail): verdict "ok", "bad" or "unsupported"."""
    stem = os.path.splitext(os.path.basename(prog))[0]
    what = "notebook %s" % stem
    missing = [f for f in directives(prog, "REQUIRES") if f not in have]
    if missing:
        return ("unsupported", what, "needs %s, which this machine lacks (as tests/examples)"
                % ", ".join(missing))
    t0 = time.time()
    outdir = os.path.join(scratch, stem)
    os.makedirs(outdir)
    status, out, nb = executed(nb_path, outdir, env)
    if nb is None:
        return ("bad", what, "nbconvert --execute failed (status %d):\n%s"
                % (status, tail(out, 40)))
    stdout = "".join(text_of(o) for _, o in cell_outputs(nb, "stream", "stdout"))
    if directives(prog, "RUN") == ["%tes %s | FileCheck %s"]:
        p = subprocess.run([FILECHECK, prog], input=stdout, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if p.returncode != 0:
            return ("bad", what, "its output does not pass the program's CHECK lines:\n" +
                    tail(p.stdout, 30))
        return ("ok", what + " executed, output checked", time.time() - t0)
    return ("ok", what + " executed", time.time() - t0)


def run_tutorial(run, env, scratch):
    """The published-style TVM tutorial: runs unchanged, IR echoes come as HTML."""
    what = "notebook tvm_tutorial_topi (a TVM tutorial as published)"
    t0 = time.time()
    outdir = os.path.join(scratch, "tutorial")
    os.makedirs(outdir)
    status, out, nb = executed(os.path.join(HERE, "tvm_tutorial_topi.ipynb"), outdir, env,
                               kernel_name="tes")
    if nb is None:
        run.bad(what, "nbconvert --execute failed (status %d):\n%s" % (status, tail(out, 40)))
        return
    notes = "".join(text_of(o) for _, o in cell_outputs(nb, "stream", "stderr"))
    htmls = [o["data"]["text/html"] for _, o in cell_outputs(nb, "execute_result")
             if "text/html" in o["data"]]
    stdout = "".join(text_of(o) for _, o in cell_outputs(nb, "stream", "stdout"))
    if "%matplotlib inline" not in notes:
        run.bad(what, "no note that %matplotlib was ignored")
    elif not any("A_red" in "".join(h) for h in htmls):
        run.bad(what, "m[\"main\"]'s echo is not HTML: %r" % htmls[:1])
    elif "thread_extent" not in stdout or "T_softmax_norm" not in stdout:
        run.bad(what, "the printed CUDA schedules are missing:\n" + stdout[:2000])
    else:
        run.ok(what, time.time() - t0)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    build = os.path.abspath(argv[0])
    only = argv[1:]
    tes = os.path.join(build, "tes")
    run = Run()
    t_start = time.time()

    venv, why = make_venv(build)
    if venv is None:
        log("SKIPPED: the jupyter tests: " + why)
        log("0 passed, 0 failed")
        return 0
    py = os.path.join(venv, "bin", "python")
    scratch = tempfile.mkdtemp(prefix="tes-jupyter-")
    try:
        # from a copy: setuptools leaves build/ and the egg-info beside the sources
        pkg = os.path.join(scratch, "jupyter")
        shutil.copytree(os.path.join(ROOT, "jupyter"), pkg,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        status, out = sh([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "--no-deps", "--no-build-isolation", "--force-reinstall", pkg])
        if status != 0:
            run.bad("pip install ./jupyter", tail(out))
            log("%d passed, %d failed" % (run.passed, run.failed))
            return 1
        run.ok("pip install ./jupyter")

        env = dict(os.environ, VIRTUAL_ENV=venv, TES_BIN=tes,
                   PATH=os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", ""),
                   # the venv's kernelspec first; nothing from the user's Jupyter set-up
                   JUPYTER_PATH=os.path.join(venv, "share", "jupyter"),
                   JUPYTER_CONFIG_DIR=os.path.join(scratch, "config"),
                   JUPYTER_DATA_DIR=os.path.join(scratch, "data"),
                   JUPYTER_RUNTIME_DIR=os.path.join(scratch, "runtime"),
                   IPYTHONDIR=os.path.join(scratch, "ipython"),
                   JUPYTER_PLATFORM_DIRS="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
        env.pop("PYTHONPATH", None)
        status, out = sh([py, "-m", "tes_kernel", "install", "--prefix", venv], env=env)
        spec = os.path.join(venv, "share", "jupyter", "kernels", "tes", "kernel.json")
        try:
            kj = json.load(open(spec))
        except (OSError, ValueError):
            kj = {}
        if status != 0 or kj.get("argv") != [py, "-m", "tes_kernel", "-f", "{connection_file}"] \
                or kj.get("display_name") != "TES":
            run.bad("python3 -m tes_kernel install --prefix", "status %d, %s: %r\n%s"
                    % (status, spec, kj, tail(out)))
            log("%d passed, %d failed" % (run.passed, run.failed))
            return 1
        run.ok("python3 -m tes_kernel install --prefix")

        if not only or any(n.startswith("test_") for n in only):
            status, out = sh([py, os.path.join(HERE, "test_kernel.py")]
                             + [n for n in only if n.startswith("test_")], env=env,
                             timeout=1800, cwd=scratch)
            for line in out.rstrip().split("\n")[:-1]:
                log(line)
            m = re.match(r"(\d+) passed, (\d+) failed$", out.rstrip().split("\n")[-1])
            if m:
                run.passed += int(m.group(1))
                run.failed += int(m.group(2))
            if not m or (status != 0 and int(m.group(2)) == 0):
                run.bad("kernel protocol tests", "test_kernel.py ended with status %d:\n%s"
                        % (status, tail(out)))

        if not only:
            check_generator(run)
            check_notebook_list(run, build)
        have = features()
        jobs = []
        for prog in sorted(glob.glob(os.path.join(ROOT, "examples", "*.tes"))):
            stem = os.path.splitext(os.path.basename(prog))[0]
            nb_path = os.path.join(build, "jupyter", stem + ".ipynb")
            if (not only or stem in only) and os.path.isfile(nb_path):
                jobs.append((prog, nb_path))
        # two at a time, as ./check runs lit (the machines have two cores)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            verdicts = pool.map(lambda job: run_example(job[0], job[1], env, have, scratch),
                                jobs)
            for verdict, what, detail in verdicts:
                if verdict == "ok":
                    run.ok(what, detail)
                elif verdict == "bad":
                    run.bad(what, detail)
                else:
                    log("UNSUPPORTED: %s: %s" % (what, detail))
        if not only or "tvm_tutorial_topi" in only:
            run_tutorial(run, env, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    log("jupyter: %.0f s" % (time.time() - t_start))
    log("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
