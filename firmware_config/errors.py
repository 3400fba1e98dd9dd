"""Errors of the hardware layer. Each subclasses the project's base and the matching built-in
(gpiozero's style), so a caller can catch either."""

from __future__ import annotations

from dataclasses import dataclass

from table.errors import ConfigError, UnoTableError


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a pin map file, located as precisely as the YAML allows."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class PinMapError(ConfigError):
    """A pin map that failed validation. `problems` lists every fault with its file and line."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        lines = [str(p) for p in self.problems]
        if len(lines) == 1:
            super().__init__(f"invalid pin map: {lines[0]}")
        else:
            super().__init__("invalid pin map:\n  " + "\n  ".join(lines))


class HardwareError(UnoTableError, RuntimeError):
    """The table's hardware cannot do what was asked (closed, no such device)."""


class GPIOUnavailableError(HardwareError):
    """No GPIO on this machine and mock pins were not asked for."""


class UnknownPatternError(UnoTableError, KeyError):
    """A buzzer pattern name that is not in PATTERNS."""

    def __str__(self) -> str:  # KeyError quotes its argument; a message reads better plain
        return str(self.args[0]) if self.args else ""


class UnknownColourError(UnoTableError, ValueError):
    """A colour that is not red, yellow, green or blue."""


class UnknownSeatError(UnoTableError, ValueError):
    """A seat number that the pin map does not have."""
