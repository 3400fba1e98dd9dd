"""A small driver for hand-written games (tests, docs, the dashboard's fixtures): it sends
inputs through the pure ``step`` and keeps the last events.

    t = Scenario(starter="blue-5")          # 4 seats, seat 0 deals, seat 1 plays first
    t.play("red-7")                          # -> illegal_play: red 7 does not match blue 5
"""

from __future__ import annotations

from typing import Any

from table.events import Event
from table.inputs import (
    CallUno,
    Catch,
    Challenge,
    CorrectCount,
    Draw,
    Flip,
    Input,
    NameColour,
    Pass,
    Play,
    Reveal,
    SeatGesture,
    StartRound,
    parse_input,
)
from table.referee import State, new_state, snapshot, step
from table.rules import load_rules


class Scenario:
    def __init__(
        self,
        preset: str = "official",
        dealer: int | None = 0,
        starter: str | None = "blue-5",
        start: bool = True,
        **overrides: Any,
    ):
        self.rules = load_rules(preset, overrides=overrides or None)
        self.state: State = new_state(self.rules)
        self.events: list[Event] = []
        self.all_events: list[Event] = []
        self.clock = 0.0
        if start:
            self.send(StartRound(dealer=dealer))
            if starter is not None and self.state.phase == "flip":
                self.send(Flip(card=starter))

    # ----- sending

    def send(self, inp: Input | dict[str, Any]) -> list[Event]:
        if isinstance(inp, dict):
            inp = parse_input(inp)
        self.state, self.events = step(self.state, inp)
        self.all_events += self.events
        return self.events

    def play(self, *cards: str, seat: int | None = None) -> list[Event]:
        return self.send(Play(cards=cards, seat=seat))

    def draw(self, seat: int | None = None, card: str | None = None) -> list[Event]:
        return self.send(Draw(seat=seat, cards=(card,) if card else None))

    def pass_(self, seat: int | None = None) -> list[Event]:
        return self.send(Pass(seat=seat))

    def colour(self, colour: str, seat: int | None = None) -> list[Event]:
        return self.send(NameColour(colour=colour, seat=seat))

    def gesture(self, seat: int, gesture: str) -> list[Event]:
        self.clock += 0.5
        return self.send(SeatGesture(seat=seat, gesture=gesture, at=self.clock))

    def press(self, seat: int) -> list[Event]:
        return self.gesture(seat, "press")

    def double(self, seat: int) -> list[Event]:
        return self.gesture(seat, "double")

    def hold(self, seat: int) -> list[Event]:
        return self.gesture(seat, "hold")

    def call(self, seat: int) -> list[Event]:
        return self.send(CallUno(seat=seat))

    def catch(self, seat: int, target: int | None = None) -> list[Event]:
        return self.send(Catch(seat=seat, target=target))

    def challenge(self, yes: bool = True, seat: int | None = None) -> list[Event]:
        return self.send(Challenge(seat=seat, challenge=yes))

    def reveal(self, seat: int, *cards: str) -> list[Event]:
        return self.send(Reveal(seat=seat, cards=cards))

    def set_count(self, seat: int, count: int) -> list[Event]:
        return self.send(CorrectCount(seat=seat, count=count))

    # ----- reading

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def find(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def one(self, kind: str) -> Event:
        found = self.find(kind)
        assert len(found) == 1, f"expected one {kind} in {self.kinds()}"
        return found[0]

    @property
    def snap(self) -> dict[str, Any]:
        return snapshot(self.state)

    @property
    def turn(self) -> int:
        return self.state.turn

    @property
    def hands(self) -> list[int]:
        return list(self.state.hands)
