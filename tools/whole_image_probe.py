"""The still photos' whole-image fallback on its own (`CardRecognizer._whole_image`): the
detector is made to give no box, so every frame is read by the fallback alone.

    python tools/whole_image_probe.py [--frame-only] [--no-elsewhere]

Cards held up to a webcam before a room (`models.held.held_scene`, seed 919191: every cut-out
card of the three shared sets and 54 renders of each design): named right, wrong, or nothing;
then 200 rooms, 200 bare tables and 60 bad frames (`models.evaluate.bad_frames`) with no
card: frames where a face was made up. --frame-only: only the whole frame is read (the
fallback before the twenty-first session); --no-elsewhere: without the check that the face
is not read away from the card (models/README.md)."""

import argparse
import json
from collections import Counter

import numpy as np

import models.evaluate as ev
import vision.recognizer as vr
from models.held import held_scene, room
from models.scenes import make_table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frame-only", action="store_true")
    ap.add_argument("--no-elsewhere", action="store_true")
    args = ap.parse_args()
    if args.frame_only:
        vr.WHOLE_IMAGE_FILL = ()
    if args.no_elsewhere:
        vr.WHOLE_IMAGE_ELSEWHERE = 1.01
    rec = ev._recognizer(None, whole_image=True)
    rec.detect = lambda image, timings=None: []
    rng = np.random.default_rng(919191)
    sources = ev.held_sources(rng, ["mit", "mit2", "classic"])
    held: dict[str, Counter] = {}
    for src, card, art in sources:
        img, _ = held_scene(rng, art)
        d = rec.recognize(img)
        held.setdefault(src, Counter())["right" if d and d[0].card == card else "wrong" if d else "nothing"] += 1
    empty: Counter = Counter()
    for _ in range(200):
        for kind, img in (("room", np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8)),
                          ("table", make_table(rng, 480, 640).astype(np.uint8))):
            empty[f"{kind} frames"] += 1
            empty[f"{kind} faces made up"] += any(d.card != "back" for d in rec.recognize(img))
    for _ in range(10):
        for _, img in ev.bad_frames(rng):
            empty["bad frames"] += 1
            empty["bad faces made up"] += any(d.card != "back" for d in rec.recognize(img))
    print(json.dumps({"held_up": {k: dict(v) for k, v in held.items()}, "no_card": dict(empty)}, indent=1))


if __name__ == "__main__":
    main()
