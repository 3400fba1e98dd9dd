"""Every walked corner's patch stats on the tuning seeds (overlap_tune's scenes).
python models/eval/issue13/s33/fan_stats.py MODELS_DIR|shipped OUT.json
"""

import json
import sys
from pathlib import Path

import numpy as np

import models.evaluate as ev
import vision.recognizer as R

rows = []
orig = R.CardRecognizer._fan_neighbour


def stats(pt):
    band = max(1, int(round(R.FAN_BAND * pt.shape[0])))
    w = R._white(pt)
    inner = w[band:, band:]
    px = pt.astype(np.int16)
    sat = (px.max(axis=2) - px.min(axis=2))[band:, band:]
    return dict(
        s=R._border_share(pt),
        e=R._border_edge(pt),
        iw=float(inner.mean()),
        isat=float((sat > 60).mean()),
        bw_top=float(w[:band].mean()),
        bw_left=float(w[band:, :band].mean()),
    )


def spy(self, image, card, axis, white):
    got = orig(self, image, card, axis, white)
    if got is not None and got[2].max() >= R.FAN_SURE:
        pt = self._normalised_patches(image, [got[1]], [white])[0]
        faces = self._corner[2][:-1]
        rows.append(
            dict(
                face=faces[int(np.argmax(got[2]))],
                p=float(got[2].max()),
                scene=ev_scene[0],
                **stats(pt),
            )
        )
    return got


R.CardRecognizer._fan_neighbour = spy
ev_scene = ["?"]
folder = None if sys.argv[1] == "shipped" else Path(sys.argv[1])
rec = ev._recognizer(folder)
out = {}
ev_scene[0] = "renders-overlap"
out["ov"] = ev.eval_overlap(rec, seed=9393)["overlap"]
ev_scene[0] = "renders-fan"
out["fan"] = ev.eval_fan(rec, seed=9394)
ev_scene[0] = "renders-table"
out["table"] = ev.eval_table(rec, seed=9395)
ev_scene[0] = "real"
out["real"] = ev.eval_overlap_real(rec, ["mit", "mit2", "classic"], seed=9292)["overlap_real"]
Path(sys.argv[2]).write_text(json.dumps(dict(rows=rows, figures=out)))
print(len(rows))
for k in ("s", "e", "iw", "isat"):
    v = np.array([r[k] for r in rows])
    print(k, np.percentile(v, [0, 1, 5, 50, 95, 99, 100]).round(3))
