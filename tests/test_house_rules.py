"""Section H (house rules) and W4 through the referee: every option changes what happens.

Scenario(starter="blue-5"): 4 seats, seat 0 deals, seat 1 plays first, 7 cards each.
"""

import pytest

from table.errors import ConfigError
from table.inputs import Attack, HostPenalty, Play, SeatGesture, SwapHands, Tick
from table.rules import load_rules
from table.scenario import Scenario

STACK = {"stack_draw2": True, "stack_draw4": True}


def _t(starter="blue-5", **house):
    return Scenario(starter=starter, house=house)


def _slap(t, seat, at):
    return t.send(SeatGesture(seat=seat, gesture="press", at=at))


# ----- H1 / H2 / H3 / H4 / W4: stacking


@pytest.mark.rule("H1")
def test_draw_twos_stack_and_the_first_who_does_not_add_draws_all():
    t = _t(stack_draw2=True)
    t.play("blue-draw2")
    assert t.turn == 2 and t.snap["pending_draws"][0]["count"] == 2 and t.hands[2] == 7
    t.play("red-draw2")  # any colour may be added
    assert t.turn == 3 and sum(p["count"] for p in t.snap["pending_draws"]) == 4
    t.draw()  # seat 3 will not add: draws all four and loses the turn
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (3, 4, "H1")
    assert t.hands[3] == 11 and t.one("turn_skipped").seat == 3 and t.turn == 0
    assert t.snap["pending_draws"] == []


@pytest.mark.rule("H1")
def test_without_stacking_a_draw_two_is_drawn_at_once():
    t = _t()
    t.play("blue-draw2")
    assert t.hands[2] == 9 and t.turn == 3
    t2 = _t(stack_draw2=True)
    t2.play("blue-draw2")
    t2.play("blue-skip")  # not a draw card and deflect is off
    assert t2.one("illegal_play").rule == "H1" and t2.turn == 2


@pytest.mark.rule("H2", "W4")
def test_wild_draw_four_goes_on_a_draw_two_and_is_the_chain_s_challengeable_card():
    t = _t(**STACK)
    t.play("blue-draw2")
    t.play("wild-draw4")
    t.colour("red")
    offer = t.one("challenge_offered")
    assert (offer.seat, offer.against, offer.count) == (3, 2, 6)
    t.hold(3)  # accept: draws the whole chain
    assert t.one("penalty_ordered").count == 6 and t.hands[3] == 13 and t.turn == 0


@pytest.mark.rule("H2")
def test_draw_two_may_not_go_on_a_wild_draw_four_but_a_draw_four_may():
    t = _t(**STACK)
    t.play("wild-draw4")
    t.colour("red")
    t.play("red-draw2")  # seat 2, told to draw 4
    assert t.one("illegal_play").reason == "a Draw Two may not go on a Wild Draw Four (H2)"
    t.play("wild-draw4")  # stacking instead of challenging
    t.colour("green")
    # W4: only the first Wild Draw Four of a chain may be challenged: seat 3 just faces 8
    assert t.find("challenge_offered") == [] and t.turn == 3 and t.snap["phase"] == "play"
    assert sum(p["count"] for p in t.snap["pending_draws"]) == 8
    t.challenge(seat=3)
    assert t.one("input_rejected").reason == "there is no Wild Draw Four to challenge now"
    t.draw()
    assert t.one("penalty_ordered").count == 8 and t.hands[3] == 15


@pytest.mark.rule("H2")
def test_seed_003_same_colour_pair_of_draw_twos_covers_a_draw_four():
    t = _t(draw2_pair_on_draw4=True, **STACK)
    t.play("wild-draw4")
    t.colour("red")
    t.play("green-draw2", "yellow-draw2")  # not the same colour
    assert t.one("illegal_play").rule == "H2"
    t.play("green-draw2", "green-draw2")
    assert t.hands[2] == 7 - 2 + 2 and t.turn == 3  # 2 penalty cards from the bad pair, 2 played
    assert [p["card"] for p in t.snap["pending_draws"]] == ["draw4", "pair"]
    t.play("blue-draw2")
    assert t.one("illegal_play").reason == "a single Draw Two may not cover a pair of Draw Twos (H2)"
    t.draw()
    assert t.one("penalty_ordered").count == 8


