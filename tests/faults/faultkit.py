"""Helpers of the fault-injection suite: damaged logs, `uno-table` subprocesses, clients."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFIG = """\
players: [Ana, Ben, Cleo]
vision:
  source: {type: sim, seed: 1, plays: 3}
  detector: {type: sim-truth}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(*args, cwd=None, timeout=120, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd or ROOT, env=env)  # fmt: skip


def start_run(tmp_path: Path, *extra: str, config: str = CONFIG, port: int | None = None, data: Path | None = None):
    """`uno-table run` in the background; returns (proc, port, lines up to the URL or exit)."""
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(config)
    port = port or free_port()
    cmd = [sys.executable, "-m", "app.cli", "run", "--config", str(cfg), "--mock-gpio", "--host", "127.0.0.1",
           "--port", str(port), "--data-dir", str(data or tmp_path / "data"), *extra]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    lines: list[str] = []
    deadline = time.time() + 90
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Dashboard:") or time.time() > deadline:
            break
    return proc, port, lines


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.terminate()
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate(timeout=10)
    return out or ""


# ----------------------------------------------------------------------------- damaged logs


def make_log(path: Path, rounds: int = 2, seed: int = 0):
    """A real match log with a few simulated rounds in it (closed, checkpointed)."""
    from table.log import EventLog
    from table.rules import load_rules
    from table.simulator import Simulator

    rules = load_rules("official", overrides={"players": 3})
    with EventLog(path, rules) as log:
        for r in range(rounds):
            Simulator(rules, seed=seed + r, on_input=log.append).play_round()
        n = len(log)
    return rules, n


def damage(path: Path, how: str) -> None:
    """Break a closed log file the ways a power cut, a bad SD card or a hand edit do."""
    size = path.stat().st_size
    if how == "truncated":
        os.truncate(path, size // 2)
    elif how == "zeroed-header":
        with open(path, "r+b") as fh:
            fh.write(b"\0" * 100)
    elif how == "empty":
        os.truncate(path, 0)
    elif how == "mid-file":
        with open(path, "r+b") as fh:
            fh.seek(size // 2)
            fh.write(bytes(range(256)) * 16)
    elif how == "bad-entry":
        con = sqlite3.connect(path)
        con.execute("DROP TRIGGER inputs_no_update")
        con.execute("UPDATE inputs SET body = '{not json' WHERE seq = (SELECT MIN(MAX(seq), 5) FROM inputs)")
        con.commit()
        con.close()
    else:
        raise ValueError(how)


DAMAGES = ["truncated", "zeroed-header", "empty", "mid-file", "bad-entry"]


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)
