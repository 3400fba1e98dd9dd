"""From per-frame detections to table facts (Frigate style: hits, median score, zones).

Discard pile. Only frames where the pile is clear count. A card is a candidate when it is
seen in at least `min_hits` of the last `window` clear frames at the same pose, with a median
confidence above the threshold. A candidate is a *new* card unless it is one already known to
lie on the pile:
  - same pose (centre within a fraction of a card height, angle within a few degrees) and
    the same face, or any face when no hand came by since (a re-read, not a play);
  - after a hand came by, the pixels decide: a card laid in this visit changed where it
    shows since the pile last settled, outside the other cards that changed; an older card
    (misread once partly covered, the same face where it lay) changed only under them.
Most faces exist twice, so the same face at the same pose is new only by its pixels too.
A box far smaller than the cards read lately is a part of a card (a corner index), not a
card. New cards found together after one visit of a hand are one observation (a
multi-play). A card laid in the visit that the withdrawing hand still half hid in the first
clear frames is waited for (a window more at most) before the pile settles without it.

Reveal zone: the cards laid there, each read while it shows (a long row hides most of every
card but the last under the next one), reported when the set holds for a few clear frames
and differs from the last report. Draw pile: a hand that stayed in the draw zone for a few frames
and left is a likely draw (inferred)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from statistics import median

import cv2
import numpy as np

from vision.config import TrackerConfig
from vision.monitor import (
    STILL_READ,
    FrameFeatures,
    ZoneActivity,
    ZoneMonitor,
    changed_share,
    skin_at_rest,
    skin_mask,
)
from vision.observations import (
    CardsPlayed,
    CardsRevealed,
    LikelyDraw,
    Observation,
    ObservedCard,
    PileCovered,
    pool_candidates,
)
from vision.types import CardDetection, box_quad
from vision.zones import ZoneLayout

# Share of a card's box that changed, above which it counts as laid in this visit when its
# own part cannot be told apart: a fan's middle card between its neighbours' boxes, a lone
# twin boxed inside the box of its face's known card (measured on rendered games: new cards
# 0.38-0.75, older cards read again 0.08-0.33).
MOSTLY_CHANGED = 0.35
# A card read this surely is a card: a still skin-coloured patch on it is its print (ZoneMonitor.absorb).
SURE_CARD = 0.9


@dataclass(frozen=True, slots=True)
class Pose:
    cx: float
    cy: float
    angle: float | None  # degrees, modulo 180 (a card looks the same turned half round)
    size: float  # card height in pixels (long side)
    area: float  # box area
    quad_area: float | None = None  # area inside the corners, when found (rotation-free)


def pose_of(det: CardDetection) -> Pose:
    x0, y0, x1, y1 = det.box
    if det.quad is not None and len(det.quad) == 4:
        q = det.quad
        cx = sum(p[0] for p in q) / 4
        cy = sum(p[1] for p in q) / 4
        sides = [math.dist(q[i], q[(i + 1) % 4]) for i in range(4)]
        long_i = max(range(4), key=lambda i: sides[i])
        (ax, ay), (bx, by) = q[long_i], q[(long_i + 1) % 4]
        angle = math.degrees(math.atan2(by - ay, bx - ax)) % 180.0
        shoelace = 0.5 * abs(sum(q[i][0] * q[(i + 1) % 4][1] - q[(i + 1) % 4][0] * q[i][1] for i in range(4)))
        return Pose(cx, cy, angle, max(sides), (x1 - x0) * (y1 - y0), shoelace)
    return Pose((x0 + x1) / 2, (y0 + y1) / 2, None, max(x1 - x0, y1 - y0), (x1 - x0) * (y1 - y0))


def angle_diff(a: float | None, b: float | None) -> float:
    if a is None or b is None:
        return 0.0
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def same_pose(a: Pose, b: Pose, cfg: TrackerConfig) -> bool:
    size = max(a.size, b.size, 1.0)
    shift = math.hypot(a.cx - b.cx, a.cy - b.cy) / size
    return shift <= cfg.same_pose_shift and angle_diff(a.angle, b.angle) <= cfg.same_pose_angle


def _inside_fraction(inner, outer) -> float:
    ix0, iy0 = max(inner[0], outer[0]), max(inner[1], outer[1])
    ix1, iy1 = min(inner[2], outer[2]), min(inner[3], outer[3])
    inter = max(0.0, ix1 - ix0) * max(0.0, iy1 - iy0)
    area = max(1e-6, (inner[2] - inner[0]) * (inner[3] - inner[1]))
    return inter / area


@dataclass
class _Known:
    card: str
    pose: Pose
    box: tuple[float, float, float, float]
    quad: tuple | None = None
    snapshot: np.ndarray | None = None  # grey of the card's box (monitor scale) when accepted
    seen_at_settle: bool = True  # visible when the pile last settled


@dataclass
class _Cluster:
    card: str
    pose: Pose
    box: tuple[float, float, float, float]
    quad: tuple | None = None
    confidences: list[float] = field(default_factory=list)
    frames: set[int] = field(default_factory=set)
    readings: list[tuple[tuple[str, float], ...]] = field(default_factory=list)  # top guesses per frame

    @property
    def hits(self) -> int:
        return len(self.frames)

    def observed(self, rivals: list[_Cluster] = ()) -> ObservedCard:
        """The card as decided; `rivals`: readings of other faces at its place (their
        guesses count in its candidates)."""
        readings = self.readings + [r for c in rivals for r in c.readings]
        return ObservedCard(
            self.card, median(self.confidences), self.box, (self.pose.cx, self.pose.cy), self.pose.angle,
            pool_candidates(readings),
        )


def _reading(d: CardDetection) -> tuple[tuple[str, float], ...]:
    return d.candidates or ((d.card, d.confidence),)


def _crop(grey: np.ndarray | None, box, scale: float) -> tuple[slice, slice] | None:
    if grey is None:
        return None
    h, w = grey.shape
    x0, y0 = max(0, int(box[0] * scale)), max(0, int(box[1] * scale))
    x1, y1 = min(w, int(np.ceil(box[2] * scale))), min(h, int(np.ceil(box[3] * scale)))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return slice(y0, y1), slice(x0, x1)


def _smaller(a: Pose, b: Pose) -> bool:
    """Is `a` clearly less of a card than `b` (only its visible part)? Corner areas do not
    change with rotation; box areas do, so they are compared only when corners are missing."""
    if a.quad_area is not None and b.quad_area is not None:
        return a.quad_area < 0.8 * b.quad_area
    return a.area < 0.8 * b.area


def _one_card(a: _Cluster, b: _Cluster) -> bool:
    """Are two readings one card (a second face at its place, a reading from another
    frame)? The overlap the recognizer's own suppression calls one card (IoU 0.5)."""
    qa = cv2.convexHull(np.array(a.quad or box_quad(a.box), np.float32))
    qb = cv2.convexHull(np.array(b.quad or box_quad(b.box), np.float32))
    inter, _ = cv2.intersectConvexConvex(qa, qb)
    union = cv2.contourArea(qa) + cv2.contourArea(qb) - inter
    return union > 0 and inter >= 0.5 * union


