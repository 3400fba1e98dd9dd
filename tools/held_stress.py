"""Cards held up beyond `models.held`'s ranges, one knob widened at a time, to find where the
still-photo path breaks (`python -m models evaluate --only held` reads them within them).

Kinds (each on top of `models.held.held_scene`, the same seed and cards as `--only held`):
  small     the card at arm's length: the whole frame shrunk to 35-70% in a room
  close     nearer than the frame: zoomed 1.3-1.8 times into the card (cut by the edges)
  sideways  the card held landscape or at 45 degrees
  tilt      leaning back: its far side narrowed 8-20% at each end
  tilthard  leaning back further: 20-35% at each end (the far side 30-60% of the near one)
  lowres    a 320x240 webcam, scaled up by the viewer
  shake     the hand or the laptop shakes: a straight smear of 10-25 px across the frame
  dim       a dim room: a tenth to a quarter of the light, the webcam's auto-exposure gaining
            it back up (to 60-90%) with the sensor's noise, heavy JPEG
  dark      the same room with the exposure held (no gain): the frame 20-45% as bright
  warm      a bulb's light the webcam's white balance left warm: blue at 45-65% of red, green at 70-85%
  cool      a cold daylight left blue: red at 60-80% of blue, green at 80-95%
  glare     a lamp's glare across the card, always and strong: a soft band burnt 50-90% white
  table     not held: the card lying on a table, photographed from a seat (the table's plane
            seen at a slant, its far edge 40-75% as wide as its near one), 960x720
  steep     `table`, the card itself leaning as in tilthard (a steep shot of a card lying
            near the lens, no room, no fingers)
  mix       a webcam as people meet it: two or three of the others at once, drawn for each
            card, at most one of each of `MIX_GROUPS` (tilt or sideways; small or close; dim
            or dark; warm or cool; glare; shake; lowres), so that what each knob alone is
            read through meets the others; `by_part` tallies each kind among them

Each real set is read by the classifier in `--folds` (a pattern with {set}: a fold that
never saw that set), renders by `--models` (default: the shipped files).

    python tools/held_stress.py tilthard,tilt --folds 'data/models/fRM3_{set}' --json OUT.json
    python tools/held_stress.py tilthard --no-outline     # without vision.outline
    python tools/held_stress.py tilthard --no-region      # the edges' outline only (no region_quad)
    python tools/held_stress.py dark --no-relight         # dark photos read as they are
    python tools/held_stress.py glare --no-deglare        # without vision.glare's reading
    python tools/held_stress.py mix --no-search           # without vision.search (no box: nothing)
    python tools/held_stress.py glare --seed 2            # other cards, other frames
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KINDS = ("small", "close", "sideways", "tilt", "tilthard", "lowres", "shake", "dim", "dark", "warm", "cool", "glare", "table",
         "steep", "mix")
# `mix`'s groups: at most one kind of each group, in this order (the card, its framing, the
# room's light, its colour, then the camera and the hand).
MIX_GROUPS = (("tilt", "sideways"), ("small", "close"), ("dim", "dark"), ("warm", "cool"), ("glare",), ("shake",),
              ("lowres",))


def mix_kinds(rng: np.random.Generator) -> list[str]:
    """Two or three of `MIX_GROUPS`' kinds, at most one a group, in the groups' order."""
    groups = sorted(rng.choice(len(MIX_GROUPS), size=int(rng.integers(2, 4)), replace=False))
    return [str(rng.choice(MIX_GROUPS[g])) for g in groups]


SEED = 818181  # `models.evaluate.eval_held`'s


def _art(rng: np.random.Generator, art: np.ndarray, kind: str) -> np.ndarray:
    """The card itself leaned back (tilt, tilthard) or turned (sideways), on a transparent
    canvas; other kinds: as it is."""
    ah, aw = art.shape[:2]
    if kind in ("tilt", "tilthard"):
        t = rng.uniform(*((0.08, 0.2) if kind == "tilt" else (0.2, 0.35)))
        src = np.float32([[0, 0], [aw, 0], [aw, ah], [0, ah]])
        if rng.random() < 0.5:  # the top away from the lens
            dst = np.float32([[aw * t, 0], [aw * (1 - t), 0], [aw, ah], [0, ah]])
        else:  # one side away
            dst = np.float32([[0, ah * t], [aw, 0], [aw, ah], [0, ah * (1 - t)]])
        if rng.random() < 0.5:
            dst = dst[[1, 0, 3, 2]] * [-1, 1] + [aw, 0]
        m = cv2.getPerspectiveTransform(src, np.float32(dst))
        return cv2.warpPerspective(art, m, (aw, ah), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    if kind == "sideways":
        ang = float(rng.choice([90, -90, 45, -45, 135]) + rng.normal(0, 8))
        d = int(np.hypot(ah, aw)) + 2
        m = cv2.getRotationMatrix2D((aw / 2, ah / 2), ang, 1.0)
        m[:, 2] += [(d - aw) / 2, (d - ah) / 2]
        return cv2.warpAffine(art, m, (d, d), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    return art


def _frame(rng: np.random.Generator, img: np.ndarray, kind: str) -> np.ndarray:
    """The whole frame shrunk into a room (small), zoomed into (close), seen at 320x240
    (lowres), smeared (shake), in a dim room (dim), underexposed (dark), under a light the
    white balance left warm or cool, or crossed by a lamp's glare (glare)."""
    from models.held import lamp_glare, room, smear

    h, w = img.shape[:2]
    if kind == "small":
        s = rng.uniform(0.35, 0.7)
        out = room(rng, h, w).clip(0, 255).astype(np.uint8)
        small = cv2.resize(img, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA)
        y, x = int(rng.uniform(0, h - small.shape[0])), int(rng.uniform(0, w - small.shape[1]))
        out[y:y + small.shape[0], x:x + small.shape[1]] = small
        return out
    if kind == "close":
        s = rng.uniform(1.3, 1.8)
        big = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
        y, x = int(rng.uniform(0, big.shape[0] - h)), int(rng.uniform(0, big.shape[1] - w))
        return big[y:y + h, x:x + w]
    if kind == "lowres":
        return cv2.resize(cv2.resize(img, (320, 240), interpolation=cv2.INTER_AREA), (w, h))
    if kind == "shake":  # as `models.held.held_scene`'s smear, longer
        return smear(img, int(rng.integers(10, 26)), rng.uniform(0, 180))
    if kind == "glare":
        return lamp_glare(rng, img)
    if kind in ("warm", "cool"):
        if kind == "warm":
            gains = [rng.uniform(0.45, 0.65), rng.uniform(0.7, 0.85), 1.0]
        else:
            gains = [1.0, rng.uniform(0.8, 0.95), rng.uniform(0.6, 0.8)]
        return np.clip(img.astype(np.float32) * np.float32(gains), 0, 255).astype(np.uint8)
    if kind in ("dim", "dark"):
        light = rng.uniform(0.1, 0.25) if kind == "dim" else rng.uniform(0.2, 0.45)
        out = img.astype(np.float32) * light
        out += rng.normal(0, rng.uniform(1.5, 3.0), out.shape).astype(np.float32)
        if kind == "dim":  # the auto-exposure's gain, the noise with it
            out *= rng.uniform(0.6, 0.9) / light
        _, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8),
                              [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 60))])
        return cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


