"""End-of-round scoring from what the table sees (RULES.md D2, R1-R6, T1).

Pure functions over plain data. The referee calls `score_round` (or lets `Match.apply` do it)
with a `RoundResult` once the round is over: the seats that played, who went out (or the
finishing order in continuous mode), the cards each remaining hand showed face up in the
reveal zone, and the hand counts the referee tracked. Nothing here knows the referee's state.

A revealed hand whose size disagrees with the tracked count is reported as a `CountMismatch`;
`Match.apply` refuses such a round until the host confirms the revealed cards
(`host_confirmed=True`), so a card hidden under a sleeve is never silently scored as absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from table.cards import CARD_IDS, parse_card
from table.errors import InvalidCardError, UnoTableError, validation_problems

Format = Literal["standard", "negative", "loss-points", "chips", "continuous", "elimination"]


class ScoringError(UnoTableError, ValueError):
    """A round result that cannot be scored (unknown seat, unrevealed hand, bad order...)."""


class CountMismatchError(ScoringError):
    """Revealed hands disagree with the tracked counts and the host has not confirmed them."""

    def __init__(self, mismatches: Sequence[CountMismatch]):
        self.mismatches = tuple(mismatches)
        detail = "; ".join(m.describe() for m in self.mismatches)
        super().__init__(
            f"revealed hands disagree with tracked counts ({detail}); "
            "check the reveal zone, then confirm with host_confirmed=True"
        )


# --- cards and the point table (D2) ----------------------------------------------------


def card_kind(card: str) -> tuple[str, int | None]:
    """('number', n), (action, None) or (wild, None) for a card identifier (InvalidCardError
    for anything that is not one of the 54 faces, 'back' included)."""
    kind = _KINDS.get(card) if isinstance(card, str) else None
    if kind is None:
        parse_card(card)  # raises the InvalidCardError naming the card
    return kind  # type: ignore[return-value]


def _kind_of(card: str) -> tuple[str, int | None]:
    parsed = parse_card(card)
    if parsed.is_number:
        return "number", int(parsed.rank)
    return parsed.rank, None


def trusted(cls, **values):
    """Build a pydantic model from values computed by this package from already validated
    data, without validating again (every field must be given). Scoring runs once per
    simulated round, where validation would cost more than the rest of the round end."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


# Every scored round looks up each revealed card: one dict lookup, not a parse.
_KINDS: dict[str, tuple[str, int | None]] = {c: _kind_of(c) for c in CARD_IDS}


class PointTable(BaseModel):
    """What each card left in a hand is worth (D2). Number cards count their face value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Same field names and bounds as the referee's rules.PointsConfig, so either converts.
    action: int = Field(
        20, ge=0, le=100, description="Points for a Skip, Reverse or Draw Two left in a hand."
    )
    wild: int = Field(50, ge=0, le=100, description="Points for a Wild (seed 000: 20).")
    wild_draw4: int = Field(
        50, ge=0, le=100, description="Points for a Wild Draw Four (seed 000: 20)."
    )

    @classmethod
    def official(cls) -> PointTable:
        return cls()

    @classmethod
    def wilds_20(cls) -> PointTable:
        """Seed 000's table: every action and wild card 20."""
        return cls(wild=20, wild_draw4=20)

    @classmethod
    def from_config(cls, points: object) -> PointTable:
        """From any object with action / wild / wild_draw4 (the referee's PointsConfig)."""
        return cls(action=points.action, wild=points.wild, wild_draw4=points.wild_draw4)

    def card(self, card: str) -> int:
        kind, number = card_kind(card)
        if kind == "number":
            return number  # type: ignore[return-value]
        if kind == "wild":
            return self.wild
        if kind == "wild-draw4":
            return self.wild_draw4
        return self.action

    def hand(self, cards: Sequence[str]) -> int:
        key = (self.action, self.wild, self.wild_draw4)
        table = _POINTS.get(key)
        if table is None:
            table = _POINTS[key] = {c: self.card(c) for c in CARD_IDS}
        try:
            return sum(map(table.__getitem__, cards))
        except (KeyError, TypeError):
            return sum(self.card(c) for c in cards)  # raises InvalidCardError naming the card


_POINTS: dict[tuple[int, int, int], dict[str, int]] = {}


# --- what the referee hands over at round end -------------------------------------------


