"""Start the dashboard for a running table: one call for the app hub (`uno-table run/demo`).

    handle = start_dashboard(hub, port=8000)      # prints the URL and the host PIN
    ...
    handle.close()                                # ends open streams, stops the server
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass

from .app import create_app
from .auth import new_seat_tokens
from .server import BackgroundServer
from .service import TableService

MAX_SEATS = 10  # RULES.md S1: a setup may grow the table to 10 seats without new QR codes


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


@dataclass
class Dashboard:
    server: BackgroundServer
    url: str
    pin: str
    seat_tokens: dict[int, str]

    def close(self) -> None:
        self.server.close()


def start_dashboard(
    service: TableService,
    *,
    host: str = "0.0.0.0",
    port: int = 8000,
    pin: str | None = None,
    seat_tokens: dict[int, str] | None = None,
    public_url: str | None = None,
    out: Callable[[str], None] = print,
    **app_options,
) -> Dashboard:
    """Serve the dashboard on waitress in a background thread and print how to reach it."""
    pin = pin or new_host_pin()
    tokens = seat_tokens or new_seat_tokens(MAX_SEATS)
    app = create_app(service, host_pin=pin, seat_tokens=tokens, public_url=public_url, **app_options)
    server = BackgroundServer(app, host, port).start()
    if public_url is None:
        shown = lan_address() if host in ("0.0.0.0", "") else host
        public_url = f"http://{shown}:{server.server.effective_port}"
        app.config["PUBLIC_URL"] = public_url  # QR codes carry the address phones can open
    out(f"Dashboard: {public_url}   host PIN: {pin}   (the Setup and Host pages ask for it)")
    return Dashboard(server=server, url=public_url, pin=pin, seat_tokens=tokens)
