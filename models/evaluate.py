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
overlap: one card 30 / 50 / 70% under another, rendered: recall of the covered card, precision;
        fanned hands of 3-6 cards, each showing a strip with its corner index; and table
        scenes of 4-13 cards dropped at any angle, overlapping (card recall, precision, F1).
overlap-real: the same with the cards of each shared real set (`--sets`), cut out of the
        photos at their outline: real card appearance under a real deck's other cards.
edge:   one card cut by the frame's edge, filling it, a thumb over it, overfilling it.
held:   one card held up to a webcam before a room (`models.held`): each real set's cards
        and renders of each design, found and named; the same photos saved mirrored too.
far:    one card far off in a phone's big photo (6-13% of its height), read in tiles.
layout: a whole deck laid out apart (each real set, a worn printing of each design) on a
        dark table and on white paper, in a room's light and a warm bulb's: found, named.
bad:    frames with no face (black, overexposed, a bare table, backs only): faces made up.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from models.scenes import make_scene, make_table
from vision.real_faces import shared_data
from vision.render import ALL_FACES, random_params, render_card

REAL_PHOTOS = shared_data() / "real-cards-mit"
# what `uno-table detect` reports (vision.config.OnnxDetectorConfig.min_confidence's default)
REPORTED = 0.25
PARTS = ("real", "sets", "renders", "overlap", "overlap-real", "edge", "held", "layout", "far", "bad", "map", "speed")
EVAL_DIR = Path(__file__).resolve().parent / "eval"


def _recognizer(models_dir: Path | None, photos: bool = True, **kwargs):
    """The models (shipped, or those in `models_dir`); photos: the still photos' detector
    where there is one (every part but `speed`, which times the table's)."""
    from vision.recognizer import CardRecognizer

    return CardRecognizer.default(photos=photos, folder=models_dir, **kwargs)


def _reported(rec, img) -> list:
    """The faces `uno-table detect` reports in `img`: no backs, confidence at least REPORTED."""
    return [d for d in rec.recognize(img) if d.card != "back" and d.confidence >= REPORTED]


@contextmanager
def _tiled(rec):
    """`rec` reading photos in tiles, as `uno-table detect` does, for the block."""
    tiles, rec.tiles = rec.tiles, True
    try:
        yield rec
    finally:
        rec.tiles = tiles


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


def eval_real_sets(rec, names: list[str], csv_out: Path | None = None) -> dict:
    """`eval_real` on each named shared set (models.real_cards.SETS): per set, per colour,
    the confusions; one CSV of all photos (with a `set` column)."""
    from models.real_cards import DESIGN, SETS

    out: dict = {"real_sets": {}}
    rows_all = []
    for name in names:
        tmp = EVAL_DIR / f".tmp_{name}.csv"
        fig = eval_real(rec, SETS[name], tmp)
        rows = list(csv.DictReader(open(tmp)))
        tmp.unlink()
        per_colour: dict[str, list[int]] = {}
        for r in rows:
            c = r["truth"].split("-")[0]
            per_colour.setdefault(c, [0, 0])
            per_colour[c][0] += int(r["correct"])
            per_colour[c][1] += 1
            rows_all.append({"set": name, **r})
        out["real_sets"][name] = {
            "design": DESIGN[name],
            "right": fig["real_right"],
            "total": fig["real_total"],
            "top1": round(fig["real_top1"], 4),
            "per_colour": {c: f"{a}/{b}" for c, (a, b) in per_colour.items()},
            "not_found": sum(r["predicted"] == "none" for r in rows),
            "confusions": fig["real_confusions"],
        }
    if csv_out and rows_all:
        csv_out.parent.mkdir(parents=True, exist_ok=True)
        with open(csv_out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows_all[0]))
            w.writeheader()
            w.writerows(rows_all)
    return out


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
    """One card per face alone on a random table: top-1 of the best-scored card, and any other
    face reported beside it (`renders_extra`: made up, there is one card)."""
    rng = np.random.default_rng(seed)
    right, misses, extra = 0, [], 0
    for card in ALL_FACES:
        dets = rec.recognize(render_on_table(rng, card))
        d = _main_card(dets)
        pred = d.card if d else "none"
        right += pred == card
        extra += sum(x is not d and x.card != "back" for x in dets)
        if pred != card:
            misses.append(f"{card} -> {pred}")
    return {
        "renders_top1": right / len(ALL_FACES),
        "renders_right": right,
        "renders_total": len(ALL_FACES),
        "renders_misses": misses,
        "renders_extra": extra,
    }