def _quad_mask(quad, sl: tuple[slice, slice], scale: float) -> np.ndarray | None:
    """Pixels of the crop `sl` inside the card's corners (neighbours in its box are not it)."""
    if quad is None:
        return None
    ys, xs = sl
    m = np.zeros((ys.stop - ys.start, xs.stop - xs.start), np.uint8)
    pts = np.array(quad, np.float32) * scale - np.array([xs.start, ys.start], np.float32)
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 1)
    return m.astype(bool) if m.any() else None


class DiscardTracker:
    def __init__(self, config: TrackerConfig):
        self.cfg = config
        self.known: list[_Known] = []
        self.window: deque[tuple[int, list[CardDetection]]] = deque(maxlen=config.window)
        self.visited = not config.require_activity  # a hand/motion came by since last decision
        self.empty_frames = 0
        self._grey: np.ndarray | None = None
        self._settled: np.ndarray | None = None  # grey when the pile last settled
        self._as_found = True  # no hand has come over the pile since the tracker started
        self._occluded_frames = 0
        self._scale = 0.25
        self._sizes: deque[float] = deque(maxlen=200)  # long sides of cards read lately
        self._waited = 0  # frames the pile's settling waited for a card still gathering hits
        self._last_time = 0.0  # the timestamp of the window's newest frame

    # ------------------------------------------------------------ pixels
    def _snapshot(self, box) -> np.ndarray | None:
        sl = _crop(self._grey, box, self._scale)
        return None if sl is None else self._grey[sl].copy()

    def _changed(self, k: _Known) -> float:
        """Share of a known card (inside its corners when known) whose pixels changed since
        the pile last settled."""
        sl = _crop(self._grey, k.box, self._scale)
        if sl is None or k.snapshot is None or self._grey[sl].shape != k.snapshot.shape:
            return 0.0
        return changed_share(self._grey[sl], k.snapshot, _quad_mask(k.quad, sl, self._scale))

    def _remember(self, c: _Cluster, first: bool = False) -> None:
        """Add a card to the pile's memory (the newest 12 are kept). `first`: an older card
        (under the ones just played), so it goes before them and is forgotten first."""
        k = _Known(c.card, c.pose, c.box, c.quad, self._snapshot(c.box))
        if first:
            self.known.insert(0, k)
        else:
            self.known.append(k)
        del self.known[:-12]

    def _changed_share(self, c: _Cluster, over: list[_Cluster] = ()) -> float | None:
        """Share of the pixels where `c` lies that changed since the pile last settled,
        leaving out where the cards `over` lie; None when there is nothing to compare (no
        settled pile yet, or all but a sliver of `c` lies under them)."""
        if self._settled is None or self._settled.shape != self._grey.shape:
            return None
        sl = _crop(self._grey, c.box, self._scale)
        mask = None if sl is None else _quad_mask(c.quad or box_quad(c.box), sl, self._scale)
        if mask is None:
            return None
        own = int(np.count_nonzero(mask))
        for d in over:
            m = _quad_mask(d.quad or box_quad(d.box), sl, self._scale)
            if m is not None and not _one_card(c, d):
                # and its blurred edge (the monitor's grey is blurred over 2 pixels)
                mask &= ~cv2.dilate(m.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        if np.count_nonzero(mask) < 0.1 * own:
            return None
        return changed_share(self._grey[sl], self._settled[sl], mask)

    def _laid_with(self, c: _Cluster, whole: float | None, others: list[_Cluster]) -> bool:
        """Is `c` (`whole`: the share of its box that changed) a card laid in this visit,
        beside the other cards that changed? An older card (misread once partly covered,
        the same face where it lay) changed only under the new ones; a new card changed
        where it shows outside them too. A middle card of a fan may lie all but hidden
        between its neighbours' boxes: then most of its box changed, far more than an older
        card's edge does."""
        rest = self._changed_share(c, others)
        if rest is not None:
            return rest >= 2 * self.cfg.changed_fraction
        return whole is None or whole >= MOSTLY_CHANGED

    def _refresh(self, dets: list[CardDetection]) -> None:
        """The pile settled: known cards still seen take their current look, so a later
        change means something new lies on them."""
        self._settled = self._grey
        for k in self.known:
            k.seen_at_settle = any(
                d.card == k.card and same_pose(pose_of(d), k.pose, self.cfg) for d in dets
            )
            if k.seen_at_settle:
                k.snapshot = self._snapshot(k.box)

    def _card_sized(self, dets: list[CardDetection]) -> list[CardDetection]:
        """Cards on a flat table are all one size. A much smaller box is a part of a card
        (the corner index of one mostly covered by newer cards), not a card of its own; the
        detector's boxes of partly covered cards are whole (it learnt whole cards).
        The size is learnt only from readings sure enough to become facts: on a bare mat the
        detector boxes the printed discard field (twice a card) and a classifier may name it
        faintly, again and again, until every real card looked like a part of one."""
        sizes = [pose_of(d).size for d in dets]
        self._sizes.extend(
            size for d, size in zip(dets, sizes, strict=True) if d.confidence >= self.cfg.min_median_confidence
        )
        if len(self._sizes) < 20:
            return dets
        least = 0.6 * median(self._sizes)
        return [d for d, size in zip(dets, sizes, strict=True) if size >= least]

    # ------------------------------------------------------------ decisions
    def _clusters(self) -> list[_Cluster]:
        clusters: list[_Cluster] = []
        for n, dets in self.window:
            for d in dets:
                p = pose_of(d)
                for c in clusters:
                    if c.card == d.card and same_pose(c.pose, p, self.cfg) and n not in c.frames:
                        c.confidences.append(d.confidence)
                        c.frames.add(n)
                        c.readings.append(_reading(d))
                        c.pose, c.box, c.quad = p, d.box, d.quad  # latest: the card at rest
                        break
                else:
                    clusters.append(_Cluster(d.card, p, d.box, d.quad, [d.confidence], {n}, [_reading(d)]))
        return clusters

    def _match(self, c: _Cluster) -> str:
        """'known': a card already on the pile; 'new': a card never seen there; 'same-face':
        the same face where one lies already, after a hand came by; 'inside': the same face
        boxed smaller inside a known card's box. Only 'known' is decided here: the others
        are new if their pixels say so (`update`)."""
        verdict = "new"
        for k in self.known:
            # The same face at the same place; the angle of a partly covered card's visible
            # part is no guide (its box turns with what shows), so only the centre counts.
            same_place = same_pose(k.pose, c.pose, self.cfg) or (
                k.card == c.card and math.hypot(k.pose.cx - c.pose.cx, k.pose.cy - c.pose.cy)
                <= self.cfg.same_pose_shift * max(k.pose.size, c.pose.size, 1.0)
            )  # fmt: skip
            if same_place:
                if not self.visited:
                    return "known"  # re-read of a resting card, not a play
                if k.card != c.card:
                    continue
                # A card buried when the pile last settled says nothing of what lies there
                # now: a twin laid just there looks the same as it did (the generic game of
                # seed 3, play 9) and, boxed by its part that shows, smaller (the warm print's
                # game of seed 4, play 170). The pile's pixels since it settled decide.
                if k.seen_at_settle:
                    # One seen then and seen smaller now is partly covered (a reveal laid
                    # over its edge), not a new card on top, which changes much of its face.
                    if _smaller(c.pose, k.pose) or self._changed(k) < 2 * self.cfg.changed_fraction:
                        return "known"
                verdict = "same-face"
            elif (
                k.card == c.card and k.seen_at_settle
                and _inside_fraction(c.box, k.box) >= 0.6 and _smaller(c.pose, k.pose)
            ):
                # That card now partly covered by a newer one or boxed anew, or a twin laid
                # beside it: new only if most of its box changed. A card buried when the
                # pile last settled is none of these: the face seen there is its twin.
                verdict = "inside"
        return verdict

    def _occluded(self, dets: list[CardDetection]) -> bool:
        """A card seen when the pile last settled vanished, its pixels changed, and no card
        unknown to the pile lies there: something (a sleeve, a hand the skin test missed)
        covers it."""
        fresh = [
            d for d in dets
            if not any(d.card == k.card and same_pose(pose_of(d), k.pose, self.cfg) for k in self.known)
        ]
        for k in self.known:
            if not k.seen_at_settle:
                continue
            if any(d.card == k.card and same_pose(pose_of(d), k.pose, self.cfg) for d in dets):
                continue
            if any(_inside_fraction(k.box, d.box) > 0.2 for d in fresh):
                continue  # a new card lies where it was: a play, not a sleeve
            if self._changed(k) >= 3 * self.cfg.changed_fraction:
                return True
        return False

    def update(
        self, number: int, timestamp: float, dets: list[CardDetection], covered: bool,
        features: FrameFeatures | None = None,
    ) -> CardsPlayed | None:
        cfg = self.cfg
        played = None
        if covered and self.visited and 2 <= len(self.window) < cfg.window:
            # The next hand came before the window filled (a quick player leaves the pile in
            # view for two or three frames): what it showed in every one of them was laid by
            # the hand that left, decided on those frames' pixels (this one's not yet taken).
            n, last = self.window[-1]
            played = self._decide(n, self._last_time, last, min_hits=len(self.window), cut_short=True)
        if features is not None:
            self._grey, self._scale = features.grey, features.scale
        dets = self._card_sized([d for d in dets if d.card != "back"])
        occluded = not covered and self._occluded(dets)
        self._occluded_frames = self._occluded_frames + 1 if occluded else 0
        if occluded and self._occluded_frames >= cfg.absorb_frames:
            # Still "occluded" with no hand seen: the missing cards are buried, not covered
            # by a sleeve. Stop waiting for them (a wait without end would lose the game).
            for k in self.known:
                if not any(d.card == k.card and same_pose(pose_of(d), k.pose, cfg) for d in dets):
                    k.seen_at_settle = False
            occluded = False
        if covered or occluded:
            self.window.clear()
            self.visited = True
            self._as_found = False
            self._waited = 0
            return played
        self.window.append((number, dets))
        self._last_time = timestamp
        if not dets:
            self.empty_frames += 1
            if self.empty_frames >= cfg.window * 4 and self.known:
                self.known.clear()  # the pile was taken away (new round, reshuffle)
        else:
            self.empty_frames = 0
        if not self.visited:
            if self._as_found and features is not None:
                # The pile as the camera found it, before any hand came, is settled: a reading
                # whose pixels have not changed since is nothing laid. Off the mat a patterned
                # cloth read as `green-7` from the first frame was reported as a play when a
                # hand first passed over it (bare procedural tables 170 and 171, tools/bare_tables.py).
                self._settled = self._grey
            return None
        return self._decide(number, timestamp, dets, cfg.min_hits)

    def _decide(
        self, number: int, timestamp: float, dets: list[CardDetection], min_hits: int,
        cut_short: bool = False,
    ) -> CardsPlayed | None:
        """The visit's verdict over the window: the cards it laid, or None (wait, or nothing
        new). cut_short: the window will get no more frames (a hand came back)."""
        cfg = self.cfg
        clusters = self._clusters()
        stable = [
            c for c in clusters
            if c.hits >= min_hits and median(c.confidences) >= cfg.min_median_confidence
        ]
        steady = {id(c) for c in stable}
        verdicts = {id(c): self._match(c) for c in clusters}
        # A card laid in this visit changed the pixels where it lies since the pile last
        # settled (see `_laid_with` when several did). Unsure cards count as laid too:
        # their landing changed the pixels.
        whole = {id(c): self._changed_share(c) for c in clusters if verdicts[id(c)] != "known"}
        laid = [
            c for c in clusters
            if id(c) in whole and (whole[id(c)] is None or whole[id(c)] >= cfg.changed_fraction)
        ]
        # The cards a new one may have been laid beside. An unsure reading at the place of a
        # known card of its face is not one: it is that card re-read, its pixels changed where
        # the new card landed on it (the warm print's game of seed 3, play 134: a `blue-5`
        # read 0.32 under the `blue-7` laid on it hid the new card's changed pixels, and the
        # play was lost).
        beside = [d for d in laid if id(d) in steady or verdicts[id(d)] not in ("same-face", "inside")]
        new: list[_Cluster] = []
        for c in sorted(stable, key=lambda c: (-c.hits, -median(c.confidences))):
            if not any(c is d for d in laid) or any(_one_card(c, n) for n in new):
                continue
            others = [d for d in beside if d is not c]
            share = whole[id(c)]
            if others:
                if self._laid_with(c, share, others):
                    new.append(c)
            elif verdicts[id(c)] != "inside" or share is None or share >= MOSTLY_CHANGED:
                new.append(c)
        # Wait for cards of the same multi-play that are still gathering hits.
        pending = [
            c for c in clusters
            if c not in stable and verdicts[id(c)] != "known"
            and c.hits + (cfg.window - len(self.window)) >= min_hits
        ]
        if cut_short and not new:
            return None  # too few frames to settle the pile on
        window_full = cut_short or len(self.window) >= cfg.window
        if window_full and not new and self._waited < cfg.window:
            # A card laid in this visit, in view now but seen in too few frames yet (the
            # withdrawing hand hid part of it at first): the window slides on until it has
            # its hits, a window's length at most, before the pile settles without it.
            if any(number in c.frames and id(c) not in steady for c in laid):
                self._waited += 1
                return None
        if new and (not pending or window_full):
            self._waited = 0
            self._refresh(dets)
            for c in new:
                self._remember(c)
            # Older cards in view all along (uncovered earlier, never played in sight) become
            # known too, or a later play that brushes them would make them look new.
            for c in stable:
                if c not in new and verdicts[id(c)] == "new" and not any(
                    same_pose(k.pose, c.pose, cfg) for k in self.known
                ):
                    self._remember(c, first=True)
            self.visited = not cfg.require_activity
            # Bottom to top: the card on top of a multi-play shows whole (corners found,
            # largest visible area); the referee takes the last one as the top card.
            ordered = sorted(new, key=lambda c: (c.pose.angle is not None, c.pose.area))
            cards = tuple(
                c.observed([o for o in clusters if o.card != c.card and _one_card(c, o)]) for c in ordered
            )
            return CardsPlayed(cards, number, timestamp, min(o.confidence for o in cards))
        if window_full and not new:
            # The hand left nothing new; later re-reads must not count as plays. Cards that
            # were there all along become known without a report.
            self._waited = 0
            self._refresh(dets)
            for c in stable:
                if not any(same_pose(k.pose, c.pose, cfg) for k in self.known):
                    self._remember(c)
            self.visited = not cfg.require_activity
        return None


def _plausible_reveal(d: CardDetection, cfg: TrackerConfig) -> bool:
    """A revealed card lies whole (or nearly, in an overlapping row): read with some
    confidence, and card-shaped. Slivers between cards and the printed zone's own outline are
    not cards, and a wrong extra card in a revealed hand changes the score."""
    if d.confidence < cfg.min_median_confidence:
        return False
    if d.quad is None or len(d.quad) != 4:
        return True
    sides = [math.dist(d.quad[i], d.quad[(i + 1) % 4]) for i in range(4)]
    long_, short = max(sides[0], sides[1]), min(sides[0], sides[1])
    return long_ > 0 and short / long_ >= 0.4


def _quad_crop(features: FrameFeatures | None, quad: np.ndarray) -> tuple[slice, slice] | None:
    """`_crop` of the box around `quad` in the frame's monitor-scale grey."""
    if features is None:
        return None
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    return _crop(features.grey, (x0, y0, x1, y1), features.scale)


def _quad_of(d: CardDetection) -> np.ndarray:
    if d.quad is not None and len(d.quad) == 4:
        return np.asarray(d.quad, np.float32)
    x0, y0, x1, y1 = d.box
    return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float32)