class RoundResult(BaseModel):
    """One finished round at one table, as the table saw it (plain data, JSON-safe).

    `hands` holds the cards each seat laid face up, including cards drawn for a Draw Two /
    Wild Draw Four owed when the winner went out (A5, R1): the referee waits for that draw
    before the reveal, so the drawn cards are simply part of the revealed hand.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    seats: tuple[int, ...] = Field(
        ...,
        min_length=2,
        max_length=10,
        description="Players at this table in clockwise seat order; an int n means 0..n-1.",
    )
    winner: int | None = Field(
        None, ge=0, le=9, description="Seat that went out (defaults to finishing_order[0])."
    )
    finishing_order: tuple[int, ...] = Field(
        (),
        max_length=10,
        description="Continuous mode (R5): seats in the order they went out; the last one "
        "left may be omitted.",
    )
    hands: dict[int, tuple[str, ...]] = Field(
        default_factory=dict, description="Revealed cards left in each seat's hand."
    )
    tracked_counts: dict[int, int] = Field(
        default_factory=dict,
        description="Hand counts the referee tracked at round end (after any owed draw).",
    )
    host_confirmed: bool = Field(
        False, description="The host checked a count mismatch and accepts the revealed cards."
    )
    last_card: str | None = Field(
        None, description="The card the winner went out with (for the record; R7, A5)."
    )
    table: int = Field(0, ge=0, le=1, description="Table index (two tables with 8 players).")

    @field_validator("seats", mode="before")
    @classmethod
    def _seat_count(cls, v):
        if isinstance(v, int) and not isinstance(v, bool):
            if not 2 <= v <= 10:
                raise ValueError(f"seat count must be 2-10, got {v}")
            return tuple(range(v))
        return v

    @field_validator("seats")
    @classmethod
    def _distinct(cls, v):
        if len(set(v)) != len(v) or min(v) < 0 or max(v) > 9:
            raise ValueError(f"seats must be distinct players 0-9, got {list(v)}")
        return v

    @field_validator("last_card")
    @classmethod
    def _card(cls, v):
        if v is not None:
            card_kind(v)
        return v

    @classmethod
    def parse(cls, data: Mapping) -> RoundResult:
        """Validate plain data (e.g. from the event log), raising ScoringError with field names."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScoringError(f"bad round result: {validation_problems(exc)}") from None

    def went_out(self) -> int:
        if self.winner is not None:
            return self.winner
        if self.finishing_order:
            return self.finishing_order[0]
        raise ScoringError("round result names no winner (winner or finishing_order)")


class CountMismatch(BaseModel):
    """A revealed hand whose size disagrees with the referee's tracked count."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int
    tracked: int
    revealed: int

    def describe(self) -> str:
        return f"seat {self.seat}: tracked {self.tracked}, revealed {self.revealed}"


class RoundScore(BaseModel):
    """The scored round: hand points per seat, and what each seat or team earns from it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    winner: int = Field(description="Seat that went out first.")
    hand_points: dict[int, int] = Field(description="Points left in each revealed hand.")
    seat_points: dict[int, int] = Field(
        description="What each seat adds to its own total this round (format-dependent)."
    )
    team_points: dict[int, int] = Field(
        default_factory=dict, description="Team index -> points, when playing in teams."
    )
    mismatches: tuple[CountMismatch, ...] = ()
    finishing_order: tuple[int, ...] = ()


def check_counts(result: RoundResult) -> list[CountMismatch]:
    """Every seat whose revealed hand size differs from its tracked count (winner: 0 cards)."""
    out = []
    for seat in result.seats:
        if seat not in result.tracked_counts:
            continue
        tracked = result.tracked_counts[seat]
        if seat in result.hands:
            revealed = len(result.hands[seat])
        elif seat == result.winner:
            revealed = 0
        else:
            continue
        if tracked != revealed:
            out.append(CountMismatch(seat=seat, tracked=tracked, revealed=revealed))
    return out


def rank_scores(order: Sequence[int]) -> dict[int, int]:
    """R5 zero-sum rank scoring: (n-1) - 2*(rank-1); 4 players -> 3, 1, -1, -3."""
    n = len(order)
    return {seat: (n - 1) - 2 * i for i, seat in enumerate(order)}


def _validate(result: RoundResult) -> None:
    seats = set(result.seats)
    for name, keys in (("hands", result.hands), ("tracked_counts", result.tracked_counts)):
        extra = sorted(set(keys) - seats)
        if extra:
            raise ScoringError(f"{name}: seats {extra} are not at this table {list(result.seats)}")
    for seat, count in result.tracked_counts.items():
        if count < 0:
            raise ScoringError(f"tracked_counts: seat {seat} has a negative count {count}")
    for seat, cards in result.hands.items():
        if _KINDS.keys() >= set(cards):
            continue
        for card in cards:
            try:
                card_kind(card)
            except InvalidCardError as exc:
                raise ScoringError(f"hands: seat {seat}: {exc}") from None
    if result.finishing_order:
        order = result.finishing_order
        if len(set(order)) != len(order) or not set(order) <= seats:
            raise ScoringError(
                f"finishing_order {list(order)} must list distinct seats of {list(result.seats)}"
            )
        if len(order) < len(seats) - 1:
            raise ScoringError(
                f"finishing_order {list(order)} must rank all but at most the last seat "
                f"of {list(result.seats)}"
            )
        if result.winner is not None and result.winner != order[0]:
            raise ScoringError(
                f"winner {result.winner} disagrees with finishing_order[0] {order[0]}"
            )
    winner = result.went_out()
    if winner not in seats:
        raise ScoringError(f"winner: seat {winner} is not at this table {list(result.seats)}")
    if result.hands.get(winner):
        raise ScoringError(
            f"hands: winner seat {winner} went out but revealed {list(result.hands[winner])}"
        )


