"""Our own artwork of every UNO face, drawn with OpenCV and numpy (no fonts, no downloads).

Three looks that real decks on tables have (issue 4):
- ``classic``: a solid white ellipse tilted across the card, the glyph in the card colour
  with a black outline, white corner indices;
- ``2010s``: the card colour all over with a thin white ellipse outline, a white glyph with a
  black outline and an offset black shadow (the look of the 70 real validation photos);
- ``2020s``: a large white circle with fine radial lines, a bold glyph in the card colour
  with a dark drop shadow.

Digits and symbols are stroke/polygon skeletons in a unit box, drawn thick with round caps:
that gives the bold, rounded sans-serif of the printed cards, and lets the weight vary.
Every random choice comes from one ``numpy.random.Generator``, so a seed fixes the card.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

COLOURS = ("red", "yellow", "green", "blue")
RANKS = tuple(str(i) for i in range(10)) + ("skip", "reverse", "draw2")
ALL_FACES: tuple[str, ...] = tuple(f"{c}-{r}" for c in COLOURS for r in RANKS) + (
    "wild",
    "wild-draw4",
)
BACK = "back"
LOOKS = ("classic", "2010s", "2020s")
CARD_ASPECT = 56.0 / 87.0  # width / height of a real UNO card

# Card colours (BGR) measured by eye on the 2010s photos, before per-card jitter.
BASE_BGR = {
    "red": (50, 60, 225),
    "yellow": (45, 210, 245),
    "green": (75, 160, 60),
    "blue": (215, 145, 20),
    "black": (25, 25, 25),
}

Point = tuple[float, float]


# ----------------------------------------------------------------------------- geometry
def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 28):
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * math.cos(a), cy + ry * math.sin(a)) for a in t]


def _bezier(p0: Point, p1: Point, p2: Point, n: int = 16):
    out = []
    for t in np.linspace(0.0, 1.0, n):
        u = 1.0 - t
        out.append(
            (
                u * u * p0[0] + 2 * u * t * p1[0] + t * t * p2[0],
                u * u * p0[1] + 2 * u * t * p1[1] + t * t * p2[1],
            )
        )
    return out


# Digit skeletons in a unit box (x across the glyph width, y down its height).
_DIGITS: dict[str, list[list[Point]]] = {
    "0": [_arc(0.5, 0.5, 0.33, 0.38, 0, 360, 40)],
    "1": [[(0.28, 0.28), (0.58, 0.12), (0.58, 0.88)]],
    "2": [_arc(0.5, 0.33, 0.31, 0.21, 195, 375) + [(0.17, 0.88), (0.86, 0.88)]],
    "3": [_arc(0.48, 0.3, 0.29, 0.18, 192, 450), _arc(0.48, 0.69, 0.33, 0.19, 270, 528)],
    "4": [[(0.68, 0.88), (0.68, 0.12), (0.14, 0.66), (0.88, 0.66)]],
    "5": [[(0.8, 0.12), (0.3, 0.12), (0.23, 0.5)] + _arc(0.5, 0.64, 0.32, 0.24, 215, 505)],
    "6": [
        _arc(0.5, 0.645, 0.33, 0.245, 0, 360, 40),
        _bezier((0.17, 0.645), (0.16, 0.12), (0.7, 0.11)),
    ],
    "7": [[(0.14, 0.12), (0.86, 0.12), (0.42, 0.88)]],
    "8": [_arc(0.5, 0.3, 0.26, 0.18, 0, 360, 36), _arc(0.5, 0.69, 0.32, 0.2, 0, 360, 40)],
}
# the printed 9 is not quite a turned 6: its stem runs straight down the right side before
# the tail curls in under the loop
_DIGITS["9"] = [
    _arc(0.5, 0.37, 0.34, 0.27, 0, 360, 40),
    [(0.84, 0.37), (0.84, 0.62)] + _bezier((0.84, 0.62), (0.83, 0.9), (0.4, 0.9)),
]
_PLUS = [[(0.1, 0.5), (0.9, 0.5)], [(0.5, 0.15), (0.5, 0.85)]]


def _arrow(cx: float, cy: float, angle: float, length: float, shaft: float, head: float):
    """A filled arrow polygon pointing along `angle` (degrees, image coordinates)."""
    hl = length * 0.42
    pts = [
        (-length / 2, -shaft / 2),
        (length / 2 - hl, -shaft / 2),
        (length / 2 - hl, -head / 2),
        (length / 2, 0.0),
        (length / 2 - hl, head / 2),
        (length / 2 - hl, shaft / 2),
        (-length / 2, shaft / 2),
    ]
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    return [(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in pts]


# ----------------------------------------------------------------------------- parameters
# OpenCV's built-in vector fonts (no font files, nothing downloaded), upright and leaning
DIGIT_FONTS = tuple(
    f | italic
    for f in (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX)
    for italic in (0, cv2.FONT_ITALIC)
)


@dataclass(frozen=True)
class RenderParams:
    """Everything that varies between two printings of the same face."""

    look: str = "2010s"
    hue_shift: float = 0.0  # OpenCV hue units (0..180 circle)
    sat_scale: float = 1.0
    val_scale: float = 1.0
    border: float = 0.055  # white border, fraction of card width
    corner_radius: float = 0.08  # fraction of card width
    stroke: float = 1.0  # glyph weight multiplier
    glyph_scale: float = 1.0
    outline: float = 1.0  # black outline thickness multiplier
    shadow: float = 1.0  # shadow offset multiplier
    ellipse_angle: float = 32.0  # degrees, tilt of the ellipse (top leans right)
    ellipse_line: float = 0.028  # thin ellipse outline, fraction of width (2010s)
    wear: float = 0.0  # 0..1 scratches and scuffs
    gloss: float = 0.0  # 0..1 specular band strength
    gloss_pos: float = 0.5
    gloss_angle: float = 30.0
    paper_tint: tuple[float, float, float] = (0.0, 0.0, 0.0)  # BGR offset of the white parts
    # each colour's own hue offset (OpenCV hue units, in COLOURS order), on top of hue_shift:
    # printings and cameras differ per ink (a lime or teal green, an orange-ish red)
    colour_hue: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    # italic digits (the classic deck prints its numbers leaning right): the glyph's top is
    # moved right by this share of its height relative to its middle; 0 upright
    slant: float = 0.0
    # the digits' typeface: -1 our own strokes (every printing the table and the evaluations
    # draw); else an index into DIGIT_FONTS, OpenCV's own vector fonts (training only: a print
    # nobody here has seen sets its digits in a face of its own, models/README.md)
    font: int = -1
    # or a TrueType file the digits are set in (training only: `models.crops.typefaces`
    # lists the bold and italic faces a pip install brings; the vector fonts above are thin
    # strokes beside a printed UNO digit, models/README.md); empty: `font` decides
    typeface: str = ""
    # the corner index as other prints draw it (training only: `models.crops.train_params`;
    # a real 2010s wild's "+4" is a hollow glyph in a white rim, its oval tilted in a white
    # ring and larger than ours, and the corner reader that never saw one read none of them,
    # models/README.md): rim > 0 paints the index in its card's own field colour inside a
    # paper rim this many times the outline's width; scale sizes it; tilt turns a wild's
    # corner oval by this many degrees
    corner_rim: float = 0.0
    corner_scale: float = 1.0
    corner_tilt: float = 0.0

    def __post_init__(self) -> None:
        if self.look not in LOOKS:
            raise ValueError(f"unknown look {self.look!r}: expected one of {', '.join(LOOKS)}")
        if not -1 <= self.font < len(DIGIT_FONTS):
            raise ValueError(f"font {self.font}: expected -1 (our strokes) or 0..{len(DIGIT_FONTS) - 1}")
        if self.typeface and not os.path.isfile(self.typeface):
            raise ValueError(f"typeface {self.typeface!r}: no such TrueType file")
        if not 0 <= self.corner_rim <= 6:
            raise ValueError(f"corner_rim {self.corner_rim}: expected 0 (as printed) to 6")
        if not 0.5 <= self.corner_scale <= 2:
            raise ValueError(f"corner_scale {self.corner_scale}: expected 0.5 to 2")
        if not -90 <= self.corner_tilt <= 90:
            raise ValueError(f"corner_tilt {self.corner_tilt}: expected -90 to 90 degrees")


def random_params(rng: np.random.Generator, look: str | None = None) -> RenderParams:
    """Draw a plausible printing: mostly 2010s (the look of the validation photos)."""
    if look is None:
        look = str(rng.choice(LOOKS, p=[0.2, 0.6, 0.2]))
    return RenderParams(
        look=look,
        hue_shift=float(rng.normal(0, 3.0)),
        sat_scale=float(np.clip(rng.normal(1.0, 0.12), 0.6, 1.3)),
        val_scale=float(np.clip(rng.normal(1.0, 0.1), 0.7, 1.2)),
        border=float(rng.uniform(0.04, 0.09)),
        corner_radius=float(rng.uniform(0.05, 0.11)),
        stroke=float(rng.uniform(0.85, 1.2)),
        glyph_scale=float(rng.uniform(0.92, 1.12)),
        outline=float(rng.uniform(0.7, 1.3)),
        shadow=float(rng.uniform(0.5, 1.5)),
        ellipse_angle=float(rng.uniform(25, 38)),
        ellipse_line=float(rng.uniform(0.018, 0.04)),
        wear=float(rng.uniform(0, 1) ** 2),
        gloss=float(rng.uniform(0, 1) ** 2 * 0.35),
        gloss_pos=float(rng.uniform(0.1, 0.9)),
        gloss_angle=float(rng.uniform(0, 180)),
        paper_tint=tuple(float(v) for v in rng.normal(0, 6, 3)),
    )


def _resolve(params, look, seed, rng) -> tuple[RenderParams, np.random.Generator | None]:
    if rng is None and seed is not None:
        rng = np.random.default_rng(seed)
    if params is None:
        params = random_params(rng, look) if rng is not None else RenderParams(look=look or "2010s")
    elif look is not None and look != params.look:
        params = replace(params, look=look)
    return params, rng


def _colour(name: str, p: RenderParams) -> np.ndarray:
    bgr = np.uint8([[BASE_BGR[name]]])
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).astype(np.float32)[0, 0]
    if name != "black":
        own = p.colour_hue[COLOURS.index(name)] if name in COLOURS else 0.0
        hsv[0] = (hsv[0] + p.hue_shift + own) % 180
        hsv[1] = np.clip(hsv[1] * p.sat_scale, 0, 255)
    hsv[2] = np.clip(hsv[2] * p.val_scale, 0, 255)
    out = cv2.cvtColor(hsv.astype(np.uint8)[None, None], cv2.COLOR_HSV2BGR)[0, 0]
    return out.astype(np.float32) / 255.0


# ----------------------------------------------------------------------------- drawing
class _Canvas:
    """A float BGR card image plus helpers to paint masks onto it."""

    def __init__(self, h: int, w: int):
        self.h, self.w = h, w
        self.img = np.ones((h, w, 3), np.float32)

    def paint(self, mask: np.ndarray, colour) -> None:
        a = (mask.astype(np.float32) / 255.0)[..., None]
        self.img *= 1.0 - a
        self.img += a * np.asarray(colour, np.float32)

    def mask(self) -> np.ndarray:
        return np.zeros((self.h, self.w), np.uint8)


def _to_px(pts, box) -> np.ndarray:
    x0, y0, bw, bh = box
    return np.array([[x0 + x * bw, y0 + y * bh] for x, y in pts], np.float32)


def _draw_strokes(mask: np.ndarray, strokes, box, thick: float) -> None:
    sh = 4  # fixed-point sub-pixel bits for smooth curves at small sizes
    t = max(1, int(round(thick)))
    for s in strokes:
        pts = np.round(_to_px(s, box) * (1 << sh)).astype(np.int32)
        cv2.polylines(mask, [pts], False, 255, t, cv2.LINE_AA, sh)


def _fill_poly(mask: np.ndarray, poly, box) -> None:
    sh = 4
    pts = np.round(_to_px(poly, box) * (1 << sh)).astype(np.int32)
    cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, sh)


def _rounded_rect(mask: np.ndarray, x0, y0, x1, y1, r, value=255) -> None:
    r = max(1, int(round(r)))
    x0, y0, x1, y1 = (int(round(v)) for v in (x0, y0, x1, y1))
    r = min(r, (x1 - x0) // 2, (y1 - y0) // 2)
    cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), value, -1)
    cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), value, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(mask, (cx, cy), r, value, -1, cv2.LINE_AA)


def _draw_digit(mask: np.ndarray, digit: str, box, weight: float, font: int, typeface: str = "") -> None:
    """`digit` in the box, `weight` px thick: our own strokes (font -1), else OpenCV vector
    font DIGIT_FONTS[font] filling the box's height (its width as the face's own proportions
    give it, centred in the box); a `typeface` (a TrueType file) before either."""
    if typeface:
        _draw_truetype(mask, digit, box, weight, typeface)
        return
    if font < 0:
        _draw_strokes(mask, _DIGITS[digit], box, weight)
        return
    x0, y0, bw, bh = box
    face = DIGIT_FONTS[font]
    t = max(1, int(round(weight)))
    (tw, th), _ = cv2.getTextSize(digit, face, 1.0, 1)
    scale = max(0.1, (bh - weight) / th)
    (tw, th), _ = cv2.getTextSize(digit, face, scale, t)
    org = (int(round(x0 + (bw - tw) / 2)), int(round(y0 + (bh + th) / 2)))
    cv2.putText(mask, digit, org, face, scale, 255, t, cv2.LINE_AA)


@lru_cache(maxsize=256)
def _truetype_glyph(digit: str, typeface: str, px: int) -> np.ndarray:
    """`digit` in the TrueType file `typeface`, about `px` high: its ink alone, uint8."""
    from PIL import Image, ImageDraw, ImageFont

    face = ImageFont.truetype(typeface, px)
    x0, y0, x1, y1 = face.getbbox(digit)
    img = Image.new("L", (x1 - x0 + 2, y1 - y0 + 2), 0)
    ImageDraw.Draw(img).text((1 - x0, 1 - y0), digit, fill=255, font=face)
    return np.asarray(img)


def _draw_truetype(mask: np.ndarray, digit: str, box, weight: float, typeface: str) -> None:
    """`digit` set in `typeface` filling the box's height (its own width, centred), made
    bolder where the stroke asked for is heavier than the face's own."""
    x0, y0, bw, bh = box
    h = max(4, int(round(bh - weight * 0.5)))
    ink = _truetype_glyph(digit, typeface, max(8, h * 2))
    w = max(2, int(round(ink.shape[1] * h / ink.shape[0])))
    glyph = cv2.resize(ink, (w, h), interpolation=cv2.INTER_AREA)
    # a face's stroke is about a tenth of its height (bold: a seventh); UNO's are heavier
    grow = int(round(weight - h * 0.12)) // 2
    if grow > 0:
        glyph = cv2.dilate(glyph, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    left, top = int(round(x0 + (bw - w) / 2)), int(round(y0 + (bh - h) / 2))
    H, W = mask.shape[:2]
    ys, xs = slice(max(0, top), min(H, top + h)), slice(max(0, left), min(W, left + w))
    part = glyph[ys.start - top: ys.stop - top, xs.start - left: xs.stop - left]
    mask[ys, xs] = np.maximum(mask[ys, xs], part)


def _glyph_layers(canvas: _Canvas, rank: str, box, weight: float, small: bool, slant: float = 0.0,
                  font: int = -1, typeface: str = "", tilt: float = 0.0):
    """Masks (drawn in order, each gets outline + fill) for one glyph in a box.

    Returns a list of (mask, fill_key) where fill_key is 'fg' (the glyph colour) or a
    colour name for the multi-coloured Wild Draw Four cards."""
    x0, y0, bw, bh = box
    layers = []
    if rank in _DIGITS or rank in ("+2", "+4"):
        m = canvas.mask()
        if rank in ("+2", "+4"):
            # "+" then the digit, side by side, in the box
            _draw_strokes(m, _PLUS, (x0, y0 + bh * 0.2, bw * 0.42, bh * 0.6), weight * 0.8)
            _draw_digit(m, rank[1], (x0 + bw * 0.42, y0, bw * 0.58, bh), weight, font, typeface)
        elif rank in ("6", "9"):
            _draw_digit(m, rank, (x0, y0 - bh * 0.06, bw, bh * 0.95), weight, font, typeface)
            _draw_strokes(m, [[(0.14, 1.03), (0.86, 1.03)]], (x0, y0, bw, bh), weight * 0.6)
        else:
            _draw_digit(m, rank, box, weight, font, typeface)
        if slant:
            shear = np.float32([[1, -slant, slant * (y0 + bh / 2)], [0, 1, 0]])
            m = cv2.warpAffine(m, shear, (canvas.w, canvas.h), flags=cv2.INTER_LINEAR)
        layers.append((m, "fg"))
    elif rank == "skip":
        m = canvas.mask()
        _draw_strokes(m, [_arc(0.5, 0.5, 0.36, 0.36, 0, 360, 48)], box, weight)
        p0 = (0.5 + 0.36 * math.cos(math.radians(150)), 0.5 + 0.36 * math.sin(math.radians(150)))
        p1 = (0.5 + 0.36 * math.cos(math.radians(330)), 0.5 + 0.36 * math.sin(math.radians(330)))
        _draw_strokes(m, [[p0, p1]], box, weight)
        layers.append((m, "fg"))
    elif rank == "reverse":
        # two arrows on parallel diagonals (up-right above, down-left below), their tails
        # bent toward each other into the S of the printed card
        for tip, base, shaft in (
            ((0.82, 0.14), (0.64, 0.32), [(0.66, 0.3), (0.43, 0.53), (0.6, 0.53)]),
            ((0.18, 0.86), (0.36, 0.68), [(0.34, 0.7), (0.57, 0.47), (0.4, 0.47)]),
        ):
            m = canvas.mask()
            dx, dy = tip[0] - base[0], tip[1] - base[1]
            n = math.hypot(dx, dy)
            px, py = -dy / n * 0.19, dx / n * 0.19
            _fill_poly(m, [tip, (base[0] + px, base[1] + py), (base[0] - px, base[1] - py)], box)
            _draw_strokes(m, [shaft], box, weight * 1.05)
            layers.append((m, "fg"))
    elif rank == "draw2":
        for rx0, ry0 in ((0.46, 0.12), (0.2, 0.38)):
            m = canvas.mask()
            px0, py0 = x0 + rx0 * bw, y0 + ry0 * bh
            _rounded_rect(m, px0, py0, px0 + 0.34 * bw, py0 + 0.48 * bh, 0.05 * bw)
            layers.append((m, "fg"))
    elif rank == "draw4":
        for name, rx0, ry0 in (
            ("green", 0.52, 0.1),
            ("red", 0.3, 0.25),
            ("blue", 0.45, 0.42),
            ("yellow", 0.15, 0.52),
        ):
            m = canvas.mask()
            px0, py0 = x0 + rx0 * bw, y0 + ry0 * bh
            _rounded_rect(m, px0, py0, px0 + 0.3 * bw, py0 + 0.4 * bh, 0.04 * bw)
            layers.append((m, name))
    elif rank == "wildcircle":
        for i, name in enumerate(("red", "blue", "green", "yellow")):
            m = canvas.mask()
            c = (int(x0 + bw / 2), int(y0 + bh / 2))
            cv2.ellipse(
                m,
                c,
                (int(bw / 2 * (0.8 if tilt else 1.0)), int(bh / 2)),  # a tilted oval is a long one
                tilt,
                180 + 90 * i,
                270 + 90 * i,
                255,
                -1,
                cv2.LINE_AA,
            )
            layers.append((m, name))
    else:
        raise ValueError(f"no glyph for {rank!r}")
    return layers


def _composite_glyph(canvas, layers, fg, p: RenderParams, unit: float, style: str, cols, rim=None):
    """Paint glyph layers with a black outline and a shadow, per the look's style; rim:
    (colour, width in outlines): instead, one black outline round all the layers together and
    a ring of that colour round it, no shadow (a hollow corner index)."""
    out_px = max(1, int(round(unit * 0.016 * p.outline)))
    sh = unit * 0.022 * p.shadow
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * out_px + 1, 2 * out_px + 1))
    black = (0.05, 0.05, 0.05)
    if rim is not None:  # one rim and one outline round the whole glyph (a wild's oval, not its quarters)
        whole = cv2.dilate(np.max([m for m, _ in layers], axis=0), k)
        r = max(1, int(round(out_px * rim[1])))
        canvas.paint(cv2.dilate(whole, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))), rim[0])
        canvas.paint(whole, black)
        for m, key in layers:
            canvas.paint(m, fg if key == "fg" else cols[key])
        return
    for m, key in layers:
        col = fg if key == "fg" else cols[key]
        outline = cv2.dilate(m, k)
        if style in ("outline_shadow", "drop_shadow"):
            dx, dy = (-sh, sh) if style == "outline_shadow" else (sh * 0.6, sh * 0.9)
            M = np.float32([[1, 0, dx], [0, 1, dy]])
            shadow = cv2.warpAffine(
                outline if style == "outline_shadow" else m, M, (canvas.w, canvas.h)
            )
            if style == "drop_shadow":
                shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.5, unit * 0.012))
            canvas.paint(shadow, black if style == "outline_shadow" else (0.1, 0.1, 0.12))
        # drop-shadow glyphs get a paper-coloured rim so stacked layers stay apart
        canvas.paint(outline, black if style != "drop_shadow" else (0.96, 0.97, 0.97))
        canvas.paint(m, col)


