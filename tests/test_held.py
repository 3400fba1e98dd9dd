"""One card held up to a webcam before a room (models.held, `python -m models evaluate --only
held`): the scene puts the card where its quad says, a seed draws the same scene, and the
photos' path names a card so held."""

import cv2
import numpy as np

from models.held import held_scene
from vision.render import random_params, render_card


def _card(seed: int = 3, face: str = "blue-7") -> np.ndarray:
    rng = np.random.default_rng(seed)
    return render_card(face, height=400, rng=rng, params=random_params(rng, "2020s"))


def test_a_held_card_lies_in_its_quad_and_a_seed_draws_the_same_scene():
    art = _card()
    img, quad = held_scene(np.random.default_rng(11), art)
    again, quad_again = held_scene(np.random.default_rng(11), art)
    assert img.shape == (480, 640, 3) and img.dtype == np.uint8
    assert np.array_equal(img, again) and np.allclose(quad, quad_again)
    other, _ = held_scene(np.random.default_rng(12), art)
    assert not np.array_equal(img, other)
    # the card's white border and face are inside its quad: its middle looks like the card's
    # middle, not like the room around it
    inside = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(inside, [np.int32(quad)], 1)
    assert inside.sum() > 0.1 * inside.size  # at least 45% of the frame's height: a big card
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    ring = cv2.dilate(inside, np.ones((25, 25), np.uint8)) - inside
    assert abs(grey[inside > 0].mean() - grey[ring > 0].mean()) > 1.0


def test_the_photos_path_names_a_card_held_up_before_a_room():
    from vision.recognizer import CardRecognizer

    rec = CardRecognizer.default(photos=True, threads=1)
    named = 0
    faces = ["red-3", "green-8", "yellow-skip", "blue-draw2", "wild"]
    for k, face in enumerate(faces):
        img, _ = held_scene(np.random.default_rng(100 + k), _card(k, face))
        found = rec.recognize(img)
        best = max(found, key=lambda d: d.detector_confidence or 0.0) if found else None
        named += best is not None and best.card == face
    assert named >= 4, f"{named} of {len(faces)} held-up cards named"
