"""Why the one-grid trial (`grids.VARIANTS['all']`) lost photos the first grid found: the five
faces ranked surest and the face kept, the s36 grid against it.
python models/eval/issue13/s37/diag_lost.py KIND I [I ...]"""
import sys

sys.path.insert(0, "tools")
sys.path.insert(0, "models/eval/issue13/s37")
import grids
import held_stress as hs

import vision.search
from vision import search as vs

kind, idx = sys.argv[1], {int(v) for v in sys.argv[2:]}
reader = hs.fold_readers("data/models/fRM3_{set}", search=True)
orig_search = vs.search


def traced(h, w, read_top, read_face, backs=()):
    grid = vs.windows(h, w)
    read = read_top(grid)
    surest = {}
    for rect, (face, p) in zip(grid, read, strict=True):
        if p > surest.get(face, (-1.0, rect))[0]:
            surest[face] = (p, rect)
    ranked = sorted(surest.items(), key=lambda kv: -kv[1][0])[:5]
    print("   ranked", [(f, round(p, 2), round(r[1][1]), r[2]) for f, (p, r) in ranked])
    hit = orig_search(h, w, read_top, read_face, backs)
    print("   hit", hit and (hit[0], round(hit[1], 2), round(hit[2], 2), round(hit[3][1][1]), round(hit[3][2])))
    return hit


vision.search.search = traced
vs.wider_windows = lambda h, w: []
for i, (src, card, img, _) in enumerate(hs.photos(kind)):
    if i not in idx:
        continue
    rec = reader(src)
    rec.detect = lambda image, timings=None: []
    rec.detect_tiled = lambda image, timings=None: []
    for name in ("base", "all"):
        vs.windows = grids.VARIANTS[name]
        print(i, src, card, name)
        rec.recognize(img)
