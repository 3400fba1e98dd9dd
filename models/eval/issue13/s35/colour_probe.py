"""Trial: a card found by its coloured field (no detector). Standalone power per kind, and
faces made up on no-card frames.
python models/eval/issue13/s35/colour_probe.py KINDS [--seed N] [--bar 0.9]   (KINDS: held_stress kinds, or nocard)"""

import argparse
import sys
from collections import Counter

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from vision.crops import order_portrait

# OpenCV hue (0-180) bands of the four colours, after a grey-world balance
BANDS = {"red": ((0, 9), (165, 180)), "yellow": ((15, 38),), "green": ((38, 88),), "blue": ((88, 135),)}
GROW = (1.0, 1.1, 1.2)


def balanced(img):
    f = img.astype(np.float32)
    m = f.reshape(-1, 3).mean(axis=0)
    f *= m.mean() / np.maximum(m, 1)
    return np.clip(f, 0, 255).astype(np.uint8)


def fields(img, long=320, min_area=0.01):
    h, w = img.shape[:2]
    s = long / max(h, w)
    small = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(balanced(small), cv2.COLOR_BGR2HSV)
    H, S, V = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    sat = (S >= 80) & (V >= 50)
    k = max(3, round(0.02 * long)) | 1
    out = []
    for name, bands in BANDS.items():
        m = np.zeros(H.shape, bool)
        for lo, hi in bands:
            m |= (H >= lo) & (H < hi)
        m = ((m & sat) * 255).astype(np.uint8)
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        cs, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in cs:
            a = cv2.contourArea(c)
            if a < min_area * m.size:
                continue
            rect = cv2.minAreaRect(c)
            (cx, cy), (rw, rh), ang = rect
            if a / max(rw * rh, 1) < 0.6:
                continue
            for g in GROW:
                q = cv2.boxPoints(((cx / s, cy / s), (rw * g / s, rh * g / s), ang))
                out.append((name, order_portrait(q)))
    return out


def read(rec, img, bar):
    props = fields(img)
    if not props:
        return None, 0.0, 0
    tops = rec.classify_top(img, [q for _, q in props], 1)
    best = max(((t[0][0], t[0][1]) for t in tops if t[0][0] != "back"), key=lambda t: t[1], default=(None, 0.0))
    return (best if best[1] >= bar else (None, best[1])) + (len(props),)


ap = argparse.ArgumentParser()
ap.add_argument("kinds")
ap.add_argument("--seed", type=int, default=hs.SEED)
ap.add_argument("--bar", type=float, default=0.9)
a = ap.parse_args()
reader = hs.fold_readers("data/models/fRM3_{set}")
for kind in a.kinds.split(","):
    if kind == "nocard":
        from models.evaluate import bad_frames
        from models.held import room

        rec = reader("renders")
        made = []
        rng = np.random.default_rng(31)
        frames = [np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8) for _ in range(60)]
        rng = np.random.default_rng(717171)
        frames += [img for _ in range(5) for _, img in bad_frames(rng)]
        for img in frames:
            card, p, n = read(rec, img, 0.0)
            if card and p >= 0.5:
                made.append((card, round(p, 2)))
        print("nocard", len(frames), "made >=0.5:", len(made), sorted(made, key=lambda t: -t[1])[:20], flush=True)
        continue
    right = wrong = 0
    tally = Counter()
    misses = Counter()
    for src, card, img, _ in hs.photos(kind, seed=a.seed):
        got, p, n = read(reader(src), img, a.bar)
        tally["props"] += n
        if got == card:
            right += 1
        elif got is not None:
            wrong += 1
            misses[f"{card}->{got}"] += 1
    print(kind, "named", right, "wrong", wrong, "of 367", "props/photo", round(tally["props"] / 367, 1),
          dict(misses.most_common(12)), flush=True)
