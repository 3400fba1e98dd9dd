"""The demo: simulated players at a simulated table, judged by the real table.

The full-information simulator (table/simulator.py) deals real hands and decides every move.
Each move becomes what a real table would report: cards laid on the discard pile, reaches
into the draw pile and hands laid face up go to the *camera* (rendered into frames and read
by the real vision pipeline), seat-button gestures and colour picks go to the *buttons*, and
the host starts rounds. The hub's referee sees only those reports. The simulator keeps the
truth, so at the end the referee's log, hand counts, penalties and scores are compared with
it: `referee_matches_truth`.

When the table misreads (a wrong card, a missed play) the driver acts as the host would on
the dashboard: it corrects the entry (amend) or enters the missed input, and counts a
mismatch. The camera and buttons are passed in (duck-typed), so this module imports no
camera or GPIO code.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.hub import TableHub
from table.cards import FACE_COLOUR, FACE_OF
from table.events import CardsDrawn, Event, TurnStarted
from table.inputs import Input, input_to_dict
from table.referee import (
    CHALLENGE,
    COLOUR,
    DRAWN,
    MATCH_OVER,
    PLAY,
    ROUND_OVER,
    VOLUNTARY_DRAW_RULES,
    ScoreStatus,
    SpinOutcome,
    new_state,
    snapshot,
    step,
)
from table.replay import effective_inputs
from table.simulator import SimOptions, Simulator

#: Inputs the table's camera produces (the rest come from buttons or the host).
CAMERA_KINDS = {"flip", "play", "draw", "reveal"}


class Camera(Protocol):
    """What the demo needs from a camera over a simulated table."""

    def act(self, action: str, cards: tuple[str, ...] = ()) -> None:
        """Queue a physical action: play, draw, reveal, clear, idle."""

    def step(self) -> list[dict[str, Any]]:
        """Render and read one frame; return the observations it completed (JSON)."""

    @property
    def pending(self) -> int:
        """Frames still queued for the actions asked for."""


class Buttons(Protocol):
    def gesture(self, seat: int, gesture: str) -> None: ...
    def colour(self, colour: str) -> None: ...


class DirectButtons:
    """Gestures sent as the hardware would send them, without GPIO timing (headless runs)."""

    def __init__(self, hub: TableHub):
        self.hub = hub
        self.clock = 0.0

    def gesture(self, seat: int, gesture: str) -> None:
        self.clock += 0.5
        self.hub.submit({"kind": "gesture", "seat": seat, "gesture": gesture, "at": self.clock}, source="button")

    def colour(self, colour: str) -> None:
        self.hub.submit({"kind": "colour", "colour": colour, "source": "colour_pad"}, source="button")


@dataclass
class DemoReport:
    rounds: int = 0
    plays: int = 0
    camera_inputs: int = 0
    button_inputs: int = 0
    frames: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    host_corrections: int = 0
    seconds: float = 0.0
    scores_truth: list[int] = field(default_factory=list)
    scores_table: list[int] = field(default_factory=list)
    penalties_truth: int = 0
    penalties_table: int = 0
    missed_uno: int = 0
    challenges: int = 0
    # The table asks the host (table/doubt.py): camera entries asked about, the camera's wrong
    # readings (a face misread, a card that was not played) and how many of them were asked.
    questions: int = 0
    wrong_readings: int = 0
    wrong_asked: int = 0
    correct_asked: int = 0
    question_tags: dict[str, int] = field(default_factory=dict)
    # Per camera reading: (likeliest face's probability, its margin over the runner-up, the
    # card-independent doubts (illegal, count), read right?) for threshold sweeps
    # (tests/bench/bench_ask.py); not in the JSON report.
    readings: list[tuple[float, float, tuple[str, ...], bool]] = field(default_factory=list)

    @property
    def referee_matches_truth(self) -> bool:
        return (
            not self.mismatches
            and self.scores_truth == self.scores_table
            and self.penalties_truth == self.penalties_table
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "plays": self.plays,
            "camera_inputs": self.camera_inputs,
            "button_inputs": self.button_inputs,
            "frames": self.frames,
            "referee_matches_truth": self.referee_matches_truth,
            "mismatches": self.mismatches,
            "host_corrections": self.host_corrections,
            "scores_truth": self.scores_truth,
            "scores_table": self.scores_table,
            "penalties_truth": self.penalties_truth,
            "penalties_table": self.penalties_table,
            "uno_catches": self.missed_uno,
            "challenges": self.challenges,
            "questions": {
                "asked": self.questions,
                "wrong_readings": self.wrong_readings,
                "wrong_asked": self.wrong_asked,
                "wrong_covered": round(self.wrong_asked / self.wrong_readings, 3) if self.wrong_readings else None,
                "correct_asked": self.correct_asked,
                "tags": dict(sorted(self.question_tags.items())),
            },
            "seconds": round(self.seconds, 2),
            "frames_per_s": round(self.frames / self.seconds, 1) if self.seconds else None,
        }


class DemoDriver:
    """Plays `rounds` rounds of the simulator through the camera and buttons into the hub."""

    def __init__(
        self,
        hub: TableHub,
        camera: Camera,
        buttons: Buttons | None = None,
        *,
        seed: int = 0,
        options: SimOptions | None = None,
        settle_frames: int = 40,
        on_frame: Any = None,
        host_corrects: bool = True,
    ):
        self.hub = hub
        self.camera = camera
        self.buttons = buttons or DirectButtons(hub)
        self.settle_frames = settle_frames
        self.on_frame = on_frame
        # False: a misread card is left for the real host to answer on the dashboard.
        self.host_corrects = host_corrects
        hub.subscribe(self._on_events)
        opts = options or SimOptions(
            policies=("greedy", "random"), forget_uno=0.25, catch_rate=0.7,
            challenge_rate=0.5, bluff_rate=0.3,
        )  # fmt: skip
        self.sim = Simulator(hub.rules_config, seed=seed, options=opts, on_input=self._on_input, record=True)
        self.report = DemoReport()
        self._reaches_due = 0
        self._accept_fetch = False
        # H13: the table's dice. The simulated world decides where the wheel stops (its seed), so
        # the hub's roll for a spin is the simulator's; the seat still spins by its button.
        self._rolls: deque[float] = deque()
        table_dice = hub.roll
        hub.roll = lambda: self._rolls.popleft() if self._rolls else table_dice()

    # ----- hub events: penalties the players must fetch from the draw pile

    def _on_events(self, events: list[Event], _snap: dict) -> None:
        for e in events:
            if type(e) is CardsDrawn and e.rule not in VOLUNTARY_DRAW_RULES:
                if self._accept_fetch:  # the reach that accepted the four took them
                    self._accept_fetch = False
                    continue
                self._reaches_due += 1

    # ----- the simulator's moves, reported the way a real table reports them

    def _on_input(self, inp: Input) -> None:
        self._compare("before " + inp.kind)
        kind = inp.kind
        if kind in ("start_round", "dealer_draw"):
            self.hub.submit(input_to_dict(inp), source="host")
        elif kind in ("flip", "play"):
            cards = (inp.card,) if kind == "flip" else tuple(inp.cards)
            self._fetch_penalties()
            st = self.hub.state
            # H5: the camera sees the card, not whose hand laid it: the jumper holds their
            # button as the card goes down.
            jump = kind == "play" and inp.seat is not None and inp.seat != st.turn and st.phase in (PLAY, DRAWN)
            if jump:
                self.buttons.gesture(inp.seat, "hold")
                self.report.button_inputs += 1
            self.camera.act("play", cards)
            self._by_camera(inp)
            if kind == "play":
                self.report.plays += 1
        elif kind == "draw":
            self._fetch_penalties()
            self._accept_fetch = self.hub.state.phase == CHALLENGE
            sp = self.sim.state.spin
            self.camera.act("draw")
            self._by_camera(inp)
            if sp is not None and sp.outcome is SpinOutcome.DRAW_UNTIL_COLOUR and inp.cards and any(
                FACE_COLOUR[FACE_OF[c]] == sp.colour for c in inp.cards
            ):  # H13: the camera saw a reach, not the face: the seat holds when the colour came
                self.buttons.gesture(sp.seat, "hold")
                self.report.button_inputs += 1
        elif kind == "reveal":
            self.camera.act("reveal", tuple(inp.cards))
            self._by_camera(inp)
            self.camera.act("clear")
            self._pump(lambda: False, limit=self.camera.pending + 2)
        elif kind == "gesture":
            self.buttons.gesture(inp.seat, inp.gesture)
            self.report.button_inputs += 1
            st = self.sim.state
            if inp.gesture == "double":
                self.report.missed_uno += 1
            if inp.gesture == "press" and st.phase == CHALLENGE and inp.seat == st.challenger:
                self.report.challenges += 1
        elif kind == "colour":
            self.buttons.colour(inp.colour)
            self.report.button_inputs += 1
        elif kind == "challenge":  # declining is a hold by the seat told to draw 4
            self.buttons.gesture(inp.seat, "press" if inp.challenge else "hold")
            self.report.button_inputs += 1
        elif kind == "pass":
            self.buttons.gesture(inp.seat if inp.seat is not None else self.sim.state.turn, "hold")
            self.report.button_inputs += 1
        elif kind == "spin":  # H13: the seat presses its button; the referee reads it as the spin
            self._rolls.append(inp.roll)
            self.buttons.gesture(self.sim.state.spin.seat, "press")
            self.report.button_inputs += 1
        else:
            self.hub.submit(input_to_dict(inp), source="host")

    def _fetch_penalties(self) -> None:
        while self._reaches_due > 0:
            self._reaches_due -= 1
            self.camera.act("draw")
        self._pump(lambda: False, limit=self.camera.pending)

    def _by_camera(self, truth: Input) -> None:
        """Let the camera see the action; then check what the table logged against the truth
        and correct it as the host would."""
        before = len(self.hub.log)
        self._pump(lambda: len(self.hub.log) > before and self.camera.pending == 0,
                   limit=self.camera.pending + self.settle_frames)  # fmt: skip
        logged = self.hub.log.inputs()[before:]
        want = input_to_dict(truth)
        if want["kind"] == "play":
            # The camera reports no seat: the referee infers the turn seat, as at a real
            # table, or the jumper's when its hold claimed the card (H5).
            want.pop("seat", None)
        mine = [input_to_dict(i) for i in logged]
        right = next((i for i, got in enumerate(mine) if _same_report(got, want)), None)
        fixed = None
        if right is None:
            same_kind = next((i for i, got in enumerate(mine) if got["kind"] == want["kind"]), None)
            if same_kind is None:
                self._mismatch("missed", want, None)
            else:  # the host amends the misread entry
                self._mismatch("misread", want, mine[same_kind])
                fixed = same_kind
                if self.host_corrects:
                    self.hub.submit({"kind": "amend", "target": before + 1 + same_kind, "input": _as_camera(want)},
                                    source="host")  # fmt: skip
                    self.report.host_corrections += 1
        else:
            self.report.camera_inputs += 1
        self._count_questions(mine, right)
        # Anything else the camera logged meanwhile (a reach taken for a draw, an older card
        # taken for a play) the host withdraws, newest first so the entry numbers hold.
        for i in reversed(range(len(mine))):
            if i in (right, fixed):
                continue
            self._mismatch("extra", None, mine[i])
            self.hub.submit({"kind": "undo", "target": before + 1 + i}, source="host")
            self.report.host_corrections += 1
        if right is None and fixed is None:
            self._host_enters(want)

    def _count_questions(self, mine: list[dict[str, Any]], right: int | None) -> None:
        """Each camera entry: was it read right, and did the table ask the host about it?"""
        r = self.report
        for i, got in enumerate(mine):
            if got.get("source") != "camera" or got["kind"] not in ("flip", "play", "reveal"):
                continue
            asked = bool(got.get("unsure"))
            r.questions += asked
            for tag in (got.get("unsure") or {}).get("tags", []):
                r.question_tags[tag] = r.question_tags.get(tag, 0) + 1
            if i == right:
                r.correct_asked += asked
            else:
                r.wrong_readings += 1
                r.wrong_asked += asked
            tops, margins = [], []
            for cands in got.get("candidates") or ():
                if cands:
                    tops.append(float(cands[0][1]))
                    margins.append(float(cands[0][1]) - (float(cands[1][1]) if len(cands) > 1 else 0.0))
            fixed_tags = tuple(t for t in (got.get("unsure") or {}).get("tags", []) if t in ("illegal", "count"))
            r.readings.append((min(tops, default=1.0), min(margins, default=1.0), fixed_tags, i == right))

    def _settle_held_score(self) -> None:
        """A round whose score the referee holds (a revealed hand the camera read short, e.g.
        a long row of overlapping cards): the host enters the hand as it is, and confirms it
        when the tracked count itself was off."""
        st = self.hub.state
        if st.phase != ROUND_OVER or st.score_status is not ScoreStatus.HELD:
            return
        for held in st.held:
            want = {"kind": "reveal", "seat": held.seat, "cards": _hand_ids(self.sim.hands[held.seat])}
            self._mismatch("score held", want, {"tracked": held.tracked, "revealed": held.revealed})
            self.hub.submit(want, source="host")
            self.report.host_corrections += 1
        st = self.hub.state
        if st.phase == ROUND_OVER and st.score_status is ScoreStatus.HELD:
            self.hub.submit({"kind": "confirm_score", "reason": "host checked the hands"}, source="host")
            self.report.host_corrections += 1

    def _host_enters(self, want: dict[str, Any]) -> None:
        self.hub.submit(_as_camera(want), source="host")
        self.report.host_corrections += 1

    def _pump(self, done, limit: int) -> None:
        for _ in range(max(0, limit)):
            if done():
                return
            observations = self.camera.step()
            self.report.frames += 1
            for obs in observations:
                try:
                    self.hub.submit({"kind": "observation", "observation": obs}, source="camera")
                except ValueError as exc:  # refused by the referee's input check
                    self._mismatch("refused", None, {"observation": obs, "error": str(exc)})
            if self.on_frame is not None:
                self.on_frame()

    def _mismatch(self, what: str, want: dict | None, got: dict | None) -> None:
        self.report.mismatches.append({"what": what, "truth": want, "table": got, "log_entry": len(self.hub.log)})

    def _compare(self, where: str) -> None:
        """The referee's hand counts and turn must equal the simulator's truth."""
        truth, table = self.sim.state, self.hub.state
        if truth.phase in (COLOUR, DRAWN) or table.phase != truth.phase:
            if table.phase != truth.phase:
                self._mismatch("phase", {"phase": truth.phase, "at": where}, {"phase": table.phase})
            return
        # The simulator's own referee counts equal its true hands (a property test proves it);
        # they are compared here because the simulator updates the true hands before it reports.
        if list(table.hands) != list(truth.hands) or table.turn != truth.turn:
            self._mismatch(
                "hand counts", {"counts": list(truth.hands), "turn": truth.turn, "at": where},
                {"counts": list(table.hands), "turn": table.turn},
            )  # fmt: skip

    # ----- rounds

    def play(self, rounds: int) -> DemoReport:
        t0 = time.perf_counter()
        for _ in range(rounds):
            if self.sim.state.phase == MATCH_OVER:
                break
            game = self.sim.play_round()
            if game.capped:
                self._mismatch("capped", {"inputs": len(game.inputs)}, None)
            self._settle_held_score()
            self._compare("round end")
            self.report.rounds += 1
            self.report.penalties_truth += sum(
                1 for evs in game.events for e in evs
                if type(e) is CardsDrawn and e.rule not in VOLUNTARY_DRAW_RULES
            )  # fmt: skip
        self.report.seconds = time.perf_counter() - t0
        # Penalties the table stands by: those of the log as corrected (an amended misread
        # takes back the penalty its illegal play had ordered).
        state, table_penalties = new_state(self.hub.rules_config), 0
        for inp in effective_inputs(self.hub.log.inputs()):
            state, events = step(state, inp)
            table_penalties += sum(
                1 for e in events if type(e) is CardsDrawn and e.rule not in VOLUNTARY_DRAW_RULES
            )  # fmt: skip
        self.report.penalties_table = table_penalties
        self.report.scores_truth = list(self.sim.state.scores)
        self.report.scores_table = list(self.hub.state.scores)
        if self.hub.state.phase not in (ROUND_OVER, MATCH_OVER) and self.report.rounds:
            self._mismatch("round not over", {"phase": "round-over"}, {"phase": self.hub.state.phase})
        return self.report


def _hand_ids(faces) -> list[str]:
    from table.cards import CARD_IDS

    return [CARD_IDS[f] for f in faces]


def _same_report(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """The camera's report equals the truth where the camera can know it: the cards (and the
    seat, for reveals). Seats of plays and draws are the referee's inference."""
    if got["kind"] != want["kind"]:
        return False
    for key in ("card", "cards"):
        if key in want and key in got and list(got[key]) != list(want[key]):
            if want["kind"] == "draw":  # the camera never sees a drawn face
                continue
            return False
        if key in want and key not in got and want["kind"] != "draw":
            return False
    if want["kind"] == "reveal" and got.get("seat") != want.get("seat"):
        return False
    return True


