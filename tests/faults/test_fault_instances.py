"""Item 3 of issue 16: one `uno-table` per data dir. A second instance is refused with a
message naming the first one's PID and port; a killed instance's lock goes with it."""

from __future__ import annotations

import os
import signal

import pytest
from faultkit import free_port, start_run, stop


def test_a_second_lock_on_a_data_dir_is_refused_naming_the_holder(tmp_path):
    from app.lock import AlreadyRunning, DataDirLock, read_holder

    with DataDirLock(tmp_path, port=8123):
        assert read_holder(tmp_path)["pid"] == os.getpid()
        with pytest.raises(AlreadyRunning) as err:
            DataDirLock(tmp_path, port=9000).acquire()
        assert f"PID {os.getpid()}" in str(err.value) and "port 8123" in str(err.value)
    assert read_holder(tmp_path) is None
    DataDirLock(tmp_path).acquire().release()  # free again


@pytest.mark.slow
def test_two_runs_on_one_data_dir_the_second_is_refused_and_a_kill_frees_it(tmp_path):
    first, port, lines = start_run(tmp_path)
    try:
        assert any(line.startswith("Dashboard:") for line in lines), lines
        files = sorted(p.name for p in (tmp_path / "data" / "matches").iterdir())
        second, _, more = start_run(tmp_path, port=free_port())
        out = "".join(more) + stop(second)
        assert second.returncode == 2, out
        assert f"PID {first.pid}" in out and f"port {port}" in out and "Traceback" not in out
        assert sorted(p.name for p in (tmp_path / "data" / "matches").iterdir()) == files
        assert first.poll() is None  # the first goes on
        os.kill(first.pid, signal.SIGKILL)  # a power cut: the kernel drops the lock
        first.wait(10)
        again, _, lines = start_run(tmp_path)
        try:
            assert any("Resuming the unfinished match" in line for line in lines), lines
        finally:
            stop(again)
    finally:
        stop(first)
