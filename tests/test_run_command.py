"""`uno-table run` as a user meets it: starts, serves, stops cleanly on SIGTERM, resumes the
unfinished match after a kill, and refuses clearly what it cannot work with."""

import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request

import pytest

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


def start(tmp_path, *extra, port=None):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(CONFIG)
    port = free_port() if port is None else port
    cmd = [sys.executable, "-m", "app.cli", "run", "--config", str(cfg), "--mock-gpio",
           "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(tmp_path / "data"), *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    deadline = time.time() + 60
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Dashboard:") or time.time() > deadline:
            break
    return proc, port, lines


def snapshot(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=5) as r:
        return json.loads(r.read())


@pytest.mark.slow
def test_run_serves_the_table_stops_on_sigterm_and_resumes_after_a_kill(tmp_path):
    proc, port, lines = start(tmp_path)
    try:
        assert any("New match" in line for line in lines), lines
        assert any("host PIN" in line for line in lines), lines
        snap = snapshot(port)
        assert [s["name"] for s in snap["seats"]] == ["Ana", "Ben", "Cleo"]
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "Shutting down" in out
    finally:
        proc.kill()

    proc, port, lines = start(tmp_path)
    try:
        assert any("Resuming the unfinished match" in line for line in lines), lines
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
    proc, port, lines = start(tmp_path)
    try:
        assert any("Resuming the unfinished match" in line for line in lines), lines
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.slow
def test_run_on_port_0_serves_on_the_free_port_it_prints(tmp_path):
    """--port 0 asks the system for a free port (it was read as "not given": 8000)."""
    proc, _, lines = start(tmp_path, port=0)
    try:
        shown = [line for line in lines if line.startswith("Dashboard:")]
        assert shown, lines
        port = int(re.search(r":(\d+)\b", shown[0].split("http://", 1)[1]).group(1))
        assert port not in (0, 8000)
        assert [s["name"] for s in snapshot(port)["seats"]] == ["Ana", "Ben", "Cleo"]
    finally:
        proc.kill()
        proc.wait(10)


def test_a_port_out_of_range_is_one_clear_line(tmp_path):
    r = run_cli("run", "--port", "70000", cwd=tmp_path)
    assert r.returncode == 2 and "70000 is not a port number (0-65535)" in r.stderr


def test_demo_tables_refuses_a_camera_option_it_cannot_use(tmp_path):
    """--tables plays the league's tables through the referee alone: --detector was ignored."""
    r = run_cli("demo", "--tables", "2", "--detector", "sim-truth", cwd=tmp_path)
    assert r.returncode != 0 and "--detector cannot go with --tables" in r.stderr


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_a_missing_model_file_is_a_clear_error_at_start(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text("vision:\n  source: {type: sim}\n  detector: {type: onnx, detector_path: /nonexistent/det.onnx}\n")
    out = run_cli("run", "--config", str(cfg), "--mock-gpio", "--data-dir", str(tmp_path / "d"))
    assert out.returncode == 2
    assert "/nonexistent/det.onnx" in out.stderr and "Traceback" not in out.stderr


def test_no_gpio_without_mock_gpio_stops_with_the_reason(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(CONFIG)
    out = run_cli("run", "--config", str(cfg), "--data-dir", str(tmp_path / "d"))
    assert out.returncode == 2
    assert "--mock-gpio" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders anyway")
def test_a_read_only_data_dir_is_a_clear_error(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(CONFIG)
    ro = tmp_path / "ro"
    (ro / "matches").mkdir(parents=True)
    os.chmod(ro / "matches", stat.S_IRUSR | stat.S_IXUSR)
    out = run_cli("run", "--config", str(cfg), "--mock-gpio", "--data-dir", str(ro))
    assert out.returncode == 2 and "not writable" in out.stderr


def test_a_broken_config_names_the_file_and_the_field(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text("players: [Ana]\ncolour_blind: yes\n")
    out = run_cli("run", "--config", str(cfg), "--mock-gpio")
    assert out.returncode == 2
    assert str(cfg) in out.stderr and "players" in out.stderr and "colour_blind" in out.stderr


def test_a_data_dir_that_cannot_hold_the_log_is_a_clear_error(tmp_path):
    """As root a chmod does not stop writes, so the data dir is a file: same refusal path."""
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(CONFIG)
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    out = run_cli("run", "--config", str(cfg), "--mock-gpio", "--data-dir", str(blocker))
    assert out.returncode == 2, out.stderr
    assert "not writable" in out.stderr and "Traceback" not in out.stderr
