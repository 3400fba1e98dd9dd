"""Time the vision pipeline on a 1280x720 table frame (`uno-table bench`)."""

from __future__ import annotations

import resource
import statistics
import time

import cv2
import numpy as np


def table_frame(seed: int = 5, width: int = 1280, height: int = 720):
    """A rendered table with a dozen cards: a messy discard pile, a draw pile, a revealed
    hand. Returns (JPEG bytes as a camera would send them, the SimTruth)."""
    from models.render import ALL_FACES
    from vision.sim import SimTable

    table = SimTable(seed=seed, width=width, height=height)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        table.discard.append(table._pile_pose(ALL_FACES[int(rng.integers(len(ALL_FACES)))]))
    table.reveal([ALL_FACES[int(i)] for i in rng.integers(len(ALL_FACES), size=6)])
    while table.pending:
        image, truth = table.next_frame()
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return jpeg.tobytes(), truth


def run_bench(detector_config, frames: int = 60, warmup: int = 5) -> dict:
    from vision.config import VisionConfig
    from vision.frame import Frame
    from vision.pipeline import VisionPipeline

    jpeg, truth = table_frame()
    pipeline = VisionPipeline(VisionConfig(detector=detector_config))
    stages: dict[str, list[float]] = {
        "decode": [], "detect": [], "classify": [], "recognize": [], "track": [], "calibrate": [],
    }
    e2e: list[float] = []
    cards = 0
    for i in range(warmup + frames):
        t0 = time.perf_counter()
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        t1 = time.perf_counter()
        result = pipeline.process(Frame(i + 1, t1, image, None, truth))
        t2 = time.perf_counter()
        if i < warmup:
            continue
        stages["decode"].append((t1 - t0) * 1000)
        # recognize: the detector backend's whole call (detect + classify + their glue).
        for k in ("detect", "classify", "recognize", "track", "calibrate"):
            stages[k].append(result.timings.get(k, 0.0))
        e2e.append((t2 - t0) * 1000)
        cards = len(result.detections)
    mean = statistics.fmean(e2e)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {
        "detector": detector_config.type,
        "frame": "1280x720",
        "frames": frames,
        "cards_in_frame": cards,
        "ms": {k: round(statistics.fmean(v), 2) for k, v in stages.items()},
        "end_to_end_ms_mean": round(mean, 2),
        "end_to_end_ms_p95": round(sorted(e2e)[min(len(e2e) - 1, int(len(e2e) * 0.95))], 2),
        "fps": round(1000.0 / mean, 1),
        "peak_rss_mb": round(peak_kb / 1024, 1),
    }
