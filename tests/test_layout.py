"""The folder contract of DESIGN.md: table/ never imports camera, GPIO or HTTP code."""

import pkgutil
import subprocess
import sys

import table


def test_table_imports_no_camera_gpio_or_http_code():
    modules = [m.name for m in pkgutil.walk_packages(table.__path__, "table.")]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in ('cv2', 'gpiozero', 'flask', 'picamera2', 'waitress', 'onnxruntime', 'torch') if m in sys.modules)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"table/ pulled in: {out.stdout.strip()}"


def test_cli_lists_help():
    out = subprocess.run(
        [sys.executable, "-m", "table.cli", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "uno-table" in out.stdout
