"""Typed inputs to the referee: what the camera, seat buttons, phones and host report.

Each input is a small slotted dataclass with a class-level ``kind``. They are built directly
in the hot path (simulator, tests) and parsed from JSON dicts at the boundary with
``parse_input(dict)``, which validates with pydantic and raises InputError (a ValueError)
naming the field. ``input_to_dict`` is the inverse; the event log stores that JSON.

Seats are 0-based ints. A seat left out (None) on a play, draw or pass means "the seat whose
turn it is", and the referee marks that attribution as inferred.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field, TypeAdapter, ValidationError

from table.cards import parse_face
from table.errors import UnoTableError, validation_problems


class InputError(UnoTableError, ValueError):
    """An input that cannot be understood (bad JSON shape, unknown card, seat out of range).
    Nothing is logged and the state is unchanged."""


def _card(text: str) -> str:
    parse_face(text)
    return text


CardId = Annotated[str, AfterValidator(_card)]
Seat = Annotated[int, Field(ge=0, le=9)]
ColourName = Literal["red", "yellow", "green", "blue"]
Gesture = Literal["press", "double", "hold"]
SpinOutcomeName = Literal["draw-until-colour", "down-to-two", "trade-hands"]
# Numbers are finite and bounded: every number the log keeps is one a browser's JSON.parse
# reads back exactly (no Infinity, no NaN, nothing past 2**53).
Seconds = Annotated[float, Field(ge=0.0, le=1e9, allow_inf_nan=False)]  # the table clock
Confidence = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
FrameNo = Annotated[int, Field(ge=0, le=2**53)]
Roll = Annotated[float, Field(ge=0.0, lt=1.0, allow_inf_nan=False)]  # a random draw (H12, H13)
#: The camera's likeliest faces for each card it read, best first: [[card, probability], ...]
#: per card, in the order of the input's cards.
Candidates = tuple[tuple[tuple[CardId, Confidence], ...], ...]
#: A reading the table is unsure of (table/doubt.py): {"why": [reasons], "tags", "card": index
#: or None}. The referee plays it as read; the host is asked and answers with an `amend`.
Unsure = dict[str, Any]


class Input:
    """Base of every input. ``kind`` names it in JSON."""

    __slots__ = ()
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return input_to_dict(self)


@dataclass(slots=True)
class StartRound(Input):
    """The host starts a round. `dealer` None: by the rules (S2: draw for the first round,
    the last winner afterwards)."""

    kind: ClassVar[str] = "start_round"
    dealer: Seat | None = None


@dataclass(slots=True)
class DealerDraw(Input):
    """S2: the card each drawing seat turned up to choose the dealer (seat -> card)."""

    kind: ClassVar[str] = "dealer_draw"
    cards: dict[int, CardId] = field(default_factory=dict)


@dataclass(slots=True)
class Flip(Input):
    """The starter card turned up from the draw pile onto the discard pile (S3, S4)."""

    kind: ClassVar[str] = "flip"
    card: CardId = "red-0"
    confidence: Confidence | None = None
    frame: FrameNo | None = None
    source: str | None = None
    candidates: Candidates | None = None
    unsure: Unsure | None = None


@dataclass(slots=True)
class Play(Input):
    """Card(s) seen placed on the discard pile. Several cards = one multi-card placement
    (refused unless a multi-play house rule allows it)."""

    kind: ClassVar[str] = "play"
    cards: tuple[CardId, ...] = ()
    seat: Seat | None = None
    confidence: Confidence | None = None
    frame: FrameNo | None = None
    source: str | None = None
    at: Seconds | None = None  # seconds, opens timed windows (H11)
    candidates: Candidates | None = None
    unsure: Unsure | None = None


@dataclass(slots=True)
class Draw(Input):
    """A seat drew on its own turn (P5, P6). `cards` is the drawn face when known (phone,
    simulator): then only that card may be played at once. Penalty draws are ordered by the
    referee and counted automatically; do not report them."""

    kind: ClassVar[str] = "draw"
    seat: Seat | None = None
    count: Annotated[int, Field(ge=1, le=20)] = 1
    cards: tuple[CardId, ...] | None = None
    source: str | None = None


@dataclass(slots=True)
class Pass(Input):
    """The seat passes after drawing (P6). A pass without a reported draw implies one drawn card."""

    kind: ClassVar[str] = "pass"
    seat: Seat | None = None
    source: str | None = None


@dataclass(slots=True)
class SeatGesture(Input):
    """A raw seat-button gesture. Its meaning is decided by the referee (see
    table.referee.interpret_gesture). `roll` in [0, 1): the table's random draw for a press
    the referee reads as a spin of the wheel (H13; `table.referee.needs_roll` says when the
    app must attach one), logged with the press so that it replays exactly."""

    kind: ClassVar[str] = "gesture"
    seat: Seat = 0
    gesture: Gesture = "press"
    at: Seconds = 0.0
    roll: Roll | None = None


@dataclass(slots=True)
class NameColour(Input):
    """The colour named after a Wild or Wild Draw Four (colour pad, dashboard)."""

    kind: ClassVar[str] = "colour"
    colour: ColourName = "red"
    seat: Seat | None = None
    source: str | None = None


@dataclass(slots=True)
class CallUno(Input):
    """A seat calls UNO (phone, or a press interpreted as the call)."""

    kind: ClassVar[str] = "call_uno"
    seat: Seat = 0
    at: Seconds | None = None


@dataclass(slots=True)
class Catch(Input):
    """`seat` catches `target` (None: whoever is catchable) for a missed UNO call."""

    kind: ClassVar[str] = "catch"
    seat: Seat = 0
    target: Seat | None = None
    at: Seconds | None = None


@dataclass(slots=True)
class Challenge(Input):
    """The seat told to draw 4 decides: challenge (True) or accept the draw (False)."""

    kind: ClassVar[str] = "challenge"
    seat: Seat | None = None
    challenge: bool = True


@dataclass(slots=True)
class Reveal(Input):
    """Cards laid face up in the reveal zone: a whole hand (challenge check, end of round)."""

    kind: ClassVar[str] = "reveal"
    seat: Seat = 0
    cards: tuple[CardId, ...] = ()
    source: str | None = None
    candidates: Candidates | None = None
    unsure: Unsure | None = None


@dataclass(slots=True)
class CorrectCount(Input):
    """Host correction: `seat` holds `count` cards (the difference goes to/from the draw pile)."""

    kind: ClassVar[str] = "correct_count"
    seat: Seat = 0
    count: Annotated[int, Field(ge=0, le=108)] = 0
    reason: str | None = None


@dataclass(slots=True)
class HostPenalty(Input):
    """Host-applied penalty (P8 advice, or any rule the table cannot see). `count` None: the
    rules' size for that rule (P8: play.advice_penalty)."""

    kind: ClassVar[str] = "host_penalty"
    seat: Seat = 0
    count: Annotated[int | None, Field(ge=0, le=20)] = None
    rule: Annotated[str, Field(min_length=1, max_length=8)] = "P8"
    reason: str | None = None


