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

from models.crops import CLASSES, crop_from_quad, synth_crop, to_input
from vision.render import BACK, random_params, render_back, render_card

REAL_PHOTOS = Path("/work/shared/data/real-cards-mit")


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


def render_bank(seed: int, per_class: int, height: int = 192, progress: bool = True):
    """Rendered printings of every class: list of (class index, BGRA art)."""
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    bank = []
    jobs = [(ci, k) for k in range(per_class) for ci in range(len(CLASSES))]
    for ci, k in tqdm(jobs, desc="render bank", disable=not progress, mininterval=5):
        look = ("2010s", "2010s", "classic", "2020s", None)[k % 5]
        p = random_params(rng, look)
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
    ap.add_argument("--extra-share", type=float, default=0.5,
                    help="share of each batch drawn from --extra (default 0.5)")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    from models.scenes import make_table

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    textures = [make_table(rng, 256, 256) for _ in range(args.textures)]
    bank = render_bank(args.seed + 1 if args.bank_seed is None else args.bank_seed, args.bank)
    val_bank = render_bank(args.seed + 2, args.val_per_class, progress=False)
    vrng = np.random.default_rng(args.seed + 3)
    val_x = to_input([synth_crop(vrng, art, textures) for _, art in val_bank])
    val_y = np.array([ci for ci, _ in val_bank])
    use_real = not args.no_real and (REAL_PHOTOS / "labels.csv").is_file()
    if use_real:
        real_x, real_y, real_names = load_real()
        real_x = to_input(real_x)
    extra_x = extra_y = None
    if args.extra is not None:
        data = np.load(args.extra)
        extra_x, extra_y = data["x"], data["y"]
        print(f"extra: {len(extra_y)} table crops from {args.extra}", flush=True)
    print(f"bank {len(bank)} renders, val {len(val_y)} crops, {time.time() - t0:.0f}s", flush=True)

    net = build_net()
    if args.init is not None:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
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
            idx = erng.integers(len(bank), size=args.batch - n_extra)
            crops = [synth_crop(erng, bank[i][1], textures) for i in idx]
            labels = [bank[i][0] for i in idx]
            if n_extra:
                for i in erng.integers(len(extra_y), size=n_extra):
                    crops.append(_jitter(erng, extra_x[i]))
                    labels.append(int(extra_y[i]))
            xb = to_input(crops)
            yb = torch.tensor(labels)
            loss = F.cross_entropy(net(torch.from_numpy(xb)), yb, label_smoothing=0.05)
            set_lr(step)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total_loss += float(loss.detach())
        val_acc, _ = evaluate(val_x, val_y)
        real_acc, real_pred, misses = float("nan"), None, []
        if use_real:
            real_acc, real_pred = evaluate(real_x, real_y)
            misses = [
                f"{real_names[i]}->{CLASSES[real_pred[i]]}"
                for i in np.nonzero(real_pred != real_y)[0]
            ]
        rec = {
            "epoch": epoch,
            "loss": round(total_loss / steps_per_epoch, 4),
            "synthetic_val": round(val_acc, 4),
            "real": round(real_acc, 4),
            "real_right": int((real_pred == real_y).sum()) if use_real else None,
            "seconds": round(time.time() - te, 1),
            "misses": misses,
        }
        history.append(rec)
        print(json.dumps(rec), flush=True)
        torch.save(net.state_dict(), args.out / "last.pt")
        if val_acc >= best:
            best = val_acc
            torch.save(net.state_dict(), args.out / "best.pt")
        if deadline and epoch == 0:
            # fit the schedule to the time limit once, from the first epoch's pace
            per_epoch_s = time.time() - te
            fit = int((deadline - time.time()) / per_epoch_s) + 1
            total_steps = max(1, min(args.epochs, fit)) * steps_per_epoch
            print(f"time limit: planning {total_steps // steps_per_epoch} epochs", flush=True)
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
