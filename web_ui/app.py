"""The Flask app: pages, the JSON API, the live channel and the camera stream.

It holds no game logic: reads come from the TableService, changes go through
`service.submit` (which validates and logs) and nothing else.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from urllib.parse import quote

from flask import Flask, Response, abort, jsonify, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from table.errors import UnoTableError
from table.summary import MatchSummary

from . import auth, security, validate
from .qr import qr_svg
from .replay import replay_bp
from .service import CommandRejected, TableService
from .stream import StreamSlots, event_stream, mjpeg_stream

# Content-Security-Policy: everything from this server, nothing inline, nothing remote.
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
PAGES = [
    ("table_page", "Table"),
    ("camera_page", "Camera"),
    ("scores_page", "Scores"),
    ("log_page", "Log"),
    ("setup_page", "Setup"),
    ("host_page", "Host"),
    ("panel_page", "Panel"),
]


def create_app(
    service: TableService,
    *,
    host_pin: str,
    seat_tokens: dict[int, str],
    public_url: str | None = None,
    max_streams: int = 90,
    max_camera_streams: int = 8,
    heartbeat: float = 10.0,
    state_interval: float = 1.0,
    max_stream_age: float = 900.0,
    secret_key: str | None = None,
    login_limit: int = 5,
    allowed_hosts: list[str] | None = None,
    pin_guard: security.PinGuard | None = None,
    events_page: int = 500,
    deck_service=None,
) -> Flask:
    """Build the dashboard for one table.

    host_pin: the PIN the app printed on the console; seat_tokens: {seat: token} carried by
    each seat's QR code; public_url: how phones reach this server (e.g.
    "http://192.168.1.20:8000"), used in QR codes; default: the URL of the request.
    max_streams: live streams held at once (keep below the server's thread count).
    max_stream_age: a live stream is ended after this many seconds; the browser reconnects
    and resumes from its Last-Event-ID, so a phone that vanished without closing its socket
    cannot hold a thread for longer than this.
    seat_tokens may be a callable returning the current match's tokens (the app hub's
    `seat_tokens`): then a new match's links replace the last match's.
    allowed_hosts: names the Host header may carry besides IP addresses, localhost and this
    machine's names ("*" allows any; web_ui/security.py HostCheck).
    deck_service: the decks taught to the table (web_ui/deck.py `DeckService`), for the Setup
    page's decks (/setup/deck); None: that page says they are not available here.
    """
    if not isinstance(host_pin, str) or len(host_pin) < 4:
        raise ValueError("host_pin must be a string of at least 4 characters")
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_hex(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
        HOST_PIN=host_pin,
        SEAT_TOKENS=(
            auth.LiveSeatTokens(seat_tokens) if callable(seat_tokens)
            else {int(k): v for k, v in seat_tokens.items()}
        ),
        PUBLIC_URL=public_url.rstrip("/") if public_url else None,
    )
    app.json.sort_keys = False  # keep the service's own key order (seq, type, payload)
    app.extensions["uno_service"] = service
    app.register_blueprint(replay_bp)  # instant replay and the host's questions (web_ui/replay.py)
    slots = StreamSlots(max_streams)
    camera_slots = StreamSlots(max_camera_streams)
    guard = pin_guard or security.PinGuard(per_address=login_limit)
    sessions = security.HostSessions()
    app.extensions["uno_pin_guard"] = guard
    app.extensions["uno_host_sessions"] = sessions
    hosts = security.HostCheck(allowed_hosts, extra=[h for h in [security.host_of(public_url)] if h])
    app.extensions["uno_host_check"] = hosts
    app.extensions["uno_stream_slots"] = slots
    app.extensions["uno_camera_slots"] = camera_slots
    # Set by the server on shutdown: every open stream ends at its next wake-up (<= 1 s).
    stopping = threading.Event()
    app.extensions["uno_stopping"] = stopping

    def base_url() -> str:
        return app.config["PUBLIC_URL"] or request.host_url.rstrip("/")

    def seat_url(seat: int) -> str:
        token = app.config["SEAT_TOKENS"][seat]
        return f"{base_url()}/seat/{seat}?t={quote(token)}"

    def disconnected_check():
        # waitress tells a running task when its client hung up (channel_request_lookahead>0)
        gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
        return lambda: stopping.is_set() or gone()

    # ---------------------------------------------------------------- page plumbing

    @app.before_request
    def known_host():
        # DNS rebinding: a page on another name whose DNS now points here must not reach us.
        if not hosts.allows(request.headers.get("Host")):
            return auth.json_error(400, "unknown Host header: open the table by its address or name")
        return None

    @app.context_processor
    def page_globals():
        return {
            "nav": PAGES,
            "is_host": auth.is_host(),
            "csrf": auth.csrf_token() or "",
        }

    @app.after_request
    def security_headers(resp: Response):
        resp.headers.setdefault("Content-Security-Policy", CSP)
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        # Seat links carry their token in the URL: never leak it in a Referer.
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        if request.path.startswith("/api/") and "Cache-Control" not in resp.headers:
            resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if request.path.startswith("/api/") or request.is_json:
            return auth.json_error(exc.code or 500, exc.description or exc.name)
        return (
            render_template("error.html", code=exc.code, message=exc.description, page="error"),
            exc.code or 500,
        )

    @app.errorhandler(CommandRejected)
    def rejected(exc: CommandRejected):
        return auth.json_error(400, str(exc))

    # ---------------------------------------------------------------- pages

    def page(template: str, name: str, **kw):
        return render_template(template, page=name, **kw)

    @app.get("/")
    def table_page():
        return page("table.html", "table_page")

    @app.get("/camera")
    def camera_page():
        return page("camera.html", "camera_page")

    @app.get("/scores")
    def scores_page():
        return page("scores.html", "scores_page")

    @app.get("/log")
    def log_page():
        return page("log.html", "log_page")

    @app.get("/setup")
    def setup_page():
        return page("setup.html", "setup_page")

    @app.get("/host")
    def host_page():
        seats = sorted(app.config["SEAT_TOKENS"])
        return page("host.html", "host_page", seats=seats)

    @app.get("/panel")
    def panel_page():
        return page("panel.html", "panel_page")

    @app.get("/seat/<int:seat>")
    def seat_page(seat: int):
        token = request.args.get("t")
        auth.seat_for_page(seat, token)
        return page("seat.html", "seat_page", seat=seat, token=token)

    @app.get("/login")
    def login_page():
        return page("login.html", "login_page", next=security.safe_next(request.args.get("next")))

    # ---------------------------------------------------------------- QR codes

    @app.get("/qr/join.svg")
    def qr_join():
        return Response(qr_svg(base_url() + "/"), mimetype="image/svg+xml")

    @app.get("/qr/seat/<int:seat>.svg")
    def qr_seat(seat: int):
        if not auth.is_host():
            return auth.json_error(401, "host PIN required to see seat join codes")
        if seat not in app.config["SEAT_TOKENS"]:
            abort(404, description=f"no seat {seat}")
        resp = Response(qr_svg(seat_url(seat)), mimetype="image/svg+xml")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    # ---------------------------------------------------------------- read API

    @app.get("/api/snapshot")
    def api_snapshot():
        return jsonify(service.snapshot())

    @app.get("/api/events")
    def api_events():
        # Long-poll fallback for clients without EventSource (and for scripts).
        after = validate.query_int("after", default=0, low=0, high=2**62)
        timeout = validate.query_float("timeout", default=0.0, low=0.0, high=25.0)
        limit = validate.query_int("limit", default=events_page, low=1, high=events_page)

        def page_of(events: list[dict]):
            # One page at a time: the next starts after the last seq given ("more": true).
            return jsonify({"events": events[:limit], "more": len(events) > limit})

        if timeout == 0:
            return page_of(service.wait_events(after, 0.0))
        # A waiting long-poll holds a thread like a stream does: it takes a stream slot.
        if not slots.acquire():
            resp, status = auth.json_error(503, "too many live clients; retry shortly")
            resp.headers["Retry-After"] = "5"
            return resp, status
        try:
            return page_of(service.wait_events(after, timeout))
        finally:
            slots.release()

    @app.get("/api/stream")
    def api_stream():
        header = request.headers.get("Last-Event-ID")
        raw = header if header not in (None, "") else request.args.get("after")
        after = None
        if raw not in (None, ""):
            try:
                after = int(raw)
            except ValueError:
                raise CommandRejected(
                    f"Last-Event-ID / 'after' must be an event number, got {raw!r}"
                ) from None
            if after < 0:
                raise CommandRejected(f"Last-Event-ID / 'after' must be >= 0, got {after}")
        if not slots.acquire():
            resp, status = auth.json_error(503, "too many live streams open; retry shortly")
            resp.headers["Retry-After"] = "5"
            return resp, status
        gen = event_stream(
            service,
            after=after,
            disconnected=disconnected_check(),
            heartbeat=heartbeat,
            state_interval=state_interval,
            max_age=max_stream_age,
        )
        resp = Response(gen, mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Accel-Buffering"] = "no"
        resp.call_on_close(slots.release)
        return resp

    @app.get("/api/scores")
    def api_scores():
        return jsonify(service.scores())

    @app.get("/api/scores.csv")
    def api_scores_csv():
        # the one CSV writer (table/summary.py): names, formula-safe cells
        resp = Response(MatchSummary.model_validate(service.scores()).to_csv(), mimetype="text/csv")
        resp.headers["Content-Disposition"] = 'attachment; filename="uno-match.csv"'
        return resp

    @app.get("/api/scores.json")
    def api_scores_json():
        body = json.dumps(
            {"scores": service.scores(), "exported": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
            indent=2,
        )
        resp = Response(body, mimetype="application/json")
        resp.headers["Content-Disposition"] = 'attachment; filename="uno-match.json"'
        return resp

    @app.get("/api/log")
    def api_log():
        seats = len(app.config["SEAT_TOKENS"])
        seat = validate.query_int("seat", default=None, low=0, high=max(seats - 1, 0))
        kind = request.args.get("kind") or None
        if kind is not None and not validate.KIND_RE.match(kind):
            raise CommandRejected(f"query parameter 'kind' must be a short lowercase name, got {kind!r}")
        limit = validate.query_int("limit", default=200, low=1, high=5000)
        return jsonify({"entries": service.log_entries(seat=seat, kind=kind, limit=limit)})

    @app.get("/api/rules")
    def api_rules():
        return jsonify(service.rules())

    @app.get("/api/hardware")
    def api_hardware():
        return jsonify({"hardware": service.hardware()})

    @app.get("/api/session")
    def api_session():
        return jsonify({"host": auth.is_host(), "csrf": auth.csrf_token()})

    @app.get("/healthz")
    def healthz():
        return jsonify({"ok": True, "streams": slots.open, "camera_streams": camera_slots.open})

    # ---------------------------------------------------------------- camera

    @app.get("/camera.mjpg")
    def camera_mjpg():
        if not camera_slots.acquire():
            return auth.json_error(503, "too many camera viewers; retry shortly")
        gen = mjpeg_stream(service, disconnected=disconnected_check())
        resp = Response(gen, mimetype="multipart/x-mixed-replace; boundary=frame")
        resp.headers["Cache-Control"] = "no-store"
        resp.call_on_close(camera_slots.release)
        return resp

    @app.get("/api/camera")
    def api_camera():
        got = service.latest_frame(-1, 0.0)
        return jsonify({"frame": got[0] if got else None})

    @app.get("/camera.jpg")
    def camera_jpg():
        got = service.latest_frame(-1, 0.5)
        if got is None:
            return auth.json_error(404, "no camera frame yet (no camera, or it has not started)")
        resp = Response(got[1], mimetype="image/jpeg")
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["X-Frame-Number"] = str(got[0])
        return resp

    # ---------------------------------------------------------------- host and seats

    @app.post("/api/login")
    def api_login():
        from .guard import client_key

        addr = client_key(request.remote_addr or "?")
        blocked = guard.check(addr)
        if blocked is not None:
            wait, why = blocked
            if wait == float("inf"):
                return auth.json_error(423, why)
            resp, status = auth.json_error(429, f"{why}; wait {wait:.0f} s")
            resp.headers["Retry-After"] = str(int(wait) + 1)
            return resp, status
        body = validate.json_body()
        pin = body.get("pin")
        if not isinstance(pin, str) or not pin:
            raise CommandRejected("'pin' must be the host PIN as text")
        if not auth.pin_matches(pin.strip(), app.config["HOST_PIN"]):
            guard.failed(addr)
            return auth.json_error(403, "wrong PIN (it is printed on the table's console)")
        guard.succeeded(addr)
        return jsonify({"host": True, "csrf": auth.log_in_host()})

    @app.post("/api/logout")
    def api_logout():
        auth.log_out_host()  # the session id is revoked: a copied cookie is dead too
        return jsonify({"host": False})

    @app.post("/api/host/pin")
    @auth.host_required
    def api_host_pin():
        pin = validate.json_body().get("pin")
        if not isinstance(pin, str) or not validate.PIN_RE.match(pin):
            raise CommandRejected("'pin' must be 4 to 8 digits")
        change_pin(pin)
        return jsonify({"host": True, "csrf": auth.log_in_host()})

    def change_pin(pin: str) -> int:
        """A new host PIN ends every host session (a leaked PIN or cookie stops working)."""
        app.config["HOST_PIN"] = pin
        return sessions.revoke_all()

    app.extensions["uno_change_pin"] = change_pin

    def submit(cmd: dict, source: str):
        try:
            result = service.submit(cmd, source=source)
        except ValueError as exc:  # the table refused it: nothing changed
            return auth.json_error(400, str(exc), kind=cmd.get("kind"))
        except UnoTableError as exc:  # the table could not act (log, device): not the user's fault
            return auth.json_error(503, str(exc), kind=cmd.get("kind"))
        return jsonify({"ok": True, "result": result})

    @app.post("/api/host/command")
    @auth.host_required
    def api_host_command():
        return submit(validate.command(validate.json_body()), "host")

    @app.get("/api/host/seats")
    @auth.host_required
    def api_host_seats():
        playing = len(service.snapshot().get("seats") or []) or len(app.config["SEAT_TOKENS"])
        seats = [s for s in sorted(app.config["SEAT_TOKENS"]) if s < playing]
        return jsonify(
            {"seats": [{"seat": s, "url": seat_url(s), "qr": url_for("qr_seat", seat=s)} for s in seats]}
        )

    @app.post("/api/seat/<int:seat>/action")
    @auth.seat_required
    def api_seat_action(seat: int):
        return submit(validate.seat_action(seat, validate.json_body()), f"seat:{seat}")

    @app.post("/api/panel/press")
    @auth.host_required
    def api_panel_press():
        if service.hardware() is None:
            return auth.json_error(409, "real GPIO in use: the virtual panel is off")
        target, gesture = validate.panel_press(
            validate.json_body(), len(app.config["SEAT_TOKENS"])
        )
        try:
            result = service.press(target, gesture)
        except ValueError as exc:
            return auth.json_error(400, str(exc))
        return jsonify({"ok": True, "result": result})

    from .deck import register_decks

    register_decks(app, deck_service)
    return app
