"""Why the search missed: for held-up photos (whole_image_probe's draw) the no-box path left
empty, the search's best face, its classifier and corner probabilities after the climb."""
import json
import sys

import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs

import models.evaluate as ev
import vision.search as vs
from models.held import held_scene

rows = json.load(open("data/s36/nobox_on.json"))["held"]
reader = hs.fold_readers("data/models/fRM3_{set}")
rng = np.random.default_rng(919191)
items = [(src, card, held_scene(rng, art)) for src, card, art in ev.held_sources(rng, ["mit", "mit2", "classic"])]
vs.SEARCH_MIN = vs.SEARCH_INDEX = 0.0
for (src, card, (img, true)), r in zip(items, rows, strict=False):
    if r["got"]:
        continue
    rec = reader(src)
    d = rec._searched(img)
    got = d[0] if d else None
    from models.evaluate import _iou

    # the readers on the true quad
    from vision.crops import order_portrait
    q = order_portrait(true)
    top = rec.classify_top(img, [q], 3)[0]
    names = rec._corner[2]
    c = rec.corner_readings(img, [q])[0]
    ctop = [(names[int(np.argmax(c[k]))], round(float(c[k].max()), 2)) for k in range(2)]
    print(src, card, "| search:", got and (got.card, round(got.confidence, 2), round(_iou(np.float32(got.quad), true), 2)),
          "| true quad: cls", [(f, round(p, 2)) for f, p in top], "corners", ctop, flush=True)
