"""Section U: calling UNO, with the window measured in turns; seat-button gestures."""

import pytest

from table.scenario import Scenario


def _at_two(seat=1, **kw):
    """Seat `seat` (whose turn it is) holds two cards."""
    t = Scenario(starter="blue-5", **kw)
    t.set_count(seat, 2)
    return t


@pytest.mark.rule("U1")
def test_press_after_playing_second_to_last_card_is_the_call():
    t = _at_two()
    t.play("blue-7")
    assert t.snap["uno"]["catchable"] == [1]
    t.press(1)
    called = t.one("uno_called")
    assert called.seat == 1 and t.snap["uno"]["called"] == [1] and t.snap["uno"]["catchable"] == []
    t.double(2)  # catching a player who called: wrong catch (U5)
    assert t.one("penalty_ordered").seat == 2


@pytest.mark.rule("U1")
def test_call_while_laying_the_card_counts():
    t = _at_two()
    t.press(1)  # pressed just before the camera saw the card
    assert t.hands[1] == 2 and "penalty_ordered" not in t.kinds()
    t.play("blue-7")
    assert t.one("uno_called").seat == 1 and t.snap["uno"]["called"] == [1]


@pytest.mark.rule("U2")
def test_caught_before_next_player_begins_draws_two():
    t = _at_two()
    t.play("blue-7")
    t.double(3)
    caught = t.one("uno_caught")
    assert (caught.seat, caught.by, caught.rule) == (1, 3, "U2")
    assert t.hands[1] == 3 and t.one("penalty_ordered").count == 2


@pytest.mark.rule("U2")
def test_not_catchable_before_the_second_to_last_card():
    t = _at_two()
    t.double(3)  # seat 1 still holds two
    assert t.one("penalty_ordered").seat == 3 and t.one("penalty_ordered").rule == "U5"


@pytest.mark.rule("U2")
def test_not_catchable_after_the_next_player_began():
    t = _at_two()
    t.play("blue-7")
    t.play("blue-8")  # seat 2 begins its turn: the window closes
    assert t.one("uno_missed").seat == 1
    t.catch(3, target=1)
    assert t.kinds() == ["notice"] and t.hands[1] == 1 and t.hands[3] == 7


@pytest.mark.rule("U2")
def test_window_is_measured_in_turns_not_seconds_a_draw_also_begins_a_turn():
    t = _at_two()
    t.play("blue-7")
    t.clock += 3600.0
    t.double(0)  # an hour later but the next player has not begun: still catchable
    assert t.one("uno_caught").seat == 1
    u = _at_two()
    u.play("blue-7")
    u.draw()  # seat 2 draws: began its turn
    assert "uno_missed" in u.kinds()


@pytest.mark.rule("U2")
def test_penalty_draws_ordered_to_the_skipped_player_do_not_close_the_window():
    t = _at_two()
    t.play("blue-draw2")  # seat 2 draws 2 and is skipped; seat 3 has not begun
    t.double(0)
    assert t.one("uno_caught").seat == 1


@pytest.mark.rule("U3")
def test_late_call_before_any_catch_cancels_the_penalty():
    t = _at_two()
    t.play("blue-7")
    t.send({"kind": "tick", "at": 10.0})  # a moment passed in which a catch would have counted
    t.call(1)
    assert t.one("uno_called").late
    t.double(3)
    assert t.one("penalty_ordered").seat == 3  # too late to catch: the catcher pays (U5)


@pytest.mark.rule("U4")
def test_false_call_draws_two_like_a_missed_one():
    t = Scenario(starter="blue-5")
    t.press(3)
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (3, 2, "U4") and t.hands[3] == 9
    u = Scenario(starter="blue-5", uno={"false_call_penalty": 1})
    u.press(3)
    assert u.hands[3] == 8


@pytest.mark.rule("U4")
def test_false_call_costs_the_same_as_a_missed_call():
    t = Scenario(starter="blue-5")
    t.press(3)
    false_cost = t.one("penalty_ordered").count
    u = _at_two()
    u.play("blue-7")
    u.double(0)
    assert u.one("penalty_ordered").count == false_cost == 2


@pytest.mark.rule("U5")
def test_wrong_catch_catcher_draws_two():
    t = _at_two()
    t.catch(2, target=0)  # seat 0 holds 7
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (2, 2, "U5") and "holds 7 cards" in pen.reason
    u = _at_two()
    u.play("blue-7")
    u.press(1)
    u.catch(2, target=1)
    assert u.one("penalty_ordered").seat == 2 and "had called" in u.one("penalty_ordered").reason


@pytest.mark.rule("U6")
def test_strict_mode_table_catches_when_next_player_begins():
    t = _at_two(uno={"strict": True})
    t.play("blue-7")
    t.play("blue-8")
    caught = t.one("uno_caught")
    assert caught.by is None and caught.rule == "U6" and t.hands[1] == 3
    u = _at_two()
    u.play("blue-7")
    u.play("blue-8")
    assert "uno_caught" not in u.kinds() and u.hands[1] == 1


@pytest.mark.rule("U2", "U5")
def test_two_catches_at_once_one_outcome_first_counts_both_logged():
    t = _at_two()
    t.play("blue-7")
    t.double(2)
    t.double(3)
    assert t.kinds() == ["notice"] and "first catch counts" in t.events[0].reason
    assert t.hands == [7, 3, 7, 7]
    kinds = [type(i).__name__ for i in t.state.inputs()]
    assert kinds[-2:] == ["SeatGesture", "SeatGesture"]  # both presses are in the log


