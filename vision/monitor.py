"""Is a zone covered by a hand? Decided from the image alone, never from the simulator.

Two cues on a reduced copy of the frame (cheap on a Pi): skin-coloured pixels above what the
zone showed when it was empty or at rest (a hand), and pixels changing between consecutive
frames (a hand, or a tossed card, moving). A zone is covered as soon as either cue fires and
clear again after a few quiet frames. The image of the zone just before a hand arrived is
kept, so the tracker can tell whether anything changed under the hand (a red 5 laid exactly on
a red 5 still changes the pixels along its edges).

Skin is told by its colour, so the light's colour matters: under a warm bulb a grey mat turns
skin-coloured and a hand turns redder than skin, and the zones would see hands where there
are none and none where there are. `TableLight` learns the light from the white of the cards
read lately (every UNO card has a white border) and the skin test runs on the frame white-
balanced by it."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import TrackerConfig
from vision.crops import white_reference
from vision.zones import Zone

SCALE = 0.25  # monitor resolution relative to the frame
CHANGE_LEVEL = 25  # grey levels (blurred, monitor scale) that count as a changed pixel


def changed_share(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Share of pixels (inside `mask` when given) whose grey moved by CHANGE_LEVEL or more."""
    changed = cv2.absdiff(a, b) > CHANGE_LEVEL
    if mask is None:
        return float(np.count_nonzero(changed)) / max(1, a.size)
    return float(np.count_nonzero(changed & mask)) / max(1, int(np.count_nonzero(mask)))


@dataclass
class FrameFeatures:
    """What every zone monitor needs from one frame, computed once."""

    grey: np.ndarray  # blurred grey at SCALE
    skin: np.ndarray  # uint8 0/255 skin mask at SCALE
    scale: float
    small: np.ndarray | None = None  # the BGR frame at SCALE, as the camera gave it
    gains: tuple[float, float, float] | None = None  # the white balance `skin` was found under

    @classmethod
    def of(cls, image: np.ndarray, scale: float = SCALE, gains: np.ndarray | None = None) -> FrameFeatures:
        """gains: per-channel (B, G, R) white balance for the skin test (`TableLight.gains`)."""
        h, w = image.shape[:2]
        small = shrink(image, max(1, int(w * scale)), max(1, int(h * scale)))
        grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        g = None if gains is None else tuple(float(v) for v in gains)
        return cls(grey, skin_mask(small, g), scale, small, g)


def shrink(image: np.ndarray, w: int, h: int) -> np.ndarray:
    """`image` area-averaged down to w x h, in halvings while the sides are even multiples of
    w and h: OpenCV's area resize is fast for a factor of two only (a 1280x720 frame to a
    quarter: 1.5 ms at once, 0.3 ms in two halvings, every frame), and the two agree within
    a grey level (other factors do not: the rest is done in one step)."""
    while image.shape[1] % (2 * w) == 0 and image.shape[0] % (2 * h) == 0:
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA)
    if image.shape[:2] != (h, w):
        image = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
    return image


def skin_mask(small: np.ndarray, gains=None) -> np.ndarray:
    """uint8 0/255: the skin-coloured pixels of a BGR image, white-balanced by `gains` first."""
    balanced = small if gains is None else cv2.convertScaleAbs(small * np.asarray(gains, np.float32))
    ycc = cv2.cvtColor(balanced, cv2.COLOR_BGR2YCrCb)
    # Skin tones of all shades cluster in Cr/Cb regardless of brightness (under white light).
    skin = cv2.inRange(ycc, (40, 138, 80), (240, 175, 128))
    return cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


