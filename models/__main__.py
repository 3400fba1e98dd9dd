"""`python -m models VERB ...`: the card-model pipeline in one place.

Verbs (each has its own --help):
  render            write a contact sheet of all 54 faces and the back in one look
  build-dataset     synthetic table photos with YOLO oriented-box labels
  train-detector    train the card detector (ultralytics, from a .yaml, offline)
  train-classifier  train the 55-way face classifier on rendered crops
  train-corner      train the corner reader (a card named by its corner index) and
                    export it (--export WEIGHTS) to models/card_corner.onnx
  export            write models/card_detector.onnx and models/card_classifier.onnx
  evaluate          real photos, unseen renders, synthetic mAP, ms per stage
  deck-proof        the figures of `uno-table deck` (model card, "Deck enrolment")
  deck-tune         fine-tune the whole classifier on one enrolled deck (torch; a laptop)
  deck-detector     fine-tune the table's detector on one enrolled deck (ultralytics; a laptop)
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

VERBS = {
    "build-dataset": "models.build_dataset",
    "train-detector": "models.train_detector",
    "train-classifier": "models.train_classifier",
    "train-corner": "models.train_corner",
    "export": "models.export",
    "evaluate": "models.evaluate",
    "deck-proof": "models.deck_proof",
    "deck-tune": "models.deck_tune",
    "deck-detector": "models.deck_detector",
}


def _render(argv: list[str]) -> int:
    import cv2

    from vision.render import LOOKS, contact_sheet

    ap = argparse.ArgumentParser(
        prog="python -m models render",
        description="Write a contact sheet of all faces and the back.",
    )
    ap.add_argument("--look", choices=LOOKS, default="2010s")
    ap.add_argument("--height", type=int, default=200, help="card height in pixels")
    ap.add_argument("--seed", type=int, default=None, help="random printings from this seed")
    ap.add_argument("--out", type=Path, required=True, help="output image (.png)")
    args = ap.parse_args(argv)
    if not cv2.imwrite(str(args.out), contact_sheet(args.look, args.height, args.seed)):
        print(f"cannot write {args.out}", file=sys.stderr)
        return 2
    print(args.out)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    verb, rest = argv[0], argv[1:]
    if verb == "render":
        return _render(rest)
    if verb not in VERBS:
        print(
            f"unknown verb {verb!r}; expected one of: render, {', '.join(VERBS)}", file=sys.stderr
        )
        return 2
    return importlib.import_module(VERBS[verb]).main(rest)


if __name__ == "__main__":
    sys.exit(main())
