"""Items 10-12 of issue 16: host inputs with Infinity or 10^100, shapes that gave 500s,
a CSV that a spreadsheet runs as a formula, and an events endpoint that returned the whole
history at once. Against the real hub and its SQLite log."""

from __future__ import annotations

import csv
import io
import json

import pytest

from app.hub import TableHub
from table.inputs import InputError, parse_input
from table.log import EventLog
from table.rules import load_rules
from web_ui.app import create_app

PIN = "777123"
TOKENS = {i: f"tok-{i}-inputs-xxxxx" for i in range(10)}


def strict_json(text: str):
    """What a browser's JSON.parse accepts: no NaN, Infinity or -Infinity."""

    def refuse(name):
        raise ValueError(f"{name} in the server's JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def table(tmp_path):
    rules = load_rules("official", overrides={"players": 3})
    hub = TableHub(EventLog(tmp_path / "m.db", rules), ["Ana", "Ben", "Cleo"], match_dir=tmp_path).start()
    client = create_app(hub, host_pin=PIN, seat_tokens=TOKENS).test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    for body in ({"kind": "start_round", "dealer": 0}, {"kind": "flip", "card": "red-5"}):
        assert client.post("/api/host/command", json=body, headers={"X-CSRF-Token": csrf}).status_code == 200
    yield hub, client, csrf
    hub.close()


def raw_post(client, path, text, csrf=None):
    headers = {"Content-Type": "application/json"}
    if csrf:
        headers["X-CSRF-Token"] = csrf
    return client.post(path, data=text, headers=headers)


# ----------------------------------------------------------------------------- item 10

NON_FINITE = [
    '{"kind": "call_uno", "seat": 1, "at": Infinity}',
    '{"kind": "call_uno", "seat": 1, "at": 1e400}',
    '{"kind": "catch", "seat": 1, "at": 1e100}',
    '{"kind": "tick", "at": NaN}',
    '{"kind": "tick", "at": 1e100}',
    '{"kind": "gesture", "seat": 0, "gesture": "press", "at": -Infinity}',
    '{"kind": "play", "cards": ["red-7"], "frame": 1e100}',
    '{"kind": "play", "cards": ["red-7"], "at": 1e300}',
    '{"kind": "play", "cards": ["red-7"], "frame": 100000000000000000000000000000}',
]


@pytest.mark.parametrize("body", NON_FINITE)
def test_non_finite_or_huge_numbers_are_refused_and_the_log_stays_readable(table, body):
    hub, client, csrf = table
    before = len(hub.log)
    resp = raw_post(client, "/api/host/command", body, csrf)
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert len(hub.log) == before
    strict_json(client.get("/api/log").get_data(as_text=True))


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "call_uno", "seat": 1, "at": float("inf")},
        {"kind": "catch", "seat": 1, "at": 1e100},
        {"kind": "tick", "at": float("nan")},
        {"kind": "flip", "card": "red-5", "confidence": float("inf")},
        {"kind": "flip", "card": "red-5", "frame": 10**100},
        {"kind": "play", "cards": ["red-7"], "frame": -1},
    ],
)
def test_the_referee_refuses_non_finite_and_unbounded_numbers_too(data):
    with pytest.raises(InputError):
        parse_input(data)


# ----------------------------------------------------------------------------- item 11

DEEP = '{"pin": ' + "[" * 30000 + "]" * 30000 + "}"


@pytest.mark.parametrize("path", ["/api/login", "/api/host/command", "/api/seat/0/action", "/api/panel/press",
                                  "/api/logout", "/api/host/pin"])  # fmt: skip
def test_json_nested_30000_deep_is_a_400_on_every_post(table, path):
    hub, client, csrf = table
    resp = raw_post(client, path, DEEP, csrf)
    assert resp.status_code < 500, resp.status_code


def test_deep_json_at_login_is_400(table):
    _, client, _ = table
    assert raw_post(client.application.test_client(), "/api/login", DEEP).status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "observation", "observation": 5},
        {"kind": "observation", "observation": "discard"},
        {"kind": "observation", "observation": {"type": "discard", "cards": [5]}},
        {"kind": "observation", "observation": {"type": "discard", "cards": "red-7"}},
        {"kind": "setup", "players": [{"seat": 0}, {"seat": 1}]},
        {"kind": "setup", "players": [{"seat": 0, "name": 5}, {"seat": 1, "name": "B"}]},
        {"kind": "setup", "rules": ["house"]},
        {"kind": "rules", "rules": "stack"},
        {"kind": "setup", "preset": 7},
    ],
)
def test_shapes_that_gave_500_are_400(table, body):
    hub, client, csrf = table
    resp = client.post("/api/host/command", json=body, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 400, resp.get_data(as_text=True)


@pytest.mark.parametrize("target", ["seat:²", "seat:٣", "seat:00000000000000000001", "colour:", "seat:-1"])
def test_panel_targets_that_gave_500_are_400(target):
    from web_fakes import FakeTableService

    client = create_app(FakeTableService(), host_pin=PIN, seat_tokens=TOKENS).test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    resp = client.post("/api/panel/press", json={"target": target}, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 400, resp.get_data(as_text=True)


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://evil\",\"x\")", "+1+2", "-2+3", "@SUM(A1)", "\tx"])
def test_scores_csv_never_starts_a_cell_with_a_formula(tmp_path, name):
    rules = load_rules("official", overrides={"players": 2})
    hub = TableHub(EventLog(tmp_path / "c.db", rules), [name, "Ben"])
    client = create_app(hub, host_pin=PIN, seat_tokens=TOKENS).test_client()
    rows = list(csv.reader(io.StringIO(client.get("/api/scores.csv").get_data(as_text=True))))
    cells = [c for row in rows for c in row]
    assert not any(c.startswith(("=", "+", "-", "@", "\t")) for c in cells if not c.lstrip("-").isdigit())
    assert "'" + name + " total" in cells  # the one writer (table/summary.py) labels the player by name
    hub.close()


# ----------------------------------------------------------------------------- item 12


def test_events_are_paged(table):
    hub, client, csrf = table
    for i in range(700):
        hub.feed.publish("status", {"status": "playing", "n": i})
    total = hub.feed.last_seq
    page = client.get("/api/events?after=0").get_json()
    assert len(page["events"]) == 500 and page["more"] is True
    seen = [e["seq"] for e in page["events"]]
    while page["more"]:
        page = client.get(f"/api/events?after={seen[-1]}").get_json()
        seen += [e["seq"] for e in page["events"]]
    assert seen == list(range(1, total + 1))
    small = client.get("/api/events?after=0&limit=10").get_json()
    assert [e["seq"] for e in small["events"]] == list(range(1, 11))