def on_table(rng: np.random.Generator, art: np.ndarray, size=(960, 720)) -> np.ndarray:
    """`art` (BGRA) lying on a procedural table at any turn, photographed from a seat: the
    table's plane seen in perspective (its far part narrower and shorter), a phone's light,
    soft focus, noise and JPEG. BGR."""
    from models.evaluate import _paste
    from models.scenes import make_table

    w, h = size
    m = int(0.5 * w)  # the plane beyond the frame that the slant brings into view
    plane = make_table(rng, h + 2 * m, w + 2 * m).astype(np.float32)
    height = h * rng.uniform(0.3, 0.5)
    centre = np.float32([m + w / 2, m + h / 2]) + rng.uniform(-0.15, 0.15, 2) * [w, h]
    _paste(plane, art, centre, rng.uniform(0, 360), height)
    t = rng.uniform(0.12, 0.3)  # the far edge's inset, each end
    far = rng.uniform(0.15, 0.5) * h  # how much more of the table the top of the frame takes in
    src = np.float32([[m - t * w, m - far], [m + w + t * w, m - far], [m + w, m + h], [m, m + h]])
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    img = cv2.warpPerspective(plane, cv2.getPerspectiveTransform(src, dst), (w, h), flags=cv2.INTER_AREA)
    img *= np.float32(rng.uniform(0.85, 1.15, 3)) * rng.uniform(0.7, 1.1)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    img += rng.normal(0, 3, img.shape).astype(np.float32)
    _, enc = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8),
                          [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 92))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def photos(kind: str, renders: int = 54, seed: int = SEED):
    """The photos of one kind, drawn in order: (source set, card, BGR image, the kinds a
    `mix` photo combines or [])."""
    from models.evaluate import held_sources
    from models.held import held_scene

    rng = np.random.default_rng(seed)
    for src, card, art in held_sources(rng, ["mit", "mit2", "classic"], renders):
        parts: list[str] = []
        if kind in ("table", "steep"):
            img = on_table(rng, art if kind == "table" else _art(rng, art, "tilthard"))
        elif kind == "mix":
            parts = mix_kinds(rng)
            img, _ = held_scene(rng, _art(rng, art, parts[0]))  # only the card's group changes the art
            for k in parts:
                img = _frame(rng, img, k)
        else:
            img, _ = held_scene(rng, _art(rng, art, kind))
            img = _frame(rng, img, kind)
        yield src, card, img, parts


