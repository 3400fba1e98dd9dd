"""Faces made up where there is no card: 60 empty rooms (`models.held.room`, as
tests/test_mirror.py draws them) and `models evaluate`'s bad frames (5 draws of 8), read as
still photos are read (`CardRecognizer.default(photos=True)`).

    python models/eval/issue13/s31/nocard_probe.py FOLDER [FOLDER ...]   # 'models': the shipped files
"""

import sys
from pathlib import Path

import numpy as np

from models.evaluate import bad_frames
from models.held import room
from vision.recognizer import CardRecognizer

for name in sys.argv[1:]:
    rec = CardRecognizer.default(photos=True, folder=Path(name))
    made = []
    rng = np.random.default_rng(31)
    for i in range(60):
        img = np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8)
        made += [("room", i, d.card, round(d.confidence, 2)) for d in rec.recognize(img) if d.card != "back"]
    rng = np.random.default_rng(717171)
    for r in range(5):
        for kind, img in bad_frames(rng):
            made += [(kind, r, d.card, round(d.confidence, 2)) for d in rec.recognize(img) if d.card != "back"]
    print(name, "faces made up:", len(made), "at 0.25 or more:", sum(m[3] >= 0.25 for m in made),
          "at 0.5 or more:", sum(m[3] >= 0.5 for m in made), made, flush=True)
