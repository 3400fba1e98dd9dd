"""H13 UNO Spin (seed 003): a card carrying the spin makes the player whose turn comes next
spin the wheel; the wheel's outcome comes in as an input (the referee stays pure).

Scenario(starter="blue-5"): 4 seats, seat 0 deals, seat 1 plays first, 7 cards each.
"""

import pytest
from test_properties_sim import CheckedSimulator

from table.errors import ConfigError
from table.inputs import Amend, InputError, SeatGesture, Spin
from table.referee import (
    SPIN_WHEEL,
    needs_roll,
    snapshot,
    spin_wheel,
    wheel_segment,
    wheel_segments,
)
from table.replay import replay
from table.rules import load_rules
from table.scenario import Scenario
from table.simulator import SimOptions

SPIN = {"spin": True}


def _spun(**house):
    """Seat 1 plays a blue 7 (a spin card): seat 2 must spin."""
    t = Scenario(starter="blue-5", house={**SPIN, **house})
    t.play("blue-7")
    return t


@pytest.mark.rule("H13")
def test_a_spin_card_makes_the_next_player_spin_instead_of_playing():
    t = _spun()
    assert t.one("spin_needed").seat == 2 and t.snap["phase"] == "spin"
    assert t.snap["awaiting"]["spin"] == 2 and t.snap["spin"] == {"seat": 2, "outcome": None, "colour": None}
    t.play("blue-8")  # seat 2 must spin first
    assert t.one("illegal_play").rule == "H13" and t.hands[2] == 9
    t.send(Spin(outcome="trade-hands", seat=3))
    assert "seat 2 spins the wheel" in t.one("input_rejected").reason
    t.send(Spin(outcome="trade-hands"))  # the dashboard's wheel says: every hand passes on
    assert t.one("spin_result").text() == "seat 2 spins: every hand passes on (H13) (inferred)"
    moved = t.one("hands_moved")
    assert moved.rule == "H13" and moved.moves == ((0, 1), (1, 2), (2, 3), (3, 0))
    assert t.hands == [7, 7, 6, 9] and t.turn == 3 and t.snap["phase"] == "play" and t.snap["spin"] is None
    off = Scenario(starter="blue-5")
    off.play("blue-7")
    assert "spin_needed" not in off.kinds() and off.snap["phase"] == "play"


@pytest.mark.rule("H13")
def test_draw_until_the_wheel_s_colour_comes():
    t = _spun()
    t.send(Spin(outcome="draw-until-colour", colour="red"))
    assert t.snap["spin"] == {"seat": 2, "outcome": "draw-until-colour", "colour": "red"}
    t.draw(card="blue-1")
    t.draw(card="wild")  # a wild is no red card
    assert t.snap["phase"] == "spin" and t.hands[2] == 9
    assert t.one("cards_drawn").rule == "H13"
    t.draw(card="red-9")
    assert "a red card came" in t.one("notice").reason
    assert t.hands[2] == 10 and t.turn == 3 and t.snap["phase"] == "play"
    u = _spun()  # a real table: the faces are not seen, the seat holds when the colour came
    u.send(Spin(outcome="draw-until-colour", colour="green"))
    u.send({"kind": "draw", "count": 3})
    assert u.snap["phase"] == "spin" and u.hands[2] == 10
    u.hold(2)
    assert u.turn == 3 and u.snap["phase"] == "play" and u.hands[2] == 10


