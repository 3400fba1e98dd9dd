"""From the referee's events to what the table shows and sounds: the seat LEDs follow
`turn_started`, the RGB LED follows the colour in play, the buzzer plays one pattern per batch.

The referee answers one input with several events (an illegal play is followed by its
penalty; a challenge by the draw it orders), and a new pattern interrupts the one playing, so
only the most important pattern of a batch is played: the reason, not its consequence.
Events may be table.events objects or their `to_dict()` JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from firmware_config.errors import UnknownSeatError
from firmware_config.pinmap import COLOURS

log = logging.getLogger(__name__)

# Referee event kind -> buzzer pattern. challenge_resolved depends on the verdict.
EVENT_PATTERNS: dict[str, str] = {
    "illegal_play": "illegal-play",
    "penalty_ordered": "penalty",
    "uno_called": "uno-heard",
    "uno_caught": "uno-caught",
    "round_ended": "round-over",
    "match_ended": "round-over",
    "window_opened": "window-start",  # H10 Silent 2, H11 Slap 9: the buzzer marks start and end
    "window_closed": "window-end",
    "spin_needed": "spin",  # H13: the seat must spin the wheel
    "spin_result": "spin-result",  # H13: the wheel stopped (its outcome is shown on every phone)
}
# Most important first: the one played when a batch has several.
PRIORITY = (
    "illegal-play",
    "challenge-won",
    "challenge-lost",
    "uno-caught",
    "round-over",
    "window-start",
    "window-end",
    "spin-result",
    "spin",
    "penalty",
    "uno-heard",
    "turn-reminder",
)


def _get(event: Any, name: str, default: Any = None) -> Any:
    if isinstance(event, dict):
        return event.get(name, default)
    return getattr(event, name, default)


def pattern_for(event: Any) -> str | None:
    """The buzzer pattern for one referee event, or None for a silent one."""
    kind = _get(event, "kind")
    if kind == "challenge_resolved":
        # guilty: the Wild Draw Four was illegal, so the challenger won.
        return "challenge-won" if _get(event, "guilty") else "challenge-lost"
    return EVENT_PATTERNS.get(kind)


def pattern_for_events(events: Iterable[Any]) -> str | None:
    """The one pattern to play for a batch of events (the most important), or None."""
    found = {p for p in (pattern_for(e) for e in events) if p}
    return next((p for p in PRIORITY if p in found), None)


def card_colour(card: str) -> str | None:
    """'red-7' -> 'red'; wild cards have no colour until one is named."""
    colour = card.split("-", 1)[0]
    return colour if colour in COLOURS else None


class TableFeedback:
    """Drives a TableHardware from the referee's events: `feedback.handle(events)`."""

    def __init__(self, hardware):
        self.hardware = hardware

    def handle(self, events: Iterable[Any]) -> str | None:
        """Update LEDs and play the batch's pattern; returns the pattern played (or None)."""
        events = list(events)
        for event in events:
            kind = _get(event, "kind")
            if kind == "turn_started":
                try:
                    self.hardware.show_turn(_get(event, "seat"))
                except UnknownSeatError as exc:  # more players than wired seats: no LED to light
                    self.hardware.show_turn(None)
                    log.warning("%s", exc)
            elif kind == "colour_named":
                self.hardware.show_colour(_get(event, "colour"))
            elif kind in ("play_accepted", "starter_accepted"):
                self.hardware.show_colour(card_colour(_get(event, "card", "")))
            elif kind in ("round_ended", "match_ended"):
                self.hardware.show_turn(None)
                self.hardware.show_colour(None)
        pattern = pattern_for_events(events)
        if pattern is not None:
            self.hardware.play(pattern)
        return pattern
