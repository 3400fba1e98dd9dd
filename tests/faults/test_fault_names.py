"""Item 4 (and the names part of 11) of issue 16: one validation of player names for the
config file and Setup, and the players kept in SQLite, not in a line-per-name text file."""

from __future__ import annotations

import pytest

from app.config import load_app_config
from app.hub import TableHub
from table.errors import ConfigError
from table.log import MemoryLog
from table.rules import load_rules
from web_ui.app import create_app

PIN = "246810"
TOKENS = {i: f"tok-{i}-names-xxxx" for i in range(10)}
BAD_NAMES = {
    "newline": ["Ana\nBen", "Cleo"],
    "tab": ["Ana\tB", "Cleo"],
    "escape": ["\x1b[31mAna", "Cleo"],
    "bidi override": ["\u202eanA", "Cleo"],
    "blank": ["   ", "Cleo"],
    "duplicate": ["Ana", "Ana"],
    "duplicate by case and space": ["Ana", " ana "],
    "500 characters": ["A" * 500, "Cleo"],
}


@pytest.mark.parametrize("names", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_the_config_file_refuses_a_bad_name(tmp_path, names):
    import yaml

    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(yaml.safe_dump({"players": names}))
    with pytest.raises(ConfigError, match="players"):
        load_app_config(cfg)


@pytest.fixture
def host(tmp_path):
    hub = TableHub(MemoryLog(load_rules("official", overrides={"players": 2})), ["Ana", "Ben"],
                   match_dir=tmp_path / "matches").start()  # fmt: skip
    client = create_app(hub, host_pin=PIN, seat_tokens=TOKENS).test_client()
    csrf = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    yield hub, client, csrf
    hub.close()


@pytest.mark.parametrize("names", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_setup_refuses_the_same_bad_names_with_400(host, names):
    hub, client, csrf = host
    players = [{"seat": i, "name": n} for i, n in enumerate(names)]
    resp = client.post("/api/host/command", json={"kind": "setup", "players": players},
                       headers={"X-CSRF-Token": csrf})  # fmt: skip
    assert resp.status_code == 400, resp.get_json()
    assert hub.names == ["Ana", "Ben"]


def test_names_are_trimmed_the_same_way_on_both_paths(tmp_path, host):
    hub, client, csrf = host
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text('players: ["  Zoë ", "Ben"]\n')
    assert load_app_config(cfg).players == ["Zoë", "Ben"]
    resp = client.post("/api/host/command", json={"kind": "setup", "players": ["  Zoë ", "Ben"]},
                       headers={"X-CSRF-Token": csrf})  # fmt: skip
    assert resp.status_code == 200 and hub.names == ["Zoë", "Ben"]


def test_players_are_kept_in_sqlite_and_come_back_after_a_restart(tmp_path, host):
    hub, client, csrf = host
    names = ["Zoë 🎲", "Ben, Jr.", "O'Neil"]
    resp = client.post("/api/host/command", json={"kind": "setup", "players": names},
                       headers={"X-CSRF-Token": csrf})  # fmt: skip
    assert resp.status_code == 200
    match_dir = tmp_path / "matches"
    assert not list(match_dir.glob("*.txt"))  # no line-per-name file
    from app.matchfiles import MatchStore

    with MatchStore(match_dir) as store:
        assert store.current().players == names