@dataclass(slots=True)
class Amend(Input):
    """Host correction of an earlier input: log entry `target` (1-based) is replaced by
    `input` (e.g. a play attributed to another seat). The state is rebuilt by replay."""

    kind: ClassVar[str] = "amend"
    target: Annotated[int, Field(ge=1)] = 1
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Undo(Input):
    """Withdraw log entry `target` (1-based; None = the latest game input still in force).
    The state is rebuilt by replay; the log keeps both entries."""

    kind: ClassVar[str] = "undo"
    target: Annotated[int | None, Field(ge=1)] = None


@dataclass(slots=True)
class SwapHands(Input):
    """H8 Seven-O: the player of a 7 names the seat to swap hands with."""

    kind: ClassVar[str] = "swap"
    target: Seat = 0
    seat: Seat | None = None


@dataclass(slots=True)
class Attack(Input):
    """H12 attack mode: the turn seat presses the (virtual) launcher instead of drawing.
    `roll` in [0, 1) comes from outside (the app's RNG, the simulator's seed): the referee maps
    it to 0..house.attack_max cards, so it stays pure and replayable."""

    kind: ClassVar[str] = "attack"
    roll: Roll = 0.0
    seat: Seat | None = None


@dataclass(slots=True)
class Spin(Input):
    """H13 UNO Spin: the seat spins the wheel. Either `roll`, the table's random draw in
    [0, 1) (the dashboard's "Spin the wheel", drawn by the app, never by the phone), which the
    referee turns into the wheel's segment (`table.referee.spin_wheel`), or `outcome`, the
    wheel's outcome as the host states it (a correction, a physical wheel). `colour`: the
    colour to draw until (a stated draw-until-colour only)."""

    kind: ClassVar[str] = "spin"
    outcome: SpinOutcomeName | None = None
    colour: ColourName | None = None
    roll: Roll | None = None
    seat: Seat | None = None
    source: str | None = None


