"""Decks the generic model never trained on, for tests and for the proof of `deck fit`.

- `party`: a fourth design drawn here, apart from `vision.render`'s three looks (and so never
  seen in training): other card colours (crimson, amber, teal, indigo), a white diamond
  instead of the oval, numbers set in a Hershey font rather than drawn strokes, "+2"/"+4"
  written as text, a ring-and-bar skip, circling reverse arrows, a 2x2 colour grid on the
  wild, and a navy back.
- `cast`: a camera and light with a strong colour cast (warm: tungsten; cold: a shaded
  window; green: a fluorescent tube), applied to the whole photo or frame.
- `wear`: a worn family deck: scuffs, faded colours, a yellowed paper.

A deck look is written `DESIGN[+wear][@CAST]`: `party`, `2010s+wear@warm`, `classic@cold`.
`layout_photos` lays a deck out apart on a table, as the host does for `deck learn`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render import ALL_FACES, BACK, CARD_ASPECT, LOOKS, render_back, render_card

PARTY = "party"
DESIGNS = (*LOOKS, PARTY)
# Camera + light casts: per-channel gains (B, G, R) and an offset, applied to a whole photo.
CASTS = {
    "none": ((1.0, 1.0, 1.0), (0, 0, 0)),
    "warm": ((0.55, 0.86, 1.12), (0, 8, 22)),  # tungsten bulb, no white balance
    "cold": ((1.18, 1.0, 0.72), (18, 6, 0)),  # blue shade of a window
    "green": ((0.85, 1.12, 0.8), (0, 14, 0)),  # old fluorescent tube
    "tungsten": ((0.38, 0.72, 1.15), (0, 12, 34)),  # a dim candle-warm bulb, no white balance at all
    "teal": ((1.1, 1.05, 0.45), (20, 18, 0)),  # a cold blue-green LED strip
}
# The party deck's own colours (BGR): none of them the generic renders' colours.
PARTY_BGR = {
    "red": (70, 20, 190),  # crimson, a touch of magenta
    "yellow": (20, 165, 250),  # amber, near orange
    "green": (140, 160, 0),  # teal
    "blue": (140, 40, 75),  # indigo, near purple
}
_FONT = cv2.FONT_HERSHEY_TRIPLEX
# A deck is one printing: its cards are drawn at this height (the proof's enrolment photos',
# `models.deck_proof`) and shrunk to any smaller size, as a real card is the same print at
# any distance. Drawn small instead, the fonts' holes close and their outlines thicken:
# another printing (the party deck's 8s drawn at the table's size read as 0s).
PRINT_H = 400


@dataclass(frozen=True)
class DeckLook:
    """One physical deck (a design, worn or not, one printing: `seed`) under one light."""

    design: str = "2010s"
    wear: bool = False
    cast: str = "none"
    seed: int = 0
    hue: float = 0.0  # the printing's inks turned round the colour circle (OpenCV hue units)

    @classmethod
    def parse(cls, spec: str, seed: int = 0) -> DeckLook:
        """`party`, `2010s+wear@warm`, `classic@cold`, `2010s~-10+wear@tungsten` (inks
        turned by -10 hue units: a cheap print whose greens are lime, blues teal)."""
        body, _, cast = spec.partition("@")
        design, _, extra = body.partition("+")
        design, _, hue = design.partition("~")
        cast = cast or "none"
        try:
            hue_v = float(hue) if hue else 0.0
        except ValueError:
            raise ValueError(f"deck look {spec!r}: ~{hue} is not a number (hue units)") from None
        if design not in DESIGNS:
            raise ValueError(f"deck look {spec!r}: unknown design {design!r} (one of {', '.join(DESIGNS)})")
        if extra not in ("", "wear"):
            raise ValueError(f"deck look {spec!r}: unknown extra {extra!r} (only +wear)")
        if cast not in CASTS:
            raise ValueError(f"deck look {spec!r}: unknown cast {cast!r} (one of {', '.join(CASTS)})")
        return cls(design, extra == "wear", cast, seed, hue_v)

    def __str__(self) -> str:
        hue = f"~{self.hue:g}" if self.hue else ""
        return self.design + hue + ("+wear" if self.wear else "") + ("" if self.cast == "none" else f"@{self.cast}")

    def card(self, card_id: str, height: int) -> np.ndarray:
        """The deck's card (BGRA, upright), before the camera's cast: the same card (its
        wear too) at any size: below PRINT_H, the card drawn at PRINT_H and shrunk."""
        if height < PRINT_H:
            img = self.card(card_id, PRINT_H)
            width = max(1, round(img.shape[1] * height / img.shape[0]))
            return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
        seed = self.seed * 1000 + (ALL_FACES + (BACK,)).index(card_id)
        rng = np.random.default_rng(seed)
        if self.design == PARTY:
            img = render_party(card_id, height, rng)
        elif card_id == BACK:
            img = render_back(height=height, seed=seed)
        else:
            # one deck: the same printing parameters for every card (only the wear differs)
            from vision.render import RenderParams

            img = render_card(card_id, height=height, rng=rng, params=RenderParams(look=self.design, hue_shift=self.hue))
        if self.wear:
            img = wear(img, rng)
        return img

    def apply_cast(self, image: np.ndarray) -> np.ndarray:
        return apply_cast(image, self.cast)


def apply_cast(image: np.ndarray, cast: str) -> np.ndarray:
    gains, offset = CASTS[cast]
    if cast == "none":
        return image
    out = image[..., :3].astype(np.float32) * np.float32(gains) + np.float32(offset)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if image.shape[-1] == 4:
        out = np.dstack([out, image[..., 3]])
    return out


def wear(card: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Scuffs, scratches, faded colours and a yellowed paper on a BGRA card."""
    img = card[..., :3].astype(np.float32)
    h, w = img.shape[:2]
    # faded: towards grey, more at one end of the card (sun on the box)
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    fade = 0.18 + 0.15 * (yy if rng.random() < 0.5 else 1 - yy)
    grey = img.mean(axis=2, keepdims=True)
    img = img * (1 - fade) + (grey * 0.9 + 20) * fade
    img *= np.float32((0.9, 0.97, 1.0))  # yellowed
    m = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(10, 22))):  # scratches
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, math.pi)
        ln = rng.uniform(0.1, 0.5) * w
        cv2.line(m, (int(x0), int(y0)), (int(x0 + ln * math.cos(a)), int(y0 + ln * math.sin(a))),
                 int(rng.uniform(60, 160)), max(1, int(h / 180)), cv2.LINE_AA)
    for _ in range(int(rng.integers(3, 7))):  # scuffs at the edges and corners
        cx, cy = rng.choice([0, w]) + rng.normal(0, w * 0.1), rng.uniform(0, h)
        cv2.ellipse(m, (int(cx), int(cy)), (int(w * rng.uniform(0.04, 0.12)), int(h * rng.uniform(0.03, 0.1))),
                    rng.uniform(0, 180), 0, 360, int(rng.uniform(80, 200)), -1, cv2.LINE_AA)
    m = cv2.GaussianBlur(m, (0, 0), max(0.6, h / 400))
    a = (m.astype(np.float32) / 255.0)[..., None]
    img = img * (1 - a) + 225 * a
    out = card.copy()
    out[..., :3] = np.clip(img, 0, 255).astype(np.uint8)
    return out


