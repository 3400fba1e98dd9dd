"""One capture thread hands frames to many readers (picamera2 examples style).

The thread owns the source: it opens it once, reads frames, numbers them and publishes the
newest under a condition. Readers (the detector loop, the dashboard's MJPEG stream) wait on
that condition and take the newest frame they have not seen yet: no copy per reader (the
image is shared read-only), and never the same frame twice. A slow reader skips frames
(live cameras must not lag), unless it is `lossless`, in which case the thread waits for it
(evaluating a video file frame by frame).

A missing or unplugged camera is reported by name and retried with exponential backoff;
a corrupt frame is skipped and counted. Nothing here raises into the game.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from vision.config import CameraRetryConfig
from vision.errors import CameraError, CorruptFrameError, EndOfStream
from vision.frame import Frame
from vision.sources.base import FrameSource

log = logging.getLogger("uno_table.vision.hub")


class Backoff:
    """Exponential backoff: initial, initial*factor, ... capped at maximum."""

    def __init__(self, initial: float = 0.5, maximum: float = 10.0, factor: float = 2.0):
        self.initial, self.maximum, self.factor = initial, maximum, factor
        self._next = initial

    def next(self) -> float:
        wait = self._next
        self._next = min(self.maximum, self._next * self.factor)
        return wait

    def reset(self) -> None:
        self._next = self.initial


@dataclass
class HubStats:
    frames: int = 0
    corrupt: int = 0
    open_failures: int = 0
    reconnects: int = 0
    bad_reads: int = 0
    waits: list[float] = field(default_factory=list)  # backoff waits, newest last (capped)

    def to_json(self) -> dict:
        return {
            "frames": self.frames,
            "corrupt": self.corrupt,
            "open_failures": self.open_failures,
            "reconnects": self.reconnects,
        }


class FrameReader:
    """One consumer's view of the hub."""

    def __init__(self, hub: FrameHub, lossless: bool):
        self._hub = hub
        self.lossless = lossless
        self.last = 0  # number of the last frame this reader took
        self.closed = False

    def next(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not seen yet; None once the stream ended or the hub stopped, or
        when `timeout` seconds pass first."""
        hub = self._hub
        deadline = None if timeout is None else time.monotonic() + timeout
        with hub._cond:
            while True:
                frame = hub._latest
                if frame is not None and frame.number > self.last:
                    self.last = frame.number
                    hub._cond.notify_all()  # a lossless wait in the capture thread may end
                    return frame
                if hub._finished:
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                hub._cond.wait(remaining if remaining is not None else 0.5)

    def close(self) -> None:
        with self._hub._cond:
            self.closed = True
            self._hub._readers.discard(self)
            self._hub._cond.notify_all()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.next()
            if frame is None:
                return
            yield frame


class FrameHub:
    def __init__(
        self,
        source: FrameSource,
        retry: CameraRetryConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
        on_status: Callable[[str, str | None], None] | None = None,
    ):
        self.source = source
        self.retry = retry or CameraRetryConfig()
        self.clock = clock
        self._stop = threading.Event()
        self._sleep = sleep or (lambda s: self._stop.wait(s))
        self.on_status = on_status
        self.backoff = Backoff(self.retry.initial_s, self.retry.max_s, self.retry.factor)
        self.stats = HubStats()
        self.status = "starting"
        self.last_error: str | None = None
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._finished = False
        self._readers: set[FrameReader] = set()
        self._opened = False
        self._thread: threading.Thread | None = None
        self._next_due: float | None = None

    # -------------------------------------------------------------- readers
    def reader(self, lossless: bool = False) -> FrameReader:
        r = FrameReader(self, lossless)
        with self._cond:
            self._readers.add(r)
        return r

    @property
    def latest(self) -> Frame | None:
        return self._latest

    @property
    def finished(self) -> bool:
        return self._finished

    # -------------------------------------------------------------- thread
    def start(self) -> FrameHub:
        self._thread = threading.Thread(target=self._run, name="frame-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._finished = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._close_source()

    def __enter__(self) -> FrameHub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            while not self._stop.is_set() and self.step():
                pass
        finally:
            self._close_source()
            with self._cond:
                self._finished = True
                self._cond.notify_all()

    def _set_status(self, status: str, error: str | None = None) -> None:
        changed = status != self.status or error != self.last_error
        self.status, self.last_error = status, error
        if changed:
            if error:
                log.warning("%s: %s", self.source.name, error)
            if self.on_status:
                self.on_status(status, error)

    def _close_source(self) -> None:
        if self._opened:
            self._opened = False
            try:
                self.source.close()
            except Exception:  # noqa: BLE001 - closing a broken camera must not crash
                log.exception("closing %s", self.source.name)

    def _wait(self, seconds: float) -> None:
        self.stats.waits.append(seconds)
        del self.stats.waits[:-100]
        self._sleep(seconds)

    def step(self) -> bool:
        """One capture attempt (the thread's loop body; tests drive it directly).
        Returns False once the stream has ended."""
        if not self._opened:
            try:
                self.source.open()
            except CameraError as exc:
                self.stats.open_failures += 1
                wait = self.backoff.next()
                self._set_status("waiting for camera", f"{exc}; retrying in {wait:.1f} s")
                self._wait(wait)
                return True
            except Exception as exc:  # noqa: BLE001 - an unexpected driver error is a camera error too
                self.stats.open_failures += 1
                wait = self.backoff.next()
                self._set_status(
                    "waiting for camera", f"{self.source.name} cannot be opened: {exc}; retrying in {wait:.1f} s"
                )
                self._wait(wait)
                return True
            if self.stats.open_failures or self.stats.bad_reads:
                self.stats.reconnects += 1
            self._opened = True
            self.stats.bad_reads = 0
            self._next_due = None
            self._set_status("running")
        try:
            capture = self.source.read()
        except EndOfStream:
            self._set_status("ended")
            return False
        except CorruptFrameError as exc:
            self.stats.corrupt += 1
            log.debug("skipped corrupt frame: %s", exc)
            return True
        except Exception as exc:  # noqa: BLE001 - CameraError or a driver's own
            self.stats.bad_reads += 1
            if self.stats.bad_reads >= self.retry.max_bad_reads:
                self._close_source()
                wait = self.backoff.next()
                self._set_status("waiting for camera", f"{exc}; reopening in {wait:.1f} s")
                self._wait(wait)
            return True
        self.backoff.reset()
        self.stats.bad_reads = 0
        self._pace()
        self._publish(capture)
        return True

    def _pace(self) -> None:
        # Files and the simulator go as fast as readers allow unless asked to act live.
        src = self.source
        if not (src.finite and src.realtime and src.fps):
            return
        now = self.clock()
        if self._next_due is not None and now < self._next_due:
            self._sleep(self._next_due - now)
        self._next_due = max(now, self._next_due or now) + 1.0 / src.fps

    def _publish(self, capture) -> None:
        image = capture.image
        image.flags.writeable = False  # shared by all readers: nobody may draw on it
        if capture.lores is not None:
            capture.lores.flags.writeable = False
        with self._cond:
            # A lossless reader must have taken the previous frame before it is replaced.
            while (
                self._latest is not None
                and not self._stop.is_set()
                and any(r.lossless and r.last < self._latest.number for r in self._readers)
            ):
                self._cond.wait(0.5)
            self.stats.frames += 1
            self._latest = Frame(
                self.stats.frames, self.clock(), image, capture.lores, capture.truth
            )
            self._cond.notify_all()