def _points_of(result: RoundResult, seats: Sequence[int], points: PointTable) -> dict[int, int]:
    # A seat the referee tracks at 0 cards has nothing to lay face up (two-player jump-in
    # can leave both hands empty): it scores an empty hand.
    empty = {s for s in seats if s not in result.hands and result.tracked_counts.get(s) == 0}
    missing = [s for s in seats if s not in result.hands and s not in empty]
    if missing:
        raise ScoringError(
            f"hands: seats {missing} were not revealed; lay their cards face up to score"
        )
    return {s: 0 if s in empty else points.hand(result.hands[s]) for s in seats}


def score_round(
    result: RoundResult,
    fmt: Format = "standard",
    points: PointTable | None = None,
    teams: Sequence[Sequence[int]] | None = None,
    known_mismatches: Sequence[CountMismatch] | None = None,
    checked: bool = False,
) -> RoundScore:
    """Score one table's round.

    seat_points is what each seat adds to its own running total:
    - standard (R2): the winner gets every other hand; with teams (T1) each member of the
      winning team gets the hands of all other teams (the partner's hand is not counted).
    - negative / loss-points / elimination (R3, R4, R6): each losing seat adds its own hand;
      with teams each losing team adds its members' hands (the winning team adds nothing).
    - chips (R4): the winner receives the sum, each loser pays its own hand (zero-sum).
    - continuous (R5): zero-sum rank points from the finishing order; hands are not needed.
    """
    points = points or PointTable()
    if not checked:
        _validate(result)
    mismatches = tuple(check_counts(result) if known_mismatches is None else known_mismatches)
    winner = result.went_out()
    seats = list(result.seats)

    if fmt == "continuous":
        order = list(result.finishing_order) or [winner]
        if len(order) < len(seats) - 1:
            raise ScoringError("continuous mode needs finishing_order for all but the last seat")
        order += [s for s in seats if s not in order]
        return trusted(  # computed here from validated data
            RoundScore,
            winner=winner,
            hand_points={s: points.hand(result.hands[s]) for s in result.hands},
            seat_points=rank_scores(order),
            team_points={},
            mismatches=mismatches,
            finishing_order=tuple(order),
        )

    team_of: dict[int, int] = {}
    if teams:
        for i, team in enumerate(teams):
            for s in team:
                team_of[s] = i
        if set(team_of) != set(seats):
            raise ScoringError(f"teams {list(map(list, teams))} do not cover seats {seats}")
    winning = [s for s in seats if team_of.get(s, -1) == team_of.get(winner)] if teams else [winner]
    losers = [s for s in seats if s not in winning]
    hand = _points_of(result, losers, points)
    # Hands of the winning side are recorded when shown, never scored.
    for s in winning:
        if s in result.hands:
            hand[s] = points.hand(result.hands[s])
    hand.setdefault(winner, 0)
    pot = sum(hand[s] for s in losers)

    seat_points = {s: 0 for s in seats}
    if fmt == "standard":
        for s in winning:
            seat_points[s] = pot
    elif fmt in ("negative", "loss-points", "elimination"):
        for s in losers:
            seat_points[s] = hand[s]
    elif fmt == "chips":
        if teams:
            raise ScoringError("chips are paid seat to seat; teams are not supported")
        seat_points[winner] = pot
        for s in losers:
            seat_points[s] = -hand[s]
    else:
        raise ScoringError(f"unknown format {fmt!r}")

    team_points: dict[int, int] = {}
    if teams:
        for i, team in enumerate(teams):
            # Standard: the winning team's score (each member records it, T2). Otherwise a
            # losing team adds the hands of all its members (seed 003).
            team_points[i] = (
                seat_points[team[0]] if fmt == "standard" else sum(seat_points[m] for m in team)
            )
    return trusted(  # computed here from validated data
            RoundScore,
        winner=winner,
        hand_points=hand,
        seat_points=seat_points,
        team_points=team_points,
        mismatches=mismatches,
        finishing_order=(),
    )
