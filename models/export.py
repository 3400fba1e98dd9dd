"""Export trained weights to the ONNX files the runtime loads (ONNX Runtime only).

    python -m models.export --detector data/runs/det/weights/best.pt \\
        --classifier data/runs/cls/best.pt --out models/

Writes card_detector.onnx (YOLO oriented boxes, any input size: `imgsz` and `stride` in its metadata) and card_classifier.onnx
(54 faces + back on 96x64 crops, dynamic batch), each with its metadata (class names, input
size, and the crops' colour normalisation when the training used one) stored in the ONNX
file itself.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from models.crops import CLASSES, CROP_H, CROP_W

DETECTOR_FILE = "card_detector.onnx"
CLASSIFIER_FILE = "card_classifier.onnx"


def export_detector(weights: Path, out: Path, imgsz: int = 320) -> Path:
    from table.paths import offline_ultralytics

    offline_ultralytics()
    from ultralytics import YOLO

    if not Path(weights).is_file():
        raise FileNotFoundError(f"detector weights not found: {weights}")
    # any input size: the recognizer pads a zone only to the next multiple of the stride, so a
    # long thin zone costs the detector a third of a square's pixels (`recognizer.letterbox`)
    path = YOLO(str(weights)).export(
        format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=True, nms=False
    )
    out.mkdir(parents=True, exist_ok=True)
    dest = out / DETECTOR_FILE
    shutil.copyfile(path, dest)
    return dest


def keep_metadata(source: Path, dest: Path) -> None:
    """`dest`'s metadata replaced by `source`'s, but for `dest`'s own export `args`."""
    import onnx

    old, new = onnx.load(str(source)), onnx.load(str(dest))
    meta = {p.key: p.value for p in old.metadata_props}
    meta["args"] = {p.key: p.value for p in new.metadata_props}.get("args", meta.get("args", ""))
    del new.metadata_props[:]
    for k, v in meta.items():
        entry = new.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(new, str(dest))


def export_classifier(weights: Path, out: Path) -> Path:
    import onnx
    import torch

    from models.train_classifier import build_net

    if not Path(weights).is_file():
        raise FileNotFoundError(f"classifier weights not found: {weights}")
    net = build_net()
    net.load_state_dict(torch.load(weights, map_location="cpu"))
    net.eval()
    out.mkdir(parents=True, exist_ok=True)
    dest = out / CLASSIFIER_FILE
    dummy = torch.zeros(1, 3, CROP_H, CROP_W)
    torch.onnx.export(
        net,
        dummy,
        str(dest),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    model = onnx.load(str(dest))
    meta = {
        "names": json.dumps(list(CLASSES)),
        "input": "RGB float 0..1, NCHW",
        "crop": json.dumps([CROP_H, CROP_W]),
    }
    # how the crops were prepared in training (train_args.json beside the weights): the
    # recognizer reads it and prepares its crops the same way
    args_file = Path(weights).parent / "train_args.json"
    colour = json.loads(args_file.read_text()).get("colour") if args_file.is_file() else None
    if colour:
        meta["colour"] = colour
    write_metadata(model, meta, dest)
    return dest


def write_metadata(model, meta: dict[str, str], dest: Path) -> None:
    """Save an ONNX model with `meta` added to its metadata (what the recognizer reads)."""
    import onnx

    for k, v in meta.items():
        p = model.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(model, str(dest))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.export",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--detector", type=Path, help="ultralytics best.pt of the detector")
    ap.add_argument("--classifier", type=Path, help="best.pt of the classifier")
    ap.add_argument("--imgsz", type=int, default=320, help="detector input size (default 320)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    ap.add_argument(
        "--metadata-from",
        type=Path,
        default=None,
        help="a detector .onnx whose metadata (its training's description and date) the new "
        "detector keeps, only its export `args` new: a shipped detector re-exported from "
        "its own weights (`models.detector_from_onnx`)",
    )
    args = ap.parse_args(argv)
    if not args.detector and not args.classifier:
        ap.error("nothing to export: give --detector and/or --classifier")
    if args.detector:
        p = export_detector(args.detector, args.out, args.imgsz)
        if args.metadata_from:
            keep_metadata(args.metadata_from, p)
        print(f"detector -> {p} ({p.stat().st_size / 1e6:.1f} MB)")
    if args.classifier:
        p = export_classifier(args.classifier, args.out)
        print(f"classifier -> {p} ({p.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
