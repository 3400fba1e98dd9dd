"""Eight held-up photos (whole_image_probe's draw) read with the detector made to give no box:
the window the search kept, its face and both readers' probabilities.
python data/s36/search_show.py OUT.png"""
import sys

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

import models.evaluate as ev
from models.held import held_scene

reader = hs.fold_readers("data/models/fRM3_{set}")
rng = np.random.default_rng(919191)
items = [(src, card, held_scene(rng, art)[0]) for src, card, art in ev.held_sources(rng, ["mit", "mit2", "classic"])]
picked = [items[i] for i in (3, 75, 130, 160, 215, 270, 300, 350)]
tiles = []
for src, card, img in picked:
    rec = reader(src)
    rec.detect = lambda image, timings=None: []
    found = rec.recognize(img)
    out = img.copy()
    for d in found:
        q = np.int32(np.round(d.quad))
        cv2.polylines(out, [q], True, (0, 255, 0) if d.card == card else (0, 0, 255), 3)
        cv2.putText(out, f"{d.card} {d.confidence:.2f}{' searched' if d.searched else ''}", (8, 470),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 4)
        cv2.putText(out, f"{d.card} {d.confidence:.2f}{' searched' if d.searched else ''}", (8, 470),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    cv2.putText(out, f"{src}: {card}", (8, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 4)
    cv2.putText(out, f"{src}: {card}", (8, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    tiles.append(cv2.resize(out, (400, 300)))
grid = np.vstack([np.hstack(tiles[i:i + 4]) for i in (0, 4)])
cv2.imwrite(sys.argv[1], grid)
