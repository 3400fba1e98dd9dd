"""Camera sources behind one interface; `make_source(config)` picks one by its `type`."""

from __future__ import annotations

from vision.sources.base import Capture, FrameSource

__all__ = ["Capture", "FrameSource", "check_source", "make_source", "source_from_arg"]


def check_source(config) -> None:
    """Raise CameraError now for what waiting will not mend: the Pi camera's software stack
    does not load (picamera2 missing, or broken by a numpy it was not built for). An
    unplugged camera is not checked here: the capture thread waits for it."""
    if config.type == "picamera2":
        from vision.sources.picam import load_picamera2

        load_picamera2()


def make_source(config) -> FrameSource:
    """Build the source a validated vision.config source model describes."""
    kind = config.type
    if kind == "picamera2":
        from vision.sources.picam import PiCameraSource

        return PiCameraSource(config.camera, config.main_size, config.lores_size, config.fps)
    if kind == "device":
        from vision.sources.opencv import DeviceSource

        return DeviceSource(config.device, config.width, config.height, config.fps)
    if kind == "video":
        from vision.sources.opencv import VideoFileSource

        return VideoFileSource(config.path, config.realtime, config.loop)
    if kind == "folder":
        from vision.sources.folder import FolderSource

        return FolderSource(config.path, config.fps, config.realtime, config.loop)
    if kind == "sim":
        from vision.sources.sim import SimTableSource

        return SimTableSource.from_config(config)
    raise ValueError(f"unknown source type {kind!r}")


def source_config_from_arg(arg: str):
    """A command-line SOURCE: `sim`, `sim:SEED`, `picamera2`, a webcam index, a URL, a video
    file or an image folder."""
    from pathlib import Path

    from vision import config as c

    if arg == "sim" or arg.startswith("sim:"):
        seed = int(arg.split(":", 1)[1]) if ":" in arg else 0
        return c.SimSourceConfig(seed=seed)
    if arg == "picamera2":
        return c.PiCameraSourceConfig()
    if arg.isdigit():
        return c.DeviceSourceConfig(device=int(arg))
    if "://" in arg:
        return c.DeviceSourceConfig(device=arg)
    path = Path(arg)
    if path.is_dir():
        return c.FolderSourceConfig(path=path)
    return c.VideoSourceConfig(path=path)


def source_from_arg(arg: str) -> FrameSource:
    return make_source(source_config_from_arg(arg))
