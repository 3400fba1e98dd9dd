"""Where the project keeps its data: the database, model overrides, generated datasets and
ultralytics' own config dir (so nothing is written to, or fetched into, the home folder)."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """The data dir: $UNO_TABLE_DATA, else ./data beside the project checkout."""
    env = os.environ.get("UNO_TABLE_DATA")
    path = Path(env).expanduser() if env else PROJECT_ROOT / "data"
    path.mkdir(parents=True, exist_ok=True)
    return path


def offline_ultralytics() -> Path:
    """Point ultralytics at a config dir inside the data dir and forbid downloads.

    Call before importing ultralytics."""
    cfg = data_dir() / "ultralytics"
    cfg.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    os.environ["YOLO_OFFLINE"] = "1"
    return cfg
