"""The hub's scores and its End round button go through the referee's Match."""

from app.hub import TableHub
from table.log import MemoryLog
from table.rules import load_rules


def _hub(**overrides):
    hub = TableHub(MemoryLog(load_rules("official", overrides=overrides or None)))
    hub.submit({"kind": "start_round", "dealer": 0})
    hub.submit({"kind": "flip", "card": "red-5"})
    return hub


def test_end_round_button_with_a_winner_scores_through_the_match():
    hub = _hub().start()
    try:
        hub.submit({"kind": "end-round", "winner": 1, "reason": "camera missed it"})
        for seat, card in ((0, "red-1"), (2, "red-2"), (3, "wild")):
            hub.submit({"kind": "reveal", "seat": seat, "cards": [card] * 7})
        sc = hub.scores()  # the one scores shape (table.summary.MatchSummary), by name
        assert [(r["round"], r["winners"], r["points"]) for r in sc["rounds"]] == [
            (1, ["Seat 1"], {"Seat 0": 0, "Seat 1": 7 + 14 + 350, "Seat 2": 0, "Seat 3": 0})
        ]
        assert sc["totals"] == {"Seat 0": 0, "Seat 1": 371, "Seat 2": 0, "Seat 3": 0}
        assert sc["format"] == "standard" and sc["target"] == 500 and not sc["over"]
    finally:
        hub.stop()


def test_end_round_without_a_winner_voids_the_round_and_negative_scores_show_per_seat():
    hub = _hub(scoring={"format": "negative", "target": 50}).start()
    try:
        hub.submit({"kind": "end-round"})
        assert hub.state.phase == "idle" and hub.scores()["rounds"] == []
        assert hub.scores()["totals"] == {"Seat 0": 0, "Seat 1": 0, "Seat 2": 0, "Seat 3": 0}
        hub.submit({"kind": "start"})
        hub.submit({"kind": "flip", "card": "red-5"})
        hub.submit({"kind": "end-round", "winner": 2})
        for seat in (0, 1, 3):
            hub.submit({"kind": "reveal", "seat": seat, "cards": ["red-9"] * 7})
        sc = hub.scores()
        assert list(sc["totals"].values()) == [63, 63, 0, 63] and sc["winners"] == ["Seat 2"] and sc["over"]
    finally:
        hub.stop()


def test_rotating_partners_the_dashboard_shows_who_sits_at_each_seat_now():
    rules = load_rules("official", overrides={"teams": {"mode": "rotating"}})
    hub = TableHub(MemoryLog(rules), ["Ann", "Bob", "Cy", "Di"]).start()
    try:
        hub.submit({"kind": "start_round", "dealer": 0})
        seats = hub.snapshot()["seats"]
        # Round 1 of the schedule seats player 3 (Di) at seat 2 and player 2 (Cy) at seat 3,
        # so that partners (Ann & Di, Bob & Cy) sit opposite.
        assert [s["name"] for s in seats] == ["Ann", "Bob", "Di", "Cy"]
    finally:
        hub.stop()


def test_the_dashboard_says_the_match_format_the_rules_chose():
    for fmt in ("elimination", "negative", "standard"):
        hub = _hub(scoring={"format": fmt})
        assert hub.snapshot()["match"]["format"] == fmt
        assert hub.scores()["format"] == fmt


def test_the_hub_parses_checks_logs_and_steps_through_its_one_session():
    hub = _hub()
    assert hub.state is hub.session.state and hub.log is hub.session.log
    before = len(hub.log)
    hub.submit({"kind": "play", "cards": ["red-7"]})
    assert len(hub.log) == before + 1 and hub.state is hub.session.state
    assert hub.log_entries()[-1]["kind"] == "play"
