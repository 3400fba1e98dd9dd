"""Training crops: a rendered card on a table patch, seen at a slight slant, degraded like a
camera would, then cut out along a box jittered like a detector's (`synth_crop`).

The crop geometry itself (`crop_from_quad`, the classes) is the runtime's, in `vision.crops`,
so that training and run time cut cards the same way.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from models.held import room, smear
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


# Hue ranges (OpenCV units, 0..180) each colour is drawn over in training: the inks and
# cameras seen on real cards, with a margin (lime to teal greens, orange-ish reds); they do
# not overlap, so the hue still tells the colour once the light is undone.
HUE_RANGES = {"red": (-8.0, 9.0), "yellow": (18.0, 31.0), "green": (36.0, 88.0), "blue": (93.0, 116.0)}
# the hardest border, lime green against yellow: half the wide greens are drawn near it
_LIME = (36.0, 50.0)


# how far off its card the recognizer's turn search turns a box (vision.recognizer.TURN_TRIES,
# with a margin): a classifier that never saw such crops read our 7 turned 20 degrees, its
# stem upright and its bar a flag, as a TrueType 1 (models/README.md, twenty-fifth session)
BOX_TURN = (8.0, 35.0)
# how far a card seen at a strong slant (held up leaning back, or lying on a table shot from
# a seat) narrows its far side: a share cut off each end of it. The slant jitter alone moves
# each corner some 4%; such a card's rectangle box squeezed its face and the classifier
# misread a fifth of them (models/README.md, twenty-seventh session).
KEYSTONE = (0.08, 0.3)
# how much of a card a frame's edge hides where the recognizer reads it as the whole card
# grown past the edge, the part beyond filled from the edge (vision.recognizer's
# `_complete_cut`, which grows by at most the visible length: half the card). The shipped
# classifier saw only the visible part stretched; trained on a fifth of such crops, the
# cards of held-up photos zoomed into were named no better (337 of 367 either way,
# models/README.md, twenty-eighth session), so the option stays off.
FRAME_CUT = (0.1, 0.5)
# a lamp's reflection across a glossy card: a straight band GLARE_WIDTH of the card's height
# wide, burnt GLARE_STRENGTH of the way to white. The glare spot every recipe draws is soft
# and at most 0.7; held up under a strong lamp, a band washed a 9 into a 1 and an 8 into a 2.
# Trained on a fifth of such crops, cards under such glare were named 715 -> 722 of 734 (two
# draws of `tools/held_stress.py glare`), but cards zoomed into 672 -> 667 and cards leaning
# back hard 620 -> 615 (models/README.md, twenty-ninth session), so the option stays off.
GLARE_WIDTH = (0.1, 0.5)
GLARE_STRENGTH = (0.4, 0.95)

# a hand's or a laptop's shake: the card smeared along a straight line SHAKE of its height
# long (`models.held.smear`). The recipes' soft focus is round, and a smear of a tenth of the
# card runs a 3's curves into a 2 and a 7's bar into a 1's flag. Trained on a fifth of such
# crops, held-up cards meeting several hard conditions were named 4-5 more of 205 (two seeds
# of folds, `tools/held_stress.py mix`), but every seed of the recipe made up a face in 1-2
# of 100 frames with no card (an empty room read `red-1` at 0.34-0.64), which the shipped
# classifier never does (models/README.md, thirty-first session), so the option stays off.
SHAKE = (0.03, 0.15)

CLASSIC_ITALIC = 0.7  # share of classic printings in training drawn with italic digits

# TrueType faces with lining digits that matplotlib (an ultralytics dependency, so in every
# training install) ships: sans, mono, serif and typewriter, each upright, bold and leaning.
# Computer Modern's math italic (old-style digits) and the symbol fonts are left out.
TYPEFACES = (
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuSansMono-Oblique.ttf", "DejaVuSansMono-BoldOblique.ttf",
    "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf",
    "STIXGeneral.ttf", "STIXGeneralBol.ttf", "STIXGeneralItalic.ttf", "STIXGeneralBolIta.ttf",
    "cmr10.ttf", "cmb10.ttf", "cmss10.ttf", "cmti10.ttf", "cmtt10.ttf",
)


@lru_cache(maxsize=1)
def typefaces() -> tuple[str, ...]:
    """The TYPEFACES files of this install's matplotlib (training only; nothing is downloaded),
    looked up once. Raises where matplotlib or one of the files is missing: a run asked for them."""
    from pathlib import Path

    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("--typefaces needs matplotlib (pip install -e '.[train]')") from exc
    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    missing = [f for f in TYPEFACES if not (folder / f).is_file()]
    if missing:
        raise RuntimeError(f"{folder}: no {', '.join(missing)}: --typefaces needs matplotlib's own fonts")
    return tuple(str(folder / f) for f in TYPEFACES)


def corner_index(rng: np.random.Generator, p):
    """`p` with its corner index drawn as another print might: half the time hollow (the
    card's field colour in a paper rim), 0.9-1.4 times as large, a wild's oval tilted up to
    40 degrees either way (`vision.render.RenderParams.corner_rim`, `corner_scale`,
    `corner_tilt`). Every real wild corner of a print the corner reader never saw was read
    as no card or a skip (models/README.md, thirty-second session)."""
    from dataclasses import replace

    rim = float(rng.uniform(1.5, 4.0)) if rng.random() < 0.5 else 0.0
    return replace(p, corner_rim=rim, corner_scale=float(rng.uniform(0.9, 1.4)),
                   corner_tilt=float(rng.uniform(-40, 40)))


def train_params(rng: np.random.Generator, look: str | None = None, wide: float = 0.6, fonts: float = 0.0,
                 faces: float = 0.0, corners: float = 0.0):
    """A random printing for training: `random_params`, and with probability `wide` each
    colour's hue drawn over its whole HUE_RANGES (per colour, independently), saturation
    and brightness wider (faded cards); with probability `fonts` its digits set in one of
    OpenCV's vector fonts (`vision.render.DIGIT_FONTS`) instead of our own strokes: the
    corner reader trained on our strokes and two real prints read the third print's corners
    worst of all (models/README.md, twentieth session); with probability `faces` in one of
    the bold, serif and italic TrueType `typefaces` instead (twenty-second session); with
    probability `corners` its corner index drawn as other prints draw theirs (`corner_index`).
    0 draws nothing more from `rng`."""
    from dataclasses import replace

    from vision.render import BASE_BGR, COLOURS, DIGIT_FONTS, random_params

    p = random_params(rng, look)
    if p.look == "classic" and rng.random() < CLASSIC_ITALIC:
        # the real classic deck's digits lean right (its 9 read as a 5 when only upright
        # renders and no classic photo were trained on)
        p = replace(p, slant=float(rng.uniform(0.12, 0.3)))
    if fonts > 0 and rng.random() < fonts:
        p = replace(p, font=int(rng.integers(len(DIGIT_FONTS))))
    if faces > 0 and rng.random() < faces:
        files = typefaces()
        p = replace(p, typeface=files[int(rng.integers(len(files)))])
    if corners > 0 and rng.random() < corners:
        p = corner_index(rng, p)
    if rng.random() >= wide:
        return p
    own = []
    for c in COLOURS:
        base = float(cv2.cvtColor(np.uint8([[BASE_BGR[c]]]), cv2.COLOR_BGR2HSV)[0, 0, 0])
        if base > 90 and c == "red":
            base -= 180
        lo, hi = _LIME if c == "green" and rng.random() < 0.5 else HUE_RANGES[c]
        own.append(float(rng.uniform(lo, hi)) - base - p.hue_shift)
    return replace(
        p,
        colour_hue=tuple(own),
        sat_scale=float(rng.uniform(0.45, 1.3)),
        val_scale=float(rng.uniform(0.6, 1.2)),
    )


def _light_gains(rng: np.random.Generator) -> np.ndarray:
    """Per-channel (BGR) gains of the light and camera: mostly mild, often a strong warm or
    cool white balance with a green-magenta tint, and an exposure from dim to bright."""
    if rng.random() < 0.5:
        g = rng.normal(1.0, 0.11, 3)
    else:
        t = rng.uniform(-1, 1)  # -1 cool (blue), +1 warm (tungsten)
        tint = rng.normal(0, 0.08)
        g = np.array([1 - 0.45 * t, 1 + tint, 1 + 0.35 * t]) * rng.normal(1.0, 0.05, 3)
    return (g / g.max() * rng.uniform(0.35, 1.35)).astype(np.float32)


def _cover(rng, img, dst, aw, ah, cover_art, share):
    """Another card laid over `share` of this card (quad `dst`, size aw x ah), sliding in from
    one side, a little turned: a pile, or a fan that leaves one edge with its corner index."""
    H, W = img.shape[:2]
    f = ah / cover_art.shape[0] * rng.uniform(0.95, 1.05)
    other = cv2.resize(cover_art, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    oh, ow = other.shape[:2]
    side = int(rng.integers(4))  # the edge of this card it comes over: top, right, bottom, left
    out = {0: dst[0] - dst[3], 1: dst[1] - dst[0], 2: dst[3] - dst[0], 3: dst[0] - dst[1]}[side]
    span = float(np.linalg.norm(out))
    # same-size card, centre span * (1 - share) out from this one's: it covers `share` of it
    oc = dst.mean(axis=0) + out / max(span, 1e-6) * span * (1 - share)
    u = dst[1] - dst[0]
    ang = float(np.degrees(np.arctan2(u[1], u[0]))) + rng.normal(0, 8)
    M = cv2.getRotationMatrix2D((ow / 2, oh / 2), -ang, 1.0)
    M[:, 2] += oc - [ow / 2, oh / 2] + rng.normal(0, 0.04, 2) * aw
    warped = cv2.warpAffine(other, M, (W, H), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    a = warped[..., 3].astype(np.float32) / 255.0
    shadow = cv2.GaussianBlur(a, (0, 0), max(1.0, aw * 0.03))[..., None]
    a = a[..., None]
    img = img * (1 - 0.35 * shadow)
    return img * (1 - a) + warped[..., :3].astype(np.float32) * a, a[..., 0]


def _beyond_the_frame(rng: np.random.Generator, img: np.ndarray, card: np.ndarray,
                      ) -> tuple[np.ndarray, np.ndarray, float]:
    """`img` cut by a frame's edge that hides FRAME_CUT of `card` (its corners), each pixel
    beyond the edge given the edge's pixel nearest it, as a crop grown past an image's edge
    is filled (`vision.crops.crop_from_quad`, BORDER_REPLICATE); and the edge: its unit
    normal n (pointing out of the frame) and offset e (the frame is where x.n <= e). The edge
    runs along a side of the card, mostly as a card held up square to the frame is, sometimes
    aslant."""
    side = int(rng.integers(4))
    a, b = card[side], card[(side + 1) % 4]
    out = np.array([b[1] - a[1], a[0] - b[0]], np.float64)  # outward: the corners run clockwise
    turn = math.radians(rng.normal(0, 6) if rng.random() < 0.7 else rng.uniform(-45, 45))
    c, s = math.cos(turn), math.sin(turn)
    n = np.array([c * out[0] - s * out[1], s * out[0] + c * out[1]]) / max(np.linalg.norm(out), 1e-9)
    along = card @ n
    edge = along.max() - rng.uniform(*FRAME_CUT) * (along.max() - along.min())
    H, W = img.shape[:2]
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    past = np.maximum(xs * n[0] + ys * n[1] - edge, 0).astype(np.float32)
    out = cv2.remap(img, xs - past * np.float32(n[0]), ys - past * np.float32(n[1]),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out, n, float(edge)


def _glare_band(rng: np.random.Generator, card: np.ndarray, card_h: float, shape) -> np.ndarray:
    """A lamp's glare as a band across the card (through a point near its middle, at any
    angle): (H, W, 1) float, GLARE_STRENGTH on its axis, a flat top falling off softly."""
    H, W = shape
    p = card.mean(0) + rng.normal(0, 0.15, 2) * card_h
    t = rng.uniform(0, math.pi)
    half = card_h * rng.uniform(*GLARE_WIDTH) / 2
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = np.abs((xx - p[0]) * math.sin(t) - (yy - p[1]) * math.cos(t)) / half
    return (rng.uniform(*GLARE_STRENGTH) / (1 + d**4)).astype(np.float32)[..., None]


def not_a_card(rng: np.random.Generator, textures=None, shake: float = 0.0) -> np.ndarray:
    """A crop with no card in it, cut as the recognizer cuts a box the detector put on a room
    or a bare table: a room behind a held-up card (`models.held.room`) or a table texture, along
    a card-shaped box at any angle, under a cast, softened or (with probability `shake`)
    smeared, noisy, JPEG'd. Trained towards no class at all (`train-classifier --outliers`)."""
    H, W = 240, 320
    img = room(rng, H, W) if rng.random() < 0.5 else _background(rng, H, W, textures)
    if shake > 0 and rng.random() < shake:
        img = smear(img, int(rng.integers(4, 26)), rng.uniform(0, 180))
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 2.0))
    img = img * _light_gains(rng) * rng.uniform(0.5, 1.2)
    img = np.clip(img + rng.normal(0, rng.uniform(0, 8), img.shape), 0, 255).astype(np.uint8)
    _, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
    img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    h = rng.uniform(60, 200)
    centre = (rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H)
    box = cv2.boxPoints((centre, (h * CARD_ASPECT, h), rng.uniform(0, 180)))
    return crop_from_quad(img, box)


