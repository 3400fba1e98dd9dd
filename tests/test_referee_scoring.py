"""Section R and T1 through the referee: round end, scoring from revealed hands through
table.matches.Match, formats, elimination leaving the rotation, teams, the host's end_round
and the count-mismatch confirm path."""

import pytest

from table.inputs import ConfirmScore, EndRound, StartRound
from table.scenario import Scenario

SEVEN = {
    "ones": ["blue-1"] * 7,  # 7 points
    "twos": ["blue-2"] * 7,  # 14 points
    "wilds": ["wild"] * 7,  # 350 points
}


def _out(t, seat=1, card="blue-3"):
    """Seat `seat` (whose turn it is) goes out with `card`."""
    t.set_count(seat, 1)
    return t.play(card)


def _reveal_all(t, hands):
    for seat, cards in hands.items():
        t.reveal(seat, *cards)


@pytest.mark.rule("R1", "A5")
def test_round_ends_only_after_the_owed_draw_even_with_stacking_on():
    t = Scenario(starter="blue-5", house={"stack_draw2": True})
    _out(t, card="blue-draw2")
    kinds = t.kinds()
    assert kinds.index("cards_drawn") < kinds.index("round_ended")
    assert t.hands[2] == 9 and t.snap["phase"] == "round-over" and t.snap["pending_draws"] == []
    assert sorted(e.seat for e in t.find("reveal_needed")) == [0, 2, 3]


@pytest.mark.rule("R2", "D2")
def test_standard_winner_scores_the_revealed_hands_through_the_match():
    t = Scenario(starter="blue-5", scoring={"target": 300})
    _out(t)
    _reveal_all(t, {0: SEVEN["ones"], 2: SEVEN["twos"]})
    assert t.find("round_scored") == []  # seat 3 still to reveal
    t.reveal(3, *SEVEN["ones"])
    sc = t.one("round_scored")
    assert (sc.winner, sc.points, sc.scores) == (1, 28, (0, 28, 0, 0))
    assert t.state.match.totals == {0: 0, 1: 28, 2: 0, 3: 0}
    t.send(StartRound())  # the winner deals the next round
    assert t.state.dealer == 1 and t.snap["round"] == 2
    t.send({"kind": "flip", "card": "blue-5"})
    _out(t, seat=2)
    _reveal_all(t, {0: SEVEN["wilds"], 1: SEVEN["ones"], 3: SEVEN["ones"]})
    end = t.one("match_ended")
    assert end.winners == (2,) and end.ended_by == "target" and t.snap["phase"] == "match-over"
    assert t.state.match.totals[2] == 364
    t.send(StartRound())
    assert t.one("input_rejected").reason == "the match is over"


@pytest.mark.rule("R3")
def test_negative_each_seat_adds_its_own_hand_and_lowest_total_wins():
    t = Scenario(starter="blue-5", scoring={"format": "negative", "target": 300})
    _out(t)
    _reveal_all(t, {0: SEVEN["wilds"], 2: SEVEN["twos"], 3: SEVEN["ones"]})
    sc = t.one("round_scored")
    assert sc.seat_points == (350, 0, 14, 7) and sc.format == "negative"
    end = t.one("match_ended")
    assert end.winners == (1,) and end.scores == (350, 0, 14, 7)


@pytest.mark.rule("R4")
def test_loss_points_and_chips_through_the_referee():
    t = Scenario(starter="blue-5", scoring={"format": "loss-points", "target": 300})
    _out(t)
    _reveal_all(t, {0: SEVEN["wilds"], 2: SEVEN["twos"], 3: SEVEN["ones"]})
    assert t.state.match.outcome.losers == (0,) and t.one("match_ended").winners == (1,)
    c = Scenario(starter="blue-5", scoring={"format": "chips", "target": 1000})
    _out(c)
    _reveal_all(c, {0: SEVEN["ones"], 2: SEVEN["twos"], 3: SEVEN["ones"]})
    sc = c.one("round_scored")
    assert sc.seat_points == (-7, 28, -14, -7) and sum(c.snap["scores"]) == 0
    assert c.state.match.ledger == {0: -7, 1: 28, 2: -14, 3: -7}


