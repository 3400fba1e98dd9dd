"""The one door between the dashboard and the game.

The dashboard never touches the referee, the log, the camera or GPIO directly: the app hub
(`app/hub.py`, issue 8) implements this protocol and hands an object to
`web_ui.app.create_app`. Everything here is plain JSON-able data, so the web layer stays a
thin mirror and a test double (tests/web_fakes.py) can stand in for the whole table.

Shapes the pages read (extra keys are ignored; a missing key is shown as "—"):

snapshot()::

    {"seq": 41,                         # seq of the last event folded into this state
     "status": "playing",               # setup | playing | paused | round-over | match-over
     "current_colour": "red",           # or None before the first card
     "top_card": "red-7",               # DESIGN.md card id, or None
     "turn": 2, "direction": 1,         # seat index; 1 clockwise, -1 counter-clockwise
     "seats": [{"seat": 0, "name": "Ana", "hand_count": 7, "uno": "called",  # none|called|missed
                "team": 0, "inferred": False}],
     "pending": {"draw": 4, "stack": ["red-draw2", "blue-draw2"],
                 "penalties": [{"seat": 1, "count": 2, "reason": "missed UNO (U2)"}]},
     "awaiting_colour": None,           # seat that must name a colour, or None
     "verdicts": [{"seq": 40, "ok": False, "text": "seat 2 played blue-3 on red-7",
                   "reason": "P2: blue-3 matches neither colour red nor number 7"}],
     "match": {"round": 1, "format": "standard", "target": 500, "preset": "official"}}

events: ``{"seq": int, "type": str, "payload": dict}``; a ``payload["text"]`` (one readable
line) is shown as is when present. A ``"buzzer"`` event with ``payload["pattern"]`` is played by
the virtual hardware panel.

scores(): the one scores shape, ``table.summary.MatchSummary`` as JSON (its CSV is
``MatchSummary.to_csv``)::

    {"format": "standard", "target": 500, "teams": "none",
     "entrants": ["Ana", "Ben"],                                        # names (or "Ana & Cy")
     "rounds": [{"round": 1, "winners": ["Ana"], "hand_points": {"Ben": 35},
                 "points": {"Ana": 35, "Ben": 0}, "totals": {"Ana": 35, "Ben": 0},
                 "eliminated": [], "flags": []}],
     "totals": {"Ana": 35, "Ben": 0}, "over": False, "ended_by": None,
     "winners": [], "losers": [], "active": [], "ledger": {}, "running_totals": [...]}

log_entries(): ``[{"seq", "kind", "seat", "inferred": bool, "text", "payload", "time"}]``.

rules(): ``{"current": {...}, "presets": [{"name", "description", "values": {...}}],
"schema": RulesConfig.model_json_schema()}``.

hardware(): ``{"seats": [{"seat": 0, "name": "Ana"}], "colours": ["red", ...],
"gestures": ["press", "hold", "double"], "patterns": [{"name": "warning", "text": "two short
beeps", "tones": [{"freq": 880, "ms": 120}, {"freq": 0, "ms": 80}, ...]}]}`` or None with
real GPIO.

Host commands accepted by submit() besides the referee's own inputs (table/inputs.py; the
hub, app/hub.py TableHub, implements them):
``{"kind": "setup", "players": [{"seat": 0, "name": "Ana"}, ...], "preset": "official",
"rules": {...RulesConfig fields...}}``, ``{"kind": "rules", "preset": ..., "rules": {...}}``,
``{"kind": "start"}``, ``{"kind": "pause"}``, ``{"kind": "resume"}``, ``{"kind": "end-round"}``,
``{"kind": "new-match"}``. Host corrections are referee inputs: ``amend`` (correct a recognised
card), ``undo`` (last input, or ``target`` to withdraw one entry: cancels the penalty it caused),
``host_penalty``, ``correct_count``, ``reveal`` (end-of-round hands: the referee scores them).
Seat controllers send ``call_uno``, ``catch``, ``challenge``, ``draw``, ``pass``, ``colour``,
``spin`` (H13: no roll, no outcome; the table draws the roll) with their own seat (see
web_ui/validate.py SEAT_ACTIONS). The snapshot's ``"wheel"`` (H13's segments, or None) and
``"spin"`` (who spins, the outcome) feed the spin wheel.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from table.errors import UnoTableError


class CommandRejected(UnoTableError, ValueError):
    """A command the dashboard refused before it reached the table (bad shape or type)."""


class StreamsFull(UnoTableError, RuntimeError):
    """Every live-stream slot is taken; the client should retry later."""


@runtime_checkable
class TableService(Protocol):
    """What the app hub offers the dashboard. Every method is called from many threads."""

    def snapshot(self) -> dict:
        """The full table state as JSON (see the module docstring), with `seq`."""
        ...

    def wait_events(self, after_seq: int, timeout: float) -> list[dict]:
        """Events with seq > after_seq, oldest first; blocks up to `timeout` s when none."""
        ...

    def submit(self, command: dict, *, source: str) -> dict:
        """Apply a referee input or host command. Raises an UnoTableError that is also a
        ValueError, with a readable message, when the command is refused (nothing changes).
        `source` is "host", "seat:2", "virtual-panel"... Returns a JSON result (e.g. the
        events it produced, or {"ok": True})."""
        ...

    def scores(self) -> dict:
        """Per-round table, totals, running totals per round, winner(s), match format."""
        ...

    def log_entries(self, *, seat: int | None, kind: str | None, limit: int) -> list[dict]:
        """The newest `limit` logged entries matching the filters, oldest first."""
        ...

    def rules(self) -> dict:
        """{"current": {...}, "presets": [...], "schema": RulesConfig JSON schema}."""
        ...

    def latest_frame(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        """The newest annotated JPEG numbered > after, waiting up to `timeout` s; None when
        no newer frame came (or there is no camera)."""
        ...

    def hardware(self) -> dict | None:
        """The virtual hardware panel's description, or None with real GPIO."""
        ...

    def press(self, target: str, gesture: str) -> dict:
        """A press on the virtual panel: target "seat:2" or "colour:red", gesture "press",
        "hold" or "double". Raises a ValueError-UnoTableError when refused."""
        ...
