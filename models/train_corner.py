"""Train the corner reader: the card named from its corner index alone (54 faces, or `none`
where the corner shows no index: covered, cut off, a back, the middle of a card).

    python -m models.train_corner --minutes 30 --out data/runs/corner
    python -m models.train_corner --export data/runs/corner/best.pt   # -> models/card_corner.onnx

People read a fan or a half-covered card by its corner index; the whole-card classifier,
trained on covered crops too, still misnames half the cards that lie half under another
(models/README.md, issue 13). Each sample is a training crop of `models.crops.synth_crop`
(renders of all three designs and the real cards of --real-train, covered by another card
or a finger, cut, re-lit) whose two index corners (`vision.crops.corner_patches`) are cut
from the scene along the same detector-like box the crop was: a corner is labelled with the
card's face when its index lies there and is uncovered, `none` when no index lies there or
it is covered, and left out in between. Real sets not trained on are reported after each
epoch (both corners of each photo), never used to pick a checkpoint.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from models import share
from models.crops import synth_crop
from vision.crops import (
    CLASSES,
    CORNER_PX,
    CORNER_SPAN,
    INDEX_SPAN,
    card_points,
    corner_patches,
    crop_from_quad,
    normalize_colour,
    order_portrait,
    white_reference,
)
from vision.render import BACK

NONE = "none"
CORNER_CLASSES: tuple[str, ...] = (*[c for c in CLASSES if c != BACK], NONE)
# a corner is its card's when its index region's centre lies within NEAR of the card's own
# index (a share of the card's length) and SEEN of that index is uncovered; `none` when it is
# FAR from both indices or less than HIDDEN of the nearer one shows
NEAR, FAR = 0.05, 0.12
SEEN, HIDDEN = 0.85, 0.35


def build_net(n_classes: int = len(CORNER_CLASSES)):
    """A small CNN on 40x40 corner patches (~0.1 M parameters)."""
    import torch.nn as nn

    def conv(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *conv(3, 24), nn.MaxPool2d(2),  # 20
        *conv(24, 48), nn.MaxPool2d(2),  # 10
        *conv(48, 64), *conv(64, 64), nn.MaxPool2d(2),  # 5
        *conv(64, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(96, n_classes),
    )


def _index_centre(quad) -> np.ndarray:
    (u0, v0), (u1, v1) = INDEX_SPAN
    return card_points(quad, [[(u0 + u1) / 2, (v0 + v1) / 2]])[0]


def _seen(covered: np.ndarray, quad) -> float:
    """Share of a card's index region (quad: the card, portrait-ordered from that corner)
    left uncovered."""
    (u0, v0), (u1, v1) = INDEX_SPAN
    poly = card_points(quad, [[u0, v0], [u1, v0], [u1, v1], [u0, v1]])
    m = np.zeros(covered.shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
    n = int(m.sum())
    if n == 0:
        return 0.0  # the index lies outside the scene
    return 1.0 - float(covered[m > 0].mean())


def corner_samples(detail: dict, face: str) -> list[tuple[np.ndarray, int]]:
    """The two corner patches of a `synth_crop` (its `detail`), each with its label
    (CORNER_CLASSES index), colour-normalised by the crop's own white as at run time;
    corners between seen and hidden are left out."""
    img, card, box, covered = detail["image"], detail["card"], detail["box"], detail["covered"]
    length = float(np.linalg.norm(card[3] - card[0]))
    truth = [np.asarray(card, np.float32), np.roll(np.asarray(card, np.float32), 2, axis=0)]
    centres = [_index_centre(t) for t in truth]
    white = white_reference(crop_from_quad(img, box))
    q = order_portrait(box)
    out = []
    for k, patch in enumerate(corner_patches(img, q)):
        c = _index_centre(np.roll(q, 2 * k, axis=0))
        d = [float(np.linalg.norm(c - t)) / max(length, 1.0) for t in centres]
        j = int(np.argmin(d))
        if face == BACK or d[j] > FAR:
            label = NONE
        elif d[j] <= NEAR:
            seen = _seen(covered, truth[j])
            label = face if seen >= SEEN else NONE if seen <= HIDDEN else None
        else:
            label = None
        if label is not None:
            out.append((normalize_colour(patch, white), CORNER_CLASSES.index(label)))
    return out


def to_batch(patches: list[np.ndarray]) -> np.ndarray:
    return cv2.dnn.blobFromImages(patches, 1 / 255.0, swapRB=True)


def _draw(rng, art, face, textures, covers, args):
    d: dict = {}
    synth_crop(rng, art, textures, covers, args.cover_p, args.cover_max, args.cut_p, args.cut_max, detail=d)
    return corner_samples(d, face)


_POOL: dict = {}  # what the pool's worker processes draw from (inherited by fork)


def _pool_part(job: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Corners of `n` fresh training crops drawn with seed `seed` (a worker's share)."""
    seed, n = job
    bank, real, textures, covers, args = (_POOL[k] for k in ("bank", "real", "textures", "covers", "args"))
    rng = np.random.default_rng([args.seed, 1000 + seed])
    out = []
    for _ in range(n):
        if real and rng.random() < args.real_share:
            face, img = real[int(rng.integers(len(real)))]
            if rng.random() < 0.5:
                from models.real_cards import recolour

                img = recolour(img, face.split("-")[0], rng)
        else:
            ci, img = bank[int(rng.integers(len(bank)))]
            face = CLASSES[ci]
        out += _draw(rng, img, face, textures, covers, args)
    return np.stack([p for p, _ in out]), np.array([y for _, y in out], np.int64)


