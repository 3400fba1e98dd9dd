"""Section W: wild cards and the Wild Draw Four challenge (settled by the revealed hand)."""

import pytest

from table.scenario import Scenario


def _wd4(starter="blue-5", **kw):
    t = Scenario(starter=starter, **kw)
    t.play("wild-draw4")  # seat 1
    t.colour("red")
    return t


@pytest.mark.rule("W1")
def test_wild_names_the_next_colour_and_play_continues():
    t = Scenario(starter="blue-5")
    t.play("wild")
    assert t.one("colour_needed").seat == 1 and t.snap["awaiting"]["colour"] == 1
    assert t.snap["colour"] is None
    t.colour("yellow")
    assert t.snap["colour"] == "yellow" and t.turn == 2


@pytest.mark.rule("W1")
def test_a_card_placed_before_the_colour_is_named_is_illegal():
    t = Scenario(starter="blue-5")
    t.play("wild")
    t.play("blue-7")
    assert t.one("illegal_play").rule == "W1"


def test_only_the_wild_player_names_the_colour():
    t = Scenario(starter="blue-5")
    t.play("wild")
    before = t.state
    t.colour("red", seat=3)
    assert t.kinds() == ["input_rejected"] and t.state == before


@pytest.mark.rule("W2")
def test_wild_draw_four_accepted_next_draws_four_and_loses_turn():
    t = _wd4()
    offer = t.one("challenge_offered")
    assert (offer.seat, offer.against, offer.count) == (2, 1, 4)
    assert t.snap["awaiting"]["challenge"] == 2
    assert t.snap["pending_draws"] == [{"seat": 2, "count": 4, "rule": "W2", "from": 1, "card": "draw4"}]
    t.hold(2)  # hold by the seat told to draw 4 = accept
    assert t.one("penalty_ordered").count == 4 and t.hands[2] == 11
    assert t.one("turn_skipped").seat == 2 and t.turn == 3 and t.snap["pending_draws"] == []


@pytest.mark.rule("W2")
def test_drawing_or_passing_accepts_the_draw_four():
    t = _wd4()
    t.draw(seat=2)
    assert t.hands[2] == 11 and t.turn == 3
    t = _wd4()
    t.pass_()
    assert t.hands[2] == 11 and t.turn == 3


@pytest.mark.rule("W3")
def test_press_by_the_victim_is_a_challenge_guilty_challenged_draws_four():
    t = _wd4()
    t.press(2)
    assert t.one("reveal_needed").seat == 1 and t.snap["awaiting"]["reveal"] == [1]
    t.reveal(1, "blue-9", "green-1", "red-3", "yellow-2", "wild", "red-0")  # held a blue
    res = t.one("challenge_resolved")
    assert res.guilty and res.drawer == 1 and res.count == 4 and "blue 9" in res.reason
    assert t.hands == [7, 10, 7, 7]  # the challenger draws nothing
    assert t.turn == 3  # ...but loses the turn
    assert t.snap["colour"] == "red"  # the named colour stands


@pytest.mark.rule("W3")
def test_innocent_challenger_draws_six_and_loses_turn():
    t = _wd4()
    t.challenge()
    t.reveal(1, "red-9", "green-1", "yellow-3", "wild", "red-skip", "green-0")
    res = t.one("challenge_resolved")
    assert not res.guilty and res.drawer == 2 and res.count == 6
    assert t.hands == [7, 6, 13, 7] and t.turn == 3 and t.snap["colour"] == "red"


@pytest.mark.rule("W2", "W3")
def test_challenge_looks_at_colour_only_not_number_or_symbol():
    # top blue 5: the challenged player holds a red 5 and a green skip (match by number /
    # symbol only) but no blue: the Wild Draw Four was legal.
    t = _wd4(starter="blue-5")
    t.challenge()
    t.reveal(1, "red-5", "green-5", "yellow-skip", "wild", "red-1", "green-9")
    assert not t.one("challenge_resolved").guilty


@pytest.mark.rule("W2", "W3", "P3")
def test_wild_draw_four_on_a_wild_judged_against_the_named_colour():
    t = Scenario(starter="blue-5")
    t.play("wild")
    t.colour("green")
    t.play("wild-draw4")  # seat 2 on the wild
    t.colour("red")
    t.challenge()
    # holds blue (the wild's predecessor colour) but no green: innocent
    t.reveal(2, "blue-5", "blue-9", "red-1", "yellow-2", "yellow-3", "red-7")
    assert not t.one("challenge_resolved").guilty
    u = Scenario(starter="blue-5")
    u.play("wild")
    u.colour("green")
    u.play("wild-draw4")
    u.colour("red")
    u.challenge()
    u.reveal(2, "green-2", "red-1", "yellow-2", "yellow-3", "red-7", "red-8")
    assert u.one("challenge_resolved").guilty


@pytest.mark.rule("W2")
def test_no_playable_card_option_makes_number_matches_count():
    t = _wd4(starter="blue-5", play={"wild_draw4_legal": "no-playable-card"})
    t.challenge()
    t.reveal(1, "red-5", "green-1", "yellow-2", "red-7", "green-8", "yellow-9")
    res = t.one("challenge_resolved")
    assert res.guilty and "red 5" in res.reason


@pytest.mark.rule("W3")
def test_only_the_seat_told_to_draw_four_may_challenge():
    t = _wd4()
    before = t.state
    t.challenge(seat=3)
    assert t.kinds() == ["input_rejected"] and "only seat 2" in t.events[0].reason
    assert t.state == before
    t.press(3)  # seat 3's press is not a challenge: it is a (false) UNO call
    assert t.one("penalty_ordered").rule == "U4"


@pytest.mark.rule("W3")
def test_revealed_count_differing_from_tracked_count_is_corrected_and_flagged():
    t = _wd4()
    t.challenge()
    t.reveal(1, "red-9", "green-1", "yellow-3", "wild", "red-skip")  # 5 shown, 6 tracked
    fix = t.one("hand_count_corrected")
    assert (fix.old, fix.new, fix.source) == (6, 5, "reveal")
    assert t.hands[2] == 13


def test_reveal_by_the_wrong_seat_is_rejected():
    t = _wd4()
    t.challenge()
    before = t.state
    t.reveal(3, "red-1")
    assert t.kinds() == ["input_rejected"] and t.state == before


@pytest.mark.rule("W3", "U2")
def test_penalty_for_the_challenged_seat_waits_for_the_verdict():
    """The reveal must show the hand the Wild Draw Four was played from: a catch during the
    challenge is drawn only after the verdict."""
    t = Scenario(starter="blue-5")
    t.set_count(1, 2)
    t.play("wild-draw4")  # second-to-last card, no UNO call
    t.colour("red")
    t.double(3)  # caught while seat 2 decides
    assert t.one("uno_caught").seat == 1 and "penalty_ordered" not in t.kinds()
    assert t.hands[1] == 1
    t.challenge()
    t.reveal(1, "blue-2")  # one card: the hand the WD4 came from
    res = t.one("challenge_resolved")
    assert res.guilty
    kinds = t.kinds()
    assert kinds.index("challenge_resolved") < kinds.index("penalty_ordered")
    assert t.hands[1] == 1 + 4 + 2
