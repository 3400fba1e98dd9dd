"""Named totals per kind, and the real sets' part, of `tools/held_stress.py` JSON files.

    python models/eval/issue13/s31/tally.py F.json [F.json ...]
"""

import json
import sys


def named(per_set: dict) -> tuple[int, int]:
    """(all named, the real sets' named) of one kind's figures."""
    every = real = 0
    for name, figures in per_set.items():
        if not isinstance(figures, dict) or "named" not in figures:
            continue
        right = int(figures["named"].split("/")[0])
        every += right
        real += 0 if name.startswith("renders") else right
    return every, real


for path in sys.argv[1:]:
    kinds = json.loads(open(path).read())
    print(path, {kind: "{} (real {})".format(*named(v)) for kind, v in kinds.items()})
