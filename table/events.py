"""Typed events the referee emits. Each has a class-level ``kind``, serialises with
``to_dict()`` and reads as one line with ``text()``. Every event that rests on an inference
(who placed a card, that a player drew the cards the table ordered) has ``inferred=True``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


class Event:
    """Base of every event; ``to_dict()`` adds a readable ``text`` line for the dashboard."""

    __slots__ = ()
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        out["text"] = self.text()
        return out

    def text(self) -> str:  # pragma: no cover - every subclass overrides
        return self.kind


def _inf(e: Event) -> str:
    return " (inferred)" if getattr(e, "inferred", False) else ""


@dataclass(slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round: int
    dealer: int | None
    inferred: bool = False

    def text(self) -> str:
        d = "dealer to be drawn" if self.dealer is None else f"seat {self.dealer} deals"
        return f"round {self.round} starts, {d}"


@dataclass(slots=True)
class DealerDrawNeeded(Event):
    """S2: these seats each turn up one card to choose the dealer (again after a tie)."""

    kind: ClassVar[str] = "dealer_draw_needed"
    seats: tuple[int, ...]
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"seats {', '.join(map(str, self.seats))} draw for dealer: {self.reason}"


@dataclass(slots=True)
class DealerChosen(Event):
    kind: ClassVar[str] = "dealer_chosen"
    seat: int
    rule: str
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} deals ({self.reason}, {self.rule})"


@dataclass(slots=True)
class CardsDealt(Event):
    kind: ClassVar[str] = "cards_dealt"
    hand_size: int
    players: int
    draw_pile: int
    inferred: bool = True

    def text(self) -> str:
        return f"{self.hand_size} cards dealt to each of {self.players} seats, {self.draw_pile} left to draw{_inf(self)}"


@dataclass(slots=True)
class StarterReturned(Event):
    """S4: the first card turned up goes back into the deck; flip another."""

    kind: ClassVar[str] = "starter_returned"
    card: str
    rule: str
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"starter {self.card} goes back, reshuffle and flip again: {self.reason} ({self.rule})"


@dataclass(slots=True)
class StarterAccepted(Event):
    kind: ClassVar[str] = "starter_accepted"
    card: str
    first_seat: int
    direction: int
    rule: str
    inferred: bool = False

    def text(self) -> str:
        way = "clockwise" if self.direction == 1 else "counter-clockwise"
        return f"starter {self.card}: seat {self.first_seat} plays first, {way} ({self.rule})"


@dataclass(slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    seat: int
    direction: int
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat}'s turn"


@dataclass(slots=True)
class PlayAccepted(Event):
    kind: ClassVar[str] = "play_accepted"
    seat: int
    card: str
    hand_count: int
    inferred: bool = False
    cards: tuple[str, ...] = ()  # H6: every card of a multi-card placement, bottom to top

    def text(self) -> str:
        what = " + ".join(self.cards) if self.cards else self.card
        return f"seat {self.seat} plays {what}, {self.hand_count} left{_inf(self)}"


@dataclass(slots=True)
class IllegalPlay(Event):
    kind: ClassVar[str] = "illegal_play"
    seat: int | None
    cards: tuple[str, ...]
    reason: str
    rule: str
    inferred: bool = False

    def text(self) -> str:
        who = "unknown seat" if self.seat is None else f"seat {self.seat}"
        return f"ILLEGAL: {who} placed {' '.join(self.cards)}: {self.reason} ({self.rule}){_inf(self)}"


@dataclass(slots=True)
class PenaltyOrdered(Event):
    kind: ClassVar[str] = "penalty_ordered"
    seat: int
    count: int
    rule: str
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"PENALTY: seat {self.seat} draws {self.count}: {self.reason} ({self.rule})"


@dataclass(slots=True)
class CardsDrawn(Event):
    """A seat's count grew by `count` (ordered draws are inferred: the table does not see them)."""

    kind: ClassVar[str] = "cards_drawn"
    seat: int
    count: int
    rule: str
    hand_count: int
    cards: tuple[str, ...] | None = None
    inferred: bool = False

    def text(self) -> str:
        what = f" ({' '.join(self.cards)})" if self.cards else ""
        return f"seat {self.seat} draws {self.count}{what}, now {self.hand_count} ({self.rule}){_inf(self)}"


