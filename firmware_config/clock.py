"""Time for the hardware layer, injectable so tests decide when things happen.

A clock gives `now()`, `call_later(delay, fn)` (for hold and double-press deadlines) and
`sleep(seconds)` (for virtual presses). `RealClock` uses threads; `ManualClock` runs due
callbacks only when a test calls `advance()`.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float: ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer: ...

    def sleep(self, seconds: float) -> None: ...


class RealClock:
    """Wall time from `source` (monotonic by default); callbacks on daemon timer threads."""

    def __init__(self, source: Callable[[], float] = time.monotonic):
        self._source = source

    def now(self) -> float:
        return self._source()

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = threading.Timer(max(0.0, delay), fn)
        timer.daemon = True
        timer.start()
        return timer

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that stands still until `advance()`; due callbacks run in time order, on the
    caller's thread, with `now()` set to their due time."""

    def __init__(self, start: float = 0.0):
        self._now = start
        self._queue: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []
        self._order = itertools.count()
        self._lock = threading.RLock()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        with self._lock:
            heapq.heappush(self._queue, (self._now + max(0.0, delay), next(self._order), timer, fn))
        return timer

    def advance(self, seconds: float) -> None:
        """Move time forward, firing every callback that falls due on the way."""
        with self._lock:
            end = self._now + seconds
        while True:
            with self._lock:
                if not self._queue or self._queue[0][0] > end:
                    self._now = max(self._now, end)
                    return
                due, _, timer, fn = heapq.heappop(self._queue)
                self._now = max(self._now, due)
            # Outside the lock: a callback may schedule the next deadline.
            if not timer.cancelled:
                fn()

    sleep = advance

    @property
    def pending(self) -> int:
        """Callbacks still waiting (cancelled ones excluded)."""
        return sum(1 for *_, timer, _fn in self._queue if not timer.cancelled)