def _glyph_box(rank: str, cx: float, cy: float, height: float):
    """The unit box for a glyph of a given height centred at (cx, cy)."""
    aspect = {
        "skip": 1.0,
        "reverse": 1.0,
        "draw2": 0.9,
        "draw4": 1.0,
        "wildcircle": 0.75,
        "+2": 1.05,
        "+4": 1.05,
    }.get(rank, 0.68)
    bw = height * aspect
    return (cx - bw / 2, cy - height / 2, bw, height)


def _rank_of(card_id: str) -> tuple[str, str]:
    """(colour, rank) of a face; wilds get colour 'black'."""
    if card_id == "wild":
        return "black", "wild"
    if card_id == "wild-draw4":
        return "black", "draw4"
    colour, _, rank = card_id.partition("-")
    if colour not in COLOURS or rank not in RANKS:
        raise ValueError(
            f"unknown card {card_id!r}: expected one of the 54 faces like 'red-7', "
            "'blue-skip', 'wild-draw4' (or 'back')"
        )
    return colour, rank


def _corner_rank(colour: str, rank: str) -> str:
    return {"draw2": "+2", "draw4": "+4", "wild": "wildcircle"}.get(rank, rank)


def _draw_wild_text(canvas: _Canvas, cx: float, cy: float, width: float, cols, unit, p):
    """'WILD' in four colours, white outline and a black extruded shadow, tilted up."""
    h, w = canvas.h, canvas.w
    letters = [("W", "red"), ("I", "yellow"), ("L", "green"), ("D", "blue")]
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = width / 260.0 * 2.4
    th = max(2, int(round(width * 0.06 * p.stroke)))
    sizes = [cv2.getTextSize(ch, font, scale, th)[0] for ch, _ in letters]
    total = sum(s[0] for s in sizes) + th * 3
    x = cx - total / 2
    base = cy + sizes[0][1] / 2
    masks = []
    for (ch, col), (tw, _) in zip(letters, sizes, strict=True):
        m = canvas.mask()
        cv2.putText(m, ch, (int(x), int(base)), font, scale, 255, th, cv2.LINE_AA)
        masks.append((m, col))
        x += tw + th
    # tilt the word up to the right, like the printed card
    R = cv2.getRotationMatrix2D((cx, cy), 18, 1.0)
    R[0, 1] -= 0.18  # slant: a touch of italic
    R[0, 2] += 0.18 * cy
    masks = [(cv2.warpAffine(m, R, (w, h)), col) for m, col in masks]
    union = np.max([m for m, _ in masks], axis=0)
    k = max(1, int(round(unit * 0.035)))
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    white = cv2.dilate(union, ker)
    ext = canvas.mask()
    for i in range(1, 5):  # extrusion down-left
        M = np.float32([[1, 0, -i * unit * 0.012], [0, 1, i * unit * 0.018]])
        ext = np.maximum(ext, cv2.warpAffine(cv2.dilate(white, ker), M, (w, h)))
    canvas.paint(ext, (0.05, 0.05, 0.05))
    canvas.paint(white, (1, 1, 1))
    for m, col in masks:
        canvas.paint(m, cols[col])


