"""The moves every rule section uses: who is next, what is playable, drawing (P9's
reshuffle included), penalties (and when they must wait), beginning a turn."""

from __future__ import annotations

from table.cards import COLOURS, FACE_COLOUR, FACE_RANK, FACE_TEXT, WILD
from table.events import (
    CardsDrawn,
    DeckReshuffled,
    Event,
    HandCountCorrected,
    InputRejected,
    Notice,
    PenaltyOrdered,
    SpinNeeded,
    TurnStarted,
)
from table.inputs import Input
from table.referee.state import (
    CHALLENGE,
    COLOUR,
    NO_CARD,
    PLAY,
    REVEAL,
    SPIN,
    DeferredPenalty,
    SpinState,
    State,
)


def card_text(face: int) -> str:
    return FACE_TEXT[face]


def current_text(state: State) -> str:
    """What a card must match, in words: 'blue 5', or 'green (named after a wild)'."""
    if state.top >= WILD:
        colour = COLOURS[state.colour] if state.colour >= 0 else "no colour yet"
        return f"{colour} (named after {FACE_TEXT[state.top]})"
    return FACE_TEXT[state.top]


def is_playable(state: State, face: int) -> bool:
    """P2/P3/W1: the card matches the current colour, or the top card's number or symbol;
    wild cards always can be placed (Wild Draw Four legality is settled by a challenge)."""
    if face >= WILD:
        return True
    if FACE_COLOUR[face] == state.colour:
        return True
    top = state.top
    return top < WILD and FACE_RANK[face] == FACE_RANK[top]


def next_seat(state: State, seat: int, steps: int = 1) -> int:
    """P1: the seat `steps` places on in the direction of play (seats out skipped, R5/R6)."""
    if not state.out:
        return (seat + state.direction * steps) % state.rules.n
    return step_from(state, seat, state.direction, steps)


def step_from(state: State, seat: int, direction: int, steps: int = 1) -> int:
    """The seat `steps` places on in `direction`, skipping seats out of the rotation (R5, R6)."""
    n, out = state.rules.n, state.out
    for _ in range(steps):
        seat = (seat + direction) % n
        guard = n
        while out >> seat & 1 and guard:
            seat = (seat + direction) % n
            guard -= 1
    return seat


def reject(s: State, inp: Input, seat: int | None, reason: str, ev: list[Event]) -> None:
    ev.append(InputRejected(inp.kind, seat, reason))


def draw_cards(s: State, seat: int, count: int, rule: str, ev: list[Event], inferred: bool = True,
               cards: tuple[str, ...] | None = None) -> int:  # fmt: skip
    """`seat` draws `count` cards (P9: an empty draw pile takes the discards under the top
    card); returns how many it got. A hand of more than one card has no UNO standing."""
    got = 0
    while got < count:
        if s.draw_count == 0:
            k = len(s.discard) - 1
            if k <= 0:
                break  # every other card is in a hand: the draw falls short, as at a table
            s.draw_count = k
            del s.discard[:-1]
            ev.append(DeckReshuffled(k))
        take = count - got
        if take > s.draw_count:
            take = s.draw_count
        s.draw_count -= take
        got += take
    hands = s.hands
    hands[seat] += got
    if hands[seat] > 1:
        bit = 1 << seat
        if (s.called | s.exposed | s.armed) & bit:
            s.called &= ~bit
            s.exposed &= ~bit
            s.armed &= ~bit
    ev.append(CardsDrawn(seat, got, rule, hands[seat], cards, inferred))
    return got


def penalty(s: State, seat: int, count: int, rule: str, reason: str, ev: list[Event],
            quiet: bool = False) -> None:  # fmt: skip
    """`seat` draws `count` as a penalty, now or when its wait is over (see the edge cases)."""
    if count <= 0:
        return
    if s.out >> seat & 1:
        # R5: a seat that has finished holds no hand to draw into; drawing would put it back
        # into a round it has left (and its place is already taken).
        return ev.append(Notice(seat, f"seat {seat} has finished this round: no penalty draw ({rule}: {reason})"))
    phase = s.phase
    if phase == COLOUR:
        # RULES.md edge case: the colour choice completes first, then the penalty applies.
        s.deferred = s.deferred + (DeferredPenalty(seat, count, rule, reason),)
        if not quiet:
            ev.append(Notice(seat, f"penalty for seat {seat} ({rule}) waits until seat {s.colour_seat} names the colour"))
        return
    if seat == s.challenged and (phase == CHALLENGE or phase == REVEAL):
        # The challenge judges the hand as it was when the Wild Draw Four was played: cards
        # drawn before the reveal would be mixed into it, so they wait for the verdict.
        s.deferred = s.deferred + (DeferredPenalty(seat, count, rule, reason),)
        if not quiet:
            ev.append(Notice(seat, f"penalty for seat {seat} ({rule}) waits until the challenge is settled"))
        return
    ev.append(PenaltyOrdered(seat, count, rule, reason))
    draw_cards(s, seat, count, rule, ev)


def flush_deferred(s: State, ev: list[Event]) -> None:
    """The waiting penalties apply now (the colour was named, the challenge settled)."""
    deferred, s.deferred = s.deferred, ()
    for d in deferred:
        penalty(s, d.seat, d.count, d.rule, d.reason, ev, quiet=True)


def check_count(s: State, seat: int, faces: list[int], ev: list[Event]) -> None:
    """A hand seen face up: the tracked count follows what is seen (the difference goes to
    or from the draw pile), flagged for the host."""
    old = s.hands[seat]
    if old != len(faces):
        diff = len(faces) - old
        s.hands[seat] = len(faces)
        s.draw_count -= diff
        ev.append(HandCountCorrected(seat, old, len(faces), "reveal", "the revealed hand differs from the tracked count: check with the host"))


def begin_turn(s: State, seat: int, ev: list[Event]) -> None:
    """`seat`'s turn begins: it plays, draws or passes; after a spin card (H13) it spins."""
    s.turn = seat
    s.drawn = NO_CARD
    s.turns += 1
    if s.spin_due:
        s.spin_due = False
        s.phase = SPIN
        s.spin = SpinState(seat)
        ev.append(TurnStarted(seat, s.direction))
        ev.append(SpinNeeded(seat))
        return
    s.phase = PLAY
    ev.append(TurnStarted(seat, s.direction))
