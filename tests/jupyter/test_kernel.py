"""The tes kernel over the Jupyter protocol, from jupyter_client as a notebook server drives it:
execute (streams, also while a cell runs, and execute_result), errors, magics, interrupt,
restart, completion, inspection, is_complete and rich output. Run by tests/jupyter/run.py
inside its virtual environment, with the tes kernelspec installed there and TES_BIN set:

    VENV/bin/python tests/jupyter/test_kernel.py

Prints PASS/FAILED per test and "N passed, M failed" last; exits non-zero on a failure.
"""

import os
import queue
import sys
import tempfile
import time
import traceback

from jupyter_client.manager import KernelManager

TIMEOUT = 120


class Session:
    """A kernel and a blocking client; run() executes a cell and gathers what it published."""

    def __init__(self, env=None):
        self.km = KernelManager(kernel_name="tes", transport="ipc")
        kw = {}
        if env is not None:
            kw["env"] = env
        self.km.start_kernel(**kw)
        self.connect()

    def connect(self):
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=TIMEOUT)

    def run(self, code, timeout=TIMEOUT, interrupt_after=None):
        """(reply content, [iopub messages of the cell]). With interrupt_after, the kernel is
        interrupted that many seconds after the cell is sent, and again every 5 s without a
        reply (a SIGINT that reaches tes before the cell starts is ignored, as when idle)."""
        msg_id = self.kc.execute(code)
        deadline = time.time() + timeout
        if interrupt_after is not None:
            time.sleep(interrupt_after)
        while True:
            if interrupt_after is not None:
                self.km.interrupt_kernel()
            try:
                reply = self.kc.get_shell_msg(
                    timeout=5 if interrupt_after is not None else timeout)
            except queue.Empty:
                if interrupt_after is None or time.time() > deadline:
                    raise
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        return reply["content"], self.published(msg_id, timeout)

    def published(self, msg_id, timeout=TIMEOUT):
        """The iopub messages of the cell msg_id not read yet, up to its idle status."""
        out = []
        while True:
            msg = self.kc.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            out.append(msg)
        return out

    def request(self, send, timeout=TIMEOUT):
        msg_id = send()
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        return reply["content"]

    def tes_children(self):
        """The pids of the tes processes the kernel started (its children named tes)."""
        kernel = self.km.provisioner.pid if self.km.provisioner else None
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % entry) as f:
                    stat = f.read()
            except OSError:
                continue
            name = stat[stat.index("(") + 1:stat.rindex(")")]
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            if ppid == kernel and name == "tes":
                pids.append(int(entry))
        return pids

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)


def streams(msgs, name):
    return "".join(m["content"]["text"] for m in msgs
                   if m["msg_type"] == "stream" and m["content"]["name"] == name)


def results(msgs):
    return [m["content"]["data"] for m in msgs if m["msg_type"] == "execute_result"]


def errors(msgs):
    return [m["content"] for m in msgs if m["msg_type"] == "error"]


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False


def wait_gone(pids, secs=10):
    deadline = time.time() + secs
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


# --- the tests: each takes the shared session (or makes its own) -----------------------------

def test_kernel_info(s):
    info = s.request(s.kc.kernel_info)
    li = info["language_info"]
    expect(li["name"] == "tes" and li["file_extension"] == ".tes", "language_info %r" % li)
    expect(li["pygments_lexer"] == "python3" and li["codemirror_mode"] == "python", li)
    expect(li["mimetype"] == "text/x-python", li)
    expect(info["implementation"] == "tes_kernel", info)
    expect("LLVM" in info["banner"], "banner %r" % info["banner"])


def test_execute_stream_and_result(s):
    reply, out = s.run('print("hello", 6 * 7)\n40 + 2')
    expect(reply["status"] == "ok", reply)
    expect(streams(out, "stdout") == "hello 42\n", "stdout %r" % streams(out, "stdout"))
    res = results(out)
    expect(len(res) == 1 and res[0]["text/plain"] == "42", "execute_result %r" % res)
    reply, out = s.run("x = 5")
    expect(reply["status"] == "ok" and not results(out), "an assignment echoed %r" % out)
    reply, out = s.run("x * 2")
    expect(results(out)[0]["text/plain"] == "10", "state kept between cells: %r" % out)


