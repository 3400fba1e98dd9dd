"""The Raspberry Pi camera through picamera2: a low-resolution stream feeds the detector,
the main stream feeds the display (picamera2 examples). picamera2 is imported only here,
only when this source is opened, so nothing else needs it installed."""

from __future__ import annotations

import cv2

from vision.errors import CameraError, CorruptFrameError
from vision.sources.base import Capture, FrameSource


class PiCameraSource(FrameSource):
    realtime = True

    def __init__(self, camera: int = 0, main_size=(1280, 720), lores_size=(640, 360), fps=20.0):
        self.camera = camera
        self.main_size, self.lores_size, self.fps = tuple(main_size), tuple(lores_size), fps
        self.name = f"Pi camera {camera} (picamera2)"
        self._cam = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # only on a Pi
        except ImportError as exc:
            raise CameraError(
                f"{self.name}: picamera2 is not installed (only on Raspberry Pi OS; "
                "use a `device` source on a laptop)"
            ) from exc
        try:
            cam = Picamera2(self.camera)
            config = cam.create_video_configuration(
                main={"size": self.main_size, "format": "RGB888"},  # RGB888 is BGR in memory
                lores={"size": self.lores_size, "format": "YUV420"},
                controls={"FrameRate": self.fps},
                buffer_count=4,
            )
            cam.configure(config)
            cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise CameraError(f"{self.name} cannot be opened: {exc}") from exc
        self._cam = cam

    def read(self) -> Capture:
        if self._cam is None:
            raise CameraError(f"{self.name} is not open")
        try:
            request = self._cam.capture_request()
        except Exception as exc:  # noqa: BLE001
            raise CameraError(f"{self.name} stopped delivering frames: {exc}") from exc
        try:
            main = request.make_array("main")
            yuv = request.make_array("lores")
        finally:
            request.release()
        if main is None or yuv is None:
            raise CorruptFrameError(f"{self.name}: empty buffer")
        lores = cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420)
        return Capture(main[:, :, :3], lores)

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None
