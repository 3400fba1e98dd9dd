"""The whole table end to end: simulated players at the simulated table, frames rendered and
read by the real vision pipeline with the shipped model, seat buttons on mock GPIO, the
referee judging. Compared with the simulator's truth."""

import json
import subprocess
import sys

import pytest

from table.app import TableHub
from table.demo import DemoDriver
from table.log import MemoryLog
from table.rules import preset


@pytest.mark.slow
def test_one_round_through_the_shipped_model_ends_with_the_true_scores():
    from vision.config import VisionConfig
    from vision.live import SimulatedCamera

    hub = TableHub(MemoryLog(preset("official")))
    camera = SimulatedCamera(VisionConfig(), seed=3, width=1280, height=720, fps=10)
    report = DemoDriver(hub, camera, seed=3).play(1).to_json()
    assert report["rounds"] == 1 and report["plays"] > 10
    # What the camera reported by itself, without a host correction.
    assert report["camera_inputs"] >= 0.6 * (report["camera_inputs"] + report["host_corrections"])
    assert not [m for m in report["mismatches"] if m["what"] in ("extra", "refused")]  # no duplicates
    # With the host's corrections (logged inputs), penalties and scores equal the truth.
    assert report["scores_table"] == report["scores_truth"]
    assert report["penalties_table"] == report["penalties_truth"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["two-player", "official"])
def test_headless_demo_reports_json_and_the_referee_agrees_with_the_truth(name):
    """The stand-in detector (renderer truth with noise) keeps this quick; the mock buttons
    press UNO, forget it, catch and challenge."""
    out = subprocess.run(
        [sys.executable, "-m", "table.cli", "demo", "--headless", "--rounds", "1", "--seed", "4",
         "--preset", name, "--detector", "sim-truth", "--size", "960x540", "--json"],
        capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    for key in ("rounds", "plays", "referee_matches_truth", "mismatches"):
        assert key in report
    assert report["rounds"] == 1 and report["plays"] > 5
    assert report["scores_table"] == report["scores_truth"]
