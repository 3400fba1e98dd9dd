"""The Raspberry Pi camera through picamera2: a low-resolution stream feeds the detector,
the main stream feeds the display (picamera2 examples). picamera2 is imported only here,
only when this source is opened, so nothing else needs it installed.

picamera2 is Raspberry Pi OS's apt package, built (with simplejpeg and libcamera's bindings)
against apt's numpy. Loading it can fail in more ways than a missing module: with a numpy 2
in front of apt's numpy 1.x its compiled parts raise ValueError or AttributeError
(`numpy.dtype size changed`, `_ARRAY_API not found`). `load_picamera2()` turns every one of
them into a CameraError that says what to do, and `uno-table run` calls it before starting."""

from __future__ import annotations

import contextlib
import io

import cv2

from vision.errors import CameraError, CorruptFrameError
from vision.sources.base import Capture, FrameSource

NOT_INSTALLED = (
    "picamera2 is not installed: it is a Raspberry Pi OS package (`sudo apt install "
    "python3-picamera2`, and a venv made with --system-site-packages, as the README's Pi "
    "steps do); on another machine use a USB webcam (`--source 0`, or `source: {type: device}`)"
)


def _numpy_note() -> str:
    try:
        import numpy

        return f" (this Python loads numpy {numpy.__version__} from {numpy.__file__})"
    except Exception:  # noqa: BLE001 - only a hint
        return ""


def load_picamera2():
    """The Picamera2 class, or CameraError saying why the camera stack does not load."""
    noise = io.StringIO()  # numpy 2 prints its own multi-line warning before failing
    try:
        with contextlib.redirect_stderr(noise):
            from picamera2 import Picamera2  # only on a Pi
    except ImportError as exc:
        if exc.name == "picamera2":
            raise CameraError(NOT_INSTALLED) from None
        raise CameraError(_broken(exc)) from None
    except Exception as exc:  # noqa: BLE001 - an ABI clash raises ValueError, AttributeError...
        raise CameraError(_broken(exc)) from None
    return Picamera2


def _broken(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    text = f"{type(exc).__name__}: {first}"
    hint = "reinstall it: `sudo apt install --reinstall python3-picamera2`"
    if any(s in str(exc) for s in ("numpy", "_ARRAY_API", "dtype size changed", "multiarray")):
        hint = (
            "its compiled parts were built for apt's numpy 1.x and meet another numpy"
            + _numpy_note()
            + ": make the venv as the README's Pi steps do (`python3 -m venv "
            "--system-site-packages .venv`, then `pip install -e .`, which keeps numpy below 2 "
            "on a Pi), or `pip uninstall numpy` in the venv to fall back on apt's"
        )
    return f"picamera2 is installed but cannot be loaded ({text}): {hint}"


class PiCameraSource(FrameSource):
    realtime = True

    def __init__(self, camera: int = 0, main_size=(1280, 720), lores_size=(640, 360), fps=20.0):
        self.camera = camera
        self.main_size, self.lores_size, self.fps = tuple(main_size), tuple(lores_size), fps
        self.name = f"Pi camera {camera} (picamera2)"
        self._cam = None

    def open(self) -> None:
        try:
            Picamera2 = load_picamera2()
        except CameraError as exc:
            raise CameraError(f"{self.name}: {exc}") from None
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
