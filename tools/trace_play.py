"""What the classifier saw in a rendered game: the boxes read as some faces, drawn on the frame.

    python tools/trace_play.py --seed 4 --plays 200 --deck-look '2010s~-12+wear@warm' \
        --deck proof-2010sh-12_wear_warm-s1 --cards red-0,red-skip --out data/trace

Plays `python -m vision.evaluate`'s game (the same seed; give the game's own `--plays`: the
script queues every play before the first frame, so a shorter game renders other frames),
and for every detection read as one of `--cards` writes the frame's neighbourhood with the
box drawn (`NNN-CARD.png`) and prints its reading; then the game's mismatches. For tracing a
misread play: the box, the crop and the reading, not only the score.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--plays", type=int, required=True, help="the game's plays (as `vision.evaluate --plays`: a shorter game renders other frames)")
    ap.add_argument("--deck-look", default=None, help="as `vision.evaluate --deck-look`")
    ap.add_argument("--deck-seed", type=int, default=1)
    ap.add_argument("--deck", default=None, help="an enrolled deck to read with")
    ap.add_argument("--cards", required=True, help="comma list of faces whose boxes to save")
    ap.add_argument("--most", type=int, default=40, help="most boxes saved")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)

    from vision.annotate import annotate
    from vision.config import OnnxDetectorConfig
    from vision.crops import order_portrait
    from vision.evaluate import run_game
    from vision.recognizer import CardRecognizer

    wanted = {c.strip() for c in args.cards.split(",") if c.strip()}
    args.out.mkdir(parents=True, exist_ok=True)
    original = CardRecognizer.recognize_timed
    saved = 0

    def spy(self, image, *rest):
        nonlocal saved
        out, timings = original(self, image, *rest)
        for d in out:
            if d.card in wanted and saved < args.most:
                q = order_portrait(np.float32(d.quad))
                x0, y0 = np.maximum(q.min(axis=0) - 60, 0).astype(int)
                x1, y1 = (q.max(axis=0) + 60).astype(int)
                view = annotate(image, [d])[y0:y1, x0:x1]
                saved += 1
                cv2.imwrite(str(args.out / f"{saved:03d}-{d.card}.png"), cv2.resize(view, None, fx=2, fy=2))
                print(f"{saved:03d} {d.card} {d.confidence:.2f} candidates "
                      f"{[(c, round(p, 2)) for c, p in d.candidates[:3]]} quad {np.round(q, 1).tolist()}")
        return out, timings

    look = None
    if args.deck_look:
        from vision.decks.looks import DeckLook

        look = DeckLook.parse(args.deck_look, seed=args.deck_seed)
    CardRecognizer.recognize_timed = spy
    try:
        result = run_game(args.plays, args.seed, OnnxDetectorConfig(deck=args.deck), progress=False, deck_look=look)
    finally:
        CardRecognizer.recognize_timed = original
    print(f"{result['matched']}/{result['plays']} plays right; mismatches: {result['mismatches']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
