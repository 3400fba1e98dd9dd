"""A Pi camera stack that does not load: `doctor` says why, `run` refuses with a message, and
neither prints a traceback.

apt's picamera2 imports compiled modules (simplejpeg, libcamera's bindings) built for apt's
numpy 1.x. With a numpy 2 in front of it they fail with ValueError or AttributeError, not
ImportError, and numpy 2 prints its own traceback-like warning first. A stand-in `picamera2`
package on the path does the same here.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_config.doctor import check_camera
from vision.config import PiCameraSourceConfig
from vision.errors import CameraError
from vision.sources import check_source, make_source

ROOT = Path(__file__).resolve().parent.parent

NUMPY_NOISE = (
    "\nA module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.4.6 as it may crash.\n"
    "Traceback (most recent call last):  File \"<stdin>\", line 1, in <module>\n"
)
FAILURES = {
    "ValueError": "numpy.dtype size changed, may indicate binary incompatibility. "
    "Expected 96 from C header, got 88 from PyObject",
    "AttributeError": "_ARRAY_API not found",
    "ImportError": "numpy.core.multiarray failed to import",
}


def broken_picamera2(root: Path, kind: str) -> Path:
    pkg = root / "picamera2"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        f"import sys\nsys.stderr.write({NUMPY_NOISE!r})\nraise {kind}({FAILURES[kind]!r})\n"
    )
    return root


@pytest.fixture
def on_path(monkeypatch):
    def put(root: Path) -> None:
        monkeypatch.syspath_prepend(str(root))
        monkeypatch.delitem(sys.modules, "picamera2", raising=False)
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), str(ROOT)]))

    return put


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_camera_stack_that_fails_to_load_is_a_camera_error_that_says_why(tmp_path, on_path, capsys, kind):
    on_path(broken_picamera2(tmp_path, kind))
    with pytest.raises(CameraError) as err:
        check_source(PiCameraSourceConfig())
    text = str(err.value)
    assert "picamera2 is installed but cannot be loaded" in text and FAILURES[kind][:20] in text
    assert "numpy" in text and "--system-site-packages" in text
    assert "Traceback" not in capsys.readouterr().err  # numpy's own warning is kept out
    with pytest.raises(CameraError, match="cannot be loaded"):
        make_source(PiCameraSourceConfig()).open()


def test_a_missing_picamera2_says_where_it_comes_from(monkeypatch):
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    if importlib.util.find_spec("picamera2") is not None:
        pytest.skip("picamera2 is installed here")
    with pytest.raises(CameraError, match="Raspberry Pi OS package.*USB webcam"):
        check_source(PiCameraSourceConfig())


def test_doctor_names_the_broken_camera_stack_and_the_numpy_it_met(tmp_path, on_path):
    on_path(broken_picamera2(tmp_path, "ValueError"))
    check = check_camera(timeout=60, quick=False)
    assert check.status == "FAIL"
    assert "picamera2 is installed but cannot be loaded (ValueError: numpy.dtype size changed" in check.detail
    assert "this Python loads numpy" in check.detail and "--system-site-packages" in check.detail
    assert check.info["picamera2_error"].startswith("ValueError")


@pytest.mark.slow
def test_run_refuses_to_start_with_a_broken_camera_stack(tmp_path, on_path):
    fake = broken_picamera2(tmp_path / "site", "ValueError")
    on_path(fake)
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, UNO_TABLE_DATA=str(work / "data"))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "app", "run", "--source", "picamera2", "--mock-gpio", "--port", "0",
             "--host", "127.0.0.1"],
            cwd=work, env=env, capture_output=True, text=True, timeout=90,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"run started instead of refusing: {exc.stderr}")
    assert done.returncode == 2, done.stderr
    assert "uno-table run: picamera2 is installed but cannot be loaded (ValueError" in done.stderr
    assert "Traceback" not in done.stderr and "Dashboard" not in done.stdout