@dataclass(slots=True)
class DeckReshuffled(Event):
    """P9: the discard pile except its top card becomes the new draw pile."""

    kind: ClassVar[str] = "deck_reshuffled"
    cards: int
    rule: str = "P9"
    inferred: bool = False

    def text(self) -> str:
        return f"draw pile empty: {self.cards} discards reshuffled into a new draw pile (P9)"


@dataclass(slots=True)
class TurnSkipped(Event):
    kind: ClassVar[str] = "turn_skipped"
    seat: int
    rule: str
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} loses the turn ({self.rule})"


@dataclass(slots=True)
class DirectionChanged(Event):
    kind: ClassVar[str] = "direction_changed"
    direction: int
    rule: str
    inferred: bool = False

    def text(self) -> str:
        return f"play now goes {'clockwise' if self.direction == 1 else 'counter-clockwise'} ({self.rule})"


@dataclass(slots=True)
class TurnPassed(Event):
    kind: ClassVar[str] = "turn_passed"
    seat: int
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} passes{_inf(self)}"


@dataclass(slots=True)
class ColourNeeded(Event):
    kind: ClassVar[str] = "colour_needed"
    seat: int
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} names a colour"


@dataclass(slots=True)
class ColourNamed(Event):
    kind: ClassVar[str] = "colour_named"
    seat: int
    colour: str
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} names {self.colour}"


@dataclass(slots=True)
class ChallengeOffered(Event):
    """W3: `seat` (told to draw 4) may challenge `against`'s Wild Draw Four."""

    kind: ClassVar[str] = "challenge_offered"
    seat: int
    against: int
    count: int
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} must draw {self.count} or challenge seat {self.against}"


@dataclass(slots=True)
class RevealNeeded(Event):
    kind: ClassVar[str] = "reveal_needed"
    seat: int
    purpose: str
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat}: lay your hand face up ({self.purpose})"


@dataclass(slots=True)
class ChallengeResolved(Event):
    kind: ClassVar[str] = "challenge_resolved"
    challenger: int
    challenged: int
    guilty: bool
    drawer: int
    count: int
    reason: str
    rule: str = "W3"
    inferred: bool = False

    def text(self) -> str:
        verdict = "GUILTY" if self.guilty else "innocent"
        return f"challenge by seat {self.challenger}: seat {self.challenged} {verdict} ({self.reason}); seat {self.drawer} draws {self.count} ({self.rule})"


@dataclass(slots=True)
class UnoCalled(Event):
    """`late`: the call came after the card was placed (still in time until a catch, U3)."""

    kind: ClassVar[str] = "uno_called"
    seat: int
    late: bool = False
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} calls UNO{' (after the card, before any catch: U3)' if self.late else ''}"


@dataclass(slots=True)
class UnoMissed(Event):
    """U2: the window closed (the next player began) without a call or a catch."""

    kind: ClassVar[str] = "uno_missed"
    seat: int
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} did not call UNO and was not caught in time"


@dataclass(slots=True)
class UnoCaught(Event):
    kind: ClassVar[str] = "uno_caught"
    seat: int
    by: int | None
    rule: str
    inferred: bool = False

    def text(self) -> str:
        who = "the table (strict mode)" if self.by is None else f"seat {self.by}"
        return f"seat {self.seat} caught without UNO by {who} ({self.rule})"


@dataclass(slots=True)
class SeatingSet(Event):
    """T2/T3: who sits where for the coming round(s): `seating[seat]` is the player (match
    entrant) at that seat; partners sit opposite. Players move; buttons stay with the seats."""

    kind: ClassVar[str] = "seating_set"
    seating: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...]
    rule: str
    reason: str
    inferred: bool = False

    def text(self) -> str:
        where = ", ".join(f"seat {seat}: player {p}" for seat, p in enumerate(self.seating))
        pairs = "; ".join(" & ".join(f"player {p}" for p in t) for t in self.teams)
        return f"sit as {where} (partners {pairs}; {self.reason}, {self.rule})"


