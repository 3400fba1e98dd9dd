"""Every dashboard endpoint through Flask's test client, against the in-memory table.

Refusals matter as much as successes: host actions without the PIN, with a bad CSRF token,
seat actions with another seat's token, malformed bodies; each gets a JSON error that says
what was wrong, and the table is unchanged.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from web_fakes import FakeTableService

from web_ui.app import create_app

PIN = "482913"
TOKENS = {0: "tok-seat-zero-aaaa", 1: "tok-seat-one-bbbbb", 2: "tok-seat-two-ccccc", 3: "tok-seat-three-ddd"}


@pytest.fixture
def service():
    return FakeTableService(seats=4, names=["Ana", "Ben", "Cy", "Dee"])


@pytest.fixture
def app(service):
    return create_app(service, host_pin=PIN, seat_tokens=TOKENS, public_url="http://192.168.1.20:8000")


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def host(client):
    """A test client logged in as host; returns (client, csrf)."""
    resp = client.post("/api/login", json={"pin": PIN})
    assert resp.status_code == 200
    return client, resp.get_json()["csrf"]


def post_host(client, csrf, body, **kw):
    return client.post("/api/host/command", json=body, headers={"X-CSRF-Token": csrf}, **kw)


def assert_unchanged(service, before_events, before_log):
    assert service.wait_events(0, 0) == before_events
    assert service.log_entries(seat=None, kind=None, limit=1000) == before_log


# ---------------------------------------------------------------- pages


@pytest.mark.parametrize(
    "path,marker",
    [
        ("/", b'id="top-card"'),
        ("/camera", b'src="/camera.mjpg"'),
        ("/scores", b'id="score-table"'),
        ("/log", b'id="log-filter"'),
        ("/login", b'id="login-form"'),
        ("/panel", b'id="seat-buttons"'),
    ],
)
def test_public_pages_render_with_local_assets_only(client, path, marker):
    resp = client.get(path)
    assert resp.status_code == 200
    assert marker in resp.data
    html = resp.data.decode()
    assert "http://" not in html.replace('xmlns="http://www.w3.org', "") and "https://" not in html
    assert "'self'" in resp.headers["Content-Security-Policy"]
    assert resp.headers["Referrer-Policy"] == "no-referrer"


def test_setup_and_host_pages_ask_for_the_pin_until_logged_in(client):
    for path in ("/setup", "/host"):
        resp = client.get(path)
        assert resp.status_code == 200
        assert b"Log in with the host PIN" in resp.data
        assert b"rules-form" not in resp.data and b"correct-form" not in resp.data
    client.post("/api/login", json={"pin": PIN})
    assert b'id="rules-form"' in client.get("/setup").data
    assert b'id="correct-form"' in client.get("/host").data


def test_seat_page_needs_its_own_token(client):
    ok = client.get(f"/seat/2?t={TOKENS[2]}")
    assert ok.status_code == 200
    assert f'data-seat-token="{TOKENS[2]}"'.encode() in ok.data
    assert client.get(f"/seat/2?t={TOKENS[1]}").status_code == 403
    assert client.get("/seat/2").status_code == 403
    assert client.get(f"/seat/9?t={TOKENS[2]}").status_code == 403


def test_static_assets_are_served(client):
    for name in ("app.js", "app.css", "table.js", "setup.js", "host.js", "seat.js", "panel.js", "scores.js", "log.js"):
        assert client.get(f"/static/{name}").status_code == 200, name


def test_unknown_api_path_is_a_json_404(client):
    resp = client.get("/api/nothing-here")
    assert resp.status_code == 404
    assert resp.is_json and resp.get_json()["status"] == 404


# ---------------------------------------------------------------- reads


def test_snapshot_and_events(client, service):
    service.submit({"kind": "start_round"}, source="host")
    service.submit({"kind": "play", "cards": ["red-7"], "seat": 0}, source="host")
    snap = client.get("/api/snapshot").get_json()
    assert snap["top_card"] == "red-7" and snap["current_colour"] == "red" and snap["seq"] == 2
    assert [s["name"] for s in snap["seats"]] == ["Ana", "Ben", "Cy", "Dee"]
    events = client.get("/api/events?after=1").get_json()["events"]
    assert [e["seq"] for e in events] == [2]
    assert events[0]["type"] == "play_accepted"
    assert client.get("/api/events?after=2&timeout=0").get_json()["events"] == []


@pytest.mark.parametrize("query", ["after=x", "after=-1", "timeout=99", "timeout=abc"])
def test_events_query_is_validated(client, query):
    resp = client.get(f"/api/events?{query}")
    assert resp.status_code == 400
    assert "query parameter" in resp.get_json()["error"]


def test_scores_json_csv_and_download(client, service):
    service.add_round([0, 35, 12, 8])
    service.add_round([20, 0, 5, 60])
    sc = client.get("/api/scores").get_json()  # the one scores shape: table.summary.MatchSummary
    assert sc["entrants"] == ["Ana", "Ben", "Cy", "Dee"]
    assert sc["totals"] == {"Ana": 20, "Ben": 35, "Cy": 17, "Dee": 68}
    assert [r["totals"]["Dee"] for r in sc["rounds"]] == [8, 68] and sc["rounds"][0]["winners"] == ["Ben"]
    resp = client.get("/api/scores.csv")
    assert resp.mimetype == "text/csv"
    assert "attachment" in resp.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(resp.data.decode())))  # the summary's own writer
    assert [r["round"] for r in rows] == ["1", "2", "total"]
    assert rows[0]["went_out"] == "Ben" and rows[0]["Ben points"] == "35" and rows[1]["Dee total"] == "68"
    assert [rows[2][f"{n} total"] for n in ("Ana", "Ben", "Cy", "Dee")] == ["20", "35", "17", "68"]
    dl = client.get("/api/scores.json")
    assert "attachment" in dl.headers["Content-Disposition"]
    assert json.loads(dl.data)["scores"]["totals"] == {"Ana": 20, "Ben": 35, "Cy": 17, "Dee": 68}


def test_log_filters_and_inferred_flag(client, service):
    service.submit({"kind": "start_round"}, source="host")
    service.submit({"kind": "play", "cards": ["red-7"]}, source="vision")  # seat inferred
    service.submit({"kind": "call_uno", "seat": 1}, source="seat:1")
    entries = client.get("/api/log").get_json()["entries"]
    assert [e["kind"] for e in entries] == ["start_round", "play", "call_uno"]
    assert [e["inferred"] for e in entries] == [False, True, False]
    only = client.get("/api/log?kind=call_uno").get_json()["entries"]
    assert [e["kind"] for e in only] == ["call_uno"]
    assert [e["seq"] for e in client.get("/api/log?seat=1").get_json()["entries"]] == [3]
    assert len(client.get("/api/log?limit=1").get_json()["entries"]) == 1


@pytest.mark.parametrize("query", ["seat=7", "seat=a", "limit=0", "kind=DROP%20TABLE"])
def test_log_query_is_validated(client, query):
    resp = client.get(f"/api/log?{query}")
    assert resp.status_code == 400
    assert resp.get_json()["error"]


def test_rules_have_schema_presets_and_current(client):
    rules = client.get("/api/rules").get_json()
    assert rules["current"]["players"] == 4
    assert {p["name"] for p in rules["presets"]} >= {"official", "two-player"}
    assert "house" in rules["schema"]["properties"]


def test_hardware_and_qr_codes(client):
    hw = client.get("/api/hardware").get_json()["hardware"]
    assert hw["colours"] == ["red", "yellow", "green", "blue"]
    assert all(p["text"] for p in hw["patterns"])
    svg = client.get("/qr/join.svg")
    assert svg.mimetype == "image/svg+xml" and b"<svg" in svg.data


def test_seat_qr_codes_are_for_the_host_only(client):
    assert client.get("/qr/seat/1.svg").status_code == 401
    assert client.get("/api/host/seats").status_code == 401
    client.post("/api/login", json={"pin": PIN})
    assert b"<svg" in client.get("/qr/seat/1.svg").data
    assert client.get("/qr/seat/8.svg").status_code == 404
    seats = client.get("/api/host/seats").get_json()["seats"]
    assert seats[1]["url"] == f"http://192.168.1.20:8000/seat/1?t={TOKENS[1]}"


def test_camera_snapshot_and_healthz(client, service):
    assert client.get("/camera.jpg").status_code == 404
    service.push_frame(b"\xff\xd8jpeg-bytes\xff\xd9")
    resp = client.get("/camera.jpg")
    assert resp.status_code == 200 and resp.mimetype == "image/jpeg"
    assert resp.data == b"\xff\xd8jpeg-bytes\xff\xd9" and resp.headers["X-Frame-Number"] == "1"
    assert client.get("/healthz").get_json()["ok"] is True


# ---------------------------------------------------------------- host login and commands


def test_wrong_pin_is_refused_and_throttled(app):
    client = app.test_client()
    for _ in range(5):
        resp = client.post("/api/login", json={"pin": "000000"})
        assert resp.status_code == 403 and "wrong PIN" in resp.get_json()["error"]
    resp = client.post("/api/login", json={"pin": PIN})  # even the right PIN waits now
    assert resp.status_code == 429 and "Retry-After" in resp.headers
    assert client.get("/api/session").get_json()["host"] is False


@pytest.mark.parametrize("body", [{"pin": 482913}, {}, {"pin": ""}])
def test_login_body_is_validated(client, body):
    resp = client.post("/api/login", json=body)
    assert resp.status_code == 400 and "'pin'" in resp.get_json()["error"]


def test_host_command_without_pin_is_refused_and_changes_nothing(client, service):
    before = service.wait_events(0, 0), service.log_entries(seat=None, kind=None, limit=1000)
    resp = client.post("/api/host/command", json={"kind": "start_round"})
    assert resp.status_code == 401 and "PIN" in resp.get_json()["error"]
    assert_unchanged(service, *before)
    assert service.submitted == []


@pytest.mark.parametrize("headers", [{}, {"X-CSRF-Token": "forged"}])
def test_host_command_with_bad_csrf_is_refused(host, service, headers):
    client, _ = host
    resp = client.post("/api/host/command", json={"kind": "start_round"}, headers=headers)
    assert resp.status_code == 403 and "X-CSRF-Token" in resp.get_json()["error"]
    assert service.submitted == []


def test_logout_ends_the_host_session(host):
    client, csrf = host
    client.post("/api/logout")
    assert post_host(client, csrf, {"kind": "start_round"}).status_code == 401


def test_host_commands_reach_the_table(host, service):
    client, csrf = host
    for kind in ("start", "pause", "resume"):
        assert post_host(client, csrf, {"kind": kind}).status_code == 200
        assert ({"kind": kind}, "host") in service.submitted
    resp = post_host(client, csrf, {"kind": "play", "cards": ["blue-3"], "seat": 0})
    assert resp.status_code == 200 and resp.get_json()["ok"] is True
    assert service.submitted[-1] == ({"kind": "play", "cards": ["blue-3"], "seat": 0}, "host")
    assert client.get("/api/snapshot").get_json()["top_card"] == "blue-3"


def test_host_correction_amends_a_logged_card(host, service):
    client, csrf = host
    post_host(client, csrf, {"kind": "start_round"})
    post_host(client, csrf, {"kind": "play", "cards": ["blue-3"], "seat": 0})
    resp = post_host(client, csrf, {"kind": "amend", "target": 2, "input": {"kind": "play", "cards": ["blue-8"], "seat": 0}})
    assert resp.status_code == 200
    assert client.get("/api/snapshot").get_json()["top_card"] == "blue-8"
    assert post_host(client, csrf, {"kind": "undo"}).status_code == 200
    assert client.get("/api/snapshot").get_json()["top_card"] is None


def test_setup_and_rules_change(host, service):
    client, csrf = host
    rules = client.get("/api/rules").get_json()["current"]
    rules["players"] = 3
    rules["uno"]["strict"] = True
    players = [{"seat": i, "name": n} for i, n in enumerate(["A", "B", "C"])]
    resp = post_host(client, csrf, {"kind": "setup", "players": players, "preset": "official", "rules": rules})
    assert resp.status_code == 200, resp.get_json()
    assert client.get("/api/rules").get_json()["current"]["uno"]["strict"] is True
    assert [s["name"] for s in client.get("/api/snapshot").get_json()["seats"]] == ["A", "B", "C"]


@pytest.mark.parametrize(
    "body,message",
    [
        ({"kind": "play", "cards": ["red-99"]}, "unknown card 'red-99'"),
        ({"kind": "teleport"}, "unknown input kind"),
        ({"kind": "host_penalty", "seat": 1, "count": 50}, "count"),
        ({"kind": "rules", "rules": {"players": 11}}, "players"),
        ({"kind": "setup", "players": [{"seat": 0, "name": "A"}], "rules": {"players": 2}}, "players"),
        ({"kind": "end-round"}, "a round ends when a seat goes out"),
    ],
)
def test_commands_the_table_refuses_get_its_reason(host, service, body, message):
    client, csrf = host
    before = service.wait_events(0, 0), service.log_entries(seat=None, kind=None, limit=1000)
    resp = post_host(client, csrf, body)
    assert resp.status_code == 400
    assert message in resp.get_json()["error"]
    assert_unchanged(service, *before)


@pytest.mark.parametrize(
    "raw,content_type,message",
    [
        ("not json", "application/json", "not valid JSON"),
        ("[1, 2]", "application/json", "JSON object"),
        ('{"kind": "undo"}', "text/plain", "must be JSON"),
        ("{}", "application/json", "'kind'"),
        ('{"kind": 5}', "application/json", "'kind'"),
        ('{"kind": "Undo Now"}', "application/json", "'kind'"),
        ('{"kind": "amend", "input": {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}}', "application/json", "nested"),
        ('{"kind": "host_penalty", "reason": "' + "x" * 600 + '"}', "application/json", "longer than"),
    ],
)
def test_malformed_host_requests_are_refused_before_the_table(host, service, raw, content_type, message):
    client, csrf = host
    resp = client.post("/api/host/command", data=raw, content_type=content_type, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 400
    assert message in resp.get_json()["error"]
    assert service.submitted == []


def test_oversized_body_is_refused(host, service):
    client, csrf = host
    resp = client.post("/api/host/command", data="x" * 70000, content_type="application/json", headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 413 and resp.is_json
    assert service.submitted == []


# ---------------------------------------------------------------- seat controllers


def seat_post(client, seat, body, token):
    return client.post(f"/api/seat/{seat}/action", json=body, headers={"X-Seat-Token": token})


@pytest.mark.parametrize(
    "body,expected",
    [
        ({"action": "uno"}, {"kind": "call_uno", "seat": 2}),
        ({"action": "catch"}, {"kind": "catch", "seat": 2}),
        ({"action": "challenge"}, {"kind": "challenge", "challenge": True, "seat": 2}),
        ({"action": "accept"}, {"kind": "challenge", "challenge": False, "seat": 2}),
        ({"action": "pass"}, {"kind": "pass", "seat": 2}),
        ({"action": "draw"}, {"kind": "draw", "seat": 2}),
        ({"action": "colour", "colour": "green"}, {"kind": "colour", "colour": "green", "seat": 2}),
    ],
)
def test_seat_actions_become_referee_inputs_for_that_seat(client, service, body, expected):
    service.submit({"kind": "start_round"}, source="host")
    resp = seat_post(client, 2, body, TOKENS[2])
    assert resp.status_code == 200, resp.get_json()
    assert service.submitted[-1] == (expected, "seat:2")


def test_seat_token_of_another_seat_is_refused(client, service):
    for token in (TOKENS[1], "", "guess"):
        resp = seat_post(client, 2, {"action": "uno"}, token)
        assert resp.status_code == 403 and "seat 2" in resp.get_json()["error"]
    assert seat_post(client, 7, {"action": "uno"}, TOKENS[2]).status_code == 404
    assert service.submitted == []


@pytest.mark.parametrize(
    "body,message",
    [
        ({"action": "fly"}, "'action'"),
        ({"action": ["uno"]}, "'action'"),
        ({"action": "colour"}, "'colour'"),
        ({"action": "colour", "colour": "purple"}, "'colour'"),
        ({"action": "uno", "colour": "red"}, "only for the colour action"),
        ({"action": "uno", "seat": 0}, "unexpected field"),
    ],
)
def test_malformed_seat_actions_are_refused(client, service, body, message):
    resp = seat_post(client, 2, body, TOKENS[2])
    assert resp.status_code == 400 and message in resp.get_json()["error"]
    assert service.submitted == []


# ---------------------------------------------------------------- virtual panel


def test_panel_press_needs_host_and_reaches_the_table(client, service):
    assert client.post("/api/panel/press", json={"target": "seat:1", "gesture": "press"}).status_code == 401
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    resp = client.post("/api/panel/press", json={"target": "seat:1", "gesture": "hold"}, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 200
    assert service.presses == [("seat:1", "hold")]
    assert service.submitted[-1] == ({"kind": "gesture", "seat": 1, "gesture": "hold"}, "virtual-panel")


@pytest.mark.parametrize(
    "body,message",
    [
        ({"target": "seat:9"}, "seat must be"),
        ({"target": "colour:pink"}, "colour must be"),
        ({"target": "door:1"}, "'target'"),
        ({"target": "seat:1", "gesture": "kick"}, "'gesture'"),
    ],
)
def test_panel_press_is_validated(host, service, body, message):
    client, csrf = host
    resp = client.post("/api/panel/press", json=body, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 400 and message in resp.get_json()["error"]
    assert service.presses == []


def test_panel_is_off_with_real_gpio():
    svc = FakeTableService(hardware=False)
    client = create_app(svc, host_pin=PIN, seat_tokens=TOKENS).test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    assert client.get("/api/hardware").get_json()["hardware"] is None
    resp = client.post("/api/panel/press", json={"target": "seat:1"}, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 409


def test_create_app_refuses_a_short_pin():
    with pytest.raises(ValueError, match="host_pin"):
        create_app(FakeTableService(), host_pin="12", seat_tokens=TOKENS)


def test_long_polls_take_stream_slots():
    svc = FakeTableService()
    app = create_app(svc, host_pin=PIN, seat_tokens=TOKENS, max_streams=1)
    slots = app.extensions["uno_stream_slots"]
    assert slots.acquire()  # someone holds the only live slot
    client = app.test_client()
    resp = client.get("/api/events?after=0&timeout=5")
    assert resp.status_code == 503 and resp.headers["Retry-After"]
    assert client.get("/api/events?after=0").status_code == 200  # a plain poll never waits
    slots.release()
    svc.emit("notice", {"text": "x"})
    assert client.get("/api/events?after=0&timeout=5").get_json()["events"][0]["seq"] == 1
    assert slots.open == 0


def test_seat_join_codes_cover_the_seats_in_play():
    svc = FakeTableService(seats=3)
    tokens = {i: f"token-{i}-xxxxxx" for i in range(10)}
    client = create_app(svc, host_pin=PIN, seat_tokens=tokens).test_client()
    client.post("/api/login", json={"pin": PIN})
    assert [s["seat"] for s in client.get("/api/host/seats").get_json()["seats"]] == [0, 1, 2]


def test_camera_status(client, service):
    assert client.get("/api/camera").get_json() == {"frame": None}
    service.push_frame(b"\xff\xd8x\xff\xd9")
    assert client.get("/api/camera").get_json() == {"frame": 1}
