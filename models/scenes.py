"""Synthetic photos of UNO tables with exact labels, for training the card detector.

A scene is laid out on a flat table plane (cards as rotated rectangles, stacked in order),
then seen through a random camera (a homography: top-down or oblique), then degraded like
a real camera would (light gradients, shadows, glare, blur, noise, white balance; JPEG when
saved). An id map travels with the pixels, so each label knows how much of its card is
still visible after stacking, hands and the frame edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render import ALL_FACES, BACK, CARD_ASPECT, random_params, render_back, render_card

OCCLUDER = -1  # id-map value of hands and distractors lying over cards
FLOOR = -2  # id-map value of the table itself


@dataclass(frozen=True)
class CardLabel:
    """One card in a scene.

    quad: the card's four corners in image pixels, in order top-left, top-right,
    bottom-right, bottom-left of the upright card (they may lie outside the frame).
    visible: the fraction of the card's area that is visible in the frame (0..1).
    """

    card: str
    quad: tuple[tuple[float, float], ...]
    visible: float
    index_visible: float = 0.0  # the larger visible share of its two corner indices

    def to_json(self) -> dict:
        return {
            "card": self.card,
            "quad": [[round(x, 2), round(y, 2)] for x, y in self.quad],
            "visible": round(self.visible, 4),
            "index_visible": round(self.index_visible, 4),
        }


@dataclass(frozen=True)
class SceneStyle:
    """What scenes beyond the first detector's show (issue 13: covered, cut, real cards).

    white: share of white tables (paper, a white desk); overfill: share of close-ups whose
    card runs past both ends of the frame; edge_cut: share of close-ups moved so the frame's
    edge cuts up to 40% of the card; real: real cards' photos, straightened, as
    (identifier, BGR or BGRA image), pasted in place of `real_share` of the rendered faces;
    light: share of scenes under a light the camera left as it was (`_uncorrected_light`)."""

    white: float = 0.0
    overfill: float = 0.0
    edge_cut: float = 0.0
    real: tuple = ()
    real_share: float = 0.0
    light: float = 0.0


# ----------------------------------------------------------------------------- tables
def _fbm(rng: np.random.Generator, h: int, w: int, octaves: int = 5, base: int = 4) -> np.ndarray:
    """Fractal value noise in [0, 1]: random grids resized up and summed."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        gs = base * (2**o)
        g = rng.random((gs, max(2, int(gs * w / h)))).astype(np.float32)
        out += amp * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.55
    out /= total
    return np.clip((out - out.min()) / (np.ptp(out) + 1e-6), 0, 1)


def _rand_colour(rng, lo=20, hi=235) -> np.ndarray:
    return rng.uniform(lo, hi, 3).astype(np.float32)


