"""Every held-up photo (`models evaluate --only held`, seed 818181, plain and mirrored) and
every edge photo (`--only edge`, seed 616161) read as given and read mirrored, the mirror
read itself off (`CardRecognizer(mirror=False)`): the surest card each way, to choose
MIRROR_BELOW and MIRROR_MARGIN (vision/recognizer.py; models/README.md, twenty-second session).

    python tools/mirror_reads.py OUT_DIR          # writes mirror_reads_held.json, mirror_reads_edge.json
    python tools/mirror_reads.py OUT_DIR --cost   # writes mirror_cost.json: ms a read with and
        # without the mirror (fastest of 3): empty photos, a held-up card as taken and mirrored
"""

import json
import sys
import time
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


def cost(out: Path) -> None:
    from models.held import room
    from models.scenes import make_table
    from vision.recognizer import CardRecognizer
    from vision.render import random_params, render_card

    readers = {"without": CardRecognizer.default(photos=True, tiles=True, mirror=False),
               "with": CardRecognizer.default(photos=True, tiles=True)}
    rng = np.random.default_rng(5)
    img, _ = held_scene(rng, render_card("red-7", height=400, rng=rng, params=random_params(rng, "2020s")))
    frames = {"empty 4032x3024 table": make_table(rng, 3024, 4032).astype(np.uint8),
              "empty 640x480 room": np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8),
              "held-up card 640x480": img, "held-up card mirrored": np.ascontiguousarray(img[:, ::-1])}
    figures = {}
    for name, frame in frames.items():
        row = {}
        for k, rec in readers.items():
            times = []
            for _ in range(3):
                t = time.perf_counter()
                found = rec.recognize(frame)
                times.append((time.perf_counter() - t) * 1e3)
            row[f"{k} mirror: ms"] = round(min(times), 1)
            row[f"{k} mirror: read"] = [d.card for d in found]
        figures[name] = row
    (out / "mirror_cost.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures, indent=1))


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    if "--cost" in sys.argv[2:]:
        cost(out)
        return
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
