"""The one interface every camera source has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(slots=True)
class Capture:
    """What a source returns for one frame; the frame hub numbers and timestamps it."""

    image: np.ndarray
    lores: np.ndarray | None = None
    truth: Any = None


class FrameSource:
    """Base of all sources.

    open() raises vision.errors.CameraError naming the device when it cannot be opened.
    read() returns a Capture, or raises CorruptFrameError (skip this one), CameraError
    (the device failed; the hub reopens it with backoff) or EndOfStream (a finite source
    is done).
    """

    name: str = "source"
    fps: float | None = None  # nominal frame rate, when known
    realtime: bool = True  # a live camera paces itself; files pace only when asked
    finite: bool = False

    def open(self) -> None:  # pragma: no cover - trivial default
        pass

    def read(self) -> Capture:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - trivial default
        pass

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()
