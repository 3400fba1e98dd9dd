"""From roll_probe.py's JSON: each region reading taken turned a quarter (surer than the
untouched shapes and at least 0.8), right or wrong, and its margin over them.
python models/eval/issue13/s33/roll_summary.py roll_probe.json"""

import json
import sys
from collections import Counter

log = json.load(open(sys.argv[1]))
tally = Counter()
for r in log:
    for t in r["tries"]:
        if len(t) < 2:
            continue
        plain = max(t[:-1], key=lambda x: x[1])
        turned = t[-1]
        if turned[1] > plain[1] and turned[1] >= 0.8:
            ok = turned[0] == r["card"]
            tally[(r["kind"], ok)] += 1
            print(
                r["kind"],
                r["i"],
                r["card"],
                "untouched",
                plain[0],
                round(plain[1], 2),
                "turned",
                turned[0],
                round(turned[1], 2),
                "right" if ok else "WRONG",
                "margin",
                round(turned[1] - plain[1], 2),
            )
print({f"{k} {'right' if ok else 'wrong'}": n for (k, ok), n in sorted(tally.items())})
