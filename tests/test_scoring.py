"""Round scoring from revealed hands (RULES.md D2, R1, A5, R2, R3, R4, R5)."""

import pytest

from table.errors import InvalidCardError, UnoTableError
from table.scoring import (
    CountMismatchError,
    PointTable,
    RoundResult,
    ScoringError,
    check_counts,
    rank_scores,
    score_round,
)


@pytest.mark.rule("D2")
def test_point_table_official_values():
    p = PointTable.official()
    assert [p.card(c) for c in ("red-0", "blue-7", "green-9")] == [0, 7, 9]
    assert [p.card(c) for c in ("red-skip", "yellow-reverse", "blue-draw2")] == [20, 20, 20]
    assert p.card("wild") == 50 and p.card("wild-draw4") == 50


@pytest.mark.rule("D2")
def test_point_table_is_configuration_wilds_20_option():
    p = PointTable.wilds_20()
    assert p.card("wild") == 20 and p.card("wild-draw4") == 20
    result = RoundResult(seats=2, winner=0, hands={1: ("wild", "wild-draw4", "red-3")})
    assert score_round(result, points=p).seat_points == {0: 43, 1: 0}
    assert score_round(result).seat_points == {0: 103, 1: 0}


@pytest.mark.rule("D2")
def test_point_table_matches_referee_points_config_shape():
    from table.rules import PointsConfig

    cfg = PointsConfig(action=15, wild=40, wild_draw4=45)
    p = PointTable.from_config(cfg)
    assert (p.card("red-skip"), p.card("wild"), p.card("wild-draw4")) == (15, 40, 45)
    with pytest.raises(ValueError, match="action"):
        PointTable(action=-1)


def test_unknown_or_face_down_card_is_refused_with_its_seat():
    with pytest.raises(InvalidCardError, match="'back'"):
        PointTable().card("back")
    result = RoundResult(seats=3, winner=0, hands={1: ("red-7",), 2: ("purple-3",)})
    with pytest.raises(ScoringError, match="seat 2.*purple-3"):
        score_round(result)


@pytest.mark.rule("R2")
def test_standard_winner_scores_every_other_hand():
    result = RoundResult(
        seats=4,
        winner=2,
        hands={0: ("red-5", "blue-skip"), 1: ("wild",), 3: ("green-9", "green-0", "red-1")},
    )
    score = score_round(result, "standard")
    assert score.hand_points == {0: 25, 1: 50, 2: 0, 3: 10}
    assert score.seat_points == {0: 0, 1: 0, 2: 85, 3: 0}


@pytest.mark.rule("R1", "A5")
def test_winner_going_out_on_draw_card_scores_the_drawn_cards_once_revealed():
    # Seat 0 goes out on a Wild Draw Four; seat 1 had 2 cards, draws the 4 owed (A5) and then
    # lays all 6 face up. The referee's tracked count (2 + 4) agrees, so they all score.
    result = RoundResult(
        seats=3,
        winner=0,
        last_card="wild-draw4",
        hands={1: ("red-3", "blue-4", "wild", "green-skip", "yellow-1", "red-0"), 2: ("red-9",)},
        tracked_counts={0: 0, 1: 6, 2: 1},
    )
    assert check_counts(result) == []
    score = score_round(result)
    assert score.hand_points[1] == 3 + 4 + 50 + 20 + 1 + 0
    assert score.seat_points[0] == 78 + 9


@pytest.mark.rule("R1", "A5")
def test_owed_draw_not_yet_revealed_is_flagged_not_scored_silently():
    # Only the 2 original cards were laid out; the 2 drawn for the Draw Two are missing.
    result = RoundResult(
        seats=2,
        winner=0,
        last_card="red-draw2",
        hands={1: ("red-3", "blue-4")},
        tracked_counts={0: 0, 1: 4},
    )
    (m,) = check_counts(result)
    assert (m.seat, m.tracked, m.revealed) == (1, 4, 2)
    # score_round reports it; Match.apply refuses it until the host confirms.
    assert score_round(result).mismatches == (m,)
    from table.matches import Match

    match = Match({"players": 2})
    with pytest.raises(CountMismatchError, match="seat 1: tracked 4, revealed 2") as err:
        match.apply(result)
    assert isinstance(err.value, UnoTableError) and isinstance(err.value, ValueError)
    assert match.rounds == [] and match.totals == {0: 0, 1: 0}
    match.apply(result.model_copy(update={"host_confirmed": True}))
    assert match.totals == {0: 7, 1: 0}
    assert match.rounds[0].confirmed_mismatches == (m,)


