"""A trial: the corner reader also reads the index corners of the whole cards a box cut by
the image's edge may be part of (`_cut_card_shapes`), where their centre lies in the image.
Imported, it patches vision.recognizer.CardRecognizer._corner_faces."""

import numpy as np

import vision.recognizer as R


def _corner_faces(self, image, quads):
    from vision.crops import corner_quads, crop_from_quad, white_reference

    h, w = image.shape[:2]
    frame = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    corners, whites, owner = [], [], []
    for n, q in enumerate(quads):
        white = white_reference(crop_from_quad(image, q))
        shown = list(corner_quads(q)) + [
            c for g in R._covered_card_shapes(q) for c in corner_quads(g) if R._centre_in(q, c)
        ] + [c for g in R._cut_card_shapes(image, q) for c in corner_quads(g) if R._centre_in(frame, c)]
        corners += shown
        whites += [white] * len(shown)
        owner += [n] * len(shown)
    p = self._read_patches(image, corners, whites)[:, :-1]
    owner = np.asarray(owner)
    return [p[owner == n].max(axis=0) for n in range(len(quads))]


R.CardRecognizer._corner_faces = _corner_faces
