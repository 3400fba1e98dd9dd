"""The dashboard over the real table: app.hub.TableHub (referee + log + single writer) as
the service, not the test double. What a phone or the host sends is judged by the referee."""

from __future__ import annotations

import pytest

from web_ui.app import create_app
from web_ui.service import TableService

hub_mod = pytest.importorskip("app.hub", reason="the app hub (app/hub.py) is not there yet")
from table.log import MemoryLog  # noqa: E402
from table.rules import load_rules  # noqa: E402

PIN = "555123"
TOKENS = {0: "s0-real-aaaaaa", 1: "s1-real-bbbbbb", 2: "s2-real-cccccc", 3: "s3-real-dddddd"}
NAMES = ["Ana", "Ben", "Cy", "Dee"]


def make_hub():
    return hub_mod.TableHub(MemoryLog(load_rules("official")), list(NAMES)).start()


@pytest.fixture
def hub():
    h = make_hub()
    yield h
    h.close()


@pytest.fixture
def host(hub):
    client = create_app(hub, host_pin=PIN, seat_tokens=TOKENS).test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    return client, csrf


def send(client, csrf, body):
    return client.post("/api/host/command", json=body, headers={"X-CSRF-Token": csrf})


def deal(client, csrf):
    for body in ({"kind": "start_round", "dealer": 3}, {"kind": "flip", "card": "red-5"}):
        resp = send(client, csrf, body)
        assert resp.status_code == 200, resp.get_json()


def test_the_hub_implements_the_service_protocol(hub):
    assert isinstance(hub, TableService)


def test_a_round_played_through_the_dashboard(host, hub):
    client, csrf = host
    deal(client, csrf)
    assert send(client, csrf, {"kind": "play", "cards": ["red-7"]}).status_code == 200
    snap = client.get("/api/snapshot").get_json()
    assert snap["top_card"] == "red-7" and snap["current_colour"] == "red" and snap["turn"] == 1
    assert [s["hand_count"] for s in snap["seats"]] == [6, 7, 7, 7]
    events = client.get(f"/api/events?after={snap['seq'] - 2}").get_json()["events"]
    assert [e["type"] for e in events] == ["play_accepted", "turn_started"]
    log = client.get("/api/log?kind=play").get_json()["entries"]
    assert log[0]["inferred"] is True  # the camera saw the card, not who played it


def test_the_host_corrects_a_recognised_card(host, hub):
    client, csrf = host
    deal(client, csrf)
    send(client, csrf, {"kind": "play", "cards": ["red-7"]})
    resp = send(client, csrf, {"kind": "amend", "target": 3, "input": {"kind": "play", "cards": ["red-2"], "seat": 0}})
    assert resp.status_code == 200, resp.get_json()
    assert client.get("/api/snapshot").get_json()["top_card"] == "red-2"


def test_an_illegal_request_is_refused_with_the_referees_reason(host, hub):
    client, csrf = host
    deal(client, csrf)
    before = hub.log_entries(limit=100)
    resp = send(client, csrf, {"kind": "play", "cards": ["red-99"]})
    assert resp.status_code == 400 and "red-99" in resp.get_json()["error"]
    resp = send(client, csrf, {"kind": "amend", "target": 99, "input": {"kind": "undo"}})
    assert resp.status_code == 400 and resp.get_json()["error"]
    assert hub.log_entries(limit=100) == before


def test_a_seat_controller_acts_only_for_its_seat(host, hub):
    client, csrf = host
    deal(client, csrf)
    resp = client.post("/api/seat/2/action", json={"action": "uno"}, headers={"X-Seat-Token": TOKENS[2]})
    assert resp.status_code == 200, resp.get_json()
    entry = hub.log_entries(kind="call_uno", limit=5)[-1]
    assert entry["seat"] == 2 and entry["source"] == "seat:2"
    resp = client.post("/api/seat/2/action", json={"action": "uno"}, headers={"X-Seat-Token": TOKENS[1]})
    assert resp.status_code == 403
    assert len(hub.log_entries(kind="call_uno", limit=5)) == 1


def test_setup_from_the_dashboard_changes_the_rules(host, hub):
    client, csrf = host
    rules = client.get("/api/rules").get_json()
    assert "house" in rules["schema"]["properties"]
    current = rules["current"]
    current["players"] = 3
    current["uno"]["strict"] = True
    players = [{"seat": i, "name": n} for i, n in enumerate(["Xi", "Yu", "Zoe"])]
    resp = send(client, csrf, {"kind": "setup", "players": players, "preset": "official", "rules": current})
    assert resp.status_code == 200, resp.get_json()
    assert hub.rules_config.players == 3 and hub.rules_config.uno.strict is True
    assert [s["name"] for s in client.get("/api/snapshot").get_json()["seats"]] == ["Xi", "Yu", "Zoe"]
