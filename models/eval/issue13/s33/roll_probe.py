"""For each region reading in _outline_unsure: each shape's reading (edges, region, region turned),
and the truth. python models/eval/issue13/s33/roll_probe.py KINDS OUT.json"""

import json
import sys
from pathlib import Path

sys.path.insert(0, "tools")
import held_stress as hs

import vision.recognizer as R
from models.evaluate import _main_card
from vision.recognizer import CardRecognizer

log = []
orig = R.CardRecognizer._surest_each


def spy(self, image, tries, timings, ordered=False):
    out = orig(self, image, tries, timings, ordered)
    if ordered:
        read = self._classify_more(image, [s for _, shapes in tries for s in shapes], {}, True)
        k = 0
        for _, shapes in tries:
            log[-1]["tries"].append([r[0] for r in read[k : k + len(shapes)]])
            k += len(shapes)
    return out


R.CardRecognizer._surest_each = spy
rows = []
for kind in sys.argv[1].split(","):
    recs = {}
    for i, (src, card, img, _) in enumerate(hs.photos(kind)):
        folder = Path(f"data/models/fRM3_{src}") if src in ("mit", "mit2", "classic") else None
        rec = recs.setdefault(
            folder, CardRecognizer.default(photos=True, folder=folder, tiles=True, outline=True)
        )
        log.append(dict(kind=kind, i=i, src=src, card=card, tries=[]))
        d = _main_card(rec.recognize(img))
        log[-1]["pred"] = d.card if d else None
        log[-1]["conf"] = d.confidence if d else None
Path(sys.argv[2]).write_text(json.dumps(log))
