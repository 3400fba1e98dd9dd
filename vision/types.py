"""Types shared by the recognizer (models' weights) and the rest of vision."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CardDetection:
    """One card found in one frame.

    card: a DESIGN.md identifier (`red-7`, `wild-draw4`) or `back` for a face-down card.
    box: axis-aligned [x1, y1, x2, y2] in pixels of the original frame.
    quad: the card's four corners (x, y) in pixels of the original frame, when known
          (rotated cards), in order around the card.
    candidates: the classifier's best guesses, most likely first, as (card, probability)
          (up to three; empty when the backend gives only its answer).
    mirrored: read from the image mirrored left to right (a still photo saved in a selfie
          view, its digits backwards); box and quad are in the image as given.
    relit: the gains (B, G, R) a dark or tinted still photo was read with, lifted
          (`vision.recognizer.exposure_gain`) or white balanced (`white_balance`); None: read
          as it was.
    softened: read from the still photo softened (`vision.recognizer.SOFTEN_SIGMA`), its
          noise blurred away, as a dim room's webcam photo is.
    deglared: read from the still photo with a lamp's glare taken off as haze
          (`vision.glare`), the glyph it washed out brought back.
    searched: found by searching the still photo for a card where the detector boxed none
          (`vision.search`): the classifier and the corner reader agree on its face.
    """

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    quad: tuple[tuple[float, float], ...] | None = None
    detector_confidence: float | None = None
    candidates: tuple[tuple[str, float], ...] = ()
    mirrored: bool = False
    relit: tuple[float, float, float] | None = None
    softened: bool = False
    deglared: bool = False
    searched: bool = False

    def to_json(self) -> dict:
        out = {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "box": [round(float(v), 1) for v in self.box],
        }
        if self.quad is not None:
            out["quad"] = [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad]
        if self.candidates:
            out["candidates"] = [[c, round(float(p), 4)] for c, p in self.candidates]
        if self.mirrored:
            out["mirrored"] = True
        if self.relit is not None:
            out["relit"] = [round(float(g), 2) for g in self.relit]
        if self.softened:
            out["softened"] = True
        if self.deglared:
            out["deglared"] = True
        if self.searched:
            out["searched"] = True
        return out


def box_quad(box) -> tuple:
    """The four corners of an axis-aligned box [x1, y1, x2, y2], in order around it (for a
    reading without corners of its own)."""
    x0, y0, x1, y1 = box
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
