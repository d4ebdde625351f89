"""The tes Jupyter kernel: ipykernel's Kernel base class over a `tes --serve` child."""

import re
import signal
import threading

from ipykernel.kernelbase import Kernel

from . import __version__
from .render import value_bundle
from .serve import TesDied, TesNotFound, TesProcess, describe_status, find_tes

# `%matplotlib inline` opens every notebook that sphinx-gallery publishes (TVM's tutorials
# among them): dropped with a note. Any other IPython magic or shell escape is an error.
_MATPLOTLIB = re.compile(r"^\s*%matplotlib\b")
_MAGIC = re.compile(r"^\s*(%%?|!)\S")


def _scan(line, state):
    """The (bracket depth, open triple quote or None, backslash at the end) after line, from
    the state before it: just enough of the lexer to tell where statements start."""
    depth, triple, _ = state
    i, n = 0, len(line)
    while i < n:
        if triple:
            end = line.find(triple, i)
            if end < 0:
                return depth, triple, False
            i, triple = end + 3, None
            continue
        c = line[i]
        if c == "#":
            break
        if c in "'\"":
            if line.startswith(c * 3, i):
                triple, i = c * 3, i + 3
                continue
            i += 1
            while i < n and line[i] != c:
                i += 2 if line[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    return depth, triple, line.rstrip().endswith("\\") and not triple


def filter_magics(code):
    """(code, notes, bad): code with %matplotlib lines blanked (line numbers kept), a note for
    each, and the (line number, text) of the first other magic or shell escape, or None. Only
    a line that starts a statement can be one (not a line inside brackets or a string)."""
    lines = code.split("\n")
    notes = []
    state = (0, None, False)
    for i, line in enumerate(lines):
        starts = state == (0, None, False)
        if starts and _MATPLOTLIB.match(line):
            notes.append("tes: '%s' ignored (no plotting in tes)\n" % line.strip())
            lines[i] = ""
        elif starts and _MAGIC.match(line):
            return code, notes, (i + 1, line)
        else:
            state = _scan(line, state)
    return "\n".join(lines), notes, None


def _incomplete_indent(code):
    last = code.rstrip("\n").split("\n")[-1] if code.strip() else ""
    indent = last[:len(last) - len(last.lstrip())]
    return indent + "    " if last.rstrip().endswith(":") else indent


class TesKernel(Kernel):
    implementation = "tes_kernel"
    implementation_version = __version__
    language = "tes"
    language_version = "0.1.0"
    language_info = {
        "name": "tes",
        "version": "0.1.0",
        "mimetype": "text/x-python",
        "file_extension": ".tes",
        "pygments_lexer": "python3",
        "codemirror_mode": "python",
    }
    banner = "tes: TVM's tensor-expression tutorials, natively (docs/jupyter.md)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.tes = None
        self.start_error = None
        self._start_tes()

    # --- the child -----------------------------------------------------------------------

    def _start_tes(self):
        try:
            self.tes = TesProcess(find_tes())
        except (TesNotFound, TesDied, RuntimeError, OSError) as e:
            self.tes = None
            self.start_error = str(e)
            return
        self.start_error = None
        ready = self.tes.ready
        version = ready.get("tes", "?")
        self.language_version = version
        self.language_info = dict(self.language_info, version=version)
        self.banner = "tes %s (LLVM %s): TVM's tensor-expression tutorials, natively" % (
            version, ready.get("llvm", "?"))

    def _ensure_tes(self):
        """A running child, restarting one that ended (sys.exit, a crash). None and
        self.start_error when there is none to be had."""
        if self.tes is not None and self.tes.alive:
            return self.tes
        if self.tes is not None:
            self.tes.close()
        self._start_tes()
        return self.tes

    def _request(self, req):
        """The reply to req, or None when tes is not there or ended meanwhile."""
        tes = self._ensure_tes()
        if tes is None:
            return None
        try:
            return tes.request(req)
        except TesDied:
            return None

    # --- execute ---------------------------------------------------------------------------

    def _stream(self, name, text):
        if text:
            self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def _error(self, ename, evalue, traceback, silent):
        content = {"ename": ename, "evalue": evalue, "traceback": traceback}
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        return dict(content, status="error", execution_count=self.execution_count)

    def _run_cell(self, code, silent):
        """Sends an execute request, the cell's output streamed to the front end as it comes
        (unless silent); SIGINT meanwhile (jupyter_client signals the kernel's process group,
        or the kernel signals itself on an interrupt_request) goes on to the child, whose
        reply is then a KeyboardInterrupt."""
        tes = self.tes
        in_main = threading.current_thread() is threading.main_thread()
        if in_main:
            previous = signal.signal(signal.SIGINT, lambda signum, frame: tes.interrupt())
        try:
            return tes.request({"type": "execute", "code": code},
                               on_stream=None if silent else self._stream)
        finally:
            if in_main:
                signal.signal(signal.SIGINT, previous)

    async def do_execute(self, code, silent, store_history=True, user_expressions=None,
                         allow_stdin=False, **kwargs):
        code, notes, bad = filter_magics(code)
        if bad is not None:
            line, text = bad
            what = "shell commands" if text.lstrip().startswith("!") else "IPython magics"
            evalue = "not supported in tes: %s (%s)" % (what, text.strip())
            return self._error("SyntaxError", evalue,
                               ["<cell>:%d: error: SyntaxError: %s" % (line, evalue), text],
                               silent)
        if not silent:
            for note in notes:
                self._stream("stderr", note)
        if self._ensure_tes() is None:
            return self._error("TesNotFound", self.start_error, [self.start_error], silent)
        try:
            reply = self._run_cell(code, silent)
        except TesDied as e:
            evalue = ("tes ended (%s) while running this cell; its names are gone, and the "
                      "next cell starts a new tes" % describe_status(e.status))
            return self._error("TesDied", evalue, [evalue], silent)
        if not silent:
            self._stream("stdout", reply.get("stdout"))
            self._stream("stderr", reply.get("stderr"))
        if "exit" in reply:
            if not silent:
                self._stream("stderr", "tes: sys.exit(%s): the next cell starts a new tes\n"
                             % reply["exit"])
            self.tes.close()
        err = reply.get("error")
        if reply.get("status") != "ok" and err:
            traceback = (err.get("text") or err.get("message", "")).rstrip("\n").split("\n")
            return self._error(err.get("kind", "Error"), err.get("message", ""), traceback,
                               silent)
        value = reply.get("value")
        if value and not silent:
            self.send_response(self.iopub_socket, "execute_result", {
                "execution_count": self.execution_count, "data": value_bundle(value),
                "metadata": {}})
        return {"status": "ok", "execution_count": self.execution_count, "payload": [],
                "user_expressions": {}}

    # --- completion, inspection, is_complete -------------------------------------------------

    async def do_complete(self, code, cursor_pos):
        reply = self._request({"type": "complete", "code": code, "cursor": cursor_pos})
        if not reply or reply.get("status") != "ok":
            return {"status": "ok", "matches": [], "cursor_start": cursor_pos,
                    "cursor_end": cursor_pos, "metadata": {}}
        return {"status": "ok", "matches": reply.get("matches", []),
                "cursor_start": reply.get("cursor_start", cursor_pos),
                "cursor_end": reply.get("cursor_end", cursor_pos), "metadata": {}}

    async def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        reply = self._request({"type": "inspect", "code": code, "cursor": cursor_pos})
        if not reply or reply.get("status") != "ok" or not reply.get("found"):
            return {"status": "ok", "found": False, "data": {}, "metadata": {}}
        return {"status": "ok", "found": True, "data": {"text/plain": reply.get("text", "")},
                "metadata": {}}

    async def do_is_complete(self, code):
        if filter_magics(code)[2] is not None:
            return {"status": "invalid"}
        reply = self._request({"type": "is_complete", "code": code})
        if not reply or reply.get("status") != "ok":
            return {"status": "unknown"}
        state = reply.get("state", "unknown")
        if state == "incomplete":
            return {"status": "incomplete", "indent": _incomplete_indent(code)}
        return {"status": state}

    # --- shutdown ----------------------------------------------------------------------------

    async def do_shutdown(self, restart):
        if self.tes is not None:
            self.tes.close()
        return {"status": "ok", "restart": restart}
