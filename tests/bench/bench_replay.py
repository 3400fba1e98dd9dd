"""Instant replay's cost at the defaults (figures, not asserts): the ring buffer's memory and
the clips' disk per hour of play, measured on rendered demo games (the simulated table read
by the pipeline, every camera entry of the log keeping its clip and crops), and the encoder's
time per kept frame. The frame budget with replay on is `uno-table bench --json` (its
"replay" figures; `--no-replay` to compare).

    python tests/bench/bench_replay.py                         # sim-truth detector, 2 rounds
    python tests/bench/bench_replay.py --detector onnx --rounds 1

Demo games are denser than real ones (the simulated players act as soon as the table has
seen the last move), so the disk per hour is an upper figure; "continuous" is the most
any hour can take (a clip behind every second)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.demo import DemoDriver  # noqa: E402
from app.hub import TableHub  # noqa: E402
from table.log import EventLog  # noqa: E402
from table.rules import load_rules  # noqa: E402
from vision.config import ReplayConfig, SimSourceConfig, SimTruthDetectorConfig, VisionConfig  # noqa: E402
from vision.live import SimulatedCamera  # noqa: E402
from vision.pipeline import VisionPipeline  # noqa: E402
from vision.replay import MB, ReplayRecorder  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detector", choices=["onnx", "sim-truth"], default="sim-truth")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fps", type=float, default=10.0, help="the simulated camera's frame rate")
    args = ap.parse_args()
    cfg = VisionConfig(source=SimSourceConfig())
    if args.detector == "sim-truth":
        cfg = cfg.model_copy(update={"detector": SimTruthDetectorConfig(seed=args.seed)})
    replay = ReplayConfig()
    with tempfile.TemporaryDirectory() as tmp:
        rec = ReplayRecorder(replay)
        db = Path(tmp) / "match-1.db"
        hub = TableHub(EventLog(db, load_rules("official")), ["Ana", "Ben", "Cleo", "Dev"], replay=rec)
        pipeline = VisionPipeline(cfg)
        ring_peak = [0]
        pipeline.listeners.append(rec.on_result)
        pipeline.listeners.append(lambda _r: ring_peak.__setitem__(0, max(ring_peak[0], rec.ring.nbytes)))
        camera = SimulatedCamera(cfg, seed=args.seed, fps=args.fps, pipeline=pipeline)
        t0 = time.perf_counter()
        report = DemoDriver(hub, camera, seed=args.seed).play(args.rounds)
        rec.flush()
        wall = time.perf_counter() - t0
        game_s = report.frames / args.fps
        store = rec.store
        frames_dir = Path(tmp) / "match-1.replay" / "frames"
        frame_sizes = [p.stat().st_size for p in frames_dir.glob("*.jpg")]
        crops = [p.stat().st_size for p in (Path(tmp) / "match-1.replay" / "crops").glob("*.jpg")]
        kept_per_s = min(replay.fps, args.fps)
        out = {
            "defaults": replay.model_dump(),
            "detector": args.detector,
            "rounds": report.rounds,
            "game_seconds": round(game_s, 1),
            "camera_entries": len(store._clips),
            "entries_per_minute": round(len(store._clips) / game_s * 60, 1),
            "ring": {
                "frames": len(rec.ring),
                "seconds": round(rec.ring.span_s, 1),
                "mb": round(rec.ring.nbytes / MB, 2),
                "peak_mb": round(ring_peak[0] / MB, 2),
                "bound_mb": replay.ring_mb,
            },
            "encoder_ms_mean": round(statistics.fmean(rec.encode_ms), 2) if rec.encode_ms else None,
            "encoder_cpu_ms_mean": round(statistics.fmean(rec.encode_cpu_ms), 2) if rec.encode_cpu_ms else None,
            "frame_loop_ms_mean": round(statistics.fmean(rec.loop_ms), 3) if rec.loop_ms else None,
            "frame_loop_ms_median": round(statistics.median(rec.loop_ms), 3) if rec.loop_ms else None,
            "dropped_frames": rec.dropped,
            "frame_kb_mean": round(statistics.fmean(frame_sizes) / 1024, 1) if frame_sizes else None,
            "crop_kb_mean": round(statistics.fmean(crops) / 1024, 1) if crops else None,
            "disk_mb": round(store.total_bytes / MB, 2),
            "disk_mb_per_hour": round(store.total_bytes / MB / game_s * 3600, 1),
            "disk_mb_per_hour_continuous": round(
                kept_per_s * 3600 * (statistics.fmean(frame_sizes) if frame_sizes else 0) / MB, 1),
            "hours_kept_at_keep_mb": round(replay.keep_mb / (store.total_bytes / MB / game_s * 3600), 1)
            if store.total_bytes else None,
            "wall_seconds": round(wall, 1),
        }  # fmt: skip
        rec.close()
        hub.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
