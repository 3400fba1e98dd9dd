"""Real faces on the simulated table (vision.real_faces, SimTable(faces=...))."""

import csv

import cv2
import numpy as np
import pytest

from vision.real_faces import faces_dir, load_faces
from vision.sim import SimTable


@pytest.fixture()
def photo_folder(tmp_path):
    """Two 'photos' of single cards: a flat magenta card with a white border."""
    rows = []
    for i, card in enumerate(["red-7", "blue-2"]):
        img = np.full((174, 112, 3), 255, np.uint8)
        img[10:-10, 10:-10] = (200, 0, 200) if i == 0 else (200, 120, 0)
        cv2.imwrite(str(tmp_path / f"{i}.png"), img)
        rows.append([f"{i}.png", card])
    cv2.imwrite(str(tmp_path / "wide.png"), np.full((112, 174, 3), 255, np.uint8))
    rows.append(["wide.png", "green-3"])
    with open(tmp_path / "labels.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "card"])
        w.writerows(rows)
    return tmp_path


def test_load_faces_cuts_upright_bgra_with_round_corners(photo_folder):
    faces = load_faces(photo_folder)
    assert sorted(faces) == ["blue-2", "green-3", "red-7"]
    img = faces["red-7"][0]
    assert img.shape == (174, 112, 4)
    assert img[0, 0, 3] == 0 and img[87, 56, 3] == 255  # a corner cut round, the middle kept
    assert faces["green-3"][0].shape[0] > faces["green-3"][0].shape[1]  # turned upright


def test_excluded_photos_are_left_out(photo_folder):
    assert "red-7" not in load_faces(photo_folder, exclude={"0.png"})


def test_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        faces_dir("no-such-set-here")


def test_the_sim_draws_a_played_card_from_its_photo(photo_folder):
    table = SimTable(seed=2, width=640, height=360, faces=load_faces(photo_folder))
    table.play(["red-7"])
    while table.pending:
        image, truth = table.next_frame()
    quad = dict(truth.cards)["red-7"]
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [quad.astype(np.int32)], 1)
    inner = cv2.erode(mask, np.ones((9, 9), np.uint8)).astype(bool)
    b, g, r = (image[inner].astype(float).mean(axis=0))
    assert b > 120 and r > 120 and g < 80  # magenta: the photo, not a rendered red card


def test_faces_without_a_photo_are_rendered(photo_folder):
    table = SimTable(seed=2, width=640, height=360, faces=load_faces(photo_folder))
    assert table._card_image("yellow-5").shape[2] == 4
