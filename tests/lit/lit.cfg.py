# lit configuration for tes: every .tes file under tests/lit is a test whose `# RUN:` lines run
# the built binary and check its output with FileCheck.
#
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv tests/lit
#
# Environment: TES_BIN picks the binary (default <repo>/build/tes; ./check sets it for the
# sanitized build). TES_REFERENCE=python3 runs the Python-compatible tests against python3
# instead, to check that their expectations are Python's: tests marked
# `UNSUPPORTED: python-reference` and the folders that test tes itself are skipped.
import atexit
import os
import shutil
import tempfile

import lit.formats

config.name = 'tes'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.tes']
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(config.test_source_root))
# tests/lit/*/Inputs hold scripts that tests load; they are not tests themselves.
config.excludes = ['Inputs', 'lit.cfg.py']

llvm_bin = '/usr/lib/llvm-19/bin'
tools = os.path.join(repo, 'tests', 'tools')

reference = os.environ.get('TES_REFERENCE')
if reference:
    tes = shutil.which(reference) or reference
    config.available_features.add('python-reference')
    # Diagnostics, the command line and the REPL are tes's own.
    config.excludes += ['errors', 'cli', 'repl', 'serve']
else:
    tes = os.environ.get('TES_BIN', os.path.join(repo, 'build', 'tes'))
    if not os.path.isfile(tes):
        lit_config.fatal('no tes binary at %s: build first (./run --version) or set TES_BIN' % tes)
    # A sanitized binary reserves terabytes of address space at start: tests that cap memory
    # with `ulimit -v` mark themselves `UNSUPPORTED: asan`.
    with open(tes, 'rb') as f:
        if b'__asan_init' in f.read():
            config.available_features.add('asan')
# Test outputs (%t) go beside the binary under test, so plain and sanitized runs keep apart.
config.test_exec_root = os.path.join(os.path.dirname(os.path.abspath(tes)) if not reference
                                     else os.path.join(repo, 'build'), 'lit')

config.substitutions.append(('%tes', tes))
# The cuda target builds through NVRTC (jit/nvrtc.c looks in $CUDA_HOME, then /usr/local/cuda);
# its PTX is assembled by the toolkit's ptxas where there is one.
cuda_home = os.environ.get('CUDA_HOME') or '/usr/local/cuda'
if any(os.path.exists(os.path.join(cuda_home, 'lib64', 'libnvrtc.so.' + v)) for v in ('13', '12')):
    config.available_features.add('nvrtc')
# editor support files (docs/editors) are tried in the editors found here
if shutil.which('vim'):
    config.available_features.add('vim')
ptxas = shutil.which('ptxas') or os.path.join(cuda_home, 'bin', 'ptxas')
if os.path.isfile(ptxas):
    config.available_features.add('ptxas')
    config.substitutions.append(('%ptxas', ptxas))
# tvm.contrib.clang.create_llvm runs clang where one is installed (frontend/tvm/contrib_clang.c
# looks for the same names).
if any(shutil.which(c) for c in ('clang-19', 'clang', '/usr/lib/llvm-19/bin/clang')):
    config.available_features.add('clang')
# A host C++ compiler (c++, or $CXX): the CPU emulation of CUDA kernels
# (codegen/cuda_tensorcore_on_cpu.tes) compiles their text with it.
cxx = shutil.which(os.environ.get('CXX') or 'c++')
if cxx:
    config.available_features.add('cxx')
    config.substitutions.append(('%cxx', cxx))
# AVX-512 VNNI (examples/int8_gemm_vnni.tes runs only where the CPU has it); AVX2 (tests that
# run code built for it).
try:
    with open('/proc/cpuinfo') as f:
        cpu_flags = f.read().split()
    if 'avx512_vnni' in cpu_flags:
        config.available_features.add('avx512vnni')
    if 'avx2' in cpu_flags:
        config.available_features.add('avx2')
except OSError:
    pass
# Two CPUs this process may run on: a module's machine code is generated on two threads only
# then (backends/llvm/codegen_split.c; codegen/llvm_split_args.tes).
if len(os.sched_getaffinity(0)) >= 2:
    config.available_features.add('cpus2')
# glibc's vector math on x86_64 (codegen/vecmath_libmvec.tes checks the calls to it).
import ctypes.util
import platform
if platform.machine() == 'x86_64' and ctypes.util.find_library('mvec'):
    config.available_features.add('libmvec')
# The FAKE CUDA driver (tests/unit/jit/fake_cuda.c, built beside the binary): tests point
# TES_CUDA_DRIVER at it to check the host side of running cuda modules; it runs no kernel.
if not reference:
    fake_cuda = os.path.join(os.path.dirname(os.path.abspath(tes)), 'tests', 'libfake_cuda.so')
    if os.path.isfile(fake_cuda):
        config.available_features.add('fake-cuda')
        config.substitutions.append(('%fake-cuda', fake_cuda))
# tests that build in a loop (numeric/build_loop_memory.tes): a tenth of the builds when sanitized
config.substitutions.append(('%build-loop-counts', '20 200' if 'asan' in config.available_features
                             else '200 2000'))
config.substitutions.append(('%run-status', os.path.join(tools, 'run-status')))
config.substitutions.append(('%pty', 'python3 ' + os.path.join(tools, 'pty_drive.py')))
# FileCheck and not come from LLVM 19 whatever PATH says. Substitutions are regular
# expressions: match the tools only where a command starts, never inside an argument.
cmd_start = r'(?:^|(?<=\| )|(?<=; )|(?<=&& )|(?<=\|\| ))'
config.substitutions.append((cmd_start + r'FileCheck(?= |$)', os.path.join(llvm_bin, 'FileCheck')))
config.substitutions.append((cmd_start + r'not(?= )', os.path.join(llvm_bin, 'not')))

# A scratch HOME per run, so REPL history never touches the user's; tests that look at the
# history file make their own (%t) and pass it with `env HOME=...`.
home = tempfile.mkdtemp(prefix='tes-lit-home-')
atexit.register(shutil.rmtree, home, True)
config.environment['HOME'] = home
# The compile cache (docs/build.md) in the scratch HOME too, whatever the caller's XDG says;
# tests of the cache give each run a folder of its own (%t).
config.environment['XDG_CACHE_HOME'] = os.path.join(home, 'cache')
for var in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'TES_NUM_THREADS', 'TMPDIR'):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The IR checked after every lowering pass (ir/lower.h), unless the caller says otherwise.
config.environment['TES_VERIFY_IR'] = os.environ.get('TES_VERIFY_IR', '1')
config.environment['TERM'] = 'dumb'
config.environment['LC_ALL'] = 'C.UTF-8'
config.environment['PATH'] = os.pathsep.join([llvm_bin, tools, os.environ.get('PATH', '')])
