"""A still photo in which the detector boxed no card, searched for one.

The held-out webcam photos of the real-cards issue lost most of their cards for want of a
box (models/README.md, issue 13): a detector learns the cards, rooms and cameras it was shown,
and a person's own room and webcam are none of them. The classifier and the corner reader,
trained on real photos' crops and corners, see a card's face whatever lies around it. So the
photo is read through windows of a card's shape on a coarse grid (upright and sideways, a
half to the whole of the frame), the surest faces' windows are climbed (moved, scaled,
turned) to where their face reads best, and a face is kept only where two readers agree on
it: the classifier on the window (SEARCH_MIN) and the corner reader on one of its index
corners (SEARCH_INDEX). A wall, a cloth or a face read as a card by the classifier alone
(half of the frames without a card give some window 0.5 or more) has no index in its corner
(the corner reader says "none"), and that is what keeps faces from being made up.

Pure geometry and search; the readers come from `vision.recognizer.CardRecognizer`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.render import CARD_ASPECT

# The windows' heights, as shares of the frame's side that a card's long side lies along (a
# card held up to a webcam fills about half of its height or more; a smaller one is the
# tiles' and the detector's).
SEARCH_SIZES = (0.55, 0.75, 0.95)
# Windows a half of their own width apart: a card is within a quarter width of one.
SEARCH_STEP = 0.5
# How many faces' windows are climbed (the surest window of each face, best first): a 5 can
# be read a 3 on a loose window, and its index shows it only on a tight one.
SEARCH_FACES = 3
# Steps of a climb, and one step's move: a share of the window's height, a scale, a turn;
# where no step helps, the steps are halved down to SEARCH_FINEST of them (a card leaning
# towards the lens is no rectangle: its index corners show on a window fitted to a few
# pixels).
SEARCH_CLIMB = 8
SEARCH_FINEST = 0.25
SEARCH_MOVE = 0.08
SEARCH_SCALE = 1.12
SEARCH_TURN = 8.0
# The two readers' bars: the classifier's probability of the face in the window, and the
# corner reader's in one of its index corners (`recognizer.TURNED_INDEX`'s 0.5).
SEARCH_MIN = 0.5
SEARCH_INDEX = 0.5

# The photo is searched at most this long (a phone's 12 MP photo took 5.4 s at full size): a
# card half its side long is still 300 px or more, against the classifier's 64x96 crops.
SEARCH_LONG = 960

Rect = tuple[tuple[float, float], tuple[float, float], float]  # cv2's rotated rect
# rects -> each one's likeliest face and its probability
ReadTop = Callable[[list[Rect]], list[tuple[str, float]]]
# rects, face -> each one's (classifier's, corner reader's) probability of that face
ReadFace = Callable[[list[Rect], str], list[tuple[float, float]]]


def windows(h: int, w: int) -> list[Rect]:
    """The grid of card-shaped windows over an h x w frame: the long side along the frame's
    height (upright) and along its width (sideways), SEARCH_SIZES of it, SEARCH_STEP apart."""
    out: list[Rect] = []
    for along, across, sideways in ((h, w, False), (w, h, True)):
        for share in SEARCH_SIZES:
            long = share * along
            short = long * CARD_ASPECT
            if short > across:
                continue
            step = SEARCH_STEP * short
            ls = np.linspace(long / 2, along - long / 2, max(1, round((along - long) / step) + 1))
            ss = np.linspace(short / 2, across - short / 2, max(1, round((across - short) / step) + 1))
            for a in ls:
                for b in ss:
                    centre = (float(b), float(a)) if not sideways else (float(a), float(b))
                    out.append((centre, (short, long), 90.0 if sideways else 0.0))
    return out


def neighbours(rect: Rect, fine: float = 1.0) -> list[Rect]:
    """A window moved a step each way, scaled up and down, and turned either way; `fine`:
    the step's share."""
    (cx, cy), (sw, sh), deg = rect
    d = SEARCH_MOVE * fine * max(sw, sh)
    scale = SEARCH_SCALE ** fine
    out = [((cx + dx * d, cy + dy * d), (sw, sh), deg) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    out += [((cx, cy), (sw * s, sh * s), deg) for s in (scale, 1 / scale)]
    out += [((cx, cy), (sw, sh), deg + t) for t in (SEARCH_TURN * fine, -SEARCH_TURN * fine)]
    return out


def rect_quad(rect: Rect) -> np.ndarray:
    """A window's four corners (4x2 float32, cv2's order)."""
    return cv2.boxPoints(rect).astype(np.float32)


def search(h: int, w: int, read_top: ReadTop, read_face: ReadFace,
           backs: Sequence[str] = ()) -> tuple[str, float, float, Rect] | None:
    """The card in an h x w frame where both readers agree: (face, the classifier's
    probability, the corner reader's, its window), or None. `backs`: the names of a card's
    back, never kept; where a window is read as a back surer than any as a face, the card
    shown is a back, and no face is looked for (a back's oval read as a wild's, in its corner
    too: a photo of backs alone)."""
    grid = windows(h, w)
    if not grid:
        return None
    read = read_top(grid)
    surest: dict[str, tuple[float, Rect]] = {}
    for rect, (face, p) in zip(grid, read, strict=True):
        if p > surest.get(face, (-1.0, rect))[0]:
            surest[face] = (p, rect)
    ranked = sorted(surest.items(), key=lambda kv: -kv[1][0])
    if ranked and ranked[0][0] in backs:
        return None
    best: tuple[str, float, float, Rect] | None = None
    for face, (_, rect) in [kv for kv in ranked if kv[0] not in backs][:SEARCH_FACES]:
        (p, corner), = read_face([rect], face)
        fine = 1.0
        for _ in range(SEARCH_CLIMB):
            tried = neighbours(rect, fine)
            scores = read_face(tried, face)
            k = int(np.argmax([a + b for a, b in scores]))
            if sum(scores[k]) > p + corner:
                rect, (p, corner) = tried[k], scores[k]
            elif fine > SEARCH_FINEST:
                fine /= 2
            else:
                break
        if p >= SEARCH_MIN and corner >= SEARCH_INDEX and (best is None or p + corner > best[1] + best[2]):
            best = (face, p, corner, rect)
    return best
