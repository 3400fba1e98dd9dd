"""The referee's entry points: ``step`` (pure), ``advance`` (in place), ``check_input`` (what
no game could accept raises InputError before anything changes), the meaning of a raw seat
button gesture, and the table of handlers, one per input type, each in its rule section's
module.

Seat-button gestures (the hardware layer reports only raw press / double / hold; the meaning
comes from the game state, see ``interpret_gesture``):

=========  ===============================================  ==================================
gesture    state                                            meaning
=========  ===============================================  ==================================
press      the seat was told to draw 4 (challenge pending)  challenge the Wild Draw Four (W3)
press      a Slap 9 / Silent 2 window is open (H10, H11)     a slap, else a sound
press      the seat must spin the wheel (H13)               spin it (with the roll the app drew)
press      otherwise                                        call UNO (U1; U3 late; U4 if false)
double     any time in a round                              catch a player who missed UNO (U2,
                                                            U5 if wrong)
hold       just after a card landed on its twin, or out of   "that card is mine": a jump-in (H5,
           turn, with jump-in on                            see ``claims``)
hold       the seat was told to draw 4                      accept the draw, no challenge
hold       the seat's turn (or its spin's draw, H13)        pass (after drawing, P6)
hold       otherwise                                        rejected: not that seat's turn
=========  ===============================================  ==================================

Randomness enters as an input: ``needs_roll`` tells the app when an input must carry a roll
it drew (a spin of the wheel, H13), so the referee decides what a press means and the app
only supplies the dice.
"""

from __future__ import annotations

from typing import Any

from table.cards import COLOUR_OF_NAME, FACE_OF
from table.events import Event, InputRejected, JumpClaimed, Notice, StateRebuilt
from table.inputs import (
    Amend,
    Attack,
    CallUno,
    Catch,
    Challenge,
    ConfirmScore,
    CorrectCount,
    DealerDraw,
    Draw,
    EndRound,
    Flip,
    HostPenalty,
    Input,
    InputError,
    NameColour,
    Pass,
    Play,
    Reveal,
    SeatGesture,
    Spin,
    StartRound,
    SwapHands,
    Tick,
    Undo,
    parse_input,
)
from table.referee import claims, host, house, scoring, setup, spin, turns, uno, wilds, windows
from table.referee.common import check_count, reject
from table.referee.state import CHALLENGE, DRAWN, IN_ROUND, PLAY, REVEAL, ROUND_OVER, SPIN, State


def interpret_gesture(state: State, g: SeatGesture) -> Input | str:
    """The meaning of a raw seat-button gesture in this state (see the module docstring):
    an Input to apply, or a one-line reason why the gesture means nothing now."""
    seat = g.seat
    if state.phase not in IN_ROUND:
        if g.gesture == "hold" and state.rules.jump and claims.hold_claims(state, seat, g.at):
            return claims.ClaimJump(seat, g.at)  # H5: the card that ended the round was mine
        return f"seat {seat} {g.gesture}: no round in progress"
    told_to_draw4 = state.phase == CHALLENGE and seat == state.challenger
    if g.gesture == "press":
        if told_to_draw4:
            return Challenge(seat=seat, challenge=True)
        if state.windows:
            claimed = windows.window_press_for(state, seat, g.at)
            if claimed is not None:
                return claimed
        sp = state.spin
        if state.phase == SPIN and sp is not None and sp.outcome is None and seat == sp.seat:
            return Spin(roll=g.roll, seat=seat)  # H13: the seat that must spin presses: it spins
        return CallUno(seat=seat, at=g.at)
    if g.gesture == "double":
        return Catch(seat=seat, at=g.at)
    # hold
    if state.rules.jump and claims.hold_claims(state, seat, g.at):
        return claims.ClaimJump(seat, g.at)  # H5: "that card is mine"
    if told_to_draw4:
        return Challenge(seat=seat, challenge=False)
    if state.phase in (PLAY, DRAWN, SPIN) and seat == state.turn:
        return Pass(seat=seat)
    return f"seat {seat} held (pass) but it is seat {state.turn}'s turn"