@pytest.mark.rule("R5")
def test_continuous_round_goes_on_until_one_is_left_and_ranks_score_zero_sum():
    t = Scenario(starter="blue-5", scoring={"format": "continuous"})
    _out(t)  # seat 1 goes out first
    assert t.one("seat_out").seat == 1 and t.snap["phase"] == "play" and t.turn == 2
    t.play("blue-reverse")  # seat 2 reverses: seat 1 is out, so seat 0 plays next
    assert t.turn == 0 and t.snap["out"] == [1]
    _out(t, seat=0, card="blue-4")
    assert t.turn == 3
    _out(t, seat=3, card="blue-6")  # two were left: the round is over, seat 2 is last
    ended = t.one("round_ended")
    assert ended.winner == 1 and t.snap["finish_order"] == [1, 0, 3]
    t.reveal(2, *["red-1"] * 6)
    sc = t.one("round_scored")
    assert sc.seat_points == (1, 3, -3, -1) and sum(sc.scores) == 0


@pytest.mark.rule("R6")
def test_elimination_the_seat_over_the_threshold_leaves_the_rotation():
    t = Scenario(starter="blue-5", scoring={"format": "elimination", "target": 100})
    _out(t)
    _reveal_all(t, {0: SEVEN["ones"], 2: SEVEN["twos"], 3: SEVEN["wilds"]})
    out = t.one("seat_out")
    assert (out.seat, out.rule) == (3, "R6") and t.snap["phase"] == "round-over"
    t.send(StartRound())
    assert t.hands == [7, 7, 7, 0] and t.snap["draw_pile"] == 108 - 21
    t.send({"kind": "flip", "card": "blue-5"})
    assert t.turn == 2  # seat 1 deals (last winner), seat 2 plays first
    t.play("blue-6")
    assert t.turn == 0  # seat 3 is out of the rotation
    t.play("blue-7")
    t.play("blue-8")
    _out(t, seat=2, card="blue-9")
    _reveal_all(t, {0: ["wild"] * 6, 1: ["wild-draw4"] * 6})  # both pass the threshold
    end = t.one("match_ended")
    assert end.winners == (2,) and end.ended_by == "last-standing"
    assert sorted(e.seat for e in t.find("seat_out")) == [0, 1]


@pytest.mark.rule("R7")
def test_last_card_may_not_be_an_action_card_the_player_draws_one_more():
    t = Scenario(starter="blue-5", scoring={"last_card_action": "draw-one"})
    _out(t, card="blue-skip")
    pen = t.one("penalty_ordered")
    assert (pen.seat, pen.count, pen.rule) == (1, 1, "R7") and t.hands[1] == 1
    assert t.find("round_ended") == [] and t.turn == 3  # the skip still skips seat 2
    w = Scenario(starter="blue-5", scoring={"last_card_action": "draw-one"})
    _out(w, card="wild")
    assert w.find("penalty_ordered") == []  # the colour is named first
    w.colour("red")
    assert w.one("penalty_ordered").rule == "R7" and w.hands[1] == 1 and w.turn == 2
    off = Scenario(starter="blue-5")
    _out(off, card="blue-skip")
    assert off.one("round_ended").winner == 1


@pytest.mark.rule("T1")
def test_fixed_teams_partner_hand_is_not_scored_and_both_partners_record_the_team_score():
    t = Scenario(starter="blue-5", teams={"mode": "fixed"})
    _out(t)  # seat 1 goes out: team 1 & 3 wins the round
    _reveal_all(t, {0: SEVEN["ones"], 2: SEVEN["twos"], 3: SEVEN["wilds"]})
    sc = t.one("round_scored")
    assert sc.scores == (0, 21, 0, 21)
    assert t.state.match.totals == {0: 0, 1: 21}  # team index -> total


@pytest.mark.rule("T1")
def test_teams_need_four_players():
    from table.errors import ConfigError
    from table.rules import load_rules

    with pytest.raises(ConfigError, match="teams.mode='fixed' with players=3"):
        load_rules(overrides={"players": 3, "teams": {"mode": "fixed"}})


