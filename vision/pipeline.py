"""Frames in, observations out: calibration, detector, tracker, with per-stage timings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from vision import detectors
from vision.calibration import Calibration
from vision.config import VisionConfig
from vision.detectors import Detector
from vision.frame import Frame
from vision.monitor import FrameFeatures
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
    return CardDetection(d.card, d.confidence, box, quad, d.detector_confidence)


class VisionPipeline:
    def __init__(self, config: VisionConfig | None = None, detector: Detector | None = None):
        self.config = config or VisionConfig()
        self.detector = detector if detector is not None else detectors.make_detector(self.config.detector)
        self.calibration = Calibration(self.config.calibration)
        self.tracker: TableTracker | None = None
        self.listeners: list[Callable[[FrameResult], None]] = []

    def process(self, frame: Frame) -> FrameResult:
        t0 = time.perf_counter()
        zones, changed = self.calibration.update(frame.image, frame.number)
        if self.tracker is None:
            self.tracker = TableTracker(zones, self.config.tracker)
        elif changed:
            self.tracker.set_zones(zones)
        t1 = time.perf_counter()
        use_lores = frame.lores is not None and self.config.detect_on == "lores"
        image = frame.lores if use_lores else frame.image
        dets = self.detector.detect(image, frame.truth)
        if use_lores:
            (w, h), (lw, lh) = frame.size, image.shape[1::-1]
            dets = [_scale_detection(d, w / lw, h / lh) for d in dets]
        t2 = time.perf_counter()
        features = FrameFeatures.of(np.asarray(frame.image))
        obs = self.tracker.update(frame.number, frame.timestamp, frame.image, dets, features)
        t3 = time.perf_counter()
        dt = dict(self.detector.timings)
        timings = {
            "calibrate": (t1 - t0) * 1000,
            # Finding cards is everything the backend did but naming them (the recognizer's
            # preprocess, detect, postprocess and box refinement).
            "detect": (
                dt["total"] - dt.get("classify", 0.0) if "total" in dt
                else dt.get("detect", (t2 - t1) * 1000) + dt.get("preprocess", 0.0)
            ),
            "classify": dt.get("classify", 0.0),
            "recognize": (t2 - t1) * 1000,
            "track": (t3 - t2) * 1000,
        }
        result = FrameResult(frame, dets, obs, zones, self.tracker.covered, timings)
        for listener in self.listeners:
            listener(result)
        return result
