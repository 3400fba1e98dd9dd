"""nobox_probe (s36) on every STRIDE-th photo, with the search as shipped (`shipped`: the grid,
then the wider grid) or with one grid only, a variant of `grids.VARIANTS` (the trials before
the wider grid was made a second step; `real` was this session's one-grid code, now `all`).
python models/eval/issue13/s37/grid_try.py VARIANT KINDS OUT.json [--stride 3] [--set NAME=VALUE ...]"""
import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "models/eval/issue13/s37")
import grids
import held_stress as hs

import models.evaluate as ev
from models.held import held_scene, room
from models.scenes import make_table
from vision import search as vs

ap = argparse.ArgumentParser()
ap.add_argument("variant")
ap.add_argument("kinds")
ap.add_argument("out")
ap.add_argument("--stride", type=int, default=3)
ap.add_argument("--set", nargs="*", default=[])
a = ap.parse_args()
if a.variant != "shipped":
    vs.windows = grids.VARIANTS["all" if a.variant == "real" else a.variant]
    vs.wider_windows = lambda h, w: []
for kv in a.set:
    k, v = kv.split("=")
    setattr(vs, k, type(getattr(vs, k))(eval(v)))
reader = hs.fold_readers("data/models/fRM3_{set}", search=True)


def read(rec, img):
    rec.detect = lambda image, timings=None: []
    rec.detect_tiled = lambda image, timings=None: []
    t = time.perf_counter()
    ds = rec.recognize(img)
    return [d for d in ds if d.card != "back"], (time.perf_counter() - t) * 1e3


res = {}
for kind in a.kinds.split(","):
    rows = []
    if kind == "nocard":
        rng = np.random.default_rng(919191)
        for _src, _card, art in ev.held_sources(rng, ["mit", "mit2", "classic"]):
            held_scene(rng, art)
        frames = []
        for _ in range(200):
            frames += [("room", np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8)),
                       ("table", make_table(rng, 480, 640).astype(np.uint8))]
        for _ in range(10):
            frames += list(ev.bad_frames(rng))
        for i, (k, img) in enumerate(frames):
            if i % a.stride:
                continue
            ds, ms = read(reader("renders"), img)
            rows.append({"i": i, "frame": k, "faces": [(d.card, d.confidence, d.searched) for d in ds], "ms": ms})
        print(a.variant, kind, len(rows), "faces made up:", sum(bool(r["faces"]) for r in rows),
              [f for r in rows for f in r["faces"]], f"median {np.median([r['ms'] for r in rows]):.0f} ms", flush=True)
    else:
        for i, (src, card, img, _) in enumerate(hs.photos(kind)):
            if i % a.stride:
                continue
            ds, ms = read(reader(src), img)
            got = ds[0] if ds else None
            rows.append({"i": i, "src": src, "card": card, "got": got and got.card, "p": got and got.confidence,
                         "searched": bool(got and got.searched), "ms": ms})
        c = Counter(("right" if r["got"] == r["card"] else "wrong" if r["got"] else "nothing") for r in rows)
        print(a.variant, kind, dict(c), f"median {np.median([r['ms'] for r in rows]):.0f} ms", flush=True)
    res[kind] = rows
    Path(a.out).write_text(json.dumps(res))
