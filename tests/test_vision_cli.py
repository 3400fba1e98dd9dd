"""`uno-table watch` and `uno-table bench` run end to end (detector faked where a model
would be needed; the pipeline, hub and sources are the real ones)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

import vision.detectors as detectors
from app.cli import main
from vision.types import CardDetection


class OneCard:
    name = "one-card"
    timings: dict = {}

    def detect(self, image, truth=None):
        h, w = image.shape[:2]
        return [CardDetection("green-2", 0.93, (w * 0.45, h * 0.2, w * 0.55, h * 0.45))]


@pytest.fixture
def video(tmp_path):
    path = tmp_path / "table.avi"
    wr = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 180))
    for i in range(25):
        img = np.full((180, 320, 3), 200, np.uint8)
        if 5 <= i < 9:  # a skin-coloured hand over the middle of the table
            cv2.circle(img, (160, 60), 40, (120, 150, 210), -1)
        wr.write(img)
    wr.release()
    return path


def test_watch_reads_a_video_file_to_the_end(monkeypatch, video, capsys):
    monkeypatch.setattr(detectors, "make_detector", lambda cfg: OneCard())
    assert main(["watch", str(video), "--no-mat", "--json"]) == 0
    out, err = capsys.readouterr()
    obs = [json.loads(x) for x in out.strip().splitlines()]
    assert "25 frames processed" in err
    kinds = [o["type"] for o in obs]
    assert "covered" in kinds
    assert all("frame" in o and "confidence" in o for o in obs)


def test_watch_a_missing_video_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(detectors, "make_detector", lambda cfg: OneCard())
    assert main(["watch", str(tmp_path / "gone.mp4")]) == 2
    err = capsys.readouterr().err
    assert "gone.mp4" in err and "does not exist" in err


def test_bench_prints_per_stage_figures(capsys):
    assert main(["bench", "--json", "--detector", "sim-truth", "--frames", "3", "--busy-seeds", "2"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["frame"] == "1280x720" and r["frames"] == 3
    assert set(r["ms"]) >= {"decode", "detect", "classify", "track"}
    assert r["fps"] > 0 and r["peak_rss_mb"] > 10 and r["cards_in_frame"] >= 6
    # the busy frame dealt with other seeds: one figure each, their mean and the slowest
    busy = r["busy_seeds"]
    assert set(busy["ms_mean_per_seed"]) == {"1", "2"} and busy["slowest_seed"] in (1, 2)
    assert busy["end_to_end_ms_mean"] == pytest.approx(sum(busy["ms_mean_per_seed"].values()) / 2, abs=0.01)
    assert busy["slowest_seed_ms_mean"] == max(busy["ms_mean_per_seed"].values())
    assert main(["bench", "--json", "--detector", "sim-truth", "--frames", "2", "--busy-seeds", "0"]) == 0
    assert "busy_seeds" not in json.loads(capsys.readouterr().out)
    assert main(["bench", "--detector", "sim-truth", "--busy-seeds", "-2"]) == 2
    assert "--busy-seeds" in capsys.readouterr().err


def test_bench_times_a_deck_on_its_own_cards(capsys):
    """`--deck-look`: the busy frame played with that deck under its light (a taught deck's
    classifier is timed on the cards it is for); a look that does not parse is a clear error."""
    from vision.bench import table_frame
    from vision.decks.looks import DeckLook

    assert main(["bench", "--json", "--detector", "sim-truth", "--frames", "2", "--busy-seeds", "1", "--deck-look", "2010s~-12+wear@warm"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["deck_look"] == str(DeckLook.parse("2010s~-12+wear@warm", seed=1)) and r["cards_in_frame"] >= 6
    plain, truth = table_frame()
    warm, warm_truth = table_frame(look=DeckLook.parse("2010s~-12+wear@warm", seed=1))
    assert [c for c, _ in warm_truth.cards] == [c for c, _ in truth.cards] and warm != plain  # the same table, other cards
    assert main(["bench", "--detector", "sim-truth", "--frames", "2", "--deck-look", "2010s@nowhere"]) == 2
    err = capsys.readouterr().err
    assert "--deck-look" in err and "nowhere" in err
