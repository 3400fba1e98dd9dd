"""The corner reader: a card named from its corner index where the whole card does not show
(vision.crops corner geometry, models.train_corner labels, CardRecognizer._read_corners)."""

import cv2
import numpy as np
import pytest

from vision.crops import CORNER_PX, CORNER_SPAN, corner_patches, corner_quads
from vision.recognizer import (
    CLASSIFIER_FILE,
    CORNER_FILE,
    DETECTOR_FILE,
    PACKAGE_MODELS,
    CardRecognizer,
    ModelFileCorruptError,
    ModelFileMissingError,
)
from vision.render import render_card


def _on_table(art, centre, angle, long_side=200.0):
    """A BGRA card pasted on a dark table at a pose: (image, its corners, clockwise from the
    card's own top-left)."""
    img = np.full((480, 640, 3), (60, 90, 50), np.uint8)
    h, w = art.shape[:2]
    c, (s, co) = np.float32(centre), (np.sin(np.radians(angle)), np.cos(np.radians(angle)))
    ex, ey = np.float32([co, s]), np.float32([-s, co])  # the card's axes in the image
    half_w, half_h = long_side * w / h / 2, long_side / 2
    quad = np.float32([c - half_w * ex - half_h * ey, c + half_w * ex - half_h * ey,
                       c + half_w * ex + half_h * ey, c - half_w * ex + half_h * ey])
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    patch = cv2.warpPerspective(art, cv2.getPerspectiveTransform(src, quad), (640, 480), flags=cv2.INTER_AREA)
    a = patch[..., 3:4].astype(np.float32) / 255.0
    return (img * (1 - a) + patch[..., :3] * a).astype(np.uint8), quad


