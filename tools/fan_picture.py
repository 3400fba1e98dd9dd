"""A picture of fanned hands read with and without the walk by corner indices (models/README.md,
issue 13, twelfth session): real cards of a shared set cut out and fanned (`fan_scene`), the
still photos' recognizer with `fans` off (left) and on (right).

    python tools/fan_picture.py OUT.jpg [SET] [SEED]
"""
import sys

import cv2
import numpy as np

from models.evaluate import fan_scene, real_faces
from vision.annotate import annotate
from vision.recognizer import CardRecognizer


def main() -> None:
    out = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "mit"
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    faces = real_faces(name)
    rng = np.random.default_rng(seed)
    on, off = CardRecognizer.default(photos=True), CardRecognizer.default(photos=True, fans=False)
    rows = []
    for _ in range(2):
        img, picked, _ = fan_scene(rng, faces=faces)
        pair = []
        for label, rec in (("without the walk", off), ("walked by corner indices", on)):
            found = rec.recognize(img)
            got = sum(c in {d.card for d in found} for c in picked)
            pair.append(annotate(img, found, caption=f"{label}: {got}/{len(picked)} of the hand"))
        rows.append(np.hstack(pair))
    cv2.imwrite(out, cv2.resize(np.vstack(rows), None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA),
                [cv2.IMWRITE_JPEG_QUALITY, 80])
    print(out)


if __name__ == "__main__":
    main()
