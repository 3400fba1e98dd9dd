"""Classifier crops cut the way the runtime cuts them: from rendered games on the simulated
table, along the corners the shipped detector found, labelled from the renderer's truth.

The classifier learned from single rendered cards cut along jittered ideal corners; on a
busy pile the detector's corners are off in their own ways (a neighbour's edge inside the
box, a corner on the card below). These crops teach it that. Seeds here are never those
of the evaluations (`vision.evaluate` uses 1-3, the demo and its tests 3-4).

    python -m models.table_crops --games 12 --plays 40 --out data/datasets/table_crops.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from models.crops import CLASSES, crop_from_quad

_MIN_VISIBLE = 0.6  # a card less visible than this has no trustworthy label
_SCALE = 0.25


def _visible_cards(truth, shape) -> list[tuple[str, np.ndarray, float]]:
    """(card, quad, visible share) of every card, top to bottom, hands included as covers."""
    h, w = shape[:2]
    sh, sw = max(1, int(h * _SCALE)), max(1, int(w * _SCALE))
    cover = np.zeros((sh, sw), np.uint8)
    for poly in truth.occluders:
        cv2.fillPoly(cover, [np.round(poly * _SCALE).astype(np.int32)], 255)
    out = []
    for card, quad in reversed(truth.cards):
        m = np.zeros((sh, sw), np.uint8)
        cv2.fillPoly(m, [np.round(quad * _SCALE).astype(np.int32)], 255)
        area = int(np.count_nonzero(m))
        seen = int(np.count_nonzero(cv2.bitwise_and(m, cv2.bitwise_not(cover))))
        cover = cv2.bitwise_or(cover, m)
        if area:
            out.append((card, np.asarray(quad, np.float32), seen / area))
    return out


def harvest(games: int, plays: int, seed: int, every: int, progress: bool = True):
    from vision.config import VisionConfig
    from vision.pipeline import VisionPipeline
    from vision.sim import SimTable, random_script

    xs: list[np.ndarray] = []
    ys: list[int] = []
    index = {c: i for i, c in enumerate(CLASSES)}
    pipe = VisionPipeline(VisionConfig(skip_still=False))
    recognizer = pipe.detector.recognizer
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        tqdm = None
    bar = tqdm(total=games, unit="game", disable=not progress, file=sys.stderr) if tqdm else None
    for g in range(games):
        table = SimTable(seed=seed + g, fps=20.0, mat=True)
        random_script(table, plays, seed=seed + g)
        n = 0
        while table.pending:
            image, truth = table.next_frame()
            n += 1
            if n % every:
                continue
            zones, _ = pipe.calibration.update(image, n)
            for x0, y0, x1, y1 in pipe._regions(zones, image.shape):
                found = recognizer.detect(image[y0:y1, x0:x1])
                if not found:
                    continue
                cards = _visible_cards(truth, image.shape)
                for quad, _score in found:
                    q = quad + np.array([x0, y0], np.float32)
                    c = q.mean(axis=0)
                    size = max(np.linalg.norm(q[0] - q[1]), np.linalg.norm(q[1] - q[2]))
                    # the topmost card whose centre lies nearest the box's centre
                    best = None
                    for card, tq, vis in cards:
                        d = np.linalg.norm(tq.mean(axis=0) - c)
                        if d < 0.2 * size:
                            best = (card, vis)
                            break
                    if best is None or best[1] < _MIN_VISIBLE or best[0] not in index:
                        continue
                    xs.append(crop_from_quad(image, q))
                    ys.append(index[best[0]])
        if bar is not None:
            bar.update(1)
            bar.set_postfix(crops=len(ys))
    if bar is not None:
        bar.close()
    return np.stack(xs), np.array(ys, np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.table_crops", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=12, help="rendered games (default 12)")
    ap.add_argument("--plays", type=int, default=40, help="discard plays per game (default 40)")
    ap.add_argument("--seed", type=int, default=101, help="first game's seed (default 101)")
    ap.add_argument("--every", type=int, default=4, help="use every Nth frame (default 4)")
    ap.add_argument("--out", type=Path, required=True, help=".npz to write (x: crops, y: class indices)")
    args = ap.parse_args(argv)
    x, y = harvest(args.games, args.plays, args.seed, args.every)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, x=x, y=y)
    counts = np.bincount(y, minlength=len(CLASSES))
    print(f"{len(y)} crops of {int((counts > 0).sum())} classes -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
