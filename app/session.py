"""A game session: the rules, the log and the live state, wired the one safe way round.

``submit`` parses the input, checks it against the rules (a bad input raises InputError and
nothing is logged), logs it (committed before anything else happens), then applies it. On
open, the state is rebuilt by replaying the log. Listeners get (events, snapshot) after each
input: the dashboard and the buzzer subscribe here. Thread-safe (one lock).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from table.events import Event
from table.inputs import Input, parse_input
from table.log import EventLog, MemoryLog, rebuild_state
from table.referee import State, check_input, snapshot, step
from table.rules import RulesConfig

Listener = Callable[[list[Event], dict[str, Any]], None]


class Session:
    def __init__(self, rules: RulesConfig | None = None, log: EventLog | MemoryLog | None = None):
        if log is None:
            if rules is None:
                raise ValueError("a session needs rules or a log")
            log = MemoryLog(rules)
        self.log = log
        self.rules = log.rules
        self.state: State = rebuild_state(self.rules, log.inputs(), str(getattr(log, "path", "log")))
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []

    def submit(self, data: Input | dict[str, Any]) -> list[Event]:
        inp = parse_input(data)
        with self._lock:
            check_input(self.state, inp)
            self.log.append(inp)
            self.state, events = step(self.state, inp)
            snap = snapshot(self.state)
        for listener in list(self._listeners):
            listener(events, snap)
        return events

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return snapshot(self.state)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def close(self) -> None:
        self.log.close()
