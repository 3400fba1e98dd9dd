"""Time the vision pipeline on a 1280x720 table frame (`uno-table bench`)."""

from __future__ import annotations

import resource
import statistics
import time

import cv2
import numpy as np


def _table(look, **kwargs):
    """The simulated table, played with `look` (a `vision.decks.looks.DeckLook`: a deck under
    its light) when given."""
    from vision.sim import SimTable

    if look is None:
        return SimTable(**kwargs)
    from vision.decks.looks import sim_table

    return sim_table(look, **kwargs)


def table_frame(seed: int = 5, width: int = 1280, height: int = 720, look=None):
    """A rendered table with a dozen cards: a messy discard pile, a draw pile, a revealed
    hand (in `look`'s deck and light, when given). Returns (JPEG bytes as a camera would
    send them, the SimTruth)."""
    from vision.render import ALL_FACES

    table = _table(look, seed=seed, width=width, height=height)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        table.discard.append(table._pile_pose(ALL_FACES[int(rng.integers(len(ALL_FACES)))]))
    table.reveal([ALL_FACES[int(i)] for i in rng.integers(len(ALL_FACES), size=6)])
    while table.pending:
        image, truth = table.next_frame()
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return jpeg.tobytes(), truth


def game_frames(frames: int, seed: int = 7, fps: float = 20.0, look=None) -> list[bytes]:
    """JPEG frames of a rendered game (hands coming and going, cards landing), rendered
    before timing so the renderer's cost is not counted."""
    from vision.sim import random_script

    table = _table(look, seed=seed, fps=fps)
    random_script(table, max(4, frames // 25), seed=seed)
    out = []
    while table.pending and len(out) < frames:
        image, _ = table.next_frame()
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        out.append(jpeg.tobytes())
    return out


def _time(pipeline, jpegs: list[bytes], truth, warmup: int, first: int = 1,
          ) -> tuple[dict[str, list[float]], list[float], int, int]:
    """Each frame through `pipeline`, numbered from `first` (a pipeline never sees a number twice)."""
    from vision.frame import Frame

    stages: dict[str, list[float]] = {
        "decode": [], "detect": [], "classify": [], "recognize": [], "track": [], "calibrate": [],
    }
    e2e: list[float] = []
    cards = reads = 0
    for i, jpeg in enumerate(jpegs):
        t0 = time.perf_counter()
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        t1 = time.perf_counter()
        result = pipeline.process(Frame(first + i, t1, image, None, truth))
        t2 = time.perf_counter()
        if i < warmup:
            continue
        stages["decode"].append((t1 - t0) * 1000)
        # recognize: the detector backend's whole call (detect + classify + their glue).
        for k in ("detect", "classify", "recognize", "track", "calibrate"):
            stages[k].append(result.timings.get(k, 0.0))
        e2e.append((t2 - t0) * 1000)
        cards = len(result.detections)
        reads += bool(result.regions_read) if result.regions_read is not None else 1
    return stages, e2e, cards, reads


def _p95(values: list[float]) -> float:
    return round(sorted(values)[min(len(values) - 1, int(len(values) * 0.95))], 2)


def _recorder(pipeline, every_frame: bool):
    """Instant replay on, as the table runs it (vision/replay.py): the frame loop hands each
    kept frame to the encoder thread, which shrinks and encodes it beside the loop.
    `every_frame`: every frame kept (the worst case; the default keeps `ReplayConfig.fps` a
    second). No match: nothing is written to disk here."""
    from vision.config import ReplayConfig
    from vision.replay import ReplayRecorder

    rec = ReplayRecorder(ReplayConfig(fps=30.0) if every_frame else ReplayConfig())
    pipeline.listeners.append(rec.on_result)
    return rec


def _replay_figures(rec) -> dict:
    rec.flush()
    ms, cpu, loop = list(rec.encode_ms), list(rec.encode_cpu_ms), list(rec.loop_ms)
    out = {
        "kept_frames": len(ms),
        "dropped_frames": rec.dropped,
        # in the frame loop: the hand-over only; beside it: shrink, encode, crops
        "frame_loop_ms_mean": round(statistics.fmean(loop), 3) if loop else None,
        "frame_loop_ms_median": round(statistics.median(loop), 3) if loop else None,
        "encoder_ms_mean": round(statistics.fmean(ms), 2) if ms else None,
        "encoder_cpu_ms_mean": round(statistics.fmean(cpu), 2) if cpu else None,
        "encoder_ms_max": round(max(ms), 2) if ms else None,
        "ring_frames": len(rec.ring),
        "ring_mb": round(rec.ring.nbytes / 2**20, 2),
    }
    rec.close()
    return out


# The busy frame's figure hangs on how surely its few cards happen to be read: a box read just
# under a bar is read again, and one frame's cost moves by half with a retrained classifier
# (models/README.md, twenty-fourth session). So the same kind of frame, dealt with other
# seeds, is timed too (`busy_seeds`), each seed BUSY_SEED_FRAMES times.
BUSY_SEED_FRAMES = 8


def _busy_seeds(detector_config, seeds: list[int], look=None) -> dict:
    """The busy table frame (`table_frame`) dealt with each seed, every zone read each time:
    mean milliseconds per seed, their mean, and the slowest seed's."""
    from vision.config import VisionConfig
    from vision.pipeline import VisionPipeline

    # one pipeline for all (each model loaded once, as `run` loads it), each seed's table new
    # to it (its own mat pose: another seed's zones cut its pile off-centre, and a frame
    # cost up to twice as much); each seed's first two frames let the tracker settle on the
    # new table and are not timed
    pipeline = VisionPipeline(VisionConfig(detector=detector_config, skip_still=False))
    per_seed = {}
    for k, seed in enumerate(seeds):
        pipeline.new_table()
        jpeg, truth = table_frame(seed=seed, look=look)
        _, e2e, _, _ = _time(pipeline, [jpeg] * (2 + BUSY_SEED_FRAMES), truth, 2, first=1 + k * (2 + BUSY_SEED_FRAMES))
        per_seed[str(seed)] = round(statistics.fmean(e2e), 2)
    slowest = max(per_seed, key=per_seed.get)
    return {
        "frames_per_seed": BUSY_SEED_FRAMES,
        "ms_mean_per_seed": per_seed,
        "end_to_end_ms_mean": round(statistics.fmean(per_seed.values()), 2),
        "slowest_seed": int(slowest),
        "slowest_seed_ms_mean": per_seed[slowest],
    }


def run_bench(detector_config, frames: int = 60, warmup: int = 5, game_frames_n: int = 400,
              replay: bool = True, look=None, busy_seeds: list[int] | None = None) -> dict:  # fmt: skip
    """Two figures. `every_frame_read`: the same busy table frame again and again with every
    zone read by the model each time (the cost of a frame in which both zones move: the
    worst case). `game`: a rendered game, default settings (still zones keep their last
    reading), the mean a camera feed costs. `replay`: instant replay on (every frame kept in
    the worst case, the default rate in the game), as `run` and `demo` have it. `look` (a
    `vision.decks.looks.DeckLook`): both played with that deck under its light, to time a
    deck taught to the table on its own cards (to its gate the generic renders are another
    deck's). `busy_seeds`: the busy frame dealt with each of these seeds too, timed
    without replay (`_busy_seeds`)."""
    from vision.config import VisionConfig
    from vision.pipeline import VisionPipeline

    jpeg, truth = table_frame(look=look)
    worst = VisionPipeline(VisionConfig(detector=detector_config, skip_still=False))
    rec = _recorder(worst, every_frame=True) if replay else None
    stages, e2e, cards, _ = _time(worst, [jpeg] * (warmup + frames), truth, warmup)
    mean = statistics.fmean(e2e)
    result = {
        "detector": detector_config.type,
        "frame": "1280x720",
        "frames": frames,
        "cards_in_frame": cards,
        "deck_look": None if look is None else str(look),
        "ms": {k: round(statistics.fmean(v), 2) for k, v in stages.items()},
        "end_to_end_ms_mean": round(mean, 2),
        "end_to_end_ms_p95": _p95(e2e),
        "fps": round(1000.0 / mean, 1),
        "replay": _replay_figures(rec) if rec is not None else "off",
    }
    if busy_seeds:
        result["busy_seeds"] = _busy_seeds(detector_config, busy_seeds, look)
    if game_frames_n and detector_config.type != "sim-truth":
        jpegs = game_frames(game_frames_n, look=look)
        default = VisionPipeline(VisionConfig(detector=detector_config))
        g_rec = _recorder(default, every_frame=False) if replay else None
        g_stages, g_e2e, _, reads = _time(default, jpegs, None, warmup)
        g_mean = statistics.fmean(g_e2e)
        result["game"] = {
            "frames": len(g_e2e),
            "frames_with_a_model_read": reads,
            "ms": {k: round(statistics.fmean(v), 2) for k, v in g_stages.items()},
            "end_to_end_ms_mean": round(g_mean, 2),
            "end_to_end_ms_p95": _p95(g_e2e),
            "end_to_end_ms_max": round(max(g_e2e), 2),
            "fps": round(1000.0 / g_mean, 1),
            "replay": _replay_figures(g_rec) if g_rec is not None else "off",
        }
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    result["peak_rss_mb"] = round(peak_kb / 1024, 1)
    return result
