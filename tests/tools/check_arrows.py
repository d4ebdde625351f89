#!/usr/bin/env python3
"""check_arrows.py: the house's arrows (ARCHITECTURE.md) checked over the code's own includes.

    check_arrows.py [--root DIR]     check every C source and header of the tree at DIR
    check_arrows.py --self-test      check the checker on small trees made up for it

Every `#include "..."` of grammar/, frontend/, ir/, backends/ and jit/ must point at a room
its own room may use, and `#include <llvm-c/...>` and the CUDA headers may appear only where
ARCHITECTURE.md lets LLVM and CUDA in. Each violation is printed as

    FILE:LINE: ROOM may not include PATH

An include is not the only way up: a header may declare an `extern` object that a room above
defines, and the code that names it then needs that room at link time. So each `extern` object
a header declares must be defined (at file scope of a .c file) in a room the header's room may
include, else

    FILE:LINE: ROOM declares NAME, which DEFINER defines

and the last line is "N passed, M failed" (files without and with a violation), as ./check
reads it from every test meson registers; the exit status is 1 when anything failed.
tests/, bench/ and the generated sources are free: they are not rooms.
"""
import argparse
import os
import re
import sys
import tempfile

SOURCE_EXTS = ('.c', '.h', '.re', '.y')
CHECKED_TOP = ('grammar', 'frontend', 'ir', 'backends', 'jit')

# The ir/ headers that are types and plumbing rather than the compiler: what "ir/ types" means
# for the rooms that may see no more of ir/ (the language, the numpy subset, the JIT).
IR_TYPES = ('ir/support.h', 'ir/arena.h', 'ir/strbuf.h', 'ir/dtype.h', 'ir/diag.h')

# What each room may include besides itself: a room name (every header in it), or a path.
ALLOWED = {
    # the parser sees the AST and its symbols; parse.h declares the entry point grammar/ defines
    'grammar': ('frontend/lang/ast.h', 'frontend/lang/parse.h'),
    'frontend/lang': ('grammar',) + IR_TYPES,
    'frontend/np': ('frontend/lang', 'jit') + IR_TYPES,
    'frontend/tvm': ('frontend/lang', 'frontend/np', 'ir', 'backends', 'jit'),
    # the driver: everything below it
    'frontend': ('grammar', 'frontend/lang', 'frontend/np', 'frontend/tvm', 'ir', 'backends',
                 'jit'),
    'ir': (),
    # the plugin table's types, which both the back ends and the JIT see
    'backends': ('ir', 'jit/plugin_api.h'),
    # CUDA C is printed by the C printer with a dialect of its own (backends/c/c_printer.h)
    'backends/cuda': ('ir', 'backends/c/c_printer.h'),
    # VTA's instruction formats, which the command queue writes and the simulator reads
    'backends/vta': ('ir', 'jit/plugin_api.h', 'jit/vta_isa.h'),
    'jit': IR_TYPES,
}

# Single files that may cross an arrow, each with the reason.
EXCEPTIONS = {
    # libtes-llvm.so's composition root, as frontend/main.c is the executable's: the one file
    # that fills the plugin table (jit/plugin_api.h) with the LLVM back end's functions and the
    # JIT's. It lives with the back end whose shared object it exports; nothing includes it.
    'backends/llvm/plugin.c': ('jit/jit.h', 'jit/runtime.h'),
}

