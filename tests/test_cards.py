"""D1, D2 and card identifiers."""

from collections import Counter

import pytest

from table.cards import (
    CARD_IDS,
    Card,
    deck,
    deck_faces,
    parse_card,
    parse_face,
    point_table,
)
from table.errors import InvalidCardError, UnoTableError
from table.rules import PointsConfig, load_rules


@pytest.mark.rule("D1")
def test_deck_has_108_cards_with_the_official_distribution():
    cards = deck()
    assert len(cards) == 108
    counts = Counter(c.id for c in cards)
    assert len(counts) == 54
    for colour in ("red", "yellow", "green", "blue"):
        assert counts[f"{colour}-0"] == 1
        for rank in [str(i) for i in range(1, 10)] + ["skip", "reverse", "draw2"]:
            assert counts[f"{colour}-{rank}"] == 2, f"{colour}-{rank}"
    assert counts["wild"] == 4 and counts["wild-draw4"] == 4
    assert sorted(deck_faces()) == sorted(c.face for c in cards)


def test_54_identifiers_round_trip():
    assert len(CARD_IDS) == len(set(CARD_IDS)) == 54
    for cid in CARD_IDS:
        card = parse_card(cid)
        assert card.id == cid == str(card)
        assert Card.from_face(parse_face(cid)) == card
    assert parse_card("wild").is_wild and parse_card("wild").colour is None
    assert parse_card("blue-skip") == Card("blue", "skip")
    assert parse_card("green-9").is_number and not parse_card("green-draw2").is_number


@pytest.mark.parametrize("bad", ["red-11", "Red-7", "red 7", "purple-3", "wild-draw2", "", "back", 7, None])
def test_parse_card_rejects_anything_else_naming_it_and_the_valid_form(bad):
    with pytest.raises(InvalidCardError) as info:
        parse_card(bad)
    msg = str(info.value)
    assert repr(bad) in msg
    assert "red-7" in msg and "wild-draw4" in msg  # the valid form is spelled out
    assert isinstance(info.value, ValueError) and isinstance(info.value, UnoTableError)


@pytest.mark.rule("D2")
def test_point_table_defaults_and_is_configuration():
    pts = point_table(load_rules("official").scoring.points)
    assert pts[parse_face("red-0")] == 0
    assert pts[parse_face("blue-9")] == 9
    assert pts[parse_face("green-7")] == 7
    for action in ("red-skip", "yellow-reverse", "blue-draw2"):
        assert pts[parse_face(action)] == 20
    assert pts[parse_face("wild")] == 50 and pts[parse_face("wild-draw4")] == 50
    # seed 000's table: wild cards are 20, from configuration only
    seed000 = load_rules(overrides={"scoring": {"points": {"wild": 20, "wild_draw4": 20}}})
    pts20 = point_table(seed000.scoring.points)
    assert pts20[parse_face("wild")] == 20 and pts20[parse_face("wild-draw4")] == 20
    assert point_table(PointsConfig(action=15))[parse_face("red-skip")] == 15
