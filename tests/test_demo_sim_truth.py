"""With the stand-in detector that reads the simulator's truth, the table's referee must
equal the truth: every mismatch is a tracker or driver bug, not a reading error. Seed 3 lost a
red 9 that the withdrawing hand still half hid in the first clear frames (issue 19); the
20-seed figure is in the report of that issue
(`uno-table demo --headless --rounds 1 --seed S --detector sim-truth --json`, S = 0..19)."""

from __future__ import annotations

import json

import pytest

from app.cli import main


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 3])
def test_the_referee_matches_the_truth_with_the_sim_truth_detector(seed, capsys):
    code = main(["demo", "--headless", "--rounds", "1", "--seed", str(seed), "--detector", "sim-truth", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["mismatches"] == [] and report["referee_matches_truth"], report
