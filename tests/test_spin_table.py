"""H13 UNO Spin at the table: the seat spins (its phone's "Spin the wheel", or its button),
the hub draws the roll and logs it with the input, the referee reads the wheel, every phone
is told, and the host corrects a wrong outcome with an amend. The browser is in
tests/test_browser_spin.py."""

from __future__ import annotations

import pytest

from app.hub import CommandError, TableHub
from table.log import MemoryLog
from table.replay import replay
from table.rules import load_rules
from web_ui.app import create_app

PIN = "731946"
TOKENS = {0: "spin0-token-aaaa", 1: "spin1-token-bbbb", 2: "spin2-token-cccc", 3: "spin3-token-dddd"}
NAMES = ["Ana", "Ben", "Cy", "Dee"]


class Dice:
    """The hub's roll source, loaded: each call gives the next value and is counted."""

    def __init__(self, *values: float):
        self.values, self.calls = list(values), 0

    def __call__(self) -> float:
        self.calls += 1
        return self.values.pop(0)


def spin_due(dice: Dice) -> TableHub:
    """Ana plays a blue 7 (a spin card): Ben (seat 1) must spin."""
    hub = TableHub(MemoryLog(load_rules("official", overrides={"house": {"spin": True}})), list(NAMES), roll=dice)
    hub.submit({"kind": "start_round", "dealer": 3})
    hub.submit({"kind": "flip", "card": "blue-5"})
    hub.submit({"kind": "play", "cards": ["blue-7"]})
    assert hub.snapshot()["spin"] == {"seat": 1, "outcome": None, "colour": None}
    return hub


@pytest.mark.rule("H13")
def test_the_seat_phone_asks_to_spin_and_the_hub_draws_where_the_wheel_stops():
    dice = Dice(0.95)
    hub = spin_due(dice)
    client = create_app(hub, host_pin=PIN, seat_tokens=TOKENS).test_client()
    snap = client.get("/api/snapshot").get_json()
    assert [s["text"] for s in snap["wheel"]] == [
        "draw until red", "draw until yellow", "draw until green", "draw until blue", "down to two", "trade hands",
    ]  # fmt: skip
    assert snap["awaiting"]["spin"] == 1
    # a phone cannot say where the wheel stops: only "spin"
    bad = client.post("/api/seat/1/action", json={"action": "spin", "roll": 0.1}, headers={"X-Seat-Token": TOKENS[1]})
    assert bad.status_code == 400 and dice.calls == 0
    with pytest.raises(CommandError, match="the table draws"):
        hub.submit({"kind": "spin", "roll": 0.1}, source="seat:1")
    other = client.post("/api/seat/2/action", json={"action": "spin"}, headers={"X-Seat-Token": TOKENS[2]})
    assert other.status_code == 200 and "Ben spins the wheel, not Cy" in other.get_json()["result"]["events"][0]["text"]
    resp = client.post("/api/seat/1/action", json={"action": "spin"}, headers={"X-Seat-Token": TOKENS[1]})
    assert resp.status_code == 200, resp.get_json()
    entry = hub.log_entries(limit=1)[-1]
    assert entry["payload"] == {"kind": "spin", "seat": 1, "roll": 0.95} and entry["source"] == "seat:1"
    assert entry["text"].startswith("Ben spins: every hand passes on (H13)")
    result = next(e for e in hub.feed.all() if e["type"] == "spin_result")["payload"]
    assert (result["seat"], result["outcome"], result["roll"]) == (1, "trade-hands", 0.95)
    assert hub.snapshot()["turn"] == 2 and replay(hub.rules_config, hub.log.inputs()) == hub.state
    assert dice.calls == 1  # Cy's spin, refused by the referee, drew no roll
    hub.close()


@pytest.mark.rule("H13")
def test_the_seat_button_press_spins_and_the_host_corrects_the_wheel():
    dice = Dice(0.3)
    hub = spin_due(dice)
    hub.submit({"kind": "gesture", "seat": 2, "gesture": "press", "at": 1.0}, source="button")
    assert dice.calls == 0 and hub.log_entries(limit=1)[-1]["payload"].get("roll") is None  # Cy's UNO call
    hub.submit({"kind": "gesture", "seat": 1, "gesture": "press", "at": 2.0}, source="button")
    entry = hub.log_entries(limit=1)[-1]
    assert entry["payload"]["roll"] == 0.3 and entry["text"] == "Ben spins: draw until a yellow card comes (H13)"
    assert hub.snapshot()["spin"] == {"seat": 1, "outcome": "draw-until-colour", "colour": "yellow"}
    # the wheel on the table said otherwise: the host replaces the entry (an amend), the state replays
    client = create_app(hub, host_pin=PIN, seat_tokens=TOKENS).test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    fix = {"kind": "amend", "target": entry["seq"], "input": {"kind": "spin", "seat": 1, "outcome": "trade-hands"}}
    resp = client.post("/api/host/command", json=fix, headers={"X-CSRF-Token": csrf})
    assert resp.status_code == 200, resp.get_json()
    assert hub.snapshot()["spin"] is None and hub.snapshot()["turn"] == 2
    assert hub.log_entries(limit=0)[entry["seq"] - 1]["corrected_by"] == entry["seq"] + 1
    assert replay(hub.rules_config, hub.log.inputs()) == hub.state and dice.calls == 1
    hub.close()


@pytest.mark.rule("H13")
def test_the_host_spins_for_the_seat_and_no_roll_is_drawn_without_the_rule():
    dice = Dice(0.7)
    hub = spin_due(dice)
    hub.submit({"kind": "spin", "seat": 1}, source="host")
    assert hub.log_entries(limit=1)[-1]["payload"] == {"kind": "spin", "seat": 1, "roll": 0.7}
    assert hub.snapshot()["spin"] == {"seat": 1, "outcome": "down-to-two", "colour": None}
    hub.close()
    plain = TableHub(MemoryLog(load_rules("official")), list(NAMES), roll=Dice())
    plain.submit({"kind": "start_round", "dealer": 3})
    plain.submit({"kind": "flip", "card": "blue-5"})
    plain.submit({"kind": "gesture", "seat": 0, "gesture": "press", "at": 1.0}, source="button")
    assert plain.snapshot()["wheel"] is None and "roll" not in plain.log_entries(limit=1)[-1]["payload"]
    plain.close()