@pytest.mark.rule("H13")
def test_lay_down_every_card_but_two_at_once_without_their_effects():
    t = _spun()
    t.send(Spin(outcome="down-to-two"))
    t.play("red-1", "green-draw2", "yellow-9", "red-4", "green-skip")  # seen landing on the pile
    d = t.one("cards_discarded")
    assert (d.seat, d.left, len(d.cards)) == (2, 2, 5) and "illegal_play" not in t.kinds()
    assert t.hands[2] == 2 and t.snap["top_card"] == "green-skip" and t.snap["colour"] == "green"
    assert t.turn == 3 and "turn_skipped" not in t.kinds() and "penalty_ordered" not in t.kinds()
    u = _spun()
    u.send(Spin(outcome="down-to-two"))
    u.play("red-1", "wild")  # two laid down although the count said five: the count follows
    assert u.one("hand_count_corrected").new == 4 and u.hands[2] == 2
    assert u.snap["phase"] == "colour" and u.snap["awaiting"]["colour"] == 2
    u.colour("yellow")
    assert u.turn == 3 and u.snap["colour"] == "yellow"
    v = _spun()
    v.set_count(2, 2)
    v.send(Spin(outcome="down-to-two"))
    assert "nothing to lay down" in v.one("notice").reason and v.turn == 3


@pytest.mark.rule("H13")
def test_which_cards_spin_is_configurable_and_clashes_are_refused():
    t = Scenario(starter="blue-5", house={"spin": True, "spin_cards": "skip"})
    t.play("blue-7")
    assert "spin_needed" not in t.kinds() and t.turn == 2
    t.play("blue-skip")  # seat 3 is skipped: seat 0, whose turn comes next, spins
    assert t.one("turn_skipped").seat == 3 and t.one("spin_needed").seat == 0
    with pytest.raises(ConfigError, match="house.spin_cards needs house.spin"):
        load_rules(overrides={"house": {"spin_cards": "skip"}})
    with pytest.raises(ConfigError, match="a 7 cannot do both"):
        load_rules(overrides={"house": {"spin": True, "seven_o": True}})
    assert load_rules(overrides={"house": {"spin": True, "seven_o": True, "spin_cards": "5"}}).house.spin


@pytest.mark.rule("H13", "U2")
def test_the_spin_is_the_next_player_s_turn_it_closes_the_uno_window():
    t = Scenario(starter="blue-5", house=SPIN)
    t.set_count(1, 2)
    t.play("blue-7")  # one card left, no call
    assert t.snap["uno"]["catchable"] == [1]
    t.send(Spin(outcome="trade-hands"))
    assert t.one("uno_missed").seat == 1  # seat 2 began its turn by spinning
    # seat 1's one card moved on to seat 2, who may call and can be caught (as after H8)
    assert t.hands[2] == 1 and t.snap["uno"]["catchable"] == [2]
    t.call(2)
    assert t.one("uno_called").seat == 2


@pytest.mark.rule("H13")
def test_the_wheel_is_outside_the_referee_and_the_host_corrects_its_outcome():
    assert [spin_wheel(i / len(SPIN_WHEEL) + 0.01).outcome for i in range(len(SPIN_WHEEL))] == [
        "draw-until-colour", "draw-until-colour", "draw-until-colour", "draw-until-colour",
        "down-to-two", "trade-hands",
    ]  # fmt: skip
    assert spin_wheel(0.0).colour == "red" and spin_wheel(0.999).outcome == "trade-hands"
    t = _spun()
    with pytest.raises(InputError, match="needs a colour"):
        t.send(Spin(outcome="draw-until-colour"))
    t.send(Spin(outcome="trade-hands"))
    entry = t.state.seq
    t.send(Amend(target=entry, input={"kind": "spin", "outcome": "draw-until-colour", "colour": "blue"}))
    assert t.one("state_rebuilt").target == entry
    assert t.snap["spin"]["outcome"] == "draw-until-colour" and t.hands == [7, 6, 7, 7]
    assert replay(t.rules, t.state.inputs()) == t.state
    assert snapshot(replay(t.rules, t.state.inputs())) == {**t.snap, "seq": t.snap["seq"]}


