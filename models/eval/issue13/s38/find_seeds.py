"""Held-up renders at arm's length (the whole frame shrunk to 0.4 of itself into a room), with
no box: found without the small grid (the thirty-seventh session's search) and with it.
python models/eval/issue13/s38/find_seeds.py N"""
import sys

import cv2
import numpy as np

from models.held import held_scene, room
from vision import search as vs
from vision.recognizer import CardRecognizer
from vision.render import random_params, render_card

CARDS = ["red-3", "blue-8", "green-skip", "yellow-5", "red-draw2", "blue-0", "green-9", "yellow-reverse", "wild", "red-6"]
SHRINK = 0.4


def scene(seed, card, design):
    rng = np.random.default_rng(seed)
    art = render_card(card, height=400, rng=rng, params=random_params(rng, design))
    img, quad = held_scene(rng, art)
    h, w = img.shape[:2]
    out = room(rng, h, w).clip(0, 255).astype(np.uint8)
    small = cv2.resize(img, (int(w * SHRINK), int(h * SHRINK)), interpolation=cv2.INTER_AREA)
    y, x = int(rng.uniform(0, h - small.shape[0])), int(rng.uniform(0, w - small.shape[1]))
    out[y:y + small.shape[0], x:x + small.shape[1]] = small
    return out, np.float32(quad) * SHRINK + [x, y]


if __name__ == "__main__":
    n = int(sys.argv[1])
    rec = CardRecognizer.default(photos=True)
    rec.detect = lambda image, timings=None: []
    rec.detect_tiled = lambda image, timings=None: []
    small = vs.small_windows
    for seed in range(n):
        card, design = CARDS[seed % len(CARDS)], ("classic", "2010s", "2020s")[seed % 3]
        img, _ = scene(seed, card, design)
        vs.small_windows = small
        new = [d.card for d in rec.recognize(img)]
        vs.small_windows = lambda h, w: []
        old = [d.card for d in rec.recognize(img)]
        print(seed, card, design, "old", old, "new", new, "GAIN" if new == [card] and old != [card] else "",
              "LOST" if old == [card] and new != [card] else "", flush=True)