# ------------------------------------------------------------------------ the party design
def _text(mask: np.ndarray, text: str, cx: float, cy: float, height: float, thick: float,
          angle: float = 0.0) -> None:
    """Text centred at (cx, cy), `height` pixels tall, turned by `angle` degrees."""
    scale = height / 22.0  # Hershey triplex digits are ~22 px tall at scale 1
    th = max(1, int(round(thick)))
    (tw, tht), _ = cv2.getTextSize(text, _FONT, scale, th)
    tmp = np.zeros_like(mask)
    cv2.putText(tmp, text, (int(round(cx - tw / 2)), int(round(cy + tht / 2))), _FONT, scale, 255, th, cv2.LINE_AA)
    if angle:
        tmp = cv2.warpAffine(tmp, cv2.getRotationMatrix2D((cx, cy), angle, 1.0), mask.shape[::-1])
    np.maximum(mask, tmp, out=mask)


def _symbol(mask: np.ndarray, rank: str, cx: float, cy: float, size: float, thick: float) -> None:
    """The party deck's symbols for skip and reverse, `size` pixels across."""
    t = max(1, int(round(thick)))
    r = size / 2
    if rank == "skip":  # a ring with a horizontal bar through it
        cv2.circle(mask, (int(cx), int(cy)), int(r * 0.85), 255, t, cv2.LINE_AA)
        cv2.line(mask, (int(cx - r * 0.85), int(cy)), (int(cx + r * 0.85), int(cy)), 255, t, cv2.LINE_AA)
    else:  # reverse: two arrows chasing each other round a circle
        for start in (20, 200):
            cv2.ellipse(mask, (int(cx), int(cy)), (int(r * 0.8), int(r * 0.8)), 0, start, start + 130, 255, t,
                        cv2.LINE_AA)
            a = math.radians(start + 130)
            tip = (cx + r * 0.8 * math.cos(a), cy + r * 0.8 * math.sin(a))
            d = (-math.sin(a), math.cos(a))  # along the arc
            n = (math.cos(a), math.sin(a))
            pts = np.array([
                (tip[0] + d[0] * r * 0.35, tip[1] + d[1] * r * 0.35),
                (tip[0] + n[0] * r * 0.28, tip[1] + n[1] * r * 0.28),
                (tip[0] - n[0] * r * 0.28, tip[1] - n[1] * r * 0.28),
            ], np.int32)
            cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA)


