"""The 43 no-box misses of nobox_on.json's held draw, searched again with the module's
constants as set on the command line (NAME=VALUE ...): named right / wrong."""
import json
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

import models.evaluate as ev
import vision.search as vs
from models.held import held_scene

for kv in sys.argv[1:]:
    k, v = kv.split("=")
    setattr(vs, k, type(getattr(vs, k))(float(v)))
rows = json.load(open("data/s36/nobox_on.json"))["held"]
reader = hs.fold_readers("data/models/fRM3_{set}")
rng = np.random.default_rng(919191)
items = [(src, card, held_scene(rng, art)) for src, card, art in ev.held_sources(rng, ["mit", "mit2", "classic"])]
right = wrong = 0
t0 = time.perf_counter()
n = 0
for (src, card, (img, _true)), r in zip(items, rows, strict=False):
    if r["got"]:
        continue
    n += 1
    d = reader(src)._searched(img)
    right += bool(d and d[0].card == card)
    wrong += bool(d and d[0].card != card)
print(sys.argv[1:], "of", n, "right", right, "wrong", wrong, f"{(time.perf_counter() - t0) / n * 1e3:.0f} ms each")
