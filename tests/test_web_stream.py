"""The live channel and the camera stream: the generator on its own, then over a real
waitress server on 127.0.0.1 (snapshot on connect, every event in order, resume after a
dropped connection without a gap or a repeat, a hung-up client frees its thread)."""

from __future__ import annotations

import http.client
import json
import time

import pytest
from web_fakes import FakeTableService, SSEClient

from web_ui.app import create_app
from web_ui.server import BackgroundServer, server_options
from web_ui.stream import event_stream, mjpeg_stream

TOKENS = {0: "t0-xxxxxxxx", 1: "t1-xxxxxxxx"}


def parse(chunks: list[bytes]) -> list[dict]:
    """SSE bytes -> messages {"id", "type", "payload"} (comments as {"comment": True})."""
    out = []
    for block in b"".join(chunks).decode().split("\n\n"):
        if not block.strip():
            continue
        msg: dict = {}
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "":
                msg["comment"] = True
            elif field == "data":
                msg.update(json.loads(value))
            elif field == "id":
                msg["id"] = int(value)
            elif field == "retry":
                msg["retry"] = int(value)
        out.append(msg)
    return out


def take(gen, n: int) -> list[dict]:
    msgs: list[dict] = []
    while len(msgs) < n:
        msgs += parse([next(gen)])
    return msgs


def service_with_events(n: int) -> FakeTableService:
    svc = FakeTableService(seats=2)
    for i in range(n):
        svc.emit("notice", {"text": f"event {i + 1}"})
    return svc


# ---------------------------------------------------------------- the generator


def test_fresh_connection_gets_snapshot_then_every_event_in_order():
    svc = service_with_events(3)
    gen = event_stream(svc, after=None, disconnected=lambda: False, poll=0.05, state_interval=60)
    retry, snap = take(gen, 2)
    assert retry["retry"] > 0
    assert snap["type"] == "snapshot" and snap["id"] == 3 and snap["payload"]["seq"] == 3
    for i in range(4, 9):
        svc.emit("notice", {"text": f"event {i}"})
    got = []
    while len(got) < 5:
        got += [m for m in take(gen, 1) if m.get("type") == "event"]
    assert [m["id"] for m in got] == [4, 5, 6, 7, 8]
    assert [m["payload"]["seq"] for m in got] == [4, 5, 6, 7, 8]
    assert got[0]["payload"]["payload"]["text"] == "event 4"


def test_resume_sends_only_the_missed_events_then_the_state():
    svc = service_with_events(10)
    gen = event_stream(svc, after=6, disconnected=lambda: False, poll=0.05, state_interval=0.0)
    msgs = take(gen, 3)
    assert "snapshot" not in [m.get("type") for m in msgs]
    events = [m for m in msgs if m.get("type") == "event"]
    assert [m["id"] for m in events] == [7, 8, 9, 10]
    state = take(gen, 1)[0]
    assert state["type"] == "state" and state["payload"]["seq"] == 10 and "id" not in state


def test_resume_from_an_unknown_future_id_starts_over_with_a_snapshot():
    svc = service_with_events(2)
    gen = event_stream(svc, after=500, disconnected=lambda: False, poll=0.05)
    _, snap = take(gen, 2)
    assert snap["type"] == "snapshot" and snap["id"] == 2


def test_state_messages_are_rate_limited():
    svc = service_with_events(0)
    gen = event_stream(svc, after=None, disconnected=lambda: False, poll=0.02, state_interval=0.3, heartbeat=60)
    take(gen, 2)
    start = time.monotonic()
    msgs: list[dict] = []
    while time.monotonic() - start < 1.0:
        svc.emit("notice", {"text": "tick"})
        msgs += take(gen, 1)
    states = [m for m in msgs if m.get("type") == "state"]
    events = [m for m in msgs if m.get("type") == "event"]
    assert len(events) >= 20
    assert 1 <= len(states) <= 5  # about one per 0.3 s, never one per event


