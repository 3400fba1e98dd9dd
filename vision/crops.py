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


def _in_order(quad, ordered: bool) -> np.ndarray:
    """The quad's corners as given (`ordered`: already top-left clockwise, the way a crop
    takes them), or `order_portrait`'s."""
    return np.asarray(quad, np.float32).reshape(4, 2) if ordered else order_portrait(quad)


def crop_from_quad(image: np.ndarray, quad, flip: bool = False, ordered: bool = False) -> np.ndarray:
    """Warp the (portrait-ordered) quad of `image` to a CROP_W x CROP_H crop; `ordered`: the
    quad's corners are already in the order the crop takes (top-left clockwise), kept as
    given (a card leaning far back can look wider than long: `order_portrait` would turn it)."""
    q = _in_order(quad, ordered)
    if flip:
        q = np.roll(q, 2, axis=0)
    return _warp(image, q, CROP_W, CROP_H)


def _warp(image: np.ndarray, q: np.ndarray, width: int, height: int) -> np.ndarray:
    """The quad q (corners clockwise from the top-left one) of `image` warped to a
    width x height image."""
    # a big card is first cut out and shrunk with area averaging: a straight perspective warp
    # from hundreds of pixels down to 96 would alias the thin outlines
    long_side = max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[3]))
    f = height / max(long_side, 1.0)
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
    dst = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    M = cv2.getPerspectiveTransform(np.asarray(q, np.float32), dst)
    return cv2.warpPerspective(
        image, M, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


# The corner index (the small number or sign in a card's top-left corner, and turned in the
# bottom-right one) is how people read a fan or a pile where half a card shows: the corner
# reader (`vision.recognizer`, CORNER_FILE) reads CORNER_PX square patches of this part of the
# card, in the card's own coordinates (0..1 across its width, 0..1 down its length): 0.42 of
# the width by 0.27 of the length is a square on the card, with a margin for a box a few
# per cent off.
CORNER_PX = 40
CORNER_SPAN = (0.42, 0.27)
# Where the index itself lies inside that corner (same coordinates): training counts a corner
# as seen when this part of it is uncovered.
INDEX_SPAN = ((0.04, 0.02), (0.36, 0.2))


def card_points(quad, points) -> np.ndarray:
    """Points given in a card's own coordinates (u across, v down; the quad portrait-ordered)
    in the image's pixels."""
    q = np.asarray(quad, np.float32)
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    M = cv2.getPerspectiveTransform(unit, q)
    return cv2.perspectiveTransform(np.asarray(points, np.float32).reshape(-1, 1, 2), M).reshape(-1, 2)


def corner_quads(quad, ordered: bool = False) -> list[np.ndarray]:
    """The two corners of a card's box that hold its index (CORNER_SPAN), each as a quad in
    the image's pixels, clockwise from the corner's own top-left: the box's top-left corner,
    then its bottom-right one turned upright (the card's 180-degree twin). `ordered`: the
    box's corners kept in the order given (`crop_from_quad`)."""
    q = _in_order(quad, ordered)
    u, v = CORNER_SPAN
    span = [[0, 0], [u, 0], [u, v], [0, v]]
    return [card_points(q, span), card_points(np.roll(q, 2, axis=0), span)]


def corner_patch(image: np.ndarray, corner) -> np.ndarray:
    """One corner quad (as `corner_quads` gives it) as a CORNER_PX square BGR patch."""
    return _warp(image, np.asarray(corner, np.float32), CORNER_PX, CORNER_PX)


def corner_patches(image: np.ndarray, quad) -> list[np.ndarray]:
    """The two index corners of a card's box (`corner_quads`) as CORNER_PX square BGR
    patches, index upright."""
    return [corner_patch(image, c) for c in corner_quads(quad)]


# The colour normalisation a classifier was trained with: written into the ONNX file's
# metadata ("colour") by models/export.py and read by the recognizer. Absent: none.
COLOUR_WHITE_REF = "white-ref-v1"
WHITE_LEVEL = 235.0  # where the card's white lands after `normalize_colour`
_MAX_CAST = 2.0  # most a channel is raised or lowered against the others
_MAX_EXPOSURE = 3.0  # most a dim crop is brightened (a black frame stays dark)


def _percentile(v: np.ndarray, q: float) -> float:
    """np.percentile(v, q) (linear interpolation) by a partial sort: the same value, faster."""
    n = v.size
    pos = (n - 1) * q / 100.0
    k = int(pos)
    if k + 1 >= n:
        return float(np.partition(v, k)[k])
    p = np.partition(v, (k, k + 1))
    return float(p[k] + (pos - k) * (p[k + 1] - p[k]))


def white_reference(crop: np.ndarray) -> np.ndarray:
    """The colour (BGR float) of a crop's white: the mean of its bright, near-neutral pixels.

    Every UNO face and back has a white border (and most a white oval, glyph or index): the
    brightest sixth of the crop, of which the less coloured half, is that white as the light
    and camera rendered it (a warm lamp: orange-ish; dim: grey). Coloured fields, even
    yellow, are more saturated than the white under the same light, so they fall out."""
    f = crop.reshape(-1, 3).astype(np.float32)
    # the channels summed column by column: the same values as f.mean(axis=1) and
    # max/min(axis=1), which numpy reduces slowly over rows of three (0.2 ms a crop)
    b, g, r = f[:, 0], f[:, 1], f[:, 2]
    lum = (b + g + r) / np.float32(3.0)
    keep = lum >= _percentile(lum, 84)
    bright = f[keep]
    b, g, r = b[keep], g[keep], r[keep]
    mx, mn = np.maximum(np.maximum(b, g), r), np.minimum(np.minimum(b, g), r)
    chroma = (mx - mn) / (mx + 1.0)
    neutral = bright[chroma <= _percentile(chroma, 50)]
    return neutral.mean(axis=0) if len(neutral) else bright.mean(axis=0)


def white_tint(white: np.ndarray) -> float:
    """How green (< 0) or magenta (> 0) a white (B, G, R) is, whatever its brightness and its
    warmth: log(sqrt(B*R)/G). Lamps and daylight run from orange to blue with green about
    midway, near 0; a purple cloth's brightest pixels lie far off it."""
    b, g, r = np.maximum(np.asarray(white, np.float64), 1.0)
    return float(np.log(np.sqrt(b * r) / g))


def normalize_colour(crop: np.ndarray, white: np.ndarray | None = None) -> np.ndarray:
    """A BGR uint8 crop re-lit so its own white (`white_reference`) is neutral at WHITE_LEVEL.

    Per-channel gains (a von Kries white balance) then one exposure gain, each bounded: a
    cast can be undone up to a factor _MAX_CAST between channels, a dim crop brightened up to
    _MAX_EXPOSURE (so a black frame is not stretched into noise). The same function runs on
    the training crops and at run time (`to_input(..., normalize=True)`). `white`: the
    crop's `white_reference`, when already measured."""
    white = np.maximum(white_reference(crop) if white is None else white, 1.0)
    grey = float(white.mean())
    cast = np.clip(grey / white, 1.0 / _MAX_CAST, _MAX_CAST)
    exposure = float(np.clip(WHITE_LEVEL / max(grey, 1.0), 1.0 / _MAX_EXPOSURE, _MAX_EXPOSURE))
    gains = (cast * exposure).astype(np.float32)
    return np.clip(crop.astype(np.float32) * gains, 0, 255).astype(np.uint8)


WHITE_INPUT = "white"  # a classifier's optional second input: `crop_whites` of its crops
# (log B/G, log R/G) of a white (B, G, R): where a light's colour lies, whatever its brightness
WHITE_CHROMA = np.float32([[1, 0], [-1, -1], [0, 1]])


def crop_whites(crops: list[np.ndarray]) -> np.ndarray:
    """(N, 3) float32: each crop's own white (`white_reference`, BGR, 0..1) as the light and
    camera rendered it, before any normalisation: what the light was."""
    return np.stack([white_reference(c) for c in crops]).astype(np.float32) / 255.0


def white_chroma(whites: np.ndarray) -> np.ndarray:
    """(N, 2) chroma (WHITE_CHROMA) of `crop_whites`: the light's colour, brightness aside."""
    return np.log(np.maximum(np.asarray(whites, np.float32), 1e-4)) @ WHITE_CHROMA


def to_input(crops: list[np.ndarray], normalize: bool = False) -> np.ndarray:
    """BGR uint8 crops -> NCHW float32 RGB in 0..1, the classifier's input; `normalize`:
    each crop first through `normalize_colour` (for a classifier trained that way)."""
    return classifier_batch(crops, normalize)[0]


def classifier_batch(crops: list[np.ndarray], normalize: bool = False,
                     whites: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """`to_input`, and with `whites` the crops' `crop_whites` beside it (a deck's classifier
    takes them as WHITE_INPUT); each crop's white is measured once for both."""
    measured = [white_reference(c) for c in crops] if (normalize or whites) else None
    if normalize:
        crops = [normalize_colour(c, w) for c, w in zip(crops, measured, strict=True)]
    x = cv2.dnn.blobFromImages(crops, 1 / 255.0, swapRB=True)  # one pass, not four
    return x, (np.stack(measured).astype(np.float32) / 255.0 if whites else None)


__all__ = [
    "WHITE_CHROMA",
    "WHITE_INPUT",
    "classifier_batch",
    "crop_whites",
    "white_chroma",
    "CARD_ASPECT",
    "CORNER_PX",
    "CORNER_SPAN",
    "corner_patch",
    "INDEX_SPAN",
    "card_points",
    "corner_patches",
    "corner_quads",
    "CLASSES",
    "COLOUR_WHITE_REF",
    "WHITE_LEVEL",
    "CROP_H",
    "CROP_W",
    "crop_from_quad",
    "normalize_colour",
    "order_portrait",
    "to_input",
    "white_reference",
]
