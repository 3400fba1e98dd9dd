"""The search's time without the small grid (the thirty-seventh session's search) and with it
(shipped): 20 no-card 640x480 frames (10 rooms, 10 bare tables: every grid runs), 3 of them at
4032x3024; and 20 held-up renders the detector is made to give no box (the first grid finds
most; the others run only where it finds none). Medians of one pass each, in turn.
python models/eval/issue13/s38/time_search.py"""
import time

import cv2
import numpy as np

from models.held import held_scene, room
from models.scenes import make_table
from vision import search as vs
from vision.recognizer import CardRecognizer
from vision.render import ALL_FACES, random_params, render_card

rng = np.random.default_rng(36)
empty = [np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8) for _ in range(10)]
empty += [make_table(rng, 480, 640).astype(np.uint8) for _ in range(10)]
held = [held_scene(rng, render_card(c, height=400, rng=rng, params=random_params(rng, "2010s")))[0] for c in ALL_FACES[:20]]
big = [cv2.resize(f, (4032, 3024)) for f in empty[:3]]
small = vs.small_windows
rec = CardRecognizer.default(photos=True)
for name, frames, box in (("no card 640x480", empty, True), ("held up, no box", held, False),
                          ("no card 4032x3024", big, True)):
    for stage in ("detect", "detect_tiled"):
        if box:
            rec.__dict__.pop(stage, None)
        else:
            setattr(rec, stage, lambda image, timings=None: [])
    for grids in ("no small grid", "shipped", "no small grid", "shipped"):
        vs.small_windows = small if grids == "shipped" else (lambda h, w: [])
        ms, s, named = [], [], 0
        for f in frames:
            t = time.perf_counter()
            found, tm = rec.recognize_timed(f)
            ms.append((time.perf_counter() - t) * 1e3)
            s.append(tm.get("search", 0.0))
            named += bool(found)
        print(f"{name:18} {grids:13}: photo median {np.median(ms):6.0f} ms, search median "
              f"{np.median(s):5.0f} ms, max {max(s):5.0f} ms; a card in {named} of {len(frames)}", flush=True)
