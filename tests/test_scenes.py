"""Synthetic table scenes: labels agree with the pixels."""

import numpy as np

from models.scenes import make_scene, yolo_obb_line
from vision.render import ALL_FACES, BACK

VALID = set(ALL_FACES) | {BACK}


def test_table_scene_labels_name_valid_cards_and_record_visibility():
    rng = np.random.default_rng(5)
    img, labels = make_scene(rng, out_size=(320, 240), kind="table")
    assert img.shape == (240, 320, 3) and img.dtype == np.uint8
    assert labels, "a table scene shows cards"
    for lab in labels:
        assert lab.card in VALID
        assert 0.0 < lab.visible <= 1.0
        assert len(lab.quad) == 4


def test_closeup_fills_most_of_the_frame_with_one_card():
    for seed in range(3):
        img, labels = make_scene(np.random.default_rng(seed), out_size=(200, 300), kind="closeup")
        main = max(labels, key=lambda lab: lab.visible)
        q = np.array(main.quad)
        box_w, box_h = np.ptp(q[:, 0]), np.ptp(q[:, 1])
        assert max(box_w / 200, box_h / 300) > 0.7
        assert main.visible > 0.5


def test_same_seed_same_scene():
    a, la = make_scene(np.random.default_rng(9), out_size=(160, 120))
    b, lb = make_scene(np.random.default_rng(9), out_size=(160, 120))
    assert np.array_equal(a, b)
    assert la == lb


def test_obb_line_is_clipped_inside_the_frame():
    from models.scenes import CardLabel

    lab = CardLabel("red-1", ((-20.0, -10.0), (40.0, -10.0), (40.0, 80.0), (-20.0, 80.0)), 0.6)
    line = yolo_obb_line(lab, 100, 50)
    vals = [float(v) for v in line.split()[1:]]
    assert line.split()[0] == "0" and len(vals) == 8
    assert all(0.0 <= v <= 1.0 for v in vals)
    # wholly outside the frame: no label
    out = CardLabel("red-1", ((200.0, 200.0), (260.0, 200.0), (260.0, 290.0), (200.0, 290.0)), 0.5)
    assert yolo_obb_line(out, 100, 50) is None


def test_single_kind_shows_one_to_three_mid_size_cards():
    img, labels = make_scene(np.random.default_rng(3), out_size=(320, 320), kind="single")
    assert 1 <= len(labels) <= 3


def test_unknown_scene_kind_is_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match="unknown scene kind 'party'"):
        make_scene(np.random.default_rng(0), out_size=(64, 64), kind="party")