def make_pool(n: int, workers: int, **draw_from) -> tuple[np.ndarray, np.ndarray]:
    """The corners of `n` training crops, drawn once in `workers` processes (drawing a crop
    costs about 25 ms, ten times training on its corners): uint8 patches and labels."""
    import multiprocessing as mp

    from tqdm import tqdm

    _POOL.update(draw_from)
    jobs = [(k, min(500, n - k * 500)) for k in range((n + 499) // 500)]
    with mp.get_context("fork").Pool(workers) as pool:
        parts = list(tqdm(pool.imap(_pool_part, jobs), total=len(jobs), desc="corner pool", file=sys.stderr))
    return np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])


def _fresh_batch(rng, bank, real, textures, covers, args):
    """One step's corners of fresh crops (no pool): renders, and real cards recoloured."""
    import torch

    from models.real_cards import recolour

    samples = []
    n_real = int(round(args.batch * args.real_share)) if real else 0
    for i in rng.integers(len(bank), size=args.batch - n_real):
        ci, art = bank[int(i)]
        samples += _draw(rng, art, CLASSES[ci], textures, covers, args)
    for i in rng.integers(len(real), size=n_real):
        face, img = real[int(i)]
        if rng.random() < 0.5:
            img = recolour(img, face.split("-")[0], rng)
        samples += _draw(rng, img, face, textures, covers, args)
    return torch.from_numpy(to_batch([p for p, _ in samples])), torch.tensor([y for _, y in samples])