def fold_readers(folds: str | None, models: Path | None = None, **options):
    """A still-photo reader for each source set, each loaded once: a real set's from `folds`
    (a pattern with {set}: a fold that never saw it), renders' from `models` (None: the
    shipped files); `options` go to `CardRecognizer.default`."""
    from vision.recognizer import CardRecognizer

    recs: dict = {}

    def reader(src: str):
        folder = Path(folds.format(set=src)) if folds and src in ("mit", "mit2", "classic") else models
        if folder not in recs:
            recs[folder] = CardRecognizer.default(photos=True, folder=folder, tiles=True, **options)
        return recs[folder]

    return reader


def run(kind: str, folds: str | None, models: Path | None, outline: bool, renders: int,
        save: Path | None, relight: bool = True, seed: int = SEED, deglare: bool = True,
        search: bool = True) -> dict:
    from tqdm import tqdm

    from models.evaluate import _main_card

    reader = fold_readers(folds, models, outline=outline, relight=relight, deglare=deglare, search=search)
    stats: dict = {}
    by_part: dict = {}
    for i, (src, card, img, parts) in enumerate(tqdm(photos(kind, renders, seed), desc=kind, unit="card")):
        d = _main_card(reader(src).recognize(img))
        for k in parts:  # mix: how each kind fares among the others
            bp = by_part.setdefault(k, [0, 0])
            bp[0] += d is not None and d.card == card
            bp[1] += 1
        st = stats.setdefault(src, {"found": 0, "named": 0, "total": 0, "misses": Counter()})
        st["found"] += d is not None
        st["named"] += d is not None and d.card == card
        st["total"] += 1
        if d is None or d.card != card:
            st["misses"][f"{card} -> {d.card if d else 'none'}" + (f" ({'+'.join(parts)})" if parts else "")] += 1
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(save / f"{kind}_{i:03d}_{src.replace(' ', '-')}_{card}_{d.card if d else 'none'}.jpg"), img)
    out = {src: {"found": f"{v['found']}/{v['total']}", "named": f"{v['named']}/{v['total']}",
                 "misses": dict(v["misses"].most_common())} for src, v in stats.items()}
    if by_part:
        out["by_part"] = {k: f"{n}/{t}" for k, (n, t) in sorted(by_part.items())}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kinds", help=f"comma-separated: {', '.join(KINDS)}")
    ap.add_argument("--folds", help="the models folder for each real set, with {set} (mit, mit2, classic)")
    ap.add_argument("--models", type=Path, help="the models folder for renders (default: shipped)")
    ap.add_argument("--no-outline", action="store_true", help="read without vision.outline")
    ap.add_argument("--no-region", action="store_true",
                    help="read in the edges' outline only, not the region's (vision.outline.region_quad)")
    ap.add_argument("--no-relight", action="store_true", help="read dark or tinted photos as they are")
    ap.add_argument("--no-deglare", action="store_true", help="read photos without a lamp's glare taken off")
    ap.add_argument("--no-search", action="store_true", help="where no box is found, do not search the photo for a card")
    ap.add_argument("--renders", type=int, default=54, help="renders of each design (default 54)")
    ap.add_argument("--seed", type=int, default=SEED,
                    help=f"the cards' and frames' draws (default {SEED}, `--only held`'s; another seed "
                         "draws other cards and frames: a second sample of the same kind)")
    ap.add_argument("--save", type=Path, help="write each missed frame here")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        ap.error(f"unknown kind(s) {', '.join(bad)}; choose from {', '.join(KINDS)}")
    if args.no_region:  # the reading before the thirty-third session
        import vision.outline

        vision.outline.region_quad = lambda image, quad: None
    out = {}
    for kind in kinds:
        out[kind] = run(kind, args.folds, args.models, not args.no_outline, args.renders, args.save,
                        not args.no_relight, args.seed, not args.no_deglare,
                        not args.no_search)
        sets = {src: v for src, v in out[kind].items() if src != "by_part"}
        named = sum(int(v["named"].split("/")[0]) for v in sets.values())
        total = sum(int(v["named"].split("/")[1]) for v in sets.values())
        for src, v in sets.items():
            print(f"{kind:9s} {src:16s} found {v['found']:>6s} named {v['named']:>6s}  {v['misses'] or ''}")
        if "by_part" in out[kind]:
            print(f"{kind:9s} {'by kind':16s} " + ", ".join(f"{k} {v}" for k, v in out[kind]["by_part"].items()))
        print(f"{kind:9s} {'all':16s} named {named}/{total}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
