"""The no-box table: every third held-up photo of each kind, the thirty-sixth session's search
(`before_third.json`: `nobox_kinds.json`'s every third photo) against the shipped two grids
(`t_a.json`, `t_b.json`): right / wrong / nothing, and right by set.
python models/eval/issue13/s37/subset_table.py models/eval/issue13/s37"""
import json
import sys
from collections import Counter
from pathlib import Path

d = Path(sys.argv[1])
before = json.loads((d / "before_third.json").read_text())
after = json.loads((d / "t_a.json").read_text()) | json.loads((d / "t_b.json").read_text())


def tally(rows):
    c = Counter(("right" if r["got"] == r["card"] else "wrong" if r["got"] else "nothing") for r in rows)
    by = Counter(r["src"] for r in rows if r["got"] == r["card"])
    return c["right"], c["wrong"], dict(sorted(by.items()))


for kind in before:
    if kind not in after:
        continue
    b, a = tally(before[kind]), tally(after[kind])
    print(f"{kind:9} of {len(after[kind])}: right {b[0]:3} -> {a[0]:3}, wrong {b[1]} -> {a[1]}; by set {b[2]} -> {a[2]}")