def _upright_corner(art, turned=False):
    a = art[..., 3:4].astype(np.float32) / 255.0  # on the same table: its rounded corners
    bgr = (art[..., :3] * a + np.float32([60, 90, 50]) * (1 - a)).astype(np.uint8)
    bgr = bgr[::-1, ::-1] if turned else bgr
    h, w = bgr.shape[:2]
    u, v = CORNER_SPAN
    return cv2.resize(bgr[: int(round(v * h)), : int(round(u * w))], (CORNER_PX, CORNER_PX), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("angle", [0.0, 35.0, 100.0, 200.0])
def test_the_two_corner_patches_are_the_cards_index_corners_upright_whatever_its_turn(angle):
    art = render_card("blue-7", height=400, rng=np.random.default_rng(2))
    img, quad = _on_table(art, (320, 240), angle)
    patches = corner_patches(img, quad)
    assert [p.shape for p in patches] == [(CORNER_PX, CORNER_PX, 3)] * 2
    want = [_upright_corner(art), _upright_corner(art, turned=True)]

    def diff(a, b):  # 1 - correlation of the blurred grey images (a pixel's shift, the shine aside)
        a, b = (cv2.GaussianBlur(cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.5).ravel()
                for x in (a, b))
        return 1.0 - float(np.corrcoef(a, b)[0, 1])

    # which corner comes first depends on how the box lies; each patch is one of the two (the
    # two look alike: an index reads the same from either end)
    d = [[diff(p, w) for w in want] for p in patches]
    assert all(min(row) < 0.15 for row in d), d
    # a patch off the corner (the card's middle) is far from both
    mid = cv2.resize(img[200:260, 300:340], (CORNER_PX, CORNER_PX))
    assert min(diff(mid, w) for w in want) > 2 * max(min(row) for row in d), d


def test_corner_quads_lie_at_opposite_ends_of_the_card():
    quad = np.float32([[100, 100], [156, 100], [156, 187], [100, 187]])
    a, b = corner_quads(quad)
    assert a.mean(axis=0)[1] < 130 and b.mean(axis=0)[1] > 157  # the two short ends
    assert a.mean(axis=0)[0] < 128 < b.mean(axis=0)[0]  # and the two sides


def test_a_corner_under_another_card_is_labelled_none_and_an_uncovered_one_its_face():
    from models.train_corner import CORNER_CLASSES, corner_samples

    art = render_card("green-4", height=300, rng=np.random.default_rng(1))
    img, quad = _on_table(art, (320, 240), 20.0)
    covered = np.zeros(img.shape[:2], np.float32)
    top = quad[:2].mean(axis=0), quad[2:].mean(axis=0)
    # the card's top half covered (its own top-left index under another card)
    m = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(m, [np.round(np.float32([quad[0], quad[1], (quad[1] + quad[2]) / 2, (quad[0] + quad[3]) / 2])
                              + (quad[0] - quad[3]) * 0.2).astype(np.int32)], 1)
    cv2.fillPoly(m, [np.round(np.float32([quad[0], quad[1], (quad[1] + quad[2]) / 2, (quad[0] + quad[3]) / 2])).astype(np.int32)], 1)
    covered[m > 0] = 1.0
    assert top[0][1] < top[1][1]
    labels = sorted(CORNER_CLASSES[y] for _, y in corner_samples(
        {"image": img, "card": quad, "box": quad, "covered": covered}, "green-4"))
    assert labels == ["green-4", "none"]
    bare = sorted(CORNER_CLASSES[y] for _, y in corner_samples(
        {"image": img, "card": quad, "box": quad, "covered": covered * 0}, "green-4"))
    assert bare == ["green-4", "green-4"]
    # a back has no index
    assert {CORNER_CLASSES[y] for _, y in corner_samples(
        {"image": img, "card": quad, "box": quad, "covered": covered * 0}, "back")} == {"none"}


def test_a_training_crop_is_the_same_with_its_detail_asked_for_or_not():
    from models.crops import synth_crop

    art = render_card("red-5", height=192, rng=np.random.default_rng(0))
    covers = [render_card("blue-1", height=192, rng=np.random.default_rng(1))]
    plain = synth_crop(np.random.default_rng(5), art, None, covers, 1.0, 0.7)
    detail: dict = {}
    told = synth_crop(np.random.default_rng(5), art, None, covers, 1.0, 0.7, detail=detail)
    assert (plain == told).all()
    assert set(detail) == {"image", "card", "box", "covered", "frame"}
    assert 0.1 < detail["covered"].mean() < 0.9  # a card lies over part of the scene


def test_the_shipped_recognizer_reads_corners_and_a_missing_or_wrong_corner_file_is_a_clear_error(tmp_path):
    assert CardRecognizer.default().corner_path == PACKAGE_MODELS / CORNER_FILE
    with pytest.raises(ModelFileMissingError, match="nope.onnx"):
        CardRecognizer(PACKAGE_MODELS / DETECTOR_FILE, PACKAGE_MODELS / CLASSIFIER_FILE, corner_path=tmp_path / "nope.onnx")
    # the classifier where the corner reader belongs: a valid model of the wrong kind
    with pytest.raises(ModelFileCorruptError, match="corner reader"):
        CardRecognizer(PACKAGE_MODELS / DETECTOR_FILE, PACKAGE_MODELS / CLASSIFIER_FILE,
                       corner_path=PACKAGE_MODELS / CLASSIFIER_FILE)


def _overlap_scene(n: int, share: float = 0.5, seed: int = 777):
    """Scene n of the rendered overlaps the corner reader's thresholds were chosen on (seed
    777; the model card's figures are on another seed)."""
    from models.evaluate import overlap_scene

    rng = np.random.default_rng([seed, int(share * 100)])
    for _ in range(n + 1):
        scene = overlap_scene(rng, share)
    return scene


@pytest.mark.parametrize("n", [12, 49, 57])  # 10 before both turns named it whole
def test_a_card_half_under_another_is_named_by_its_corner_where_the_whole_card_misnames_it(n):
    from models.evaluate import _iou

    img, below, q1, top, q2, _ = _overlap_scene(n)
    with_corners = CardRecognizer.default(photos=True)
    without = CardRecognizer.default(photos=True, corner_path=None)

    def covered(rec):
        return [d for d in rec.recognize(img) if _iou(d.quad, q1) >= 0.3 and _iou(d.quad, q1) > _iou(d.quad, q2)]

    (before,) = covered(without)
    assert before.card != below  # the whole card alone misnames it
    (after,) = covered(with_corners)
    assert after.card == below and after.candidates[0] == (below, after.confidence)
    assert "corners" in with_corners.last_timings
    # the card on top, whole, is read as before
    assert {d.card for d in with_corners.recognize(img)} - {below} == {d.card for d in without.recognize(img)} - {before.card}


def test_a_box_on_a_cards_uncovered_end_is_grown_to_the_whole_card_it_may_be_the_end_of():
    from models.evaluate import _iou
    from vision.recognizer import _covered_card_shapes

    art = render_card("red-7", height=200)
    _, card = _on_table(art, (320, 240), 30.0)
    for part, ends in ((0.5, (0, 1)), (0.35, (1, 2))):  # the top half; the right 35% (a fan)
        a, b = card[list(ends)]
        c, d = card[[(ends[1] + 1) % 4, (ends[0] - 1) % 4]]
        box = np.float32([a, b, b + part * (c - b), a + part * (d - a)])
        grown = _covered_card_shapes(box)
        assert max(_iou(g, card) for g in grown) > 0.95
        assert all(_iou(g, box) < 0.9 for g in grown)  # each one is a whole card, not the box
    # a box of a card's shape: only the card lying across it (its long side as the width)
    across = _covered_card_shapes(card)
    assert len(across) == 2 and all(_iou(g, card) < 0.5 for g in across)


def _uncovered_end(card: np.ndarray, over: np.ndarray) -> np.ndarray:
    """The half of `card` farther from the card `over` it: the box a detector that never
    learnt covered cards gives it."""
    from vision.crops import order_portrait

    q = order_portrait(card)
    left, right = (q[0] + q[3]) / 2, (q[1] + q[2]) / 2
    halves = (np.float32([q[0], q[1], right, left]), np.float32([left, right, q[2], q[3]]))
    return max(halves, key=lambda h: float(np.linalg.norm(h.mean(axis=0) - over.mean(axis=0))))


@pytest.mark.parametrize("n", [53, 57])
def test_a_card_boxed_by_its_uncovered_end_only_is_named_by_the_index_there(n, monkeypatch):
    import vision.recognizer as recognizer
    from models.evaluate import _iou

    img, below, q1, top, q2, _ = _overlap_scene(n)
    rec = CardRecognizer.default(photos=True, fans=False)  # the walk would find it too
    # the boxes the previous photos' detector gave these scenes (the shipped one boxes the
    # covered card whole): the card on top, and the covered card's uncovered end
    boxes = [(np.float32(q2), 0.9), (_uncovered_end(np.float32(q1), np.float32(q2)), 0.6)]
    monkeypatch.setattr(rec, "detect", lambda image, timings=None: boxes if image.shape == img.shape else [])

    def covered():
        return [d.card for d in rec.recognize(img) if _iou(d.quad, q1) >= 0.3 and _iou(d.quad, q1) > _iou(d.quad, q2)]

    assert covered() == [below]
    with monkeypatch.context() as m:  # the index read only at the box's own corners
        m.setattr(recognizer, "_covered_card_shapes", lambda quad: [])
        assert covered() != [below]
    # the card on top is read as it was
    assert top in {d.card for d in rec.recognize(img)}


@pytest.mark.slow
def test_a_tiny_corner_training_run_exports_a_reader_the_recognizer_loads(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    run = [sys.executable, "-m", "models", "train-corner"]
    out = subprocess.run(run + ["--epochs", "1", "--pool", "200", "--bank", "1", "--val-per-class", "1",
                                "--textures", "2", "--out", str(tmp_path / "c")],
                         cwd=root, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads((tmp_path / "c/summary.json").read_text())
    assert len(summary["history"]) == 1 and "mit" in summary["history"][0]["real"]  # held out, reported
    out = subprocess.run(run + ["--export", str(tmp_path / "c/best.pt"), "--onnx", str(tmp_path / "c.onnx")],
                         cwd=root, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rec = CardRecognizer(PACKAGE_MODELS / DETECTOR_FILE, PACKAGE_MODELS / CLASSIFIER_FILE, corner_path=tmp_path / "c.onnx")
    assert rec.corner_path == tmp_path / "c.onnx"
