"""Build a YOLO oriented-box dataset of synthetic UNO tables.

    python -m models.build_dataset --seed 1 --size 2500 --out data/datasets/cards

Writes images/{train,val}/*.jpg, labels/{train,val}/*.txt (YOLO-OBB: class and the four
corners of the card's box, normalised), meta/{train,val}/*.json (every card in view with
its identity, full quad and visible fraction) and data.yaml. Image i depends only on
(seed, i), so a dataset is rebuilt exactly from its seed, whatever the worker count.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from models.scenes import SCENE_KINDS, SceneStyle, make_scene, yolo_obb_line

DETECTOR_CLASSES = {0: "card"}
DEFAULT_MIN_VISIBLE = 0.45
_STYLE = SceneStyle()  # set once per worker process (real photos are too big to send per job)


def _set_style(style: SceneStyle) -> None:
    global _STYLE
    _STYLE = style


def boxed(visible: float, index_visible: float, min_visible: float, index_min: float | None) -> bool:
    """Whether a card in view gets a box: enough of it shows, or (with `index_min`) at least
    that much of it and a corner index nearly whole: a card people can still read."""
    if visible >= min_visible:
        return True
    return index_min is not None and visible >= index_min and index_visible >= 0.8


def _one(job: tuple) -> tuple[int, int]:
    seed, i, out, split, min_visible, kinds, index_min = job
    rng = np.random.default_rng([seed, i])
    img, labels = make_scene(rng, kinds=kinds, style=_STYLE)
    h, w = img.shape[:2]
    name = f"{seed}_{i:06d}"
    q = int(rng.integers(55, 96))
    root = Path(out)
    cv2.imwrite(str(root / "images" / split / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, q])
    lines = []
    for lab in labels:
        if not boxed(lab.visible, lab.index_visible, min_visible, index_min):
            continue
        line = yolo_obb_line(lab, w, h)
        if line is not None:
            lines.append(line)
    (root / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    meta = {
        "image": f"{name}.jpg",
        "width": w,
        "height": h,
        "jpeg_quality": q,
        "cards": [lab.to_json() for lab in labels],
    }
    (root / "meta" / split / f"{name}.json").write_text(json.dumps(meta))
    return len(lines), len(labels)


def build(
    seed: int,
    size: int,
    out: Path,
    val_fraction: float = 0.1,
    workers: int = 1,
    min_visible: float = DEFAULT_MIN_VISIBLE,
    progress: bool = True,
    kinds: dict[str, float] | None = None,
    style: SceneStyle | None = None,
    index_min: float | None = None,
) -> dict:
    """Build the dataset; returns a summary (images, boxes, seconds). `style`: the scene
    options beyond the first detector's; `index_min`: see `boxed`."""
    style = style or SceneStyle()
    if size < 2:
        raise ValueError(f"--size {size}: need at least 2 images (one train, one val)")
    out = Path(out)
    n_val = max(1, int(round(size * val_fraction)))
    for split in ("train", "val"):
        for sub in ("images", "labels", "meta"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    jobs = [
        (seed, i, str(out), "val" if i < n_val else "train", min_visible, kinds, index_min)
        for i in range(size)
    ]
    t0 = time.time()
    boxes = cards = 0
    bar = tqdm(total=size, desc="scenes", unit="img", disable=not progress)
    if workers > 1:
        with Pool(workers, initializer=_set_style, initargs=(style,)) as pool:
            for b, c in pool.imap_unordered(_one, jobs, chunksize=8):
                boxes += b
                cards += c
                bar.update()
    else:
        _set_style(style)
        for job in jobs:
            b, c = _one(job)
            boxes += b
            cards += c
            bar.update()
    bar.close()
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"names:\n  0: {DETECTOR_CLASSES[0]}\n"
    )
    summary = {
        "seed": seed,
        "images": size,
        "style": {"white": style.white, "overfill": style.overfill, "edge_cut": style.edge_cut,
                  "real_cards": len(style.real), "real_share": style.real_share, "light": style.light},
        "index_min": index_min,
        "val_images": n_val,
        "boxes": boxes,
        "cards_in_view": cards,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.build_dataset",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--seed", type=int, default=1, help="dataset seed (default 1)")
    ap.add_argument("--size", type=int, default=2500, help="number of images (default 2500)")
    ap.add_argument("--out", type=Path, required=True, help="output folder")
    ap.add_argument("--val-fraction", type=float, default=0.1, help="share kept for validation")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument(
        "--min-visible",
        type=float,
        default=DEFAULT_MIN_VISIBLE,
        help="cards less visible than this get no box (default 0.45)",
    )
    ap.add_argument(
        "--kinds",
        default=None,
        help="scene mix, e.g. 'table=0.6,closeup=0.25,hand=0.15' (the default); "
        f"kinds: {', '.join(SCENE_KINDS)}",
    )
    ap.add_argument("--index-visible", type=float, default=None, metavar="SHARE",
                    help="also box a card this much visible (e.g. 0.25) whose corner index shows")
    ap.add_argument("--white", type=float, default=0.0, help="share of white tables")
    ap.add_argument("--overfill", type=float, default=0.0, help="share of close-ups overfilling the frame")
    ap.add_argument("--edge-cut", type=float, default=0.0, help="share of close-ups cut by the frame's edge")
    ap.add_argument("--light", type=float, default=0.0,
                    help="share of scenes under a light the camera left uncorrected: a warm or cold "
                    "cast, a dim room (models.scenes.LIGHT_*; 0: none, and the same scenes as before)")
    ap.add_argument("--real", default="", help="real photo sets pasted as cards (mit, mit2, classic; "
                    "comma-separated); the sets left out stay held out")
    ap.add_argument("--real-share", type=float, default=0.25, help="share of faces taken from --real")
    args = ap.parse_args(argv)
    kinds = None
    if args.kinds:
        try:
            kinds = {k.strip(): float(v) for k, v in (p.split("=") for p in args.kinds.split(","))}
        except ValueError:
            ap.error(f"--kinds {args.kinds!r}: expected name=weight pairs separated by commas")
        bad = set(kinds) - set(SCENE_KINDS)
        if bad:
            ap.error(f"--kinds: unknown kind(s) {', '.join(sorted(bad))}")
    if not 0 <= args.light <= 1:
        ap.error(f"--light {args.light}: a share, between 0 and 1")
    if not 0 < args.val_fraction < 1:
        ap.error(f"--val-fraction {args.val_fraction}: must lie strictly between 0 and 1")
    real: tuple = ()
    if args.real:
        from models.real_cards import load_cutouts, parse_sets

        try:
            # whole cards, border and all: the boxes the detector learns are the cards' edges
            cut = load_cutouts(parse_sets(args.real), outline=True)
        except ValueError as exc:
            ap.error(f"--real: {exc}")
        real = tuple((rc.card, img) for rc, img in cut)
        args.out.mkdir(parents=True, exist_ok=True)
        # the protocol: which photos trained this detector
        (args.out / "real_photos.txt").write_text("".join(f"{rc.set}/{rc.file}\n" for rc, _ in cut))
    style = SceneStyle(white=args.white, overfill=args.overfill, edge_cut=args.edge_cut,
                       real=real, real_share=args.real_share if real else 0.0, light=args.light)
    summary = build(
        args.seed,
        args.size,
        args.out,
        args.val_fraction,
        args.workers,
        args.min_visible,
        kinds=kinds,
        style=style,
        index_min=args.index_visible,
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
