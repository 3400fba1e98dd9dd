"""bad_frames' backs_only frames (rng seeds 0-39) read with no box: faces the search makes up
with the back rule (`vision.search.search`, backs) and without it."""
import numpy as np

import vision.search as vs
from models.evaluate import bad_frames
from vision.recognizer import CardRecognizer

rec = CardRecognizer.default(photos=True)
rec.detect = lambda image, timings=None: []
real = vs.search


def no_rule(h, w, read_top, read_face, backs=()):
    return real(h, w, lambda rects: [(f, 0.0 if f in backs else p) for f, p in read_top(rects)], read_face, backs)


for seed in range(40):
    frames = dict(bad_frames(np.random.default_rng(seed)))
    img = frames["backs_only"]
    vs.search = real
    with_rule = [d.card for d in rec.recognize(img) if d.card != "back"]
    vs.search = no_rule
    without = [d.card for d in rec.recognize(img) if d.card != "back"]
    print(seed, with_rule, without, flush=True)
