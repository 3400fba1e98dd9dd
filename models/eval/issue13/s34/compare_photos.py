"""Figure by figure, two `python -m models evaluate --json` files (timings left out):
python models/eval/issue13/s34/compare_photos.py A.json B.json"""

import json
import sys


def flat(d, path=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from flat(v, f"{path}/{k}")
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from flat(v, f"{path}[{i}]")
    else:
        yield path, d


a = dict(flat(json.load(open(sys.argv[1]))))
b = dict(flat(json.load(open(sys.argv[2]))))
diff = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b))
        if a.get(k) != b.get(k) and "time" not in k and "ms" not in k]
print(len(a), "figures;", len(diff), "differ")
for d in diff:
    print(d)
