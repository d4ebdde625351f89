"""Turns .tes programs into Jupyter notebooks (nbformat 4) for the tes kernel.

    python3 -m tes_kernel.notebooks OUTDIR FILE.tes...

writes OUTDIR/FILE.ipynb for each. The notebooks are generated, never edited: meson builds
them from examples/*.tes into the build folder and installs them under share/tes/notebooks.

A program's top-level statements become code cells; the comment lines between statements
(at column 0) become markdown cells, so the prose of a tutorial reads as prose. Statements
with no comment between them share a cell. The test machinery of examples/ (`# RUN:`,
`# REQUIRES:`, `# CHECK:` lines) is left out, and so are sphinx-gallery's `####` rulers.
TES is a subset of Python, so Python's own parser finds the statements.
"""

import ast
import json
import os
import re
import sys

_DIRECTIVE = re.compile(r"^\s*#\s*(RUN|REQUIRES|UNSUPPORTED|XFAIL|CHECK(-[A-Z]+)*)\s*:")
_RULER = re.compile(r"^#{10,}\s*$")

KERNELSPEC = {"display_name": "TES", "language": "tes", "name": "tes"}
LANGUAGE_INFO = {"name": "tes", "file_extension": ".tes", "mimetype": "text/x-python",
                 "codemirror_mode": "python", "pygments_lexer": "python3"}


def _statement_spans(source, filename):
    """(first, last) line numbers (1-based, inclusive) of each top-level statement."""
    tree = ast.parse(source, filename)
    spans = []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        spans.append((first, node.end_lineno))
    return spans


def _trim(lines):
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _markdown(comment_lines):
    """Markdown from comment lines: '# ' taken off, rulers dropped, blank lines kept as
    paragraph breaks."""
    out = []
    for line in comment_lines:
        if not line.strip():
            out.append("")
        elif not _RULER.match(line):
            text = line.lstrip()[1:]
            out.append(text[1:] if text.startswith(" ") else text)
    return _trim(out)


def cells_of(source, filename):
    """The notebook cells of a program: a list of ("markdown" | "code", [lines])."""
    lines = source.split("\n")
    kept = lambda first, last: [lines[n - 1] for n in range(first, last + 1)
                                if not _DIRECTIVE.match(lines[n - 1])]
    cells = []
    code = []  # the code cell being gathered

    def flush():
        if _trim(code):
            cells.append(("code", _trim(code[:])))
        code.clear()

    def gap(between):
        """Blank and comment lines between statements: what comes before the first comment at
        column 0 ends the code before, the comments up to the last one at column 0 are prose,
        and the rest opens the code after."""
        prose = [i for i, l in enumerate(between) if l.startswith("#")]
        if not prose or not _markdown(between[prose[0]:prose[-1] + 1]):
            code.extend(between)
            return
        code.extend(between[:prose[0]])
        flush()
        cells.append(("markdown", _markdown(between[prose[0]:prose[-1] + 1])))
        code.extend(between[prose[-1] + 1:])

    at = 1
    for first, last in _statement_spans(source, filename):
        gap(kept(at, first - 1))
        code.extend(kept(first, last))
        at = last + 1
    gap(kept(at, len(lines)))
    flush()
    return cells


def _merge(cells):
    merged = []
    for kind, body in cells:
        if merged and merged[-1][0] == kind == "markdown":
            merged[-1][1].extend([""] + body)
        else:
            merged.append((kind, body))
    return merged


def _source(lines):
    return [l + "\n" for l in lines[:-1]] + lines[-1:]


def notebook(path):
    """The notebook (a dict, nbformat 4.5) of the .tes program at path."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    name = os.path.basename(path)
    stem = os.path.splitext(name)[0]
    cells = [("markdown", ["# %s" % name, "",
                           "Generated from `%s` by `python3 -m tes_kernel.notebooks`; edit the "
                           ".tes program, not this notebook. Runs in the tes kernel "
                           "(docs/jupyter.md)." % name])]
    cells += cells_of(source, path)
    nb_cells = []
    for i, (kind, body) in enumerate(_merge(cells)):
        cell = {"cell_type": kind, "id": "%s-%d" % (stem[:50], i), "metadata": {},
                "source": _source(body)}
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        nb_cells.append(cell)
    return {"cells": nb_cells,
            "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO)},
            "nbformat": 4, "nbformat_minor": 5}


def write_notebook(path, outdir):
    out = os.path.join(outdir, os.path.splitext(os.path.basename(path))[0] + ".ipynb")
    text = json.dumps(notebook(path), indent=1, ensure_ascii=False) + "\n"
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print("usage: python3 -m tes_kernel.notebooks OUTDIR FILE.tes...", file=sys.stderr)
        return 2
    outdir = argv[0]
    os.makedirs(outdir, exist_ok=True)
    for path in argv[1:]:
        try:
            write_notebook(path, outdir)
        except (OSError, SyntaxError) as e:
            print("tes_kernel.notebooks: %s: %s" % (path, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
