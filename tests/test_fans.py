"""Fanned hands on still photos: the cards that show only a strip with their corner index are
read by walking from the card on top (CardRecognizer._read_fans)."""

import numpy as np
import pytest

from vision.real_faces import shared_data
from vision.recognizer import FAN_SURE, CardRecognizer

MIT = shared_data() / "real-cards-mit"


def _fan(n: int, seed: int = 9090):
    """Fan n of the seed the walk's threshold was chosen on (the model card's is another)."""
    from models.evaluate import fan_scene

    rng = np.random.default_rng(seed)
    for _ in range(n + 1):
        scene = fan_scene(rng)
    return scene


@pytest.fixture(scope="module")
def photos():
    return CardRecognizer.default(photos=True)


@pytest.mark.parametrize("n", [0, 3])
def test_a_fanned_hand_is_read_by_the_corner_indices_its_strips_show(photos, n):
    img, picked, visible = _fan(n)
    assert max(visible[:-1]) < 0.5  # every card but the top one shows a strip only
    found = photos.recognize(img)
    assert set(picked) <= {d.card for d in found}
    walked = [d for d in found if d.detector_confidence == 0.0]
    assert walked and all(d.confidence >= FAN_SURE for d in walked)
    assert "fans" in photos.last_timings
    # without the walk some of the hand is not read
    alone = CardRecognizer.default(photos=True, fans=False).recognize(img)
    assert not set(picked) <= {d.card for d in alone}


def test_a_card_found_by_the_walk_is_not_reported_twice(photos):
    img, picked, _ = _fan(0)
    cards = [d.card for d in photos.recognize(img)]
    assert len(cards) == len(set(cards)) == len(picked)


@pytest.mark.parametrize("n", [9, 56])
def test_a_strip_boxed_as_a_whole_card_and_read_unsurely_does_not_stop_the_walk(photos, n):
    """The photos' detector boxes some of a fan's strips as whole cards, read 0.5-0.7 (the
    right face or another): the walk reads their corners surer and goes on through them, and
    a box naming the face the walk reads there is that card, reported once."""
    img, picked, _ = _fan(n)
    cards = [d.card for d in photos.recognize(img) if d.confidence >= 0.25]  # as `detect` reports
    assert set(picked) <= set(cards) and len(cards) == len(set(cards))


def test_the_table_does_not_walk_fans():
    # the discard pile's buried cards show their corners too: they were played before
    img, _, _ = _fan(0)
    table = CardRecognizer.default()
    assert not table.fans
    assert all(d.detector_confidence > 0 for d in table.recognize(img))


@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0, 160.0])
def test_a_lone_card_has_no_fanned_neighbours(photos, angle):
    from models.evaluate import _paste
    from models.scenes import make_table
    from vision.render import render_card

    rng = np.random.default_rng(int(angle))
    img = make_table(rng, 480, 640).astype(np.float32)
    _paste(img, render_card("blue-4", height=240, seed=3), (320, 240), angle, 200.0)
    found = photos.recognize(np.clip(img, 0, 255).astype(np.uint8))
    assert [d.card for d in found] == ["blue-4"]


def test_a_patterned_table_read_as_an_index_is_no_card(photos, monkeypatch):
    import vision.recognizer as recognizer
    from models.evaluate import render_on_table
    from vision.render import ALL_FACES

    rng = np.random.default_rng(4242)  # the phantoms' tuning seed: its 160th table is dotted
    for k in range(160):
        img = render_on_table(rng, ALL_FACES[k % len(ALL_FACES)], size=640)
    assert [d.card for d in photos.recognize(img)] == ["blue-draw2"]
    monkeypatch.setattr(recognizer, "FAN_BORDER", 0.0)
    assert [d.card for d in photos.recognize(img)] == ["blue-draw2"]  # the straight edge alone holds
    monkeypatch.setattr(recognizer, "FAN_EDGE", 0.0)
    assert len(photos.recognize(img)) > 1  # without either check its dots read as cards


