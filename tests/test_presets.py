"""Presets (official, two-player, seed-house, no-mercy-lite, party), their documentation
table, and settings refused at load with a message naming the fields."""

from pathlib import Path

import pytest

from table.errors import ConfigError
from table.rules import PRESETS, load_rules, presets_markdown
from table.simulator import SimOptions, Simulator

DOC = Path(__file__).resolve().parents[1] / "table" / "PRESETS.md"


def test_presets_md_is_generated_from_presets_and_current():
    assert DOC.read_text() == presets_markdown(), (
        "table/PRESETS.md is stale: run "
        "python -c 'from table.rules import write_presets_markdown as w; w()'"
    )
    header = next(line for line in DOC.read_text().splitlines() if line.startswith("| rule"))
    assert all(f"`{name}`" in header for name in PRESETS)


@pytest.mark.rule("H1", "H5", "H7", "H8")
def test_party_preset_has_stacking_jump_in_seven_o_and_draw_until_playable():
    h = load_rules("party").house
    assert h.stack_draw2 and h.stack_draw4 and h.jump_in == "any" and h.seven_o
    assert h.draw_until_playable == "playable"


@pytest.mark.rule("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "H10", "H11", "R7")
def test_seed_house_is_seed_002():
    r = load_rules("seed-house")
    h = r.house
    assert (h.stack_draw2, h.stack_draw4, h.deflect, h.follow_stack_colour) == (True, True, True, True)
    assert h.multi_play == "identical-pair" and h.draw_until_playable == "playable-number"
    assert h.seven_o and h.seven_o_zero == "current-colour" and not h.seven_o_seven
    assert h.red0_draw10 and h.silent2 and h.slap9 and h.jump_in == "any"
    assert r.play.wild_draw4_legal == "no-playable-card" and r.play.play_drawn == "number-only"
    assert r.scoring.last_card_action == "draw-one"


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_plays_whole_rounds_in_the_simulator(name):
    rules = load_rules(name)
    sim = Simulator(rules, seed=7, options=SimOptions(forget_uno=0.2, challenge_rate=0.5))
    for _ in range(3):
        game = sim.play_round()
        if sim.state.phase == "match-over":
            break
        assert not game.capped and game.winner >= 0
        assert sim.state.phase == "round-over" and sim.state.match is not None


@pytest.mark.parametrize(
    "overrides, names",
    [
        ({"players": 3, "teams": {"mode": "fixed"}}, ["teams.mode='fixed'", "players=3"]),
        ({"house": {"deflect": True}}, ["house.deflect", "house.stack_draw2"]),
        ({"players": 11}, ["players"]),
        ({"house": {"follow_stack_colour": True}}, ["house.follow_stack_colour"]),
        ({"house": {"draw2_pair_on_draw4": True}}, ["house.draw2_pair_on_draw4", "house.stack_draw4"]),
        ({"house": {"seven_o_zero": "current-colour"}}, ["house.seven_o_zero", "house.seven_o"]),
        ({"house": {"jump_in_own": False}}, ["house.jump_in_own"]),
        (
            {"house": {"attack_mode": True, "draw_until_playable": "playable"}},
            ["house.attack_mode", "house.draw_until_playable"],
        ),
        ({"players": 2, "scoring": {"format": "continuous"}}, ["scoring.format='continuous'", "players"]),
        ({"teams": {"mode": "fixed"}, "scoring": {"format": "chips"}}, ["teams.mode='fixed'", "chips"]),
        ({"teams": {"mode": "rotating"}, "players": 8}, ["teams.mode='rotating'", "players=8"]),
        ({"teams": {"mode": "rotating"}, "scoring": {"target": 300}}, ["teams.mode='rotating'", "target"]),
        ({"house": {"jump_in": "sometimes"}}, ["house.jump_in"]),
    ],
)
def test_contradictory_or_impossible_settings_are_refused_naming_the_fields(overrides, names):
    with pytest.raises(ConfigError) as info:
        load_rules(overrides=overrides)
    for name in names:
        assert name in str(info.value)


def test_every_format_and_the_fixed_teams_mode_load():
    for fmt in ("standard", "negative", "loss-points", "chips", "continuous", "elimination"):
        assert load_rules(overrides={"scoring": {"format": fmt}}).match_config().format == fmt
    assert load_rules(overrides={"teams": {"mode": "fixed"}}).match_config().teams == "fixed"
    assert load_rules(overrides={"scoring": {"format": "continuous"}}).match_config().effective_target == 15
