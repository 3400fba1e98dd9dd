"""Buzzer patterns as data: a name, a tune for a passive buzzer and a rhythm for an active one.

Each pattern is meant to be told apart by ear without looking: the rhythms differ in the
number and length of beeps (S = short < 150 ms, L = long), the tunes in shape.

| name | when | rhythm (active) | tune (passive) |
|---|---|---|---|
| illegal-play | a card that may not be played | L L L | three low buzzes |
| penalty | the referee orders cards drawn | L (0.8 s) | four notes falling |
| uno-heard | an UNO call was heard | S S | quick rising chirp |
| uno-caught | a missed UNO was caught | S S S S S S | two-note siren |
| challenge-won | the challenger was right (the Wild Draw Four was illegal) | S S L | fanfare |
| challenge-lost | the challenger was wrong and draws 6 | L L | sad trombone |
| round-over | a round ended | S S S L | little tune |
| window-start | Silent 2 / Slap 9 begins | S S S (fast) | sharp rising double |
| window-end | Silent 2 / Slap 9 is over | L S | long falling note |
| turn-reminder | nudge the seat whose turn it is | S | one soft blip |

No gpiozero here, so the dashboard can import it for its virtual panel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from firmware_config.errors import UnknownPatternError

# What an active buzzer sounds like, for the browser's imitation of it.
ACTIVE_BUZZER_HZ = 2300.0

_NOTE = re.compile(r"^([A-G])([#b]?)(-?\d)$")
_SEMITONE = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}


def note_frequency(note: str) -> float:
    """Equal-tempered frequency of a note name such as 'A4' (440 Hz), 'F#5' or 'Bb3'."""
    match = _NOTE.match(note)
    if not match:
        raise ValueError(f"{note!r} is not a note name like 'A4', 'F#5' or 'Bb3'")
    letter, accidental, octave = match.groups()
    midi = 12 * (int(octave) + 1) + _SEMITONE[letter] + {"#": 1, "b": -1, "": 0}[accidental]
    return round(440.0 * 2 ** ((midi - 69) / 12), 2)


@dataclass(frozen=True)
class Pattern:
    """`tune`: (note name or None for a rest, milliseconds); `rhythm`: (on, milliseconds)."""

    name: str
    description: str
    tune: tuple[tuple[str | None, int], ...]
    rhythm: tuple[tuple[bool, int], ...]

    def steps(self, kind: str) -> list[tuple[float | None, float]]:
        """What to drive, step by step: (frequency in Hz or None for silence, seconds).
        An active buzzer's "on" is given as ACTIVE_BUZZER_HZ."""
        if kind == "passive":
            return [(note_frequency(n) if n else None, ms / 1000) for n, ms in self.tune]
        if kind == "active":
            return [(ACTIVE_BUZZER_HZ if on else None, ms / 1000) for on, ms in self.rhythm]
        raise ValueError(f"buzzer kind must be 'passive' or 'active', not {kind!r}")

    def duration(self, kind: str) -> float:
        return sum(seconds for _, seconds in self.steps(kind))


def _beeps(*ms_on: int, gap: int) -> tuple[tuple[bool, int], ...]:
    out: list[tuple[bool, int]] = []
    for i, ms in enumerate(ms_on):
        if i:
            out.append((False, gap))
        out.append((True, ms))
    return tuple(out)


PATTERNS: dict[str, Pattern] = {
    p.name: p
    for p in (
        Pattern(
            "illegal-play",
            "A card that may not be played: three low buzzes.",
            (("A3", 250), (None, 100), ("A3", 250), (None, 100), ("A3", 250)),
            _beeps(250, 250, 250, gap=100),
        ),
        Pattern(
            "penalty",
            "The referee orders cards drawn: four notes falling.",
            (("E5", 150), ("C5", 150), ("A4", 150), ("E4", 450)),
            _beeps(800, gap=0),
        ),
        Pattern(
            "uno-heard",
            "An UNO call was heard: a quick rising chirp.",
            (("C6", 70), ("E6", 70), ("G6", 160)),
            _beeps(60, 60, gap=60),
        ),
        Pattern(
            "uno-caught",
            "A player who missed UNO was caught: a two-note siren.",
            (("E6", 90), ("B5", 90), ("E6", 90), ("B5", 90), ("E6", 90), ("B5", 250)),
            _beeps(60, 60, 60, 60, 60, 60, gap=50),
        ),
        Pattern(
            "challenge-won",
            "The challenger was right (the Wild Draw Four was illegal): a fanfare.",
            (("C6", 100), ("E6", 100), ("G6", 100), (None, 40), ("C7", 400)),
            _beeps(80, 80, 500, gap=60),
        ),
        Pattern(
            "challenge-lost",
            "The challenger was wrong and draws 6: a sad trombone.",
            (("G4", 250), ("F#4", 250), ("F4", 250), ("E4", 700)),
            _beeps(500, 500, gap=200),
        ),
        Pattern(
            "round-over",
            "A round ended: a little tune.",
            (("G5", 150), ("C6", 150), ("E6", 150), ("G6", 150), ("E6", 120), ("G6", 600)),
            _beeps(100, 100, 100, 1000, gap=80),
        ),
        Pattern(
            "window-start",
            "Silent 2 or Slap 9 begins (H10, H11): a sharp rising double.",
            (("G5", 80), ("G6", 80), (None, 60), ("G5", 80), ("G6", 180)),
            _beeps(40, 40, 40, gap=40),
        ),
        Pattern(
            "window-end",
            "Silent 2 or Slap 9 is over: a long falling note and a blip.",
            (("G6", 120), ("D6", 120), ("G5", 400)),
            _beeps(500, 60, gap=100),
        ),
        Pattern(
            "spin",
            "Your spin (H13 UNO Spin): a whirr rising to a high note.",
            (("C5", 60), ("E5", 60), ("G5", 60), ("C6", 60), ("E6", 60), ("G6", 60), (None, 60), ("C7", 300)),
            _beeps(40, 40, 40, 40, 40, 40, 300, gap=30),
        ),
        Pattern(
            "spin-result",
            "The wheel stopped (H13): a long note, then two ticks falling.",
            (("C6", 300), (None, 70), ("G5", 50), (None, 70), ("E5", 50)),
            _beeps(300, 40, 40, gap=70),
        ),
        Pattern(
            "turn-reminder",
            "Nudge the seat whose turn it is: one soft blip.",
            (("A5", 60),),
            _beeps(60, gap=0),
        ),
    )
}
PATTERN_NAMES: tuple[str, ...] = tuple(PATTERNS)


def get_pattern(name: str) -> Pattern:
    try:
        return PATTERNS[name]
    except KeyError:
        raise UnknownPatternError(
            f"no buzzer pattern {name!r}; known: {', '.join(PATTERN_NAMES)}"
        ) from None


def browser_pattern(name: str, kind: str = "passive") -> list[dict]:
    """The pattern as the dashboard plays it with WebAudio: [{"freq": Hz (0 = silence), "ms"}]."""
    return [
        {"freq": freq or 0, "ms": round(seconds * 1000)}
        for freq, seconds in get_pattern(name).steps(kind)
    ]


def browser_patterns(kind: str = "passive") -> dict[str, list[dict]]:
    """Every pattern for the browser, by name."""
    return {name: browser_pattern(name, kind) for name in PATTERN_NAMES}
