"""Straightened card crops: the classifier's input, made the same way at train and run time.

The detector gives an oriented box (four corners). `crop_from_quad` warps it to a portrait
CROP_W x CROP_H image: the long side vertical. Which end is up stays unknown (a card turned
180 degrees gives the same box), so the classifier is trained on both.

The training crops (`models.crops.synth_crop`) are cut with the same functions.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.render import ALL_FACES, BACK, CARD_ASPECT

CROP_W, CROP_H = 64, 96

# Classifier classes: the 54 faces, then the back. Order is part of the shipped model.
CLASSES: tuple[str, ...] = (*ALL_FACES, BACK)


def order_portrait(quad: np.ndarray) -> np.ndarray:
    """Reorder 4 corners so that 0->1 is a short side and 1->2 a long side (portrait), going
    clockwise in image coordinates, starting from the corner nearest the top-left."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    # clockwise order (y grows downward): sort by angle around the centre
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    s01 = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])
    s12 = np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])
    if s01 > s12:  # 0->1 is long: start one corner later so it becomes the short top side
        q = np.roll(q, -1, axis=0)
    # of the two possible starts (180 degrees apart), take the one nearer the image top-left
    if q[0].sum() > q[2].sum():
        q = np.roll(q, 2, axis=0)
    return q


def crop_from_quad(image: np.ndarray, quad, flip: bool = False) -> np.ndarray:
    """Warp the (portrait-ordered) quad of `image` to a CROP_W x CROP_H crop."""
    q = order_portrait(quad)
    if flip:
        q = np.roll(q, 2, axis=0)
    # a big card is first cut out and shrunk with area averaging: a straight perspective warp
    # from hundreds of pixels down to 96 would alias the thin outlines
    long_side = max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[3]))
    f = CROP_H / max(long_side, 1.0)
    if f < 0.6:
        ih, iw = image.shape[:2]
        x0, y0 = (max(0, int(v) - 2) for v in q.min(axis=0))
        x1, y1 = (int(v) + 3 for v in q.max(axis=0))
        x1, y1 = min(iw, max(x1, x0 + 1)), min(ih, max(y1, y0 + 1))
        if x1 > x0 and y1 > y0:
            f2 = f * 1.5
            sub = image[y0:y1, x0:x1]
            sub = cv2.resize(
                sub,
                (max(1, round((x1 - x0) * f2)), max(1, round((y1 - y0) * f2))),
                interpolation=cv2.INTER_AREA,
            )
            sx, sy = sub.shape[1] / (x1 - x0), sub.shape[0] / (y1 - y0)
            q = (q - [x0, y0]) * [sx, sy]
            image = sub
    dst = np.float32([[0, 0], [CROP_W, 0], [CROP_W, CROP_H], [0, CROP_H]])
    M = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    return cv2.warpPerspective(
        image, M, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def to_input(crops: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops -> NCHW float32 RGB in 0..1, the classifier's input."""
    x = np.stack(crops)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


__all__ = [
    "CARD_ASPECT",
    "CLASSES",
    "CROP_H",
    "CROP_W",
    "crop_from_quad",
    "order_portrait",
    "to_input",
]