@pytest.mark.rule("H13")
def test_simulated_tables_spin_and_keep_every_invariant():
    rules = load_rules("party", overrides={"house": {"spin": True, "seven_o_seven": False, "spin_cards": ["7", "skip", "3"]}})  # a YAML list works too
    assert rules.house.spin_cards == "7,skip,3"
    spins = 0
    for seed in range(6):
        sim = CheckedSimulator(rules, seed=seed, options=SimOptions(forget_uno=0.3, challenge_rate=0.5))
        sim.record = True
        game = sim.play_round()
        spins += sum(1 for evs in game.events for e in evs if e.kind == "spin_result")
        assert replay(rules, sim.state.inputs()) == sim.state
    assert spins > 10


@pytest.mark.rule("H13")
def test_the_seat_spins_with_a_roll_the_table_drew_and_the_referee_reads_the_wheel():
    t = _spun()
    assert needs_roll(t.state, Spin(seat=2)) and needs_roll(t.state, Spin())
    assert not needs_roll(t.state, Spin(seat=3)) and not needs_roll(Scenario().state, Spin())
    assert not needs_roll(t.state, Spin(roll=0.5)) and not needs_roll(t.state, Spin(outcome="trade-hands"))
    t.send(Spin(seat=2))  # no roll attached: nothing is decided, the seat still spins
    assert "needs a roll" in t.one("input_rejected").reason and t.snap["awaiting"]["spin"] == 2
    t.send(Spin(seat=2, roll=0.2))  # segment 1 of 6: draw until yellow
    r = t.one("spin_result")
    assert (r.seat, r.outcome, r.colour, r.roll, r.inferred) == (2, "draw-until-colour", "yellow", 0.2, False)
    assert t.snap["spin"] == {"seat": 2, "outcome": "draw-until-colour", "colour": "yellow"}
    assert replay(t.rules, t.state.inputs()) == t.state  # the logged roll replays to the same outcome
    with pytest.raises(InputError, match="not both"):
        t.send(Spin(roll=0.5, outcome="trade-hands"))
    with pytest.raises(InputError, match="only a stated"):
        t.send(Spin(roll=0.5, colour="red"))
    assert [wheel_segment(r) for r in (0.0, 1 / 6, 0.5, 0.999)] == [0, 1, 3, 5]
    assert [(s["outcome"], s["colour"]) for s in wheel_segments()] == [(o.value, c) for o, c in SPIN_WHEEL]
    assert [s["text"] for s in wheel_segments()][-3:] == ["draw until blue", "down to two", "trade hands"]


@pytest.mark.rule("H13")
def test_the_spinning_seat_s_button_press_spins_other_presses_keep_their_meaning():
    t = _spun()
    other = SeatGesture(seat=1, gesture="press", at=1.0)
    assert not needs_roll(t.state, other)  # seat 1's press is still an UNO call
    mine = SeatGesture(seat=2, gesture="press", at=1.5)
    assert needs_roll(t.state, mine) and not needs_roll(t.state, SeatGesture(seat=2, gesture="hold", at=1.5))
    t.send(mine)  # the app forgot the roll: refused, nothing decided
    assert "needs a roll" in t.one("input_rejected").reason and t.snap["phase"] == "spin"
    t.send(SeatGesture(seat=2, gesture="press", at=2.0, roll=0.9))  # the app attached its roll
    r = t.one("spin_result")
    assert (r.outcome, r.roll, r.inferred) == ("trade-hands", 0.9, False) and t.turn == 3
    assert not needs_roll(t.state, SeatGesture(seat=3, gesture="press", at=2.5))  # the spin is over
    entry = t.state.seq
    again = replay(t.rules, t.state.inputs())
    assert again == t.state and t.hands == [7, 7, 6, 7]
    # the host corrects the wheel: the press becomes the outcome the wheel really showed
    t.send(Amend(target=entry, input={"kind": "spin", "seat": 2, "outcome": "down-to-two"}))
    assert t.one("state_rebuilt").target == entry
    assert t.snap["spin"] == {"seat": 2, "outcome": "down-to-two", "colour": None} and t.hands == [7, 6, 7, 7]
