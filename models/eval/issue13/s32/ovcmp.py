"""Two `models evaluate --only overlap,overlap-real` JSON files side by side: covered recall and
precision (table scenes: F1, readable recall, precision), rows that differ marked.

    python models/eval/issue13/s32/ovcmp.py BEFORE.json AFTER.json
"""

import json
import sys


def rows(d: dict) -> dict:
    out = {}
    parts = {"renders": d["overlap"], **d["overlap_real"]}
    for name, f in parts.items():
        for k in ("30%", "50%", "70%", "fan"):
            out[(name, k)] = (f[k]["recall_covered"], f[k]["precision"])
        t = f["table"]
        out[(name, "table")] = (t["f1"], t["recall_readable"], t["precision"])
    return out


a, b = (rows(json.load(open(f))) for f in sys.argv[1:3])
for k, v in a.items():
    print(k, v, "->", b.get(k), "" if v == b.get(k) else "  <--")
