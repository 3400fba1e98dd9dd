"""`python -m models deck-tune NAME`: fine-tune the whole card classifier on one deck.

`uno-table deck fit` adapts the generic classifier with a linear head on its frozen
features: seconds, on a Pi. For a deck whose design the generic features cannot tell apart
(a party edition's thin digits: 92% of its held-back augmentations), this command, for a
laptop with torch (`pip install -e '.[train]'`), trains every layer of a copy of the generic
classifier on the same crops the fit learns from (`vision.decks.fit.deck_crops`: the
enrolled cards cut as the table camera will see them, table scenes boxed by the table's own
detector, rendered backs) and writes it into the deck's classifier as the deck's reading,
behind a gate made as the fit's but on the tuned network's own features: a card of another
deck, or under another light, is still read by the generic classifier as it is, and the
generic network runs only on such crops (`onnxgraph.tuned_deck_model`), so a table of this
deck costs one network a crop. The deck's folder, loaded by `--deck NAME` as before, then
works on a Pi too (the file is ONNX: no torch at run time).

Run `uno-table deck fit NAME` first (its settings are reused); fitting again
replaces the tuned reading with the head.
"""

from __future__ import annotations

import argparse
import io
import sys
import time

import numpy as np

from vision.crops import CLASSES, crop_whites
from vision.decks import fit as deck_fit
from vision.decks import onnxgraph, store
from vision.decks.learn import classifier_feed, classifier_input, session
from vision.decks.store import DeckError

# Table scenes a card the network learns from, as the fit's. 18 read the held-back scene crops
# (a busy pile's) a little better (warm print 95.3% -> 95.9%, party deck 97.2% -> 97.7%), but
# the party deck's network then read a classic skip its gate keeps as a 6 (models/README.md,
# deck section, fifteenth session).
SCENES = 6
FREEZE = 0


def frozen_part(net, blocks: int):
    """The first `blocks` convolution blocks of `net` (build_net: each ends in a max-pool), as
    the modules to keep as they are."""
    import torch

    if blocks <= 0:
        return []
    ends = [i for i, m in enumerate(net) if isinstance(m, torch.nn.MaxPool2d)]
    if blocks > len(ends):
        raise DeckError(f"--freeze {blocks}: the classifier has {len(ends)} blocks")
    return list(net)[: ends[blocks - 1] + 1]


def _train(net, x: np.ndarray, y: np.ndarray, held: np.ndarray, held_y: np.ndarray, epochs: int, lr: float,
           batch: int, seed: int, bar, frozen: list | None = None) -> list[float]:
    """Adam on every layer but the `frozen` modules (their norms kept in eval mode: they stay
    the generic network's function), its rate annealed (cosine), shuffled each epoch; the
    held-back top-1 after each epoch."""
    import torch

    torch.manual_seed(seed)
    frozen = frozen or []
    for m in frozen:
        m.requires_grad_(False)
    opt = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=lr)
    steps = epochs * -(-len(x) // batch)
    # annealed to zero: the last epochs settle instead of wandering at the full rate
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    scores = []
    for epoch in range(epochs):
        net.train()
        for m in frozen:
            m.eval()
        for i, b in enumerate(torch.randperm(len(xt)).split(batch)):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(xt[b]), yt[b])
            loss.backward()
            opt.step()
            sched.step()
            bar.update(len(b))
            if i % 20 == 0:
                bar.set_postfix(epoch=epoch + 1, loss=f"{loss.item():.3f}")
        scores.append(_top1(net, held, held_y))
        bar.set_postfix(epoch=epoch + 1, held_back=f"{scores[-1]:.4f}")
    net.eval()
    return scores


def _logits(net, x: np.ndarray) -> np.ndarray:
    import torch

    net.eval()
    with torch.no_grad():
        return torch.cat([net(torch.from_numpy(x[i:i + 512])) for i in range(0, len(x), 512)]).numpy()


def _top1(net, x: np.ndarray, y: np.ndarray) -> float:
    return round(float((_logits(net, x).argmax(axis=1) == y).mean()), 4) if len(y) else float("nan")


