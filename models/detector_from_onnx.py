"""Recover trainable detector weights from a shipped `card_detector.onnx`.

The repository keeps only the exported ONNX file (small, what the runtime needs), not the
ultralytics checkpoint it came from, and training the detector again from its `.yaml` takes
well over an hour here. The export keeps ultralytics' parameter names and folds each batch
norm into its convolution, so the network can be rebuilt from the `.yaml` and given the
folded weights; each batch norm is then set so that the layer computes the folded function
*with the batch statistics it will see in training* (measured on a few images), not only in
eval mode: a fine-tune starts where the shipped model is instead of relearning the norms.

    python -m models.detector_from_onnx --onnx models/card_detector.onnx \
        --images data/datasets/cards_ft/images/train --out data/runs/det_onnx.pt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from models.folded_norms import fit_norms, unfold
from table.paths import offline_ultralytics

CARD_YAML = Path(__file__).resolve().parent / "cfg" / "yolo11p-card-obb.yaml"


def _letterbox(path: Path, size: int) -> np.ndarray:
    """A training image as the detector's 3xHxW input (the recognizer's letterbox)."""
    import cv2

    from vision.recognizer import letterbox

    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"cannot read calibration image {path}")
    return letterbox(img, size)[0][0]


def load(onnx_path: Path, calibration: list[Path], yaml: Path = CARD_YAML, imgsz: int = 320):
    """An ultralytics DetectionModel from `yaml` computing what `onnx_path` computes."""
    offline_ultralytics()
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import OBBModel

    init = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(onnx_path)).graph.initializer}
    model = OBBModel(str(yaml), ch=3, nc=1, verbose=False)
    named = dict(model.named_modules())
    convs = [(n, m) for n, m in named.items() if isinstance(m, Conv) and hasattr(m, "bn")]
    plain = [
        (n, m) for n, m in named.items()
        if isinstance(m, torch.nn.Conv2d) and not any(n == c + ".conv" for c, _ in convs)
    ]
    missing = [n for n, _ in convs if f"{n}.conv.weight" not in init]
    missing += [n for n, m in plain if f"{n}.weight" not in init]
    if missing:
        raise ValueError(f"{onnx_path} does not match {yaml.name}: no weights for {missing[:5]}")
    with torch.no_grad():
        for n, m in plain:  # convolutions without a norm (the head's last layers, the DFL)
            m.weight.copy_(torch.from_numpy(np.array(init[f"{n}.weight"])))
            if m.bias is not None:
                m.bias.copy_(torch.from_numpy(np.array(init[f"{n}.bias"])))
    for n, m in convs:
        unfold(m.conv, m.bn, init[f"{n}.conv.weight"], init[f"{n}.conv.bias"])
    if calibration:
        fit_norms(model, [(m.conv, m.bn) for _, m in convs],
                  torch.from_numpy(np.stack([_letterbox(p, imgsz) for p in calibration])))
    model.names = {0: "card"}
    return model


def save(model, out: Path) -> Path:
    """An ultralytics checkpoint `train(pretrained=...)` loads."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "epoch": -1, "train_args": {}}, out)
    return out


def max_difference(model, onnx_path: Path, images: list[Path], imgsz: int = 320) -> float:
    """The largest difference between the rebuilt model's raw outputs and the ONNX file's."""
    import onnxruntime as ort
    import torch

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    model.eval()
    worst = 0.0
    for p in images:
        x = _letterbox(p, imgsz)[None]
        want = sess.run(None, {name: x})[0]
        with torch.no_grad():
            got = model(torch.from_numpy(x))
        got = (got[0] if isinstance(got, (list, tuple)) else got).numpy()
        worst = max(worst, float(np.abs(got - want).max()))
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.detector_from_onnx", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--onnx", type=Path, default=Path(__file__).resolve().parent / "card_detector.onnx")
    ap.add_argument("--images", type=Path, required=True, help="a folder of training images (batch-norm statistics)")
    ap.add_argument("--calibrate", type=int, default=32, help="how many of them")
    ap.add_argument("--out", type=Path, required=True, help="checkpoint to write (.pt)")
    args = ap.parse_args(argv)
    images = sorted(args.images.glob("*.jpg"))[: args.calibrate]
    if not images:
        ap.error(f"--images {args.images}: no .jpg images there")
    model = load(args.onnx, images)
    diff = max_difference(model, args.onnx, images[:4])
    save(model, args.out)
    print(f"wrote {args.out}: outputs within {diff:.2e} of {args.onnx.name} on 4 images")
    return 0 if diff < 1e-2 else 1


if __name__ == "__main__":
    sys.exit(main())