def _convex(q: np.ndarray) -> np.ndarray:
    return cv2.convexHull(q.reshape(-1, 1, 2)).reshape(-1, 2)


def _inside(inner: np.ndarray, outer: np.ndarray) -> float:
    """Share of the quad `inner` that lies inside the quad `outer`."""
    area = cv2.contourArea(inner)
    if area <= 1e-6:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(_convex(inner), _convex(outer))
    return float(inter) / area


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two quads."""
    inter, _ = cv2.intersectConvexConvex(_convex(a), _convex(b))
    union = cv2.contourArea(a) + cv2.contourArea(b) - float(inter)
    return float(inter) / union if union > 1e-6 else 0.0


def _covered_share(quad: np.ndarray, above: list[np.ndarray]) -> float:
    """Share of `quad` under the union of the quads `above` (drawn small: a fraction will do)."""
    if not above:
        return 0.0
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    k = 48.0 / max(1.0, float(max(x1 - x0, y1 - y0)))
    size = (int(math.ceil((y1 - y0) * k)) + 2, int(math.ceil((x1 - x0) * k)) + 2)
    to = lambda q: np.round((q - (x0, y0)) * k).astype(np.int32)  # noqa: E731
    own = np.zeros(size, np.uint8)
    cv2.fillPoly(own, [to(quad)], 255)
    over = np.zeros(size, np.uint8)
    for q in above:  # one by one: fillPoly leaves out where polygons given together overlap
        cv2.fillPoly(over, [to(q)], 255)
    area = np.count_nonzero(own)
    return float(np.count_nonzero(own & over)) / area if area else 0.0


# A detection is a reading of a card laid before when this much of it lies inside that card.
_SAME_CARD = 0.85
# A reading of a card's face overlapping it this much (intersection over union) may be a box
# slipped off the card, half under the next one (the shipped model's, measured: 0.63).
_NEAR = 0.4
# A card not seen in a clear frame is still there when this much of it lies under cards laid
# after it that are still there themselves.
_UNDER = 0.25
# A card not read and not under others is still there while its place looks as it did when it
# last was (the detector missed it): under this share of its pixels changed. Where it changed
# in this many clear frames in a row, it was taken away (the zone swept).
_STILL = 0.2
_GONE = 2
# A reading whose box still looks as the bare zone did is the zone's own print, not a card:
# the mat's empty green beside a revealed row was boxed and read `green-1` at 0.5 and scored
# as a card in 13 of 22 revealed hands (rendered game seed 4). Every card laid changed at
# least 0.57 of its box from the bare zone there, the empty zone at most 0.13.
_BARE_CHANGED = 0.35
# Share of a zone's printed field on the mat a box must cover to be the field itself.
FIELD_SHARE = 0.6


@dataclass
class _Laid:
    """A card laid in the reveal zone: where it lies (its largest view: whole when it was the
    top card) and every reading of it."""

    quad: np.ndarray
    det: CardDetection
    readings: list[tuple[tuple[str, float], ...]] = field(default_factory=list)
    confidences: dict[str, list[float]] = field(default_factory=dict)
    absent: int = 0  # clear frames in a row it was neither seen nor under cards still there
    read_since_visit: bool = False  # its face read since a hand last came over the zone
    snapshot: np.ndarray | None = None  # grey of its place (monitor scale) when last there
    rivals: dict[str, list[CardDetection]] = field(default_factory=dict)  # other faces read there since

    @property
    def card(self) -> str:
        return pool_candidates(self.readings, k=1)[0][0]

    def add(self, d: CardDetection) -> None:
        self.readings.append(_reading(d))
        self.confidences.setdefault(d.card, []).append(d.confidence)
        q = _quad_of(d)
        if cv2.contourArea(q) > cv2.contourArea(self.quad):
            self.quad, self.det = q, d

    def observed(self) -> ObservedCard:
        card, p = self.card, pose_of(self.det)
        conf = median(self.confidences.get(card) or [c for cs in self.confidences.values() for c in cs])
        return ObservedCard(card, conf, self.det.box, (p.cx, p.cy), p.angle, pool_candidates(self.readings))


class RevealTracker:
    """The cards laid face up in the reveal zone. A hand is laid card by card, each on top of
    the ones before; in a long row every card ends up mostly under the next, past reading. So
    each card is read while it shows (as the top card, in the clear frames between two
    cards), and it stays laid while it is seen, while a good part of it lies under cards laid
    after it that are still there, or while its place looks as it did (the detector missed
    it, or it lies under a card just laid and not read yet); a card whose place looks bare
    (as the zone did before anything was laid) in two clear frames in a row, or in the last
    clear frame before a hand came, was taken away (the zone swept), so the next hand laid
    there starts on a bare zone however soon it comes. Readings while a hand is over the
    zone count as readings of cards laid before that they lie inside, never as new cards. A
    reading whose box still looks as the bare zone did is the zone's own print, never a card
    (`_BARE_CHANGED`); before any hand came over the zone, what the camera finds there is the
    bare zone, not cards laid (`require_activity`). The set of cards laid is reported when it
    holds for `reveal_frames` clear frames and differs from the last report."""

    def __init__(self, config: TrackerConfig):
        self.cfg = config
        self.laid: list[_Laid] = []  # bottom to top: in the order they were laid
        self.history: deque[tuple[str, ...]] = deque(maxlen=config.reveal_frames)
        self.reported: tuple[str, ...] | None = ()
        self.bare: np.ndarray | None = None  # grey of the frame (monitor scale) with the zone bare
        self.under_hand: list[CardDetection] = []  # readings of no card laid, this hand's visit
        # no hand or motion has come over the zone since the tracker started (`require_activity`)
        self._as_found = config.require_activity

    def _match(self, faces: list[CardDetection]) -> set[int]:
        """Each reading to the card laid before that it reads, or a new card; the indexes of
        the cards seen. A reading lies inside the card it reads (the topmost such: a card
        shows only where nothing laid later lies) or holds it whole (the card's first view
        was half hidden), its face read or misread. A model's box around a card half under
        the next one can slip off it: a reading of a card's face over a good part of it is
        that card when the card now lies partly under one laid later, and else a second card
        of that face laid on it."""
        quads = [_quad_of(d) for d in faces]
        seen: set[int] = set()
        left = list(range(len(faces)))
        for same_face in (True, False):
            rest = []
            for i in left:
                d, q = faces[i], quads[i]
                match = None
                for j in reversed(range(len(self.laid))):
                    laid = self.laid[j]
                    if j in seen or (laid.card == d.card) != same_face:
                        continue
                    if _inside(q, laid.quad) >= _SAME_CARD or (same_face and _inside(laid.quad, q) >= _SAME_CARD):
                        match = j
                        break
                if match is None:
                    rest.append(i)
                else:
                    self._read(match, d, same_face, seen)
            left = rest
        near: dict[int, int] = {}  # reading -> the card of its face it overlaps most
        for i in left:
            best = max(
                (j for j in range(len(self.laid)) if j not in seen and self.laid[j].card == faces[i].card),
                key=lambda j: _overlap(quads[i], self.laid[j].quad), default=None,
            )
            if best is not None and _overlap(quads[i], self.laid[best].quad) >= _NEAR:
                near[i] = best
        for i in left:  # readings of no card laid before: cards just laid, on top
            if i not in near:
                self._lay(faces[i], quads[i], seen)
        for i, j in near.items():
            above = [c.quad for c in self.laid[j + 1:]]
            if j not in seen and _covered_share(self.laid[j].quad, above) >= _UNDER / 2:
                self.laid[j].add(faces[i])
                seen.add(j)
            else:
                self._lay(faces[i], quads[i], seen)
        return seen

    def _vote(self, faces: list[CardDetection]) -> None:
        """Readings while a hand is over the zone count only as readings of cards laid before
        that they lie inside, or of the card this hand is laying once it is found (a card is
        read as the withdrawing hand uncovers it, not only in the clear frames before the next
        hand comes)."""
        used: set[int] = set()
        for d in faces:
            q = _quad_of(d)
            for same_face in (True, False):
                j = next((j for j in reversed(range(len(self.laid))) if j not in used
                          and (self.laid[j].card == d.card) == same_face and _inside(q, self.laid[j].quad) >= _SAME_CARD), None)  # fmt: skip
                if j is not None:
                    self.laid[j].add(d)
                    used.add(j)
                    break
            else:
                self.under_hand.append(d)

    def _read(self, j: int, d: CardDetection, same_face: bool, seen: set[int]) -> None:
        """A reading inside the card laid `j`th. Another face read where the top card lies,
        after a hand came by and before its own face is read again, may be a card just laid on
        it whose box the model drew small: read twice so, with the card's own face not read
        meanwhile, it is that new card; else a misread of the card."""
        laid = self.laid[j]
        seen.add(j)
        if same_face:
            laid.add(d)
            laid.read_since_visit = True
            for ds in laid.rivals.values():
                for r in ds:
                    laid.add(r)
            laid.rivals.clear()
            return
        if laid.read_since_visit or _covered_share(laid.quad, [c.quad for c in self.laid[j + 1:]]) >= _UNDER / 2:
            laid.add(d)
            return
        rivals = laid.rivals.setdefault(d.card, [])
        rivals.append(d)
        if len(rivals) >= 2:
            del laid.rivals[d.card]
            self._lay(rivals[0], _quad_of(rivals[0]), seen)
            for r in rivals[1:]:
                self.laid[-1].add(r)

    def _lay(self, d: CardDetection, q: np.ndarray, seen: set[int]) -> None:
        self.laid.append(_Laid(q, d, read_since_visit=True))
        self.laid[-1].add(d)
        seen.add(len(self.laid) - 1)
        rest = []
        for r in self.under_hand:  # read as the hand that laid it left
            if _inside(_quad_of(r), q) >= _SAME_CARD:
                self.laid[-1].add(r)
            else:
                rest.append(r)
        self.under_hand = rest

    def _on_bare(self, d: CardDetection, features: FrameFeatures | None) -> bool:
        """The reading's box looks as the zone did bare (under _BARE_CHANGED of it changed)."""
        if features is None or self.bare is None or self.bare.shape != features.grey.shape:
            return False
        crop = _quad_crop(features, _quad_of(d))
        return crop is not None and changed_share(features.grey[crop], self.bare[crop]) < _BARE_CHANGED

    def update(
        self, number: int, timestamp: float, dets: list[CardDetection], covered: bool,
        features: FrameFeatures | None = None,
    ):
        faces = [d for d in dets if d.card != "back" and _plausible_reveal(d, self.cfg)
                 and not self._on_bare(d, features)]
        if covered:
            self._as_found = False
            if self.history:  # a hand comes: a card whose place was bare just before is gone
                self.laid = [c for c in self.laid if c.absent == 0]
                self.under_hand = []
            self.history.clear()
            for laid in self.laid:
                laid.read_since_visit = False
                laid.rivals.clear()
            self._vote(faces)
            return None
        if self._as_found:
            # The zone as the camera found it, before any hand came over it: nothing read there
            # was laid, and its look is the bare zone's. A patterned cloth off the mat was read
            # as a `green-7` from the first frame, so never seen bare, and reported as a
            # revealed hand (2 of 200 bare procedural tables, tools/bare_tables.py).
            if features is not None:
                self.bare = features.grey
            return None
        if (features is not None and not self.laid and not faces and len(self.history) == self.cfg.reveal_frames
                and not any(self.history)):  # fmt: skip
            self.bare = features.grey  # nothing laid nor read for a while (not a card missed once)
        seen = self._match(faces)
        # Top down: a card is still there when seen, or under cards laid later still there,
        # or where its place did not change.
        there: list[np.ndarray] = []
        grey = features.grey if features is not None else None
        for j in reversed(range(len(self.laid))):
            laid = self.laid[j]
            crop = _quad_crop(features, laid.quad)
            now = grey[crop] if crop is not None else None
            if j in seen or _covered_share(laid.quad, there) >= _UNDER:
                laid.absent, laid.snapshot = 0, now
                there.append(laid.quad)
            elif (now is not None and laid.snapshot is not None and now.shape == laid.snapshot.shape
                  and changed_share(now, laid.snapshot) < _STILL):
                laid.absent = 0
                there.append(laid.quad)
            elif now is not None and self.bare is not None and self.bare.shape == grey.shape and (
                    changed_share(now, self.bare[crop]) >= _STILL):
                there.append(laid.quad)  # something else lies there now, not read yet
            else:
                laid.absent += 1  # its place is bare
        gone = _GONE if grey is not None else self.cfg.reveal_frames
        self.laid = [c for c in self.laid if c.absent < gone]
        key = tuple(sorted(c.card for c in self.laid))
        self.history.append(key)
        if len(self.history) < self.cfg.reveal_frames:
            return None
        if any(k != key for k in self.history) or key == self.reported:
            return None
        self.reported = key
        cards = tuple(sorted((c.observed() for c in self.laid), key=lambda o: (o.box[0], o.box[1])))
        conf = min((c.confidence for c in cards), default=1.0)
        return CardsRevealed(cards, number, timestamp, conf)