def test_idle_stream_sends_heartbeats_and_ends_when_the_client_is_gone():
    svc = service_with_events(0)
    gone = {"flag": False}
    gen = event_stream(svc, after=None, disconnected=lambda: gone["flag"], poll=0.02, heartbeat=0.05)
    take(gen, 2)
    assert take(gen, 1)[0] == {"comment": True}
    gone["flag"] = True
    with pytest.raises(StopIteration):
        for _ in range(3):
            next(gen)


def test_mjpeg_sends_the_newest_frame_and_stops_when_the_viewer_leaves():
    svc = FakeTableService()
    svc.push_frame(b"\xff\xd8one\xff\xd9")
    svc.push_frame(b"\xff\xd8two\xff\xd9")
    gone = {"flag": False}
    gen = mjpeg_stream(svc, disconnected=lambda: gone["flag"], poll=0.05, settle=0.1)
    part = next(gen)
    assert part == b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 7\r\n\r\n\xff\xd8two\xff\xd9\r\n"
    start = time.monotonic()
    assert next(gen) == part  # no newer frame: the same one again, so a browser shows it
    assert 0.05 < time.monotonic() - start < 0.5
    assert b"two" in part and b"one" not in part  # a late viewer skips to the newest frame
    gone["flag"] = True
    with pytest.raises(StopIteration):
        next(gen)


# ---------------------------------------------------------------- over waitress


@pytest.fixture
def served():
    svc = FakeTableService(seats=2)
    app = create_app(svc, host_pin="123456", seat_tokens=TOKENS, heartbeat=0.5, state_interval=0.2, max_streams=3)
    with BackgroundServer(app) as srv:
        yield svc, srv


def health(srv) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", int(srv.url.rsplit(":", 1)[1]), timeout=5)
    conn.request("GET", "/healthz")
    body = json.loads(conn.getresponse().read())
    conn.close()
    return body


def test_server_sizes_threads_for_the_streams():
    app = create_app(FakeTableService(), host_pin="123456", seat_tokens=TOKENS, max_streams=60)
    opts = server_options(app)
    assert opts["threads"] > 60 and opts["connection_limit"] > opts["threads"]
    assert opts["channel_request_lookahead"] > 0


def test_stream_over_waitress_resumes_without_gap_or_repeat(served):
    svc, srv = served
    for i in range(3):
        svc.emit("notice", {"text": f"before {i}"})
    client = SSEClient(srv.url)
    assert client.status == 200
    assert client.resp.getheader("Content-Type").startswith("text/event-stream")
    first = client.next()
    assert first["type"] == "snapshot" and first["id"] == 3
    seen = []
    svc.emit("notice", {"text": "live 4"})
    svc.emit("notice", {"text": "live 5"})
    while len(seen) < 2:
        msg = client.next()
        if msg["type"] == "event":
            seen.append(msg["id"])
    client.close()  # the connection drops...
    for i in range(6, 10):  # ...while the table goes on
        svc.emit("notice", {"text": f"missed {i}"})
    again = SSEClient(srv.url, last_event_id=client.last_id)
    while len(seen) < 9 - 3:
        msg = again.next()
        assert msg["type"] != "snapshot"
        if msg["type"] == "event":
            seen.append(msg["id"])
    again.close()
    assert seen == [4, 5, 6, 7, 8, 9]


def test_after_query_parameter_resumes_too(served):
    svc, srv = served
    for i in range(5):
        svc.emit("notice", {"text": f"e{i}"})
    client = SSEClient(srv.url, "/api/stream?after=3")
    msgs = [client.next(), client.next()]
    client.close()
    assert [m["id"] for m in msgs] == [4, 5]


def test_bad_last_event_id_is_a_json_error(served):
    _, srv = served
    client = SSEClient(srv.url, "/api/stream?after=abc")
    assert client.status == 400
    assert "event number" in json.loads(client.resp.read())["error"]
    client.close()


