"""The dashboard's guards against a hostile guest on the same network.

- `HostSessions`: the host's sign-in is a server-side session id (the cookie only carries
  it), so logging out or changing the PIN really ends a session, even for a copied cookie.
- `PinGuard`: wrong PINs are throttled per address *and* counted across all addresses: past
  a small free budget every attempt waits longer (doubling), and past a hard budget logins
  are locked until the host lifts it at the table's console (`uno-table unlock`). Every
  failed attempt is logged with its address.
- `safe_next`: where to go after login: a path on this site, never another site.
- `HostCheck`: the Host header must name this table (a configured name, an IP address, the
  machine's name, localhost): a web page on another name that rebinds its DNS to the table's
  address (DNS rebinding) gets 400.
"""

from __future__ import annotations

import ipaddress
import logging
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

log = logging.getLogger("uno_table.dashboard")


# ----------------------------------------------------------------------------- host sessions


class HostSessions:
    """Live host session ids. At most `limit` at once (the oldest goes first)."""

    def __init__(self, limit: int = 64):
        self.limit = limit
        self._ids: dict[str, float] = {}
        self._lock = threading.Lock()

    def new(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._ids[sid] = time.monotonic()
            while len(self._ids) > self.limit:
                self._ids.pop(next(iter(self._ids)))
        return sid

    def valid(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            return sid in self._ids

    def revoke(self, sid: object) -> None:
        with self._lock:
            self._ids.pop(sid, None)  # type: ignore[arg-type]

    def revoke_all(self) -> int:
        with self._lock:
            n = len(self._ids)
            self._ids.clear()
        return n

    def __len__(self) -> int:
        return len(self._ids)


# ----------------------------------------------------------------------------- PIN guessing


class PinGuard:
    """Wrong-PIN limits.

    Per address: `per_address` failures in `window` s make that address wait out the window.
    Across all addresses (failures since the last right PIN): after `free` of them each new
    attempt waits 2**(n - free) s after the last failure (at most `max_wait`); after
    `lockout` of them no PIN is checked at all until `lift()` (the console: `uno-table
    unlock`, which signals the running table). A host already signed in is not affected.
    """

    def __init__(
        self,
        per_address: int = 5,
        window: float = 60.0,
        free: int = 10,
        lockout: int = 30,
        max_wait: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
        on_lockout: Callable[[str], None] | None = None,
    ):
        self.per_address, self.window = per_address, window
        self.free, self.lockout, self.max_wait = free, lockout, max_wait
        self.clock = clock
        self.on_lockout = on_lockout
        self._fails: dict[str, deque[float]] = {}
        self._global = 0
        self._last = 0.0
        self.locked = False
        self._lock = threading.Lock()

    @property
    def failures(self) -> int:
        return self._global

    def check(self, addr: str) -> tuple[float, str] | None:
        """None when `addr` may try a PIN now, else (seconds to wait, why)."""
        now = self.clock()
        with self._lock:
            if self.locked:
                return (
                    float("inf"),
                    f"PIN sign-in is locked after {self._global} wrong PINs; the host lifts it at "
                    "the table's console with `uno-table unlock`",
                )
            fails = self._fails.get(addr)
            while fails and now - fails[0] > self.window:
                fails.popleft()
            if fails is not None and not fails:
                del self._fails[addr]
            if fails and len(fails) >= self.per_address:
                return self.window - (now - fails[0]), "too many wrong PINs from this address"
            if self._global >= self.free:
                wait = min(self.max_wait, 2.0 ** (self._global - self.free)) - (now - self._last)
                if wait > 0:
                    return wait, f"{self._global} wrong PINs at this table: every attempt waits longer"
        return None

    def failed(self, addr: str) -> None:
        now = self.clock()
        with self._lock:
            self._fails.setdefault(addr, deque()).append(now)
            if len(self._fails) > 4096:  # a flood of addresses cannot grow this without bound
                self._fails.pop(next(iter(self._fails)))
            self._global += 1
            self._last = now
            count = self._global
            locks = count >= self.lockout and not self.locked
            if locks:
                self.locked = True
        log.warning("wrong host PIN from %s (%d wrong since the last right one)", addr, count)
        if locks:
            msg = (
                f"PIN sign-in locked after {count} wrong PINs (the last from {addr}); lift it with "
                "`uno-table unlock` on this machine"
            )
            log.error(msg)
            if self.on_lockout is not None:
                self.on_lockout(msg)

    def succeeded(self, addr: str) -> None:
        with self._lock:
            self._fails.pop(addr, None)
            self._global = 0

    def lift(self) -> None:
        """The console lifts the lockout and clears every count."""
        with self._lock:
            self.locked = False
            self._global = 0
            self._fails.clear()


# ----------------------------------------------------------------------------- redirects


def safe_next(raw: object, default: str = "/setup") -> str:
    """`raw` when it is a path on this site ("/host?x=1"), else `default`.

    Refused: anything with a scheme or a host ("https://x", "//x"), a backslash (browsers
    read "/\\x" as "//x"), control characters or spaces (browsers drop tabs and newlines from
    URLs), or more than 512 characters."""
    if not isinstance(raw, str) or not raw.startswith("/") or len(raw) > 512:
        return default
    if "\\" in raw or any(ord(c) < 0x21 or ord(c) == 0x7F for c in raw):
        return default
    if raw.startswith("//"):
        return default
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc:
        return default
    return raw


# ----------------------------------------------------------------------------- Host header


def machine_names() -> set[str]:
    """This machine's own names: its host name, its fully qualified name, name.local."""
    names = {"localhost"}
    try:
        host = socket.gethostname().lower()
    except OSError:
        return names
    if host:
        names |= {host, f"{host}.local"}
        try:
            names.add(socket.getfqdn(host).lower())
        except OSError:
            pass
    return names


def split_host(header: str) -> str | None:
    """The name in a Host header without its port ("[::1]:8000" -> "::1"); None if malformed."""
    h = header.strip().lower()
    if not h or len(h) > 255 or any(ord(c) < 0x21 or c in "/\\@?#" for c in h):
        return None
    if h.startswith("["):
        end = h.find("]")
        if end < 0 or (len(h) > end + 1 and not h[end + 1 :].startswith(":")):
            return None
        return h[1:end]
    name, _, port = h.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".")


class HostCheck:
    """Which Host headers this table answers.

    Accepted: any IP address literal (a page's origin then *is* that address: no rebinding),
    `localhost` and `*.localhost`, this machine's names, and `allowed` (exact names, "*.x.y"
    for a domain and its subdomains, or "*" for anything)."""

    def __init__(self, allowed: Iterable[str] | None = None, extra: Iterable[str] = ()):
        self.any = False
        self.exact: set[str] = set(machine_names())
        self.suffixes: list[str] = []
        for name in [*(allowed or ()), *extra]:
            n = str(name).strip().lower().rstrip(".")
            if n == "*":
                self.any = True
            elif n.startswith("*."):
                self.suffixes.append(n[1:])
                self.exact.add(n[2:])
            elif n:
                self.exact.add(n)

    def allows(self, header: str | None) -> bool:
        if self.any:
            return True
        if not header:
            return False
        name = split_host(header)
        if name is None:
            return False
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            pass
        if name in self.exact or name.endswith(".localhost"):
            return True
        return any(name.endswith(s) for s in self.suffixes)


def host_of(url: str | None) -> str | None:
    if not url:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None