@pytest.mark.rule("U2", "U3")
def test_catch_then_late_call_one_outcome_by_order():
    t = _at_two()
    t.play("blue-7")
    t.double(2)
    t.press(1)  # the call arrives after the catch: ignored, no false-call penalty
    assert t.kinds() == ["notice"] and t.hands[1] == 3
    u = _at_two()
    u.play("blue-7")
    u.press(1)
    u.double(2)  # call first: the call stands, the catch is wrong
    assert u.hands[1] == 1 and u.hands[2] == 9


@pytest.mark.rule("U2")
def test_penalty_while_naming_a_colour_waits_for_the_colour():
    t = _at_two()
    t.play("wild")  # second-to-last card is a wild, no call
    t.double(3)
    assert "penalty_ordered" not in t.kinds() and t.snap["deferred_penalties"][0]["seat"] == 1
    assert t.hands[1] == 1
    t.colour("green")
    kinds = t.kinds()
    assert kinds.index("colour_named") < kinds.index("penalty_ordered")
    assert t.hands[1] == 3 and t.snap["colour"] == "green" and t.snap["deferred_penalties"] == []


def test_exposed_players_own_double_press_counts_as_the_call():
    t = _at_two()
    t.play("blue-7")
    t.double(1)
    assert t.one("uno_called").seat == 1 and t.hands[1] == 1


def test_hold_out_of_turn_is_rejected_with_state_unchanged():
    t = Scenario(starter="blue-5")
    before = t.state
    t.hold(3)
    assert t.kinds() == ["input_rejected"] and "seat 1's turn" in t.events[0].reason
    assert t.state == before


@pytest.mark.rule("U2", "U6", "A4")
def test_two_players_after_a_skip_the_window_stays_open_until_the_opponent_begins():
    t = Scenario(preset="two-player", starter="blue-5", uno={"strict": True})
    t.set_count(1, 2)
    t.play("blue-skip")  # second-to-last card, no call; seat 1 plays again
    assert t.turn == 1 and t.snap["uno"]["catchable"] == [1]
    t.double(0)  # the opponent may still catch before seat 1 goes out
    assert t.one("uno_caught").seat == 1 and t.hands[1] == 3
    u = Scenario(preset="two-player", starter="blue-5", uno={"strict": True})
    u.set_count(1, 2)
    u.play("blue-skip")
    u.play("blue-3")  # goes out: the table does not catch a player for its own next turn
    assert "uno_caught" not in u.kinds() and u.snap["phase"] == "round-over"


@pytest.mark.rule("U1", "U3")
def test_a_call_right_after_the_play_is_not_late_but_one_after_another_input_is():
    t = _at_two()
    t.play("blue-7")
    t.call(1)  # the very next input: said with the card
    assert not t.one("uno_called").late
    u = _at_two()
    u.play("blue-7")
    u.press(3)  # seat 3's false call (U4) came first: the window had passed
    u.call(1)
    assert u.one("uno_called").late


# ----- issue 15: a call pressed with the second-to-last card, whichever way it reached the hand


@pytest.mark.rule("U1", "U4")
def test_call_pressed_as_the_just_drawn_card_goes_down_counts():
    for drawn in ("blue-9", None):  # the drawn face reported (phone) or unseen (camera)
        t = Scenario(starter="blue-5")
        t.set_count(1, 1)
        t.draw(card=drawn)  # one card + the drawn one: two
        assert t.hands[1] == 2 and t.snap["phase"] == "drawn"
        t.press(1)  # pressed just before the camera saw the drawn card go down
        assert "penalty_ordered" not in t.kinds() and t.hands[1] == 2
        t.play("blue-9")
        assert t.one("uno_called").seat == 1
        assert t.snap["uno"]["called"] == [1] and t.snap["uno"]["catchable"] == []
        t.double(2)  # the call counted: catching seat 1 is a wrong catch (U5)
        assert t.one("penalty_ordered").seat == 2 and t.hands[1] == 1


@pytest.mark.rule("U1", "U4")
def test_call_pressed_while_naming_the_colour_of_a_wild_starter_counts():
    t = Scenario(starter="wild")  # seat 1 names the colour, then plays first (S4)
    t.set_count(1, 2)
    t.press(1)
    assert "penalty_ordered" not in t.kinds() and t.hands[1] == 2
    t.colour("red")
    t.play("red-3")
    assert t.one("uno_called").seat == 1 and t.snap["uno"]["catchable"] == []


@pytest.mark.rule("U4")
def test_a_call_that_cannot_come_with_the_second_to_last_card_is_still_false():
    t = Scenario(starter="blue-5")
    t.set_count(1, 2)
    t.draw(card="red-1")  # three cards after the draw: no play leaves one
    t.press(1)
    assert t.one("penalty_ordered").rule == "U4" and t.hands[1] == 5
    u = Scenario(starter="wild")
    u.set_count(2, 2)
    u.press(2)  # seat 2 is not the one naming the colour and playing first
    assert u.snap["deferred_penalties"][0]["rule"] == "U4"  # after the colour (edge case)
    u.colour("red")
    assert u.one("penalty_ordered").rule == "U4" and u.hands[2] == 4
