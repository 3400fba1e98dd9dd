"""When the table should ask the host: a camera reading it may have got wrong.

Pure functions of the referee's state and the input as the camera read it (its cards and,
for each card, the classifier's likeliest faces: `candidates`). The app marks such an input
`unsure` with `doubt()`'s answer before it is logged; the referee plays it as read (nothing
waits), and the dashboard asks the host, whose answer is an `amend` of that log entry.

A reading is unsure when
- `low`: its likeliest face has a probability under `min_confidence`;
- `close`: its two likeliest faces are within `min_margin` of each other;
- `illegal`: the referee refuses the play as read but would accept it with a card's second
  (or third) guess instead: the likelier story is a misread, not a foul;
- `count`: a revealed hand has another number of cards than the tracked count.
"""

from __future__ import annotations

from typing import Any

from table.cards import FACE_OF, FACE_TEXT
from table.events import IllegalPlay, InputRejected, PlayAccepted
from table.inputs import Flip, Input, InputError, Play, Reveal
from table.referee import REVEAL, ROUND_OVER, State, step

#: Defaults chosen on rendered games through the shipped model (docs/replay.md): 0.8 asks about
#: one reading in thirty and catches two misreads in three there; 0.6 asks half as often and
#: catches one in three.
MIN_CONFIDENCE = 0.8
MIN_MARGIN = 0.25
_ORDINAL = ("first", "second", "third")


def _words(card: str) -> str:
    face = FACE_OF.get(card)
    return FACE_TEXT[face] if face is not None else card


def options(inp: Input, index: int | None) -> list[tuple[str, float]]:
    """The faces to offer the host for card `index` of `inp`: its candidates, best first,
    with the card as read among them."""
    cards = _cards(inp)
    if index is None or not 0 <= index < len(cards):
        return []
    cands = _candidates(inp, index)
    if all(c != cards[index] for c, _ in cands):
        cands = [(cards[index], 0.0), *cands]
    return cands[:3]


def _cards(inp: Input) -> tuple[str, ...]:
    if isinstance(inp, Flip):
        return (inp.card,)
    return tuple(getattr(inp, "cards", ()) or ())


def _candidates(inp: Input, index: int) -> list[tuple[str, float]]:
    cands = getattr(inp, "candidates", None) or ()
    if index < len(cands) and cands[index]:
        return [(str(c), float(p)) for c, p in cands[index]]
    conf = getattr(inp, "confidence", None)
    return [(_cards(inp)[index], float(conf))] if conf is not None else []


def accepted(state: State, inp: Input) -> bool:
    """Would the referee accept this play as it stands (no illegal-play verdict)?"""
    try:
        _, events = step(state, inp)
    except InputError:
        return False
    if any(isinstance(e, (IllegalPlay, InputRejected)) for e in events):
        return False
    return any(isinstance(e, PlayAccepted) for e in events)


def legal_guess(state: State, inp: Input) -> tuple[int, int, str] | None:
    """A play the referee refuses as read but would accept with one card's second or third
    guess: (card index, guess rank 1 or 2, that face); None otherwise."""
    if not isinstance(inp, Play) or not inp.candidates or accepted(state, inp):
        return None
    for i, card in enumerate(inp.cards):
        for rank, (guess, _) in enumerate(_candidates(inp, i)[:3]):
            if rank == 0 or guess == card:
                continue
            cards = list(inp.cards)
            cards[i] = guess
            alt = Play(tuple(cards), inp.seat, inp.confidence, inp.frame, inp.source, inp.at)
            if accepted(state, alt):
                return i, rank, guess
    return None


def _reveal_seat(state: State, inp: Reveal) -> int | None:
    if state.phase == REVEAL:
        return state.challenged
    if state.phase == ROUND_OVER:
        return inp.seat
    return None


def doubt(
    state: State, inp: Input, *, min_confidence: float = MIN_CONFIDENCE, min_margin: float = MIN_MARGIN,
) -> dict[str, Any] | None:
    """Why the camera's reading `inp` may be wrong, judged against `state` (the state it is
    about to apply to): {"why": [reasons in words], "tags": [low|close|illegal|count],
    "card": the index of the card to ask about (None: the hand as a whole)}; None when
    the reading is sure."""
    if not isinstance(inp, (Play, Flip, Reveal)):
        return None
    cards = _cards(inp)
    why: list[str] = []
    tags: list[str] = []
    card: int | None = None
    guess = legal_guess(state, inp) if isinstance(inp, Play) else None
    if guess is not None:
        i, rank, face = guess
        card = i
        tags.append("illegal")
        why.append(
            f"{_words(cards[i])} is not a legal play here, but its {_ORDINAL[rank]} guess "
            f"{_words(face)} would be"
        )
    weakest: tuple[float, int] | None = None
    for i in range(len(cards)):
        cands = _candidates(inp, i)
        if not cands:
            continue
        top = cands[0][1]
        margin = top - cands[1][1] if len(cands) > 1 else top
        low, close = top < min_confidence, margin < min_margin
        if not (low or close):
            continue
        if low and "low" not in tags:
            tags.append("low")
            why.append(f"{_words(cards[i])} read with confidence {top:.2f}")
        if close and "close" not in tags:
            tags.append("close")
            why.append(f"{_words(cards[i])} ({top:.2f}) and {_words(cands[1][0])} ({cands[1][1]:.2f}) look alike")
        if weakest is None or margin < weakest[0]:
            weakest = (margin, i)
    if card is None and weakest is not None:
        card = weakest[1]
    if isinstance(inp, Reveal):
        seat = _reveal_seat(state, inp)
        if seat is not None and 0 <= seat < len(state.hands) and len(cards) != state.hands[seat]:
            tags.append("count")
            why.append(f"{len(cards)} cards revealed but seat {seat} holds {state.hands[seat]}")
    if not why:
        return None
    return {"why": why, "tags": tags, "card": card}
