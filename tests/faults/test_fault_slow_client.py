"""Item 5 of issue 16: one client cannot take the dashboard down. A hostile client on one
address opens hundreds of half-sent requests and trickles bytes into them; twenty phones on
other addresses keep getting pages fast. Loopback has a whole /8, so each "device" here has
its own source address (127.0.0.2 is the hostile one, 127.0.0.10.. the phones)."""

from __future__ import annotations

import http.client
import socket
import statistics
import threading
import time

import pytest
from web_fakes import FakeTableService

from web_ui.app import create_app
from web_ui.server import BackgroundServer

TOKENS = {i: f"tok-{i}-slow-xxxxxxx" for i in range(4)}
HOSTILE = "127.0.0.2"


def hostile_connections(port: int, n: int, addr: str = HOSTILE) -> list[socket.socket]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind((addr, 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def trickle(socks, stop: threading.Event, every: float):
    while not stop.wait(every):
        for s in socks:
            try:
                s.send(b"X")
            except OSError:
                pass


def phone(i: int, port: int, until: float, out: list, errors: list):
    addr = f"127.0.0.{10 + i}"
    while time.monotonic() < until:
        t0 = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3, source_address=(addr, 0))
            conn.request("GET", "/healthz" if i % 2 else "/api/snapshot")
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status != 200:
                errors.append(resp.status)
            else:
                out.append(time.perf_counter() - t0)
        except OSError as exc:
            errors.append(repr(exc))
        time.sleep(0.05)


def open_server_side(srv, addr=HOSTILE) -> int:
    return srv.server.open_from(addr)


def test_twenty_phones_stay_fast_while_one_client_holds_hundreds_of_half_requests():
    app = create_app(FakeTableService(), host_pin="123456", seat_tokens=TOKENS)
    # 8 threads: waitress's own connection_limit is 108, below what the hostile client opens
    with BackgroundServer(app, threads=8) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        socks = hostile_connections(port, 300)
        stop = threading.Event()
        threading.Thread(target=trickle, args=(socks, stop, 0.5), daemon=True).start()
        try:
            times: list[float] = []
            errors: list = []
            until = time.monotonic() + 4
            phones = [threading.Thread(target=phone, args=(i, port, until, times, errors)) for i in range(20)]
            for t in phones:
                t.start()
            for t in phones:
                t.join(20)
            held = open_server_side(srv)
        finally:
            stop.set()
            for s in socks:
                s.close()
    assert not errors, errors[:5]
    p95 = statistics.quantiles(times, n=20)[-1]
    print(f"\nphones: {len(times)} requests, p95 {p95 * 1000:.0f} ms; hostile client held {held} of 300 connections")
    assert held <= 16
    assert p95 < 0.25


def test_a_request_trickled_byte_by_byte_is_cut_at_the_deadline():
    app = create_app(FakeTableService(), host_pin="123456", seat_tokens=TOKENS)
    with BackgroundServer(app, threads=8, request_timeout=1.5) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        socks = hostile_connections(port, 3)
        stop = threading.Event()
        threading.Thread(target=trickle, args=(socks, stop, 0.3), daemon=True).start()
        try:
            deadline = time.monotonic() + 8
            while open_server_side(srv) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert open_server_side(srv) == 0  # closed although each sent a byte every 0.3 s
        finally:
            stop.set()
            for s in socks:
                s.close()


def test_a_live_stream_is_not_cut_by_the_request_deadline():
    app = create_app(FakeTableService(), host_pin="123456", seat_tokens=TOKENS, heartbeat=0.3)
    with BackgroundServer(app, threads=8, request_timeout=1.0) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/stream")
        resp = conn.getresponse()
        assert resp.status == 200
        t0 = time.monotonic()
        got = b""
        while time.monotonic() - t0 < 4:
            got += resp.read1(4096)
        assert got.count(b"\n\n") >= 5  # snapshot, heartbeats: still flowing after 4 s
        conn.close()


@pytest.mark.parametrize("n", [40])
def test_connections_over_the_per_client_cap_get_503_at_once(n):
    app = create_app(FakeTableService(), host_pin="123456", seat_tokens=TOKENS)
    with BackgroundServer(app, threads=8) as srv:
        port = int(srv.url.rsplit(":", 1)[1])
        socks = hostile_connections(port, n, addr="127.0.0.3")
        try:
            refused = 0
            for s in socks:
                try:
                    s.settimeout(0.5)
                    if s.recv(100).startswith(b"HTTP/1.1 503"):
                        refused += 1
                except OSError:
                    pass
            assert refused == n - 16
        finally:
            for s in socks:
                s.close()
