"""Drives `tes --serve` through an interrupt: a cell that loops forever gets SIGINT (sent
again every 0.2 s until its reply comes, since one sent before the cell starts is ignored as
idle), replies KeyboardInterrupt, and the session goes on; SIGINT between requests is ignored.
Prints each reply line for FileCheck.

    python3 interrupt.py TES [KERNEL.tes]

With KERNEL.tes (tests/lit/repl/Inputs/long_matmul.tes) a compiled kernel is interrupted too.
"""
import json
import select
import signal
import subprocess
import sys
import time


def reply(p, interrupt=False, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([p.stdout], [], [], 0.2)
        if ready:
            return p.stdout.readline()
        if interrupt:
            p.send_signal(signal.SIGINT)
    raise SystemExit("no reply within %g s" % timeout)


def send(p, req):
    p.stdin.write(json.dumps(req) + "\n")
    p.stdin.flush()


def main():
    p = subprocess.Popen([sys.argv[1], "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)
    print(reply(p), end="")
    send(p, {"type": "execute", "id": 1, "code": "n = 3\nprint('looping')\nwhile True:\n    n += 1"})
    print(reply(p, interrupt=True), end="")
    p.send_signal(signal.SIGINT)  # idle: ignored
    time.sleep(0.3)
    send(p, {"type": "execute", "id": 2, "code": "n > 3"})
    print(reply(p), end="")
    if len(sys.argv) > 2:
        send(p, {"type": "execute", "id": 4, "code": ":load " + sys.argv[2]})
        print(reply(p), end="")
        send(p, {"type": "execute", "id": 5, "code": "serial(*big)"})
        print(reply(p, interrupt=True), end="")
        send(p, {"type": "execute", "id": 6, "code": "check(serial)"})
        print(reply(p), end="")
    send(p, {"type": "shutdown", "id": 3})
    print(reply(p), end="")
    print("exit status:", p.wait(timeout=60))


main()
