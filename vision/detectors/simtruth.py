"""A stand-in detector that reads the simulated table's truth, with realistic faults: cards
mostly hidden are not found, some are missed, some read as a wrong face for a frame, boxes
jitter. It lets the tracker and the evaluation run before (or without) a trained model. It
never tells the tracker whether a hand covers the pile: that comes from the pixels."""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import CameraError
from vision.types import CardDetection

_SCALE = 0.25


class SimTruthDetector:
    name = "sim-truth"
    reads_pixels = False  # it reads the whole frame's truth: zone crops mean nothing to it

    def __init__(self, config):
        self.cfg = config
        self.rng = np.random.default_rng(config.seed)
        self.timings: dict[str, float] = {}

    def detect(self, image: np.ndarray, truth=None) -> list[CardDetection]:
        if truth is None:
            raise CameraError("the sim-truth detector works only on frames of the simulated table")
        import time

        t0 = time.perf_counter()
        h, w = image.shape[:2]
        sh, sw = max(1, int(h * _SCALE)), max(1, int(w * _SCALE))
        cover = np.zeros((sh, sw), np.uint8)
        for poly in truth.occluders:
            cv2.fillPoly(cover, [np.round(poly * _SCALE).astype(np.int32)], 255)
        out: list[CardDetection] = []
        # Top to bottom: each card is hidden by what lies above it.
        for card, quad in reversed(truth.cards):
            m = np.zeros((sh, sw), np.uint8)
            cv2.fillPoly(m, [np.round(quad * _SCALE).astype(np.int32)], 255)
            area = int(np.count_nonzero(m))
            visible = cv2.bitwise_and(m, cv2.bitwise_not(cover))
            seen = int(np.count_nonzero(visible))
            cover = cv2.bitwise_or(cover, m)
            if area == 0 or seen / area < self.cfg.min_visible:
                continue
            if self.rng.random() < self.cfg.miss_rate:
                continue
            ys, xs = np.nonzero(visible)
            name = card
            if self.rng.random() < self.cfg.flicker_rate:
                from vision.render import ALL_FACES

                name = ALL_FACES[int(self.rng.integers(len(ALL_FACES)))]
            box = (xs.min() / _SCALE, ys.min() / _SCALE, (xs.max() + 1) / _SCALE, (ys.max() + 1) / _SCALE)
            box = tuple(float(v + self.rng.normal(0, 1.0)) for v in box)
            if seen / area > 0.9:
                q = tuple((float(x), float(y)) for x, y in quad)
            else:
                # Like an oriented-box detector: the box around what shows of the card.
                pts = np.column_stack([xs, ys]).astype(np.float32)
                rect = cv2.boxPoints(cv2.minAreaRect(pts)) / _SCALE
                q = tuple((float(x), float(y)) for x, y in rect)
            conf = float(np.clip(self.rng.normal(0.9, 0.05) * (0.6 + 0.4 * seen / area), 0.05, 0.999))
            # Like a classifier's top guesses: a misread keeps the true face as its runner-up.
            rest = round(1.0 - conf, 4)
            candidates = ((name, conf),) + (((card, min(conf, rest)),) if name != card else ())
            out.append(CardDetection(name, conf, box, q, conf, candidates))
        self.timings = {"detect": (time.perf_counter() - t0) * 1000, "classify": 0.0}
        return out
