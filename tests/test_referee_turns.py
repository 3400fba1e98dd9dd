"""Sections P (a turn) and A (action cards)."""

import pytest

from table.inputs import HostPenalty
from table.scenario import Scenario


@pytest.mark.rule("P2")
@pytest.mark.parametrize("card", ["blue-9", "red-5", "blue-skip", "wild", "wild-draw4"])
def test_playable_by_colour_number_or_wild(card):
    t = Scenario(starter="blue-5")
    t.play(card)
    assert t.one("play_accepted").card == card


@pytest.mark.rule("P2", "P7")
def test_illegal_play_reason_is_one_readable_line_and_costs_two():
    t = Scenario(starter="blue-5")
    t.play("red-7")
    ill = t.one("illegal_play")
    assert ill.reason == "red 7 does not match blue 5" and ill.rule == "P2"
    assert ill.inferred and ill.seat == 1
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (1, 2, "P7")
    # the card went back to the hand: 7 + 2, the pile is unchanged, still seat 1's turn
    assert t.hands[1] == 9 and t.snap["top_card"] == "blue-5" and t.turn == 1
    assert t.snap["last_verdicts"][-1]["kind"] == "illegal_play"


@pytest.mark.rule("P2")
@pytest.mark.parametrize(
    "top,card",
    [("red-skip", "green-skip"), ("red-reverse", "blue-reverse"), ("red-draw2", "yellow-draw2")],
)
def test_action_symbols_match_in_any_colour(top, card):
    t = Scenario(starter="red-3")
    t.play(top)
    t.play(card)
    assert t.one("play_accepted").card == card


@pytest.mark.rule("P2", "A4")
def test_reverse_does_not_match_skip_by_symbol_even_with_two_players():
    t = Scenario(preset="two-player", starter="red-3")
    t.play("red-reverse")  # acts as a skip: seat 1 plays again
    assert t.turn == 1
    t.play("blue-skip")
    assert t.one("illegal_play").reason == "blue skip does not match red reverse"


@pytest.mark.rule("P3", "W1")
def test_after_a_wild_only_the_named_colour_matches():
    t = Scenario(starter="red-5")
    t.play("wild")
    t.colour("green")
    t.play("red-5")  # not red, and the wild has no number
    assert t.one("illegal_play").reason == "red 5 does not match green (named after wild)"
    assert t.one("illegal_play").rule == "P3"
    t.play("green-1")
    assert t.one("play_accepted")


@pytest.mark.rule("P3")
def test_a_wild_may_name_the_colour_already_current():
    t = Scenario(starter="red-5")
    t.play("wild")
    t.colour("red")
    t.play("red-8")
    assert t.one("play_accepted")


@pytest.mark.rule("P4")
def test_one_card_per_turn():
    t = Scenario(starter="red-5")
    t.play("red-7", "blue-7")
    ill = t.one("illegal_play")
    assert ill.rule == "P4" and ill.reason == "one card per turn"
    assert t.hands[1] == 9 and t.turn == 1


@pytest.mark.rule("P5", "P6")
def test_may_draw_instead_of_playing_then_play_the_drawn_card():
    t = Scenario(starter="red-5")
    t.draw(card="blue-3")  # holding a playable card does not matter: the table cannot see it
    assert t.one("cards_drawn").count == 1 and t.hands[1] == 8
    assert t.snap["drawn_this_turn"]
    t.play("blue-5")  # not the drawn card
    assert t.one("illegal_play").rule == "P6"
    assert "only the drawn blue 3" in t.one("illegal_play").reason
    t2 = Scenario(starter="red-5")
    t2.draw(card="red-9")
    t2.play("red-9")
    assert t2.one("play_accepted").seat == 1 and t2.turn == 2


@pytest.mark.rule("P6")
def test_drawn_card_not_playable_the_turn_passes():
    t = Scenario(starter="red-5")
    t.draw(card="blue-3")
    t.hold(1)  # hold = pass after drawing
    assert t.one("turn_passed").seat == 1 and t.turn == 2 and t.hands[1] == 8


@pytest.mark.rule("P6")
def test_pass_without_reported_draw_implies_one_drawn_card():
    t = Scenario(starter="red-5")
    t.pass_()
    drawn = t.one("cards_drawn")
    assert drawn.inferred and drawn.count == 1 and t.hands[1] == 8 and t.turn == 2


@pytest.mark.rule("P6")
def test_only_one_draw_per_turn():
    t = Scenario(starter="red-5")
    t.draw()
    before = t.state
    t.draw()
    assert t.kinds() == ["input_rejected"] and t.state == before


@pytest.mark.rule("P6")
def test_number_only_option_for_the_drawn_card():
    t = Scenario(starter="red-5", play={"play_drawn": "number-only"})
    t.draw(card="red-skip")
    t.play("red-skip")
    assert t.one("illegal_play").rule == "P6"
    t2 = Scenario(starter="red-5", play={"play_drawn": "number-only"})
    t2.draw(card="red-2")
    t2.play("red-2")
    assert t2.one("play_accepted")