@dataclass(slots=True)
class Notice(Event):
    """An input the referee accepted into the log but that changes nothing, and why."""

    kind: ClassVar[str] = "notice"
    seat: int | None
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"note: {self.reason}"


@dataclass(slots=True)
class InputRejected(Event):
    """An input that does not fit the game now (out of turn, wrong phase): state unchanged."""

    kind: ClassVar[str] = "input_rejected"
    input_kind: str
    seat: int | None
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"rejected {self.input_kind}: {self.reason}"


@dataclass(slots=True)
class HandCountCorrected(Event):
    kind: ClassVar[str] = "hand_count_corrected"
    seat: int
    old: int
    new: int
    source: str
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} count corrected {self.old} -> {self.new} ({self.source}: {self.reason})"


@dataclass(slots=True)
class StateRebuilt(Event):
    """A host undo/amend: the state was rebuilt by replaying the log without/with the change."""

    kind: ClassVar[str] = "state_rebuilt"
    action: str
    target: int
    inferred: bool = False

    def text(self) -> str:
        return f"host {self.action} of log entry {self.target}: state rebuilt by replay"


@dataclass(slots=True)
class RoundEnded(Event):
    kind: ClassVar[str] = "round_ended"
    round: int
    winner: int
    inferred: bool = False

    def text(self) -> str:
        return f"round {self.round} over: seat {self.winner} went out"


@dataclass(slots=True)
class RoundScored(Event):
    kind: ClassVar[str] = "round_scored"
    round: int
    winner: int
    points: int
    scores: tuple[int, ...]
    inferred: bool = False
    seat_points: tuple[int, ...] = ()  # what every seat added this round (format-dependent)
    format: str = "standard"

    def text(self) -> str:
        if self.format == "standard":
            return f"round {self.round}: seat {self.winner} scores {self.points}; totals {list(self.scores)}"
        return f"round {self.round} ({self.format}): points {list(self.seat_points)}; totals {list(self.scores)}"


@dataclass(slots=True)
class MatchEnded(Event):
    kind: ClassVar[str] = "match_ended"
    winner: int
    scores: tuple[int, ...]
    inferred: bool = False
    winners: tuple[int, ...] = ()  # every winning seat (a team, or a tie)
    ended_by: str = "target"

    def text(self) -> str:
        who = ", ".join(f"seat {w}" for w in (self.winners or (self.winner,)))
        return f"match over ({self.ended_by}): {who} win(s); totals {list(self.scores)}"


@dataclass(slots=True)
class RoundVoided(Event):
    """The host ended the round without a winner: nothing is scored."""

    kind: ClassVar[str] = "round_voided"
    round: int
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"round {self.round} ended by the host without a winner ({self.reason}): not scored"


@dataclass(slots=True)
class ScoreHeld(Event):
    """Revealed hands disagree with the tracked counts: the host checks before scoring."""

    kind: ClassVar[str] = "score_held"
    round: int
    mismatches: tuple[tuple[int, int, int], ...]  # (seat, tracked, revealed)
    inferred: bool = False

    def text(self) -> str:
        parts = ", ".join(f"seat {s} tracked {t} revealed {r}" for s, t, r in self.mismatches)
        return f"round {self.round} not scored yet: {parts}; host: re-reveal or confirm"


@dataclass(slots=True)
class SeatOut(Event):
    """A seat leaves the rotation: finished this round (R5) or eliminated (R6)."""

    kind: ClassVar[str] = "seat_out"
    seat: int
    rule: str
    reason: str
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} is out ({self.reason}, {self.rule})"


@dataclass(slots=True)
class WindowOpened(Event):
    """A timed seat-button window (H10 Silent 2, H11 Slap 9); `buzzer` says what to sound."""

    kind: ClassVar[str] = "window_opened"
    window: str
    seat: int
    rule: str
    at: float | None = None
    buzzer: str = "start"
    inferred: bool = False

    def text(self) -> str:
        what = f"silence until seat {self.seat} plays again" if self.window == "silent2" else "everyone slap"
        return f"{self.window} ({self.rule}): {what}"


