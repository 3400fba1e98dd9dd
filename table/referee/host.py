"""The host's corrections and decisions: a hand count corrected (the difference goes to or
from the draw pile), a penalty the table cannot see (P8 advice, or any rule), and a round
ended by hand, with a winner (scored from the reveals) or without one (void, not scored).
Undo and amend (a log entry withdrawn or replaced) rebuild the state by replay (``core``)."""

from __future__ import annotations

from table.events import Event, HandCountCorrected, Notice, RoundVoided
from table.inputs import CorrectCount, EndRound, HostPenalty
from table.referee.actions import resolve_pending
from table.referee.common import flush_deferred, next_seat, penalty, reject
from table.referee.scoring import end_round
from table.referee.state import (
    COLOUR,
    DEALER_DRAW,
    FLIP,
    IDLE,
    IN_ROUND,
    PLAY,
    ROUND_OVER,
    SWAP,
    ScoreStatus,
    State,
)


def correct_count(s: State, inp: CorrectCount, ev: list[Event]) -> None:
    seat = inp.seat
    if s.phase not in IN_ROUND and s.phase != ROUND_OVER:
        return reject(s, inp, seat, "no round in progress", ev)
    old = s.hands[seat]
    diff = inp.count - old
    if diff > s.draw_count:
        return reject(s, inp, seat, f"only {s.draw_count} cards are left in the draw pile", ev)
    s.hands[seat] = inp.count
    s.draw_count -= diff
    if inp.count != 1:
        bit = ~(1 << seat)
        s.called &= bit
        s.exposed &= bit
        s.armed &= bit
    ev.append(HandCountCorrected(seat, old, inp.count, "host", inp.reason or "host correction"))


def host_penalty(s: State, inp: HostPenalty, ev: list[Event]) -> None:
    if s.phase not in IN_ROUND:
        return reject(s, inp, inp.seat, "no round in progress", ev)
    count = inp.count
    if count is None:
        if inp.rule != "P8":
            return reject(s, inp, inp.seat, f"host penalty under {inp.rule}: say how many cards", ev)
        count = s.rules.advice_penalty
    reason = inp.reason or ("gave advice to another player" if inp.rule == "P8" else "host penalty")
    penalty(s, inp.seat, count, inp.rule, reason, ev)


def host_end_round(s: State, inp: EndRound, ev: list[Event]) -> None:
    if s.phase not in IN_ROUND and s.phase not in (FLIP, DEALER_DRAW):
        return reject(s, inp, inp.winner, f"no round in progress ({s.phase})", ev)
    if inp.winner is None or s.phase in (FLIP, DEALER_DRAW):
        if inp.winner is not None:
            return reject(s, inp, inp.winner, "the round has not started: it can only be voided (no winner)", ev)
        s.phase = IDLE
        s.pending = ()
        s.windows = ()
        s.called = s.exposed = s.caught = s.armed = 0
        s.challenger = s.challenged = s.colour_seat = s.swap_seat = -1
        s.deferred = ()
        s.spin, s.spin_due = None, False
        s.claim = s.claimable = None
        s.score_status, s.held = ScoreStatus.VOID, ()
        ev.append(RoundVoided(s.round, inp.reason))
        return
    winner = inp.winner
    if s.out >> winner & 1:
        return reject(s, inp, winner, f"seat {winner} is not in this round", ev)
    if s.phase == COLOUR or s.phase == SWAP:
        s.colour_seat = s.swap_seat = -1
    s.challenger = s.challenged = -1
    s.spin = None
    s.phase = PLAY
    flush_deferred(s, ev)
    old = s.hands[winner]
    if old:
        # The cards went somewhere the camera did not see; like a host count correction, the
        # difference goes back to the draw pile so the 108 stay accounted for.
        s.hands[winner] = 0
        s.draw_count += old
        ev.append(HandCountCorrected(winner, old, 0, "host", inp.reason))
    if s.pending:  # A5: an owed draw is still drawn before the round ends
        resolve_pending(s, s.turn if s.turn != winner else next_seat(s, winner), ev, "owed when the round ended (A5)")
    ev.append(Notice(winner, f"host: seat {winner} went out ({inp.reason})"))
    end_round(s, winner, ev)
