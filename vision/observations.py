"""What vision tells the rest of the table: plain dataclasses with `to_json()`.

Vision never calls the referee; the app maps these to referee inputs. Every observation
carries its confidence (0..1) and the number of the frame it was decided on."""

from __future__ import annotations

from dataclasses import dataclass


def _r(v: float, n: int = 4) -> float:
    return round(float(v), n)


@dataclass(frozen=True, slots=True)
class ObservedCard:
    """A card at rest: its face, the median confidence over the frames that decided it,
    its box in frame pixels and its pose (centre in pixels, angle in degrees or None).
    `candidates`: the likeliest faces at that place, best first, as (card, probability): the
    classifier's guesses averaged over every reading of the card in the frames that decided
    it, readings of another face at the same place included (up to three)."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    center: tuple[float, float]
    angle: float | None = None
    candidates: tuple[tuple[str, float], ...] = ()

    def to_json(self) -> dict:
        out = {
            "card": self.card,
            "confidence": _r(self.confidence),
            "box": [_r(v, 1) for v in self.box],
            "center": [_r(v, 1) for v in self.center],
        }
        if self.angle is not None:
            out["angle"] = _r(self.angle, 1)
        if self.candidates:
            out["candidates"] = [[c, _r(p)] for c, p in self.candidates]
        return out


def pool_candidates(readings, k: int = 3) -> tuple[tuple[str, float], ...]:
    """The `k` likeliest faces over several readings of one card (each a list of (card,
    probability)): each face's probability averaged over all readings (0 where a reading
    did not name it), best first."""
    total: dict[str, float] = {}
    n = 0
    for reading in readings:
        n += 1
        for card, p in reading:
            total[card] = total.get(card, 0.0) + float(p)
    ranked = sorted(total.items(), key=lambda t: -t[1])[:k]
    return tuple((card, p / n) for card, p in ranked) if n else ()


def _cards_json(obs) -> dict:
    """JSON of an observation that carries cards (discard, reveal)."""
    return {
        "type": obs.type,
        "frame": obs.frame,
        "timestamp": _r(obs.timestamp, 3),
        "confidence": _r(obs.confidence),
        "cards": [c.to_json() for c in obs.cards],
    }


@dataclass(frozen=True, slots=True)
class CardsPlayed:
    """One or more cards just came to rest on the discard pile (several = a multi-play),
    ordered bottom to top as far as the picture tells (the last is the one lying on top)."""

    cards: tuple[ObservedCard, ...]
    frame: int
    timestamp: float
    confidence: float
    type: str = "discard"

    def to_json(self) -> dict:
        return _cards_json(self)


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    """The set of face-up cards in the reveal zone changed and is stable again (may be empty)."""

    cards: tuple[ObservedCard, ...]
    frame: int
    timestamp: float
    confidence: float
    type: str = "reveal"

    def to_json(self) -> dict:
        return _cards_json(self)


@dataclass(frozen=True, slots=True)
class PileCovered:
    """The discard pile became covered (a hand over it) or clear again."""

    covered: bool
    frame: int
    timestamp: float
    confidence: float
    type: str = "covered"

    def to_json(self) -> dict:
        return {
            "type": self.type,
            "frame": self.frame,
            "timestamp": _r(self.timestamp, 3),
            "confidence": _r(self.confidence),
            "covered": self.covered,
        }


@dataclass(frozen=True, slots=True)
class LikelyDraw:
    """A hand reached into the draw-pile zone and left: probably a card drawn. Inferred, so
    the referee marks it as such."""

    frame: int
    timestamp: float
    confidence: float
    inferred: bool = True
    type: str = "draw"

    def to_json(self) -> dict:
        return {
            "type": self.type,
            "frame": self.frame,
            "timestamp": _r(self.timestamp, 3),
            "confidence": _r(self.confidence),
            "inferred": self.inferred,
        }


Observation = CardsPlayed | CardsRevealed | PileCovered | LikelyDraw
