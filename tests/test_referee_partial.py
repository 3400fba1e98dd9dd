"""Partial observation, host corrections, undo/amend, bad input and the snapshot."""

import json

import pytest

from table.events import EVENT_TYPES, event_from_dict
from table.inputs import (
    INPUT_TYPES,
    Amend,
    CorrectCount,
    InputError,
    Play,
    Undo,
    input_to_dict,
    parse_input,
)
from table.referee import check_input, step
from table.replay import replay
from table.scenario import Scenario


def test_placed_card_is_attributed_to_the_turn_seat_and_marked_inferred():
    t = Scenario(starter="blue-5")
    t.play("blue-7")
    acc = t.one("play_accepted")
    assert acc.seat == 1 and acc.inferred
    t.play("blue-8", seat=2)
    assert not t.one("play_accepted").inferred


def test_counts_follow_deal_draws_and_plays():
    t = Scenario(starter="blue-5")
    t.play("blue-7")  # 1: 6
    t.draw()  # 2: 8
    t.pass_()
    t.play("blue-draw2")  # 3: 6, 0 draws 2 -> 9
    assert t.hands == [9, 6, 8, 6]
    assert t.state.draw_count + sum(t.hands) + len(t.state.discard) == 108


def test_host_correction_of_a_count_is_logged_and_conserves_cards():
    t = Scenario(starter="blue-5")
    t.set_count(2, 5)
    fix = t.one("hand_count_corrected")
    assert (fix.seat, fix.old, fix.new, fix.source) == (2, 7, 5, "host")
    assert t.state.draw_count == 81 and t.snap["hand_counts"] == [7, 7, 5, 7]
    before = t.state
    t.set_count(2, 100)  # more than the draw pile holds
    assert t.kinds() == ["input_rejected"] and t.state == before


def test_undo_rebuilds_by_replay_and_keeps_both_entries():
    t = Scenario(starter="blue-5")
    t.play("blue-7")
    after_first = t.state
    t.play("red-9")  # illegal: seat 2 draws 2
    assert t.hands[2] == 9
    t.send(Undo())
    assert t.one("state_rebuilt").target == 4
    assert t.state == after_first and t.hands[2] == 7
    assert [i.kind for i in t.state.inputs()] == ["start_round", "flip", "play", "play", "undo"]
    assert t.state.seq == 5


def test_amend_reattributes_a_play_to_another_seat():
    t = Scenario(starter="blue-5")
    t.play("blue-7")  # attributed to seat 1 (inferred)
    t.play("blue-8")  # attributed to seat 2
    # the host says entry 3 was really seat 1 playing... keep it; entry 4 was out of turn by seat 3
    t.send(Amend(target=4, input={"kind": "play", "cards": ["blue-8"], "seat": 3}))
    assert t.one("state_rebuilt").action == "amend"
    assert t.hands == [7, 6, 7, 9]  # seat 3 played out of turn: the card back, 2 drawn
    assert t.turn == 2


def test_undo_or_amend_of_a_missing_or_correction_entry_is_an_input_error():
    t = Scenario(starter="blue-5")
    with pytest.raises(InputError, match="does not exist"):
        step(t.state, Undo(target=99))
    t.send(Undo())
    with pytest.raises(InputError, match="itself a correction"):
        step(t.state, Undo(target=3))


@pytest.mark.parametrize(
    "data,fragment",
    [
        ({"kind": "play", "cards": ["red-11"]}, "unknown card 'red-11'"),
        ({"kind": "play", "cards": ["red-1"], "seat": 4}, "seat=4 is not a seat"),
        ({"kind": "gesture", "seat": 7, "gesture": "press", "at": 1.0}, "seat=7"),
        ({"kind": "catch", "seat": 0, "target": 5}, "target=5"),
        ({"kind": "play", "cards": []}, "at least one card"),
        ({"kind": "draw", "count": 2, "cards": ["red-1"]}, "1 cards named for a draw of 2"),
    ],
)
def test_bad_inputs_raise_clear_errors_and_change_nothing(data, fragment):
    t = Scenario(starter="blue-5")
    before = t.state
    with pytest.raises(InputError, match=fragment):
        inp = parse_input(data)
        check_input(t.state, inp)
        step(t.state, inp)
    assert t.state == before and t.state.seq == before.seq


def test_an_unexplainable_card_is_an_event_never_an_exception():
    t = Scenario(starter=None)
    t.play("red-5")  # no starter yet
    assert t.kinds() == ["input_rejected"]
    t2 = Scenario(starter="blue-5")
    t2.play("wild")
    t2.play("wild")  # second wild before the colour
    assert t2.one("illegal_play").rule == "W1"


def test_inputs_and_events_round_trip_through_json():
    t = Scenario(starter="blue-5")
    t.play("wild-draw4")
    t.colour("red")
    t.press(2)
    t.reveal(1, "red-1", "red-2", "red-3", "red-4", "red-5", "red-6")
    for inp in t.state.inputs():
        d = json.loads(json.dumps(input_to_dict(inp)))
        assert parse_input(d) == inp
    kinds = set()
    for ev in t.all_events:
        d = json.loads(json.dumps(ev.to_dict()))
        assert event_from_dict(d) == ev and "inferred" in d
        kinds.add(d["kind"])
    assert {"challenge_resolved", "colour_named", "play_accepted"} <= kinds
    assert len(INPUT_TYPES) >= 15 and len(EVENT_TYPES) >= 25


def test_snapshot_has_what_the_dashboard_shows():
    t = Scenario(starter="blue-5")
    t.play("wild-draw4")
    snap = json.loads(json.dumps(t.snap))
    for key in (
        "colour", "top_card", "turn", "direction", "hand_counts", "uno", "pending_draws",
        "awaiting", "last_verdicts", "round", "scores", "phase", "draw_pile", "deferred_penalties",
    ):  # fmt: skip
        assert key in snap
    assert snap["top_card"] == "wild-draw4" and snap["awaiting"]["colour"] == 1
    assert snap["last_verdicts"][-1]["card"] == "wild-draw4"
    t.colour("blue")
    assert t.snap["awaiting"]["challenge"] == 2 and t.snap["pending_draws"][0]["count"] == 4


def test_replay_of_the_inputs_reproduces_the_state():
    t = Scenario(starter="blue-5")
    for card in ("blue-7", "blue-skip", "blue-reverse", "wild"):
        t.play(card)
    t.colour("green")
    t.send(CorrectCount(seat=0, count=6))
    rebuilt = replay(t.rules, t.state.inputs())
    assert rebuilt == t.state and rebuilt.seq == t.state.seq


def test_step_is_pure():
    t = Scenario(starter="blue-5")
    before = t.state.copy()
    new, _ = step(t.state, Play(cards=("blue-7",)))
    assert t.state == before and new != before
