"""The dashboard's virtual hardware panel over mock GPIO: the hub's `panel` collaborator.

`describe()` tells the page which seats and colours to draw and how each buzzer pattern
sounds; `press(target, gesture)` drives the mock pins, so a click runs through the same
gpiozero Button and gesture code as a finger on a real button."""

from __future__ import annotations

from firmware_config.patterns import PATTERN_NAMES, browser_pattern, get_pattern
from table.errors import UnoTableError

COLOURS = ("red", "yellow", "green", "blue")
GESTURES = ("press", "double", "hold")


class PanelError(UnoTableError, ValueError):
    """A virtual press the panel cannot make (unknown seat, colour or gesture)."""


class DashboardPanel:
    def __init__(self, hardware, names: list[str]):
        self.hardware = hardware
        self.names = names

    def describe(self) -> dict:
        kind = self.hardware.pin_map.buzzer.kind if self.hardware.pin_map.buzzer else "passive"
        seats = [s for s in self.hardware.pin_map.seat_numbers if s < len(self.names)]
        return {
            "seats": [{"seat": s, "name": self.names[s]} for s in seats],
            "colours": list(COLOURS) if self.hardware.colour_pad is not None else [],
            "gestures": list(GESTURES),
            "patterns": [
                {"name": n, "text": get_pattern(n).description, "tones": browser_pattern(n, kind)}
                for n in PATTERN_NAMES
            ],
        }

    def press(self, target: str, gesture: str = "press") -> dict:
        what, _, value = target.partition(":")
        virtual = self.hardware.virtual
        if what == "seat":
            if gesture not in GESTURES:
                raise PanelError(f"gesture must be one of {', '.join(GESTURES)}, not {gesture!r}")
            try:
                seat = int(value)
            except ValueError:
                raise PanelError(f"target {target!r}: the seat must be a number") from None
            virtual.perform({"kind": "gesture", "seat": seat, "gesture": gesture}, background=True)
        elif what == "colour":
            virtual.perform({"kind": "colour", "colour": value}, background=True)
        else:
            raise PanelError(f"target must be 'seat:N' or 'colour:NAME', not {target!r}")
        return {"ok": True, "target": target, "gesture": gesture}
