"""A card seen at a slant is a trapezoid: `vision.outline.outline_quad` finds its own four
corners from its edges near the detector's rectangle box, so its face is straightened as
printed rather than squeezed (still photos: `CardRecognizer(outline=True)`)."""

import cv2
import numpy as np
import pytest

from vision.crops import order_portrait
from vision.outline import outline_quad, region_quad
from vision.render import random_params, render_card


def _slanted(face: str, seed: int, narrow: float, surface=(60, 70, 80), finger: bool = False, length: float = 0.9):
    """A rendered card lying on a plain surface, its top side narrowed by `narrow` at each
    end (leaning away from the lens) and its length foreshortened to `length` of the art's:
    (BGR image, the card's true corners, the rectangle a detector boxes it with)."""
    rng = np.random.default_rng(seed)
    art = render_card(face, height=300, rng=rng, params=random_params(rng, "2010s"))
    ah, aw = art.shape[:2]
    w, h = 640, 480
    src = np.float32([[0, 0], [aw, 0], [aw, ah], [0, ah]])
    card = np.float32([[aw * narrow, 0], [aw * (1 - narrow), 0], [aw, ah * length], [0, ah * length]])
    card += [(w - aw) / 2, (h - ah * length) / 2]
    m = cv2.getPerspectiveTransform(src, card)
    warped = cv2.warpPerspective(art, m, (w, h), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255
    img = np.full((h, w, 3), surface, np.float32) * (1 - a) + warped[..., :3] * a
    if finger:  # a thumb over the bottom edge
        cv2.line(img, (int(w / 2), int(card[2, 1] + 40)), (int(w / 2), int(card[2, 1] - 30)), (110, 150, 200), 30)
    img = cv2.GaussianBlur(img, (0, 0), 0.8) + rng.normal(0, 3, img.shape)
    box = cv2.boxPoints(cv2.minAreaRect(card))
    return np.clip(img, 0, 255).astype(np.uint8), order_portrait(card), box


def _worst_corner(q, card) -> float:
    """The farthest any corner of `q` lies from the card's own (matched in either order a
    box may start in), a share of the card's height."""
    height = np.linalg.norm(card[3] - card[0])
    q = order_portrait(q)
    return float(min(np.linalg.norm(np.roll(q, k, axis=0) - card, axis=1).max() for k in range(4)) / height)


@pytest.mark.parametrize("narrow", [0.15, 0.25, 0.32])
def test_a_slanted_cards_own_corners_are_found_where_its_box_misses_them(narrow):
    img, card, box = _slanted("blue-5", 3, narrow)
    assert _worst_corner(box, card) > 0.09  # the box takes in the table beside the far side
    found = outline_quad(img, box)
    assert found is not None
    assert _worst_corner(found, card) < 0.04


def test_a_finger_over_one_side_leaves_the_other_sides_found():
    img, card, box = _slanted("red-8", 4, 0.25, finger=True)
    found = outline_quad(img, box)
    assert found is not None
    assert _worst_corner(found, card) < 0.06


def test_an_upright_card_keeps_its_corners():
    img, card, box = _slanted("green-2", 5, 0.0)
    found = outline_quad(img, box)
    assert found is not None
    assert _worst_corner(found, card) < 0.03


def test_no_edge_gives_no_outline():
    img = np.full((480, 640, 3), 128, np.uint8)
    box = np.float32([[250, 150], [390, 150], [390, 370], [250, 370]])
    assert outline_quad(img, box) is None


@pytest.fixture(scope="module")
def readers():
    from vision.recognizer import CardRecognizer

    return (CardRecognizer.default(photos=True), CardRecognizer.default(photos=True, outline=False))


CASES = [("red-7", 3), ("blue-5", 1), ("red-8", 2), ("green-3", 4), ("yellow-4", 3), ("blue-2", 3)]


def test_a_still_photo_of_a_card_lying_at_a_slant_is_read_in_its_own_outline(readers):
    """A card on a table photographed from a seat, its far side 30% of its near one: read in
    its rectangle box the face is squeezed and read unsurely (often wrong); read in its own
    outline it is named surely."""
    outline, box = readers
    on, off = [], []
    for face, seed in CASES:
        img, _, _ = _slanted(face, seed, 0.35)
        for rec, into in ((outline, on), (box, off)):
            d = rec.recognize(img)
            into.append((d[0].card, d[0].confidence) if d else ("none", 0.0))
    assert all(card == face and conf >= 0.9 for (card, conf), (face, _) in zip(on, CASES, strict=True))
    assert np.mean([c for _, c in off]) < np.mean([c for _, c in on]) - 0.2


def test_a_card_read_surely_in_its_box_is_not_read_again(readers, monkeypatch):
    import vision.outline

    outline, _ = readers
    img, _, _ = _slanted("green-2", 5, 0.0)
    calls = []
    real = vision.outline.outline_quad
    monkeypatch.setattr(vision.outline, "outline_quad", lambda *a: calls.append(1) or real(*a))
    d = outline.recognize(img)
    assert d and d[0].card == "green-2" and d[0].confidence >= 0.9
    assert calls == []


def test_a_card_half_under_another_is_not_read_in_an_outline(readers, monkeypatch):
    """A covered card's box holds the edges of the card over it, not its own outline: only a
    box apart from every other is read again so."""
    import vision.outline

    outline, _ = readers
    img, card, box = _slanted("blue-5", 1, 0.35)
    over = box + np.float32([0.5, 0.0]) * (box[:, :1].max() - box[:, :1].min())  # half over it
    calls = []
    monkeypatch.setattr(vision.outline, "outline_quad", lambda image, q: calls.append(q) or None)
    monkeypatch.setattr(outline, "detect", lambda image, timings=None: [(over, 0.9), (box, 0.8)])
    outline.recognize(img)
    assert calls == []
    monkeypatch.setattr(outline, "detect", lambda image, timings=None: [(box, 0.8)])
    outline.recognize(img)
    assert calls and np.allclose(order_portrait(calls[0]), order_portrait(box))


def _turned_off(box: np.ndarray, degrees: float) -> np.ndarray:
    """The rectangle `box` turned about its centre: a detector's box lying across a card
    that leans far back instead of along it."""
    centre, size, angle = cv2.minAreaRect(np.asarray(box, np.float32))
    return cv2.boxPoints((centre, size, angle + degrees)).astype(np.float32)


@pytest.mark.parametrize("length", [0.45, 0.6])
def test_a_card_whose_box_lies_across_it_is_cut_out_as_its_region(length):
    """Its far side 40% of its near one and its box turned 35 degrees off it: the box's
    sides are too far from the card's for its edges to be looked for, but the card is still
    a region apart from the table, and that region's four corners are the card's."""
    img, card, box = _slanted("red-7", 3, 0.3, length=length)
    off = _turned_off(box, 35)
    assert _worst_corner(off, card) > 0.5
    edges = outline_quad(img, off)
    assert edges is None or _worst_corner(edges, card) > 0.3
    found = region_quad(img, off)
    assert found is not None
    assert _worst_corner(found, card) < 0.04


def test_the_region_is_found_with_an_opencv_older_than_approx_poly_n(monkeypatch):
    """The Pi's OpenCV wheels may predate `cv2.approxPolyN` (4.11): the corners are then
    found, more coarsely, by simplifying the hull and moving its sides out to touch it."""
    monkeypatch.delattr(cv2, "approxPolyN", raising=False)
    for face, seed in CASES[:3]:
        for length in (0.35, 0.6):
            img, card, box = _slanted(face, seed, 0.3, length=length)
            found = region_quad(img, _turned_off(box, 35))
            assert found is not None
            assert _worst_corner(found, card) < 0.08


def test_a_plain_frame_gives_no_region():
    rng = np.random.default_rng(0)
    img = np.clip(128 + rng.normal(0, 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    box = np.float32([[250, 150], [390, 150], [390, 370], [250, 370]])
    assert region_quad(img, box) is None


def test_a_card_boxed_across_itself_is_named_by_its_region(readers, monkeypatch):
    """The still-photo reader reads such a card in its region's outline, either way round (a
    card this foreshortened is about as wide as it is long): named surely. Without the region
    the same boxes are read unsurely and wrong."""
    import vision.outline

    outline, _ = readers
    cases = []
    for length in (0.35, 0.45):  # at 0.35 the region's portrait order has the card on its side
        for face, seed in CASES[:3]:
            img, _, box = _slanted(face, seed, 0.3, length=length)
            cases.append((face, img, _turned_off(box, 35)))

    def read():
        out = []
        for _, img, off in cases:
            monkeypatch.setattr(outline, "detect", lambda image, timings=None, b=off: [(b, 0.8)])
            d = outline.recognize(img)
            out.append((d[0].card, d[0].confidence) if d else ("none", 0.0))
        return out

    with_region = read()
    assert [card for card, _ in with_region] == [face for face, _, _ in cases]
    assert min(conf for _, conf in with_region) >= 0.9
    monkeypatch.setattr(vision.outline, "region_quad", lambda image, quad: None)
    without = read()
    assert all(card != face or conf < 0.5 for (card, conf), (face, _, _) in zip(without, cases, strict=True))


@pytest.mark.parametrize("length", [0.35, 0.45])
def test_a_card_named_by_its_region_is_reported_in_its_outline_not_its_box(readers, monkeypatch, length):
    """An annotated photo draws the card where it lies, not the box across it."""
    outline, _ = readers
    face, seed = CASES[0]
    img, card, box = _slanted(face, seed, 0.3, length=length)
    off = _turned_off(box, 35)
    monkeypatch.setattr(outline, "detect", lambda image, timings=None: [(off, 0.8)])
    (d,) = outline.recognize(img)
    assert d.card == face and d.detector_confidence == 0.8
    assert _worst_corner(np.float32(d.quad), card) < 0.06 < _worst_corner(off, card)
    x1, y1, x2, y2 = d.box
    (cx1, cy1), (cx2, cy2) = card.min(axis=0), card.max(axis=0)
    assert max(abs(x1 - cx1), abs(y1 - cy1), abs(x2 - cx2), abs(y2 - cy2)) < 0.06 * (cy2 - cy1)


def test_a_card_turned_the_wrong_way_shows_no_index_in_its_corners(readers):
    """The guard on reading a region turned a quarter: read the right way round, a card's
    index corners name it; turned a quarter, they show no index (a card lying sideways read
    turned can read surely as another face, a skip as a 0)."""
    outline, _ = readers
    for face, seed in CASES[:4]:
        img, card, _ = _slanted(face, seed, 0.1)
        assert outline._index_shows(img, card, face)
        assert not outline._index_shows(img, np.roll(card, 1, axis=0), face)


def test_a_region_read_surely_turned_is_not_taken_where_its_corners_show_no_index(readers, monkeypatch):
    """A card lying sideways: its region read turned a quarter as another face, surely (the
    classifier is made to), is not taken, since its corners that way show no index; the way
    round they name it is."""
    import vision.outline

    outline, _ = readers
    img, card, box = _slanted("red-7", 3, 0.1)
    off = _turned_off(box, 35)
    turned = np.roll(card, 1, axis=0)
    monkeypatch.setattr(outline, "detect", lambda image, timings=None: [(off, 0.8)])
    monkeypatch.setattr(vision.outline, "outline_quad", lambda image, quad: None)
    monkeypatch.setattr(vision.outline, "region_quad", lambda image, quad: card)
    real = outline._classify_more

    def classify_more(image, quads, timings, ordered=False):
        read = real(image, quads, timings, ordered)
        return [[("red-0", 0.97)] if ordered and np.allclose(q, turned) else top for q, top in zip(quads, read, strict=True)]

    monkeypatch.setattr(outline, "_classify_more", classify_more)
    (d,) = outline.recognize(img)
    assert d.card == "red-7" and d.confidence >= 0.9
    monkeypatch.setattr(outline, "_index_shows", lambda image, quad, face: True)
    (d,) = outline.recognize(img)
    assert d.card == "red-0"  # without the corners' word the turned reading would win
