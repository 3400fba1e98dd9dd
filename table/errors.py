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