def test_revealed_count_that_disagrees_is_held_for_the_host_then_re_revealed_or_confirmed():
    t = Scenario(starter="blue-5")
    _out(t)
    _reveal_all(t, {0: SEVEN["ones"], 2: SEVEN["twos"], 3: SEVEN["ones"][:6]})
    held = t.one("score_held")
    assert held.mismatches == ((3, 7, 6),) and t.snap["scores"] == [0, 0, 0, 0]
    t.reveal(3, *SEVEN["ones"])  # the seventh card was under the hand
    assert t.one("round_scored").points == 28
    u = Scenario(starter="blue-5")
    _out(u)
    _reveal_all(u, {0: SEVEN["ones"], 2: SEVEN["twos"], 3: SEVEN["ones"][:6]})
    u.send(ConfirmScore(reason="seat 3 really had six"))
    assert u.one("round_scored").points == 27 and u.hands[3] == 6
    assert u.one("hand_count_corrected").new == 6


def test_host_end_round_with_a_winner_scores_and_without_one_voids_the_round():
    t = Scenario(starter="blue-5")
    t.play("blue-3")
    t.send(EndRound(winner=2, reason="camera missed the last card"))
    assert t.hands[2] == 0 and t.snap["phase"] == "round-over" and t.one("round_ended").winner == 2
    assert sum(t.hands) + t.snap["draw_pile"] + t.snap["discard_count"] == 108
    _reveal_all(t, {0: SEVEN["ones"], 1: SEVEN["ones"][:6], 3: SEVEN["twos"]})
    assert t.one("round_scored").points == 7 + 6 + 14
    v = Scenario(starter="blue-5")
    v.play("blue-3")
    v.send(EndRound(reason="the dog ate the discard pile"))
    assert v.one("round_voided").round == 1 and v.snap["phase"] == "idle"
    assert v.state.match is None and v.snap["scores"] == [0, 0, 0, 0]
    v.send(StartRound())  # the voided round's dealer deals again
    assert v.snap["round"] == 2 and v.snap["phase"] == "flip" and v.state.dealer == 0
    w = Scenario(starter="blue-5")
    w.send(EndRound(winner=2, reason="x"))
    w.send(EndRound(reason="again"))
    assert w.one("input_rejected").reason.startswith("no round in progress")


@pytest.mark.rule("R5", "R7")
def test_continuous_with_the_last_card_rule_the_forced_draw_keeps_the_seat_in():
    t = Scenario(starter="blue-5", scoring={"format": "continuous", "last_card_action": "draw-one"})
    _out(t, card="blue-skip")  # an action card last: seat 1 draws one and stays in
    assert t.one("penalty_ordered").rule == "R7" and t.hands[1] == 1
    assert t.find("seat_out") == [] and t.snap["out"] == [] and t.turn == 3
    _out(t, seat=3, card="blue-4")  # a number last: seat 3 finishes, play goes on
    assert t.one("seat_out").seat == 3 and t.snap["phase"] == "play" and t.turn == 0


@pytest.mark.rule("R5", "U5")
def test_a_finished_seat_is_never_made_to_draw_back_into_the_round():
    t = Scenario(starter="blue-5", scoring={"format": "continuous"})
    _out(t)  # seat 1 finishes first
    before = list(t.hands)
    t.catch(1)  # a wrong catch from the finished seat: noted, no draw
    assert t.find("penalty_ordered") == [] and t.find("cards_drawn") == [] and t.hands == before
    assert any("finished" in e.text() for e in t.find("notice"))
    t.catch(2)  # the penalty still applies to a seat in the round
    assert t.one("penalty_ordered").seat == 2 and t.hands[2] == before[2] + t.rules.uno.wrong_catch_penalty


def _play_out_round(t, winner_seat=1, dealer=None):
    """Start a round (starter blue-5), let `winner_seat` go out, reveal the others."""
    t.send(StartRound(dealer=dealer))
    if t.snap["phase"] == "flip":
        t.send({"kind": "flip", "card": "blue-5"})
    while t.turn != winner_seat:
        t.play("blue-6")
    _out(t, seat=winner_seat)
    _reveal_all(t, {x: ["blue-1"] * t.hands[x] for x in range(4) if x != winner_seat})
    assert t.one("round_scored")


