"""Playing buzzer patterns without blocking the caller.

One background thread plays at a time; `play()` stops whatever is sounding and starts the new
pattern at once, because the newest event is the one the table needs to hear.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gpiozero import Buzzer, TonalBuzzer
from gpiozero.tones import Tone

from firmware_config.patterns import Pattern, get_pattern

# A passive buzzer's usable range (TonalBuzzer refuses tones outside it): A3..A7, 220-3520 Hz.
MID_TONE = "A5"
OCTAVES = 2

# wait(stop, seconds) -> True when stopped early. Tests pass one that records and returns.
Wait = Callable[[threading.Event, float], bool]


def _real_wait(stop: threading.Event, seconds: float) -> bool:
    return stop.wait(seconds)


class BuzzerPlayer:
    """Plays patterns on a gpiozero TonalBuzzer (passive) or Buzzer (active).

    `wait` is how a step's duration passes: `Event.wait` by default; a test passes a fake that
    records the pin at each step and returns at once."""

    def __init__(
        self, kind: str, pin: int, pin_factory, *, active_high: bool = True, wait: Wait | None = None
    ):
        if kind not in ("passive", "active"):
            raise ValueError(f"buzzer kind must be 'passive' or 'active', not {kind!r}")
        self.kind = kind
        if kind == "passive":
            self.device = TonalBuzzer(pin, mid_tone=MID_TONE, octaves=OCTAVES, pin_factory=pin_factory)
        else:
            self.device = Buzzer(pin, active_high=active_high, pin_factory=pin_factory)
        self._wait = wait or _real_wait
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.current: str | None = None  # the pattern sounding now

    def play(self, pattern: str | Pattern, *, wait: bool = False) -> None:
        """Start a pattern (by name or a Pattern), interrupting any that is playing.
        Returns at once unless `wait` is true."""
        if isinstance(pattern, str):
            pattern = get_pattern(pattern)
        steps = pattern.steps(self.kind)
        with self._lock:
            self._halt()
            stop = threading.Event()
            self._stop = stop
            self.current = pattern.name
            thread = threading.Thread(
                target=self._run, args=(pattern.name, steps, stop), name=f"buzzer-{pattern.name}", daemon=True
            )
            self._thread = thread
            thread.start()
        if wait:
            thread.join()

    def stop(self) -> None:
        """Silence the buzzer now."""
        with self._lock:
            self._halt()

    def wait_done(self, timeout: float | None = None) -> bool:
        """Block until the current pattern ends; False on timeout."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    @property
    def is_playing(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        self.stop()
        self.device.close()

    def _halt(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2.0)
        self._thread = None
        self.current = None

    def _run(self, name: str, steps: list[tuple[float | None, float]], stop: threading.Event) -> None:
        try:
            for freq, seconds in steps:
                if stop.is_set():
                    break
                self._sound(freq)
                if self._wait(stop, seconds):
                    break
        finally:
            if not self.device.closed:
                self._sound(None)
            if self.current == name and self._stop is stop:
                self.current = None

    def _sound(self, freq: float | None) -> None:
        if self.kind == "passive":
            if freq is None:
                self.device.stop()
            else:
                self.device.play(Tone.from_frequency(freq))
        elif freq is None:
            self.device.off()
        else:
            self.device.on()
