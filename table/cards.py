"""Cards, the 108-card deck (D1) and the point table (D2).

Internally the referee works on *faces*: small ints 0..53, so the hot path compares ints and
indexes tuples instead of building objects. Face f < 52 is colour ``f // 13`` and rank
``f % 13`` (ranks 0-9, then skip, reverse, draw2); 52 is ``wild``, 53 is ``wild-draw4``.
Outside the referee (JSON, logs, CLI) a card is always its identifier: ``red-7``,
``blue-skip``, ``green-reverse``, ``yellow-draw2``, ``wild``, ``wild-draw4``.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.errors import InvalidCardError

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")
COLOURED_RANKS: tuple[str, ...] = (
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "draw2",
)  # fmt: skip
SKIP, REVERSE, DRAW2 = 10, 11, 12
WILD, WILD_DRAW4 = 52, 53
NO_COLOUR = -1

#: The 54 faces, in face order.
CARD_IDS: tuple[str, ...] = tuple(f"{c}-{r}" for c in COLOURS for r in COLOURED_RANKS) + (
    "wild",
    "wild-draw4",
)
FACE_OF: dict[str, int] = {cid: i for i, cid in enumerate(CARD_IDS)}
COLOUR_OF_NAME: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}

#: Per face: colour index (-1 for wilds), rank index (13 wild, 14 wild-draw4).
FACE_COLOUR: tuple[int, ...] = tuple(f // 13 for f in range(52)) + (NO_COLOUR, NO_COLOUR)
FACE_RANK: tuple[int, ...] = tuple(f % 13 for f in range(52)) + (13, 14)
#: Human text of a face: "red 7", "blue skip", "wild draw four".
FACE_TEXT: tuple[str, ...] = tuple(
    f"{c} {r.replace('draw2', 'draw two')}" for c in COLOURS for r in COLOURED_RANKS
) + ("wild", "wild draw four")

VALID_FORM = (
    "a colour (red, yellow, green, blue) and a rank (0-9, skip, reverse, draw2) joined by '-', "
    "like 'red-7' or 'blue-skip', or 'wild' / 'wild-draw4'"
)


def face_is_number(face: int) -> bool:
    return face < 52 and face % 13 < 10


def face_is_action(face: int) -> bool:
    return face < 52 and face % 13 >= 10


@dataclass(frozen=True, slots=True)
class Card:
    """One card face. ``colour`` is None for wild cards; ``rank`` is '0'..'9', 'skip',
    'reverse', 'draw2', 'wild' or 'wild-draw4'."""

    colour: str | None
    rank: str

    @property
    def id(self) -> str:
        return self.rank if self.colour is None else f"{self.colour}-{self.rank}"

    @property
    def face(self) -> int:
        return FACE_OF[self.id]

    @property
    def is_wild(self) -> bool:
        return self.colour is None

    @property
    def is_number(self) -> bool:
        return self.rank.isdigit()

    @classmethod
    def from_face(cls, face: int) -> Card:
        if face >= 52:
            return cls(None, CARD_IDS[face])
        return cls(COLOURS[face // 13], COLOURED_RANKS[face % 13])

    def __str__(self) -> str:
        return self.id


def parse_face(text: object) -> int:
    """The face index of a card identifier; InvalidCardError (a ValueError) otherwise."""
    face = FACE_OF.get(text) if isinstance(text, str) else None
    if face is None:
        raise InvalidCardError(f"unknown card {text!r}: expected {VALID_FORM}")
    return face


def parse_card(text: object) -> Card:
    """Parse a card identifier such as 'red-7' into a Card; anything else is refused."""
    return Card.from_face(parse_face(text))


def deck_faces() -> list[int]:
    """The 108-card deck (D1) as faces, in a fixed order (shuffle it with a seeded RNG)."""
    faces: list[int] = []
    for colour in range(4):
        base = colour * 13
        faces.append(base)  # one 0 per colour
        for rank in range(1, 13):  # two each of 1-9, skip, reverse, draw two
            faces += (base + rank, base + rank)
    faces += [WILD] * 4 + [WILD_DRAW4] * 4
    return faces


def deck() -> list[Card]:
    """The 108-card deck (D1) as Cards."""
    return [Card.from_face(f) for f in deck_faces()]


def point_table(points) -> tuple[int, ...]:
    """Per-face points from a PointsConfig (D2): number cards count their face value."""
    table = []
    for face in range(54):
        if face == WILD:
            table.append(points.wild)
        elif face == WILD_DRAW4:
            table.append(points.wild_draw4)
        elif face % 13 < 10:
            table.append(face % 13)
        else:
            table.append(points.action)
    return tuple(table)