def _underline(mask: np.ndarray, label: str, cx: float, cy: float, height: float, thick: float) -> None:
    """6 and 9 are told apart by a bar under the number (the card may lie either way up)."""
    if label in ("6", "9"):
        y = int(round(cy + height * 0.75))
        cv2.line(mask, (int(cx - height * 0.3), y), (int(cx + height * 0.3), y), 255,
                 max(1, int(round(thick))), cv2.LINE_AA)


def _label(rank: str) -> str | None:
    return {"draw2": "+2", "draw4": "+4", "wild": "W"}.get(rank, rank if rank.isdigit() else None)


def render_party(card_id: str, height: int, rng: np.random.Generator) -> np.ndarray:
    """A card of the party deck as BGRA, upright (`card_id` a face or `back`)."""
    h = int(height)
    w = int(round(h * CARD_ASPECT))
    img = np.empty((h, w, 3), np.float32)
    paper = np.float32((238, 244, 246)) + rng.normal(0, 3, 3).astype(np.float32)
    img[:] = paper

    def paint(mask, colour):
        a = (mask.astype(np.float32) / 255.0)[..., None]
        img[:] = img * (1 - a) + np.float32(colour) * a

    b = int(round(0.07 * w))
    field = np.zeros((h, w), np.uint8)
    cv2.rectangle(field, (b, b), (w - 1 - b, h - 1 - b), 255, -1)
    cx, cy = w / 2, h / 2
    if card_id == BACK:
        paint(field, (90, 35, 20))  # navy
        m = np.zeros((h, w), np.uint8)
        cv2.circle(m, (int(cx), int(cy)), int(w * 0.33), 255, max(2, w // 30), cv2.LINE_AA)
        _text(m, "UNO", cx, cy, h * 0.1, w * 0.03, angle=90)
        paint(m, (230, 230, 230))
        return _with_alpha(img, w, h)
    colour, _, rank = card_id.partition("-")
    wild = card_id.startswith("wild")
    if wild:
        colour, rank = "black", ("draw4" if card_id == "wild-draw4" else "wild")
    base = (30, 30, 30) if wild else PARTY_BGR[colour]
    paint(field, base)
    # the white diamond in the centre
    dia = np.array([(cx, cy - h * 0.36), (cx + w * 0.38, cy), (cx, cy + h * 0.36), (cx - w * 0.38, cy)], np.int32)
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [dia], 255, cv2.LINE_AA)
    paint(m, paper)
    if wild:  # a 2x2 grid of the four colours inside the diamond
        q = w * 0.17
        for (dx, dy), name in zip(((-1, -1), (1, -1), (-1, 1), (1, 1)), ("red", "blue", "yellow", "green"),
                                  strict=True):
            m = np.zeros((h, w), np.uint8)
            x0, y0 = cx + (dx - 1) * q / 2 + dx * 2, cy + (dy - 1) * q / 2 + dy * 2
            cv2.rectangle(m, (int(x0), int(y0)), (int(x0 + q), int(y0 + q)), 255, -1, cv2.LINE_AA)
            paint(m, PARTY_BGR[name])
    ink = (25, 25, 25) if wild else base
    m = np.zeros((h, w), np.uint8)
    label = _label(rank)
    if label is not None:
        gh = h * (0.2 if len(label) == 1 else 0.15)
        _text(m, label, cx, cy, gh, w * 0.05)
        _underline(m, label, cx, cy, gh, w * 0.04)
    else:
        _symbol(m, rank, cx, cy, w * 0.45, w * 0.06)
    outline = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    paint(outline, (15, 15, 15))
    paint(m, ink if not wild else (245, 245, 245))
    # corner indices: top-left, and the bottom-right turned half round
    c = np.zeros((h, w), np.uint8)
    ch = h * 0.075
    ccx, ccy = b + w * 0.11, b + h * 0.07
    if label is not None:
        _text(c, label, ccx, ccy, ch, max(1.0, w * 0.018))
        _underline(c, label, ccx, ccy, ch, max(1.0, w * 0.015))
    else:
        _symbol(c, rank, ccx, ccy, ch * 1.3, max(1.0, w * 0.02))
    c = np.maximum(c, cv2.flip(c, -1))
    paint(c, (250, 250, 250))
    return _with_alpha(img, w, h)


def _with_alpha(img: np.ndarray, w: int, h: int) -> np.ndarray:
    alpha = np.zeros((h, w), np.uint8)
    r = max(2, int(0.07 * w))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    return np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])


