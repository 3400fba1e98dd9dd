"""The first 40 `tilthard` photos (tools/held_stress.py) read by `uno-table detect` with the
code of an old checkout and of this one: which boxes moved (printed), and six of them side by
side, old left, new right (OUT.jpg).

    python models/eval/issue13/s34/outline_show.py OLD_CHECKOUT OUT.jpg
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, "tools")
import held_stress as hs  # noqa: E402

old, out = Path(sys.argv[1]), Path(sys.argv[2])
SHOW = (0, 4, 9, 24, 37, 39)
tmp = Path(tempfile.mkdtemp())
paths = []
for i, (src, card, img, _) in enumerate(hs.photos("tilthard")):
    if i >= 40:
        break
    paths.append(tmp / f"t{i:03d}_{src}_{card}.jpg")
    cv2.imwrite(str(paths[-1]), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
read = {}
for name, where in (("old", old), ("new", Path.cwd())):
    (tmp / name).mkdir()
    run = subprocess.run([sys.executable, "-m", "app.cli", "detect", "--json", "--save", str(tmp / name),
                          *map(str, paths)], cwd=where, capture_output=True, text=True, check=True)
    read[name] = [json.loads(line) for line in run.stdout.splitlines()]
for a, b in zip(read["old"], read["new"], strict=True):
    if [c["box"] for c in a["cards"]] != [c["box"] for c in b["cards"]]:
        print(Path(a["image"]).name, [(c["card"], round(c["confidence"], 2), [round(v) for v in c["box"]]) for c in a["cards"]],
              "->", [(c["card"], round(c["confidence"], 2), [round(v) for v in c["box"]]) for c in b["cards"]])
rows = []
for i in SHOW:
    name = paths[i].stem + ".annotated.jpg"
    rows.append(np.hstack([cv2.resize(cv2.imread(str(tmp / k / name)), (320, 240)) for k in ("old", "new")]))
grid = np.hstack([np.vstack(rows[:3]), np.vstack(rows[3:])])
cv2.imwrite(str(out), grid, [cv2.IMWRITE_JPEG_QUALITY, 80])
