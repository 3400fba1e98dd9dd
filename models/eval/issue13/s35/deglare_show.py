"""Held-up photos crossed by a lamp's glare (`tools/held_stress.py glare`), each beside the
photo with the glare taken off (`vision.glare.deglared`), with what each reads (the fold that
never saw the photo's set). python models/eval/issue13/s35/deglare_show.py OUT.jpg [INDEX ...]"""

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "tools"))
import held_stress as hs  # noqa: E402

from models.evaluate import _main_card  # noqa: E402
from vision.glare import deglared  # noqa: E402

out, wanted = sys.argv[1], [int(v) for v in sys.argv[2:]] or [24, 28, 154, 216]
reader = hs.fold_readers("data/models/fRM3_{set}", deglare=False)
rows = []
for i, (src, card, img, _) in enumerate(hs.photos("glare")):
    if i not in wanted:
        continue
    pair = []
    for name, im in (("as given", img), ("glare taken off", deglared(img))):
        d = _main_card(reader(src).recognize(im))
        said = f"{d.card} {d.confidence:.2f}" if d else "nothing"
        vis = cv2.resize(im, (400, 300))
        cv2.rectangle(vis, (0, 0), (400, 26), (255, 255, 255), -1)
        cv2.putText(vis, f"{src} {card} | {name}: {said}", (4, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
        pair.append(vis)
        print(i, src, card, name, said, flush=True)
    rows.append(np.hstack(pair))
    if len(rows) == len(wanted):
        break
cv2.imwrite(out, np.vstack(rows), [cv2.IMWRITE_JPEG_QUALITY, 80])