@pytest.mark.rule("H2")
def test_pair_variant_off_refuses_the_pair():
    t = _t(**STACK)
    t.play("wild-draw4")
    t.colour("red")
    t.play("green-draw2", "green-draw2")
    assert t.one("illegal_play").rule == "H2"


@pytest.mark.rule("H3")
def test_same_colour_skip_passes_the_count_to_the_player_after_next():
    t = _t(stack_draw2=True, deflect=True)
    t.play("blue-draw2")
    t.play("red-skip")  # wrong colour
    assert "only a blue skip deflects" in t.one("illegal_play").reason
    t.play("blue-skip")
    assert t.turn == 0 and t.snap["pending_draws"][0]["seat"] == 0
    t.draw()
    assert (t.one("penalty_ordered").seat, t.one("penalty_ordered").count) == (0, 2)
    assert t.hands[2] == 7 - 1 + 2  # seat 2 paid only for its wrong skip (P7)


@pytest.mark.rule("H3")
def test_same_colour_reverse_sends_the_count_back_to_the_previous_player():
    t = _t(stack_draw2=True, deflect=True)
    t.play("blue-draw2")
    t.play("blue-reverse")
    assert t.snap["direction"] == -1 and t.turn == 1
    t.play("green-draw2")  # seat 1 adds instead, the count goes on counter-clockwise to 0
    assert t.turn == 0
    t.draw()
    assert (t.one("penalty_ordered").seat, t.one("penalty_ordered").count) == (0, 4)


@pytest.mark.rule("H3")
def test_deflect_without_stacking_is_refused_at_load():
    with pytest.raises(ConfigError, match="house.deflect needs house.stack_draw2"):
        load_rules(overrides={"house": {"deflect": True}})


@pytest.mark.rule("H4")
def test_after_the_stack_is_drawn_the_next_player_follows_the_draw_two_colour():
    t = _t(stack_draw2=True, follow_stack_colour=True)
    t.play("blue-draw2")
    t.draw()  # seat 2 takes 2, seat 3 is next
    t.play("red-draw2")  # would match by symbol, but H4 wants blue
    assert t.one("illegal_play").rule == "H4"
    t.play("blue-3")
    assert t.one("play_accepted").card == "blue-3" and t.turn == 0
    u = _t(stack_draw2=True)  # H4 off: the symbol matches as usual
    u.play("blue-draw2")
    u.draw()
    u.play("red-draw2")
    assert u.one("play_accepted").card == "red-draw2"


@pytest.mark.rule("W4")
def test_guilty_first_draw_four_of_a_chain_challenger_escapes_the_whole_chain():
    t = _t(**STACK)
    t.play("blue-draw2")
    t.play("wild-draw4")  # seat 2 held a blue card: illegal
    t.colour("red")
    t.press(3)  # challenge
    t.reveal(2, "blue-1", "red-2", "green-3", "yellow-4", "red-5", "green-6")
    res = t.one("challenge_resolved")
    assert res.guilty and (res.drawer, res.count) == (2, 4)
    assert t.hands[3] == 7 and t.hands[2] == 10 and t.turn == 0
    assert t.one("penalty_ordered").rule == "W4"


@pytest.mark.rule("W4")
def test_innocent_chain_challenger_draws_the_whole_count_plus_two():
    t = _t(**STACK)
    t.play("blue-draw2")
    t.play("wild-draw4")
    t.colour("red")
    t.press(3)
    t.reveal(2, "red-1", "red-2", "green-3", "yellow-4", "red-5", "green-6")
    res = t.one("challenge_resolved")
    assert not res.guilty and (res.drawer, res.count) == (3, 2 + 4 + 2)
    assert t.hands[3] == 15 and t.turn == 0
    assert res.rule == "W4" and res.text().endswith("seat 3 draws 8 (W4)")  # issue 15: not "(W3)"
    u = _t()  # no chain: the verdict names W3
    u.play("wild-draw4")
    u.colour("red")
    u.press(2)
    u.reveal(1, "red-1", "green-3", "red-2", "green-4", "yellow-5", "red-6")
    assert u.one("challenge_resolved").text().endswith("seat 2 draws 6 (W3)")


