"""Heavy augmentations of one enrolled card, as a table camera will see it.

The source is the card straightened from its photo with a margin of the table around it
(`source`). Each augmentation moves a detector-like box over it (turned, shifted, scaled,
corners jittered, either end up), shrinks the card to a table camera's size, re-lights it
(gain, gamma, a light gradient, glare, a shadow; a little white-balance drift, not more:
the light's colour is what the deck learns), covers a part with a finger, blurs, adds noise
and JPEG, then cuts the classifier's crop exactly as the recognizer does (`crop_from_quad`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.crops import crop_from_quad, order_portrait

MARGIN = 0.18  # of the card's size, each side
SOURCE_H = 224  # card height in the source image
SKIN = [(170, 190, 235), (140, 170, 225), (110, 140, 200), (80, 110, 170), (55, 80, 125)]


def source(image: np.ndarray, quad: np.ndarray, h: int = SOURCE_H) -> tuple[np.ndarray, np.ndarray]:
    """The card straightened with a margin around it: (image, the card's quad in it)."""
    q = order_portrait(quad).astype(np.float32)
    w = int(round(h * 64 / 96))
    mx, my = MARGIN * w, MARGIN * h
    W, H = int(round(w + 2 * mx)), int(round(h + 2 * my))
    card = np.float32([[mx, my], [mx + w, my], [mx + w, my + h], [mx, my + h]])
    M = cv2.getPerspectiveTransform(q, card)
    out = cv2.warpPerspective(image, M, (W, H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return out, card


def _jitter_quad(card: np.ndarray, rng: np.random.Generator, strength: float) -> np.ndarray:
    """A detector's box for the card: mostly close, sometimes turned and shifted well off
    (on a whole photo the detector's angle can be 10-20 degrees out)."""
    c = card.mean(axis=0)
    size = np.linalg.norm(card[2] - card[1])
    wide = 2.5 if rng.random() < 0.3 else 1.0
    ang = math.radians(rng.normal(0, 4 * strength * wide))
    s = 1.0 + rng.normal(0, 0.035 * strength * wide)
    ca, sa = math.cos(ang), math.sin(ang)
    R = np.float32([[ca, -sa], [sa, ca]]) * s
    q = (card - c) @ R.T + c + rng.normal(0, 0.03 * strength * wide, 2) * size
    q += rng.normal(0, 0.012 * strength, (4, 2)) * size
    return q.astype(np.float32)


def augment(src: np.ndarray, card: np.ndarray, rng: np.random.Generator, strength: float = 1.0,
            turned: bool | None = None) -> np.ndarray:
    """One 96x64 classifier crop of the card (BGR uint8). strength 0: only the crop.
    turned: the crop's top is the card's bottom (None: either, at random)."""
    H, W = src.shape[:2]
    quad = _jitter_quad(card, rng, strength)
    # first the card as small as a table camera sees it (long side 45..200 px): every later
    # step works on few pixels
    long_px = rng.uniform(45, 200) if strength > 0 else 120.0
    f = long_px / max(1.0, float(np.linalg.norm(card[2] - card[1])))
    w, h = max(8, int(W * f)), max(8, int(H * f))
    small = cv2.resize(src, (w, h), interpolation=cv2.INTER_AREA)
    quad = quad * np.float32([w / W, h / H])
    if strength > 0:
        # another table around the card: the photo's own table must not tell cards apart
        inside = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(inside, np.round(card * np.float32([w / W, h / H])).astype(np.int32), 255)
        inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
        table = np.empty_like(small)
        table[:] = rng.integers(20, 200, 3).astype(np.uint8)
        tex = rng.standard_normal((h // 8 + 2, w // 8 + 2), dtype=np.float32) * rng.uniform(0, 18)
        tex = cv2.resize(tex, (w, h), interpolation=cv2.INTER_LINEAR)
        table = np.clip(table.astype(np.float32) + tex[..., None], 0, 255).astype(np.uint8)
        small = np.where(inside[..., None] > 0, small, table)
        # light: gain, a gradient across the card, a mild white-balance drift, gamma
        gx, gy = rng.normal(0, 0.25 * strength, 2)
        ramp = 1 + gx * (np.arange(w, dtype=np.float32) / w - 0.5)[None, :] \
            + gy * (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
        gain = np.float32(rng.uniform(0.7, 1.25) * (1 + rng.normal(0, 0.04 * strength, 3)))
        img = small * (ramp[..., None] * gain)
        lut = np.clip(255.0 * (np.arange(256) / 255.0) ** rng.uniform(0.75, 1.35), 0, 255).astype(np.uint8)
        img = cv2.LUT(np.clip(img, 0, 255).astype(np.uint8), lut).astype(np.float32)
        if rng.random() < 0.3 * strength:  # glare: a soft bright band
            yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
            a = rng.uniform(0, math.pi)
            d = (xx / w - rng.uniform(0.2, 0.8)) * math.cos(a) + (yy / h - rng.uniform(0.2, 0.8)) * math.sin(a)
            band = np.exp(-(d ** 2) / (2 * rng.uniform(0.03, 0.1) ** 2)) * rng.uniform(0.2, 0.6)
            img += band[..., None] * (255 - img)
        if rng.random() < 0.3 * strength:  # a shadow over part of the card
            m = np.zeros((h, w), np.float32)
            pts = (rng.uniform(0, 1, (4, 2)) * [w, h]).astype(np.int32)
            cv2.fillConvexPoly(m, cv2.convexHull(pts), 1.0)
            m = cv2.GaussianBlur(m, (0, 0), w * 0.05 + 0.5)
            img *= (1 - rng.uniform(0.2, 0.5) * m)[..., None]
        if rng.random() < 0.25 * strength:  # a finger over an edge
            m = np.zeros((h, w), np.uint8)
            edge = rng.integers(4)
            t = rng.uniform(0.2, 0.8)
            cx, cy = [(t * w, 0), (w, t * h), (t * w, h), (0, t * h)][edge]
            axes = (int(w * rng.uniform(0.08, 0.14)) + 1, int(h * rng.uniform(0.15, 0.3)) + 1)
            cv2.ellipse(m, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
            a = (m.astype(np.float32) / 255.0)[..., None]
            img = img * (1 - a) + np.float32(SKIN[int(rng.integers(len(SKIN)))]) * a
        small = np.clip(img, 0, 255).astype(np.uint8)
        r = rng.random()
        if r < 0.35:
            small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.3) * strength + 0.01)
        elif r < 0.45:
            k = int(rng.integers(3, 6))
            kern = np.zeros((k, k), np.float32)
            kern[k // 2, :] = 1.0 / k
            M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
            kern = cv2.warpAffine(kern, M, (k, k))
            small = cv2.filter2D(small, -1, kern / max(float(kern.sum()), 1e-6))
        sigma = rng.uniform(0, 6) * strength
        if sigma > 1:
            noise = rng.standard_normal(small.shape, dtype=np.float32) * np.float32(sigma)
            small = np.clip(small + noise, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 95))])
        small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    # either end up: a card lies any way round on the table. The crop's own ordering of the
    # corners (order_portrait) starts near the image's top-left: the source is upright, so
    # the box's top stays the card's top unless turned
    if turned is None:
        turned = bool(rng.random() < 0.5)
    return crop_from_quad(small, quad, flip=turned)





# ------------------------------------------------------------------------ scenes
def card_art(src: np.ndarray, card: np.ndarray) -> np.ndarray:
    """The card alone (BGRA, rounded corners) from a `source` image."""
    x0, y0 = np.round(card[0]).astype(int)
    x1, y1 = np.round(card[2]).astype(int)
    art = src[y0:y1, x0:x1]
    h, w = art.shape[:2]
    alpha = np.zeros((h, w), np.uint8)
    r = max(2, int(0.07 * w))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    return np.dstack([art, alpha])


def _card_quad(cx: float, cy: float, card_h: float, angle: float) -> np.ndarray:
    hw, hh = card_h * 64 / 96 / 2, card_h / 2
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    return np.float32([(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))])


def scene(arts: list[np.ndarray], labels: list[int], target: int, rng: np.random.Generator):
    """A small table scene around card `target` (an index into arts): the target on top of
    a pile of 0-3 other cards of the deck, sometimes more cards around, seen at a table
    camera's size, re-lit, blurred, noisy, JPEG. Returns (BGR scene, [(label, quad,
    visible share)] top card first)."""
    side_per_card = rng.uniform(2.0, 4.5)
    card_h = min(rng.uniform(60, 170), 480 / side_per_card)  # a zone crop: the detector sees it at 320
    side = int(card_h * side_per_card)
    img = np.empty((side, side, 3), np.uint8)
    img[:] = rng.integers(20, 180, 3).astype(np.uint8)
    tex = cv2.resize(rng.standard_normal((side // 12 + 2, side // 12 + 2), dtype=np.float32), (side, side))
    img = np.clip(img + tex[..., None] * rng.uniform(0, 15), 0, 255).astype(np.uint8)
    c = side / 2
    placed = []
    others = [int(i) for i in rng.choice(len(arts), size=int(rng.integers(0, 5)), replace=True)]
    for k, i in enumerate(others):
        if k < 3 and rng.random() < 0.7:  # under the target, on the pile
            pos = (c + rng.normal(0, 0.15) * card_h, c + rng.normal(0, 0.15) * card_h)
        else:  # elsewhere in the scene
            pos = (rng.uniform(0.1, 0.9) * side, rng.uniform(0.1, 0.9) * side)
        placed.append((i, _card_quad(*pos, card_h * rng.uniform(0.97, 1.03), rng.uniform(0, 360))))
    pos = (c + rng.normal(0, 0.08) * card_h, c + rng.normal(0, 0.08) * card_h)
    placed.append((target, _card_quad(*pos, card_h, rng.uniform(0, 360))))
    from vision.decks.looks import paste

    for i, q in placed:
        paste(img, arts[i], q)
    # what shows of each card: its own mask less those above it
    cover = np.zeros((side, side), np.uint8)
    truth = []
    for i, q in reversed(placed):
        m = np.zeros((side, side), np.uint8)
        cv2.fillConvexPoly(m, np.round(q).astype(np.int32), 255)
        area = max(1, int(np.count_nonzero(m)))
        seen = int(np.count_nonzero(m & ~cover))
        cover |= m
        truth.append((labels[i], q, seen / area))
    # light and camera
    img = img.astype(np.float32)
    gx, gy = rng.normal(0, 0.2, 2)
    ramp = 1 + gx * (np.arange(side, dtype=np.float32) / side - 0.5)[None, :] \
        + gy * (np.arange(side, dtype=np.float32) / side - 0.5)[:, None]
    img *= (ramp * rng.uniform(0.75, 1.2))[..., None] * np.float32(1 + rng.normal(0, 0.04, 3))
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    sigma = rng.uniform(0, 5)
    if sigma > 1:
        img = np.clip(img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(sigma), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), truth


def scene_crops(arts: list[np.ndarray], labels: list[int], recognizer, per_card: int, rng: np.random.Generator,
                progress=None) -> tuple[list[np.ndarray], list[int], list[bool]]:
    """Crops of the deck's cards as the table's own detector boxes them in small scenes
    (its real box errors: turned, shifted, pulled toward a neighbour), labelled by the card
    each box found, and whether the crop shows the card turned (its top the art's bottom).
    Cards less than 70% visible are not labelled."""
    crops, ys, turns = [], [], []
    for t in range(len(arts)):
        for _ in range(per_card):
            img, truth = scene(arts, labels, t, rng)
            for q, _s in recognizer.detect(img):
                q = order_portrait(q)
                c = q.mean(axis=0)
                size = float(np.linalg.norm(q[0] - q[2]))
                for label, tq, seen in truth:  # top first: the surest owner of the box
                    if np.linalg.norm(tq.mean(axis=0) - c) < 0.25 * size:
                        if seen >= 0.7:
                            flip = bool(rng.random() < 0.5)
                            top = (q[2] + q[3]) / 2 if flip else (q[0] + q[1]) / 2
                            turned = np.linalg.norm(top - (tq[2] + tq[3]) / 2) < np.linalg.norm(top - (tq[0] + tq[1]) / 2)
                            crops.append(crop_from_quad(img, q, flip=flip))
                            ys.append(label)
                            turns.append(bool(turned))
                        break
            if progress is not None:
                progress.update(1)
    return crops, ys, turns
__all__ = ["augment", "card_art", "scene", "scene_crops", "source"]