def synth_crop(
    rng: np.random.Generator,
    art: np.ndarray,
    textures=None,
    covers=None,
    cover_p: float = 0.0,
    cover_max: float = 0.7,
    cut_p: float = 0.15,
    cut_max: float = 0.15,
    detail: dict | None = None,
    box_turn: float = 0.0,
    keystone: float = 0.0,
    frame_cut: float = 0.0,
    glare_band: float = 0.0,
    shake: float = 0.0,
) -> np.ndarray:
    """One training crop from a card image (BGRA: a render, or a real card cut out): slant,
    light, blur, noise, JPEG, and a detector-like box jitter, partial occlusion and frame
    cuts. `covers` (a list of BGRA card images): with probability `cover_p` one of them is
    laid over 15%..`cover_max` of the card; with probability `cut_p` the frame's edge cuts
    up to `cut_max` of the card off one side (the box is then the visible part); with
    probability `box_turn` the box is turned BOX_TURN degrees off the card, as the
    recognizer's turn search reads it; with probability `keystone` the card is seen at a
    strong slant, its far side narrowed by KEYSTONE and the card foreshortened; with
    probability `frame_cut` the frame's edge hides FRAME_CUT of the card, the image beyond
    it filled from the edge, and the box is the whole card; with probability `glare_band` a
    lamp's glare crosses it as a band (GLARE_WIDTH, GLARE_STRENGTH); with probability `shake`
    the scene is smeared along a line SHAKE of the card's height long (the five at 0 draw
    nothing more from `rng`). `detail`
    (a dict) is filled with what the crop was cut from: `image` (the scene, BGR uint8),
    `card` (the card's true corners, clockwise from its top-left), `box` (the detector-like
    box the crop was cut along), `covered` (float mask, 1 where a card or finger lies over
    it) and `frame` (None, or the frame's edge: `_beyond_the_frame`'s normal and offset); the
    random draws are the same with it or without."""
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
    if keystone > 0 and rng.random() < keystone:
        side = int(rng.integers(4))
        a, b = dst[side].copy(), dst[(side + 1) % 4].copy()
        c, d = dst[(side + 3) % 4], dst[(side + 2) % 4]  # the near side, a's and b's opposites
        k = float(rng.uniform(*KEYSTONE))
        near = float(rng.uniform(0.75, 1.0))  # the card's depth foreshortened
        a, b = c + (a - c) * near, d + (b - d) * near
        dst[side], dst[(side + 1) % 4] = a + (b - a) * k, b + (a - b) * k
    M = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(art, M, (W, H), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    img = bg * (1 - a) + warped[..., :3].astype(np.float32) * a
    covered = np.zeros((H, W), np.float32)
    if covers and rng.random() < cover_p:
        share = float(rng.uniform(0.15, cover_max))
        img, over = _cover(rng, img, dst, aw, ah, covers[int(rng.integers(len(covers)))], share)
        covered = np.maximum(covered, over)
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
        covered = np.maximum(covered, ma[..., 0])
    # light: gradient, white balance, glare (computed small, then resized: it is smooth)
    gy, gx = np.mgrid[0:8, 0:8].astype(np.float32) / 7.0 - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    g = gx * math.cos(ang) + gy * math.sin(ang)
    light = 1 + g * rng.uniform(0, 0.6)
    if rng.random() < 0.25:
        cx0, cy0, s = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(0.1, 0.35)
        glare = np.exp(-((gx - cx0) ** 2 + (gy - cy0) ** 2) / (2 * s * s)) * rng.uniform(0.2, 0.7)
    else:
        glare = np.zeros_like(g)
    light = cv2.resize(light.astype(np.float32), (W, H))[..., None]
    glare = cv2.resize(glare.astype(np.float32), (W, H))[..., None]
    if glare_band > 0 and rng.random() < glare_band:
        glare = np.maximum(glare, _glare_band(rng, dst, ah, (H, W)))
    gains = _light_gains(rng)
    if rng.random() < 0.15:  # a faded, washed-out card: colours pulled toward grey-white
        img = img + (np.float32(rng.uniform(170, 235)) - img) * rng.uniform(0.1, 0.4)
    img = img * light * gains
    img = img + (255 * gains / gains.max() - np.clip(img, 0, 255)) * glare
    if rng.random() < 0.3:  # the camera's tone curve
        img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
    if shake > 0 and rng.random() < shake:
        img = smear(img, max(2, int(round(ah * rng.uniform(*SHAKE)))), rng.uniform(0, 180))
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    img = img + rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    frame = None
    if frame_cut > 0 and rng.random() < frame_cut:
        img, *frame = _beyond_the_frame(rng, img, dst)
    # the detector's box: min-area rectangle of the card, jittered; sometimes cut by the frame
    (cx, cy), (rw, rh), ra = cv2.minAreaRect(dst)
    s = max(rw, rh)
    cx += rng.normal(0, 0.025) * s
    cy += rng.normal(0, 0.025) * s
    rw *= rng.uniform(0.95, 1.08)
    rh *= rng.uniform(0.95, 1.08)
    ra += rng.normal(0, 2.0)
    if box_turn > 0 and rng.random() < box_turn:
        ra += float(rng.uniform(*BOX_TURN)) * (1 if rng.random() < 0.5 else -1)
    box = cv2.boxPoints(((cx, cy), (rw, rh), ra))
    if rng.random() < cut_p:  # a frame edge cuts off one side of the card, up to cut_max
        q = order_portrait(box)
        k = rng.uniform(0.0, cut_max)
        a, b, c, d = [(0, 1, 3, 2), (3, 2, 0, 1), (0, 3, 1, 2), (1, 2, 0, 3)][int(rng.integers(4))]
        q[a] += (q[c] - q[a]) * k
        q[b] += (q[d] - q[b]) * k
        box = q
    if detail is not None:
        detail.update(image=img, card=dst, box=np.asarray(box, np.float32), covered=covered, frame=frame)
    return crop_from_quad(img, box, flip=bool(rng.random() < 0.5))


__all__ = [
    "CARD_ASPECT",
    "CLASSES",
    "CROP_H",
    "CROP_W",
    "HUE_RANGES",
    "crop_from_quad",
    "not_a_card",
    "order_portrait",
    "synth_crop",
    "train_params",
    "to_input",
]
