"""grid_try (s37) counting each grid's reads; SIZES: `shipped` (the small grid as shipped), `none`
(no small grid: the thirty-seventh session's search) or a trial's sizes (with --angles, --visible).
python data/s38/small_try.py SIZES KINDS OUT.json [--stride 3] [--renders-only]"""
import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

import models.evaluate as ev
from models.held import held_scene, room
from models.scenes import make_table
from vision import search as vs

ap = argparse.ArgumentParser()
ap.add_argument("sizes")
ap.add_argument("kinds")
ap.add_argument("out")
ap.add_argument("--stride", type=int, default=3)
ap.add_argument("--angles", default="0,90,45,-45")
ap.add_argument("--visible", type=float, default=1.0)
ap.add_argument("--renders-only", action="store_true")
a = ap.parse_args()
if a.sizes == "none":
    vs.small_windows = lambda h, w: []
elif a.sizes != "shipped":
    sizes, angles = tuple(float(x) for x in a.sizes.split(",")), tuple(float(x) for x in a.angles.split(","))

    def small_windows(h, w):
        keep = vs.WIDER_ANGLES
        vs.WIDER_ANGLES = angles
        try:
            return vs.turned_grid(h, w, sizes, a.visible)
        finally:
            vs.WIDER_ANGLES = keep

    vs.small_windows = small_windows


STATS = Counter()


def search(h, w, read_top, read_face, backs=()):
    climbed = set()
    for n, grid in enumerate((vs.windows, vs.wider_windows, vs.small_windows)):
        g = grid(h, w)
        STATS[f"grid{n}"] += 1
        STATS[f"win{n}"] += len(g)
        found, stop = vs._search_grid(g, read_top, read_face, backs, climbed)
        if found is not None or stop:
            STATS[f"kept{n}"] += found is not None
            return found
    return None


vs.search = search
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
    STATS.clear()
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
        print(a.sizes, kind, len(rows), "faces made up:", sum(bool(r["faces"]) for r in rows),
              [f for r in rows for f in r["faces"]], f"median {np.median([r['ms'] for r in rows]):.0f} ms",
              dict(STATS), flush=True)
    else:
        for i, (src, card, img, _) in enumerate(hs.photos(kind)):
            if i % a.stride or (a.renders_only and src in ("mit", "mit2", "classic")):
                continue
            before = STATS["kept2"]
            ds, ms = read(reader(src), img)
            got = ds[0] if ds else None
            rows.append({"i": i, "src": src, "card": card, "got": got and got.card, "p": got and got.confidence,
                         "searched": bool(got and got.searched), "third": STATS["kept2"] > before, "ms": ms})
        c = Counter(("right" if r["got"] == r["card"] else "wrong" if r["got"] else "nothing") for r in rows)
        print(a.sizes, kind, dict(c), f"median {np.median([r['ms'] for r in rows]):.0f} ms", dict(STATS), flush=True)
    res[kind] = rows
    Path(a.out).write_text(json.dumps(res))
