"""This camera's and this light's four card colours, learnt from the enrolled cards.

Each enrolled coloured card shows its colour over most of its face: its median saturated
pixel is that colour as this camera sees it under this light. With the paper white of the
borders (and the black of the wild cards) that gives up to six reference colours, each
with the colour the generic classifier learnt it as (the renderer's `BASE_BGR`, paper and
black). An affine colour map (3x4, RGB, 0..1), fitted by least squares and pulled toward
"no change", takes one to the other; the deck's classifier applies it to every crop first.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.render import BASE_BGR, COLOURS

PAPER_BGR = (0.96 * 255, 0.97 * 255, 0.97 * 255)
BLACK_BGR = BASE_BGR["black"]
IDENTITY = np.hstack([np.eye(3, dtype=np.float32), np.zeros((3, 1), np.float32)])


def _inner(crop: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Pixels of the band between `lo` and `hi` (fractions of the width) in from the edge."""
    h, w = crop.shape[:2]
    m = np.zeros((h, w), bool)
    a, b = int(round(lo * w)), int(round(hi * w))
    m[a:h - a, a:w - a] = True
    if b > a:
        m[b:h - b, b:w - b] = False
    return crop[m]


def card_colour(crop: np.ndarray) -> np.ndarray | None:
    """The BGR colour of a card's coloured field (median of its saturated pixels)."""
    px = _inner(crop, 0.1, 0.1).reshape(-1, 3)
    hsv = cv2.cvtColor(px[None].astype(np.uint8), cv2.COLOR_BGR2HSV)[0]
    sat = px[(hsv[:, 1] > 90) & (hsv[:, 2] > 50)]
    if len(sat) < 0.1 * len(px):
        return None
    return np.median(sat, axis=0).astype(np.float32)


def paper_colour(crop: np.ndarray) -> np.ndarray | None:
    """The white border's colour (bright, unsaturated pixels near the edge)."""
    px = _inner(crop, 0.015, 0.06).reshape(-1, 3)
    hsv = cv2.cvtColor(px[None].astype(np.uint8), cv2.COLOR_BGR2HSV)[0]
    v = hsv[:, 2].astype(np.float32)
    keep = px[(hsv[:, 1] < 80) & (v >= np.percentile(v, 40))]
    return np.median(keep, axis=0).astype(np.float32) if len(keep) else None


def dark_colour(crop: np.ndarray) -> np.ndarray | None:
    """A wild card's black field (dark, unsaturated pixels inside the border)."""
    px = _inner(crop, 0.1, 0.1).reshape(-1, 3)
    hsv = cv2.cvtColor(px[None].astype(np.uint8), cv2.COLOR_BGR2HSV)[0]
    keep = px[hsv[:, 2] <= np.percentile(hsv[:, 2], 25)]
    return np.median(keep, axis=0).astype(np.float32) if len(keep) else None


def measure(crops: list[np.ndarray], names: list[str]) -> dict[str, list[float]]:
    """Reference colours (BGR 0..255) of this deck under this light, from its named crops."""
    found: dict[str, list[np.ndarray]] = {}
    for crop, name in zip(crops, names, strict=True):
        colour = name.split("-")[0]
        if colour in COLOURS:
            c = card_colour(crop)
            if c is not None:
                found.setdefault(colour, []).append(c)
        elif name.startswith("wild"):
            d = dark_colour(crop)
            if d is not None:
                found.setdefault("black", []).append(d)
        p = paper_colour(crop)
        if p is not None:
            found.setdefault("paper", []).append(p)
    return {k: [float(x) for x in np.median(np.stack(v), axis=0)] for k, v in found.items() if v}


def target(key: str) -> np.ndarray:
    if key == "paper":
        return np.float32(PAPER_BGR)
    if key == "black":
        return np.float32(BLACK_BGR)
    return np.float32(BASE_BGR[key])


def fit_map(measured: dict[str, list[float]], ridge: float = 0.05) -> np.ndarray:
    """The 3x4 affine map (RGB, 0..1) from this deck's colours to the learnt ones. With too
    few references (under four) it stays the identity."""
    keys = [k for k in (*COLOURS, "paper", "black") if k in measured]
    if len(keys) < 4:
        return IDENTITY.copy()
    src = np.stack([np.float32(measured[k])[::-1] / 255.0 for k in keys])  # RGB
    dst = np.stack([target(k)[::-1] / 255.0 for k in keys])
    x = np.hstack([src, np.ones((len(keys), 1), np.float32)])  # (k, 4)
    # least squares with a pull toward the identity: min |x M^T - dst|^2 + ridge |M - I|^2
    a = x.T @ x + ridge * np.eye(4, dtype=np.float32)
    b = x.T @ dst + ridge * IDENTITY.T
    m = np.linalg.solve(a, b).T.astype(np.float32)  # (3, 4)
    return m


def apply_map(crops_bgr: list[np.ndarray] | np.ndarray, m: np.ndarray) -> list[np.ndarray]:
    """The map applied to BGR uint8 images (for looking at it; the ONNX model does it too)."""
    out = []
    for c in crops_bgr:
        rgb = c[..., ::-1].astype(np.float32) / 255.0
        y = rgb @ m[:, :3].T + m[:, 3]
        out.append(np.clip(y[..., ::-1] * 255.0 + 0.5, 0, 255).astype(np.uint8))
    return out


__all__ = ["IDENTITY", "apply_map", "fit_map", "measure"]