def _onnx_of(net, crop_hw: tuple[int, int]):
    """The network as an ONNX model (in memory), batch size free."""
    import onnx
    import torch

    buf = io.BytesIO()
    torch.onnx.export(net, torch.zeros(1, 3, *crop_hw), buf, input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    return onnx.load_from_string(buf.getvalue())


def tune(name: str, epochs: int = 4, lr: float = 3e-4, batch: int = 64, threads: int = 2,
         progress: bool = True, scenes: int | None = None, freeze: int = FREEZE) -> dict:
    """Fine-tune the classifier on deck NAME and write it into the deck's classifier (see
    the module doc). Returns the profile, with a "tuned" entry."""
    import torch
    from tqdm import tqdm

    from models.train_classifier import build_net, load_onnx_weights
    from vision.recognizer import CardRecognizer

    t0, cpu0 = time.perf_counter(), time.process_time()
    torch.set_num_threads(threads)
    folder = store.deck_dir(name)
    profile = store.read_json(folder / store.PROFILE_FILE)
    if profile is None or not (folder / store.MODEL_FILE).is_file():
        raise DeckError(f"deck {name!r} is not fitted: run `uno-table deck fit {name}` first")
    store.check_compatible(name, profile)
    frozen_part(build_net(len(CLASSES)), freeze)  # a bad --freeze said before minutes of work
    if profile.get("cards_sha256") != store.sha256(folder / store.CARDS_FILE):
        raise DeckError(f"deck {name!r}: cards.csv changed since the fit: run `uno-table deck fit {name}` again first")
    known = {f.name for f in deck_fit.FitSettings.__dataclass_fields__.values()}
    s = deck_fit.FitSettings(**{k: v for k, v in profile["settings"].items() if k in known})
    if not s.gate:
        raise DeckError(f"deck {name!r} was fitted with --no-gate: the tuned reading needs the gate "
                        "(another deck's cards must still be read by the generic model)")
    s.threads = threads
    if scenes is not None:  # the network learns more of a busy pile's crops than the fit's head needs
        s.scenes = scenes
    cards = store.read_cards(folder)
    photos = deck_fit._photos(folder, cards)
    generic = store.generic_classifier_path()
    rsess = session(onnxgraph.feature_model(generic)[0], threads)
    # the table scenes boxed as the table will box them: by the deck's own detector where it has one
    boxes = CardRecognizer.default(detector_path=store.deck_detector(name), threads=threads) if s.scenes else None
    crops = deck_fit.deck_crops(cards, photos, s, boxes)
    x = classifier_input(crops.train, rsess)
    y = (np.asarray(crops.train_y) // deck_fit.TURNS).astype(np.int64)  # both turns are the face
    held = classifier_input(crops.held, rsess) if crops.held else x[:0]
    held_y = np.asarray(crops.held_y, np.int64)
    net = build_net(len(CLASSES))
    calib = x[np.random.default_rng(s.seed).choice(len(x), min(256, len(x)), replace=False)]
    load_onnx_weights(net, generic, calibration=calib)
    start = _top1(net, held, held_y)
    with tqdm(total=epochs * len(x), unit="crop", file=sys.stderr, disable=not progress,
              desc=f"deck-tune {name}", dynamic_ncols=True) as bar:
        scores = _train(net, x, y, held, held_y, epochs, lr, batch, s.seed, bar, frozen_part(net, freeze))
    tuned = _onnx_of(net, tuple(x.shape[2:]))
    tuned.metadata_props.extend(onnxgraph.load(generic).metadata_props)  # its crops made as the generic's
    # the gate on the tuned network's own features: the deck's file then runs the generic
    # network only on the crops the gate sends it (onnxgraph.tuned_deck_model)
    tsess = session(onnxgraph.features_of(tuned), threads)
    gate = deck_fit.deck_gate(tsess, cards, photos, s, deck_fit.gate_augmentations(crops, s))
    out = folder / store.MODEL_FILE
    tmp = out.with_name(out.name + ".tuned")
    meta = {"deck": name, "deck_generic_sha256": profile["generic"]["sha256"], "deck_reading": "tuned",
            "deck_gate": "tuned-features"}
    onnxgraph.tuned_deck_model(generic, tmp, tuned, gate, meta)
    # the file must decide as the network and the gate do before it replaces the fit's
    check = session(tmp, threads)
    if crops.held:
        t_held, z_tuned = deck_fit._features(tsess, crops.held)
        z_generic = deck_fit._features(rsess, crops.held)[1]
        kept = gate.inside(t_held, crop_whites(crops.held))
        want = np.where(kept[:, None], z_tuned, z_generic)
        got = check.run(None, classifier_feed(crops.held, check))[0]
    else:
        want = got = np.zeros((0, len(CLASSES)), np.float32)
        kept = np.zeros(0, bool)
    if (np.asarray(got).argmax(axis=1) != want.argmax(axis=1)).mean() > 0.01:
        tmp.unlink(missing_ok=True)
        raise DeckError("the written tuned classifier does not reproduce the network (an unsupported graph?)")
    tmp.replace(out)
    held_top1 = round(float((np.asarray(got).argmax(axis=1) == held_y).mean()), 4) if len(held_y) else None
    scenes_top1, scenes_kept = None, None
    if crops.held_scenes:  # table scenes of their own: a busy pile's crops, never trained on
        z_scenes = check.run(None, classifier_feed(crops.held_scenes, check))[0]
        scenes_top1 = round(float((np.asarray(z_scenes).argmax(axis=1) == crops.held_scenes_y).mean()), 4)
        t_scenes = deck_fit._features(tsess, crops.held_scenes)[0]
        scenes_kept = round(float(gate.inside(t_scenes, crop_whites(crops.held_scenes)).mean()), 4)
    profile["tuned"] = {
        "epochs": epochs, "lr": lr, "batch": batch, "scenes": s.scenes, "frozen_blocks": freeze,
        "training_crops": int(len(x)),
        "held_back_top1_start": start, "held_back_top1_by_epoch": scores,
        "held_back_top1_gated": held_top1,
        "held_back_scenes_top1": scenes_top1,
        "held_back_scenes_inside": scenes_kept,
        # the gate on the tuned network's features: the generic network runs only on what it sends out
        "gate": "tuned-features", "held_back_inside": round(float(kept.mean()), 4) if len(kept) else None,
        "seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": round(time.process_time() - cpu0, 1),
        "tuned": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    store.write_json(folder / store.PROFILE_FILE, profile)
    return profile


def run_job(verb: str, job) -> dict | None:
    """`job()` (a deck's training: the profile it returns), or None after saying why not: the
    training packages missing, or what is wrong with the deck (`DeckError`)."""
    try:
        return job()
    except ImportError as exc:
        print(f"{verb} needs the training packages (pip install -e '.[train]'): {exc}", file=sys.stderr)
    except DeckError as exc:
        print(f"error: {exc}", file=sys.stderr)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models deck-tune", description=__doc__.split("\n\n")[0])
    ap.add_argument("name", help="a deck enrolled and fitted with `uno-table deck`")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--freeze", type=int, default=FREEZE,
                    help=f"leading convolution blocks kept as the generic classifier's, not tuned "
                         f"(default {FREEZE}: tune every layer)")
    ap.add_argument("--scenes", type=int, default=SCENES,
                    help=f"small table scenes per card to learn from, boxed by the table's detector (default {SCENES})")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.epochs < 1 or args.batch < 1 or not args.lr > 0 or args.scenes < 0 or args.freeze < 0:
        ap.error("--epochs and --batch must be at least 1, --lr above 0, --scenes and --freeze 0 or more")
    profile = run_job("deck-tune", lambda: tune(args.name, args.epochs, args.lr, args.batch, args.threads,
                                                 progress=not args.quiet, scenes=args.scenes, freeze=args.freeze))
    if profile is None:
        return 2
    t = profile["tuned"]
    print(f"deck {args.name}: held-back augmentations {t['held_back_top1_start']:.1%} -> "
          f"{t['held_back_top1_gated']:.1%} (by epoch: {', '.join(f'{v:.1%}' for v in t['held_back_top1_by_epoch'])}); "
          + (f"held-back scenes {t['held_back_scenes_top1']:.1%}; " if t.get("held_back_scenes_top1") is not None else "")
          + f"{t['training_crops']} crops, {t['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
