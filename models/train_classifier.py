"""Train the card-face classifier (54 faces + back) on freshly rendered, augmented crops.

    python -m models.train_classifier --epochs 30 --out data/runs/classifier

Each epoch draws new crops from a bank of rendered printings (many random printings per
face, in all three looks), so the network never sees the same crop twice. After each epoch
it reports accuracy on a fixed synthetic validation set and, for information only, on the
real validation photos (never trained on, never used to pick a checkpoint). The checkpoint
with the best synthetic validation accuracy is kept as best.pt.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from models import share
from models.crops import CLASSES, crop_from_quad, not_a_card, synth_crop, to_input, train_params
from models.real_cards import DESIGN, check_disjoint, load_cutouts, parse_sets, recolour
from vision.real_faces import shared_data
from vision.render import BACK, random_params, render_back, render_card

REAL_PHOTOS = shared_data() / "real-cards-mit"
# how much the no-card crops' pull towards uniform counts beside the cards' own loss
# (`--outliers`): Hendrycks, Mazeika and Dietterich's outlier exposure (ICLR 2019) weight
OUTLIER_WEIGHT = 0.5


def build_net(n_classes: int = len(CLASSES)):
    """A small VGG-style CNN on 96x64 crops (~0.5 M parameters, ~55 MFLOPs)."""
    import torch.nn as nn

    def block(cin, cout, n=2):
        layers = []
        for i in range(n):
            layers += [
                nn.Conv2d(cin if i == 0 else cout, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            ]
        return layers + [nn.MaxPool2d(2)]

    return nn.Sequential(
        *block(3, 16, 1),
        *block(16, 32, 1),
        *block(32, 64),
        *block(64, 128),
        nn.Conv2d(128, 160, 3, padding=1, bias=False),
        nn.BatchNorm2d(160),
        nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d((3, 2)),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(160 * 6, n_classes),
    )


def load_onnx_weights(net, path: Path, calibration: np.ndarray | None = None) -> None:
    """Start `net` (build_net) from a shipped classifier ONNX file: its convolutions carry the
    batch norms folded in, so each conv takes the folded weight and its batch norm becomes the
    identity plus the folded bias (the same function in eval mode). With `calibration` (a
    batch of training inputs) each norm is then fitted to the batch statistics it will see in
    training, so that train mode computes the same function too: a fine-tune starts from the
    file's accuracy instead of relearning the norms (a first epoch at 57% synthetic accuracy
    for a file that reads 99%)."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    mods = list(net)
    conv_mods = [m for m in mods if isinstance(m, torch.nn.Conv2d)]
    bn_mods = [m for m in mods if isinstance(m, torch.nn.BatchNorm2d)]
    if len(convs) != len(conv_mods):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(conv_mods)}")
    from models.folded_norms import fit_norms, unfold

    for node, conv, bn in zip(convs, conv_mods, bn_mods, strict=True):
        unfold(conv, bn, init[node.input[1]], init[node.input[2]])
    with torch.no_grad():
        lin = [m for m in mods if isinstance(m, torch.nn.Linear)][0]
        lin.weight.copy_(torch.from_numpy(np.array(init[gemm.input[1]])))
        lin.bias.copy_(torch.from_numpy(np.array(init[gemm.input[2]])))
    if calibration is None:
        return
    fit_norms(net, [(conv, bn) for conv, bn in zip(conv_mods, bn_mods, strict=True)],
              torch.from_numpy(calibration))