@dataclass(slots=True)
class Tick(Input):
    """The table clock (seconds, same clock as gesture `at`): closes timed windows (H11)."""

    kind: ClassVar[str] = "tick"
    at: Seconds = 0.0


@dataclass(slots=True)
class EndRound(Input):
    """The host declares the round over. With `winner`: that seat went out (the camera missed
    it); the others reveal and the round is scored. Without: the round is void, not scored."""

    kind: ClassVar[str] = "end_round"
    winner: Seat | None = None
    reason: Annotated[str, Field(min_length=1, max_length=200)] = "ended by the host"


@dataclass(slots=True)
class ConfirmScore(Input):
    """The host checked the revealed hands that disagree with the tracked counts and accepts
    the revealed cards: the round is scored from them."""

    kind: ClassVar[str] = "confirm_score"
    reason: str | None = None


INPUT_TYPES: dict[str, type[Input]] = {
    cls.kind: cls
    for cls in (
        StartRound, DealerDraw, Flip, Play, Draw, Pass, SeatGesture, NameColour, CallUno,
        Catch, Challenge, Reveal, CorrectCount, HostPenalty, Amend, Undo, SwapHands, Attack,
        Spin, Tick, EndRound, ConfirmScore,
    )
}  # fmt: skip
_ADAPTERS: dict[str, TypeAdapter] = {}


def parse_input(data: Any) -> Input:
    """Validate a JSON dict ({"kind": "play", "cards": ["red-7"], ...}) into an Input.

    Raises InputError naming the kind and field that is wrong."""
    if isinstance(data, Input):
        return data
    if not isinstance(data, dict):
        raise InputError(f"input must be a JSON object with a 'kind', got {type(data).__name__}")
    kind = data.get("kind")
    cls = INPUT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown input kind {kind!r}: expected one of {', '.join(INPUT_TYPES)}")
    payload = {k: v for k, v in data.items() if k != "kind"}
    known = {f.name for f in fields(cls)}
    extra = sorted(set(payload) - known)
    if extra:
        raise InputError(f"input '{kind}': unknown field(s) {', '.join(extra)}; fields are {', '.join(sorted(known))}")
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(cls)
    try:
        inp = adapter.validate_python(payload)
    except ValidationError as exc:
        raise InputError(f"input '{kind}': " + validation_problems(exc)) from None
    if isinstance(inp, Amend):
        parse_input(inp.input)  # the replacement must itself be a valid input
        if inp.input.get("kind") in ("amend", "undo"):
            raise InputError("input 'amend': input: cannot amend with an amend or undo")
    return inp


def input_to_dict(inp: Input) -> dict[str, Any]:
    """JSON-ready dict of an input, `kind` first; None fields are left out."""
    out: dict[str, Any] = {"kind": inp.kind}
    for f in fields(inp):
        value = getattr(inp, f.name)
        if value is None:
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict) and f.name == "cards":
            value = {str(k): v for k, v in value.items()}
        out[f.name] = value
    return out
