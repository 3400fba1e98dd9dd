"""A folder of still images, in name order."""

from __future__ import annotations

from pathlib import Path

import cv2

from vision.errors import CameraError, CorruptFrameError, EndOfStream
from vision.sources.base import Capture, FrameSource

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


class FolderSource(FrameSource):
    finite = True

    def __init__(self, path: str | Path, fps: float = 5.0, realtime: bool = False, loop: bool = False):
        self.path = Path(path)
        self.fps, self.realtime, self.loop = fps, realtime, loop
        self.name = f"image folder {str(self.path)!r}"
        self._files: list[Path] = []
        self._next = 0

    def open(self) -> None:
        if not self.path.is_dir():
            raise CameraError(f"{self.name} does not exist or is not a folder")
        self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise CameraError(f"{self.name} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._next = 0

    def read(self) -> Capture:
        if self._next >= len(self._files):
            if not self.loop or not self._files:
                raise EndOfStream(self.name)
            self._next = 0
        path = self._files[self._next]
        self._next += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CorruptFrameError(f"{path}: not a readable image")
        return Capture(image)
