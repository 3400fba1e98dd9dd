"""Referee events drive the LEDs and the buzzer; the virtual panel takes the dashboard's JSON."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_config.clock import ManualClock
from firmware_config.errors import UnknownSeatError
from firmware_config.feedback import TableFeedback, card_colour, pattern_for, pattern_for_events
from firmware_config.gestures import ButtonGesture, ColourPick
from firmware_config.hardware import TableHardware
from firmware_config.pinmap import load_pin_map
from table import events as ev


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


@pytest.fixture
def hw(factory):
    played = []
    hardware = TableHardware(load_pin_map(), factory, clock=ManualClock(), wait=lambda s, t: False)
    original = hardware.play

    def play(name):
        played.append(name)
        original(name)

    hardware.play = play
    hardware.played = played
    yield hardware
    hardware.close()


def lit(hw, factory):
    return [s for s, p in hw.pin_map.seats.items() if factory.pin(p.led).state]


def rgb(hw, factory):
    r = hw.pin_map.rgb_led
    return [round(float(factory.pin(p).state), 2) for p in (r.red, r.green, r.blue)]


def test_batch_plays_the_cause_not_the_consequence():
    batch = [
        ev.IllegalPlay(seat=1, cards=("red-7",), reason="no match", rule="P2"),
        ev.PenaltyOrdered(seat=1, count=2, rule="P7", reason="illegal play"),
    ]
    assert pattern_for_events(batch) == "illegal-play"
    assert pattern_for_events([e.to_dict() for e in batch]) == "illegal-play"  # JSON works too
    caught = [ev.UnoCaught(seat=2, by=0, rule="U2"), ev.PenaltyOrdered(seat=2, count=2, rule="U2", reason="")]
    assert pattern_for_events(caught) == "uno-caught"
    assert pattern_for_events([ev.TurnStarted(seat=1, direction=1)]) is None


def test_challenge_verdict_picks_the_pattern():
    def resolved(guilty):
        return ev.ChallengeResolved(challenger=1, challenged=0, guilty=guilty, drawer=0 if guilty else 1,
                                    count=4 if guilty else 6, reason="")  # fmt: skip

    assert pattern_for(resolved(True)) == "challenge-won"
    assert pattern_for(resolved(False)) == "challenge-lost"


def test_events_drive_leds_and_buzzer(hw, factory):
    feedback = TableFeedback(hw)
    feedback.handle([ev.StarterAccepted(card="blue-3", first_seat=1, direction=1, rule="S5"),
                     ev.TurnStarted(seat=1, direction=1)])  # fmt: skip
    assert lit(hw, factory) == [1] and rgb(hw, factory) == [0, 0, 1]
    assert hw.played == []
    feedback.handle([ev.PlayAccepted(seat=1, card="wild", hand_count=1), ev.ColourNeeded(seat=1)])
    assert rgb(hw, factory) == [0, 0, 0]  # no colour until one is named
    feedback.handle([ev.ColourNamed(seat=1, colour="green"), ev.UnoCalled(seat=1),
                     ev.TurnStarted(seat=2, direction=1)])  # fmt: skip
    assert rgb(hw, factory) == [0, 1, 0] and lit(hw, factory) == [2]
    assert hw.played == ["uno-heard"]
    assert feedback.handle([ev.RoundEnded(round=1, winner=1)]) == "round-over"
    assert lit(hw, factory) == [] and rgb(hw, factory) == [0, 0, 0]


def test_more_players_than_wired_seats_turns_leds_off(hw, factory):
    TableFeedback(hw).handle([ev.TurnStarted(seat=0, direction=1)])
    TableFeedback(hw).handle([ev.TurnStarted(seat=7, direction=1)])
    assert lit(hw, factory) == []


def test_card_colour():
    assert card_colour("yellow-draw2") == "yellow"
    assert card_colour("wild-draw4") is None and card_colour("wild") is None


def test_virtual_panel_takes_the_dashboards_json(hw):
    got = []
    hw.on_gesture(got.append)
    hw.virtual.perform({"kind": "gesture", "seat": 3, "gesture": "double"}, background=False)
    hw.virtual.perform({"kind": "colour", "colour": "yellow"})
    assert got == [ButtonGesture(3, "double", 0.0), ColourPick("yellow", pytest.approx(hw.clock.now()))]
    with pytest.raises(ValueError, match="gesture must be one of"):
        hw.virtual.perform({"kind": "gesture", "seat": 1, "gesture": "slap"})
    with pytest.raises(UnknownSeatError):
        hw.virtual.perform({"kind": "gesture", "seat": "1"})
    with pytest.raises(ValueError, match="'gesture' or 'colour'"):
        hw.virtual.perform({"kind": "play"})


@pytest.mark.rule("H10", "H11")
def test_the_buzzer_marks_the_start_and_end_of_silent2_and_slap9_windows():
    from firmware_config.feedback import pattern_for_events

    opened = {"kind": "window_opened", "window": "slap9", "seat": 1, "rule": "H11", "buzzer": "start"}
    closed = {"kind": "window_closed", "window": "slap9", "rule": "H11", "losers": [2], "reason": "slowest"}
    penalty = {"kind": "penalty_ordered", "seat": 2, "count": 2, "rule": "H11", "reason": "slowest slap"}
    assert pattern_for_events([opened]) == "window-start"
    assert pattern_for_events([closed, penalty]) == "window-end"


@pytest.mark.rule("H13")
def test_the_buzzer_tells_a_seat_to_spin_and_marks_where_the_wheel_stopped():
    from firmware_config.patterns import PATTERNS, browser_patterns

    assert pattern_for({"kind": "spin_needed", "seat": 2}) == "spin"
    assert pattern_for({"kind": "spin_result", "seat": 2, "outcome": "trade-hands"}) == "spin-result"
    # a batch with a penalty and the spin it leads to: the seat hears it must spin
    assert pattern_for_events([{"kind": "penalty_ordered"}, {"kind": "spin_needed"}]) == "spin"
    assert {"spin", "spin-result"} <= set(PATTERNS) and browser_patterns()["spin"][-1]["ms"] == 300