def needs_roll(state: State, inp: Input) -> bool:
    """Whether `inp` spins the wheel without a roll yet (H13): a ``Spin`` with neither
    outcome nor roll by the seat that must spin now, or a press this state reads as the spin.
    The app then draws the roll and sets ``inp.roll`` before it logs the input (a spin the
    referee will refuse gets none)."""
    if isinstance(inp, Spin):
        sp = state.spin
        return (
            inp.outcome is None and inp.roll is None and state.phase == SPIN and sp is not None
            and sp.outcome is None and inp.seat in (None, sp.seat)
        )  # fmt: skip
    if isinstance(inp, SeatGesture) and inp.roll is None and inp.gesture == "press" and state.phase == SPIN:
        return isinstance(interpret_gesture(state, inp), Spin)
    return False


def check_input(state: State, inp: Input) -> None:
    """Raise InputError for an input that cannot apply to any game with these rules (seat out
    of range, unknown card, undo of a log entry that does not exist). Nothing changes."""
    n = state.rules.n

    def seat_ok(name: str, seat: int | None) -> None:
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise InputError(f"input '{inp.kind}': {name}={seat!r} is not a seat (this table has seats 0-{n - 1})")

    def cards_ok(cards) -> None:
        for c in cards:
            if c not in FACE_OF:
                raise InputError(f"input '{inp.kind}': unknown card {c!r}")

    if not isinstance(inp, Input):
        raise InputError(f"not an input: {inp!r}")
    for name in ("seat", "target", "dealer", "winner"):
        if hasattr(inp, name) and not isinstance(inp, (Amend, Undo)):
            seat_ok(name, getattr(inp, name))
    if isinstance(inp, (Play, Reveal)):
        cards_ok(inp.cards)
        if isinstance(inp, Play) and not inp.cards:
            raise InputError("input 'play': cards: at least one card is needed")
    elif isinstance(inp, Draw) and inp.cards is not None:
        cards_ok(inp.cards)
        if len(inp.cards) != inp.count:
            raise InputError(f"input 'draw': {len(inp.cards)} cards named for a draw of {inp.count}")
    elif isinstance(inp, Flip):
        cards_ok((inp.card,))
    elif isinstance(inp, DealerDraw):
        for seat, card in inp.cards.items():
            seat_ok("cards", seat)
            cards_ok((card,))
    elif isinstance(inp, NameColour):
        if inp.colour not in COLOUR_OF_NAME:
            raise InputError(f"input 'colour': {inp.colour!r} is not red, yellow, green or blue")
    elif isinstance(inp, Spin):
        if inp.outcome is not None and inp.roll is not None:
            raise InputError("input 'spin': give the wheel's roll or its outcome, not both")
        if inp.outcome is not None and (inp.outcome == "draw-until-colour") != (inp.colour is not None):
            raise InputError("input 'spin': colour: the draw-until-colour outcome needs a colour, the others none")
        if inp.outcome is None and inp.colour is not None:
            raise InputError("input 'spin': colour: only a stated draw-until-colour outcome names a colour")
    elif isinstance(inp, SeatGesture):
        if inp.gesture not in ("press", "double", "hold"):
            raise InputError(f"input 'gesture': {inp.gesture!r} is not press, double or hold")
    elif isinstance(inp, (Undo, Amend)):
        target = inp.target
        if target is not None and not (1 <= target <= state.seq):
            raise InputError(f"input '{inp.kind}': log entry {target} does not exist (entries 1-{state.seq})")
        if target is not None:
            old = state.inputs()[target - 1]
            if isinstance(old, (Undo, Amend)):
                raise InputError(f"input '{inp.kind}': entry {target} is itself a correction")
        if isinstance(inp, Amend):
            check_input(state, parse_input(inp.input))


def step(state: State, inp: Input) -> tuple[State, list[Event]]:
    """The pure transition. Raises InputError only for structurally bad inputs."""
    check_input(state, inp)
    if isinstance(inp, (Undo, Amend)):
        return _rebuild(state, inp)
    new = state.copy()
    events: list[Event] = []
    apply(new, inp, events)
    new.seq += 1
    new.history = (inp, new.history)
    return new, events


