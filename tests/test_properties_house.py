"""Property tests over random house-rule combinations, scoring formats and teams: every
invariant of the referee issue holds under every combination (108 cards conserved, counts
never negative, the referee's counts equal the simulator's true hands, the draw and discard
piles match, replay reproduces the state), and every round ends or stops at the reported
input cap, never a hang. The simulator itself asserts that no honest play is refused, that
challenge verdicts match the true hand and that revealed hands match the counts."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties_sim import CheckedSimulator

from table.replay import replay
from table.rules import load_rules
from table.simulator import SimOptions


@st.composite
def house_rules(draw):
    stack2 = draw(st.booleans())
    stack4 = draw(st.booleans())
    seven_o = draw(st.booleans())
    jump = draw(st.sampled_from(["off", "any", "number-only", "coloured-only"]))
    attack = draw(st.booleans())
    house = {
        "stack_draw2": stack2,
        "stack_draw4": stack4,
        "draw2_pair_on_draw4": stack4 and draw(st.booleans()),
        "deflect": stack2 and draw(st.booleans()),
        "follow_stack_colour": (stack2 or stack4) and draw(st.booleans()),
        "jump_in": jump,
        "jump_in_own": jump == "off" or draw(st.booleans()),
        "multi_play": draw(st.sampled_from(["off", "same-rank", "identical-pair"])),
        "draw_until_playable": "off" if attack else draw(st.sampled_from(["off", "playable", "playable-number"])),
        "seven_o": seven_o,
        "seven_o_zero": draw(st.sampled_from(["any", "current-colour"])) if seven_o else "any",
        "seven_o_seven": not seven_o or draw(st.booleans()),
        "red0_draw10": draw(st.booleans()),
        "silent2": draw(st.booleans()),
        "slap9": draw(st.booleans()),
        "slap9_limit": draw(st.sampled_from([0.5, 1.0, 3.0])),
        "attack_mode": attack,
        "attack_max": draw(st.integers(1, 6)),
    }
    if draw(st.booleans()):  # H13: spin cards (a 7 cannot both swap and spin)
        ranks = ["0", "3", "9", "skip", "reverse"] + ([] if house["seven_o"] and house["seven_o_seven"] else ["7"])
        house["spin"] = True
        house["spin_cards"] = ",".join(draw(st.lists(st.sampled_from(ranks), min_size=1, max_size=3, unique=True)))
    players = draw(st.integers(2, 8))
    fmt = draw(st.sampled_from(["standard", "negative", "loss-points", "chips", "continuous", "elimination"]))
    if players < 3 and fmt in ("continuous", "elimination"):
        fmt = "standard"
    teams = "none"
    if players in (4, 6, 8) and fmt in ("standard", "negative", "loss-points") and draw(st.booleans()):
        teams = draw(st.sampled_from(["by-draw"] if players != 4 else
                                     ["fixed", "by-draw"] + (["rotating"] if fmt == "standard" else [])))
    return {
        "players": players,
        "house": house,
        "play": {
            "play_drawn": draw(st.sampled_from(["any", "number-only"])),
            "wild_draw4_legal": draw(st.sampled_from(["no-current-colour", "no-playable-card"])),
        },
        "uno": {"strict": draw(st.booleans())},
        "scoring": {
            "format": fmt,
            "target": None if teams == "rotating" else draw(st.sampled_from([None, 60, 150])),
            "last_card_action": draw(st.sampled_from(["allowed", "draw-one"])),
        },
        "teams": {"mode": teams},
    }


behaviours = st.builds(
    SimOptions,
    policies=st.lists(st.sampled_from(["random", "greedy"]), min_size=1, max_size=3).map(tuple),
    forget_uno=st.floats(0, 1),
    catch_rate=st.floats(0, 1),
    challenge_rate=st.floats(0, 1),
    bluff_rate=st.floats(0, 0.5),
    voluntary_draw=st.floats(0, 0.2),
    stack_rate=st.floats(0, 1),
    jump_rate=st.floats(0, 1),
    multi_rate=st.floats(0, 1),
    sound_rate=st.floats(0, 0.2),
    slow_slap=st.floats(0, 0.5),
    max_inputs=st.just(3000),
)


def play_match(rules_dict, options, seed, rounds):
    rules = load_rules("official", overrides=rules_dict)
    sim = CheckedSimulator(rules, seed=seed, options=options)
    for _ in range(rounds):
        game = sim.play_round()
        s = sim.state
        if game.capped:  # reported, never a hang
            assert len(game.inputs) >= options.max_inputs and game.winner == -1
            break
        assert s.phase in ("round-over", "match-over")
        assert s.hands[s.winner] == 0 and s.match is not None
        assert s.score_status == "scored" and s.held == ()  # the true reveals agree with the counts
        if s.phase == "match-over":
            assert s.match.over
            break
    rebuilt = replay(rules, sim.state.inputs())
    assert rebuilt == sim.state


@pytest.mark.rule("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "H10", "H11", "H12", "H13", "W4")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_dict=house_rules(), options=behaviours, seed=st.integers(0, 2**32))
def test_invariants_hold_under_random_house_rule_combinations(rules_dict, options, seed):
    play_match(rules_dict, options, seed, rounds=2)


@pytest.mark.slow
@pytest.mark.rule("R1", "R2", "R3", "R4", "R5", "R6", "R7", "T1")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_dict=house_rules(), options=behaviours, seed=st.integers(0, 2**32))
def test_invariants_hold_over_whole_matches_under_random_rules(rules_dict, options, seed):
    play_match(rules_dict, options, seed, rounds=40)
