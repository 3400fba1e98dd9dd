"""`python -m models deck-detector NAME`: fine-tune the table's card detector on one deck.

The table's detector learned the three generic designs. On a deck of another design it
boxes two cards of a revealed row as one square box, or a busy pile's top card 45 degrees
off (models/README.md, deck section): the classifier then reads the wrong pixels, and the
second looks that try to mend it cost the frame its budget. This command teaches the
detector the deck's own cards, from nothing but the enrolled photos:

1. the enrolled cards (`cards.csv`, straightened as the fit cuts them) become the faces of a
   simulated table (`vision.sim.SimTable`): piles, plays, hands, revealed rows; its two
   zones are cut as the pipeline cuts them (`VisionPipeline._regions`) and labelled from the
   simulator's truth;
2. the same faces in the detector's own training scenes (`models.scenes`: rows, fans, heaps,
   hands), a few faces rendered in the generic designs among them, so it keeps those;
3. the shipped detector's weights fine-tuned on both (ultralytics, CPU), exported to ONNX
   with a free input size, and written as `DATA/decks/NAME/deck_detector.onnx`. With
   `--deck NAME` the table then reads with it (the still photos keep theirs).

For a laptop with the training packages (`pip install -e '.[train]'`); the written file is
ONNX, so a Pi runs it. The data and the run stay in `DATA/runs/deck-detector/NAME/`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.decks import store
from vision.decks.store import DeckError

ZONES = ("discard", "reveal")  # what the pipeline reads (VisionPipeline._regions)
SCALE = 0.5  # the visibility masks' scale: a card is 100+ px tall in a frame
MIN_VISIBLE = 0.45  # as the generic detector's data (models.build_dataset)
SCENE_KINDS = {"table": 0.45, "heap": 0.25, "hand": 0.15, "single": 0.15}


def deck_faces(name: str) -> dict[str, list[np.ndarray]]:
    """card id -> [the enrolled card, straightened, BGRA with rounded corners]. A face not
    enrolled (a deck fitted with faces missing) is drawn in the generic designs."""
    from vision.decks import augment
    from vision.decks import fit as deck_fit

    folder = store.deck_dir(name)
    cards = [c for c in store.read_cards(folder) if c.card != "back"]
    if not cards:
        raise DeckError(f"deck {name!r}: no faces in cards.csv")
    photos = deck_fit._photos(folder, cards)
    faces: dict[str, list[np.ndarray]] = {}
    for c in cards:
        src, quad = augment.source(photos[c.image], c.quad)
        faces.setdefault(c.card, []).append(augment.card_art(src, quad))
    return faces


def crop_labels(truth, box: tuple[int, int, int, int], frame_shape, min_visible: float = MIN_VISIBLE) -> list[str]:
    """YOLO-OBB lines of the cards seen in crop `box` (x0, y0, x1, y1) of a simulated frame:
    every card of which at least `min_visible` of its area shows inside the crop, after the
    cards and hands above it."""
    x0, y0, x1, y1 = box
    h, w = frame_shape[:2]
    sh, sw = int(h * SCALE), int(w * SCALE)
    above = np.zeros((sh, sw), np.uint8)
    for poly in truth.occluders:
        cv2.fillPoly(above, [np.round(poly * SCALE).astype(np.int32)], 255)
    inside = np.zeros((sh, sw), np.uint8)
    inside[int(y0 * SCALE):int(y1 * SCALE), int(x0 * SCALE):int(x1 * SCALE)] = 255
    cw, ch = x1 - x0, y1 - y0
    lines = []
    for _card, quad in reversed(truth.cards):  # top first
        m = np.zeros((sh, sw), np.uint8)
        cv2.fillPoly(m, [np.round(quad * SCALE).astype(np.int32)], 255)
        area = int(np.count_nonzero(m))
        seen = int(np.count_nonzero(m & ~above & inside)) if area else 0
        above |= m
        if area == 0 or seen / area < min_visible:
            continue
        q = np.clip(np.asarray(quad, np.float64) - (x0, y0), 0, [cw - 1, ch - 1]) / [cw, ch]
        lines.append("0 " + " ".join(f"{v:.5f}" for v in q.reshape(-1)))
    return lines


def zone_crops(table, shape, margin: float) -> list[tuple[tuple, tuple]]:
    """The simulated table's zones cut as the pipeline cuts them (`vision.pipeline.zone_crop`:
    each crop, and the zone in its pixels)."""
    from vision.pipeline import zone_crop
    from vision.zones import ZoneLayout

    zones = ZoneLayout.from_polygons(table.zone_polygons_px())
    crops = (zone_crop(zones[name].bounds(), margin, shape[1], shape[0]) for name in ZONES)
    return [c for c in crops if c is not None]


def _recast(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A room's light over the whole crop (the enrolled faces carry theirs already; the mat
    and the hands do not)."""
    gains = rng.uniform(0.85, 1.15, 3) * rng.uniform(0.8, 1.15)
    return np.clip(img.astype(np.float32) * gains.astype(np.float32), 0, 255).astype(np.uint8)


