"""The still-photo path with the detector made to give no box, so every card is found by the
fallbacks alone (the whole-image reading, and vision.search): held-up cards (held_stress
kinds, or 'held': models.held.held_scene as `whole_image_probe.py` draws them, seed 919191),
each real set read by the fold that never saw it; 'nocard': 200 rooms, 200 bare tables and
60 bad frames (whole_image_probe's), faces made up.
python data/s36/nobox_probe.py KINDS OUT.json [--no-search]"""
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

ap = argparse.ArgumentParser()
ap.add_argument("kinds")
ap.add_argument("out")
ap.add_argument("--no-search", action="store_true")
a = ap.parse_args()
reader = hs.fold_readers("data/models/fRM3_{set}", search=not a.no_search)


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
        for _src, _card, art in ev.held_sources(rng, ["mit", "mit2", "classic"]):  # whole_image_probe's draws
            held_scene(rng, art)
        frames = []
        for _ in range(200):
            frames += [("room", np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8)),
                       ("table", make_table(rng, 480, 640).astype(np.uint8))]
        for _ in range(10):
            frames += list(ev.bad_frames(rng))
        for k, img in frames:
            ds, ms = read(reader("renders"), img)
            rows.append({"frame": k, "faces": [(d.card, d.confidence, d.searched) for d in ds], "ms": ms})
        print(kind, len(rows), "frames with a face made up:", sum(bool(r["faces"]) for r in rows),
              [f for r in rows for f in r["faces"]], f"median {np.median([r['ms'] for r in rows]):.0f} ms", flush=True)
    else:
        if kind == "held":
            rng = np.random.default_rng(919191)
            items = [(src, card, held_scene(rng, art)[0]) for src, card, art in ev.held_sources(rng, ["mit", "mit2", "classic"])]
        else:
            items = [(s, c, im) for s, c, im, _ in hs.photos(kind)]
        for src, card, img in items:
            ds, ms = read(reader(src), img)
            got = ds[0] if ds else None
            rows.append({"src": src, "card": card, "got": got and got.card, "p": got and got.confidence,
                         "searched": bool(got and got.searched), "ms": ms})
        c = Counter(("right" if r["got"] == r["card"] else "wrong" if r["got"] else "nothing") for r in rows)
        by = {}
        for r in rows:
            by.setdefault(r["src"], Counter())[r["got"] == r["card"]] += 1
        print(kind, dict(c), "right by set", {k: v[True] for k, v in by.items()},
              "by search", sum(r["searched"] and r["got"] == r["card"] for r in rows),
              f"median {np.median([r['ms'] for r in rows]):.0f} ms", flush=True)
    res[kind] = rows
Path(a.out).write_text(json.dumps(res))
