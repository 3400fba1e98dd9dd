"""Table zones (discard pile, draw pile, reveal zone) as polygons in frame pixels."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

ZONE_NAMES = ("discard", "draw", "reveal")

# Where the zones lie as fractions of the mat (and of the frame when there is neither a mat
# nor configured polygons): draw pile left, discard pile centre, reveal strip along the bottom.
DEFAULT_LAYOUT: dict[str, tuple[float, float, float, float]] = {
    "draw": (0.07, 0.17, 0.30, 0.60),
    "discard": (0.36, 0.08, 0.74, 0.60),
    "reveal": (0.13, 0.66, 0.87, 0.93),
}


def rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


@dataclass
class Zone:
    name: str
    polygon: np.ndarray  # (N, 2) float32, frame pixels
    _masks: dict = field(default_factory=dict, repr=False)

    def contains(self, point: tuple[float, float]) -> bool:
        return cv2.pointPolygonTest(self.polygon.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0

    def mask(self, width: int, height: int, scale: float = 1.0) -> np.ndarray:
        """A uint8 mask (255 inside) of this zone in an image of the given size, where frame
        pixels are multiplied by `scale` (the zone monitor works on a reduced image)."""
        key = (width, height, scale)
        if key not in self._masks:
            m = np.zeros((height, width), np.uint8)
            cv2.fillPoly(m, [np.round(self.polygon * scale).astype(np.int32)], 255)
            self._masks[key] = m
        return self._masks[key]

    def bounds(self) -> tuple[float, float, float, float]:
        x0, y0 = self.polygon.min(axis=0)
        x1, y1 = self.polygon.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)


@dataclass
class ZoneLayout:
    zones: dict[str, Zone]
    source: str = "default"  # "mat", "config" or "default"

    def __getitem__(self, name: str) -> Zone:
        return self.zones[name]

    def zone_of(self, point: tuple[float, float]) -> str | None:
        for name in ("discard", "draw", "reveal"):
            z = self.zones.get(name)
            if z is not None and z.contains(point):
                return name
        return None

    @classmethod
    def from_polygons(cls, polygons: dict[str, Iterable], source: str = "config") -> ZoneLayout:
        return cls(
            {n: Zone(n, np.asarray(list(p), np.float32).reshape(-1, 2)) for n, p in polygons.items()},
            source,
        )

    @classmethod
    def default_for(cls, width: int, height: int) -> ZoneLayout:
        return cls.from_polygons(
            {n: rect(x0 * width, y0 * height, x1 * width, y1 * height) for n, (x0, y0, x1, y1) in DEFAULT_LAYOUT.items()},
            "default",
        )

    def to_json(self) -> dict:
        return {
            "source": self.source,
            "zones": {n: [[round(float(x), 1), round(float(y), 1)] for x, y in z.polygon] for n, z in self.zones.items()},
        }
