"""Who may do what: the host (PIN -> signed session cookie + CSRF token) and seat controllers
(one token per seat, carried by the seat's QR code). Watching needs nothing."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from functools import wraps

from flask import abort, current_app, g, jsonify, request, session

CSRF_HEADER = "X-CSRF-Token"
SEAT_HEADER = "X-Seat-Token"


def new_seat_tokens(seats: int) -> dict[int, str]:
    """Fresh unguessable tokens, one per seat (the app prints or shows them as QR codes)."""
    return {seat: secrets.token_urlsafe(12) for seat in range(seats)}


class LiveSeatTokens(Mapping):
    """The seat tokens of the match being played, asked of the table at each use: a new
    match brings new tokens (the last match's links stop working) and a restart keeps them."""

    def __init__(self, provider: Callable[[], dict]):
        self._provider = provider

    def _now(self) -> dict[int, str]:
        return {int(k): v for k, v in self._provider().items()}

    def __getitem__(self, seat: int) -> str:
        return self._now()[seat]

    def __iter__(self):
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())


class LoginThrottle:
    """Failed-PIN limiter per client address: a 6-digit PIN must not be guessable by a
    script on the same Wi-Fi, so after `limit` failures in `window` s the address waits."""

    def __init__(self, limit: int = 5, window: float = 60.0):
        self.limit = limit
        self.window = window
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, addr: str) -> float:
        now = time.monotonic()
        with self._lock:
            fails = self._fails.get(addr)
            if not fails:
                return 0.0
            while fails and now - fails[0] > self.window:
                fails.popleft()
            if len(fails) < self.limit:
                return 0.0
            return self.window - (now - fails[0])

    def failed(self, addr: str) -> None:
        with self._lock:
            self._fails.setdefault(addr, deque()).append(time.monotonic())

    def succeeded(self, addr: str) -> None:
        with self._lock:
            self._fails.pop(addr, None)


def pin_matches(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def _host_sessions():
    return current_app.extensions.get("uno_host_sessions")


def log_in_host() -> str:
    """Mark this session as the host's and return its CSRF token. The cookie carries a
    server-side session id, so logout and a PIN change end it (web_ui/security.py)."""
    session.clear()
    session["host"] = True
    session["csrf"] = secrets.token_urlsafe(24)
    sessions = _host_sessions()
    if sessions is not None:
        session["sid"] = sessions.new()
    session.permanent = False
    return session["csrf"]


def log_out_host() -> None:
    sessions = _host_sessions()
    if sessions is not None:
        sessions.revoke(session.get("sid"))
    session.clear()


def is_host() -> bool:
    if not session.get("host"):
        return False
    sessions = _host_sessions()
    return sessions is None or sessions.valid(session.get("sid"))


def csrf_token() -> str | None:
    return session.get("csrf") if is_host() else None


def json_error(status: int, message: str, **extra):
    body = {"error": message, "status": status}
    body.update(extra)
    return jsonify(body), status


def host_required(view):
    """A host action: a host session and, for anything that changes state, the CSRF header
    matching the session's token (a cross-site form cannot set a custom header)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if not is_host():
            return json_error(401, "host PIN required: log in at /login first")
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            sent = request.headers.get(CSRF_HEADER, "")
            if not sent or not hmac.compare_digest(sent.encode(), session["csrf"].encode()):
                return json_error(403, f"missing or wrong {CSRF_HEADER} header")
        return view(*args, **kwargs)

    return wrapper


def seat_required(view):
    """A seat controller's action: the X-Seat-Token header must be the token of the seat in
    the URL, so a phone that joined seat 2 can act only for seat 2."""

    @wraps(view)
    def wrapper(seat: int, *args, **kwargs):
        tokens: dict[int, str] = current_app.config["SEAT_TOKENS"]
        expected = tokens.get(seat)
        if expected is None:
            return json_error(404, f"no seat {seat} at this table (seats 0-{len(tokens) - 1})")
        sent = request.headers.get(SEAT_HEADER, "")
        if not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
            return json_error(403, f"wrong or missing {SEAT_HEADER} for seat {seat}")
        g.seat = seat
        return view(seat, *args, **kwargs)

    return wrapper


def seat_for_page(seat: int, token: str | None) -> None:
    """A seat page opened from a QR code: refuse a wrong token before showing controls."""
    expected = current_app.config["SEAT_TOKENS"].get(seat)
    if expected is None or not token or not hmac.compare_digest(token.encode(), expected.encode()):
        abort(403, description="this seat link is not valid: scan the seat's QR code again")
