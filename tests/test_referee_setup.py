"""Section S: dealer, deal, starter card, first player."""

import pytest

from table.inputs import DealerDraw, Flip, StartRound
from table.scenario import Scenario


@pytest.mark.rule("S2")
def test_dealer_by_draw_highest_number_action_and_wild_cannot_win():
    t = Scenario(dealer=None, starter=None)
    assert t.snap["phase"] == "dealer-draw" and t.snap["awaiting"]["dealer_draw"] == [0, 1, 2, 3]
    t.send(DealerDraw({0: "red-3", 1: "wild", 2: "blue-skip", 3: "green-8"}))
    chosen = t.one("dealer_chosen")
    assert chosen.seat == 3 and chosen.rule == "S2"
    assert t.state.dealer == 3


@pytest.mark.rule("S2")
def test_dealer_draw_tie_redraws_only_tied_seats_and_no_number_redraws_all():
    t = Scenario(dealer=None, starter=None)
    t.send(DealerDraw({0: "red-9", 1: "blue-9", 2: "wild-draw4", 3: "green-2"}))
    assert t.one("dealer_draw_needed").seats == (0, 1)
    t.send(DealerDraw({0: "red-1", 1: "blue-2", 2: "red-9"}))  # seat 2 is not drawing
    assert t.kinds() == ["input_rejected"] and "seats [2] are not drawing" in t.events[0].reason
    t.send(DealerDraw({0: "red-4", 1: "blue-2"}))
    assert t.one("dealer_chosen").seat == 0
    u = Scenario(dealer=None, starter=None)
    u.send(DealerDraw({0: "wild", 1: "red-skip", 2: "wild-draw4", 3: "blue-draw2"}))
    assert u.one("dealer_draw_needed").seats == (0, 1, 2, 3)


@pytest.mark.rule("S2")
def test_host_picks_dealer_option_and_winner_deals_next_round():
    t = Scenario(start=False, setup={"dealer": "host"})
    t.send(StartRound())
    assert t.kinds() == ["input_rejected"] and "name the dealer" in t.events[0].reason
    t.send(StartRound(dealer=2))
    assert t.state.dealer == 2
    # play a round out: seat 3 (left of dealer 2) goes out, then deals round 2
    t.send(Flip(card="red-5"))
    t.set_count(3, 1)
    t.play("red-6")
    assert t.snap["phase"] == "round-over" and t.snap["winner"] == 3
    for seat in (0, 1, 2):
        t.reveal(seat, *["red-1"] * 7)
    t.send(StartRound())
    assert t.one("dealer_chosen").seat == 3 and "winner" in t.one("dealer_chosen").reason


@pytest.mark.rule("S3")
def test_deal_seven_each_rest_is_draw_pile_and_starter_flipped():
    t = Scenario(starter=None)
    dealt = t.one("cards_dealt")
    assert dealt.hand_size == 7 and dealt.inferred
    assert t.hands == [7, 7, 7, 7] and t.state.draw_count == 108 - 28
    assert t.snap["awaiting"]["starter"] is True
    t.send(Flip(card="green-4"))
    assert t.snap["top_card"] == "green-4" and t.snap["colour"] == "green"
    assert t.state.draw_count == 108 - 28 - 1 and t.snap["discard_count"] == 1


@pytest.mark.rule("S4")
def test_first_card_wild_draw_four_goes_back():
    t = Scenario(starter="wild-draw4")
    assert t.one("starter_returned").rule == "S4"
    assert t.snap["phase"] == "flip" and t.state.draw_count == 80 and t.snap["top_card"] is None
    t.send(Flip(card="red-2"))
    assert t.snap["phase"] == "play" and t.turn == 1


@pytest.mark.rule("S4")
def test_first_card_wild_first_player_names_colour_and_plays():
    t = Scenario(starter="wild")
    assert t.one("colour_needed").seat == 1
    t.colour("green")
    assert t.turn == 1 and t.snap["colour"] == "green" and t.snap["phase"] == "play"
    t.play("green-3")
    assert t.one("play_accepted").seat == 1


@pytest.mark.rule("S4")
def test_first_card_wild_redraw_option():
    t = Scenario(starter="wild", setup={"first_wild": "redraw"})
    assert t.one("starter_returned").reason.startswith("setup.first_wild")


@pytest.mark.rule("S4")
def test_first_card_draw_two_first_player_draws_and_is_skipped():
    t = Scenario(starter="red-draw2")
    drawn = t.one("cards_drawn")
    assert drawn.seat == 1 and drawn.count == 2 and drawn.inferred
    assert t.one("turn_skipped").seat == 1
    assert t.turn == 2 and t.hands == [7, 9, 7, 7]


@pytest.mark.rule("S4")
def test_first_card_skip_skips_first_player():
    t = Scenario(starter="blue-skip")
    assert t.one("turn_skipped").seat == 1 and t.turn == 2


@pytest.mark.rule("S4")
@pytest.mark.parametrize(
    "option,first",
    [("right-of-dealer", 3), ("dealer-first", 0), ("left-counter-clockwise", 1)],
)
def test_first_card_reverse_options(option, first):
    t = Scenario(starter="green-reverse", setup={"first_reverse": option})
    assert t.turn == first and t.state.direction == -1
    t.play("green-1")
    assert t.turn == (first - 1) % 4  # counter-clockwise from there


@pytest.mark.rule("S4")
def test_flip_until_number_option():
    t = Scenario(starter="red-skip", setup={"flip_until_number": True})
    assert t.kinds() == ["starter_returned"]
    t.send(Flip(card="wild"))
    assert t.kinds() == ["starter_returned"]
    t.send(Flip(card="red-0"))
    assert t.turn == 1


@pytest.mark.rule("S5", "P1")
def test_first_player_left_of_dealer_or_dealer_option_and_play_goes_clockwise():
    t = Scenario(dealer=2)
    assert t.turn == 3
    order = []
    for card in ("blue-6", "blue-7", "blue-8", "blue-9"):
        order.append(t.turn)
        t.play(card)
    assert order == [3, 0, 1, 2]
    u = Scenario(dealer=2, setup={"first_player": "dealer"})
    assert u.turn == 2


@pytest.mark.rule("A4", "S4")
def test_two_players_reverse_starter_acts_as_skip():
    t = Scenario(preset="two-player", dealer=0, starter="red-reverse")
    assert t.one("turn_skipped").seat == 1 and t.one("turn_skipped").rule == "A4"
    assert t.turn == 0 and t.state.direction == 1


def test_round_cannot_restart_while_in_progress():
    t = Scenario()
    before = t.state
    t.send(StartRound(dealer=1))
    assert t.kinds() == ["input_rejected"] and "still in progress" in t.events[0].reason
    assert t.state == before