def render_bank(
    seed: int, per_class: int, height: int = 192, progress: bool = True, wide: float = 0.0,
    fonts: float = 0.0, faces: float = 0.0, corners: float = 0.0, hollow: str = "all",
):
    """Rendered printings of every class: list of (class index, BGRA art); `wide`, `fonts`,
    `faces` and `corners`: `models.crops.train_params`'; hollow "wild": a hollow corner
    index (`corners`' rim) on the wild cards only, every other face's rim set back to 0
    after the same draws."""
    from dataclasses import replace

    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    bank = []
    jobs = [(ci, k) for k in range(per_class) for ci in range(len(CLASSES))]
    for ci, k in tqdm(jobs, desc="render bank", disable=not progress, mininterval=5):
        look = ("2010s", "2010s", "classic", "2020s", None)[k % 5]
        p = train_params(rng, look, wide, fonts, faces, corners) if wide > 0 or fonts > 0 or faces > 0 \
            or corners > 0 else random_params(rng, look)
        if hollow == "wild" and p.corner_rim and not CLASSES[ci].startswith("wild"):
            p = replace(p, corner_rim=0.0)
        h = int(height * rng.uniform(0.85, 1.15))
        art = (
            render_back(h, rng=rng, params=p)
            if CLASSES[ci] == BACK
            else render_card(CLASSES[ci], height=h, rng=rng, params=p)
        )
        bank.append((ci, art))
    return bank