def make_table(rng: np.random.Generator, h: int, w: int, white: float = 0.0) -> np.ndarray:
    """A procedural table surface, BGR float32 0..255; `white`: the share of white ones."""
    if white > 0 and rng.random() < white:
        # white paper or a white table: the card's own white border meets it (real cards
        # laid out apart on white were found far less often than on a dark table)
        base = rng.uniform(205, 252) + rng.normal(0, 4, 3)
        img = base[None, None, :] + 4 * (_fbm(rng, h, w, 3, 16) - 0.5)[..., None]
        return np.clip(img, 0, 255).astype(np.float32)
    kind = rng.choice(["wood", "cloth", "felt", "laminate", "pattern", "marble", "photo"])
    if kind == "wood":
        base = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)])
        n = _fbm(rng, h, w, 4, 2)
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        freq = rng.uniform(0.02, 0.12)
        grain = 0.5 + 0.5 * np.sin(u * freq + n * rng.uniform(4, 14))
        fine = _fbm(rng, h, w, 3, 32)
        shade = 0.75 + 0.25 * grain + 0.1 * (fine - 0.5)
        img = base[None, None, :] * shade[..., None]
        if rng.random() < 0.4:  # planks
            step = int(rng.uniform(60, 200))
            for v in range(0, int(abs(u).max()) + step, step):
                img[np.abs(u - v) < 1.5] *= 0.6
    elif kind in ("cloth", "felt"):
        base = _rand_colour(rng)
        n = _fbm(rng, h, w, 3, 64) - 0.5
        amp = 25 if kind == "cloth" else 12
        img = base[None, None, :] + amp * n[..., None]
        if kind == "cloth" and rng.random() < 0.5:  # weave
            yy, xx = np.mgrid[0:h, 0:w]
            img += (8 * (((xx // 2) + (yy // 2)) % 2) - 4)[..., None]
    elif kind == "laminate":
        base = rng.uniform(120, 245) + rng.normal(0, 12, 3)
        img = base[None, None, :] + 6 * (_fbm(rng, h, w, 3, 16) - 0.5)[..., None]
    elif kind == "marble":
        base = rng.uniform(150, 240) + rng.normal(0, 8, 3)
        n = _fbm(rng, h, w, 5, 3)
        veins = np.abs(np.sin(n * rng.uniform(10, 30)))
        img = base[None, None, :] * (0.75 + 0.25 * veins)[..., None]
    elif kind == "photo":
        # a busy, colourful surface (magazine, board game box) as a hard negative
        img = np.empty((h, w, 3), np.float32)
        img[:] = _rand_colour(rng)
        for _ in range(int(rng.integers(10, 40))):
            c = tuple(float(v) for v in _rand_colour(rng))
            x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
            s = int(rng.uniform(5, min(h, w) / 4))
            if rng.random() < 0.5:
                cv2.circle(img, (x, y), s, c, -1)
            else:
                cv2.rectangle(img, (x, y), (x + s, y + int(s * rng.uniform(0.3, 2))), c, -1)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 3))
    else:  # pattern: checks, stripes, dots
        c1, c2 = _rand_colour(rng), _rand_colour(rng)
        yy, xx = np.mgrid[0:h, 0:w]
        s = int(rng.uniform(8, 60))
        p = rng.integers(3)
        if p == 0:
            m = ((xx // s + yy // s) % 2).astype(np.float32)
        elif p == 1:
            m = ((xx + yy) // s % 2).astype(np.float32)
        else:
            m = (((xx % s) - s / 2) ** 2 + ((yy % s) - s / 2) ** 2 < (s / 4) ** 2).astype(
                np.float32
            )
        m = cv2.GaussianBlur(m, (0, 0), 1.0)
        img = c1[None, None, :] * m[..., None] + c2[None, None, :] * (1 - m[..., None])
    return np.clip(img, 0, 255).astype(np.float32)


# ----------------------------------------------------------------------------- layout
@dataclass
class _Placed:
    card: str
    centre: tuple[float, float]
    height: float
    angle: float  # degrees, rotation of the upright card


def _card_quad(p: _Placed) -> np.ndarray:
    """Corners TL, TR, BR, BL of a placed card in plane coordinates."""
    h = p.height
    w = h * CARD_ASPECT
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = math.radians(p.angle)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return pts @ R.T + np.array(p.centre)


def _random_face(rng) -> str:
    return str(ALL_FACES[int(rng.integers(len(ALL_FACES)))])


def _layout_table(rng, pw: int, ph: int, ch: float) -> list[_Placed]:
    """A table in play: discard pile, draw pile, face-up rows/fans, loose cards."""
    cards: list[_Placed] = []
    # draw pile of backs
    if rng.random() < 0.7:
        cx, cy = rng.uniform(0.15, 0.85) * pw, rng.uniform(0.15, 0.85) * ph
        a0 = rng.uniform(0, 360)
        for _ in range(int(rng.integers(2, 8))):
            cards.append(
                _Placed(
                    BACK,
                    (cx + rng.normal(0, ch * 0.02), cy + rng.normal(0, ch * 0.02)),
                    ch,
                    a0 + rng.normal(0, 3),
                )
            )
    # messy discard pile: rotated faces, the top one fully visible
    if rng.random() < 0.85:
        cx, cy = rng.uniform(0.2, 0.8) * pw, rng.uniform(0.2, 0.8) * ph
        for _ in range(int(rng.integers(1, 8))):
            cards.append(
                _Placed(
                    _random_face(rng),
                    (cx + rng.normal(0, ch * 0.12), cy + rng.normal(0, ch * 0.12)),
                    ch,
                    rng.uniform(0, 360),
                )
            )
    # a hand laid face up: a row or a fan, overlapping
    for _ in range(int(rng.integers(0, 3))):
        n = int(rng.integers(2, 8))
        cx, cy = rng.uniform(0.1, 0.9) * pw, rng.uniform(0.1, 0.9) * ph
        base = rng.uniform(0, 360)
        if rng.random() < 0.5:  # row
            step = ch * CARD_ASPECT * rng.uniform(0.3, 1.1)
            a = math.radians(base)
            for i in range(n):
                off = (i - n / 2) * step
                cards.append(
                    _Placed(
                        _random_face(rng),
                        (cx + off * math.cos(a), cy + off * math.sin(a)),
                        ch,
                        base + rng.normal(0, 3),
                    )
                )
        else:  # fan around a pivot below the cards
            spread = rng.uniform(8, 20)
            for i in range(n):
                ang = base + (i - n / 2) * spread
                r = ch * 0.45
                t = math.radians(ang - 90)
                cards.append(
                    _Placed(
                        _random_face(rng), (cx + r * math.cos(t), cy + r * math.sin(t)), ch, ang
                    )
                )
    # loose cards
    for _ in range(int(rng.integers(0, 6))):
        cards.append(
            _Placed(
                _random_face(rng) if rng.random() < 0.85 else BACK,
                (rng.uniform(0, pw), rng.uniform(0, ph)),
                ch * rng.uniform(0.95, 1.05),
                rng.uniform(0, 360),
            )
        )
    return cards


def _layout_heap(rng, pw: int, ph: int, ch: float) -> list[_Placed]:
    """Cards dropped on a table as a game leaves them between rounds, or a host's photo of
    the whole table: 4-13 faces at any angle, each over those it meets, spread over a few
    card lengths (the held-out whole-table photos: most cards partly under another at
    another angle, where the table's layout has them in neat piles and rows)."""
    spread = ch * rng.uniform(0.6, 1.3)
    cx, cy = pw / 2 + rng.normal(0, pw * 0.05), ph / 2 + rng.normal(0, ph * 0.05)
    cards = [
        _Placed(_random_face(rng) if rng.random() < 0.95 else BACK,
                (cx + rng.uniform(-1, 1) * spread * 1.3, cy + rng.uniform(-1, 1) * spread),
                ch * rng.uniform(0.97, 1.03), rng.uniform(0, 360))
        for _ in range(int(rng.integers(4, 14)))
    ]
    if rng.random() < 0.3:  # the draw pile beside them
        a0, x, y = rng.uniform(0, 360), cx + spread * 2.2 * rng.choice([-1, 1]), cy
        cards[:0] = [_Placed(BACK, (x + rng.normal(0, ch * 0.02), y + rng.normal(0, ch * 0.02)),
                             ch, a0 + rng.normal(0, 3)) for _ in range(int(rng.integers(2, 6)))]
    return cards


def _draw_hand(rng, img, idmap, pw, ph, ch, anchor=None):
    """A hand and fingers (skin-toned capsules and a palm) lying over the table."""
    tone = np.array(
        [[150, 180, 225], [110, 150, 200], [80, 110, 160], [50, 75, 110], [170, 195, 235]]
    )[int(rng.integers(5))] + rng.normal(0, 10, 3)
    if anchor is None:
        anchor = (rng.uniform(0, pw), rng.uniform(0, ph))
    ang = rng.uniform(0, 2 * math.pi)
    scale = ch * rng.uniform(0.7, 1.3)
    m = np.zeros((ph, pw), np.uint8)
    px, py = anchor
    # palm, then fingers fanning out from it
    cv2.ellipse(
        m,
        (int(px), int(py)),
        (int(scale * 0.45), int(scale * 0.38)),
        math.degrees(ang),
        0,
        360,
        255,
        -1,
    )
    for k in range(int(rng.integers(1, 5))):
        fa = ang + (k - 1.5) * 0.28 + rng.normal(0, 0.08)
        length = scale * rng.uniform(0.6, 1.0)
        x0, y0 = px + math.cos(fa) * scale * 0.3, py + math.sin(fa) * scale * 0.3
        x1, y1 = x0 + math.cos(fa) * length, y0 + math.sin(fa) * length
        cv2.line(m, (int(x0), int(y0)), (int(x1), int(y1)), 255, max(3, int(scale * 0.17)))
    # an arm leaving the palm away from the fingers
    ex, ey = px - math.cos(ang) * scale * 3, py - math.sin(ang) * scale * 3
    cv2.line(m, (int(px), int(py)), (int(ex), int(ey)), 255, int(scale * 0.6))
    soft = cv2.GaussianBlur(m, (0, 0), 1.2).astype(np.float32) / 255.0
    shade = 0.8 + 0.3 * _fbm(rng, ph, pw, 2, 2)
    col = tone[None, None, :] * shade[..., None]
    img[:] = img * (1 - soft[..., None]) + col * soft[..., None]
    idmap[m > 127] = OCCLUDER


def _draw_distractor(rng, img, idmap, pw, ph, ch):
    """Phones, cups, coins: card-sized things that are not cards."""
    kind = rng.choice(["phone", "cup", "coin", "paper"])
    cx, cy = rng.uniform(0, pw), rng.uniform(0, ph)
    m = np.zeros((ph, pw), np.uint8)
    if kind == "phone":
        s = ch * rng.uniform(0.9, 1.4)
        rect = ((cx, cy), (s * 0.5, s), rng.uniform(0, 180))
        box = cv2.boxPoints(rect).astype(np.int32)
        cv2.fillPoly(m, [box], 255)
        col = rng.uniform(10, 60, 3)
    elif kind == "cup":
        r = int(ch * rng.uniform(0.3, 0.6))
        cv2.circle(m, (int(cx), int(cy)), r, 255, -1)
        col = _rand_colour(rng)
    elif kind == "coin":
        r = int(ch * rng.uniform(0.08, 0.15))
        cv2.circle(m, (int(cx), int(cy)), r, 255, -1)
        col = np.array([rng.uniform(60, 120), rng.uniform(120, 180), rng.uniform(150, 210)])
    else:  # a sheet of paper or a score pad: white rectangle, not a card
        s = ch * rng.uniform(1.3, 2.5)
        rect = ((cx, cy), (s * 0.75, s), rng.uniform(0, 180))
        cv2.fillPoly(m, [cv2.boxPoints(rect).astype(np.int32)], 255)
        col = rng.uniform(200, 250, 3)
    a = (m.astype(np.float32) / 255.0)[..., None]
    img[:] = img * (1 - a) + col[None, None, :] * a
    if kind == "cup":
        cv2.circle(img, (int(cx), int(cy)), int(ch * 0.25), tuple(float(v) * 0.6 for v in col), -1)
    idmap[m > 127] = OCCLUDER


def _paste_card(rng, img, idmap, p: _Placed, idx: int, params, art: np.ndarray | None = None):
    """Render one card (or take `art`, a real card's photo) and lay it on the plane, with a
    soft contact shadow."""
    ph, pw = img.shape[:2]
    rh = int(max(24, min(600, p.height * 1.15)))
    if art is not None:
        from vision.real_faces import round_corners

        art = round_corners(art[:, :, :3], radius=0.06)
    elif p.card == BACK:
        art = render_back(rh, rng=rng, params=params)
    else:
        art = render_card(p.card, height=rh, rng=rng, params=params)
    ah, aw = art.shape[:2]
    src = np.float32([[0, 0], [aw, 0], [aw, ah]])
    dst = _card_quad(p).astype(np.float32)[:3]
    M = cv2.getAffineTransform(src, dst)
    warped = cv2.warpAffine(art, M, (pw, ph), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3].astype(np.float32) / 255.0
    if rng.random() < 0.7:  # contact shadow: cards have thickness and lift off the table
        sh = cv2.GaussianBlur(alpha, (0, 0), max(1.0, p.height * 0.02))
        sh = np.roll(sh, (int(p.height * 0.01) + 1, int(p.height * 0.01) + 1), (0, 1))
        img *= (1 - 0.35 * sh)[..., None]
    img[:] = img * (1 - alpha[..., None]) + warped[..., :3].astype(np.float32) * alpha[..., None]
    idmap[alpha > 0.5] = idx


# ----------------------------------------------------------------------------- camera
def _camera(rng, pw, ph, out_w, out_h, closeup: bool, target: np.ndarray | None = None,
            overfill: float = 0.0, edge_cut: float = 0.0):
    """A homography from the plane to the image: a region of the table, maybe oblique.

    target: for a close-up, the quad of the card that should fill most of the frame."""
    cx, cy = pw / 2 + rng.normal(0, pw * 0.05), ph / 2 + rng.normal(0, ph * 0.05)
    rw = pw * rng.uniform(0.55, 0.9)
    if target is not None:
        bw, bh = np.ptp(target[:, 0]), np.ptp(target[:, 1])
        # the validation photos are tight crops of one card; a card held up to a webcam
        # often fills it past both ends, or is cut by one edge
        fill = rng.uniform(0.8, 1.06) if rng.random() < 1 - overfill else rng.uniform(1.06, 1.4)
        rw = max(bw / out_w, bh / out_h) / fill * out_w
        cx, cy = target.mean(axis=0) + rng.normal(0, 0.02, 2) * [bw, bh]
        if rng.random() < edge_cut:  # off-centre: up to about 40% of the card out of frame
            cx, cy = np.array([cx, cy]) + rng.uniform(-0.4, 0.4, 2) * [bw, bh]
    rh = rw * out_h / out_w
    if rh > ph * 0.95:
        rh = ph * 0.95
        rw = rh * out_w / out_h
    rot = rng.uniform(-math.pi, math.pi) if not closeup else rng.normal(0, 0.05)
    tilt = rng.uniform(0, 0.35) if rng.random() < 0.7 else 0.0  # perspective strength
    if closeup:
        tilt *= 0.3
    # the far edge of the view covers more of the table than the near edge
    corners = np.array(
        [
            [-rw / 2 * (1 + tilt), -rh / 2],
            [rw / 2 * (1 + tilt), -rh / 2],
            [rw / 2 * (1 - tilt * 0.3), rh / 2],
            [-rw / 2 * (1 - tilt * 0.3), rh / 2],
        ]
    )
    corners += rng.normal(0, rw * 0.015, corners.shape)
    R = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
    src = (corners @ R.T + np.array([cx, cy])).astype(np.float32)
    dst = np.float32([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]])
    return cv2.getPerspectiveTransform(src, dst)


# A light the camera's white balance and exposure left as it was (`SceneStyle.light`): a
# bulb's warm cast (blue LIGHT_WARM_B of red, green LIGHT_WARM_G), a cold daylight's (red
# LIGHT_COOL_R of blue, green LIGHT_COOL_G), a dim room with the exposure held (LIGHT_DARK of
# the light) or gained back up with the sensor's noise. The first detectors learnt casts of
# some 7% a channel and exposures of 0.6-1.4, and boxed no card in 17 of 367 held-up cards
# under a bulb and 30 in a dim room (`tools/held_stress.py warm,dark`; models/README.md,
# twenty-eighth session); the still photos' reader relights such photos as a second reading,
# which a lamp's white glare beside the cast defeats (its white is neutral: thirtieth session).
LIGHT_WARM_B = (0.4, 0.75)
LIGHT_WARM_G = (0.65, 0.9)
LIGHT_COOL_R = (0.55, 0.88)
LIGHT_COOL_G = (0.8, 0.97)
LIGHT_DARK = (0.15, 0.55)


def _uncorrected_light(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """`img` (float32 BGR 0..255) under a cast, or dim, or both (`SceneStyle.light`)."""
    cast, dim = rng.random() < 0.7, rng.random() < 0.45
    if not (cast or dim):
        cast = True
    if cast:
        if rng.random() < 0.6:  # warm: B, G below R
            gains = [rng.uniform(*LIGHT_WARM_B), rng.uniform(*LIGHT_WARM_G), 1.0]
        else:  # cool: R, G below B
            gains = [1.0, rng.uniform(*LIGHT_COOL_G), rng.uniform(*LIGHT_COOL_R)]
        img = img * np.float32(gains)[None, None, :] * np.float32(rng.uniform(0.85, 1.15))
    if dim:
        level = rng.uniform(*LIGHT_DARK)
        img = img * np.float32(level) + rng.normal(0, rng.uniform(1.0, 3.0), img.shape).astype(np.float32)
        if rng.random() < 0.5:  # the webcam's auto-exposure gains it back up, the noise with it
            img = img * np.float32(rng.uniform(0.6, 0.95) / level)
    return np.clip(img, 0, 255)


def _photometric(rng, img: np.ndarray, uncorrected: float = 0.0) -> np.ndarray:
    """Lighting, shadows, glare, white balance, blur, noise: a cheap camera model; `uncorrected`:
    the chance of a light the camera left uncorrected (`_uncorrected_light`; 0 draws
    nothing more)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    g = (xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a)
    light = rng.uniform(0.65, 1.2) * (1 + g * rng.uniform(0, 0.7))
    img = img * light[..., None]
    if rng.random() < 0.4:  # soft shadow of something off-frame
        m = np.zeros((h, w), np.float32)
        pts = (rng.random((5, 2)) * [w, h]).astype(np.int32)
        cv2.fillPoly(m, [cv2.convexHull(pts)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(5, 30))
        img *= (1 - rng.uniform(0.2, 0.55) * m)[..., None]
    if rng.random() < 0.3:  # specular glare
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.03, 0.2) * max(h, w)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * s * s))
        img += (255 - img) * (blob * rng.uniform(0.3, 0.8))[..., None]
    img *= rng.normal(1.0, 0.07, 3)[None, None, :]  # white balance
    img = np.clip(img, 0, 255)
    if uncorrected > 0 and rng.random() < uncorrected:
        img = _uncorrected_light(rng, img.astype(np.float32))
    r = rng.random()
    if r < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.8))
    elif r < 0.4:  # motion blur
        k = int(rng.integers(3, 9))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = cv2.warpAffine(ker, M, (k, k))
        ker /= max(ker.sum(), 1e-6)
        img = cv2.filter2D(img, -1, ker)
    img = img + rng.normal(0, rng.uniform(0, 7), img.shape).astype(np.float32)
    gamma = rng.uniform(0.8, 1.25)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** gamma
    return np.clip(img, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- scenes
KINDS = {"table": 0.6, "closeup": 0.25, "hand": 0.15}
SCENE_KINDS = ("table", "closeup", "single", "hand", "empty", "heap")


def make_scene(
    rng: np.random.Generator,
    out_size: tuple[int, int] | None = None,
    kind: str | None = None,
    kinds: dict[str, float] | None = None,
    style: SceneStyle | None = None,
) -> tuple[np.ndarray, list[CardLabel]]:
    """One synthetic photo (BGR uint8) and the label of every card at least partly in view.

    kind: 'table' (a game in play), 'closeup' (one card filling most of the frame, like the
    validation photos), 'single' (one to three mid-size cards at any angle) or 'hand' (a
    few cards held or laid close to the camera) or 'empty' (no face at all: a bare table,
    things that are not cards, sometimes a few backs; a detector's hard negatives) or 'heap'
    (4-13 cards dropped over each other at any angle: a whole table photographed). kinds:
    the mix when kind is None.
    style: the options of `SceneStyle` (None: the scenes the shipped detector trained on;
    the same seed gives the same scene as before they existed)."""
    style = style or SceneStyle()
    if kind is None:
        mix = kinds or KINDS
        names = list(mix)
        p = np.array([mix[k] for k in names], float)
        kind = str(rng.choice(names, p=p / p.sum()))
    if kind not in SCENE_KINDS:
        raise ValueError(f"unknown scene kind {kind!r}: {', '.join(SCENE_KINDS)}")
    if out_size is None:
        ratio = rng.choice([4 / 3, 16 / 9, 3 / 4, 2 / 3, 1.0])
        if kind == "closeup" and rng.random() < 0.6:
            ratio = rng.uniform(0.6, 0.75)  # portrait like a phone shot of one card
        long_side = 480
        out_w = int(long_side if ratio >= 1 else long_side * ratio)
        out_h = int(long_side / ratio if ratio >= 1 else long_side)
    else:
        out_w, out_h = out_size
    pw, ph = int(out_w * 1.6), int(out_h * 1.6)
    table = make_table(rng, ph, pw, white=style.white)
    idmap = np.full((ph, pw), FLOOR, np.int16)
    params_look = None if rng.random() < 0.5 else str(rng.choice(["classic", "2010s", "2020s"]))

    if kind == "closeup":
        ch = ph * rng.uniform(0.45, 0.62)
        ang = rng.normal(0, 4) + (rng.choice([0, 90, 180, 270]) if rng.random() < 0.3 else 0)
        if out_w > out_h and rng.random() < 0.5:
            ang += 90
        cards = [
            _Placed(
                _random_face(rng) if rng.random() < 0.95 else BACK,
                (pw / 2 + rng.normal(0, pw * 0.03), ph / 2 + rng.normal(0, ph * 0.03)),
                ch,
                ang,
            )
        ]
    elif kind == "single":
        # one to three mid-size cards at any angle, as when a card is held up or lies near
        # the camera: big enough to show detail, not filling the frame
        ch = ph * rng.uniform(0.22, 0.45)
        cards = [
            _Placed(
                _random_face(rng) if rng.random() < 0.9 else BACK,
                (pw * rng.uniform(0.3, 0.7), ph * rng.uniform(0.3, 0.7)),
                ch,
                rng.uniform(0, 360),
            )
            for _ in range(int(rng.integers(1, 4)))
        ]
    elif kind == "hand":
        ch = ph * rng.uniform(0.25, 0.45)
        n = int(rng.integers(2, 7))
        cx, cy = pw * rng.uniform(0.3, 0.7), ph * rng.uniform(0.4, 0.8)
        base = rng.uniform(-30, 30) + (180 if rng.random() < 0.3 else 0)
        spread = rng.uniform(5, 18)
        face = rng.random() < 0.7
        cards = []
        for i in range(n):
            a = base + (i - n / 2) * spread
            t = math.radians(a - 90)
            r = ch * 0.5
            cards.append(
                _Placed(
                    _random_face(rng) if face else BACK,
                    (cx + r * math.cos(t), cy + r * math.sin(t)),
                    ch,
                    a,
                )
            )
    elif kind == "empty":
        # a detector that made up faces on a bare table or a photo of backs learnt that
        # every scene holds a face: these scenes hold none
        ch = ph * rng.uniform(0.1, 0.4)
        cards = [
            _Placed(BACK, (pw * rng.uniform(0.2, 0.8), ph * rng.uniform(0.2, 0.8)), ch,
                    rng.uniform(0, 360))
            for _ in range(int(rng.integers(1, 4)) if rng.random() < 0.4 else 0)
        ]
    elif kind == "heap":
        ch = ph * rng.uniform(0.13, 0.24)
        cards = _layout_heap(rng, pw, ph, ch)
    else:
        ch = ph * rng.uniform(0.1, 0.28)
        cards = _layout_table(rng, pw, ph, ch)

    img = table
    n_distract = int(rng.integers(0, 3))  # drawn for every kind: old seeds rebuild the same
    if kind == "empty":
        n_distract = int(rng.integers(1, 5))
    for _ in range(n_distract if kind in ("table", "empty", "heap") else 0):
        _draw_distractor(rng, img, idmap, pw, ph, ch)
    idmap[:] = FLOOR  # distractors under the cards hide nothing
    for i, p in enumerate(cards):
        params = random_params(rng, params_look)
        art = None
        if style.real and p.card != BACK and rng.random() < style.real_share:
            p.card, art = style.real[int(rng.integers(len(style.real)))]
        _paste_card(rng, img, idmap, p, i, params, art)
    if kind in ("table", "heap") and rng.random() < 0.5:
        _draw_distractor(rng, img, idmap, pw, ph, ch)
    if rng.random() < (0.5 if kind != "closeup" else 0.25):
        anchor = None
        if kind == "hand":
            anchor = (cards[len(cards) // 2].centre[0], cards[len(cards) // 2].centre[1] + ch * 0.6)
        elif kind == "closeup" and rng.random() < 0.7:
            # a thumb at the edge of a close-up card, as when someone holds it up
            side = rng.integers(4)
            q = _card_quad(cards[0])
            e = (q[side] + q[(side + 1) % 4]) / 2
            anchor = (float(e[0]), float(e[1]))
        _draw_hand(rng, img, idmap, pw, ph, ch * (0.5 if kind == "closeup" else 1.0), anchor)

    target = _card_quad(cards[0]) if kind == "closeup" else None
    H = _camera(rng, pw, ph, out_w, out_h, closeup=kind == "closeup", target=target,
                overfill=style.overfill, edge_cut=style.edge_cut)
    out = cv2.warpPerspective(
        img, H, (out_w, out_h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT
    )
    ids = cv2.warpPerspective(idmap, H, (out_w, out_h), flags=cv2.INTER_NEAREST, borderValue=FLOOR)
    counts = np.bincount((ids[ids >= 0]).ravel(), minlength=len(cards))
    labels = []
    for i, p in enumerate(cards):
        q = cv2.perspectiveTransform(_card_quad(p).reshape(1, 4, 2).astype(np.float32), H)[0]
        area = abs(cv2.contourArea(q))
        if area < 1:
            continue
        vis = float(min(1.0, counts[i] / area))
        if vis <= 0.01:
            continue
        labels.append(CardLabel(p.card, tuple((float(x), float(y)) for x, y in q), vis,
                                _index_visible(ids, i, q)))
    return _photometric(rng, out, style.light), labels


# the two corner indices of an upright card, in card units (0..1 across, 0..1 down)
_INDEX_CORNERS = (((0.04, 0.03), (0.30, 0.25)), ((0.70, 0.75), (0.96, 0.97)))


def _index_visible(ids: np.ndarray, idx: int, quad: np.ndarray) -> float:
    """The larger visible share of the card's two corner indices (people read a fan by them)."""
    h, w = ids.shape
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    M = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32))
    best = 0.0
    for (u0, v0), (u1, v1) in _INDEX_CORNERS:
        poly = cv2.perspectiveTransform(np.float32([[[u0, v0], [u1, v0], [u1, v1], [u0, v1]]]), M)[0]
        area = abs(cv2.contourArea(poly))
        if area < 1:
            continue
        x0, y0 = np.floor(poly.min(axis=0)).astype(int)
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int)
        cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1 + 1), min(h, y1 + 1)
        if cx1 <= cx0 or cy1 <= cy0:
            continue
        mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(poly - [cx0, cy0]).astype(np.int32), 1)
        seen = int(np.count_nonzero(mask & (ids[cy0:cy1, cx0:cx1] == idx)))
        best = max(best, min(1.0, seen / area))
    return best


def yolo_obb_line(label: CardLabel, w: int, h: int, cls: int = 0) -> str | None:
    """The YOLO-OBB label of a card: the min-area box of its quad clipped to the frame.

    Returns None when too little of the card lies inside the frame."""
    q = np.array(label.quad, np.float32)
    frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    inter_area, inter = cv2.intersectConvexConvex(q, frame)
    if inter is None or inter_area < 16:
        return None
    rect = cv2.minAreaRect(inter.reshape(-1, 2))
    pts = cv2.boxPoints(rect)
    pts[:, 0] = np.clip(pts[:, 0], 0, w) / w
    pts[:, 1] = np.clip(pts[:, 1], 0, h) / h
    return f"{cls} " + " ".join(f"{v:.5f}" for v in pts.ravel())
