"""A frame as it travels from a camera source to its readers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Frame:
    """One captured frame.

    number: 1, 2, 3 ... in capture order (a reader never gets the same number twice).
    image: the main (display) image, BGR uint8, read-only: it is shared by every reader.
    lores: an optional smaller BGR image for the detector (picamera2's low-res stream).
    truth: what the simulated table knows it drew (tests and evaluation only).
    """

    number: int
    timestamp: float
    image: np.ndarray
    lores: np.ndarray | None = None
    truth: Any = field(default=None, compare=False)

    @property
    def detect_image(self) -> np.ndarray:
        return self.image if self.lores is None else self.lores

    @property
    def size(self) -> tuple[int, int]:
        h, w = self.image.shape[:2]
        return w, h
