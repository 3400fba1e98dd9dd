"""The rules configuration: presets, YAML, overrides, bounds and contradictions."""

import pytest

from table.errors import ConfigError
from table.rules import PRESETS, RulesConfig, load_rules, parse_override, preset


def test_presets_load_by_name():
    assert preset("official").players == 4
    two = preset("two-player")
    assert two.players == 2 and two.name == "two-player"
    assert {"official", "two-player"} <= set(PRESETS)


def test_every_field_has_a_description():
    def walk(model):
        for name, f in model.model_fields.items():
            assert f.description, f"{model.__name__}.{name} has no description"
            ann = f.annotation
            if isinstance(ann, type) and issubclass(ann, RulesConfig.__mro__[1]):
                walk(ann)

    walk(RulesConfig)


def test_yaml_file_with_its_own_preset_and_overrides(tmp_path):
    f = tmp_path / "rules.yaml"
    f.write_text("preset: two-player\nplay:\n  illegal_play_penalty: 0\nuno:\n  strict: true\n")
    r = load_rules(path=f, overrides=["uno.missed_penalty=4"])
    assert r.players == 2 and r.play.illegal_play_penalty == 0 and r.uno.strict
    assert r.uno.missed_penalty == 4


def test_unknown_key_in_yaml_names_the_field_and_file(tmp_path):
    f = tmp_path / "rules.yaml"
    f.write_text("play:\n  ilegal_play_penalty: 0\n")
    with pytest.raises(ConfigError) as info:
        load_rules(path=f)
    assert "play.ilegal_play_penalty" in str(info.value) and str(f) in str(info.value)


def test_bad_yaml_and_missing_file_are_clear(tmp_path):
    f = tmp_path / "r.yaml"
    f.write_text("players: [4\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_rules(path=f)
    with pytest.raises(ConfigError, match="cannot read rules file"):
        load_rules(path=tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="unknown preset 'house'"):
        load_rules("house")
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_override("players")


@pytest.mark.rule("S1")
@pytest.mark.parametrize("players,ok", [(1, False), (2, True), (10, True), (11, False)])
def test_two_to_ten_players(players, ok):
    if ok:
        assert load_rules(overrides={"players": players}).players == players
    else:
        with pytest.raises(ConfigError, match="players"):
            load_rules(overrides={"players": players})


def test_contradictions_are_refused_naming_the_fields():
    with pytest.raises(ConfigError) as info:
        load_rules(overrides={"players": 10, "setup": {"hand_size": 11}})
    assert "setup.hand_size" in str(info.value) and "players" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_rules(overrides={"house": {"deflect": True}})
    assert "house.deflect" in str(info.value) and "house.stack_draw2" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_rules(overrides={"players": 3, "teams": {"mode": "partners"}})
    assert "teams.mode" in str(info.value) and "players=3" in str(info.value)


def test_the_eight_player_rotating_schedule_needs_two_tables_and_is_refused_not_ignored():
    with pytest.raises(ConfigError, match="teams.mode='rotating' with players=8"):
        load_rules(overrides={"teams": {"mode": "rotating"}, "players": 8})
    with pytest.raises(ConfigError, match="by-draw"):
        load_rules(overrides={"teams": {"mode": "by-draw"}, "players": 5})


def test_bounds_are_enforced():
    with pytest.raises(ConfigError, match="play.illegal_play_penalty"):
        load_rules(overrides=["play.illegal_play_penalty=-1"])
    with pytest.raises(ConfigError, match="setup.first_reverse"):
        load_rules(overrides=["setup.first_reverse=sideways"])
