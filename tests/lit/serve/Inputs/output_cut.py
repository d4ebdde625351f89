"""Summarises the replies of output_cut.tes: the length of the run of x a cell printed and what
follows it, and the echoed value of the next cell."""
import json
import sys

for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    if r.get("type") != "execute_reply":
        continue
    out = r["stdout"]
    if out:
        n = len(out) - len(out.lstrip("x"))
        print("id %s stdout x %d then: %s" % (r["id"], n, out[n:].strip()))
    if r["value"]:
        print("id %s value %s" % (r["id"], r["value"]["text"]))
