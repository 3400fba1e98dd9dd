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

from table.paths import offline_ultralytics

CARD_YAML = Path(__file__).resolve().parent / "cfg" / "yolo11p-card-obb.yaml"


def _letterbox(path: Path, size: int) -> np.ndarray:
    import cv2

    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"cannot read calibration image {path}")
    h, w = img.shape[:2]
    s = size / max(h, w)
    img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    out = np.full((size, size, 3), 114, np.uint8)
    y, x = (size - img.shape[0]) // 2, (size - img.shape[1]) // 2
    out[y: y + img.shape[0], x: x + img.shape[1]] = img
    return out[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0


def load(onnx_path: Path, calibration: list[Path], yaml: Path = CARD_YAML, imgsz: int = 320):
    """An ultralytics DetectionModel from `yaml` computing what `onnx_path` computes."""
    offline_ultralytics()
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import OBBModel

    init = {t.name: numpy_helper.to_array(t).copy() for t in onnx.load(str(onnx_path)).graph.initializer}
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
            m.weight.copy_(torch.from_numpy(init[f"{n}.weight"]))
            if m.bias is not None:
                m.bias.copy_(torch.from_numpy(init[f"{n}.bias"]))
        for n, m in convs:
            m.conv.weight.copy_(torch.from_numpy(init[f"{n}.conv.weight"]))
            m.bn.weight.fill_(1.0)
            m.bn.bias.copy_(torch.from_numpy(init[f"{n}.conv.bias"]))
            m.bn.running_mean.zero_()
            m.bn.running_var.fill_(1.0 - m.bn.eps)
    if calibration:
        fit_norms(model, [(m.conv, m.bn) for _, m in convs],
                  torch.from_numpy(np.stack([_letterbox(p, imgsz) for p in calibration])))
    model.names = {0: "card"}
    return model


def fit_norms(model, pairs, x) -> None:
    """Each (conv, batch norm) pair of `model`, whose norm is the identity plus the folded
    bias, refitted so that the layer computes the same with the batch statistics of `x`:
    (z - mu) / sqrt(var + eps) * gamma + beta == z + bias when gamma = sqrt(var + eps) and
    beta = bias + mu. The statistics are measured in eval mode, where every layer sees the
    folded function's input."""
    import torch

    stats: dict[int, tuple] = {}

    def hook(k):
        def fn(mod, inp, out):
            z = out.double()
            stats[k] = (z.mean((0, 2, 3)), z.var((0, 2, 3), unbiased=False))
        return fn

    was_training = model.training
    model.eval()
    handles = [conv.register_forward_hook(hook(k)) for k, (conv, _) in enumerate(pairs)]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    with torch.no_grad():
        for k, (_, bn) in enumerate(pairs):
            mu, var = stats[k]
            bn.running_mean.copy_(mu.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((bn.bias.double() + mu).float())
    model.train(was_training)


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
