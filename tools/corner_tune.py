"""Rendered overlaps of a tuning seed (777: not the model card's 515151): every detection's
whole-card reading, its two corners' readings and (`with_grown`) each face's best over those
and the corners of the whole cards the box may be the uncovered end of
(`CardRecognizer._corner_faces`), beside the truth, as JSON, for choosing
`vision.recognizer.CORNER_BELOW` / `CORNER_SURE` by replaying rules over them.

    python tools/corner_tune.py models/card_corner.onnx OUT.json [SEED]
"""
import json
import sys

import numpy as np

from models.evaluate import _iou, overlap_scene
from vision.recognizer import CardRecognizer


def main() -> None:
    corner, out = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 777
    rec = CardRecognizer.default(photos=True, corner_path=None)
    reader = CardRecognizer.default(photos=True, corner_path=corner)
    classes = reader._corner[2]
    rows = []
    for share in (0.3, 0.5, 0.7):
        rng = np.random.default_rng([seed, int(share * 100)])
        for n in range(60):
            img, below, q1, top, q2, _ = overlap_scene(rng, share)
            for d in rec.recognize(img):
                ious = (_iou(d.quad, q1), _iou(d.quad, q2))
                truth = (below, top)[int(np.argmax(ious))] if max(ious) >= 0.3 else None
                p = reader.corner_readings(img, [np.float32(d.quad)])[0]
                (both,) = reader._corner_faces(img, [np.float32(d.quad)])
                rows.append({"share": share, "scene": n, "truth": truth, "below": below,
                             "whole": [(c, round(v, 4)) for c, v in d.candidates[:3]],
                             "corners": [[(classes[j], round(float(r[j]), 4)) for j in np.argsort(-r)[:3]] for r in p],
                             "with_grown": [(classes[j], round(float(both[j]), 4)) for j in np.argsort(-both)[:3]]})
    with open(out, "w") as f:
        json.dump(rows, f)
    print(f"{len(rows)} detections -> {out}")


if __name__ == "__main__":
    main()
