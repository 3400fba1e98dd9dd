"""What the table's own observations mean, decided by the referee (the observer asks):
whose hand a reveal is, and what a reach into the draw pile is."""

import pytest

from table.inputs import Draw, Spin
from table.referee import draw_reach, reveal_owner
from table.scenario import Scenario


@pytest.mark.rule("W3", "R1")
def test_a_reveal_is_the_challenged_hand_or_the_next_hand_to_score_in_seat_order():
    t = Scenario(starter="blue-5")
    assert reveal_owner(t.state) is None  # in a turn nobody owes a reveal
    t.play("wild-draw4")
    t.colour("red")
    t.press(2)
    assert reveal_owner(t.state) == (1, "challenge")
    u = Scenario(starter="blue-5")
    u.set_count(1, 1)
    u.play("blue-7")  # seat 1 goes out
    assert reveal_owner(u.state) == (0, "scoring")
    u.reveal(0, "red-1", "red-2", "red-3", "red-4", "red-5", "red-6", "red-7")
    assert reveal_owner(u.state) == (2, "scoring")
    for seat in (2, 3):
        u.reveal(seat, "red-1", "red-2", "red-3", "red-4", "red-5", "red-6", "red-7")
    assert reveal_owner(u.state) is None  # every hand scored


@pytest.mark.rule("P5", "P6", "H7", "W2")
def test_a_reach_into_the_draw_pile_is_what_the_rules_say_it_is():
    t = Scenario(starter="blue-5")
    draw, why = draw_reach(t.state)
    assert draw == Draw() and "voluntary" in why
    t.draw()
    assert draw_reach(t.state)[0] is None  # one draw a turn (P6)
    u = Scenario(starter="blue-5", house={"draw_until_playable": "playable"})
    u.draw(card="red-1")
    assert draw_reach(u.state)[0] == Draw()  # H7: the drawing goes on
    u.draw(card="blue-9")
    assert draw_reach(u.state)[0] is None  # a playable card came: play it
    v = Scenario(starter="blue-5")
    v.play("wild-draw4")
    v.colour("red")
    assert draw_reach(v.state)[0] == Draw(seat=2)  # the seat told to draw four takes them


@pytest.mark.rule("H13")
def test_while_drawing_until_the_wheel_s_colour_each_reach_is_a_draw():
    t = Scenario(starter="blue-5", house={"spin": True})
    t.play("blue-7")
    assert draw_reach(t.state)[0] is None  # the wheel first
    t.send(Spin(outcome="draw-until-colour", colour="red"))
    assert draw_reach(t.state)[0] == Draw()