@pytest.mark.rule("W3", "W4", "W2")
def test_seed_002_draw_four_on_a_pending_draw_two_is_judged_by_what_could_answer_the_stack():
    """Issue 15: facing a +2, only a +2, a +4 or a same-colour Skip / Reverse may be played
    (H1-H3), so a blue 3 held was not playable: the +4 was legal (W2, no other playable card)."""
    hand = ("blue-3", "green-7", "yellow-1", "red-5", "green-1", "yellow-8")
    t = Scenario(preset="seed-house", starter="blue-5")
    t.play("blue-draw2")
    t.play("wild-draw4")
    t.colour("red")
    t.press(3)  # challenge
    t.reveal(2, *hand)
    res = t.one("challenge_resolved")
    assert not res.guilty and (res.drawer, res.count, res.rule) == (3, 2 + 4 + 2, "W4")
    assert t.hands[3] == 15 and t.hands[2] == 6 and t.turn == 0
    for answer in ("blue-skip", "blue-reverse", "green-draw2"):  # could have answered the +2
        u = Scenario(preset="seed-house", starter="blue-5")
        u.play("blue-draw2")
        u.play("wild-draw4")
        u.colour("red")
        u.press(3)
        u.reveal(2, answer, *hand[1:])
        res = u.one("challenge_resolved")
        assert res.guilty and (res.drawer, res.count) == (2, 4), answer
        assert u.hands[3] == 7 and u.hands[2] == 10
    v = Scenario(preset="seed-house", starter="blue-5")
    v.play("blue-draw2")
    v.play("wild-draw4")
    v.colour("red")
    v.press(3)
    v.reveal(2, "red-skip", *hand[1:])  # a Skip of another colour cannot deflect a blue +2
    assert not v.one("challenge_resolved").guilty


@pytest.mark.rule("H2", "U2", "P9")
def test_penalties_waiting_for_a_challenge_apply_once_the_stacked_card_is_on_the_pile():
    t = _t(**STACK)
    t.set_count(2, 2)
    t.play("blue-draw2")
    t.play("wild-draw4")  # seat 2: one card left, no call
    t.double(0)  # caught while naming the colour: the penalty waits
    t.colour("red")  # ...and then for the challenge
    assert t.one("challenge_offered").seat == 3 and t.snap["deferred_penalties"][0]["seat"] == 2
    t.set_count(0, 7 + t.snap["draw_pile"])  # empty the draw pile: the penalty reshuffles
    t.play("wild-draw4")  # seat 3 adds instead of challenging
    assert t.one("play_accepted").seat == 3 and t.one("penalty_ordered").seat == 2
    assert t.one("deck_reshuffled").cards == 3  # every card under the new top card
    assert t.snap["top_card"] == "wild-draw4" and t.snap["discard_count"] == 1 and t.hands[2] == 3


@pytest.mark.rule("W3", "H4")
def test_seed_002_draw_four_after_a_drawn_stack_is_judged_by_the_colour_to_follow():
    hand = ("red-draw2", "green-7", "yellow-1", "red-5", "green-1", "yellow-8")
    t = Scenario(preset="seed-house", starter="blue-5")
    t.play("blue-draw2")
    t.draw()  # seat 2 takes the 2; seat 3 must follow blue (H4): a red Draw Two does not fit
    t.play("wild-draw4")
    t.colour("red")
    t.press(0)
    t.reveal(3, *hand)
    assert not t.one("challenge_resolved").guilty
    u = Scenario(preset="seed-house", starter="blue-5")
    u.play("blue-draw2")
    u.draw()
    u.play("wild-draw4")
    u.colour("red")
    u.press(0)
    u.reveal(3, "blue-9", *hand[1:])
    assert u.one("challenge_resolved").guilty


# ----- H5 jump-in


@pytest.mark.rule("H5")
def test_jump_in_with_an_identical_card_skips_the_players_between():
    t = _t(jump_in="any")
    t.play("blue-7")
    assert t.turn == 2
    t.play("blue-7", seat=0)
    assert t.one("play_accepted").seat == 0 and t.turn == 1  # seats 2 and 3 lost that turn
    t.play("blue-8", seat=3)  # not identical: out of turn
    assert t.one("illegal_play").rule == "P1"
    off = _t()
    off.play("blue-7")
    off.play("blue-7", seat=0)
    assert off.one("illegal_play").rule == "P1"


