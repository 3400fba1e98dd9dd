"""Corner reader along the region's quad in each order, for chosen photos.
python models/eval/issue13/s33/roll_corner.py KIND i,i,i"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

from vision.outline import region_quad
from vision.recognizer import CardRecognizer

kind = sys.argv[1]
want = {int(x) for x in sys.argv[2].split(",")}
recs = {}
for i, (src, card, img, _) in enumerate(hs.photos(kind)):
    if i not in want:
        continue
    folder = Path(f"data/models/fRM3_{src}") if src in ("mit", "mit2", "classic") else None
    rec = recs.setdefault(
        folder, CardRecognizer.default(photos=True, folder=folder, tiles=True, outline=True)
    )
    faces = rec._corner[2]
    for q, _ in rec.detect_tiled(img):
        r = region_quad(img, q)
        if r is None:
            continue
        rolled = np.roll(r, 1, axis=0)
        reads = rec.classify_top(img, [r, rolled], 1, ordered=True)
        from vision.crops import corner_quads, crop_from_quad, white_reference

        out = []
        for qq in (r, rolled):
            w = white_reference(crop_from_quad(img, qq, ordered=True))
            p = rec._read_patches(img, corner_quads(qq, ordered=True), [w, w])
            out.append([(faces[int(np.argmax(pp))], round(float(pp.max()), 2)) for pp in p])
        print(
            kind,
            i,
            card,
            "plain",
            reads[0][0][0],
            round(reads[0][0][1], 2),
            out[0],
            "| rolled",
            reads[1][0][0],
            round(reads[1][0][1], 2),
            out[1],
        )
