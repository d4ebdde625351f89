# noop_rebuild.py NINJA BUILD_DIR: a build right after a build does nothing. Runs as a test,
# after the build (./check's, or meson test's own), and passes when `ninja -n` in BUILD_DIR
# says "no work to do"; otherwise prints what ninja would run again, and why (-d explain).
# Prints "N passed, M failed" last, as the C unit tests do.
import subprocess
import sys

ninja, build = sys.argv[1:]
out = subprocess.run([ninja, "-C", build, "-n", "-d", "explain"], capture_output=True,
                     text=True)
if out.returncode == 0 and "ninja: no work to do." in out.stdout:
    print("1 passed, 0 failed")
    sys.exit(0)
print("a build right after a build would run something; ninja -n -d explain says (cut):")
for stream in (out.stderr, out.stdout):  # why, then what
    lines = stream.splitlines()
    print("\n".join(lines[:15] + (["..."] if len(lines) > 15 else [])))
print("0 passed, 1 failed")
sys.exit(1)
