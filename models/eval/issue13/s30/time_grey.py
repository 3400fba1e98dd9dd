"""ms of `recognize` on held-up photos under a warm bulb and a white glare (tests/test_relight's
`_warm_glare`, seeds 0-19), with grey world off and on: median and the relight stage.

    python models/eval/issue13/s30/time_grey.py
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tests"))
from test_relight import _warm_glare  # noqa: E402

import vision.recognizer as R  # noqa: E402

rec = R.CardRecognizer.default(photos=True)
cards = ["red-7", "green-4", "blue-2", "yellow-9", "green-skip"]
imgs = [_warm_glare(s, cards[s % 5], ["classic", "2010s", "2020s"][s % 3]) for s in range(20)]
rec.recognize(imgs[0])
for on in (False, True):
    R.GREY_WORLD = on
    total, relight, named = [], [], 0
    for s, img in enumerate(imgs):
        t0 = time.perf_counter()
        found = rec.recognize(img)
        total.append((time.perf_counter() - t0) * 1e3)
        relight.append(rec.last_timings.get("relight", 0.0))
        named += bool(found) and found[0].card == cards[s % 5]
    print(f"grey world {'on ' if on else 'off'}: median {np.median(total):.1f} ms, p90 {np.percentile(total, 90):.1f}, "
          f"relight stage median {np.median(relight):.1f} ms; named {named} of {len(imgs)}")
