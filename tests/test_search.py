"""A still photo in which the detector boxes no card is searched for one (`vision.search`):
card-shaped windows read by the classifier, a face kept only where an index corner of its
window reads it too (the held-out webcam photos lost most of their cards for want of a box,
issue 13)."""

import json

import cv2
import numpy as np
import pytest

from models.evaluate import _iou
from models.held import held_scene
from vision import search as vs
from vision.recognizer import CardRecognizer
from vision.render import random_params, render_card


def _rect_iou(a, b) -> float:
    return _iou(vs.rect_quad(a), vs.rect_quad(b))


def test_the_windows_are_card_shaped_inside_the_frame_upright_and_sideways():
    h, w = 480, 640
    grid = vs.windows(h, w)
    assert {deg for _, _, deg in grid} == {0.0, 90.0}
    for rect in grid:
        (sw, sh), q = rect[1], vs.rect_quad(rect)
        assert sw / sh == pytest.approx(vs.CARD_ASPECT)
        assert q[:, 0].min() >= -0.5 and q[:, 0].max() <= w + 0.5 and q[:, 1].min() >= -0.5 and q[:, 1].max() <= h + 0.5
    upright = {round(sh / h, 2) for (_, (_, sh), deg) in grid if deg == 0.0}
    assert upright == set(vs.SEARCH_SIZES)
    # every upright card of a searched size has a window within a quarter of its width
    for share in vs.SEARCH_SIZES:
        sh = share * h
        for cx in np.linspace(sh * vs.CARD_ASPECT / 2, w - sh * vs.CARD_ASPECT / 2, 7):
            near = min(np.hypot(c[0] - cx, c[1] - h / 2) for c, (_, s), d in grid if d == 0.0 and s == sh)
            assert near <= 0.25 * sh * vs.CARD_ASPECT * np.sqrt(2) + 1


CARD = ((300.0, 250.0), (0.6 * 480 * vs.CARD_ASPECT, 0.6 * 480), 5.0)  # a card between the grid's sizes, turned


def _readers(corner_reads: bool, face: str = "red-7"):
    """Readers of a frame holding CARD: the classifier reads `face` the likelier the more a
    window covers it, a wall as `green-1` 0.6 everywhere; the corner reader reads `face` only
    on a window nearly the card's own (and nothing if not `corner_reads`)."""

    def read_top(rects):
        return [(face, 0.4 + 0.6 * _rect_iou(r, CARD)) if _rect_iou(r, CARD) > 0.3 else ("green-1", 0.6) for r in rects]

    def read_face(rects, f):
        out = []
        for r in rects:
            iou = _rect_iou(r, CARD)
            p = (0.4 + 0.6 * iou) if f == face else 0.6 * (1 - iou)
            out.append((p, float(corner_reads and f == face and iou > 0.8)))
        return out

    return read_top, read_face


def test_a_window_is_climbed_onto_the_card_where_the_face_and_its_index_agree():
    hit = vs.search(480, 640, *_readers(corner_reads=True))
    assert hit is not None
    face, p, corner, rect = hit
    assert face == "red-7" and corner == 1.0 and _rect_iou(rect, CARD) > 0.8 and p >= vs.SEARCH_MIN


def test_a_face_its_index_does_not_show_is_not_kept():
    assert vs.search(480, 640, *_readers(corner_reads=False)) is None


def test_a_back_is_never_kept_and_a_back_read_surest_ends_the_search():
    assert vs.search(480, 640, *_readers(corner_reads=True, face="back"), backs=("back",)) is None
    read_top, read_face = _readers(corner_reads=True)

    def with_a_back(rects):  # a back beside the card, read surer than it
        return read_top(rects)[:-1] + [("back", 0.99)]

    assert vs.search(480, 640, read_top, read_face, backs=("back",)) is not None
    assert vs.search(480, 640, with_a_back, read_face, backs=("back",)) is None


# --- the recognizer


