"""Item 13 of issue 16: one clear line, not a traceback, for what a user gets wrong at the
command line; `dashboard.threads` is read."""

from __future__ import annotations

import socket

import pytest
from faultkit import CONFIG, cli, free_port

from app.config import load_app_config
from table.errors import ConfigError


def test_a_yaml_syntax_error_names_the_file_and_the_line(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text("players: [Ana, Ben\npreset: official\n")
    with pytest.raises(ConfigError) as err:
        load_app_config(cfg)
    msg = str(err.value)
    assert str(cfg) in msg and "<unicode string>" not in msg and "line " in msg


def test_a_config_file_with_binary_bytes_is_one_line(tmp_path):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_bytes(b"players: [Ana, Ben]\n\xff\xfe\x00\x89PNG\r\n")
    out = cli("run", "--config", str(cfg), "--mock-gpio", "--data-dir", str(tmp_path / "d"))
    assert out.returncode == 2 and "Traceback" not in out.stderr and str(cfg) in out.stderr


def _run_with_dashboard(tmp_path, host, port):
    cfg = tmp_path / "uno-table.yaml"
    cfg.write_text(CONFIG + f"dashboard: {{host: '{host}', port: {port}}}\n")
    return cli("run", "--config", str(cfg), "--mock-gpio", "--data-dir", str(tmp_path / "d"))


def test_an_unresolvable_dashboard_host_is_one_line_and_makes_no_match(tmp_path):
    out = _run_with_dashboard(tmp_path, "no-such-host.invalid", free_port())
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "no-such-host.invalid" in out.stderr
    assert not list((tmp_path / "d").rglob("match-*.db"))


def test_a_port_in_use_is_one_line_and_makes_no_match(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = _run_with_dashboard(tmp_path, "127.0.0.1", port)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and f"port {port} is already in use" in out.stderr
    assert not list((tmp_path / "d").rglob("match-*.db"))


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_detect_save_to_a_file_or_an_unwritable_place_is_one_line(tmp_path, kind):
    image = tmp_path / "x.png"
    import cv2
    import numpy as np

    cv2.imwrite(str(image), np.zeros((64, 64, 3), np.uint8))
    if kind == "file":
        target = tmp_path / "taken"
        target.write_text("a file")
    else:
        blocker = tmp_path / "blocker"
        blocker.write_text("a file")
        target = blocker / "sub"  # under a file: no one can make it, root included
    out = cli("detect", "--save", str(target), str(image))
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and str(target) in out.stderr


def test_dashboard_threads_sizes_the_server():
    from web_fakes import FakeTableService

    from web_ui.launch import start_dashboard

    dash = start_dashboard(FakeTableService(), host="127.0.0.1", port=0, out=lambda *_: None, threads=40)
    try:
        assert dash.server.server.task_dispatcher.threads and len(dash.server.server.task_dispatcher.threads) == 40
        assert dash.app.extensions["uno_stream_slots"].limit == 16
    finally:
        dash.close()
