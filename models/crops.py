"""Training crops: a rendered card on a table patch, seen at a slight slant, degraded like a
camera would, then cut out along a box jittered like a detector's (`synth_crop`).

The crop geometry itself (`crop_from_quad`, the classes) is the runtime's, in `vision.crops`,
so that training and run time cut cards the same way.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.crops import (
    CARD_ASPECT,
    CLASSES,
    CROP_H,
    CROP_W,
    crop_from_quad,
    order_portrait,
    to_input,
)


def _background(rng: np.random.Generator, h: int, w: int, textures: list[np.ndarray] | None):
    if textures and rng.random() < 0.8:
        t = textures[int(rng.integers(len(textures)))]
        th, tw = t.shape[:2]
        if th < h or tw < w:
            t = cv2.resize(t, (max(w, tw), max(h, th)))
            th, tw = t.shape[:2]
        y, x = int(rng.integers(0, th - h + 1)), int(rng.integers(0, tw - w + 1))
        return t[y : y + h, x : x + w].astype(np.float32)
    return np.full((h, w, 3), rng.uniform(0, 255, 3), np.float32)


def synth_crop(rng: np.random.Generator, art: np.ndarray, textures=None) -> np.ndarray:
    """One training crop from a rendered card (BGRA): slant, light, blur, noise, JPEG, and a
    detector-like box jitter, partial occlusion and frame cuts."""
    # work at the size the camera saw the card: 50-170 px tall, like a webcam table frame
    # or a close-up shot scaled down by the crop
    th = rng.uniform(50, 170)
    f = th / art.shape[0]
    art = cv2.resize(art, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    ah, aw = art.shape[:2]
    pad = int(ah * 0.3)
    H, W = ah + 2 * pad, aw + 2 * pad
    bg = _background(rng, H, W, textures)
    # the card seen at a slant: each corner moved a little
    src = np.float32([[0, 0], [aw, 0], [aw, ah], [0, ah]])
    j = rng.normal(0, 0.04, (4, 2)) * [aw, ah] if rng.random() < 0.8 else np.zeros((4, 2))
    dst = (src + pad + j).astype(np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(art, M, (W, H), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    img = bg * (1 - a) + warped[..., :3].astype(np.float32) * a
    if rng.random() < 0.2:  # a finger or thumb over part of the card
        m = np.zeros((H, W), np.uint8)
        side = rng.integers(4)
        e = (dst[side] + dst[(side + 1) % 4]) / 2
        tip = e + rng.normal(0, 0.12, 2) * [aw, ah]
        cv2.line(
            m,
            tuple(int(v) for v in e),
            tuple(int(v) for v in tip),
            255,
            max(2, int(aw * rng.uniform(0.15, 0.3))),
        )
        tone = np.array([[150, 180, 225], [110, 150, 200], [60, 90, 130]], np.float32)
        ma = (cv2.GaussianBlur(m, (0, 0), 1.0).astype(np.float32) / 255.0)[..., None]
        img = img * (1 - ma) + tone[rng.integers(3)] * ma
    # light: gradient, white balance, glare (computed small, then resized: it is smooth)
    gy, gx = np.mgrid[0:8, 0:8].astype(np.float32) / 7.0 - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    g = gx * math.cos(ang) + gy * math.sin(ang)
    light = rng.uniform(0.6, 1.25) * (1 + g * rng.uniform(0, 0.6))
    if rng.random() < 0.25:
        cx0, cy0, s = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(0.1, 0.35)
        glare = np.exp(-((gx - cx0) ** 2 + (gy - cy0) ** 2) / (2 * s * s)) * rng.uniform(0.2, 0.7)
    else:
        glare = np.zeros_like(g)
    light = cv2.resize(light.astype(np.float32), (W, H))[..., None]
    glare = cv2.resize(glare.astype(np.float32), (W, H))[..., None]
    img = img * light * rng.normal(1.0, 0.11, 3).astype(np.float32)
    img = img + (255 - np.clip(img, 0, 255)) * glare
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    img = img + rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    # the detector's box: min-area rectangle of the card, jittered; sometimes cut by the frame
    (cx, cy), (rw, rh), ra = cv2.minAreaRect(dst)
    s = max(rw, rh)
    cx += rng.normal(0, 0.025) * s
    cy += rng.normal(0, 0.025) * s
    rw *= rng.uniform(0.95, 1.08)
    rh *= rng.uniform(0.95, 1.08)
    ra += rng.normal(0, 2.0)
    box = cv2.boxPoints(((cx, cy), (rw, rh), ra))
    if rng.random() < 0.15:  # a frame edge cuts off one end of the card
        q = order_portrait(box)
        k = rng.uniform(0.0, 0.15)
        if rng.random() < 0.5:
            q[0] += (q[3] - q[0]) * k
            q[1] += (q[2] - q[1]) * k
        else:
            q[3] += (q[0] - q[3]) * k
            q[2] += (q[1] - q[2]) * k
        box = q
    return crop_from_quad(img, box, flip=bool(rng.random() < 0.5))


__all__ = [
    "CARD_ASPECT",
    "CLASSES",
    "CROP_H",
    "CROP_W",
    "crop_from_quad",
    "order_portrait",
    "synth_crop",
    "to_input",
]
