"""What the detector scores below its bar (0.35): per photo, the best box's score and the
classifier's reading of each box scored 0.05-0.35. Held-up photos (held_stress kinds) and
no-card frames. python data/s36/lowconf_probe.py DET KINDS OUT.json"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from models.evaluate import bad_frames
from models.held import room
from vision.crops import order_portrait

det, kinds, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
reader = hs.fold_readers("data/models/fRM3_{set}", detector_path=None if det == "photos" else Path(det))


def probe(rec, img):
    rec.conf = 0.05
    found = rec.detect(img)
    rec.conf = 0.35
    if not found:
        return {"best": 0.0, "low": []}
    best = max(s for _, s in found)
    low = [(q, s) for q, s in found if s < 0.35][:5]
    reads = rec.classify_top(img, [order_portrait(q) for q, _ in low], 2) if low else []
    return {"best": best, "low": [(round(s, 3), r[0][0], round(r[0][1], 3), r[1][0], round(r[1][1], 3),
                                   [round(float(v), 1) for v in q.ravel()]) for (q, s), r in zip(low, reads, strict=False)]}


res = {}
for kind in kinds:
    if kind == "nocard":
        rec = reader("renders")
        rng = np.random.default_rng(31)
        frames = [("room", np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8)) for _ in range(60)]
        rng = np.random.default_rng(717171)
        frames += [f for _ in range(5) for f in bad_frames(rng)]
        res[kind] = [dict(probe(rec, img), card=k) for k, img in frames]
    else:
        res[kind] = [dict(probe(reader(src), img), card=card, src=src) for src, card, img, _ in hs.photos(kind)]
    rows = res[kind]
    print(kind, "none>=0.35:", sum(r["best"] < 0.35 for r in rows), "of", len(rows), flush=True)
Path(out).write_text(json.dumps(res))
