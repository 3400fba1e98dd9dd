"""Held-up renders (seed n: card and design drawn from n) that, with no box, the whole-image
reading misses and the search names: candidates for tests/test_search.py."""
import numpy as np

from models.evaluate import _iou
from models.held import held_scene
from vision.recognizer import CardRecognizer
from vision.render import ALL_FACES, random_params, render_card

rec = CardRecognizer.default(photos=True)
rec.detect = lambda image, timings=None: []
found = 0
for seed in range(60):
    pick = np.random.default_rng(1000 + seed)
    card = str(pick.choice(ALL_FACES))
    design = str(pick.choice(["classic", "2010s", "2020s"]))
    rng = np.random.default_rng(seed)
    img, true = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, design)))
    rec.search = False
    before = [d.card for d in rec.recognize(img)]
    rec.search = True
    after = rec.recognize(img)
    iou = _iou(np.float32(after[0].quad), true) if after else 0
    print(seed, card, design, before, [(d.card, round(d.confidence, 2), d.searched) for d in after], round(iou, 2), flush=True)
