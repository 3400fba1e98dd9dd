"""A local Mosquitto broker on a free port, for the demo, the tests and the benchmark.

    with LocalBroker() as broker:      # raises BrokerMissing when mosquitto is not installed
        broker.url                      # mqtt://127.0.0.1:PORT
        broker.kill(); broker.start()   # a broker restart (same port, messages in flight lost)
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from table.errors import UnoTableError

INSTALL_HINT = (
    "mosquitto is not installed: `sudo apt-get install mosquitto` (Debian, Raspberry Pi OS, "
    "Ubuntu), `brew install mosquitto` (macOS); or use a broker you have with --broker mqtt://HOST"
)


class BrokerMissing(UnoTableError, FileNotFoundError):
    pass


def mosquitto_path() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalBroker:
    """`mosquitto -c CONF` on 127.0.0.1 (or `host`), anonymous, no persistence to disk unless
    `persistence=True` (then retained messages and queued sessions survive a restart)."""

    def __init__(self, port: int | None = None, host: str = "127.0.0.1", persistence: bool = False,
                 max_queued: int = 100_000):  # fmt: skip
        exe = mosquitto_path()
        if exe is None:
            raise BrokerMissing(INSTALL_HINT)
        self.exe = exe
        self.host = host
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="uno-mosquitto-"))
        self.conf = self.dir / "mosquitto.conf"
        lines = [
            f"listener {self.port} {host}",
            "allow_anonymous true",
            f"max_queued_messages {max_queued}",
            "max_inflight_messages 100",
            "log_dest none",
        ]
        if persistence:
            lines += ["persistence true", f"persistence_location {self.dir}/", "autosave_interval 1"]
        self.conf.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> LocalBroker:
        self.proc = subprocess.Popen(
            [self.exe, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True,  # Ctrl-C stops the demo, which then stops its broker
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise UnoTableError(f"mosquitto stopped at start (port {self.port}): {err.strip()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise UnoTableError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def kill(self) -> None:
        """SIGKILL: a crash, not a shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
