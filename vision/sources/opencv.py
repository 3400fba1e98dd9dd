"""OpenCV sources: a USB webcam (index) or stream URL, and a video file."""

from __future__ import annotations

from pathlib import Path

import cv2

from vision.errors import CameraError, CorruptFrameError, EndOfStream
from vision.sources.base import Capture, FrameSource


class DeviceSource(FrameSource):
    """A webcam by index (`0`) or a stream URL (`rtsp://...`, `http://.../video.mjpg`)."""

    realtime = True

    def __init__(self, device: int | str = 0, width: int = 1280, height: int = 720, fps: float = 30):
        self.device = device
        self.width, self.height, self.fps = width, height, fps
        self.name = f"camera {device!r} (OpenCV device)"
        self._cap: cv2.VideoCapture | None = None

    def open(self) -> None:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            hint = " (is it plugged in? try another index)" if isinstance(self.device, int) else ""
            raise CameraError(f"{self.name} cannot be opened{hint}")
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        # A live camera must never hand out stale frames from a deep driver queue.
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap = cap

    def read(self) -> Capture:
        if self._cap is None:
            raise CameraError(f"{self.name} is not open")
        ok, image = self._cap.read()
        if not ok:
            raise CameraError(f"{self.name} delivered no frame (unplugged?)")
        if image is None or image.size == 0 or image.ndim != 3:
            raise CorruptFrameError(f"{self.name}: empty or malformed frame")
        return Capture(image)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class VideoFileSource(FrameSource):
    """A video file, frame by frame; paced at its own frame rate only when `realtime`."""

    finite = True

    def __init__(self, path: str | Path, realtime: bool = False, loop: bool = False):
        self.path = Path(path)
        self.realtime, self.loop = realtime, loop
        self.name = f"video file {str(self.path)!r}"
        self._cap: cv2.VideoCapture | None = None
        self.fps = None

    def open(self) -> None:
        if not self.path.is_file():
            raise CameraError(f"{self.name} does not exist")
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"{self.name} cannot be decoded (not a video, or corrupt)")
        fps = cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 25.0
        self._cap = cap

    def read(self) -> Capture:
        if self._cap is None:
            raise CameraError(f"{self.name} is not open")
        ok, image = self._cap.read()
        if not ok:
            if self.loop:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._cap.read()
            if not ok:
                raise EndOfStream(self.name)
        if image is None or image.size == 0:
            raise CorruptFrameError(f"{self.name}: undecodable frame")
        return Capture(image)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
