"""One card held up to a laptop's webcam, in front of a room: the held-out webcam photos of
the real-cards issue (models/README.md, issue 13) lost most cards for want of a box, and
every other measurement here lays its cards on a table. A person's face and shoulders,
walls, shelves and posters stand behind the card; a hand's fingers come over one edge; the
card leans towards or away from the lens; a lamp's glare crosses it, a window behind it
leaves it dark, a hand's shake smears it; the webcam blurs, casts, darkens, adds noise and
JPEG. Drawn from a seed, nothing learnt from it (`python -m models evaluate --only held`)."""

from __future__ import annotations

import math

import cv2
import numpy as np

SKIN = ((150, 180, 225), (110, 150, 200), (80, 110, 160), (50, 75, 110))  # BGR


def room(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A room behind the card, out of focus: a lit wall, furniture and posters as blocks of
    colour, often the person holding the card (head, hair, shoulders). Float BGR."""
    img = np.ones((h, w, 3), np.float32) * np.float32(rng.uniform(60, 230, 3))
    img *= np.linspace(rng.uniform(0.7, 1.1), rng.uniform(0.7, 1.1), h, dtype=np.float32)[:, None, None]
    for _ in range(int(rng.integers(2, 7))):
        x0, y0 = rng.uniform(-0.2, 1.0) * w, rng.uniform(-0.2, 1.0) * h
        x1, y1 = x0 + rng.uniform(0.1, 0.6) * w, y0 + rng.uniform(0.1, 0.6) * h
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), rng.uniform(0, 255, 3).tolist(), -1)
    if rng.random() < 0.7:
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.25, 0.5) * h
        cv2.ellipse(img, (int(cx), int(cy + h * 0.55)), (int(w * 0.35), int(h * 0.3)), 0, 0, 360,
                    rng.uniform(0, 255, 3).tolist(), -1)
        cv2.ellipse(img, (int(cx), int(cy)), (int(h * 0.17), int(h * 0.23)), 0, 0, 360,
                    SKIN[int(rng.integers(len(SKIN)))], -1)
        cv2.ellipse(img, (int(cx), int(cy - h * 0.1)), (int(h * 0.19), int(h * 0.16)), 0, 180, 360,
                    rng.uniform(0, 80, 3).tolist(), -1)
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(2, 6))


def smear(img: np.ndarray, length: int, degrees: float) -> np.ndarray:
    """`img` smeared along a straight line `length` pixels long at `degrees`, as a hand's
    shake smears a photo."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), degrees, 1.0)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    return cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))


def lamp_glare(rng: np.random.Generator, img: np.ndarray, strength=(0.5, 0.9)) -> np.ndarray:
    """`img` crossed by a lamp's glare stronger than `held_scene`'s: a soft band 10-30% of
    its height wide through its middle at any angle, a share drawn from `strength` of the way
    to white at its core."""
    h, w = img.shape[:2]
    band = np.zeros((h, w), np.float32)
    p = np.float32([w, h]) * rng.uniform(0.35, 0.65, 2)
    t = rng.uniform(0, np.pi)
    d = np.float32([np.cos(t), np.sin(t)]) * w
    cv2.line(band, tuple(int(v) for v in p - d), tuple(int(v) for v in p + d), 1.0, int(h * rng.uniform(0.1, 0.3)))
    band = cv2.GaussianBlur(band, (0, 0), h * 0.05)[..., None] * rng.uniform(*strength)
    return np.clip(img * (1 - band) + 255 * band, 0, 255).astype(np.uint8)


def held_scene(rng: np.random.Generator, art: np.ndarray, size=(640, 480)) -> tuple[np.ndarray, np.ndarray]:
    """`art` (a card, BGRA) held up before the room (`room`): 45-100% of the frame's height
    (so sometimes cut by its edge), turned up to about 25 degrees, leaning, fingers over an
    edge (most often the bottom one), seen through a cheap webcam. Returns (BGR image, the
    card's quad in it)."""
    w_img, h_img = size
    img = room(rng, h_img, w_img)
    ah, aw = art.shape[:2]
    h = h_img * rng.uniform(0.45, 1.0)
    w = h * aw / ah
    centre = np.array([w_img / 2, h_img / 2]) + rng.uniform(-0.15, 0.15, 2) * [w_img, h_img]
    ang = math.radians(rng.normal(0, 12))
    lean = rng.uniform(-0.12, 0.12, 2)  # one side nearer the lens than the other
    base = np.float32([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    base *= 1 + base[:, :1] / w * lean[0] * 2 + base[:, 1:] / h * lean[1] * 2
    turn = np.float32([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    quad = (base @ turn.T + centre).astype(np.float32)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [aw, 0], [aw, ah], [0, ah]]), quad)
    warped = cv2.warpPerspective(art, m, (w_img, h_img), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4].astype(np.float32) / 255
    img = img * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha
    # the fingers holding it: from beyond an edge onto the card's face
    mask = np.zeros((h_img, w_img), np.uint8)
    side = int(rng.integers(4)) if rng.random() < 0.4 else 2
    e0, e1 = quad[side], quad[(side + 1) % 4]
    inward = quad.mean(axis=0) - (e0 + e1) / 2
    inward /= np.linalg.norm(inward) + 1e-6
    finger = max(3, int(w * rng.uniform(0.12, 0.2)))
    for t in rng.uniform(0.15, 0.85, int(rng.integers(1, 4))):
        p = e0 + (e1 - e0) * t
        cv2.line(mask, tuple(int(v) for v in p - inward * finger * 3),
                 tuple(int(v) for v in p + inward * finger * rng.uniform(0.3, 1.3)), 255, finger)
    g = cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32)[..., None] / 255
    img = img * (1 - g) + np.float32(SKIN[int(rng.integers(len(SKIN)))]) * rng.uniform(0.8, 1.1) * g
    if rng.random() < 0.3:  # a lamp's glare: a soft bright band across the card
        glare = np.zeros((h_img, w_img), np.float32)
        p = quad.mean(axis=0) + rng.uniform(-0.3, 0.3, 2) * [w, h]
        t = rng.uniform(0, math.pi)
        d = np.float32([math.cos(t), math.sin(t)]) * w_img
        cv2.line(glare, tuple(int(v) for v in p - d), tuple(int(v) for v in p + d), 1.0, int(w * rng.uniform(0.1, 0.4)))
        glare = cv2.GaussianBlur(glare, (0, 0), w * 0.08)[..., None] * alpha * rng.uniform(0.3, 0.7)
        img = img * (1 - glare) + 255 * glare
    if rng.random() < 0.25:  # a window behind: the room burns out and the card goes dark
        img = np.where(alpha > 0.5, img * rng.uniform(0.45, 0.7), np.minimum(255, img * 0.4 + 160))
    if rng.random() < 0.3:  # the hand shakes: a straight smear
        img = smear(img, int(rng.integers(5, 14)), rng.uniform(0, 180))
    # the webcam: its white balance and exposure, soft focus, sensor noise, JPEG
    img *= np.float32(rng.uniform(0.85, 1.15, 3)) * rng.uniform(0.6, 1.2)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    img += rng.normal(0, rng.uniform(2, 8), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    _, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 85))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR), quad
