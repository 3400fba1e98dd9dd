"""tools/angle_probe.py: a card laid where and as it says, and the reads counted per printing
and per digit (the recognizer stubbed; the tool's own run takes minutes)."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

spec = importlib.util.spec_from_file_location("angle_probe", Path(__file__).parents[1] / "tools" / "angle_probe.py")
angle_probe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(angle_probe)


def test_a_card_is_laid_at_the_centre_turned_and_sized_as_asked():
    face = np.full((220, 142, 4), 255, np.uint8)  # a white card, opaque
    img = angle_probe.on_table(face, 37.0, 170)
    mask = (img.min(axis=2) > 200).astype(np.uint8)
    (cx, cy), (w, h), a = cv2.minAreaRect(cv2.findNonZero(mask))
    assert abs(cx - 180) < 2 and abs(cy - 180) < 2
    assert abs(max(w, h) - 170) < 4 and abs(min(w, h) - 170 * 142 / 220) < 4
    turn = a if w < h else a - 90.0
    assert min(abs(turn - 37.0) % 180, 180 - abs(turn - 37.0) % 180) < 2


def test_every_turn_and_size_is_read_and_misses_are_counted_per_digit(monkeypatch):
    art = np.zeros((220, 142, 4), np.uint8)
    items = [("tests", "red-7", art), ("classic", "blue-1", art)]
    reads = []

    def recognize(image):
        reads.append(image.shape)
        card = "red-1" if len(reads) <= len(angle_probe.TURNS) * len(angle_probe.SIZES) else "blue-1"
        return [SimpleNamespace(card=card, confidence=0.9)]

    monkeypatch.setattr(angle_probe, "COLOURS", ("red",))  # 10 cards a printing in the totals
    out = angle_probe.probe(SimpleNamespace(recognize=recognize), items)
    per_card = len(angle_probe.TURNS) * len(angle_probe.SIZES)
    assert len(reads) == 2 * per_card
    assert out["tests"] == f"0/{10 * per_card}" and out["classic"] == f"{per_card}/{10 * per_card}"
    assert out["digit_misses"] == {"7 -> 1": per_card} and out["misses"] == {"red-7 -> red-1": per_card}
