"""A still photo's crops are each read both ways round (the crop and its half-turn, the
classifier's probabilities averaged): a card leaning back hard or crossed by a lamp's glare
reads differently upside down (`vision.recognizer.BOTH_TURNS_PHOTOS`). The table's live
frames are read once a crop: their frame budget."""

import numpy as np
import pytest

from models.crops import _glare_band
from models.held import held_scene
from vision.recognizer import CardRecognizer
from vision.render import random_params, render_card


@pytest.fixture(scope="module")
def readers():
    photos = CardRecognizer.default(photos=True)
    once = CardRecognizer.default(photos=True, both_turns=False)
    return photos, once


def _half_turn(img: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The image turned half round and the quad with it."""
    h, w = img.shape[:2]
    return np.ascontiguousarray(img[::-1, ::-1]), np.float32([w - 1, h - 1]) - quad  # pixel centres


@pytest.mark.parametrize("seed,card,design", [(9, "yellow-1", "classic"), (11, "green-6", "2020s")])
def test_a_photos_crop_is_read_as_the_mean_of_both_turns(readers, seed, card, design, monkeypatch):
    import vision.crops

    photos, once = readers
    assert photos.both_turns and not once.both_turns
    rng = np.random.default_rng(seed)
    img, _ = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, design)))
    found = once.recognize(img)
    assert found and found[0].quad is not None
    quad = np.float32(found[0].quad)
    # a lamp's glare across it: the two turns read it apart
    band = _glare_band(np.random.default_rng(seed), quad, float(np.linalg.norm(quad[1] - quad[2])), img.shape[:2])
    img = np.clip(img * (1 - band) + 255 * band, 0, 255).astype(np.uint8)
    n = len(once.classes)
    fed = []
    batch = vision.crops.classifier_batch
    monkeypatch.setattr(vision.crops, "classifier_batch", lambda crops, *a: fed.append(crops) or batch(crops, *a))
    both = dict(photos.classify_top(img, [quad], n)[0])
    (crop, turned_crop), = fed  # the crop and its exact half-turn, one batch
    assert np.array_equal(turned_crop, crop[::-1, ::-1])
    monkeypatch.undo()
    up = dict(once.classify_top(img, [quad], n)[0])
    turned, turned_quad = _half_turn(img, quad)
    down = dict(once.classify_top(turned, [turned_quad], n)[0])
    # the image turned (its crop resampled a little apart) reads near the crop turned: the
    # mean of both lies far nearer the two's mean than either reading alone
    apart = max(abs(up[c] - down[c]) for c in once.classes)
    assert apart > 0.05
    assert max(abs(both[c] - (up[c] + down[c]) / 2) for c in once.classes) < apart / 4


def test_the_tables_frames_are_read_once_a_crop():
    assert not CardRecognizer.default().both_turns
