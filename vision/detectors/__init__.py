"""Detector backends, chosen by the `type` key of the detector config (Frigate style).

Every backend is a `Detector`: `detect(image_bgr) -> list[CardDetection]` in pixels of the
image given, plus `timings`: milliseconds per stage of the last call (detect, classify).
A backend that can read several crops of one frame side by side also has
`detect_many(images) -> [(detections, timings)]` (the ONNX one: two zones in the time of one).
Heavy imports (onnxruntime, ultralytics) happen only when a backend is built."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from vision.types import CardDetection


@runtime_checkable
class Detector(Protocol):
    name: str
    timings: dict[str, float]

    def detect(self, image: np.ndarray, truth=None) -> list[CardDetection]: ...


def make_detector(config) -> Detector:
    kind = config.type
    if kind == "onnx":
        from vision.detectors.onnx import OnnxDetector

        return OnnxDetector(config)
    if kind == "ultralytics":
        from vision.detectors.ultralytics import UltralyticsDetector

        return UltralyticsDetector(config)
    if kind == "sim-truth":
        from vision.detectors.simtruth import SimTruthDetector

        return SimTruthDetector(config)
    raise ValueError(f"unknown detector type {kind!r}")