# <...> headers only some rooms may include.
SYSTEM_RULES = (
    (re.compile(r'llvm-c/|llvm/'), ('backends/llvm', 'jit'), 'LLVM'),
    (re.compile(r'(^|/)(cuda|cuda_runtime|cuda_runtime_api|nvrtc|cudaTypedefs)\.h$'), ('jit',),
     'CUDA'),
)

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
# an `extern` declaration up to its semicolon, and a non-static object defined at file scope
EXTERN = re.compile(r'^[ \t]*extern\b([^;{(]*);', re.M)
DEFINITION = re.compile(r'^(?!static\b|extern\b|typedef\b|return\b)[A-Za-z_][\w \t*]*?\b'
                        r'([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*=', re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def room_of(path):
    """The room a file (a path relative to the root, with /) lives in, or None if it is free."""
    parts = path.split('/')
    if parts[0] not in CHECKED_TOP or len(parts) < 2:
        return None
    if parts[0] == 'frontend':
        return 'frontend' if len(parts) == 2 else 'frontend/' + parts[1]
    if parts[0] == 'backends':
        return 'backends/' + parts[1] if len(parts) > 2 else 'backends'
    return parts[0]


def in_room(path, room):
    return path == room or path.startswith(room + '/')


def allowed(src, src_room, target):
    """Whether src (in src_room) may include target (a path relative to the root)."""
    if in_room(target, src_room):
        return True
    if target in EXCEPTIONS.get(src, ()):
        return True
    rules = ALLOWED.get(src_room) or ALLOWED['backends' if src_room.startswith('backends/')
                                             else src_room]
    return any(in_room(target, r) for r in rules)


def resolve(root, src, name):
    """The included file as a path relative to the root: beside the includer first, then from
    the root (meson's include directories); a bare name not found is beside the includer (a
    generated header, grammar's parser.h)."""
    here = os.path.dirname(src)
    beside = os.path.normpath(os.path.join(here, name)).replace(os.sep, '/')
    if os.path.exists(os.path.join(root, beside)):
        return beside
    if os.path.exists(os.path.join(root, name)) or '/' in name:
        return os.path.normpath(name).replace(os.sep, '/')
    return beside


def blank_comments(text):
    """text with each comment's characters but its newlines as spaces (lines keep their
    numbers)."""
    return COMMENT.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def extern_names(text):
    """(line number, name) of each object an `extern` declaration of text names."""
    text = blank_comments(text)
    for m in EXTERN.finditer(text):
        lineno = text.count('\n', 0, m.start()) + 1
        for part in m.group(1).split(','):
            names = re.findall(r'([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$', part.strip())
            if names:
                yield lineno, names[0]


def definitions(root):
    """{name: the .c file defining it} over the checked tree."""
    found = {}
    for src in sources(root):
        if src.endswith('.c'):
            with open(os.path.join(root, src), encoding='utf-8', errors='replace') as f:
                for m in DEFINITION.finditer(blank_comments(f.read())):
                    found.setdefault(m.group(1), src)
    return found


def check_file(root, src, defined=None):
    """The violations of one file: a list of (line number, message). defined: definitions()."""
    room = room_of(src)
    found = []
    if src.endswith('.h') and defined:
        with open(os.path.join(root, src), encoding='utf-8', errors='replace') as f:
            for lineno, name in extern_names(f.read()):
                definer = defined.get(name)
                if definer and not allowed(src, room, definer):
                    found.append((lineno, '%s declares %s, which %s defines' % (room, name,
                                                                                definer)))
    with open(os.path.join(root, src), encoding='utf-8', errors='replace') as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if kind == '"':
                target = resolve(root, src, name)
                if not allowed(src, room, target):
                    found.append((lineno, '%s may not include %s' % (room, target)))
                continue
            for pattern, rooms, what in SYSTEM_RULES:
                if pattern.search(name) and not any(in_room(room, r) for r in rooms):
                    found.append((lineno, '%s may not include %s (%s)' % (room, name, what)))
    return sorted(found)


def sources(root):
    for top in CHECKED_TOP:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTS):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root).replace(os.sep, '/')


def check_tree(root, out):
    """Prints each violation to out; returns (files passed, files failed)."""
    passed = failed = 0
    defined = definitions(root)
    for src in sources(root):
        found = check_file(root, src, defined)
        for lineno, msg in found:
            print('%s:%d: %s' % (src, lineno, msg), file=out)
        if found:
            failed += 1
        else:
            passed += 1
    return passed, failed


# ---- self-test: made-up trees, each with the violations it must produce ----