def test_stderr_stream(s):
    # tes.CheckBounds warns on stderr about a read it cannot prove inside its tensor
    reply, out = s.run("import tvm\nfrom tvm import te\nW = te.placeholder((10,), name='W')\n"
                       "k = te.reduce_axis((0, 4), name='k')\n"
                       "V = te.compute((12,), lambda i: te.sum(W[te.min(i, 9) + k], axis=k), "
                       "name='V')\n"
                       "f = tvm.build(te.create_schedule(V.op), [W, V], 'llvm')\n"
                       "print('built')")
    expect(reply["status"] == "ok", reply)
    expect(streams(out, "stdout") == "built\n", "stdout %r" % out)
    expect("tes: warning: stage V may read tensor W out of bounds" in streams(out, "stderr"),
           "stderr %r" % out)


def test_stream_while_running(s):
    # the cell's first lines reach the front end while it runs: it waits for a file that the
    # test makes only once it has seen them
    flag = os.path.join(tempfile.mkdtemp(prefix="tes-stream-"), "flag")
    code = ("import os, time\nprint('first')\nprint('second')\nn = 0\n"
            "while not os.path.exists(%r) and n < 6000:\n    time.sleep(0.01)\n    n += 1\n"
            "print('seen', os.path.exists(%r))" % (flag, flag))
    msg_id = s.kc.execute(code)
    early = ""
    deadline = time.time() + TIMEOUT
    while early != "first\nsecond\n" and time.time() < deadline:
        msg = s.kc.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        expect(msg["msg_type"] in ("status", "execute_input", "stream"),
               "before the cell's first lines: %r" % msg)
        if msg["msg_type"] == "stream":
            expect(msg["content"]["name"] == "stdout", msg)
            early += msg["content"]["text"]
    expect(early == "first\nsecond\n", "streamed while the cell ran: %r" % early)
    open(flag, "w").close()
    reply = s.kc.get_shell_msg(timeout=TIMEOUT)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = s.kc.get_shell_msg(timeout=TIMEOUT)
    expect(reply["content"]["status"] == "ok", reply["content"])
    rest = s.published(msg_id)
    expect(streams(rest, "stdout") == "seen True\n", "after the flag: %r" % rest)
    os.remove(flag)
    os.rmdir(os.path.dirname(flag))


def test_error(s):
    reply, out = s.run("def ratio(a, b):\n    return a / b\n\nratio(1, 0)")
    expect(reply["status"] == "error", reply)
    expect(reply["ename"] == "ZeroDivisionError", reply)
    expect(reply["evalue"] == "division by zero", reply)
    tb = "\n".join(reply["traceback"])
    expect("<cell" in tb and "return a / b" in tb and "^" in tb, "traceback %r" % tb)
    err = errors(out)
    expect(err and err[0]["ename"] == "ZeroDivisionError", "no error message on iopub")
    reply, out = s.run("1 + 1")
    expect(reply["status"] == "ok" and results(out)[0]["text/plain"] == "2",
           "the kernel did not answer after an error: %r" % reply)
    reply, out = s.run("def broken(:\n    pass")
    expect(reply["status"] == "error" and reply["ename"] == "SyntaxError", reply)


def test_magics(s):
    reply, out = s.run("%matplotlib inline\ny = 3\ny")
    expect(reply["status"] == "ok", reply)
    expect("%matplotlib inline" in streams(out, "stderr"), "no note: %r" % out)
    expect(results(out)[0]["text/plain"] == "3", out)
    for cell in ("%timeit sum(range(10))", "!ls", "%%time\nx = 1"):
        reply, out = s.run(cell)
        expect(reply["status"] == "error", "%r ran: %r" % (cell, reply))
        expect("not supported in tes" in reply["evalue"], reply)
    reply, out = s.run("y + 1")
    expect(results(out)[0]["text/plain"] == "4", "kernel state after a magic: %r" % out)
    # a % or ! that does not start a statement is TES's own
    reply, out = s.run('z = (7\n% 4)\nnote = """\n!not a shell escape\n"""\nz')
    expect(reply["status"] == "ok" and results(out)[0]["text/plain"] == "3", reply)