def test_winner_with_a_tracked_card_left_is_a_mismatch():
    result = RoundResult(seats=2, winner=0, hands={1: ("red-1",)}, tracked_counts={0: 1, 1: 1})
    assert [(m.seat, m.tracked, m.revealed) for m in check_counts(result)] == [(0, 1, 0)]


def test_bad_round_results_name_the_field():
    with pytest.raises(ScoringError, match="hands: seats \\[2\\] were not revealed"):
        score_round(RoundResult(seats=3, winner=0, hands={1: ()}))
    with pytest.raises(ScoringError, match="winner: seat 5 is not at this table"):
        score_round(RoundResult(seats=3, winner=5, hands={}))
    with pytest.raises(ScoringError, match="winner seat 0 went out but revealed"):
        score_round(RoundResult(seats=2, winner=0, hands={0: ("red-1",), 1: ()}))
    with pytest.raises(ScoringError, match="tracked_counts: seats \\[7\\]"):
        score_round(RoundResult(seats=2, winner=0, hands={1: ()}, tracked_counts={7: 1}))
    with pytest.raises(ScoringError, match="seats"):
        RoundResult.parse({"seats": 11, "winner": 0})
    with pytest.raises(ScoringError, match="colour"):
        RoundResult.parse({"seats": 2, "winner": 0, "colour": "red"})


def test_round_result_round_trips_through_json():
    result = RoundResult(
        seats=(3, 1, 0), winner=1, hands={3: ("wild",), 0: ("red-2",)}, tracked_counts={3: 1}
    )
    again = RoundResult.parse(__import__("json").loads(result.model_dump_json()))
    assert again == result


@pytest.mark.rule("R3")
def test_negative_each_loser_adds_own_hand():
    result = RoundResult(seats=3, winner=1, hands={0: ("red-5",), 2: ("wild", "blue-2")})
    assert score_round(result, "negative").seat_points == {0: 5, 1: 0, 2: 52}


@pytest.mark.rule("R4")
def test_chips_round_is_zero_sum_losers_pay_winner():
    result = RoundResult(seats=3, winner=2, hands={0: ("red-5",), 1: ("blue-skip", "red-1")})
    assert score_round(result, "chips").seat_points == {0: -5, 1: -21, 2: 26}


@pytest.mark.rule("R5")
def test_rank_scores_four_players():
    assert rank_scores([2, 0, 3, 1]) == {2: 3, 0: 1, 3: -1, 1: -3}
    assert rank_scores([0, 1, 2]) == {0: 2, 1: 0, 2: -2}


@pytest.mark.rule("R5")
def test_continuous_round_ranks_the_last_one_left_last():
    result = RoundResult(seats=4, finishing_order=(1, 3, 0), hands={2: ("red-4",)})
    score = score_round(result, "continuous")
    assert score.winner == 1
    assert score.finishing_order == (1, 3, 0, 2)
    assert score.seat_points == {1: 3, 3: 1, 0: -1, 2: -3}
    with pytest.raises(ScoringError, match="finishing_order"):
        score_round(RoundResult(seats=4, finishing_order=(1, 3)), "continuous")
    with pytest.raises(ScoringError, match="finishing_order"):
        score_round(RoundResult(seats=4, finishing_order=(1, 1, 2)), "continuous")
    with pytest.raises(ScoringError, match="disagrees"):
        score_round(RoundResult(seats=3, winner=2, finishing_order=(1, 2)), "continuous")