GOOD_TREE = {
    'grammar/lexer.h': '#include "frontend/lang/parse.h"\n#include "parser.h"\n',
    'grammar/lexer.re': '#include <stdio.h>\n#include "lexer.h"\n',
    'frontend/lang/parse.h': '#include "frontend/lang/ast.h"\n',
    'frontend/lang/ast.h': '#include "ir/arena.h"\n',
    'frontend/lang/value.c': '#include "frontend/lang/ast.h"\n#include "ir/support.h"\n',
    'frontend/np/np.c': '#include "frontend/lang/ast.h"\n#include "jit/ndarray.h"\n'
                        'const Builtin np_funcs[] = {0};\nconst int np_count = 1, np_other;\n',
    'frontend/np/np.h': '#include "frontend/lang/value.h"\n'
                        'extern const Builtin np_funcs[], /* np.c */ lang_funcs[];\n',
    'frontend/lang/value.h': 'extern const Builtin lang_funcs[];\n',
    'frontend/lang/builtins.c': 'const Builtin lang_funcs[] = {\n  {0},\n};\n',
    'frontend/tvm/te.c': '#include "frontend/np/np.c"\n#include "ir/expr.h"\n'
                         '#include "backends/c/codegen_c.h"\n#include "jit/ndarray.h"\n',
    'frontend/main.c': '#include "frontend/tvm/te.c"\n#include "grammar/lexer.h"\n',
    'ir/arena.h': '', 'ir/support.h': '', 'ir/dtype.h': '',
    'ir/expr.h': '#include "ir/dtype.h"\n',
    'ir/pass/simplify.c': '#include "ir/expr.h"\n#include "arena.h"\n',
    'backends/c/codegen_c.h': '#include "ir/expr.h"\n',
    'backends/cuda/codegen_cuda.c': '#include "backends/c/c_printer.h"\n#include "ir/expr.h"\n',
    'backends/llvm/codegen.c': '#include <llvm-c/Core.h>\n#include "ir/expr.h"\n',
    'backends/llvm/plugin.c': '#include "jit/plugin_api.h"\n#include "jit/jit.h"\n'
                              '#include "jit/runtime.h"\n',
    'jit/plugin_api.h': '#include <stdbool.h>\n',
    'jit/jit.h': '', 'jit/runtime.h': '',
    'jit/jit.c': '#include <llvm-c/LLJIT.h>\n#include "jit/plugin_api.h"\n#include "ir/dtype.h"\n',
    'jit/cuda.c': '#include <cuda.h>\n#include <nvrtc.h>\n',
    'jit/ndarray.h': '#include "ir/dtype.h"\n',
    'tests/unit/test_x.c': '#include "frontend/tvm/te.c"\n#include <llvm-c/Core.h>\n',
}