def export(weights: Path, out: Path) -> Path:
    """The corner reader as ONNX (dynamic batch), its class names and input in the metadata."""
    import onnx
    import torch

    net = build_net()
    net.load_state_dict(torch.load(weights, map_location="cpu"))
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, CORNER_PX, CORNER_PX), str(out), input_names=["patches"],
                      output_names=["logits"], dynamic_axes={"patches": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    model = onnx.load(str(out))
    meta = {"names": json.dumps(list(CORNER_CLASSES)), "input": "RGB float 0..1, NCHW",
            "patch": json.dumps([CORNER_PX, CORNER_PX]), "span": json.dumps(list(CORNER_SPAN)),
            "colour": "white-ref-v1 (the whole crop's white)"}
    from models.export import write_metadata

    write_metadata(model, meta, out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.train_corner", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="run folder (weights, log)")
    ap.add_argument("--export", type=Path, default=None, metavar="WEIGHTS",
                    help="only export these weights to --onnx and stop")
    ap.add_argument("--onnx", type=Path, default=Path(__file__).resolve().parent / "card_corner.onnx")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long")
    ap.add_argument("--per-epoch", type=int, default=4000, help="crops per epoch (two corners each)")
    ap.add_argument("--bank", type=int, default=24, help="rendered printings per class")
    ap.add_argument("--val-per-class", type=int, default=6)
    ap.add_argument("--textures", type=int, default=60)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cover-p", type=share, default=0.6, help="share of crops with a card over them")
    ap.add_argument("--cover-max", type=share, default=0.9)
    ap.add_argument("--cut-p", type=share, default=0.3, help="share of boxes cut short (a box on the visible part)")
    ap.add_argument("--cut-max", type=share, default=0.5)
    ap.add_argument("--real-train", default="mit2,classic", help="real sets trained on (models.real_cards.SETS)")
    ap.add_argument("--real-share", type=share, default=0.25)
    ap.add_argument("--fonts", type=share, default=0.0,
                    help="share of rendered printings whose digits are set in an OpenCV font (models.crops.train_params)")
    ap.add_argument("--typefaces", type=share, default=0.0,
                    help="share of rendered printings whose digits are set in a bold, serif or italic TrueType "
                    "face (models.crops.TYPEFACES, matplotlib's own files)")
    ap.add_argument("--corners", type=share, default=0.0,
                    help="share of rendered printings whose corner index is drawn as another print's: "
                    "hollow in a paper rim, larger, a wild's oval tilted (models.crops.corner_index)")
    ap.add_argument("--hollow", choices=("all", "wild"), default="all",
                    help="which faces --corners may draw hollow: every face, or the wild cards only "
                    "(a hollow coloured digit read a dotted cloth as a fan of cards, models/README.md)")
    ap.add_argument("--pool", type=int, default=40000,
                    help="training crops drawn once and trained on for every epoch (0: fresh crops each step)")
    ap.add_argument("--workers", type=int, default=2, help="processes drawing the pool")
    args = ap.parse_args(argv)
    if args.export is not None:
        print(export(args.export, args.onnx))
        return 0
    if args.out is None:
        ap.error("--out is needed to train")

    import torch
    import torch.nn.functional as F
    from tqdm import tqdm

    from models.real_cards import SETS, check_disjoint, load_cutouts, parse_sets
    from models.train_classifier import fit_epochs, keep_checkpoint, render_bank, start_run

    t0, rng, textures = start_run(args)
    real_train = parse_sets(args.real_train)
    real = [(rc.card, img) for rc, img in load_cutouts(real_train)]
    val_real = {}
    for name in [n for n in SETS if n not in real_train]:
        cuts = load_cutouts([name])
        check_disjoint([rc for rc, _ in load_cutouts(real_train)], [rc for rc, _ in cuts])
        xs, ys = [], []
        for rc, img in cuts:
            h, w = img.shape[:2]
            bgr = img[..., :3]
            quad = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            white = white_reference(crop_from_quad(bgr, quad))
            for p in corner_patches(bgr, quad):
                xs.append(normalize_colour(p, white))
                ys.append(CORNER_CLASSES.index(rc.card))
        val_real[name] = (to_batch(xs), np.array(ys))
    bank = render_bank(args.seed + 1, args.bank, wide=0.6, fonts=args.fonts, faces=args.typefaces,
                       corners=args.corners, hollow=args.hollow)
    covers = [art for _, art in bank[:: max(1, len(bank) // 300)]]
    vrng = np.random.default_rng(args.seed + 3)
    val = [s for ci, art in render_bank(args.seed + 2, args.val_per_class, progress=False, wide=0.6)
           for s in _draw(vrng, art, CLASSES[ci], textures, covers, args)]
    val_x, val_y = to_batch([p for p, _ in val]), np.array([y for _, y in val])
    (args.out / "train_args.json").write_text(json.dumps(
        {**{k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
         "classes": list(CORNER_CLASSES), "real_trained_on": real_train,
         "real_reported": list(val_real)}, indent=2))
    print(f"bank {len(bank)} renders, {len(real)} real cards, val {len(val_y)} corners "
          f"({int((val_y == len(CORNER_CLASSES) - 1).sum())} none), {time.time() - t0:.0f}s", flush=True)

    pool_x = pool_y = None
    if args.pool:
        pool_x, pool_y = make_pool(args.pool, args.workers, bank=bank, real=real, textures=textures,
                                   covers=covers, args=args)
        print(f"pool: {len(pool_y)} corners of {args.pool} crops ({int((pool_y == len(CORNER_CLASSES) - 1).sum())} "
              f"none), {time.time() - t0:.0f}s", flush=True)
    net = build_net()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    # crops per step: a batch, about twice as many corners; with a pool, one pass over it
    steps = max(1, len(pool_y) // (2 * args.batch) if pool_x is not None else args.per_epoch // args.batch)
    total = args.epochs * steps
    deadline = t0 + args.minutes * 60 if args.minutes else None

    def evaluate(x, y):
        net.eval()
        with torch.no_grad():
            pred = torch.cat([net(torch.from_numpy(x[i: i + 512])) for i in range(0, len(x), 512)]).argmax(1).numpy()
        net.train()
        return float((pred == y).mean()), pred

    best, history, step = -1.0, [], 0
    for epoch in range(args.epochs):
        te = time.time()
        erng = np.random.default_rng([args.seed, epoch])
        loss_sum = 0.0
        order = erng.permutation(len(pool_y)) if pool_x is not None else None
        for s_i in tqdm(range(steps), desc=f"epoch {epoch}", mininterval=10, file=sys.stderr):
            if pool_x is not None:
                pick = order[s_i * 2 * args.batch: (s_i + 1) * 2 * args.batch]
                # the same corner seen again: other exposure and noise
                xb = pool_x[pick].astype(np.float32) * erng.uniform(0.8, 1.15, (len(pick), 1, 1, 1))
                xb += erng.normal(0, 3, xb.shape).astype(np.float32)
                xb = torch.from_numpy(to_batch(list(np.clip(xb, 0, 255).astype(np.uint8))))
                yb = torch.from_numpy(pool_y[pick])
            else:
                xb, yb = _fresh_batch(erng, bank, real, textures, covers, args)
            t = min(1.0, step / max(1, total))
            for g in opt.param_groups:
                g["lr"] = args.lr * min(1.0, (step + 1) / 100) * 0.5 * (1 + np.cos(np.pi * t))
            loss = F.cross_entropy(net(xb), yb, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            loss_sum += float(loss.detach())
        acc, pred = evaluate(val_x, val_y)
        faces = val_y != len(CORNER_CLASSES) - 1
        rec = {"epoch": epoch, "loss": round(loss_sum / steps, 4), "synthetic_val": round(acc, 4),
               "val_faces": round(float((pred[faces] == val_y[faces]).mean()), 4),
               "val_none_as_face": int(((pred != len(CORNER_CLASSES) - 1) & ~faces).sum()),
               "real": {n: f"{int((evaluate(x, y)[1] == y).sum())}/{len(y)}" for n, (x, y) in val_real.items()},
               "seconds": round(time.time() - te, 1)}
        history.append(rec)
        print(json.dumps(rec), flush=True)
        best = keep_checkpoint(net, args.out, acc, best)
        if deadline and epoch == 0:
            total = fit_epochs(deadline, te, args.epochs) * steps
        if step >= total:
            break
    (args.out / "summary.json").write_text(json.dumps(
        {"seconds": round(time.time() - t0, 1), "best_synthetic_val": best, "history": history}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
