"""The client side of `tes --serve` (docs/serve.md): one child process, JSON lines both ways.

Kept free of ipykernel so that it can be used and tested on its own. The child runs in a
session of its own, so a signal sent to the kernel's process group never reaches it twice:
the kernel forwards SIGINT itself (TesProcess.interrupt). It dies with the kernel: its stdin
is the kernel's pipe (EOF when the kernel goes) and, on Linux, the kernel's death sends it
SIGKILL (PR_SET_PDEATHSIG), which also covers a kernel killed while a cell runs.
"""

import ctypes
import ctypes.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading

PROTOCOL = 1


class TesNotFound(RuntimeError):
    """No tes binary: neither $TES_BIN nor `tes` on PATH."""


class TesDied(RuntimeError):
    """The tes process ended without answering."""

    def __init__(self, status, request_type):
        self.status = status
        self.request_type = request_type
        super().__init__("tes ended (%s) while answering a %s request"
                         % (describe_status(status), request_type))


def describe_status(status):
    """'exit status 3' or 'killed by SIGSEGV' for a Popen return code."""
    if status is None:
        return "still running"
    if status < 0:
        try:
            return "killed by " + signal.Signals(-status).name
        except ValueError:
            return "killed by signal %d" % -status
    return "exit status %d" % status


def find_tes():
    """The tes binary to run: $TES_BIN when set, else `tes` on PATH."""
    path = os.environ.get("TES_BIN")
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise TesNotFound("TES_BIN is %s, which is not an executable file" % path)
        return path
    path = shutil.which("tes")
    if not path:
        raise TesNotFound("no tes binary: set TES_BIN to the tes executable or put tes on PATH "
                          "(meson install installs it as <prefix>/bin/tes)")
    return path


def _death_signal_setter():
    """A function for the child between fork and exec that asks Linux to SIGKILL it when its
    parent dies; None elsewhere. libc is loaded here, before any fork."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    parent = os.getpid()

    def set_death_signal():
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return set_death_signal


class TesProcess:
    """One `tes --serve` child. request() sends one request and returns its reply (a dict)."""

    def __init__(self, tes=None, env=None):
        self.tes = tes or find_tes()
        self.env = env
        self.proc = None
        self.ready = None
        self._buf = b""
        self._next_id = 0
        self._lock = threading.Lock()
        self.start()

    def start(self):
        """Starts the child and reads its ready line."""
        self._buf = b""
        self.proc = subprocess.Popen(
            [self.tes, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=self.env, start_new_session=True, preexec_fn=_death_signal_setter())
        line = self._read_line()
        if line is None:
            status = self.proc.wait()
            raise TesDied(status, "start")
        try:
            ready = json.loads(line)
        except ValueError:
            ready = None
        if not isinstance(ready, dict) or ready.get("type") != "ready":
            self.kill()
            raise RuntimeError("%s --serve did not start the protocol; its first line was %r"
                               % (self.tes, line[:200]))
        if ready.get("protocol") != PROTOCOL:
            self.kill()
            raise RuntimeError("%s speaks protocol %r; this kernel speaks %d"
                               % (self.tes, ready.get("protocol"), PROTOCOL))
        self.ready = ready

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def request(self, req, on_stream=None):
        """Sends req (a dict with "type") and returns the reply with the same id. Raises
        TesDied when the child ends first (its status is then in .status). With on_stream
        (an execute request), the cell's output is streamed: on_stream(name, text) gets each
        piece ("stdout" or "stderr") as the cell writes it, and the reply holds the rest."""
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            msg = dict(req, id=rid)
            if on_stream is not None:
                msg["stream"] = True
            data = (json.dumps(msg, ensure_ascii=False) + "\n").encode("utf-8")
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise TesDied(self.proc.wait(), req["type"]) from None
            while True:
                line = self._read_line()
                if line is None:
                    raise TesDied(self.proc.wait(), req["type"])
                reply = json.loads(line)
                if not isinstance(reply, dict) or reply.get("id") != rid:
                    continue
                if reply.get("type") == "stream":
                    if on_stream is not None:
                        on_stream(reply.get("name"), reply.get("text", ""))
                    continue
                return reply

    def _read_line(self):
        """The next line from the child's stdout (bytes, without '\\n'), or None at EOF. Reads
        the fd directly so that a signal handler running meanwhile loses nothing."""
        fd = self.proc.stdout.fileno()
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line, self._buf = self._buf[:nl], self._buf[nl + 1:]
                return line
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buf += chunk

    def interrupt(self):
        """SIGINT to the child: KeyboardInterrupt in the running cell (ignored when idle)."""
        if self.alive:
            try:
                os.kill(self.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def close(self, timeout=2.0):
        """Ends the child: a shutdown request when it is idle, then EOF, then SIGKILL."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b'{"type":"shutdown"}\n')
                self.proc.stdin.flush()
            except OSError:
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc.stdout.close()
        return self.proc.returncode

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
