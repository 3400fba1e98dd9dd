"""Rendered overlaps (model card seed): each detection on no card, or naming neither card.

    python models/eval/issue13/s32/phantoms.py MODELS_DIR SHARE
"""

import sys
from pathlib import Path

import numpy as np

from models.evaluate import _iou, overlap_scene
from vision.recognizer import CardRecognizer

rec = CardRecognizer.default(photos=True, folder=Path(sys.argv[1]))
share = float(sys.argv[2])
rng = np.random.default_rng([515151, int(share * 100)])
for k in range(60):
    img, below, q1, top, q2, vis = overlap_scene(rng, share)
    bad = [(d.card, round(d.confidence, 2), round(d.detector_confidence, 2)) for d in rec.recognize(img)
           if max(_iou(d.quad, q1), _iou(d.quad, q2)) < 0.3 or d.card not in (below, top)]
    if bad:
        print(k, below, top, bad, flush=True)