def _no_box(rec, monkeypatch):
    monkeypatch.setattr(rec, "detect", lambda image, timings=None: [])
    return rec


@pytest.fixture
def photos():
    return CardRecognizer.default(photos=True)


def _held(seed: int, card: str, design: str):
    rng = np.random.default_rng(seed)
    return held_scene(rng, render_card(card, height=400, rng=rng, params=random_params(rng, design)))


# held-up renders the whole-image reading misses when the detector gives no box: of 60 drawn so
# (`data/s36/find_search_seeds.py`), the search named 53 and misnamed none
SEARCHED = [(0, "red-reverse", "2010s"), (10, "green-reverse", "classic"), (13, "red-7", "2020s"),
            (17, "wild-draw4", "2020s")]


@pytest.mark.parametrize(("seed", "card", "design"), SEARCHED)
def test_a_held_up_card_that_gets_no_box_is_found_by_the_search(photos, monkeypatch, seed, card, design):
    img, true = _held(seed, card, design)
    _no_box(photos, monkeypatch)
    monkeypatch.setattr(photos, "search", False)
    assert [d.card for d in photos.recognize(img)] != [card]  # the whole-image reading alone
    monkeypatch.setattr(photos, "search", True)
    (d,) = photos.recognize(img)
    assert d.card == card and d.searched and d.confidence >= vs.SEARCH_MIN and d.detector_confidence == 0.0
    assert _iou(np.float32(d.quad), true) > 0.6 and d.candidates[0][0] == card
    assert "search" in photos.last_timings


def test_frames_with_no_card_get_no_face_from_the_search(photos, monkeypatch):
    from models.evaluate import bad_frames
    from models.held import room
    from models.scenes import make_table

    _no_box(photos, monkeypatch)
    rng = np.random.default_rng(3636)
    frames = [np.clip(room(rng, 480, 640), 0, 255).astype(np.uint8) for _ in range(10)]
    frames += [make_table(rng, 480, 640).astype(np.uint8) for _ in range(10)]
    frames += [img for _, img in bad_frames(rng)]
    for img in frames:
        assert [d.card for d in photos.recognize(img) if d.card != "back"] == []
        assert "search" in photos.last_timings  # searched, and nothing kept
    # the corner index is what keeps them out: the classifier alone reads faces on them
    monkeypatch.setattr(vs, "SEARCH_INDEX", 0.0)
    assert any(d.card != "back" for img in frames for d in photos.recognize(img))


def test_a_photo_with_a_box_is_not_searched(photos):
    img, _ = _held(2, "blue-2", "2010s")
    found = photos.recognize(img)
    assert [d.card for d in found] == ["blue-2"] and not found[0].searched
    assert "search" not in photos.last_timings


def test_the_table_does_not_search():
    assert CardRecognizer.default(photos=True).search and not CardRecognizer.default().search


def test_detect_says_a_card_was_found_by_the_search(tmp_path, capsys, monkeypatch):
    from app.cli import main

    seed, card, design = SEARCHED[0]
    path = tmp_path / "held.png"
    cv2.imwrite(str(path), _held(seed, card, design)[0])
    monkeypatch.setattr(CardRecognizer, "detect", lambda self, image, timings=None: [])
    assert main(["detect", "--json", str(path)]) == 0
    (found,) = json.loads(capsys.readouterr().out)["cards"]
    assert found["card"] == card and found["searched"] is True
    assert main(["detect", str(path)]) == 0
    assert "found by searching the photo" in capsys.readouterr().out


def test_a_big_photo_is_searched_shrunk_and_its_card_reported_in_its_own_pixels(photos, monkeypatch):
    seed, card, design = SEARCHED[0]
    img, true = _held(seed, card, design)
    big = cv2.resize(img, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)  # 2560x1920
    _no_box(photos, monkeypatch)
    (d,) = photos.recognize(big)
    assert d.card == card and d.searched and _iou(np.float32(d.quad), true * 4) > 0.6
