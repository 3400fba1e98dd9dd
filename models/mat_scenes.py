"""Detector training scenes on the printed play mat, taken from the simulated table.

The first detector never saw the mat (white paper, printed zone fields and borders) and
lost cards lying on it. These frames come from `vision.sim.SimTable` (random scripted games
with hands, draws, reveals), labelled from its truth: every card whose visible part (after
the cards and hands above it) is at least `min_visible` of its area.

    python -m models.mat_scenes --out data/datasets/mat_s5 --games 6 --every 6 --seed 5
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

SCALE = 0.25


def visible_labels(truth, w: int, h: int, min_visible: float) -> list[str]:
    sw, sh = int(w * SCALE), int(h * SCALE)
    above = np.zeros((sh, sw), np.uint8)
    for poly in truth.occluders:
        cv2.fillPoly(above, [np.round(poly * SCALE).astype(np.int32)], 255)
    lines = []
    for _card, quad in reversed(truth.cards):  # top first
        m = np.zeros((sh, sw), np.uint8)
        cv2.fillPoly(m, [np.round(quad * SCALE).astype(np.int32)], 255)
        area = int(np.count_nonzero(m))
        seen = int(np.count_nonzero(m & ~above)) if area else 0
        above |= m
        if area == 0 or seen / area < min_visible:
            continue
        q = np.clip(quad, 0, [w - 1, h - 1]) / [w, h]
        lines.append("0 " + " ".join(f"{v:.5f}" for v in q.reshape(-1)))
    return lines


def main(argv: list[str] | None = None) -> int:
    from vision.sim import SimTable, random_script

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--games", type=int, default=6)
    p.add_argument("--plays", type=int, default=40)
    p.add_argument("--every", type=int, default=6, help="keep one frame in N")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--min-visible", type=float, default=0.5)
    p.add_argument("--val-every", type=int, default=10)
    args = p.parse_args(argv)
    for split in ("train", "val"):
        (args.out / "images" / split).mkdir(parents=True, exist_ok=True)
        (args.out / "labels" / split).mkdir(parents=True, exist_ok=True)
    kept = 0
    for g in range(args.games):
        table = SimTable(seed=args.seed * 100 + g, width=1280, height=720, fps=10)
        random_script(table, args.plays, seed=args.seed * 100 + g)
        n = 0
        with tqdm(total=table.pending, desc=f"mat game {g + 1}/{args.games}", unit="frame") as bar:
            while table.pending:
                image, truth = table.next_frame()
                bar.update(1)
                n += 1
                if n % args.every:
                    continue
                split = "val" if kept % args.val_every == 0 else "train"
                name = f"mat{args.seed}_{g}_{n:05d}"
                cv2.imwrite(str(args.out / "images" / split / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 88])
                lines = visible_labels(truth, image.shape[1], image.shape[0], args.min_visible)
                (args.out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
                kept += 1
    print({"images": kept, "out": str(args.out)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