def test_meta_commands(s):
    reply, out = s.run("from tvm import te\nn = te.var('n')\nA = te.placeholder((n,), name='A')\n"
                       "B = te.compute((n,), lambda i: A[i] * 2, name='B')\n"
                       "sched = te.create_schedule(B.op)")
    expect(reply["status"] == "ok", reply)
    reply, out = s.run(":ir sched")
    expect(reply["status"] == "ok", reply)
    res = results(out)
    expect(res and "for (i: int32, 0, n)" in res[0]["text/plain"], ":ir gave %r" % out)
    html = res[0].get("text/html", "")
    expect("<span" in html and "primfn" in html, ":ir HTML %r" % html[:300])
    reply, out = s.run(":time sum(range(1000))")
    expect(reply["status"] == "ok", reply)
    text = streams(out, "stdout") + "".join(r["text/plain"] for r in results(out))
    expect("499500" in text and "time:" in text, ":time gave %r" % out)


def test_watch(s):
    reply, out = s.run(":watch sched")
    res = results(out)
    expect(reply["status"] == "ok" and res and "// watching sched" in res[0]["text/plain"],
           ":watch gave %r" % out)
    reply, out = s.run("xo, xi = sched[B].split(B.op.axis[0], factor=4)")
    res = results(out)
    expect(res and "// after sched[B].split" in res[0]["text/plain"], "a watched split: %r" % out)
    html = res[0].get("text/html", "")
    expect("+ " in res[0]["text/plain"] and "<span" in html, "the split's IR: %r" % res)
    reply, out = s.run(":unwatch")
    expect("stopped watching sched" in streams(out, "stdout"), ":unwatch gave %r" % out)
    reply, out = s.run(":bogus")
    expect(reply["status"] == "error" and reply["ename"] == "UsageError", reply)
    expect(":bogus" in reply["evalue"], reply)


def test_ir_value_html(s):
    reply, out = s.run("import tvm\ntvm.lower(te.create_schedule(B.op), [A, B], simple_mode=True)")
    expect(reply["status"] == "ok", reply)
    res = results(out)
    expect(res and "text/html" in res[0] and "B[i] = (A[i]*2f32)" in res[0]["text/plain"],
           "an IRModule's echo: %r" % res)


def test_array_html(s):
    reply, out = s.run("import numpy as np\n"
                       "np.array([[1.5, 2, 3], [4, 5, 6]], dtype='float32')")
    expect(reply["status"] == "ok", reply)
    res = results(out)
    expect(res, "no execute_result: %r" % out)
    html = res[0].get("text/html", "")
    expect("<table" in html and "<td>1.5</td>" in html and "<td>6</td>" in html,
           "array HTML %r" % html)
    expect("float32" in html and "(2, 3)" in html, "array caption %r" % html)
    expect("1.5" in res[0]["text/plain"], res)
    # NaN and the infinities come as strings (JSON has none)
    reply, out = s.run("np.array([1.0, float('nan'), -float('inf')])")
    html = results(out)[0].get("text/html", "")
    expect("<td>nan</td>" in html and "<td>-inf</td>" in html and "float64" in html,
           "array HTML %r" % html)


def test_complete(s):
    code = "from tvm import te\nte.comp"
    reply = s.request(lambda: s.kc.complete(code, len(code)))
    expect(reply["status"] == "ok", reply)
    start, end = reply["cursor_start"], reply["cursor_end"]
    done = [code[:start] + m + code[end:] for m in reply["matches"]]
    expect(code[:-len("te.comp")] + "te.compute(" in done, "completions %r" % reply)
    code = ":ti"
    reply = s.request(lambda: s.kc.complete(code, len(code)))
    done = [code[:reply["cursor_start"]] + m for m in reply["matches"]]
    expect(any(d.startswith(":time") for d in done), "meta completion %r" % reply)


def test_inspect(s):
    code = "te.compute"
    reply = s.request(lambda: s.kc.inspect(code, len(code)))
    expect(reply["status"] == "ok" and reply["found"], reply)
    expect("compute" in reply["data"]["text/plain"], reply)
    reply = s.request(lambda: s.kc.inspect("no_such_name_here", 5))
    expect(reply["status"] == "ok" and not reply["found"], reply)


def test_is_complete(s):
    for code, state in (("x = 1", "complete"), ("def f():", "incomplete"),
                        ("xs = [1,", "incomplete"), ("%timeit 1", "invalid")):
        reply = s.request(lambda: s.kc.is_complete(code))
        expect(reply["status"] == state, "%r: %r" % (code, reply))
    reply = s.request(lambda: s.kc.is_complete("def f():"))
    expect(reply.get("indent") == "    ", reply)