def load_real(folder: Path = REAL_PHOTOS):
    """The real photos as whole-image crops (each photo is a tight shot of one card)."""
    rows = list(csv.DictReader(open(folder / "labels.csv")))
    xs, ys, names = [], [], []
    for r in rows:
        img = cv2.imread(str(folder / r["file"]), cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        xs.append(crop_from_quad(img, [[0, 0], [w, 0], [w, h], [0, h]]))
        ys.append(CLASSES.index(r["card"]))
        names.append(r["file"])
    return xs, np.array(ys), names


def _jitter(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """A table crop seen again: either turn, other light, a little noise."""
    c = crop[::-1, ::-1] if rng.random() < 0.5 else crop
    c = c.astype(np.float32) * rng.uniform(0.75, 1.2) + rng.uniform(-20, 20)
    c += rng.normal(0, rng.uniform(0, 6), c.shape)
    return np.clip(c, 0, 255).astype(np.uint8)


def start_run(args):
    """Seed torch and numpy from args.seed, set torch's threads, make the run folder and draw
    the table textures: (start time, the run's rng, textures)."""
    import torch

    from models.scenes import make_table

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    return t0, rng, [make_table(rng, 256, 256) for _ in range(args.textures)]


def keep_checkpoint(net, out: Path, acc: float, best: float) -> float:
    """Save the epoch's weights as last.pt, and as best.pt when its validation accuracy is at
    least the best so far; the best so far after it."""
    import torch

    torch.save(net.state_dict(), out / "last.pt")
    if acc >= best:
        torch.save(net.state_dict(), out / "best.pt")
        return acc
    return best


def fit_epochs(deadline: float, epoch_start: float, most: int) -> int:
    """The epochs that fit before `deadline`, from the first epoch's pace (fitted once)."""
    per_epoch_s = max(1e-3, time.time() - epoch_start)
    fit = int((deadline - time.time()) / per_epoch_s) + 1
    n = max(1, min(most, fit))
    print(f"time limit: planning {n} epochs", flush=True)
    return n


def uniform_loss(logits):
    """Cross-entropy of each row's softmax against the uniform distribution, averaged: least
    (the log of the class count) where every class is equally likely, so a crop with no card
    learns to name none of them surely."""
    import torch.nn.functional as F

    return -F.log_softmax(logits, 1).mean()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.train_classifier",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--epochs", type=int, default=30, help="most epochs (fewer with --minutes)")
    ap.add_argument("--per-epoch", type=int, default=6000, help="crops per epoch")
    ap.add_argument("--bank", type=int, default=40, help="rendered printings per class")
    ap.add_argument("--val-per-class", type=int, default=8, help="synthetic val crops per class")
    ap.add_argument("--textures", type=int, default=60, help="table textures to draw from")
    ap.add_argument("--no-real", action="store_true", help="skip the real-photo report")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--minutes", type=float, default=None, help="hard time limit")
    ap.add_argument("--out", type=Path, required=True, help="run folder (weights, log)")
    ap.add_argument("--init", type=Path, default=None, help="start from these weights (fine-tune)")
    ap.add_argument("--bank-seed", type=int, default=None, help="seed of the render bank")
    ap.add_argument("--extra", type=Path, default=None,
                    help="also train on these crops (.npz from models.table_crops: x, y)")
    ap.add_argument("--extra-share", type=share, default=0.5,
                    help="share of each batch drawn from --extra (default 0.5)")
    ap.add_argument("--init-onnx", type=Path, default=None,
                    help="start from a classifier ONNX file (e.g. the shipped one)")
    ap.add_argument("--no-colour-norm", action="store_true",
                    help="feed crops as they are (the old models); default: each crop's colour "
                         "normalised by its own white (vision.crops.normalize_colour)")
    ap.add_argument("--wide-colours", type=share, default=0.6,
                    help="share of printings with each colour's hue drawn over its whole range")
    ap.add_argument("--fonts", type=share, default=0.0,
                    help="share of printings with digits in OpenCV's vector fonts (models.crops.train_params)")
    ap.add_argument("--typefaces", type=share, default=0.0,
                    help="share of printings with digits in TrueType faces (models.crops.TYPEFACES)")
    ap.add_argument("--box-turn", type=share, default=0.0,
                    help="share of crops whose box is turned 8-35 degrees off the card, as the "
                         "recognizer's turn search reads them (models.crops.BOX_TURN)")
    ap.add_argument("--keystone", type=share, default=0.0,
                    help="share of crops of a card seen at a strong slant, its far side narrowed "
                         "(models.crops.KEYSTONE), cut along its rectangle box as the detector boxes it")
    ap.add_argument("--frame-cut", type=share, default=0.0,
                    help="share of crops of a card the frame's edge hides 10-50%% of, the box the whole "
                         "card grown past the edge as the recognizer reads it (models.crops.FRAME_CUT)")
    ap.add_argument("--glare-band", type=share, default=0.0,
                    help="share of crops crossed by a lamp's glare, a band burnt towards white "
                         "(models.crops.GLARE_WIDTH, GLARE_STRENGTH)")
    ap.add_argument("--shake", type=share, default=0.0,
                    help="share of crops smeared by a hand's shake along a line 3-15%% of the card's "
                         "height long (models.crops.SHAKE)")
    ap.add_argument("--outliers", type=share, default=0.0,
                    help="share of each batch of crops with no card (a room, a bare table: "
                         "models.crops.not_a_card), trained towards no class at all (their "
                         "softmax towards uniform, outlier exposure), so that a box on no card "
                         "is read unsurely")
    ap.add_argument("--outlier-weight", type=float, default=OUTLIER_WEIGHT,
                    help="how much the no-card crops' pull towards no class counts beside the "
                         "cards' own loss (--outliers; 0 to 5)")
    ap.add_argument("--mirror", type=share, default=0.0,
                    help="share of crops mirrored left to right, named as the card printed (a laptop "
                         "camera's selfie view saves a card held up to it so)")
    ap.add_argument("--cover-p", type=share, default=0.3, help="share of crops with a card over them")
    ap.add_argument("--cover-max", type=share, default=0.75, help="most of a card covered")
    ap.add_argument("--cut-p", type=share, default=0.15, help="share of crops cut by the frame")
    ap.add_argument("--cut-max", type=share, default=0.15, help="most of a card cut off")
    ap.add_argument("--real-train", default="",
                    help="real sets to train on (models.real_cards.SETS, comma list or 'all')")
    ap.add_argument("--real-val", default=None,
                    help="real sets reported after each epoch (default: every set not trained on)")
    ap.add_argument("--real-share", type=share, default=0.25,
                    help="share of each batch drawn from the --real-train cards")
    args = ap.parse_args(argv)
    if not 0 <= args.outlier_weight <= 5:
        ap.error(f"--outlier-weight {args.outlier_weight}: must be between 0 and 5")
    norm = not args.no_colour_norm
    real_train = parse_sets(args.real_train)
    from models.real_cards import SETS

    real_val = (
        parse_sets(args.real_val) if args.real_val is not None
        else [n for n in SETS if n not in real_train]
    )

    import torch
    import torch.nn.functional as F

    t0, rng, textures = start_run(args)
    # real cards: trained on (cut out, then augmented like renders) and reported (whole path
    # of the held-out sets is measured by models.evaluate; here the classifier alone)
    real_cards = [(CLASSES.index(rc.card), rc, img) for rc, img in load_cutouts(real_train)]
    val_sets = {}
    if not args.no_real:
        for name in real_val:
            cuts = load_cutouts([name])
            check_disjoint([rc for _, rc, _ in real_cards], [rc for rc, _ in cuts])
            xs = [crop_from_quad(img[..., :3], [[0, 0], [img.shape[1], 0],
                                                [img.shape[1], img.shape[0]], [0, img.shape[0]]])
                  for _, img in cuts]
            val_sets[name] = (to_input(xs, norm), np.array([CLASSES.index(rc.card) for rc, _ in cuts]),
                              [rc.file for rc, _ in cuts])
    bank_seed = args.seed + 1 if args.bank_seed is None else args.bank_seed
    bank = render_bank(bank_seed, args.bank, wide=args.wide_colours, fonts=args.fonts,
                       faces=args.typefaces)
    covers = [art for _, art in bank[:: max(1, len(bank) // 300)]]
    val_bank = render_bank(args.seed + 2, args.val_per_class, progress=False,
                           wide=args.wide_colours)
    vrng = np.random.default_rng(args.seed + 3)
    val_x = to_input([synth_crop(vrng, art, textures) for _, art in val_bank], norm)
    val_y = np.array([ci for ci, _ in val_bank])
    (args.out / "train_args.json").write_text(json.dumps(
        {**{k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
         "colour": "white-ref-v1" if norm else None,
         "real_trained_on": {n: DESIGN[n] for n in real_train},
         "real_train_files": [f"{rc.set}/{rc.file}" for _, rc, _ in real_cards],
         "real_reported": list(val_sets)}, indent=2))
    extra_x = extra_y = None
    if args.extra is not None:
        data = np.load(args.extra)
        extra_x, extra_y = data["x"], data["y"]
        print(f"extra: {len(extra_y)} table crops from {args.extra}", flush=True)
    print(f"bank {len(bank)} renders, val {len(val_y)} crops, {time.time() - t0:.0f}s", flush=True)

    net = build_net()
    if args.init is not None:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    elif args.init_onnx is not None:
        crng = np.random.default_rng(args.seed + 4)
        calib = [synth_crop(crng, bank[int(i)][1], textures) for i in crng.integers(len(bank), size=256)]
        calib += [synth_crop(crng, img, textures) for _, _, img in real_cards[:: max(1, len(real_cards) // 64)]]
        load_onnx_weights(net, args.init_onnx, to_input(calib, norm))
    steps_per_epoch = args.per_epoch // args.batch
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    total_steps = args.epochs * steps_per_epoch
    warmup = min(200, total_steps // 10)

    def set_lr(step: int) -> None:
        # linear warm-up, then cosine to zero at the last planned step
        if step < warmup:
            lr = args.lr * (step + 1) / warmup
        else:
            t = min(1.0, (step - warmup) / max(1, total_steps - warmup))
            lr = args.lr * 0.5 * (1 + np.cos(np.pi * t))
        for g in opt.param_groups:
            g["lr"] = lr

    def evaluate(x, y):
        net.eval()
        with torch.no_grad():
            logits = torch.cat(
                [net(torch.from_numpy(x[i : i + 256])) for i in range(0, len(x), 256)]
            )
            # the card's 180-degree twin: average both readings, as the runtime does
            xf = np.ascontiguousarray(x[:, :, ::-1, ::-1])
            logits = logits.softmax(1) + torch.cat(
                [net(torch.from_numpy(xf[i : i + 256])) for i in range(0, len(xf), 256)]
            ).softmax(1)
        net.train()
        pred = logits.argmax(1).numpy()
        return float((pred == y).mean()), pred

    best = -1.0
    history = []
    deadline = t0 + args.minutes * 60 if args.minutes else None
    step = 0
    epoch = 0
    while epoch * steps_per_epoch < total_steps:
        te = time.time()
        erng = np.random.default_rng([args.seed, epoch])
        total_loss = 0.0
        for _ in range(steps_per_epoch):
            n_extra = int(round(args.batch * args.extra_share)) if extra_x is not None else 0
            n_real = int(round(args.batch * args.real_share)) if real_cards else 0
            idx = erng.integers(len(bank), size=args.batch - n_extra - n_real)
            crops = [synth_crop(erng, bank[i][1], textures, covers, args.cover_p, args.cover_max,
                                 args.cut_p, args.cut_max, box_turn=args.box_turn, keystone=args.keystone,
                                 frame_cut=args.frame_cut, glare_band=args.glare_band, shake=args.shake)
                     for i in idx]
            labels = [bank[i][0] for i in idx]
            for i in erng.integers(len(real_cards), size=n_real):
                ci, rc, img = real_cards[i]
                if erng.random() < 0.5:
                    img = recolour(img, rc.card.split("-")[0], erng)
                crops.append(synth_crop(erng, img, textures, covers, args.cover_p, args.cover_max,
                                        args.cut_p, args.cut_max, box_turn=args.box_turn, keystone=args.keystone,
                                        frame_cut=args.frame_cut, glare_band=args.glare_band, shake=args.shake))
                labels.append(ci)
            if args.mirror > 0:  # a selfie view's card, named as printed (0 draws nothing)
                crops = [np.ascontiguousarray(c[:, ::-1]) if erng.random() < args.mirror else c for c in crops]
            if n_extra:
                for i in erng.integers(len(extra_y), size=n_extra):
                    crops.append(_jitter(erng, extra_x[i]))
                    labels.append(int(extra_y[i]))
            n_out = int(round(args.batch * args.outliers))
            if n_out:  # after the mirror: a room has no way round (0 draws nothing)
                crops += [not_a_card(erng, textures, args.shake) for _ in range(n_out)]
            xb = to_input(crops, norm)
            yb = torch.tensor(labels)
            logits = net(torch.from_numpy(xb))
            loss = F.cross_entropy(logits[: len(labels)], yb, label_smoothing=0.05)
            if n_out:
                loss = loss + args.outlier_weight * uniform_loss(logits[len(labels):])
            set_lr(step)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total_loss += float(loss.detach())
        val_acc, _ = evaluate(val_x, val_y)
        real_right, misses = {}, []
        for name, (rx, ry, rnames) in val_sets.items():
            _, rpred = evaluate(rx, ry)
            real_right[name] = f"{int((rpred == ry).sum())}/{len(ry)}"
            misses += [f"{name}/{rnames[i]}->{CLASSES[rpred[i]]}"
                       for i in np.nonzero(rpred != ry)[0]]
        rec = {
            "epoch": epoch,
            "loss": round(total_loss / steps_per_epoch, 4),
            "synthetic_val": round(val_acc, 4),
            "real_right": real_right,
            "seconds": round(time.time() - te, 1),
            "misses": misses[:30],
        }
        history.append(rec)
        print(json.dumps(rec), flush=True)
        best = keep_checkpoint(net, args.out, val_acc, best)
        if deadline and epoch == 0:
            total_steps = fit_epochs(deadline, te, args.epochs) * steps_per_epoch
        epoch += 1
        if deadline and time.time() > deadline + 600:
            print("time limit overrun, stopping", flush=True)
            break
    summary = {
        "seconds": round(time.time() - t0, 1),
        "epochs_run": len(history),
        "per_epoch": args.per_epoch,
        "bank_renders": len(bank),
        "crops_seen": len(history) * steps_per_epoch * args.batch,
        "best_synthetic_val": best,
        "seed": args.seed,
        "history": history,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