def table_crops(faces: dict[str, list[np.ndarray]], count: int, seed: int, margin: float, progress=None):
    """`count` zone crops of simulated tables played with `faces`: yields (BGR crop, lines,
    the zone in the crop's pixels)."""
    from vision.render import ALL_FACES
    from vision.sim import SimTable

    rng = np.random.default_rng([seed, 1])
    made = 0
    while made < count:
        table = SimTable(seed=int(rng.integers(1 << 30)), fps=4, faces=faces)
        for _ in range(int(rng.integers(0, 10))):  # a pile already played
            table.discard.append(table._pile_pose(ALL_FACES[int(rng.integers(len(ALL_FACES)))]))
        crops = None
        for _ in range(6):
            r = rng.random()
            if r < 0.35:
                table.clear_reveal()
                table.reveal([ALL_FACES[int(i)] for i in rng.integers(len(ALL_FACES), size=int(rng.integers(1, 9)))])
            elif r < 0.45:
                table.draw()
            else:
                table.play([ALL_FACES[int(rng.integers(len(ALL_FACES)))]])
            table.idle(0.3)
            frames = []
            while table.pending:
                frames.append(table.next_frame())
            # the still table after the move, and now and then a frame with the hand over it
            picks = [frames[-1]] + ([frames[int(rng.integers(len(frames)))]] if rng.random() < 0.3 else [])
            for image, truth in picks:
                crops = crops or zone_crops(table, image.shape, margin)
                for box, own in crops:
                    lines = crop_labels(truth, box, image.shape)
                    x0, y0, x1, y1 = box
                    yield _recast(image[y0:y1, x0:x1], rng), lines, own
                    made += 1
                    if progress is not None:
                        progress.update(1)
                    if made >= count:
                        return


def scene_images(faces: dict[str, list[np.ndarray]], count: int, seed: int, share: float, progress=None):
    """`count` of the detector's training scenes (`models.scenes`) with the deck's faces in
    place of `share` of the rendered ones: yields (BGR image, lines)."""
    from models.build_dataset import boxed
    from models.scenes import SceneStyle, make_scene, yolo_obb_line

    style = SceneStyle(real=tuple((card, art) for card, arts in faces.items() for art in arts), real_share=share)
    for i in range(count):
        rng = np.random.default_rng([seed, 2, i])
        img, labels = make_scene(rng, kinds=SCENE_KINDS, style=style)
        h, w = img.shape[:2]
        lines = [ln for lab in labels if boxed(lab.visible, lab.index_visible, MIN_VISIBLE, None)
                 for ln in [yolo_obb_line(lab, w, h)] if ln is not None]
        yield img, lines
        if progress is not None:
            progress.update(1)