@dataclass(slots=True)
class WindowClosed(Event):
    kind: ClassVar[str] = "window_closed"
    window: str
    rule: str
    losers: tuple[int, ...]
    reason: str
    presses: tuple[tuple[int, float], ...] = ()
    buzzer: str = "end"
    inferred: bool = False

    def text(self) -> str:
        who = ", ".join(f"seat {s}" for s in self.losers) or "nobody"
        return f"{self.window} over ({self.rule}): {who} draw(s); {self.reason}"


@dataclass(slots=True)
class SwapNeeded(Event):
    kind: ClassVar[str] = "swap_needed"
    seat: int
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} played a 7: name the seat to swap hands with (H8)"


@dataclass(slots=True)
class HandsMoved(Event):
    """H8: hands changed owners; the counts moved with them."""

    kind: ClassVar[str] = "hands_moved"
    rule: str
    moves: tuple[tuple[int, int], ...]  # (from seat, to seat)
    counts: tuple[int, ...]
    inferred: bool = False

    def text(self) -> str:
        moves = ", ".join(f"{a}->{b}" for a, b in self.moves)
        return f"hands move ({self.rule}): {moves}; counts {list(self.counts)}"


@dataclass(slots=True)
class LauncherFired(Event):
    kind: ClassVar[str] = "launcher_fired"
    seat: int
    count: int
    roll: float
    inferred: bool = False

    def text(self) -> str:
        return f"launcher (H12): seat {self.seat} takes {self.count} card(s)"


@dataclass(slots=True)
class JumpClaimed(Event):
    """H5: `seat` held its button just after `cards` landed on their twin and were given to
    `given`: the play (log entry `entry`) is `seat`'s jump-in; the state was rebuilt."""

    kind: ClassVar[str] = "jump_claimed"
    seat: int
    given: int
    entry: int
    cards: tuple[str, ...]
    rule: str = "H5"
    inferred: bool = False

    def text(self) -> str:
        return (f"seat {self.seat} jumped in with {', '.join(self.cards)} (given to seat {self.given}, "
                f"log entry {self.entry}): state rebuilt ({self.rule})")


@dataclass(slots=True)
class SpinNeeded(Event):
    """H13: `seat` spins the wheel (the dashboard shows the spinner; `buzzer` for the seat)."""

    kind: ClassVar[str] = "spin_needed"
    seat: int
    rule: str = "H13"
    buzzer: str = "spin"
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat}: spin the wheel ({self.rule})"


_SPIN_TEXT = {
    "draw-until-colour": "draw until a {colour} card comes",
    "down-to-two": "lay down every card but two",
    "trade-hands": "every hand passes on",
}


@dataclass(slots=True)
class SpinResult(Event):
    """H13: the wheel's outcome for `seat` (`colour` for draw-until-colour); `roll`: where
    the wheel stopped, in [0, 1) of a turn (None when the host stated the outcome)."""

    kind: ClassVar[str] = "spin_result"
    seat: int
    outcome: str
    colour: str | None = None
    inferred: bool = False
    rule: str = "H13"
    roll: float | None = None

    def text(self) -> str:
        what = _SPIN_TEXT.get(self.outcome, self.outcome).format(colour=self.colour)
        return f"seat {self.seat} spins: {what} ({self.rule}){_inf(self)}"


@dataclass(slots=True)
class CardsDiscarded(Event):
    """H13 down-to-two: `seat` laid `cards` on the discard pile at once (no card effects)."""

    kind: ClassVar[str] = "cards_discarded"
    seat: int
    cards: tuple[str, ...]
    left: int
    rule: str = "H13"
    inferred: bool = False

    def text(self) -> str:
        return f"seat {self.seat} lays down {len(self.cards)} card(s), {self.left} left ({self.rule}){_inf(self)}"


EVENT_TYPES: dict[str, type[Event]] = {
    c.kind: c for c in Event.__subclasses__()  # type: ignore[attr-defined]
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of Event.to_dict (for clients and tests)."""
    cls = EVENT_TYPES[data["kind"]]
    kwargs = {
        k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k not in ("kind", "text")
    }
    return cls(**kwargs)
