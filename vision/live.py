"""Vision as the app runs it: frames in, observations out to a callback, annotated JPEGs out
to the dashboard.

- `FrameBoard`: the newest annotated JPEG, handed to any number of MJPEG viewers through a
  condition (encoded once per frame, never per viewer).
- `LiveVision`: the detector loop of `uno-table run`: a FrameHub reader (the camera is opened
  once, by the hub's capture thread) feeding the pipeline; each observation goes to
  `on_observation(json)`; camera trouble goes to `on_status(status, message)`.
- `SimulatedCamera`: the demo's camera: a SimTable whose actions are queued by the demo
  driver, rendered frame by frame and read by the same pipeline.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from vision.annotate import annotate_result
from vision.config import VisionConfig
from vision.frame import Frame
from vision.pipeline import FrameResult, VisionPipeline

log = logging.getLogger("uno_table.vision.live")


class FrameBoard:
    """The newest annotated frame as JPEG, for the dashboard's camera page."""

    def __init__(self, quality: int = 75, every: int = 1):
        self.quality = quality
        self.every = max(1, every)  # encode one frame in `every` (the Pi's CPU is for detection)
        self._cond = threading.Condition()
        self._number = 0
        self._jpeg: bytes | None = None

    def publish(self, result: FrameResult) -> None:
        if result.frame.number % self.every:
            return
        jpeg = annotate_result(result, self.quality)
        with self._cond:
            self._number, self._jpeg = result.frame.number, jpeg
            self._cond.notify_all()

    def latest(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while self._jpeg is None or self._number <= after:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return self._number, self._jpeg


class LiveVision:
    """The detector loop over a running FrameHub."""

    def __init__(
        self,
        frame_hub,
        config: VisionConfig,
        on_observation: Callable[[dict[str, Any]], None],
        board: FrameBoard | None = None,
        on_status: Callable[[str, str | None], None] | None = None,
        pipeline: VisionPipeline | None = None,
    ):
        self.frame_hub = frame_hub
        self.pipeline = pipeline or VisionPipeline(config)
        self.on_observation = on_observation
        self.board = board
        self.on_status = on_status
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_status: str | None = None
        self.frames = 0

    def start(self) -> LiveVision:
        self._thread = threading.Thread(target=self._run, name="vision", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Stop after the frame in hand (by default waiting as long as that frame takes: the
        process must not exit while ONNX Runtime is reading one)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _report_status(self) -> None:
        status = getattr(self.frame_hub, "status", None)
        if status != self.last_status:
            self.last_status = status
            if self.on_status is not None:
                self.on_status(status, getattr(self.frame_hub, "last_error", None))

    def _run(self) -> None:
        reader = self.frame_hub.reader()
        while not self._stop.is_set():
            frame = reader.next(timeout=0.5)
            self._report_status()
            if frame is None:
                if self.frame_hub.finished:
                    return
                continue
            try:
                result = self.pipeline.process(frame)
            except Exception:  # noqa: BLE001 - one bad frame must not stop the table
                log.exception("vision: frame %s could not be processed", frame.number)
                continue
            self.frames += 1
            if self.board is not None:
                self.board.publish(result)
            for obs in result.observations:
                self.on_observation(obs.to_json())


class SimulatedCamera:
    """The demo's camera over a simulated table (see app/demo.py's Camera protocol)."""

    def __init__(
        self,
        config: VisionConfig,
        seed: int = 0,
        width: int = 1280,
        height: int = 720,
        fps: float = 10.0,
        board: FrameBoard | None = None,
        realtime: bool = False,
        pipeline: VisionPipeline | None = None,
        faces: str = "render",
    ):
        from vision.sim import SimTable

        photos = None
        if faces != "render":  # real card photos (vision.real_faces): "real" or a folder
            from vision.real_faces import load_faces

            photos = load_faces(None if faces == "real" else faces)
        self.table = SimTable(seed=seed, width=width, height=height, fps=fps, mat=True, faces=photos)
        self.table.idle(0.5)
        self.pipeline = pipeline or VisionPipeline(config)
        self.board = board
        self.realtime = realtime
        self.fps = fps
        self.number = 0
        self._next_at = time.monotonic()
        self.ms: list[float] = []

    def act(self, action: str, cards: tuple[str, ...] = ()) -> None:
        t = self.table
        if action == "play":
            t.play(list(cards))
        elif action == "draw":
            t.draw()
        elif action == "reveal":
            t.reveal(list(cards))
        elif action == "clear":
            t.clear_reveal()
        elif action == "idle":
            t.idle(0.5)
        else:
            raise ValueError(f"unknown table action {action!r}")

    @property
    def pending(self) -> int:
        return self.table.pending

    def step(self) -> list[dict[str, Any]]:
        if self.realtime:  # a watchable demo: frames at the camera's rate
            self._next_at += 1.0 / self.fps
            wait = self._next_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            else:
                self._next_at = time.monotonic()
        t0 = time.perf_counter()
        image, truth = self.table.next_frame()
        self.number += 1
        result = self.pipeline.process(Frame(self.number, self.number / self.fps, image, None, truth))
        self.ms.append((time.perf_counter() - t0) * 1000)
        if self.board is not None:
            self.board.publish(result)
        return [o.to_json() for o in result.observations]
