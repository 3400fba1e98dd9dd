"""The whole vision pipeline on the simulated table: mat found from the pixels, hands found
from the pixels, plays reported once each, in order."""

from __future__ import annotations

from collections import Counter

import pytest

from vision.annotate import annotate_result
from vision.config import SimTruthDetectorConfig
from vision.evaluate import run_game


@pytest.mark.slow
def test_a_short_rendered_game_is_read_play_by_play_without_duplicates():
    r = run_game(plays=8, seed=11, detector_cfg=SimTruthDetectorConfig(seed=11), fps=20, progress=False)
    assert r["plays"] == 8
    assert r["duplicates"] == 0 and r["spurious"] == 0
    assert r["matched"] >= 7, r["mismatches"]


def test_pipeline_finds_the_mat_and_annotates_frames():
    from vision.config import VisionConfig
    from vision.frame import Frame
    from vision.pipeline import VisionPipeline
    from vision.sim import SimTable

    table = SimTable(seed=4, width=960, height=540)
    table.play(["red-3"])
    table.idle(1.0)
    pipe = VisionPipeline(VisionConfig(detector=SimTruthDetectorConfig(seed=4, miss_rate=0, flicker_rate=0)))
    results = []
    n = 0
    while table.pending:
        img, truth = table.next_frame()
        n += 1
        results.append(pipe.process(Frame(n, n / 20, img, None, truth)))
    assert results[0].zones.source == "mat"
    kinds = Counter(o.type for r in results for o in r.observations)
    assert kinds["discard"] == 1 and kinds["covered"] >= 2
    played = next(o for r in results for o in r.observations if o.type == "discard")
    assert [c.card for c in played.cards] == ["red-3"]
    jpeg = annotate_result(results[-1], quality=70)
    assert jpeg[:2] == b"\xff\xd8" and len(jpeg) > 5000
    assert set(results[-1].timings) >= {"detect", "classify", "track"}


def test_detections_on_the_low_res_stream_come_back_in_main_stream_pixels():
    import numpy as np

    from vision.config import CalibrationConfig, VisionConfig
    from vision.frame import Frame
    from vision.pipeline import VisionPipeline
    from vision.types import CardDetection

    seen = []

    class Lores:
        name, timings = "lores", {}

        def detect(self, image, truth=None):
            seen.append(image.shape)
            return [CardDetection("blue-1", 0.9, (10, 20, 30, 60), ((10, 20), (30, 20), (30, 60), (10, 60)))]

    cfg = VisionConfig(calibration=CalibrationConfig(use_mat=False), detect_on="lores")
    pipe = VisionPipeline(cfg, detector=Lores())
    main = np.zeros((720, 1280, 3), np.uint8)
    lores = np.zeros((360, 640, 3), np.uint8)
    r = pipe.process(Frame(1, 0.0, main, lores))
    assert seen == [(360, 640, 3)]  # the detector read the small stream
    d = r.detections[0]
    assert d.box == (20, 40, 60, 120) and d.quad[2] == (60, 120)
