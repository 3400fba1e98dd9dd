"""Bad input: frames with no face to read give no face (or `back`), never a made-up one."""

import numpy as np
import pytest

from models.evaluate import bad_frames


@pytest.fixture(scope="module")
def rec():
    """The shipped models (the classifier normalises each crop's colour by its own white)."""
    from vision.recognizer import CardRecognizer

    return CardRecognizer.default()


FRAMES = dict(bad_frames(np.random.default_rng(11)))


@pytest.mark.parametrize("kind", sorted(FRAMES))
def test_no_face_is_made_up(rec, kind):
    faces = [d for d in rec.recognize(FRAMES[kind]) if d.card != "back"]
    assert faces == [], [(d.card, round(d.confidence, 2)) for d in faces]


def test_the_bad_frames_are_what_they_say():
    assert FRAMES["black"].max() == 0
    assert FRAMES["overexposed"].min() >= 200
    assert set(FRAMES) == {"black", "dark_noise", "overexposed", "white_sheet", "bare_table",
                           "backs_only", "dim_table", "dim_backs"}
    assert FRAMES["dim_table"].max() < 0.3 * FRAMES["bare_table"].max() + 1


def test_a_tiny_or_flat_image_reads_as_nothing(rec):
    assert rec.recognize(np.zeros((8, 8, 3), np.uint8)) == []
    assert rec.recognize(np.full((720, 1280, 3), 128, np.uint8)) == []


def test_confidence_is_a_probability(rec):
    from vision.render import render_card

    art = render_card("red-7", height=300, seed=2)
    a = art[..., 3:4] / 255.0
    img = np.full((480, 480, 3), 90.0)
    img[90 : 90 + art.shape[0], 140 : 140 + art.shape[1]] = (
        art[..., :3] * a + img[90 : 90 + art.shape[0], 140 : 140 + art.shape[1]] * (1 - a)
    )
    dets = rec.recognize(img.astype(np.uint8))
    assert dets and all(0.0 <= d.confidence <= 1.0 for d in dets)
