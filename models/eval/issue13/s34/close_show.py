"""`close` photos as held_stress draws them: each miss saved with its quad (green), the
cut-card shapes grown from it (blue) and the corner reader's reading of the box's corners.
python models/eval/issue13/s34/close_show.py KIND OUTDIR [--seed N]"""

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from models.evaluate import _main_card
from vision.recognizer import _cut_card_shapes

ap = argparse.ArgumentParser()
ap.add_argument("kind")
ap.add_argument("out", type=Path)
ap.add_argument("--seed", type=int, default=hs.SEED)
a = ap.parse_args()
a.out.mkdir(parents=True, exist_ok=True)
reader = hs.fold_readers("data/models/fRM3_{set}", outline=True)

rows = []
for i, (src, card, img, _) in enumerate(hs.photos(a.kind, seed=a.seed)):
    rec = reader(src)
    found = rec.recognize(img)
    d = _main_card(found)
    row = dict(i=i, src=src, card=card, pred=d.card if d else None, conf=round(d.confidence, 3) if d else None,
               cands=[(c, round(p, 3)) for c, p in d.candidates[:3]] if d else None, n=len(found))
    if d is not None and d.card != card:
        q = np.asarray(d.quad, np.float32)
        faces = rec._corner[2]
        p = rec.corner_readings(img, [q])[0]
        row["corners"] = [(faces[int(np.argmax(pp))], round(float(pp.max()), 3)) for pp in p]
        vis = img.copy()
        cv2.polylines(vis, [q.astype(np.int32)], True, (0, 255, 0), 3)
        for g in _cut_card_shapes(img, q):
            cv2.polylines(vis, [g.astype(np.int32)], True, (255, 0, 0), 2)
        s = 400 / vis.shape[0]
        cv2.imwrite(str(a.out / f"{i}_{src}_{card}_{d.card}.jpg"), cv2.resize(vis, None, fx=s, fy=s))
        print(row, flush=True)
    rows.append(row)
(a.out / "rows.json").write_text(json.dumps(rows))
print(a.kind, sum(r["pred"] == r["card"] for r in rows), len(rows))
