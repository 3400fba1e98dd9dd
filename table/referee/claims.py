"""H5: who jumped in. The camera sees a card land, not whose hand laid it, so a card seen
landing goes to the turn seat (inferred); the seat that jumped in says so with a hold of its
button, just before the card lands or just after it landed on its twin. The hold is a
referee input like any other, with the time it was pressed (`at`); the window
(``house.jump_in_claim_s``) is measured on the inputs' own times, the hold's and the play's,
never on a clock of the referee's (it has none). An input without a time cannot be measured:
then a claim before the card holds for the next card, and a claim after it until the next.

- A hold before the card (`State.claim`): the next card seen landing is that seat's play.
- A hold after a card that landed on its twin and went to the turn seat
  (`State.claimable`), before the next player draws, passes or plays: that play was the
  holder's jump-in. The referee re-attributes it by
  replaying the log with that entry given to the holder (``table.replay`` folds the hold the
  same way), so the state is exactly what it would have been had the camera known.
"""

from __future__ import annotations

from dataclasses import replace

from table.cards import FACE_OF
from table.events import Event, Notice, PlayAccepted
from table.inputs import Input, Play, SeatGesture
from table.referee.state import CHALLENGE, IN_ROUND, ClaimablePlay, JumpClaim, State


class ClaimJump(Input):
    """A hold that says "the card is mine" (H5); internal only: the log keeps the raw
    gesture, so replay re-derives it."""

    __slots__ = ("seat", "at")
    kind = "gesture"

    def __init__(self, seat: int, at: float | None):
        self.seat, self.at = seat, at


def within(s: State, earlier: float | None, later: float | None) -> bool:
    """Is `later` at most the claim window after `earlier` (True when either has no time)?"""
    return earlier is None or later is None or later - earlier <= s.rules.jump_claim_s


def claimed_play(s: State, seat: int, at: float | None) -> ClaimablePlay | None:
    """The twin just given to another seat that `seat`'s hold at `at` claims, if any."""
    c = s.claimable
    if c is None or c.seat == seat or not within(s, c.at, at):
        return None
    return c


def hold_claims(s: State, seat: int, at: float | None) -> bool:
    """With jump-in on, a hold is a claim: by any seat just after a card landed on its twin
    (whatever that card did: the turn passed to the holder, a colour to name, the round over
    for the seat it went to), or by a seat whose turn it is not (a hold means nothing else
    then). The seat told to draw four holds to decline the challenge."""
    if not s.rules.jump or (s.phase == CHALLENGE and seat == s.challenger):
        return False
    if claimed_play(s, seat, at) is not None:
        return True
    return s.phase in IN_ROUND and s.phase != CHALLENGE and seat != s.turn


def claim_after(s: State, inp: Input) -> ClaimablePlay | None:
    """The earlier play this input re-attributes: a hold claiming a twin just given to
    another seat (the referee then rebuilds by replay); None for every other input."""
    if s.claimable is None or type(inp) is not SeatGesture or inp.gesture != "hold":
        return None
    if not hold_claims(s, inp.seat, inp.at):
        return None
    return claimed_play(s, inp.seat, inp.at)


def claimed(play: Play, seat: int) -> Play:
    """The claimed play, given to `seat`."""
    return replace(play, seat=seat)


def claim_next(s: State, inp: ClaimJump, ev: list[Event]) -> None:
    """A hold before the card: the next card seen landing is this seat's."""
    s.claim = JumpClaim(inp.seat, inp.at)
    ev.append(Notice(inp.seat, f"seat {inp.seat} claims the next card (H5)"))


def before_play(s: State, inp: Play, ev: list[Event]) -> Play:
    """A card lands: a claim waiting for it names its player (within the window); either
    way the claim is spent, and the last twin is no longer claimable."""
    claim, s.claim, s.claimable = s.claim, None, None
    if claim is not None and inp.seat is None and within(s, claim.at, inp.at):
        ev.append(Notice(claim.seat, f"seat {claim.seat} claimed this card before it landed (H5)"))
        return claimed(inp, claim.seat)
    return inp


def after_play(s: State, inp: Play, top: int, ev: list[Event]) -> None:
    """A card given to the turn seat (inferred) that landed on its twin may still be claimed."""
    if inp.seat is None and top >= 0 and FACE_OF[inp.cards[0]] == top and any(type(e) is PlayAccepted for e in ev):
        s.claimable = ClaimablePlay(s.seq + 1, inp.at, s.last_player, tuple(inp.cards))
