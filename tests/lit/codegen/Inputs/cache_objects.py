# cache_objects.py DIR: what each compile cache entry in DIR (jit/objcache.c: DIR/KEY.tesobj)
# holds for the JIT, one line an entry, sorted: "bundle of N objects" (the module's machine
# code generated on two threads, backends/llvm/codegen_split.c) or "one object" (an ELF file).
# The entry's payload (backends/llvm/codegen_llvm.c, cg_llvm_cache_save) ends with the object
# the JIT loads, so its first bytes are found by searching for either opening.
import os
import sys

BUNDLE = b"tesobjs\n"
lines = []
for name in os.listdir(sys.argv[1]):
    if not name.endswith(".tesobj"):
        continue
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    at = data.find(BUNDLE)
    if at >= 0:
        count = int.from_bytes(data[at + 8:at + 16], "little")
        lines.append("bundle of %d objects" % count)
    elif b"\x7fELF" in data:
        lines.append("one object")
    else:
        lines.append("no object")
print("\n".join(sorted(lines)) if lines else "no entries")
