"""Serve the dashboard on waitress, a real threaded WSGI server (never Flask's dev server).

Every open live stream or camera viewer holds one waitress thread, so the pool is sized for
the streams the app allows plus headroom for pages and commands.
"""

from __future__ import annotations

import threading
import time

from flask import Flask


def server_options(app: Flask, *, threads: int | None = None) -> dict:
    slots = app.extensions.get("uno_stream_slots")
    streams = slots.limit if slots is not None else 90
    threads = threads or streams + 8 + 16  # live streams + camera viewers + pages/commands
    return {
        "threads": threads,
        "connection_limit": threads + 100,
        # Read ahead on a busy connection so a client that hangs up is noticed while its
        # stream is still running (environ["waitress.client_disconnected"]).
        "channel_request_lookahead": 5,
        "asyncore_use_poll": True,  # select() tops out at 1024 sockets
        "cleanup_interval": 2,  # the request deadline (web_ui/guard.py) is checked this often
        "channel_timeout": 60,  # an idle keep-alive connection is closed after a minute
        # A request is small (MAX_CONTENT_LENGTH is 64 KiB): waitress refuses bigger ones itself
        # instead of buffering up to its 1 GB default.
        "max_request_header_size": 32 * 1024,
        "max_request_body_size": 256 * 1024,
        "ident": "uno-table",
    }


#: One client address may hold this many connections (a phone's browser opens up to six).
PER_CLIENT = 16
#: A request's line, headers and body must all arrive within this many seconds.
REQUEST_TIMEOUT = 15.0


def make_server(
    app: Flask,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    threads: int | None = None,
    per_client: int = PER_CLIENT,
    request_timeout: float = REQUEST_TIMEOUT,
    sockets: list | None = None,
):
    """A waitress server bound now (port 0 picks a free port: see `.effective_port`), not yet
    running; call `.run()` (blocking) and `.close()` to stop. `sockets`: already bound
    listening sockets to serve instead of binding host:port."""
    from waitress.server import create_server

    from .guard import guard

    options = server_options(app, threads=threads)
    where = {"sockets": sockets} if sockets else {"host": host, "port": port}
    server = create_server(app, **where, **options)
    return guard(server, per_client=per_client, request_timeout=request_timeout)


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8000, *, threads: int | None = None) -> None:
    """Serve until interrupted (blocking)."""
    server = make_server(app, host, port, threads=threads)
    try:
        server.run()
    finally:
        stop_streams(app)
        server.close()


def stop_streams(app: Flask, timeout: float = 3.0) -> None:
    """Ask every open live/camera stream to end and wait (up to `timeout` s) until they have,
    so the server closes with no task still writing."""
    stopping = app.extensions.get("uno_stopping")
    if stopping is None:
        return
    stopping.set()
    slots = [app.extensions.get(k) for k in ("uno_stream_slots", "uno_camera_slots")]
    deadline = time.monotonic() + timeout
    while any(s is not None and s.open for s in slots) and time.monotonic() < deadline:
        time.sleep(0.02)


class BackgroundServer:
    """A waitress server on a thread, for tests, benchmarks and the app hub:
    `with BackgroundServer(app) as srv: requests to srv.url`."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, *, threads: int | None = None,
                 **guard_options):
        self.app = app
        self.server = make_server(app, host, port, threads=threads, **guard_options)
        self.url = f"http://{host}:{self.server.effective_port}"
        self._thread = threading.Thread(target=self._run, name="waitress", daemon=True)
        self._closed = False

    def _run(self) -> None:
        try:
            self.server.run()
        except OSError:
            pass  # the socket map was closed under the loop by close(): a normal stop

    def start(self) -> BackgroundServer:
        self._thread.start()
        return self

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        stop_streams(self.app)
        if self._thread.is_alive():
            # Closed from the loop's own thread: sockets closed under a running poll loop
            # can leave it acting on a dead descriptor ("Bad file descriptor").
            try:
                self.server.trigger.pull_trigger(self._close_sockets)
            except OSError:
                # the trigger is gone already: the loop is ending on its own (seen once in
                # a demo stopped by Ctrl-C); close what is left from here
                self._close_sockets()
            self._thread.join(timeout=5)
        else:
            self._close_sockets()
        # waitress's close() leaves its request threads waiting for work: end them too.
        self.server.task_dispatcher.shutdown(timeout=5)

    def _close_sockets(self) -> None:
        from waitress import wasyncore

        socket_map = self.server._map if hasattr(self.server, "_map") else self.server.map  # one address or several
        wasyncore.close_all(socket_map)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
