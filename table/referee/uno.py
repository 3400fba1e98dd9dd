"""Section U: calling UNO (U1, U3, U4), catching a missed call (U2, U5) and strict mode (U6).

The window is measured in turns, not seconds: a seat left with one card without the call is
catchable (`State.exposed`) until the next player begins a turn. A call pressed while the
seat is about to lay its second-to-last card is armed (`State.armed`) and counts when the
card goes down.
"""

from __future__ import annotations

from table.events import Event, Notice, UnoCalled, UnoCaught, UnoMissed
from table.inputs import CallUno, Catch
from table.referee.common import penalty, reject
from table.referee.state import CHALLENGE, COLOUR, DRAWN, IN_ROUND, PLAY, AfterColour, State


def note_uno(s: State, seat: int, left: int, ev: list[Event]) -> None:
    """U1/U2 after a play: a call pressed with the card counts; one card left without it is
    catchable until the next player begins; a call armed for a longer hand lapses."""
    bit = 1 << seat
    if left == 1:
        if s.armed & bit:
            s.armed &= ~bit
            s.called |= bit
            ev.append(UnoCalled(seat))
        else:
            s.exposed |= bit  # U2: catchable until the next player begins
            s.exposed_seq = s.seq
    elif s.armed & bit:
        s.armed &= ~bit


def close_uno_window(s: State, ev: list[Event], beginner: int) -> None:
    """U2: the next player began a turn: whoever is still exposed can no longer be caught
    (U6 strict: the table catches them now). A seat that plays again itself (two players,
    after a Skip) keeps its own window open: it may still call, be caught, or go out."""
    keep = 1 << beginner
    exposed = s.exposed & ~keep
    s.exposed &= keep
    s.caught &= keep
    if not exposed:
        return
    for seat in range(s.rules.n):
        if exposed >> seat & 1:
            if s.rules.strict:
                ev.append(UnoCaught(seat, None, "U6"))
                penalty(s, seat, s.rules.missed, "U6", "did not call UNO (strict mode)", ev)
            else:
                ev.append(UnoMissed(seat))


def uno_recheck(s: State, seats) -> None:
    """After hands moved (H8, H13): a seat now holding one card may call and can be caught
    until the next turn begins; flags of seats whose hands changed start over."""
    for x in seats:
        bit = 1 << x
        s.called &= ~bit
        s.armed &= ~bit
        s.exposed &= ~bit
        s.caught &= ~bit
        if s.hands[x] == 1:
            s.exposed |= bit
    s.exposed_seq = s.seq


def may_play_next(s: State, seat: int) -> bool:
    """U1: may `seat`'s next input be a card of its own hand going down? Then a call pressed
    now comes with that card, whichever way it reached the hand: a turn's play, the card just
    drawn (P6, H7), the first play after naming a Wild starter's colour (S4), or a card added
    to a stack instead of challenging (H2)."""
    phase = s.phase
    if phase == PLAY or phase == DRAWN:
        return seat == s.turn
    if phase == COLOUR:
        return s.after_colour is AfterColour.START and seat == s.colour_seat
    if phase == CHALLENGE:
        return seat == s.challenger and s.rules.stacking
    return False


def call_uno(s: State, inp: CallUno, ev: list[Event]) -> None:
    seat = inp.seat
    if s.phase not in IN_ROUND:
        return reject(s, inp, seat, "no round in progress", ev)
    bit = 1 << seat
    count = s.hands[seat]
    if s.caught & bit:
        return ev.append(Notice(seat, f"seat {seat} was already caught; the late call does not count"))
    if count == 1:
        if s.called & bit:
            return ev.append(Notice(seat, f"seat {seat} already called UNO"))
        # U3: late = another input came between the play that left one card and this call
        # (the call pressed with the play, or right after it, is on time).
        late = bool(s.exposed & bit) and s.seq > s.exposed_seq + 1
        s.exposed &= ~bit
        s.called |= bit
        return ev.append(UnoCalled(seat, late))
    if (count == 2 or (count > 2 and s.rules.multi)) and may_play_next(s, seat):
        s.armed |= bit  # said while laying down the second-to-last card
        return ev.append(Notice(seat, f"seat {seat} calls UNO with the card about to be played"))
    ev.append(Notice(seat, f"false UNO call: seat {seat} holds {count} cards"))
    penalty(s, seat, s.rules.false_call, "U4", f"called UNO holding {count} cards", ev)


def catch(s: State, inp: Catch, ev: list[Event]) -> None:
    seat = inp.seat
    if s.phase not in IN_ROUND:
        return reject(s, inp, seat, "no round in progress", ev)
    if inp.target is not None:
        if inp.target == seat:
            return reject(s, inp, seat, "a seat cannot catch itself", ev)
        targets = 1 << inp.target
    else:
        targets = s.exposed & ~(1 << seat)
        if not targets and s.exposed & (1 << seat):
            # The exposed player's own double press: taken as the call, not a self-catch.
            return call_uno(s, CallUno(seat=seat, at=inp.at), ev)
    hit = s.exposed & targets
    if hit:
        for t in range(s.rules.n):
            if hit >> t & 1:
                s.exposed &= ~(1 << t)
                s.caught |= 1 << t
                ev.append(UnoCaught(t, seat, "U2"))
                penalty(s, t, s.rules.missed, "U2", f"caught by seat {seat} without calling UNO", ev)
        return
    if s.caught & (targets or s.caught):
        return ev.append(Notice(seat, "already caught: the first catch counts"))
    if inp.target is None:
        why = "nobody is catchable now"
    elif s.called & targets:
        why = f"seat {inp.target} had called UNO"
    elif s.hands[inp.target] == 1:  # U2: the window closed; too late, not a wrong catch
        return ev.append(Notice(seat, f"seat {inp.target} can no longer be caught: the next player began"))
    else:
        why = f"seat {inp.target} holds {s.hands[inp.target]} cards"
    ev.append(Notice(seat, f"wrong catch: {why}"))
    penalty(s, seat, s.rules.wrong_catch, "U5", f"wrong catch: {why}", ev)
