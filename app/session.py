"""A game session: the rules, the log and the live state, wired the one safe way round.

``apply`` checks a parsed input against the rules (a bad input raises InputError and nothing
is logged), logs it (committed before anything else happens), then steps the referee.
``submit`` parses first. On open, the state is rebuilt by replaying the log, each entry
checked as the live table checked it. Listeners get (events, snapshot) after each input.

The hub (`app/hub.py`) is built on one Session: every input of the table, from whatever
source, goes through `apply`, so parsing, checking, logging and stepping live here only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from table.errors import LogError
from table.events import Event
from table.inputs import Input, InputError, parse_input
from table.log import EventLog, MemoryLog
from table.referee import State, check_input, new_state, snapshot, step
from table.rules import RulesConfig

Listener = Callable[[list[Event], dict[str, Any]], None]
#: Called for each input as it is applied (replayed at open, or live): (input, events).
StepHook = Callable[[Input, list[Event]], None]


class Session:
    def __init__(
        self,
        rules: RulesConfig | None = None,
        log: EventLog | MemoryLog | None = None,
        *,
        on_step: StepHook | None = None,
    ):
        if log is None:
            if rules is None:
                raise ValueError("a session needs rules or a log")
            log = MemoryLog(rules)
        self.log = log
        self.rules = log.rules
        self._on_step = on_step
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self.state: State = new_state(self.rules)
        where = str(getattr(log, "path", "log"))
        for seq, inp in enumerate(log.inputs(), 1):
            try:
                check_input(self.state, inp)
            except InputError as exc:
                raise LogError(f"{where}: entry {seq} cannot be replayed: {exc}") from None
            self._step(inp)

    @property
    def lock(self) -> threading.RLock:
        """Held while the state and the log change; readers take it for a consistent view."""
        return self._lock

    def _step(self, inp: Input) -> list[Event]:
        self.state, events = step(self.state, inp)
        if self._on_step is not None:
            self._on_step(inp, events)
        return events

    def apply(self, inp: Input) -> list[Event]:
        """Check, log (committed), step; then tell the listeners."""
        with self._lock:
            check_input(self.state, inp)
            self.log.append(inp)  # logged (committed) before it is acted on
            events = self._step(inp)
            snap = snapshot(self.state) if self._listeners else None
        for listener in list(self._listeners):
            listener(events, snap)
        return events

    def submit(self, data: Input | dict[str, Any]) -> list[Event]:
        return self.apply(parse_input(data))

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return snapshot(self.state)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def close(self) -> None:
        self.log.close()