def advance(state: State, inp: Input) -> list[Event]:
    """``step`` in place, for the simulator and replay (no copy; same result). Undo and Amend
    rebuild the state and copy the rebuilt facts into `state`."""
    handler = HANDLERS.get(type(inp))
    if handler is None:
        if isinstance(inp, (Undo, Amend)):
            check_input(state, inp)
            new, events = _rebuild(state, inp)
            for name in State.__slots__:
                setattr(state, name, getattr(new, name))
            return events
        handler = apply
    events: list[Event] = []
    handler(state, inp, events)
    state.seq += 1
    state.history = (inp, state.history)
    return events


def apply(s: State, inp: Input, ev: list[Event]) -> None:
    """Apply one game input (not a correction) to `s` in place, events into `ev`."""
    handler = HANDLERS.get(type(inp))
    if handler is None:
        ev.append(InputRejected(inp.kind, None, f"the referee does not handle '{inp.kind}'"))
        return
    handler(s, inp, ev)


def _rebuild(state: State, inp: Undo | Amend) -> tuple[State, list[Event]]:
    """A host correction: the state is the replay of the log with it."""
    from table.replay import effective_inputs, last_live, replay  # replay folds this module

    inputs = state.inputs()
    if isinstance(inp, Undo) and inp.target is None and not effective_inputs(inputs):
        new = state.copy()
        new.seq += 1
        new.history = (inp, new.history)
        return new, [InputRejected("undo", None, "nothing to undo")]
    new = replay(state.rules, inputs + [inp])
    target = inp.target if inp.target is not None else last_live(inputs)
    return new, [StateRebuilt("undo" if isinstance(inp, Undo) else "amend", target)]


def _gesture(s: State, inp: SeatGesture, ev: list[Event]) -> None:
    meaning = interpret_gesture(s, inp)
    if isinstance(meaning, str):
        return reject(s, inp, inp.seat, meaning, ev)
    if type(meaning) is claims.ClaimJump and s.claimable is not None:
        claimed = claims.claimed_play(s, inp.seat, inp.at)
        if claimed is not None:
            return _claim_past(s, inp, claimed, ev)
    HANDLERS[type(meaning)](s, meaning, ev)


def _claim_past(s: State, inp: SeatGesture, claimed, ev: list[Event]) -> None:
    """H5: a hold just after a twin went to the turn seat: the play was the holder's. The
    state becomes the replay of the log with the hold (table.replay gives the claimed entry
    to the holder); the log position and history move on as for any input."""
    from table.replay import replay

    new = replay(s.rules, s.inputs() + [inp])
    for name in State.__slots__:
        if name != "seq" and name != "history":
            setattr(s, name, getattr(new, name))
    ev.append(JumpClaimed(inp.seat, claimed.seat, claimed.entry, claimed.cards))


def _reveal(s: State, inp: Reveal, ev: list[Event]) -> None:
    """Cards laid face up: the challenged hand (W3), a hand to score (R1), or a count check
    the host asked for in a round (the count follows what is seen)."""
    faces = [FACE_OF[c] for c in inp.cards]
    seat = inp.seat
    if s.phase == REVEAL:
        return wilds.reveal_for_challenge(s, inp, faces, ev)
    if s.phase == ROUND_OVER:
        return scoring.reveal_for_score(s, inp, faces, ev)
    if s.phase in IN_ROUND:
        old = s.hands[seat]
        check_count(s, seat, faces, ev)
        if old == len(faces):
            ev.append(Notice(seat, f"seat {seat} showed {len(faces)} cards: count confirmed"))
        return
    reject(s, inp, seat, "no round in progress", ev)


HANDLERS: dict[type, Any] = {
    StartRound: setup.start_round,
    DealerDraw: setup.dealer_draw,
    Flip: setup.flip,
    Play: turns.play,
    Draw: turns.draw_turn,
    Pass: turns.pass_turn,
    NameColour: wilds.name_colour,
    Challenge: wilds.challenge,
    Reveal: _reveal,
    CallUno: uno.call_uno,
    Catch: uno.catch,
    SeatGesture: _gesture,
    CorrectCount: host.correct_count,
    HostPenalty: host.host_penalty,
    SwapHands: house.swap,
    Attack: house.attack,
    Spin: spin.spin,
    Tick: windows.tick,
    EndRound: host.host_end_round,
    ConfirmScore: scoring.confirm_score,
    windows.WindowPress: windows.window_press,
    claims.ClaimJump: claims.claim_next,
}