def test_a_client_that_hangs_up_frees_its_stream_slot(served):
    _, srv = served
    clients = [SSEClient(srv.url) for _ in range(3)]
    for c in clients:
        assert c.next()["type"] == "snapshot"
    full = SSEClient(srv.url)
    assert full.status == 503 and full.resp.getheader("Retry-After")
    full.close()
    assert health(srv)["streams"] == 3
    for c in clients:
        c.close()
    deadline = time.monotonic() + 5
    while health(srv)["streams"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert health(srv)["streams"] == 0
    again = SSEClient(srv.url)
    assert again.status == 200 and again.next()["type"] == "snapshot"
    again.close()


def test_mjpeg_over_waitress(served):
    svc, srv = served
    svc.push_frame(b"\xff\xd8frame\xff\xd9")
    conn = http.client.HTTPConnection("127.0.0.1", int(srv.url.rsplit(":", 1)[1]), timeout=5)
    conn.request("GET", "/camera.mjpg")
    resp = conn.getresponse()
    assert resp.getheader("Content-Type") == "multipart/x-mixed-replace; boundary=frame"
    head = resp.read(40)
    assert head.startswith(b"--frame\r\nContent-Type: image/jpeg")
    conn.close()


def test_a_stream_ends_after_max_age_and_the_resume_loses_nothing():
    svc = service_with_events(2)
    gen = event_stream(svc, after=None, disconnected=lambda: False, poll=0.02, max_age=0.1)
    msgs = take(gen, 2)
    svc.emit("notice", {"text": "3"})
    msgs += parse(list(gen))  # ends by itself after max_age
    last = [m["id"] for m in msgs if "id" in m][-1]
    assert last == 3
    resumed = event_stream(svc, after=last, disconnected=lambda: False, poll=0.02)
    svc.emit("notice", {"text": "4"})
    nxt = [m for m in take(resumed, 2) if m.get("type") == "event"]
    assert [m["id"] for m in nxt] == [4]


def test_closing_the_server_ends_open_streams(served):
    svc, srv = served
    client = SSEClient(srv.url)
    assert client.next()["type"] == "snapshot"
    start = time.monotonic()
    srv.close()
    assert time.monotonic() - start < 3
    client.close()


def test_start_dashboard_prints_url_and_pin_and_serves():
    from web_ui.launch import MAX_SEATS, start_dashboard

    lines: list[str] = []
    dash = start_dashboard(FakeTableService(), host="127.0.0.1", port=0, out=lines.append)
    try:
        assert dash.pin.isdigit() and len(dash.pin) == 6
        assert len(dash.seat_tokens) == MAX_SEATS and len(set(dash.seat_tokens.values())) == MAX_SEATS
        assert lines == [f"Dashboard: {dash.url}   host PIN: {dash.pin}   (the Setup and Host pages ask for it)"]
        port = int(dash.url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/api/login", body=json.dumps({"pin": dash.pin}), headers={"Content-Type": "application/json"})
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        dash.close()


class NoCamera(FakeTableService):
    """A service whose latest_frame answers at once (no camera at all)."""

    def __init__(self):
        super().__init__()
        self.frame_calls = 0

    def latest_frame(self, after, timeout):
        self.frame_calls += 1
        return None


def test_mjpeg_without_a_camera_waits_instead_of_spinning():
    svc = NoCamera()
    stop_at = time.monotonic() + 0.3
    gen = mjpeg_stream(svc, disconnected=lambda: time.monotonic() > stop_at, poll=0.1)
    assert list(gen) == []
    assert svc.frame_calls <= 5


def test_the_server_closes_even_when_its_wakeup_pipe_is_already_gone_and_closing_twice_is_harmless():
    # a demo stopped by Ctrl-C once found waitress's trigger closed under a running loop and
    # died with "Bad file descriptor" instead of exiting in order
    import socket

    from flask import Flask

    app = Flask("t")
    app.add_url_rule("/", "i", lambda: "ok")
    srv = BackgroundServer(app).start()
    srv.server.trigger.close()  # the wake-up pipe closed, the loop still running
    srv.close()
    srv.close()
    assert not srv._thread.is_alive()
    host, port = srv.url.removeprefix("http://").split(":")
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=1).close()
