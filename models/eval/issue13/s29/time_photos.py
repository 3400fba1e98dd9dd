"""ms per still photo with this session's two changes off and on: each crop read both ways
round (`both_turns`) and the softened second reading (`soften`), on 40 held-up photos, plain
and in a dim room the webcam gained back up (12% of the light lifted to 75%, noise, JPEG 40).
Run with nothing else on the machine:

    python models/eval/issue13/s29/time_photos.py
"""
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from models.evaluate import _main_card  # noqa: E402
from models.held import held_scene  # noqa: E402
from vision.recognizer import CardRecognizer  # noqa: E402
from vision.render import random_params, render_card  # noqa: E402


def gained(img, rng):
    out = (img.astype(np.float32) * 0.12 + rng.normal(0, 3, img.shape).astype(np.float32)) * (0.75 / 0.12)
    _, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 40])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


rng = np.random.default_rng(2929)
photos = []
for i in range(40):
    card = ["red-7", "green-4", "blue-2", "yellow-9", "green-skip"][i % 5]
    img, _ = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, ["classic", "2010s", "2020s"][i % 3])))
    photos.append((card, img, gained(img, rng)))
for both_turns, soften in ((False, False), (True, False), (True, True)):
    rec = CardRecognizer.default(photos=True, both_turns=both_turns, soften=soften)
    for which, kind in ((1, "plain"), (2, "dim  ")):
        t, named = [], 0
        for card, *imgs in photos:
            t0 = time.perf_counter()
            found = _main_card(rec.recognize(imgs[which - 1]))
            t.append((time.perf_counter() - t0) * 1e3)
            named += found is not None and found.card == card
        print(f"both_turns {both_turns!s:5} soften {soften!s:5} {kind}: median {np.median(t):5.1f} ms, "
              f"p90 {np.percentile(t, 90):5.1f} ms, named {named}/40")
