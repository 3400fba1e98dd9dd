"""The frame hub: one capture thread, many readers, no frame twice, retry with backoff."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vision.config import CameraRetryConfig
from vision.errors import CameraError, CorruptFrameError, EndOfStream
from vision.hub import Backoff, FrameHub
from vision.sources.base import Capture, FrameSource


class Counting(FrameSource):
    """A finite source whose frames carry their own index in pixel (0, 0)."""

    finite = True
    realtime = False

    def __init__(self, n: int, corrupt_every: int = 0):
        self.n, self.i, self.corrupt_every = n, 0, corrupt_every
        self.name = "counting source"

    def read(self) -> Capture:
        if self.i >= self.n:
            raise EndOfStream(self.name)
        self.i += 1
        if self.corrupt_every and self.i % self.corrupt_every == 0:
            raise CorruptFrameError("bad frame")
        img = np.zeros((4, 4, 3), np.uint8)
        img[0, 0, 0] = self.i % 256
        return Capture(img)


def test_many_readers_never_see_a_frame_twice_and_share_one_image():
    hub = FrameHub(Counting(300))
    fast = [hub.reader() for _ in range(3)]
    lossless = hub.reader(lossless=True)
    seen: dict[int, list] = {}

    def consume(r, key, slow=False):
        out = []
        for f in r:
            out.append((f.number, id(f.image)))
            if slow:
                threading.Event().wait(0.001)
        seen[key] = out

    threads = [threading.Thread(target=consume, args=(r, i, i == 0)) for i, r in enumerate(fast)]
    threads.append(threading.Thread(target=consume, args=(lossless, "all")))
    for t in threads:
        t.start()
    hub.start()
    for t in threads:
        t.join(10)
    hub.stop()
    for key, frames in seen.items():
        numbers = [n for n, _ in frames]
        assert numbers == sorted(set(numbers)), f"reader {key} saw a frame twice or out of order"
    # The lossless reader (a video evaluated frame by frame) gets every frame.
    assert [n for n, _ in seen["all"]] == list(range(1, 301))
    # Readers share the image object; nobody may draw on it.
    ids_all = dict(seen["all"])
    for key in (0, 1, 2):
        for n, image_id in seen[key]:
            assert ids_all[n] == image_id
    assert hub.latest.image.flags.writeable is False


def test_corrupt_frames_are_skipped_and_counted():
    hub = FrameHub(Counting(20, corrupt_every=5))
    r = hub.reader(lossless=True)
    hub.start()
    frames = list(r)
    hub.stop()
    assert len(frames) == 16 and hub.stats.corrupt == 4
    assert [f.number for f in frames] == list(range(1, 17))


class Unplugged(FrameSource):
    """Missing for `missing` opens, then delivers `good` frames, then fails every read."""

    def __init__(self, missing: int, good: int = 3):
        self.name = "camera 3 (test device)"
        self.missing, self.good, self.opens, self.reads = missing, good, 0, 0

    def open(self):
        self.opens += 1
        if self.opens <= self.missing:
            raise CameraError(f"{self.name} cannot be opened")

    def read(self):
        self.reads += 1
        if self.reads > self.good:
            raise CameraError(f"{self.name} delivered no frame (unplugged?)")
        return Capture(np.zeros((2, 2, 3), np.uint8))


def test_a_missing_camera_is_named_and_retried_with_backoff():
    waits: list[float] = []
    messages: list[str | None] = []
    hub = FrameHub(
        Unplugged(missing=5),
        CameraRetryConfig(initial_s=0.5, max_s=4.0, factor=2.0, max_bad_reads=2),
        clock=lambda: 0.0, sleep=waits.append, on_status=lambda s, e: messages.append(e),
    )
    for _ in range(5):
        assert hub.step() is True  # never raises
    assert waits == [0.5, 1.0, 2.0, 4.0, 4.0]
    assert hub.status == "waiting for camera"
    assert "camera 3 (test device) cannot be opened" in hub.last_error
    assert "retrying in 4.0 s" in hub.last_error
    # It comes back: frames flow, the backoff starts over.
    for _ in range(3):
        hub.step()
    assert hub.status == "running" and hub.stats.frames == 3 and hub.stats.reconnects == 1
    # Unplugged mid-game: reads fail, after max_bad_reads it is closed and reopened.
    hub.step()
    hub.step()
    assert hub.status == "waiting for camera" and "unplugged" in hub.last_error
    assert waits[-1] == 0.5
    assert any(m and "cannot be opened" in m for m in messages)


def test_backoff_grows_to_its_cap_and_resets():
    b = Backoff(1, 5, 2)
    assert [b.next() for _ in range(5)] == [1, 2, 4, 5, 5]
    b.reset()
    assert b.next() == 1


def test_the_hub_survives_a_source_raising_anything():
    class Broken(FrameSource):
        name = "broken driver"

        def open(self):
            raise RuntimeError("driver exploded")

        def read(self):  # pragma: no cover - never opened
            raise AssertionError

    waits = []
    hub = FrameHub(Broken(), sleep=waits.append)
    hub.step()
    assert "broken driver cannot be opened: driver exploded" in hub.last_error
    assert waits == [0.5]


@pytest.mark.parametrize("timeout", [0.05])
def test_a_reader_times_out_when_no_frame_comes(timeout):
    hub = FrameHub(Unplugged(missing=10**6), sleep=lambda s: None)
    r = hub.reader()
    assert r.next(timeout=timeout) is None
