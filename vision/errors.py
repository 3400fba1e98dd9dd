"""Vision errors (both the project's base and the matching built-in, gpiozero style)."""

from table.errors import UnoTableError


class CameraError(UnoTableError, OSError):
    """A camera (or file source) that cannot be opened or read. The message names it."""


class CorruptFrameError(UnoTableError, ValueError):
    """One frame that could not be decoded; the capture thread skips it and counts it."""


class ModelError(UnoTableError, RuntimeError):
    """A detector model file that is missing, corrupt or of the wrong kind."""


class SaveError(UnoTableError, OSError):
    """An output folder or file that cannot be written (`--save`)."""


class EndOfStream(Exception):
    """A finite source (video file, folder, script) has no more frames."""
