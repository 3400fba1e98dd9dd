"""Section W: the Wild and the Wild Draw Four (W1, W2), naming the colour (P3), the
challenge (W3) and the chain's challenge with stacking (W4, seed 004's option).

The challenge judges the hand as it was when the Wild Draw Four was played: the colour and
top card then (``State.prev_colour``, ``prev_top``), H4's lock then (``prev_lock``) and the
stack it was added to (``State.pending`` without its last entry).
"""

from __future__ import annotations

from table.cards import COLOUR_OF_NAME, COLOURS, FACE_COLOUR, FACE_TEXT, WILD, WILD_DRAW4
from table.events import (
    ChallengeOffered,
    ChallengeResolved,
    ColourNamed,
    ColourNeeded,
    Event,
    PenaltyOrdered,
    RevealNeeded,
    TurnSkipped,
)
from table.inputs import Challenge, NameColour, Reveal
from table.referee.actions import resolve_pending, retarget
from table.referee.common import (
    begin_turn,
    check_count,
    draw_cards,
    flush_deferred,
    is_playable,
    next_seat,
    reject,
)
from table.referee.house import stack_reason
from table.referee.scoring import end_round
from table.referee.state import (
    CHALLENGE,
    COLOUR,
    PLAY,
    REVEAL,
    AfterColour,
    PendingDraw,
    StackCard,
    State,
)


def wild_draw4_allowed(state: State, hand: list[int] | tuple[int, ...]) -> bool:
    """W2 with full information: may a player holding `hand` (including the WD4) play it?"""
    if state.rules.wd4_no_playable:
        return not any(f != WILD_DRAW4 and may_play_now(state, f) for f in hand)
    colour = state.colour
    return not any(FACE_COLOUR[f] == colour for f in hand)


def may_play_now(s: State, face: int) -> bool:
    """W2 (seed 002): could `face` be played in this position instead of a Wild Draw Four?
    Facing a stack only a card that may answer it (H1-H3); under H4 only the colour."""
    if s.pending:
        return stack_reason(s, [face]) is None
    if s.lock and face < WILD:
        return FACE_COLOUR[face] == s.colour
    return is_playable(s, face)


def wild_played(s: State, seat: int, face: int, out: bool, ev: list[Event]) -> None:
    """W1/W2: a wild card was accepted from `seat`: it names the colour next."""
    if out:  # going out on a wild: no colour to name; A5 for a Wild Draw Four
        if face == WILD_DRAW4:
            victim = next_seat(s, seat)
            total = 4 + sum(p.count for p in s.pending)
            s.pending = ()
            ev.append(PenaltyOrdered(victim, total, "A5", "went out on a Wild Draw Four: the next player still draws"))
            draw_cards(s, victim, total, "A5", ev)
        return end_round(s, seat, ev)
    s.colour = -1
    s.phase = COLOUR
    s.colour_seat = seat
    s.after_colour = AfterColour.DRAW4 if face == WILD_DRAW4 else AfterColour.WILD
    ev.append(ColourNeeded(seat))


def name_colour(s: State, inp: NameColour, ev: list[Event]) -> None:
    if s.phase != COLOUR:
        return reject(s, inp, inp.seat, "no colour is being named now", ev)
    seat = s.colour_seat
    if inp.seat is not None and inp.seat != seat:
        return reject(s, inp, inp.seat, f"seat {seat} names the colour, not seat {inp.seat}", ev)
    s.colour = COLOUR_OF_NAME[inp.colour]
    ev.append(ColourNamed(seat, inp.colour, inp.seat is None))
    if s.exposed >> seat & 1:
        s.exposed_seq = s.seq  # naming the colour is part of the play (U3 'late' counts after it)
    after = s.after_colour
    s.after_colour = AfterColour.NONE
    s.colour_seat = -1
    if after is not AfterColour.DRAW4:
        s.phase = PLAY  # leaves COLOUR so the deferred penalties apply now
        flush_deferred(s, ev)
        return begin_turn(s, seat if after is AfterColour.START else next_seat(s, seat), ev)
    victim = next_seat(s, seat)
    if not s.pending:
        s.pending = (PendingDraw(4, "W2", seat, victim, StackCard.DRAW4),)
        first = True
    else:
        # W4: only the first Wild Draw Four of a chain may be challenged; seed 004's option:
        # not even that one when the chain began with a Draw Two.
        first = not s.rules.no_challenge_on2 and not any(p.card is StackCard.DRAW4 for p in s.pending)
        s.pending = s.pending + (PendingDraw(4, "H2", seat, victim, StackCard.DRAW4),)
        retarget(s, victim)
    if not first:
        s.phase = PLAY
        flush_deferred(s, ev)
        return begin_turn(s, victim, ev)
    s.challenger, s.challenged = victim, seat
    s.phase = CHALLENGE
    flush_deferred(s, ev)  # the challenged seat's own penalties wait for the verdict
    ev.append(ChallengeOffered(victim, seat, sum(p.count for p in s.pending)))


