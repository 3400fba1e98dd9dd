"""The league dashboard: one page for a phone or a TV with every table live, each table's
round and whose turn, the standings (a two-table match and a club), and a link to each
table's own dashboard. A Flask blueprint over a `LeagueView` (duck-typed: `overview()`
returns JSON-ready data); `create_league_app` serves it alone, with the same headers and
static files as a table's dashboard. No game logic: the standings come computed.
"""

from __future__ import annotations

from typing import Any, Protocol

from flask import Blueprint, Flask, Response, jsonify, render_template

from .app import CSP


class LeagueView(Protocol):
    def overview(self) -> dict[str, Any]: ...


def league_blueprint(view: LeagueView, *, refresh: float = 2.0) -> Blueprint:
    bp = Blueprint("league", __name__)

    @bp.get("/")
    def league_page():
        return render_template("league.html", refresh=refresh)

    @bp.get("/api/league")
    def api_league():
        return jsonify(view.overview())

    @bp.get("/healthz")
    def healthz():
        return jsonify({"ok": True})

    return bp


def create_league_app(view: LeagueView, *, refresh: float = 2.0) -> Flask:
    app = Flask(__name__)
    app.json.sort_keys = False
    app.register_blueprint(league_blueprint(view, refresh=refresh))

    @app.after_request
    def headers(resp: Response):
        resp.headers.setdefault("Content-Security-Policy", CSP)
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    return app


def start_league_dashboard(view: LeagueView, *, host: str = "0.0.0.0", port: int = 8000, out=print):
    """Serve the league page on waitress in the background; returns the server (`.close()`)."""
    from .launch import lan_address
    from .server import BackgroundServer

    server = BackgroundServer(create_league_app(view), host, port).start()
    shown = lan_address() if host in ("0.0.0.0", "") else host
    server.public_url = f"http://{shown}:{server.server.effective_port}"
    out(f"League page: {server.public_url}")
    return server