@pytest.mark.rule("T2")
def test_rotating_partners_the_players_move_each_fourth_round_and_keep_individual_totals():
    t = Scenario(starter="blue-5", teams={"mode": "rotating"})
    # Round 1 of the generated schedule: players 0 & 3 and 1 & 2 partner, sitting opposite.
    assert t.snap["seating"] == [0, 1, 3, 2]
    assert [e.rule for e in t.all_events if e.kind == "seating_set"] == ["T2"]
    _out(t)  # seat 1 (player 1) goes out: player 1 and partner player 2 (at seat 3) score
    _reveal_all(t, {0: SEVEN["ones"], 2: SEVEN["twos"], 3: SEVEN["wilds"]})
    assert t.one("round_scored").scores == (0, 21, 0, 21)  # by seat: seats 1 and 3
    assert t.state.match.seat_totals == {0: 0, 1: 21, 2: 21, 3: 0}  # by player
    for _ in range(3):
        _play_out_round(t)
    t.send(StartRound())
    moved = t.one("seating_set")  # round 5: everyone partners someone new
    assert moved.seating == (0, 1, 2, 3) and t.snap["seating"] == [0, 1, 2, 3]
    # The scores on the seats follow the players who moved there.
    assert t.snap["scores"] == [t.state.match.seat_totals[p] for p in (0, 1, 2, 3)]
    t.send({"kind": "flip", "card": "blue-5"})
    while t.turn != 1:
        t.play("blue-6")
    _out(t, seat=1)
    _reveal_all(t, {x: ["blue-1"] * t.hands[x] for x in (0, 2, 3)})
    for _ in range(7):
        _play_out_round(t)
    end = t.one("match_ended")
    assert end.ended_by == "schedule" and len(t.state.match.rounds) == 12


@pytest.mark.rule("T3")
def test_teams_by_draw_highest_with_lowest_then_partners_sit_opposite_and_score_together():
    t = Scenario(starter="blue-5", teams={"mode": "by-draw"}, dealer=2)
    # Even with a dealer named, the match starts with the team draw.
    assert t.snap["phase"] == "dealer-draw"
    assert "T3" in [e for e in t.all_events if e.kind == "dealer_draw_needed"][-1].reason
    t.send({"kind": "dealer_draw", "cards": {"0": "red-9", "1": "blue-2", "2": "green-9", "3": "yellow-7"}})
    assert "tied" in t.one("dealer_draw_needed").reason  # the two highest tie: they draw again
    t.send({"kind": "dealer_draw", "cards": {"0": "red-3", "2": "wild"}})
    assert "no number" in t.one("dealer_draw_needed").reason and t.snap["awaiting"]["dealer_draw"] == [2]
    t.send({"kind": "dealer_draw", "cards": {"2": "green-8"}})
    seating = t.one("seating_set")
    # ranking: player 2 (9 then 8), player 0 (9 then 3), player 3 (7), player 1 (2)
    assert seating.teams == ((2, 1), (0, 3)) and seating.rule == "T3"
    assert list(seating.seating) == t.snap["seating"]
    s = t.snap["seating"]
    assert s.index(2) % 2 == s.index(1) % 2 and s.index(0) % 2 == s.index(3) % 2  # opposite
    assert t.one("dealer_chosen").seat == s.index(2)  # the highest draw deals
    t.send({"kind": "flip", "card": "blue-5"})
    winner = t.turn
    _out(t, seat=winner)
    _reveal_all(t, {x: SEVEN["ones"] for x in range(4) if x != winner})
    sc = t.one("round_scored")
    partner_seat = (winner + 2) % 4
    assert sc.scores[winner] == sc.scores[partner_seat] == 14 and sum(sc.scores) == 28
    # The next round needs no draw: the teams hold for the match.
    t.send(StartRound())
    assert t.snap["phase"] == "flip"


@pytest.mark.rule("R7", "W3")
def test_a_challenge_of_a_last_card_wild_draw_four_is_settled_without_waiting_for_a_reveal():
    t = Scenario(starter="blue-5", scoring={"last_card_action": "draw-one"})
    _out(t, card="wild-draw4")  # seat 1's last card; R7's extra card waits for the verdict
    t.colour("red")
    t.challenge()  # seat 2 challenges: seat 1's hand is empty, so it held no blue card
    res = t.one("challenge_resolved")
    assert res.guilty is False and t.snap["phase"] == "play"
    assert t.hands[2] == 7 + 4 + t.rules.play.challenge_extra  # the challenger pays, W3
    assert t.hands[1] == 1  # then R7: the last card may not be a wild, one more card
