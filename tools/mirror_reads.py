"""Every held-up photo (`models evaluate --only held`, seed 818181, plain and mirrored) and
every edge photo (`--only edge`, seed 616161) read as given and read mirrored, the mirror
read itself off (`CardRecognizer(mirror=False)`): the surest card each way, to choose
MIRROR_BELOW and MIRROR_MARGIN (vision/recognizer.py; models/README.md, twenty-second session).

    python tools/mirror_reads.py OUT_DIR     # writes mirror_reads_held.json, mirror_reads_edge.json
"""

import json
import sys
from pathlib import Path

import numpy as np

import models.evaluate as ev
from models.held import held_scene

SETS = ["mit", "mit2", "classic"]


def _both_ways(rec, photo):
    def read(img):
        d = ev._main_card(rec.recognize(img))
        return [d.card, round(d.confidence, 3)] if d else None

    return {"as_given": read(photo), "flipped": read(np.ascontiguousarray(photo[:, ::-1]))}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rec = ev._recognizer(None, mirror=False)
    rng = np.random.default_rng(818181)
    held = []
    for src, card, art in ev.held_sources(rng, SETS):
        img, _ = held_scene(rng, art)
        for kind, photo in (("plain", img), ("mirrored", np.ascontiguousarray(img[:, ::-1]))):
            held.append({"src": src, "card": card, "kind": kind, **_both_ways(rec, photo)})
    (out / "mirror_reads_held.json").write_text(json.dumps(held))
    rng = np.random.default_rng(616161)
    edge = [{"src": src, "card": card, "kind": kind, **_both_ways(rec, v)}
            for src, card, img in ev.edge_sources(rng, SETS) for kind, v in ev.edge_variants(rng, img)]
    (out / "mirror_reads_edge.json").write_text(json.dumps(edge))


if __name__ == "__main__":
    main()
