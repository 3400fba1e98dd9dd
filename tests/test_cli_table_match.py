"""`uno-table simulate --preset party|seed-house` and `--match` as a user runs them."""

import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize("preset", ["party", "seed-house", "no-mercy-lite"])
def test_house_presets_simulate_like_official_with_games_per_second(preset):
    out = run("simulate", "--games", "20", "--preset", preset, "--seed", "2", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["preset"] == preset and data["games"] == 20 and data["games_per_s"] > 0
    assert data["capped_games"] == 0 and sum(data["wins_by_seat"]) == 20


@pytest.mark.rule("R2")
def test_a_500_point_match_end_to_end_prints_rounds_totals_and_winner():
    out = run("simulate", "--match", "--preset", "official", "--seed", "1")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "match: standard, target 500" in text and "winner(s): seat" in text
    data = json.loads(run("simulate", "--match", "--preset", "official", "--seed", "1", "--json").stdout)
    summary = data["summary"]
    assert data["over"] and summary["over"] and summary["ended_by"] == "target"
    totals = summary["totals"]
    assert max(totals.values()) >= 500 and summary["winners"] == [max(totals, key=totals.get)]
    # the per-round table adds up to the totals, and the text shows each round
    for seat, total in totals.items():
        assert sum(r["points"][seat] for r in summary["rounds"]) == total
    assert len(summary["rounds"]) == data["rounds"] and f"{data['rounds']:>5}  seat" in text


@pytest.mark.rule("R6")
def test_match_with_elimination_and_a_round_cap_is_reported():
    data = json.loads(
        run("simulate", "--match", "--set", "scoring.format=elimination", "--set", "scoring.target=150",
            "--seed", "4", "--json").stdout
    )  # fmt: skip
    s = data["summary"]
    assert s["ended_by"] == "last-standing" and len(s["active"]) == 1 and s["winners"] == s["active"]
    capped = json.loads(run("simulate", "--match", "--max-rounds", "1", "--seed", "1", "--json").stdout)
    assert capped["rounds"] == 1 and capped["capped"] and not capped["over"]
    bad = run("simulate", "--match", "--max-rounds", "0")
    assert bad.returncode == 2 and "--max-rounds" in bad.stderr


@pytest.mark.rule("R2")
def test_simulate_match_csv_is_the_dashboard_s_csv_writer():
    import csv
    import io

    from table.rules import load_rules
    from table.simulator import simulate_match

    out = run("simulate", "--match", "--preset", "official", "--seed", "1", "--csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    summary = simulate_match(load_rules("official"), seed=1)["summary"]
    assert out.stdout == summary.to_csv()  # the same writer the dashboard's download uses
    assert rows[-1]["round"] == "total" and rows[-1]["went_out"] == " & ".join(summary.winners)
    assert len(rows) == len(summary.rounds) + 1
    bad = run("simulate", "--csv")
    assert bad.returncode != 0 and "--match" in bad.stderr
