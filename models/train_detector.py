"""Train the card detector (ultralytics YOLO, oriented boxes) from a model .yaml, offline.

    python -m models.train_detector --data data/datasets/cards/data.yaml --hours 1.2

Nothing is downloaded: the network starts from random weights defined by the .yaml, plots
are off (they would fetch a font), and ultralytics' settings live in the data dir.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from table.paths import data_dir, offline_ultralytics

CARD_YAML = Path(__file__).resolve().parent / "cfg" / "yolo11p-card-obb.yaml"


def train(
    data: Path,
    model: str = str(CARD_YAML),
    epochs: int = 30,
    imgsz: int = 320,
    batch: int = 32,
    hours: float | None = None,
    seed: int = 0,
    workers: int = 2,
    project: Path | None = None,
    name: str = "detector",
    device: str | None = None,
    init: Path | None = None,
    lr0: float | None = None,
) -> dict:
    """Train and return a summary: best weights path, seconds, final metrics."""
    offline_ultralytics()
    from ultralytics import YOLO  # heavy; only for training

    if not Path(data).is_file():
        raise FileNotFoundError(
            f"dataset yaml not found: {data} (build it with models.build_dataset)"
        )
    project = Path(project or data_dir() / "runs").resolve()
    t0 = time.time()
    yolo = YOLO(model)
    kwargs = dict(
        data=str(data),
        epochs=epochs,
        imgsz=imgsz,
        batch=batch,
        seed=seed,
        deterministic=True,
        workers=workers,
        project=str(project),
        name=name,
        exist_ok=True,
        plots=False,
        pretrained=str(init) if init else False,
        amp=False,
        verbose=True,
        patience=100,
        # the scenes already vary angle, scale and colour; keep the geometry labels exact
        degrees=0.0,
        fliplr=0.5,
        flipud=0.0,
        mosaic=1.0,
        close_mosaic=3,
        scale=0.5,
    )
    if device is not None:
        kwargs["device"] = device
    if init:
        if not Path(init).is_file():
            raise FileNotFoundError(f"--init weights not found: {init}")
        # fine-tuning our own earlier run: gentle start, short warm-up
        kwargs.update(warmup_epochs=0.5, close_mosaic=1)
    if lr0 is not None:
        # ultralytics' optimizer "auto" picks its own rate and ignores lr0: name one
        kwargs.update(optimizer="AdamW", lr0=lr0)
    if hours:
        kwargs["time"] = hours
    results = yolo.train(**kwargs)
    seconds = time.time() - t0
    best = Path(yolo.trainer.best)
    summary = {
        "model": model,
        "data": str(data),
        "epochs": epochs,
        "imgsz": imgsz,
        "batch": batch,
        "seed": seed,
        "init": str(init) if init else None,
        "seconds": round(seconds, 1),
        "best": str(best),
        "metrics": {k: float(v) for k, v in (getattr(results, "results_dict", {}) or {}).items()},
    }
    (best.parent.parent / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m models.train_detector",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--data", type=Path, required=True, help="dataset data.yaml")
    ap.add_argument(
        "--model",
        default=str(CARD_YAML),
        help="model .yaml, never a .pt (default: models/cfg/yolo11p-card-obb.yaml; "
        "'yolo11n-obb.yaml' names ultralytics' own)",
    )
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--hours", type=float, default=None, help="hard time limit (hours)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="dataloader workers")
    ap.add_argument("--project", type=Path, default=None, help="runs folder (default data/runs)")
    ap.add_argument("--name", default="detector")
    ap.add_argument("--device", default=None, help="'cpu', '0' for the first GPU (default auto)")
    ap.add_argument("--init", type=Path, default=None, help="fine-tune from our own weights (.pt)")
    ap.add_argument("--lr0", type=float, default=None, help="initial learning rate, with AdamW (default: ultralytics "
                    "picks the optimizer and its rate itself, AdamW 0.002 for a short run)")
    args = ap.parse_args(argv)
    if not args.model.endswith(".yaml"):
        ap.error(f"--model {args.model}: train from a .yaml; pretrained .pt weights are not used")
    summary = train(
        args.data,
        args.model,
        args.epochs,
        args.imgsz,
        args.batch,
        args.hours,
        args.seed,
        args.workers,
        args.project,
        args.name,
        args.device,
        args.init,
        args.lr0,
    )
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
