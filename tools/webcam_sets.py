"""The shared real sets as a cheap webcam would give them: top-1 of `uno-table detect`'s path.

    python tools/webcam_sets.py plain,soft,dim,warm,cool,all

Each photo shrunk to 640 px, then (by kind) blurred 1.5 px, darkened (gamma 1.6, exposure
0.7) with noise 8, given a warm or cool cast, or all of these, and saved as JPEG quality 45.
A check that the photo path does not rest on the shared photos' quality (models/README.md,
issue 13, fourteenth session); the photos themselves are partly trained on (the protocol).
"""

from __future__ import annotations

import sys

import cv2
import numpy as np

CASTS = {"warm": (0.75, 0.95, 1.15), "cool": (1.2, 1.0, 0.8)}  # BGR gains


def webcam(img: np.ndarray, rng: np.random.Generator, kind: str) -> np.ndarray:
    h, w = img.shape[:2]
    s = 640 / max(h, w)
    img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    if kind in ("soft", "all"):
        img = cv2.GaussianBlur(img, (0, 0), 1.5)
    f = img.astype(np.float32)
    if kind in ("dim", "all"):
        f = 255 * (f / 255) ** 1.6 * 0.7
    cast = CASTS.get("warm" if kind == "all" else kind)
    if cast is not None:
        f *= np.float32(cast)
    if kind in ("noise", "dim", "all"):
        f += rng.normal(0, 8, f.shape)
    ok, jpeg = cv2.imencode(
        ".jpg", np.clip(f, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 45]
    )
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def main(kinds: list[str]) -> int:
    from models.real_cards import SETS, list_set
    from vision.recognizer import CardRecognizer

    rec = CardRecognizer.default(photos=True, threads=2)
    for kind in kinds:
        for name in SETS:
            rng = np.random.default_rng(0)
            cards = list_set(name)
            right = found = 0
            wrong: dict[str, int] = {}
            for c in cards:
                dets = rec.recognize(webcam(cv2.imread(str(SETS[name] / c.file)), rng, kind))
                if not dets:
                    continue
                found += 1
                best = max(dets, key=lambda d: d.confidence).card
                if best == c.card:
                    right += 1
                else:
                    wrong[f"{c.card}->{best}"] = wrong.get(f"{c.card}->{best}", 0) + 1
            print(
                f"{kind} {name}: {right}/{len(cards)} named, {found} found; misread {wrong}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1].split(",") if len(sys.argv) > 1 else ["plain", "all"]))
