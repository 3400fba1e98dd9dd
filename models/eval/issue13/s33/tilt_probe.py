"""tilthard/steep as held_stress draws them: per card, the reading, and what the corner reader
says along the card's own outline. python models/eval/issue13/s33/tilt_probe.py KIND OUT.json"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from models.evaluate import _main_card
from vision.outline import outline_quad
from vision.recognizer import CardRecognizer

kind = sys.argv[1]
recs = {}


def reader(src):
    folder = Path(f"data/models/fRM3_{src}") if src in ("mit", "mit2", "classic") else None
    if folder not in recs:
        recs[folder] = CardRecognizer.default(photos=True, folder=folder, tiles=True, outline=True)
    return recs[folder]


rows = []
for i, (src, card, img, _) in enumerate(hs.photos(kind)):
    rec = reader(src)
    d = _main_card(rec.recognize(img))
    row = dict(
        i=i,
        src=src,
        card=card,
        pred=d.card if d else None,
        conf=round(d.confidence, 3) if d else None,
        cands=[(c, round(p, 3)) for c, p in d.candidates[:3]] if d else None,
    )
    if d is not None:
        q = np.asarray(d.quad, np.float32)
        faces = rec._corner[2]
        for name, shape in (("box", q), ("outline", outline_quad(img, q))):
            if shape is None:
                continue
            p = rec.corner_readings(img, [shape])[0]
            row[name] = [(faces[int(np.argmax(pp))], round(float(pp.max()), 3)) for pp in p]
    rows.append(row)
    if row["pred"] != card:
        print(row, flush=True)
Path(sys.argv[2]).write_text(json.dumps(rows))
ok = sum(r["pred"] == r["card"] for r in rows)
print(kind, ok, len(rows))