@pytest.mark.rule("H5")
def test_jump_in_variants_number_only_coloured_only_and_own_card():
    t = _t(jump_in="number-only")
    t.play("blue-skip")
    t.play("blue-skip", seat=2)
    assert t.one("illegal_play").rule == "P1"
    c = _t(jump_in="coloured-only")
    c.play("wild")
    c.colour("red")
    c.play("wild", seat=0)
    assert c.one("illegal_play").rule == "P1"
    a = _t(jump_in="any")
    a.play("wild")
    a.colour("red")
    a.play("wild", seat=0)
    assert a.one("play_accepted").seat == 0 and a.snap["phase"] == "colour"
    own = _t(jump_in="any")
    own.play("blue-7")
    own.play("blue-7", seat=1)  # seed 004: on one's own card
    assert own.one("play_accepted").seat == 1 and own.turn == 2
    no_own = _t(jump_in="any", jump_in_own=False)
    no_own.play("blue-7")
    no_own.play("blue-7", seat=1)
    assert no_own.one("illegal_play").rule == "P1"


@pytest.mark.rule("H5", "H8")
def test_a_jump_in_with_a_seven_still_swaps():
    t = _t(jump_in="any", seven_o=True)
    t.play("blue-7")
    t.send(SwapHands(target=2))
    assert t.turn == 2
    t.play("blue-7", seat=0)
    assert t.one("swap_needed").seat == 0 and t.snap["swap"] == 0
    t.set_count(3, 2)
    t.send(SwapHands(target=3))
    assert t.hands[0] == 2 and t.hands[3] == 6 and t.turn == 1


# ----- H6 multi-play


@pytest.mark.rule("H6")
def test_several_skips_skip_as_many_players_and_the_top_card_names_the_colour():
    t = _t(multi_play="same-rank")
    t.play("blue-skip", "red-skip")
    acc = t.one("play_accepted")
    assert acc.cards == ("blue-skip", "red-skip") and t.hands[1] == 5
    assert [e.seat for e in t.find("turn_skipped")] == [2, 3] and t.turn == 0
    assert t.snap["colour"] == "red"
    t.play("green-3", "yellow-3")  # the bottom card must match: green 3 on red skip does not
    assert t.one("illegal_play").rule == "P2"
    t.play("red-3", "yellow-3")
    assert t.snap["colour"] == "yellow" and t.turn == 1


@pytest.mark.rule("H6")
def test_two_draw_twos_at_once_give_four_and_mixed_ranks_are_refused():
    t = _t(multi_play="same-rank")
    t.play("blue-draw2", "green-draw2")
    assert t.one("penalty_ordered").count == 4 and t.hands[2] == 11
    t.play("green-4", "green-5")
    assert t.one("illegal_play").rule == "H6"


@pytest.mark.rule("H6", "H1")
def test_two_draw_twos_laid_together_on_a_pending_draw_two_add_four():
    """Issue 15: no-mercy-lite (H1 with H6 same-rank): the pair adds 4 on a pending Draw Two
    as on an empty pile."""
    t = Scenario(preset="no-mercy-lite", starter="blue-5")
    t.play("blue-draw2")  # seat 1: seat 2 faces 2
    t.play("red-draw2", "green-draw2")  # seat 2 adds both
    assert sum(p["count"] for p in t.snap["pending_draws"]) == 6 and t.turn == 3
    t.draw()  # seat 3 takes the stack
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (3, 6, "H1") and t.hands[3] == 13
    u = Scenario(preset="no-mercy-lite", starter="blue-5")
    u.play("blue-draw2", "red-draw2")  # on an empty pile the same pair gives 4
    assert sum(p["count"] for p in u.snap["pending_draws"]) == 4 and u.turn == 2
    u.draw()
    assert u.one("penalty_ordered").count == 4 and u.hands[2] == 11
    v = Scenario(starter="blue-5", house={"stack_draw2": True, "multi_play": "identical-pair"})
    v.play("blue-draw2")
    v.play("red-draw2", "red-draw2")  # seed 002: an identical pair hits the next player once
    assert sum(p["count"] for p in v.snap["pending_draws"]) == 4


