"""Each shared real set's cut-out cards, both index corners read by each folder's corner
reader (as `train_corner` reports its held-out set): right of all, and the misses.

    python models/eval/issue13/s32/corner_probe.py MODELS_DIR [MODELS_DIR ...]   # 'models': shipped
"""

import sys
from pathlib import Path

import numpy as np

from models.real_cards import load_cutouts
from vision.crops import crop_from_quad, white_reference
from vision.recognizer import CardRecognizer

for folder in sys.argv[1:]:
    rec = CardRecognizer.default(photos=True, folder=Path(folder))
    names = rec._corner[2]
    for name in ("mit", "mit2", "classic"):
        right, total, misses = 0, 0, []
        for rc, img in load_cutouts([name]):
            bgr = np.ascontiguousarray(img[..., :3])
            h, w = bgr.shape[:2]
            q = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            for c in rec.corner_readings(bgr, [q], [white_reference(crop_from_quad(bgr, q))])[0]:
                got = names[int(np.argmax(c))]
                total += 1
                right += got == rc.card
                if got != rc.card:
                    misses.append(f"{rc.card}->{got}")
        print(folder, name, f"{right}/{total}", misses, flush=True)
