"""Request validation: the shape and types of what a browser sends, checked before anything
reaches the table. The referee judges meaning; this layer only refuses what cannot be a
command at all, with a message that says what and where."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import request

from .service import CommandRejected

KIND_RE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
PIN_RE = re.compile(r"^[0-9]{4,8}$")
COLOURS = ("red", "yellow", "green", "blue")
# Seat controller buttons -> the referee input each one sends (table/inputs.py kinds).
SEAT_ACTIONS = {
    "uno": {"kind": "call_uno"},
    "catch": {"kind": "catch"},
    "challenge": {"kind": "challenge", "challenge": True},
    "accept": {"kind": "challenge", "challenge": False},  # take the Draw Four, no challenge
    "draw": {"kind": "draw"},
    "pass": {"kind": "pass"},
    "colour": {"kind": "colour"},
    "spin": {"kind": "spin"},  # H13: spin the wheel; the table draws the roll, never the phone
}
GESTURES = ("press", "hold", "double")
MAX_DEPTH = 6
MAX_ITEMS = 200
MAX_STR = 500
#: Numbers a browser's JSON.parse reads back exactly: integers within 2**53, finite floats
#: of no more than 1e15 (table/inputs.py bounds each field much tighter).
MAX_INT = 2**53
MAX_FLOAT = 1e15


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def json_body() -> dict:
    """The request's JSON object, or CommandRejected saying why it is not one."""
    if not request.is_json:
        raise CommandRejected(
            f"body must be JSON (Content-Type: application/json), got {request.mimetype or 'nothing'!r}"
        )
    raw = request.get_data(cache=True)
    try:
        # Strict JSON: no NaN or Infinity (which browsers' JSON.parse refuses), no number
        # that overflows to infinity, and a nesting bomb is a 400 rather than a crash.
        body = json.loads(raw, parse_constant=_no_constant, parse_float=_finite_float)
    except RecursionError:
        raise CommandRejected("body is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CommandRejected(f"body is not valid JSON ({exc})") from None
    if not isinstance(body, dict):
        raise CommandRejected(f"body must be a JSON object, got {type(body).__name__}")
    return body


def _check_value(value: Any, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise CommandRejected(f"{where}: nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise CommandRejected(f"{where}: more than {MAX_ITEMS} keys")
        for key, item in value.items():
            _check_value(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise CommandRejected(f"{where}: more than {MAX_ITEMS} items")
        for i, item in enumerate(value):
            _check_value(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, str):
        if len(value) > MAX_STR:
            raise CommandRejected(f"{where}: text longer than {MAX_STR} characters")
    elif isinstance(value, float) and not (math.isfinite(value) and abs(value) <= MAX_FLOAT):
        raise CommandRejected(f"{where}: a number must be finite and at most {MAX_FLOAT:g}")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        raise CommandRejected(f"{where}: an integer must be at most 2**53")
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise CommandRejected(f"{where}: unsupported value {value!r}")


def command(body: dict) -> dict:
    """A referee input or host command: an object with a `kind` and JSON-sized values."""
    kind = body.get("kind")
    if kind is None:
        raise CommandRejected("command needs a 'kind' field, e.g. {\"kind\": \"undo\"}")
    if not isinstance(kind, str) or not KIND_RE.match(kind):
        raise CommandRejected(
            f"'kind' must be a short lowercase name like 'undo' or 'end-round', got {kind!r}"
        )
    _check_value(body, "command", 0)
    return body


def _int_field(body: dict, name: str, *, low: int, high: int) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CommandRejected(f"'{name}' must be an integer, got {value!r}")
    if not low <= value <= high:
        raise CommandRejected(f"'{name}' must be between {low} and {high}, got {value}")
    return value


def seat_action(seat: int, body: dict) -> dict:
    """A seat controller's button: the same input the seat's hardware buttons send."""
    action = body.get("action")
    if not isinstance(action, str) or action not in SEAT_ACTIONS:
        raise CommandRejected(f"'action' must be one of {', '.join(SEAT_ACTIONS)}; got {action!r}")
    extra = set(body) - {"action", "colour"}
    if extra:
        raise CommandRejected(f"unexpected field(s) {', '.join(sorted(extra))} for a seat action")
    cmd: dict = {**SEAT_ACTIONS[action], "seat": seat}
    if action == "colour":
        colour = body.get("colour")
        if colour not in COLOURS:
            raise CommandRejected(f"'colour' must be one of {', '.join(COLOURS)}; got {colour!r}")
        cmd["colour"] = colour
    elif "colour" in body:
        raise CommandRejected(f"'colour' is only for the colour action, not {action!r}")
    return cmd


def panel_press(body: dict, seats: int) -> tuple[str, str]:
    """A press on the virtual hardware panel: ("seat:2" | "colour:red", gesture)."""
    target = body.get("target")
    gesture = body.get("gesture", "press")
    if not isinstance(target, str):
        raise CommandRejected(f"'target' must be 'seat:N' or 'colour:NAME', got {target!r}")
    head, _, tail = target.partition(":")
    if head == "seat":
        if not (tail.isascii() and tail.isdigit()) or len(tail) > 3 or int(tail) >= seats:
            raise CommandRejected(f"'target' {target!r}: seat must be 0-{seats - 1}")
    elif head == "colour":
        if tail not in COLOURS:
            raise CommandRejected(f"'target' {target!r}: colour must be one of {', '.join(COLOURS)}")
    else:
        raise CommandRejected(f"'target' must be 'seat:N' or 'colour:NAME', got {target!r}")
    if gesture not in GESTURES:
        raise CommandRejected(f"'gesture' must be one of {', '.join(GESTURES)}; got {gesture!r}")
    return target, gesture


def query_int(name: str, *, default: int | None, low: int, high: int) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise CommandRejected(f"query parameter '{name}' must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise CommandRejected(f"query parameter '{name}' must be between {low} and {high}, got {value}")
    return value


def query_float(name: str, *, default: float, low: float, high: float) -> float:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise CommandRejected(f"query parameter '{name}' must be a number, got {raw!r}") from None
    if not low <= value <= high:
        raise CommandRejected(f"query parameter '{name}' must be between {low} and {high}, got {value}")
    return value
