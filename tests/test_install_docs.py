"""The install steps people copy: the README's quick start, its Pi section, PI_SETUP.md, the
arm64 check (tools/arm64_check.sh) and CI (.ci/run) must say the same thing."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PI_SETUP = (ROOT / "firmware_config" / "PI_SETUP.md").read_text()
VENV = "python3 -m venv --system-site-packages .venv && . .venv/bin/activate"


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, re.S)


def marked_block(text: str, mark: str) -> str:
    after = text.split(f"<!-- arm64-check: {mark} -->", 1)[1]
    return bash_blocks(after)[0]


def section(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_quick_start_makes_a_venv_and_ci_runs_the_readme_test_command():
    quick = marked_block(README, "quickstart").strip()
    assert quick.startswith(VENV + " && pip install -e . && uno-table demo")
    start = section(README, "Quick start (Python 3.11, a fresh machine)")
    blocks = [b.strip() for b in bash_blocks(start)]
    assert len(blocks) == 2 and blocks[0] == quick  # two commands: the demo, the tests
    assert blocks[1].startswith(VENV + " && pip install -e '.[test,train]'")
    ci = (ROOT / ".ci" / "run").read_text()
    assert blocks[1] in ci


def test_the_pi_steps_of_the_readme_are_those_of_pi_setup_and_of_the_arm64_check():
    pi = section(README, "Running on a Raspberry Pi")
    pi_os, other = (b.splitlines() for b in bash_blocks(pi)[:2])
    assert marked_block(README, "install").splitlines() == other
    # Raspberry Pi OS: its camera and GPIO packages from apt; elsewhere lgpio from PyPI.
    assert pi_os[:3] == [
        "sudo apt install -y python3-venv python3-picamera2 python3-lgpio", VENV, "pip install -e .",
    ]  # fmt: skip
    assert other[:3] == ["sudo apt install -y python3-venv", VENV, "pip install -e . lgpio"]
    setup = section(PI_SETUP, "Installing")
    setup_pi_os, setup_other = (b.splitlines() for b in bash_blocks(setup)[:2])
    for readme, doc in ((pi_os, setup_pi_os), (other, setup_other)):
        assert readme[1:3] == [line for line in doc if not line.startswith(("sudo", "git"))]
        assert set(readme[0].split()[4:]) <= set(next(x for x in doc if "apt install" in x).split())
    check = (ROOT / "tools" / "arm64_check.sh").read_text()
    assert "<!-- arm64-check: install -->" in check and "<!-- arm64-check: quickstart -->" in check


def test_on_a_pi_numpy_stays_below_2_and_opencv_takes_numpy_1():
    deps = [Requirement(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]

    def pins(machine: str, python: str) -> dict[str, str]:
        env = {"platform_machine": machine, "python_version": python}
        return {r.name: str(r.specifier) for r in deps if r.marker is None or r.marker.evaluate(env)}

    pi = pins("aarch64", "3.11")  # Pi OS and Debian 12 Bookworm
    assert "<2" in pi["numpy"] and pi["numpy"].count(">=1.24") == 1
    assert "<4.12" in pi["opencv-python-headless"]
    for machine, python in (("x86_64", "3.11"), ("aarch64", "3.13")):
        other = pins(machine, python)
        assert "<" not in other["numpy"] and "<" not in other["opencv-python-headless"]
