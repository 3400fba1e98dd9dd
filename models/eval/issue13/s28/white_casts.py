"""The cast `vision.recognizer.white_balance` measures on the held-up probe's photos
(`tools/held_stress.py`, its seed and cards): the ratio of the strongest to the weakest
channel of each photo's white (`vision.crops.white_reference` of its `_sample`), for kinds
with no cast (`small`: a card at arm's length before a room; `tilt`) and under a bulb
(`warm`). Balancing every photo whose ratio is 1.3 or more would balance many with no cast:

    python models/eval/issue13/s28/white_casts.py small tilt warm
"""
import sys
from pathlib import Path

import numpy as np

root = Path(__file__).resolve().parents[4]
sys.path[:0] = [str(root), str(root / "tools")]
import held_stress as hs  # noqa: E402

from models.evaluate import held_sources  # noqa: E402
from models.held import held_scene  # noqa: E402
from vision.crops import white_reference  # noqa: E402
from vision.recognizer import _sample  # noqa: E402

for kind in sys.argv[1:]:
    rng = np.random.default_rng(hs.SEED)
    ratios = []
    for _src, _card, art in held_sources(rng, ["mit", "mit2", "classic"], 54):
        img, _ = held_scene(rng, hs._art(rng, art, kind))
        white = np.maximum(white_reference(_sample(hs._frame(rng, img, kind))), 1)
        ratios.append(white.max() / white.min())
    r = np.array(ratios)
    print(f"{kind}: {len(r)} photos, cast ratio 10/50/90%: {np.round(np.percentile(r, [10, 50, 90]), 2)}, "
          f"1.3 or more: {(r >= 1.3).sum()}, 1.5 or more: {(r >= 1.5).sum()}")
