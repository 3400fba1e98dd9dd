"""Trial: where the detector gives no box, windows of a card's shape searched over the photo
(heights SIZES of the frame's, turned TURNS), each read by the classifier; the surest face
refined around it. python data/s36/window_probe.py OUT.json [--kinds K] [--td]"""
import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from vision.recognizer import _CARD_ASPECT

SIZES = (0.5, 0.65, 0.8, 0.95)
TURNS = (0.0, -15.0, 15.0)
STEP = 0.34  # of the window's width


def quad(cx, cy, hgt, deg):
    w = hgt * _CARD_ASPECT
    return cv2.boxPoints(((cx, cy), (w, hgt), deg)).astype(np.float32)


def windows(h, w):
    out = []
    for f in SIZES:
        hg = f * h
        wd = hg * _CARD_ASPECT
        xs = np.arange(wd / 2, w - wd / 2 + 1, STEP * wd)
        ys = np.arange(hg / 2, h - hg / 2 + 1, STEP * wd) if h - hg > 1 else [h / 2]
        for cx in xs:
            for cy in ys:
                for t in TURNS:
                    out.append((cx, cy, hg, t))
    return out


def search(rec, img):
    from vision.crops import order_portrait
    h, w = img.shape[:2]
    ws = windows(h, w)
    quads = [order_portrait(quad(*p)) for p in ws]
    tops = rec.classify_top(img, quads, 2, timings={})
    cand = sorted(((t[0][1], i) for i, t in enumerate(tops) if t[0][0] != "back"), reverse=True)[:3]
    best = (None, 0.0, None)
    for _p0, i in cand:
        cx, cy, hg, t = ws[i]
        local = [(cx + dx * hg * 0.1, cy + dy * hg * 0.1, hg * s, t + dt)
                 for dx in (-1, 0, 1) for dy in (-1, 0, 1) for s in (0.9, 1.0, 1.1) for dt in (-7, 0, 7)]
        lq = [order_portrait(quad(*p)) for p in local]
        lt = rec.classify_top(img, lq, 1, timings={})
        for (f, p), q in zip((x[0] for x in lt), lq, strict=False):
            if f != "back" and p > best[1]:
                best = (f, p, q)
    return best, len(ws)


def verify(rec, img, f, q):
    from vision.crops import (
        corner_patch,
        corner_quads,
        crop_from_quad,
        normalize_colour,
        white_reference,
    )
    from vision.recognizer import _border_share, refine_quad
    if f is None:
        return {}
    r = rec.corner_readings(img, [q])[0]
    names = rec._corner[2]
    ci = names.index(f) if f in names else None
    white = white_reference(crop_from_quad(img, q))
    borders = [_border_share(normalize_colour(corner_patch(img, c), white)) for c in corner_quads(q)]
    rq = refine_quad(img, q)
    rf, rp = rec.classify_top(img, [rq], 1, timings={})[0][0]
    return {"corner": float(r[:, ci].max()) if ci is not None else -1.0,
            "corner_top": [names[int(np.argmax(r[k]))] for k in range(2)],
            "border": max(borders), "refined": rf, "refined_p": rp, "quad": q.tolist()}


ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--kinds", default="mix,dark,close")
ap.add_argument("--td", action="store_true", help="only photos the table detector left with nothing (td_base.json)")
a = ap.parse_args()
reader = hs.fold_readers("data/models/fRM3_{set}")
res = {}
for kind in a.kinds.split(","):
    rows = []
    t0 = time.perf_counter()
    if kind == "nocard":
        from models.evaluate import bad_frames
        from models.held import room
        from models.scenes import make_table
        rng = np.random.default_rng(31)
        frames = [np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8) for _ in range(60)]
        frames += [make_table(rng, 480, 640).astype(np.uint8) for _ in range(60)]
        rng = np.random.default_rng(717171)
        frames += [img for _ in range(5) for _, img in bad_frames(rng)]
        for img in frames:
            rec = reader("renders")
            (f, p, q), n = search(rec, img)
            rows.append({"card": None, "got": f, "p": p} | verify(rec, img, f, q))
    else:
        for src, card, img, _ in hs.photos(kind):
            rec = reader(src)
            (f, p, q), n = search(rec, img)
            rows.append({"card": card, "src": src, "got": f, "p": p} | verify(rec, img, f, q))
    res[kind] = rows
    dt = (time.perf_counter() - t0) / len(rows) * 1e3
    c = Counter()
    for r in rows:
        for bar in (0.5, 0.7, 0.9, 0.95, 0.98):
            if r["p"] >= bar:
                c[f"{'right' if r['got'] == r['card'] else 'wrong'}@{bar}"] += 1
    print(kind, len(rows), f"{dt:.0f} ms/photo, windows {n}", dict(sorted(c.items())), flush=True)
Path(a.out).write_text(json.dumps(res))
