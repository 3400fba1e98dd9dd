"""Covered cards missed in `models evaluate`'s overlaps (model card seeds): per scene, the
covered card, its visible share, and what the boxes on it said.

    python models/eval/issue13/s32/trace70.py SET|renders SHARE [MODELS_DIR]
"""

import sys
from pathlib import Path

import numpy as np

from models.evaluate import _iou, overlap_scene, real_faces
from vision.recognizer import CardRecognizer

name, share = sys.argv[1], float(sys.argv[2])
folder = sys.argv[3] if len(sys.argv) > 3 else "models"
rec = CardRecognizer.default(photos=True, folder=Path(folder))
faces = real_faces(name) if name != "renders" else None
rng = np.random.default_rng([525252 if faces else 515151, int(share * 100)])
named = 0
for k in range(60):
    img, below, q1, top, q2, vis = overlap_scene(rng, share, faces=faces)
    on = [(d.card, round(d.confidence, 2), round(_iou(d.quad, q1), 2)) for d in rec.recognize(img)
          if _iou(d.quad, q1) >= 0.3 and _iou(d.quad, q1) >= _iou(d.quad, q2)]
    if any(c == below for c, _, _ in on):
        named += 1
    else:
        print(k, below, "vis", round(vis, 2), "on it:", on, flush=True)
print(name, share, "covered named:", named, "of 60")