@pytest.mark.rule("P7")
def test_illegal_penalty_size_is_an_option_zero_turns_it_off():
    t = Scenario(starter="blue-5", play={"illegal_play_penalty": 0})
    t.play("red-7")
    assert t.kinds() == ["illegal_play"] and t.hands[1] == 7
    t3 = Scenario(starter="blue-5", play={"illegal_play_penalty": 3})
    t3.play("red-7")
    assert t3.one("penalty_ordered").count == 3 and t3.hands[1] == 10


@pytest.mark.rule("P1", "P7")
def test_a_card_out_of_turn_is_an_illegal_play_by_that_seat():
    t = Scenario(starter="blue-5")
    t.play("blue-7", seat=3)
    ill = t.one("illegal_play")
    assert ill.seat == 3 and not ill.inferred and "out of turn" in ill.reason and ill.rule == "P1"
    assert t.hands == [7, 7, 7, 9] and t.turn == 1


@pytest.mark.rule("P8")
def test_advice_penalty_applied_by_the_host():
    t = Scenario(starter="blue-5")
    t.send(HostPenalty(seat=2))
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (2, 2, "P8") and t.hands[2] == 9
    u = Scenario(starter="blue-5", play={"advice_penalty": 1})
    u.send(HostPenalty(seat=2))
    assert u.hands[2] == 8
    u.send(HostPenalty(seat=2, count=3, reason="pointed at a card"))
    assert u.hands[2] == 11 and u.one("penalty_ordered").reason == "pointed at a card"
    before = u.state
    u.send(HostPenalty(seat=2, rule="X1"))
    assert u.kinds() == ["input_rejected"] and u.state == before


@pytest.mark.rule("P9")
def test_empty_draw_pile_reshuffles_the_discards_except_the_top():
    t = Scenario(starter="blue-5")
    for card in ("blue-6", "blue-7", "blue-8"):
        t.play(card)
    t.set_count(0, 7 + t.state.draw_count)  # host: seat 0 actually holds the rest of the pile
    assert t.state.draw_count == 0
    t.draw(seat=0)
    re = t.one("deck_reshuffled")
    assert re.cards == 3 and re.rule == "P9"
    assert t.state.draw_count == 2 and t.snap["discard_count"] == 1 and t.snap["top_card"] == "blue-8"
    assert t.kinds().index("deck_reshuffled") < t.kinds().index("cards_drawn")


@pytest.mark.rule("A1")
def test_skip():
    t = Scenario(starter="blue-5")
    t.play("blue-skip")
    assert t.one("turn_skipped").seat == 2 and t.turn == 3


@pytest.mark.rule("A2")
def test_reverse_flips_direction_previous_player_plays_next():
    t = Scenario(starter="blue-5")
    t.play("blue-6")  # seat 1
    t.play("blue-reverse")  # seat 2
    assert t.state.direction == -1 and t.turn == 1
    t.play("blue-2")
    assert t.turn == 0


@pytest.mark.rule("A3")
def test_draw_two_next_draws_two_and_loses_turn():
    t = Scenario(starter="blue-5")
    t.play("blue-draw2")
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (2, 2, "A3")
    assert t.hands[2] == 9 and t.turn == 3 and t.one("cards_drawn").inferred


@pytest.mark.rule("A4")
def test_two_players_skip_and_draw_two_same_player_plays_again():
    t = Scenario(preset="two-player", starter="blue-5")
    assert t.turn == 1
    t.play("blue-skip")
    assert t.turn == 1
    t.play("blue-draw2")
    assert t.hands == [9, 5] and t.turn == 1
    t.play("blue-reverse")
    assert t.turn == 1 and t.one("turn_skipped").rule == "A4"


@pytest.mark.rule("A4", "W2")
def test_two_players_wild_draw_four_opponent_draws_same_player_again():
    t = Scenario(preset="two-player", starter="blue-5")
    t.play("wild-draw4")
    t.colour("red")
    t.challenge(False)
    assert t.hands == [11, 6] and t.turn == 1


@pytest.mark.rule("A5")
def test_going_out_on_draw_two_next_still_draws_and_counts_in_score():
    t = Scenario(starter="blue-5")
    t.set_count(1, 1)
    t.play("blue-draw2")
    kinds = t.kinds()
    assert kinds.index("cards_drawn") < kinds.index("round_ended")
    assert t.hands[2] == 9 and t.snap["winner"] == 1
    t.reveal(0, "red-1")
    t.reveal(3, "red-2")
    before = t.snap["scores"][1]
    t.reveal(2, *(["blue-9"] * 7 + ["wild", "red-skip"]))  # the two drawn cards count
    # seats 0 and 3 showed one card each but hold 7: the host confirms before scoring
    assert t.snap["score_held"] == [[0, 7, 1], [3, 7, 1]] and t.snap["scores"][1] == before
    t.send({"kind": "confirm_score"})
    assert t.snap["scores"][1] - before == 1 + 2 + 63 + 50 + 20


@pytest.mark.rule("A5")
def test_going_out_on_wild_draw_four_next_still_draws_four():
    t = Scenario(starter="blue-5")
    t.set_count(1, 1)
    t.play("wild-draw4")
    assert t.one("penalty_ordered").rule == "A5" and t.hands[2] == 11
    assert t.snap["phase"] == "round-over" and "colour_needed" not in t.kinds()
