"""ms per still photo with the region's outline (`vision.outline.region_quad`) and without it
(the edges' outline only), on held-up frames (tools/held_stress.py kinds), and region_quad
alone. From the repository root: python models/eval/issue13/s33/time_region.py"""

import statistics
import sys
import time

import numpy as np

sys.path[:0] = [".", "tools"]

from held_stress import _art  # noqa: E402

import vision.outline  # noqa: E402
from models.evaluate import held_sources  # noqa: E402
from models.held import held_scene  # noqa: E402
from vision.recognizer import CardRecognizer  # noqa: E402

REGION = vision.outline.region_quad


def ms(call) -> float:
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1e3


rng = np.random.default_rng(1)
src = held_sources(rng, ["mit"], 10)
frames = {
    k: [held_scene(rng, _art(rng, art, k))[0] for _, _, art in src[:80]]
    for k in ("tilthard", "plain")
}
rec = CardRecognizer.default(photos=True)
for k, imgs in frames.items():
    rec.recognize(imgs[0])
    res: dict = {}
    for on in (False, True, False, True):
        vision.outline.region_quad = REGION if on else (lambda image, quad: None)
        res.setdefault(on, []).append(
            statistics.median(ms(lambda im=im: rec.recognize(im)) for im in imgs)
        )
    print(
        f"{k}: median ms per photo, region off {[round(v, 1) for v in res[False]]}, "
        f"on {[round(v, 1) for v in res[True]]}"
    )
vision.outline.region_quad = REGION
boxes = [(im, rec.detect(im)) for im in frames["tilthard"][:40]]
t = [ms(lambda im=im, q=found[0][0]: REGION(im, q)) for im, found in boxes if found]
print(
    f"region_quad alone: median {statistics.median(t):.1f} ms, max {max(t):.1f} ms over {len(t)} boxes"
)
