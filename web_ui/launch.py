"""Start the dashboard for a running table: one call for the app hub (`uno-table run/demo`).

    handle = start_dashboard(hub, port=8000)      # prints the URL and the host PIN
    ...
    handle.close()                                # ends open streams, stops the server
"""

from __future__ import annotations

import errno
import secrets
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from flask import Flask

from table.errors import UnoTableError

from .app import create_app
from .auth import new_seat_tokens
from .server import BackgroundServer
from .service import TableService

MAX_SEATS = 10  # RULES.md S1: a setup may grow the table to 10 seats without new QR codes
#: Threads kept for pages, commands and camera viewers; the rest may hold live streams.
RESERVED_THREADS = 24


class DashboardError(UnoTableError, OSError):
    """The dashboard cannot listen where it was told (a name that does not resolve, a port
    in use or not allowed)."""


def bind_dashboard(host: str, port: int) -> socket.socket:
    """A listening socket for the dashboard, bound now, so a bad address or a busy port is
    one clear line before anything else starts (and before a new match log is made)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise DashboardError(
            f"dashboard.host {host!r} cannot be resolved ({getattr(exc, 'strerror', None) or exc}): give an "
            "address of this machine (0.0.0.0: every network, 127.0.0.1: this machine only)"
        ) from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(1024)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            why = f"port {port} is already in use (another uno-table, or another server); choose another with --port"
        elif exc.errno == errno.EACCES:
            why = f"port {port} needs privileges this user does not have; use a port above 1023"
        elif exc.errno == errno.EADDRNOTAVAIL:
            why = f"{host!r} is not an address of this machine"
        else:
            why = exc.strerror or str(exc)
        raise DashboardError(f"the dashboard cannot listen on {host}:{port}: {why}") from None
    return sock


def new_host_pin(digits: int = 6) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def lan_address() -> str:
    """This machine's address on the local network, for URLs phones can open. A UDP
    connect() sends nothing; with no network at all it falls back to loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def _say(line: str) -> None:
    print(line, flush=True)


@dataclass
class Dashboard:
    server: BackgroundServer
    url: str
    pin: str
    seat_tokens: Mapping[int, str]

    @property
    def app(self) -> Flask:
        return self.server.app

    def lift_pin_lockout(self) -> None:
        """The console lifts the PIN lockout (`uno-table unlock` signals the running table)."""
        self.app.extensions["uno_pin_guard"].lift()

    def close(self) -> None:
        self.server.close()


def start_dashboard(
    service: TableService,
    *,
    host: str = "0.0.0.0",
    port: int = 8000,
    pin: str | None = None,
    seat_tokens: dict[int, str] | Callable[[], dict[int, str]] | None = None,
    public_url: str | None = None,
    out: Callable[[str], None] | None = None,
    threads: int | None = None,
    sock: socket.socket | None = None,
    **app_options,
) -> Dashboard:
    """Serve the dashboard on waitress in a background thread and print how to reach it.

    seat_tokens: a dict, or a callable giving the current match's tokens (the app hub's).
    threads: the server's thread pool (dashboard.threads); live streams get all but
    RESERVED_THREADS of them. sock: a socket from `bind_dashboard` to serve on."""
    pin = pin or new_host_pin()
    tokens = seat_tokens or new_seat_tokens(MAX_SEATS)
    if threads is not None:
        app_options.setdefault("max_streams", max(1, threads - RESERVED_THREADS))
    app = create_app(service, host_pin=pin, seat_tokens=tokens, public_url=public_url, **app_options)
    if sock is not None:
        host = sock.getsockname()[0]
        server = BackgroundServer(app, host, 0, threads=threads, sockets=[sock]).start()
    else:
        server = BackgroundServer(app, host, port, threads=threads).start()
    if public_url is None:
        shown = lan_address() if host in ("0.0.0.0", "", "::") else host
        public_url = f"http://{shown}:{server.server.effective_port}"
        app.config["PUBLIC_URL"] = public_url  # QR codes carry the address phones can open
    # Flushed: under systemd or `> log` stdout is a pipe or a file, where a plain print waits
    # in a buffer and the URL and PIN would not show until much later.
    (out or _say)(f"Dashboard: {public_url}   host PIN: {pin}   (the Setup and Host pages ask for it)")
    return Dashboard(server=server, url=public_url, pin=pin, seat_tokens=app.config["SEAT_TOKENS"])
