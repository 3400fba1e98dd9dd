"""The model card's table from small_try.py's JSON: per kind and per set, named right before
(the thirty-seventh session's search: a photo the small grid kept a face in had none) and
after (shipped), and wrong. python models/eval/issue13/s38/subset_table.py JSON..."""
import json
import sys
from collections import defaultdict

for path in sys.argv[1:]:
    for kind, rows in json.load(open(path)).items():
        if kind == "nocard":
            print(f"{kind}: {len(rows)} frames, faces made up {sum(bool(r['faces']) for r in rows)}")
            continue
        by = defaultdict(lambda: [0, 0, 0, 0, 0])
        for r in rows:
            for key in (r["src"], "all"):
                b = by[key]
                b[0] += 1
                right = r["got"] == r["card"]
                b[1] += right and not r["third"]
                b[2] += right
                b[3] += bool(r["got"]) and not right and not r["third"]
                b[4] += bool(r["got"]) and not right
        print(kind, "  ".join(f"{k} {b[1]}->{b[2]}/{b[0]} (wrong {b[3]}->{b[4]})" for k, b in sorted(by.items())))
