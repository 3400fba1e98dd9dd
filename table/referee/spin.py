"""H13 UNO Spin (seed 003, 「转盘」): cards that carry the spin (``house.spin_cards``: every
7 by default, since a standard deck has no spin symbol) make the player whose turn comes
next spin a wheel instead of playing; the wheel's outcome is that turn.

The referee is pure, so the randomness comes in as an input: the seat spins (its phone's
"Spin the wheel", a ``Spin`` with no outcome, or a press of its button, a ``SeatGesture``)
and the app attaches a roll in [0, 1) that it drew (``core.needs_roll`` says when); the
referee turns the roll into the wheel's segment here (``spin_wheel``), so the logged input
replays to the same outcome. The host may instead state the outcome (``Spin(outcome=...)``)
and corrects a wrong one like any other log entry (amend). ``SPIN_WHEEL`` is the wheel the
dashboard draws (``wheel_segments``). The outcomes are the three seed 003 names:

- ``draw-until-colour``: the seat draws until a card of the wheel's colour comes and keeps
  them all: ``Draw`` inputs (each card's face if known; the drawing ends on a card of the
  colour) and, when the faces are not seen, a ``Pass`` (hold) when the colour came;
- ``down-to-two``: the seat lays every card but two on the discard pile at once: one ``Play``
  of those cards (the camera sees them land). They are discards, not plays: no matching and
  no effects; the top one names the colour (a wild on top: the seat names it);
- ``trade-hands``: every hand passes on to the next seat in the direction of play, as H8's 0.

Then the next seat's turn begins. Phase ``spin`` with ``State.spin`` (``SpinState``) says
who spins and what they are doing.
"""

from __future__ import annotations

from table.cards import CARD_IDS, COLOUR_OF_NAME, COLOURS, FACE_COLOUR, FACE_OF, WILD
from table.events import CardsDiscarded, Event, HandCountCorrected, IllegalPlay, Notice, SpinResult
from table.inputs import Draw, Pass, Play, Spin
from table.referee.common import begin_turn, draw_cards, next_seat, penalty, reject
from table.referee.house import rotate_hands
from table.referee.state import COLOUR, PLAY, SPIN, AfterColour, SpinOutcome, SpinState, State
from table.referee.uno import close_uno_window

#: The wheel: equal segments (four colours to draw until, down to two, trade hands).
SPIN_WHEEL: tuple[tuple[SpinOutcome, str | None], ...] = tuple(
    (SpinOutcome.DRAW_UNTIL_COLOUR, c) for c in COLOURS
) + ((SpinOutcome.DOWN_TO_TWO, None), (SpinOutcome.TRADE_HANDS, None))


_SEGMENT_TEXT = {
    SpinOutcome.DRAW_UNTIL_COLOUR: "draw until {colour}",
    SpinOutcome.DOWN_TO_TWO: "down to two",
    SpinOutcome.TRADE_HANDS: "trade hands",
}


def wheel_segment(roll: float) -> int:
    """The index in ``SPIN_WHEEL`` of the segment a roll in [0, 1) lands on: segment i
    spans [i/6, (i+1)/6) of the turn, clockwise from the pointer."""
    return min(int(roll * len(SPIN_WHEEL)), len(SPIN_WHEEL) - 1)


def spin_wheel(roll: float, seat: int | None = None) -> Spin:
    """The wheel's outcome for a roll in [0, 1), as a stated ``Spin`` input."""
    outcome, colour = SPIN_WHEEL[wheel_segment(roll)]
    return Spin(outcome=outcome.value, colour=colour, seat=seat)


def wheel_segments() -> list[dict[str, str | None]]:
    """The wheel as the dashboard draws it, in ``SPIN_WHEEL`` order (so the page never keeps
    its own copy): ``[{"outcome", "colour", "text"}]``."""
    return [
        {"outcome": o.value, "colour": c, "text": _SEGMENT_TEXT[o].format(colour=c)} for o, c in SPIN_WHEEL
    ]


def _finish(s: State, seat: int, ev: list[Event]) -> None:
    s.spin = None
    s.phase = PLAY
    begin_turn(s, next_seat(s, seat), ev)


