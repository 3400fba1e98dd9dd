"""`uno-table doctor`: JSON shape, OK/WARN/FAIL lines and exit codes, on this machine (which has
no camera and no GPIO) with a controlled data dir, models dir and port."""

import json
import socket
import sqlite3

import pytest

from app.cli import main
from firmware_config import doctor
from firmware_config.doctor import check_camera, check_database, check_models, check_port

NAMES = ["camera", "gpio", "pin_map", "models", "data_dir", "database", "port"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def tiny_model(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["images"], ["out"])],
        "tiny",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 3, 8, 8])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    folder = tmp_path / "models"
    folder.mkdir()
    onnx.save(model, folder / "cards.onnx")
    return folder


@pytest.fixture
def no_camera(monkeypatch):
    """This machine has no camera; make that true everywhere the test runs."""
    monkeypatch.setattr(doctor.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(doctor.importlib.util, "find_spec", lambda name: None)


def run(capsys, *args):
    code = main(["doctor", *args])
    return code, capsys.readouterr().out


def test_json_shape_and_failing_exit_without_models(tmp_path, capsys, no_camera):
    empty = tmp_path / "nomodels"
    empty.mkdir()
    code, out = run(capsys, "--json", "--data-dir", str(tmp_path / "data"), "--models-dir", str(empty),
                    "--port", str(free_port()), "--host", "127.0.0.1")  # fmt: skip
    report = json.loads(out)
    assert code == 1
    assert report["ok"] is False
    assert [c["name"] for c in report["checks"]] == NAMES
    for check in report["checks"]:
        assert set(check) == {"name", "status", "detail", "required", "info"}
        assert check["status"] in ("OK", "WARN", "FAIL")
    by_name = {c["name"]: c for c in report["checks"]}
    assert by_name["models"]["status"] == "FAIL" and "no ONNX model" in by_name["models"]["detail"]
    assert by_name["camera"]["status"] == "WARN" and by_name["camera"]["info"]["kind"] is None
    assert by_name["camera"]["required"] is False
    assert by_name["data_dir"]["status"] == "OK"
    assert by_name["database"]["status"] == "OK" and "no database yet" in by_name["database"]["detail"]
    assert sum(report["counts"].values()) == 7 and report["counts"]["FAIL"] == 1


def test_ready_machine_without_camera_exits_zero(tmp_path, tiny_model, capsys, no_camera):
    code, out = run(capsys, "--data-dir", str(tmp_path / "data"), "--models-dir", str(tiny_model),
                    "--port", str(free_port()), "--host", "127.0.0.1", "--mock-gpio")  # fmt: skip
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("WARN  camera")
    assert any(line.startswith("OK    gpio") and "mock" in line for line in lines)
    assert any(line.startswith("OK    models") and "cards.onnx" in line and "images[1, 3, 8, 8]" in line for line in lines)
    assert lines[-1].endswith("ready")


def test_required_camera_fails_without_one(tmp_path, tiny_model, capsys, no_camera):
    code, out = run(capsys, "--json", "--data-dir", str(tmp_path), "--models-dir", str(tiny_model),
                    "--port", str(free_port()), "--host", "127.0.0.1", "--mock-gpio", "--require-camera")  # fmt: skip
    camera = json.loads(out)["checks"][0]
    assert code == 1 and camera["status"] == "FAIL" and camera["required"] is True


def test_busy_port_fails():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        check = check_port(port, "127.0.0.1")
    assert check.status == "FAIL" and str(port) in check.detail and "already running" in check.detail
    assert check_port(port, "127.0.0.1").status == "OK"  # closed again


def test_database_readable_and_damaged(tmp_path):
    db = sqlite3.connect(tmp_path / "table.db")
    db.execute("CREATE TABLE inputs (id INTEGER PRIMARY KEY, body TEXT)")
    db.commit()
    db.close()
    check = check_database(tmp_path)
    assert check.status == "OK" and "table.db (1 tables)" in check.detail
    (tmp_path / "broken.sqlite").write_bytes(b"this is not a database" * 100)
    check = check_database(tmp_path)
    assert check.status == "FAIL" and "broken.sqlite" in check.detail


def test_broken_model_file_fails(tmp_path):
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    check = check_models([tmp_path])
    assert check.status == "FAIL" and "bad.onnx" in check.detail


def test_bad_pin_map_fails_with_its_line(tmp_path, tiny_model, capsys, no_camera):
    bad = tmp_path / "pins.yaml"
    bad.write_text("seats:\n  0: {button: 17}\n  1: {button: 17}\ncolour_pad: null\nbuzzer: null\n")
    code, out = run(capsys, "--json", "--pin-map", str(bad), "--data-dir", str(tmp_path),
                    "--models-dir", str(tiny_model), "--port", str(free_port()), "--host", "127.0.0.1")  # fmt: skip
    pin_map = json.loads(out)["checks"][2]
    assert code == 1 and pin_map["status"] == "FAIL"
    assert f"{bad}:3: seats.1.button" in pin_map["detail"]


def test_unwritable_data_dir_fails(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    check = doctor.check_data_dir(blocker / "data")  # a dir under a regular file cannot exist
    assert check.status == "FAIL" and "not writable" in check.detail


def test_hanging_camera_probe_times_out():
    check = check_camera(timeout=0.5, probe="import time; time.sleep(30)", quick=False)
    assert check.status == "WARN" and "0.5 s" in check.detail


def test_camera_probe_reports_what_it_found():
    # The child's answer is parsed and reported (the probe script is replaced by a stand-in).
    probe = 'print(\'{"picamera2": null, "opencv": {"index": 0, "width": 640, "height": 480}, "errors": []}\')'
    check = check_camera(probe=probe, quick=False)
    assert check.status == "OK" and check.info["kind"] == "opencv" and "640x480" in check.detail


def test_camera_probe_on_this_machine_answers_without_hanging():
    check = check_camera(timeout=20, quick=False)  # the real probe: picamera2, then OpenCV
    assert check.status in ("OK", "WARN")
    assert check.info["kind"] in (None, "picamera2", "opencv")