def test_interrupt(s):
    start = time.time()
    reply, out = s.run("total = 0\nwhile True:\n    total += 1", interrupt_after=1.5)
    expect(reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt",
           "interrupted loop: %r" % reply)
    expect(time.time() - start < 60, "the interrupt took %.0f s" % (time.time() - start))
    reply, out = s.run("total > 0")
    expect(reply["status"] == "ok" and results(out)[0]["text/plain"] == "True",
           "after the interrupt: %r %r" % (reply, out))


def test_interrupt_compiled_kernel(s):
    # a kernel tes compiled, running long: the interrupt stops it within a row
    code = ("import tvm\nfrom tvm import te\nimport numpy as np\n"
            "N = 4096\nX = te.placeholder((N, N), name='X')\nk = te.reduce_axis((0, N), 'k')\n"
            "Y = te.compute((N, N), lambda i, j: te.sum(X[i, k] * X[k, j], axis=k), name='Y')\n"
            "f = tvm.build(te.create_schedule(Y.op), [X, Y], 'llvm')\n"
            "x = tvm.nd.array(np.ones((N, N), dtype='float32'))\n"
            "y = tvm.nd.empty((N, N), 'float32')\n"
            "for rep in range(100):\n    f(x, y)")
    reply, out = s.run(code, interrupt_after=4)
    expect(reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt",
           "interrupted kernel: %r" % reply)
    reply, out = s.run("2 * 21")
    expect(results(out)[0]["text/plain"] == "42", "after the interrupt: %r" % out)


def test_sys_exit(s):
    reply, out = s.run("kept = 1")
    reply, out = s.run("import sys\nsys.exit(3)")
    expect(reply["status"] == "ok", "sys.exit: %r" % reply)
    reply, out = s.run("kept")
    expect(reply["status"] == "error" and reply["ename"] == "NameError",
           "a new tes after sys.exit: %r" % reply)
    reply, out = s.run("3 + 4")
    expect(results(out)[0]["text/plain"] == "7", out)


def test_restart(s):
    s.run("survivor = 1")
    old = s.tes_children()
    expect(len(old) == 1, "the kernel's tes children: %r" % old)
    s.km.restart_kernel(now=False)
    s.kc.stop_channels()
    s.connect()
    expect(not wait_gone(old), "tes %r outlived a restart" % old)
    reply, out = s.run("survivor")
    expect(reply["status"] == "error" and reply["ename"] == "NameError",
           "state after restart: %r" % reply)
    reply, out = s.run("5 * 5")
    expect(results(out)[0]["text/plain"] == "25", out)
    # killed outright while a cell runs: its tes goes too (the parent-death signal)
    old = s.tes_children()
    s.kc.execute("while True:\n    pass")
    time.sleep(1)
    s.km.restart_kernel(now=True)
    s.kc.stop_channels()
    s.connect()
    expect(not wait_gone(old), "tes %r outlived its killed kernel" % old)
    reply, out = s.run("6 * 6")
    expect(results(out)[0]["text/plain"] == "36", out)


def test_no_tes(_):
    env = dict(os.environ, TES_BIN="/nonexistent/tes")
    s = Session(env=env)
    try:
        reply, out = s.run("1 + 1")
        expect(reply["status"] == "error", reply)
        expect("TES_BIN" in reply["evalue"] and "/nonexistent/tes" in reply["evalue"], reply)
        reply, out = s.run("1 + 1")
        expect(reply["status"] == "error", "the kernel stays up: %r" % reply)
    finally:
        s.close()


TESTS = [test_kernel_info, test_execute_stream_and_result, test_stderr_stream,
         test_stream_while_running, test_error,
         test_magics, test_meta_commands, test_watch, test_ir_value_html, test_array_html,
         test_complete, test_inspect, test_is_complete, test_interrupt,
         test_interrupt_compiled_kernel, test_sys_exit, test_restart, test_no_tes]


def main():
    only = sys.argv[1:]
    passed = failed = 0
    s = Session()
    try:
        for t in TESTS:
            if only and t.__name__ not in only:
                continue
            t0 = time.time()
            try:
                t(s)
            except Exception:  # noqa: BLE001 (a test's failure, whatever raised it)
                failed += 1
                print("FAILED: kernel %s (%.1f s)" % (t.__name__, time.time() - t0))
                traceback.print_exc(file=sys.stdout)
            else:
                passed += 1
                print("PASS: kernel %s (%.1f s)" % (t.__name__, time.time() - t0))
            sys.stdout.flush()
    finally:
        s.close()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