# ------------------------------------------------------------------------ layouts
def _shaded(base: np.ndarray, h: int, w: int, rng: np.random.Generator, grain: float, slope: float) -> np.ndarray:
    """A surface of colour `base`, mottled by `grain` and lit unevenly across by `slope`."""
    noise = cv2.resize(rng.normal(0, 1, (h // 24 + 1, w // 24 + 1)).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_CUBIC)
    img = base * (1 + grain * noise[..., None])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    img *= (1.0 + slope * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    base = np.float32([(60, 95, 140), (40, 70, 40), (55, 55, 60), (50, 60, 110), (110, 100, 90)][int(rng.integers(5))])
    return _shaded(base, h, w, rng, 0.08, 0.15)


def _white_paper(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A sheet of white paper or a white table: the card's own white border meets it."""
    return _shaded(np.float32(rng.uniform(200, 250) + rng.normal(0, 4, 3)), h, w, rng, 0.02, 0.12)


SURFACES = {"dark": _table, "white": _white_paper}


def paste(img: np.ndarray, card: np.ndarray, quad: np.ndarray) -> None:
    """Warp a BGRA card onto `img` (in place) at the 4 corners `quad` (TL, TR, BR, BL)."""
    ch, cw = card.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x1), min(img.shape[0], y1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
    M = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    patch = cv2.warpPerspective(card, M, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
    a = patch[..., 3:4].astype(np.float32) / 255.0
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + patch[..., :3] * a).astype(np.uint8)


def layout_photos(
    cards: list[tuple[str, np.ndarray]],
    photos: int = 2,
    size: tuple[int, int] = (1600, 1200),
    seed: int = 0,
    cast: str = "none",
    blur: float = 0.6,
    jpeg: int = 88,
    surface: str = "dark",
) -> list[tuple[np.ndarray, list[tuple[str, np.ndarray]]]]:
    """Photos of `cards` ((name, BGRA image)) laid face up and apart in rows, a little
    turned, seen by a phone held over the table (`surface`: one of SURFACES). Returns
    [(BGR photo, [(name, quad)])]."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}: expected one of {', '.join(SURFACES)}")
    rng = np.random.default_rng(seed)
    order = list(range(len(cards)))
    rng.shuffle(order)
    w, h = size
    per = math.ceil(len(cards) / photos)
    out = []
    for p in range(photos):
        mine = order[p * per:(p + 1) * per]
        if not mine:
            break
        img = SURFACES[surface](h, w, rng)
        cols = math.ceil(math.sqrt(len(mine) * w / h * 0.8))
        rows = math.ceil(len(mine) / cols)
        cell_w, cell_h = w * 0.92 / cols, h * 0.92 / rows
        card_h = min(cell_h * 0.8, cell_w * 0.8 / CARD_ASPECT)
        truth = []
        for k, i in enumerate(mine):
            r, c = divmod(k, cols)
            cx = w * 0.04 + (c + 0.5) * cell_w + rng.uniform(-0.06, 0.06) * cell_w
            cy = h * 0.04 + (r + 0.5) * cell_h + rng.uniform(-0.06, 0.06) * cell_h
            ang = math.radians(rng.normal(0, 8) + (180 if rng.random() < 0.5 else 0))
            hw, hh = card_h * CARD_ASPECT / 2, card_h / 2
            co, si = math.cos(ang), math.sin(ang)
            quad = np.float32([(cx + x * co - y * si, cy + x * si + y * co)
                               for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))])
            name, art = cards[i]
            paste(img, art, quad)
            truth.append((name, quad))
        # the phone: a little perspective, a soft focus, the light's cast, JPEG
        j = lambda: rng.uniform(-0.03, 0.03) * w  # noqa: E731
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[j(), j()], [w + j(), j()], [w + j(), h + j()], [j(), h + j()]])
        H = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, H, (w, h), borderMode=cv2.BORDER_REFLECT)
        truth = [(n, cv2.perspectiveTransform(q[None], H)[0]) for n, q in truth]
        if blur > 0:
            img = cv2.GaussianBlur(img, (0, 0), blur)
        img = apply_cast(img, cast)
        img = np.clip(img.astype(np.float32) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        out.append((img, truth))
    return out


def deck_cards(look: DeckLook, height: int = 400, faces: tuple[str, ...] = ALL_FACES) -> list[tuple[str, np.ndarray]]:
    """Each face of the deck, as (name, BGRA image)."""
    return [(f, look.card(f, height)) for f in faces]


def sim_table(look: DeckLook, **kwargs):
    """A simulated table (vision.sim) played with this deck under this light."""
    from vision.sim import CARD_H_MM, SimTable

    class DeckTable(SimTable):
        def _card_image(self, card: str) -> np.ndarray:
            if card not in self._card_cache:
                self._card_cache[card] = look.card(card, int(round(CARD_H_MM * self.px_per_mm * 1.25)))
            return self._card_cache[card]

        def next_frame(self):
            image, truth = super().next_frame()
            return look.apply_cast(image), truth

    return DeckTable(**kwargs)


__all__ = ["CASTS", "DESIGNS", "DeckLook", "apply_cast", "deck_cards", "layout_photos", "paste", "render_party",
           "sim_table", "wear"]
