"""Measure the shipped models: real photos, fresh renders, synthetic val mAP, speed.

    python -m models.evaluate                      # everything, figures as JSON at the end
    python -m models.evaluate --only real,speed    # a subset

real:   the 70 real photos of ../shared/data/real-cards-mit through the full path
        (detector + classifier on the photo as given); one CSV row per photo in
        models/eval/real_photos.csv; top-1 and the confusions.
renders: 54 cards rendered with seeds the training never used, each laid on a random table
        at a random angle; top-1 through the full path.
map:    mAP50 and mAP50-95 of the exported detector on a synthetic validation set
        (ultralytics' OBB metrics; needs the `train` extra).
speed:  median ms per stage on a 1280x720 synthetic table frame.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from models.scenes import make_scene, make_table
from vision.render import ALL_FACES, random_params, render_card

REAL_PHOTOS = Path("/work/shared/data/real-cards-mit")
EVAL_DIR = Path(__file__).resolve().parent / "eval"


def _recognizer(models_dir: Path | None):
    from vision.recognizer import CLASSIFIER_FILE, DETECTOR_FILE, CardRecognizer

    if models_dir is None:
        return CardRecognizer.default()
    return CardRecognizer(models_dir / DETECTOR_FILE, models_dir / CLASSIFIER_FILE)


def _main_card(dets):
    """The card a single-card photo shows: the detection with the best detector score."""
    return max(dets, key=lambda d: d.detector_confidence or 0.0) if dets else None


def eval_real(rec, folder: Path = REAL_PHOTOS, csv_out: Path | None = None) -> dict:
    rows = list(csv.DictReader(open(folder / "labels.csv")))
    out_rows, right, confusions = [], 0, Counter()
    for r in tqdm(rows, desc="real photos", unit="img"):
        img = cv2.imread(str(folder / r["file"]), cv2.IMREAD_COLOR)
        dets = rec.recognize(img)
        d = _main_card(dets)
        pred = d.card if d else "none"
        ok = pred == r["card"]
        right += ok
        if not ok:
            confusions[f"{r['card']} -> {pred}"] += 1
        t = rec.last_timings
        out_rows.append(
            {
                "file": r["file"],
                "truth": r["card"],
                "predicted": pred,
                "correct": int(ok),
                "confidence": round(d.confidence, 4) if d else "",
                "detector_confidence": round(d.detector_confidence, 4) if d else "",
                "detections": len(dets),
                "box": json.dumps([round(v, 1) for v in d.box]) if d else "",
                "width": img.shape[1],
                "height": img.shape[0],
                "detect_ms": round(t.get("detect", 0), 2),
                "classify_ms": round(t.get("classify", 0), 2),
                "total_ms": round(t.get("total", 0), 2),
            }
        )
    if csv_out:
        csv_out.parent.mkdir(parents=True, exist_ok=True)
        with open(csv_out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out_rows[0]))
            w.writeheader()
            w.writerows(out_rows)
    return {
        "real_top1": right / len(rows),
        "real_right": right,
        "real_total": len(rows),
        "real_confusions": dict(confusions.most_common()),
    }


def render_on_table(rng: np.random.Generator, card: str, size: int = 480) -> np.ndarray:
    """One card, a fresh random printing, on a random table at a random angle."""
    table = make_table(rng, size, size).astype(np.uint8)
    art = render_card(
        card, height=int(size * rng.uniform(0.35, 0.6)), rng=rng, params=random_params(rng)
    )
    ah, aw = art.shape[:2]
    M = cv2.getRotationMatrix2D((aw / 2, ah / 2), rng.uniform(0, 360), 1.0)
    M[:, 2] += [size / 2 - aw / 2, size / 2 - ah / 2]
    warped = cv2.warpAffine(art, M, (size, size), borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    return (table * (1 - a) + warped[..., :3] * a).astype(np.uint8)


def eval_renders(rec, seed: int = 424242) -> dict:
    rng = np.random.default_rng(seed)
    right, misses = 0, []
    for card in ALL_FACES:
        d = _main_card(rec.recognize(render_on_table(rng, card)))
        pred = d.card if d else "none"
        right += pred == card
        if pred != card:
            misses.append(f"{card} -> {pred}")
    return {
        "renders_top1": right / len(ALL_FACES),
        "renders_right": right,
        "renders_total": len(ALL_FACES),
        "renders_misses": misses,
    }


def eval_speed(rec, n: int = 30, seed: int = 7) -> dict:
    # the busiest of a few table frames: speed is worst with many cards to classify
    scenes = [
        make_scene(np.random.default_rng([seed, k]), out_size=(1280, 720), kind="table")
        for k in range(8)
    ]
    img, labels = max(scenes, key=lambda s: sum(lab.visible >= 0.45 for lab in s[1]))
    for _ in range(3):
        rec.recognize(img)
    stages: dict[str, list[float]] = {}
    for _ in range(n):
        dets = rec.recognize(img)
        for k, v in rec.last_timings.items():
            stages.setdefault(k, []).append(v)
    return {
        "speed_frame": "1280x720 synthetic table",
        "speed_cards_found": len(dets),
        "speed_cards_in_view": sum(lab.visible >= 0.45 for lab in labels),
        "speed_detector_imgsz": rec.imgsz,
        "speed_ms_median": {k: round(float(np.median(v)), 2) for k, v in stages.items()},
    }


def eval_map(detector: Path, data: Path, imgsz: int) -> dict:
    from table.paths import offline_ultralytics

    offline_ultralytics()
    from ultralytics import YOLO

    m = YOLO(str(detector), task="obb").val(
        data=str(data), imgsz=imgsz, batch=1, plots=False, device="cpu", verbose=False
    )
    return {
        "synthetic_map50": float(m.box.map50),
        "synthetic_map50_95": float(m.box.map),
        "synthetic_val_data": str(data),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.evaluate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--only", default="real,renders,map,speed", help="comma list of: real, renders, map, speed"
    )
    ap.add_argument("--models", type=Path, default=None, help="folder with the two ONNX files")
    ap.add_argument("--real", type=Path, default=REAL_PHOTOS, help="real photos folder")
    ap.add_argument("--csv", type=Path, default=EVAL_DIR / "real_photos.csv")
    ap.add_argument(
        "--map-data",
        type=Path,
        default=None,
        help="data.yaml of a synthetic dataset (for mAP; build one with a new seed)",
    )
    ap.add_argument(
        "--json", type=Path, default=EVAL_DIR / "figures.json", help="where to write the figures"
    )
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    bad = parts - {"real", "renders", "map", "speed"}
    if bad:
        ap.error(f"--only: unknown part(s) {', '.join(sorted(bad))}")
    rec = _recognizer(args.models)
    figures: dict = {}
    if args.json.is_file():
        figures = json.loads(args.json.read_text())
    t0 = time.time()
    if "real" in parts:
        figures.update(eval_real(rec, args.real, args.csv))
        print(
            f"real photos: {figures['real_right']}/{figures['real_total']} "
            f"({figures['real_top1']:.1%}); confusions: {figures['real_confusions']}"
        )
    if "renders" in parts:
        figures.update(eval_renders(rec))
        print(
            f"unseen renders: {figures['renders_right']}/{figures['renders_total']}; "
            f"misses: {figures['renders_misses']}"
        )
    if "map" in parts:
        if args.map_data is None:
            ap.error("map needs --map-data DATA_YAML")
        figures.update(eval_map(rec.detector_path, args.map_data, rec.imgsz))
        print(
            f"synthetic val mAP50 {figures['synthetic_map50']:.3f}, "
            f"mAP50-95 {figures['synthetic_map50_95']:.3f}"
        )
    if "speed" in parts:
        figures.update(eval_speed(rec))
        print(f"speed (median ms, {figures['speed_frame']}): {figures['speed_ms_median']}")
    figures["evaluated_seconds"] = round(time.time() - t0, 1)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