def test_a_corner_shows_a_cards_border_and_a_cloth_does_not():
    from vision.crops import CORNER_PX, WHITE_LEVEL
    from vision.recognizer import FAN_BORDER, _border_share

    cloth = np.zeros((CORNER_PX, CORNER_PX, 3), np.uint8)
    cloth[::4, ::4] = (60, 200, 90)  # green dots
    corner = np.full_like(cloth, (40, 160, 60))
    corner[:5], corner[:, :5] = int(WHITE_LEVEL), int(WHITE_LEVEL)  # the white border, top and left
    assert _border_share(cloth) < FAN_BORDER <= _border_share(corner)


def test_a_cards_border_is_a_straight_edge_and_white_dots_are_not():
    """White dots on a cloth pass the border's white share (a dotted blue cloth walked across
    as six `blue-draw2`, models/README.md); only a card's border runs straight along the band."""
    from vision.crops import CORNER_PX, WHITE_LEVEL
    from vision.recognizer import FAN_BORDER, FAN_EDGE, _border_edge, _border_share

    dots = np.full((CORNER_PX, CORNER_PX, 3), (140, 90, 80), np.uint8)  # a blue cloth
    for y in range(1, CORNER_PX, 8):
        for x in range(1 + (y // 8 % 2) * 4, CORNER_PX, 8):
            dots[y:y + 4, x:x + 4] = int(WHITE_LEVEL)
    assert _border_share(dots) >= FAN_BORDER and _border_edge(dots) < FAN_EDGE
    corner = np.full_like(dots, (40, 160, 60))
    corner[:4, 6:] = int(WHITE_LEVEL)  # only the top border shows, the left one under a card
    assert _border_edge(corner) >= FAN_EDGE
    assert _border_edge(np.full_like(dots, (40, 160, 60))) == 0.0


def test_a_card_boxed_twice_is_told_by_its_face_its_overlap_and_its_turn():
    import cv2

    from vision.recognizer import _boxed_twice

    def box(cx, cy, angle):
        return cv2.boxPoints(((cx, cy), (120, 186), angle))

    quads = [box(300, 240, 20), box(310, 260, 22), box(470, 240, 20)]
    # the weaker of two boxes on one card, both read as its face, is the twin
    assert _boxed_twice(quads, ["wild", "wild", "red-3"], [0.87, 0.52, 0.9]) == {1}
    assert _boxed_twice(quads, ["wild", "wild", "red-3"], [0.4, 0.52, 0.9]) == {0}
    assert _boxed_twice(quads, ["wild", "blue-0", "red-3"], [0.87, 0.52, 0.9]) == set()  # two faces
    # the same face apart (two copies fanned in a hand), or turned well apart, is two cards
    assert _boxed_twice(quads, ["wild", "red-3", "wild"], [0.87, 0.52, 0.9]) == set()
    assert _boxed_twice([quads[0], box(310, 260, 50)], ["wild", "wild"], [0.87, 0.52]) == set()


@pytest.mark.skipif(not MIT.is_dir(), reason="the shared mit photos are not on this machine")
def test_a_card_under_another_boxed_and_read_as_the_card_on_top_is_read_by_its_corner(photos):
    """A blue-0 (a real photo) 70% under a wild: the photos' detector boxes the card under as
    well, and its crop, mostly the wild, reads `wild` 0.73. That box is the wild boxed twice,
    so the walk from the wild does not stop at it: the blue-0 is read by its corner, and
    the wild reported once (a model card scene: `models evaluate --only overlap-real`, mit 70%)."""
    from models.evaluate import _iou, overlap_scene, real_faces

    rng = np.random.default_rng([525252, 70])
    faces = real_faces("mit")
    for _ in range(37):
        img, below, q1, top, q2, _ = overlap_scene(rng, 0.7, faces=faces)
    assert (below, top) == ("blue-0", "wild")
    boxes = photos.detect(img)
    assert len(boxes) == 2 and max(_iou(q, q1) for q, _ in boxes) > 0.5  # the card under is boxed
    found = photos.recognize(img)
    assert sorted(d.card for d in found) == ["blue-0", "wild"]
    under = next(d for d in found if d.card == "blue-0")
    assert _iou(under.quad, q1) > 0.8 and under.detector_confidence == 0.0  # walked to, by its corner
