"""The shared real sets as a cheap webcam would give them: top-1 of `uno-table detect`'s path.

    python tools/webcam_sets.py plain,soft,dim,warm,cool,all [--folds DIR_PATTERN]

Each photo shrunk to 640 px, then (by kind) blurred 1.5 px, darkened (gamma 1.6, exposure
0.7) with noise 8, given a warm or cool cast, or all of these, and saved as JPEG quality 45.
Harsher kinds: `small` (shrunk to 200 px, a card across a room), `shake` (a 9-pixel motion
blur), `glare` (a lamp's bright spot over part of the card), `harsh` (small, shake, dim and
warm together). A check that the photo path does not rest on the shared photos' quality
(models/README.md, issue 13, fourteenth session). The shipped classifier trained on every
shared photo; `--folds data/models/fRM3_{set}` reads each set with the classifier of the
fold that never saw it (a held-out figure).
"""

from __future__ import annotations

import sys

import cv2
import numpy as np

CASTS = {"warm": (0.75, 0.95, 1.15), "cool": (1.2, 1.0, 0.8)}  # BGR gains


def _glare(f: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lamp's reflection: a bright, whitening blob a third of the image across."""
    h, w = f.shape[:2]
    cx, cy = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    blob = np.exp(-(((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (0.12 * max(h, w)) ** 2)))[..., None]
    return f + (255 - f) * 0.8 * blob


def webcam(img: np.ndarray, rng: np.random.Generator, kind: str) -> np.ndarray:
    h, w = img.shape[:2]
    s = (200 if kind in ("small", "harsh") else 640) / max(h, w)
    img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    if kind in ("soft", "all"):
        img = cv2.GaussianBlur(img, (0, 0), 1.5)
    if kind in ("shake", "harsh"):
        k = np.zeros((9, 9), np.float32)
        k[4, :] = 1 / 9
        m = cv2.getRotationMatrix2D((4, 4), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, m, (9, 9))
        img = cv2.filter2D(img, -1, k / k.sum())
    f = img.astype(np.float32)
    if kind == "glare":
        f = _glare(f, rng)
    if kind in ("dim", "all", "harsh"):
        f = 255 * (f / 255) ** 1.6 * 0.7
    cast = CASTS.get("warm" if kind in ("all", "harsh") else kind)
    if cast is not None:
        f *= np.float32(cast)
    if kind in ("noise", "dim", "all", "harsh"):
        f += rng.normal(0, 8, f.shape)
    ok, jpeg = cv2.imencode(
        ".jpg", np.clip(f, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 45]
    )
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def main(kinds: list[str], folds: str | None = None) -> int:
    from models.real_cards import SETS, list_set
    from vision.recognizer import CLASSIFIER_FILE, CardRecognizer

    def reader(name: str) -> CardRecognizer:
        path = None if folds is None else f"{folds.format(set=name)}/{CLASSIFIER_FILE}"
        return CardRecognizer.default(photos=True, threads=2, classifier_path=path)

    readers = {name: reader(name) for name in SETS}
    for kind in kinds:
        for name in SETS:
            rec = readers[name]
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
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kinds", nargs="?", default="plain,all", help="comma-separated kinds")
    ap.add_argument("--folds", help="each set's classifier folder, {set} in it (held-out figures)")
    args = ap.parse_args()
    sys.exit(main(args.kinds.split(","), args.folds))
