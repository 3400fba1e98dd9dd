"""Overlap scenes whose reading the fan walk's mend (`_boxed_twice`) changes: each scene read
with it, and as before it (no box taken for a twin in the walk; `_one_card_once` as ever).

    python models/eval/issue13/s32/find_twin.py SEED SHARE N [SET]
"""

import sys

import numpy as np

import vision.recognizer as recognizer
from models.evaluate import overlap_scene, real_faces
from vision.recognizer import CardRecognizer

seed, share, n = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
faces = real_faces(sys.argv[4]) if len(sys.argv) > 4 else None
rec = CardRecognizer.default(photos=True)
twice, once = recognizer._boxed_twice, recognizer._one_card_once


def before(found):
    drop = twice([d.quad or recognizer.box_quad(d.box) for d in found], [d.card for d in found],
                 [d.detector_confidence for d in found])
    return [d for k, d in enumerate(found) if k not in drop]


rng = np.random.default_rng([seed, int(share * 100)])
for k in range(n):
    img, below, q1, top, q2, vis = overlap_scene(rng, share, faces=faces)
    new = [d.card for d in rec.recognize(img)]
    recognizer._boxed_twice, recognizer._one_card_once = (lambda q, f, s: set()), before
    old = [d.card for d in rec.recognize(img)]
    recognizer._boxed_twice, recognizer._one_card_once = twice, once
    if new != old:
        print(k, "below", below, "top", top, "before", old, "now", new, flush=True)
print("scenes read:", n)
