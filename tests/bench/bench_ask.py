"""When the table asks the host, measured on rendered games read by the shipped model (figures,
not asserts): how many questions, the share of the camera's wrong readings they covered, and
how many right readings were asked about anyway; at the default thresholds and a sweep.

    python tests/bench/bench_ask.py --seeds 1 2 3 --rounds 2          # shipped ONNX model
    python tests/bench/bench_ask.py --detector sim-truth --seeds 1 --rounds 3

The same figures for one run: `uno-table demo --headless --rounds N --seed S --json` (its
"questions" object)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.config import AskConfig  # noqa: E402
from app.demo import DemoDriver  # noqa: E402
from app.hub import TableHub  # noqa: E402
from table.log import MemoryLog  # noqa: E402
from table.rules import load_rules  # noqa: E402
from vision.config import SimSourceConfig, SimTruthDetectorConfig, VisionConfig  # noqa: E402
from vision.live import SimulatedCamera  # noqa: E402
from vision.pipeline import VisionPipeline  # noqa: E402


def play(seed: int, rounds: int, detector: str) -> dict:
    cfg = VisionConfig(source=SimSourceConfig())
    if detector == "sim-truth":
        cfg = cfg.model_copy(update={"detector": SimTruthDetectorConfig(seed=seed)})
    rules = load_rules("official", overrides={"players": 4})
    hub = TableHub(MemoryLog(rules), ["Ana", "Ben", "Cleo", "Dev"], ask=AskConfig().model_dump())
    camera = SimulatedCamera(cfg, seed=seed, pipeline=VisionPipeline(cfg))
    t0 = time.perf_counter()
    report = DemoDriver(hub, camera, seed=seed).play(rounds)
    out = report.to_json()
    wrong = [  # what the camera got wrong, and whether the table asked
        {"what": m["what"], "truth": m["truth"], "read": {k: m["table"].get(k) for k in ("kind", "cards", "candidates")},
         "asked": (m["table"].get("unsure") or {}).get("tags")}
        for m in out["mismatches"] if m["what"] in ("misread", "extra") and isinstance(m.get("table"), dict)
    ]  # fmt: skip
    return {"seed": seed, "rounds": report.rounds, "seconds": round(time.perf_counter() - t0, 1),
            "camera_readings": len(report.readings), "questions": out["questions"], "wrong": wrong,
            "readings": report.readings}


def sweep(readings, confs=(0.5, 0.6, 0.7, 0.8), margins=(0.15, 0.25, 0.35, 0.5)) -> list[dict]:
    wrong = sum(1 for *_, ok in readings if not ok)
    rows = []
    for c in confs:
        for m in margins:
            asked = [(top < c or margin < m or bool(tags), ok) for top, margin, tags, ok in readings]
            rows.append({
                "min_confidence": c, "min_margin": m,
                "asked": sum(a for a, _ in asked),
                "wrong_asked": sum(a for a, ok in asked if not ok), "wrong": wrong,
                "correct_asked": sum(a for a, ok in asked if ok),
            })
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--detector", choices=["onnx", "sim-truth"], default="onnx")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    runs, readings = [], []
    for seed in args.seeds:
        run = play(seed, args.rounds, args.detector)
        readings += run.pop("readings")
        runs.append(run)
        print(json.dumps(run), flush=True)
    total = {k: sum(r["questions"][k] for r in runs) for k in ("asked", "wrong_readings", "wrong_asked", "correct_asked")}
    total["camera_readings"] = sum(r["camera_readings"] for r in runs)
    total["wrong_covered"] = round(total["wrong_asked"] / total["wrong_readings"], 3) if total["wrong_readings"] else None
    print(json.dumps({"detector": args.detector, "rounds": sum(r["rounds"] for r in runs), "total": total}))
    print(json.dumps({"sweep": sweep(readings)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