def render_card(
    card_id: str,
    look: str | None = None,
    height: int = 256,
    *,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    params: RenderParams | None = None,
) -> np.ndarray:
    """One card face as a BGRA image (alpha: the rounded card shape), portrait, upright.

    With no seed, rng or params, the canonical printing of the look (default 2010s); with a
    seed or rng, a random printing drawn from it (same seed, same pixels)."""
    if card_id == BACK:
        return render_back(height=height, seed=seed, rng=rng, params=params)
    colour, rank = _rank_of(card_id)
    p, rng = _resolve(params, look, seed, rng)
    if height < 16:
        raise ValueError(f"height {height} too small: at least 16 pixels")
    h = int(height)
    w = int(round(h * CARD_ASPECT))
    cols = {c: _colour(c, p) for c in (*COLOURS, "black")}
    paper = np.clip(np.array([0.96, 0.97, 0.97]) + np.array(p.paper_tint) / 255.0, 0, 1)
    base = cols[colour]
    cv_ = _Canvas(h, w)
    cv_.img[:] = paper
    unit = float(w)  # all sizes scale with the card width

    # inner coloured field inside the white border
    b = p.border * w
    field = cv_.mask()
    _rounded_rect(field, b, b, w - 1 - b, h - 1 - b, p.corner_radius * w * 0.7)
    cv_.paint(field, base)
    cx, cy = w / 2, h / 2
    eax, eay = int(w * 0.40), int(h * 0.47)
    wild = rank in ("wild", "draw4")

    if p.look != "2020s":
        if rank == "wild":
            for i, name in enumerate(("blue", "green", "yellow", "red")):
                m = cv_.mask()
                cv2.ellipse(
                    m,
                    (int(cx), int(cy)),
                    (eax, eay),
                    p.ellipse_angle,
                    -90 + 90 * i,
                    90 * i,
                    255,
                    -1,
                    cv2.LINE_AA,
                )
                cv_.paint(cv2.bitwise_and(m, field), cols[name])
        elif rank == "draw4" or p.look == "classic":
            m = cv_.mask()
            cv2.ellipse(
                m, (int(cx), int(cy)), (eax, eay), p.ellipse_angle, 0, 360, 255, -1, cv2.LINE_AA
            )
            cv_.paint(cv2.bitwise_and(m, field), paper)
        if p.look == "2010s" and rank != "draw4":
            m = cv_.mask()
            cv2.ellipse(
                m,
                (int(cx), int(cy)),
                (eax, eay),
                p.ellipse_angle,
                0,
                360,
                255,
                max(1, int(round(p.ellipse_line * w))),
                cv2.LINE_AA,
            )
            cv_.paint(cv2.bitwise_and(m, field), paper)
        classic = p.look == "classic" and not wild
        style = "outline" if classic else "outline_shadow"
        fg = base if classic else paper
    else:  # 2020s: white circle with fine radial lines
        r = int(w * 0.41)
        m = cv_.mask()
        cv2.circle(m, (int(cx), int(cy)), r, 255, -1, cv2.LINE_AA)
        cv_.paint(m, paper)
        lines = cv_.mask()
        for a in np.arange(0, 360, 6):
            x1 = cx + r * math.cos(math.radians(a))
            y1 = cy + r * math.sin(math.radians(a))
            x0 = cx + r * 0.55 * math.cos(math.radians(a))
            y0 = cy + r * 0.55 * math.sin(math.radians(a))
            cv2.line(lines, (int(x0), int(y0)), (int(x1), int(y1)), 60, 1, cv2.LINE_AA)
        cv_.paint(lines, base if not wild else cols["black"])
        if rank == "wild":
            for i, name in enumerate(("blue", "green", "yellow", "red")):
                m = cv_.mask()
                cv2.ellipse(
                    m,
                    (int(cx), int(cy)),
                    (int(r * 0.8), int(r * 0.8)),
                    0,
                    -90 + 90 * i,
                    90 * i,
                    255,
                    -1,
                    cv2.LINE_AA,
                )
                cv_.paint(m, cols[name])
        style = "drop_shadow"
        fg = base if not wild else paper

    # the big centre glyph
    gs = p.glyph_scale
    if rank == "wild":
        _draw_wild_text(cv_, cx, cy, w * 0.78 * gs, cols, unit, p)
    else:
        gh = {"skip": 0.37, "reverse": 0.44, "draw2": 0.42, "draw4": 0.5}.get(rank, 0.37)
        gh *= h * gs if rank not in ("skip", "reverse", "draw2", "draw4") else w * 1.55 * gs
        box = _glyph_box(rank, cx, cy, gh)
        weight = gh * (0.14 if rank in _DIGITS else 0.12) * p.stroke
        layers = _glyph_layers(cv_, rank, box, weight, small=False, slant=p.slant, font=p.font,
                              typeface=p.typeface)
        _composite_glyph(cv_, layers, fg, p, unit, style, cols)

    # corner indices: top-left upright, bottom-right turned 180 degrees
    crank = _corner_rank(colour, rank)
    ch = h * 0.13
    if crank in ("skip", "reverse", "draw2"):
        ch = h * 0.12
    if crank == "wildcircle":
        ch = h * 0.11
    ch *= p.corner_scale
    # a larger index sits further in, its top-left corner where the printed one's is
    ccx, ccy = b + w * 0.14 + (p.corner_scale - 1) * ch * 0.4, b + h * 0.09 + (p.corner_scale - 1) * ch * 0.45
    cbox = _glyph_box(crank, ccx, ccy, ch)
    cweight = ch * 0.16 * p.stroke
    clayers = _glyph_layers(cv_, crank, cbox, cweight, small=True, slant=p.slant, font=p.font,
                           typeface=p.typeface, tilt=p.corner_tilt)
    # a hollow index: its card's own field colour in a paper rim
    cfg, rim = (base, (paper, p.corner_rim)) if p.corner_rim > 0 else (paper, None)
    cp = replace(p, outline=p.outline * 0.4)
    if rim is not None:  # every layer at once: the rim goes round the whole index
        _composite_glyph(cv_, [*clayers, *[(cv2.flip(m, -1), key) for m, key in clayers]], cfg, cp, unit,
                         "outline", cols, rim=rim)
    else:
        for m, key in clayers:  # paint both corners: the 180-degree copy comes from flipping
            _composite_glyph(cv_, [(m, key), (cv2.flip(m, -1), key)], cfg, cp, unit, "outline", cols)

    img = cv_.img
    if p.wear > 0 and rng is not None:
        img = _wear(img, p.wear, rng)
    if p.gloss > 0:
        img = _gloss(img, p)
    alpha = cv_.mask()
    _rounded_rect(alpha, 0, 0, w - 1, h - 1, p.corner_radius * w)
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8)
    out[..., 3] = alpha
    return out


