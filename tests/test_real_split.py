"""The honest protocol for real photos: leave-one-set-out folds, and no photo both trained on
and validated on (models.real_cards)."""

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.real_cards import (
    SETS,
    OverlapError,
    RealCard,
    check_disjoint,
    cut_out,
    folds,
    list_set,
    parse_sets,
    recolour,
)


def test_folds_hold_out_each_set_once():
    fs = folds()
    assert [held for _, held in fs] == list(SETS)
    for train, held in fs:
        assert held not in train and set(train) | {held} == set(SETS)


def test_parse_sets():
    assert parse_sets("all") == list(SETS)
    assert parse_sets("") == [] and parse_sets(None) == []
    assert parse_sets("mit, classic") == ["mit", "classic"]
    with pytest.raises(ValueError, match="unknown real set"):
        parse_sets("mit,nope")


def _card(s, f):
    return RealCard(s, f, "red-1", f"{s}/{f}")


def test_a_photo_in_both_lists_is_refused():
    train = [_card("mit", "a.png"), _card("mit", "b.png")]
    check_disjoint(train, [_card("classic", "a.png")])  # another set's a.png: fine
    with pytest.raises(OverlapError, match="mit/b.png"):
        check_disjoint(train, [_card("mit", "b.png")])


def test_the_same_bytes_under_another_name_are_refused():
    train = [RealCard("mit", "a.png", "red-1", "same")]
    with pytest.raises(OverlapError):
        check_disjoint(train, [RealCard("classic", "z.jpg", "red-1", "same")])


def test_list_set_reads_labels_and_hashes_bytes(tmp_path):
    folder = tmp_path / SETS["mit"].name
    folder.mkdir()
    for i in range(2):
        cv2.imwrite(str(folder / f"{i}.png"), np.full((30, 20, 3), i * 50, np.uint8))
    with open(folder / "labels.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "card"])
        w.writerows([["0.png", "red-1"], ["1.png", "blue-2"]])
    cards = list_set("mit", root=tmp_path)
    assert [c.card for c in cards] == ["red-1", "blue-2"]
    assert len({c.digest for c in cards}) == 2


def test_cut_out_is_upright_bgra():
    img = np.zeros((300, 400, 3), np.uint8)
    out = cut_out(img, np.float32([[100, 50], [200, 50], [200, 205], [100, 205]]))
    assert out.shape == (192, 124, 4) and (out[..., 3] == 255).all()


def test_recolour_keeps_the_colour_in_its_range():
    from models.crops import HUE_RANGES

    hsv = np.zeros((40, 30, 3), np.uint8)
    hsv[..., 0], hsv[..., 1], hsv[..., 2] = 65, 200, 180
    img = np.dstack([cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), np.full((40, 30), 255, np.uint8)])
    rng = np.random.default_rng(0)
    lo, hi = HUE_RANGES["green"]
    for _ in range(10):
        h = cv2.cvtColor(recolour(img, "green", rng)[..., :3], cv2.COLOR_BGR2HSV)[..., 0]
        assert lo - 1 <= float(np.median(h)) <= hi + 1
    assert recolour(img, "wild", rng) is img


@pytest.mark.skipif(not (SETS["mit"] / "labels.csv").is_file(), reason="no shared photos")
def test_the_shared_sets_do_not_share_a_photo():
    sets = {n: list_set(n) for n in SETS}
    for train, held in folds():
        check_disjoint([c for n in train for c in sets[n]], sets[held])
    assert Path(SETS["mit"]).is_dir()
