"""The shared real photos as training material, and the honest split between sets.

Each shared set (`SETS`) is a folder of photos of single physical cards with a `labels.csv`
(`file,card`). A card is cut out of its photo as a straight, upright BGRA image (like a
render), so the classifier's training can lay it on a table, warp, re-light and cover it
like any rendered card (`models.crops.synth_crop`):

- `real-cards-mit` and `real-cards-classic-apache` are already cut to the card: the whole
  photo is the card;
- `real-cards-2010s-mit2` shows each card upright on a grey wall: the card is the shipped
  detector's best box, cut along its corners.

Honest protocol: a model is reported only on sets it never trained on. `folds()` gives the
leave-one-set-out splits; `check_disjoint` refuses a training list that shares a photo (by
file, or by identical pixels) with a validation list.

    python -m models.real_cards --show data/real_cards.png   # a contact sheet of the cut-outs
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.real_faces import shared_data

SHARED = shared_data()
# short name -> folder; the order is the order of reports
SETS: dict[str, Path] = {
    "mit": SHARED / "real-cards-mit",
    "mit2": SHARED / "real-cards-2010s-mit2",
    "classic": SHARED / "real-cards-classic-apache",
}
# the printed design of each set's deck (models/README.md reports per design)
DESIGN = {"mit": "2010s (newer print)", "mit2": "2010s", "classic": "classic"}
CUT_H = 192  # height of a cut-out card image


@dataclass(frozen=True)
class RealCard:
    set: str
    file: str  # as in the set's labels.csv
    card: str
    digest: str  # sha1 of the photo's bytes


def parse_sets(text: str | None) -> list[str]:
    """'mit,classic' -> ['mit', 'classic'] ('' or None: none; 'all': every set)."""
    if not text:
        return []
    names = list(SETS) if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in SETS]
    if bad:
        raise ValueError(f"unknown real set(s) {bad}: expected some of {list(SETS)} or 'all'")
    return names


def folds(names: list[str] | None = None) -> list[tuple[list[str], str]]:
    """Leave-one-set-out: [(sets to train on, the set held out), ...]."""
    names = list(SETS) if names is None else names
    return [([n for n in names if n != held], held) for held in names]


def list_set(name: str, root: Path | None = None) -> list[RealCard]:
    folder = (root / SETS[name].name) if root else SETS[name]
    out = []
    with open(folder / "labels.csv", newline="") as f:
        for r in csv.DictReader(f):
            digest = hashlib.sha1((folder / r["file"]).read_bytes()).hexdigest()
            out.append(RealCard(name, r["file"], r["card"], digest))
    return out


class OverlapError(ValueError):
    """A photo is both in the training and the validation list."""


def check_disjoint(train: list[RealCard], val: list[RealCard]) -> None:
    """Raise OverlapError if a validation photo is also trained on (same set and file, or the
    same bytes under another name)."""
    keys = {(c.set, c.file) for c in train}
    digests = {c.digest for c in train}
    clash = [c for c in val if (c.set, c.file) in keys or c.digest in digests]
    if clash:
        shown = ", ".join(f"{c.set}/{c.file}" for c in clash[:5])
        raise OverlapError(f"{len(clash)} validation photo(s) also in training: {shown}")


def _detector_quad(img: np.ndarray) -> np.ndarray | None:
    from vision.recognizer import CardRecognizer

    global _REC
    try:
        rec = _REC
    except NameError:
        rec = _REC = CardRecognizer.default(second_look=False)
    found = rec.detect(img)
    return max(found, key=lambda t: t[1])[0] if found else None


def photo_quad(name: str, img: np.ndarray, outline: bool = False) -> np.ndarray | None:
    """The card's corners in a photo of set `name` (None if not found). The detector's box
    of a `real-cards-2010s-mit2` card runs along its coloured field, inside the white
    border (what the classifier sees at run time); `outline`: snapped out to the card's
    own edge (what a detector must learn to box)."""
    h, w = img.shape[:2]
    if name in ("mit", "classic"):
        return np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    q = _detector_quad(img)
    if q is not None and outline:
        from vision.recognizer import refine_quad

        q = refine_quad(img, q)
    return q


def cut_out(img: np.ndarray, quad: np.ndarray, height: int = CUT_H) -> np.ndarray:
    """The card inside `quad`, straightened upright to height x (height * 56/87), as BGRA."""
    from vision.crops import CARD_ASPECT, order_portrait

    q = order_portrait(quad)
    w = int(round(height * CARD_ASPECT))
    dst = np.float32([[0, 0], [w, 0], [w, height], [0, height]])
    M = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    out = cv2.warpPerspective(
        img, M, (w, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    return np.dstack([out, np.full(out.shape[:2], 255, np.uint8)])


def load_cutouts(names: list[str], outline: bool = False) -> list[tuple[RealCard, np.ndarray]]:
    """Every card of the named sets, cut out (photos where no card is found are skipped);
    `outline`: see `photo_quad`."""
    out = []
    for name in names:
        folder = SETS[name]
        for rc in list_set(name):
            img = cv2.imread(str(folder / rc.file), cv2.IMREAD_COLOR)
            q = photo_quad(name, img, outline)
            if q is not None:
                out.append((rc, cut_out(img, q)))
    return out


def recolour(img: np.ndarray, colour: str, rng: np.random.Generator) -> np.ndarray:
    """The card's coloured ink moved to another hue of the same colour (`HUE_RANGES`): its
    saturated pixels all turned by the same amount. Wild cards and backs come back as they
    are."""
    from models.crops import HUE_RANGES

    if colour not in HUE_RANGES:
        return img
    bgr = np.ascontiguousarray(img[..., :3])
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    sat = hsv[..., 1] > 70
    if sat.sum() < 50:
        return img
    h = hsv[..., 0].astype(np.float32)
    ang = h[sat] * (np.pi / 90)
    now = float(np.degrees(np.arctan2(np.sin(ang).mean(), np.cos(ang).mean())) / 2) % 180
    lo, hi = HUE_RANGES[colour]
    delta = float(rng.uniform(lo, hi)) - now
    h[sat] = (h[sat] + delta) % 180
    hsv[..., 0] = h.astype(np.uint8)
    out = img.copy()
    out[..., :3] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.real_cards", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="all")
    ap.add_argument("--show", type=Path, required=True, help="write a contact sheet here")
    args = ap.parse_args(argv)
    cuts = load_cutouts(parse_sets(args.sets))
    tiles = [cv2.resize(c[..., :3], (62, 96)) for _, c in cuts]
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 20)
    rows = [np.hstack(tiles[i : i + 20]) for i in range(0, len(tiles), 20)]
    args.show.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.show), np.vstack(rows))
    print(f"{len(cuts)} cards cut out -> {args.show}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