def _paste(img: np.ndarray, art: np.ndarray, centre, angle: float, height: float) -> np.ndarray:
    """Lay `art` (BGRA) on `img` (float BGR), centred at `centre`, turned by `angle` degrees,
    `height` px tall; returns the card's quad (4x2, image px)."""
    ah, aw = art.shape[:2]
    f = height / ah
    M = cv2.getRotationMatrix2D((aw / 2, ah / 2), angle, f)
    M[:, 2] += np.asarray(centre) - [aw / 2, ah / 2]
    H, W = img.shape[:2]
    warped = cv2.warpAffine(art, M, (W, H), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    img *= 1 - a
    img += warped[..., :3].astype(np.float32) * a
    corners = np.float32([[0, 0], [aw, 0], [aw, ah], [0, ah]])
    return cv2.transform(corners[None], M)[0]


def overlap_scene(rng: np.random.Generator, share: float, size=(640, 480), faces=None):
    """Two cards on a random table, the top one over `share` of the one below (sliding in
    from a random side, a little turned). faces: [(card, BGRA image)] to lay (two of other
    faces, e.g. real photos cut out), else fresh renders. Returns (image, covered face, its
    quad, top face, its quad, the covered card's visible fraction measured on the pixels)."""
    W, H = size
    img = make_table(rng, H, W).astype(np.float32)
    if faces is None:
        below, top = rng.choice(len(ALL_FACES), 2, replace=False)
        below, top = ALL_FACES[int(below)], ALL_FACES[int(top)]
    else:
        i = int(rng.integers(len(faces)))
        j = int(rng.choice([k for k, (c, _) in enumerate(faces) if c != faces[i][0]]))
        (below, a1), (top, a2) = faces[i], faces[j]
    h = H * rng.uniform(0.38, 0.5)
    w = h * 56 / 87
    ang = rng.uniform(0, 360)
    c = np.array([W / 2, H / 2]) + rng.uniform(-0.05, 0.05, 2) * [W, H]
    if faces is None:
        a1 = render_card(below, height=240, rng=rng, params=random_params(rng))
        a2 = render_card(top, height=240, rng=rng, params=random_params(rng))
    q1 = _paste(img, a1, c, ang, h)
    side = int(rng.integers(4))
    span = h if side in (0, 2) else w
    t = np.radians(-ang)  # the card's own axes in the image (y down)
    ex, ey = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    d = {0: -ey, 1: ex, 2: ey, 3: -ex}[side]
    c2 = c + d * span * (1 - share) + rng.normal(0, 0.02, 2) * w
    q2 = _paste(img, a2, c2, ang + rng.normal(0, 6), h)
    visible = _uncovered(_mask(q1, (H, W)), [_mask(q2, (H, W))])
    return np.clip(img, 0, 255).astype(np.uint8), below, q1, top, q2, visible


def _iou(a, b) -> float:
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    a = cv2.convexHull(a.reshape(-1, 1, 2))
    b = cv2.convexHull(b.reshape(-1, 1, 2))
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def eval_overlap(rec, shares=(0.3, 0.5, 0.7), n: int = 60, seed: int = 515151, faces=None,
                 desc: str = "overlap") -> dict:
    """Rendered overlaps: for each covered share, `n` scenes of one card half under another
    (faces: `overlap_scene`'s, else renders).
    recall_covered: the covered card reported with its face by a box on it (the truth box a
    detection overlaps most, IoU >= 0.3); recall_top: the same for the card on top;
    precision: detections named as the card they stand for, over all detections."""
    out = {}
    for share in shares:
        rng = np.random.default_rng([seed, int(share * 100)])
        hit = top_hit = good = dets_n = 0
        vis = []
        confusions: Counter = Counter()
        for _ in tqdm(range(n), desc=f"{desc} {int(share * 100)}%", unit="scene", leave=False):
            img, below, q1, top, q2, visible = overlap_scene(rng, share, faces=faces)
            vis.append(visible)
            dets = rec.recognize(img)
            dets_n += len(dets)
            got_below = got_top = False
            for d in dets:
                # the card a detection stands for: the truth box it overlaps most (IoU >= 0.3)
                ious = (_iou(d.quad, q1), _iou(d.quad, q2))
                truth = (below, top)[int(np.argmax(ious))] if max(ious) >= 0.3 else None
                if d.card == truth:
                    good += 1
                    got_below |= truth == below
                    got_top |= truth == top
                else:
                    confusions[f"{truth} -> {d.card}"] += 1
            hit += got_below
            top_hit += got_top
        out[f"{int(share * 100)}%"] = {
            "scenes": n,
            "visible_fraction_median": round(float(np.median(vis)), 3),
            "recall_covered": round(hit / n, 3),
            "recall_top": round(top_hit / n, 3),
            "precision": round(good / max(1, dets_n), 3),
            "detections": dets_n,
            "confusions": dict(confusions.most_common(8)),
        }
    return {"overlap": out}


def real_faces(name: str) -> list[tuple[str, np.ndarray]]:
    """The cards of shared set `name` cut out at their outline, as scenes lay them:
    [(card, BGRA image)] (`models.real_cards.load_cutouts`)."""
    from models.real_cards import load_cutouts

    return [(rc.card, art) for rc, art in load_cutouts([name], outline=True)]


def eval_overlap_real(rec, sets: list[str], n: int = 60, seed: int = 525252) -> dict:
    """Real-photo composites: `eval_overlap`, `eval_fan` and `eval_table` with the cards of each named
    shared set cut out at their outline (`models.real_cards.load_cutouts`), the cards of one
    scene from the same set (one deck), per set."""
    out = {}
    for name in sets:
        faces = real_faces(name)
        out[name] = eval_overlap(rec, n=n, seed=seed, faces=faces, desc=f"overlap {name}")["overlap"]
        out[name]["fan"] = eval_fan(rec, n=n, seed=seed + 1, faces=faces, desc=f"fan {name}")
        out[name]["table"] = eval_table(rec, seed=seed + 2, faces=faces, desc=f"table {name}")
    return {"overlap_real": out}


def _pick_cards(rng: np.random.Generator, k: int, faces=None) -> tuple[list[str], list[np.ndarray]]:
    """k cards of other faces for a scene, and their BGRA images: fresh renders, or one
    photo each of `faces` ([(card, BGRA image)], a face's photo drawn among its own)."""
    if faces is None:
        picked = [ALL_FACES[int(i)] for i in rng.choice(len(ALL_FACES), k, replace=False)]
        return picked, [render_card(c, height=240, rng=rng, params=random_params(rng)) for c in picked]
    by_face: dict[str, list[np.ndarray]] = {}
    for card, art in faces:
        by_face.setdefault(card, []).append(art)
    picked = [str(c) for c in rng.choice(sorted(by_face), min(k, len(by_face)), replace=False)]
    return picked, [by_face[c][int(rng.integers(len(by_face[c])))] for c in picked]


def _mask(quad: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A 0/1 mask of `shape` (H, W) that is 1 inside `quad`."""
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.asarray(quad).astype(np.int32)], 1)
    return m


def _uncovered(mask: np.ndarray, above: list[np.ndarray]) -> float:
    """The share of `mask` that none of the masks `above` it covers."""
    over = np.zeros_like(mask)
    for m in above:
        over |= m
    return float((mask & (1 - over)).sum() / max(1, mask.sum()))


def _visible(masks: list[np.ndarray]) -> list[float]:
    """Each card's visible share, its mask in laying order (each later one on top)."""
    return [_uncovered(m, masks[i + 1:]) for i, m in enumerate(masks)]


def fan_scene(rng: np.random.Generator, size=(640, 480), faces=None):
    """A hand fanned on a random table: 3-6 cards of other faces, each laid over the one
    before it, showing only a strip of 30-45% of its width (its corner index and an edge),
    turned a few degrees apart as a hand fans. faces: as `overlap_scene`'s. Returns (image,
    the faces from the bottom card up, each one's visible fraction)."""
    W, H = size
    img = make_table(rng, H, W).astype(np.float32)
    k = int(rng.integers(3, 7))
    picked, arts = _pick_cards(rng, k, faces)
    h = H * rng.uniform(0.3, 0.4)
    w = h * 56 / 87
    step = w * rng.uniform(0.3, 0.45)
    ang = rng.uniform(0, 360)
    turn = rng.uniform(0, 6)  # degrees between neighbours
    t = np.radians(-ang)
    ex = np.array([np.cos(t), np.sin(t)])  # across the cards (y down)
    start = np.array([W / 2, H / 2]) - ex * step * (k - 1) / 2 + rng.uniform(-0.04, 0.04, 2) * [W, H]
    masks = []
    for i, art in enumerate(arts):
        masks.append(_mask(_paste(img, art, start + ex * step * i, ang - turn * (i - (k - 1) / 2), h), (H, W)))
    return np.clip(img, 0, 255).astype(np.uint8), picked, _visible(masks)


def eval_fan(rec, n: int = 60, seed: int = 535353, faces=None, desc: str = "fan") -> dict:
    """Fanned hands (`fan_scene`), read as people read a fan: which faces it holds.
    recall_covered: the share of the fan's covered cards (all but the top one) whose face is
    reported; recall_top: of the top cards; precision: detections naming one of the fan's
    faces not already named, over all detections."""
    rng = np.random.default_rng(seed)
    covered = covered_hit = top_hit = good = dets_n = 0
    vis: list[float] = []
    missed: Counter = Counter()
    for _ in tqdm(range(n), desc=desc, unit="scene", leave=False):
        img, picked, visible = fan_scene(rng, faces=faces)
        vis += visible[:-1]
        named = [d.card for d in rec.recognize(img)]
        dets_n += len(named)
        good += len(set(named) & set(picked))  # a face named twice counts once
        covered += len(picked) - 1
        covered_hit += sum(c in named for c in picked[:-1])
        top_hit += picked[-1] in named
        missed.update(c for c in picked[:-1] if c not in named)
    return {
        "scenes": n,
        "covered_cards": covered,
        "visible_fraction_median": round(float(np.median(vis)), 3),
        "recall_covered": round(covered_hit / max(1, covered), 3),
        "recall_top": round(top_hit / n, 3),
        "precision": round(good / max(1, dets_n), 3),
        "detections": dets_n,
        "missed_most": dict(missed.most_common(6)),
    }


def table_scene(rng: np.random.Generator, size=(960, 720), faces=None):
    """Cards dropped on a random table as a game leaves them: 4-13 cards of other faces at any
    angle, each laid over those before it where they meet. faces: as `overlap_scene`'s.
    Returns (image, the faces from the bottom card up, each one's visible fraction, whether
    one of its index corners shows: `INDEX_SPAN` at either end at least 85% uncovered)."""
    from vision.crops import INDEX_SPAN, card_points

    W, H = size
    img = make_table(rng, H, W).astype(np.float32)
    picked, arts = _pick_cards(rng, int(rng.integers(4, 14)), faces)
    h = H * rng.uniform(0.2, 0.3)
    masks, index = [], []
    (u0, v0), (u1, v1) = INDEX_SPAN
    span = [[u0, v0], [u1, v0], [u1, v1], [u0, v1]]
    for art in arts:
        q = _paste(img, art, np.array([W, H]) * rng.uniform(0.25, 0.75, 2), rng.uniform(0, 360), h)
        masks.append(_mask(q, (H, W)))
        # the index at the card's top-left and at its 180-degree twin, as `corner_quads` lays them
        index.append([_mask(card_points(end, span), (H, W)) for end in (q, np.roll(q, 2, axis=0))])
    shown = [any(_uncovered(e, masks[i + 1:]) >= 0.85 for e in ends) for i, ends in enumerate(index)]
    return np.clip(img, 0, 255).astype(np.uint8), picked, _visible(masks), shown


def eval_table(rec, n: int = 40, seed: int = 545454, faces=None, desc: str = "table") -> dict:
    """Table scenes (`table_scene`), read as a player reads the table: which faces lie on it
    (those `uno-table detect` reports: confidence at least REPORTED).
    recall_readable: of the cards with a third of their face and an index corner showing, the
    share whose face is reported (what a person reads); recall_all: of every card; precision:
    reported faces that lie on the table, over all reported (a face reported twice counts once
    right); f1 of recall_readable and precision."""
    rng = np.random.default_rng(seed)
    readable = readable_hit = cards = cards_hit = good = dets_n = exact = 0
    for _ in tqdm(range(n), desc=desc, unit="scene", leave=False):
        img, picked, visible, shown = table_scene(rng, faces=faces)
        reported = [d.card for d in _reported(rec, img)]
        named = set(reported)
        dets_n += len(reported)
        good += len(named & set(picked))
        ok = [v >= 1 / 3 and s for v, s in zip(visible, shown, strict=True)]
        readable += sum(ok)
        readable_hit += sum(c in named for c, o in zip(picked, ok, strict=True) if o)
        cards += len(picked)
        cards_hit += sum(c in named for c in picked)
        exact += {c for c, o in zip(picked, ok, strict=True) if o} <= named <= set(picked)
    r, p = readable_hit / max(1, readable), good / max(1, dets_n)
    return {
        "scenes": n,
        "cards": cards,
        "readable_cards": readable,
        "recall_readable": round(r, 3),
        "recall_all": round(cards_hit / max(1, cards), 3),
        "precision": round(p, 3),
        "f1": round(2 * r * p / max(1e-9, r + p), 3),
        "scenes_exactly_right": exact,
        "reported": dets_n,
    }


def edge_variants(rng: np.random.Generator, card_bgr: np.ndarray, size=(640, 480)):
    """A card photo (tight, upright) seen as a webcam would see one card held up: `cut15` /
    `cut30` (that share cut off by the frame's edge), `fill` (the card fills 90-105% of the
    frame's height, a little turned, on a table), `fill_finger` (and a thumb over an edge),
    `overfill` (the card 115-140% of the frame's height: both ends cut off)."""
    W, H = size
    ch, cw = card_bgr.shape[:2]
    out = []
    for k in (0.15, 0.3):
        side = int(rng.integers(4))
        c = card_bgr
        if side == 0:
            c = c[int(ch * k):]
        elif side == 1:
            c = c[: ch - int(ch * k)]
        elif side == 2:
            c = c[:, int(cw * k):]
        else:
            c = c[:, : cw - int(cw * k)]
        out.append((f"cut{int(k * 100)}", np.ascontiguousarray(c)))
    art = np.dstack([card_bgr, np.full((ch, cw), 255, np.uint8)])
    for kind in ("fill", "fill_finger", "overfill"):
        finger = kind == "fill_finger"
        img = make_table(rng, H, W).astype(np.float32)
        h = H * (rng.uniform(1.15, 1.4) if kind == "overfill" else rng.uniform(0.9, 1.05))
        q = _paste(img, art, (W / 2 + rng.uniform(-40, 40), H / 2), rng.uniform(-15, 15), h)
        if finger:
            e = (q[2] + q[3]) / 2 if rng.random() < 0.5 else (q[1] + q[2]) / 2
            tip = e + (q.mean(axis=0) - e) * rng.uniform(0.25, 0.45)
            m = np.zeros((H, W), np.uint8)
            cv2.line(m, tuple(int(v) for v in e), tuple(int(v) for v in tip), 255,
                     int(h * 56 / 87 * rng.uniform(0.18, 0.28)))
            ma = (cv2.GaussianBlur(m, (0, 0), 2.0).astype(np.float32) / 255.0)[..., None]
            img = img * (1 - ma) + np.float32([120, 150, 205]) * ma
        out.append((kind, np.clip(img, 0, 255).astype(np.uint8)))
    return out


def edge_sources(rng: np.random.Generator, sets: list[str], renders: int = 54) -> list[tuple[str, str, np.ndarray]]:
    """The cards `eval_edge` cuts: (source, face, BGR photo) for every tight photo of the named
    real sets (mit, classic: only they can be cut like this), then `renders` fresh renders on
    a table drawn from `rng`."""
    from models.real_cards import SETS, list_set

    sources = [(name, rc.card, cv2.imread(str(SETS[name] / rc.file)))
               for name in sets if name in ("mit", "classic") for rc in list_set(name)]
    for card in ALL_FACES[:renders]:
        art = render_card(card, height=400, rng=rng, params=random_params(rng))
        a = art[..., 3:4].astype(np.float32) / 255.0
        bg = make_table(rng, art.shape[0], art.shape[1]).astype(np.float32)
        sources.append(("renders", card, (art[..., :3] * a + bg * (1 - a)).astype(np.uint8)))
    return sources


def eval_edge(rec, sets: list[str], seed: int = 616161, renders: int = 54) -> dict:
    """One card cut by the frame's edge or filling it (`edge_variants`), from the named real
    sets' tight photos (mit, classic) and from `renders` fresh renders: found (any card
    reported) and named (the best-scored card is the right face), per variant."""
    rng = np.random.default_rng(seed)
    stats: dict = {}
    for src, card, img in tqdm(edge_sources(rng, sets, renders), desc="edge", unit="card"):
        for kind, v in edge_variants(rng, img):
            d = _main_card(rec.recognize(v))
            st = stats.setdefault(src, {}).setdefault(kind, [0, 0, 0])
            st[0] += d is not None
            st[1] += d is not None and d.card == card
            st[2] += 1
    return {"edge": {src: {k: {"found": f"{a}/{n}", "named": f"{b}/{n}"} for k, (a, b, n) in v.items()}
                     for src, v in stats.items()}}


def held_sources(rng: np.random.Generator, sets: list[str], renders: int = 54) -> list[tuple[str, str, np.ndarray]]:
    """The cards `eval_held` holds up: (source, face, BGRA image) for every cut-out card of
    the named real sets, then `renders` fresh renders of each design drawn from `rng`."""
    sources = [(name, card, art) for name in sets for card, art in real_faces(name)]
    for look in ("classic", "2010s", "2020s"):
        sources += [(f"renders {look}", card, render_card(card, height=400, rng=rng, params=random_params(rng, look)))
                    for card in ALL_FACES[:renders]]
    return sources


def eval_held(rec, sets: list[str], seed: int = 818181, renders: int = 54) -> dict:
    """One card held up to a webcam before a room (`models.held.held_scene`): every cut-out
    card of the named real sets, and `renders` fresh renders of each design: found (any card
    reported) and named (the best-scored card is the right face), per set and per design,
    with what the misses were read as; `held_mirrored`: the same photos saved mirrored, as a
    laptop's selfie view saves them (the draws are the plain part's)."""
    from models.held import held_scene

    rng = np.random.default_rng(seed)
    sources = held_sources(rng, sets, renders)
    stats: dict = {"held": {}, "held_mirrored": {}}
    for src, card, art in tqdm(sources, desc="held up", unit="card"):
        img, _ = held_scene(rng, art)
        for part, photo in (("held", img), ("held_mirrored", np.ascontiguousarray(img[:, ::-1]))):
            d = _main_card(rec.recognize(photo))
            st = stats[part].setdefault(src, {"found": 0, "named": 0, "total": 0, "misses": Counter()})
            st["found"] += d is not None
            st["named"] += d is not None and d.card == card
            st["total"] += 1
            if d is None or d.card != card:
                st["misses"][f"{card} -> {d.card if d else 'none'}"] += 1
    return {part: {src: {"found": f"{v['found']}/{v['total']}", "named": f"{v['named']}/{v['total']}",
                         "misses": dict(v["misses"].most_common(10))} for src, v in by_src.items()}
            for part, by_src in stats.items()}


def eval_layout(rec, sets: list[str], seed: int = 828282) -> dict:
    """A whole deck laid out apart and photographed from above (`vision.decks.looks.layout_photos`,
    1600x1200, two photos a deck, in a room's light and under a warm bulb), on a dark table and
    on white paper: each named real set's cut-outs, and a worn printing of each design (scuffed,
    faded), read as `uno-table detect` reads a photo (in tiles). found: a reported card on the
    truth (IoU >= 0.5); named: that card the right face; extra: reported cards on no truth card."""
    from dataclasses import replace

    from vision.decks.looks import SURFACES

    rng = np.random.default_rng(seed)
    decks = [(name, real_faces(name)) for name in sets]
    for look in ("classic", "2010s", "2020s"):
        worn = []
        for card in ALL_FACES:
            p = random_params(rng, look)
            p = replace(p, wear=float(rng.uniform(0.6, 1.0)), sat_scale=p.sat_scale * float(rng.uniform(0.6, 0.85)))
            worn.append((card, render_card(card, height=400, rng=rng, params=p)))
        decks.append((f"worn renders {look}", worn))
    out: dict = {}
    with _tiled(rec):
        for surface in SURFACES:
            for name, cards in tqdm(decks, desc=f"layout on {surface}", unit="deck"):
                out.setdefault(surface, {})[name] = _layout_deck(rec, cards, surface, rng)
    return {"layout": out}


def _layout_deck(rec, cards, surface: str, rng) -> dict:
    """One deck's layout photos on `surface` (`eval_layout`), scored."""
    from vision.decks.looks import layout_photos

    found = named = total = extra = 0
    misses: Counter = Counter()
    for cast in ("none", "warm"):
        for img, truth in layout_photos(cards, photos=2, seed=int(rng.integers(1 << 31)), cast=cast, surface=surface):
            dets = _reported(rec, img)
            on_truth = set()
            for card, quad in truth:
                ious = [_iou(d.quad, quad) for d in dets]
                k = int(np.argmax(ious)) if ious else -1
                total += 1
                if k < 0 or ious[k] < 0.5:
                    misses[f"{card} -> none"] += 1
                    continue
                on_truth.add(k)
                found += 1
                named += dets[k].card == card
                if dets[k].card != card:
                    misses[f"{card} -> {dets[k].card}"] += 1
            extra += len(dets) - len(on_truth)
    return {"found": f"{found}/{total}", "named": f"{named}/{total}", "extra": extra,
            "misses": dict(misses.most_common(8))}


def eval_far(rec, sets: list[str], seed: int = 838383, heights=(0.06, 0.09, 0.13)) -> dict:
    """One card lying on a table, far off in a phone's 4032x3024 photo (each of `heights` of
    the photo's height; at the detector's 320 px a 6% card is 19 px long), read as `uno-table
    detect` reads a photo (in tiles): every other cut-out card of the named real sets and 27
    renders of each design. found: a face reported; named: the surest reported is the card."""
    rng = np.random.default_rng(seed)
    sources = [(name, card, art) for name in sets for card, art in real_faces(name)[::2]]
    for look in ("classic", "2010s", "2020s"):
        sources += [(f"renders {look}", card, render_card(card, height=400, rng=rng, params=random_params(rng, look)))
                    for card in ALL_FACES[::2]]
    W, H = 4032, 3024
    stats: dict = {}
    with _tiled(rec):
        for frac in heights:
            for src, card, art in tqdm(sources, desc=f"far {int(frac * 100)}%", unit="photo", leave=False):
                img = cv2.resize(make_table(rng, H // 4, W // 4), (W, H)).astype(np.float32)
                _paste(img, art, rng.uniform([0.2 * W, 0.2 * H], [0.8 * W, 0.8 * H]), rng.uniform(0, 360), frac * H)
                img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
                dets = _reported(rec, img)
                st = stats.setdefault(f"{int(frac * 100)}%", {}).setdefault(src, [0, 0, 0])
                st[0] += bool(dets)
                st[1] += bool(dets) and max(dets, key=lambda d: d.confidence).card == card
                st[2] += 1
    return {"far": {h: {src: {"found": f"{a}/{n}", "named": f"{b}/{n}"} for src, (a, b, n) in v.items()}
                    for h, v in stats.items()}}


def bad_frames(rng: np.random.Generator, size=(640, 480)) -> list[tuple[str, np.ndarray]]:
    """Frames with no face to read: black, dim noise, overexposed, a bare table, a table
    with card backs only, a white sheet; the bare table and the backs again in a dim room."""
    from vision.render import render_back

    W, H = size
    frames = [
        ("black", np.zeros((H, W, 3), np.uint8)),
        ("dark_noise", np.clip(rng.normal(8, 4, (H, W, 3)), 0, 255).astype(np.uint8)),
        ("overexposed", np.clip(make_table(rng, H, W) * 0.2 + 235, 0, 255).astype(np.uint8)),
        ("white_sheet", np.full((H, W, 3), 250, np.uint8)),
        ("bare_table", make_table(rng, H, W).astype(np.uint8)),
    ]
    img = make_table(rng, H, W).astype(np.float32)
    for _ in range(3):
        back = render_back(200, rng=rng, params=random_params(rng))
        _paste(img, back, rng.uniform([120, 120], [W - 120, H - 120]), rng.uniform(0, 360),
               rng.uniform(140, 220))
    frames.append(("backs_only", np.clip(img, 0, 255).astype(np.uint8)))
    # the same in a dim room, the exposure held: a still photo this dark is read lifted
    # (vision.recognizer.exposure_gain), and lifted it must still give no face
    frames += [("dim_table", (dict(frames)["bare_table"] * 0.25).astype(np.uint8)),
               ("dim_backs", (dict(frames)["backs_only"] * 0.25).astype(np.uint8))]
    return frames


def eval_bad(rec, seed: int = 717171, repeats: int = 5) -> dict:
    """`bad_frames` (several draws each): how many faces the recognizer made up (any reported
    card other than `back`), and at what confidence."""
    rng = np.random.default_rng(seed)
    out: dict = {}
    for _ in range(repeats):
        for kind, img in bad_frames(rng):
            faces = [d for d in rec.recognize(img) if d.card != "back"]
            o = out.setdefault(kind, {"frames": 0, "faces_reported": 0, "max_confidence": 0.0})
            o["frames"] += 1
            o["faces_reported"] += len(faces)
            o["max_confidence"] = round(max([o["max_confidence"], *[d.confidence for d in faces]]), 3)
    return {"bad_input": out}


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
        "--only", default="real,renders,map,speed",
        help=f"comma list of: {', '.join(PARTS)}",
    )
    ap.add_argument("--sets", default="all",
                    help="shared real sets for `sets`, `overlap-real`, `edge`, `held`, `layout` and `far` (models.real_cards.SETS)")
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
    ap.add_argument("--no-whole-image", action="store_true",
                    help="read without the whole-image fallback (CardRecognizer(whole_image=False)): the figures before it")
    ap.add_argument("--no-mirror", action="store_true",
                    help="never read a photo again mirrored (CardRecognizer(mirror=False)): the figures before it")
    ap.add_argument("--no-corners", action="store_true",
                    help="read without the corner reader (CardRecognizer(corner_path=None)): the figures before it")
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    bad = parts - set(PARTS)
    if bad:
        ap.error(f"--only: unknown part(s) {', '.join(sorted(bad))}")
    # the photos' recognizer for every part but speed, which times the table's: load only what is asked
    unread = ({"corner_path": None} if args.no_corners else {}) | ({"whole_image": False} if args.no_whole_image else {}) \
        | ({"mirror": False} if args.no_mirror else {})
    from models.real_cards import parse_sets

    try:
        sets = parse_sets(args.sets)
    except ValueError as exc:
        ap.error(f"--sets: {exc}")
    rec = _recognizer(args.models, **unread) if parts - {"speed"} else None
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
    if "sets" in parts:
        figures.update(eval_real_sets(rec, sets, args.csv))
        for name, f in figures["real_sets"].items():
            print(f"{name} ({f['design']}): {f['right']}/{f['total']} per colour {f['per_colour']}"
                  f"; not found {f['not_found']}; confusions {f['confusions']}")
    if "overlap" in parts:
        figures.update(eval_overlap(rec))
        figures["overlap"]["fan"] = eval_fan(rec)
        figures["overlap"]["table"] = eval_table(rec)
        print("overlap:", json.dumps(figures["overlap"]))
    if "overlap-real" in parts:
        figures.update(eval_overlap_real(rec, sets))
        for name, f in figures["overlap_real"].items():
            print(f"overlap, {name} photos:", json.dumps(f))
    if "edge" in parts:
        figures.update(eval_edge(rec, sets))
        print("edge:", json.dumps(figures["edge"]))
    if "held" in parts:
        figures.update(eval_held(rec, sets))
        for part, label in (("held", "held up"), ("held_mirrored", "held up, photo mirrored")):
            for src, f in figures[part].items():
                print(f"{label}, {src}: found {f['found']}, named {f['named']}; misses {f['misses']}")
    if "layout" in parts:
        figures.update(eval_layout(rec, sets))
        for surface, decks in figures["layout"].items():
            for name, f in decks.items():
                print(f"laid out on {surface}, {name}: found {f['found']}, named {f['named']}, extra {f['extra']};"
                      f" misses {f['misses']}")
    if "far" in parts:
        figures.update(eval_far(rec, sets))
        for h, srcs in figures["far"].items():
            print(f"far off, {h} of the photo's height:", {s: f["named"] for s, f in srcs.items()})
    if "bad" in parts:
        figures.update(eval_bad(rec))
        print("bad input:", json.dumps(figures["bad_input"]))
    if "renders" in parts:
        figures.update(eval_renders(rec))
        print(
            f"unseen renders: {figures['renders_right']}/{figures['renders_total']}; "
            f"misses: {figures['renders_misses']}; other faces reported beside the card: {figures['renders_extra']}"
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
        figures.update(eval_speed(_recognizer(args.models, photos=False, **unread)))
        print(f"speed (median ms, {figures['speed_frame']}): {figures['speed_ms_median']}")
    figures["evaluated_seconds"] = round(time.time() - t0, 1)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
