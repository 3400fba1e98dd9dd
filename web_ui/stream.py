"""Long-lived responses: the live push channel (Server-Sent Events) and the camera (MJPEG).

Each open stream holds one server thread, so streams are counted (a full house gets 503, not a
hung server) and every loop wakes at least once a second to notice a client that went away
(waitress's `client_disconnected`, and a heartbeat whose write fails on a dead socket).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator

from .service import TableService

RETRY_MS = 1500  # EventSource reconnect delay after a dropped connection


class StreamSlots:
    """A bounded number of concurrent streams, so page loads and commands keep threads."""

    def __init__(self, limit: int):
        self.limit = limit
        self._lock = threading.Lock()
        self.open = 0

    def acquire(self) -> bool:
        with self._lock:
            if self.open >= self.limit:
                return False
            self.open += 1
            return True

    def release(self) -> None:
        with self._lock:
            self.open -= 1


def _rest(seconds: float) -> None:
    if seconds > 0.005:
        time.sleep(seconds)


def sse(msg_type: str, payload, *, event_id: int | None = None) -> bytes:
    """One SSE message carrying a typed JSON message {"type", "payload"}."""
    data = json.dumps({"type": msg_type, "payload": payload}, separators=(",", ":"))
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}data: {data}\n\n".encode()


def event_stream(
    service: TableService,
    *,
    after: int | None,
    disconnected: Callable[[], bool],
    heartbeat: float = 10.0,
    state_interval: float = 1.0,
    poll: float = 1.0,
    max_age: float = float("inf"),
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[bytes]:
    """The live channel. Fresh connection (`after` None): a "snapshot" message (its SSE id is
    the snapshot's seq), then every later event as an "event" message with id = seq, in order.
    Resume (`after` = the Last-Event-ID the browser sends back): the events after it, then a
    "state" message, so nothing is missed or repeated. A "state" (current snapshot) follows
    new events at most once per `state_interval` s. After `max_age` s the stream ends after a
    complete message; EventSource reconnects with Last-Event-ID and loses nothing."""
    born = clock()
    yield f"retry: {RETRY_MS}\n\n".encode()
    snap = service.snapshot()
    head = int(snap.get("seq", 0))
    if after is None or after > head:
        # A resume id from the future means the table's log was replaced (new database):
        # start over with a full snapshot rather than wait for events that never come.
        yield sse("snapshot", snap, event_id=head)
        last = head
        state_due = False
    else:
        last = after
        state_due = True
    last_state = float("-inf") if state_due else clock()
    last_write = clock()
    while not disconnected() and clock() - born < max_age:
        now = clock()
        wait = min(poll, max(0.0, last_write + heartbeat - now))
        if state_due:
            wait = min(wait, max(0.0, last_state + state_interval - now))
        asked = clock()
        events = service.wait_events(last, wait)
        if not events and wait > 0:
            _rest(wait - (clock() - asked))  # a service that answers at once must not spin us
        out = []
        for event in events:
            seq = int(event["seq"])
            if seq <= last:  # never repeat, whatever the service hands back
                continue
            out.append(sse("event", event, event_id=seq))
            last = seq
        if out:
            state_due = True
            yield b"".join(out)
            last_write = clock()
        now = clock()
        if state_due and now - last_state >= state_interval:
            yield sse("state", service.snapshot())
            last_state = last_write = now
            state_due = False
        elif now - last_write >= heartbeat:
            yield b": heartbeat\n\n"
            last_write = now


def mjpeg_stream(
    service: TableService,
    *,
    disconnected: Callable[[], bool],
    keepalive: float = 5.0,
    poll: float = 1.0,
    settle: float = 0.3,
) -> Iterator[bytes]:
    """multipart/x-mixed-replace JPEG parts from the app's one camera; the newest frame each
    time, so a slow viewer skips frames instead of lagging behind.

    Browsers show a part only when the part after it begins, so a frame not followed by
    another within `settle` s is sent once more (a still or slow camera still shows its
    latest picture), and the last frame is repeated every `keepalive` s: a write is how a
    viewer that went away is noticed."""
    frame_no = -1
    last_jpeg: bytes | None = None
    last_write = time.monotonic()
    repeat_at: float | None = None
    while not disconnected():
        asked = time.monotonic()
        wait = poll if repeat_at is None else max(0.0, min(poll, repeat_at - asked))
        got = service.latest_frame(frame_no, wait)
        now = time.monotonic()
        if got is not None:
            frame_no, jpeg = got
            last_jpeg = jpeg
            repeat_at = now + settle
        elif repeat_at is not None and now >= repeat_at:
            jpeg, repeat_at = last_jpeg, None
        elif last_jpeg is not None and now - last_write >= keepalive:
            jpeg = last_jpeg
        else:
            _rest(wait - (now - asked))  # no camera answers at once: wait here instead
            continue
        yield (
            b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
            + str(len(jpeg)).encode()
            + b"\r\n\r\n"
            + jpeg
            + b"\r\n"
        )
        last_write = now
