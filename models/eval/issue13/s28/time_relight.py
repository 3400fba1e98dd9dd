"""ms per still photo with the relit second reading (`CardRecognizer(relight=...)`) off and
on: the light's measures alone (`exposure_gain`, `white_balance`) at three photo sizes, and
whole readings of 40 held-up photos, plain, at a fifth of the light (exposure held) and
under a bulb left orange (blue at half of red). Run with nothing else on the machine:

    python models/eval/issue13/s28/time_relight.py
"""
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from models.held import held_scene  # noqa: E402
from vision.recognizer import CardRecognizer, exposure_gain, white_balance  # noqa: E402
from vision.render import random_params, render_card  # noqa: E402


def dark(img, rng):
    out = img.astype(np.float32) * 0.2 + rng.normal(0, 2, img.shape).astype(np.float32)
    _, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 50])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


rng = np.random.default_rng(2828)
for h, w in ((480, 640), (720, 1280), (3024, 4032)):
    img = (rng.random((h, w, 3)) * 255).astype(np.uint8)
    for f in (exposure_gain, white_balance):
        t = []
        for _ in range(30):
            t0 = time.perf_counter()
            f(img)
            t.append((time.perf_counter() - t0) * 1e3)
        print(f"{f.__name__} {w}x{h}: median {np.median(t):.2f} ms")
photos = []
for i in range(40):
    card = ["red-7", "green-4", "blue-2", "yellow-9", "green-skip"][i % 5]
    img, _ = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, ["classic", "2010s", "2020s"][i % 3])))
    warm = np.clip(img.astype(np.float32) * np.float32([0.5, 0.75, 1.0]), 0, 255).astype(np.uint8)
    photos.append((card, img, dark(img, rng), warm))
for relight in (False, True):
    rec = CardRecognizer.default(photos=True, relight=relight)
    for which, kind in ((1, "plain"), (2, "dark "), (3, "warm ")):
        t, named = [], 0
        for card, *imgs in photos:
            t0 = time.perf_counter()
            found = rec.recognize(imgs[which - 1])
            t.append((time.perf_counter() - t0) * 1e3)
            named += bool(found) and max(found, key=lambda d: d.confidence).card == card
        print(f"relight {'on ' if relight else 'off'} {kind}: median {np.median(t):.0f} ms, "
              f"named {named}/{len(photos)}")
