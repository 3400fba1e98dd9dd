"""`uno-table doctor`: is this machine ready to run the table? Each check says OK, WARN or
FAIL with the reason; FAIL means something required is missing (exit code 1).

Nothing here may hang: the camera is probed in a child process with a timeout, because a
camera stack (libcamera, a USB webcam mid-reset) can block forever inside a C call.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from firmware_config.errors import GPIOUnavailableError, PinMapError

Status = Literal["OK", "WARN", "FAIL"]
PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PORT = 8000
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    required: bool
    info: dict = field(default_factory=dict)


@dataclass
class DoctorOptions:
    pin_map: Path | None = None  # None: the default pin map
    data_dir: Path | None = None  # None: table.paths.data_dir()
    model_dirs: list[Path] | None = None  # None: models/ and <data>/models
    port: int = DEFAULT_PORT
    host: str = "0.0.0.0"
    mock_gpio: bool = False
    require_camera: bool = False
    require_gpio: bool = False
    camera_timeout: float = 10.0


def _fail_or_warn(required: bool) -> Status:
    return "FAIL" if required else "WARN"


# ---------------------------------------------------------------------------------- camera

# Runs in a child process; prints one JSON line. Tries the Pi camera first, then OpenCV.
CAMERA_PROBE = r"""
import glob, json, os, re, sys
out = {"picamera2": None, "picamera2_error": None, "numpy": None, "opencv": None, "errors": []}
def first_line(exc):
    return f"{type(exc).__name__}: " + (str(exc).strip().splitlines() or [""])[0][:200]
try:
    from picamera2 import Picamera2
except ImportError as exc:
    if exc.name != "picamera2":  # installed, but a part of it does not load
        out["picamera2_error"] = first_line(exc)
except Exception as exc:  # an ABI clash: ValueError, AttributeError
    out["picamera2_error"] = first_line(exc)
else:
    try:
        cams = Picamera2.global_camera_info()
        out["picamera2"] = [c.get("Model", "camera") for c in cams]
    except Exception as exc:
        out["errors"].append(f"picamera2: {exc}")
try:
    import numpy
    out["numpy"] = f"{numpy.__version__} from {numpy.__file__}"
except Exception as exc:
    out["numpy"] = first_line(exc)
if not out["picamera2"]:
    os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
    try:
        import cv2
        nodes = sorted(int(m.group(1)) for p in glob.glob("/dev/video*") if (m := re.search(r"video(\d+)$", p)))
        indexes = nodes[:8] if sys.platform.startswith("linux") else list(range(4))
        for index in indexes:
            cap = cv2.VideoCapture(index)
            try:
                if cap.isOpened():
                    ok, frame = cap.read()
                    if ok and frame is not None:
                        out["opencv"] = {"index": index, "width": int(frame.shape[1]), "height": int(frame.shape[0])}
                        break
            finally:
                cap.release()
    except Exception as exc:
        out["errors"].append(f"opencv: {exc}")
