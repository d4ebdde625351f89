"""Every option and environment variable `tes --help` prints is in the man page, so the two
cannot drift apart: reads --help on stdin, the man page's roff source from argv[1]; prints
each name it checked ("option --emit=", "env TES_CACHE") and "missing: NAME" for each absent,
exiting 1 when one is."""
import re
import sys

help_text = sys.stdin.read()
with open(sys.argv[1]) as f:
    # roff spells a dash \- and joins words with \c; the names are then plain text
    man = f.read().replace('\\-', '-').replace('\\c', '')

names = []
section = None
for line in help_text.splitlines():
    if line.endswith(':') and not line.startswith(' '):
        section = line
        continue
    m = re.match(r'  (\S.*?)(?:  |$)', line)
    if not m:
        continue
    if section == 'options:':
        for opt in m.group(1).split(', '):
            # "--emit=KIND" is "--emit=" in the page's ".BI --emit= KIND"; "-c CODE" is "-c"
            names.append(('option', re.match(r'-[-\w]*=?', opt).group(0)))
    elif section == 'environment:':
        names.append(('env', re.match(r'[A-Z_]+', m.group(1)).group(0)))

missing = 0
for kind, name in names:
    print(kind, name)
    if not re.search(r'(?<![-\w])' + re.escape(name) + r'(?![-\w])', man):
        print('missing:', name)
        missing += 1
sys.exit(1 if missing or not names else 0)
