"""Instant replay and the host's questions: the clip behind a camera entry of the log, its
frames and card crops, and the list of readings the table is unsure of.

The clip's frames are plain JPEGs that the page plays one after another on a canvas, with
the boxes and names drawn over them: no plug-in, no CDN. The table's service offers
`replay_clip(entry)`, `replay_frame(entry, i)`, `replay_crop(entry, i)` and `questions()`
(app/hub.py); a service without them (a table with replay off) answers 404 saying so.
Answers and marks are host commands (`answer`, `mark`) through /api/host/command.

    GET /api/replay/<entry>                  clip JSON; 202 still recording, 404 none, 410 pruned
    GET /api/replay/<entry>/frame/<i>.jpg    one frame of the clip
    GET /api/replay/<entry>/crop/<i>.jpg     the crop of card i as read
    GET /api/questions?all=1                 host: the open questions (all=1: answered too)
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from . import auth

replay_bp = Blueprint("replay", __name__)

#: HTTP status of each clip state ("says so": the body holds the message either way).
STATUS = {"ok": 200, "recording": 202, "none": 404, "off": 404, "pruned": 410}
MAX_ENTRY = 10**9


def _service():
    return current_app.extensions["uno_service"]


def _offers(name: str):
    return getattr(_service(), name, None)


@replay_bp.get("/api/replay/<int:entry>")
def replay_clip(entry: int):
    fn = _offers("replay_clip")
    if fn is None:
        return auth.json_error(404, "replay is not available on this table")
    if not 0 < entry <= MAX_ENTRY:
        return auth.json_error(404, f"log entry {entry} does not exist")
    clip = fn(entry)
    code = STATUS.get(clip.get("state"), 404)
    if code >= 400:
        # The error shape of every API error ({"error", "status": N}), with what is known.
        body = {**clip, "error": clip.get("message") or "no clip", "status": code}
        return jsonify(body), code
    resp = jsonify(clip)
    resp.status_code = code
    return resp


def _jpeg(name: str, entry: int, index: int, what: str):
    fn = _offers(name)
    if fn is None:
        return auth.json_error(404, "replay is not available on this table")
    data = fn(entry, index) if 0 < entry <= MAX_ENTRY and 0 <= index < 100_000 else None
    if data is None:
        return auth.json_error(404, f"entry {entry} has no {what} {index} (no clip, or it was pruned)")
    resp = Response(data, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=600"
    return resp


@replay_bp.get("/api/replay/<int:entry>/frame/<int:index>.jpg")
def replay_frame(entry: int, index: int):
    return _jpeg("replay_frame", entry, index, "frame")


@replay_bp.get("/api/replay/<int:entry>/crop/<int:index>.jpg")
def replay_crop(entry: int, index: int):
    return _jpeg("replay_crop", entry, index, "card crop")


@replay_bp.get("/api/questions")
@auth.host_required
def questions():
    fn = _offers("questions")
    if fn is None:
        return jsonify({"questions": []})
    return jsonify({"questions": fn(include_closed=request.args.get("all") == "1")})
