"""How well a classifier names number cards whose digits are set in typefaces it never
trained on: a stand-in for a print nobody here has photographed (the held-out worn classic
deck's 2 read as a 6, its 9 as a 6; models/README.md, twenty-third session).

Each number card of each design is rendered once per typeface (the Liberation faces of
fonts-liberation, which no training here draws from: `models.crops.TYPEFACES` are
matplotlib's own), cut as a training crop is (`models.crops.synth_crop`: light, blur, noise,
JPEG, box jitter; nothing over it) and named by each classifier given, through the
recognizer's own `classify` (both turns averaged where the recognizer does so).

    python tools/typeface_probe.py OUT.json [CLASSIFIER.onnx ...]   # default: the shipped one
    python tools/typeface_probe.py OUT.json --corner [CORNER.onnx ...]  # the corner readers:
        # each crop's two index corners, the surer one's face (its "none" left out)

Our own strokes are probed first, as the baseline. Liberation is a Debian/Ubuntu package
(fonts-liberation); where it is missing only the strokes are probed, and the file says so.
"""

import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

LIBERATION = Path("/usr/share/fonts/truetype/liberation")
LOOKS = ("classic", "2010s", "2020s")
COLOURS = ("red", "yellow", "green", "blue")
SEED = 2323


def probe_faces() -> list[str]:
    """'' (our strokes) and every Liberation file here, sorted."""
    return [""] + sorted(str(p) for p in LIBERATION.glob("*.ttf"))


def crops(face: str, seed: int = SEED) -> list[tuple[str, str, np.ndarray]]:
    """(look, card, crop) for every number card of every design, its digits in `face`."""
    from models.crops import synth_crop
    from models.scenes import make_table
    from vision.render import random_params, render_card

    rng = np.random.default_rng(seed)
    textures = [make_table(rng, 256, 256) for _ in range(8)]
    out = []
    for look in LOOKS:
        for colour in COLOURS:
            for n in range(10):
                card = f"{colour}-{n}"
                p = random_params(rng, look)
                if face:
                    p = replace(p, typeface=face)
                art = render_card(card, height=int(rng.integers(170, 220)), rng=rng, params=p)
                out.append((look, card, synth_crop(rng, art, textures)))
    return out


def _whole(c: np.ndarray) -> np.ndarray:
    return np.float32([[0, 0], [c.shape[1], 0], [c.shape[1], c.shape[0]], [0, c.shape[0]]])


def _reader(path: str | None, corner: bool):
    """A function naming a crop as a whole card: the classifier, or the corner reader."""
    from vision.recognizer import CardRecognizer

    if not corner:
        rec = CardRecognizer.default(classifier_path=path)
        return lambda c: rec.classify(c, [_whole(c)])[0][0]
    rec = CardRecognizer.default(**({"corner_path": path} if path else {}))
    names = rec._corner[2]

    def name(c):
        p = rec.corner_readings(c, [_whole(c)])[0][:, :-1]  # "none" is last
        return names[int(np.unravel_index(p.argmax(), p.shape)[1])]
    return name


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    corner = "--corner" in argv[1:]
    models = [a for a in argv[1:] if a != "--corner"] or [None]
    readers = {str(m or "shipped"): _reader(m, corner) for m in models}
    faces = probe_faces()
    result: dict = {"seed": SEED, "reader": "corner" if corner else "classifier",
                    "liberation_found": len(faces) > 1, "faces": {}}
    totals = {name: Counter() for name in readers}
    for i, face in enumerate(faces):
        label = Path(face).stem if face else "our strokes"
        items = crops(face)
        row = {}
        for name, read in readers.items():
            named = [read(c) for _, _, c in items]
            per_look = {look: sum(n == card for (lk, card, _), n in zip(items, named, strict=True) if lk == look)
                        for look in LOOKS}
            misses = Counter(f"{card} -> {n}" for (_, card, _), n in zip(items, named, strict=True) if n != card)
            right = sum(per_look.values())
            row[name] = {"right": f"{right}/{len(items)}", **{lk: f"{v}/40" for lk, v in per_look.items()},
                         "misses": dict(misses.most_common(8))}
            if face:
                totals[name].update(right=right, total=len(items))
        result["faces"][label] = row
        print(f"[{i + 1}/{len(faces)}] {label}: " + ", ".join(f"{n} {r['right']}" for n, r in row.items()),
              flush=True)
    result["liberation_all"] = {n: f"{t['right']}/{t['total']}" for n, t in totals.items()}
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result["liberation_all"]))


if __name__ == "__main__":
    if not sys.argv[1:]:
        sys.exit(__doc__)
    main(sys.argv[1:])
