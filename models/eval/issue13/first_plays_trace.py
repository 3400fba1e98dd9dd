"""Why the candidate classifier misses the first plays of the seed-3 game (issue 13).

Runs the rendered game of `vision.evaluate --plays 200 --seed 3` with the candidate for 141
frames and prints, at frames 120, 137 and 141, the discard tracker's learnt card size (the
median of `DiscardTracker._sizes`) and the cards `_card_sized` keeps; then what each model
reads in the zone crops of frame 120 (the empty pile: the mat's printed outline).

    PYTHONPATH=. python models/eval/issue13/first_plays_trace.py
"""

import statistics

import numpy as np

import vision.tracker as T
from vision.config import OnnxDetectorConfig, VisionConfig
from vision.frame import Frame
from vision.pipeline import VisionPipeline
from vision.recognizer import DETECTOR_FILE, PACKAGE_MODELS, CardRecognizer
from vision.sim import SimTable, random_script

C = "models/candidates/card_classifier_issue13.onnx"  # removed in the fourth session: `git show ccd15fa:models/candidates/card_classifier_issue13.onnx > FILE`
orig = T.DiscardTracker._card_sized


def cs(self, dets):
    out = orig(self, dets)
    if cur[0] in (120, 137, 141):
        print(
            cur[0],
            "sizes median",
            round(statistics.median(self._sizes), 1) if self._sizes else None,
            "n",
            len(self._sizes),
            "in",
            [(d.card, round(T.pose_of(d).size)) for d in dets],
            "kept",
            [d.card for d in out],
        )
    return out


T.DiscardTracker._card_sized = cs
cur = [0]
table = SimTable(seed=3, fps=20.0, mat=True, faces=None)
random_script(table, 200, seed=3)
pipe = VisionPipeline(VisionConfig(detector=OnnxDetectorConfig(classifier_path=C)))
for n in range(1, 142):
    cur[0] = n
    image, truth = table.next_frame()
    res = pipe.process(Frame(n, n / 20.0, image, None, truth))
    if n == 120:
        img120 = image.copy()
        regions = pipe._regions(pipe.tracker.zones, image.shape, None)
print("regions", regions)
for name, rec in [
    ("shipped", CardRecognizer.default()),
    ("cand", CardRecognizer(PACKAGE_MODELS / DETECTOR_FILE, C)),
    ("shipped-no2nd", CardRecognizer.default(second_look=False)),
    ("cand-no2nd", CardRecognizer(PACKAGE_MODELS / DETECTOR_FILE, C, second_look=False)),
]:
    for x0, y0, x1, y1 in regions:
        print(
            name,
            (x0, y0),
            [
                (
                    d.card,
                    round(d.confidence, 2),
                    round(d.detector_confidence or 0, 2),
                    [round(v) for v in d.box],
                )
                for d in rec.recognize(img120[y0:y1, x0:x1])
            ],
        )
    print(
        name,
        "raw detect discard crop",
        [
            (round(s, 2), np.round(q.mean(0)))
            for q, s in rec.detect(
                img120[regions[0][1] : regions[0][3], regions[0][0] : regions[0][2]]
            )
        ],
    )