def spin(s: State, inp: Spin, ev: list[Event]) -> None:
    """The wheel's outcome for the seat that spins."""
    sp = s.spin
    if s.phase != SPIN or sp is None or sp.outcome is not None:
        return reject(s, inp, inp.seat, "no spin is waiting for the wheel now (H13)", ev)
    seat = sp.seat
    if inp.seat is not None and inp.seat != seat:
        return reject(s, inp, inp.seat, f"seat {seat} spins the wheel, not seat {inp.seat} (H13)", ev)
    s.claimable = None  # the spin is this seat's turn: too late to claim the last card (H5)
    if s.exposed or s.caught:  # the spin is this seat's turn: the last UNO window closes (U2)
        close_uno_window(s, ev, seat)
    if inp.outcome is not None:  # stated by the host (or a physical wheel)
        outcome, colour = SpinOutcome(inp.outcome), inp.colour
    elif inp.roll is not None:  # spun at the table: the roll the app drew picks the segment
        outcome, colour = SPIN_WHEEL[wheel_segment(inp.roll)]
    else:
        return reject(s, inp, seat, "the wheel needs a roll, drawn by the table, or an outcome (H13)", ev)
    ev.append(SpinResult(seat, outcome.value, colour, inp.seat is None, roll=inp.roll))
    if outcome is SpinOutcome.TRADE_HANDS:
        rotate_hands(s, "H13", ev)
        return _finish(s, seat, ev)
    if outcome is SpinOutcome.DOWN_TO_TWO and s.hands[seat] <= 2:
        ev.append(Notice(seat, f"seat {seat} holds {s.hands[seat]} card(s): nothing to lay down (H13)"))
        return _finish(s, seat, ev)
    s.spin = SpinState(seat, outcome, COLOUR_OF_NAME[colour] if outcome is SpinOutcome.DRAW_UNTIL_COLOUR else -1)


def _waiting_for(sp: SpinState) -> str:
    if sp.outcome is None:
        return f"seat {sp.seat} must spin the wheel first"
    if sp.outcome is SpinOutcome.DRAW_UNTIL_COLOUR:
        return f"seat {sp.seat} is drawing until a {COLOURS[sp.colour]} card comes"
    return f"seat {sp.seat} must lay down every card but two"


def spin_play(s: State, seat: int, inp: Play, faces: list[int], ev: list[Event]) -> None:
    """Cards placed during a spin: the down-to-two discards, or an illegal play."""
    sp = s.spin
    if sp.outcome is not SpinOutcome.DOWN_TO_TWO or seat != sp.seat:
        e = IllegalPlay(seat, inp.cards, _waiting_for(sp) + " (H13)", "H13", inp.seat is None)
        ev.append(e)
        s.verdicts = s.verdicts[-4:] + (e,)
        return penalty(s, seat, s.rules.illegal_penalty, "P7", f"illegal play: {e.reason}", ev)
    k = len(faces)
    hands = s.hands
    if hands[seat] != k + 2:  # the seat keeps two: the count was off
        ev.append(HandCountCorrected(seat, hands[seat], k + 2, "play", "the cards laid down leave a hand of two (H13)"))
        s.draw_count -= k + 2 - hands[seat]
    hands[seat] = 2
    bit = ~(1 << seat)
    s.called &= bit
    s.exposed &= bit
    s.armed &= bit
    s.discard.extend(faces)
    top = faces[-1]
    s.prev_colour, s.prev_top, s.prev_lock = s.colour, s.top, s.lock
    s.top = top
    s.lock = False
    s.last_player = seat
    ev.append(CardsDiscarded(seat, tuple(CARD_IDS[f] for f in faces), 2, "H13", inp.seat is None))
    if top >= WILD:  # a wild on top: its colour is named, nothing else (a discard, not a play)
        s.spin = None
        s.colour = -1
        s.phase = COLOUR
        s.colour_seat = seat
        s.after_colour = AfterColour.WILD
        return
    s.colour = FACE_COLOUR[top]
    _finish(s, seat, ev)


def spin_draw(s: State, inp: Draw, ev: list[Event]) -> None:
    """Draw until a card of the wheel's colour comes (each card's face when it is known)."""
    sp = s.spin
    seat = sp.seat if inp.seat is None else inp.seat
    if sp.outcome is not SpinOutcome.DRAW_UNTIL_COLOUR or seat != sp.seat:
        return reject(s, inp, seat, f"no draw expected now: {_waiting_for(sp)} (H13)", ev)
    got = draw_cards(s, seat, inp.count, "H13", ev, inferred=inp.seat is None, cards=inp.cards)
    came = inp.cards is not None and any(FACE_COLOUR[FACE_OF[c]] == sp.colour for c in inp.cards)
    if came or got < inp.count:
        why = f"a {COLOURS[sp.colour]} card came" if came else "nothing is left to draw"
        ev.append(Notice(seat, f"seat {seat} drew until {why} (H13)"))
        _finish(s, seat, ev)


def spin_pass(s: State, inp: Pass, ev: list[Event]) -> None:
    """The seat drawing until a colour says it came (a hold): the spin is over."""
    sp = s.spin
    seat = sp.seat if inp.seat is None else inp.seat
    if sp.outcome is not SpinOutcome.DRAW_UNTIL_COLOUR or seat != sp.seat:
        return reject(s, inp, seat, f"no pass expected now: {_waiting_for(sp)} (H13)", ev)
    ev.append(Notice(seat, f"seat {seat}: the {COLOURS[sp.colour]} card came (H13)"))
    _finish(s, seat, ev)