def _as_camera(d: dict[str, Any]) -> dict[str, Any]:
    """The truth as the camera would have reported it (no drawn faces)."""
    out = dict(d)
    if out["kind"] == "draw":
        out.pop("cards", None)
    return out


class PerfectCamera:
    """A camera that reports each action exactly, one frame after it is asked (tests of the
    driver and the mapping without rendering)."""

    def __init__(self) -> None:
        self._queue: list[dict[str, Any]] = []
        self.frame = 0

    def act(self, action: str, cards: tuple[str, ...] = ()) -> None:
        kind = {"play": "discard", "draw": "draw", "reveal": "reveal", "clear": "reveal"}.get(action)
        if kind is None:
            return
        obs: dict[str, Any] = {"type": kind, "confidence": 1.0}
        if kind in ("discard", "reveal"):
            obs["cards"] = [{"card": c, "confidence": 1.0} for c in (cards if action != "clear" else ())]
        self._queue.append(obs)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def step(self) -> list[dict[str, Any]]:
        self.frame += 1
        if not self._queue:
            return []
        obs = self._queue.pop(0)
        obs["frame"] = self.frame
        return [obs]


__all__ = ["DemoDriver", "DemoReport", "DirectButtons", "PerfectCamera", "snapshot", "TurnStarted"]
