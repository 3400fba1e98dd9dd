"""Card faces cut from real photos, for the simulated table (`SimTable(faces=...)`).

A folder of photos of single cards, each photo cropped to its card (the whole photo is the
card, like `real-cards-mit` and `real-cards-classic-apache`), with a `labels.csv` of
`file,card`. Each photo becomes an upright BGRA card image with rounded corners; a face
photographed several times gives several images, and the table picks one per card.

Keep these photos apart from the ones the shipped classifier trained on when measuring
(models/README.md says which trained what), or the figure is not a measure on real
appearance but a memory test.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import cv2
import numpy as np

_REPO = Path(__file__).resolve().parent.parent
DEFAULT_FACES = "real-cards-mit"


def shared_data() -> Path:
    """The shared photo sets' folder: $UNO_TABLE_SHARED_DATA, else the first of
    ../shared/data beside the repository, shared/data inside it, /work/shared/data that
    exists (the first, even if missing, so a message can name where it looked)."""
    env = os.environ.get("UNO_TABLE_SHARED_DATA")
    if env:
        return Path(env)
    roots = (_REPO.parent / "shared" / "data", _REPO / "shared" / "data", Path("/work/shared/data"))
    return next((r for r in roots if r.is_dir()), roots[0])


def faces_dir(name_or_path: str | os.PathLike | None = None) -> Path:
    """A faces folder: a path, a set name under `shared_data()`, or None / "real"
    for $UNO_TABLE_FACES or DEFAULT_FACES."""
    if name_or_path is not None and Path(name_or_path).is_dir():
        return Path(name_or_path)
    if name_or_path in (None, "real"):
        name_or_path = os.environ.get("UNO_TABLE_FACES") or DEFAULT_FACES
    root = shared_data()
    if (root / str(name_or_path)).is_dir():
        return root / str(name_or_path)
    raise FileNotFoundError(f"no faces folder {str(name_or_path)!r} (a path, or a set under {root})")


def round_corners(img: np.ndarray, radius: float = 0.07) -> np.ndarray:
    """A card photo cut straight (BGR) as BGRA, its corners rounded like the card's."""
    h, w = img.shape[:2]
    r = max(1, int(round(radius * w)))
    a = np.zeros((h, w), np.uint8)
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return np.dstack([img, a])


def load_faces(
    folder: str | os.PathLike | None = None, exclude: set[str] | frozenset[str] = frozenset()
) -> dict[str, list[np.ndarray]]:
    """card id -> upright BGRA images cut from the photos of `folder` (files in `exclude`
    left out). Landscape photos are turned upright."""
    folder = faces_dir(folder)
    faces: dict[str, list[np.ndarray]] = {}
    with open(folder / "labels.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["file"] in exclude:
                continue
            img = cv2.imread(str(folder / row["file"]), cv2.IMREAD_COLOR)
            if img is None:
                continue
            if img.shape[1] > img.shape[0]:
                img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
            faces.setdefault(row["card"], []).append(round_corners(img))
    if not faces:
        raise FileNotFoundError(f"{folder}: no labelled photos")
    return faces
