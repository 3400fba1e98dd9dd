"""The app hub: one writer between every source of input and the referee.

Vision, seat buttons, phones and the host all call `TableHub.submit` (or `enqueue`). A single
writer thread takes inputs in the order they arrived, logs each one (committed, fsynced)
before the referee applies it, and fans the resulting events out to the dashboard feed and
to listeners (buzzer, LEDs). The hub implements the dashboard's service protocol
(`web_ui/service.py`) with plain JSON, so the web layer never touches the referee.

Collaborators that need cameras or GPIO are passed in already built (duck-typed), so this
module imports none of that code (DESIGN.md: table/ holds no camera, GPIO or HTTP code).
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from app.matchfiles import new_seat_tokens
from app.observe import ObservationMapper
from app.session import Session
from table.cards import CARD_IDS
from table.doubt import MIN_CONFIDENCE, MIN_MARGIN, doubt, options
from table.errors import UnoTableError
from table.events import Event, RoundStarted, StateRebuilt, event_from_dict
from table.inputs import INPUT_TYPES, InputError, StartRound, input_to_dict, parse_input
from table.log import EventLog, MemoryLog
from table.names import clean_names
from table.referee import (
    COLOUR,
    IDLE,
    MATCH_OVER,
    ROUND_OVER,
    State,
    needs_roll,
    snapshot,
    wheel_segments,
)
from table.rules import PRESETS, RulesConfig, load_rules
from table.summary import empty_summary
from table.wording import card_words, with_names

#: Host commands handled by the hub itself (the rest are referee inputs).
HOST_COMMANDS = ("setup", "rules", "start", "pause", "resume", "end-round", "new-match", "answer", "mark")
#: Inputs the camera reads cards for: the table may be unsure of them and ask the host.
ASKED_KINDS = ("play", "flip", "reveal")

Listener = Callable[[list[Event], dict[str, Any]], None]


class CommandError(UnoTableError, ValueError):
    """A command the hub refused (unknown, not allowed now, or from the wrong seat)."""


class Feed:
    """Every message the dashboard sees, numbered from 1, kept for resume after a dropped
    connection. Rebuilt by replay on start, so numbers survive a restart."""

    def __init__(self) -> None:
        self._items: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    @property
    def last_seq(self) -> int:
        return len(self._items)

    def publish(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        with self._cond:
            msg = {"seq": len(self._items) + 1, "type": kind, "payload": payload}
            self._items.append(msg)
            self._cond.notify_all()
        return msg

    def publish_events(self, events: list[Event], words: Callable[[str], str] = str) -> None:
        with self._cond:
            for e in events:
                payload = e.to_dict()
                payload["text"] = words(e.text())
                self._items.append({"seq": len(self._items) + 1, "type": e.kind, "payload": payload})
            self._cond.notify_all()

    def after(self, seq: int, timeout: float = 0.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while len(self._items) <= seq:
                left = deadline - time.monotonic()
                if left <= 0:
                    return []
                self._cond.wait(left)
            return self._items[max(0, seq):]

    def all(self) -> list[dict[str, Any]]:
        with self._cond:
            return list(self._items)


class TableHub:
    """The running table: rules, log, live state, feed and the single writer.

    `log` is an EventLog (SQLite, the product) or MemoryLog (headless runs). `names` are the
    players in seat order. `frames` (optional) offers `latest(after, timeout)` for the camera
    page; `panel` (optional, mock GPIO only) offers `describe()` and `press(target, gesture)`.
    `ask` (optional): {"enabled", "min_confidence", "min_margin"}: when the table asks the
    host about a camera reading (table/doubt.py). `replay` (optional, vision.replay's
    ReplayRecorder): the clip behind every camera entry; it is told which log entry each
    observation became (`keep`), where the match lives (`set_match`) and when a round starts
    (`protect_from`), and it serves `clip`, `frame`, `crop`, `mark` and `status`.
    `roll` (optional): the table's dice, a function giving a float in [0, 1): the hub draws
    a roll for each input the referee says needs one (a spin of the wheel, H13:
    `table.referee.needs_roll`) and logs it with the input, so the game replays exactly.
    """

    def __init__(
        self,
        log: EventLog | MemoryLog,
        names: list[str] | None = None,
        *,
        preset: str | None = None,
        frames: Any = None,
        panel: Any = None,
        match_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        matches: Any = None,
        seat_tokens: dict[int, str] | None = None,
        ask: dict[str, Any] | None = None,
        replay: Any = None,
        roll: Callable[[], float] | None = None,
    ) -> None:
        n = log.rules.match_config().players  # T2 at two tables: 8 players, 4 seats here
        self.names = list(names or [f"Seat {i}" for i in range(n)])
        if len(self.names) != n:
            raise CommandError(f"{len(self.names)} names given for {n} seats")
        self.preset = preset or log.rules.name
        self.frames = frames
        self.panel = panel
        self.match_dir = match_dir
        self.matches = matches  # app.matchfiles.MatchStore: numbers, current pointer, names, seat links
        self._seat_tokens = dict(seat_tokens) if seat_tokens else new_seat_tokens()
        self.clock = clock
        self.ask = {"enabled": True, **(ask or {})}
        self.replay = replay
        self.roll = roll or random.SystemRandom().random
        if replay is not None:
            replay.set_match(getattr(log, "path", None))
        self.paused = False
        self.feed = Feed()
        self.mapper = ObservationMapper()
        self.camera_status: dict[str, Any] = {"status": "none", "message": None}
        self._listeners: list[Listener] = []
        self._queue: queue.Queue[tuple[dict[str, Any] | Any, str, Future] | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        # State is the fold over the log; the feed is rebuilt with it, so message numbers and
        # the log view are the same after a restart (power cut) as before it.
        self._entries: list[dict[str, Any]] = []
        self._source = "log"
        self._seating: tuple[int, ...] = tuple(range(n))  # who sits where (T2/T3), for names
        self.session = Session(log=log, on_step=self._record)

    @property
    def log(self) -> EventLog | MemoryLog:
        return self.session.log

    @property
    def rules_config(self) -> RulesConfig:
        return self.session.rules

    @property
    def state(self) -> State:
        return self.session.state

    @property
    def _lock(self):
        return self.session.lock

    # ----- the single writer

    def start(self) -> TableHub:
        if self._writer is None:
            self._writer = threading.Thread(target=self._run, name="table-writer", daemon=True)
            self._writer.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join(timeout)
            self._writer = None

    def close(self) -> None:
        self.stop()
        self.log.close()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            command, source, fut = item
            if fut.set_running_or_notify_cancel():
                try:
                    fut.set_result(self._handle(command, source))
                except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                    fut.set_exception(exc)

    def enqueue(self, command: dict[str, Any] | Any, source: str = "host") -> Future:
        """Queue an input or host command; the future holds its result or its error.

        Without a running writer (tests, headless runs) it is handled at once."""
        fut: Future = Future()
        if self._writer is None:
            fut.set_running_or_notify_cancel()
            try:
                fut.set_result(self._handle(command, source))
            except BaseException as exc:  # noqa: BLE001
                fut.set_exception(exc)
            return fut
        self._queue.put((command, source, fut))
        return fut

    def submit(self, command: dict[str, Any] | Any, *, source: str = "host", timeout: float = 10.0) -> dict:
        """Apply an input or host command and wait for its result (the dashboard's door)."""
        return self.enqueue(command, source).result(timeout)

    # ----- handling one command (writer thread only)

    def _handle(self, command: dict[str, Any] | Any, source: str) -> dict[str, Any]:
        kind = command.get("kind") if isinstance(command, dict) else getattr(command, "kind", None)
        if kind in HOST_COMMANDS:
            if not source.startswith("host"):
                raise CommandError(f"'{kind}' is a host command; {source} may not send it")
            return self._host_command(kind, command)
        if self.paused and source != "host":
            raise CommandError(f"the game is paused by the host; {kind or 'input'} from {source} ignored")
        observed = None  # the observation (JSON) this input was read from
        if kind == "observation":  # vision's report: its meaning depends on the state now
            mapped, why = self._map_observation(command)
            observed = self.mapper.seen_in
            if mapped is None:
                return {"ok": True, "ignored": why, "events": []}
            command = mapped
        inp = parse_input(command)
        self._check_source(inp, source)
        asked = None
        if observed is not None and inp.kind in ASKED_KINDS and self.ask["enabled"]:
            asked = doubt(self.state, inp, min_confidence=self.ask.get("min_confidence", MIN_CONFIDENCE),
                          min_margin=self.ask.get("min_margin", MIN_MARGIN))  # fmt: skip
            inp.unsure = asked
        with self._lock:
            self._source = source
            if needs_roll(self.state, inp):  # H13: the app owns the dice, the referee reads them
                inp.roll = self.roll()
            # H5: a seat's hold before or after a card says who jumped in; the referee decides
            # (table.referee.claims), on the inputs' own times.
            events = self.session.apply(inp)  # checked, logged (committed), then applied
            self.mapper.note_events(events)
            snap = snapshot(self.state)
            entry = len(self.log)
        self._after_logged(entry, inp, events, observed, asked)
        for listener in list(self._listeners):
            listener(events, snap)
        words = self.words
        return {"ok": True, "events": [e.to_dict() | {"text": words(e.text())} for e in events]}

    def _after_logged(self, entry: int, inp: Any, events: list[Event], observed: dict | None, asked: dict | None) -> None:
        """A camera entry keeps its clip; a question is put to the host; an answer (any amend
        or undo of an asked entry) closes it; a new round's clips are kept from here on."""
        replay = self.replay
        if replay is not None:
            if observed is not None:
                replay.keep(entry, observed)
            if any(type(e) is RoundStarted for e in events):
                replay.protect_from(entry)
        if asked is not None:
            q = self._question(entry)
            if q is not None:
                self.feed.publish("question", q)
        for e in events:
            if type(e) is StateRebuilt and 0 < e.target <= len(self._entries):
                old = self._entries[e.target - 1]
                if old["payload"].get("unsure"):
                    self.feed.publish("question", self._question(e.target) or {"entry": e.target})

    def _map_observation(self, command: Any) -> tuple[dict[str, Any] | None, str]:
        obs = command.get("observation") if isinstance(command, dict) else getattr(command, "observation", None)
        if not isinstance(obs, dict):
            raise CommandError(f"observation: expected an object like vision reports, got {type(obs).__name__}")
        try:
            return self.mapper.to_input(obs, self.state)
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise CommandError(f"observation: not the shape vision reports ({exc.__class__.__name__}: {exc})") from None

    def _check_source(self, inp: Any, source: str) -> None:
        """A phone that joined seat N acts only for seat N."""
        if not source.startswith("seat:"):
            return
        seat = int(source.split(":", 1)[1])
        if inp.kind not in ("gesture", "call_uno", "catch", "challenge", "pass", "colour", "draw", "spin"):
            raise CommandError(f"a seat controller may not send '{inp.kind}'")
        if getattr(inp, "roll", None) is not None or getattr(inp, "outcome", None) is not None:
            raise CommandError("a seat controller spins the wheel; the table draws where it stops")
        claimed = getattr(inp, "seat", None)
        if claimed is None:
            try:
                inp.seat = seat
            except AttributeError:
                pass
        elif claimed != seat:
            raise CommandError(f"seat {seat}'s controller cannot act for seat {claimed}")

    def _record(self, inp: Any, events: list[Event]) -> None:
        """The session's step hook: the log view and the live feed, replayed or live."""
        source = self._source
        entry = input_to_dict(inp)
        seat = entry.get("seat")
        for e in events:  # the names in this entry's words are those of who sits there now
            if e.kind == "seating_set":
                self._seating = tuple(e.seating)
            elif type(e) is StateRebuilt and getattr(self, "session", None) is not None:
                self._seating = tuple(self.session.state.seating)
        words = self.words
        text = "; ".join(words(e.text()) for e in events) or inp.kind
        if entry.get("unsure"):
            text += " · asked the host"
        self._entries.append(
            {
                "seq": len(self._entries) + 1,
                "kind": inp.kind,
                "seat": seat,
                "inferred": any(getattr(e, "inferred", False) for e in events),
                "text": text,
                "payload": entry,
                "source": source,
                "time": time.time(),
                # who the referee took the cards to be from (a play's seat is inferred)
                "actor": next((e.seat for e in events if e.kind in ("play_accepted", "illegal_play")), seat),
            }
        )
        for e in events:  # which entry a correction replaced or withdrew
            if type(e) is StateRebuilt and 0 < e.target < len(self._entries):
                old = self._entries[e.target - 1]
                old["corrected_by"] = len(self._entries)
                if e.action == "undo":
                    old["withdrawn"] = True
        self.feed.publish_events(events, words)

    # ----- names, not seats

    def seat_names(self) -> list[str]:
        """Who sits at each seat now (T2/T3 move players between rounds)."""
        seating = self._seating
        return [
            self.names[seating[i]] if i < len(seating) and seating[i] < len(self.names) else name
            for i, name in enumerate(self.names)
        ]

    def words(self, text: str) -> str:
        """A referee text in the players' words: "Ana plays red 7"."""
        return with_names(text, self.seat_names())

    # ----- questions to the host (table/doubt.py decides when the table is unsure)

    def _question(self, entry: int) -> dict[str, Any] | None:
        if not 0 < entry <= len(self._entries):
            return None
        e = self._entries[entry - 1]
        unsure = e["payload"].get("unsure")
        if not unsure:
            return None
        inp = parse_input(e["payload"])
        index = unsure.get("card")
        cards = list(e["payload"].get("cards") or ([e["payload"]["card"]] if "card" in e["payload"] else []))
        read = cards[index] if index is not None and index < len(cards) else None
        seat = e["payload"].get("seat", e.get("actor"))
        names = self.seat_names()
        who = names[seat] if isinstance(seat, int) and seat < len(names) else None
        if e["kind"] == "play":
            whose = f"{who}'s" if who else "the"
            ask = f"Was {whose} card {card_words(read)}?" if read else "Was this play read right?"
        elif e["kind"] == "flip":
            ask = f"Was the starter card {card_words(read)}?" if read else "Was the starter read right?"
        else:
            ask = (f"Was {who}'s revealed {card_words(read)} right?" if read and who
                   else f"Is {who}'s revealed hand right?" if who else "Is the revealed hand right?")  # fmt: skip
        by = e.get("corrected_by")
        return {
            "entry": entry,
            "kind": e["kind"],
            "status": "open" if by is None else ("withdrawn" if e.get("withdrawn") else "answered"),
            "answered_by": by,
            "question": ask,
            "text": e["text"],
            "why": [self.words(w) for w in unsure.get("why", [])],
            "tags": list(unsure.get("tags", [])),
            "card": index,
            "read": read,
            "cards": cards,
            "options": [
                {"card": c, "label": card_words(c), "p": round(p, 3)} for c, p in options(inp, index)
            ],
            "crop": index,
        }

    def questions(self, *, include_closed: bool = False) -> list[dict[str, Any]]:
        """The host's questions, newest first: open ones (and answered ones when asked)."""
        with self._lock:
            asked = [e["seq"] for e in self._entries if e["payload"].get("unsure")]
            out = [self._question(n) for n in reversed(asked)]
        return [q for q in out if q is not None and (include_closed or q["status"] == "open")]

    def _answer(self, command: dict[str, Any]) -> dict[str, Any]:
        """The host's tap on a question: the card it was (or the reading confirmed), logged
        as an amend of the asked entry. A question is answered once."""
        entry = command.get("entry")
        if not isinstance(entry, int) or isinstance(entry, bool):
            raise CommandError("answer: 'entry' must be the log entry the question is about")
        q = self._question(entry)
        if q is None:
            raise CommandError(f"answer: log entry {entry} has no question")
        if q["status"] != "open":
            raise CommandError(
                f"answer: the question about entry {entry} was {q['status']} already (entry {q['answered_by']})"
            )
        payload = {k: v for k, v in self._entries[entry - 1]["payload"].items() if k != "unsure"}
        card = command.get("card")
        if card is not None:
            if not isinstance(card, str) or card not in CARD_IDS:
                raise CommandError(f"answer: {card!r} is not a card")
            index = command.get("index", q["card"])
            if payload["kind"] == "flip":
                payload["card"] = card
            else:
                cards = list(payload.get("cards", []))
                if not isinstance(index, int) or not 0 <= index < len(cards):
                    raise CommandError(f"answer: entry {entry} has no card {index!r} to correct")
                cards[index] = card
                payload["cards"] = cards
        result = self._handle({"kind": "amend", "target": entry, "input": payload}, "host")
        return {**result, "answered": entry}

    def _mark(self, command: dict[str, Any]) -> dict[str, Any]:
        """The host marks a moment of a camera entry's replay ("that was a jump-in by Ben"):
        the note is kept with the clip and shown on every phone; naming who played it
        corrects the entry (an amend: the referee judges what the play means then)."""
        entry = command.get("entry")
        if not isinstance(entry, int) or isinstance(entry, bool) or not 0 < entry <= len(self._entries):
            raise CommandError(f"mark: log entry {entry!r} does not exist")
        note = command.get("text")
        if not isinstance(note, str) or not note.strip() or len(note) > 200:
            raise CommandError("mark: 'text' must say what happened (1-200 characters)")
        frame = command.get("frame")
        if frame is not None and (not isinstance(frame, int) or isinstance(frame, bool) or frame < 0):
            raise CommandError("mark: 'frame' must be the index of a frame of the clip")
        seat = command.get("seat")
        result: dict[str, Any] = {"ok": True, "events": []}
        if seat is not None:
            payload = self._entries[entry - 1]["payload"]
            if payload.get("kind") != "play":
                raise CommandError(f"mark: entry {entry} is a {payload.get('kind')}, not a play: no one to name")
            result = self._handle({"kind": "amend", "target": entry, "input": {**payload, "seat": seat}}, "host")
        mark = {"entry": entry, "text": note.strip(), "frame": frame, "seat": seat, "time": time.time()}
        if self.replay is not None:
            self.replay.mark(entry, mark)
        self.feed.publish("mark", {**mark, "text": f"host mark on entry {entry}: {self.words(note.strip())}"})
        return {**result, "mark": mark}

    def _host_command(self, kind: str, command: dict[str, Any]) -> dict[str, Any]:
        if kind == "pause":
            self.paused = True
            self.feed.publish("status", {"status": "paused"})
        elif kind == "resume":
            self.paused = False
            self.feed.publish("status", {"status": self._status()})
        elif kind == "start":
            return self._handle({"kind": "start_round"}, "host")
        elif kind == "end-round":
            # The referee's end_round input: with a winner the round is scored from the reveals
            # (the camera missed the last card); without one the round is void.
            winner = command.get("winner")
            reason = command.get("reason") or ("host: seat went out" if winner is not None else "abandoned by the host")
            return self._handle({"kind": "end_round", "winner": winner, "reason": reason}, "host")
        elif kind in ("setup", "rules", "new-match"):
            return self._new_match(command)
        elif kind == "answer":
            return self._answer(command)
        elif kind == "mark":
            return self._mark(command)
        return {"ok": True}

    def _new_match(self, command: dict[str, Any]) -> dict[str, Any]:
        """Setup, a rules change or a new match starts a new log: a log is played by one set of
        rules from its first entry (the old match stays on disk, readable by `replay`)."""
        names, preset, overrides = _match_settings(command, self.names, self.preset)
        if self.rules_config.teams.table is not None and "teams" not in overrides and len(names) == 8:
            # One table of a two-table match: the next match seats 4 of the 8 here again.
            overrides.update(players=self.rules_config.players, teams=self.rules_config.teams.model_dump())
        rules = load_rules(preset, overrides=overrides)
        if self.matches is None and self.match_dir is not None:
            from app.matchfiles import MatchStore

            self.matches = MatchStore(self.match_dir)
        if self.matches is not None:  # numbered, made the current match, players and seat links stored
            record, new_log = self.matches.new_match(rules, names)
            tokens = record.seat_tokens
        else:
            new_log, tokens = MemoryLog(rules), new_seat_tokens()
        with self._lock:
            self.log.close()
            self._seat_tokens = tokens  # last match's seat links stop working
            self._entries = []
            self._source = "log"
            self._seating = tuple(range(len(names)))
            self.session = Session(log=new_log, on_step=self._record)
            self.names, self.preset = names, preset
        if self.replay is not None:
            self.replay.set_match(getattr(new_log, "path", None))
        self.feed.publish("match", {"preset": preset, "players": names, "rules": rules.model_dump(mode="json")})
        self.feed.publish("snapshot", self.snapshot())
        return {"ok": True, "log": str(getattr(new_log, "path", "memory"))}

    def seat_tokens(self) -> dict[int, str]:
        """The current match's seat tokens (the secrets in the seat QR codes)."""
        return dict(self._seat_tokens)

    # ----- listeners

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # ----- the dashboard's service protocol

    def _status(self) -> str:
        phase = self.state.phase
        if self.paused or self.camera_status.get("status") == "waiting for camera":
            return "paused"
        if phase == IDLE:
            return "setup"
        if phase == ROUND_OVER:
            return "round-over"
        if phase == MATCH_OVER:
            return "match-over"
        return "playing"

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            ref = snapshot(self.state)
            seq = self.feed.last_seq
        view = dashboard_view(ref, self.names, self._status(), self.preset, seq)
        view["camera"] = dict(self.camera_status)
        words = self.words
        for v, entry in zip(view["verdicts"], self._verdict_entries(len(view["verdicts"])), strict=True):
            v["text"], v["reason"], v["entry"] = words(v["text"]), words(v["reason"]), entry
        with self._lock:  # open questions: asked about and not corrected since (cheap: no parsing)
            view["questions"] = sum(
                1 for e in self._entries if e["payload"].get("unsure") and e.get("corrected_by") is None
            )
        view["replay"] = self.replay.status() if self.replay is not None else None
        view["wheel"] = wheel_segments() if self.rules_config.house.spin else None  # H13's wheel
        return view

    def _verdict_entries(self, n: int) -> list[int | None]:
        """The log entry behind each of the last `n` verdicts (plays judged this round, in
        order): the plays still in force, their entry numbers as first logged (an amend
        keeps its target's number, and its clip)."""
        if not n:
            return []
        with self._lock:
            plays = [
                e["seq"] for e in self._entries
                if e["kind"] == "play" and not e.get("withdrawn")
            ]  # fmt: skip
        tail = plays[-n:]
        return [None] * (n - len(tail)) + tail

    # ----- replay: the clip behind a camera entry (vision/replay.py keeps them)

    def replay_clip(self, entry: int) -> dict[str, Any]:
        """The clip of log entry `entry` with what the log says of it, or why there is none:
        {"state": "ok" | "pruned" | "recording" | "none" | "off", "message", ...}."""
        with self._lock:
            e = self._entries[entry - 1] if 0 < entry <= len(self._entries) else None
        if e is None:
            return {"entry": entry, "state": "none", "message": f"log entry {entry} does not exist"}
        head = {"entry": entry, "kind": e["kind"], "text": e["text"], "source": e["source"]}
        if e["payload"].get("source") != "camera":
            who = e["source"] if e["source"] != "log" else "host or a button"
            return {**head, "state": "none",
                    "message": f"entry {entry} was entered by the {who}, not seen by the camera: no clip"}  # fmt: skip
        if self.replay is None:
            return {**head, "state": "off", "message": "replay is off on this table: no clips are kept"}
        return {**head, **self.replay.clip(entry)}

    def replay_frame(self, entry: int, index: int) -> bytes | None:
        return None if self.replay is None else self.replay.frame(entry, index)

    def replay_crop(self, entry: int, index: int) -> bytes | None:
        return None if self.replay is None else self.replay.crop(entry, index)

    def set_camera_status(self, status: str, message: str | None = None) -> None:
        """The camera went away or came back: shown on every phone. While it is away the
        game waits (nothing is inferred from missing frames); it goes on when it returns."""
        if status == self.camera_status.get("status") and message == self.camera_status.get("message"):
            return
        self.camera_status = {"status": status, "message": message}
        self.feed.publish("camera", {"status": status, "message": message,
                                     "text": f"camera {status}" + (f": {message}" if message else "")})

    def wait_events(self, after_seq: int, timeout: float) -> list[dict]:
        if after_seq > self.feed.last_seq:  # a client from before a new match: resync it
            return [{"seq": self.feed.last_seq, "type": "snapshot", "payload": self.snapshot()}]
        return self.feed.after(after_seq, timeout)

    def scores(self) -> dict:
        """The match so far in the one scores shape, `table.summary.MatchSummary` as JSON
        (every format and teams; entrants labelled by the players' names)."""
        match = self.state.match
        if match is not None:
            return match.summary(self.names).model_dump(mode="json")
        return empty_summary(self.rules_config.match_config(), self.names).model_dump(mode="json")

    def log_entries(self, *, seat: int | None = None, kind: str | None = None, limit: int = 200) -> list[dict]:
        with self._lock:
            rows = [
                e for e in self._entries
                if (seat is None or e["seat"] == seat) and (kind is None or e["kind"] == kind)
            ]  # fmt: skip
        return rows[-limit:] if limit else rows

    def rules(self) -> dict:
        """{"current", "presets", "schema"} for the setup page."""
        return {
            "current": self.rules_config.model_dump(mode="json"),
            "presets": [{"name": k, "values": v} for k, v in PRESETS.items()],
            "schema": RulesConfig.model_json_schema(),
        }

    def latest_frame(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        if self.frames is None:
            return None
        return self.frames.latest(after, timeout)

    def hardware(self) -> dict | None:
        return None if self.panel is None else self.panel.describe()

    def press(self, target: str, gesture: str) -> dict:
        if self.panel is None:
            raise CommandError("there is no virtual hardware panel: the table uses real GPIO")
        return self.panel.press(target, gesture)


def dashboard_view(ref: dict[str, Any], names: list[str], status: str, preset: str, seq: int) -> dict:
    """The referee's snapshot in the shape the dashboard reads (web_ui/service.py)."""
    called = set(ref["uno"]["called"])
    missed = set(ref["uno"]["catchable"]) | set(ref["uno"]["caught"])
    seats = []
    seating = ref.get("seating") or list(range(len(names)))
    # T2/T3: players move between rounds; each seat shows who sits there now (T2 at two
    # tables: 4 of the 8 players sit here).
    seat_count = len(ref["hand_counts"])
    names = [names[seating[i]] if i < len(seating) and seating[i] < len(names) else names[i] for i in range(seat_count)]
    for i, name in enumerate(names):
        count = ref["hand_counts"][i] if i < len(ref["hand_counts"]) else None
        uno = "called" if i in called else "missed" if i in missed else "none"
        seats.append({"seat": i, "name": name, "hand_count": count, "uno": uno, "inferred": False})
    pending_draw = sum(p.get("count", 0) for p in ref.get("pending_draws", []))
    verdicts = []
    for e in ref.get("last_verdicts", []):
        ok = e.get("kind") == "play_accepted"
        try:
            text = event_from_dict(e).text()
        except (KeyError, TypeError):
            text = e.get("kind", "")
        verdicts.append({"ok": ok, "text": text, "reason": e.get("reason", "")})
    return {
        "seq": seq,
        "status": status,
        "phase": ref["phase"],
        "current_colour": ref["colour"],
        "top_card": ref["top_card"],
        "turn": ref["turn"],
        "direction": ref["direction"],
        "dealer": ref["dealer"],
        "seats": seats,
        "pending": {
            "draw": pending_draw,
            "stack": [p for p in ref.get("pending_draws", [])],
            "penalties": ref.get("deferred_penalties", []),
        },
        "awaiting_colour": ref["awaiting"]["colour"] if ref["phase"] == COLOUR else None,
        "awaiting": ref["awaiting"],
        "spin": ref["spin"],  # H13: who spins, and what the wheel said (None: no spin under way)
        "verdicts": verdicts,
        "match": {
            "round": ref["round"],
            "format": ref["format"],
            "target": ref["target"],
            "preset": preset,
            "scores": ref["scores"],
            "winner": ref["winner"],
        },
        "draw_pile": ref["draw_pile"],
        "referee": ref,
    }


def _match_settings(command: dict[str, Any], names: list[str], preset: str) -> tuple[list[str], str, dict]:
    """Setup's players, preset and rule overrides, checked (one validation of names for the
    config file and Setup: table/names.py)."""
    players = command.get("players")
    if players is not None:
        if not isinstance(players, list) or not all(isinstance(p, (dict, str)) for p in players):
            raise CommandError("players: expected a list of {seat, name} objects")
        if not all(isinstance(p, str) or "name" in p for p in players):
            raise CommandError("players: every {seat, name} object needs a 'name'")
        try:
            names = clean_names(p["name"] if isinstance(p, dict) else p for p in players)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    preset = command.get("preset") or preset
    if not isinstance(preset, str):
        raise CommandError(f"preset: expected a preset name, got {type(preset).__name__}")
    rules = command.get("rules") or {}
    if not isinstance(rules, dict):
        raise CommandError(f"rules: expected an object of rule options, got {type(rules).__name__}")
    overrides = dict(rules)
    overrides["players"] = len(names)
    overrides.pop("name", None)
    return names, preset, overrides


# ----- match files: the log DB plus the player names beside it (before app/matchfiles.py)


def names_path(db: Path) -> Path:
    return db.with_suffix(".players.txt")


def write_names(db: Path, names: list[str]) -> None:
    """Written atomically (temp file, fsync, rename) so a power cut leaves old or new."""
    import os

    tmp = names_path(db).with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(names) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, names_path(db))


def read_names(db: Path) -> list[str] | None:
    p = names_path(db)
    if not p.exists():
        return None
    return [line for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def latest_unfinished(match_dir: Path) -> Path | None:
    """The newest match log whose match is not over (resume after a restart)."""
    if not match_dir.is_dir():
        return None
    for db in sorted(match_dir.glob("match-*.db"), reverse=True):
        try:
            with EventLog(db, create=False) as log:
                from table.log import rebuild_state

                state = rebuild_state(log.rules, log.inputs(), str(db))
        except UnoTableError:
            continue
        if state.phase != MATCH_OVER:
            return db
    return None


__all__ = [
    "HOST_COMMANDS",
    "INPUT_TYPES",
    "CommandError",
    "Feed",
    "InputError",
    "StartRound",
    "TableHub",
    "dashboard_view",
    "latest_unfinished",
    "read_names",
    "write_names",
]
