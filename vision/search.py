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
(the corner reader says "none"), and that is what keeps faces from being made up. Where the
grid keeps no face, a wider one is read the same way: windows turned 45 degrees, and windows
of a card nearer the lens than the frame holds, cut by its edges (the held-out photos' cards
"fill the frame or are cut by its edge"); where that keeps none either, a grid of small
windows (a card at arm's length or across a table).

Pure geometry and search; the readers come from `vision.recognizer.CardRecognizer`.
"""

from __future__ import annotations

import math
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
# The wider grid, read where the first keeps no face (only then: a climb begun from a window
# turned 45 degrees, or from one past the frame, loses cards the first grid's windows find;
# models/README.md, thirty-seventh session). Its windows' long sides, as shares of the frame's
# short side (a card's size does not change with its turn), past 1 for a card nearer the lens
# than the frame holds; its turns, so that every card lies within 22.5 degrees of one; and
# the share of a window that must lie inside the frame (the crops replicate the edge's
# pixels beyond it).
WIDER_SIZES = (0.55, 0.75, 0.95, 1.2, 1.5)
WIDER_ANGLES = (0.0, 90.0, 45.0, -45.0)
WIDER_VISIBLE = 0.6
# The small grid, read where neither keeps a face: a card a third of the frame's short side
# long or so (held at arm's length, lying on a table across the room) that the detector gave
# no box; turned as the wider grid, wholly inside the frame. Last, for its many windows (551
# on a 640x480 frame) cost time only where no card is found sooner (models/README.md,
# thirty-eighth session).
SMALL_SIZES = (0.3, 0.42)
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


def wider_windows(h: int, w: int) -> list[Rect]:
    """The wider grid over an h x w frame: WIDER_SIZES of its short side long, at each of
    WIDER_ANGLES, centres SEARCH_STEP of a window's width apart, each with at least
    WIDER_VISIBLE of it inside the frame."""
    return turned_grid(h, w, WIDER_SIZES, WIDER_VISIBLE)


def small_windows(h: int, w: int) -> list[Rect]:
    """The small grid over an h x w frame: SMALL_SIZES of its short side long, turned as the
    wider grid, each wholly inside the frame."""
    return turned_grid(h, w, SMALL_SIZES, 1.0)


def turned_grid(h: int, w: int, sizes: Sequence[float], visible: float) -> list[Rect]:
    """Card-shaped windows over an h x w frame: `sizes` of its short side long, at each of
    WIDER_ANGLES, centres SEARCH_STEP of a window's width apart, each with at least `visible`
    of it inside the frame."""
    out: list[Rect] = []
    frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    for deg in WIDER_ANGLES:
        c, s = abs(math.cos(math.radians(deg))), abs(math.sin(math.radians(deg)))
        for share in sizes:
            long = share * min(h, w)
            short = long * CARD_ASPECT
            # the window's upright bounding box, half of it each way, may overhang the frame
            # by what would still leave `visible` of it inside
            half_x, half_y = (c * short + s * long) / 2, (s * short + c * long) / 2
            axes = []
            for half, side in ((half_x, w), (half_y, h)):
                over = 2 * half * (1 - visible)
                lo, hi = half - over, side - half + over
                if lo > hi:
                    lo = hi = side / 2
                axes.append(np.linspace(lo, hi, max(1, round((hi - lo) / (SEARCH_STEP * short)) + 1)))
            for x in axes[0]:
                for y in axes[1]:
                    rect = ((float(x), float(y)), (short, long), float(deg))
                    inside, _ = cv2.intersectConvexConvex(rect_quad(rect), frame)
                    if inside >= (visible - 1e-6) * short * long:
                        out.append(rect)
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
    probability, the corner reader's, its window), or None. The grid (`windows`) first, the
    wider grid (`wider_windows`) where it keeps none, the small grid (`small_windows`) where
    neither does. `backs`: the names of a card's back,
    never kept; where a grid's window is read as a back surer than any as a face, the card
    shown is a back, and no face is looked for (a back's oval read as a wild's, in its corner
    too: a photo of backs alone)."""
    climbed: set[tuple[str, Rect]] = set()
    for grid in (windows, wider_windows, small_windows):  # each built only where it is read
        found, stop = _search_grid(grid(h, w), read_top, read_face, backs, climbed)
        if found is not None or stop:
            return found
    return None


def _search_grid(grid: list[Rect], read_top: ReadTop, read_face: ReadFace, backs: Sequence[str],
                 climbed: set[tuple[str, Rect]]) -> tuple[tuple[str, float, float, Rect] | None, bool]:
    """`search` on one grid: (the face kept or None, whether the search ends there: a face
    kept, or a back read surest). `climbed`: the (face, window) climbs already made, not made
    again (and added to)."""
    if not grid:
        return None, False
    read = read_top(grid)
    surest: dict[str, tuple[float, Rect]] = {}
    for rect, (face, p) in zip(grid, read, strict=True):
        if p > surest.get(face, (-1.0, rect))[0]:
            surest[face] = (p, rect)
    ranked = sorted(surest.items(), key=lambda kv: -kv[1][0])
    if ranked and ranked[0][0] in backs:
        return None, True
    best: tuple[str, float, float, Rect] | None = None
    fresh = [(face, rect) for face, (_, rect) in ranked if face not in backs and (face, rect) not in climbed]
    for face, rect in fresh[:SEARCH_FACES]:
        climbed.add((face, rect))
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
    return best, best is not None
