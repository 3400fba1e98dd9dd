"""Still photos saved mirrored (a laptop camera's selfie view): a card held up to it shows its
digits backwards. The classifier is trained on mirrored crops named as printed (since the
twenty-fifth session), so most are named as they are; where every face is still read unsurely
the photo is read again mirrored (`CardRecognizer(mirror=True)`, on for photos, MIRROR_BELOW),
and the card is named and boxed where it is in the photo as given."""

import numpy as np
import pytest

from models.held import held_scene, room
from vision.recognizer import CardRecognizer
from vision.render import random_params, render_card


@pytest.fixture(scope="module")
def photos():
    return CardRecognizer.default(photos=True)


@pytest.fixture(scope="module")
def no_mirror():
    return CardRecognizer.default(photos=True, mirror=False)


def _held_up(face: str) -> tuple[np.ndarray, np.ndarray]:
    """A 2020s card held up to a webcam before a room (`models.held`): the photo and its quad."""
    rng = np.random.default_rng(len(face))
    art = render_card(face, height=400, rng=rng, params=random_params(rng, "2020s"))
    return held_scene(rng, art)


def test_still_photos_try_the_mirror_and_the_table_does_not():
    assert CardRecognizer.default(photos=True).mirror
    assert not CardRecognizer.default().mirror  # a table camera looking down is never a selfie view


@pytest.mark.parametrize("face", ["green-5", "yellow-2", "red-7", "red-reverse", "yellow-4"])
def test_a_mirrored_photo_of_a_held_up_card_is_named_and_boxed_where_the_card_is(face, photos):
    img, quad = _held_up(face)
    mirrored = np.ascontiguousarray(img[:, ::-1])
    (d,) = photos.recognize(mirrored)
    assert d.card == face
    x0, x1 = img.shape[1] - quad[:, 0].max(), img.shape[1] - quad[:, 0].min()
    assert abs(d.box[0] - x0) < 0.1 * (x1 - x0) and abs(d.box[2] - x1) < 0.1 * (x1 - x0)
    assert min(x for x, _ in d.quad) == pytest.approx(d.box[0], abs=1)


def test_a_photo_as_taken_is_not_read_mirrored(photos, no_mirror):
    for face in ("green-5", "red-7", "blue-9"):
        img, _ = _held_up(face)
        plain = photos.recognize(img)
        assert plain == no_mirror.recognize(img)
        assert plain[0].card == face and not plain[0].mirrored and "mirrored" not in plain[0].to_json()


def test_rooms_without_a_card_give_no_face_mirrored_or_not(photos):
    rng = np.random.default_rng(31)
    for _ in range(12):
        img = np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8)
        assert not [d for d in photos.recognize(img) if d.card != "back" and d.confidence >= 0.25]


def test_a_photo_of_card_backs_only_gives_no_face_mirrored_or_not(photos):
    from models.evaluate import bad_frames

    rng = np.random.default_rng(717171)  # `models evaluate --only bad`'s draws: read mirrored, 4 faces
    for _ in range(5):
        backs = dict(bad_frames(rng))["backs_only"]
        found = photos.recognize(backs)
        assert found and all(d.card == "back" and not d.mirrored for d in found)


def test_a_photo_read_unsurely_is_read_again_mirrored_and_kept_only_when_surer(photos, monkeypatch):
    """The rule itself, whatever the classifier reads: the photo as given reads a face at 0.5;
    mirrored, a face MIRROR_MARGIN surer is kept and boxed in the photo as given, and one
    less sure is not."""
    from vision.recognizer import MIRROR_MARGIN
    from vision.types import CardDetection

    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :20] = 255  # a white strip at the left: the mirrored image has it at the right
    for mirrored_sure, kept in ((0.5 + MIRROR_MARGIN + 0.01, True), (0.5 + MIRROR_MARGIN - 0.05, False)):
        def once(image, own, sure=mirrored_sure):
            as_given = image[0, 0, 0] == 255
            face = "red-2" if as_given else "red-5"
            return [CardDetection(face, 0.5 if as_given else sure, (30.0, 10.0, 70.0, 90.0))], {}

        monkeypatch.setattr(photos, "_recognize_once", once)
        (d,) = photos.recognize(img)
        assert (d.card, d.mirrored) == (("red-5", True) if kept else ("red-2", False))
        assert d.box == ((130.0, 10.0, 170.0, 90.0) if kept else (30.0, 10.0, 70.0, 90.0))


def test_a_mirrored_reading_naming_the_same_face_is_kept_when_surer_at_all(photos, monkeypatch):
    """The margin keeps a mirrored reading from changing a face: one that names the same
    face (a slanted selfie-view card read 0.81 in its region's outline, 0.98 mirrored) is kept
    when surer by less, and one naming another face at the same sureness is not."""
    from vision.recognizer import MIRROR_MARGIN
    from vision.types import CardDetection

    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :20] = 255
    surer = 0.8 + MIRROR_MARGIN / 2
    for mirrored_face, kept in (("red-7", True), ("red-1", False)):
        def once(image, own, face=mirrored_face):
            as_given = image[0, 0, 0] == 255
            return [CardDetection("red-7" if as_given else face, 0.8 if as_given else surer, (30.0, 10.0, 70.0, 90.0))], {}

        monkeypatch.setattr(photos, "_recognize_once", once)
        (d,) = photos.recognize(img)
        assert (d.card, d.confidence, d.mirrored) == (("red-7", surer, True) if kept else ("red-7", 0.8, False))
