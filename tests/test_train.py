"""Tiny offline training runs: the pipeline trains without any download."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_tiny_offline_detector_training_run(tmp_path):
    from models.build_dataset import build

    build(seed=8, size=4, out=tmp_path / "ds", val_fraction=0.25, progress=False)
    env = dict(os.environ, UNO_TABLE_DATA=str(tmp_path / "data"), YOLO_OFFLINE="1")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "models",
            "train-detector",
            "--data",
            str(tmp_path / "ds/data.yaml"),
            "--epochs",
            "1",
            "--imgsz",
            "64",
            "--batch",
            "2",
            "--workers",
            "0",
            "--project",
            str(tmp_path / "runs"),
            "--name",
            "tiny",
            "--device",
            "cpu",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "runs/tiny/weights/best.pt").is_file()
    summary = json.loads((tmp_path / "runs/tiny/summary.json").read_text())
    assert summary["model"].endswith("yolo11p-card-obb.yaml") and summary["epochs"] == 1
    log = out.stdout + out.stderr
    assert "Downloading" not in log and "Arial" not in log


def test_detector_training_refuses_pretrained_weights():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "models",
            "train-detector",
            "--data",
            "x.yaml",
            "--model",
            "yolo11n.pt",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "train from a .yaml" in out.stderr


@pytest.mark.slow
def test_tiny_classifier_training_run(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "models",
            "train-classifier",
            "--epochs",
            "1",
            "--per-epoch",
            "32",
            "--batch",
            "16",
            "--bank",
            "1",
            "--val-per-class",
            "1",
            "--textures",
            "2",
            "--no-real",
            "--typefaces",
            "1.0",
            "--box-turn",
            "1.0",
            "--mirror",
            "0.5",
            "--shake",
            "1.0",
            "--outliers",
            "0.25",
            "--outlier-weight",
            "0.2",
            "--out",
            str(tmp_path / "cls"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "cls/best.pt").is_file()
    summary = json.loads((tmp_path / "cls/summary.json").read_text())
    assert summary["epochs_run"] == 1 and summary["crops_seen"] == 32
    # every printing's digits in a TrueType face, and the run says so
    recorded = json.loads((tmp_path / "cls/train_args.json").read_text())
    assert recorded["typefaces"] == 1.0
    # every box turned off its card and half the crops mirrored, and the run says so
    assert recorded["box_turn"] == 1.0 and recorded["mirror"] == 0.5
    assert recorded["shake"] == 1.0  # every crop smeared by a shake
    assert recorded["outliers"] == 0.25  # and a quarter as many crops with no card beside them
    assert recorded["outlier_weight"] == 0.2  # pulled towards no class that much


@pytest.mark.slow
def test_the_shipped_detector_is_recovered_from_its_onnx_file_for_fine_tuning(tmp_path, monkeypatch):
    import torch

    from models.build_dataset import build
    from models.detector_from_onnx import load, max_difference, save

    monkeypatch.setenv("UNO_TABLE_DATA", str(tmp_path / "data"))
    build(seed=8, size=8, out=tmp_path / "ds", val_fraction=0.25, progress=False)
    images = sorted((tmp_path / "ds/images/train").glob("*.jpg"))
    onnx_file = ROOT / "models/card_detector.onnx"
    model = load(onnx_file, images)
    assert max_difference(model, onnx_file, images[:3]) < 1e-2  # eval mode: the same function
    # train mode (batch statistics) on the images it was calibrated on: still about the same
    from models.detector_from_onnx import _letterbox

    x = torch.from_numpy(np.stack([_letterbox(p, 320) for p in images]))
    model.eval()
    with torch.no_grad():
        want = model(x)[0]
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.train()
        got = model(x)[0]
    assert float((got - want).abs().max()) < 0.05 * float(want.abs().max())
    out = save(model, tmp_path / "det.pt")
    ckpt = torch.load(out, weights_only=False)
    assert ckpt["model"].names == {0: "card"}


def test_a_classifier_started_from_its_onnx_file_keeps_its_readings_in_train_mode():
    import onnxruntime as ort
    import torch

    from models.crops import synth_crop
    from models.scenes import make_table
    from models.train_classifier import build_net, load_onnx_weights, render_bank
    from vision.crops import to_input

    onnx_file = ROOT / "models/card_classifier.onnx"
    rng = np.random.default_rng(3)
    textures = [make_table(rng, 64, 64) for _ in range(4)]
    bank = render_bank(9, 1, height=96, progress=False)
    x = to_input([synth_crop(rng, art, textures) for _, art in bank[:110]], False)
    want = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"]).run(None, {"crops": x})[0]

    def train_mode_logits(calibration):
        net = build_net()
        load_onnx_weights(net, onnx_file, calibration)
        net.train()
        with torch.no_grad():
            return net[:-2](torch.from_numpy(x)).flatten(1) @ net[-1].weight.T + net[-1].bias  # no dropout

    fitted = train_mode_logits(x).numpy()
    identity = train_mode_logits(None).numpy()
    agree = lambda z: float((z.argmax(1) == want.argmax(1)).mean())  # noqa: E731
    assert agree(fitted) > 0.98 and np.abs(fitted - want).max() < 0.05 * np.abs(want).max()
    assert agree(identity) < agree(fitted)  # plain identity norms: another function in train mode


@pytest.mark.parametrize("trainer", ["models.train_classifier", "models.train_corner"])
@pytest.mark.parametrize("given", ["30", "-0.1", "a third"])
def test_a_share_flag_outside_0_to_1_is_refused_by_name_before_training(trainer, given, tmp_path, capsys):
    """`--typefaces 30` meant 30% would make every printing TrueType: refused, saying which
    flag and why, and nothing is written."""
    import importlib

    main = importlib.import_module(trainer).main
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path / "run"), "--typefaces", given])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--typefaces" in err and "share from 0 to 1" in err
    assert not (tmp_path / "run").exists()


def test_a_share_flag_takes_0_and_1():
    from models import share

    assert share("0") == 0.0 and share("1") == 1.0 and share("0.3") == 0.3
