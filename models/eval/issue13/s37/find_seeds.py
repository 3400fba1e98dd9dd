"""Held-up renders zoomed close (cut by the frame) and turned 45 degrees, with no box: found by
the first grid alone and with the wider one. python models/eval/issue13/s37/find_seeds.py KIND N"""
import sys

import cv2
import numpy as np

from models.held import held_scene
from vision import search as vs
from vision.recognizer import CardRecognizer
from vision.render import random_params, render_card

CARDS = ["red-3", "blue-8", "green-skip", "yellow-5", "red-draw2", "blue-0", "green-9", "yellow-reverse", "wild", "red-6"]


def scene(seed, card, design, kind):
    rng = np.random.default_rng(seed)
    art = render_card(card, height=400, rng=rng, params=random_params(rng, design))
    if kind == "diagonal":
        ah, aw = art.shape[:2]
        d = int(np.hypot(ah, aw)) + 2
        m = cv2.getRotationMatrix2D((aw / 2, ah / 2), 45 if seed % 2 else -45, 1.0)
        m[:, 2] += [(d - aw) / 2, (d - ah) / 2]
        art = cv2.warpAffine(art, m, (d, d), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    img, quad = held_scene(rng, art)
    if kind == "close":
        s = 1.6
        big = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
        y, x = (big.shape[0] - 480) // 2, (big.shape[1] - 640) // 2
        img, quad = big[y:y + 480, x:x + 640], quad * s - [x, y]
    return img, quad


if __name__ == "__main__":
    kind, n = sys.argv[1], int(sys.argv[2])
    rec = CardRecognizer.default(photos=True)
    rec.detect = lambda image, timings=None: []
    wider = vs.wider_windows
    for seed in range(n):
        card, design = CARDS[seed % len(CARDS)], ("classic", "2010s", "2020s")[seed % 3]
        img, _ = scene(seed, card, design, kind)
        vs.wider_windows = wider
        new = [d.card for d in rec.recognize(img)]
        vs.wider_windows = lambda h, w: []
        old = [d.card for d in rec.recognize(img)]
        print(kind, seed, card, design, "old", old, "new", new, "GAIN" if new == [card] and old != [card] else "",
              flush=True)
