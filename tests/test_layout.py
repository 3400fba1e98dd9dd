"""The folder contract of DESIGN.md: four floors, every import pointing down.

floor 1 `table/` (the referee library) imports no other project folder; floor 2 `vision/`,
`firmware_config/`, `web_ui/` import `table/` and never each other; floor 3 `models/`
(training) imports the floors below; floor 4 `app/` wires them all. Every import counts,
those inside function bodies too: the walk reads the whole syntax tree of every module.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import table

ROOT = Path(__file__).resolve().parent.parent
FLOOR = {"table": 1, "vision": 2, "firmware_config": 2, "web_ui": 2, "models": 3, "app": 4}


def _project_imports(path: Path) -> list[tuple[int, str]]:
    """(line, top folder) of every import of a project folder anywhere in the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in FLOOR:
                found.append((node.lineno, top))
    return found


def layout_violations(root: Path = ROOT) -> list[str]:
    bad = []
    for folder, floor in FLOOR.items():
        for path in sorted((root / folder).rglob("*.py")):
            for line, top in _project_imports(path):
                if top == folder:
                    continue
                if FLOOR[top] >= floor:
                    where = "sideways" if FLOOR[top] == floor else "up"
                    bad.append(f"{path.relative_to(root)}:{line} imports {top}/ ({where})")
    return bad


def test_every_import_points_down_the_floors_function_bodies_included():
    assert layout_violations() == []


def test_the_layout_check_sees_an_import_hidden_in_a_function(tmp_path):
    for folder in FLOOR:
        (tmp_path / folder).mkdir()
    (tmp_path / "table" / "x.py").write_text("def f():\n    from app.hub import TableHub\n")
    (tmp_path / "vision" / "y.py").write_text("import web_ui.app\n")
    (tmp_path / "models" / "z.py").write_text("from vision.crops import CLASSES\n")
    assert layout_violations(tmp_path) == [
        "table/x.py:2 imports app/ (up)",
        "vision/y.py:1 imports web_ui/ (sideways)",
    ]


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


@pytest.mark.parametrize("module", ["app.cli", "app"])
def test_cli_lists_help(module):
    out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "uno-table" in out.stdout
