"""What the table's own observations mean, decided by the rules (the observer in ``app/``
asks, it does not decide): whose hand a reveal is, and what a hand reaching into the draw
pile is. Vision never calls the referee; the observer turns vision's reports into inputs by
calling these functions with the referee's state."""

from __future__ import annotations

from table.inputs import Draw
from table.referee.house import until_stop
from table.referee.scoring import awaiting_reveal
from table.referee.state import CHALLENGE, DRAWN, PLAY, REVEAL, ROUND_OVER, SPIN, SpinOutcome, State


def reveal_owner(state: State) -> tuple[int, str] | None:
    """Whose hand cards laid face up in the reveal zone are now, and why: the challenged
    seat (W3), else the next hand still to score at the end of a round (R1, in seat order);
    None when no hand is expected."""
    if state.phase == REVEAL:
        return state.challenged, "challenge"
    if state.phase == ROUND_OVER:
        waiting = awaiting_reveal(state)
        return (waiting[0], "scoring") if waiting else None
    return None


def draw_reach(state: State) -> tuple[Draw | None, str]:
    """The input a hand reaching into the draw pile means now (the fetch of a draw the
    referee ordered aside, which the observer counts from the events): the seat told to draw
    four takes them (no challenge, W2); the turn seat draws (P5, inferred), again while H7's
    drawing goes on; the seat spinning draws until the wheel's colour comes (H13)."""
    phase = state.phase
    if phase == CHALLENGE and state.challenger >= 0:
        return Draw(seat=state.challenger), "draws the Wild Draw Four (no challenge)"
    if phase == PLAY:
        return Draw(), "voluntary draw (inferred)"
    if phase == DRAWN and state.rules.until and not until_stop(state, state.drawn):
        return Draw(), "draw until playable: one more card (inferred)"
    sp = state.spin
    if phase == SPIN and sp is not None and sp.outcome is SpinOutcome.DRAW_UNTIL_COLOUR:
        return Draw(), "draw until the wheel's colour comes (inferred)"
    return None, f"a reach into the draw pile in phase '{phase}': ignored"