class TableLight:
    """The light's colour on the table, from the white of the cards read lately.

    A card's white border is a white reference wherever it lies (`crops.white_reference`:
    the brighter, less coloured pixels of its box). The median of the last `keep` cards read
    surely, each scaled to unit mean, is the light; until `least` cards were read there is
    none (the camera's own white balance stands). A hand's shadow over one card, or one
    card read in a glare, moves the median little."""

    MIN_CONFIDENCE = 0.8  # a surely read card: its box is a card, so its white is one
    MAX_GAIN = 2.0  # most a channel is raised or lowered (as crops.normalize_colour)
    # The gains change only when the light moved by more than this (log, in any channel):
    # each change makes the monitors see their zones at rest anew.
    STEADY = 0.05

    def __init__(self, keep: int = 24, least: int = 3):
        self._whites: deque[np.ndarray] = deque(maxlen=keep)
        self._least = least
        self.gains: np.ndarray | None = None

    def observe(self, features: FrameFeatures, detections) -> None:
        """Learn from this frame's cards (frame pixels; `features` of the same frame)."""
        if features.small is None:
            return
        h, w = features.small.shape[:2]
        sc = features.scale
        for d in detections:
            if d.confidence < self.MIN_CONFIDENCE:
                continue
            x0, y0 = max(0, int(d.box[0] * sc)), max(0, int(d.box[1] * sc))
            x1, y1 = min(w, int(d.box[2] * sc + 1)), min(h, int(d.box[3] * sc + 1))
            if (x1 - x0) * (y1 - y0) < 64:
                continue  # too few pixels at the monitor's scale to find a border in
            white = white_reference(features.small[y0:y1, x0:x1])
            if white.min() < 16:
                continue  # a dark box (a back in shadow): no white to go by
            self._whites.append(white / white.mean())
        if len(self._whites) >= self._least:
            light = np.median(np.stack(self._whites), axis=0)
            gains = np.clip(1.0 / light, 1.0 / self.MAX_GAIN, self.MAX_GAIN)
            if self.gains is None or np.abs(np.log(gains / self.gains)).max() > self.STEADY:
                self.gains = gains


@dataclass
class ZoneActivity:
    covered: bool
    changed: bool  # covered state flipped on this frame
    skin_excess: float
    moving: float
    confidence: float
    still: int = 0  # frames the skin-coloured excess has held without motion


# Covered by a still skin-coloured patch this many frames, a zone is read (`ZoneMonitor.absorb`).
STILL_READ = 3
# A still skin-coloured patch at least this much inside cards read surely is those cards.
ON_CARDS = 0.9


