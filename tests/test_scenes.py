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


def test_empty_scenes_hold_no_face_and_sometimes_backs():
    """The detector's hard negatives (a bare table, things that are not cards, a few backs)."""
    kinds = []
    for seed in range(12):
        img, labels = make_scene(np.random.default_rng(seed), out_size=(160, 120), kind="empty")
        assert img.shape == (120, 160, 3)
        assert all(lab.card == "back" for lab in labels)
        kinds.append(bool(labels))
    assert any(kinds) and not all(kinds)


def test_old_seeds_draw_the_same_scenes_with_the_empty_kind_added():
    """Every existing kind draws the same random numbers as before the empty kind existed
    (the distractor count is drawn for all of them), so old datasets rebuild exactly."""
    img, labels = make_scene(np.random.default_rng(5), out_size=(160, 120), kind="hand")
    digest = __import__("hashlib").sha256(img.tobytes()).hexdigest()[:16]
    assert digest == "c14511bdb01ecd09" and len(labels) == 1  # measured before the change


def test_unknown_scene_kind_is_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match="unknown scene kind 'party'"):
        make_scene(np.random.default_rng(0), out_size=(64, 64), kind="party")


def test_a_card_covered_but_for_its_corner_index_is_labelled_so():
    from models.scenes import _index_visible

    # an upright card 100x155 at (50, 20); a second card covers all but its top-left corner
    ids = np.full((200, 200), -2, np.int16)
    ids[20:175, 50:150] = 0
    quad = np.float32([[50, 20], [150, 20], [150, 175], [50, 175]])
    assert _index_visible(ids, 0, quad) > 0.95
    ids[70:175, 50:150] = 1  # covered from a third down: the top index still shows
    ids[20:70, 90:150] = 1
    assert _index_visible(ids, 0, quad) > 0.95
    ids[20:60, 50:90] = 1  # now the top-left index is under it too, the bottom-right was already
    assert _index_visible(ids, 0, quad) < 0.2


def test_scene_options_change_nothing_unless_asked_and_paste_real_cards_when_asked():
    from models.scenes import SceneStyle

    plain, lp = make_scene(np.random.default_rng(21), out_size=(320, 240), kind="table")
    same, ls = make_scene(np.random.default_rng(21), out_size=(320, 240), kind="table", style=SceneStyle())
    assert np.array_equal(plain, same) and lp == ls  # old datasets rebuild exactly
    photo = np.zeros((192, 124, 3), np.uint8)
    photo[:] = (255, 0, 255)  # a "real card" no render has: pure magenta
    style = SceneStyle(white=1.0, real=(("red-3", photo),), real_share=1.0)
    img, labels = make_scene(np.random.default_rng(21), out_size=(320, 240), kind="table", style=style)
    faces = [lab for lab in labels if lab.card != BACK]
    assert faces and all(lab.card == "red-3" for lab in faces)
    magenta = (img[:, :, 0] > 150) & (img[:, :, 1] < 90) & (img[:, :, 2] > 150)
    assert magenta.mean() > 0.02


def test_box_rule_keeps_a_card_whose_index_shows_only_when_asked():
    from models.build_dataset import boxed

    assert boxed(0.5, 0.0, 0.45, None) and not boxed(0.3, 1.0, 0.45, None)
    assert boxed(0.3, 0.9, 0.45, 0.25)  # a third shows, its index whole: a card to read
    assert not boxed(0.3, 0.5, 0.45, 0.25) and not boxed(0.2, 1.0, 0.45, 0.25)


def test_heap_scenes_hold_many_faces_partly_under_each_other_at_any_angle():
    """The whole-table photos' kind: 4-13 cards dropped over each other, not neat rows."""
    covered, angles, faces = 0, set(), []
    for seed in range(6):
        img, labels = make_scene(np.random.default_rng(seed), out_size=(320, 240), kind="heap")
        assert img.shape == (240, 320, 3)
        shown = [lab for lab in labels if lab.card != "back"]
        faces.append(len(shown))
        covered += sum(0.05 < lab.visible < 0.9 for lab in shown)
        for lab in shown:
            q = np.asarray(lab.quad)
            angles.add(int(np.degrees(np.arctan2(*(q[1] - q[0])[::-1])) // 45))
    assert max(faces) >= 6 and min(faces) >= 2  # a few may fall out of the camera's view
    assert covered >= 12 and len(angles) >= 5


def test_an_uncorrected_light_casts_or_dims_the_scene_and_zero_draws_nothing_more():
    """`SceneStyle.light`: scenes under a bulb or daylight the camera left as it was, or in a
    dim room; at 0 the scenes are those drawn before it existed."""
    from models.scenes import SceneStyle, _uncorrected_light

    plain, lp = make_scene(np.random.default_rng(21), out_size=(320, 240), kind="closeup")
    same, ls = make_scene(np.random.default_rng(21), out_size=(320, 240), kind="closeup",
                          style=SceneStyle(light=0.0))
    assert np.array_equal(plain, same) and lp == ls
    grey = np.full((40, 40, 3), 200.0, np.float32)
    warm = cool = dark = 0
    for seed in range(60):
        out = _uncorrected_light(np.random.default_rng(seed), grey.copy())
        b, g, r = out.reshape(-1, 3).mean(axis=0)
        warm += b < 0.8 * r and g < r  # an orange bulb's white
        cool += r < 0.9 * b and g < b  # a cold daylight's
        dark += max(b, g, r) < 120  # a dim room, exposure held
    assert warm >= 15 and cool >= 8 and dark >= 5
    lit = [make_scene(np.random.default_rng(s), out_size=(160, 120), kind="closeup", style=SceneStyle(light=1.0))[0]
           for s in range(8)]
    unlit = [make_scene(np.random.default_rng(s), out_size=(160, 120), kind="closeup")[0] for s in range(8)]
    assert sum(not np.array_equal(a, b) for a, b in zip(lit, unlit, strict=True)) == 8