def accept_draw4(s: State, ev: list[Event]) -> None:
    """W2: the seat told to draw 4 (or the whole chain) draws it and loses the turn."""
    victim = s.challenger
    s.phase = PLAY
    rule = s.pending[-1].rule if s.pending else "W2"
    resolve_pending(s, victim, ev)
    s.challenger = s.challenged = -1
    flush_deferred(s, ev)
    ev.append(TurnSkipped(victim, rule if s.live > 2 else "A4"))
    begin_turn(s, next_seat(s, victim), ev)


def challenge(s: State, inp: Challenge, ev: list[Event]) -> None:
    if s.phase != CHALLENGE:
        return reject(s, inp, inp.seat, "there is no Wild Draw Four to challenge now", ev)
    seat = s.challenger if inp.seat is None else inp.seat
    if seat != s.challenger:
        return reject(s, inp, seat, f"only seat {s.challenger}, told to draw 4, may challenge (W3)", ev)
    if not inp.challenge:
        return accept_draw4(s, ev)
    s.phase = REVEAL
    if s.hands[s.challenged] == 0:
        # The Wild Draw Four was the last card (its R7 draw waits for the verdict): an empty
        # hand is shown by showing nothing, and nothing the camera could wait for.
        return reveal_for_challenge(s, Reveal(seat=s.challenged, cards=()), [], ev)
    ev.append(RevealNeeded(s.challenged, "challenge"))


def playable_instead(s: State, faces: list[int]) -> list[int]:
    """W2 (seed 002): the cards of a revealed hand that could have been played instead of the
    Wild Draw Four, in the position it was played in (see the module docstring)."""
    probe = s.copy()
    probe.colour, probe.top, probe.lock = s.prev_colour, s.prev_top, s.prev_lock
    probe.pending = s.pending[:-1]  # the Wild Draw Four judged is the chain's last entry
    return [f for f in faces if f != WILD_DRAW4 and may_play_now(probe, f)]


def reveal_for_challenge(s: State, inp: Reveal, faces: list[int], ev: list[Event]) -> None:
    """W3/W4: the challenged hand, face up: the verdict."""
    seat = inp.seat
    if seat != s.challenged:
        return reject(s, inp, seat, f"seat {s.challenged} must reveal for the challenge, not seat {seat}", ev)
    check_count(s, seat, faces, ev)
    r = s.rules
    prev_colour = s.prev_colour
    if r.wd4_no_playable:
        bad = playable_instead(s, faces)
        reason_ok = "no other playable card"
    else:
        bad = [f for f in faces if FACE_COLOUR[f] == prev_colour]
        reason_ok = f"no {COLOURS[prev_colour]} card" if prev_colour >= 0 else "no colour to follow"
    challenger, challenged = s.challenger, s.challenged
    chain = sum(p.count for p in s.pending)
    rule = "W4" if len(s.pending) > 1 else "W3"
    s.pending = ()
    s.challenger = s.challenged = -1
    s.phase = PLAY
    if bad:
        # Guilty: the challenged seat draws 4; the challenger escapes the whole chain (W4).
        ev.append(ChallengeResolved(challenger, challenged, True, challenged, 4, f"held {FACE_TEXT[bad[0]]}", rule))
        ev.append(PenaltyOrdered(challenged, 4, rule, "Wild Draw Four played illegally"))
        draw_cards(s, challenged, 4, rule, ev)
    else:
        # Innocent: the challenger draws the accumulated count plus the extra (W3: 4 + 2).
        count = chain + r.challenge_extra
        ev.append(ChallengeResolved(challenger, challenged, False, challenger, count, reason_ok, rule))
        ev.append(PenaltyOrdered(challenger, count, rule, "unsuccessful challenge"))
        draw_cards(s, challenger, count, rule, ev)
    flush_deferred(s, ev)
    ev.append(TurnSkipped(challenger, "W3"))
    begin_turn(s, next_seat(s, challenger), ev)