class TableTracker:
    """Runs the zone monitors and the per-zone trackers on each frame's detections."""

    def __init__(self, zones: ZoneLayout, config: TrackerConfig | None = None):
        self.cfg = config or TrackerConfig()
        self.discard = DiscardTracker(self.cfg)
        self.reveal = RevealTracker(self.cfg)
        self._draw_dwell = 0
        self._tips: list[tuple[float, float]] = []  # fingertips in the last frame (monitor scale)
        self._static_skin: np.ndarray | None = None
        self._static_small: np.ndarray | None = None  # the table at rest (BGR) and the white
        self._static_gains = None  # balance its skin was found under
        self._blob_labels: np.ndarray | None = None  # last frame's skin blobs and where
        self._blob_entries: dict[int, tuple[float, float]] = {}  # each came into view
        self.set_zones(zones)

    def set_zones(self, zones: ZoneLayout) -> None:
        """New zones (mat found again after the camera moved): monitors start over."""
        self.zones = zones
        self.monitors = {
            name: ZoneMonitor(z, self.cfg, grow=0.3 if name == "discard" else 0.0)
            for name, z in zones.zones.items()
        }
        # the printed fields' areas (`_is_printed_field`); a zone drawn by hand may be drawn
        # tight around the pile, so only the mat's
        self._fields = {
            name: cv2.contourArea(z.polygon.reshape(-1, 1, 2).astype(np.float32))
            for name, z in zones.zones.items()
        } if zones.source == "mat" else {}

    def _is_printed_field(self, d: CardDetection, zone: str) -> bool:
        """On the mat, a box as large as most of its zone is the zone's printed field, not a
        card: a card is a fifth of the discard field and two fifths of the draw field
        (FIELD_SHARE). The empty discard field at a game's start was boxed whole and read
        `green-1` 0.51, and reported as a play (rendered game seed 3, a candidate classifier)."""
        field = self._fields.get(zone, 0.0)
        return field > 0 and cv2.contourArea(_quad_of(d)) >= FIELD_SHARE * field

    def monitor(self, f: FrameFeatures) -> dict[str, ZoneActivity]:
        """Run the zone monitors on a frame (hands, motion). Done before detection, so a zone
        a hand covers is not read at all: its cards would be ignored anyway."""
        return {n: m.update(f) for n, m in self.monitors.items()}

    def update(
        self, number: int, timestamp: float, image, detections: list[CardDetection],
        features: FrameFeatures | None = None, activity: dict[str, ZoneActivity] | None = None,
    ) -> list[Observation]:
        """`activity`: this frame's `monitor()` result when already run."""
        f = features or FrameFeatures.of(image)
        out: list[Observation] = []
        by_zone: dict[str, list[CardDetection]] = {n: [] for n in self.zones.zones}
        discard = self.monitors.get("discard")
        for d in detections:
            p = pose_of(d)
            z = self.zones.zone_of((p.cx, p.cy))
            if z is None and discard is not None and discard.watches((p.cx, p.cy), f):
                z = "discard"  # a fanned multi-play spills over the pile's printed edge
            if z is not None and not self._is_printed_field(d, z):
                by_zone[z].append(d)
        act = activity if activity is not None else self.monitor(f)
        for name, a in act.items():
            if a.covered and a.still >= STILL_READ and name in by_zone:
                sure = [d.quad or box_quad(d.box) for d in by_zone[name] if d.confidence >= SURE_CARD]
                self.monitors[name].absorb(sure, f.scale)  # clear from the next frame on
        if "discard" in act:
            a = act["discard"]
            if a.changed:
                out.append(PileCovered(a.covered, number, timestamp, a.confidence))
            played = self.discard.update(number, timestamp, by_zone["discard"], a.covered, f)
            if played is not None:
                out.append(played)
        if "reveal" in act:
            r = self.reveal.update(number, timestamp, by_zone["reveal"], act["reveal"].covered, f)
            if r is not None:
                out.append(r)
        tips = None
        if any(a.covered for a in act.values()):
            tips = self._fingertips(f)
        else:
            self._blob_labels, self._blob_entries = None, {}
            # The table at rest: skin-coloured things lying there (a card's red, the back's
            # oval) are not hands.
            self._static_skin = skin_at_rest(f.skin)
            self._static_small, self._static_gains = f.small, f.gains
        if "draw" in act:
            a = act["draw"]
            # A hand that stops with its fingertips on the draw pile. An arm passing over the
            # draw zone on its way to the discard pile has its fingertips there, not here;
            # a hand sweeping across never stops.
            if a.covered:
                tips = self._fingertips(f) if tips is None else tips
                still = self.cfg.draw_still * f.grey.shape[1]
                if any(
                    self._on_draw_pile((x / f.scale, y / f.scale))
                    and any(math.hypot(x - px, y - py) <= still for px, py in self._tips)
                    for x, y in tips
                ):
                    self._draw_dwell += 1
                self._tips = tips
            elif a.changed:
                if self._draw_dwell >= self.cfg.draw_min_frames:
                    out.append(LikelyDraw(number, timestamp, min(1.0, 0.6 + 0.1 * self._draw_dwell)))
                self._draw_dwell = 0
                self._tips = []
        return out

    def _on_draw_pile(self, point: tuple[float, float]) -> bool:
        """Fingertips on the draw pile: inside its zone or just past its printed edge
        (fingers reach over a pile)."""
        zone = self.zones.zones["draw"]
        x0, y0, x1, y1 = zone.bounds()
        margin = 0.25 * min(x1 - x0, y1 - y0)
        poly = zone.polygon.reshape(-1, 1, 2)
        if cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), True) < -margin:
            return False
        # Nor on the discard pile or the reveal zone: a hand laying a card there rests too.
        return not any(
            z is not None and z.contains(point)
            for z in (self.zones.zones.get("discard"), self.zones.zones.get("reveal"))
        )

    def _fingertips(self, f: FrameFeatures) -> list[tuple[float, float]]:
        """Where each hand reaches to (monitor scale): of each skin-coloured blob (beyond
        what the table at rest shows), the point farthest from where that hand first came
        into view. An arm comes in from its player's side, so its far end is the fingers,
        whichever zones the arm crosses on its way."""
        if (f.gains != self._static_gains and f.small is not None and self._static_small is not None
                and self._static_small.shape == f.small.shape):
            # The light was learnt anew under a hand: the table at rest seen under the new
            # white balance is what is no hand (a card's orange may turn skin-coloured).
            self._static_skin = skin_at_rest(skin_mask(self._static_small, f.gains))
            self._static_gains = f.gains
        skin = f.skin if self._static_skin is None or self._static_skin.shape != f.skin.shape else (
            cv2.bitwise_and(f.skin, cv2.bitwise_not(self._static_skin)))
        # A card held in the hand splits its skin into pieces (a thumb apart from the palm):
        # close small gaps so one hand is one blob.
        skin = cv2.dilate(skin, np.ones((5, 5), np.uint8))
        n, labels, stats, centroids = cv2.connectedComponentsWithStats(skin, connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA] if n > 1 else np.zeros(0)
        # Specks are no hands, nor is a piece far smaller than the biggest hand in view.
        min_area = max(12, skin.size // 5000, int(0.25 * areas.max()) if areas.size else 0)
        prev_labels, prev_entries = self._blob_labels, self._blob_entries
        entries: dict[int, tuple[float, float]] = {}
        tips = []
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] < min_area:
                continue
            ys, xs = np.nonzero(labels == i)
            entry = (float(centroids[i][0]), float(centroids[i][1]))  # a hand just come in
            if prev_labels is not None and prev_labels.shape == labels.shape:
                under = prev_labels[ys, xs]
                under = under[under > 0]
                if under.size:
                    entry = prev_entries.get(int(np.bincount(under).argmax()), entry)
            entries[i] = entry
            k = int(np.argmax((xs - entry[0]) ** 2 + (ys - entry[1]) ** 2))
            tips.append((float(xs[k]), float(ys[k])))
        self._blob_labels, self._blob_entries = labels, entries
        return tips

    @property
    def covered(self) -> dict[str, bool]:
        return {n: m.covered for n, m in self.monitors.items()}