# (file, text, the violations expected of it)
BAD_CASES = (
    ('grammar/lexer.h', '#include "frontend/lang/parse.h"\n#include "frontend/lang/value.h"\n'
     '#include "ir/support.h"\n',
     ['grammar/lexer.h:2: grammar may not include frontend/lang/value.h',
      'grammar/lexer.h:3: grammar may not include ir/support.h']),
    ('frontend/np/np.c', '  #  include "frontend/tvm/te.h"\n#include "ir/expr.h"\n',
     ['frontend/np/np.c:1: frontend/np may not include frontend/tvm/te.h',
      'frontend/np/np.c:2: frontend/np may not include ir/expr.h']),
    ('frontend/lang/value.c', '#include "frontend/np/np.h"\n#include "frontend/repl.h"\n',
     ['frontend/lang/value.c:1: frontend/lang may not include frontend/np/np.h',
      'frontend/lang/value.c:2: frontend/lang may not include frontend/repl.h']),
    # declared below, defined above: the language would need the numpy subset to link
    ('frontend/lang/value.h', 'extern int x;\n/* extern int np_count; */\nextern const\n'
     '  Builtin lang_funcs[],\n  np_funcs[3]; /* np.c */\nextern int np_count;\n',
     ['frontend/lang/value.h:3: frontend/lang declares np_funcs, which frontend/np/np.c defines',
      'frontend/lang/value.h:6: frontend/lang declares np_count, which frontend/np/np.c defines']),
    ('frontend/tvm/te.c', '#include "frontend/diag.h"\n',
     ['frontend/tvm/te.c:1: frontend/tvm may not include frontend/diag.h']),
    ('backends/llvm/codegen.c', '#include "backends/c/codegen_c.h"\n#include "jit/jit.h"\n'
     '#include "jit/plugin_api.h"\n',
     ['backends/llvm/codegen.c:1: backends/llvm may not include backends/c/codegen_c.h',
      'backends/llvm/codegen.c:2: backends/llvm may not include jit/jit.h']),
    ('backends/c/codegen_c.c', '#include <llvm-c/Core.h>\n#include "frontend/lang/ast.h"\n',
     ['backends/c/codegen_c.c:1: backends/c may not include llvm-c/Core.h (LLVM)',
      'backends/c/codegen_c.c:2: backends/c may not include frontend/lang/ast.h']),
    ('jit/llvm_plugin.h', '#include "backends/llvm/codegen_llvm.h"\n#include "ir/expr.h"\n',
     ['jit/llvm_plugin.h:1: jit may not include backends/llvm/codegen_llvm.h',
      'jit/llvm_plugin.h:2: jit may not include ir/expr.h']),
    ('ir/expr.c', '#include <llvm-c/Core.h>\n#include <cuda.h>\n#include "jit/jit.h"\n',
     ['ir/expr.c:1: ir may not include llvm-c/Core.h (LLVM)',
      'ir/expr.c:2: ir may not include cuda.h (CUDA)',
      'ir/expr.c:3: ir may not include jit/jit.h']),
    ('backends/llvm/codegen_gpu.c', '#include <cuda.h>\n',
     ['backends/llvm/codegen_gpu.c:1: backends/llvm may not include cuda.h (CUDA)']),
    ('frontend/tvm/device.c', '#include <nvrtc.h>\n',
     ['frontend/tvm/device.c:1: frontend/tvm may not include nvrtc.h (CUDA)']),
    # CUDA C shares the C printer's core, not the c target itself
    ('backends/cuda/codegen_cuda.c', '#include "backends/c/c_printer.h"\n'
     '#include "backends/c/codegen_c.h"\n',
     ['backends/cuda/codegen_cuda.c:2: backends/cuda may not include backends/c/codegen_c.h']),
    # the exception is one file's, not its folder's
    ('backends/llvm/codegen_llvm.c', '#include "jit/runtime.h"\n',
     ['backends/llvm/codegen_llvm.c:1: backends/llvm may not include jit/runtime.h']),
)


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)


class Lines:
    def __init__(self):
        self.lines = []

    def write(self, s):
        self.lines.extend(l for l in s.split('\n') if l)


def self_test():
    passed = failed = 0

    def expect(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print('FAIL: ' + what)

    with tempfile.TemporaryDirectory() as root:
        write_tree(root, GOOD_TREE)
        out = Lines()
        p, f = check_tree(root, out)
        expect(f == 0 and out.lines == [] and p == len([s for s in GOOD_TREE
                                                        if room_of(s)]),
               'the good tree passes: %d passed, %d failed %r' % (p, f, out.lines))
    for path, text, want in BAD_CASES:
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, dict(GOOD_TREE, **{path: text}))
            out = Lines()
            _, f = check_tree(root, out)
            expect(f == 1 and out.lines == want, '%s: got %r, want %r' % (path, out.lines, want))
    # the command line fails on a bad tree and passes a good one
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, GOOD_TREE)
        expect(main(['--root', root], Lines()) == 0, 'exit status 0 on the good tree')
        write_tree(root, {'ir/expr.h': '#include "frontend/lang/ast.h"\n'})
        out = Lines()
        status = main(['--root', root], out)
        expect(status == 1 and 'ir/expr.h:1: ir may not include frontend/lang/ast.h' in out.lines
               and out.lines[-1] == '%d passed, 1 failed' % (len([s for s in GOOD_TREE
                                                                  if room_of(s)]) - 1),
               'exit status 1 and the violation on a bad tree: %d %r' % (status, out.lines))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


def main(argv, out=sys.stdout):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    passed, failed = check_tree(args.root, out)
    print('%d passed, %d failed' % (passed, failed), file=out)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
