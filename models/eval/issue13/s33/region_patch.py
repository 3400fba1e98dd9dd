"""Monkeypatch: _outline_unsure also tries the card's region (GrabCut) in both orders."""

import sys

import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
from region import region_quad

import vision.recognizer as R
from vision.crops import CROP_H, CROP_W, _warp, classifier_batch, order_portrait

STATS = {"tried": 0, "taken": 0}


def read_ordered(rec, image, quads):
    crops = []
    for q in quads:
        c = _warp(image, np.asarray(q, np.float32), CROP_W, CROP_H)
        crops += [c, c[::-1, ::-1]]
    x, whites = classifier_batch(crops, rec.normalize_colour, rec._cls_white)
    feed = {rec._cls_input: x} | ({R.WHITE_INPUT: whites} if rec._cls_white else {})
    logits = rec._cls.run(None, feed)[0]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    p = (p[0::2] + p[1::2]) / 2
    top = np.argsort(-p, axis=1)[:, :3]
    return [[(rec.classes[i], float(p[n, i])) for i in row] for n, row in enumerate(top)]


orig = R.CardRecognizer._outline_unsure


def patched(self, image, quads, names, timings):
    names = orig(self, image, quads, names, timings)
    rects = [R.cv2.minAreaRect(np.asarray(q, np.float32)) for q in quads]
    names = list(names)
    for i, (q, top) in enumerate(zip(quads, names, strict=True)):
        if top[0][1] >= R.OUTLINE_BELOW or not R._apart(i, rects):
            continue
        r = region_quad(image, q)
        if r is None:
            continue
        STATS["tried"] += 1
        p = order_portrait(r)
        reads = read_ordered(self, image, [p, np.roll(p, 1, axis=0)])
        best = max(reads, key=lambda t: t[0][1])
        if best[0][1] >= R.OUTLINE_SURE and best[0][1] > top[0][1]:
            names[i] = best
            STATS["taken"] += 1
    return names


R.CardRecognizer._outline_unsure = patched
