"""Bare tables read as cards: procedural cloths (`models.scenes.make_table`) with no card on
them, where any face reported is made up (issue 13, bad input; models/README.md, twenty-sixth
session).

    python tools/bare_tables.py still LO HI [--classifier F]   # still photos, no detector box
    python tools/bare_tables.py game LO HI                      # the table, no mat, idle 2 s
    python tools/bare_tables.py reveal SEED,SEED,...            # the table, then a hand revealed

`still`: each cloth as a 640x480 photo the detector finds nothing in, so the whole image is
read as one card (`CardRecognizer(whole_image=True)`). `game`: each cloth as the simulated
table's surface with no mat (the default zones), 40 frames through the whole pipeline; a
discard or a reveal reported is made up. `reveal`: the same, then four cards revealed; the
last reveal must be that hand, and no discard reported.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def still(lo: int, hi: int, classifier: str | None) -> int:
    from models.scenes import make_table
    from vision.recognizer import CardRecognizer

    photos = CardRecognizer.default(photos=True, classifier_path=classifier)
    photos.detect = lambda image, timings=None: []
    named = 0
    for seed in range(lo, hi):
        img = make_table(np.random.default_rng(seed), 480, 640).astype(np.uint8)
        found = [(d.card, round(d.confidence, 2)) for d in photos.recognize(img)]
        if found:
            named += 1
            print(seed, found, flush=True)
    print(f"{named} of {hi - lo} bare tables read as a card (still photos, whole image)", flush=True)
    return 0


def _table(seed: int):
    from models.scenes import make_table
    from vision.sim import SimTable

    table = SimTable(seed=seed, mat=False)
    # before its first frame, which draws the cards over it
    table.background = make_table(np.random.default_rng(seed), table.height, table.width).astype(np.uint8)
    return table


def _reports(pipe, table) -> list[tuple[str, list[str]]]:
    from vision.frame import Frame

    pipe.new_table()
    n, out = 0, []
    while table.pending:
        img, truth = table.next_frame()
        n += 1
        for o in pipe.process(Frame(n, n / table.fps, img, None, truth)).observations:
            if o.type in ("discard", "reveal"):
                out.append((o.type, sorted(c.card for c in o.cards)))
    return out


def game(lo: int, hi: int) -> int:
    from vision.config import VisionConfig
    from vision.pipeline import VisionPipeline

    pipe = VisionPipeline(VisionConfig())
    made_up = 0
    for seed in range(lo, hi):
        table = _table(seed)
        table.idle(2.0)
        reports = _reports(pipe, table)
        if reports:
            made_up += 1
            print(seed, reports, flush=True)
    print(f"{made_up} of {hi - lo} bare tables with a discard or reveal reported", flush=True)
    return 0


def reveal(seeds: list[int]) -> int:
    from vision.config import VisionConfig
    from vision.pipeline import VisionPipeline
    from vision.render import ALL_FACES

    pipe = VisionPipeline(VisionConfig())
    right = made_up = 0
    for seed in seeds:
        table = _table(seed)
        rng = np.random.default_rng(seed + 1000)
        hand = sorted(ALL_FACES[int(i)] for i in rng.integers(len(ALL_FACES), size=4))
        table.idle(1.0)
        table.reveal(hand)
        table.idle(2.0)
        reports = _reports(pipe, table)
        reveals = [cards for kind, cards in reports if kind == "reveal"]
        ok = bool(reveals) and reveals[-1] == hand
        discards = [cards for kind, cards in reports if kind == "discard"]
        right += ok
        made_up += bool(discards) or any(c not in hand for cards in reveals for c in cards)
        print(seed, "hand", hand, "reports", reports, "right" if ok else "WRONG", flush=True)
    print(f"{right} of {len(seeds)} hands reported right; {made_up} with a made-up card", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="kind", required=True)
    s = sub.add_parser("still")
    s.add_argument("lo", type=int)
    s.add_argument("hi", type=int)
    s.add_argument("--classifier", default=None)
    g = sub.add_parser("game")
    g.add_argument("lo", type=int)
    g.add_argument("hi", type=int)
    r = sub.add_parser("reveal")
    r.add_argument("seeds", type=lambda t: [int(x) for x in t.split(",")])
    args = ap.parse_args(argv)
    if args.kind == "still":
        return still(args.lo, args.hi, args.classifier)
    if args.kind == "game":
        return game(args.lo, args.hi)
    return reveal(args.seeds)


if __name__ == "__main__":
    sys.exit(main())