@pytest.mark.rule("H6", "P4")
def test_seed_002_identical_pair_hits_the_next_player_once():
    t = _t(multi_play="identical-pair")
    t.play("blue-skip", "blue-skip")
    assert [e.seat for e in t.find("turn_skipped")] == [2] and t.turn == 3
    t.play("blue-3", "red-3")
    assert t.one("illegal_play").reason == "only an identical pair may be played together (H6)"
    off = _t()
    off.play("blue-3", "blue-3")
    assert off.one("illegal_play").rule == "P4"


# ----- H7 draw until playable


@pytest.mark.rule("H7")
def test_draw_until_playable_then_play_it():
    t = _t(draw_until_playable="playable")
    t.draw(card="red-1")
    t.pass_()
    assert t.one("input_rejected").reason == "draw until playable: keep drawing (H7)"
    t.draw(card="red-2")
    t.draw(card="blue-9")
    assert t.hands[1] == 10
    t.pass_()
    assert "play the drawn blue 9" in t.one("input_rejected").reason
    t.draw(card="red-3")
    assert t.one("input_rejected").kind == "input_rejected"
    t.play("blue-9")
    assert t.one("play_accepted").hand_count == 9 and t.turn == 2
    off = _t()
    off.draw(card="red-1")
    off.draw(card="red-2")
    assert "already drew" in off.one("input_rejected").reason


@pytest.mark.rule("H7")
def test_seed_002_draw_until_a_playable_number_card():
    t = _t(draw_until_playable="playable-number")
    t.draw(card="blue-skip")  # playable, but not a number card: keep drawing
    t.draw(card="blue-4")
    assert t.hands[1] == 9 and t.find("input_rejected") == []
    t.play("blue-4")
    assert t.turn == 2


# ----- H8 Seven-O


@pytest.mark.rule("H8")
def test_zero_passes_every_hand_on_in_the_direction_of_play():
    t = _t(seven_o=True)
    t.set_count(1, 3)
    t.set_count(2, 5)
    t.play("blue-0")  # seat 1 now holds 2
    moved = t.one("hands_moved")
    assert moved.rule == "H8" and t.hands == [7, 7, 2, 5]  # 0->1, 1->2, 2->3, 3->0
    assert t.turn == 2


@pytest.mark.rule("H8")
def test_seed_002_only_a_zero_of_the_current_colour_rotates():
    t = _t(seven_o=True, seven_o_zero="current-colour")
    t.set_count(2, 4)
    t.play("blue-0")  # blue is the current colour: hands rotate
    assert t.one("hands_moved").rule == "H8" and t.hands == [7, 7, 6, 4]
    t.play("red-0")  # seat 2: matches by number, but red is not the current colour
    assert t.find("hands_moved") == [] and t.hands == [7, 7, 5, 4] and t.turn == 3
    u = _t(seven_o=True)  # seed 003: any 0 rotates
    u.play("blue-0")
    u.play("red-0")
    assert u.one("hands_moved").rule == "H8"


@pytest.mark.rule("H8", "U2")
def test_seven_swaps_with_a_chosen_seat_and_one_card_after_a_swap_can_be_caught():
    t = _t(seven_o=True)
    t.set_count(3, 1)
    t.play("blue-7")
    assert t.snap["phase"] == "swap" and t.one("swap_needed").seat == 1
    t.play("blue-3")
    assert t.one("illegal_play").rule == "H8"  # name the seat first (and P7 costs 2)
    t.send(SwapHands(target=1))
    assert t.one("input_rejected").kind == "input_rejected"
    t.send(SwapHands(target=3))
    assert t.hands[1] == 1 and t.hands[3] == 8 and t.turn == 2
    assert t.snap["uno"]["catchable"] == [1]
    t.double(0)
    assert t.one("uno_caught").seat == 1 and t.hands[1] == 3


