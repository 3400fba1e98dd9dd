"""`uno-table simulate` and `uno-table replay` as a user runs them."""

import json
import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True)


def test_simulate_json_has_the_figures():
    out = run("simulate", "--players", "4", "--games", "30", "--preset", "official", "--seed", "5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["games"] == 30 and data["players"] == 4
    assert data["games_per_s"] > 0 and data["turns_per_game"] > 5
    again = json.loads(run("simulate", "--games", "30", "--seed", "5", "--json").stdout)
    assert again["turns_per_game"] == data["turns_per_game"]  # seeded: same games


def test_simulate_readable_summary_and_two_player_preset():
    out = run("simulate", "--games", "20", "--preset", "two-player", "--seed", "1")
    assert out.returncode == 0 and "games/s" in out.stdout and "2 players" in out.stdout


def test_simulate_save_then_replay_prints_readable_lines(tmp_path):
    db = tmp_path / "g.db"
    out = run("simulate", "--games", "3", "--seed", "2", "--forget-uno", "0.5", "--save", str(db))
    assert out.returncode == 0, out.stderr
    rep = run("replay", str(db))
    assert rep.returncode == 0, rep.stderr
    assert "#1 start_round" in rep.stdout and "plays" in rep.stdout and "went out" in rep.stdout
    js = run("replay", str(db), "--json")
    lines = [json.loads(line) for line in js.stdout.splitlines()]
    assert lines[0]["seq"] == 1 and "snapshot" in lines[-1]
    assert lines[-1]["snapshot"]["phase"] in ("round-over", "match-over")


def test_bad_arguments_and_files_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_text("hello")
    out = run("replay", str(bad))
    assert out.returncode == 2 and "bad.db" in out.stderr and "Traceback" not in out.stderr
    out = run("replay", str(tmp_path / "none.db"))
    assert out.returncode == 2 and "no such log file" in out.stderr
    out = run("simulate", "--players", "11", "--games", "1")
    assert out.returncode == 2 and "players" in out.stderr and "Traceback" not in out.stderr
    out = run("simulate", "--set", "house.deflect=true", "--games", "1")
    assert out.returncode == 2 and "house.deflect needs house.stack_draw2" in out.stderr
