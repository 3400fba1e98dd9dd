"""Property tests over thousands of simulated games (full information vs the referee).

After every input: the 108 cards are conserved across hands and piles (reshuffles included),
the referee's hand counts equal the true hand sizes, its draw pile equals the real one, its
discard pile is the real one, no count is negative. After every game: replaying the inputs
reproduces the state exactly. The simulator itself asserts that no honest play is called
illegal and that every challenge verdict matches the true hand.
"""

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.cards import deck_faces
from table.referee import IN_ROUND
from table.replay import replay
from table.rules import load_rules
from table.simulator import SimOptions, Simulator

DECK = Counter(deck_faces())


def check_invariants(sim: Simulator) -> None:
    s = sim.state
    assert all(c >= 0 for c in s.hands) and s.draw_count >= 0
    if s.phase in ("idle", "dealer-draw", "flip"):
        return  # the simulator deals its real cards once the referee has a dealer
    physical = Counter(sim.pile) + Counter(sim.discard)
    for hand in sim.hands:
        physical.update(hand)
    assert physical == DECK  # the simulator's own world keeps all 108 cards
    if s.phase in IN_ROUND or s.phase == "round-over":
        assert s.draw_count + len(s.discard) + sum(s.hands) == 108
        assert s.hands == [len(h) for h in sim.hands]
        assert s.draw_count == len(sim.pile)
        assert s.discard == sim.discard


class CheckedSimulator(Simulator):
    def feed(self, inp, truth=None):
        events = super().feed(inp, truth)
        check_invariants(self)
        return events


rule_sets = st.fixed_dictionaries(
    {
        "players": st.integers(2, 10),
        "setup": st.fixed_dictionaries(
            {
                "first_wild": st.sampled_from(["first-player-names", "redraw"]),
                "first_reverse": st.sampled_from(["right-of-dealer", "dealer-first", "left-counter-clockwise"]),
                "first_player": st.sampled_from(["left-of-dealer", "dealer"]),
                "flip_until_number": st.booleans(),
            }
        ),
        "play": st.fixed_dictionaries(
            {
                "play_drawn": st.sampled_from(["any", "number-only"]),
                "wild_draw4_legal": st.sampled_from(["no-current-colour", "no-playable-card"]),
                "challenge_extra": st.integers(0, 4),
            }
        ),
        "uno": st.fixed_dictionaries({"strict": st.booleans(), "missed_penalty": st.integers(0, 4)}),
    }
)
behaviours = st.builds(
    SimOptions,
    policies=st.lists(st.sampled_from(["random", "greedy"]), min_size=1, max_size=3).map(tuple),
    forget_uno=st.floats(0, 1),
    catch_rate=st.floats(0, 1),
    challenge_rate=st.floats(0, 1),
    bluff_rate=st.floats(0, 1),
    voluntary_draw=st.floats(0, 0.2),
    max_inputs=st.just(4000),
)


def play_batch(rules_dict, options, seed, games):
    rules = load_rules("official", overrides=rules_dict)
    for g in range(games):
        sim = CheckedSimulator(rules, seed=seed + g, options=options)
        game = sim.play_round()
        if game.capped:  # reported, never a hang (players drawing forever can stall a round)
            assert len(game.inputs) >= options.max_inputs and game.winner == -1
        else:
            assert sim.state.phase in ("round-over", "match-over")
            assert sim.state.hands[sim.state.winner] == 0
        rebuilt = replay(rules, sim.state.inputs())
        assert rebuilt == sim.state and rebuilt.seq == sim.state.seq


@pytest.mark.rule("D1", "P9", "A5")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_dict=rule_sets, options=behaviours, seed=st.integers(0, 2**32))
def test_invariants_hold_over_a_thousand_random_games(rules_dict, options, seed):
    play_batch(rules_dict, options, seed, games=5)


@pytest.mark.slow
@pytest.mark.rule("D1", "P9")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_dict=rule_sets, options=behaviours, seed=st.integers(0, 2**32))
def test_invariants_hold_over_many_thousand_random_games(rules_dict, options, seed):
    play_batch(rules_dict, options, seed, games=15)


@pytest.mark.rule("P9")
def test_long_games_reshuffle_and_still_conserve_cards():
    """Ten seats holding most of the deck force reshuffles (P9) in nearly every game."""
    rules = load_rules("official", overrides={"players": 10, "setup": {"hand_size": 10}})
    reshuffles = 0
    for seed in range(20):
        sim = CheckedSimulator(rules, seed=seed, options=SimOptions(voluntary_draw=0.3), record=True)
        sim.play_round()
        reshuffles += sum(e.kind == "deck_reshuffled" for evs in sim.game.events for e in evs)
    assert reshuffles >= 10


def test_recorded_truth_names_who_played_and_forgotten_calls():
    rules = load_rules("official")
    sim = Simulator(rules, seed=3, options=SimOptions(forget_uno=1.0, catch_rate=0.0), record=True)
    game = sim.play_round()
    assert len(game.truth) == len(game.inputs) == len(game.events)
    plays = [(i, t) for i, t in enumerate(game.truth) if "card" in t and game.inputs[i].kind == "play"]
    assert plays and all(game.inputs[i].cards == (t["card"],) for i, t in plays)
    for i, t in plays:  # the referee attributed every card to the seat that really played it
        accepted = [e for e in game.events[i] if e.kind == "play_accepted"]
        assert accepted[0].seat == t["seat"] and accepted[0].inferred
    assert any(t.get("forgot_uno") for t in game.truth)
    assert sum(e.kind == "uno_missed" for evs in game.events for e in evs) >= 1