@pytest.mark.rule("H8", "U1")
def test_after_a_rotation_the_seat_with_one_card_may_call_uno():
    t = _t(seven_o=True)
    t.set_count(0, 1)
    t.play("blue-0")
    assert t.hands[1] == 1 and t.snap["uno"]["catchable"] == [1]
    t.call(1)
    assert t.one("uno_called").seat == 1 and t.snap["uno"]["catchable"] == []


# ----- H9 red 0


@pytest.mark.rule("H9")
def test_red_zero_is_a_draw_ten():
    t = _t(starter="red-5", red0_draw10=True)
    t.play("red-0")
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (2, 10, "H9") and t.hands[2] == 17 and t.turn == 3
    off = _t(starter="red-5")
    off.play("red-0")
    assert off.find("penalty_ordered") == [] and off.turn == 2


# ----- H10 Silent 2, H11 Slap 9 (seat-button windows)


@pytest.mark.rule("H10")
def test_silent_two_first_press_is_the_sound_and_draws_two():
    t = _t(silent2=True)
    t.play("blue-2")
    opened = t.one("window_opened")
    assert (opened.window, opened.seat, opened.buzzer) == ("silent2", 1, "start")
    t.press(3)
    closed = t.one("window_closed")
    assert closed.losers == (3,) and closed.buzzer == "end" and t.hands[3] == 9
    assert t.snap["windows"] == []
    t.press(0)  # silence is over: a press is an ordinary UNO press again (a false call, U4)
    assert t.one("penalty_ordered").rule == "U4"


@pytest.mark.rule("H10")
def test_silence_ends_when_the_player_of_the_two_plays_again():
    t = _t(silent2=True)
    t.play("blue-2")
    for card in ("blue-3", "blue-4", "blue-6"):
        t.play(card)
    assert t.snap["windows"][0]["window"] == "silent2"
    t.play("blue-8")  # seat 1 again
    closed = t.one("window_closed")
    assert closed.losers == () and "seat 1 played again" in closed.reason


@pytest.mark.rule("H11")
def test_slap_nine_the_slowest_press_by_time_draws_two():
    t = _t(slap9=True)
    t.send(Play(cards=("blue-9",), at=10.0))
    assert t.one("window_opened").window == "slap9"
    _slap(t, 1, 10.2)
    _slap(t, 2, 10.9)  # slowest by its time, though not the last received
    _slap(t, 0, 10.3)
    _slap(t, 3, 10.5)
    closed = t.one("window_closed")
    assert closed.losers == (2,) and closed.rule == "H11" and t.hands[2] == 9
    assert [p[0] for p in closed.presses] == [1, 2, 0, 3]


@pytest.mark.rule("H11")
def test_slap_nine_a_seat_that_never_presses_within_the_limit_draws():
    t = _t(slap9=True, slap9_limit=2.0)
    t.send(Play(cards=("blue-9",), at=10.0))
    _slap(t, 1, 10.2)
    _slap(t, 0, 10.3)
    _slap(t, 2, 10.4)
    t.send(Tick(at=11.0))  # still within the limit
    assert t.find("window_closed") == []
    t.send(Tick(at=12.5))
    closed = t.one("window_closed")
    assert closed.losers == (3,) and t.hands[3] == 9


# ----- P8 advice, H12 attack mode


@pytest.mark.rule("P8")
def test_advice_penalty_is_a_host_action_sized_by_the_rules():
    t = Scenario(starter="blue-5", play={"advice_penalty": 3})
    t.send(HostPenalty(seat=2))
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (2, 3, "P8") and t.hands[2] == 10


@pytest.mark.rule("H12")
def test_attack_mode_the_roll_in_the_input_says_how_many_cards():
    t = _t(attack_mode=True, attack_max=4)
    t.draw()
    assert "press the launcher" in t.one("input_rejected").reason
    t.send(Attack(roll=0.5))  # 0..4 -> int(0.5 * 5) = 2
    fired = t.one("launcher_fired")
    assert (fired.seat, fired.count) == (1, 2) and t.hands[1] == 9 and t.turn == 2
    t.send(Attack(roll=0.0))
    assert t.one("launcher_fired").count == 0 and t.hands[2] == 7 and t.turn == 3
    off = _t()
    off.send(Attack(roll=0.5))
    assert "attack_mode is off" in off.one("input_rejected").reason