def build(name: str, out: Path, tables: int, scenes: int, seed: int, share: float = 0.85,
          val_every: int = 10, progress: bool = True) -> dict:
    """The deck's detector dataset in `out` (YOLO-OBB, data.yaml); returns its summary."""
    from tqdm import tqdm

    from vision.config import VisionConfig

    faces = deck_faces(name)
    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        for sub in ("images", "labels"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    boxes = n = 0
    with tqdm(total=tables + scenes, desc=f"deck-detector {name}: data", unit="img", file=sys.stderr,
              disable=not progress, dynamic_ncols=True) as bar:
        sources = (("table", table_crops(faces, tables, seed, VisionConfig().zone_margin, bar)),
                   ("scene", scene_images(faces, scenes, seed, share, bar)))
        for kind, images in sources:
            for img, lines, *_ in images:
                split = "val" if n % val_every == 0 else "train"
                stem = f"{kind}{n:05d}"
                cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
                (out / "labels" / split / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
                boxes += len(lines)
                n += 1
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: card\n")
    summary = {"deck": name, "table_crops": tables, "scenes": scenes, "deck_share_in_scenes": share, "seed": seed,
               "boxes": boxes, "seconds": round(time.perf_counter() - t0, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def tune_detector(name: str, tables: int = 600, scenes: int = 200, epochs: int = 5, batch: int = 16,
                  seed: int = 0, threads: int = 2, progress: bool = True, held_back: int = 100) -> dict:
    """Build the deck's data, fine-tune the table's detector on it and write the deck's
    detector (see the module doc). Returns the profile, with a "detector" entry."""
    import torch

    from models import detector_from_onnx
    from models.export import export_detector, keep_metadata
    from models.train_detector import train
    from table.paths import data_dir

    t0, cpu0 = time.perf_counter(), time.process_time()
    torch.set_num_threads(threads)
    folder = store.deck_dir(name)
    profile = store.read_json(folder / store.PROFILE_FILE)
    if profile is None:
        raise DeckError(f"deck {name!r} is not fitted: run `uno-table deck fit {name}` first")
    work = data_dir() / "runs" / "deck-detector" / name
    data = build(name, work / "data", tables, scenes, seed, progress=progress)
    generic = store.generic_detector_path()
    calib = sorted((work / "data" / "images" / "train").glob("table*.jpg"))[:8]
    init = detector_from_onnx.save(detector_from_onnx.load(generic, calib), work / "init.pt")
    summary = train(work / "data" / "data.yaml", epochs=epochs, batch=batch, seed=seed, workers=min(2, threads),
                    project=work, name="run", init=init)
    exported = export_detector(Path(summary["best"]), work / "export")
    keep_metadata(generic, exported)
    tmp = folder / (store.DETECTOR_FILE + ".tmp")
    shutil.copyfile(exported, tmp)
    _check_detector(tmp)
    held = held_back_figures(name, tmp, held_back, seed) if held_back else None
    tmp.replace(folder / store.DETECTOR_FILE)
    m = summary["metrics"]
    profile["detector"] = {
        "data": data, "epochs": epochs, "batch": batch, "held_back": held,
        "val": {k.split("/")[-1].replace("(B)", ""): round(v, 4) for k, v in m.items() if k.startswith("metrics/")},
        "generic_sha256": store.sha256(generic),
        "seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": round(time.process_time() - cpu0, 1),
        "trained": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    store.write_json(folder / store.PROFILE_FILE, profile)
    return profile


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(np.float32(a), np.float32(b))
    union = cv2.contourArea(np.float32(a)) + cv2.contourArea(np.float32(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def box_figures(path: Path, crops: list[tuple[np.ndarray, list[str], tuple]], iou: float = 0.5) -> dict:
    """Precision and recall of detector `path` (as the table runs it: a strip of a card
    beside the zone, cut by the crop's edge, is not read) on labelled zone crops, a box right
    when it overlaps an unmatched card by `iou`; `exact`: the share of crops with every card
    boxed and nothing else."""
    from vision.recognizer import CardRecognizer, beside_own

    rec = CardRecognizer.default(detector_path=path, threads=1)
    tp = fp = fn = exact = 0
    for img, lines, own in crops:
        h, w = img.shape[:2]
        want = [np.array(ln.split()[1:], float).reshape(4, 2) * (w, h) for ln in lines]
        hit, extra = set(), 0
        for q, _score in rec.detect(img):
            if beside_own(q, own, w, h):
                continue
            best = max(((_iou(q, t), k) for k, t in enumerate(want) if k not in hit), default=(0.0, -1))
            if best[0] >= iou:
                hit.add(best[1])
            else:
                extra += 1
        tp, fp, fn = tp + len(hit), fp + extra, fn + len(want) - len(hit)
        exact += extra == 0 and len(hit) == len(want)
    rec.close()
    return {"crops": len(crops), "cards": tp + fn, "precision": round(tp / max(1, tp + fp), 4),
            "recall": round(tp / max(1, tp + fn), 4), "exact": round(exact / max(1, len(crops)), 4)}


def held_back_figures(name: str, detector: Path, count: int, seed: int) -> dict:
    """The generic detector against the deck's on zone crops of tables never trained on (their
    own seed): laid with the deck's cards, and with the generic designs (what it must keep)."""
    from vision.config import VisionConfig

    margin = VisionConfig().zone_margin
    sets = {"deck_cards": list(table_crops(deck_faces(name), count, seed + 1000, margin)),
            "generic_designs": list(table_crops({}, count, seed + 1000, margin))}
    generic = store.generic_detector_path()
    return {k: {"generic": box_figures(generic, v), "deck": box_figures(detector, v)} for k, v in sets.items()}


def _check_detector(path: Path) -> None:
    """The written file loads and boxes a frame as the table's recognizer will run it."""
    from vision.recognizer import CardRecognizer

    try:
        rec = CardRecognizer.default(detector_path=path, threads=1)
        rec.detect(np.full((240, 320, 3), 90, np.uint8))
        rec.close()
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own kinds on a bad file
        path.unlink(missing_ok=True)
        raise DeckError(f"the written deck detector does not load: {exc}") from exc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models deck-detector", description=__doc__.split("\n\n")[0])
    ap.add_argument("name", help="a deck enrolled and fitted with `uno-table deck`")
    ap.add_argument("--tables", type=int, default=600, help="zone crops of simulated tables (default 600)")
    ap.add_argument("--scenes", type=int, default=200, help="training scenes with the deck's faces (default 200)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--held-back", type=int, default=100,
                    help="zone crops of tables never trained on, to measure both detectors (default 100)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.tables < 0 or args.scenes < 0 or args.tables + args.scenes < 10 or args.epochs < 1 or args.batch < 1 \
            or args.held_back < 0:
        ap.error("--tables, --scenes and --held-back 0 or more, --tables and --scenes 10 together at least, "
                 "--epochs and --batch 1 at least")
    from models.deck_tune import run_job

    profile = run_job("deck-detector", lambda: tune_detector(
        args.name, args.tables, args.scenes, args.epochs, args.batch, args.seed, args.threads,
        progress=not args.quiet, held_back=args.held_back))
    if profile is None:
        return 2
    d = profile["detector"]
    print(f"deck {args.name}: detector fine-tuned on {d['data']['table_crops']} table crops and "
          f"{d['data']['scenes']} scenes, {d['epochs']} epochs, {d['seconds']:.0f} s; its val: "
          + ", ".join(f"{k} {v:.3f}" for k, v in d["val"].items()))
    for kind, f in (d.get("held_back") or {}).items():
        g, t = f["generic"], f["deck"]
        print(f"  {f['deck']['crops']} held-back zone crops ({kind.replace('_', ' ')}, {g['cards']} cards): "
              f"recall {g['recall']:.1%} -> {t['recall']:.1%}, precision {g['precision']:.1%} -> {t['precision']:.1%}, "
              f"crops boxed exactly {g['exact']:.1%} -> {t['exact']:.1%} (generic detector -> the deck's)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