def _wear(img: np.ndarray, amount: float, rng: np.random.Generator) -> np.ndarray:
    """Scratches and scuffs: light thin lines and a few pale specks."""
    h, w = img.shape[:2]
    m = np.zeros((h, w), np.uint8)
    for _ in range(int(amount * 12)):
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, math.pi)
        ln = rng.uniform(0.05, 0.4) * w
        x1, y1 = x0 + ln * math.cos(ang), y0 + ln * math.sin(ang)
        cv2.line(
            m, (int(x0), int(y0)), (int(x1), int(y1)), int(rng.uniform(40, 140)), 1, cv2.LINE_AA
        )
    for _ in range(int(amount * 30)):
        cv2.circle(
            m,
            (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
            int(rng.uniform(0, 2)),
            int(rng.uniform(30, 110)),
            -1,
        )
    a = (m.astype(np.float32) / 255.0)[..., None]
    return img * (1 - a) + 0.92 * a


def _gloss(img: np.ndarray, p: RenderParams) -> np.ndarray:
    """A soft specular band across the card."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = math.radians(p.gloss_angle)
    d = (xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a) - (p.gloss_pos - 0.5)
    band = np.exp(-(d**2) / (2 * 0.08**2)) * p.gloss
    return np.clip(img + band[..., None] * (1.0 - img), 0, 1)


def render_back(
    height: int = 256,
    *,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    params: RenderParams | None = None,
) -> np.ndarray:
    """The card back: black with a tilted red oval and a yellow 'UNO', white border. BGRA."""
    p, rng = _resolve(params, None, seed, rng)
    h = int(height)
    w = int(round(h * CARD_ASPECT))
    cols = {c: _colour(c, p) for c in (*COLOURS, "black")}
    paper = np.clip(np.array([0.96, 0.97, 0.97]) + np.array(p.paper_tint) / 255.0, 0, 1)
    cv_ = _Canvas(h, w)
    cv_.img[:] = paper
    b = p.border * w
    field = cv_.mask()
    _rounded_rect(field, b, b, w - 1 - b, h - 1 - b, p.corner_radius * w * 0.7)
    cv_.paint(field, cols["black"])
    cx, cy = w / 2, h / 2
    m = cv_.mask()
    cv2.ellipse(
        m,
        (int(cx), int(cy)),
        (int(w * 0.36), int(h * 0.44)),
        p.ellipse_angle,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
    )
    cv_.paint(cv2.bitwise_and(m, field), cols["red"])
    t = cv_.mask()
    font = cv2.FONT_HERSHEY_TRIPLEX
    scale = w / 100.0 * 1.3
    th = max(2, int(w * 0.05))
    (tw, tht), _ = cv2.getTextSize("UNO", font, scale, th)
    cv2.putText(t, "UNO", (int(cx - tw / 2), int(cy + tht / 2)), font, scale, 255, th, cv2.LINE_AA)
    R = cv2.getRotationMatrix2D((cx, cy), 35, 1.0)
    t = cv2.warpAffine(t, R, (w, h))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(w * 0.04)) | 1,) * 2)
    sh = cv2.warpAffine(cv2.dilate(t, k), np.float32([[1, 0, -w * 0.02], [0, 1, w * 0.03]]), (w, h))
    cv_.paint(sh, (0.05, 0.05, 0.05))
    cv_.paint(t, cols["yellow"])
    img = cv_.img
    if p.wear > 0 and rng is not None:
        img = _wear(img, p.wear, rng)
    if p.gloss > 0:
        img = _gloss(img, p)
    alpha = cv_.mask()
    _rounded_rect(alpha, 0, 0, w - 1, h - 1, p.corner_radius * w)
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8)
    out[..., 3] = alpha
    return out


def contact_sheet(look: str = "2010s", height: int = 180, seed: int | None = None) -> np.ndarray:
    """All 54 faces plus the back in a 11x5 grid (BGR on grey), to check the artwork by eye."""
    ids = list(ALL_FACES) + [BACK]
    tiles = []
    for i, cid in enumerate(ids):
        img = render_card(cid, look, height, seed=None if seed is None else seed + i)
        a = img[..., 3:4].astype(np.float32) / 255.0
        tiles.append((img[..., :3] * a + 128 * (1 - a)).astype(np.uint8))
    th, tw = tiles[0].shape[:2]
    cols = 11
    rows = math.ceil(len(tiles) / cols)
    sheet = np.full((rows * (th + 6), cols * (tw + 6), 3), 128, np.uint8)
    for i, t in enumerate(tiles):
        r, c = divmod(i, cols)
        sheet[r * (th + 6) : r * (th + 6) + th, c * (tw + 6) : c * (tw + 6) + tw] = t
    return sheet
