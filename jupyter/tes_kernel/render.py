"""Rich output for echoed values: lowered IR as highlighted HTML, arrays as HTML tables.

Each function takes the "value" object of an execute reply (docs/serve.md) and returns the
mime bundle of an execute_result: text/plain always, text/html where a person would rather
look at it.
"""

import html

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (Comment, Generic, Keyword, Name, Number, Operator, Punctuation, String,
                            Text)

# Beyond this many characters of IR the HTML (five times larger with inline styles) is left
# out: the notebook keeps the text alone.
MAX_IR_HTML = 200_000
# Tables show at most this many rows and columns; the middle ones become an ellipsis.
MAX_ROWS = 40
MAX_COLS = 20


class TesIRLexer(RegexLexer):
    """The text of tes's IR printer (docs/ir.md), and :watch's marked lines (docs/repl.md)."""

    name = "tes IR"
    aliases = ["tes-ir"]
    filenames = []

    tokens = {
        "root": [
            # the marks of :watch's lines: in the new IR only, in the old one only
            (r"^\+ ", Generic.Inserted),
            (r"^- ", Generic.Deleted),
            (r"\s+", Text),
            (r"//.*?$", Comment.Single),
            (r'"(\\\\|\\"|[^"])*"', String.Double),
            (r"(@)([A-Za-z_][\w.]*)", bygroups(Name.Decorator, Name.Function)),
            (words(("for", "if", "else", "allocate", "attr", "let", "realize", "assert",
                    "primfn", "produce", "storage_scope", "while", "prefetch",
                    "T_launch_thread"), suffix=r"\b"), Keyword),
            (r"(bool|handle|(?:u?int|float|bfloat)\d+(?:x\d+)?)\b", Keyword.Type),
            (words(("Buffer", "Pointer", "IterVar", "ramp", "broadcast", "select", "floordiv",
                    "floormod", "min", "max", "True", "False"), suffix=r"\b"), Name.Builtin),
            (r"-?\d+\.\d*(?:e[+-]?\d+)?(?:f\d+)?|-?\d+(?:e[+-]?\d+)?f\d+", Number.Float),
            (r"-?\d+(?:[iu]\d+)?", Number.Integer),
            (r"[A-Za-z_][\w.]*", Name),
            (r"&&|\|\||==|!=|<=|>=|[-+*/%<>=!]", Operator),
            (r"[()\[\]{},:;]", Punctuation),
            (r".", Text),
        ],
    }


def _ir_html(text):
    # monospace said outright: notebook style sheets give HTML output's <pre> the text font
    formatter = HtmlFormatter(noclasses=True, nobackground=True, style="default",
                              prestyles="font-family: monospace")
    return '<div class="tes-ir">' + highlight(text, TesIRLexer(), formatter) + "</div>"


def _format_scalar(v, dtype):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        digits = 8 if dtype in ("float32", "float16", "bfloat16") else 15
        return "%.*g" % (digits, v)
    return str(v)


def _elided(n, limit):
    """The indexes to show out of n: all of them, or the first and last halves of limit with
    None for the ellipsis between."""
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return list(range(half)) + [None] + list(range(n - half, n))


def _array_html(arr):
    dtype = arr.get("dtype", "")
    shape = list(arr.get("shape", []))
    data = arr.get("data")
    if len(shape) == 0:
        rows = [[data]]
    elif len(shape) == 1:
        rows = [data]
    else:
        rows = data
    ncols = shape[-1] if shape else 1
    cols = _elided(ncols, MAX_COLS)
    out = ['<table class="tes-array">',
           "<caption>%s, shape (%s)</caption>" % (html.escape(dtype),
                                                  ", ".join(str(d) for d in shape) +
                                                  ("," if len(shape) == 1 else ""))]
    if len(shape) >= 1:
        head = "".join("<th>%s</th>" % ("&hellip;" if c is None else c) for c in cols)
        out.append("<thead><tr><th></th>%s</tr></thead>" % head)
    out.append("<tbody>")
    for r in _elided(len(rows), MAX_ROWS):
        if r is None:
            out.append("<tr><th>&vellip;</th>%s</tr>" % ("<td>&vellip;</td>" * len(cols)))
            continue
        label = r if len(shape) >= 2 else ""
        cells = "".join(
            "<td>&hellip;</td>" if c is None
            else "<td>%s</td>" % html.escape(_format_scalar(rows[r][c], dtype)) for c in cols)
        out.append("<tr><th>%s</th>%s</tr>" % (label, cells))
    out.append("</tbody></table>")
    return "".join(out)


def value_bundle(value):
    """The execute_result data for a reply's value object."""
    text = value.get("text", "")
    data = {"text/plain": text}
    kind = value.get("kind")
    if kind == "ir" and len(text) <= MAX_IR_HTML:
        data["text/html"] = _ir_html(text)
    elif kind == "array" and isinstance(value.get("array"), dict):
        data["text/html"] = _array_html(value["array"])
    return data
