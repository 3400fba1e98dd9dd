"""Save walked corners' patches whose interior is mostly white (real composites, tuning seed)."""

import sys
from pathlib import Path

import cv2
import numpy as np

import models.evaluate as ev
import vision.recognizer as R

out = Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
orig = R.CardRecognizer._fan_neighbour
n = [0]


def spy(self, image, card, axis, white):
    got = orig(self, image, card, axis, white)
    if got is not None and got[2].max() >= R.FAN_SURE:
        pt = self._normalised_patches(image, [got[1]], [white])[0]
        band = max(1, int(round(R.FAN_BAND * pt.shape[0])))
        iw = R._white(pt)[band:, band:].mean()
        if iw > float(sys.argv[3]):
            face = self._corner[2][int(np.argmax(got[2]))]
            from vision.crops import corner_patch

            rawp = corner_patch(image, got[1])
            cv2.imwrite(
                str(out / f"{n[0]:03d}_{face}_{got[2].max():.2f}_iw{iw:.2f}.png"),
                np.hstack([pt, rawp]),
            )
            n[0] += 1
    return got


R.CardRecognizer._fan_neighbour = spy
folder = None if sys.argv[1] == "shipped" else Path(sys.argv[1])
rec = ev._recognizer(folder)
ev.eval_overlap_real(rec, ["mit", "mit2", "classic"], seed=9292)
