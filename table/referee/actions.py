"""Section A: what a Skip, a Reverse and a Draw Two do once accepted (A1-A5), with the two
player rule (A4), several of them laid together (H6), the stack of pending draws (H1, H2),
its deflection by a same-colour Skip or Reverse (H3) and the colour lock after it is drawn
(H4)."""

from __future__ import annotations

from table.cards import DRAW2, REVERSE, SKIP, WILD
from table.events import DirectionChanged, Event, Notice, PenaltyOrdered, TurnSkipped
from table.referee.common import begin_turn, draw_cards, next_seat
from table.referee.scoring import end_round
from table.referee.state import PendingDraw, StackCard, State

_OWED_ON_OUT = "went out on a Draw Two: the next player still draws (A5)"


def action_card(s: State, seat: int, rank: int, faces: list[int] | None, out: bool, ev: list[Event]) -> None:
    """A Skip, Reverse or Draw Two (`faces`: several laid together, H6) was accepted from
    `seat`; `out`: it was the seat's last card (R1 after the owed draw, A5)."""
    r = s.rules
    two = s.live == 2
    times = len(faces) if (faces is not None and r.multi == "same-rank") else 1  # H6
    if rank == DRAW2:
        victim = next_seat(s, seat)
        if not r.stacking:  # A3 (A4 with two players): the next player draws at once
            rule = "A4" if two else "A3"
            ev.append(PenaltyOrdered(victim, 2 * times, rule, _OWED_ON_OUT if out else "Draw Two"))
            draw_cards(s, victim, 2 * times, rule, ev)
            if out:
                return end_round(s, seat, ev)
            ev.append(TurnSkipped(victim, rule))
            return begin_turn(s, next_seat(s, victim), ev)
        if faces is not None and s.pending and s.pending[-1].card is not StackCard.DRAW2:
            pd = PendingDraw(4, "H2", seat, victim, StackCard.PAIR)  # seed 003: a pair covers a Draw Four
        else:
            pd = PendingDraw(2 * times, ("H1" if s.pending else "A3") if not two else "A4", seat, victim)
        s.pending = s.pending + (pd,)
        if not out:
            # H1/H2: the next player may add to the stack, or draw it all (Draw, Pass, hold).
            retarget(s, victim)
            return begin_turn(s, victim, ev)
        resolve_pending(s, victim, ev, _OWED_ON_OUT)
        return end_round(s, seat, ev)
    if s.pending:  # H3: a same-colour Skip / Reverse deflects the pending Draw Two
        if rank == REVERSE and not two:
            s.direction = -s.direction
            ev.append(DirectionChanged(s.direction, "H3"))
            victim = next_seat(s, seat)
        else:
            victim = next_seat(s, seat, 1 if two else 2)
        ev.append(Notice(seat, f"seat {seat} deflects the pending draw to seat {victim} (H3)"))
        retarget(s, victim)
        if out:
            resolve_pending(s, victim, ev, "went out deflecting: the draw is still owed (A5)")
            return end_round(s, seat, ev)
        return begin_turn(s, victim, ev)
    if out:
        return end_round(s, seat, ev)
    if rank == SKIP or two:  # A4: with two players a Reverse is a Skip
        victim = seat
        for _ in range(times):  # H6: n Skips skip n players
            victim = next_seat(s, victim)
            ev.append(TurnSkipped(victim, "A1" if not two else "A4"))
        return begin_turn(s, next_seat(s, victim), ev)
    if times % 2:  # H6: an even number of Reverses leaves the direction as it was
        s.direction = -s.direction  # A2
        ev.append(DirectionChanged(s.direction, "A2"))
    begin_turn(s, next_seat(s, seat), ev)


def retarget(s: State, victim: int) -> None:
    s.pending = tuple(p.to(victim) for p in s.pending)


def resolve_pending(s: State, victim: int, ev: list[Event], reason: str = "") -> None:
    """The whole pending stack is drawn by `victim` now (a Wild Draw Four's four after the
    challenge, or the stack nobody added to)."""
    pending = s.pending
    if not pending:
        return
    total = sum(p.count for p in pending)
    if len(pending) == 1:
        rule = pending[0].rule
    else:
        rule = "H2" if any(p.card is not StackCard.DRAW2 for p in pending) else "H1"
    why = reason or ("Draw Two" if rule in ("A3", "A4", "H1") else "Wild Draw Four" if rule == "W2" else "stacked draws")
    ev.append(PenaltyOrdered(victim, total, rule, why))
    draw_cards(s, victim, total, rule, ev)
    # H4: after a Draw Two stack is drawn, the next player follows its colour (no symbol match).
    if s.rules.follow and s.top < WILD and any(p.card is StackCard.DRAW2 for p in pending):
        s.lock = True
    s.pending = ()


def take_stack(s: State, seat: int, ev: list[Event]) -> None:
    """The seat facing a pending stack draws it all and loses the turn (H1, H2)."""
    rule = s.pending[-1].rule
    resolve_pending(s, seat, ev)
    ev.append(TurnSkipped(seat, rule))
    begin_turn(s, next_seat(s, seat), ev)
