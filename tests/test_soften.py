"""A still photo still read unsurely (relit or not) is read again softened, as a camera's
noise reduction would (`vision.recognizer.SOFTEN_SIGMA`): a card held up in a dim room that
the webcam gained back up, noise and all."""

import json

import cv2
import numpy as np
import pytest

from models.evaluate import _main_card
from models.held import held_scene
from vision.recognizer import CardRecognizer
from vision.render import random_params, render_card


def _in_a_dim_room(seed: int, card: str, design: str, light: float, gained_to: float | None) -> np.ndarray:
    """A held-up card at `light` of the light, with the sensor's noise and heavy JPEG; the
    webcam's gain lifting it back to `gained_to` (None: the exposure held)."""
    rng = np.random.default_rng(seed)
    img, _ = held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, design)))
    noise = np.random.default_rng(seed).normal(0, 3.0, img.shape).astype(np.float32)
    out = img.astype(np.float32) * light + noise
    if gained_to is not None:
        out = out * (gained_to / light)
    _, enc = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 40])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def _gained(seed: int, card: str, design: str) -> np.ndarray:
    """At 12% of the light, gained back to 75% (as `tools/held_stress.py dim`)."""
    return _in_a_dim_room(seed, card, design, 0.12, 0.75)


@pytest.fixture(scope="module")
def photos():
    return CardRecognizer.default(photos=True)


@pytest.fixture(scope="module")
def unsoftened():
    # nor searched for where no box is found (vision.search, which names some of these too)
    return CardRecognizer.default(photos=True, soften=False, search=False)


# the seeds of the first 40 such renders whose card the detector boxes not at all as they are
@pytest.mark.parametrize(("seed", "card", "design"), [(3, "red-5", "classic"), (14, "yellow-7", "2020s"),
                                                      (28, "green-7", "2010s")])
def test_a_noisy_dim_photo_is_named_only_softened(photos, unsoftened, seed, card, design):
    img = _gained(seed, card, design)
    assert _main_card(unsoftened.recognize(img)) is None
    found = _main_card(photos.recognize(img))
    assert found is not None and found.card == card and found.confidence >= 0.9 and found.softened
    assert "soften" in photos.last_timings


def test_a_photo_read_surely_is_not_softened(photos):
    rng = np.random.default_rng(2)
    img, _ = held_scene(rng, render_card("blue-2", height=400, rng=rng, params=random_params(rng, "2010s")))
    found = photos.recognize(img)
    assert [d.card for d in found] == ["blue-2"] and not found[0].softened
    assert "soften" not in photos.last_timings


def test_detect_says_a_photo_was_read_softened(tmp_path, capsys):
    from app.cli import main

    path = tmp_path / "dim.jpg"
    cv2.imwrite(str(path), _gained(14, "yellow-7", "2020s"))
    assert main(["detect", "--json", str(path)]) == 0
    (card,) = json.loads(capsys.readouterr().out)["cards"]
    assert card["card"] == "yellow-7" and card["softened"] is True
    assert main(["detect", str(path)]) == 0
    assert "read softened" in capsys.readouterr().out


def test_a_dark_noisy_photo_is_lifted_then_softened_and_says_both(photos, unsoftened):
    """Lifting a dark photo lifts its noise too: relit, the card is still read unsurely and
    wrong, and softened after the lift it is named (the first such of 60 renders searched)."""
    img = _in_a_dim_room(54, "yellow-1", "classic", 0.15, None)  # the exposure held
    relit = _main_card(unsoftened.recognize(img))
    assert relit is not None and relit.relit and (relit.card != "yellow-1" or relit.confidence < 0.5)
    found = _main_card(photos.recognize(img))
    assert found.card == "yellow-1" and found.confidence >= 0.9
    assert found.softened and found.relit == relit.relit  # the gains of the lift kept with it
    assert {"relight", "soften"} <= set(photos.last_timings)
