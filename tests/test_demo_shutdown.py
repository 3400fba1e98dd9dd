"""Ctrl-C and SIGTERM stop `uno-table demo` in order, however slow the CPU.

The demo's players run on a worker thread that reads frames through the detector. If the
process exits while a frame is being read, ONNX Runtime is torn down under it and the
process aborts ("terminate called without an active exception", exit 134): seen on an
emulated Pi CPU, where a frame takes seconds. Here a detector made slow on purpose (each
frame takes 1.5 s) stands in for that CPU, and an exit handler plays ONNX Runtime's part: a
frame still in flight when the interpreter exits ends the process with 134. A live-stream
viewer and a camera viewer are connected, so the dashboard's server closes with streams open.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SLOW_DEMO = r"""
import atexit, os, sys, threading, time
import vision.detectors as detectors

in_flight = []
make = detectors.make_detector

class Slow:
    def __init__(self, inner):
        self.inner = inner
    def __getattr__(self, name):
        return getattr(self.inner, name)
    def detect(self, *args, **kwargs):
        in_flight.append(1)
        print("frame begins", file=sys.stderr, flush=True)
        try:
            time.sleep(1.5)  # a slow CPU
            return self.inner.detect(*args, **kwargs)
        finally:
            in_flight.pop()

detectors.make_detector = lambda config: Slow(make(config))

@atexit.register
def _torn_down_mid_frame():
    alive = sorted(t.name for t in threading.enumerate() if t is not threading.main_thread())
    print("threads alive at exit:", ", ".join(alive) or "none", file=sys.stderr, flush=True)
    if in_flight:
        print("ABORT: the interpreter exits while a frame is being read", file=sys.stderr, flush=True)
        os._exit(134)  # what ONNX Runtime's teardown does then

from app.cli import main
sys.exit(main(["demo", "--port", "0", "--detector", "sim-truth", "--fps", "5"]))
"""


def _viewer(url: str, stop: threading.Event) -> None:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            while not stop.is_set() and resp.read(256):
                pass
    except Exception:  # noqa: BLE001 - the server going away ends the viewer
        pass


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_demo_stops_in_order_with_a_frame_in_flight(tmp_path, sig):
    env = dict(os.environ, UNO_TABLE_DATA=str(tmp_path), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_DEMO], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: list[str] = []
    errors: list[str] = []
    begun = threading.Event()

    def read(stream, into, watch=None):
        for line in stream:
            into.append(line)
            if watch is not None and "frame begins" in line and sum("frame begins" in x for x in into) >= 3:
                watch.set()

    threads = [
        threading.Thread(target=read, args=(proc.stdout, lines), daemon=True),
        threading.Thread(target=read, args=(proc.stderr, errors, begun), daemon=True),
    ]
    for t in threads:
        t.start()
    stop = threading.Event()
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            found = [m.group(1) for line in lines if (m := re.search(r"Dashboard: (http://\S+)", line))]
            url = found[0] if found else None
            time.sleep(0.1)
        assert url, f"no dashboard: {''.join(lines)}{''.join(errors)}"
        url = url.replace("0.0.0.0", "127.0.0.1")
        for path in ("/api/stream", "/camera.mjpg"):
            threading.Thread(target=_viewer, args=(url + path, stop), daemon=True).start()
        assert begun.wait(120), "the demo read no frames"
        time.sleep(0.3)  # inside the third frame's 1.5 s
        proc.send_signal(sig)
        code = proc.wait(timeout=60)
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for t in threads:
        t.join(5)
    out = "".join(errors)
    assert code in (0, 130), out
    assert "ABORT" not in out and "terminate called" not in out
    assert "Traceback" not in out, out
    assert "Shutting down" in out
    assert "threads alive at exit: none" in out, out  # the dashboard's request threads too
