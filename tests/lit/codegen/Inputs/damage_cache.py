"""damage_cache.py flip|cut DIR: damages every compile cache entry in DIR (compile_cache.tes):
flip changes a byte in the middle of each, cut leaves each its first half."""
import os
import sys

mode, folder = sys.argv[1], sys.argv[2]
names = [n for n in os.listdir(folder) if n.endswith('.tesobj')]
if not names:
    sys.exit('damage_cache: no entries in %s' % folder)
for name in names:
    path = os.path.join(folder, name)
    data = bytearray(open(path, 'rb').read())
    if mode == 'flip':
        data[len(data) // 2] ^= 0x5a
    else:
        data = data[:len(data) // 2]
    with open(path, 'wb') as f:
        f.write(data)
