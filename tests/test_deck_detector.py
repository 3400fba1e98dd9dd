"""`python -m models deck-detector`: the table's detector taught one deck. Its data: zone
crops of a simulated table labelled from the simulator's truth (the end-to-end run is in
test_deck.py, beside the small deck it teaches)."""

from __future__ import annotations

import numpy as np

from models.deck_detector import crop_labels, zone_crops
from vision.sim import SimTable, SimTruth


def _card(cx: float, cy: float, w: float = 60, h: float = 90) -> np.ndarray:
    return np.float32([(cx - w / 2, cy - h / 2), (cx + w / 2, cy - h / 2), (cx + w / 2, cy + h / 2), (cx - w / 2, cy + h / 2)])


def _quads(lines: list[str], box) -> list[np.ndarray]:
    x0, y0, x1, y1 = box
    return [np.array(ln.split()[1:], float).reshape(4, 2) * (x1 - x0, y1 - y0) + (x0, y0) for ln in lines]


def test_a_zone_crop_labels_the_cards_that_show_in_it_in_its_own_pixels():
    box = (100, 50, 400, 250)
    apart, cut = _card(200, 150), _card(420, 150)  # a sixth of the second inside the crop
    truth = SimTruth(cards=[("red-1", apart), ("blue-2", cut)], occluders=[])
    lines = crop_labels(truth, box, (720, 1280))
    assert len(lines) == 1 and lines[0].startswith("0 ")
    np.testing.assert_allclose(_quads(lines, box)[0], apart, atol=0.5)


def test_a_card_under_another_or_under_a_hand_gets_no_box():
    box = (0, 0, 640, 360)
    under, over = _card(200, 150), _card(205, 152)
    hand = _card(450, 150, 120, 140)
    truth = SimTruth(cards=[("red-1", under), ("blue-2", over), ("green-3", _card(450, 150))], occluders=[hand])
    lines = crop_labels(truth, box, (720, 1280))
    assert len(lines) == 1
    np.testing.assert_allclose(_quads(lines, box)[0], over, atol=0.5)


def test_the_crops_are_the_zones_the_pipeline_reads_and_hold_the_revealed_row():
    table = SimTable(seed=3, fps=4)
    row = ["red-1", "blue-2", "green-3", "yellow-4"]
    table.reveal(row)
    while table.pending:
        image, truth = table.next_frame()
    boxes = [box for box, _ in zone_crops(table, image.shape, 0.2)]
    assert len(boxes) == 2
    polys = table.zone_polygons_px()
    for name, (x0, y0, x1, y1) in zip(("discard", "reveal"), boxes, strict=True):
        p = np.asarray(polys[name])
        assert x0 <= p[:, 0].min() and p[:, 0].max() <= x1 and y0 <= p[:, 1].min() and p[:, 1].max() <= y1
    lines = crop_labels(truth, boxes[1], image.shape)
    assert len(lines) == len(row)
    want = [q for c, q in truth.cards if c in row]
    for q in _quads(lines, boxes[1]):
        assert min(float(np.abs(q - w).max()) for w in want) < 1.5
