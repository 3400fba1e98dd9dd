"""Glare as a veil (tried, not shipped): each held-up glare frame of `tools/held_stress.py
glare` read as it is and, where its surest face is under 0.9, again with the veil lifted by a
dark-channel dehaze (He et al.), that reading kept if 0.3 surer (as the relit reading is).

    python models/eval/issue13/s29/veil_try.py 'data/models/fRM3_{set}'                  # light 255, floor 0.2
    python models/eval/issue13/s29/veil_try.py 'data/models/fRM3_{set}' --floor 0.3 --white  # the photo's white
"""

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[4]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

import held_stress as hs  # noqa: E402

from models.evaluate import _main_card, held_sources  # noqa: E402
from models.held import held_scene  # noqa: E402
from vision.crops import white_reference  # noqa: E402
from vision.recognizer import CardRecognizer, _sample, _surest_face  # noqa: E402


def unveil(img: np.ndarray, frac: float, floor: float, white: bool) -> np.ndarray:
    """`img` with a white veil lifted: its dark channel (the least channel, eroded over a
    window `frac` of the image's short side) taken as the veil's share."""
    light = (np.clip(white_reference(_sample(img)).astype(np.float32), 64, 255) if white
             else np.float32([255, 255, 255]))
    k = max(3, int(min(img.shape[:2]) * frac)) | 1
    scaled = (img.astype(np.float32) / light * 255).clip(0, 255).astype(np.uint8)
    dark = cv2.erode(scaled.min(axis=2), cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    dark = cv2.blur(dark.astype(np.float32), (k, k))
    t = np.maximum(1 - 0.95 * dark / 255.0, floor)[..., None]
    return np.clip((img.astype(np.float32) - light) / t + light, 0, 255).astype(np.uint8)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folds", help="models folder of each real set's fold, with {set}")
    ap.add_argument("--window", type=float, default=1 / 40)
    ap.add_argument("--floor", type=float, default=0.2)
    ap.add_argument("--white", action="store_true", help="the light is the photo's white, not 255")
    args = ap.parse_args()
    rng = np.random.default_rng(hs.SEED)
    sources = held_sources(rng, ["mit", "mit2", "classic"], 54)
    recs: dict = {}
    n0 = n1 = tried = 0
    for i, (src, card, art) in enumerate(sources):
        img, _ = held_scene(rng, hs._art(rng, art, "glare"))
        img = hs._frame(rng, img, "glare")
        folder = Path(args.folds.format(set=src)) if src in ("mit", "mit2", "classic") else None
        if folder not in recs:
            recs[folder] = CardRecognizer.default(photos=True, folder=folder, tiles=True)
        r = recs[folder]
        ds = r.recognize(img)
        d = _main_card(ds)
        ok0 = ok1 = d is not None and d.card == card
        s0 = _surest_face(ds)
        if s0 < 0.9:
            tried += 1
            r.relight = False
            du = r.recognize(unveil(img, args.window, args.floor, args.white))
            r.relight = True
            kept = _surest_face(du) >= s0 + 0.3
            if kept:
                d1 = _main_card(du)
                ok1 = d1 is not None and d1.card == card
            if ok0 != ok1 or not ok1:
                print(i, src, card, "as is", d and (d.card, round(d.confidence, 2)), "unveiled",
                      [(x.card, round(x.confidence, 2)) for x in du][:2], "kept" if kept else "", flush=True)
        n0 += ok0
        n1 += ok1
    print("glare as is", n0, "with unveiled second reading", n1, "tried", tried, "of", len(sources))


if __name__ == "__main__":
    main()
