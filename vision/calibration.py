"""Where the zones are in the frame: from the printed mat when it is in view, else from the
configured polygons, else a default layout over the whole frame."""

from __future__ import annotations

import numpy as np

from vision.config import CalibrationConfig
from vision.mat import MatPose, find_mat
from vision.zones import ZoneLayout


class Calibration:
    def __init__(self, config: CalibrationConfig | None = None):
        self.cfg = config or CalibrationConfig()
        self.pose: MatPose | None = None
        self.zones: ZoneLayout | None = None
        self._last_try = -(10**9)

    def update(self, image: np.ndarray, number: int) -> tuple[ZoneLayout, bool]:
        """The zones for this frame, and whether they changed."""
        changed = False
        if self.cfg.use_mat and number - self._last_try >= (self.cfg.redetect_every if self.pose else 5):
            self._last_try = number
            pose = find_mat(image, self.cfg.paper)
            if pose is not None:
                if self.pose is None or self.zones is None or self.zones.source != "mat" or _moved(self.pose, pose):
                    self.pose = pose
                    self.zones = pose.zones()
                    changed = True
        if self.zones is None:
            h, w = image.shape[:2]
            if self.cfg.polygons is not None:
                self.zones = ZoneLayout.from_polygons(self.cfg.polygons.model_dump(), "config")
            else:
                self.zones = ZoneLayout.default_for(w, h)
            changed = True
        return self.zones, changed

    def straighten(self, image: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray | None:
        return None if self.pose is None else self.pose.straighten(image, px_per_mm)


def _moved(a: MatPose, b: MatPose, tolerance_px: float = 6.0) -> bool:
    """The mat moved in the frame (camera bumped) by more than a few pixels."""
    import cv2

    corners = np.array(
        [[0, 0], [a.layout.width_mm, 0], [a.layout.width_mm, a.layout.height_mm], [0, a.layout.height_mm]],
        np.float32,
    ).reshape(-1, 1, 2)
    pa = cv2.perspectiveTransform(corners, a.to_frame)
    pb = cv2.perspectiveTransform(corners, b.to_frame)
    return float(np.max(np.linalg.norm(pa - pb, axis=2))) > tolerance_px
