"""A YOLO `.pt` file through ultralytics (imported only here, offline). For training machines
and experiments; the Pi uses the ONNX backend."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.errors import ModelError
from vision.types import CardDetection


class UltralyticsDetector:
    name = "ultralytics"

    def __init__(self, config):
        self.cfg = config
        path = Path(config.path)
        if not path.is_file():
            raise ModelError(f"model file not found: {path}")
        from table.paths import offline_ultralytics

        offline_ultralytics()
        try:
            from ultralytics import YOLO
        except ImportError as exc:
            raise ModelError("the ultralytics backend needs `pip install uno-table[train]`") from exc
        try:
            self.model = YOLO(str(path))
        except Exception as exc:  # noqa: BLE001
            raise ModelError(f"cannot load {path}: {exc}") from exc
        self.timings: dict[str, float] = {}

    def detect(self, image: np.ndarray, truth=None) -> list[CardDetection]:
        t0 = time.perf_counter()
        res = self.model.predict(image, imgsz=self.cfg.imgsz, conf=self.cfg.min_confidence, verbose=False)[0]
        names = res.names
        out: list[CardDetection] = []
        if getattr(res, "obb", None) is not None and res.obb is not None and len(res.obb):
            quads = res.obb.xyxyxyxy.cpu().numpy()
            for q, c, k in zip(quads, res.obb.conf.cpu().numpy(), res.obb.cls.cpu().numpy(), strict=True):
                x0, y0 = q.min(axis=0)
                x1, y1 = q.max(axis=0)
                out.append(CardDetection(names[int(k)], float(c), (float(x0), float(y0), float(x1), float(y1)),
                                         tuple((float(x), float(y)) for x, y in q), float(c)))
        elif res.boxes is not None:
            for b, c, k in zip(res.boxes.xyxy.cpu().numpy(), res.boxes.conf.cpu().numpy(),
                               res.boxes.cls.cpu().numpy(), strict=True):
                out.append(CardDetection(names[int(k)], float(c), tuple(float(v) for v in b), None, float(c)))
        self.timings = {"detect": (time.perf_counter() - t0) * 1000, "classify": 0.0}
        return out
