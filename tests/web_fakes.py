"""An in-memory TableService for the dashboard's tests and benchmark.

Not a referee: it folds a tiny model of the table (top card, colour, turn, hand counts) from
the inputs it accepted, so the pages have real state to show. Inputs are validated by the
real `table.inputs.parse_input` and rules by the real `RulesConfig`, so bad commands are
refused exactly the way the hub refuses them. Like the real log, a correction (amend/undo)
rebuilds the state by replaying every input still in force.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any

from pydantic import ValidationError

from table.errors import UnoTableError
from table.inputs import parse_input
from table.rules import PRESETS, RulesConfig, load_rules

COLOURS = ("red", "yellow", "green", "blue")
HUB_KINDS = {"setup", "rules", "start", "pause", "resume", "end-round", "new-match"}  # as app/hub.py


class FakeRefused(UnoTableError, ValueError):
    """The fake table refused a command (as the hub would)."""


BUZZER_PATTERNS = [
    {"name": "ok", "text": "one short beep: accepted", "tones": [{"freq": 1200, "ms": 80}]},
    {
        "name": "warning",
        "text": "two short low beeps: illegal play",
        "tones": [{"freq": 440, "ms": 120}, {"freq": 0, "ms": 80}, {"freq": 440, "ms": 120}],
    },
    {
        "name": "uno",
        "text": "rising triple: UNO called",
        "tones": [{"freq": 660, "ms": 90}, {"freq": 880, "ms": 90}, {"freq": 1320, "ms": 140}],
    },
]


class FakeTableService:
    def __init__(self, seats: int = 4, names: list[str] | None = None, hardware: bool = True):
        self._cond = threading.Condition()
        self._frame_cond = threading.Condition()
        self._events: list[dict] = []
        self._log: list[dict] = []  # accepted inputs: {"seq", "input", "source", "time", "withdrawn"}
        self._frame: tuple[int, bytes] | None = None
        self.presses: list[tuple[str, str]] = []
        self.submitted: list[tuple[dict, str]] = []
        self._hardware = hardware
        self.rules_config = load_rules("official", overrides={"players": seats})
        self.preset = "official"
        self.names = list(names or [f"Player {i + 1}" for i in range(seats)])
        self.status = "setup"
        self.rounds: list[list[int]] = []
        self.finished = False
        self._state = self._fold()

    # ------------------------------------------------------------------ test hooks

    def emit(self, type_: str, payload: dict | None = None) -> dict:
        """Append an event (as if the referee produced it) and wake the waiters."""
        with self._cond:
            event = {"seq": len(self._events) + 1, "type": type_, "payload": dict(payload or {})}
            self._events.append(event)
            self._cond.notify_all()
            return event

    def push_frame(self, jpeg: bytes) -> int:
        with self._frame_cond:
            n = (self._frame[0] + 1) if self._frame else 1
            self._frame = (n, jpeg)
            self._frame_cond.notify_all()
            return n

    # ------------------------------------------------------------------ folding

    def _fold(self) -> dict:
        n = self.rules_config.players
        seats = [
            {"seat": i, "name": self.names[i] if i < len(self.names) else f"Player {i + 1}",
             "hand_count": self.rules_config.setup.hand_size, "uno": "none", "inferred": False}
            for i in range(n)
        ]  # fmt: skip
        st: dict[str, Any] = {
            "status": self.status, "current_colour": None, "top_card": None, "turn": None,
            "direction": 1, "seats": seats, "pending": {"draw": 0, "stack": [], "penalties": []},
            "awaiting_colour": None, "verdicts": [],
        }  # fmt: skip
        for entry in self._log:
            if not entry["withdrawn"]:
                self._apply(st, entry["input"])
        return st

    def _apply(self, st: dict, inp: dict) -> str:
        kind = inp["kind"]
        n = len(st["seats"])
        seat = inp.get("seat")
        if kind == "start_round":
            st["turn"], st["status"] = 0, "playing"
            return "round starts, seat 0 plays first"
        if kind == "flip":
            st["top_card"], st["current_colour"] = inp["card"], _colour(inp["card"])
            return f"starter {inp['card']}"
        if kind == "play":
            seat = st["turn"] if seat is None else seat
            if seat is None:
                raise FakeRefused("input 'play': no round is running (start one first)")
            card = inp["cards"][-1]
            st["top_card"] = card
            st["seats"][seat]["hand_count"] = max(0, st["seats"][seat]["hand_count"] - len(inp["cards"]))
            st["seats"][seat]["inferred"] = inp.get("seat") is None
            if card.startswith("wild"):
                st["awaiting_colour"] = seat
            else:
                st["current_colour"] = _colour(card)
            st["turn"] = (seat + st["direction"]) % n
            st["verdicts"] = (st["verdicts"] + [{"ok": True, "text": f"seat {seat} played {card}", "reason": "P2: matches"}])[-5:]
            return f"seat {seat} plays {card}"
        if kind == "draw":
            seat = st["turn"] if seat is None else seat
            st["seats"][seat]["hand_count"] += inp.get("count", 1)
            return f"seat {seat} draws {inp.get('count', 1)}"
        if kind == "pass":
            seat = st["turn"] if seat is None else seat
            st["turn"] = (seat + st["direction"]) % n if seat is not None else None
            return f"seat {seat} passes"
        if kind == "colour":
            st["current_colour"], st["awaiting_colour"] = inp["colour"], None
            return f"colour named: {inp['colour']}"
        if kind == "call_uno":
            st["seats"][inp["seat"]]["uno"] = "called"
            return f"seat {inp['seat']} calls UNO"
        if kind == "catch":
            return f"seat {inp['seat']} presses catch"
        if kind == "challenge":
            return f"seat {seat} {'challenges' if inp.get('challenge', True) else 'accepts the draw'}"
        if kind == "host_penalty":
            st["seats"][inp["seat"]]["hand_count"] += inp["count"]
            return f"host penalty: seat {inp['seat']} draws {inp['count']} ({inp['rule']})"
        if kind == "reveal":
            return f"seat {inp['seat']} reveals {' '.join(inp['cards'])}"
        if kind == "correct_count":
            st["seats"][inp["seat"]]["hand_count"] = inp["count"]
            return f"seat {inp['seat']} holds {inp['count']} (host)"
        return kind

    # ------------------------------------------------------------------ the protocol

    def snapshot(self) -> dict:
        with self._cond:
            snap = copy.deepcopy(self._state)
            snap["seq"] = len(self._events)
            snap["status"] = self.status
            sc = self.rules_config.scoring
            snap["match"] = {"round": len(self.rounds) + 1, "format": sc.format, "target": sc.target, "preset": self.preset}
            return snap

    def wait_events(self, after_seq: int, timeout: float) -> list[dict]:
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while len(self._events) <= after_seq:
                left = deadline - time.monotonic()
                if left <= 0:
                    return []
                self._cond.wait(left)
            return [dict(e) for e in self._events[after_seq:]]

    def submit(self, command: dict, *, source: str) -> dict:
        with self._cond:
            self.submitted.append((copy.deepcopy(command), source))
            kind = command.get("kind")
            if kind in HUB_KINDS:
                return self._hub(command)
            inp = parse_input(command).to_dict()  # raises InputError (a ValueError)
            if kind in ("amend", "undo"):
                return self._correct(inp, source)
            entry = {"seq": len(self._log) + 1, "input": inp, "source": source, "time": time.time(), "withdrawn": False}
            trial = copy.deepcopy(self._state)
            text = self._apply(trial, inp)  # may refuse: then nothing is logged
            self._log.append(entry)
            self._state = trial
            event = self.emit(_event_type(kind), {"text": text, "entry": entry["seq"], "source": source, "inferred": inp.get("seat") is None and kind in ("play", "draw", "pass")})
            return {"entry": entry["seq"], "events": [event]}

    def _correct(self, inp: dict, source: str) -> dict:
        target = inp.get("target")
        live = [e for e in self._log if not e["withdrawn"]]
        if target is None:
            if not live:
                raise FakeRefused("input 'undo': nothing to undo")
            target = live[-1]["seq"]
        if not 1 <= target <= len(self._log) or self._log[target - 1]["withdrawn"]:
            raise FakeRefused(f"input '{inp['kind']}': no log entry {target} in force")
        entry = self._log[target - 1]
        saved = copy.deepcopy(self._log)
        if inp["kind"] == "undo":
            entry["withdrawn"] = True
            text = f"entry {target} ({entry['input']['kind']}) withdrawn by {source}"
        else:
            entry["input"] = inp["input"]
            text = f"entry {target} corrected to {inp['input']}"
        try:
            self._state = self._fold()
        except FakeRefused:
            self._log = saved
            raise
        self._log.append({"seq": len(self._log) + 1, "input": inp, "source": source, "time": time.time(), "withdrawn": True})
        return {"events": [self.emit("state_rebuilt", {"text": text, "target": target})]}

    def _hub(self, cmd: dict) -> dict:
        kind = cmd["kind"]
        if kind in ("setup", "rules"):
            preset = cmd.get("preset", self.preset)
            if preset not in PRESETS:
                raise FakeRefused(f"unknown preset {preset!r}: choose one of {', '.join(PRESETS)}")
            try:
                rules = RulesConfig.model_validate(cmd.get("rules") or PRESETS[preset])
            except ValidationError as exc:
                raise FakeRefused("invalid rules: " + "; ".join(
                    f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from None  # fmt: skip
            if kind == "setup":
                players = cmd.get("players")
                if not isinstance(players, list) or not all(isinstance(p, dict) and isinstance(p.get("name"), str) and p["name"].strip() for p in players):
                    raise FakeRefused("players: expected a list of {seat, name} objects with non-empty names")
                if len(players) != rules.players:
                    raise FakeRefused(f"players: {len(players)} names but rules.players is {rules.players}")
                self.names = [p["name"].strip() for p in players]
                self.status = "setup"
                self._log = []
            self.rules_config, self.preset = rules, preset
            self._state = self._fold()
            return {"events": [self.emit("rules_changed", {"text": f"rules: {preset}, {rules.players} players", "rules": rules.model_dump()})]}
        if kind == "start":
            return self.submit({"kind": "start_round"}, source="host")
        if kind == "pause":
            self.status = "paused"
        elif kind == "resume":
            self.status = "playing"
        elif kind == "end-round":
            raise FakeRefused("a round ends when a seat goes out; to abandon it, start a new match (new-match)")
        elif kind == "new-match":
            self.rounds, self.finished, self.status, self._log = [], False, "setup", []
            self._state = self._fold()
        return {"events": [self.emit(kind, {"text": f"host: {kind}"})]}

    def add_round(self, points: list[int]) -> None:
        """Test hook: a scored round (the referee scores from revealed hands)."""
        with self._cond:
            self.rounds.append(list(points))
            self.finished = max(self.totals()) >= self.rules_config.scoring.target
            self.emit("round_scored", {"text": f"round {len(self.rounds)} scored", "points": points})

    def totals(self) -> list[int]:
        n = self.rules_config.players
        return [sum(r[i] for r in self.rounds) for i in range(n)]

    def scores(self) -> dict:
        """The one scores shape (table.summary.MatchSummary as JSON), names as labels."""
        from table.summary import MatchSummary

        with self._cond:
            names = self.names[: self.rules_config.players]
            rounds, running, acc = [], [], [0] * len(names)
            running = [{"round": 0, "entrant": i, "label": n, "total": 0} for i, n in enumerate(names)]
            for r, pts in enumerate(self.rounds, 1):
                acc = [a + p for a, p in zip(acc, pts, strict=True)]
                rounds.append({"round": r, "winners": [names[pts.index(max(pts))]], "hand_points": {},
                               "points": dict(zip(names, pts, strict=True)),
                               "totals": dict(zip(names, acc, strict=True))})  # fmt: skip
                running += [{"round": r, "entrant": i, "label": n, "total": t} for i, (n, t) in enumerate(zip(names, acc, strict=True))]
            totals = dict(zip(names, self.totals(), strict=True))
            winners = [max(totals, key=totals.get)] if self.finished else []
            sc = self.rules_config.scoring
            return MatchSummary.model_validate({
                "format": sc.format, "target": sc.target, "teams": "none", "entrants": names, "rounds": rounds,
                "totals": totals, "over": self.finished, "ended_by": "target" if self.finished else None,
                "winners": winners, "losers": [], "running_totals": running,
            }).model_dump(mode="json")  # fmt: skip

    def log_entries(self, *, seat: int | None, kind: str | None, limit: int) -> list[dict]:
        with self._cond:
            out = []
            for e in self._log:
                inp = e["input"]
                if kind is not None and inp["kind"] != kind:
                    continue
                if seat is not None and inp.get("seat") != seat:
                    continue
                out.append({
                    "seq": e["seq"], "kind": inp["kind"], "seat": inp.get("seat"),
                    "inferred": inp.get("seat") is None and inp["kind"] in ("play", "draw", "pass"),
                    "withdrawn": e["withdrawn"], "text": _entry_text(inp), "payload": inp,
                    "source": e["source"], "time": e["time"],
                })  # fmt: skip
            return out[-limit:]

    def rules(self) -> dict:
        return {
            "current": self.rules_config.model_dump(),
            "preset": self.preset,
            "presets": [
                {"name": name, "description": name, "values": load_rules(name).model_dump()}
                for name in PRESETS
            ],
            "schema": RulesConfig.model_json_schema(),
        }

    def latest_frame(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        deadline = time.monotonic() + timeout
        with self._frame_cond:
            while self._frame is None or self._frame[0] <= after:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._frame_cond.wait(left)
            return self._frame

    def hardware(self) -> dict | None:
        if not self._hardware:
            return None
        return {
            "seats": [{"seat": s["seat"], "name": s["name"]} for s in self._state["seats"]],
            "colours": list(COLOURS),
            "gestures": ["press", "hold", "double"],
            "patterns": BUZZER_PATTERNS,
        }

    def press(self, target: str, gesture: str) -> dict:
        with self._cond:
            self.presses.append((target, gesture))
            head, _, tail = target.partition(":")
            if head == "seat":
                return self.submit({"kind": "gesture", "seat": int(tail), "gesture": gesture}, source="virtual-panel")
            return self.submit({"kind": "colour", "colour": tail}, source="virtual-panel")


def _colour(card: str) -> str | None:
    head = card.split("-")[0]
    return head if head in COLOURS else None


def _event_type(kind: str) -> str:
    return {"play": "play_accepted", "call_uno": "uno_called", "colour": "colour_named"}.get(kind, kind)


def _entry_text(inp: dict) -> str:
    bits = [f"{k}={v}" for k, v in inp.items() if k != "kind"]
    return f"{inp['kind']} " + " ".join(bits)


class SSEClient:
    """A minimal Server-Sent Events reader over http.client, for tests and the benchmark:
    what a browser's EventSource does, with the Last-Event-ID header on reconnect."""

    def __init__(self, base_url: str, path: str = "/api/stream", *, last_event_id: int | None = None, timeout: float = 10.0):
        import http.client
        from urllib.parse import urlsplit

        parts = urlsplit(base_url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.conn.request("GET", path, headers=headers)
        self.sock = self.conn.sock  # getresponse() forgets it on "Connection: close"
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.last_id: int | None = last_event_id
        self.comments = 0

    def next(self) -> dict | None:
        """The next message as {"type", "payload", "id"}; skips comments, counts them.
        None at end of stream. Raises TimeoutError (socket.timeout) when nothing comes."""
        import json as _json

        data: list[str] = []
        msg_id = None
        while True:
            line = self.resp.readline()
            if not line:
                return None
            text = line.decode().rstrip("\r\n")
            if text == "":
                if data:
                    msg = _json.loads("\n".join(data))
                    if msg_id is not None:
                        self.last_id = int(msg_id)
                    msg["id"] = msg_id and int(msg_id)
                    return msg
                continue
            field, _, value = text.partition(":")
            value = value.removeprefix(" ")
            if field == "":
                self.comments += 1
            elif field == "data":
                data.append(value)
            elif field == "id":
                msg_id = value

    def close(self) -> None:
        import socket

        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.resp.close()
        self.conn.close()
        self.sock.close()