def skin_at_rest(zone_skin: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels of a zone (or the whole table) taken as part of it at rest, a
    little widened (a card's edge that moves a pixel is no hand)."""
    return cv2.dilate(zone_skin, np.ones((5, 5), np.uint8))


class ZoneMonitor:
    def __init__(self, zone: Zone, config: TrackerConfig, grow: float = 0.0):
        """grow: widen the watched area by this share of the zone's smaller side (cards
        whose centre lies in the zone hang over its edge, and so can hands over them)."""
        self.zone = zone
        self.grow = grow
        self._mask_key = None
        self._mask = None
        self.cfg = config
        self.covered = False
        self.ref_skin: np.ndarray | None = None  # skin-like pixels of the zone at rest
        self._prev: np.ndarray | None = None
        self._quiet = 0
        self._still = 0
        self.last_quiet: np.ndarray | None = None  # grey of the last clear frame
        self._quiet_small: np.ndarray | None = None  # its colour (monitor scale)
        self._gains = None  # the white balance ref_skin was found under
        self._zone_skin: np.ndarray | None = None  # this frame's skin-coloured pixels in the zone
        self.before_cover: np.ndarray | None = None  # grey just before the current/last cover
        self.current: np.ndarray | None = None
        self.peak_skin = 0.0
        self.cover_frames = 0  # frames of the current/last cover episode

    def update(self, f: FrameFeatures) -> ZoneActivity:
        h, w = f.grey.shape
        mask = self._watched(w, h, f.scale)
        area = max(1, int(np.count_nonzero(mask)))
        zone_skin = cv2.bitwise_and(f.skin, mask)
        self._zone_skin = zone_skin
        if self.ref_skin is None:
            self.ref_skin = skin_at_rest(zone_skin)
        elif (
            f.gains != self._gains and f.small is not None
            and self._quiet_small is not None and self._quiet_small.shape == f.small.shape
        ):
            # The table's light was learnt anew: the zone at rest, seen under the new white
            # balance, is the reference (else the change itself would look like a hand).
            rest = cv2.bitwise_and(skin_mask(self._quiet_small, f.gains), mask)
            self.ref_skin = skin_at_rest(rest)
        self._gains = f.gains
        # Skin where the zone at rest had none: a skin-coloured table or card is no hand.
        skin = float(np.count_nonzero(cv2.bitwise_and(zone_skin, cv2.bitwise_not(self.ref_skin)))) / area
        moving = 0.0
        if self._prev is not None:
            diff = cv2.absdiff(f.grey, self._prev)
            moving = float(np.count_nonzero((diff > CHANGE_LEVEL) & (mask > 0))) / area
        self._prev = f.grey
        self.current = f.grey
        skin_excess = skin
        if moving <= self.cfg.motion_fraction and skin_excess > self.cfg.cover_skin_fraction:
            self._still += 1
            if self._still >= self.cfg.absorb_frames:
                # Skin-like pixels that never move (a new card's pink edge, a hand left
                # resting): take them as part of the zone at rest, or it never clears.
                self.ref_skin = skin_at_rest(zone_skin)
                skin_excess = 0.0
                self._still = 0
        else:
            self._still = 0
        raw = skin_excess > self.cfg.cover_skin_fraction or moving > self.cfg.motion_fraction
        was = self.covered
        if raw:
            if not self.covered:
                self.before_cover = self.last_quiet
                self.peak_skin = 0.0
                self.cover_frames = 0
            self.covered = True
            self._quiet = 0
            self.peak_skin = max(self.peak_skin, skin_excess)
            self.cover_frames += 1
        else:
            self._quiet += 1
            if self.covered and self._quiet >= self.cfg.quiet_frames:
                self.covered = False
            if not self.covered:
                self.last_quiet = f.grey
                self._quiet_small = f.small
                # Follow what the zone at rest looks like (new cards, light).
                self.ref_skin = skin_at_rest(zone_skin)
        strength = max(
            skin_excess / max(self.cfg.cover_skin_fraction, 1e-6),
            moving / max(self.cfg.motion_fraction, 1e-6),
        )
        if self.covered:
            conf = min(1.0, 0.5 + 0.25 * strength) if raw else 0.6
        else:
            conf = min(1.0, 0.5 + 0.5 * max(0.0, 1.0 - strength))
        return ZoneActivity(self.covered, self.covered != was, skin_excess, moving, conf, self._still)

    def absorb(self, quads, scale: float) -> bool:
        """A still skin-coloured patch lying on cards the detector reads surely (`quads`,
        frame pixels) is their colour (an orange print's field under a warm bulb), not a
        hand: the zone at rest takes it now, not after `absorb_frames`. A hand on a card
        reaches past it (fingers, the arm), so it stays. Returns whether it was taken."""
        if self.ref_skin is None or self._zone_skin is None or not quads:
            return False
        excess = cv2.bitwise_and(self._zone_skin, cv2.bitwise_not(self.ref_skin))
        total = int(np.count_nonzero(excess))
        if total == 0:
            return False
        cards = np.zeros_like(excess)
        cv2.fillPoly(cards, [np.round(np.asarray(q, np.float32) * scale).astype(np.int32) for q in quads], 255)
        if np.count_nonzero(cv2.bitwise_and(excess, cards)) < ON_CARDS * total:
            return False
        self.ref_skin = skin_at_rest(self._zone_skin)
        self._still = 0
        return True

    def _watched(self, w: int, h: int, scale: float) -> np.ndarray:
        key = (w, h, scale)
        if key != self._mask_key:
            mask = self.zone.mask(w, h, scale)
            if self.grow > 0:
                x0, y0, x1, y1 = self.zone.bounds()
                r = max(1, int(self.grow * min(x1 - x0, y1 - y0) * scale))
                mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
            self._mask_key, self._mask = key, mask
        return self._mask

    def watches(self, point: tuple[float, float], f: FrameFeatures) -> bool:
        """Is this frame point inside the watched (grown) area?"""
        h, w = f.grey.shape
        m = self._watched(w, h, f.scale)
        x, y = int(point[0] * f.scale), int(point[1] * f.scale)
        return 0 <= x < w and 0 <= y < h and bool(m[y, x])
