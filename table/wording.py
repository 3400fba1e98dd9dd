"""Verdicts in the players' words: names for seats, words for card identifiers.

The referee's events read "seat 0 plays red-7, 6 left"; at the table that is "Ana plays red
7, 6 left". `with_names` turns one into the other for any event or question text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from table.cards import FACE_OF, FACE_TEXT

_CARD = re.compile(r"\b(?:(?:red|yellow|green|blue)-(?:[0-9]|skip|reverse|draw2)|wild-draw4)\b")
_SEATS = re.compile(r"\b[Ss]eats? (\d+(?:(?:, | and )\d+)*)\b")


def card_words(card: str) -> str:
    """'red-7' -> 'red 7', 'wild-draw4' -> 'wild draw four'; anything else as it is."""
    face = FACE_OF.get(card)
    return FACE_TEXT[face] if face is not None else card


def with_names(text: str, names: Sequence[str] | None) -> str:
    """`text` with every "seat N" ("seats 1, 2") as the name of who sits there, and every
    card identifier in words. Seats without a name stay as they are."""
    text = _CARD.sub(lambda m: card_words(m.group(0)), text)
    if not names:
        return text

    def seats(m: re.Match) -> str:
        nums = [int(n) for n in re.findall(r"\d+", m.group(1))]
        if not all(0 <= n < len(names) and names[n] for n in nums):
            return m.group(0)
        parts = [names[n] for n in nums]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    return _SEATS.sub(seats, text)
