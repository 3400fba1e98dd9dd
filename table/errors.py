"""Project-wide error base. Errors subclass both UnoTableError and the matching built-in
(gpiozero's style), so callers can catch either."""


class UnoTableError(Exception):
    """Base of every error this project raises on purpose."""


class InvalidCardError(UnoTableError, ValueError):
    """A card identifier that is not one of the 54 faces (or 'back')."""


class ConfigError(UnoTableError, ValueError):
    """A configuration file or value that failed validation."""


class LogError(UnoTableError, RuntimeError):
    """The event log cannot be read or written."""


def validation_problems(exc, prefix: str = "") -> str:
    """One line naming each field a pydantic ValidationError refused: 'a.b: why; c: why'.

    The one formatter of validation errors for config files, rules, inputs and requests, so
    every message names the field the same way (`prefix` is put before each field path)."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if loc or prefix:
            parts.append(f"{prefix}{loc}: {msg}" if loc else f"{prefix.rstrip('.')}: {msg}")
        else:
            parts.append(msg)
    return "; ".join(parts)
