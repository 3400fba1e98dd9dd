import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from models.evaluate import _main_card
from vision.crops import corner_patch, corner_quads
from vision.outline import outline_quad
from vision.recognizer import CardRecognizer

kind = sys.argv[1]
want = {int(x) for x in sys.argv[2].split(",")}
out = Path("/tmp/tilt")
out.mkdir(exist_ok=True)
for i, (src, card, img, _) in enumerate(hs.photos(kind)):
    if i not in want:
        continue
    folder = Path(f"data/models/fRM3_{src}") if src in ("mit", "mit2", "classic") else None
    rec = CardRecognizer.default(photos=True, folder=folder, tiles=True, outline=True)
    d = _main_card(rec.recognize(img))
    vis = img.copy()
    q = np.asarray(d.quad, np.float32)
    cv2.polylines(vis, [q.astype(np.int32)], True, (0, 255, 0), 2)
    o = outline_quad(img, q)
    pats = []
    if o is not None:
        cv2.polylines(vis, [o.astype(np.int32)], True, (0, 0, 255), 2)
        pats = [cv2.resize(corner_patch(img, c), (120, 120)) for c in corner_quads(o)]
    s = 480 / vis.shape[0]
    vis = cv2.resize(vis, None, fx=s, fy=s)
    if pats:
        col = np.vstack(pats + [np.zeros((480 - 240, 120, 3), np.uint8)])
        vis = np.hstack([vis, col])
    cv2.imwrite(str(out / f"{kind}_{i}_{card}_{d.card}.jpg"), vis)
    print(i, card, d.card, d.confidence)
