"""Drives `tes --serve` through execute requests with "stream": true (docs/serve.md): the
lines a cell writes arrive as stream messages while it runs. The first cell prints, warns on
stderr, then waits until this driver has seen those lines streamed and made FLAG; what it
prints after that comes streamed or in the reply, and a last line without its newline always
in the reply. Prints what it saw for FileCheck.

    python3 stream.py TES FLAG
"""
import json
import os
import select
import subprocess
import sys
import time

tes, flag = sys.argv[1:]
p = subprocess.Popen([tes, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


buf = b""


def line(timeout=120.0):
    """The next message; read from the fd directly, so that no line waits in a buffer that
    select cannot see."""
    global buf
    while b"\n" not in buf:
        ready, _, _ = select.select([p.stdout], [], [], timeout)
        chunk = os.read(p.stdout.fileno(), 1 << 16) if ready else b""
        if not chunk:
            raise SystemExit("nothing from tes within %g s" % timeout if not ready
                             else "tes closed its output")
        buf += chunk
    text, buf = buf.split(b"\n", 1)
    return json.loads(text.decode("utf-8"))


def send(req):
    p.stdin.write((json.dumps(req) + "\n").encode("utf-8"))
    p.stdin.flush()


def until_reply(rid, got):
    """Collects stream messages into got[name] until the reply of request rid."""
    while True:
        msg = line()
        if msg.get("type") == "stream":
            if msg.get("id") != rid:
                raise SystemExit("a stream message of request %r during %r" % (msg["id"], rid))
            got[msg["name"]] += msg["text"]
            continue
        return msg


print(line()["type"])
cell = "\n".join([
    "import os, time, tvm",
    "from tvm import te",
    "print('first')",
    "print('caf\u00e9')",
    "W = te.placeholder((10,), name='W')",
    "k = te.reduce_axis((0, 4), name='k')",
    "V = te.compute((12,), lambda i: te.sum(W[te.min(i, 9) + k], axis=k), name='V')",
    "f = tvm.build(te.create_schedule(V.op), [W, V], 'llvm')",
    "n = 0",
    "while not os.path.exists(%r) and n < 6000:" % flag,
    "    time.sleep(0.01)",
    "    n += 1",
    "print('second', os.path.exists(%r))" % flag,
    "print('tail', end='')",
    "6 * 7",
])
send({"type": "execute", "id": 1, "code": cell, "stream": True})
got = {"stdout": "", "stderr": ""}
end = time.monotonic() + 120
while (got["stdout"] != "first\ncaf\u00e9\n" or "warning" not in got["stderr"]) \
        and time.monotonic() < end:
    msg = line()
    if msg.get("type") != "stream":
        raise SystemExit("the reply came before the streamed lines: %r (streamed %r)"
                         % (msg, got))
    got[msg["name"]] += msg["text"]
print("streamed while it ran: stdout %r" % got["stdout"])
print("streamed while it ran: stderr %r" % got["stderr"].split(":")[0:2])
open(flag, "w").close()
later = {"stdout": "", "stderr": ""}
reply = until_reply(1, later)
print("reply 1: %s, value %s" % (reply["status"], reply["value"]["text"]))
print("after the flag: stdout %r, the reply's %r" % (later["stdout"] + reply["stdout"],
                                                     reply["stdout"][-4:]))
print("nothing said twice: %s" % (reply["stderr"] == "" and later["stderr"] == ""))
# without "stream", everything comes in the reply, as before
send({"type": "execute", "id": 2, "code": "print('plain')\nprint('text')"})
got = {"stdout": "", "stderr": ""}
reply = until_reply(2, got)
print("reply 2: streamed %r, the reply's %r" % (got["stdout"], reply["stdout"]))
# a meta-command cell is not streamed: its output is the value
send({"type": "execute", "id": 3, "code": ":help print", "stream": True})
reply = until_reply(3, got)
print("reply 3: streamed %r, %s" % (got["stdout"], reply["status"]))
send({"type": "shutdown", "id": 4})
print(line()["type"])
print("exit status: %d" % p.wait())
