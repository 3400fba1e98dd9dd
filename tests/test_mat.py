"""The printable mat: the PDF, and finding the mat in a (warped) photo of it."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from app.cli import main
from vision.calibration import Calibration
from vision.config import CalibrationConfig
from vision.mat import MatLayout, find_mat, render_mat, write_mat_pdf


@pytest.mark.parametrize("paper,mm", [("A3", (420, 297)), ("A4", (297, 210))])
def test_mat_pdf_is_one_page_at_the_true_paper_size(tmp_path, paper, mm):
    out = write_mat_pdf(tmp_path / "mat.pdf", paper, dpi=100)
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and data.count(b"/MediaBox") == 1  # one page
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert box, "no page size in the PDF"
    w_pt, h_pt = float(box.group(1)), float(box.group(2))  # points: 1/72 inch
    assert w_pt / 72 * 25.4 == pytest.approx(mm[0], abs=1.5)
    assert h_pt / 72 * 25.4 == pytest.approx(mm[1], abs=1.5)


def test_mat_command_writes_the_pdf(tmp_path, capsys):
    assert main(["mat", "--out", str(tmp_path / "m.pdf"), "--paper", "A4", "--dpi", "72"]) == 0
    assert (tmp_path / "m.pdf").read_bytes()[:4] == b"%PDF"
    assert "A4" in capsys.readouterr().out


def _photo(paper: str, H: np.ndarray, size=(1280, 720), ppm=3.0) -> np.ndarray:
    """The mat printed, lying on a brown table, photographed through homography H
    (mat mm -> photo pixels), with noise and a little blur."""
    mat = render_mat(paper, ppm)
    S = np.diag([1 / ppm, 1 / ppm, 1.0])
    rng = np.random.default_rng(1)
    table = np.full((size[1], size[0], 3), (50, 80, 120), np.uint8)
    warped = cv2.warpPerspective(mat, H @ S, size, dst=table, borderMode=cv2.BORDER_TRANSPARENT)
    noisy = np.clip(warped.astype(np.int16) + rng.integers(-6, 7, warped.shape), 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(noisy, (3, 3), 0)


@pytest.mark.parametrize("paper", ["A3", "A4"])
def test_the_mat_is_found_in_a_warped_photo_and_zones_land_where_printed(paper):
    lay = MatLayout.for_paper(paper)
    src = np.array([[0, 0], [lay.width_mm, 0], [lay.width_mm, lay.height_mm], [0, lay.height_mm]], np.float32)
    dst = np.array([[250, 60], [1010, 90], [1150, 680], [130, 650]], np.float32)  # oblique view
    H = cv2.getPerspectiveTransform(src, dst)
    photo = _photo(paper, H)
    pose = find_mat(photo, paper)
    assert pose is not None and pose.markers == (0, 1, 2, 3)
    for name, poly_mm in lay.zone_polygons().items():
        expected = cv2.perspectiveTransform(poly_mm.reshape(-1, 1, 2), H).reshape(-1, 2)
        got = pose.zones()[name].polygon
        assert np.max(np.linalg.norm(got - expected, axis=1)) < 4.0, name
    # Straightened: the mat seen from above, markers where they were printed.
    flat = pose.straighten(photo, px_per_mm=2.0)
    assert flat.shape[:2] == (int(lay.height_mm * 2), int(lay.width_mm * 2))
    again = find_mat(flat, paper)
    assert again is not None
    corner = cv2.perspectiveTransform(np.array([[[0.0, 0.0]]], np.float32), again.to_frame)[0, 0]
    assert np.allclose(corner, [0, 0], atol=4)


def test_two_markers_are_enough_when_a_hand_hides_the_others():
    lay = MatLayout.for_paper("A3")
    src = np.array([[0, 0], [420, 0], [420, 297], [0, 297]], np.float32)
    H = cv2.getPerspectiveTransform(src, np.array([[150, 40], [1130, 40], [1180, 700], [100, 700]], np.float32))
    photo = _photo("A3", H)
    for i in (2, 3):  # cover two markers with a skin-coloured blob
        c = cv2.perspectiveTransform(lay.marker_corners()[i].reshape(-1, 1, 2), H).reshape(-1, 2).mean(axis=0)
        cv2.circle(photo, tuple(int(v) for v in c), 70, (120, 150, 210), -1)
    pose = find_mat(photo, "A3")
    assert pose is not None and pose.markers == (0, 1)
    assert find_mat(photo, "A3", min_markers=3) is None


def test_without_the_mat_zones_come_from_config_or_the_default_layout():
    blank = np.full((720, 1280, 3), 90, np.uint8)
    poly = {"discard": [(500, 100), (800, 100), (800, 400), (500, 400)],
            "draw": [(100, 100), (300, 100), (300, 400)],
            "reveal": [(100, 500), (1100, 500), (1100, 700), (100, 700)]}
    cal = Calibration(CalibrationConfig(use_mat=True, polygons=poly))
    zones, changed = cal.update(blank, 1)
    assert changed and zones.source == "config"
    assert zones.zone_of((650, 250)) == "discard" and zones.zone_of((150, 120)) == "draw"
    assert zones.zone_of((1200, 50)) is None
    zones, changed = Calibration(CalibrationConfig(use_mat=False)).update(blank, 1)
    assert zones.source == "default" and zones.zone_of((640, 200)) == "discard"
