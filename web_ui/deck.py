"""The Setup page's decks (`/setup/deck`): teach the table a deck from the table camera,
check the names of its cards (a tap changes one), fit it, and choose the deck in use.

The web layer only mirrors: everything is done by a `DeckService` the app hands over
(`app/deck_service.py`), so no vision code is imported here. Host only: every route needs
the host session, and every change the CSRF header.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

from flask import Flask, Response, jsonify, render_template

from table.errors import UnoTableError

from . import auth, validate
from .service import CommandRejected

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@runtime_checkable
class DeckService(Protocol):
    """What the app offers the deck page. Errors: an UnoTableError whose message says what
    is wrong (a ValueError one when the request itself is wrong)."""

    def decks(self) -> dict:
        """{"decks": [{"name", "cards", "faces", "missing", "doubled", "fitted", "stale",
        "compatible", "figures"}], "in_use": name or None, "job": job or None,
        "captures": {name: count}, "faces": [the 54 face names]}"""
        ...

    def deck(self, name: str) -> dict:
        """{"name", "cards": [{"row", "card", "confidence", "image"}], "summary": {...}}"""
        ...

    def crop(self, name: str, row: int) -> bytes:
        """The straightened card of row `row` (PNG bytes)."""
        ...

    def rename(self, name: str, row: int, card: str) -> dict:
        """Set the name of one enrolled card (cards.csv); the deck must be fitted again."""
        ...

    def capture(self, name: str) -> dict:
        """Keep the camera's newest frame as one photo of deck NAME laid out: {"captures": n}."""
        ...

    def clear_captures(self, name: str) -> dict:
        ...

    def learn(self, name: str, *, replace: bool, allow_missing: bool) -> dict:
        """Start learning deck NAME from its captures (a background job): the job."""
        ...

    def fit(self, name: str) -> dict:
        """Start fitting deck NAME (a background job): the job."""
        ...

    def job(self) -> dict | None:
        """{"kind", "deck", "state": running|done|failed, "stage", "done", "total", "message"}"""
        ...

    def use(self, name: str | None) -> dict:
        """Read with deck NAME from the next frame on (None: the generic model)."""
        ...

    def remove(self, name: str) -> dict:
        ...


def _name(name: str) -> str:
    if not NAME_RE.match(name or ""):
        raise CommandRejected(f"deck name {name!r}: use 1-40 letters, digits, '-', '_' or '.'")
    return name


def _call(fn, *args, **kwargs):
    try:
        return jsonify(fn(*args, **kwargs))
    except ValueError as exc:  # the request or the deck is wrong: nothing changed
        return auth.json_error(400, str(exc))
    except UnoTableError as exc:  # the table could not do it (camera, files)
        return auth.json_error(503, str(exc))


def register_decks(app: Flask, decks: DeckService | None) -> None:
    """Add the deck page and its API. Without a service the page says decks are not
    available here (a dashboard without a camera)."""

    @app.get("/setup/deck")
    def deck_page():
        return render_template("deck.html", page="setup_page", available=decks is not None)

    if decks is None:
        return

    @app.get("/api/decks")
    @auth.host_required
    def api_decks():
        return _call(decks.decks)

    @app.get("/api/decks/<name>")
    @auth.host_required
    def api_deck(name: str):
        return _call(decks.deck, _name(name))

    @app.get("/api/decks/<name>/crops/<int:row>.png")
    @auth.host_required
    def api_deck_crop(name: str, row: int):
        try:
            png = decks.crop(_name(name), row)
        except (ValueError, UnoTableError) as exc:
            return auth.json_error(404, str(exc))
        resp = Response(png, mimetype="image/png")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.post("/api/decks/<name>/cards/<int:row>")
    @auth.host_required
    def api_deck_rename(name: str, row: int):
        body = validate.json_body()
        card = body.get("card")
        if not isinstance(card, str):
            raise CommandRejected("'card' must be a card name like red-7")
        return _call(decks.rename, _name(name), row, card)

    @app.post("/api/decks/<name>/capture")
    @auth.host_required
    def api_deck_capture(name: str):
        return _call(decks.capture, _name(name))

    @app.delete("/api/decks/<name>/captures")
    @auth.host_required
    def api_deck_clear(name: str):
        return _call(decks.clear_captures, _name(name))

    @app.post("/api/decks/<name>/learn")
    @auth.host_required
    def api_deck_learn(name: str):
        body = validate.json_body()
        return _call(decks.learn, _name(name), replace=bool(body.get("replace")),
                     allow_missing=bool(body.get("allow_missing")))

    @app.post("/api/decks/<name>/fit")
    @auth.host_required
    def api_deck_fit(name: str):
        return _call(decks.fit, _name(name))

    @app.get("/api/decks-job")
    @auth.host_required
    def api_deck_job():
        return jsonify({"job": decks.job()})

    @app.post("/api/decks-use")
    @auth.host_required
    def api_deck_use():
        body = validate.json_body()
        name = body.get("deck")
        if name is not None and not isinstance(name, str):
            raise CommandRejected("'deck' must be a deck name or null (the generic model)")
        return _call(decks.use, None if not name else _name(name))

    @app.delete("/api/decks/<name>")
    @auth.host_required
    def api_deck_remove(name: str):
        return _call(decks.remove, _name(name))


__all__ = ["DeckService", "register_decks"]
