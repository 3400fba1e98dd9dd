"""What camera observations mean, by the state of the game."""

import pytest

from app.observe import ObservationMapper
from table.inputs import Flip, Play, StartRound
from table.referee import new_state, step
from table.rules import preset


def state_after(*inputs, name="official"):
    s = new_state(preset(name))
    for inp in inputs:
        s, _ = step(s, inp)
    return s


def discard(*cards):
    return {"type": "discard", "frame": 1, "confidence": 0.9, "cards": [{"card": c} for c in cards]}


def test_a_card_placed_while_the_deal_waits_is_the_starter():
    m = ObservationMapper()
    inp, _ = m.to_input(discard("blue-4"), state_after(StartRound(dealer=0)))
    assert inp["kind"] == "flip" and inp["card"] == "blue-4"


def test_cards_placed_in_a_round_are_a_play_and_backs_are_ignored():
    m = ObservationMapper()
    s = state_after(StartRound(dealer=0), Flip("blue-4"))
    inp, _ = m.to_input(discard("blue-7", "back"), s)
    assert inp == {"kind": "play", "cards": ["blue-7"], "confidence": 0.9, "frame": 1, "source": "camera"}
    assert m.to_input(discard("back"), s)[0] is None


def test_cards_placed_with_no_round_mean_nothing():
    inp, why = ObservationMapper().to_input(discard("red-1"), new_state(preset("official")))
    assert inp is None and "ignored" in why


def test_a_reach_into_the_draw_pile_is_a_draw_unless_an_ordered_draw_is_being_fetched():
    s = state_after(StartRound(dealer=0), Flip("blue-4"))
    m = ObservationMapper()
    assert m.to_input({"type": "draw"}, s)[0] == {"kind": "draw", "source": "camera"}
    # seat 1 plays a Draw Two: seat 2 draws 2 (ordered) and reaches for them
    s2, events = step(s, Play(cards=("blue-draw2",)))
    m.note_events(events)
    assert m.owed_reaches == 1
    inp, why = m.to_input({"type": "draw"}, s2)
    assert inp is None and "ordered" in why
    assert m.to_input({"type": "draw"}, s2)[0] is not None  # the next reach is a real draw


def test_a_hand_laid_card_by_card_is_revealed_once_all_its_cards_lie_face_up():
    from table.inputs import Challenge, NameColour

    s = state_after(StartRound(dealer=0), Flip("blue-4"), Play(cards=("wild-draw4",)),
                    NameColour(colour="red"), Challenge(seat=2, challenge=True))
    assert s.phase == "reveal" and s.hands[1] == 6
    m = ObservationMapper()
    hand = ["red-1", "red-2", "blue-3", "green-4", "yellow-5", "wild"]
    for k in range(1, 6):
        inp, why = m.to_input({"type": "reveal", "cards": [{"card": c} for c in hand[:k]]}, s)
        assert inp is None and "laid so far" in why
    inp, _ = m.to_input({"type": "reveal", "cards": [{"card": c} for c in hand]}, s)
    assert inp["kind"] == "reveal" and inp["seat"] == 1 and inp["cards"] == hand


def test_a_short_hand_is_used_as_is_when_the_zone_is_cleared_so_the_referee_can_flag_it():
    from table.inputs import Challenge, NameColour

    s = state_after(StartRound(dealer=0), Flip("blue-4"), Play(cards=("wild-draw4",)),
                    NameColour(colour="red"), Challenge(seat=2, challenge=True))
    m = ObservationMapper()
    m.to_input({"type": "reveal", "cards": [{"card": "red-1"}, {"card": "red-2"}]}, s)
    inp, why = m.to_input({"type": "reveal", "cards": []}, s)
    assert inp["cards"] == ["red-1", "red-2"] and "count differs" in why


@pytest.mark.rule("H7")
def test_with_draw_until_playable_each_reach_is_one_more_draw_of_the_same_turn():
    from table.inputs import Draw

    s = state_after(StartRound(dealer=0), Flip("blue-4"), name="party")
    s, _ = step(s, Draw(cards=("red-1",)))  # not playable: the turn stays in DRAWN
    assert s.phase == "drawn"
    assert ObservationMapper().to_input({"type": "draw"}, s)[0] == {"kind": "draw", "source": "camera"}
    official = state_after(StartRound(dealer=0), Flip("blue-4"))
    official, _ = step(official, Draw(cards=("red-1",)))
    inp, why = ObservationMapper().to_input({"type": "draw"}, official)
    assert inp is None and "drawn" in why  # one draw a turn: a second reach means nothing
