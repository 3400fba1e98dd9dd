"""Fanned hands of the tuning seed (9090: not the model card's 535353), read with each
`vision.recognizer.FAN_SURE` tried: recall of the covered cards and precision, for renders and
for the `real-cards-2010s-mit2` cut-outs; `--phantoms`: cards the walk makes up around a lone
card on 216 random tables (seed 4242), with each `FAN_BORDER` tried; `--time`: the still
photos' recognizer's time on fans with the walk and without it.

    python tools/fan_tune.py [--phantoms | --time]
"""
import sys
import time

import numpy as np

import vision.recognizer as recognizer
from models.evaluate import _recognizer, eval_fan, fan_scene, real_faces, render_on_table


def sweep() -> None:
    rec = _recognizer(None)
    faces = real_faces("mit2")
    for sure in (0.6, 0.7, 0.8, 0.9):
        recognizer.FAN_SURE = sure
        a, b = eval_fan(rec, seed=9090), eval_fan(rec, seed=9090, faces=faces)
        print(f"FAN_SURE {sure}: renders recall {a['recall_covered']} precision {a['precision']}; "
              f"mit2 recall {b['recall_covered']} precision {b['precision']}", flush=True)


def phantoms() -> None:
    from vision.render import ALL_FACES

    rec = _recognizer(None)
    for border in (0.0, recognizer.FAN_BORDER):
        recognizer.FAN_BORDER = border
        rng = np.random.default_rng(4242)
        made_up = sum(d.detector_confidence == 0.0 for _ in range(4) for card in ALL_FACES
                      for d in rec.recognize(render_on_table(rng, card, size=640)))
        print(f"FAN_BORDER {border}: {made_up} cards walked to around 216 lone cards", flush=True)


def timing() -> None:
    rng = np.random.default_rng(5)
    images = [fan_scene(rng)[0] for _ in range(20)]
    for label, rec in (("walk", _recognizer(None)), ("no walk", _recognizer(None, fans=False))):
        total, walk = [], []
        for im in images:
            t = time.perf_counter()
            rec.recognize(im)
            total.append((time.perf_counter() - t) * 1e3)
            walk.append(rec.last_timings.get("fans", 0.0))
        print(f"{label}: 640x480 fan photo, recognize median {np.median(total):.1f} ms "
              f"(p90 {np.percentile(total, 90):.1f}), walk median {np.median(walk):.1f} ms")


if __name__ == "__main__":
    {"--time": timing, "--phantoms": phantoms}.get(next(iter(sys.argv[1:]), ""), sweep)()
