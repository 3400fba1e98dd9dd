"""ms per still photo, outline off and on, on held-up frames (tools/held_stress.py kinds), and
vision.outline.outline_quad alone. From the repository root:
python models/eval/issue13/s27/time_outline.py"""

import statistics
import sys
import time

import numpy as np

sys.path[:0] = [".", "tools"]

from held_stress import _art  # noqa: E402

from models.evaluate import held_sources  # noqa: E402
from models.held import held_scene  # noqa: E402
from vision.outline import outline_quad  # noqa: E402
from vision.recognizer import CardRecognizer  # noqa: E402


def ms(call) -> float:
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1e3


rng = np.random.default_rng(1)
src = held_sources(rng, ["mit"], 10)
frames = {k: [held_scene(rng, _art(rng, art, k))[0] for _, _, art in src[:80]] for k in ("tilthard", "plain")}
recs = {f: CardRecognizer.default(photos=True, outline=f) for f in (False, True)}
for k, imgs in frames.items():
    for r in recs.values():
        r.recognize(imgs[0])
    res: dict = {}
    for f in (False, True, False, True):
        res.setdefault(f, []).append(statistics.median(ms(lambda im=im, r=recs[f]: r.recognize(im)) for im in imgs))
    print(f"{k}: median ms per photo, outline off {res[False]}, on {res[True]}")
boxes = [(im, recs[True].detect(im)) for im in frames["tilthard"][:40]]
t = [ms(lambda im=im, q=found[0][0]: outline_quad(im, q)) for im, found in boxes if found]
print(f"outline_quad alone: median {statistics.median(t):.1f} ms, max {max(t):.1f} ms over {len(t)} boxes")
