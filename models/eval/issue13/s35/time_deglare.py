"""Time of a still photo's reading with and without the glare reading: the first 60 `glare`
photos (many read unsurely: read again) and the first 60 `table` photos (read surely: not),
two passes each, the shipped files. python models/eval/issue13/s35/time_deglare.py"""

import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tools"))
import held_stress as hs  # noqa: E402

from vision.glare import deglared  # noqa: E402
from vision.recognizer import CardRecognizer  # noqa: E402

readers = {"without": CardRecognizer.default(photos=True, tiles=True, deglare=False),
           "with": CardRecognizer.default(photos=True, tiles=True)}
for kind in ("glare", "table"):
    imgs = [photo[2] for photo in itertools.islice(hs.photos(kind), 60)]
    for p in range(2):
        for name, rec in readers.items():
            ms, stage = [], []
            for img in imgs:
                t0 = time.perf_counter()
                rec.recognize(img)
                ms.append((time.perf_counter() - t0) * 1e3)
                stage.append(rec.last_timings.get("deglare", 0.0))
            ran = [s for s in stage if s > 0]
            print(f"{kind} pass {p} {name:7s} median {np.median(ms):6.1f} ms, mean {np.mean(ms):6.1f} ms; "
                  f"read again deglared: {len(ran)} of {len(imgs)}, {np.mean(ran or [0]):.1f} ms each", flush=True)
t0 = time.perf_counter()
for _ in range(20):
    deglared(imgs[0])
print(f"deglared() alone, a {imgs[0].shape[1]}x{imgs[0].shape[0]} photo: {(time.perf_counter() - t0) / 20 * 1e3:.1f} ms")
