"""How well the whole path (detector, classifier, second looks) names number cards lying at
any angle: every number card, in the tests' own printing and in a random printing of each
design, pasted on a dark table at 12 turns and 2 sizes, read by `CardRecognizer.recognize`.

The renders figure of `python -m models evaluate` reads each face once, at one angle; this
reads each 24 times (3,840 reads in all). It found what that figure and the rendered games
did not: every classifier retrained in the twenty-second and twenty-third sessions reads our
own 7 as a 1 at some turns (9-61 of 960 sevens), the one shipped then once (models/README.md,
twenty-fourth session); the one shipped since the twenty-fifth session, trained on boxes turned
off their card, never.

    python tools/angle_probe.py OUT.json [CLASSIFIER.onnx ...]   # default: the shipped one
"""

import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

PRINTINGS = ("tests", "classic", "2010s", "2020s")  # "tests": render_card(seed=3), as tests/ draw
COLOURS = ("red", "yellow", "green", "blue")
TURNS = tuple(range(7, 360, 30))  # 7 degrees off upright and every 30 from there
SIZES = (120, 170)  # the card's long side in pixels (a table zone's cards run 110-190)
SEED = 2424


def on_table(face: np.ndarray, turn: float, long_side: float, side: int = 360) -> np.ndarray:
    """A rendered card (BGRA) pasted at the centre of a dark green table, turned `turn`
    degrees, `long_side` pixels long."""
    from vision.decks.looks import paste

    img = np.full((side, side, 3), (60, 90, 50), np.uint8)
    h, w = face.shape[:2]
    corners = cv2.boxPoints(((side / 2, side / 2), (long_side * w / h, long_side), turn))
    paste(img, face, corners[[1, 2, 3, 0]].astype(np.float32))  # boxPoints starts bottom-left
    return img


def faces(seed: int = SEED) -> list[tuple[str, str, np.ndarray]]:
    """(printing, card, BGRA art) for every number card of every printing."""
    from vision.render import random_params, render_card

    rng = np.random.default_rng(seed)
    out = []
    for printing in PRINTINGS:
        for colour in COLOURS:
            for n in range(10):
                card = f"{colour}-{n}"
                if printing == "tests":
                    art = render_card(card, height=220, seed=3)
                else:
                    art = render_card(card, height=220, rng=rng, params=random_params(rng, printing))
                out.append((printing, card, art))
    return out


def probe(rec, items) -> dict:
    """Each card read at every turn and size: right per printing, and what the misses read."""
    from tqdm import tqdm

    right: Counter = Counter()
    misses: Counter = Counter()
    for printing, card, art in tqdm(items, desc="cards", unit="card"):
        for turn in TURNS:
            for size in SIZES:
                found = rec.recognize(on_table(art, turn, size))
                named = max(found, key=lambda d: d.confidence).card if found else "none"
                right[printing] += named == card
                if named != card:
                    misses[f"{card} -> {named}"] += 1
    reads = len(TURNS) * len(SIZES) * len(COLOURS) * 10
    digits = Counter()
    for miss, k in misses.items():
        a, b = miss.split(" -> ")
        digits[f"{a.split('-')[-1]} -> {b.split('-')[-1]}"] += k
    return {
        "right": f"{sum(right.values())}/{reads * len(PRINTINGS)}",
        **{p: f"{right[p]}/{reads}" for p in PRINTINGS},
        "digit_misses": dict(digits.most_common(10)),
        "misses": dict(misses.most_common(12)),
    }


def main(argv: list[str]) -> None:
    from vision.recognizer import CardRecognizer

    out = Path(argv[0])
    items = faces()
    result = {"seed": SEED, "turns": list(TURNS), "sizes": list(SIZES), "classifiers": {}}
    for path in argv[1:] or [None]:
        name = str(path or "shipped")
        result["classifiers"][name] = probe(CardRecognizer.default(classifier_path=path or None), items)
        print(name, json.dumps({k: v for k, v in result["classifiers"][name].items() if k != "misses"}), flush=True)
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    if not sys.argv[1:]:
        sys.exit(__doc__)
    main(sys.argv[1:])
