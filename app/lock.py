"""One table per data dir: an exclusive lock held for the life of the process.

Two `uno-table run` on one data dir would both acknowledge inputs into the same match log,
and the replay would then disagree with what each of them showed. So `run` (and the demo
with its dashboard) takes an exclusive `fcntl.flock` on `<dir>/uno-table.lock` before it
opens a match, and keeps the file open until it exits. The kernel drops the lock when the
process dies, however it dies (SIGKILL, power cut), so a stale lock file never blocks a
restart. The file holds the holder's PID and dashboard port, so a second instance is
refused with a message naming the first.

`uno-table unlock` (run on the table's console) sends the holder SIGUSR1, which lifts the
dashboard's PIN lockout (web_ui/security.py).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import time
from pathlib import Path

from table.errors import ConfigError, LogError, UnoTableError

LOCK_NAME = "uno-table.lock"


class AlreadyRunning(UnoTableError, RuntimeError):
    """Another uno-table process holds the data dir."""


class DataDirLock:
    """`with DataDirLock(dir, port=8000):` or `.acquire()` ... `.release()`."""

    def __init__(self, folder: Path, *, port: int | None = None, what: str = "run"):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.port = port
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> DataDirLock:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise LogError(
                f"the data dir {self.folder} is not writable ({exc.strerror}): the game log cannot "
                "be kept there; choose another with --data-dir or fix its permissions"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise AlreadyRunning(
                f"another uno-table is using the data dir {self.folder}: {describe_holder(holder)}. "
                "Stop it first (one table per data dir), or give this one another --data-dir"
            ) from None
        self._fd = fd
        self.update(port=self.port)
        return self

    def update(self, **info) -> None:
        """Rewrite the holder's record (e.g. the port once the dashboard is bound)."""
        if self._fd is None:
            return
        self.port = info.get("port", self.port)
        record = {"pid": os.getpid(), "port": self.port, "command": self.what, "since": time.time()}
        data = json.dumps(record).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
            except OSError:
                pass
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None

    def __enter__(self) -> DataDirLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read_holder(fd: int) -> dict:
    try:
        raw = os.pread(fd, 4096, 0)
        data = json.loads(raw.decode() or "{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def read_holder(folder: Path) -> dict | None:
    """The record of the process holding `folder`, or None when nobody holds it."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def describe_holder(holder: dict | None) -> str:
    if not holder:
        return "a process that has not written its PID yet"
    parts = [f"PID {holder.get('pid', '?')}"]
    if holder.get("port"):
        parts.append(f"dashboard port {holder['port']}")
    if holder.get("command"):
        parts.append(f"`uno-table {holder['command']}`")
    return ", ".join(parts)


# ----------------------------------------------------------------------------- uno-table unlock


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("unlock", help="lift the dashboard's PIN lockout of the running table (console only)")
    p.add_argument("--data-dir", type=Path, help="the running table's data dir (default: $UNO_TABLE_DATA or ./data)")
    p.set_defaults(func=cmd_unlock)


def cmd_unlock(args) -> int:
    from table.paths import data_dir

    root = Path(args.data_dir or data_dir())
    holder = None
    for folder in (root / "matches", root / "demo"):
        holder = read_holder(folder)
        if holder:
            break
    if not holder or not isinstance(holder.get("pid"), int):
        raise ConfigError(f"no running uno-table holds the data dir {root}: nothing to unlock")
    try:
        os.kill(holder["pid"], signal.SIGUSR1)
    except OSError as exc:
        raise ConfigError(f"cannot signal {describe_holder(holder)}: {exc.strerror}") from None
    print(f"Asked {describe_holder(holder)} to lift the PIN lockout; its console confirms it.")
    return 0