print(json.dumps(out))
"""


def picamera2_broken(error: str, numpy: str | None) -> str:
    """picamera2 is there but does not load: say why and what mends it. `uno-table run`
    refuses to start the same way (vision.sources.picam.load_picamera2)."""
    text = f"picamera2 is installed but cannot be loaded ({error})"
    if any(s in error for s in ("numpy", "_ARRAY_API", "dtype size changed", "multiarray")):
        return (
            f"{text}: its compiled parts were built for apt's numpy 1.x and this Python loads "
            f"numpy {numpy or '(unknown)'}: make the venv as the README's Pi steps do "
            "(`python3 -m venv --system-site-packages .venv`, then `pip install -e .`, which keeps "
            "numpy below 2 on a Pi), or `pip uninstall numpy` in the venv to fall back on apt's"
        )
    return f"{text}: reinstall it (`sudo apt install --reinstall python3-picamera2`)"


def check_camera(
    required: bool = False, timeout: float = 10.0, probe: str = CAMERA_PROBE, quick: bool = True
) -> Check:
    """`quick`: on Linux without picamera2 and without /dev/video*, answer without probing."""
    status_if_missing = _fail_or_warn(required)
    why_optional = "" if required else " (fine for the simulated table and video files)"
    has_picamera2 = importlib.util.find_spec("picamera2") is not None
    if quick and sys.platform.startswith("linux") and not has_picamera2 and not glob.glob("/dev/video*"):
        return Check(
            "camera", status_if_missing,
            "no camera: picamera2 is not installed and there is no /dev/video* device" + why_optional,
            required, {"kind": None},
        )  # fmt: skip
    try:
        result = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return Check(
            "camera", status_if_missing,
            f"camera probe gave no answer within {timeout:g} s (a camera stack is hanging; "
            "unplug and replug a USB camera, or check `rpicam-hello --list-cameras` on a Pi)",
            required, {"kind": None, "timeout_s": timeout},
        )  # fmt: skip
    try:
        found = json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        err = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return Check("camera", status_if_missing, f"camera probe failed: {err}", required, {"kind": None})
    if found.get("picamera2_error"):
        return Check(
            "camera", "FAIL", picamera2_broken(found["picamera2_error"], found.get("numpy")), required,
            {"kind": None, "picamera2_error": found["picamera2_error"], "numpy": found.get("numpy")},
        )  # fmt: skip
    if found.get("picamera2"):
        models = ", ".join(found["picamera2"])
        return Check("camera", "OK", f"Pi camera via picamera2: {models}", required,
                     {"kind": "picamera2", "models": found["picamera2"]})  # fmt: skip
    if found.get("opencv"):
        cam = found["opencv"]
        return Check(
            "camera", "OK",
            f"OpenCV camera at index {cam['index']} ({cam['width']}x{cam['height']})",
            required, {"kind": "opencv", **cam},
        )  # fmt: skip
    errors = "; ".join(found.get("errors") or [])
    detail = "no camera opened (picamera2 " + ("found no camera" if has_picamera2 else "not installed")
    detail += ", no OpenCV device gave a frame)" + (f": {errors}" if errors else "") + why_optional
    return Check("camera", status_if_missing, detail, required, {"kind": None})


# ------------------------------------------------------------------------------------ gpio


def check_gpio(mock_gpio: bool = False, required: bool = False) -> Check:
    from firmware_config.gpio import real_pin_factory

    try:
        factory = real_pin_factory()
    except GPIOUnavailableError as exc:
        if mock_gpio:
            return Check("gpio", "OK", "mock pins (--mock-gpio): no GPIO on this machine", required,
                         {"kind": "mock"})  # fmt: skip
        return Check(
            "gpio", _fail_or_warn(required),
            f"{exc} (`uno-table demo` mocks GPIO by default)", required, {"kind": None},
        )  # fmt: skip
    name = type(factory).__name__
    try:
        factory.close()
    except Exception:  # noqa: BLE001 - only probing; nothing to release
        pass
    kind = "mock" if "Mock" in name else "real"
    return Check("gpio", "OK", f"{'mock' if kind == 'mock' else 'real'} GPIO ({name})", required,
                 {"kind": kind, "factory": name})  # fmt: skip


# --------------------------------------------------------------------------------- pin map


def check_pin_map(path: Path | None) -> Check:
    from firmware_config.pinmap import load_pin_map

    try:
        pin_map = load_pin_map(path)
    except PinMapError as exc:
        return Check("pin_map", "FAIL", str(exc), True,
                     {"problems": [str(p) for p in exc.problems]})  # fmt: skip
    where = str(pin_map.source)
    info = {"path": where, "seats": len(pin_map.seats), "warnings": pin_map.warnings}
    if pin_map.warnings:
        return Check("pin_map", "WARN", f"{where}: {pin_map.summary()}; " + "; ".join(pin_map.warnings), True, info)
    return Check("pin_map", "OK", f"{where}: {pin_map.summary()}", True, info)


# ---------------------------------------------------------------------------------- models


def check_models(dirs: list[Path]) -> Check:
    files = sorted({p.resolve() for d in dirs if d.is_dir() for p in d.glob("*.onnx")})
    searched = ", ".join(str(d) for d in dirs)
    if not files:
        return Check(
            "models", "FAIL",
            f"no ONNX model in {searched}: the card model must be trained and exported first "
            "(models/, see its model card)",
            True, {"files": [], "searched": [str(d) for d in dirs]},
        )  # fmt: skip
    try:
        import onnxruntime as ort
    except ImportError as exc:
        return Check("models", "FAIL", f"onnxruntime cannot be imported: {exc}", True, {"files": [str(f) for f in files]})
    loaded, broken = [], []
    for path in files:
        try:
            session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            inputs = [f"{i.name}{list(i.shape)}" for i in session.get_inputs()]
            loaded.append({"path": str(path), "inputs": inputs, "mb": round(path.stat().st_size / 1e6, 2)})
        except Exception as exc:  # noqa: BLE001 - any load failure is the finding
            broken.append({"path": str(path), "error": str(exc).splitlines()[0][:200]})
    info = {"files": loaded, "broken": broken}
    if broken:
        names = "; ".join(f"{b['path']}: {b['error']}" for b in broken)
        return Check("models", "FAIL", f"cannot load {names}", True, info)
    names = ", ".join(f"{Path(m['path']).name} ({m['mb']} MB, inputs {' '.join(m['inputs'])})" for m in loaded)
    return Check("models", "OK", f"{len(loaded)} loaded with ONNX Runtime: {names}", True, info)


# ------------------------------------------------------------------------------ data dir, db


def check_data_dir(path: Path) -> Check:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-", delete=True) as handle:
            handle.write(b"ok")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        return Check("data_dir", "FAIL", f"{path} is not writable: {exc.strerror or exc}", True, {"path": str(path)})
    return Check("data_dir", "OK", f"{path} is writable", True, {"path": str(path)})


def check_database(data_dir: Path) -> Check:
    files = sorted(p for p in data_dir.glob("*") if p.suffix in DB_SUFFIXES and p.is_file()) if data_dir.is_dir() else []
    if not files:
        return Check("database", "OK", f"no database yet in {data_dir}: the first run creates it", True, {"files": []})
    good, bad = [], []
    for path in files:
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
            try:
                verdict = db.execute("PRAGMA quick_check").fetchone()[0]
                tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            finally:
                db.close()
            if verdict != "ok":
                bad.append(f"{path.name}: {verdict}")
            else:
                good.append({"path": str(path), "tables": len(tables)})
        except sqlite3.Error as exc:
            bad.append(f"{path.name}: {exc}")
    info = {"files": good, "broken": bad}
    if bad:
        return Check("database", "FAIL", "cannot read " + "; ".join(bad), True, info)
    names = ", ".join(f"{Path(g['path']).name} ({g['tables']} tables)" for g in good)
    return Check("database", "OK", f"readable: {names}", True, info)


# ------------------------------------------------------------------------------------ port


def check_port(port: int, host: str = "0.0.0.0") -> Check:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # As a server would bind it: SO_REUSEADDR, so a socket in TIME_WAIT does not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        return Check(
            "port", "FAIL",
            f"dashboard port {port} on {host} is not free ({exc.strerror or exc}): is uno-table "
            "already running? Stop it or choose another port",
            True, {"port": port},
        )  # fmt: skip
    finally:
        sock.close()
    return Check("port", "OK", f"dashboard port {port} is free", True, {"port": port})


# ---------------------------------------------------------------------------------- runner


def run_doctor(options: DoctorOptions) -> list[Check]:
    if options.data_dir is None:
        from table.paths import PROJECT_ROOT as ROOT
        from table.paths import data_dir

        try:
            data = data_dir()
        except OSError:  # cannot even be created: the data_dir check reports it
            env = os.environ.get("UNO_TABLE_DATA")
            data = Path(env).expanduser() if env else ROOT / "data"
    else:
        data = Path(options.data_dir)
    model_dirs = options.model_dirs if options.model_dirs is not None else [PROJECT_ROOT / "models", data / "models"]
    return [
        check_camera(options.require_camera, options.camera_timeout),
        check_gpio(options.mock_gpio, options.require_gpio),
        check_pin_map(options.pin_map),
        check_models(model_dirs),
        check_data_dir(data),
        check_database(data),
        check_port(options.port, options.host),
    ]


def report_json(checks: list[Check]) -> dict:
    counts = {s: sum(c.status == s for c in checks) for s in ("OK", "WARN", "FAIL")}
    return {"ok": counts["FAIL"] == 0, "counts": counts, "checks": [asdict(c) for c in checks]}


def report_text(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"{c.status:<4}  {c.name:<{width}}  {c.detail}" for c in checks]
    counts = report_json(checks)["counts"]
    verdict = "ready" if counts["FAIL"] == 0 else "something required is missing"
    lines.append(f"{counts['OK']} OK, {counts['WARN']} WARN, {counts['FAIL']} FAIL: {verdict}")
    return "\n".join(lines)


def exit_code(checks: list[Check]) -> int:
    return 1 if any(c.status == "FAIL" for c in checks) else 0
