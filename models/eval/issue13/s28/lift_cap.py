"""How far a dark still photo is best lifted (`vision.recognizer.EXPOSE_MOST`): 60 rendered
held-up cards (`models.held.held_scene`, seeds 0-59, their own seeds, not the probes'),
each at LIGHT of its light with the exposure held (sensor noise, JPEG 35-60), read with the
lift capped at each CAP (1: not lifted) and lifted to TO:

    python models/eval/issue13/s28/lift_cap.py 0.18 1:220 3:220 4:220 6:220
    python models/eval/issue13/s28/lift_cap.py 0.12 1:220 2:220 3:220 6:220 6:160 3:160
"""
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
import vision.recognizer as R  # noqa: E402
from models.held import held_scene  # noqa: E402
from vision.render import random_params, render_card  # noqa: E402

light = float(sys.argv[1])
rec = R.CardRecognizer.default(photos=True)
imgs = []
for seed in range(60):
    card = ["red-7", "green-4", "blue-2", "yellow-9", "green-skip", "blue-reverse"][seed % 6]
    rng = np.random.default_rng(seed)
    img, _ = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, ["classic", "2010s", "2020s"][seed % 3])))
    out = img.astype(np.float32) * light + rng.normal(0, 2, img.shape).astype(np.float32)
    _, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 60))])
    imgs.append((card, cv2.imdecode(enc, cv2.IMREAD_COLOR)))
for arg in sys.argv[2:]:
    R.EXPOSE_MOST, R.EXPOSE_TO = map(float, arg.split(":"))
    right = wrong = none = extra = 0
    for card, img in imgs:
        faces = [d for d in rec.recognize(img) if d.card != "back"]
        if not faces:
            none += 1
            continue
        best = max(faces, key=lambda d: d.confidence)
        right += best.card == card
        wrong += best.card != card
        extra += len(faces) - 1
    print(f"light {light} lifted at most {R.EXPOSE_MOST:g}x to {R.EXPOSE_TO:g}: named {right}, wrong {wrong}, "
          f"none {none}, extra boxes {extra}", flush=True)
