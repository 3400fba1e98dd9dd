"""Frames in, observations out: calibration, detector, tracker, with per-stage timings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from vision import detectors
from vision.calibration import Calibration
from vision.config import VisionConfig
from vision.detectors import Detector
from vision.frame import Frame
from vision.monitor import STILL_READ, FrameFeatures, TableLight, changed_share
from vision.observations import Observation
from vision.tracker import TableTracker
from vision.types import CardDetection
from vision.zones import ZoneLayout


@dataclass
class FrameResult:
    frame: Frame
    detections: list[CardDetection]
    observations: list[Observation]
    zones: ZoneLayout
    covered: dict[str, bool]
    timings: dict[str, float] = field(default_factory=dict)  # ms per stage
    regions_read: int | None = None  # zone crops the model read (the others were still)

    def to_json(self) -> dict:
        return {
            "frame": self.frame.number,
            "cards": [d.to_json() for d in self.detections],
            "observations": [o.to_json() for o in self.observations],
            "covered": self.covered,
            "timings_ms": {k: round(v, 2) for k, v in self.timings.items()},
        }


def _scale_detection(d: CardDetection, sx: float, sy: float) -> CardDetection:
    box = (d.box[0] * sx, d.box[1] * sy, d.box[2] * sx, d.box[3] * sy)
    quad = None if d.quad is None else tuple((x * sx, y * sy) for x, y in d.quad)
    return replace(d, box=box, quad=quad)


def _offset_detection(d: CardDetection, dx: float, dy: float) -> CardDetection:
    box = (d.box[0] + dx, d.box[1] + dy, d.box[2] + dx, d.box[3] + dy)
    quad = None if d.quad is None else tuple((x + dx, y + dy) for x, y in d.quad)
    return replace(d, box=box, quad=quad)


def zone_crop(bounds: tuple[float, float, float, float], margin: float, width: int, height: int,
              ) -> tuple[tuple[int, int, int, int], tuple[float, float, float, float]] | None:
    """The crop (x0, y0, x1, y1) the detector reads for a zone with these bounds: grown by
    `margin` of its short side (a card lying over the zone's edge is seen whole), cut to the
    frame; and the zone in the crop's own pixels (`CardRecognizer.recognize_timed`'s `own`: a
    strip of a neighbour's card the margin catches at the crop's edge is not named). None: a
    crop under 16 pixels a side."""
    x0, y0, x1, y1 = bounds
    m = margin * min(x1 - x0, y1 - y0)
    box = (max(0, int(x0 - m)), max(0, int(y0 - m)), min(width, int(x1 + m + 1)), min(height, int(y1 + m + 1)))
    if box[2] - box[0] < 16 or box[3] - box[1] < 16:
        return None
    return box, (x0 - box[0], y0 - box[1], x1 - box[0], y1 - box[1])


def _area(b) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _iou(a, b) -> float:
    inter = _area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


class VisionPipeline:
    def __init__(self, config: VisionConfig | None = None, detector: Detector | None = None):
        self.config = config or VisionConfig()
        self.detector = detector if detector is not None else detectors.make_detector(self.config.detector)
        self.listeners: list[Callable[[FrameResult], None]] = []
        self.new_table()

    def new_table(self) -> None:
        """Forget the table seen so far (the mat's zones, the tracked cards, each zone's last
        reading, the light), keep the models: the next frame is read as a table first seen.
        The zones are otherwise looked for again only every `redetect_every` frames, and a
        zone crop cut for another table's mat reads its cards off-centre."""
        self.calibration = Calibration(self.config.calibration)
        self.tracker: TableTracker | None = None
        # region -> (its grey at the last reading, the detections then, frames reused since)
        self._region_cache: dict[tuple[int, int, int, int], tuple[np.ndarray, list[CardDetection], int]] = {}
        self.light = TableLight()  # the light's colour, for the zone monitors' skin test

    def _by_zone(self) -> bool:
        """Read zone crops (not the whole frame): configured so, and the backend reads pixels
        (a stand-in that reads the truth takes the frame)."""
        return self.config.detect_region == "zones" and getattr(self.detector, "reads_pixels", True)

    def _regions(self, zones: ZoneLayout, shape, activity=None) -> list[tuple[tuple, tuple]]:
        """The crops the detector reads (`zone_crop`: the crop, and the zone in its pixels):
        one per zone with cards to read. A whole 1280x720 frame shrunk into a 320-pixel
        detector leaves a card ~35 pixels tall, and its corners (from which it is straightened
        and named) a few pixels off; a zone crop keeps it 2-3x larger. A zone a hand covers is
        left out (nothing to read)."""
        h, w = shape[:2]
        out = []
        for name in ("discard", "reveal"):
            z = zones.zones.get(name)
            if z is None:
                continue
            a = None if activity is None else activity.get(name)
            if self.config.skip_still and a is not None and a.covered and a.still < STILL_READ:
                continue  # a hand is over it: the tracker waits for the hand to leave
            # (still skin-coloured for a while: a hand at rest or a card of that colour; read,
            # so the tracker can tell which, `ZoneMonitor.absorb`)
            crop = zone_crop(z.bounds(), self.config.zone_margin, w, h)
            if crop is not None:
                out.append(crop)
        return out

    def _detect_regions(
        self, frame: Frame, regions, features: FrameFeatures,
    ) -> tuple[list[CardDetection], dict[str, float], int]:
        """Detections of every region (`_regions`), offset to frame pixels; a still region
        reuses its last reading. Returns (detections, summed backend timings, regions read by
        the model)."""
        regions, owns = [box for box, _ in regions], [own for _, own in regions]
        found: list[tuple[int, CardDetection]] = []
        dt: dict[str, float] = {}
        cfg = self.config
        read = 0
        cache = self._region_cache
        todo: list[tuple[int, np.ndarray]] = []  # (region index, its grey now): read by the model
        for i, (x0, y0, x1, y1) in enumerate(regions):
            sc = features.scale
            grey = features.grey[int(y0 * sc): int(y1 * sc), int(x0 * sc): int(x1 * sc)]
            old = cache.get((x0, y0, x1, y1))
            if (
                cfg.skip_still and old is not None and old[2] < cfg.reread_every
                and old[0].shape == grey.shape
                and changed_share(old[0], grey) <= cfg.still_fraction
            ):
                cache[(x0, y0, x1, y1)] = (old[0], old[1], old[2] + 1)
                found += [(i, d) for d in old[1]]
                continue
            todo.append((i, grey))
        crops = [frame.image[y0:y1, x0:x1] for x0, y0, x1, y1 in (regions[i] for i, _ in todo)]
        many = getattr(self.detector, "detect_many", None)
        if many is not None and crops:
            readings = many(crops, [owns[i] for i, _ in todo])
        else:
            readings = []
            for crop in crops:
                readings.append((self.detector.detect(crop, None), dict(self.detector.timings)))
        for (i, grey), (raw, times) in zip(todo, readings, strict=True):
            x0, y0, x1, y1 = regions[i]
            read += 1
            dets = [_offset_detection(d, x0, y0) for d in raw]
            cache[(x0, y0, x1, y1)] = (grey.copy(), dets, 0)
            found += [(i, d) for d in dets]
            # stage times summed over the regions (read side by side, they overlap in time)
            for k, v in times.items():
                dt[k] = dt.get(k, 0.0) + v
        if len(cache) > 8:  # zones moved (camera bumped): forget crops no longer read
            for key in [k for k in cache if k not in regions]:
                del cache[key]
        if len(regions) < 2:
            return [d for _, d in found], dt, read
        # Where crops overlap, a card can be read twice: keep the larger reading (the crop
        # that cut it saw less of it).
        keep: list[tuple[int, CardDetection]] = []
        for i, d in sorted(found, key=lambda t: -_area(t[1].box)):
            if not any(j != i and _iou(d.box, k.box) > 0.5 for j, k in keep):
                keep.append((i, d))
        return [d for _, d in keep], dt, read

    def process(self, frame: Frame) -> FrameResult:
        t0 = time.perf_counter()
        zones, changed = self.calibration.update(frame.image, frame.number)
        if self.tracker is None:
            self.tracker = TableTracker(zones, self.config.tracker)
        elif changed:
            self.tracker.set_zones(zones)
        t1 = time.perf_counter()
        use_lores = frame.lores is not None and self.config.detect_on == "lores"
        features = FrameFeatures.of(np.asarray(frame.image), gains=self.light.gains)
        activity = self.tracker.monitor(features)
        by_zone = not use_lores and self._by_zone()
        t_feat = time.perf_counter()
        read = None
        if by_zone:  # every zone covered: nothing to read this frame
            regions = self._regions(zones, frame.image.shape, activity)
            dets, dt, read = self._detect_regions(frame, regions, features) if regions else ([], {}, 0)
        else:
            image = frame.lores if use_lores else frame.image
            dets = self.detector.detect(image, frame.truth)
            if use_lores:
                (w, h), (lw, lh) = frame.size, image.shape[1::-1]
                dets = [_scale_detection(d, w / lw, h / lh) for d in dets]
            dt = dict(self.detector.timings)
        t2 = time.perf_counter()
        if read != 0 and not any(a.covered for a in activity.values()):
            # cards in the clear, read afresh (a still zone's reused reading was learnt from
            # when it was read): their white is the light's
            self.light.observe(features, dets)
        obs = self.tracker.update(frame.number, frame.timestamp, frame.image, dets, features, activity)
        t3 = time.perf_counter()
        timings = {
            "calibrate": (t1 - t0) * 1000,
            # Finding cards is everything the backend did but naming them (the recognizer's
            # preprocess, detect, postprocess and box refinement).
            "detect": (
                dt["total"] - dt.get("classify", 0.0) if "total" in dt
                else dt.get("detect", (t2 - t_feat) * 1000) + dt.get("preprocess", 0.0)
            ),
            "classify": dt.get("classify", 0.0),
            "recognize": (t2 - t_feat) * 1000,
            # The zone monitors' reduced frame (skin, motion), shared with the still check.
            "track": (t3 - t2 + t_feat - t1) * 1000,
        }
        result = FrameResult(frame, dets, obs, zones, self.tracker.covered, timings, read)
        for listener in self.listeners:
            listener(result)
        return result
