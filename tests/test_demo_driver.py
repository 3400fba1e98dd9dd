"""The demo driver: simulated players reported through a camera and buttons into the hub,
compared with the simulator's truth. A perfect camera gives a referee that matches the truth;
a camera that misreads is caught, counted and corrected like a host would."""

import pytest

from app.demo import DemoDriver, PerfectCamera
from app.hub import TableHub
from table.log import MemoryLog
from table.rules import preset


@pytest.mark.parametrize("name", ["official", "two-player", "no-mercy-lite", "party"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_perfect_camera_gives_a_referee_that_matches_the_truth(name, seed):
    """House rules included: jump-ins are claimed with a hold of the jumper's button (the
    camera sees the card, not the hand), draw-until-playable is one reach per card."""
    hub = TableHub(MemoryLog(preset(name)))
    report = DemoDriver(hub, PerfectCamera(), seed=seed).play(3).to_json()
    over = hub.state.phase == "match-over"  # a party round can pass 500 points in two
    assert (report["rounds"] == 3 or over) and report["plays"] > 30
    assert report["mismatches"] == []
    assert report["referee_matches_truth"]
    assert report["scores_table"] == report["scores_truth"] and sum(report["scores_truth"]) > 0
    assert report["penalties_table"] == report["penalties_truth"]


@pytest.mark.rule("H13")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_demo_spins_the_wheel_by_the_seat_s_button_and_plays_on(seed):
    """`uno-table demo --set house.spin=true`: the seat that must spin presses its button,
    the hub draws the roll (here the simulated world's), the referee reads the wheel; a seat
    drawing until the colour holds its button when it came (the camera sees no faces)."""
    from table.rules import load_rules

    rules = load_rules("official", overrides={"house": {"spin": True, "spin_cards": "7,skip,3"}})
    hub = TableHub(MemoryLog(rules))
    report = DemoDriver(hub, PerfectCamera(), seed=seed).play(3).to_json()
    spins = [e for e in hub.log_entries(limit=0) if "spins:" in e["text"]]
    assert spins and all(e["kind"] == "gesture" and e["source"] == "button" for e in spins)
    assert all(0 <= e["payload"]["roll"] < 1 for e in spins)
    assert report["mismatches"] == [] and report["referee_matches_truth"]
    assert report["scores_table"] == report["scores_truth"]


class MisreadingCamera(PerfectCamera):
    """Reads every 7th discard as a red 9."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def act(self, action, cards=()):
        if action == "play":
            self.n += 1
            if self.n % 7 == 0:
                cards = ("red-9",) if cards != ("red-9",) else ("blue-1",)
        super().act(action, cards)


def test_misreads_are_reported_as_mismatches_and_corrected_by_the_host():
    hub = TableHub(MemoryLog(preset("official")))
    report = DemoDriver(hub, MisreadingCamera(), seed=4).play(2).to_json()
    misreads = [m for m in report["mismatches"] if m["what"] == "misread"]
    assert misreads and not report["referee_matches_truth"]
    assert report["host_corrections"] >= len(misreads)
    # after the host's corrections (amend = a new log entry, replayed) the scores agree
    assert report["scores_table"] == report["scores_truth"]
    assert any(e["kind"] == "amend" for e in hub.log_entries(limit=0))


class BlindCamera(PerfectCamera):
    def act(self, action, cards=()):
        if action != "draw":
            super().act(action, cards)


def test_a_camera_that_never_sees_draws_is_caught_too():
    hub = TableHub(MemoryLog(preset("official")))
    report = DemoDriver(hub, BlindCamera(), seed=1).play(1).to_json()
    assert any(m["what"] == "missed" for m in report["mismatches"])
