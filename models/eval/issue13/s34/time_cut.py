"""ms per still photo with the cut-card grid (this session's `_cut_card_shapes`) and with the
one before it (loaded from a checkout of the previous commit, OLD), on `close` frames
(tools/held_stress.py), and the shapes tried per cut box.
From the repository root: python models/eval/issue13/s34/time_cut.py OLD_CHECKOUT"""

import importlib.util
import itertools
import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [".", "tools"]

import held_stress as hs  # noqa: E402

import vision.recognizer as R  # noqa: E402
from vision.recognizer import CardRecognizer  # noqa: E402

spec = importlib.util.spec_from_file_location("old_recognizer", Path(sys.argv[1]) / "vision" / "recognizer.py")
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)
NEW, OLD = R._cut_card_shapes, old._cut_card_shapes


def ms(call) -> float:
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1e3


imgs = [img for _, _, img, _ in itertools.islice(hs.photos("close"), 80)]
rec = CardRecognizer.default(photos=True)
rec.recognize(imgs[0])
res: dict = {}
for name, fn in (("before", OLD), ("grid", NEW), ("before", OLD), ("grid", NEW)):
    R._cut_card_shapes = fn
    res.setdefault(name, []).append(statistics.median(ms(lambda im=im: rec.recognize(im)) for im in imgs))
print("close: median ms per photo", {k: [round(v, 1) for v in vs] for k, vs in res.items()})
counts = {}
for name, fn in (("before", OLD), ("grid", NEW)):
    n = [len(fn(im, q)) for im in imgs for q, _ in rec.detect_tiled(im, {})]
    n = [k for k in n if k]
    counts[name] = (len(n), statistics.mean(n), max(n))
print("cut boxes, mean and most shapes tried per cut box:", counts)
