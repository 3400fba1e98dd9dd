"""Player names: the one check for every way a name reaches the table (the config file,
the Setup page, a stored match).

A name is shown on every phone, printed in logs and exported to spreadsheets, so it is kept
to one plain line: trimmed, Unicode-normalised (NFC), 1 to `MAX_NAME` characters, no control
characters (newlines, tabs, escapes), no line or paragraph separators, no bidirectional
overrides (which can make one name read as another), and unique at the table (ignoring
case).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from table.errors import ConfigError

MAX_NAME = 32
#: Bidirectional embedding, override and isolate controls: they reorder what follows them.
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def clean_name(raw: object, where: str = "name") -> str:
    """The name as the table keeps it, or ConfigError (a ValueError) saying what is wrong."""
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: a name must be text, got {type(raw).__name__}")
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise ConfigError(f"{where}: a player needs a name")
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Zl", "Zp", "Cs") or ch in _BIDI:
            raise ConfigError(
                f"{where}: {name!r} holds a control character (U+{ord(ch):04X}); "
                "a name is one line of plain text"
            )
    if len(name) > MAX_NAME:
        raise ConfigError(f"{where}: {name[:12]!r}... is {len(name)} characters long; at most {MAX_NAME}")
    return name


def clean_names(raw: Iterable[object], where: str = "players") -> list[str]:
    """Every seat's name checked by `clean_name`, and no two alike (ignoring case)."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        name = clean_name(item, f"{where}[{i}]")
        key = name.casefold()
        if key in seen:
            raise ConfigError(f"{where}[{i}]: {name!r} is named twice (also {where}[{seen[key]}])")
        seen[key] = i
        names.append(name)
    return names
