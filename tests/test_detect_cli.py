"""`uno-table detect`: one JSON line per image exactly as the issue specifies, a readable
table without --json, annotated copies with --save, and a clear error for a bad path that
does not stop the other images."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.detectors as detectors
from app.cli import main
from vision.types import CardDetection

MODELS = Path(__file__).resolve().parent.parent / "models"
REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "real-cards-mit"


class FakeDetector:
    """Names one card per image, its box derived from the image size (so boxes are checked
    to be in pixels of the original image)."""

    name = "fake"
    timings: dict = {}

    def detect(self, image, truth=None):
        h, w = image.shape[:2]
        return [
            CardDetection("red-7", 0.9712, (0.1 * w, 0.2 * h, 0.5 * w, 0.9 * h), None, 0.99),
            CardDetection("wild-draw4", 0.61, (0.6 * w, 0.1 * h, 0.9 * w, 0.5 * h)),
        ]


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(detectors, "make_detector", lambda cfg: FakeDetector())


@pytest.fixture
def images(tmp_path):
    paths = []
    for name, (w, h) in {"table.jpg": (1280, 720), "close-up.png": (300, 480)}.items():
        p = tmp_path / name
        cv2.imwrite(str(p), np.full((h, w, 3), 128, np.uint8))
        paths.append(p)
    return paths


def test_json_lines_exactly_as_specified(fake, images, capsys):
    assert main(["detect", "--json", *map(str, images)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert list(first) == ["image", "cards"]
    assert first["image"] == str(images[0])  # the path as given
    assert first["cards"][0] == {"card": "red-7", "confidence": 0.9712, "box": [128.0, 144.0, 640.0, 648.0]}
    assert set(first["cards"][1]) == {"card", "confidence", "box"}
    second = json.loads(lines[1])
    assert second["cards"][0]["box"] == [30.0, 96.0, 150.0, 432.0]  # pixels of that image


def test_a_missing_image_is_reported_and_the_others_still_processed(fake, images, capsys, tmp_path):
    bad = tmp_path / "nope.jpg"
    corrupt = tmp_path / "corrupt.png"
    corrupt.write_bytes(b"garbage")
    rc = main(["detect", "--json", str(images[0]), str(bad), str(corrupt), str(images[1])])
    out, err = capsys.readouterr()
    assert rc != 0
    assert [json.loads(x)["image"] for x in out.strip().splitlines()] == [str(images[0]), str(images[1])]
    assert f"{bad}: no such file" in err
    assert f"{corrupt}: not a readable image" in err


def test_readable_table_and_annotated_copies(fake, images, capsys, tmp_path):
    out_dir = tmp_path / "annotated"
    assert main(["detect", "--save", str(out_dir), *map(str, images)]) == 0
    out = capsys.readouterr().out
    assert "CARD" in out and "red-7" in out and "0.97" in out and "wild-draw4" in out
    assert "unsure" not in out  # 0.97 and 0.61: both over the table's bar
    saved = sorted(p.name for p in out_dir.iterdir())
    assert saved == ["close-up.annotated.jpg", "table.annotated.jpg"]
    img = cv2.imread(str(out_dir / "table.annotated.jpg"))
    assert img.shape == (720, 1280, 3) and img.std() > 1  # something was drawn


def test_a_reading_under_the_tables_bar_is_said_to_be_unsure(monkeypatch, images, capsys):
    class Faint(FakeDetector):
        def detect(self, image, truth=None):
            return [CardDetection("green-7", 0.31, (0, 0, 10, 10)), CardDetection("red-2", 0.5, (20, 0, 30, 10))]

    monkeypatch.setattr(detectors, "make_detector", lambda cfg: Faint())
    assert main(["detect", str(images[0])]) == 0
    lines = {line.split()[1]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert "unsure" in lines["green-7"] and "0.31" in lines["green-7"]
    assert "unsure" not in lines["red-2"]  # at the bar: taken


def test_a_missing_model_file_is_a_clean_error(tmp_path, capsys, images):
    rc = main(["detect", "--model", str(tmp_path / "missing.onnx"), "--classifier",
               str(tmp_path / "missing_cls.onnx"), str(images[0])])
    assert rc == 2
    assert "missing" in capsys.readouterr().err


@pytest.mark.skipif(not (MODELS / "card_detector.onnx").is_file(), reason="shipped model not in models/ yet")
@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present")
def test_the_shipped_model_reads_real_photos(capsys):
    import csv

    rows = list(csv.DictReader((REAL / "labels.csv").open()))[:10]
    assert main(["detect", "--json", *[str(REAL / r["file"]) for r in rows]]) == 0
    got = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    right = sum(
        1 for r, g in zip(rows, got, strict=True)
        if g["cards"] and max(g["cards"], key=lambda c: c["confidence"])["card"] == r["card"]
    )
    assert right >= 9


@pytest.mark.skipif(not (MODELS / "card_detector.onnx").is_file(), reason="shipped model not in models/ yet")
def test_a_photo_saved_mirrored_is_read_and_says_so(tmp_path, capsys):
    from models.held import held_scene
    from vision.render import random_params, render_card

    rng = np.random.default_rng(len("red-7"))
    img, _ = held_scene(rng, render_card("red-7", height=400, rng=rng, params=random_params(rng, "2020s")))
    selfie, plain = tmp_path / "selfie.png", tmp_path / "plain.png"
    cv2.imwrite(str(selfie), np.ascontiguousarray(img[:, ::-1]))
    cv2.imwrite(str(plain), img)
    assert main(["detect", "--json", str(selfie), str(plain)]) == 0
    got = [json.loads(x)["cards"] for x in capsys.readouterr().out.strip().splitlines()]
    assert [c["card"] for c in got[0]] == ["red-7"] and got[0][0]["mirrored"] is True
    assert [c["card"] for c in got[1]] == ["red-7"] and "mirrored" not in got[1][0]
    assert main(["detect", str(selfie)]) == 0
    assert "read mirrored" in capsys.readouterr().out
