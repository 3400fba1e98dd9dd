"""A still photo's reading time with and without the search: 40 no-card frames (20 rooms, 20
bare tables: where it runs), then 40 held-up photos the detector boxes (where it does not),
two passes each; and 12 MP (4032x3024) no-card frames. python data/s36/time_search.py"""
import time

import cv2
import numpy as np

from models.held import held_scene, room
from models.scenes import make_table
from vision.recognizer import CardRecognizer
from vision.render import ALL_FACES, random_params, render_card

rng = np.random.default_rng(36)
empty = [np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8) for _ in range(20)]
empty += [make_table(rng, 480, 640).astype(np.uint8) for _ in range(20)]
held = [held_scene(rng, render_card(c, height=400, rng=rng, params=random_params(rng, "2010s")))[0] for c in ALL_FACES[:40]]
big = [cv2.resize(f, (4032, 3024)) for f in empty[:3]]
for name, frames in (("no card 640x480", empty), ("held up, boxed", held), ("no card 4032x3024", big)):
    for search in (False, True):
        rec = CardRecognizer.default(photos=True, search=search)
        for p in range(2):
            ms, s = [], []
            for f in frames:
                t = time.perf_counter()
                _, tm = rec.recognize_timed(f)
                ms.append((time.perf_counter() - t) * 1e3)
                s.append(tm.get("search", 0.0))
            print(f"{name:20} search={search!s:5} pass {p}: median {np.median(ms):6.0f} ms, mean {np.mean(ms):6.0f} ms, "
                  f"search stage median {np.median(s):5.0f} ms, searched {sum(v > 0 for v in s)} of {len(frames)}", flush=True)
