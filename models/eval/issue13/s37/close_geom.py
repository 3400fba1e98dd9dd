"""held_stress 'close' photos: each card's quad in the frame (replicating the draw), joined
with a nobox_probe JSON: misses by the card's size and how it is cut.
python models/eval/issue13/s37/close_geom.py PROBE.json [kind]"""
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

import models.held as mh

kind = sys.argv[2] if len(sys.argv) > 2 else "close"
quads = []
orig_scene = mh.held_scene


def scene(rng, art, size=(640, 480)):
    img, q = orig_scene(rng, art, size)
    quads.append(q)
    return img, q


mh.held_scene = scene
orig_frame = hs._frame


def frame(rng, img, k):
    if k != "close":
        return orig_frame(rng, img, k)
    h, w = img.shape[:2]
    s = rng.uniform(1.3, 1.8)
    big = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
    y, x = int(rng.uniform(0, big.shape[0] - h)), int(rng.uniform(0, big.shape[1] - w))
    quads[-1] = quads[-1] * s - [x, y]
    return big[y:y + h, x:x + w]


hs._frame = frame
angles = []
orig_art = hs._art


def art_(rng, art, k):
    if k == "sideways":
        state = rng.bit_generator.state
        ang = float(rng.choice([90, -90, 45, -45, 135]) + rng.normal(0, 8))
        rng.bit_generator.state = state
        angles.append(ang)
    else:
        angles.append(0.0)
    return orig_art(rng, art, k)


hs._art = art_
rows = json.load(open(sys.argv[1]))[kind]
geo = []
for (src, card, img, _), r in zip(hs.photos(kind), rows, strict=True):
    q = quads[len(geo)]
    h, w = img.shape[:2]
    long = max(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1])) / h
    if kind == "sideways":
        long *= 87 / np.hypot(56, 87)
    cut = sum(int(v) for v in (q[:, 0].min() < 0, q[:, 0].max() > w, q[:, 1].min() < 0, q[:, 1].max() > h))
    inside = cv2.contourArea(cv2.intersectConvexConvex(np.float32(q), np.float32([[0, 0], [w, 0], [w, h], [0, h]]))[1]) if True else 0
    vis = inside / max(cv2.contourArea(np.float32(q)), 1)
    geo.append({"src": src, "card": card, "long": float(long), "cut": cut, "vis": float(vis),
                "ok": r["got"] == r["card"], "got": r["got"], "ang": angles[len(geo)]})
Path("data/s37").mkdir(parents=True, exist_ok=True)
json.dump(geo, open(f"data/s37/{kind}_geom.json", "w"))
for lo, hi in ((0, 0.6), (0.6, 0.8), (0.8, 1.0), (1.0, 1.2), (1.2, 1.5), (1.5, 9)):
    g = [x for x in geo if lo <= x["long"] < hi]
    print(f"long {lo}-{hi}: {sum(x['ok'] for x in g)}/{len(g)}",
          "by cut", dict(sorted(Counter((x["cut"], x["ok"]) for x in g).items())))
for lo, hi in ((0, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01)):
    g = [x for x in geo if lo <= x["vis"] < hi]
    print(f"visible {lo}-{hi}: {sum(x['ok'] for x in g)}/{len(g)}")
if kind == "sideways":
    for a in (90, -90, 45, -45, 135):
        g = [x for x in geo if abs(x["ang"] - a) < 30]
        print(f"angle {a}: {sum(x['ok'] for x in g)}/{len(g)}")
