"""Inputs from JSON (dashboard, phones, seat buttons): clear errors naming kind and field."""

import pytest

from table.errors import UnoTableError
from table.inputs import (
    INPUT_TYPES,
    Catch,
    InputError,
    Play,
    SeatGesture,
    input_to_dict,
    parse_input,
)
from table.referee import interpret_gesture
from table.scenario import Scenario


@pytest.mark.parametrize(
    "data,fragments",
    [
        ({"kind": "play", "cards": ["red-11"]}, ["'play'", "cards.0", "red-11", "red-7"]),
        ({"kind": "fly"}, ["unknown input kind 'fly'", "play"]),
        ({"cards": ["red-1"]}, ["unknown input kind None"]),
        ({"kind": "play", "card": "red-1"}, ["unknown field(s) card", "cards"]),
        ({"kind": "gesture", "seat": 1, "gesture": "tap", "at": 1.0}, ["gesture", "'press', 'double' or 'hold'"]),
        ({"kind": "gesture", "seat": 1, "gesture": "press", "at": -1}, ["at", "greater than or equal to 0"]),
        ({"kind": "colour", "colour": "purple"}, ["colour", "'red'"]),
        ({"kind": "draw", "count": 0}, ["count"]),
        ({"kind": "amend", "target": 2, "input": {"kind": "play", "cards": ["x"]}}, ["unknown card 'x'"]),
        ({"kind": "amend", "target": 2, "input": {"kind": "undo"}}, ["cannot amend with an amend or undo"]),
        (["play"], ["JSON object"]),
    ],
)
def test_parse_input_errors_name_what_is_wrong(data, fragments):
    with pytest.raises(InputError) as info:
        parse_input(data)
    for frag in fragments:
        assert frag in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, UnoTableError)


def test_every_input_kind_round_trips_from_json():
    samples = {
        "start_round": {"dealer": 2},
        "dealer_draw": {"cards": {"0": "red-1", "1": "wild"}},
        "flip": {"card": "red-5", "confidence": 0.9, "frame": 12},
        "play": {"cards": ["red-7"], "seat": 1, "confidence": 0.97, "frame": 40, "source": "camera"},
        "draw": {"seat": 1, "count": 1, "cards": ["blue-2"]},
        "pass": {"seat": 1},
        "gesture": {"seat": 3, "gesture": "hold", "at": 12.5},
        "colour": {"colour": "green", "source": "colour_pad"},
        "call_uno": {"seat": 2},
        "catch": {"seat": 0, "target": 2},
        "challenge": {"seat": 2, "challenge": False},
        "reveal": {"seat": 1, "cards": ["red-1", "wild"]},
        "correct_count": {"seat": 1, "count": 4, "reason": "dropped a card"},
        "host_penalty": {"seat": 0, "count": 2, "rule": "P8"},
        "amend": {"target": 3, "input": {"kind": "play", "cards": ["red-7"], "seat": 2}},
        "undo": {"target": 3},
        "swap": {"target": 2, "seat": 1},
        "attack": {"roll": 0.25},
        "spin": {"outcome": "draw-until-colour", "colour": "red", "seat": 2},
        "tick": {"at": 14.0},
        "end_round": {"winner": 1, "reason": "camera missed the last card"},
        "confirm_score": {"reason": "seat 2 dropped a card"},
    }
    assert set(samples) == set(INPUT_TYPES)
    for kind, fields in samples.items():
        inp = parse_input({"kind": kind, **fields})
        assert inp.kind == kind
        assert parse_input(input_to_dict(inp)) == inp


def test_gesture_meaning_comes_from_the_game_state():
    t = Scenario(starter="blue-5")
    assert interpret_gesture(t.state, SeatGesture(seat=2, gesture="double", at=1.0)) == Catch(seat=2, at=1.0)
    assert interpret_gesture(t.state, SeatGesture(seat=2, gesture="hold", at=1.0)) == (
        "seat 2 held (pass) but it is seat 1's turn"
    )
    t.play("wild-draw4")
    t.colour("red")
    press = interpret_gesture(t.state, SeatGesture(seat=2, gesture="press", at=2.0))
    assert press.kind == "challenge" and press.challenge
    hold = interpret_gesture(t.state, SeatGesture(seat=2, gesture="hold", at=2.0))
    assert hold.kind == "challenge" and not hold.challenge
    other = interpret_gesture(t.state, SeatGesture(seat=0, gesture="press", at=2.0))
    assert other.kind == "call_uno"


def test_structural_errors_raise_but_game_errors_are_events():
    t = Scenario(starter="blue-5")
    events = t.send(Play(cards=("green-8",), seat=0))
    assert [e.kind for e in events] == ["illegal_play", "penalty_ordered", "cards_drawn"]
