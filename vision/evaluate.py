"""Evaluation on rendered game videos with known truth.

A scripted game on the simulated table (plays, multi-plays, the same face laid on the same
face, hands touching the pile, draws, reveals) goes through the real pipeline: calibration
from the mat, the configured detector, the tracker. Each truth play owns the observations
decided between its card coming to rest and the next play's; it matches when it got exactly
one discard observation with the same cards. Reported: the share of plays matched, the
duplicates (a second observation of the same play), spurious and missed plays, the
latency from card-at-rest to observation, and the hands revealed (`reveal_hands_right` of
`reveal_hands`: each hand as it lay when the zone was swept against the report standing then,
what a round's score is counted from).

    python -m vision.evaluate --plays 200 --detector sim-truth
    python -m vision.evaluate --plays 200 --detector onnx --json
    python -m vision.evaluate --photos ../shared/data/real-cards-mit
    python -m vision.evaluate --plays 200 --deck-look party --deck-seed 1 --deck mydeck
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from vision.config import OnnxDetectorConfig, SimTruthDetectorConfig, VisionConfig
from vision.frame import Frame
from vision.observations import CardsPlayed
from vision.pipeline import VisionPipeline
from vision.sim import SimTable, random_script


def run_game(
    plays: int, seed: int, detector_cfg, fps: float = 20.0, save_video: Path | None = None,
    progress: bool = True, mat: bool = True, faces: dict | None = None, deck_look=None,
) -> dict:
    """faces: real card photos to draw the cards from (vision.real_faces); deck_look: a
    `vision.decks.looks.DeckLook`: the game is played with that deck under that light
    (default: a look of vision.render picked by the seed)."""
    if deck_look is None:
        table = SimTable(seed=seed, fps=fps, mat=mat, faces=faces)
    else:
        from vision.decks.looks import sim_table

        table = sim_table(deck_look, seed=seed, fps=fps, mat=mat)
    random_script(table, plays, seed=seed)
    total = table.pending
    config = VisionConfig(detector=detector_cfg)
    if not mat:  # a bare table: the zones come from the config, as a user would draw them
        from vision.config import CalibrationConfig, ZonePolygons

        config = VisionConfig(detector=detector_cfg, calibration=CalibrationConfig(
            use_mat=False, polygons=ZonePolygons(**table.zone_polygons_px())))
    pipe = VisionPipeline(config)
    truth_plays: list[tuple[int, tuple[str, ...]]] = []  # (frame, cards)
    reveal_truth: list[tuple[int, tuple[str, ...]]] = []  # (frame, cards shown); () a clear
    observed: list[CardsPlayed] = []
    reveals = []
    draws_truth = draws_seen = 0
    ms: list[float] = []
    writer = None
    if save_video is not None:
        import cv2

        writer = cv2.VideoWriter(str(save_video), cv2.VideoWriter_fourcc(*"mp4v"), fps, (table.width, table.height))
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="frame", disable=not progress, file=sys.stderr)
    except ImportError:  # pragma: no cover
        bar = None
    n = 0
    uncovered: dict[int, int] = {}  # play index -> first frame its cards were free of hands
    waiting: list[tuple[int, list]] = []
    while table.pending:
        image, truth = table.next_frame()
        n += 1
        for e in truth.events:
            if e.kind == "rest":
                truth_plays.append((n, tuple(sorted(e.cards))))
                waiting.append((len(truth_plays) - 1, [table.mm_to_px(p.corners_mm()) for p in e.poses]))
            elif e.kind == "draw":
                draws_truth += 1
            elif e.kind in ("reveal", "clear"):
                reveal_truth.append((n, tuple(sorted(e.cards))))
        still = []
        for k, quads in waiting:
            if _touches(quads, truth.occluders, image.shape):
                still.append((k, quads))
            else:
                uncovered[k] = n
        waiting = still
        if writer is not None:
            writer.write(image)
        t0 = time.perf_counter()
        res = pipe.process(Frame(n, n / fps, image, None, truth))
        ms.append((time.perf_counter() - t0) * 1000)
        for o in res.observations:
            if isinstance(o, CardsPlayed):
                observed.append(o)
            elif o.type == "reveal":
                reveals.append(o)
            elif o.type == "draw":
                draws_seen += 1
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    if writer is not None:
        writer.release()
    return score(truth_plays, observed, fps, uncovered) | {
        "frames": n,
        "fps_rendered": fps,
        "pipeline_ms_mean": round(sum(ms) / max(1, len(ms)), 2),
        "draws_truth": draws_truth,
        "draws_seen": draws_seen,
        "reveals_truth": len(reveal_truth),
        "reveals_seen": len(reveals),
    } | score_hands(reveal_truth, reveals, n)


def _touches(quads, occluders, shape) -> bool:
    """Does any hand/arm polygon overlap any of the cards (at quarter resolution)?"""
    import cv2
    import numpy as np

    if not occluders:
        return False
    h, w = shape[0] // 4, shape[1] // 4
    a = np.zeros((h, w), np.uint8)
    b = np.zeros((h, w), np.uint8)
    cv2.fillPoly(a, [np.round(q / 4).astype(np.int32) for q in quads], 255)
    cv2.fillPoly(b, [np.round(o / 4).astype(np.int32) for o in occluders], 255)
    return bool(np.any(cv2.bitwise_and(a, b)))


def _pct(values: list[float], q: float):
    if not values:
        return None
    v = sorted(values)
    return round(v[min(len(v) - 1, int(len(v) * q))], 1)


def score(truth_plays, observed: list[CardsPlayed], fps: float, uncovered: dict[int, int] | None = None) -> dict:
    """Match observations to truth plays (see the module doc)."""
    uncovered = uncovered or {}
    matched = duplicates = spurious = missed = wrong = 0
    latencies: list[float] = []
    free_latencies: list[float] = []
    mismatches = []
    obs_i = 0
    # Observations before the first play are spurious.
    while obs_i < len(observed) and truth_plays and observed[obs_i].frame < truth_plays[0][0]:
        spurious += 1
        obs_i += 1
    for k, (frame, cards) in enumerate(truth_plays):
        end = truth_plays[k + 1][0] if k + 1 < len(truth_plays) else 10**12
        mine = []
        while obs_i < len(observed) and observed[obs_i].frame < end:
            mine.append(observed[obs_i])
            obs_i += 1
        want = Counter(cards)
        got = [Counter(c.card for c in o.cards) for o in mine]
        if not mine:
            missed += 1
            mismatches.append({"play": k + 1, "frame": frame, "truth": list(cards), "observed": []})
            continue
        if got[0] == want:
            latencies.append((mine[0].frame - frame) / fps * 1000)
            free = uncovered.get(k, frame)
            free_latencies.append((mine[0].frame - free) / fps * 1000)
        if got[0] == want and len(mine) == 1:
            matched += 1
            continue
        if got[0] != want:
            wrong += 1
        for g in got[1:]:
            if g == want or (g and all(c in want for c in g)):
                duplicates += 1
            else:
                spurious += 1
        mismatches.append({
            "play": k + 1, "frame": frame, "truth": list(cards),
            "observed": [[c.card for c in o.cards] for o in mine], "frames": [o.frame for o in mine],
        })
    n = max(1, len(truth_plays))
    return {
        "plays": len(truth_plays),
        "observations": len(observed),
        "matched": matched,
        "match_rate": round(matched / n, 4),
        "duplicates": duplicates,
        "spurious": spurious,
        "missed": missed,
        "wrong_cards": wrong,
        # From the hand letting go of the card (it is at rest, the hand still over it).
        "latency_from_release_ms_median": _pct(latencies, 0.5),
        "latency_from_release_ms_p95": _pct(latencies, 0.95),
        # From the card at rest and free of the hand (the camera can see it whole).
        "latency_ms_median": _pct(free_latencies, 0.5),
        "latency_ms_p95": _pct(free_latencies, 0.95),
        "latency_ms_max": _pct(free_latencies, 1.0),
        "mismatches": mismatches[:20],
    }


def score_hands(reveal_truth: list[tuple[int, tuple[str, ...]]], reveals: list, end_frame: int) -> dict:
    """The hands laid whole in the reveal zone (what a round's score is counted from): each
    truth hand as it lay before the zone was cleared (or the game ended) against the last
    reveal reported before then. `reveals_seen` counts every report, corrections included;
    this says whether the hand that stayed was read right."""
    hands = []  # (the frame the hand was swept or the game ended, its cards)
    for k, (_, cards) in enumerate(reveal_truth):
        following = reveal_truth[k + 1] if k + 1 < len(reveal_truth) else None
        if cards and (following is None or not following[1]):
            hands.append((following[0] if following else end_frame + 1, cards))
    right, misses = 0, []
    for end, cards in hands:
        last = [o for o in reveals if o.frame < end]
        read = tuple(sorted(c.card for c in last[-1].cards)) if last else ()
        if Counter(read) == Counter(cards):
            right += 1
        else:
            misses.append({"frame": end, "truth": sorted(cards), "read": list(read)})
    return {"reveal_hands": len(hands), "reveal_hands_right": right, "reveal_hand_misses": misses[:20]}


def evaluate_photos(folder: Path, detector_cfg) -> dict:
    """`detect` on labelled photos (labels.csv: file,card): the share whose most confident
    card is the labelled one, and the confusions."""
    import csv

    import cv2

    from vision.detectors import make_detector

    detector = make_detector(detector_cfg)
    rows = list(csv.DictReader((folder / "labels.csv").open()))
    right, confusions, ms = 0, [], []
    for r in rows:
        image = cv2.imread(str(folder / r["file"]))
        t0 = time.perf_counter()
        dets = detector.detect(image)
        ms.append((time.perf_counter() - t0) * 1000)
        best = max(dets, key=lambda d: d.confidence).card if dets else None
        if best == r["card"]:
            right += 1
        else:
            confusions.append({"file": r["file"], "truth": r["card"], "read": best})
    return {
        "photos": len(rows),
        "right": right,
        "accuracy": round(right / max(1, len(rows)), 4),
        "ms_per_photo_mean": round(sum(ms) / max(1, len(ms)), 1),
        "confusions": confusions,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--plays", type=int, default=200, help="discard plays in the rendered game (default 200)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the game and the renders")
    ap.add_argument("--fps", type=float, default=20.0, help="frame rate of the rendered video")
    ap.add_argument("--detector", choices=["onnx", "sim-truth"], default="onnx",
                    help="onnx: the shipped model (default); sim-truth: a noisy stand-in reading the truth")
    ap.add_argument("--no-mat", action="store_true", help="a bare table, zones given as polygons")
    ap.add_argument("--save-video", type=Path, metavar="MP4", help="also write the rendered game as a video")
    ap.add_argument("--model", type=Path, metavar="ONNX", help="detector .onnx instead of the shipped one")
    ap.add_argument("--classifier", type=Path, metavar="ONNX", help="classifier .onnx instead of the shipped one")
    ap.add_argument("--deck", metavar="NAME", help="read with a deck taught with `uno-table deck` (its classifier)")
    ap.add_argument("--deck-look", metavar="LOOK",
                    help="play the game with this deck and light: DESIGN[+wear][@CAST] (vision.decks.looks), "
                    "e.g. party, 2010s+wear@tungsten")
    ap.add_argument("--deck-seed", type=int, default=1, help="the printing of --deck-look (as enrolled)")
    ap.add_argument("--photos", type=Path, metavar="DIR",
                    help="instead: name the card in each labelled photo of DIR (labels.csv)")
    ap.add_argument("--faces", default="render", metavar="render|real|DIR",
                    help="card faces on the table: rendered (default), `real` (photos of "
                         "shared/data/real-cards-mit, vision.real_faces) or a folder of photos")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    onnx = OnnxDetectorConfig(detector_path=args.model, classifier_path=args.classifier, deck=args.deck)
    if args.photos is not None:  # read as `uno-table detect` reads a photo
        result = evaluate_photos(args.photos, onnx.model_copy(update={"tiles": True}))
        print(json.dumps(result) if args.json else json.dumps(result, indent=1))
        return 0
    cfg = onnx if args.detector == "onnx" else SimTruthDetectorConfig(seed=args.seed)
    faces = None
    if args.faces != "render":
        from vision.real_faces import load_faces

        faces = load_faces(None if args.faces == "real" else args.faces)
    look = None
    if args.deck_look:
        from vision.decks.looks import DeckLook

        look = DeckLook.parse(args.deck_look, seed=args.deck_seed)
    result = run_game(args.plays, args.seed, cfg, args.fps, args.save_video, progress=not args.json,
                      mat=not args.no_mat, faces=faces, deck_look=look)
    result["mat"] = not args.no_mat
    result["faces"] = args.faces
    result["detector"] = args.detector
    result["deck"] = args.deck
    result["deck_look"] = None if look is None else str(look)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            if k != "mismatches":
                print(f"{k:>20}: {v}")
        for m in result["mismatches"]:
            print("  mismatch:", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
