"""H10 Silent 2 and H11 Slap 9: timed seat-button windows (``State.windows``).

A 2 opens Silent 2 (the first seat-button press is a sound and draws); a 9 opens Slap 9
(every seat in the game presses; the slowest by its ``at`` time draws, or whoever has not
pressed when a later input's time passes ``house.slap9_limit`` or the next card is played).
``window_opened`` / ``window_closed`` carry ``buzzer`` = start / end for the hardware. Times
are the inputs' own (``Play.at``, gesture ``at``, ``Tick``): the referee has no clock.

While a window is open, ``press`` means the window's gesture (slap first, then the sound of
Silent 2), except for the seat told to draw 4, whose press is still the challenge.
"""

from __future__ import annotations

from table.events import Event, Notice, WindowClosed, WindowOpened
from table.inputs import Input, Tick
from table.referee.common import penalty
from table.referee.state import SlapPress, State, Window, WindowKind

SILENT2, SLAP9 = WindowKind.SILENT2, WindowKind.SLAP9


class WindowPress(Input):
    """A seat-button press that a timed window claims (H10 sound, H11 slap); internal only:
    the log keeps the raw gesture, so replay re-derives it."""

    __slots__ = ("seat", "at", "window")
    kind = "gesture"

    def __init__(self, seat: int, at: float, window: WindowKind):
        self.seat, self.at, self.window = seat, at, window


def window_press_for(s: State, seat: int, at: float) -> WindowPress | None:
    """What a press by `seat` means while windows are open: a slap (H11; slapping is silent)
    if a Slap 9 still waits for this seat, else a sound (H10) if Silent 2 holds."""
    for w in s.windows:
        if w.kind is SLAP9 and all(p.seat != seat for p in w.presses):
            return WindowPress(seat, at, SLAP9)
    for w in s.windows:
        if w.kind is SILENT2:
            return WindowPress(seat, at, SILENT2)
    return None


def open_window(s: State, w: Window, ev: list[Event]) -> None:
    if w.kind is SILENT2:  # a new 2 restarts the silence
        s.windows = tuple(x for x in s.windows if x.kind is not SILENT2) + (w,)
    else:
        s.windows = s.windows + (w,)
    ev.append(WindowOpened(w.kind.value, w.seat, w.rule, w.at))


def _close(s: State, w: Window, losers: tuple[int, ...], reason: str, ev: list[Event]) -> None:
    s.windows = tuple(x for x in s.windows if x is not w)
    presses = tuple((p.seat, p.at) for p in w.presses)
    ev.append(WindowClosed(w.kind.value, w.rule, losers, reason, presses))
    for x in losers:
        why = "made a sound during Silent 2" if w.kind is SILENT2 else "slowest to slap the 9"
        penalty(s, x, s.rules.slap_penalty, w.rule, why, ev)


def _slap_timeout(s: State, at: float | None, ev: list[Event], force: bool = False) -> None:
    for w in s.windows:
        if w.kind is not SLAP9:
            continue
        start = w.at if w.at is not None else (w.presses[0].at if w.presses else None)
        late = force or (at is not None and start is not None and at > start + s.rules.slap_limit)
        if late:
            pressed = {p.seat for p in w.presses}
            losers = tuple(x for x in range(s.rules.n) if x not in pressed and not s.out >> x & 1)
            reason = "no press within the time limit" if not force else "play went on before every seat pressed"
            _close(s, w, losers, reason, ev)


def windows_on_play(s: State, seat: int, at: float | None, ev: list[Event]) -> None:
    """A card was played: an open Slap 9 closes (the unpressed seats lose); Silent 2 ends
    when the seat that played the 2 plays again."""
    _slap_timeout(s, at, ev, force=True)
    for w in s.windows:
        if w.kind is SILENT2 and w.seat == seat:
            _close(s, w, (), f"seat {seat} played again", ev)


def window_press(s: State, p: WindowPress, ev: list[Event]) -> None:
    seat, at = p.seat, p.at
    _slap_timeout(s, at, ev)
    for w in s.windows:
        if w.kind is p.window is SLAP9:
            presses = w.presses + (SlapPress(seat, at),)
            nw = Window(w.kind, w.seat, w.at, presses)
            s.windows = tuple(nw if x is w else x for x in s.windows)
            live = [x for x in range(s.rules.n) if not s.out >> x & 1]
            if len(presses) >= len(live):
                # The slowest press by time; equal times: the one the referee received last.
                slowest = max(range(len(presses)), key=lambda i: (presses[i].at, i))
                loser = presses[slowest].seat
                _close(s, nw, (loser,), f"seat {loser} slapped last", ev)
            else:
                ev.append(Notice(seat, f"seat {seat} slaps the 9 at {at:g}s (H11)"))
            return
        if w.kind is p.window is SILENT2:
            return _close(s, w, (seat,), f"seat {seat} made the first sound", ev)
    ev.append(Notice(seat, f"seat {seat} pressed; the window is closed"))


def close_all(s: State, reason: str, ev: list[Event]) -> None:
    for w in s.windows:
        ev.append(WindowClosed(w.kind.value, w.rule, (), reason))
    s.windows = ()


def tick(s: State, inp: Tick, ev: list[Event]) -> None:
    if s.windows:
        _slap_timeout(s, inp.at, ev)
