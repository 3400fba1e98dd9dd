"""The dataset builder writes a YOLO-OBB folder whose labels lie inside the images."""

import json

import cv2

from models.build_dataset import build
from vision.render import ALL_FACES, BACK


def test_build_writes_consistent_yolo_obb_dataset(tmp_path):
    summary = build(seed=3, size=6, out=tmp_path / "ds", val_fraction=0.34, progress=False)
    root = tmp_path / "ds"
    assert summary["images"] == 6 and summary["val_images"] == 2
    assert (root / "data.yaml").read_text().count("card") == 1
    images = sorted((root / "images").rglob("*.jpg"))
    assert len(images) == 6
    boxes = 0
    for img_path in images:
        split = img_path.parent.name
        img = cv2.imread(str(img_path))
        assert img is not None and img.ndim == 3
        label = root / "labels" / split / (img_path.stem + ".txt")
        for line in label.read_text().split("\n"):
            if not line:
                continue
            parts = line.split()
            assert parts[0] == "0"
            coords = [float(v) for v in parts[1:]]
            assert len(coords) == 8 and all(0.0 <= v <= 1.0 for v in coords)
            boxes += 1
        meta = json.loads((root / "meta" / split / (img_path.stem + ".json")).read_text())
        assert meta["width"] == img.shape[1] and meta["height"] == img.shape[0]
        for card in meta["cards"]:
            assert card["card"] in set(ALL_FACES) | {BACK}
            assert 0 < card["visible"] <= 1
    assert boxes == summary["boxes"] > 0


def test_build_is_deterministic_for_a_seed(tmp_path):
    build(seed=4, size=3, out=tmp_path / "a", progress=False)
    build(seed=4, size=3, out=tmp_path / "b", progress=False)
    for f in sorted((tmp_path / "a" / "labels").rglob("*.txt")):
        twin = tmp_path / "b" / f.relative_to(tmp_path / "a")
        assert f.read_text() == twin.read_text()


def test_the_cli_pastes_real_cards_says_which_photos_and_boxes_cards_shown_by_their_index(tmp_path):
    from models.build_dataset import main
    from models.real_cards import SETS, list_set

    out = tmp_path / "ds"
    assert main(["--seed", "6", "--size", "4", "--out", str(out), "--real", "classic", "--real-share", "1",
                 "--white", "1", "--index-visible", "0.25", "--kinds", "table=1"]) == 0
    listed = (out / "real_photos.txt").read_text().split()
    assert len(listed) == len(list_set("classic")) and all(p.startswith("classic/") for p in listed)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["style"]["real_cards"] == len(listed) and summary["index_min"] == 0.25
    cards = [c for m in (out / "meta").rglob("*.json") for c in json.loads(m.read_text())["cards"]]
    classic = {lab for lab in (r.card for r in list_set("classic"))}
    faces = [c for c in cards if c["card"] != BACK]
    assert faces and all(c["card"] in classic for c in faces)  # every face a real classic photo
    assert SETS["classic"].is_dir()


def test_an_unknown_real_set_is_a_clear_error(tmp_path, capsys):
    import pytest

    from models.build_dataset import main

    with pytest.raises(SystemExit):
        main(["--size", "2", "--out", str(tmp_path / "x"), "--real", "nope"])
    assert "unknown real set" in capsys.readouterr().err
