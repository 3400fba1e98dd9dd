"""Raw gestures from the buttons: what a hand did, with the seat and the time, never what it
means. The referee decides that a press is an UNO call or a challenge from the game state.

Timing (all from the pin map's `timing`):
- press: down and up, then no new press within `double_press_window` of the release. It is
  reported when that window closes, so that a double press is never also reported as a press.
- double: a press, release, and a new press within `double_press_window`; reported at the
  second press.
- hold: down for `hold_time`; reported while still down. The release that follows adds nothing.
`at` is always when the finger first went down (the first press of a double), read from the
injected clock, so Slap 9 can rank presses fairly even though a press is reported late.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

from firmware_config.clock import Clock, Timer

log = logging.getLogger(__name__)

GestureName = Literal["press", "double", "hold"]
GESTURES: tuple[str, ...] = ("press", "double", "hold")


@dataclass(frozen=True)
class ButtonGesture:
    """A seat button gesture. `to_json()` is the referee's `gesture` input
    (table.inputs.SeatGesture): `{"kind": "gesture", "seat": 2, "gesture": "double", "at": 12.34}`.
    Seats are 0-based, as in the referee."""

    seat: int
    gesture: GestureName
    at: float
    kind: ClassVar[str] = "gesture"

    def to_json(self) -> dict:
        return {"kind": self.kind, "seat": self.seat, "gesture": self.gesture, "at": round(self.at, 4)}

    def to_input(self):
        """The referee's input object (table.inputs.SeatGesture), validated."""
        from table.inputs import parse_input

        return parse_input(self.to_json())


@dataclass(frozen=True)
class ColourPick:
    """A colour pad press. `to_json()` is the referee's `colour` input (table.inputs.NameColour):
    `{"kind": "colour", "colour": "red", "source": "colour_pad"}`; that input carries no time,
    so `at` stays on this object only (for logs and tests)."""

    colour: str
    at: float
    kind: ClassVar[str] = "colour"
    source: ClassVar[str] = "colour_pad"

    def to_json(self) -> dict:
        return {"kind": self.kind, "colour": self.colour, "source": self.source}

    def to_input(self):
        """The referee's input object (table.inputs.NameColour), validated."""
        from table.inputs import parse_input

        return parse_input(self.to_json())


HardwareInput = ButtonGesture | ColourPick


class GestureDetector:
    """Turns one button's down/up edges into press, double and hold.

    Fed by `pressed()` and `released()` (from gpiozero's `when_pressed`/`when_released`);
    deadlines run on the injected clock. Thread-safe: edges arrive on gpiozero's thread and
    deadlines on timer threads; `emit` is called outside the lock."""

    def __init__(
        self,
        seat: int,
        emit: Callable[[ButtonGesture], None],
        clock: Clock,
        *,
        hold_time: float = 1.0,
        double_press_window: float = 0.35,
    ):
        self.seat = seat
        self.hold_time = hold_time
        self.double_press_window = double_press_window
        self._emit = emit
        self._clock = clock
        self._lock = threading.Lock()
        self._down_at: float | None = None  # set while the button is down
        self._held = False  # this press already became a hold
        self._completes_double = False  # this press already became the second of a double
        self._pending_at: float | None = None  # a finished press waiting out the window
        self._pending_released: float = 0.0
        self._hold_timer: Timer | None = None
        self._pending_timer: Timer | None = None
        self._generation = 0  # invalidates deadlines that fire after being superseded

    @property
    def is_pressed(self) -> bool:
        return self._down_at is not None

    def pressed(self) -> None:
        out: list[ButtonGesture] = []
        with self._lock:
            now = self._clock.now()
            if self._down_at is not None:
                return  # a second down edge without an up: ignore (bounce)
            self._down_at = now
            self._held = False
            self._completes_double = False
            self._generation += 1
            if self._pending_at is not None:
                self._cancel(self._pending_timer)
                first_at, self._pending_at = self._pending_at, None
                if now - self._pending_released <= self.double_press_window:
                    self._completes_double = True
                    out.append(ButtonGesture(self.seat, "double", first_at))
                else:
                    # The window closed but its deadline has not run yet (a busy thread).
                    out.append(ButtonGesture(self.seat, "press", first_at))
            if not self._completes_double:
                generation = self._generation
                self._hold_timer = self._clock.call_later(
                    self.hold_time, lambda: self._hold_due(generation)
                )
        self._send(out)

    def released(self) -> None:
        out: list[ButtonGesture] = []
        with self._lock:
            if self._down_at is None:
                return
            now = self._clock.now()
            down_at, self._down_at = self._down_at, None
            self._cancel(self._hold_timer)
            if self._held or self._completes_double:
                return
            if now - down_at >= self.hold_time:
                # The hold deadline was late (busy thread); the gesture is still a hold.
                out.append(ButtonGesture(self.seat, "hold", down_at))
            else:
                self._pending_at = down_at
                self._pending_released = now
                generation = self._generation
                self._pending_timer = self._clock.call_later(
                    self.double_press_window, lambda: self._pending_due(generation)
                )
        self._send(out)

    def close(self) -> None:
        with self._lock:
            self._generation += 1
            self._cancel(self._hold_timer)
            self._cancel(self._pending_timer)
            self._pending_at = None

    def _hold_due(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._down_at is None or self._held:
                return
            self._held = True
            gesture = ButtonGesture(self.seat, "hold", self._down_at)
        self._send([gesture])

    def _pending_due(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._pending_at is None:
                return
            gesture = ButtonGesture(self.seat, "press", self._pending_at)
            self._pending_at = None
        self._send([gesture])

    @staticmethod
    def _cancel(timer: Timer | None) -> None:
        if timer is not None:
            timer.cancel()

    def _send(self, gestures: list[ButtonGesture]) -> None:
        for gesture in gestures:
            try:
                self._emit(gesture)
            except Exception:  # a listener's bug must not kill gpiozero's event thread
                log.exception("gesture listener failed on %s", gesture)
